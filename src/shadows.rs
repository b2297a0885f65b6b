//! Cascaded shadow maps for the sun ([`crate::Lighting::direction_to_light`]):
//! the settings and their checks, and where each cascade looks, computed on
//! the CPU every frame from the camera and the light.
//!
//! - **Splits.** The camera's depth range from its near plane to
//!   `min(z_far, max_distance)` is cut into [`ShadowSettings::cascades`]
//!   slices by the practical split scheme: each split is
//!   `λ · n (f/n)^(i/N) + (1 - λ) · (n + (f - n) i/N)`, a blend of the
//!   logarithmic and the linear split with `λ =`
//!   [`ShadowSettings::split_lambda`] (0.75 by default).
//! - **Fitting.** Each cascade is an orthographic projection along the light
//!   fitted to the bounding sphere of its frustum slice. The sphere's radius
//!   depends only on the slice's depths, the field of view and the aspect
//!   ratio, never on where the camera stands or looks, so the cascade keeps
//!   its size (and its texels their world size) while the camera moves.
//! - **Texel snapping.** The projection's origin (the sphere's centre in
//!   light space, depth included) is rounded to whole shadow-map texels:
//!   a camera that moves moves the cascade by whole texels or not at all,
//!   so shadow edges do not shimmer.
//! - **Casters.** The cull pass keeps a shadow caster when its bounding
//!   sphere is inside the cascade's box without the box's near plane (the
//!   one facing the sun): a caster between the box and the sun still casts
//!   into it. The shadow pass draws such casters pancaked: their depth is
//!   clamped to the near plane in the vertex shader, which works on every
//!   tier (no depth-clamp feature needed). The box's near plane is pulled
//!   [`CASTER_EXTENSION_RADII`] radii towards the sun beyond the sphere, so
//!   that only far-away casters are flattened. Blended objects cast no
//!   shadows; alpha-masked ones do, with their holes.
//! - **Bias.** The shading compares the map at the surface point moved
//!   [`ShadowSettings::normal_offset_texels`] texels along its geometric
//!   normal and [`ShadowSettings::depth_bias_texels`] texels towards the
//!   sun, in the world size of the cascade's texels; the shadow pass adds
//!   no rasteriser bias. Moving along the normal clears a surface of
//!   slope `tan θ` (θ between normal and light) by `offset / cos θ` in
//!   depth, which grows with the slope as the filter's depth spread does
//!   (`tan θ` per texel, up to 1.5 texels from the centre for the kernel
//!   below).
//! - **Filtering.** Percentage-closer filtering: 2 × 2 comparison taps
//!   half a texel from the point, each a bilinear 2 × 2 comparison in
//!   hardware, averaged: a tent over 3 × 3 texels (weights 1 2 1 by
//!   1 2 1). Nine taps one texel apart (a 4 × 4 footprint) cost the H200's
//!   draw pass 39% over the variant without shadows on the 100k cube grid
//!   against 15% for these four (`docs/PERFORMANCE.md`). The cascade is chosen by the
//!   fragment's view depth (distance along the camera's forward axis);
//!   beyond the last split the sun is unshadowed.

use glam::{Mat4, Vec3, Vec4};

use crate::camera::{Camera, frustum_planes};

/// Most cascades a renderer draws (WGSL `MAX_CASCADES`).
pub const MAX_CASCADES: u32 = 4;
/// Format of the shadow map (one array layer per cascade).
pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// How far the cascade's box reaches towards the sun beyond the bounding
/// sphere of its slice, in radii of that sphere: casters farther away are
/// still drawn, flattened onto the box's near plane.
pub const CASTER_EXTENSION_RADII: f32 = 2.0;
/// Index of the near plane (the one facing the sun) in a cascade's
/// [`frustum_planes`]: the caster test leaves it out.
pub const CASCADE_NEAR_PLANE: usize = 4;

/// How the sun's shadows are drawn. Set at creation
/// ([`crate::RendererConfig::shadows`]) or at run time
/// ([`crate::Renderer::set_shadows`]); checked by [`Self::validate`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowSettings {
    /// Draw shadows. When off the draw pass uses a shader without any
    /// shadow code and no shadow map exists.
    pub enabled: bool,
    /// Cascades, 1 to [`MAX_CASCADES`] (default 4).
    pub cascades: u32,
    /// Side of each cascade's square shadow map in texels (default 2048),
    /// at most the device's `max_texture_dimension_2d`.
    pub resolution: u32,
    /// Shadows reach this far from the camera (along its view axis; world
    /// units, default 100), or to the camera's far plane if nearer.
    pub max_distance: f32,
    /// The practical split scheme's blend: 0 linear, 1 logarithmic
    /// (default 0.75).
    pub split_lambda: f32,
    /// Bias towards the sun, in texels of the cascade (default 1).
    pub depth_bias_texels: f32,
    /// Offset along the surface normal, in texels of the cascade
    /// (default 2).
    pub normal_offset_texels: f32,
}

