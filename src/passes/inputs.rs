//! What every pass of one frame reads, whichever pass it is, and what the
//! camera's pass (drawn or traced) hands on ([`DrawOutput`]): the device,
//! the tables as this frame's upload left them, the views, the heap's and
//! the environment's bind groups, the light table, the frame's target and
//! the HDR target. The recipe (`src/renderer/frame.rs`) makes one
//! [`FrameInputs`] after the upload and hands it to each pass beside that
//! pass's own inputs and the outputs of the passes before it.

use crate::passes::GpuTables;
use crate::passes::PassStats;
use crate::passes::lights::LightInputs;
use crate::passes::output::HdrTarget;
use crate::passes::view::Views;
use crate::shaders::ShadowSource;
use crate::target::{FrameTarget, TargetView};

/// What every pass of one frame reads (see the module docs).
#[derive(Debug)]
pub(crate) struct FrameInputs<'a> {
    pub device: &'a wgpu::Device,
    /// The scene's tables on the GPU.
    pub tables: GpuTables<'a>,
    /// The camera, the shadow views and their cull and cluster buffers.
    pub views: &'a Views,
    /// Group 0 of every raster pass: the resource heap.
    pub heap: &'a wgpu::BindGroup,
    /// The environment's maps (group `prefilter::ENVIRONMENT_GROUP`).
    pub environment: &'a wgpu::BindGroup,
    /// The light table as the light pass and the shading read it.
    pub lights: LightInputs<'a>,
    /// Where the frame is drawn (the id views clear to "nothing drawn").
    pub target: &'a FrameTarget<'a>,
    /// The HDR target, made the size of `target`'s colour.
    pub hdr: &'a HdrTarget,
}

/// What a pass that shades the camera's view (the draw pass, or a traced
/// view in its place) leaves for the passes after it: the HDR target it
/// shaded, which the output pass resolves, and the depth it wrote, of
/// which the occlusion phase builds its pyramid.
pub(crate) struct DrawOutput<'a> {
    pub hdr: &'a HdrTarget,
    pub depth: &'a TargetView,
    pub stats: PassStats,
}

impl<'a> DrawOutput<'a> {
    pub fn new(frame: &FrameInputs<'a>, stats: PassStats) -> Self {
        Self {
            hdr: frame.hdr,
            depth: frame.target.depth,
            stats,
        }
    }
}

/// How the draw pass shades the sun's shadows, with what it binds at its
/// shadow group (`SHADOW_GROUP` in `src/passes/draw.rs`) for them.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SunShadows<'a> {
    /// No shadows: the variants without their code, nothing at group 2.
    Off,
    /// Shadow maps: the shadow map and the cascades' uniforms.
    Maps(&'a wgpu::BindGroup),
    /// Shadow rays through the TLAS: the ray tables.
    RayQuery(&'a wgpu::BindGroup),
}

impl<'a> SunShadows<'a> {
    /// Ray-query shadows where `ray_tables` are given, else shadow maps
    /// where `shadow_map` is, else none.
    pub fn choose(
        ray_tables: Option<&'a wgpu::BindGroup>,
        shadow_map: Option<&'a wgpu::BindGroup>,
    ) -> Self {
        match (ray_tables, shadow_map) {
            (Some(group), _) => SunShadows::RayQuery(group),
            (None, Some(group)) => SunShadows::Maps(group),
            (None, None) => SunShadows::Off,
        }
    }

    pub fn source(&self) -> ShadowSource {
        match self {
            SunShadows::Off => ShadowSource::Off,
            SunShadows::Maps(_) => ShadowSource::Maps,
            SunShadows::RayQuery(_) => ShadowSource::RayQuery,
        }
    }

    pub fn bind_group(&self) -> Option<&wgpu::BindGroup> {
        match self {
            SunShadows::Off => None,
            SunShadows::Maps(group) | SunShadows::RayQuery(group) => Some(group),
        }
    }
}
