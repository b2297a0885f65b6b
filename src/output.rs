//! What becomes of the shaded image: multisampling, exposure and tone
//! mapping, and the CPU twins of the tone-mapping curves.
//!
//! The draw pass shades into a renderer-owned HDR target
//! ([`HDR_FORMAT`], [`Msaa`] samples per pixel, premultiplied alpha = what
//! covers the pixel); the output pass (`passes::output`, `wgsl/output.wgsl`)
//! averages its samples, scales by the exposure (2^EV), applies the
//! [`ToneMapping`] curve and writes the application's colour target. Debug
//! views bypass exposure and the curve (the average is written as it is);
//! id views write the first sample unchanged, so ids stay exact.
//!
//! The curves, each written from its published definition, with the CPU
//! twin here that `tests/output.rs` compares the GPU with:
//!
//! - [`ToneMapping::PbrNeutral`] (the default): the Khronos PBR Neutral
//!   tone mapper, from the specification's formula (F90 = 0.04, start of
//!   compression K_s = 0.8 - F90, desaturation K_d = 0.15). Below K_s it
//!   subtracts a small offset (at most 0.04) and leaves colours alone, so
//!   base colours stay base colours.
//! - [`ToneMapping::Aces`]: Stephen Hill's fit of the ACES reference
//!   rendering and output transforms (sRGB to AP1 with the RRT's
//!   saturation, the rational RRT + ODT fit, back to sRGB), after the 1/0.6
//!   exposure boost three.js and the glTF Sample Viewer apply before it.
//! - [`ToneMapping::Agx`]: Troy Sobotka's AgX base (the inset matrix, a
//!   log2 encoding from -12.47393 to +4.026069 EV, the outset matrix) with
//!   Benjamin Wrensch's sixth-order polynomial fit of its default contrast
//!   sigmoid; the sigmoid's display-encoded output is decoded with the 2.2
//!   power for the (sRGB) target.
//! - [`ToneMapping::Linear`]: exposure only, for applications that do their
//!   own post-processing (into an `Rgba16Float` colour target, say) and for
//!   tests.

use glam::{Mat3, Vec3};

use crate::capabilities::error::CapabilityError;
use crate::capabilities::formats::format_features;

/// Format of the renderer-owned HDR target the draw pass shades into.
pub const HDR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// Format of the depth targets `render` is given, which every raster pass
/// of the camera draws into. Depth is standard: 0 at the near plane, 1
/// ([`crate::FAR_DEPTH`]) at the far one, compared less-than, cleared to the
/// far plane unless the frame target loads it.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Samples per pixel of the HDR target (and of the application's depth
/// target). Resolved by the output pass, before tone mapping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Msaa {
    /// One sample per pixel.
    #[default]
    X1,
    /// Four samples per pixel (checked against the device at
    /// [`crate::Renderer::new`]).
    X4,
}

impl Msaa {
    /// Samples per pixel.
    pub fn sample_count(self) -> u32 {
        match self {
            Msaa::X1 => 1,
            Msaa::X4 => 4,
        }
    }

    /// Checks that `device` (created from `adapter`) can run this setting:
    /// the backend reads multisampled textures in shaders (wgpu's GL
    /// backend does not: [`CapabilityError::MsaaBackend`]), and the HDR
    /// target's and depth's formats multisample ([`Self::check_formats`]
    /// with [`format_features`]).
    pub fn check(
        self,
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
    ) -> Result<(), CapabilityError> {
        let samples = self.sample_count();
        let backend = adapter.get_info().backend;
        if samples > 1 && backend == wgpu::Backend::Gl {
            return Err(CapabilityError::MsaaBackend { backend, samples });
        }
        self.check_formats(&[HDR_FORMAT, crate::DEPTH_FORMAT], |format| {
            format_features(adapter, device, format)
        })
    }

    /// Checks that every one of `formats` can be a render target of this
    /// many samples per pixel, asking `features_of` for each.
    pub fn check_formats(
        self,
        formats: &[wgpu::TextureFormat],
        features_of: impl Fn(wgpu::TextureFormat) -> wgpu::TextureFormatFeatures,
    ) -> Result<(), CapabilityError> {
        let samples = self.sample_count();
        for &format in formats {
            let features = features_of(format);
            let attachment = features
                .allowed_usages
                .contains(wgpu::TextureUsages::RENDER_ATTACHMENT);
            if !attachment || !features.flags.sample_count_supported(samples) {
                return Err(CapabilityError::SampleCount {
                    samples,
                    format,
                    supported: features.flags.supported_sample_counts(),
                });
            }
        }
        Ok(())
    }

