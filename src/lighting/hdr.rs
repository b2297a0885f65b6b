//! Radiance `.hdr` (RGBE) environment files: reading them under the same
//! file rules as the glTF loader's (`src/loaders/files.rs`), and decoding
//! them within [`HdrLimits`], every size checked from the file's metadata
//! and header before anything is allocated for it.
//!
//! [`EquirectImage::open_hdr`] reads only a regular file (a device such as
//! `/dev/zero`, a FIFO, a socket or a folder is refused from its metadata
//! before it is opened: opening a FIFO would block) of at most
//! [`HdrLimits::max_file_bytes`], checked before reading. The path itself
//! is the caller's: it is not confined to a folder. Decoding
//! ([`EquirectImage::from_hdr_with`]) reads the header, then refuses a side
//! over [`HdrLimits::max_side`] (at most [`MAX_EQUIRECT_SIDE`]; the
//! device's `max_texture_dimension_2d` with [`HdrLimits::for_device`]) and
//! more than [`HdrLimits::max_texels`] texels before the texels are
//! allocated: a run-length-encoded file can announce far more texels than
//! its size suggests.
//!
//! Memory: decoding holds 24 bytes a texel at its peak (the decoder's own
//! RGB `f32` copy and the image's), besides the file's bytes, so the
//! defaults bound a load to 256 MiB + 24 × 2^25 B ≈ 1.06 GiB
//! (`tests/environment_files.rs` measures it in a child process).

#[cfg(feature = "hdr")]
use std::path::Path;

#[cfg(feature = "hdr")]
use super::environment::EnvironmentError;
use super::environment::{EquirectImage, MAX_EQUIRECT_SIDE};

const MIB: u64 = 1 << 20;

/// Limits on what reading and decoding one `.hdr` file may read and
/// allocate, each checked before the allocation it bounds (see
/// `src/lighting/hdr.rs`).
///
/// | field | default |
/// | --- | --- |
/// | [`max_file_bytes`](Self::max_file_bytes) | 268,435,456 (256 MiB) |
/// | [`max_texels`](Self::max_texels) | 33,554,432 (8192 x 4096) |
/// | [`max_side`](Self::max_side) | [`MAX_EQUIRECT_SIDE`] (16384) |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HdrLimits {
    /// Largest file read (from its metadata, before reading).
    pub max_file_bytes: u64,
    /// Most texels of the image (width x height, from the header): 24 bytes
    /// each while it is decoded.
    pub max_texels: u64,
    /// Largest width or height (from the header); never more than
    /// [`MAX_EQUIRECT_SIDE`], whatever is set here.
    pub max_side: u32,
}

impl HdrLimits {
    /// The defaults (see the type's docs).
    pub const DEFAULT: Self = Self {
        max_file_bytes: 256 * MIB,
        max_texels: 8192 * 4096,
        max_side: MAX_EQUIRECT_SIDE,
    };

    /// No limits but [`MAX_EQUIRECT_SIDE`]: for files the application
    /// trusts (one can then take 24 × 16384² bytes, 6 GiB, to decode).
    pub const UNLIMITED: Self = Self {
        max_file_bytes: u64::MAX,
        max_texels: u64::MAX,
        max_side: MAX_EQUIRECT_SIDE,
    };

    /// The defaults, with the largest side the device can sample
    /// (`max_texture_dimension_2d`, if below [`MAX_EQUIRECT_SIDE`]): what
    /// the prefilter would refuse is refused before it is decoded.
    pub fn for_device(device: &wgpu::Device) -> Self {
        Self {
            max_side: device
                .limits()
                .max_texture_dimension_2d
                .min(MAX_EQUIRECT_SIDE),
            ..Self::DEFAULT
        }
    }
}

impl Default for HdrLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl EquirectImage {
    /// Decodes a Radiance `.hdr` (RGBE) file's bytes within
    /// [`HdrLimits::DEFAULT`].
    #[cfg(feature = "hdr")]
    pub fn from_hdr(bytes: &[u8]) -> Result<Self, EnvironmentError> {
        Self::from_hdr_with(bytes, &HdrLimits::DEFAULT)
    }

    /// Decodes a Radiance `.hdr` (RGBE) file's bytes, its size checked
    /// against `limits` from the header before the texels are allocated.
    #[cfg(feature = "hdr")]
    pub fn from_hdr_with(bytes: &[u8], limits: &HdrLimits) -> Result<Self, EnvironmentError> {
        use image::ImageDecoder;
        let decode = |e: image::ImageError| EnvironmentError::Decode(e.to_string());
        let decoder =
            image::codecs::hdr::HdrDecoder::new(std::io::Cursor::new(bytes)).map_err(decode)?;
        let (width, height) = decoder.dimensions();
        let max = limits.max_side.min(MAX_EQUIRECT_SIDE);
        if width.max(height) > max {
            return Err(EnvironmentError::TooLarge { width, height, max });
        }
        let texels = u64::from(width) * u64::from(height);
        if texels > limits.max_texels {
            return Err(EnvironmentError::TooManyTexels {
                width,
                height,
                max: limits.max_texels,
            });
        }
        if decoder.color_type() != image::ColorType::Rgb32F {
            return Err(EnvironmentError::Decode(format!(
                "decoded as {:?}, not RGB f32",
                decoder.color_type()
            )));
        }
        let mut rgb = vec![glam::Vec3::ZERO; texels as usize];
        decoder
            .read_image(bytemuck::cast_slice_mut(&mut rgb))
            .map_err(decode)?;
        Self::new(width, height, rgb)
    }

