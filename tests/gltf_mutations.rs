//! The loader's CPU stage over real files and deterministic mutations of
//! them (truncations, byte flips, byte runs, JSON number edits): every input
//! must give a document or a typed error naming the file, and nothing may
//! panic, not even inside the `gltf` crate where the loader would contain it
//! (a panic hook counts them). The same path `fuzz/` fuzzes with libFuzzer;
//! this runs in CI without cargo-fuzz. No GPU is involved.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use unbound::loaders::gltf::{GltfError, parse_gltf_slice};

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

static PANICS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn parse_never_panics_on_mutated_files() {
    let root = Path::new(ROOT);
    assert!(
        root.is_dir(),
        "{ROOT} is missing: install Debian's assimp-testmodels"
    );
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut parsed, mut rejected) = (0usize, 0usize);
    // Plus a generated file with a BC1 KTX2 image (data URIs only).
    let generated =
        common::textured_quad_gltf(&common::ktx2_file(133, 8, 8, &common::bc1_levels()));
    let seeds = SEEDS
        .iter()
        .map(|seed| (seed.to_string(), std::fs::read(root.join(seed)).unwrap()))
        .chain([("generated/bc1-quad.gltf".to_owned(), generated.into_bytes())]);
    for (seed, bytes) in seeds {
        let path: PathBuf = root.join(&seed);
        let dir = path.parent().unwrap();
        for (i, mutant) in std::iter::once(bytes.clone())
            .chain(mutants(&bytes, &mut rng))
            .enumerate()
        {
            let name = PathBuf::from(format!("{seed}#{i}"));
            match parse_gltf_slice(&mutant, &name, Some(dir)) {
                Ok(document) => {
                    parsed += 1;
                    for mesh in &document.meshes {
                        mesh.as_mesh_data().validate().unwrap();
                    }
                    for texture in &document.textures {
                        if let Some(rgba) = texture.rgba() {
                            assert_eq!(
                                rgba.len(),
                                texture.width as usize * texture.height as usize * 4
                            );
                        }
                    }
                }
                Err(error) => {
                    rejected += 1;
                    assert!(
                        matches!(
                            error,
                            GltfError::Parse { .. }
                                | GltfError::Invalid { .. }
                                | GltfError::Geometry { .. }
                                | GltfError::Resource { .. }
                                | GltfError::Refused { .. }
                                | GltfError::LimitExceeded { .. }
                        ),
                        "{error}"
                    );
                    assert!(
                        error.to_string().contains(&format!("{seed}#{i}")),
                        "names the input: {error}"
                    );
                    assert!(
                        !error.to_string().contains("panicked"),
                        "{seed} mutant {i}: a panic was contained: {error}"
                    );
                }
            }
        }
    }
    let _ = std::panic::take_hook();
    eprintln!("{parsed} inputs parsed, {rejected} rejected with typed errors");
    assert_eq!(PANICS.load(Ordering::SeqCst), 0, "panics (see stderr)");
    assert!(
        parsed > 12 && rejected > 1000,
        "{parsed} parsed, {rejected} rejected"
    );
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
