//! Where each cascade looks: the splits, the fitting and the texel
//! snapping described in [`crate::shadows`], computed on the CPU every
//! frame from the camera and the sun.

use glam::{Mat4, Vec3, Vec4};

use super::{
    CASCADE_NEAR_PLANE, CASTER_EXTENSION_RADII, MAX_CASCADES, ShadowError, ShadowSettings,
};
use crate::camera::{Camera, frustum_planes};

/// The view depths (distances along the camera's forward axis) bounding
/// the cascades: `count + 1` values from `near` to `far`, by the practical
/// split scheme with blend `lambda` (see the module docs).
pub fn split_depths(near: f32, far: f32, count: u32, lambda: f32) -> Vec<f32> {
    (0..=count)
        .map(|i| {
            if i == 0 {
                return near;
            }
            if i == count {
                return far;
            }
            let t = i as f32 / count as f32;
            let logarithmic = near * (far / near).powf(t);
            let linear = near + (far - near) * t;
            lambda * logarithmic + (1.0 - lambda) * linear
        })
        .collect()
}

/// One cascade: where it looks and what it covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade {
    /// Light space: the light looks down its -Z axis (rotation only).
    pub light_from_world: Mat4,
    /// The cascade's orthographic projection times `light_from_world`:
    /// x and y in [-1, 1] across the map, depth 0 at the near plane (facing
    /// the sun) to 1 at the far plane.
    pub clip_from_world: Mat4,
    /// The view depths of the slice it covers.
    pub near_depth: f32,
    /// See `near_depth`.
    pub far_depth: f32,
    /// The slice's bounding sphere: centre (world space) and radius.
    pub sphere: Vec4,
    /// The world size of one shadow-map texel: `2 radius / resolution`.
    pub texel_world_size: f32,
    /// The snapped origin of the projection in light space, in texels:
    /// whole numbers (x, y and depth).
    pub origin_texels: Vec3,
}

impl Cascade {
    /// The planes of the cascade's box (left, right, bottom, top, near,
    /// far, as [`frustum_planes`]); the caster test leaves out the near one
    /// ([`CASCADE_NEAR_PLANE`]).
    pub fn planes(&self) -> [Vec4; 6] {
        frustum_planes(&self.clip_from_world)
    }
}

/// Whether a caster's bounding sphere (centre, radius) is kept for a
/// cascade of `planes`: inside every plane but the near one. The cull
/// pass's test, on the CPU.
pub fn caster_in_cascade(planes: &[Vec4; 6], sphere: Vec4) -> bool {
    planes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != CASCADE_NEAR_PLANE)
        .all(|(_, p)| p.truncate().dot(sphere.truncate()) + p.w >= -sphere.w)
}

/// The bounding sphere of the camera's frustum slice between view depths
/// `near` and `far`: centre on the view axis, at a distance `centre_depth`
/// from the eye, and radius. Depends only on the depths, the field of view
/// and the aspect ratio.
fn slice_sphere(camera: &Camera, near: f32, far: f32) -> (f32, f32) {
    // Distance of a slice corner from the view axis per unit of depth.
    let spread = (camera.fov_y_radians * 0.5).tan() * (1.0 + camera.aspect * camera.aspect).sqrt();
    let (a, b) = (near * spread, far * spread);
    // Equidistant from the near and far corner rings, kept in the slice.
    let centre =
        ((far * far + b * b - near * near - a * a) / (2.0 * (far - near))).clamp(near, far);
    let radius = ((centre - near).powi(2) + a * a)
        .max((far - centre).powi(2) + b * b)
        .sqrt();
    (centre, radius)
}

/// `light_from_world` for a sun shining from `direction_to_light`
/// (normalised or not).
pub fn light_from_world(direction_to_light: Vec3) -> Mat4 {
    let forward = -direction_to_light.normalize_or_zero();
    let up = if forward.y.abs() > 0.99 {
        Vec3::X
    } else {
        Vec3::Y
    };
    Mat4::look_to_rh(Vec3::ZERO, forward, up)
}

