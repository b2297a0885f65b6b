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
//! - [`punctual`]: punctual lights' falloff, spot cone and cull radius
//!   (`wgsl/punctual.wgsl`'s twin).
//! - [`clusters`]: the light clusters' grid, boxes and light tests
//!   (`wgsl/clusters.wgsl`'s twin) and a reference assignment.

pub mod brdf;
pub mod clusters;
pub mod environment;
pub mod punctual;

pub use brdf::{Brdf, DIELECTRIC_F0, MIN_ROUGHNESS, SplitSum, split_sum};
pub use clusters::{ClusterGrid, ClusterReference, ClusterView};
pub use environment::{
    Environment, EnvironmentError, EquirectImage, PrefilterSettings, Sky, equirect_direction,
};
pub use punctual::{LIGHT_CUTOFF_ILLUMINANCE, LightArrival};
