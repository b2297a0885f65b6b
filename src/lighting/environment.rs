//! The environment that lights a scene from every direction (image-based
//! light), on the CPU: where its radiance comes from, before
//! [`crate::passes::prefilter`] turns it into the maps the draw pass
//! samples.
//!
//! Every source becomes an equirectangular image ([`EquirectImage`]) of
//! linear RGB radiance: texel `(x, y)` of a `width` × `height` image looks
//! towards [`equirect_direction`] of its centre (+Y up; the image's centre
//! column looks towards -Z, as in most panoramas). The twin of the mapping
//! is `equirect_uv` in `wgsl/ibl.wgsl`.

use glam::{Vec2, Vec3};
use std::f32::consts::PI;

/// Where the environment's radiance comes from.
///
/// A new renderer starts with [`Environment::uniform_white`];
/// [`Environment::sky`] is the procedural daylight sky. There is no
/// `Default`: name the one you mean.
#[derive(Clone, Debug, PartialEq)]
pub enum Environment {
    /// A procedural sky: needs no file.
    Sky(Sky),
    /// The same radiance (linear RGB) from every direction: a white one of
    /// radiance 1 is the white furnace, under which a surface reflects its
    /// directional albedo.
    Uniform(Vec3),
    /// An equirectangular image, e.g. from a Radiance `.hdr` file
    /// (`EquirectImage::open_hdr`, within [`HdrLimits`]).
    ///
    /// [`HdrLimits`]: super::HdrLimits
    Equirect(EquirectImage),
}

impl Environment {
    /// The procedural daylight sky with [`Sky::default`]'s radiances: a
    /// blue gradient from the horizon up, a darker ground, no sun disc (the
    /// renderer's [`crate::Lighting`] is the sun).
    pub fn sky() -> Self {
        Self::Sky(Sky::default())
    }

    /// Radiance 1 from every direction: what a new renderer starts with.
    /// Scaled by [`crate::Lighting::ambient_color`], it is a uniform
    /// ambient light of that colour, which a surface reflects as its
    /// albedo.
    pub const fn uniform_white() -> Self {
        Self::Uniform(Vec3::ONE)
    }
}

/// A simple daylight sky: a gradient from the horizon to the zenith over a
/// darker ground, and a sun disc. Radiances are linear RGB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sky {
    /// Radiance straight up.
    pub zenith: Vec3,
    /// Radiance at the horizon.
    pub horizon: Vec3,
    /// Radiance of the ground (every direction below the horizon).
    pub ground: Vec3,
    /// Direction towards the sun (normalised when drawn; zero: no sun).
    pub sun_direction: Vec3,
    /// Radiance of the sun's disc. Zero by default: the renderer's
    /// directional light ([`crate::Lighting`]) is the sun, and a disc here
    /// as well would light twice.
    pub sun_radiance: Vec3,
    /// Angular radius of the sun's disc, in radians.
    pub sun_radius_radians: f32,
}

impl Default for Sky {
    fn default() -> Self {
        Self {
            zenith: Vec3::new(0.25, 0.45, 0.9),
            horizon: Vec3::new(0.85, 0.9, 1.0),
            ground: Vec3::new(0.3, 0.27, 0.24),
            // Where `Lighting::default`'s light comes from.
            sun_direction: Vec3::new(0.4, 0.8, 0.45),
            sun_radiance: Vec3::ZERO,
            sun_radius_radians: 0.03,
        }
    }
}

impl Sky {
    /// Radiance arriving from unit direction `direction`.
    pub fn radiance(&self, direction: Vec3) -> Vec3 {
        let up = direction.y;
        let mut radiance = if up >= 0.0 {
            // Most of the change near the horizon.
            self.horizon.lerp(self.zenith, up.sqrt())
        } else {
            self.horizon.lerp(self.ground, (-up * 8.0).min(1.0))
        };
        if let Some(sun) = self.sun_direction.try_normalize()
            && direction.dot(sun) >= self.sun_radius_radians.cos()
        {
            radiance = self.sun_radiance;
        }
        radiance
    }
}

/// The largest side the prefilter accepts from a file, whatever the device
/// allows (a larger panorama gains nothing at the cube sizes used).
pub const MAX_EQUIRECT_SIDE: u32 = 16384;

