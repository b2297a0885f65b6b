//! Automatic exposure's settings on the renderer (`crate::exposure`, the
//! pass in `passes::exposure`).

use crate::errors::Error;
use crate::exposure::AutoExposure;
use crate::renderer::Renderer;

impl Renderer {
    /// Turns automatic exposure on with `settings`, or off (`None`) for the
    /// next frames. While on, each lit frame meters its HDR target and
    /// exposes by what it metered, adapting from frame to frame (see
    /// [`crate::exposure`]); [`crate::output::Output::exposure_ev`] is
    /// then unused (the tone-mapping curve still applies). The first frame
    /// after a call jumps to the metered exposure. Off by default. Refuses
    /// settings [`AutoExposure::validate`] refuses, keeping those in use.
    pub fn set_auto_exposure(&mut self, settings: Option<&AutoExposure>) -> Result<(), Error> {
        if let Some(settings) = settings {
            settings.validate()?;
        }
        self.auto_exposure = settings.copied();
        self.exposure_jump = true;
        Ok(())
    }

    /// The automatic exposure settings in use, while on.
    pub fn auto_exposure(&self) -> Option<&AutoExposure> {
        self.auto_exposure.as_ref()
    }

    /// The buffer holding the exposure the last metered frame chose (one
    /// [`crate::gpu_types::GpuExposureState`]), once automatic exposure has
    /// run: for tests and tools that read it back.
    pub fn exposure_state_buffer(&self) -> Option<&wgpu::Buffer> {
        self.passes.exposure.as_ref().map(|e| e.state_buffer())
    }
}
