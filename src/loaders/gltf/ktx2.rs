//! KTX2 textures: 8-bit RGB and RGBA (expanded to RGBA8, mips regenerated
//! on the GPU) and BC1-BC7 (every stored level kept as it is, uploaded when
//! the device has `TEXTURE_COMPRESSION_BC`), uncompressed or
//! zstd-supercompressed. Basis Universal UASTC (no Vulkan format; the data
//! format descriptor's colour model says UASTC), uncompressed or
//! zstd-supercompressed, is transcoded to RGBA8 with the `basisu` cargo
//! feature (`basisu.rs`). ETC1S/BasisLZ, UASTC without the feature, and
//! other formats are refused with a clear error (the image is then missing,
//! or the load fails in the strict mode: `MissingImages`; a texture with a
//! fallback `source` uses it, `extensions.rs`).

use std::io::Read;

use crate::heap::compressed_level_bytes;
use crate::mipmaps::full_mip_count;

/// The first bytes of every KTX2 file.
pub(super) const KTX2_MAGIC: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// The texels of a KTX2 file.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ktx2Texels {
    /// Level 0, tightly packed RGBA8 (UNORM or sRGB: the glTF usage decides).
    Rgba8(Vec<u8>),
    /// Block-compressed levels, level 0 first.
    Bc {
        /// The format as a linear texture.
        unorm: wgpu::TextureFormat,
        /// Its sRGB twin, if the format has one.
        srgb: Option<wgpu::TextureFormat>,
        /// Level data as stored (after supercompression is undone).
        levels: Vec<Vec<u8>>,
    },
}

/// The wgpu formats of a KTX2 BC format: (linear, sRGB twin).
fn bc_format(format: ktx2::Format) -> Option<(wgpu::TextureFormat, Option<wgpu::TextureFormat>)> {
    use wgpu::TextureFormat as F;
    Some(match format {
        ktx2::Format::BC1_RGB_UNORM_BLOCK
        | ktx2::Format::BC1_RGB_SRGB_BLOCK
        | ktx2::Format::BC1_RGBA_UNORM_BLOCK
        | ktx2::Format::BC1_RGBA_SRGB_BLOCK => (F::Bc1RgbaUnorm, Some(F::Bc1RgbaUnormSrgb)),
        ktx2::Format::BC2_UNORM_BLOCK | ktx2::Format::BC2_SRGB_BLOCK => {
            (F::Bc2RgbaUnorm, Some(F::Bc2RgbaUnormSrgb))
        }
        ktx2::Format::BC3_UNORM_BLOCK | ktx2::Format::BC3_SRGB_BLOCK => {
            (F::Bc3RgbaUnorm, Some(F::Bc3RgbaUnormSrgb))
        }
        ktx2::Format::BC4_UNORM_BLOCK => (F::Bc4RUnorm, None),
        ktx2::Format::BC4_SNORM_BLOCK => (F::Bc4RSnorm, None),
        ktx2::Format::BC5_UNORM_BLOCK => (F::Bc5RgUnorm, None),
        ktx2::Format::BC5_SNORM_BLOCK => (F::Bc5RgSnorm, None),
        ktx2::Format::BC6H_UFLOAT_BLOCK => (F::Bc6hRgbUfloat, None),
        ktx2::Format::BC6H_SFLOAT_BLOCK => (F::Bc6hRgbFloat, None),
        ktx2::Format::BC7_UNORM_BLOCK | ktx2::Format::BC7_SRGB_BLOCK => {
            (F::Bc7RgbaUnorm, Some(F::Bc7RgbaUnormSrgb))
        }
        _ => return None,
    })
}

/// One level's bytes, supercompression undone; exactly `expected` bytes
/// (the caller has checked `expected` against its limits).
fn level_bytes(
    scheme: Option<ktx2::SupercompressionScheme>,
    data: &[u8],
    expected: u64,
    level: usize,
) -> Result<Vec<u8>, String> {
    let out = match scheme {
        None => data.to_vec(),
        Some(ktx2::SupercompressionScheme::Zstandard) => {
            let mut decoder = ruzstd::decoding::StreamingDecoder::new(data)
                .map_err(|e| format!("KTX2 zstd: {e}"))?;
            let mut out = Vec::with_capacity(expected.min(1 << 26) as usize);
            decoder
                .by_ref()
                .take(expected + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("KTX2 zstd: {e}"))?;
            out
        }
        Some(other) => return Err(format!("KTX2 supercompression {other:?} is not supported")),
    };
    if out.len() as u64 != expected {
        return Err(format!(
            "KTX2 level {level} holds {} bytes, needs {expected}",
            out.len()
        ));
    }
    Ok(out)
}

