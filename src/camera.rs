//! Camera, light and the frustum the cull pass tests against.

use crate::lighting::environment::MAX_ENVIRONMENT_RADIANCE;
use glam::{Mat4, Vec3, Vec4};

/// A perspective camera (right-handed, depth 0 at the near plane, 1 at far).
///
/// Conventions: world space is right-handed with +Y up (glTF's), in world
/// units (glTF's metres); angles are radians. The default camera stands at
/// (0, 0, 5) looking at the origin, +Y up, with a 60° vertical field of
/// view, aspect 1, near plane 0.1 and far plane 1000.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position in world space.
    pub position: Vec3,
    /// Point looked at.
    pub target: Vec3,
    /// Up direction.
    pub up: Vec3,
    /// Vertical field of view in radians.
    pub fov_y_radians: f32,
    /// Width / height of the image: the colour target's. A frame whose
    /// target the camera does not fit ([`Camera::fits`]) is refused by
    /// [`crate::Renderer::render`] with
    /// [`RenderError::CameraAspect`](crate::RenderError::CameraAspect)
    /// rather than drawn stretched: set it to `width as f32 / height as f32`
    /// of the target, and again whenever the target's size changes (a
    /// window resized). `1.0` by default, for square targets.
    pub aspect: f32,
    /// Near plane distance.
    pub z_near: f32,
    /// Far plane distance.
    pub z_far: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            position: Vec3::new(0.0, 0.0, 5.0),
            target: Vec3::ZERO,
            up: Vec3::Y,
            fov_y_radians: 60f32.to_radians(),
            aspect: 1.0,
            z_near: 0.1,
            z_far: 1000.0,
        }
    }
}

impl Camera {
    /// `view_from_world`.
    pub fn view_from_world(&self) -> Mat4 {
        Mat4::look_at_rh(self.position, self.target, self.up)
    }

    /// `clip_from_view`.
    pub fn clip_from_view(&self) -> Mat4 {
        Mat4::perspective_rh(self.fov_y_radians, self.aspect, self.z_near, self.z_far)
    }

    /// `clip_from_world`.
    pub fn clip_from_world(&self) -> Mat4 {
        self.clip_from_view() * self.view_from_world()
    }

    /// Whether the camera's image fits a `width` × `height` target without
    /// stretching: within half a pixel both ways, its width at the target's
    /// height (`|aspect · height − width| ≤ 0.5`) and its height at the
    /// target's width (`|width / aspect − height| ≤ 0.5`).
    /// [`crate::Renderer::render`] checks it for the frame's colour target.
    pub fn fits(&self, width: u32, height: u32) -> bool {
        let (width, height) = (width as f32, height as f32);
        (self.aspect * height - width).abs() <= 0.5 && (width / self.aspect - height).abs() <= 0.5
    }

    /// Whether every value is finite and the projection is well formed,
    /// with what is derived from them finite too: the matrix
    /// [`Self::clip_from_world`] and `z_far / z_near`.
    pub fn is_valid(&self) -> bool {
        let finite = self.position.is_finite()
            && self.target.is_finite()
            && self.up.is_finite()
            && [self.fov_y_radians, self.aspect, self.z_near, self.z_far]
                .iter()
                .all(|v| v.is_finite());
        finite
            && self.fov_y_radians > 0.0
            && self.fov_y_radians < std::f32::consts::PI
            && self.aspect > 0.0
            && self.z_near > 0.0
            && self.z_far > self.z_near
            && (self.target - self.position)
                .cross(self.up)
                .length_squared()
                > 0.0
            // Derived: the projection (z_near × z_far, 1 / aspect) and the
            // depth ratio the shadow cascades split by.
            && self.clip_from_world().is_finite()
            && (self.z_far / self.z_near).is_finite()
    }
}

/// The six frustum planes of `clip_from_world` (left, right, bottom, top,
/// near, far), each `(normal, distance)` with the normal pointing inside and
/// normalised, so `dot(n, p) + d` is a signed distance. For depth in 0..1.
pub fn frustum_planes(clip_from_world: &Mat4) -> [Vec4; 6] {
    let m = clip_from_world.transpose();
    let (x, y, z, w) = (m.x_axis, m.y_axis, m.z_axis, m.w_axis);
    [w + x, w - x, w + y, w - y, z, w - z].map(|p| p / p.truncate().length())
}

/// Whether a sphere (centre, radius) is at least partly inside every plane:
/// the cull pass's test, on the CPU.
pub fn sphere_in_frustum(planes: &[Vec4; 6], sphere: Vec4) -> bool {
    planes
        .iter()
        .all(|p| p.truncate().dot(sphere.truncate()) + p.w >= -sphere.w)
}

/// The smallest distance between the sphere's surface and a plane it
/// touches, used by tests to exclude spheres too close to call in f32.
pub fn sphere_plane_margin(planes: &[Vec4; 6], sphere: Vec4) -> f32 {
    planes
        .iter()
        .map(|p| (p.truncate().dot(sphere.truncate()) + p.w + sphere.w).abs())
        .fold(f32::INFINITY, f32::min)
}

