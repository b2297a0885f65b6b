//! Entries of the heap's group 0, as both storages (`binding_arrays.rs`,
//! `texture_arrays.rs`) write them.

/// An entry of the heap's group 0, read by the fragment stage (and the
/// compute material pass: `src/passes/visibility.rs`); `count` is a
/// binding array's length (tiers A and B).
pub(super) fn fragment_entry(
    binding: u32,
    ty: wgpu::BindingType,
    count: Option<std::num::NonZeroU32>,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT | wgpu::ShaderStages::COMPUTE,
        ty,
        count,
    }
}

/// A filterable float texture of `view_dimension`, as the heap binds every
/// texture.
pub(super) fn filterable_texture(view_dimension: wgpu::TextureViewDimension) -> wgpu::BindingType {
    wgpu::BindingType::Texture {
        sample_type: wgpu::TextureSampleType::Float { filterable: true },
        view_dimension,
        multisampled: false,
    }
}
