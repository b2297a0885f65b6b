//! Hostile glTF files (no GPU): URIs that try to read outside the scene's
//! folder, devices and FIFOs, and files built to exhaust memory. Each is
//! generated into a temporary folder and parsed in a child process
//! (`tests/hostile/mod.rs`: this test binary run again for the one test,
//! under `ulimit -v` and a timeout), because a loader that fails these
//! hangs or runs out of memory rather than returning. The child prints the
//! parse result (`Debug`) and its peak RSS; the test checks both.
//!
//! `UNBOUND_HOSTILE_KEEP=DIR` writes each case's files under `DIR/<case>/`
//! and keeps them (for `scripts/gltf_rss.sh DIR`).
//!
//! Linux only: FIFOs, `/dev/zero`, `ulimit` and `/proc/self/status`.
#![cfg(target_os = "linux")]

mod common;
mod hostile;

use std::path::Path;

use hostile::{CaseDir, Outcome};
use unbound::loaders::gltf::{
    FileAccess, GltfError, Limit, LoadLimits, ParseOptions, RefusalReason, parse_gltf,
    parse_gltf_with_options,
};

/// In a child: parses the file (mode `unrestricted`: with
/// `FileAccess::Unrestricted`) and returns true. In the test itself: false.
fn run_as_child() -> bool {
    hostile::run_as_child(|file, mode| {
        let result = if mode == "unrestricted" {
            let options = ParseOptions {
                file_access: FileAccess::Unrestricted,
                ..ParseOptions::default()
            };
            parse_gltf_with_options(file, &options, None)
        } else {
            parse_gltf(file)
        };
        match result {
            Ok(document) => format!(
                "Ok(meshes: {}, textures: {})",
                document.meshes.len(),
                document.textures.len()
            ),
            Err(error) => format!("{error:?}"),
        }
    })
}

/// Checks on what a child printed.
trait Expect {
    fn assert_refused(&self, uri: &str, reason: RefusalReason);
    fn assert_limit(&self, limit: Limit, value: u64, max: u64);
}

impl Expect for Outcome {
    fn assert_refused(&self, uri: &str, reason: RefusalReason) {
        assert!(
            self.result.starts_with("Refused {")
                && self.result.contains(&format!("uri: {uri:?}"))
                && self.result.contains(&format!("reason: {reason:?}")),
            "expected {uri:?} refused as {reason:?}, got {}",
            self.result
        );
    }

    fn assert_limit(&self, limit: Limit, value: u64, max: u64) {
        let expected = format!("limit: {limit:?}, value: {value}, max: {max} }}");
        assert!(
            self.result.starts_with("LimitExceeded {") && self.result.ends_with(&expected),
            "expected {expected}, got {}",
            self.result
        );
    }
}

/// Parses `file` in a child running only `test` (see `tests/hostile/mod.rs`).
fn parse_in_child(test: &str, file: &Path, unrestricted: bool) -> Outcome {
    hostile::load_in_child(test, file, if unrestricted { "unrestricted" } else { "" })
}

/// Three vertices of a triangle, as a buffer.
fn triangle_bin() -> Vec<u8> {
    [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

fn data_uri(bytes: &[u8]) -> String {
    format!(
        "data:application/octet-stream;base64,{}",
        common::base64(bytes)
    )
}

/// A glTF of one mesh placed once. Each argument is the JSON array's
/// contents; accessor 0 must be the POSITION of every primitive.
struct Json<'a> {
    buffers: &'a str,
    views: &'a str,
    accessors: &'a str,
    primitives: &'a str,
    materials: &'a str,
    textures: &'a str,
    images: &'a str,
}

impl Json<'_> {
    fn render(&self) -> String {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"mesh":0}}],"meshes":[{{"primitives":[{}]}}],
"buffers":[{}],"bufferViews":[{}],"accessors":[{}],
"materials":[{}],"textures":[{}],"images":[{}]}}"#,
            self.primitives,
            self.buffers,
            self.views,
            self.accessors,
            self.materials,
            self.textures,
            self.images
        )
    }
}

/// POSITION accessor 0 of the triangle in view 0.
const TRIANGLE_ACCESSOR: &str =
    r#"{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}"#;

