//! What the heap accepts: texture and sampler descriptions, their checks,
//! and the errors a heap operation returns.

use crate::handles::{CapacityError, HandleError};
use crate::mipmaps::full_mip_count;

/// Formats the heap accepts for sampled textures.
pub const SUPPORTED_FORMATS: &[wgpu::TextureFormat] = &[
    wgpu::TextureFormat::Rgba8UnormSrgb,
    wgpu::TextureFormat::Rgba8Unorm,
];

/// Mip levels of an uploaded texture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mips {
    /// Generate the full chain on the GPU.
    #[default]
    Generate,
    /// Level 0 only.
    None,
}

/// A 2D texture to upload: tightly packed RGBA8 rows of level 0.
///
/// The default is no label, [`wgpu::TextureFormat::Rgba8UnormSrgb`],
/// [`Mips::Generate`], and no texels (width and height 0, empty data): set
/// `width`, `height` and `data` before uploading, since an empty texture is
/// refused ([`HeapError::InvalidSize`]):
///
/// ```
/// let texel = [255u8, 128, 0, 255];
/// let desc = unbound::TextureDesc { width: 1, height: 1, data: &texel, ..Default::default() };
/// assert_eq!(desc.format, wgpu::TextureFormat::Rgba8UnormSrgb);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TextureDesc<'a> {
    /// Debug label.
    pub label: Option<&'a str>,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// One of [`SUPPORTED_FORMATS`].
    pub format: wgpu::TextureFormat,
    /// `width * height * 4` bytes.
    pub data: &'a [u8],
    /// Mip levels.
    pub mips: Mips,
}

impl Default for TextureDesc<'_> {
    fn default() -> Self {
        Self {
            label: None,
            width: 0,
            height: 0,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            data: &[],
            mips: Mips::Generate,
        }
    }
}

impl TextureDesc<'_> {
    /// Format, size (at most `max_dimension` per side) and data length.
    pub(crate) fn check(&self, max_dimension: u32) -> Result<(), HeapError> {
        check_format(self.format)?;
        check_size(self.width, self.height, max_dimension)?;
        check_length(
            u64::from(self.width) * u64::from(self.height) * 4,
            self.data,
        )
    }
}

/// A block-compressed (BC1-BC7) 2D texture uploaded as it is: every mip
/// level given (none are generated), each as rows of 4x4 blocks.
#[derive(Clone, Copy, Debug)]
pub struct CompressedTextureDesc<'a> {
    /// Debug label.
    pub label: Option<&'a str>,
    /// Width in texels (a multiple of 4).
    pub width: u32,
    /// Height in texels (a multiple of 4).
    pub height: u32,
    /// A BC format (needs `TEXTURE_COMPRESSION_BC`).
    pub format: wgpu::TextureFormat,
    /// Level 0 first; at most the full chain.
    pub levels: &'a [&'a [u8]],
}

impl CompressedTextureDesc<'_> {
    /// A BC format the device has the feature for.
    pub(crate) fn check_format(&self, features: wgpu::Features) -> Result<(), HeapError> {
        let format = self.format;
        let feature = format.required_features();
        if !format.is_compressed() || feature != wgpu::Features::TEXTURE_COMPRESSION_BC {
            return Err(HeapError::UnsupportedFormat { format });
        }
        if !features.contains(feature) {
            return Err(HeapError::MissingFeature { format, feature });
        }
        Ok(())
    }

    /// Size (at most `max_dimension` per side, whole blocks), level count
    /// and the length of every level.
    pub(crate) fn check_shape(&self, max_dimension: u32) -> Result<(), HeapError> {
        check_size(self.width, self.height, max_dimension)?;
        let shape = |problem| HeapError::CompressedShape {
            width: self.width,
            height: self.height,
            levels: self.levels.len(),
            problem,
        };
        let (bw, bh) = self.format.block_dimensions();
        if !self.width.is_multiple_of(bw) || !self.height.is_multiple_of(bh) {
            return Err(shape("the size is not a whole number of blocks"));
        }
        let level_count = self.levels.len() as u32;
        if level_count == 0 || level_count > full_mip_count(self.width, self.height) {
            return Err(shape("level count outside 1..=the full chain"));
        }
        for (level, data) in self.levels.iter().enumerate() {
            check_length(
                compressed_level_bytes(self.format, self.width, self.height, level as u32),
                data,
            )?;
        }
        Ok(())
    }
}

/// Bytes of mip level `level` of a block-compressed texture.
pub fn compressed_level_bytes(
    format: wgpu::TextureFormat,
    width: u32,
    height: u32,
    level: u32,
) -> u64 {
    let (bw, bh) = format.block_dimensions();
    let w = (width >> level).max(1);
    let h = (height >> level).max(1);
    let block_bytes = format.block_copy_size(None).unwrap_or(0);
    u64::from(w.div_ceil(bw)) * u64::from(h.div_ceil(bh)) * u64::from(block_bytes)
}

