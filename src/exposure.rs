//! Automatic exposure: the exposure metered from the HDR target each frame,
//! for scenes in physical units (a sun of 100,000 lux, say), where a fixed
//! exposure suits one scene and blows out another.
//!
//! With [`crate::Renderer::set_auto_exposure`] on, each lit frame runs two
//! compute dispatches between the camera's draws and the output pass
//! (`passes::exposure`, `wgsl/exposure.wgsl`):
//!
//! 1. **histogram**: every pixel of the HDR target, resolved as the output
//!    pass resolves it and un-premultiplied, is metered by its luminance
//!    ([`crate::output::LUMINANCE_WEIGHTS`]) into one of
//!    [`EXPOSURE_BINS`] bins of log2 luminance: bin 0 holds pixels the
//!    scene does not cover (every depth sample still at the far plane: the
//!    clear colour is the application's backdrop, not the scene's light;
//!    or alpha 0, with a loaded target) and pixels darker than 2^[`MIN_LOG2_LUMINANCE`]; bins 1 to 255
//!    split [`MIN_LOG2_LUMINANCE`] to [`MAX_LOG2_LUMINANCE`] evenly
//!    (brighter pixels go to the last). Each workgroup of 16×16 pixels
//!    counts into workgroup memory with atomics and adds its counts to the
//!    frame's histogram.
//! 2. **reduce**: one workgroup reads the histogram and clears it for the
//!    next frame; one invocation walks the bins in order, drops the darkest
//!    [`AutoExposure::low_fraction`] and brightest
//!    `1 - `[`AutoExposure::high_fraction`] of the metered pixels, and takes
//!    the mean log2 luminance of the rest at the bins' centres. The target
//!    exposure puts that mean at mid grey: `log2(0.18) - mean +
//!    compensation_ev`, within `[min_ev, max_ev]`. The exposure moves
//!    [`AutoExposure::adaptation`] of the way there each frame (1: at once).
//!    The first frame after the setting changes jumps. A frame with no
//!    metered pixel keeps the exposure it had. The result (`GpuExposureState`)
//!    stays on the GPU: the output pass copies its scale into its uniforms,
//!    so nothing is read back and no frame waits.
//!
//! Adaptation is per frame, not per second: the renderer has no clock. An
//! application that wants a time constant `τ` at frame time `dt` sets
//! `adaptation = 1 - exp(-dt / τ)` each frame.
//!
//! [`LuminanceHistogram`] is the CPU twin: the same bins from read-back HDR
//! pixels, the same walk, the same adaptation (`tests/exposure.rs`
//! compares). Every tier runs it: workgroup and storage atomics are core
//! WGSL, GL's compute shaders included. Debug and id views skip it.

use glam::{Vec3, Vec4};

use crate::output::{LUMINANCE_WEIGHTS, MAX_EXPOSURE_EV, Output, OutputError};

/// Bins of the luminance histogram (WGSL `EXPOSURE_BINS`); bin 0 holds
/// what is not metered.
pub const EXPOSURE_BINS: usize = 256;

/// log2 of the darkest luminance metered (WGSL `MIN_LOG2_LUMINANCE`):
/// darker pixels go to bin 0.
pub const MIN_LOG2_LUMINANCE: i32 = -20;

/// log2 of the luminance where the last bin ends (WGSL
/// `MAX_LOG2_LUMINANCE`): a little above the HDR target's largest value,
/// 65504.
pub const MAX_LOG2_LUMINANCE: i32 = 16;

/// Mid grey: the metered mean luminance is exposed to this.
pub const MID_GREY: f32 = 0.18;

/// Settings of automatic exposure ([`crate::Renderer::set_auto_exposure`]).
/// The default meters the middle 80% of pixels, exposes their mean to mid
/// grey within ±24 EV, and jumps (adaptation 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AutoExposure {
    /// Darkest exposure it may choose (EV, as [`Output::exposure_ev`]).
    pub min_ev: f32,
    /// Brightest exposure it may choose; at least `min_ev`.
    pub max_ev: f32,
    /// Stops added to the metered exposure (positive: brighter).
    pub compensation_ev: f32,
    /// Share of the way to the metered exposure each frame moves, in
    /// (0, 1]; 1 jumps (deterministic, for tests and stills).
    pub adaptation: f32,
    /// Share of the metered pixels, darkest first, left out of the mean;
    /// in [0, `high_fraction`).
    pub low_fraction: f32,
    /// Share of the metered pixels, darkest first, up to which the mean
    /// is taken (the brightest `1 - high_fraction` are left out); in
    /// (`low_fraction`, 1].
    pub high_fraction: f32,
}

impl Default for AutoExposure {
    fn default() -> Self {
        Self {
            min_ev: -24.0,
            max_ev: 24.0,
            compensation_ev: 0.0,
            adaptation: 1.0,
            low_fraction: 0.1,
            high_fraction: 0.9,
        }
    }
}