/// The cascades for `camera` and a sun in `direction_to_light` (see the
/// module docs); `settings.cascades` of them (clamped to
/// [`MAX_CASCADES`]), whether shadows are enabled or not.
pub fn cascades(
    camera: &Camera,
    direction_to_light: Vec3,
    settings: &ShadowSettings,
) -> Vec<Cascade> {
    let count = settings.cascades.clamp(1, MAX_CASCADES);
    let far = camera
        .z_far
        .min(settings.max_distance)
        .max(camera.z_near * 1.001);
    let splits = split_depths(camera.z_near, far, count, settings.split_lambda);
    let light_from_world = light_from_world(direction_to_light);
    let forward = (camera.target - camera.position).normalize_or_zero();
    let resolution = settings.resolution.max(1) as f32;
    splits
        .windows(2)
        .map(|slice| {
            let (centre_depth, radius) = slice_sphere(camera, slice[0], slice[1]);
            let centre = camera.position + forward * centre_depth;
            let texel = 2.0 * radius / resolution;
            // Whole texels: x and y across the map, and depth.
            let origin_texels = (light_from_world.transform_point3(centre) / texel).floor();
            let origin = origin_texels * texel;
            // Light space looks down -Z: depth along the light is -z.
            let near = -origin.z - radius * (1.0 + CASTER_EXTENSION_RADII);
            let far = -origin.z + radius;
            let clip_from_light =
                Mat4::orthographic_rh(-radius, radius, -radius, radius, near, far)
                    * Mat4::from_translation(Vec3::new(-origin.x, -origin.y, 0.0));
            Cascade {
                light_from_world,
                clip_from_world: clip_from_light * light_from_world,
                near_depth: slice[0],
                far_depth: slice[1],
                sphere: centre.extend(radius),
                texel_world_size: texel,
                origin_texels,
            }
        })
        .collect()
}

