//! Light transport on the CPU: the exact twins of the shading the GPU does,
//! for tests and tools (and later the path tracer).
//!
//! - [`brdf`]: glTF 2.0's metallic-roughness BRDF (`wgsl/brdf.wgsl`'s
//!   twin), its directional albedo, and the fitted albedo that shades the
//!   interim ambient term.

pub mod brdf;

pub use brdf::{Brdf, DIELECTRIC_F0, MIN_ROUGHNESS};
