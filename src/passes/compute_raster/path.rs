//! Which compute-rasteriser path runs ([`ComputeRaster`]) and the device
//! features each needs.

/// The visibility buffer's compute rasteriser (`src/passes/compute_raster/`):
/// where its packed 64-bit depth-and-id values live. It runs only while
/// the visibility buffer does ([`crate::Renderer::geometry`]); a path the
/// device lacks falls back as [`crate::Renderer::compute_raster`] says
/// (never an error).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ComputeRaster {
    /// Every instance rasterised by hardware.
    #[default]
    Off,
    /// A storage buffer of `atomic<u64>`: needs `Features::SHADER_INT64`
    /// and `Features::SHADER_INT64_ATOMIC_MIN_MAX` (lavapipe has them);
    /// falls back to [`Self::Off`].
    Buffer,
    /// An `R64Uint` storage texture: needs `Features::SHADER_INT64`,
    /// `Features::TEXTURE_INT64_ATOMIC` and `Features::TEXTURE_ATOMIC`;
    /// falls back to [`Self::Buffer`], then [`Self::Off`].
    Texture,
    /// [`Self::Texture`] where the device can, else [`Self::Buffer`], else
    /// [`Self::Off`].
    Auto,
}

impl ComputeRaster {
    /// What runs of `self` on a device with `features`: [`Self::Buffer`],
    /// [`Self::Texture`] or [`Self::Off`] (never [`Self::Auto`]).
    pub fn on(self, features: wgpu::Features) -> Self {
        let buffer = features.contains(BUFFER_RASTER_FEATURES);
        let texture = features.contains(TEXTURE_RASTER_FEATURES);
        match self {
            Self::Off => Self::Off,
            Self::Texture | Self::Auto if texture => Self::Texture,
            _ if buffer => Self::Buffer,
            _ => Self::Off,
        }
    }
}

/// The features of [`ComputeRaster::Buffer`].
pub const BUFFER_RASTER_FEATURES: wgpu::Features =
    wgpu::Features::SHADER_INT64.union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX);

/// The features of [`ComputeRaster::Texture`].
pub const TEXTURE_RASTER_FEATURES: wgpu::Features = wgpu::Features::SHADER_INT64
    .union(wgpu::Features::TEXTURE_INT64_ATOMIC)
    .union(wgpu::Features::TEXTURE_ATOMIC);
