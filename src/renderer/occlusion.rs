//! The culling switches (occlusion, small objects), the depth pre-pass that
//! cuts overdraw, and what tests and tools read of them (see
//! `src/passes/occlusion.rs`, `src/small_objects.rs`,
//! `src/passes/prepass.rs`).

use crate::capabilities::tier::Tier;
use crate::debug::DebugView;
use crate::renderer::Renderer;

impl Renderer {
    /// Turns the camera's cluster culling on or off for the next frames
    /// (off by default, [`crate::RendererConfig::cluster_culling`]; every
    /// tier: see [`Self::cluster_culling_active`]). The image is the same
    /// either way.
    pub fn set_cluster_culling(&mut self, enabled: bool) {
        self.passes.cull.set_cluster_culling(enabled);
    }

    /// Whether the camera's draws go through cluster culling: the setting
    /// is on (the frame then draws forward: [`Self::geometry`]). On tiers B and C
    /// ([`crate::IndirectMode::Plain`]) triangle filtering then runs too
    /// ([`Self::triangle_filtering_active`]): its packed draws are how
    /// those tiers draw clusters (`src/passes/triangle_filter.rs`).
    pub fn cluster_culling_active(&self) -> bool {
        self.passes.cull.cluster_culling_active()
    }

    /// Turns triangle filtering on or off for the next frames
    /// ([`crate::RendererConfig::triangle_filtering`]; it runs only while
    /// cluster culling is active). The image is the same either way.
    pub fn set_triangle_filtering(&mut self, enabled: bool) {
        self.config.triangle_filtering = enabled;
    }

    /// Whether the camera's cluster draws go through triangle filtering:
    /// cluster culling is active and the setting is on, or the draws have
    /// no GPU count (tiers B and C, where the filter's packed draws are the
    /// cluster path).
    pub fn triangle_filtering_active(&self) -> bool {
        (self.config.triangle_filtering || self.config.indirect == crate::IndirectMode::Plain)
            && self.cluster_culling_active()
            && self.tables.arena.storage_indices()
    }

    /// Turns two-phase occlusion culling of the camera on or off for the
    /// next frames (on by default, [`crate::RendererConfig::occlusion`]).
    /// While on, the depth target needs `TEXTURE_BINDING`
    /// ([`crate::RenderError::DepthNotSampleable`] otherwise). The image is
    /// the same either way; only what is drawn to make it changes.
    pub fn set_occlusion(&mut self, enabled: bool) {
        self.occlusion_culling = enabled;
    }

    /// Whether occlusion culling is on.
    pub fn occlusion(&self) -> bool {
        self.occlusion_culling
    }

    /// Turns occlusion culling of the sun's shadow cascades on or off for
    /// the next frames (on by default): while the camera's occlusion
    /// culling runs, on tiers A and B, each cascade draws first the casters
    /// it kept last frame, then tests the rest against the depth pyramid
    /// of what it drew and draws those not hidden
    /// (`src/passes/occlusion.rs`). The shadow map is the same either way.
    pub fn set_cascade_occlusion(&mut self, enabled: bool) {
        self.cascade_occlusion = enabled;
    }

    /// Whether occlusion culling of the shadow cascades is on (it acts with
    /// the camera's, on tiers A and B).
    pub fn cascade_occlusion(&self) -> bool {
        self.cascade_occlusion
    }

    /// Whether the next frame culls the cascades by occlusion: on, with the
    /// camera's occlusion culling (its early phase), not on tier C.
    pub(crate) fn cascade_occlusion_active(&self) -> bool {
        self.cascade_occlusion && self.occlusion_active() && self.tier != Tier::C
    }

    /// Turns small-object culling of the camera on or off for the next
    /// frames (on by default, [`crate::RendererConfig::small_object_culling`]):
    /// an instance whose projected bounds hold no pixel centre is not drawn
    /// ([`crate::small_objects`]). The image is the same either way. It
    /// applies at 1× MSAA only (4× samples sit where the implementation
    /// puts them).
    pub fn set_small_object_culling(&mut self, enabled: bool) {
        self.small_object_culling = enabled;
    }

    /// Whether small-object culling is on (it acts at 1× MSAA only).
    pub fn small_object_culling(&self) -> bool {
        self.small_object_culling
    }

    /// Turns the camera's depth pre-pass on or off for the next frames
    /// (off by default, [`crate::RendererConfig::depth_prepass`]): the
    /// opaque and alpha-masked draws' depth is drawn first, and the draw
    /// pass then shades only the nearest surface of each sample
    /// (`src/passes/prepass.rs`). It pays where many surfaces cover a
    /// pixel and shading is dear (many lights); it costs one more pass over
    /// the vertices. The image is the same either way (up to exactly
    /// coplanar surfaces). Traced views ignore it.
    pub fn set_depth_prepass(&mut self, enabled: bool) {
        self.depth_prepass = enabled;
    }

    /// Whether the depth pre-pass is on.
    pub fn depth_prepass(&self) -> bool {
        self.depth_prepass
    }

    /// The frame uniforms' `pixel_grid` for a target of `size`: its size
    /// and margin while small-object culling acts, else zero.
    pub(crate) fn pixel_grid(&self, size: (u32, u32)) -> glam::Vec4 {
        if self.small_object_culling && self.config.msaa == crate::output::Msaa::X1 {
            let margin = crate::small_objects::SMALL_OBJECT_MARGIN_PIXELS;
            glam::Vec4::new(size.0 as f32, size.1 as f32, margin, 0.0)
        } else {
            glam::Vec4::ZERO
        }
    }

    /// Whether the next frame culls occlusion: on, and drawing (the traced
    /// views draw nothing), and not the draw view (its ids name entries of
    /// the one phase's draws, [`Self::indirect_draws_buffer`]).
    pub(crate) fn occlusion_active(&self) -> bool {
        let view = self.debug.view;
        self.occlusion_culling && !view.traces_rays() && view != DebugView::DrawIndex
    }

    /// The camera's visibility bits (one per object slot, in `u32` words,
    /// slot `s` at bit `s % 32` of word `s / 32`): whether the last late
    /// phase found the object in the frustum and not hidden.
    pub fn visibility_buffer(&self) -> &wgpu::Buffer {
        &self.occlusion.visibility
    }

    /// The depth pyramid the last late phase tested against (`R32Float`,
    /// the depth target's size, a full mip chain; see
    /// [`crate::occlusion::DepthPyramid`]), once one was built.
    pub fn depth_pyramid_texture(&self) -> Option<&wgpu::Texture> {
        self.occlusion.pyramid.texture()
    }

    /// The late phase's cull counters (its `GpuCullHeader` at offset 0)
    /// and visible list, once occlusion culling has run.
    pub fn late_cull_buffers(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer)> {
        self.occlusion
            .late
            .as_ref()
            .map(|late| (&late.counters, &late.visible_instances))
    }
}