/// What a KTX2 file's header and level index promise.
enum Layout {
    /// Block-compressed: the wgpu formats, and each level's byte size.
    Bc {
        unorm: wgpu::TextureFormat,
        srgb: Option<wgpu::TextureFormat>,
        level_bytes: Vec<u64>,
    },
    /// 8-bit RGB (3) or RGBA (4) channels; level 0 is used.
    Rgba8 { channels: u64 },
    /// Basis Universal UASTC blocks (`basisu.rs`): level 0 is transcoded.
    #[cfg(feature = "basisu")]
    Uastc { has_alpha: bool },
}

/// The layout of a KTX2 file without a Vulkan format: Basis Universal,
/// whose data format descriptor names UASTC or ETC1S. Only UASTC, without
/// supercompression or with zstd, is transcoded, and only with the
/// `basisu` cargo feature; every other case is an error saying what is
/// supported.
fn basis_layout(reader: &ktx2::Reader<&[u8]>, width: u32, height: u32) -> Result<Layout, String> {
    use ktx2::{ColorModel, SupercompressionScheme as Scheme};
    let scheme = reader.header().supercompression_scheme;
    match (reader.color_model(), scheme) {
        (Some(ColorModel::ETC1S), _) | (_, Some(Scheme::BasisLZ)) => Err(
            "KTX2 Basis Universal ETC1S/BasisLZ is not supported; UASTC is (with the `basisu` \
             cargo feature)"
                .into(),
        ),
        (Some(ColorModel::UASTC), None | Some(Scheme::Zstandard)) => {
            uastc_layout(reader, width, height)
        }
        (Some(ColorModel::UASTC), Some(other)) => Err(format!(
            "KTX2 Basis Universal UASTC with {other:?} supercompression is not supported \
             (none or zstd are)"
        )),
        (model, _) => Err(format!(
            "KTX2 without a Vulkan format and with colour model {model:?} is not supported \
             (Basis Universal UASTC is, with the `basisu` cargo feature)"
        )),
    }
}

/// A UASTC file's layout: every level's stated length checked against its
/// block count (`basisu.rs`).
#[cfg(feature = "basisu")]
fn uastc_layout(reader: &ktx2::Reader<&[u8]>, width: u32, height: u32) -> Result<Layout, String> {
    use super::basisu::{check_size, level_bytes};
    check_size(width, height)?;
    let count = reader.levels().len();
    if count == 0 || count as u32 > full_mip_count(width, height) {
        return Err(format!(
            "KTX2 UASTC with {count} mip levels (1 to the full chain)"
        ));
    }
    let scheme = reader.header().supercompression_scheme;
    for (i, level) in reader.levels().enumerate() {
        let expected = level_bytes(width, height, i as u32);
        let stored = level.data.len() as u64;
        if level.uncompressed_byte_length != expected || (scheme.is_none() && stored != expected) {
            return Err(format!(
                "KTX2 UASTC level {i} states {} bytes ({stored} stored), needs {expected}",
                level.uncompressed_byte_length
            ));
        }
    }
    // Channel 3 is RGBA, 5 is RRRG (KTX 2.0, "Basis Universal UASTC").
    let has_alpha = reader
        .basic_dfd()
        .and_then(|dfd| dfd.sample_information.first())
        .is_some_and(|sample| matches!(sample.channel_type, 3 | 5));
    Ok(Layout::Uastc { has_alpha })
}

/// Without the `basisu` feature, UASTC is refused by name.
#[cfg(not(feature = "basisu"))]
fn uastc_layout(_: &ktx2::Reader<&[u8]>, _: u32, _: u32) -> Result<Layout, String> {
    Err("KTX2 Basis Universal UASTC needs unbound's `basisu` cargo feature (off by default)".into())
}

