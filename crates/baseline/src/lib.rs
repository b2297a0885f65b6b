//! The classic bind-per-draw renderer, for comparison: what a good wgpu user
//! writes without unbound. Not part of the bindless path.
//!
//! Per material a bind group with its textures; per mesh its own vertex and
//! index buffers; per object a transform at a dynamic uniform offset; CPU
//! frustum culling every frame; one `draw_indexed` per visible object, in an
//! order sorted by material then mesh so nothing is rebound needlessly.
//! Like the bindless path it has three pipelines: opaque and masked (back
//! faces culled), double-sided, and alpha-blended (drawn last, without depth
//! writes, far to near by the distance of each object's bounding-sphere
//! centre from the near plane, sorted on the CPU every frame).
//! Shading is the same WGSL as the bindless path (`wgsl/surface.wgsl`), so the
//! two render matching images (checked by `tests/parity.rs`, for the
//! procedural benchmark scenes and for glTF files via
//! [`BaselineRenderer::from_gltf`]).

use glam::{Mat4, Vec4};
use wgpu::util::DeviceExt;

use unbound::camera::{Camera, Lighting, frustum_planes, sphere_in_frustum};
use unbound::geometry::MeshData;
use unbound::gpu_types::MATERIAL_FLAG_DOUBLE_SIDED;
use unbound::gpu_types::{
    BUCKET_BLEND, FRAME_FLAG_NORMAL_MAPS, GpuFrameUniforms, GpuMaterial, GpuMaterialTexture,
    MATERIAL_FLAG_NORMAL_MAP,
};
use unbound::heap::SamplerDesc;
use unbound::loaders::gltf::{GltfDocument, GltfMaterial, GltfTextureRef, TexelData};
use unbound::materials::AlphaMode;
use unbound::materials::UvTransform;
use unbound::mipmaps::{MipGenerator, full_mip_count};
use unbound::passes::draw::{
    BUCKET_RENDER_STATES, FrameTarget, bucket_color_target, bucket_depth_stencil,
};
use unbound::scene::world_sphere;
use unbound::shaders::ShaderVariant;
use unbound_scenes::bench::SceneSpec;

/// The baseline's shader: `wgsl/baseline.wgsl` of this crate, which
/// includes the library's `types.wgsl` and `surface.wgsl`.
pub const SHADER: ShaderVariant = ShaderVariant {
    file: "baseline.wgsl",
    defines: &[],
    extra: &[("baseline.wgsl", include_str!("../wgsl/baseline.wgsl"))],
};

/// Bytes between object transforms (the dynamic-offset alignment).
const OBJECT_STRIDE: u64 = 256;

#[derive(Debug)]
struct BaselineMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    bounds: unbound::geometry::MeshBounds,
}

#[derive(Debug, Clone, Copy)]
struct BaselineObject {
    mesh: u32,
    material: u32,
    /// Pipeline bucket (`gpu_types::BUCKET_*`).
    bucket: u32,
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

/// Why [`BaselineRenderer::from_gltf`] could not build a scene.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BaselineError {
    /// A texture's format needs a device feature the device lacks (BC
    /// textures without `TEXTURE_COMPRESSION_BC`).
    #[error("texture {texture} is {format:?}, which needs {missing:?}: not enabled on this device")]
    MissingFeature {
        /// Index of the texture in the document.
        texture: usize,
        /// Its format.
        format: wgpu::TextureFormat,
        /// The features it needs that the device lacks.
        missing: wgpu::Features,
    },
}

/// The bind-per-draw renderer. See the module docs.
#[derive(Debug)]
pub struct BaselineRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// Opaque, double-sided, blended (`gpu_types::BUCKET_*` order).
    pipelines: [wgpu::RenderPipeline; 3],
    frame_uniforms: wgpu::Buffer,
    frame_group: wgpu::BindGroup,
    material_groups: Vec<wgpu::BindGroup>,
    meshes: Vec<BaselineMesh>,
    objects: Vec<BaselineObject>,
    object_uniforms: wgpu::Buffer,
    object_group: wgpu::BindGroup,
    /// Object indices sorted by (bucket, material, mesh); the blended tail
    /// is re-sorted far to near every frame.
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

/// A texture to upload: level 0 as RGBA8 (mips generated), or every level
/// of a block-compressed format.
struct TextureInput<'a> {
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
    levels: Vec<&'a [u8]>,
}

/// A material: its uniform block and, per binding (base colour, normal,
/// occlusion, emissive), a texture and a sampler (`None`: white, default).
struct MaterialInput {
    uniform: GpuMaterial,
    textures: [Option<(usize, usize)>; 4],
}

