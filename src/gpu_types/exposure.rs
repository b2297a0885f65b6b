//! Automatic exposure's twins (`wgsl/exposure.wgsl`; see
//! [`crate::exposure`]).

use bytemuck::{Pod, Zeroable};
use encase::ShaderType;

/// The exposure passes' parameters (WGSL `ExposureParams`), from
/// [`crate::exposure::AutoExposure`]. A uniform buffer, laid out by
/// `encase`.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct GpuExposureParams {
    /// Darkest exposure (EV).
    pub min_ev: f32,
    /// Brightest exposure (EV).
    pub max_ev: f32,
    /// `log2(MID_GREY) + compensation_ev`: the log2 luminance the metered
    /// mean is exposed to.
    pub key_log2: f32,
    /// Share of the way to the metered exposure moved per frame.
    pub adaptation: f32,
    /// Share of metered pixels, darkest first, left out.
    pub low_fraction: f32,
    /// Share of metered pixels, darkest first, up to which the mean runs.
    pub high_fraction: f32,
    /// 1: straight to the metered exposure (the first frame after a change).
    pub jump: u32,
}

impl GpuExposureParams {
    /// Bytes of the WGSL struct: the uniform buffer's size.
    pub const SIZE_BYTES: u64 = <Self as encase::ShaderSize>::SHADER_SIZE.get();
}

/// The exposure the reduce pass wrote (WGSL `ExposureState`, 16 bytes): a
/// storage buffer kept across frames (adaptation starts from it), whose
/// `exposure_scale` the output pass copies into its uniforms.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuExposureState {
    /// The exposure in use (EV).
    pub exposure_ev: f32,
    /// `2^exposure_ev`.
    pub exposure_scale: f32,
    /// The exposure metered this frame, which `exposure_ev` moves towards.
    pub target_ev: f32,
    /// Pixels metered this frame (not in bin 0).
    pub metered_pixels: u32,
}