/// The texture's size and layout, from the header and level index alone
/// (see the module docs for what is supported).
fn layout(reader: &ktx2::Reader<&[u8]>) -> Result<(u32, u32, Layout), String> {
    let header = reader.header();
    if header.pixel_depth > 1 || header.face_count != 1 || header.layer_count > 1 {
        return Err("KTX2 3D, cube and array textures are not supported".into());
    }
    let (width, height) = (header.pixel_width, header.pixel_height);
    if width == 0 || height == 0 || width > 1 << 16 || height > 1 << 16 {
        return Err(format!("KTX2 size {width}x{height} is out of range"));
    }
    let Some(format) = header.format else {
        return Ok((width, height, basis_layout(reader, width, height)?));
    };
    if let Some((unorm, srgb)) = bc_format(format) {
        let count = reader.levels().len();
        if count == 0 || count as u32 > full_mip_count(width, height) {
            return Err(format!(
                "KTX2 {format:?} with {count} mip levels (1 to the full chain needed: BC levels cannot be generated)"
            ));
        }
        let level_bytes = (0..count as u32)
            .map(|i| compressed_level_bytes(unorm, width, height, i))
            .collect();
        return Ok((
            width,
            height,
            Layout::Bc {
                unorm,
                srgb,
                level_bytes,
            },
        ));
    }
    let channels = match format {
        ktx2::Format::R8G8B8_UNORM | ktx2::Format::R8G8B8_SRGB => 3,
        ktx2::Format::R8G8B8A8_UNORM | ktx2::Format::R8G8B8A8_SRGB => 4,
        other => {
            return Err(format!(
                "KTX2 format {other:?} is not supported (8-bit RGB and RGBA, and BC1-BC7)"
            ));
        }
    };
    Ok((width, height, Layout::Rgba8 { channels }))
}

/// Width, height and the bytes [`decode_ktx2`] would allocate for the
/// texels it returns (RGBA8 level 0, or every BC level), from the header
/// alone: nothing is decompressed.
pub(super) fn probe_ktx2(bytes: &[u8]) -> Result<(u32, u32, u64), String> {
    let reader = ktx2::Reader::new(bytes).map_err(|e| format!("invalid KTX2: {e:?}"))?;
    let (width, height, layout) = layout(&reader)?;
    let texel_bytes = match layout {
        Layout::Bc { level_bytes, .. } => level_bytes.iter().sum(),
        Layout::Rgba8 { .. } => u64::from(width) * u64::from(height) * 4,
        // The RGBA8 texels and, while transcoding, level 0's blocks.
        #[cfg(feature = "basisu")]
        Layout::Uastc { .. } => {
            u64::from(width) * u64::from(height) * 4 + super::basisu::level_bytes(width, height, 0)
        }
    };
    Ok((width, height, texel_bytes))
}

/// Width, height and texels of a KTX2 file (see the module docs); the
/// caller checks [`probe_ktx2`]'s sizes against its limits first.
pub(super) fn decode_ktx2(bytes: &[u8]) -> Result<(u32, u32, Ktx2Texels), String> {
    let reader = ktx2::Reader::new(bytes).map_err(|e| format!("invalid KTX2: {e:?}"))?;
    let (width, height, layout) = layout(&reader)?;
    let scheme = reader.header().supercompression_scheme;
    let channels = match layout {
        Layout::Bc {
            unorm,
            srgb,
            level_bytes: sizes,
        } => {
            let levels = reader
                .levels()
                .zip(sizes)
                .enumerate()
                .map(|(i, (level, expected))| level_bytes(scheme, level.data, expected, i))
                .collect::<Result<Vec<_>, _>>()?;
            let texels = Ktx2Texels::Bc {
                unorm,
                srgb,
                levels,
            };
            return Ok((width, height, texels));
        }
        Layout::Rgba8 { channels } => channels,
        #[cfg(feature = "basisu")]
        Layout::Uastc { has_alpha } => {
            let expected = super::basisu::level_bytes(width, height, 0);
            let level = reader.levels().next().ok_or("KTX2 without mip levels")?;
            let blocks = level_bytes(scheme, level.data, expected, 0)?;
            let rgba = super::basisu::transcode_level0(&blocks, width, height, has_alpha)?;
            return Ok((width, height, Ktx2Texels::Rgba8(rgba)));
        }
    };
    let expected = u64::from(width) * u64::from(height) * channels;
    let level = reader.levels().next().ok_or("KTX2 without mip levels")?;
    let data = level_bytes(scheme, level.data, expected, 0)?;
    let rgba = if channels == 4 {
        data
    } else {
        data.chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    Ok((width, height, Ktx2Texels::Rgba8(rgba)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn malformed_ktx2_is_an_error() {
        let mut bytes = super::KTX2_MAGIC.to_vec();
        bytes.extend([0u8; 40]);
        assert!(super::decode_ktx2(&bytes).is_err());
        assert!(super::probe_ktx2(&bytes).is_err());
    }
}
