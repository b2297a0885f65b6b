//! The classic bind-per-draw renderer, for comparison: what a good wgpu user
//! writes without unbound. Not part of the bindless path.
//!
//! Per material a bind group with its textures; per mesh its own vertex and
//! index buffers; per object a transform at a dynamic uniform offset; CPU
//! frustum culling every frame; one `draw_indexed` per visible object, in an
//! order sorted by material then mesh so nothing is rebound needlessly.
//! Shading is the same WGSL as the bindless path (`wgsl/surface.wgsl`), so the
//! two render matching images (checked by `tests/parity.rs`).

use glam::{Mat4, Vec4};
use wgpu::util::DeviceExt;

use crate::bench_scenes::SceneSpec;
use crate::camera::{Camera, Lighting, frustum_planes, sphere_in_frustum};
use crate::gpu_types::{
    FRAME_FLAG_NORMAL_MAPS, GpuFrameUniforms, GpuMaterial, GpuMaterialTexture,
    MATERIAL_FLAG_NORMAL_MAP,
};
use crate::mipmaps::{MipGenerator, full_mip_count};
use crate::passes::draw::{DEPTH_FORMAT, FrameTarget};
use crate::scene::world_sphere;
use crate::shaders;

/// Bytes between object transforms (the dynamic-offset alignment).
const OBJECT_STRIDE: u64 = 256;

#[derive(Debug)]
struct BaselineMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    bounds: crate::geometry::MeshBounds,
}

#[derive(Debug, Clone, Copy)]
struct BaselineObject {
    mesh: u32,
    material: u32,
    sphere: Vec4,
}

/// What one baseline frame recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BaselineStats {
    /// Objects that passed CPU culling (= draws).
    pub visible_instances: u32,
    /// `draw_indexed` calls.
    pub draws: u32,
    /// Triangles submitted.
    pub triangles: u64,
    /// `set_bind_group` calls.
    pub bind_groups_set: u32,
    /// Commands recorded (binds, buffer sets, draws).
    pub commands_recorded: u32,
}

/// The bind-per-draw renderer. See the module docs.
#[derive(Debug)]
pub struct BaselineRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::RenderPipeline,
    frame_uniforms: wgpu::Buffer,
    frame_group: wgpu::BindGroup,
    material_groups: Vec<wgpu::BindGroup>,
    meshes: Vec<BaselineMesh>,
    objects: Vec<BaselineObject>,
    object_uniforms: wgpu::Buffer,
    object_group: wgpu::BindGroup,
    /// Object indices sorted by (material, mesh).
    draw_order: Vec<u32>,
    camera: Camera,
    lighting: Lighting,
    timestamps: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
}

fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