/// A triangle whose buffer (36 bytes) is `buffer_uri`.
fn triangle_gltf(buffer_uri: &str) -> String {
    Json {
        buffers: &format!(r#"{{"uri":{buffer_uri:?},"byteLength":36}}"#),
        views: r#"{"buffer":0,"byteLength":36}"#,
        accessors: TRIANGLE_ACCESSOR,
        primitives: r#"{"attributes":{"POSITION":0}}"#,
        materials: "",
        textures: "",
        images: "",
    }
    .render()
}

/// A triangle (embedded buffer) whose base colour texture is `image_uri`.
fn textured_triangle_gltf(image_uri: &str) -> String {
    Json {
        buffers: &format!(
            r#"{{"uri":{:?},"byteLength":36}}"#,
            data_uri(&triangle_bin())
        ),
        views: r#"{"buffer":0,"byteLength":36}"#,
        accessors: TRIANGLE_ACCESSOR,
        primitives: r#"{"attributes":{"POSITION":0},"material":0}"#,
        materials: r#"{"pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}"#,
        textures: r#"{"source":0}"#,
        images: &format!(r#"{{"uri":{image_uri:?}}}"#),
    }
    .render()
}

/// A binary glTF of `json` and a BIN chunk of `bin`.
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut json = json.as_bytes().to_vec();
    json.resize(json.len().next_multiple_of(4), b' ');
    let mut bin = bin.to_vec();
    bin.resize(bin.len().next_multiple_of(4), 0);
    let length = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    for word in [2, length as u32, json.len() as u32, 0x4E4F_534A] {
        out.extend(word.to_le_bytes());
    }
    out.extend(json);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(0x004E_4942u32.to_le_bytes());
    out.extend(bin);
    out
}

/// A PNG header (signature, IHDR, an empty IDAT, IEND) claiming an RGBA8 image
/// of `width` x `height`.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
            }
        }
        !crc
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let body: Vec<u8> = kind.iter().chain(data).copied().collect();
        out.extend(&body);
        out.extend(crc32(&body).to_be_bytes());
    };
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[]);
    chunk(b"IEND", &[]);
    out
}

const DEEP: &str = "../../../../../../../../../../../..";

#[test]
fn image_uri_traversal_is_refused() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("image-traversal");
    let uri = format!("{DEEP}/etc/passwd");
    let file = dir.write("scene.gltf", textured_triangle_gltf(&uri));
    parse_in_child("image_uri_traversal_is_refused", &file, false)
        .assert_refused(&uri, RefusalReason::OutsideRoot);
}

#[test]
fn buffer_uri_traversal_is_refused() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("buffer-traversal");
    let uri = format!("{DEEP}/etc/hostname");
    let file = dir.write("scene.gltf", triangle_gltf(&uri));
    parse_in_child("buffer_uri_traversal_is_refused", &file, false)
        .assert_refused(&uri, RefusalReason::OutsideRoot);
}

#[test]
fn absolute_uris_are_refused() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("absolute");
    let buffer = dir.write("buffer.gltf", triangle_gltf("/etc/hostname"));
    parse_in_child("absolute_uris_are_refused", &buffer, false)
        .assert_refused("/etc/hostname", RefusalReason::Absolute);
    let image = dir.write("image.gltf", textured_triangle_gltf("/etc/passwd"));
    parse_in_child("absolute_uris_are_refused", &image, false)
        .assert_refused("/etc/passwd", RefusalReason::Absolute);
    let scheme = dir.write("scheme.gltf", triangle_gltf("file:///etc/hostname"));
    parse_in_child("absolute_uris_are_refused", &scheme, false)
        .assert_refused("file:///etc/hostname", RefusalReason::Scheme);
}

