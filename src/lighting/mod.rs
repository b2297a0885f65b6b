//! Light transport on the CPU: the exact twins of the shading the GPU does,
//! for tests and tools (and later the path tracer), and the environment
//! that image-based light starts from.
//!
//! - [`brdf`]: glTF 2.0's metallic-roughness BRDF (`wgsl/brdf.wgsl`'s
//!   twin), its directional albedo, and the split sum of image-based light
//!   (the BRDF lookup table's twin).
//! - [`environment`]: where the environment's radiance comes from (a
//!   procedural sky, a uniform colour, an equirectangular `.hdr` image) and
//!   the prefilter's settings.

pub mod brdf;
pub mod environment;

pub use brdf::{Brdf, DIELECTRIC_F0, MIN_ROUGHNESS, SplitSum, split_sum};
pub use environment::{
    Environment, EnvironmentError, EquirectImage, PrefilterSettings, Sky, equirect_direction,
};
