//! The compute rasteriser's twins (`wgsl/compute_raster.wgsl`; see
//! `src/passes/compute_raster/`).

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
/// `item << 5 | triangle within the item`.
pub const ITEM_TRIANGLES: u32 = 32;
