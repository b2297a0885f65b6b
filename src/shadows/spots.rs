//! Spot-light shadows: a perspective shadow map per shadowed spot light,
//! in the layers of the shadow map after the cascades (the "atlas" is
//! array layers, one per spot, all of [`ShadowSettings::resolution`]²).
//!
//! - **Which spots.** The first [`ShadowSettings::spot_lights`] live spot
//!   lights with [`crate::Light::casts_shadows`], in ascending slot order:
//!   the light table gives each its index (`GpuLight::shadow`, 0, 1, ...;
//!   [`NO_SPOT_SHADOW`] for every other light), so the choice depends on
//!   the table alone and frames are identical run to run.
//! - **The view.** Each is a perspective view from the light along its
//!   axis whose field of view holds the outer cone (half angle up to
//!   [`MAX_SPOT_HALF_ANGLE`]; a wider cone is unshadowed outside it), from
//!   [`SPOT_NEAR_FRACTION`] of its reach to its reach (the range, or the
//!   cluster radius of a light without one). It is a view of its own,
//!   culled in the same dispatch as the camera and the cascades (casters
//!   inside all six planes; blended objects cast none) and drawn by the
//!   same shadow pass; casters nearer than the near plane are pancaked.
//! - **Shading.** The draw shader's shadow variant multiplies a shadowed
//!   spot's light by a 2 × 2 bilinear PCF lookup in its layer, at the
//!   surface point moved along its normal and towards the light by the
//!   bias settings in texels of the spot's map at that depth
//!   ([`SpotShadow::texel_scale`] times the depth along the axis).

use glam::{Mat4, Vec3, Vec4};

use super::ShadowSettings;
use crate::camera::{frustum_planes, sphere_in_frustum};
use crate::gpu_types::GpuLight;
pub use crate::gpu_types::NO_SPOT_SHADOW;

/// The widest half angle a spot's shadow map covers (80°): a perspective
/// projection cannot reach 90°.
pub const MAX_SPOT_HALF_ANGLE: f32 = 80.0 * std::f32::consts::PI / 180.0;
/// The near plane of a spot's view, as a fraction of its far plane.
pub const SPOT_NEAR_FRACTION: f32 = 0.005;

/// One shadowed spot light's view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpotShadow {
    /// The light's slot in the light table.
    pub slot: u32,
    /// The perspective projection times the light's view: x and y in
    /// [-1, 1] across its map, depth 0 at the near plane to 1 at the far.
    pub clip_from_world: Mat4,
    /// The half angle of the field of view, radians.
    pub half_angle: f32,
    /// The near plane's distance along the axis.
    pub near: f32,
    /// The far plane's distance along the axis: the light's reach.
    pub far: f32,
    /// The world size of one texel per unit of distance along the axis:
    /// `2 tan(half_angle) / resolution`.
    pub texel_scale: f32,
}

impl SpotShadow {
    /// The view of the spot light `light` (a valid encoded spot) in slot
    /// `slot`, for maps of `settings.resolution`².
    pub fn new(slot: u32, light: &GpuLight, settings: &ShadowSettings) -> Self {
        let position = Vec3::from_array(light.position);
        let axis = Vec3::from_array(light.direction).normalize_or(Vec3::NEG_Z);
        let up = if axis.y.abs() > 0.99 {
            Vec3::X
        } else {
            Vec3::Y
        };
        let half_angle = light
            .sin_outer
            .atan2(light.cos_outer)
            .clamp(1e-3, MAX_SPOT_HALF_ANGLE);
        let far = light.cull_radius.max(1e-3);
        let near = far * SPOT_NEAR_FRACTION;
        let clip_from_view = Mat4::perspective_rh(2.0 * half_angle, 1.0, near, far);
        Self {
            slot,
            clip_from_world: clip_from_view * Mat4::look_to_rh(position, axis, up),
            half_angle,
            near,
            far,
            texel_scale: 2.0 * half_angle.tan() / settings.resolution.max(1) as f32,
        }
    }

    /// The planes of the view (left, right, bottom, top, near, far, as
    /// [`frustum_planes`]).
    pub fn planes(&self) -> [Vec4; 6] {
        frustum_planes(&self.clip_from_world)
    }
}

/// Whether a caster's bounding sphere (centre, radius) is kept for a spot
/// of `planes`: inside all six. The cull pass's test, on the CPU.
pub fn caster_in_spot(planes: &[Vec4; 6], sphere: Vec4) -> bool {
    sphere_in_frustum(planes, sphere)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Light;

    #[test]
    fn the_view_holds_the_cone_out_to_the_reach() {
        let light = Light::spot(
            Vec3::new(1.0, 4.0, -2.0),
            Vec3::new(0.3, -1.0, 0.2),
            Vec3::ONE,
            10.0,
            Some(9.0),
            (0.3, 0.5),
        );
        let gpu = light.to_gpu().unwrap();
        let spot = SpotShadow::new(3, &gpu, &ShadowSettings::default());
        assert!((spot.half_angle - 0.5).abs() < 1e-5);
        assert_eq!(spot.far, 9.0);
        let axis = light.direction.normalize();
        let side = axis.any_orthonormal_vector();
        // Points on the outer cone, at a tenth and at nine tenths of the
        // reach, project inside the map; beyond the reach they do not.
        for turn in 0..8 {
            let around = glam::Quat::from_axis_angle(axis, turn as f32 * 0.785);
            let edge = glam::Quat::from_axis_angle(around * side, 0.499) * axis;
            for (distance, inside) in [(0.9, true), (8.0, true), (9.5, false)] {
                let point = light.position + edge * distance / 0.499f32.cos();
                let point = light.position + (point - light.position) * 0.999;
                let clip = spot.clip_from_world.project_point3(point);
                let within = clip.x.abs() <= 1.0 && clip.y.abs() <= 1.0 && clip.z <= 1.0;
                assert_eq!(within, inside, "{distance}: {clip}");
            }
        }
    }
}
