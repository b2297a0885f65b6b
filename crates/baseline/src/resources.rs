//! The baseline's GPU resources besides textures: per material a uniform
//! block and bind group, per mesh its own vertex and index buffers, per
//! object a transform at a dynamic uniform offset, and the frame uniforms.

use encase::ShaderType;
use glam::{Mat4, Vec4};
use wgpu::util::DeviceExt;

use unbound::geometry::{MeshBounds, MeshData};
use unbound::gpu_types::{GpuFrameUniforms, GpuLight, GpuMaterial, uniform_bytes};
use unbound::materials::MaterialError;
use unbound::scene::world_sphere;

use crate::BaselineError;
use crate::scene::{InputMaterial, InputObject};
use crate::textures::BoundTextures;

/// Bytes between object transforms (the dynamic-offset alignment).
pub(crate) const OBJECT_STRIDE: u64 = 256;

/// One object's uniform (WGSL `ObjectUniforms` in `wgsl/baseline.wgsl`), at
/// `OBJECT_STRIDE`-byte steps of one buffer.
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct GpuObjectUniforms {
    /// `world_from_object` of the object.
    pub world_from_object: Mat4,
}

impl GpuObjectUniforms {
    /// Bytes of the WGSL struct: the dynamic binding's size.
    pub const SIZE_BYTES: u64 = <Self as encase::ShaderSize>::SHADER_SIZE.get();
}

/// The material's uniform block: the library's material encoder, with the
/// baseline's own texture numbering (indices into its texture and sampler
/// lists). `baseline.wgsl` binds each material's textures itself, so it
/// reads only the UV set and transform of each texture.
fn material_uniform(material: &InputMaterial) -> Result<GpuMaterial, MaterialError> {
    material.encode(|t| Ok(t.with(t.texture as u32, t.sampler as u32)))
}

/// Every material's uniform block, or the first invalid material's error.
pub(crate) fn material_uniforms(
    materials: &[InputMaterial],
) -> Result<Vec<GpuMaterial>, BaselineError> {
    materials
        .iter()
        .enumerate()
        .map(|(material, m)| {
            material_uniform(m).map_err(|source| BaselineError::Material { material, source })
        })
        .collect()
}

/// One bind group per material: its uniform block, and the textures and
/// samplers of base colour, metallic-roughness, normal, occlusion and
/// emissive (bindings 1-5 and 6-10).
pub(crate) fn material_groups(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    textures: &BoundTextures,
    materials: &[InputMaterial],
    uniforms: &[GpuMaterial],
) -> Vec<wgpu::BindGroup> {
    materials
        .iter()
        .zip(uniforms)
        .map(|(m, gpu)| {
            let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("baseline material"),
                contents: bytemuck::bytes_of(gpu),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }];
            let bound = [
                &m.base_color,
                &m.metallic_roughness,
                &m.normal,
                &m.occlusion,
                &m.emissive,
            ];
            let first_sampler = 1 + bound.len();
            for (i, texture) in bound.into_iter().enumerate() {
                let (view, sampler) = textures.binding(texture.as_ref());
                entries.push(wgpu::BindGroupEntry {
                    binding: 1 + i as u32,
                    resource: wgpu::BindingResource::TextureView(view),
                });
                entries.push(wgpu::BindGroupEntry {
                    binding: (first_sampler + i) as u32,
                    resource: wgpu::BindingResource::Sampler(sampler),
                });
            }
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("baseline material"),
                layout,
                entries: &entries,
            })
        })
        .collect()
}

/// One mesh in its own buffers.
#[derive(Debug)]
pub(crate) struct BaselineMesh {
    pub(crate) vertices: wgpu::Buffer,
    pub(crate) indices: wgpu::Buffer,
    pub(crate) index_count: u32,
    pub(crate) bounds: MeshBounds,
}

