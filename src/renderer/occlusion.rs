//! Occlusion culling's switch and what tests and tools read of it (see
//! `src/passes/occlusion.rs`).

use crate::debug::DebugView;
use crate::renderer::Renderer;

impl Renderer {
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
