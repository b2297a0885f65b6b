//! How large the compute rasteriser's buffers are, and the item budget the
//! cull pass may reserve from (`wgsl/cull_raster.wgsl`): the renderer
//! writes it into the frame uniforms before the pass makes its buffers, so
//! both sides compute it here.

/// Bytes of one raster item (`vec4<u32>`).
pub(super) const ITEM_BYTES: u64 = 16;
/// Most items: the id keeps 4 bits for the triangle (2^28 would fit).
const MAX_ITEMS: u64 = 1 << 27;
/// Fewest items the buffer holds: 2^14 (256 KiB, 262,144 triangles), so
/// that a scene of few large meshes (FlightHelmet: its parts at any
/// threshold) fits.
const MIN_ITEMS: u64 = 1 << 14;

/// Items the item buffer holds for a visible list of `entries`: twice
/// them, at least [`MIN_ITEMS`], at most what one binding holds and
/// [`MAX_ITEMS`].
pub(super) fn items_wanted(device: &wgpu::Device, entries: u64) -> u64 {
    let limit = device.limits().max_storage_buffer_binding_size / ITEM_BYTES;
    (2 * entries).clamp(MIN_ITEMS, MAX_ITEMS.min(limit))
}

/// The items the cull pass may reserve in a frame of `object_slots` object
/// slots (the frame uniforms' `raster.w`): no more than the item buffer
/// holds (its visible list has at least as many entries as object slots),
/// rounded down to a multiple of 256 so that `f32` holds it exactly.
pub(crate) fn item_budget(device: &wgpu::Device, object_slots: u32) -> u32 {
    let items = items_wanted(device, u64::from(object_slots)) & !255;
    u32::try_from(items).unwrap_or(!255)
}

/// Bytes of the packed target of `size`, where one binding holds it (the
/// compute rasteriser runs only then).
pub(crate) fn target_bytes(device: &wgpu::Device, size: (u32, u32)) -> Option<u64> {
    let bytes = u64::from(size.0) * u64::from(size.1) * 8;
    (bytes > 0 && bytes <= device.limits().max_storage_buffer_binding_size).then_some(bytes)
}
