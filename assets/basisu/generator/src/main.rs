//! Writes the `KHR_texture_basisu` test assets into the directory given as
//! the one argument (`assets/basisu/`, see its README):
//!
//! - `texture.png`: a 32x32 RGBA8 test pattern (the fallback);
//! - `texture_uastc.ktx2`: the pattern encoded as UASTC by the
//!   `basis-universal` crate's encoder, with its mip chain, in a KTX2
//!   container written here (no supercompression);
//! - `texture_uastc_zstd.ktx2`: the same levels, zstd-supercompressed;
//! - `quad.bin` and `basisu.gltf`: a unit quad whose base colour texture
//!   prefers the UASTC image through `KHR_texture_basisu`, with the PNG as
//!   its core `source`.
//!
//! The encoder writes a `.basis` file; for UASTC its slices are the raw
//! 16-byte blocks, one slice per mip level, which are copied into the KTX2
//! levels unchanged.

use std::path::Path;

use basis_universal::{BasisTextureFormat, Compressor, CompressorParams, UASTC_QUALITY_DEFAULT};

const SIZE: u32 = 32;

/// The test pattern: red rising to the right, green rising downwards, blue
/// high in two opposite quadrants, opaque.
fn pattern() -> Vec<u8> {
    let mut rgba = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let blue = if (x < SIZE / 2) == (y < SIZE / 2) {
                200
            } else {
                40
            };
            rgba.extend([(x * 8) as u8, (y * 8) as u8, blue, 255]);
        }
    }
    rgba
}

/// A little-endian unsigned integer of `bytes.len()` bytes.
fn le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |v, &b| (v << 8) | u64::from(b))
}

/// One level of the `.basis` file: (width, height, blocks).
struct Slice {
    level: u32,
    width: u32,
    height: u32,
    blocks: Vec<u8>,
}

/// The slices of a UASTC `.basis` file (basisu_file_headers.h: a packed
/// header, then 23-byte slice descriptors).
fn slices(basis: &[u8]) -> Vec<Slice> {
    assert_eq!(le(&basis[0..2]), u64::from(u16::from_le_bytes(*b"sB")));
    let total = le(&basis[14..17]) as usize;
    let descriptors = le(&basis[65..69]) as usize;
    (0..total)
        .map(|i| {
            let d = &basis[descriptors + 23 * i..][..23];
            let (offset, size) = (le(&d[13..17]) as usize, le(&d[17..21]) as usize);
            let (blocks_x, blocks_y) = (le(&d[9..11]), le(&d[11..13]));
            assert_eq!(size as u64, blocks_x * blocks_y * 16, "UASTC slice {i}");
            Slice {
                level: le(&d[3..4]) as u32,
                width: le(&d[5..7]) as u32,
                height: le(&d[7..9]) as u32,
                blocks: basis[offset..offset + size].to_vec(),
            }
        })
        .collect()
}

/// A KTX2 file (KTX 2.0 specification) holding UASTC `levels` (level 0
/// first): VK_FORMAT_UNDEFINED, a basic data format descriptor with the
/// UASTC colour model (166), sRGB transfer, one RGBA sample; `zstd`
/// supercompresses each level (scheme 2).
fn ktx2(levels: &[Slice], zstd: bool) -> Vec<u8> {
    let stored: Vec<Vec<u8>> = levels
        .iter()
        .map(|l| {
            if zstd {
                ruzstd::encoding::compress_to_vec(
                    &l.blocks[..],
                    ruzstd::encoding::CompressionLevel::Fastest,
                )
            } else {
                l.blocks.clone()
            }
        })
        .collect();
    // The basic DFD block: 24 bytes of header and one 16-byte sample.
    let mut dfd = Vec::new();
    dfd.extend(44u32.to_le_bytes()); // dfdTotalSize
    dfd.extend(0u32.to_le_bytes()); // vendorId 0 (Khronos), descriptorType 0 (basic)
    dfd.extend((2u32 | (40 << 16)).to_le_bytes()); // version 2, block size 40
    dfd.extend([166, 1, 2, 0]); // model UASTC, BT.709 primaries, sRGB transfer, straight alpha
    dfd.extend([3, 3, 0, 0]); // texel block 4x4x1x1 (each minus one)
    dfd.extend([16, 0, 0, 0, 0, 0, 0, 0]); // bytesPlane0: 16 bytes a block
    dfd.extend(0u16.to_le_bytes()); // bitOffset
    dfd.extend([127, 3]); // bitLength 128 - 1, channel 3 (UASTC RGBA)
    dfd.extend([0, 0, 0, 0]); // sample position
    dfd.extend(0u32.to_le_bytes()); // sampleLower
    dfd.extend(u32::MAX.to_le_bytes()); // sampleUpper

    let dfd_offset = 80 + 24 * levels.len();
    let mut out = vec![
        0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
    ];
    let scheme = if zstd { 2 } else { 0 };
    let (width, height) = (levels[0].width, levels[0].height);
    for word in [0, 1, width, height, 0, 0, 1, levels.len() as u32, scheme] {
        out.extend(u32::to_le_bytes(word));
    }
    for word in [dfd_offset as u32, dfd.len() as u32, 0, 0] {
        out.extend(word.to_le_bytes());
    }
    out.extend([0u8; 16]); // no supercompression global data
    // Level data follows the DFD, smallest level first, each aligned to 16
    // bytes (the block size; 1 with supercompression, 16 kept anyway).
    let mut offsets = vec![0u64; levels.len()];
    let mut at = (dfd_offset + dfd.len()) as u64;
    for i in (0..levels.len()).rev() {
        at = at.next_multiple_of(16);
        offsets[i] = at;
        at += stored[i].len() as u64;
    }
    for (i, level) in levels.iter().enumerate() {
        for word in [
            offsets[i],
            stored[i].len() as u64,
            level.blocks.len() as u64,
        ] {
            out.extend(word.to_le_bytes());
        }
    }
    out.extend(&dfd);
    for i in (0..levels.len()).rev() {
        out.resize(offsets[i] as usize, 0);
        out.extend(&stored[i]);
    }
    out
}

