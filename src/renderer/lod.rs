//! Level-of-detail selection's switch (see `src/lod/`, `wgsl/lod.wgsl`).

use glam::Vec4;

use crate::errors::Error;
use crate::lod::{LodSettings, lod_factor};
use crate::renderer::Renderer;

impl Renderer {
    /// Sets level-of-detail selection for the next frames (off by default,
    /// [`crate::RendererConfig::lod`]): with it on, the cull pass draws each
    /// instance of a mesh added with simplified levels
    /// ([`Self::add_mesh_with`]) with the coarsest level whose error stays
    /// under [`LodSettings::threshold_px`] pixels. Refuses a threshold that
    /// is NaN, infinite, zero or negative ([`crate::LodError`]), keeping
    /// the settings in use.
    pub fn set_lod(&mut self, settings: &LodSettings) -> Result<(), Error> {
        settings.validate()?;
        self.lod = *settings;
        Ok(())
    }

    /// The level-of-detail settings in use.
    pub fn lod(&self) -> &LodSettings {
        &self.lod
    }

    /// `FrameUniforms.lod` for a viewport `viewport_height` pixels tall:
    /// the cull camera's position (the frozen one, if any) and the factor
    /// of the level test; `None` while LOD is off.
    pub(crate) fn lod_uniform(&self, viewport_height: u32) -> Option<Vec4> {
        if !self.lod.enabled {
            return None;
        }
        let camera = self.debug.cull_camera.as_ref().unwrap_or(&self.camera);
        let k = lod_factor(camera, viewport_height, &self.lod);
        Some(camera.position.extend(k))
    }
}