impl Default for ShadowSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            cascades: MAX_CASCADES,
            resolution: 2048,
            max_distance: 100.0,
            split_lambda: 0.75,
            depth_bias_texels: 1.0,
            normal_offset_texels: 2.0,
        }
    }
}

/// Why [`ShadowSettings`] were refused. The settings in use stay.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ShadowError {
    /// The cascade count is 0 or above [`MAX_CASCADES`].
    #[error("{count} shadow cascades: there must be 1 to {MAX_CASCADES}")]
    CascadeCount {
        /// The count asked for.
        count: u32,
    },
    /// The shadow map's side is 0 or beyond the device's
    /// `max_texture_dimension_2d`.
    #[error("shadow map resolution {resolution}: it must be 1 to {max} (max_texture_dimension_2d)")]
    Resolution {
        /// The side asked for.
        resolution: u32,
        /// The device's largest 2D texture side.
        max: u32,
    },
    /// More cascades than the device's texture arrays have layers.
    #[error("{count} shadow cascades: the device's texture arrays hold at most {max} layers")]
    ArrayLayers {
        /// The count asked for.
        count: u32,
        /// The device's `max_texture_array_layers`.
        max: u32,
    },
    /// A number that is NaN, infinite or out of its range.
    #[error("shadow setting {field} is {value}: it must be {rule}")]
    OutOfRange {
        /// The [`ShadowSettings`] field.
        field: &'static str,
        /// Its value.
        value: f32,
        /// What it must be.
        rule: &'static str,
    },
}

const FINITE_POSITIVE: &str = "finite and above 0";
const FINITE_NON_NEGATIVE: &str = "finite and at least 0";

impl ShadowSettings {
    /// Checks every field (whether shadows are enabled or not) against its
    /// range and the device's `limits`.
    pub fn validate(&self, limits: &wgpu::Limits) -> Result<(), ShadowError> {
        if !(1..=MAX_CASCADES).contains(&self.cascades) {
            return Err(ShadowError::CascadeCount {
                count: self.cascades,
            });
        }
        if self.cascades > limits.max_texture_array_layers {
            return Err(ShadowError::ArrayLayers {
                count: self.cascades,
                max: limits.max_texture_array_layers,
            });
        }
        let max = limits.max_texture_dimension_2d;
        if self.resolution == 0 || self.resolution > max {
            return Err(ShadowError::Resolution {
                resolution: self.resolution,
                max,
            });
        }
        let positive = |v: f32| v.is_finite() && v > 0.0;
        let non_negative = |v: f32| v.is_finite() && v >= 0.0;
        let fraction = |v: f32| (0.0..=1.0).contains(&v);
        let checks = [
            (
                "max_distance",
                self.max_distance,
                FINITE_POSITIVE,
                positive(self.max_distance),
            ),
            (
                "split_lambda",
                self.split_lambda,
                "in [0, 1]",
                fraction(self.split_lambda),
            ),
            (
                "depth_bias_texels",
                self.depth_bias_texels,
                FINITE_NON_NEGATIVE,
                non_negative(self.depth_bias_texels),
            ),
            (
                "normal_offset_texels",
                self.normal_offset_texels,
                FINITE_NON_NEGATIVE,
                non_negative(self.normal_offset_texels),
            ),
        ];
        for (field, value, rule, ok) in checks {
            if !ok {
                return Err(ShadowError::OutOfRange { field, value, rule });
            }
        }
        Ok(())
    }
}

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

    #[test]
    fn invalid_settings_are_refused() {
        let limits = wgpu::Limits::default();
        assert_eq!(ShadowSettings::default().validate(&limits), Ok(()));
        let bad = |s: ShadowSettings| s.validate(&limits).unwrap_err();
        let d = ShadowSettings::default();
        assert!(matches!(
            bad(ShadowSettings { cascades: 0, ..d }),
            ShadowError::CascadeCount { count: 0 }
        ));
        assert!(matches!(
            bad(ShadowSettings { cascades: 5, ..d }),
            ShadowError::CascadeCount { count: 5 }
        ));
        assert!(matches!(
            bad(ShadowSettings { resolution: 0, ..d }),
            ShadowError::Resolution { resolution: 0, .. }
        ));
        assert!(matches!(
            bad(ShadowSettings {
                resolution: limits.max_texture_dimension_2d + 1,
                ..d
            }),
            ShadowError::Resolution { .. }
        ));
        assert!(matches!(
            bad(ShadowSettings {
                split_lambda: f32::NAN,
                ..d
            }),
            ShadowError::OutOfRange {
                field: "split_lambda",
                ..
            }
        ));
        assert!(matches!(
            bad(ShadowSettings {
                max_distance: 0.0,
                ..d
            }),
            ShadowError::OutOfRange {
                field: "max_distance",
                ..
            }
        ));
    }
}
