//! The loader's CPU stage over real and generated files and deterministic
//! mutations of them: byte mutations (truncations, byte flips, byte runs,
//! JSON number edits) and structure-aware JSON edits
//! (`common/json_edits.rs`). Every input must give a document (naming each
//! image it degraded to the missing texture in a warning) or a typed error
//! naming the file, and nothing may panic, not even inside the `gltf`
//! crate where the loader would contain it (a panic hook counts them). The
//! same path `fuzz/` fuzzes with libFuzzer; this runs in CI without
//! cargo-fuzz. No GPU is involved.

mod common;

use std::cell::Cell;
use std::path::{Path, PathBuf};

use serde_json::json;
use unbound::loaders::gltf::{GltfDocument, GltfError, TexelData, parse_gltf_slice};

const ROOT: &str = "/usr/share/assimp/models/glTF2";

/// Valid and broken files, with external buffers and images (resolved
/// against their directory) and without.
const SEEDS: [&str; 12] = [
    "BoxTextured-glTF-Binary/BoxTextured.glb",
    "BoxTextured-glTF-Embedded/BoxTextured.gltf",
    "BoxTextured-glTF/BoxTextured.gltf",
    "BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb",
    "simple_skin/simple_skin.gltf",
    "RecursiveNodes/RecursiveNodes.gltf",
    "IndexOutOfRange/IndexOutOfRange.gltf",
    "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_13.gltf",
    "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_06.gltf",
    "glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf",
    "textureTransform/TextureTransformTest.gltf",
    "wrongTypes/badArray.gltf",
];

/// xorshift64*: deterministic mutations without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Deterministic mutants of `seed`.
fn mutants(seed: &[u8], rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    // Truncations: every length near the start (headers), then spread out.
    for len in (0..seed.len().min(40)).chain((0..64).map(|i| seed.len() * i / 64)) {
        out.push(seed[..len].to_vec());
    }
    // Single byte flips and random bytes.
    for _ in 0..150 {
        let mut m = seed.to_vec();
        let at = rng.below(m.len());
        m[at] ^= 1 << rng.below(8);
        out.push(m);
        let mut m = seed.to_vec();
        let at = rng.below(m.len());
        m[at] = rng.next() as u8;
        out.push(m);
    }
    // Runs of 0x00 / 0xFF (lengths and counts become 0 or huge).
    for _ in 0..40 {
        let mut m = seed.to_vec();
        let at = rng.below(m.len());
        let fill = if rng.next() & 1 == 0 { 0 } else { 0xFF };
        for b in m.iter_mut().skip(at).take(4) {
            *b = fill;
        }
        out.push(m);
    }
    // JSON numbers replaced by extremes (counts, offsets, strides, indices).
    let digits: Vec<usize> = seed
        .iter()
        .enumerate()
        .filter(|(i, b)| b.is_ascii_digit() && (*i == 0 || !seed[i - 1].is_ascii_digit()))
        .map(|(i, _)| i)
        .collect();
    for _ in 0..60.min(digits.len()) {
        let at = digits[rng.below(digits.len())];
        let end = at + seed[at..].iter().take_while(|b| b.is_ascii_digit()).count();
        let replacement: &[u8] = match rng.below(5) {
            0 => b"0",
            1 => b"4294967295",
            2 => b"18446744073709551615",
            3 => b"1",
            _ => b"-1",
        };
        let mut m = seed[..at].to_vec();
        m.extend_from_slice(replacement);
        m.extend_from_slice(&seed[end..]);
        out.push(m);
    }
    out
}

thread_local! {
    /// Panics on this thread since [`count_panics`] was first called.
    static PANICS: Cell<usize> = const { Cell::new(0) };
}

/// Installs (once per process) a panic hook that counts panics per thread,
/// contained or not, and still prints them.
fn count_panics() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|p| p.set(p.get() + 1));
            default_hook(info);
        }));
    });
}

/// Parsed and rejected inputs.
#[derive(Default)]
struct Outcomes {
    parsed: usize,
    rejected: usize,
}

