//! The baseline's bind group layouts (frame, material, object) and its three
//! pipelines, built by the bindless draw pass's `bucket_pipelines` with the
//! baseline's own vertex buffers.

use unbound::gpu_types::GpuVertex;
use unbound::output::Msaa;
use unbound::passes::draw::bucket_pipelines;

use unbound::shaders::ShaderVariant;

/// The three bind group layouts of `wgsl/baseline.wgsl`.
#[derive(Debug)]
pub(crate) struct Layouts {
    /// Group 0: the frame uniforms and the lights.
    pub(crate) frame: wgpu::BindGroupLayout,
    /// Group 1: a material's uniform block, five textures, five samplers
    /// (base colour, metallic-roughness, normal, occlusion, emissive).
    pub(crate) material: wgpu::BindGroupLayout,
    /// Group 2: an object's transform at a dynamic offset.
    pub(crate) object: wgpu::BindGroupLayout,
}

fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: dynamic,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    buffer_entry(
        binding,
        visibility,
        wgpu::BufferBindingType::Uniform,
        dynamic,
    )
}

fn texture_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

fn sampler_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        count: None,
    }
}

impl Layouts {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let both = wgpu::ShaderStages::VERTEX_FRAGMENT;
        Self {
            frame: device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("baseline frame"),
                entries: &[
                    uniform_entry(0, both, false),
                    buffer_entry(
                        1,
                        wgpu::ShaderStages::FRAGMENT,
                        wgpu::BufferBindingType::Storage { read_only: true },
                        false,
                    ),
                ],
            }),
            material: device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("baseline material"),
                entries: &[
                    uniform_entry(0, both, false),
                    texture_entry(1),
                    texture_entry(2),
                    texture_entry(3),
                    texture_entry(4),
                    texture_entry(5),
                    sampler_entry(6),
                    sampler_entry(7),
                    sampler_entry(8),
                    sampler_entry(9),
                    sampler_entry(10),
                ],
            }),
            object: device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("baseline object"),
                entries: &[uniform_entry(0, wgpu::ShaderStages::VERTEX, true)],
            }),
        }
    }
}

/// The bindless draw pass's three bucket pipelines (`BUCKET_*` order):
/// opaque and masked, double-sided, blended, of `shader` (`crate::SHADER`
/// or `crate::SHADER_LIGHTS`); into a one-sample HDR target.
pub(crate) fn create_pipelines(
    device: &wgpu::Device,
    layouts: &Layouts,
    environment_layout: &wgpu::BindGroupLayout,
    shader: &ShaderVariant,
) -> [wgpu::RenderPipeline; 3] {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("baseline"),
        bind_group_layouts: &[
            Some(&layouts.frame),
            Some(&layouts.material),
            Some(&layouts.object),
            // unbound::passes::prefilter::ENVIRONMENT_GROUP
            Some(environment_layout),
        ],
        immediate_size: 0,
    });
    let module = shader.create(device);
    let vertex = wgpu::VertexState {
        module: &module,
        entry_point: Some("vs_main"),
        compilation_options: Default::default(),
        buffers: &[Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<GpuVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Uint32, 2 => Uint32, 3 => Float32x2, 4 => Float32x2, 5 => Uint32],
        })],
    };
    bucket_pipelines(device, "baseline", &pipeline_layout, &vertex, Msaa::X1)
}
