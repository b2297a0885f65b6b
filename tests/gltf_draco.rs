//! `KHR_draco_mesh_compression` with the `draco` cargo feature (off by
//! default: the README's extension table says why): glTF Transform's Fox
//! (`assets/gltf-transform/Fox_draco.glb`) decodes to the original's
//! geometry, and hostile streams (truncated, bits flipped, counts that lie
//! in the stream or in the accessors) are typed errors, never a panic, with
//! what a stream claims refused before it is decoded. The renders against
//! the originals are in `tests/gltf_compressed.rs`.
#![cfg(feature = "draco")]

mod common;

use std::path::Path;

use common::{asset, glb};
use serde_json::{Value, json};
use unbound::loaders::gltf::{
    GltfDocument, GltfError, Limit, LoadLimits, ParseOptions, parse_gltf,
    parse_gltf_slice_with_options,
};

/// The JSON and BIN chunk of a GLB.
fn split_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = word(12);
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    (json, bytes[bin_at + 8..bin_at + 8 + word(bin_at)].to_vec())
}

fn fox() -> (Value, Vec<u8>) {
    split_glb(&std::fs::read(asset("gltf-transform/Fox_draco.glb")).unwrap())
}

fn parse_with(json: &Value, bin: &[u8], limits: LoadLimits) -> Result<GltfDocument, GltfError> {
    let options = ParseOptions {
        limits,
        ..ParseOptions::default()
    };
    let file = glb(&json.to_string(), Some(bin));
    parse_gltf_slice_with_options(&file, Path::new("fox_draco.glb"), None, &options)
}

fn parse(json: &Value, bin: &[u8]) -> Result<GltfDocument, GltfError> {
    parse_with(json, bin, LoadLimits::DEFAULT)
}

/// The Fox's one Draco primitive: its extension object.
fn extension(json: &Value) -> &Value {
    &json["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]
}

/// `json`'s Draco stream: (offset, length) in the BIN chunk.
fn stream(json: &Value) -> (usize, usize) {
    let view = &json["bufferViews"][extension(json)["bufferView"].as_u64().unwrap() as usize];
    (
        view["byteOffset"].as_u64().unwrap_or(0) as usize,
        view["byteLength"].as_u64().unwrap() as usize,
    )
}

/// A typed error naming the extension and the primitive.
fn assert_draco_error(result: Result<GltfDocument, GltfError>, what: &str) -> String {
    match result {
        Err(e @ GltfError::Invalid { .. }) => {
            let message = e.to_string();
            assert!(
                message.contains("KHR_draco_mesh_compression") && message.contains("mesh 0"),
                "{what}: {message}"
            );
            message
        }
        other => panic!("{what}: {:?}", other.map(|d| d.meshes.len())),
    }
}

/// The decoded Fox against gltfpack's original (the file glTF Transform
/// compressed, welding its 1728 unindexed vertices to 434): the same
/// triangle count, every original vertex within the 14-bit position
/// quantisation (1/1000 of the extent) of a decoded one and the other way
/// round, and the same bounds within it.
#[test]
fn the_draco_fox_decodes_to_the_originals_geometry() {
    let draco = parse_gltf(&asset("gltf-transform/Fox_draco.glb")).unwrap();
    let original = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    assert_eq!(draco.meshes.len(), 1);
    let (d, o) = (&draco.meshes[0], &original.meshes[0]);
    assert_eq!(d.indices.len(), o.indices.len());
    assert_eq!(d.positions.len(), 434);
    assert!(d.uv0.is_some());
    let (min, max) = draco.bounds(glam::Mat4::IDENTITY);
    let (omin, omax) = original.bounds(glam::Mat4::IDENTITY);
    let extent = (omax - omin).length();
    assert!(extent > 100.0, "the fox is about 150 units long");
    let off = (min - omin).abs().max((max - omax).abs()).max_element();
    assert!(off <= extent * 1e-3, "bounds off by {off}");
    let nearest = |p: &[f32; 3], among: &[[f32; 3]]| {
        among
            .iter()
            .map(|q| glam::Vec3::from(*p).distance(glam::Vec3::from(*q)))
            .fold(f32::INFINITY, f32::min)
    };
    for (a, b) in [(&o.positions, &d.positions), (&d.positions, &o.positions)] {
        let worst = a.iter().map(|p| nearest(p, b)).fold(0.0, f32::max);
        assert!(worst <= extent * 1e-3, "a vertex {worst} from the nearest");
    }
    assert!(
        !draco.warnings.iter().any(|w| w.contains("draco")),
        "{:?}",
        draco.warnings
    );
}

/// The stream cut short anywhere (its view's `byteLength` lowered): a
/// typed error every time.
#[test]
fn truncated_streams_are_typed_errors() {
    let (json, bin) = fox();
    let (_, length) = stream(&json);
    let view = extension(&json)["bufferView"].as_u64().unwrap() as usize;
    let cuts = [
        1,
        4,
        10,
        11,
        12,
        16,
        24,
        64,
        256,
        length / 3,
        length / 2,
        length - 16,
    ];
    for cut in cuts {
        let mut json = json.clone();
        json["bufferViews"][view]["byteLength"] = json!(cut);
        assert_draco_error(parse(&json, &bin), &format!("cut at {cut} of {length}"));
    }
}

/// Bits flipped across the stream (a fixed pseudo-random sequence): each
/// file loads or is a typed error, and none panics. The decoder panics on
/// one of these streams (`clamp` with crossed bounds): contained, it is an
/// error saying so.
#[test]
fn streams_with_flipped_bits_never_panic() {
    let (json, bin) = fox();
    let (offset, length) = stream(&json);
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut loaded, mut refused, mut contained) = (0, 0, 0);
    for _ in 0..200 {
        let mut bin = bin.clone();
        for _ in 0..2 {
            let at = offset + next() as usize % length;
            bin[at] ^= 1 << (next() % 8);
        }
        match parse(&json, &bin) {
            Ok(_) => loaded += 1,
            Err(e) => {
                assert!(
                    matches!(e, GltfError::Invalid { .. } | GltfError::Geometry { .. }),
                    "{e}"
                );
                refused += 1;
                contained += usize::from(e.to_string().contains("the decoder panicked"));
            }
        }
    }
    eprintln!("{loaded} loaded, {refused} refused ({contained} decoder panics)");
    assert!(
        refused > 0,
        "flipped header and connectivity bits are refused"
    );
    assert!(contained > 0, "the decoder's panic is contained");
}

