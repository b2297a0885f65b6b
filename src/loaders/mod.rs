//! Loaders that turn files into heap, arena and table entries.

#[cfg(any(feature = "gltf", feature = "hdr"))]
pub(crate) mod files;
#[cfg(feature = "gltf")]
pub mod gltf;