/// Why an [`AutoExposure`] was refused. The setting in use is kept.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExposureError {
    /// A field is NaN or infinite.
    #[error("auto exposure field {field} is not finite: {value}")]
    NonFinite {
        /// The field.
        field: &'static str,
        /// Its value.
        value: f32,
    },
    /// `min_ev` or `max_ev` is not an exposure [`Output::validate`] takes,
    /// or `min_ev > max_ev`.
    #[error(
        "auto exposure range {min_ev}..={max_ev} EV is not an ordered range of valid exposures"
    )]
    Range {
        /// The darkest exposure given.
        min_ev: f32,
        /// The brightest exposure given.
        max_ev: f32,
        /// Why a bound is not a valid exposure, if one is not.
        source: Option<OutputError>,
    },
    /// `compensation_ev` beyond ±[`MAX_EXPOSURE_EV`].
    #[error("auto exposure compensation {compensation_ev} EV is beyond ±{MAX_EXPOSURE_EV}")]
    Compensation {
        /// The compensation given.
        compensation_ev: f32,
    },
    /// `adaptation` outside (0, 1].
    #[error("auto exposure adaptation {adaptation} is outside (0, 1]")]
    Adaptation {
        /// The adaptation given.
        adaptation: f32,
    },
    /// Not `0 <= low_fraction < high_fraction <= 1`.
    #[error("auto exposure fractions {low_fraction}..{high_fraction}: needs 0 <= low < high <= 1")]
    Fractions {
        /// The low fraction given.
        low_fraction: f32,
        /// The high fraction given.
        high_fraction: f32,
    },
}

impl AutoExposure {
    /// Checks what [`crate::Renderer::set_auto_exposure`] accepts.
    pub fn validate(&self) -> Result<(), ExposureError> {
        for (field, value) in [
            ("min_ev", self.min_ev),
            ("max_ev", self.max_ev),
            ("compensation_ev", self.compensation_ev),
            ("adaptation", self.adaptation),
            ("low_fraction", self.low_fraction),
            ("high_fraction", self.high_fraction),
        ] {
            if !value.is_finite() {
                return Err(ExposureError::NonFinite { field, value });
            }
        }
        let (min_ev, max_ev) = (self.min_ev, self.max_ev);
        let bound = |exposure_ev| {
            Output {
                exposure_ev,
                ..Output::default()
            }
            .validate()
        };
        let source = bound(min_ev).and_then(|()| bound(max_ev)).err();
        if source.is_some() || min_ev > max_ev {
            return Err(ExposureError::Range {
                min_ev,
                max_ev,
                source,
            });
        }
        if self.compensation_ev.abs() > MAX_EXPOSURE_EV {
            return Err(ExposureError::Compensation {
                compensation_ev: self.compensation_ev,
            });
        }
        if !(self.adaptation > 0.0 && self.adaptation <= 1.0) {
            return Err(ExposureError::Adaptation {
                adaptation: self.adaptation,
            });
        }
        let (low_fraction, high_fraction) = (self.low_fraction, self.high_fraction);
        if !(0.0 <= low_fraction && low_fraction < high_fraction && high_fraction <= 1.0) {
            return Err(ExposureError::Fractions {
                low_fraction,
                high_fraction,
            });
        }
        Ok(())
    }

    /// The log2 luminance the metered mean is exposed to:
    /// `log2(MID_GREY) + compensation_ev` (WGSL `ExposureParams::key_log2`).
    pub fn key_log2(&self) -> f32 {
        MID_GREY.log2() + self.compensation_ev
    }

    /// The exposure after one frame from `previous_ev` towards `target_ev`
    /// (`jump`: straight there), as the reduce pass moves it.
    pub fn adapt(&self, previous_ev: f32, target_ev: f32, jump: bool) -> f32 {
        if jump {
            target_ev
        } else {
            previous_ev + (target_ev - previous_ev) * self.adaptation
        }
    }
}

/// The bin a pixel of resolved, premultiplied HDR radiance `color` is
/// metered into, `covered` if any depth sample is nearer than the far
/// plane: the CPU twin of `luminance_bin` in `wgsl/exposure.wgsl`.
pub fn luminance_bin(color: Vec4, covered: bool) -> usize {
    if !covered || color.w <= 0.0 {
        return 0;
    }
    let luminance = luminance(color.truncate() / color.w);
    let lowest = MIN_LOG2_LUMINANCE as f32;
    // NaN too, as the shader's negated comparison.
    if luminance.is_nan() || luminance <= lowest.exp2() {
        return 0;
    }
    let range = (MAX_LOG2_LUMINANCE - MIN_LOG2_LUMINANCE) as f32;
    let t = (luminance.log2() - lowest) / range;
    ((t * (EXPOSURE_BINS - 1) as f32) as usize + 1).clamp(1, EXPOSURE_BINS - 1)
}

/// The log2 luminance at the centre of bin `bin` (1 or more).
pub fn bin_centre_log2(bin: usize) -> f32 {
    let range = (MAX_LOG2_LUMINANCE - MIN_LOG2_LUMINANCE) as f32;
    MIN_LOG2_LUMINANCE as f32 + (bin as f32 - 0.5) / (EXPOSURE_BINS - 1) as f32 * range
}