/// Draco's header, then the edgebreaker connectivity header with
/// `vertices` and `triangles`.
fn lying_stream(vertices: u64, triangles: u64) -> Vec<u8> {
    let mut out = b"DRACO\x02\x02\x01\x01\x00\x00\x00".to_vec();
    for mut value in [vertices, triangles, 0, triangles, 0] {
        loop {
            let byte = (value & 0x7F) as u8;
            value >>= 7;
            out.push(byte | if value > 0 { 0x80 } else { 0 });
            if value == 0 {
                break;
            }
        }
    }
    out.resize(64, 0);
    out
}

/// A stream whose header claims 2^40 triangles, or more vertices than its
/// triangles have corners, is refused before it is decoded; as are
/// accessor counts that disagree with the stream.
#[test]
fn counts_that_lie_are_refused() {
    let (json, bin) = fox();
    let view = extension(&json)["bufferView"].as_u64().unwrap() as usize;
    for (vertices, triangles) in [(434, 1 << 40), (1 << 40, 576), (434, 577)] {
        let mut json = json.clone();
        let mut bin = bin.clone();
        json["bufferViews"][view]["byteOffset"] = json!(bin.len());
        let lie = lying_stream(vertices, triangles);
        json["bufferViews"][view]["byteLength"] = json!(lie.len());
        bin.extend(lie);
        json["buffers"][0]["byteLength"] = json!(bin.len());
        let message = assert_draco_error(parse(&json, &bin), "lying stream");
        assert!(message.contains("the stream declares"), "{message}");
    }
    // Accessors: the indices' count, then every attribute's.
    let mut lying = json.clone();
    lying["accessors"][0]["count"] = json!(1731);
    let message = assert_draco_error(parse(&lying, &bin), "indices count");
    assert!(message.contains("triangles"), "{message}");
    let mut lying = json.clone();
    for accessor in 1..=4 {
        lying["accessors"][accessor]["count"] = json!(435);
    }
    assert_draco_error(parse(&lying, &bin), "attribute counts");
}

/// The accessors a stream decodes to are charged to
/// `LoadLimits::max_decompressed_bytes` before it is decoded.
#[test]
fn decoded_accessors_are_charged_before_decoding() {
    let (json, bin) = fox();
    // 1728 u16 indices, 434 x (12 + 8 + 8 + 16) bytes of attributes.
    let decoded = 1728 * 2 + 434 * (12 + 8 + 8 + 16);
    for (max, loads) in [(decoded, true), (decoded - 1, false)] {
        let limits = LoadLimits {
            max_decompressed_bytes: max,
            ..LoadLimits::DEFAULT
        };
        match parse_with(&json, &bin, limits) {
            Ok(_) => assert!(loads, "{max}"),
            Err(GltfError::LimitExceeded { limit, value, .. }) => {
                assert!(!loads, "{max}");
                assert_eq!(limit, Limit::DecompressedBytes);
                assert_eq!(value, decoded);
            }
            Err(e) => panic!("{max}: {e}"),
        }
    }
}