/// Width of the equirectangular image a [`Sky`] is drawn into.
const SKY_WIDTH: u32 = 512;

/// An equirectangular image of linear RGB radiance, row by row from the
/// top (+Y).
#[derive(Clone, Debug, PartialEq)]
pub struct EquirectImage {
    width: u32,
    height: u32,
    texels: Vec<Vec3>,
}

/// Why an environment was refused.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EnvironmentError {
    /// The file could not be read.
    #[error("cannot read environment {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::sync::Arc<std::io::Error>,
    },
    /// Not a regular file (a device, FIFO, socket or folder): refused
    /// from its metadata before it was opened.
    #[error("environment {path} is not a regular file")]
    NotRegularFile {
        /// The file.
        path: std::path::PathBuf,
    },
    /// The file is longer than [`HdrLimits::max_file_bytes`]
    /// (from its metadata, before reading).
    ///
    /// [`HdrLimits::max_file_bytes`]: super::HdrLimits::max_file_bytes
    #[error("environment {path} has {bytes} bytes, over the limit of {max}")]
    FileTooLarge {
        /// The file.
        path: std::path::PathBuf,
        /// Its length.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// The header announces more texels than [`HdrLimits::max_texels`]
    /// (checked before they are allocated).
    ///
    /// [`HdrLimits::max_texels`]: super::HdrLimits::max_texels
    #[error("environment of {width}x{height} exceeds the limit of {max} texels")]
    TooManyTexels {
        /// Width, from the header.
        width: u32,
        /// Height, from the header.
        height: u32,
        /// The limit.
        max: u64,
    },
    /// The bytes are not an image the decoder reads (a malformed `.hdr`).
    #[error("cannot decode environment image: {0}")]
    Decode(String),
    /// Texel count and size disagree, or a side is zero.
    #[error("environment of {width}x{height} given {texels} texels")]
    Size {
        /// Width given.
        width: u32,
        /// Height given.
        height: u32,
        /// Texels given.
        texels: usize,
    },
    /// Prefilter settings out of range (see [`PrefilterSettings`]).
    #[error("prefilter settings out of range: {0:?}")]
    Settings(PrefilterSettings),
    /// A side exceeds what the device, [`MAX_EQUIRECT_SIDE`] or, for a
    /// `.hdr` file, [`HdrLimits::max_side`] allows (a file's from its
    /// header, before decoding).
    ///
    /// [`HdrLimits::max_side`]: super::HdrLimits::max_side
    #[error("environment of {width}x{height} exceeds the largest side, {max}")]
    TooLarge {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// The largest side allowed.
        max: u32,
    },
    /// A texel (or a uniform or sky radiance) is negative, NaN or infinite.
    #[error("environment radiance {value} at texel ({x}, {y}) is not finite and >= 0")]
    BadRadiance {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The radiance.
        value: Vec3,
    },
    /// A radiance written straight into the maps (the uniform colour, or
    /// one of a sky's radiances) is brighter than they hold: a channel
    /// above [`MAX_ENVIRONMENT_RADIANCE`]. (An image's texels may be
    /// brighter: see the constant.)
    #[error(
        "environment radiance {value} ({what}) exceeds {max}, the largest the environment maps \
         (Rgba16Float) hold"
    )]
    TooBright {
        /// Which radiance: `"uniform"`, `"sky zenith"`...
        what: String,
        /// The radiance.
        value: Vec3,
        /// [`MAX_ENVIRONMENT_RADIANCE`].
        max: f32,
    },
}

/// The brightest radiance, per channel, an environment may have: the
/// largest value of the maps' format
/// ([`ENVIRONMENT_FORMAT`](crate::passes::prefilter::ENVIRONMENT_FORMAT),
/// half floats), which would store anything brighter as something else.
/// It bounds the settings written straight into the maps: a uniform
/// colour and a sky's radiances. An image's texels may be brighter (the sun
/// of an unclipped panorama is): the prefilter resamples the 32-bit image
/// into the half-float cube and clamps what it stores to this value, so a
/// sun's energy above it is lost but never becomes infinity.
pub const MAX_ENVIRONMENT_RADIANCE: f32 = 65504.0;

