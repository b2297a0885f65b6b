//! Cascaded shadow maps for the sun ([`crate::Lighting::direction_to_light`],
//! or the directional light named the sun: [`crate::Renderer::sun`])
//! and shadow maps for spot lights ([`spots`]): the settings and their
//! checks, and where each cascade looks, computed on the CPU every frame
//! from the camera and the light.
//!
//! The shadow map is one `Depth32Float` texture array: one layer per
//! cascade, then one layer per shadowed spot light (the spot atlas is
//! [`ShadowSettings::spot_lights`] layers of the same array, all of
//! [`ShadowSettings::resolution`]² texels).
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
//!   that only far-away casters are flattened. With occlusion culling on
//!   (the camera's and [`crate::Renderer::set_cascade_occlusion`]), each
//!   cascade draws first the casters it kept last frame, then those its
//!   early depth does not hide (`src/passes/occlusion.rs`): the map is the
//!   same. Blended objects cast no
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

mod cascades;
pub mod spots;

pub use cascades::{
    Cascade, cascades, caster_in_cascade, check_cascades, light_from_world, split_depths,
};

use crate::gpu_types::GpuShadowUniforms;
pub use crate::gpu_types::{MAX_CASCADES, MAX_SPOT_SHADOWS};
use glam::Vec4;
/// Format of the shadow map (one array layer per cascade and per shadowed
/// spot light).
pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// How far the cascade's box reaches towards the sun beyond the bounding
/// sphere of its slice, in radii of that sphere: casters farther away are
/// still drawn, flattened onto the box's near plane.
pub const CASTER_EXTENSION_RADII: f32 = 2.0;
/// Index of the near plane (the one facing the sun) in a cascade's
/// [`frustum_planes`](crate::camera::frustum_planes): the caster test leaves it out.
pub const CASCADE_NEAR_PLANE: usize = 4;