impl BaselineRenderer {
    /// Uploads `scene` the classic way. `color_format` is the target format.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &SceneSpec,
        color_format: wgpu::TextureFormat,
    ) -> Self {
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let both = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("baseline frame"),
            entries: &[uniform_entry(0, both, false)],
        });
        let texture_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: fragment,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let sampler_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: fragment,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        };
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("baseline material"),
            entries: &[
                uniform_entry(0, both, false),
                texture_entry(1),
                texture_entry(2),
                texture_entry(3),
                texture_entry(4),
                sampler_entry(5),
                sampler_entry(6),
                sampler_entry(7),
                sampler_entry(8),
            ],
        });
        let object_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("baseline object"),
            entries: &[uniform_entry(0, wgpu::ShaderStages::VERTEX, true)],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("baseline"),
            bind_group_layouts: &[
                Some(&frame_layout),
                Some(&material_layout),
                Some(&object_layout),
            ],
            immediate_size: 0,
        });
        let module = shaders::BASELINE.create(device);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("baseline"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: size_of::<crate::gpu_types::GpuVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Uint32, 2 => Uint32, 3 => Float32x2, 4 => Float32x2],
                })],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(color_format.into())],
            }),
            primitive: wgpu::PrimitiveState {
                cull_mode: Some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        });

        // Textures, each with its own mip chain.
        let mut mipmaps = MipGenerator::new(device);
        let mut encoder = device.create_command_encoder(&Default::default());
        let views: Vec<wgpu::TextureView> = scene
            .textures
            .iter()
            .map(|t| {
                let size = wgpu::Extent3d {
                    width: t.size,
                    height: t.size,
                    depth_or_array_layers: 1,
                };
                let texture = device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("baseline texture"),
                    size,
                    mip_level_count: full_mip_count(t.size, t.size),
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: if t.srgb {
                        wgpu::TextureFormat::Rgba8UnormSrgb
                    } else {
                        wgpu::TextureFormat::Rgba8Unorm
                    },
                    usage: wgpu::TextureUsages::TEXTURE_BINDING
                        | wgpu::TextureUsages::COPY_DST
                        | wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                });
                queue.write_texture(
                    texture.as_image_copy(),
                    &t.data,
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(t.size * 4),
                        rows_per_image: None,
                    },
                    size,
                );
                mipmaps.generate(device, &mut encoder, &texture);
                texture.create_view(&Default::default())
            })
            .collect();
        queue.submit([encoder.finish()]);
        let white = device.create_texture_with_data(
            queue,
            &wgpu::TextureDescriptor {
                label: Some("baseline white"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            &[255; 4],
        );
        let white = white.create_view(&Default::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("baseline sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            address_mode_w: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });

        // One bind group per material: its uniform block and its textures.
        let identity = crate::materials::UvTransform::default().rows();
        let texture_ref = GpuMaterialTexture {
            uv_row0: identity[0],
            uv_row1: identity[1],
            ..Default::default()
        };
        let material_groups = scene
            .materials
            .iter()
            .map(|m| {
                let material = GpuMaterial {
                    base_color_factor: [1.0; 4],
                    emissive_factor: [0.0; 3],
                    emissive_strength: 1.0,
                    metallic_factor: 0.0,
                    roughness_factor: 0.6,
                    normal_scale: 1.0,
                    occlusion_strength: 1.0,
                    alpha_cutoff: 0.5,
                    alpha_mode: 0,
                    flags: if m.normal.is_some() {
                        MATERIAL_FLAG_NORMAL_MAP
                    } else {
                        0
                    },
                    _pad: 0,
                    base_color: texture_ref,
                    metallic_roughness: texture_ref,
                    normal: texture_ref,
                    occlusion: texture_ref,
                    emissive: texture_ref,
                };
                let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("baseline material"),
                    contents: bytemuck::bytes_of(&material),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let normal = m.normal.map_or(&white, |n| &views[n]);
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("baseline material"),
                    layout: &material_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: uniform.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(&views[m.base_color]),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(normal),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: wgpu::BindingResource::TextureView(&white),
                        },
                        wgpu::BindGroupEntry {
                            binding: 4,
                            resource: wgpu::BindingResource::TextureView(&white),
                        },
                        wgpu::BindGroupEntry {
                            binding: 5,
                            resource: wgpu::BindingResource::Sampler(&sampler),
                        },
                        wgpu::BindGroupEntry {
                            binding: 6,
                            resource: wgpu::BindingResource::Sampler(&sampler),
                        },
                        wgpu::BindGroupEntry {
                            binding: 7,
                            resource: wgpu::BindingResource::Sampler(&sampler),
                        },
                        wgpu::BindGroupEntry {
                            binding: 8,
                            resource: wgpu::BindingResource::Sampler(&sampler),
                        },
                    ],
                })
            })
            .collect();

        // One vertex and one index buffer per mesh.
        let meshes = scene
            .meshes
            .iter()
            .map(|mesh| {
                let data = mesh.as_mesh_data();
                BaselineMesh {
                    vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("baseline vertices"),
                        contents: bytemuck::cast_slice(&data.packed_vertices()),
                        usage: wgpu::BufferUsages::VERTEX,
                    }),
                    indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("baseline indices"),
                        contents: bytemuck::cast_slice(&mesh.indices),
                        usage: wgpu::BufferUsages::INDEX,
                    }),
                    index_count: mesh.indices.len() as u32,
                    bounds: data.bounds(),
                }
            })
            .collect::<Vec<_>>();

        // Transforms at 256-byte strides for dynamic offsets.
        let mut transforms = vec![0u8; scene.objects.len().max(1) * OBJECT_STRIDE as usize];
        let objects = scene
            .objects
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let start = i * OBJECT_STRIDE as usize;
                transforms[start..start + 64]
                    .copy_from_slice(bytemuck::bytes_of(&o.world_from_object.to_cols_array()));
                BaselineObject {
                    mesh: o.mesh,
                    material: o.material,
                    sphere: Vec4::from_array(world_sphere(
                        &o.world_from_object,
                        &meshes[o.mesh as usize].bounds,
                    )),
                }
            })
            .collect::<Vec<_>>();
        let object_uniforms = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("baseline object transforms"),
            contents: &transforms,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let object_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("baseline object"),
            layout: &object_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &object_uniforms,
                    offset: 0,
                    size: wgpu::BufferSize::new(64),
                }),
            }],
        });
        let frame_uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("baseline frame"),
            size: size_of::<GpuFrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("baseline frame"),
            layout: &frame_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_uniforms.as_entire_binding(),
            }],
        });
        let mut draw_order: Vec<u32> = (0..objects.len() as u32).collect();
        draw_order.sort_by_key(|&i| (objects[i as usize].material, objects[i as usize].mesh));
        let timestamps = device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| {
                (
                    device.create_query_set(&wgpu::QuerySetDescriptor {
                        label: Some("baseline timestamps"),
                        ty: wgpu::QueryType::Timestamp,
                        count: 2,
                    }),
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("baseline timestamp resolve"),
                        size: 16,
                        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    }),
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("baseline timestamp readback"),
                        size: 16,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }),
                )
            });
        Self {
            device: device.clone(),
            queue: queue.clone(),
            pipeline,
            frame_uniforms,
            frame_group,
            material_groups,
            meshes,
            objects,
            object_uniforms,
            object_group,
            draw_order,
            camera: scene.camera,
            lighting: scene.lighting,
            timestamps,
        }
    }

    /// Sets the camera.
    pub fn set_camera(&mut self, camera: &Camera) {
        self.camera = *camera;
    }

    /// Moves object `index` (scene order): CPU bounds plus one queued uniform write.
    pub fn set_transform(&mut self, index: usize, world_from_object: Mat4) {
        let object = &mut self.objects[index];
        object.sphere = Vec4::from_array(world_sphere(
            &world_from_object,
            &self.meshes[object.mesh as usize].bounds,
        ));
        self.queue.write_buffer(
            &self.object_uniforms,
            index as u64 * OBJECT_STRIDE,
            bytemuck::bytes_of(&world_from_object.to_cols_array()),
        );
    }

    /// Records one frame: CPU culling, then one draw per visible object.
    pub fn render(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
    ) -> BaselineStats {
        let clip_from_world = self.camera.clip_from_world();
        let planes = frustum_planes(&clip_from_world);
        let uniforms = GpuFrameUniforms::new(
            &self.camera,
            &self.lighting,
            self.objects.len() as u32,
            self.meshes.len() as u32,
            FRAME_FLAG_NORMAL_MAPS,
        );
        self.queue
            .write_buffer(&self.frame_uniforms, 0, bytemuck::bytes_of(&uniforms));
        let mut stats = BaselineStats::default();
        {
            let timestamps =
                self.timestamps
                    .as_ref()
                    .map(|(set, _, _)| wgpu::RenderPassTimestampWrites {
                        query_set: set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    });
            let mut pass = target.begin_pass(encoder, "baseline draw", timestamps);
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.frame_group, &[]);
            stats.bind_groups_set += 1;
            stats.commands_recorded += 2;
            let (mut bound_material, mut bound_mesh) = (u32::MAX, u32::MAX);
            for &index in &self.draw_order {
                let object = self.objects[index as usize];
                if !sphere_in_frustum(&planes, object.sphere) {
                    continue;
                }
                if object.material != bound_material {
                    pass.set_bind_group(1, &self.material_groups[object.material as usize], &[]);
                    bound_material = object.material;
                    stats.bind_groups_set += 1;
                    stats.commands_recorded += 1;
                }
                let mesh = &self.meshes[object.mesh as usize];
                if object.mesh != bound_mesh {
                    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                    pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                    bound_mesh = object.mesh;
                    stats.commands_recorded += 2;
                }
                pass.set_bind_group(
                    2,
                    &self.object_group,
                    &[(u64::from(index) * OBJECT_STRIDE) as u32],
                );
                pass.draw_indexed(0..mesh.index_count, 0, 0..1);
                stats.bind_groups_set += 1;
                stats.commands_recorded += 2;
                stats.draws += 1;
                stats.triangles += u64::from(mesh.index_count / 3);
            }
            stats.visible_instances = stats.draws;
        }
        if let Some((set, resolve, readback)) = &self.timestamps {
            encoder.resolve_query_set(set, 0..2, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, readback, 0, 16);
        }
        stats
    }

    /// GPU time of the last frame's draw pass, after that frame has been
    /// submitted and waited for (blocking; for benchmarks).
    pub fn last_draw_ms(&self) -> Option<f64> {
        let (_, _, readback) = self.timestamps.as_ref()?;
        readback.map_async(wgpu::MapMode::Read, .., |_| {});
        self.device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
        let ticks: [u64; 2] =
            bytemuck::pod_read_unaligned(&readback.get_mapped_range(..).ok()?[..16]);
        readback.unmap();
        let period = f64::from(self.queue.get_timestamp_period());
        Some(ticks[1].saturating_sub(ticks[0]) as f64 * period / 1e6)
    }

    /// Bytes of GPU memory in the baseline's buffers (textures excluded).
    pub fn buffer_bytes(&self) -> u64 {
        self.object_uniforms.size()
            + self
                .meshes
                .iter()
                .map(|m| m.vertices.size() + m.indices.size())
                .sum::<u64>()
    }
}