    /// The setting of `samples` per pixel (1 or 4).
    pub fn from_sample_count(samples: u32) -> Option<Self> {
        match samples {
            1 => Some(Msaa::X1),
            4 => Some(Msaa::X4),
            _ => None,
        }
    }
}

/// The curve from exposed HDR radiance to the colour target's [0, 1]
/// (WGSL `TONE_MAPPING_*` in `wgsl/output.wgsl`). See the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ToneMapping {
    /// Khronos PBR Neutral.
    #[default]
    PbrNeutral = 0,
    /// ACES, Stephen Hill's fit.
    Aces = 1,
    /// AgX, with a polynomial fit of its sigmoid.
    Agx = 2,
    /// Exposure only: no curve (values above 1 clip in an 8-bit target).
    Linear = 3,
}

impl ToneMapping {
    /// Every curve.
    pub const ALL: [ToneMapping; 4] = [
        ToneMapping::PbrNeutral,
        ToneMapping::Aces,
        ToneMapping::Agx,
        ToneMapping::Linear,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            ToneMapping::PbrNeutral => "pbr-neutral",
            ToneMapping::Aces => "aces",
            ToneMapping::Agx => "agx",
            ToneMapping::Linear => "linear",
        }
    }

    /// The curve called `name` (see [`Self::name`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The curve applied to linear radiance `c` (non-negative; negative
    /// channels count as 0): the CPU twin of `tone_map` in
    /// `wgsl/output.wgsl`.
    pub fn apply(self, c: Vec3) -> Vec3 {
        let c = c.max(Vec3::ZERO);
        match self {
            ToneMapping::PbrNeutral => pbr_neutral(c),
            ToneMapping::Aces => aces(c),
            ToneMapping::Agx => agx(c),
            ToneMapping::Linear => c,
        }
    }
}

/// Exposure and tone mapping of lit frames ([`crate::Renderer::set_output`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Output {
    /// Exposure in stops (EV): radiance is scaled by `2^exposure_ev` before
    /// the curve. 0 by default; within ±[`MAX_EXPOSURE_EV`].
    pub exposure_ev: f32,
    /// The curve.
    pub tone_mapping: ToneMapping,
}

/// Rec. 709 luminance weights of linear RGB (WGSL twin: `luminance` in
/// `wgsl/exposure.wgsl`): what the automatic exposure meters and what the
/// glTF loader ranks a file's directional lights by.
pub const LUMINANCE_WEIGHTS: Vec3 = Vec3::new(0.2126, 0.7152, 0.0722);

/// Largest exposure, in stops either way, [`Output::validate`] accepts:
/// `2^±126` is still a normal `f32`.
pub const MAX_EXPOSURE_EV: f32 = 126.0;

/// Why an [`Output`] was refused. The output in use is kept.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The exposure is NaN, infinite or beyond ±[`MAX_EXPOSURE_EV`].
    #[error("exposure {exposure_ev} EV is not finite or beyond ±{MAX_EXPOSURE_EV} EV")]
    Exposure {
        /// The exposure given.
        exposure_ev: f32,
    },
    /// The exposure times the brightest radiance the HDR target holds
    /// ([`HDR_FORMAT`]'s largest, 65504) overflows `f32`, so tone mapping
    /// would see infinity.
    #[error(
        "exposure {exposure_ev} EV: 2^EV × 65504 (the brightest HDR radiance) = {exposed} is not finite"
    )]
    Derived {
        /// The exposure given.
        exposure_ev: f32,
        /// The brightest HDR radiance, exposed.
        exposed: f32,
    },
}

/// The largest finite value of the HDR target's channels (`f16`).
const HDR_MAX: f32 = 65504.0;

/// Where the output pass stops exposed radiance (`wgsl/output.wgsl`): every
/// curve shows its brightest there already, and none overflows `f32` below
/// it (ACES squares its input).
pub const EXPOSED_MAX: f32 = 1e18;

impl Output {
    /// Checks the exposure: what [`crate::Renderer::set_output`] accepts.
    pub fn validate(&self) -> Result<(), OutputError> {
        if !self.exposure_ev.is_finite() || self.exposure_ev.abs() > MAX_EXPOSURE_EV {
            return Err(OutputError::Exposure {
                exposure_ev: self.exposure_ev,
            });
        }
        let exposed = HDR_MAX * self.exposure_scale();
        if !exposed.is_finite() {
            return Err(OutputError::Derived {
                exposure_ev: self.exposure_ev,
                exposed,
            });
        }
        Ok(())
    }