    /// Reads and decodes a Radiance `.hdr` file within
    /// [`HdrLimits::DEFAULT`].
    #[cfg(feature = "hdr")]
    pub fn open_hdr(path: &Path) -> Result<Self, EnvironmentError> {
        Self::open_hdr_with(path, &HdrLimits::DEFAULT)
    }

    /// Reads and decodes a Radiance `.hdr` file within `limits`: a
    /// regular file only, its size checked before it is read (see
    /// `src/lighting/hdr.rs`).
    #[cfg(feature = "hdr")]
    pub fn open_hdr_with(path: &Path, limits: &HdrLimits) -> Result<Self, EnvironmentError> {
        use crate::loaders::files::{ReadError, read_regular_file};
        let bytes = read_regular_file(path, limits.max_file_bytes).map_err(|e| match e {
            ReadError::Io(source) => EnvironmentError::Io {
                path: path.to_owned(),
                source: source.into(),
            },
            ReadError::NotRegularFile => EnvironmentError::NotRegularFile {
                path: path.to_owned(),
            },
            ReadError::TooLarge { bytes } => EnvironmentError::FileTooLarge {
                path: path.to_owned(),
                bytes,
                max: limits.max_file_bytes,
            },
        })?;
        Self::from_hdr_with(&bytes, limits)
    }
}

#[cfg(all(test, feature = "hdr"))]
mod tests {
    use glam::Vec3;

    use super::HdrLimits;
    use crate::lighting::{EnvironmentError, EquirectImage};

    /// A header announcing `width` x `height`, no texels.
    fn header(width: u32, height: u32) -> Vec<u8> {
        format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {height} +X {width}\n").into_bytes()
    }

    #[test]
    fn malformed_hdr_files_are_refused() {
        assert!(matches!(
            EquirectImage::from_hdr(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X"),
            Err(EnvironmentError::Decode(_))
        ));
        assert!(matches!(
            EquirectImage::from_hdr(b"not an hdr file"),
            Err(EnvironmentError::Decode(_))
        ));
        // A header that announces more than MAX_EQUIRECT_SIDE.
        assert!(matches!(
            EquirectImage::from_hdr(&header(100_000, 8)),
            Err(EnvironmentError::TooLarge { width: 100000, .. })
        ));
        // Announced texels with none behind them.
        assert!(matches!(
            EquirectImage::from_hdr(&header(64, 32)),
            Err(EnvironmentError::Decode(_))
        ));
    }

    #[test]
    fn sizes_are_refused_from_the_header() {
        // 16384 x 16384 is within MAX_EQUIRECT_SIDE but over the texels.
        let error = EquirectImage::from_hdr(&header(16384, 16384)).unwrap_err();
        assert!(
            matches!(
                error,
                EnvironmentError::TooManyTexels { width: 16384, height: 16384, max }
                    if max == HdrLimits::DEFAULT.max_texels
            ),
            "{error:?}"
        );
        let device_like = HdrLimits {
            max_side: 4096,
            ..HdrLimits::DEFAULT
        };
        let error = EquirectImage::from_hdr_with(&header(8192, 4096), &device_like).unwrap_err();
        assert!(
            matches!(error, EnvironmentError::TooLarge { max: 4096, .. }),
            "{error:?}"
        );
    }

    #[test]
    fn hdr_files_decode_to_linear_radiance() {
        // 2x1, flat RGBE: (1, 0.5, 0.25) and (4, 0, 2).
        let mut bytes = header(2, 1);
        bytes.extend([128, 64, 32, 129, 128, 0, 64, 131]);
        let image = EquirectImage::from_hdr(&bytes).unwrap();
        assert_eq!((image.width(), image.height()), (2, 1));
        assert_eq!(image.texels()[0], Vec3::new(1.0, 0.5, 0.25));
        assert_eq!(image.texels()[1], Vec3::new(4.0, 0.0, 2.0));
        let tight = HdrLimits {
            max_texels: 1,
            ..HdrLimits::DEFAULT
        };
        assert!(matches!(
            EquirectImage::from_hdr_with(&bytes, &tight),
            Err(EnvironmentError::TooManyTexels { max: 1, .. })
        ));
    }
}
