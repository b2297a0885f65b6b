//! Arbitrary bytes into the loader's CPU stage (GLB when they start with
//! `glTF`, JSON otherwise): it must return a document or a typed error.
//! libFuzzer aborts on any panic, even one the loader would contain, so this
//! checks that the pre-checks keep the `gltf` crate from panicking at all.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // No base directory: external URIs are refused, nothing is read from disk.
    let _ = unbound::loaders::gltf::parse_gltf_slice(data, Path::new("fuzz-input"), None);
});
