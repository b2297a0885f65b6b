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
//!
//! What the draw pass computes per fragment (`wgsl/surface.wgsl`, shared with
//! the bind-per-draw baseline): base colour (factor × texture × vertex colour),
//! metallic and roughness from the metallic-roughness texture times their
//! factors, tangent-space normal mapping, the sun through glTF 2.0's BRDF
//! (`wgsl/brdf.wgsl`, CPU twin [`brdf`]) times its shadows' visibility, the
//! punctual lights of the fragment's cluster in slot order
//! (`wgsl/punctual.wgsl`, CPU twin [`punctual`]), image-based light
//! (`wgsl/environment.wgsl`: spherical-harmonics diffuse, the prefiltered
//! specular cube and the split sum, scaled by `Lighting::ambient_color` and by
//! occlusion), and emissive; alpha-masked fragments below the cutoff are
//! discarded, and double-sided materials flip the normal on back faces. UV
//! derivatives are taken once at the top of the fragment shader, in uniform
//! control flow, and textures are sampled with explicit gradients, so a
//! material skips the textures it lacks without breaking derivatives
//! (`tests/shading.rs` checks a normal-mapped plane against the CPU BRDF pixel
//! by pixel).

pub mod brdf;
pub mod clusters;
pub mod environment;
mod hdr;
pub mod punctual;

pub use brdf::{Brdf, DIELECTRIC_F0, MIN_ROUGHNESS, SplitSum, split_sum};
pub use clusters::{ClusterGrid, ClusterReference, ClusterView};
pub use environment::{
    Environment, EnvironmentError, EquirectImage, PrefilterSettings, Sky, equirect_direction,
};
pub use hdr::HdrLimits;
pub use punctual::{LIGHT_CUTOFF_ILLUMINANCE, LightArrival};
