//! Structure-aware fuzzing of the loader's CPU stage: the first input byte
//! picks a generated seed, the rest is a program of JSON edits
//! (`tests/common/json_edits.rs`: keys added, removed and renamed, values
//! replaced by other JSON types, extreme numbers, entries duplicated,
//! dropped and copied), and the edited document, as `.gltf` or GLB, must
//! parse to a document or a typed error. libFuzzer aborts on any panic, even
//! one the loader would contain.
#![no_main]

use std::path::Path;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

#[allow(
    dead_code,
    reason = "the tests' file helpers, of which the seeds use a few"
)]
#[path = "../../tests/common/files.rs"]
mod files;
#[allow(
    dead_code,
    reason = "the single-edit sweep is for tests/gltf_mutations.rs"
)]
#[path = "../../tests/common/json_edits.rs"]
mod json_edits;

use files::{bc1_levels, ktx2_file, scene_gltf_parts, textured_quad_parts};

static SEEDS: LazyLock<Vec<json_edits::Seed>> = LazyLock::new(json_edits::seeds);

fuzz_target!(|data: &[u8]| {
    let Some((&pick, program)) = data.split_first() else {
        return;
    };
    let seed = &SEEDS[usize::from(pick) % SEEDS.len()];
    let bytes = json_edits::edited(seed, program);
    // No base directory: external URIs are refused, nothing is read from disk.
    if let Ok(document) =
        unbound::loaders::gltf::parse_gltf_slice(&bytes, Path::new("fuzz-input"), None)
    {
        // A parsed document keeps its promises.
        document
            .validate()
            .expect("a parsed document is consistent");
    }
});