/// How the sun's shadows are drawn. Set at creation
/// ([`crate::RendererConfig::shadows`]) or at run time
/// ([`crate::Renderer::set_shadows`]); checked by [`Self::validate`].
///
/// The default is off; turned on, 4 cascades of 2048² `Depth32Float` texels
/// reach 100 units from the camera and 4 spot lights are shadowed. Only the
/// sun and spot lights cast shadows: point lights and image-based light do
/// not, and blended objects cast none. A refused setting (0 or more than
/// [`MAX_CASCADES`] cascades, more than [`MAX_SPOT_SHADOWS`] spots, more
/// layers than the device's `max_texture_array_layers`, a resolution of 0
/// or beyond `max_texture_dimension_2d`, a NaN or out-of-range number, a
/// bias of more texels than the resolution, cascades whose size or place
/// the camera makes too large for `f32`: [`check_cascades`]) is a
/// [`ShadowError`] and the settings in use stay.
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
    /// Most spot lights shadowed, 0 to [`MAX_SPOT_SHADOWS`] (default 4):
    /// the first live spot lights with [`crate::Light::casts_shadows`], in
    /// slot order, each with a layer of [`Self::resolution`]² texels (see
    /// [`spots`]). The bias settings apply in texels of each spot's map.
    pub spot_lights: u32,
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
            spot_lights: 4,
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
    /// More shadowed spot lights than [`MAX_SPOT_SHADOWS`].
    #[error("{count} shadowed spot lights: there may be at most {MAX_SPOT_SHADOWS}")]
    SpotLightCount {
        /// The count asked for.
        count: u32,
    },
    /// More layers (cascades and shadowed spot lights) than the device's
    /// texture arrays have.
    #[error("{count} shadow map layers: the device's texture arrays hold at most {max} layers")]
    ArrayLayers {
        /// The layers the settings need ([`ShadowSettings::map_layers`]).
        count: u32,
        /// The device's `max_texture_array_layers`.
        max: u32,
    },
    /// A value derived from valid settings (and, for the cascades, the
    /// camera) is not finite or above its bound: a bias wider than the
    /// map, a cascade too large for `f32` ([`check_cascades`]).
    #[error("shadow {derived} is {value}: it must be finite and at most {max}")]
    Derived {
        /// What was derived, from what.
        derived: &'static str,
        /// Its value.
        value: f32,
        /// Its bound.
        max: f32,
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
        if self.spot_lights > MAX_SPOT_SHADOWS {
            return Err(ShadowError::SpotLightCount {
                count: self.spot_lights,
            });
        }
        if self.map_layers() > limits.max_texture_array_layers {
            return Err(ShadowError::ArrayLayers {
                count: self.map_layers(),
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
        // Derived: an offset in texels wider than the map moves the point
        // out of it (and its world size, times a cascade's or a distant
        // spot's texel, may overflow).
        let resolution = self.resolution as f32;
        for (derived, value) in [
            (
                "depth_bias_texels, against the resolution",
                self.depth_bias_texels,
            ),
            (
                "normal_offset_texels, against the resolution",
                self.normal_offset_texels,
            ),
        ] {
            if value > resolution {
                return Err(ShadowError::Derived {
                    derived,
                    value,
                    max: resolution,
                });
            }
        }
        Ok(())
    }
}

impl ShadowSettings {
    /// Layers of the shadow map: one per cascade and one per shadowed spot
    /// light, at least two and never a multiple of six. wgpu's GL backend
    /// makes a texture of one layer a plain 2D texture, which cannot be
    /// viewed as an array, and a square one of a multiple of six layers a
    /// cube map (array).
    pub fn map_layers(&self) -> u32 {
        let layers = (self.cascades + self.spot_lights).max(2);
        if layers.is_multiple_of(6) {
            layers + 1
        } else {
            layers
        }
    }
}

/// The shading's shadow uniforms, made from where this frame's cascades
/// and shadowed spots look.
impl GpuShadowUniforms {
    /// The uniforms for `cascades` of a camera looking along
    /// `camera_forward` and for `spots`, under `settings` (no cascades:
    /// shadows off).
    pub fn new(
        cascades: &[Cascade],
        spots: &[spots::SpotShadow],
        camera_forward: glam::Vec3,
        settings: &ShadowSettings,
    ) -> Self {
        let mut uniforms = Self {
            // Unused cascades' splits lie beyond every depth.
            split_depths: Vec4::splat(f32::MAX),
            camera_forward: camera_forward.extend(0.0),
            cascade_count: cascades.len().min(MAX_CASCADES as usize) as u32,
            resolution: settings.resolution,
            normal_offset_texels: settings.normal_offset_texels,
            depth_bias_texels: settings.depth_bias_texels,
            ..Default::default()
        };
        for (i, cascade) in cascades.iter().take(MAX_CASCADES as usize).enumerate() {
            uniforms.shadow_from_world[i] = cascade.clip_from_world;
            uniforms.cascade_planes[6 * i..6 * i + 6].copy_from_slice(&cascade.planes());
            uniforms.split_depths[i] = cascade.far_depth;
            uniforms.texel_world_sizes[i] = cascade.texel_world_size;
        }
        let spots = &spots[..spots.len().min(MAX_SPOT_SHADOWS as usize)];
        uniforms.spot_count = spots.len() as u32;
        for (i, spot) in spots.iter().enumerate() {
            uniforms.spot_from_world[i] = spot.clip_from_world;
            uniforms.spot_planes[i] = spot.planes();
            uniforms.spot_texel_scales[i / 4][i % 4] = spot.texel_scale;
        }
        uniforms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spot_shadows_take_layers_after_the_cascades() {
        let d = ShadowSettings::default();
        assert_eq!(d.map_layers(), 8, "4 cascades and 4 spots");
        let layers = |cascades, spot_lights| {
            ShadowSettings {
                cascades,
                spot_lights,
                ..d
            }
            .map_layers()
        };
        // At least two, never a multiple of six (GL's cube maps).
        assert_eq!(layers(1, 0), 2);
        assert_eq!(layers(2, 4), 7);
        assert_eq!(layers(4, 8), 13);
        assert_eq!(layers(3, 0), 3);
        let limits = wgpu::Limits {
            max_texture_array_layers: 8,
            ..wgpu::Limits::default()
        };
        assert_eq!(d.validate(&limits), Ok(()));
        assert_eq!(
            ShadowSettings {
                spot_lights: 5,
                ..d
            }
            .validate(&limits),
            Err(ShadowError::ArrayLayers { count: 9, max: 8 })
        );
        assert_eq!(
            ShadowSettings {
                spot_lights: MAX_SPOT_SHADOWS + 1,
                ..d
            }
            .validate(&wgpu::Limits::default()),
            Err(ShadowError::SpotLightCount {
                count: MAX_SPOT_SHADOWS + 1
            })
        );
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
        // Derived: a bias of more texels than the map is wide.
        assert_eq!(
            bad(ShadowSettings {
                resolution: 16,
                depth_bias_texels: 16.5,
                ..d
            }),
            ShadowError::Derived {
                derived: "depth_bias_texels, against the resolution",
                value: 16.5,
                max: 16.0,
            }
        );
    }

    #[test]
    fn cascades_too_large_for_f32_are_refused() {
        let settings = ShadowSettings {
            enabled: true,
            max_distance: 1e30,
            ..ShadowSettings::default()
        };
        let sun = glam::Vec3::Y;
        let near = crate::Camera::default();
        let fitted = cascades(&near, sun, &settings);
        assert_eq!(check_cascades(&fitted, &settings), Ok(()));
        let deep = crate::Camera {
            z_near: 1.0,
            z_far: 1e30,
            ..near
        };
        assert!(deep.is_valid());
        let fitted = cascades(&deep, sun, &settings);
        assert!(matches!(
            check_cascades(&fitted, &settings),
            Err(ShadowError::Derived { value, .. }) if !value.is_finite()
        ));
    }
}
