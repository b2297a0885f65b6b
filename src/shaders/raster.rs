//! The visibility buffer's compute rasteriser's variants
//! (`src/passes/compute_raster/`, `wgsl/compute_raster.wgsl`): tier A
//! only, on a device with 64-bit atomics.

use super::ShaderVariant;
use crate::capabilities::tier::Tier;

/// The visibility buffer's compute rasteriser into a storage buffer of
/// 64-bit atomics (`src/passes/compute_raster/`; needs
/// [`crate::BUFFER_RASTER_FEATURES`]).
pub const COMPUTE_RASTER_BUFFER: ShaderVariant = ShaderVariant::of("compute_raster.wgsl");
/// The compute rasteriser into an `R64Uint` storage texture (needs
/// [`crate::TEXTURE_RASTER_FEATURES`]).
pub const COMPUTE_RASTER_TEXTURE: ShaderVariant = ShaderVariant {
    defines: &["R64_TEXTURE"],
    ..COMPUTE_RASTER_BUFFER
};

/// The compute rasteriser's variants a renderer of `tier` can build (tier
/// A only, on a device with their features).
pub fn compute_raster_variants(tier: Tier) -> Vec<ShaderVariant> {
    if tier != Tier::A {
        return Vec::new();
    }
    vec![COMPUTE_RASTER_BUFFER, COMPUTE_RASTER_TEXTURE]
}