/// One directional light plus the scale of the environment's light, shaded
/// through glTF's metallic-roughness BRDF ([`crate::lighting::brdf`]). The
/// directional light is the built-in sun: a table light named the sun
/// ([`crate::Renderer::set_sun_light`]) replaces it.
///
/// The default is a white-ish sun from (0.4, 0.8, 0.45) of illuminance
/// 0.85π (a white matte surface facing it shows 0.85) and the environment
/// scaled by 0.25. [`crate::Renderer::set_lighting`] refuses non-finite
/// values and a direction that cannot be normalised ([`LightingError`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lighting {
    /// Direction from surfaces towards the light.
    pub direction_to_light: Vec3,
    /// The light's illuminance on a surface facing it (linear RGB): a white
    /// matte surface facing the light reflects about `light_color / π`.
    pub light_color: Vec3,
    /// Scale of the environment's radiance (linear RGB): image-based light
    /// ([`crate::Renderer::set_environment`]) times `ambient_color`, times
    /// occlusion. Under the renderer's default uniform white environment
    /// it is the radiance of a uniform ambient light, which a surface
    /// reflects as its albedo ([`crate::lighting::Brdf::ambient_albedo`]);
    /// metals reflect it too.
    pub ambient_color: Vec3,
}

impl Default for Lighting {
    fn default() -> Self {
        Self {
            direction_to_light: Vec3::new(0.4, 0.8, 0.45).normalize(),
            // A white matte surface facing it shows about 0.85.
            light_color: Vec3::splat(0.85 * std::f32::consts::PI),
            ambient_color: Vec3::splat(0.25),
        }
    }
}

/// Why a [`Lighting`] was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LightingError {
    /// NaN or infinity in a field.
    #[error("lighting field {field} is not finite: {value}")]
    NonFinite {
        /// The field.
        field: &'static str,
        /// Its value.
        value: Vec3,
    },
    /// The direction has no length that `f32` can normalise (zero, or so
    /// small or large that its squared length under- or overflows).
    #[error("direction_to_light {direction} cannot be normalised")]
    Direction {
        /// The direction given.
        direction: Vec3,
    },
    /// `ambient_color` times the brightest radiance an environment may
    /// have ([`MAX_ENVIRONMENT_RADIANCE`]) is not finite.
    #[error(
        "ambient_color {ambient_color} × {MAX_ENVIRONMENT_RADIANCE} (the brightest environment \
         radiance) = {value} is not finite"
    )]
    Derived {
        /// The ambient colour given.
        ambient_color: Vec3,
        /// Its brightest channel times [`MAX_ENVIRONMENT_RADIANCE`].
        value: f32,
    },
}

impl Lighting {
    /// Checks that every field is finite, the direction normalisable and
    /// the environment's light, scaled by `ambient_color`, finite: what
    /// [`crate::Renderer::set_lighting`] accepts.
    pub fn validate(&self) -> Result<(), LightingError> {
        for (field, value) in [
            ("direction_to_light", self.direction_to_light),
            ("light_color", self.light_color),
            ("ambient_color", self.ambient_color),
        ] {
            if !value.is_finite() {
                return Err(LightingError::NonFinite { field, value });
            }
        }
        if self.direction_to_light.try_normalize().is_none() {
            return Err(LightingError::Direction {
                direction: self.direction_to_light,
            });
        }
        // Derived: the environment's light as the shading scales it.
        let value = self.ambient_color.max_element() * MAX_ENVIRONMENT_RADIANCE;
        if !value.is_finite() {
            return Err(LightingError::Derived {
                ambient_color: self.ambient_color,
                value,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_camera_fits_targets_of_its_aspect_within_half_a_pixel() {
        let square = Camera::default();
        assert!(square.fits(1, 1) && square.fits(64, 64) && square.fits(4096, 4096));
        assert!(!square.fits(32, 8) && !square.fits(65, 64));
        // Both ways: a third at 1 x 4 is only a third of a pixel too wide,
        // but 3 pixels high, not 4.
        let tall = Camera {
            aspect: 1.0 / 3.0,
            ..square
        };
        assert!(tall.fits(1, 3) && !tall.fits(1, 4) && !tall.fits(1, 2));
        for (width, height) in [(1280, 720), (320, 180), (96, 64), (1, 3), (4001, 3)] {
            let camera = Camera {
                aspect: width as f32 / height as f32,
                ..square
            };
            assert!(camera.fits(width, height), "{width}x{height}");
            assert!(!camera.fits(width + 1, height), "{width}x{height}");
            assert!(!camera.fits(width, height + 1), "{width}x{height}");
            assert!(
                width == 1 || !camera.fits(width - 1, height),
                "{width}x{height}"
            );
        }
        let wide = Camera {
            aspect: 16.0 / 9.0,
            ..square
        };
        assert!(wide.fits(1920, 1080) && wide.fits(1280, 720));
        assert!(!wide.fits(1920, 1081) && !wide.fits(1080, 1920));
        // 1.5 at a height of 63 is 94.5 pixels wide: half a pixel from 94
        // and from 95, so both fit (their heights at 1.5, 62.7 and 63.3,
        // are within half a pixel of 63 too), and nothing further.
        let three_halves = Camera {
            aspect: 1.5,
            ..square
        };
        assert!(three_halves.fits(94, 63) && three_halves.fits(95, 63));
        assert!(!three_halves.fits(93, 63) && !three_halves.fits(96, 63));
        let nan = Camera {
            aspect: f32::NAN,
            ..square
        };
        assert!(!nan.fits(1, 1));
    }

    #[test]
    fn frustum_contains_what_the_camera_sees() {
        let camera = Camera::default();
        let planes = frustum_planes(&camera.clip_from_world());
        assert!(sphere_in_frustum(&planes, Vec4::new(0.0, 0.0, 0.0, 0.1)));
        assert!(!sphere_in_frustum(&planes, Vec4::new(0.0, 0.0, 10.0, 0.1)));
        assert!(!sphere_in_frustum(&planes, Vec4::new(100.0, 0.0, 0.0, 1.0)));
        assert!(sphere_in_frustum(
            &planes,
            Vec4::new(100.0, 0.0, 0.0, 200.0)
        ));
    }
}