impl Outcomes {
    /// Checks one result: a document keeps its promises, an error is typed,
    /// names the input `name` and is not a contained panic.
    fn check(&mut self, name: &str, result: Result<GltfDocument, GltfError>) {
        match result {
            Ok(document) => {
                self.parsed += 1;
                document.validate().unwrap();
                // An image degraded to the missing texture is named.
                let missing = document
                    .textures
                    .iter()
                    .any(|t| t.data == TexelData::Missing);
                assert!(
                    !missing || document.warnings.iter().any(|w| w.starts_with("image ")),
                    "{name}: a missing image without a warning: {:?}",
                    document.warnings
                );
            }
            Err(error) => {
                self.rejected += 1;
                assert!(
                    matches!(
                        error,
                        GltfError::Parse { .. }
                            | GltfError::Invalid { .. }
                            | GltfError::Geometry { .. }
                            | GltfError::Resource { .. }
                            | GltfError::Refused { .. }
                            | GltfError::LimitExceeded { .. }
                            | GltfError::Light { .. }
                            | GltfError::Animation { .. }
                    ),
                    "{error}"
                );
                assert!(error.to_string().contains(name), "names the input: {error}");
                assert!(
                    !error.to_string().contains("panicked"),
                    "{name}: a panic was contained: {error}"
                );
            }
        }
    }
}

/// Finding 1 of issue 12 (which made the demo exit with 101): a texture's
/// image with both a `uri` and a `bufferView` but no `mimeType` (the `gltf`
/// crate's `Image::source` unwraps the MIME type). The generated quad with
/// image 0 so, as text.
fn finding_1_file() -> String {
    let mut file: serde_json::Value = serde_json::from_str(&common::textured_quad_gltf(
        &common::ktx2_file(37, 1, 1, &[vec![1, 2, 3, 255]]),
    ))
    .unwrap();
    file["images"][0]["bufferView"] = json!(2);
    file.to_string()
}

#[test]
fn parse_never_panics_on_mutated_files() {
    let root = Path::new(ROOT);
    assert!(
        root.is_dir(),
        "{ROOT} is missing: install Debian's assimp-testmodels"
    );
    count_panics();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut outcomes = Outcomes::default();
    // Plus generated files (data URIs only): a BC1 KTX2 quad, the finding-1
    // file and the scene the structure-aware fuzzer starts from.
    let generated = [
        (
            "generated/bc1-quad.gltf",
            common::textured_quad_gltf(&common::ktx2_file(133, 8, 8, &common::bc1_levels())),
        ),
        ("generated/finding-1.gltf", finding_1_file()),
        ("generated/scene.gltf", common::scene_gltf_parts().0),
    ];
    let seeds = SEEDS
        .iter()
        .map(|seed| (seed.to_string(), std::fs::read(root.join(seed)).unwrap()))
        .chain(generated.map(|(name, text)| (name.to_owned(), text.into_bytes())));
    for (seed, bytes) in seeds {
        let path: PathBuf = root.join(&seed);
        let dir = path.parent().unwrap();
        for (i, mutant) in std::iter::once(bytes.clone())
            .chain(mutants(&bytes, &mut rng))
            .enumerate()
        {
            let name = format!("{seed}#{i}");
            outcomes.check(
                &name,
                parse_gltf_slice(&mutant, Path::new(&name), Some(dir)),
            );
        }
    }
    let Outcomes { parsed, rejected } = outcomes;
    eprintln!("{parsed} inputs parsed, {rejected} rejected with typed errors");
    assert_eq!(PANICS.with(Cell::get), 0, "panics (see stderr)");
    assert!(
        parsed > 12 && rejected > 1000,
        "{parsed} parsed, {rejected} rejected"
    );
}