/// Checks what `cascades` (as [`cascades`] made them under `settings`)
/// derive from the camera and the settings: each slice's bounding sphere,
/// texel size, snapped origin, projection and bias in world units must be
/// finite (a far plane of 1e30 and a `max_distance` as large give a
/// sphere whose radius overflows). The renderer checks them when shadows
/// are set and before each frame that draws them.
pub fn check_cascades(cascades: &[Cascade], settings: &ShadowSettings) -> Result<(), ShadowError> {
    let bias_texels = settings
        .depth_bias_texels
        .max(settings.normal_offset_texels);
    // The first value that is not finite, if any.
    let not_finite = |values: &[f32]| values.iter().copied().find(|v| !v.is_finite());
    for cascade in cascades {
        let derived = [
            ("cascade radius", not_finite(&[cascade.sphere.w])),
            ("cascade centre", not_finite(&cascade.sphere.to_array())),
            (
                "cascade texel size",
                not_finite(&[cascade.texel_world_size]),
            ),
            (
                "cascade origin in texels",
                not_finite(&cascade.origin_texels.to_array()),
            ),
            (
                "cascade projection",
                not_finite(&cascade.clip_from_world.to_cols_array()),
            ),
            (
                "cascade bias in world units",
                not_finite(&[bias_texels * cascade.texel_world_size]),
            ),
        ];
        if let Some((derived, Some(value))) = derived.into_iter().find(|(_, v)| v.is_some()) {
            return Err(ShadowError::Derived {
                derived,
                value,
                max: f32::MAX,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_blend_logarithmic_and_linear() {
        let linear = split_depths(1.0, 101.0, 4, 0.0);
        assert_eq!(linear, vec![1.0, 26.0, 51.0, 76.0, 101.0]);
        let log = split_depths(1.0, 10_000.0, 4, 1.0);
        for (got, want) in log.iter().zip([1.0, 10.0, 100.0, 1000.0, 10_000.0]) {
            assert!((got - want).abs() <= want * 1e-5, "{got} {want}");
        }
        let blend = split_depths(1.0, 101.0, 2, 0.5);
        assert!((blend[1] - 0.5 * (101f32.sqrt() + 51.0)).abs() < 1e-4);
    }

    #[test]
    fn slice_sphere_holds_every_corner() {
        let camera = Camera {
            aspect: 1.7,
            ..Camera::default()
        };
        for (near, far) in [(0.1, 1.0), (1.0, 10.0), (10.0, 100.0), (0.1, 1000.0)] {
            let (centre, radius) = slice_sphere(&camera, near, far);
            let spread = (camera.fov_y_radians * 0.5).tan() * (1.0 + 1.7f32 * 1.7).sqrt();
            for (depth, off_axis) in [(near, near * spread), (far, far * spread)] {
                let d = ((depth - centre).powi(2) + off_axis * off_axis).sqrt();
                assert!(d <= radius * (1.0 + 1e-5), "{d} > {radius}");
            }
        }
    }

    /// The shadow-map texel coordinate (x, y) and depth, in texels, of a
    /// world point under `cascade`.
    fn texel_of(cascade: &Cascade, resolution: f32, point: Vec3) -> Vec3 {
        let clip = cascade.clip_from_world.project_point3(point);
        // The box is 2 + CASTER_EXTENSION_RADII radii deep.
        let depth_range = cascade.sphere.w * (2.0 + CASTER_EXTENSION_RADII);
        let depth_texels = clip.z * depth_range / cascade.texel_world_size;
        Vec3::new(
            (clip.x * 0.5 + 0.5) * resolution,
            (0.5 - clip.y * 0.5) * resolution,
            depth_texels,
        )
    }

    /// Texel snapping: as the camera moves (by steps of a fraction of a
    /// texel, in a direction that is not along a texel axis), each cascade
    /// keeps its size, and a fixed world point's texel coordinates change
    /// by whole texels only (x, y and depth); most small steps change
    /// nothing at all.
    #[test]
    fn cascades_move_by_whole_texels() {
        let settings = ShadowSettings {
            enabled: true,
            resolution: 512,
            max_distance: 60.0,
            ..ShadowSettings::default()
        };
        let sun = Vec3::new(0.4, 0.8, 0.45);
        let base = Camera {
            position: Vec3::new(3.0, 4.0, 12.0),
            target: Vec3::new(-1.0, 0.5, 0.0),
            aspect: 1.6,
            ..Camera::default()
        };
        let first = cascades(&base, sun, &settings);
        let mut previous = first.clone();
        let points = [
            Vec3::ZERO,
            Vec3::new(2.5, -1.0, 3.0),
            Vec3::new(-4.0, 2.0, -6.0),
        ];
        let mut unchanged = 0;
        for step in 1..200 {
            let offset = Vec3::new(0.013, 0.007, -0.011) * step as f32;
            let camera = Camera {
                position: base.position + offset,
                target: base.target + offset,
                ..base
            };
            let moved = cascades(&camera, sun, &settings);
            for ((a, b), c) in first.iter().zip(&previous).zip(&moved) {
                assert_eq!(a.sphere.w, c.sphere.w, "the radius stays");
                assert_eq!(a.texel_world_size, c.texel_world_size);
                for point in points {
                    let shift = texel_of(c, 512.0, point) - texel_of(a, 512.0, point);
                    let off_grid = (shift - shift.round()).abs().max_element();
                    assert!(
                        off_grid < 2e-2,
                        "step {step}: shift {shift} is not whole texels"
                    );
                }
                unchanged += usize::from(b.clip_from_world == c.clip_from_world);
            }
            previous = moved;
        }
        // Steps of a fraction of the larger cascades' texels leave them
        // unchanged most of the time.
        assert!(
            unchanged > 200,
            "{unchanged} cascades of 796 unchanged by a step"
        );
    }

    #[test]
    fn every_cascade_holds_its_slice() {
        let settings = ShadowSettings::default();
        let camera = Camera {
            position: Vec3::new(3.0, 4.0, 12.0),
            target: Vec3::new(-1.0, 0.5, 0.0),
            aspect: 1.6,
            z_far: 80.0,
            ..Camera::default()
        };
        let all = cascades(&camera, Vec3::new(0.4, 0.8, 0.45), &settings);
        assert_eq!(all.len(), 4);
        assert_eq!(all[0].near_depth, camera.z_near);
        assert_eq!(all[3].far_depth, 80.0);
        let forward = (camera.target - camera.position).normalize();
        let right = forward.cross(camera.up).normalize();
        let up = right.cross(forward);
        let tan = (camera.fov_y_radians * 0.5).tan();
        for cascade in &all {
            for depth in [cascade.near_depth, cascade.far_depth] {
                for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    let corner = camera.position
                        + forward * depth
                        + right * (sx * depth * tan * camera.aspect)
                        + up * (sy * depth * tan);
                    let clip = cascade.clip_from_world.project_point3(corner);
                    assert!(
                        clip.x.abs() <= 1.0 && clip.y.abs() <= 1.0 && (0.0..=1.0).contains(&clip.z),
                        "{corner} outside its cascade: {clip}"
                    );
                }
            }
        }
    }
}