/// One vertex and one index buffer per mesh.
pub(crate) fn upload_meshes(device: &wgpu::Device, meshes: &[MeshData<'_>]) -> Vec<BaselineMesh> {
    meshes
        .iter()
        .map(|data| {
            let packed = data.packed();
            BaselineMesh {
                vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("baseline vertices"),
                    contents: bytemuck::cast_slice(&packed.vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                }),
                indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("baseline indices"),
                    contents: bytemuck::cast_slice(&packed.indices),
                    usage: wgpu::BufferUsages::INDEX,
                }),
                index_count: packed.indices.len() as u32,
                bounds: data.bounds(),
            }
        })
        .collect()
}

/// One object as the frame culls and sorts it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BaselineObject {
    pub(crate) mesh: u32,
    pub(crate) material: u32,
    /// Pipeline bucket (`gpu_types::BUCKET_*`).
    pub(crate) bucket: u32,
    /// World-space bounding sphere (centre, radius).
    pub(crate) sphere: Vec4,
}

/// Every object, and their transforms at [`OBJECT_STRIDE`] strides in one
/// uniform buffer bound with a dynamic offset per draw.
#[derive(Debug)]
pub(crate) struct Objects {
    pub(crate) list: Vec<BaselineObject>,
    pub(crate) uniforms: wgpu::Buffer,
    pub(crate) group: wgpu::BindGroup,
}

impl Objects {
    /// The objects, each in the bucket of its material (`uniforms`).
    pub(crate) fn new(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        objects: &[InputObject],
        meshes: &[BaselineMesh],
        uniforms: &[GpuMaterial],
    ) -> Self {
        let mut transforms = vec![0u8; objects.len().max(1) * OBJECT_STRIDE as usize];
        let list = objects
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let start = i * OBJECT_STRIDE as usize;
                let uniform = GpuObjectUniforms {
                    world_from_object: o.world_from_object,
                };
                transforms[start..start + GpuObjectUniforms::SIZE_BYTES as usize]
                    .copy_from_slice(&uniform_bytes(&uniform));
                BaselineObject {
                    mesh: o.mesh,
                    material: o.material,
                    bucket: uniforms[o.material as usize].bucket(),
                    sphere: Vec4::from_array(world_sphere(
                        &o.world_from_object,
                        &meshes[o.mesh as usize].bounds,
                    )),
                }
            })
            .collect();
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("baseline object transforms"),
            contents: &transforms,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("baseline object"),
            layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(GpuObjectUniforms::SIZE_BYTES),
                }),
            }],
        });
        Self {
            list,
            uniforms: buffer,
            group,
        }
    }

    /// Moves object `index`: CPU bounds plus one queued uniform write.
    pub(crate) fn set_transform(
        &mut self,
        queue: &wgpu::Queue,
        meshes: &[BaselineMesh],
        index: usize,
        world_from_object: Mat4,
    ) {
        let object = &mut self.list[index];
        object.sphere = Vec4::from_array(world_sphere(
            &world_from_object,
            &meshes[object.mesh as usize].bounds,
        ));
        queue.write_buffer(
            &self.uniforms,
            index as u64 * OBJECT_STRIDE,
            &uniform_bytes(&GpuObjectUniforms { world_from_object }),
        );
    }
}

/// The frame uniforms' buffer and the lights, and their bind group
/// (group 0).
#[derive(Debug)]
pub(crate) struct FrameBinding {
    pub(crate) uniforms: wgpu::Buffer,
    /// Punctual lights shaded (every fragment loops over them all).
    pub(crate) light_count: u32,
    pub(crate) group: wgpu::BindGroup,
}

impl FrameBinding {
    pub(crate) fn new(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        lights: &[GpuLight],
    ) -> Self {
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("baseline frame"),
            size: GpuFrameUniforms::SIZE_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // A binding cannot be empty: one free (all zero) light at least.
        let contents = if lights.is_empty() {
            vec![GpuLight::default()]
        } else {
            lights.to_vec()
        };
        let light_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("baseline lights"),
            contents: bytemuck::cast_slice(&contents),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("baseline frame"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: light_buffer.as_entire_binding(),
                },
            ],
        });
        Self {
            uniforms,
            light_count: lights.len() as u32,
            group,
        }
    }
}
