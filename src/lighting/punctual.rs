//! Punctual lights on the CPU: the twin of `wgsl/punctual.wgsl` (same
//! formulas, same order, `f32`), for tests and tools.
//!
//! `KHR_lights_punctual`'s units and its recommended falloff:
//!
//! - a point or spot light of intensity `I` (candela, times its colour)
//!   gives a surface facing it at distance `d` the illuminance
//!   `I · window / d²`, with `window = clamp(1 - (d / range)⁴, 0, 1)`, or
//!   1 without a range (plain inverse square); `d²` is at least
//!   [`MIN_DISTANCE_SQUARED`], so a light on a surface is bright, not
//!   infinite;
//! - a spot light also scales it by the cone attenuation
//!   `saturate(cos θ · scale + offset)²`, `θ` the angle from its axis,
//!   `scale = 1 / max(0.001, cos inner - cos outer)` and
//!   `offset = -cos outer · scale`: 1 inside the inner cone, 0 outside
//!   the outer one, smooth between;
//! - a directional light's intensity is the illuminance itself (lux).
//!
//! The reflected radiance is `f(l, v) E max(n·l, 0)` with glTF's BRDF
//! ([`super::Brdf::reflect_directional`]), exactly as the sun is shaded.
//!
//! A light without a range is culled where its illuminance falls under
//! [`LIGHT_CUTOFF_ILLUMINANCE`]: its cluster sphere has the radius
//! `sqrt(max channel of I / cutoff)` ([`cull_radius`]). A point or spot
//! light sends nothing to a point outside that sphere (`d² ≥ radius²`),
//! where the light lists need not hold it: the shading tests the distance
//! before the BRDF, so that what a fragment receives does not depend on
//! how coarse its cluster is (beyond a range the window is 0 anyway).

use glam::Vec3;

use crate::gpu_types::{GpuLight, LIGHT_KIND_DIRECTIONAL, LIGHT_KIND_NONE, LIGHT_KIND_SPOT};

/// Illuminance (lux) under which a light without a range is not assigned
/// to clusters: 10⁻⁴ lux on a white matte surface is 3·10⁻⁵ of white, a
/// tenth of the first step of an 8-bit sRGB target at the default
/// exposure.
pub const LIGHT_CUTOFF_ILLUMINANCE: f32 = 1e-4;

/// The least squared distance (m²) a light is shaded at: 1 cm.
pub const MIN_DISTANCE_SQUARED: f32 = 1e-4;

/// The range window times the inverse square, for a squared distance
/// `distance_squared` (at least [`MIN_DISTANCE_SQUARED`]) and a range
/// (0: none).
pub fn range_attenuation(distance_squared: f32, range: f32) -> f32 {
    let d2 = distance_squared.max(MIN_DISTANCE_SQUARED);
    if range <= 0.0 {
        return 1.0 / d2;
    }
    let r = d2 / (range * range);
    let window = (1.0 - r * r).clamp(0.0, 1.0);
    window / d2
}

/// The spot cone's `(scale, offset)` for inner and outer angles (radians).
pub fn cone_scale_offset(inner_cone_angle: f32, outer_cone_angle: f32) -> (f32, f32) {
    let cos_outer = outer_cone_angle.cos();
    let scale = 1.0 / (inner_cone_angle.cos() - cos_outer).max(0.001);
    (scale, -cos_outer * scale)
}

/// The cone attenuation at `cos_angle` from the spot's axis.
pub fn cone_attenuation(cos_angle: f32, scale: f32, offset: f32) -> f32 {
    let a = (cos_angle * scale + offset).clamp(0.0, 1.0);
    a * a
}

/// The radius of the sphere the light pass tests against clusters: the
/// range, or without one where the brightest channel's illuminance
/// (`intensity / d²`) falls to [`LIGHT_CUTOFF_ILLUMINANCE`].
pub fn cull_radius(intensity: Vec3, range: Option<f32>) -> f32 {
    range.unwrap_or_else(|| (intensity.max_element() / LIGHT_CUTOFF_ILLUMINANCE).sqrt())
}