/// The luminance histogram of one frame: the CPU twin of the histogram
/// pass and, with [`Self::target_ev`], of the reduce pass.
#[derive(Clone, Debug, PartialEq)]
pub struct LuminanceHistogram {
    /// Pixels per bin ([`luminance_bin`]).
    pub bins: [u32; EXPOSURE_BINS],
}

impl LuminanceHistogram {
    /// The histogram of resolved, premultiplied HDR pixels, each with
    /// whether the scene covers it (channels past 65504, or NaN, count as
    /// 65504, as the passes read them).
    pub fn of_pixels(pixels: impl IntoIterator<Item = (Vec4, bool)>) -> Self {
        let mut bins = [0; EXPOSURE_BINS];
        for (pixel, covered) in pixels {
            // `f32::min` takes the number over NaN, as the shader's select.
            bins[luminance_bin(pixel.min(Vec4::splat(65504.0)), covered)] += 1;
        }
        Self { bins }
    }

    /// The exposure the reduce pass aims at (see the module docs), or
    /// `None` when no pixel is metered. Summed in the pass's order.
    pub fn target_ev(&self, settings: &AutoExposure) -> Option<f32> {
        let total: u32 = self.bins[1..].iter().sum();
        if total == 0 {
            return None;
        }
        let low = total as f32 * settings.low_fraction;
        let high = total as f32 * settings.high_fraction;
        let (mut below, mut sum, mut weight) = (0.0_f32, 0.0_f32, 0.0_f32);
        for (bin, &count) in self.bins.iter().enumerate().skip(1) {
            let above = below + count as f32;
            let kept = (above.min(high) - below.max(low)).max(0.0);
            sum += kept * bin_centre_log2(bin);
            weight += kept;
            below = above;
        }
        let mean = sum / weight.max(f32::MIN_POSITIVE);
        let target = settings.key_log2() - mean;
        Some(target.clamp(settings.min_ev, settings.max_ev))
    }
}

/// Rec. 709 luminance of linear RGB (WGSL `luminance` in
/// `wgsl/exposure.wgsl`).
pub fn luminance(rgb: Vec3) -> f32 {
    rgb.dot(LUMINANCE_WEIGHTS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_image_is_exposed_to_mid_grey() {
        let settings = AutoExposure::default();
        for value in [0.001_f32, 0.18, 1.0, 700.0] {
            let pixels = std::iter::repeat_n((Vec4::new(value, value, value, 1.0), true), 100);
            let target = LuminanceHistogram::of_pixels(pixels)
                .target_ev(&settings)
                .expect("metered");
            // Within the bin's half width (36 / 255 / 2 EV).
            let exposed = value * target.exp2();
            assert!(
                (exposed.log2() - MID_GREY.log2()).abs() < 0.08,
                "{value}: {exposed}"
            );
        }
        let uncovered = LuminanceHistogram::of_pixels([
            (Vec4::ZERO, true),
            (Vec4::new(1.0, 1.0, 1.0, 0.0), true),
            (Vec4::ONE, false),
        ]);
        assert_eq!(uncovered.target_ev(&settings), None);
    }

    #[test]
    fn fractions_leave_out_the_extremes_and_adaptation_moves_part_way() {
        let settings = AutoExposure::default();
        // 10% of pixels at 10^4 and 90% at 1: the bright tenth is left out.
        let mut pixels = vec![(Vec4::ONE, true); 90];
        pixels.extend(std::iter::repeat_n(
            (Vec4::new(1e4, 1e4, 1e4, 1.0), true),
            10,
        ));
        let target = LuminanceHistogram::of_pixels(pixels.clone())
            .target_ev(&settings)
            .unwrap();
        assert!((target - MID_GREY.log2()).abs() < 0.08, "{target}");
        let everything = AutoExposure {
            low_fraction: 0.0,
            high_fraction: 1.0,
            ..settings
        };
        let darker = LuminanceHistogram::of_pixels(pixels)
            .target_ev(&everything)
            .unwrap();
        assert!(darker < target - 1.0, "{darker} {target}");
        let slow = AutoExposure {
            adaptation: 0.25,
            ..settings
        };
        assert_eq!(slow.adapt(0.0, 4.0, false), 1.0);
        assert_eq!(slow.adapt(0.0, 4.0, true), 4.0);
    }

    #[test]
    fn bad_settings_are_typed_errors() {
        let good = AutoExposure::default();
        assert_eq!(good.validate(), Ok(()));
        let cases = [
            AutoExposure {
                min_ev: f32::NAN,
                ..good
            },
            AutoExposure {
                min_ev: 2.0,
                max_ev: 1.0,
                ..good
            },
            AutoExposure {
                max_ev: 126.0,
                ..good
            },
            AutoExposure {
                compensation_ev: 200.0,
                ..good
            },
            AutoExposure {
                adaptation: 0.0,
                ..good
            },
            AutoExposure {
                low_fraction: 0.5,
                high_fraction: 0.5,
                ..good
            },
        ];
        for bad in cases {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
    }
}
