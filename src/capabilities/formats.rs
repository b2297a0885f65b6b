//! What a device can do with a texture format, as wgpu validates it.

/// What `device` (created from `adapter`) can do with `format`, as wgpu
/// validates it: the adapter's own answer when the device has
/// `TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES` or the adapter is downlevel
/// (no `WEBGPU_TEXTURE_FORMAT_SUPPORT`, e.g. GL), else what WebGPU
/// guarantees.
pub fn format_features(
    adapter: &wgpu::Adapter,
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
) -> wgpu::TextureFormatFeatures {
    let adapter_specific = device
        .features()
        .contains(wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES);
    let downlevel = !adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::WEBGPU_TEXTURE_FORMAT_SUPPORT);
    if adapter_specific || downlevel {
        adapter.get_texture_format_features(format)
    } else {
        format.guaranteed_format_features(device.features())
    }
}