/// Checks one radiance (`what` names it in the error): finite,
/// non-negative, at most [`MAX_ENVIRONMENT_RADIANCE`]; `at` is its texel.
fn check_radiance(
    value: Vec3,
    at: (u32, u32),
    what: impl FnOnce() -> String,
) -> Result<(), EnvironmentError> {
    if !valid_radiance(value) {
        let (x, y) = at;
        return Err(EnvironmentError::BadRadiance { x, y, value });
    }
    if value.max_element() > MAX_ENVIRONMENT_RADIANCE {
        return Err(EnvironmentError::TooBright {
            what: what(),
            value,
            max: MAX_ENVIRONMENT_RADIANCE,
        });
    }
    Ok(())
}

impl EquirectImage {
    /// An image of `width` × `height` texels, row by row from the top.
    pub fn new(width: u32, height: u32, texels: Vec<Vec3>) -> Result<Self, EnvironmentError> {
        let size = EnvironmentError::Size {
            width,
            height,
            texels: texels.len(),
        };
        if width == 0 || height == 0 {
            return Err(size);
        }
        if width.max(height) > MAX_EQUIRECT_SIDE {
            return Err(EnvironmentError::TooLarge {
                width,
                height,
                max: MAX_EQUIRECT_SIDE,
            });
        }
        if texels.len() != width as usize * height as usize {
            return Err(size);
        }
        // Texels may be brighter than MAX_ENVIRONMENT_RADIANCE (the sun of
        // an unclipped panorama): the prefilter clamps what it stores.
        if let Some(i) = texels.iter().position(|t| !valid_radiance(*t)) {
            let at = (i as u32 % width, i as u32 / width);
            check_radiance(texels[i], at, || format!("texel {at:?}"))?;
        }
        Ok(Self {
            width,
            height,
            texels,
        })
    }

    // `.hdr` files: `src/lighting/hdr.rs`.

    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Texels, row by row from the top.
    pub fn texels(&self) -> &[Vec3] {
        &self.texels
    }
}

fn valid_radiance(value: Vec3) -> bool {
    value.is_finite() && value.min_element() >= 0.0
}

/// The unit direction the point `uv` (0..1 each, v down) of an
/// equirectangular image looks towards. Twin: `wgsl/ibl.wgsl`'s
/// `equirect_uv` (its inverse).
pub fn equirect_direction(uv: Vec2) -> Vec3 {
    let phi = (uv.x - 0.5) * 2.0 * PI;
    let theta = uv.y * PI;
    Vec3::new(
        theta.sin() * phi.sin(),
        theta.cos(),
        -theta.sin() * phi.cos(),
    )
}

impl Environment {
    /// Checks the radiances: what the prefilter accepts. Each is finite,
    /// non-negative and at most [`MAX_ENVIRONMENT_RADIANCE`]; so is every
    /// radiance derived from them, since the sky blends its radiances and
    /// the prefilter averages (an image's texels are checked when it is
    /// made, [`EquirectImage::new`]).
    pub fn validate(&self) -> Result<(), EnvironmentError> {
        let bad = |value| EnvironmentError::BadRadiance { x: 0, y: 0, value };
        match self {
            Self::Uniform(c) => check_radiance(*c, (0, 0), || "uniform".to_owned()),
            Self::Sky(sky) => {
                for (what, c) in [
                    ("sky zenith", sky.zenith),
                    ("sky horizon", sky.horizon),
                    ("sky ground", sky.ground),
                    ("sky sun_radiance", sky.sun_radiance),
                ] {
                    check_radiance(c, (0, 0), || what.to_owned())?;
                }
                if !sky.sun_direction.is_finite() || !sky.sun_radius_radians.is_finite() {
                    return Err(bad(sky.sun_direction));
                }
                Ok(())
            }
            Self::Equirect(_) => Ok(()),
        }
    }

    /// The environment as an equirectangular image: a sky drawn at
    /// 512 × 256, a uniform colour as one texel.
    pub fn to_equirect(&self) -> Result<std::borrow::Cow<'_, EquirectImage>, EnvironmentError> {
        self.validate()?;
        let image = match self {
            Self::Equirect(image) => return Ok(std::borrow::Cow::Borrowed(image)),
            Self::Uniform(c) => EquirectImage::new(1, 1, vec![*c])?,
            Self::Sky(sky) => {
                let (w, h) = (SKY_WIDTH, SKY_WIDTH / 2);
                let texels = (0..w * h)
                    .map(|i| {
                        let uv = (Vec2::new((i % w) as f32, (i / w) as f32) + 0.5)
                            / Vec2::new(w as f32, h as f32);
                        sky.radiance(equirect_direction(uv))
                    })
                    .collect();
                EquirectImage::new(w, h, texels)?
            }
        };
        Ok(std::borrow::Cow::Owned(image))
    }
}