fn png(rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SIZE, SIZE);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(rgba).unwrap();
    writer.finish().unwrap();
    out
}

/// The quad of unbound's `tests/common/files.rs` (positions, UVs, indices).
fn quad() -> Vec<u8> {
    let mut buffer = Vec::new();
    for p in [
        [-0.5f32, -0.5, 0.0],
        [0.5, -0.5, 0.0],
        [0.5, 0.5, 0.0],
        [-0.5, 0.5, 0.0],
    ] {
        p.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    }
    for uv in [[0.0f32, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]] {
        uv.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        buffer.extend(i.to_le_bytes());
    }
    buffer
}

const GLTF: &str = r#"{
  "asset": {"version": "2.0", "generator": "unbound assets/basisu/generator"},
  "extensionsUsed": ["KHR_texture_basisu"],
  "scene": 0,
  "scenes": [{"nodes": [0]}],
  "nodes": [{"mesh": 0}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
  "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0}}],
  "textures": [{"source": 0, "sampler": 0, "extensions": {"KHR_texture_basisu": {"source": 1}}}],
  "samplers": [{"magFilter": 9728, "minFilter": 9984}],
  "images": [{"uri": "texture.png"}, {"uri": "texture_uastc.ktx2"}],
  "buffers": [{"byteLength": 92, "uri": "quad.bin"}],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 48},
    {"buffer": 0, "byteOffset": 48, "byteLength": 32},
    {"buffer": 0, "byteOffset": 80, "byteLength": 12}
  ],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]},
    {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
    {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}
  ]
}
"#;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: basisu-fixture OUT_DIR");
    let dir = Path::new(&dir);
    let rgba = pattern();

    let mut params = CompressorParams::new();
    params.set_basis_format(BasisTextureFormat::UASTC4x4);
    params.set_uastc_quality_level(UASTC_QUALITY_DEFAULT);
    params.set_generate_mipmaps(true);
    params.set_print_status_to_stdout(false);
    params.source_image_mut(0).init(&rgba, SIZE, SIZE, 4);
    let mut compressor = Compressor::new(1);
    // SAFETY: the parameters are the crate's documented UASTC ones, and the
    // one source image was initialised from a buffer of SIZE x SIZE x 4.
    unsafe {
        assert!(compressor.init(&params));
        compressor.process().expect("UASTC encoding");
    }
    let levels = slices(compressor.basis_file());
    for (i, level) in levels.iter().enumerate() {
        assert_eq!(level.level as usize, i, "one image: levels in order");
        assert_eq!(level.width, (SIZE >> i).max(1));
    }

    std::fs::write(dir.join("texture.png"), png(&rgba)).unwrap();
    std::fs::write(dir.join("texture_uastc.ktx2"), ktx2(&levels, false)).unwrap();
    std::fs::write(dir.join("texture_uastc_zstd.ktx2"), ktx2(&levels, true)).unwrap();
    std::fs::write(dir.join("quad.bin"), quad()).unwrap();
    std::fs::write(dir.join("basisu.gltf"), GLTF).unwrap();
    println!("{} UASTC levels written to {}", levels.len(), dir.display());
}