/// `%2e%2e` is `..` once decoded and may not escape either; `%20` still
/// names a file with a space.
#[test]
fn percent_encoded_traversal_is_refused_and_spaces_still_decode() {
    if run_as_child() {
        return;
    }
    let test = "percent_encoded_traversal_is_refused_and_spaces_still_decode";
    let dir = CaseDir::new("percent");
    for uri in [
        "%2e%2e/".repeat(12) + "etc/hostname",
        "..%2F".repeat(12) + "etc%2Fhostname",
        "sub/%2E%2E/%2e%2e/".to_owned() + &"..%2f".repeat(12) + "etc/hostname",
    ] {
        let file = dir.write("traversal.gltf", triangle_gltf(&uri));
        parse_in_child(test, &file, false).assert_refused(&uri, RefusalReason::OutsideRoot);
    }
    dir.write("my buffer.bin", triangle_bin());
    let file = dir.write("spaces.gltf", triangle_gltf("my%20buffer.bin"));
    let outcome = parse_in_child(test, &file, false);
    assert_eq!(outcome.result, "Ok(meshes: 1, textures: 0)");
    // A missing file stays distinct from a refused one.
    let file = dir.write("missing.gltf", triangle_gltf("missing.bin"));
    let outcome = parse_in_child(test, &file, false);
    assert!(outcome.result.starts_with("Resource {"), "{outcome:?}");
}

/// `/dev/zero` is refused as an absolute path by default, and as a device
/// where absolute paths are allowed: it is never read.
#[test]
fn device_files_are_refused() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("device");
    let file = dir.write("scene.gltf", triangle_gltf("/dev/zero"));
    parse_in_child("device_files_are_refused", &file, false)
        .assert_refused("/dev/zero", RefusalReason::Absolute);
    parse_in_child("device_files_are_refused", &file, true)
        .assert_refused("/dev/zero", RefusalReason::NotRegularFile);
    let image = dir.write("image.gltf", textured_triangle_gltf("/dev/zero"));
    parse_in_child("device_files_are_refused", &image, true)
        .assert_refused("/dev/zero", RefusalReason::NotRegularFile);
}

/// A FIFO in the scene's folder is refused before it is opened (opening it
/// would block until a writer comes).
#[test]
fn fifos_are_refused_without_blocking() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("fifo");
    dir.fifo("pipe.bin");
    let file = dir.write("scene.gltf", triangle_gltf("pipe.bin"));
    parse_in_child("fifos_are_refused_without_blocking", &file, false)
        .assert_refused("pipe.bin", RefusalReason::NotRegularFile);
    let image = dir.write("image.gltf", textured_triangle_gltf("pipe.bin"));
    parse_in_child("fifos_are_refused_without_blocking", &image, false)
        .assert_refused("pipe.bin", RefusalReason::NotRegularFile);
}

/// Symbolic links are followed, and must end inside the folder.
#[test]
fn symlinks_out_of_the_folder_are_refused() {
    if run_as_child() {
        return;
    }
    let test = "symlinks_out_of_the_folder_are_refused";
    let dir = CaseDir::new("symlink");
    std::os::unix::fs::symlink("/etc/hostname", dir.path.join("hostname.bin")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path.join("zero.bin")).unwrap();
    std::os::unix::fs::symlink("/etc", dir.path.join("etc")).unwrap();
    for uri in ["hostname.bin", "zero.bin", "etc/hostname"] {
        let file = dir.write("scene.gltf", triangle_gltf(uri));
        parse_in_child(test, &file, false).assert_refused(uri, RefusalReason::OutsideRoot);
    }
    // A link that stays inside is fine.
    dir.write("real/triangle.bin", triangle_bin());
    std::os::unix::fs::symlink("real/triangle.bin", dir.path.join("inside.bin")).unwrap();
    let file = dir.write("inside.gltf", triangle_gltf("inside.bin"));
    let outcome = parse_in_child(test, &file, false);
    assert_eq!(outcome.result, "Ok(meshes: 1, textures: 0)");
}

/// 10,000 buffers naming a GLB's 1 MiB BIN chunk share it: the old loader
/// copied it per buffer (10 GiB).
#[test]
fn glb_bin_named_by_many_buffers_is_held_once() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("kfold-bin");
    let buffers = vec![r#"{"byteLength":1048576}"#; 10_000].join(",");
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[]}}],"buffers":[{buffers}]}}"#
    );
    let file = dir.write("kfold.glb", glb(&json, &vec![7u8; 1 << 20]));
    let outcome = parse_in_child("glb_bin_named_by_many_buffers_is_held_once", &file, false);
    assert_eq!(outcome.result, "Ok(meshes: 0, textures: 0)");
    assert!(
        outcome.peak_rss_kib < 128 << 10,
        "peak RSS {} KiB",
        outcome.peak_rss_kib
    );
}

