//! The compute rasteriser's twins (`wgsl/compute_raster.wgsl`; see
//! `src/passes/compute_raster/`) and the bits of a visibility id's
//! triangle word (`wgsl/visibility.wgsl`).

use bytemuck::{Pod, Zeroable};

/// The compute rasteriser's parameters (WGSL `RasterParams`, 16 bytes): a
/// uniform buffer made when one of them changes. (Which instances it takes
/// is the cull pass's decision, through the frame uniforms' `raster`.)
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuRasterParams {
    /// The target's size in pixels.
    pub size: [u32; 2],
    /// Items the item buffer holds.
    pub capacity: u32,
    /// Pads the struct to its WGSL size (a multiple of its 8-byte alignment).
    pub _pad: u32,
}

/// Triangles per raster item (WGSL `ITEM_TRIANGLES`, in `compute_raster.wgsl`
/// and `cull_raster.wgsl`): an id is
/// `item << 4 | triangle within the item`. 16, so that a warp of 32 threads
/// rasterises two items: a small mesh (a cube's 12 triangles) keeps most of
/// its threads busy.
pub const ITEM_TRIANGLES: u32 = 16;

/// Bit 31 of a visibility id's triangle word: written by the late
/// occlusion phase's visibility pass (WGSL `VISIBILITY_LATE`,
/// `wgsl/visibility.wgsl`; see `src/passes/visibility.rs`).
pub const VISIBILITY_LATE: u32 = 1 << 31;

/// Bit 30 of a visibility id's triangle word: written by the compute
/// rasteriser's resolve (WGSL `VISIBILITY_COMPUTE`, `wgsl/compute_raster.wgsl`
/// and `wgsl/visibility.wgsl`), so the material pass knows which
/// rasteriser drew the pixel ([`crate::DebugView::Raster`]). Arena
/// triangles stay below 2^30 (index buffers of fewer than 3 · 2^30
/// indices), so the bit is free; every decoder masks it with
/// [`VISIBILITY_LATE`] ([`VISIBILITY_TRIANGLE_MASK`]).
pub const VISIBILITY_COMPUTE: u32 = 1 << 30;

/// The triangle of a visibility id's triangle word: the word without
/// [`VISIBILITY_LATE`] and [`VISIBILITY_COMPUTE`] (WGSL
/// `VISIBILITY_TRIANGLE_MASK`).
pub const VISIBILITY_TRIANGLE_MASK: u32 = !(VISIBILITY_LATE | VISIBILITY_COMPUTE);
