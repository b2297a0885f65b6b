//! The prefilter's plumbing: bind group layouts, its textures, and one
//! compute dispatch with its parameters.

use wgpu::util::DeviceExt;

use super::{ENVIRONMENT_FORMAT, GpuPrefilterParams, Stage};

pub(super) fn texture_entry(
    binding: u32,
    sample_type: wgpu::TextureSampleType,
    view_dimension: wgpu::TextureViewDimension,
) -> (u32, wgpu::BindingType) {
    let ty = wgpu::BindingType::Texture {
        sample_type,
        view_dimension,
        multisampled: false,
    };
    (binding, ty)
}

pub(super) fn storage_texture_entry(
    binding: u32,
    view_dimension: wgpu::TextureViewDimension,
) -> (u32, wgpu::BindingType) {
    let ty = wgpu::BindingType::StorageTexture {
        access: wgpu::StorageTextureAccess::WriteOnly,
        format: ENVIRONMENT_FORMAT,
        view_dimension,
    };
    (binding, ty)
}

pub(super) fn buffer_type(ty: wgpu::BufferBindingType) -> wgpu::BindingType {
    wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    }
}

pub(super) fn bind_group_layout(
    device: &wgpu::Device,
    label: &str,
    visibility: wgpu::ShaderStages,
    entries: &[(u32, wgpu::BindingType)],
) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = entries
        .iter()
        .map(|&(binding, ty)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty,
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

pub(super) fn stage(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    entry_point: &str,
    entries: &[(u32, wgpu::BindingType)],
) -> Stage {
    let params = (0, buffer_type(wgpu::BufferBindingType::Uniform));
    let entries: Vec<_> = std::iter::once(params)
        .chain(entries.iter().copied())
        .collect();
    let label = format!("unbound prefilter {entry_point}");
    let layout = bind_group_layout(device, &label, wgpu::ShaderStages::COMPUTE, &entries);
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&label),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(&label),
        layout: Some(&pipeline_layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache: None,
    });
    Stage { layout, pipeline }
}

/// How many 8 × 8 workgroups cover `size` texels per side.
pub(super) fn groups(size: u32) -> u32 {
    size.div_ceil(8)
}

/// A view of `mips` mips from `base` of a texture, as layers.
pub(super) fn layers_view(
    texture: &wgpu::Texture,
    base: u32,
    mips: Option<u32>,
) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        base_mip_level: base,
        mip_level_count: mips,
        ..Default::default()
    })
}

/// Layers of the textures the prefilter writes: the six faces and an unused
/// one, since wgpu's GL backend makes every square texture of six layers a
/// cube map, which it can neither bind as layers nor copy from.
pub(super) const WRITTEN_LAYERS: u32 = 7;

/// An `ENVIRONMENT_FORMAT` texture of `size`² × `layers`.
pub(super) fn cube_texture(
    device: &wgpu::Device,
    label: &str,
    (size, layers): (u32, u32),
    mips: u32,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: layers,
        },
        mip_level_count: mips,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: ENVIRONMENT_FORMAT,
        usage,
        view_formats: &[],
    })
}

/// Copies the six faces of mip `mip` from `source` to `destination`.
pub(super) fn copy_faces(
    encoder: &mut wgpu::CommandEncoder,
    source: &wgpu::Texture,
    destination: &wgpu::Texture,
    mip: u32,
) {
    let copy = |texture| wgpu::TexelCopyTextureInfo {
        texture,
        mip_level: mip,
        origin: wgpu::Origin3d::ZERO,
        aspect: wgpu::TextureAspect::All,
    };
    let side = (destination.width() >> mip).max(1);
    let extent = wgpu::Extent3d {
        width: side,
        height: side,
        depth_or_array_layers: 6,
    };
    encoder.copy_texture_to_texture(copy(source), copy(destination), extent);
}

/// One compute dispatch: a stage, its parameters and its other bindings.
pub(super) struct Dispatch<'a> {
    pub stage: &'a Stage,
    pub params: GpuPrefilterParams,
    pub bindings: Vec<(u32, wgpu::BindingResource<'a>)>,
    pub groups: [u32; 3],
}

impl Dispatch<'_> {
    pub(super) fn record(self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder) {
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("unbound prefilter params"),
            contents: bytemuck::bytes_of(&self.params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let entries: Vec<_> = std::iter::once((0, params.as_entire_binding()))
            .chain(self.bindings)
            .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound prefilter"),
            layout: &self.stage.layout,
            entries: &entries,
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound prefilter"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.stage.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        let [x, y, z] = self.groups;
        pass.dispatch_workgroups(x, y, z);
    }
}