/// Image sizes come from headers, before any texel is allocated: a PNG and
/// a KTX2 claiming 100,000 x 100,000 and 65,536 x 65,536 texels.
#[test]
fn image_dimension_bombs_are_refused_from_the_header() {
    if run_as_child() {
        return;
    }
    let test = "image_dimension_bombs_are_refused_from_the_header";
    let max = LoadLimits::DEFAULT.max_image_pixels;
    let dir = CaseDir::new("dimension-bomb");
    dir.write("bomb.png", png_header(100_000, 100_000));
    let file = dir.write("png.gltf", textured_triangle_gltf("bomb.png"));
    parse_in_child(test, &file, false).assert_limit(Limit::ImagePixels, 100_000 * 100_000, max);
    // VK_FORMAT_R8G8B8A8_UNORM, one 16-byte level.
    dir.write(
        "bomb.ktx2",
        common::ktx2_file(37, 65536, 65536, &[vec![0; 16]]),
    );
    let file = dir.write("ktx2.gltf", textured_triangle_gltf("bomb.ktx2"));
    parse_in_child(test, &file, false).assert_limit(Limit::ImagePixels, 1 << 32, max);
}

/// One vertex and 3 x 2^22 `u8` indices (12 MiB), read by 300 primitives:
/// the old loader made 48 MiB of `u32` per primitive (144 MiB more as a
/// strip), 14 GiB in all. Totals are checked from the accessor counts
/// before anything is read.
#[test]
fn index_bombs_are_refused_before_reading() {
    if run_as_child() {
        return;
    }
    let test = "index_bombs_are_refused_before_reading";
    let dir = CaseDir::new("index-bomb");
    let count: u64 = 3 << 22;
    let bomb = |mode: u32, primitives: usize, count: u64| {
        let mut bin = vec![0u8; 12];
        bin.resize(12 + count as usize, 0);
        let json = Json {
            buffers: &format!(r#"{{"byteLength":{}}}"#, bin.len()),
            views: &format!(
                r#"{{"buffer":0,"byteLength":12}},{{"buffer":0,"byteOffset":12,"byteLength":{count}}}"#
            ),
            accessors: &format!(
                r#"{{"bufferView":0,"componentType":5126,"count":1,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}},
{{"bufferView":1,"componentType":5121,"count":{count},"type":"SCALAR"}}"#
            ),
            primitives: &vec![
                format!(r#"{{"attributes":{{"POSITION":0}},"indices":1,"mode":{mode}}}"#);
                primitives
            ]
            .join(","),
            materials: "",
            textures: "",
            images: "",
        }
        .render();
        glb(&json, &bin)
    };
    let max = LoadLimits::DEFAULT.max_indices;
    // Triangle lists: the third primitive's indices pass the total
    // (2^25).
    let file = dir.write("list.glb", bomb(4, 300, count));
    parse_in_child(test, &file, false).assert_limit(Limit::Indices, 3 * count, max);
    // One strip: its conversion to a list triples it.
    let file = dir.write("strip.glb", bomb(5, 1, count));
    parse_in_child(test, &file, false).assert_limit(Limit::Indices, 3 * (count - 2), max);
    // One accessor over the per-accessor limit (2^24), whole triangles.
    let max = LoadLimits::DEFAULT.max_accessor_elements;
    let file = dir.write("accessor.glb", bomb(4, 1, max + 2));
    parse_in_child(test, &file, false).assert_limit(Limit::AccessorElements, max + 2, max);
}

/// 64 images sharing one view of a 4096 x 4096 grey PNG, each used by its
/// own material: 64 MiB of RGBA apiece once grey is expanded (the old
/// loader held each twice, 8 GiB in all). The total is refused before the
/// ninth is decoded.
#[test]
fn decoded_image_total_is_bounded() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("image-total");
    let side = 4096u32;
    let mut png = Vec::new();
    image::GrayImage::new(side, side)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let mut bin = triangle_bin();
    bin.extend(&png);
    let images = 64;
    let list = |item: &dyn Fn(usize) -> String| (0..images).map(item).collect::<Vec<_>>().join(",");
    let json = Json {
        buffers: &format!(r#"{{"byteLength":{}}}"#, bin.len()),
        views: &format!(
            r#"{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":{}}}"#,
            png.len()
        ),
        accessors: TRIANGLE_ACCESSOR,
        primitives: &list(&|i| format!(r#"{{"attributes":{{"POSITION":0}},"material":{i}}}"#)),
        materials: &list(&|i| {
            format!(r#"{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":{i}}}}}}}"#)
        }),
        textures: &list(&|i| format!(r#"{{"source":{i}}}"#)),
        images: &list(&|_| r#"{"bufferView":1,"mimeType":"image/png"}"#.to_owned()),
    }
    .render();
    let file = dir.write("images.glb", glb(&json, &bin));
    let rgba = u64::from(side * side) * 4;
    parse_in_child("decoded_image_total_is_bounded", &file, false).assert_limit(
        Limit::ImageBytes,
        9 * rgba,
        LoadLimits::DEFAULT.max_image_bytes,
    );
}

/// A 64 MiB `.gltf` of 22 million empty nodes (about 5 GiB once parsed by
/// the old loader): its objects are counted on the text, before parsing.
#[test]
fn json_object_bomb_is_refused_before_parsing() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("json-bomb");
    let nodes: u64 = (64 << 20) / 3;
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{}{{}}]}}"#,
        "{},".repeat(nodes as usize - 1)
    );
    let file = dir.write("nodes.gltf", json);
    // The nodes, the root object, `asset` and the `nodes` array.
    parse_in_child("json_object_bomb_is_refused_before_parsing", &file, false).assert_limit(
        Limit::JsonObjects,
        nodes + 3,
        LoadLimits::DEFAULT.max_json_objects,
    );
}

/// A 200 MB `.gltf` whose one node has 100 million children: few objects,
/// but read as a tree of JSON values (32 bytes each) before the `gltf` crate
/// sees it, that is 3 GiB. Its values are bounded on the text, before
/// parsing.
#[test]
fn json_value_bomb_is_refused_before_parsing() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("json-values");
    let children: u64 = 100_000_000;
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{{"children":[{}0]}}]}}"#,
        "0,".repeat(children as usize - 1)
    );
    let file = dir.write("children.gltf", json);
    // The root, `asset` and its version, `nodes`, the node, `children` and
    // its elements.
    parse_in_child("json_value_bomb_is_refused_before_parsing", &file, false).assert_limit(
        Limit::JsonValues,
        children + 6,
        LoadLimits::DEFAULT.max_json_values,
    );
}

