//! KTX2 textures: 8-bit RGB and RGBA, uncompressed or zstd-supercompressed.

use super::MAX_FILE_BYTES;

/// The first bytes of every KTX2 file.
pub(super) const KTX2_MAGIC: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// Level 0 of a KTX2 texture as tightly packed RGBA8: 8-bit RGB and RGBA
/// formats (UNORM or sRGB; the glTF usage decides how it is sampled),
/// uncompressed or zstd-supercompressed. Mips are regenerated on the GPU.
/// Block-compressed and Basis Universal textures are refused with a clear
/// error for now.
pub(super) fn decode_ktx2(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    use std::io::Read;
    let reader = ktx2::Reader::new(bytes).map_err(|e| format!("invalid KTX2: {e:?}"))?;
    let header = reader.header();
    if header.pixel_depth > 1 || header.face_count != 1 || header.layer_count > 1 {
        return Err("KTX2 3D, cube and array textures are not supported".into());
    }
    let format = header
        .format
        .ok_or("KTX2 without a Vulkan format (Basis Universal) is not supported")?;
    let channels = match format {
        ktx2::Format::R8G8B8_UNORM | ktx2::Format::R8G8B8_SRGB => 3,
        ktx2::Format::R8G8B8A8_UNORM | ktx2::Format::R8G8B8A8_SRGB => 4,
        other => {
            return Err(format!(
                "KTX2 format {other:?} is not supported (8-bit RGB and RGBA only)"
            ));
        }
    };
    let (width, height) = (header.pixel_width, header.pixel_height);
    let expected = u64::from(width) * u64::from(height) * channels;
    if width == 0 || height == 0 || expected > MAX_FILE_BYTES {
        return Err(format!("KTX2 size {width}x{height} is out of range"));
    }
    let level = reader.levels().next().ok_or("KTX2 without mip levels")?;
    let data = match header.supercompression_scheme {
        None => level.data.to_vec(),
        Some(ktx2::SupercompressionScheme::Zstandard) => {
            let mut decoder = ruzstd::decoding::StreamingDecoder::new(level.data)
                .map_err(|e| format!("KTX2 zstd: {e}"))?;
            let mut out = Vec::with_capacity(expected as usize);
            decoder
                .by_ref()
                .take(expected + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("KTX2 zstd: {e}"))?;
            out
        }
        Some(other) => return Err(format!("KTX2 supercompression {other:?} is not supported")),
    };
    if data.len() as u64 != expected {
        return Err(format!(
            "KTX2 level 0 holds {} bytes, {width}x{height} needs {expected}",
            data.len()
        ));
    }
    let rgba = if channels == 4 {
        data
    } else {
        data.chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    Ok((width, height, rgba))
}

#[cfg(test)]
mod tests {
    #[test]
    fn malformed_ktx2_is_an_error() {
        let mut bytes = super::KTX2_MAGIC.to_vec();
        bytes.extend([0u8; 40]);
        assert!(super::decode_ktx2(&bytes).is_err());
    }
}
