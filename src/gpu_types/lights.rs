//! The punctual-light table's twin (`wgsl/types.wgsl`'s `Light`).

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// One punctual light of the light table (WGSL `Light`, 80 bytes), written
/// by [`crate::lights::Light::to_gpu`]. Free slots are all zero
/// ([`LIGHT_KIND_NONE`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuLight {
    /// World-space position (point, spot).
    pub position: [f32; 3],
    /// `KHR_lights_punctual` range; 0: none (plain inverse square).
    pub range: f32,
    /// Unit world-space direction the light shines in (spot, directional).
    pub direction: [f32; 3],
    /// Radius of the sphere the light pass tests against clusters: the
    /// range, or where an unranged light's illuminance falls under
    /// [`crate::lighting::LIGHT_CUTOFF_ILLUMINANCE`].
    pub cull_radius: f32,
    /// Linear colour times intensity (candela; lux for directional lights).
    pub intensity: [f32; 3],
    /// [`LIGHT_KIND_POINT`] and friends.
    pub kind: u32,
    /// Spot cone attenuation: `saturate(cos * cone_scale + cone_offset)²`
    /// (`KHR_lights_punctual`'s form).
    pub cone_scale: f32,
    /// See `cone_scale`.
    pub cone_offset: f32,
    /// Cosine of the outer cone angle (the light pass's cone test).
    pub cos_outer: f32,
    /// Sine of the outer cone angle.
    pub sin_outer: f32,
    /// A shadowed spot light's index among the spot shadows (its layer is
    /// the cascades' count plus this), else
    /// [`super::NO_SPOT_SHADOW`]; given by the light table.
    pub shadow: u32,
    /// Explicit padding.
    pub _pad: [u32; 3],
}

impl GpuLight {
    /// Intensity (colour times intensity) as a vector.
    pub fn intensity(&self) -> Vec3 {
        Vec3::from_array(self.intensity)
    }
}

/// Light kind of a free slot: never shaded, never in a cluster.
pub const LIGHT_KIND_NONE: u32 = 0;
/// A directional light: in every cluster, not attenuated.
pub const LIGHT_KIND_DIRECTIONAL: u32 = 1;
/// A point light.
pub const LIGHT_KIND_POINT: u32 = 2;
/// A spot light.
pub const LIGHT_KIND_SPOT: u32 = 3;