/// `FileAccess::Root` widens the folder to one the caller names (URIs still
/// resolve from the scene's folder); `Unrestricted` drops it.
#[test]
fn a_named_root_widens_the_folder() {
    let dir = CaseDir::new("root");
    dir.write("library/shared/triangle.bin", triangle_bin());
    dir.write("outside.bin", triangle_bin());
    let shared = dir.write(
        "library/scenes/shared.gltf",
        triangle_gltf("../shared/triangle.bin"),
    );
    let outside = dir.write(
        "library/scenes/outside.gltf",
        triangle_gltf("../../outside.bin"),
    );
    let options = |file_access| ParseOptions {
        file_access,
        ..ParseOptions::default()
    };
    let scene_folder = options(FileAccess::SceneFolder);
    let root = options(FileAccess::Root(dir.path.join("library")));
    let unrestricted = options(FileAccess::Unrestricted);
    let refused = |result: Result<_, GltfError>| match result {
        Err(GltfError::Refused { reason, .. }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(
        refused(parse_gltf_with_options(&shared, &scene_folder, None)),
        RefusalReason::OutsideRoot
    );
    let document = parse_gltf_with_options(&shared, &root, None).unwrap();
    assert_eq!(document.meshes.len(), 1);
    assert_eq!(
        refused(parse_gltf_with_options(&outside, &root, None)),
        RefusalReason::OutsideRoot
    );
    parse_gltf_with_options(&outside, &unrestricted, None).unwrap();
    let absolute = dir.path.join("outside.bin");
    let absolute = dir.write("absolute.gltf", triangle_gltf(absolute.to_str().unwrap()));
    assert_eq!(
        refused(parse_gltf_with_options(&absolute, &scene_folder, None)),
        RefusalReason::Absolute
    );
    parse_gltf_with_options(&absolute, &unrestricted, None).unwrap();
}

/// Each limit is a field a caller can lower or raise.
#[test]
fn limits_are_options() {
    let dir = CaseDir::new("limits");
    dir.write("triangle.bin", triangle_bin());
    let file = dir.write("scene.gltf", triangle_gltf("triangle.bin"));
    let with = |limits| ParseOptions {
        limits,
        ..ParseOptions::default()
    };
    let exceeded = |limits| match parse_gltf_with_options(&file, &with(limits), None) {
        Err(GltfError::LimitExceeded {
            limit, value, max, ..
        }) => (limit, value, max),
        other => panic!("expected a limit, got {other:?}"),
    };
    let default = LoadLimits::default();
    assert_eq!(
        exceeded(LoadLimits {
            max_indices: 2,
            ..default
        }),
        (Limit::Indices, 3, 2)
    );
    assert_eq!(
        exceeded(LoadLimits {
            max_buffer_bytes: 35,
            ..default
        }),
        (Limit::BufferBytes, 36, 35)
    );
    assert_eq!(
        exceeded(LoadLimits {
            max_file_bytes: 10,
            ..default
        })
        .0,
        Limit::FileBytes
    );
    parse_gltf_with_options(&file, &with(default), None).unwrap();
    parse_gltf_with_options(&file, &with(LoadLimits::UNLIMITED), None).unwrap();
}

/// A link whose target leaves the folder is refused on the link's text,
/// before the target is looked up: a target that exists and one that does
/// not give the same refusal, for a buffer and for an image (whose missing
/// file would otherwise be a warning). The old loader resolved the link
/// first: a missing target was a `Resource` error (an image: a warning and
/// a missing texture), an existing one a refusal.
#[test]
fn symlinks_out_of_the_folder_are_refused_whether_or_not_the_target_exists() {
    let dir = CaseDir::new("symlink-missing");
    let outside = CaseDir::new("symlink-missing-outside");
    outside.write("there.bin", triangle_bin());
    let there = outside.path.join("there.bin");
    let gone = outside.path.join("gone.bin");
    let link = |name: &str, target: &Path| {
        std::os::unix::fs::symlink(target, dir.path.join(name)).unwrap();
    };
    link("there.bin", &there);
    link("gone.bin", &gone);
    link("there_dir", &outside.path);
    link("gone_dir", &outside.path.join("gone"));
    let up = Path::new("..").join(outside.path.file_name().unwrap());
    link("there_up.bin", &up.join("there.bin"));
    link("gone_up.bin", &up.join("gone.bin"));
    // A link inside that leads to one going out.
    link("chain.bin", Path::new("gone_up.bin"));
    let cases = [
        "there.bin",
        "gone.bin",
        "there_dir/there.bin",
        "gone_dir/there.bin",
        "there_up.bin",
        "gone_up.bin",
        "chain.bin",
    ];
    let mut outcomes = Vec::new();
    for uri in cases {
        let buffer = dir.write("buffer.gltf", triangle_gltf(uri));
        let image = dir.write("image.gltf", textured_triangle_gltf(uri));
        for file in [buffer, image] {
            match parse_gltf(&file) {
                Err(GltfError::Refused {
                    uri: refused,
                    reason,
                    ..
                }) if refused == uri => outcomes.push(reason),
                other => panic!("{uri} in {}: {other:?}", file.display()),
            }
        }
    }
    assert!(
        outcomes.iter().all(|&r| r == RefusalReason::OutsideRoot),
        "{outcomes:?}"
    );
    // Links that stay inside are followed, relative to the link's folder,
    // through other links and `..`.
    dir.write("real/triangle.bin", triangle_bin());
    std::fs::create_dir_all(dir.path.join("sub")).unwrap();
    link("sub/up.bin", Path::new("../real/triangle.bin"));
    link("real_dir", Path::new("real"));
    link("sub/via.bin", Path::new("../real_dir/../sub/up.bin"));
    link(
        "absolute.bin",
        &dir.path.canonicalize().unwrap().join("sub/via.bin"),
    );
    for uri in [
        "sub/up.bin",
        "sub/via.bin",
        "real_dir/triangle.bin",
        "absolute.bin",
    ] {
        let file = dir.write("inside.gltf", triangle_gltf(uri));
        let document = parse_gltf(&file).unwrap_or_else(|e| panic!("{uri}: {e:?}"));
        assert_eq!(document.meshes.len(), 1, "{uri}");
    }
    // A link missing inside the folder is a missing file, as without links.
    link("missing.bin", Path::new("real/missing.bin"));
    let file = dir.write("missing.gltf", triangle_gltf("missing.bin"));
    assert!(
        matches!(parse_gltf(&file), Err(GltfError::Resource { .. })),
        "a missing file inside"
    );
    // A loop of links ends.
    link("loop_a.bin", Path::new("loop_b.bin"));
    link("loop_b.bin", Path::new("loop_a.bin"));
    let file = dir.write("loop.gltf", triangle_gltf("loop_a.bin"));
    assert!(
        matches!(parse_gltf(&file), Err(GltfError::Resource { .. })),
        "a loop of links"
    );
}

/// 20,000 nodes each naming one mesh of 20,000 primitives, in 1.3 MB of
/// JSON: 400 million placements (32 GB) for the old loader, which aborted.
/// Each node's placements are charged to `max_placements` before they are
/// made: the 53rd node's pass 2^20.
#[test]
fn node_times_primitive_amplification_is_refused() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("placements");
    let count = 20_000;
    let primitives = vec![r#"{"attributes":{"POSITION":0}}"#; count].join(",");
    let nodes = vec![r#"{"mesh":0}"#; count].join(",");
    let roots: Vec<String> = (0..count).map(|n| n.to_string()).collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[{}]}}],
"nodes":[{nodes}],"meshes":[{{"primitives":[{primitives}]}}],
"buffers":[{{"byteLength":36}}],"bufferViews":[{{"buffer":0,"byteLength":36}}],
"accessors":[{TRIANGLE_ACCESSOR}]}}"#,
        roots.join(",")
    );
    let file = dir.write("placements.glb", glb(&json, &triangle_bin()));
    println!("{} bytes", std::fs::metadata(&file).unwrap().len());
    let max = LoadLimits::DEFAULT.max_placements;
    let count = count as u64;
    let outcome = parse_in_child(
        "node_times_primitive_amplification_is_refused",
        &file,
        false,
    );
    outcome.assert_limit(Limit::Placements, (max / count + 1) * count, max);
    println!("peak RSS {} KiB", outcome.peak_rss_kib);
    assert!(
        outcome.peak_rss_kib < 512 << 10,
        "peak RSS {} KiB",
        outcome.peak_rss_kib
    );
    // Lights count too: a limit of 1 refuses a light after the mesh.
    let options = ParseOptions {
        limits: LoadLimits {
            max_placements: 1,
            ..LoadLimits::DEFAULT
        },
        ..ParseOptions::default()
    };
    let lit = dir.write(
        "lit.gltf",
        triangle_gltf(&data_uri(&triangle_bin())).replace(
            r#""nodes":[{"mesh":0}]"#,
            r#""nodes":[{"mesh":0,"extensions":{"KHR_lights_punctual":{"light":0}}}],
"extensionsUsed":["KHR_lights_punctual"],
"extensions":{"KHR_lights_punctual":{"lights":[{"type":"point"}]}}"#,
        ),
    );
    assert!(
        matches!(
            parse_gltf_with_options(&lit, &options, None),
            Err(GltfError::LimitExceeded {
                limit: Limit::Placements,
                value: 2,
                max: 1,
                ..
            })
        ),
        "the light is charged"
    );
}