/// Everything the baseline uploads, from either scene kind.
struct SceneInput<'a> {
    textures: Vec<TextureInput<'a>>,
    samplers: Vec<SamplerDesc>,
    materials: Vec<MaterialInput>,
    meshes: Vec<MeshData<'a>>,
    /// (mesh, material, world_from_object).
    objects: Vec<(u32, u32, Mat4)>,
    camera: Camera,
    lighting: Lighting,
}

/// The material uniform of a procedural scene's material.
fn scene_material(normal_map: bool) -> GpuMaterial {
    let identity = UvTransform::default().rows();
    let texture_ref = GpuMaterialTexture {
        uv_row0: identity[0],
        uv_row1: identity[1],
        ..Default::default()
    };
    GpuMaterial {
        base_color_factor: [1.0; 4],
        emissive_factor: [0.0; 3],
        emissive_strength: 1.0,
        metallic_factor: 0.0,
        roughness_factor: 0.6,
        normal_scale: 1.0,
        occlusion_strength: 1.0,
        alpha_cutoff: 0.5,
        alpha_mode: 0,
        flags: if normal_map {
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
    }
}

/// The material uniform of a glTF material: what `Material::to_gpu` writes,
/// without heap slots (the baseline binds its textures directly).
fn gltf_material(m: &GltfMaterial) -> GpuMaterial {
    let texture_ref = |t: &Option<GltfTextureRef>| {
        let (transform, uv_set) =
            t.map_or((UvTransform::default(), 0), |t| (t.transform, t.uv_set));
        let rows = transform.rows();
        GpuMaterialTexture {
            uv_row0: rows[0],
            uv_row1: rows[1],
            uv_set,
            ..Default::default()
        }
    };
    let (alpha_mode, alpha_cutoff) = match m.alpha_mode {
        AlphaMode::Opaque => (0, 0.5),
        AlphaMode::Mask { cutoff } => (1, cutoff),
        AlphaMode::Blend => (2, 0.5),
    };
    let mut flags = 0;
    if m.double_sided {
        flags |= MATERIAL_FLAG_DOUBLE_SIDED;
    }
    if m.normal.is_some() {
        flags |= MATERIAL_FLAG_NORMAL_MAP;
    }
    GpuMaterial {
        base_color_factor: m.base_color_factor.to_array(),
        emissive_factor: m.emissive_factor.to_array(),
        emissive_strength: m.emissive_strength,
        metallic_factor: m.metallic_factor,
        roughness_factor: m.roughness_factor,
        normal_scale: m.normal_scale,
        occlusion_strength: m.occlusion_strength,
        alpha_cutoff,
        alpha_mode,
        flags,
        _pad: 0,
        base_color: texture_ref(&m.base_color),
        metallic_roughness: texture_ref(&m.metallic_roughness),
        normal: texture_ref(&m.normal),
        occlusion: texture_ref(&m.occlusion),
        emissive: texture_ref(&m.emissive),
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
        let input = SceneInput {
            textures: scene
                .textures
                .iter()
                .map(|t| TextureInput {
                    width: t.size,
                    height: t.size,
                    format: if t.srgb {
                        wgpu::TextureFormat::Rgba8UnormSrgb
                    } else {
                        wgpu::TextureFormat::Rgba8Unorm
                    },
                    levels: vec![&t.data],
                })
                .collect(),
            samplers: vec![SamplerDesc::default()],
            materials: scene
                .materials
                .iter()
                .map(|m| MaterialInput {
                    uniform: scene_material(m.normal.is_some()),
                    textures: [
                        Some((m.base_color, 0)),
                        m.normal.map(|n| (n, 0)),
                        None,
                        None,
                    ],
                })
                .collect(),
            meshes: scene.meshes.iter().map(|m| m.as_mesh_data()).collect(),
            objects: scene
                .objects
                .iter()
                .map(|o| (o.mesh, o.material, o.world_from_object))
                .collect(),
            camera: scene.camera,
            lighting: scene.lighting,
        };
        Self::build(device, queue, &input, color_format)
    }

    /// Uploads a parsed glTF document the classic way, placed by
    /// `world_from_scene` (as [`GltfDocument::upload`]
    /// places it): per material a bind group with its textures and samplers.
    /// Block-compressed textures need `TEXTURE_COMPRESSION_BC` on `device`
    /// ([`BaselineError::MissingFeature`] otherwise, before anything is
    /// created).
    pub fn from_gltf(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        document: &GltfDocument,
        world_from_scene: Mat4,
        camera: &Camera,
        lighting: &Lighting,
        color_format: wgpu::TextureFormat,
    ) -> Result<Self, BaselineError> {
        for (texture, t) in document.textures.iter().enumerate() {
            let format = t.format();
            let missing = format.required_features() - device.features();
            if !missing.is_empty() {
                return Err(BaselineError::MissingFeature {
                    texture,
                    format,
                    missing,
                });
            }
        }
        let binding = |t: &Option<GltfTextureRef>| t.map(|t| (t.texture, t.sampler));
        let input = SceneInput {
            textures: document
                .textures
                .iter()
                .map(|t| TextureInput {
                    width: t.width,
                    height: t.height,
                    format: t.format(),
                    levels: match &t.data {
                        TexelData::Rgba8(rgba) => vec![rgba.as_slice()],
                        TexelData::Compressed { levels, .. } => {
                            levels.iter().map(Vec::as_slice).collect()
                        }
                    },
                })
                .collect(),
            samplers: document.samplers.clone(),
            materials: document
                .materials
                .iter()
                .map(|m| MaterialInput {
                    uniform: gltf_material(m),
                    textures: [
                        binding(&m.base_color),
                        binding(&m.normal),
                        binding(&m.occlusion),
                        binding(&m.emissive),
                    ],
                })
                .collect(),
            meshes: document.meshes.iter().map(|m| m.as_mesh_data()).collect(),
            objects: document
                .placements
                .iter()
                .map(|p| {
                    let mesh = &document.meshes[p.mesh];
                    (
                        p.mesh as u32,
                        mesh.material as u32,
                        world_from_scene * p.scene_from_object,
                    )
                })
                .collect(),
            camera: *camera,
            lighting: *lighting,
        };
        Ok(Self::build(device, queue, &input, color_format))
    }

    fn build(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &SceneInput<'_>,
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
        let module = SHADER.create(device);
        // The bindless draw pass's three bucket pipelines (BUCKET_* order).
        let pipelines = BUCKET_RENDER_STATES.map(|(name, cull_mode, blend)| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(&format!("baseline {name}")),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: size_of::<unbound::gpu_types::GpuVertex>() as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Uint32, 2 => Uint32, 3 => Float32x2, 4 => Float32x2],
                    })],
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(bucket_color_target(color_format, blend))],
                }),
                primitive: wgpu::PrimitiveState {
                    cull_mode,
                    ..Default::default()
                },
                depth_stencil: Some(bucket_depth_stencil(blend)),
                multisample: Default::default(),
                multiview_mask: None,
                cache: None,
            })
        });

        // Textures, each with its own mip chain.
        let mut mipmaps = MipGenerator::new(device);
        let mut encoder = device.create_command_encoder(&Default::default());
        let views: Vec<wgpu::TextureView> = scene
            .textures
            .iter()
            .map(|t| {
                let size = wgpu::Extent3d {
                    width: t.width,
                    height: t.height,
                    depth_or_array_layers: 1,
                };
                // Block-compressed levels are uploaded as they are; RGBA8
                // gets a generated chain.
                let compressed = t.format.is_compressed();
                let texture = device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("baseline texture"),
                    size,
                    mip_level_count: if compressed {
                        t.levels.len() as u32
                    } else {
                        full_mip_count(t.width, t.height)
                    },
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: t.format,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING
                        | wgpu::TextureUsages::COPY_DST
                        | if compressed {
                            wgpu::TextureUsages::empty()
                        } else {
                            wgpu::TextureUsages::RENDER_ATTACHMENT
                        },
                    view_formats: &[],
                });
                let bw = t.format.block_dimensions().0;
                let block_bytes = t.format.block_copy_size(None).unwrap_or(4);
                for (level, data) in t.levels.iter().enumerate() {
                    let physical = size
                        .mip_level_size(level as u32, wgpu::TextureDimension::D2)
                        .physical_size(t.format);
                    queue.write_texture(
                        wgpu::TexelCopyTextureInfo {
                            texture: &texture,
                            mip_level: level as u32,
                            origin: wgpu::Origin3d::ZERO,
                            aspect: wgpu::TextureAspect::All,
                        },
                        data,
                        wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(physical.width / bw * block_bytes),
                            rows_per_image: None,
                        },
                        physical,
                    );
                }
                if !compressed {
                    mipmaps.generate(device, &mut encoder, &texture);
                }
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
        let sampler = |desc: &SamplerDesc| {
            device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("baseline sampler"),
                address_mode_u: desc.address_u,
                address_mode_v: desc.address_v,
                address_mode_w: desc.address_u,
                mag_filter: desc.mag_filter,
                min_filter: desc.min_filter,
                mipmap_filter: desc.mipmap_filter,
                ..Default::default()
            })
        };
        let default_sampler = sampler(&SamplerDesc::default());
        let samplers: Vec<wgpu::Sampler> = scene.samplers.iter().map(sampler).collect();

        // One bind group per material: its uniform block, textures and samplers.
        let material_groups = scene
            .materials
            .iter()
            .map(|m| {
                let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("baseline material"),
                    contents: bytemuck::bytes_of(&m.uniform),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let view = |b: Option<(usize, usize)>| b.map_or(&white, |(t, _)| &views[t]);
                let sampler =
                    |b: Option<(usize, usize)>| b.map_or(&default_sampler, |(_, s)| &samplers[s]);
                let mut entries = vec![wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                }];
                for (i, &b) in m.textures.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: 1 + i as u32,
                        resource: wgpu::BindingResource::TextureView(view(b)),
                    });
                    entries.push(wgpu::BindGroupEntry {
                        binding: 5 + i as u32,
                        resource: wgpu::BindingResource::Sampler(sampler(b)),
                    });
                }
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("baseline material"),
                    layout: &material_layout,
                    entries: &entries,
                })
            })
            .collect();
        let material_buckets: Vec<u32> =
            scene.materials.iter().map(|m| m.uniform.bucket()).collect();

        // One vertex and one index buffer per mesh.
        let meshes = scene
            .meshes
            .iter()
            .map(|data| BaselineMesh {
                vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("baseline vertices"),
                    contents: bytemuck::cast_slice(&data.packed_vertices()),
                    usage: wgpu::BufferUsages::VERTEX,
                }),
                indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("baseline indices"),
                    contents: bytemuck::cast_slice(data.indices),
                    usage: wgpu::BufferUsages::INDEX,
                }),
                index_count: data.indices.len() as u32,
                bounds: data.bounds(),
            })
            .collect::<Vec<_>>();

        // Transforms at 256-byte strides for dynamic offsets.
        let mut transforms = vec![0u8; scene.objects.len().max(1) * OBJECT_STRIDE as usize];
        let objects = scene
            .objects
            .iter()
            .enumerate()
            .map(|(i, &(mesh, material, world_from_object))| {
                let start = i * OBJECT_STRIDE as usize;
                transforms[start..start + 64]
                    .copy_from_slice(bytemuck::bytes_of(&world_from_object.to_cols_array()));
                BaselineObject {
                    mesh,
                    material,
                    bucket: material_buckets[material as usize],
                    sphere: Vec4::from_array(world_sphere(
                        &world_from_object,
                        &meshes[mesh as usize].bounds,
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
        // Opaque buckets in a fixed order; blended objects are sorted by
        // depth each frame.
        let mut draw_order: Vec<u32> = (0..objects.len() as u32).collect();
        draw_order.sort_by_key(|&i| {
            let o = &objects[i as usize];
            (o.bucket, o.material, o.mesh)
        });
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
            pipelines,
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

    /// Sets the light and ambient term.
    pub fn set_lighting(&mut self, lighting: &Lighting) {
        self.lighting = *lighting;
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
        // Blended objects far to near: distance of the bounding-sphere
        // centre from the near plane (the cull pass's depth-bucket measure).
        let near = planes[4];
        let objects = &self.objects;
        let first_blended = self
            .draw_order
            .partition_point(|&i| objects[i as usize].bucket < BUCKET_BLEND);
        self.draw_order[first_blended..].sort_by(|&a, &b| {
            let depth =
                |i: u32| near.truncate().dot(objects[i as usize].sphere.truncate()) + near.w;
            depth(b).total_cmp(&depth(a)).then(a.cmp(&b))
        });
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
            pass.set_bind_group(0, &self.frame_group, &[]);
            stats.bind_groups_set += 1;
            stats.commands_recorded += 1;
            let (mut bound_bucket, mut bound_material, mut bound_mesh) =
                (u32::MAX, u32::MAX, u32::MAX);
            for &index in &self.draw_order {
                let object = self.objects[index as usize];
                if !sphere_in_frustum(&planes, object.sphere) {
                    continue;
                }
                if object.bucket != bound_bucket {
                    pass.set_pipeline(&self.pipelines[object.bucket as usize]);
                    bound_bucket = object.bucket;
                    stats.commands_recorded += 1;
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