/// A cube texture to upload: six square faces (+X, -X, +Y, -Y, +Z, -Z) of
/// tightly packed RGBA8, one after another.
#[derive(Clone, Copy, Debug)]
pub struct CubeTextureDesc<'a> {
    /// Debug label.
    pub label: Option<&'a str>,
    /// Edge length of each face in texels.
    pub size: u32,
    /// One of [`SUPPORTED_FORMATS`].
    pub format: wgpu::TextureFormat,
    /// `6 * size * size * 4` bytes.
    pub data: &'a [u8],
    /// Mip levels.
    pub mips: Mips,
}

impl CubeTextureDesc<'_> {
    /// Format, size (at most `max_dimension`) and data length.
    pub(crate) fn check(&self, max_dimension: u32) -> Result<(), HeapError> {
        check_format(self.format)?;
        check_size(self.size, self.size, max_dimension)?;
        check_length(
            6 * u64::from(self.size) * u64::from(self.size) * 4,
            self.data,
        )
    }
}

/// Addressing and filtering of a sampler in the heap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    /// Addressing in u.
    pub address_u: wgpu::AddressMode,
    /// Addressing in v.
    pub address_v: wgpu::AddressMode,
    /// Magnification filter.
    pub mag_filter: wgpu::FilterMode,
    /// Minification filter.
    pub min_filter: wgpu::FilterMode,
    /// Filter between mip levels.
    pub mipmap_filter: wgpu::MipmapFilterMode,
}

impl Default for SamplerDesc {
    fn default() -> Self {
        Self {
            address_u: wgpu::AddressMode::Repeat,
            address_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
        }
    }
}

impl SamplerDesc {
    /// The wgpu sampler this describes (w addressed like u; everything not
    /// named here is wgpu's default).
    pub fn to_wgpu(self) -> wgpu::SamplerDescriptor<'static> {
        wgpu::SamplerDescriptor {
            label: Some("unbound sampler"),
            address_mode_u: self.address_u,
            address_mode_v: self.address_v,
            address_mode_w: self.address_u,
            mag_filter: self.mag_filter,
            min_filter: self.min_filter,
            mipmap_filter: self.mipmap_filter,
            ..Default::default()
        }
    }

    /// Whether u clamps (tier C has one repeating and one clamping sampler).
    pub(crate) fn clamps(&self) -> bool {
        !matches!(
            self.address_u,
            wgpu::AddressMode::Repeat | wgpu::AddressMode::MirrorRepeat
        )
    }
}

/// Why a heap operation failed. The heap is unchanged after any error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeapError {
    /// Stale, foreign or reserved handle.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// The array is full.
    #[error(transparent)]
    Capacity(#[from] CapacityError),
    /// The format is not one of [`SUPPORTED_FORMATS`].
    #[error("unsupported texture format {format:?}; supported: {SUPPORTED_FORMATS:?}")]
    UnsupportedFormat {
        /// The rejected format.
        format: wgpu::TextureFormat,
    },
    /// The format needs a device feature the device was created without.
    #[error("texture format {format:?} needs {feature:?}, which the device does not have")]
    MissingFeature {
        /// The format.
        format: wgpu::TextureFormat,
        /// The feature it needs.
        feature: wgpu::Features,
    },
    /// A compressed texture's size is not a whole number of blocks, or its
    /// level count is outside 1..=the full chain.
    #[error("compressed texture {width}x{height} with {levels} level(s): {problem}")]
    CompressedShape {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Levels given.
        levels: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// Zero or too large.
    #[error("texture size {width}x{height} outside 1..={max}")]
    InvalidSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The device's `max_texture_dimension_2d`.
        max: u32,
    },
    /// The data does not hold exactly one level 0.
    #[error("texture data is {actual} bytes, expected {expected}")]
    DataLength {
        /// Bytes needed.
        expected: u64,
        /// Bytes given.
        actual: u64,
    },
    /// Materials still reference the texture or sampler: remove or update
    /// them first (nothing is freed while something live points at it).
    #[error("{kind} slot {slot} is still referenced {references} time(s) by live materials")]
    InUse {
        /// "2D texture" or "sampler".
        kind: &'static str,
        /// The slot.
        slot: u32,
        /// References from live materials (one material may count several times).
        references: u32,
    },
}

fn check_format(format: wgpu::TextureFormat) -> Result<(), HeapError> {
    if SUPPORTED_FORMATS.contains(&format) {
        Ok(())
    } else {
        Err(HeapError::UnsupportedFormat { format })
    }
}

fn check_size(width: u32, height: u32, max: u32) -> Result<(), HeapError> {
    if width == 0 || height == 0 || width > max || height > max {
        return Err(HeapError::InvalidSize { width, height, max });
    }
    Ok(())
}

fn check_length(expected: u64, data: &[u8]) -> Result<(), HeapError> {
    if data.len() as u64 != expected {
        return Err(HeapError::DataLength {
            expected,
            actual: data.len() as u64,
        });
    }
    Ok(())
}
