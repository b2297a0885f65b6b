// How a 2D texture slot's entry in texture_locations names its layer, in
// tier C's texture arrays (wgsl/heap_arrays.wgsl) and in tiers A and B's
// pages (wgsl/heap.wgsl with TEXTURE_PAGES): `array << SHIFT | layer`.
// Twins: gpu_types::TEXTURE_LOCATION_*.
const TEXTURE_LOCATION_ARRAY_SHIFT: u32 = 16u;
const TEXTURE_LOCATION_LAYER_MASK: u32 = 0xffffu;