/// Light arriving at a point: the unit direction towards the light and the
/// illuminance on a surface facing it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightArrival {
    /// Unit direction from the point towards the light.
    pub direction: Vec3,
    /// Illuminance on a surface facing the light (linear RGB).
    pub illuminance: Vec3,
}

/// What `light` sends to the point `p` (`None` for a free slot, and for a
/// point or spot light whose cull sphere does not hold `p` or whose
/// attenuation is 0 there: past the range, outside the cone).
pub fn arrival(light: &GpuLight, p: Vec3) -> Option<LightArrival> {
    let intensity = light.intensity();
    let direction = Vec3::from_array(light.direction);
    match light.kind {
        LIGHT_KIND_NONE => None,
        LIGHT_KIND_DIRECTIONAL => Some(LightArrival {
            direction: -direction,
            illuminance: intensity,
        }),
        kind => {
            let to_light = Vec3::from_array(light.position) - p;
            if to_light.dot(to_light) >= light.cull_radius * light.cull_radius {
                return None;
            }
            let d2 = to_light.dot(to_light).max(MIN_DISTANCE_SQUARED);
            let l = to_light / d2.sqrt();
            let mut attenuation = range_attenuation(d2, light.range);
            if kind == LIGHT_KIND_SPOT {
                attenuation *=
                    cone_attenuation(direction.dot(-l), light.cone_scale, light.cone_offset);
            }
            if attenuation <= 0.0 {
                return None;
            }
            Some(LightArrival {
                direction: l,
                illuminance: intensity * attenuation,
            })
        }
    }
}

impl super::Brdf {
    /// Radiance reflected towards `v` at the point `p` of normal `n` from a
    /// punctual light: `f(l, v) E max(n·l, 0)`, the loop body of
    /// `wgsl/punctual.wgsl`.
    pub fn reflect_light(&self, n: Vec3, v: Vec3, p: Vec3, light: &GpuLight) -> Vec3 {
        arrival(light, p).map_or(Vec3::ZERO, |a| {
            self.reflect_directional(n, v, a.direction, a.illuminance)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_one_near_and_zero_at_the_range() {
        // Near the light the window is 1: inverse square.
        assert!((range_attenuation(0.01, 10.0) * 0.01 - 1.0).abs() < 1e-6);
        assert_eq!(range_attenuation(100.0, 10.0), 0.0);
        assert_eq!(range_attenuation(150.0, 10.0), 0.0);
        // Half way: 1 - 1/16 over d².
        assert!((range_attenuation(25.0, 10.0) - (15.0 / 16.0) / 25.0).abs() < 1e-7);
        // No range: inverse square, bounded at the light.
        assert_eq!(range_attenuation(4.0, 0.0), 0.25);
        assert_eq!(range_attenuation(0.0, 0.0), 1.0 / MIN_DISTANCE_SQUARED);
    }

    #[test]
    fn the_cone_is_one_inside_zero_outside_and_smooth_between() {
        let (scale, offset) = cone_scale_offset(0.2, 0.4);
        assert_eq!(cone_attenuation(0.1f32.cos(), scale, offset), 1.0);
        assert_eq!(cone_attenuation(0.5f32.cos(), scale, offset), 0.0);
        let middle = cone_attenuation(0.3f32.cos(), scale, offset);
        assert!(0.1 < middle && middle < 0.9, "{middle}");
    }

    #[test]
    fn an_unranged_light_is_culled_where_it_falls_under_the_cutoff() {
        let radius = cull_radius(Vec3::new(4.0, 9.0, 1.0), None);
        assert!((9.0 / (radius * radius) - LIGHT_CUTOFF_ILLUMINANCE).abs() < 1e-9);
        assert_eq!(cull_radius(Vec3::ONE, Some(3.0)), 3.0);
    }
}