/// Structure-aware edits, as the `gltf_json` fuzz target makes them:
/// deterministic programs of edits applied to each generated seed, written
/// as `.gltf` and GLB.
#[test]
fn parse_never_panics_on_edited_json() {
    count_panics();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut outcomes = Outcomes::default();
    let mut programs = 0;
    for seed in common::json_edits::seeds() {
        for i in 0..1500 {
            let length = 1 + rng.below(48);
            let program: Vec<u8> = (0..length).map(|_| rng.next() as u8).collect();
            let bytes = common::json_edits::edited(&seed, &program);
            let name = format!("{}#{i}", seed.name);
            outcomes.check(&name, parse_gltf_slice(&bytes, Path::new(&name), None));
            programs += 1;
        }
    }
    let Outcomes { parsed, rejected } = outcomes;
    eprintln!("{programs} edited files: {parsed} parsed, {rejected} rejected with typed errors");
    assert_eq!(PANICS.with(Cell::get), 0, "panics (see stderr)");
    assert!(
        parsed > programs / 10 && rejected > programs / 10,
        "{parsed} parsed, {rejected} rejected"
    );
}

/// Every single edit of each generated seed of the kinds
/// `json_edits::single_edits` lists (finding 1 is one: `bufferView` added to
/// the quad's image, which has a URI).
#[test]
fn parse_never_panics_on_single_json_edits() {
    count_panics();
    let mut outcomes = Outcomes::default();
    for seed in common::json_edits::seeds() {
        for (edit, json) in common::json_edits::single_edits(&seed.json) {
            let name = format!("{} {edit}", seed.name);
            let bytes = json.to_string().into_bytes();
            outcomes.check(&name, parse_gltf_slice(&bytes, Path::new(&name), None));
        }
    }
    let Outcomes { parsed, rejected } = outcomes;
    eprintln!("single edits: {parsed} parsed, {rejected} rejected with typed errors");
    assert_eq!(PANICS.with(Cell::get), 0, "panics (see stderr)");
    assert!(
        parsed > 1000 && rejected > 1000,
        "{parsed} parsed, {rejected} rejected"
    );
}

/// Finding 1 and the other image sources `Image::source` unwraps: typed
/// errors, no panic. An image in a buffer view with a MIME type loads.
#[test]
fn image_sources_the_gltf_crate_unwraps_are_typed_errors() {
    count_panics();
    let error = parse_gltf_slice(
        finding_1_file().as_bytes(),
        Path::new("finding-1.gltf"),
        None,
    )
    .unwrap_err();
    assert!(matches!(error, GltfError::Parse { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("image 0 has both a URI and a buffer view"),
        "{error}"
    );
    let (scene, _) = common::scene_gltf_parts();
    let scene: serde_json::Value = serde_json::from_str(&scene).unwrap();
    let reference = parse_gltf_slice(scene.to_string().as_bytes(), Path::new("scene"), None)
        .expect("an image in a buffer view with a MIME type loads");
    assert_eq!(reference.textures.len(), 2);
    type Edit = fn(&mut serde_json::Map<String, serde_json::Value>);
    let cases: [(Edit, &str); 3] = [
        (
            |image| drop(image.insert("uri".into(), json!("data:image/ktx2;base64,AAAA"))),
            "image 0 has both a URI and a buffer view",
        ),
        (
            |image| drop(image.remove("mimeType")),
            "image 0 has a buffer view but no MIME type",
        ),
        (
            |image| image.retain(|key, _| key == "name"),
            "image 0 has neither a URI nor a buffer view",
        ),
    ];
    for (edit, expected) in cases {
        let mut file = scene.clone();
        edit(file["images"][0].as_object_mut().unwrap());
        let error =
            parse_gltf_slice(file.to_string().as_bytes(), Path::new("image"), None).unwrap_err();
        assert!(matches!(error, GltfError::Parse { .. }), "{error}");
        assert!(error.to_string().contains(expected), "{expected}: {error}");
    }
    assert_eq!(PANICS.with(Cell::get), 0, "panics (see stderr)");
}

/// External URIs in a file parsed from memory without a base directory are
/// refused (nothing is read from disk).
#[test]
fn external_uris_need_a_base_directory() {
    let bytes = std::fs::read(Path::new(ROOT).join("BoxTextured-glTF/BoxTextured.gltf")).unwrap();
    let error = parse_gltf_slice(&bytes, Path::new("memory.gltf"), None).unwrap_err();
    assert!(matches!(error, GltfError::Invalid { .. }), "{error}");
    assert!(error.to_string().contains("base directory"), "{error}");
}
