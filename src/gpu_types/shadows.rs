//! Shadows' twins (`ShadowUniforms` in `wgsl/types.wgsl`; see
//! [`crate::shadows`]): the cascades' and the shadowed spot lights'
//! uniforms, and their limits.

use encase::ShaderType;
use glam::{Mat4, Vec4};

/// What the cull pass and the shading read about the sun's shadow cascades
/// (WGSL `ShadowUniforms`): a uniform buffer laid out by `encase`. See
/// [`crate::shadows`].
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct GpuShadowUniforms {
    /// Each cascade's `clip_from_world` (orthographic, along the light).
    pub shadow_from_world: [Mat4; MAX_CASCADES as usize],
    /// Each cascade's six box planes ([`crate::camera::frustum_planes`]
    /// order), six per cascade; the cull pass tests casters against all
    /// but the near one.
    pub cascade_planes: [Vec4; 6 * MAX_CASCADES as usize],
    /// The far view depth of each cascade's slice (x: cascade 0, ...).
    pub split_depths: Vec4,
    /// The world size of one texel of each cascade.
    pub texel_world_sizes: Vec4,
    /// The camera's unit forward axis (xyz; w unused): view depth is
    /// `dot(p - camera_position, camera_forward)`.
    pub camera_forward: Vec4,
    /// Cascades culled and drawn (0: shadows off).
    pub cascade_count: u32,
    /// Side of the shadow map in texels.
    pub resolution: u32,
    /// [`crate::shadows::ShadowSettings::normal_offset_texels`].
    pub normal_offset_texels: f32,
    /// [`crate::shadows::ShadowSettings::depth_bias_texels`].
    pub depth_bias_texels: f32,
    /// Each shadowed spot light's `clip_from_world` (perspective), by its
    /// `GpuLight::shadow` index.
    pub spot_from_world: [Mat4; MAX_SPOT_SHADOWS as usize],
    /// Each spot view's six planes; casters are tested against all six.
    pub spot_planes: [[Vec4; 6]; MAX_SPOT_SHADOWS as usize],
    /// Each spot's `SpotShadow::texel_scale` (`src/shadows/spots.rs`),
    /// four a vector.
    pub spot_texel_scales: [Vec4; MAX_SPOT_SHADOWS as usize / 4],
    /// Spot lights culled and drawn (0: none, or shadows off).
    pub spot_count: u32,
}

impl GpuShadowUniforms {
    /// Bytes of the WGSL struct: the uniform buffer's size.
    pub const SIZE_BYTES: u64 = <Self as encase::ShaderSize>::SHADER_SIZE.get();
}

/// Most cascades a renderer draws (WGSL `MAX_CASCADES`).
pub const MAX_CASCADES: u32 = 4;
/// Most spot lights a renderer shadows (WGSL `MAX_SPOT_SHADOWS`): a
/// multiple of 4 (their texel sizes are packed in `vec4`s).
pub const MAX_SPOT_SHADOWS: u32 = 8;
/// [`super::GpuLight::shadow`] of a light without a spot shadow (WGSL
/// `NO_SPOT_SHADOW`).
pub const NO_SPOT_SHADOW: u32 = u32::MAX;