    /// `2^exposure_ev`: what radiance is multiplied by.
    pub fn exposure_scale(&self) -> f32 {
        self.exposure_ev.exp2()
    }

    /// What a lit pixel of HDR radiance `radiance` (fully covered) shows
    /// in a linear colour target: exposure, then the curve. The CPU twin of
    /// the output pass; an sRGB target then encodes it.
    /// As the pass does, radiance past [`HDR_FORMAT`]'s largest value
    /// (stored as infinity) counts as that value, and exposed radiance
    /// stops at [`EXPOSED_MAX`]: no input gives NaN.
    pub fn apply(&self, radiance: Vec3) -> Vec3 {
        // `f32::min` takes the number over NaN, as the pass's `select`.
        let stored = radiance.min(Vec3::splat(HDR_MAX));
        let exposed = (stored * self.exposure_scale()).min(Vec3::splat(EXPOSED_MAX));
        self.tone_mapping.apply(exposed)
    }
}

/// Khronos PBR Neutral, from the specification's formula.
pub fn pbr_neutral(c: Vec3) -> Vec3 {
    // Fresnel at normal incidence of IoR 1.5; start of highlight
    // compression K_s; speed of desaturation K_d.
    const F90: f32 = 0.04;
    const K_S: f32 = 0.8 - F90;
    const K_D: f32 = 0.15;
    let x = c.min_element();
    let f = if x <= 2.0 * F90 {
        x - x * x / (4.0 * F90)
    } else {
        F90
    };
    let c = c - f;
    let p = c.max_element();
    if p <= K_S {
        return c;
    }
    let p_n = 1.0 - (1.0 - K_S) * (1.0 - K_S) / (p + 1.0 - 2.0 * K_S);
    let g = 1.0 / (K_D * (p - p_n) + 1.0);
    c * (p_n / p * g) + Vec3::splat(p_n * (1.0 - g))
}

/// ACES, Stephen Hill's fit (with the 1/0.6 exposure boost), clamped to
/// [0, 1].
#[allow(
    clippy::excessive_precision,
    reason = "the published constants as published (and as wgsl/output.wgsl has them)"
)]
pub fn aces(c: Vec3) -> Vec3 {
    // sRGB -> XYZ -> D65 to D60 -> AP1 -> RRT saturation, by rows.
    let input = Mat3::from_cols_array(&[
        0.59719, 0.07600, 0.02840, //
        0.35458, 0.90834, 0.13383, //
        0.04823, 0.01566, 0.83777,
    ]);
    // ODT saturation -> XYZ -> D60 to D65 -> sRGB.
    let output = Mat3::from_cols_array(&[
        1.60475, -0.10208, -0.00327, //
        -0.53108, 1.10813, -0.07276, //
        -0.07367, -0.00605, 1.07602,
    ]);
    let v = input * (c / 0.6);
    let fit = (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.4329510) + 0.238081);
    (output * fit).clamp(Vec3::ZERO, Vec3::ONE)
}

