//! Loaders that turn files into heap, arena and table entries.

#[cfg(feature = "gltf")]
pub mod gltf;