/// Sizes and sample counts of the prefilter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefilterSettings {
    /// Side of the specular cube's mip 0 (a power of two).
    pub specular_size: u32,
    /// Mips of the specular cube, roughness 0 to 1 (at least 2, and the
    /// smallest at least 1 texel).
    pub specular_mips: u32,
    /// GGX samples per texel of the specular mips.
    pub samples: u32,
}

impl Default for PrefilterSettings {
    fn default() -> Self {
        Self {
            specular_size: 128,
            specular_mips: 6,
            samples: 64,
        }
    }
}

impl PrefilterSettings {
    /// The settings `environment` is prefiltered with: these, except that
    /// a uniform environment, whose maps are uniform whatever their size,
    /// gets the smallest cube with as many mips and 4 samples per texel
    /// (the first of which is near the normal at any roughness).
    pub fn for_environment(&self, environment: &Environment) -> Self {
        match environment {
            Environment::Uniform(_) => Self {
                specular_size: 1 << (self.specular_mips.clamp(2, 12) - 1),
                samples: 4,
                ..*self
            },
            _ => *self,
        }
    }

    /// Checks the settings: what [`crate::passes::prefilter::Prefilter::prefilter`] accepts.
    pub fn validate(&self, device: &wgpu::Device) -> Result<(), EnvironmentError> {
        let max = device.limits().max_texture_dimension_2d;
        let ok = self.specular_size.is_power_of_two()
            && self.specular_size <= max
            && (2..=self.specular_size.ilog2() + 1).contains(&self.specular_mips)
            && (1..=4096).contains(&self.samples);
        if ok {
            Ok(())
        } else {
            Err(EnvironmentError::Settings(*self))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equirect_directions_cover_the_sphere_as_documented() {
        let close = |a: Vec3, b: Vec3| (a - b).length() < 1e-5;
        assert!(close(equirect_direction(Vec2::new(0.5, 0.5)), -Vec3::Z));
        assert!(close(equirect_direction(Vec2::new(0.75, 0.5)), Vec3::X));
        assert!(close(equirect_direction(Vec2::new(0.0, 0.5)), Vec3::Z));
        assert!(close(equirect_direction(Vec2::new(0.3, 0.0)), Vec3::Y));
        assert!(close(equirect_direction(Vec2::new(0.3, 1.0)), -Vec3::Y));
    }

    #[test]
    fn the_named_environments_are_the_sky_and_white() {
        assert_eq!(Environment::sky(), Environment::Sky(Sky::default()));
        assert_eq!(
            Environment::uniform_white(),
            Environment::Uniform(Vec3::ONE)
        );
        // The sky is blue above and darker below; white is white everywhere.
        let Environment::Sky(sky) = Environment::sky() else {
            unreachable!("sky() is a sky")
        };
        let (up, down) = (sky.radiance(Vec3::Y), sky.radiance(-Vec3::Y));
        assert!(up.z > up.x && up.z > down.z, "{up} {down}");
        let white = Environment::uniform_white();
        let image = white.to_equirect().unwrap();
        assert!(image.texels().iter().all(|&t| t == Vec3::ONE));
    }

    #[test]
    fn bad_images_are_refused() {
        assert!(matches!(
            EquirectImage::new(2, 1, vec![Vec3::ONE]),
            Err(EnvironmentError::Size { .. })
        ));
        assert!(matches!(
            EquirectImage::new(0, 0, vec![]),
            Err(EnvironmentError::Size { .. })
        ));
        assert!(matches!(
            EquirectImage::new(2, 1, vec![Vec3::ONE, Vec3::new(0.0, f32::NAN, 0.0)]),
            Err(EnvironmentError::BadRadiance { x: 1, y: 0, .. })
        ));
        assert!(matches!(
            Environment::Uniform(Vec3::new(-1.0, 0.0, 0.0)).to_equirect(),
            Err(EnvironmentError::BadRadiance { .. })
        ));
    }
}