/// AgX: Sobotka's base with Wrensch's polynomial sigmoid, decoded to
/// linear with the 2.2 power.
#[allow(
    clippy::excessive_precision,
    reason = "the published constants as published (and as wgsl/output.wgsl has them)"
)]
pub fn agx(c: Vec3) -> Vec3 {
    const MIN_EV: f32 = -12.47393;
    const MAX_EV: f32 = 4.026069;
    let inset = Mat3::from_cols_array(&[
        0.842479062253094,
        0.0423282422610123,
        0.0423756549057051,
        0.0784335999999992,
        0.878468636469772,
        0.0784336,
        0.0792237451477643,
        0.0791661274605434,
        0.879142973793104,
    ]);
    let outset = Mat3::from_cols_array(&[
        1.19687900512017,
        -0.0528968517574562,
        -0.0529716355144438,
        -0.0980208811401368,
        1.15190312990417,
        -0.0980434501171241,
        -0.0990297440797205,
        -0.0989611768448433,
        1.15107367264116,
    ]);
    let log = (inset * c)
        .max(Vec3::splat(1e-10))
        .map(f32::log2)
        .clamp(Vec3::splat(MIN_EV), Vec3::splat(MAX_EV));
    let x = (log - MIN_EV) / (MAX_EV - MIN_EV);
    let (x2, x4) = (x * x, x * x * x * x);
    let sigmoid =
        15.5 * x4 * x2 - 40.14 * x4 * x + 31.96 * x4 - 6.868 * x2 * x + 0.4298 * x2 + 0.1191 * x
            - 0.00232;
    (outset * sigmoid).clamp(Vec3::ZERO, Vec3::ONE).powf(2.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pbr_neutral_keeps_low_values_and_compresses_highlights() {
        // Above 2 F90 in every channel: the offset is F90 exactly.
        let mid = Vec3::new(0.3, 0.2, 0.1);
        assert!((pbr_neutral(mid) - (mid - 0.04)).abs().max_element() < 1e-6);
        assert_eq!(pbr_neutral(Vec3::ZERO), Vec3::ZERO);
        // Continuous at the start of compression, monotonic, below 1.
        let k_s = 0.76 + 0.04;
        let below = pbr_neutral(Vec3::splat(k_s - 1e-4)).x;
        let above = pbr_neutral(Vec3::splat(k_s + 1e-4)).x;
        assert!((below - above).abs() < 1e-3, "{below} {above}");
        let mut previous = 0.0;
        for i in 0..200 {
            let v = pbr_neutral(Vec3::splat(i as f32 * 0.25)).x;
            assert!(v >= previous && v < 1.0, "{i}: {v}");
            previous = v;
        }
        // Highlights desaturate towards white.
        let bright = pbr_neutral(Vec3::new(20.0, 2.0, 2.0));
        assert!(bright.y > 0.5 && bright.x > bright.y, "{bright}");
    }

    #[test]
    fn aces_and_agx_map_black_to_black_and_saturate_below_one() {
        for curve in [ToneMapping::Aces, ToneMapping::Agx] {
            let black = curve.apply(Vec3::ZERO);
            assert!(black.max_element() < 2e-3, "{curve:?}: {black}");
            let white = curve.apply(Vec3::splat(1e4));
            assert!(
                white.min_element() > 0.9 && white.max_element() <= 1.0,
                "{curve:?}: {white}"
            );
            let mut previous = -1.0;
            for i in 0..100 {
                let v = curve.apply(Vec3::splat(i as f32 * 0.1)).x;
                assert!(v >= previous, "{curve:?} {i}: {v}");
                previous = v;
            }
            // Mid grey stays a mid tone.
            let grey = curve.apply(Vec3::splat(0.18)).x;
            assert!((0.08..0.35).contains(&grey), "{curve:?}: {grey}");
        }
    }

    #[test]
    fn exposure_is_in_stops_and_refused_when_not_finite() {
        let output = Output {
            exposure_ev: 1.0,
            tone_mapping: ToneMapping::Linear,
        };
        assert_eq!(output.apply(Vec3::splat(0.25)), Vec3::splat(0.5));
        for exposure_ev in [f32::NAN, f32::INFINITY, -f32::INFINITY, 127.0, -200.0] {
            let bad = Output {
                exposure_ev,
                ..Output::default()
            };
            assert!(bad.validate().is_err(), "{exposure_ev}");
        }
        // +126 EV is a normal scale, but 2^126 × 65504 is not finite
        // (OutputError::Derived); +112 is the largest whole stop accepted.
        assert!(matches!(
            Output {
                exposure_ev: 126.0,
                ..Output::default()
            }
            .validate(),
            Err(OutputError::Derived { .. })
        ));
        for exposure_ev in [0.0, -126.0, 112.0] {
            let good = Output {
                exposure_ev,
                ..Output::default()
            };
            assert!(good.validate().is_ok());
            assert!(good.exposure_scale().is_normal(), "{exposure_ev}");
        }
    }

    #[test]
    fn radiance_past_the_hdr_target_shows_the_brightest() {
        for tone_mapping in ToneMapping::ALL {
            for (radiance, exposure_ev) in [
                (Vec3::INFINITY, 0.0),
                (Vec3::NAN, 0.0),
                (Vec3::new(f32::INFINITY, 1.0, 1.0), 0.0),
                (Vec3::splat(0.5), 100.0),
            ] {
                let output = Output {
                    exposure_ev,
                    tone_mapping,
                };
                let shown = output.apply(radiance);
                assert!(
                    shown.min_element() >= 0.98 || radiance.y == 1.0,
                    "{tone_mapping:?} {radiance} at {exposure_ev} EV: {shown}"
                );
                assert!(shown.is_finite(), "{tone_mapping:?}: {shown}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for curve in ToneMapping::ALL {
            assert_eq!(ToneMapping::parse(curve.name()), Some(curve));
        }
        assert_eq!(Msaa::from_sample_count(4), Some(Msaa::X4));
        assert_eq!(Msaa::from_sample_count(2), None);
    }
}
