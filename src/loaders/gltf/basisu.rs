//! Basis Universal UASTC textures (cargo feature `basisu`, off by default):
//! the KTX2 files `KHR_texture_basisu` names, transcoded to RGBA8 by
//! Binomial's C++ transcoder through the `basis-universal` crate.
//!
//! `ktx2.rs` reads the container (the header, level index and data format
//! descriptor, and zstd supercompression); this module checks what the
//! transcoder will be given and calls it. A UASTC texture is 4x4 blocks of
//! 16 bytes, so every level's size follows from the image's: each level's
//! stated (uncompressed) length must be exactly its blocks, level 0's data
//! too once supercompression is undone, and the image no larger than
//! Basis Universal's 16,384 texels a side; anything else is an error
//! before the transcoder sees a byte (it is C++: it trusts the lengths it
//! is given).
//!
//! Level 0 is transcoded to RGBA8 and goes where every RGBA8 image goes
//! (sRGB or linear as the texture's use decides, mips generated on upload,
//! as for 8-bit KTX2 files); the file's smaller levels are checked, not
//! transcoded.
//!
//! The crate's transcoder has no ETC1S entry point without a `.basis`
//! file, so ETC1S (BasisLZ supercompression) is refused by `ktx2.rs`, with
//! or without this feature.
//!
//! A defect of `basis-universal` 0.3.1 is worked around here:
//! `LowLevelUastcTranscoder::transcode_slice` sizes an RGBA32 output's rows
//! in 4-texel blocks (its `block_width` is 4 for every format), so for an
//! image wider than 4 texels the C++ code is given a row pitch of a quarter
//! of the width and a buffer a quarter of the size, and writes past the
//! buffer's end (seen as heap corruption). The slice is therefore described
//! to the crate as 4 times as wide as its padded width: the row pitch the
//! crate computes is then exactly the padded width, its buffer exactly the
//! padded image, and the real texels are cropped from it.

use basis_universal::{
    DecodeFlags, LowLevelUastcTranscoder, SliceParametersUastc, TranscoderBlockFormat,
};

/// The largest width or height Basis Universal transcodes.
const MAX_SIDE: u32 = 16_384;

/// Bytes of one UASTC block (4x4 texels).
const BLOCK_BYTES: u64 = 16;

/// Blocks across and down a level of a `width` x `height` image.
fn blocks(width: u32, height: u32, level: u32) -> (u32, u32) {
    let side = |s: u32| (s >> level).max(1).div_ceil(4);
    (side(width), side(height))
}

/// The bytes of UASTC level `level` of a `width` x `height` image.
pub(super) fn level_bytes(width: u32, height: u32, level: u32) -> u64 {
    let (x, y) = blocks(width, height, level);
    u64::from(x) * u64::from(y) * BLOCK_BYTES
}

/// Checks a UASTC image's size before anything is read.
pub(super) fn check_size(width: u32, height: u32) -> Result<(), String> {
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(format!(
            "KTX2 UASTC size {width}x{height}: Basis Universal transcodes at most {MAX_SIDE} a side"
        ));
    }
    Ok(())
}

/// Level 0 of a `width` x `height` UASTC image (`data`: its blocks, exactly
/// [`level_bytes`] of them, checked here again) as tightly packed RGBA8.
/// `has_alpha`: the data format descriptor's channel has alpha (RGBA or
/// RRRG); otherwise alpha is opaque.
pub(super) fn transcode_level0(
    data: &[u8],
    width: u32,
    height: u32,
    has_alpha: bool,
) -> Result<Vec<u8>, String> {
    check_size(width, height)?;
    if width == 0 || height == 0 {
        return Err(format!("KTX2 UASTC size {width}x{height}"));
    }
    let expected = level_bytes(width, height, 0);
    if data.len() as u64 != expected {
        return Err(format!(
            "KTX2 UASTC level 0 holds {} bytes, needs {expected}",
            data.len()
        ));
    }
    let (num_blocks_x, num_blocks_y) = blocks(width, height, 0);
    // Whole blocks (at most 16,384 texels a side, so 4 times the padded
    // width fits a u32; see the module docs for why 4 times).
    let (padded_width, padded_height) = (num_blocks_x * 4, num_blocks_y * 4);
    let parameters = SliceParametersUastc {
        num_blocks_x,
        num_blocks_y,
        has_alpha,
        original_width: padded_width * 4,
        original_height: padded_height,
    };
    let rgba = LowLevelUastcTranscoder::new()
        .transcode_slice(
            data,
            parameters,
            DecodeFlags::empty(),
            TranscoderBlockFormat::RGBA32,
        )
        .map_err(|e| format!("the UASTC transcoder refused level 0: {e:?}"))?;
    let row = padded_width as usize * 4;
    if rgba.len() != row * padded_height as usize {
        return Err(format!(
            "the UASTC transcoder returned {} bytes for {padded_width}x{padded_height} RGBA8",
            rgba.len()
        ));
    }
    Ok(rgba
        .chunks_exact(row)
        .take(height as usize)
        .flat_map(|texels| &texels[..width as usize * 4])
        .copied()
        .collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn level_sizes_round_up_to_whole_blocks() {
        assert_eq!(super::level_bytes(32, 32, 0), 64 * 16);
        assert_eq!(super::level_bytes(32, 32, 3), 16);
        assert_eq!(super::level_bytes(5, 9, 0), 2 * 3 * 16);
        assert_eq!(super::level_bytes(5, 9, 10), 16);
    }

    /// Level 0's blocks in `assets/basisu/texture_uastc.ktx2` (32 x 32).
    fn fixture_blocks() -> Vec<u8> {
        let file = include_bytes!("../../../assets/basisu/texture_uastc.ktx2");
        let word = |at: usize| u64::from_le_bytes(file[at..at + 8].try_into().unwrap()) as usize;
        let (offset, length) = (word(80), word(88));
        file[offset..offset + length].to_vec()
    }

    /// The same blocks as a 29 x 30 image (the last blocks partly used)
    /// are the 32 x 32 image's texels, cropped: the padded transcoding of
    /// the module docs lands every texel where it belongs.
    #[test]
    fn partial_blocks_are_cropped_from_the_padded_image() {
        let blocks = fixture_blocks();
        let full = super::transcode_level0(&blocks, 32, 32, true).unwrap();
        let cropped = super::transcode_level0(&blocks, 29, 30, true).unwrap();
        assert_eq!(cropped.len(), 29 * 30 * 4);
        for y in 0..30 {
            assert_eq!(
                cropped[y * 29 * 4..][..29 * 4],
                full[y * 32 * 4..][..29 * 4],
                "row {y}"
            );
        }
        // The pattern: red rises to the right, green downwards.
        assert!(full[31 * 4] > 200 && full[31 * 32 * 4 + 1] > 200);
    }

    #[test]
    fn wrong_lengths_never_reach_the_transcoder() {
        let error = super::transcode_level0(&[0; 63 * 16], 32, 32, true).unwrap_err();
        assert!(error.contains("needs 1024"), "{error}");
        assert!(super::transcode_level0(&[], 0, 4, false).is_err());
        assert!(super::transcode_level0(&[0; 16], 20_000, 4, false).is_err());
    }
}
