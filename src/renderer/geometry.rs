//! The geometry switch: forward shading or the visibility buffer
//! ([`Geometry`], `src/passes/visibility.rs`), and where the visibility
//! buffer can run.

use crate::capabilities::tier::{Tier, VISIBILITY_STORAGE_BUFFERS_PER_STAGE};
use crate::debug::DebugView;
use crate::errors::{Error, RenderError};
use crate::output::{HDR_FORMAT, Msaa};
use crate::passes::compute_raster;
use crate::passes::prepass::DepthPrepass;
use crate::passes::visibility::MaterialPass;
use crate::renderer::{ComputeRaster, Geometry, Renderer, RendererConfig};

/// Whether a renderer of `tier` at `msaa` on `device` can run the
/// visibility buffer: tier A, 1× MSAA, `Features::PRIMITIVE_INDEX` and
/// [`VISIBILITY_STORAGE_BUFFERS_PER_STAGE`] storage buffers in a stage,
/// plus the `heap_buffers` the heap's group binds to fragments (the paged
/// heap's map and texture feedback).
pub(super) fn visibility_capable(
    device: &wgpu::Device,
    (tier, msaa): (Tier, Msaa),
    heap_buffers: u32,
) -> bool {
    tier == Tier::A
        && msaa == Msaa::X1
        && device.features().contains(wgpu::Features::PRIMITIVE_INDEX)
        && device.limits().max_storage_buffers_per_shader_stage
            >= VISIBILITY_STORAGE_BUFFERS_PER_STAGE + heap_buffers
}

/// Whether the HDR target is made for the compute material pass (storage
/// usage): [`MaterialPass::Compute`] chosen, the visibility buffer able to
/// run (`visibility`: [`visibility_capable`], so tier A at 1× MSAA) and
/// the adapter able to store into [`HDR_FORMAT`]; else the material pass
/// is the fragment one.
pub(super) fn compute_material(
    adapter: &wgpu::Adapter,
    config: &RendererConfig,
    visibility: bool,
) -> bool {
    let usages = adapter
        .get_texture_format_features(HDR_FORMAT)
        .allowed_usages;
    config.material_pass == MaterialPass::Compute
        && visibility
        && usages.contains(wgpu::TextureUsages::STORAGE_BINDING)
}

/// Refuses a compute-raster threshold that is NaN or negative
/// ([`crate::RendererConfig::raster_threshold`]): no instance's size
/// compares below NaN, and a negative size says nothing 0 does not.
pub(super) fn check_raster_threshold(pixels: f32) -> Result<(), RenderError> {
    if pixels.is_nan() || pixels < 0.0 {
        return Err(RenderError::RasterThreshold { pixels });
    }
    Ok(())
}

impl Renderer {
    /// Chooses how the next frames shade the camera's opaque and masked
    /// surfaces ([`crate::RendererConfig::geometry`]). The visibility buffer
    /// runs where it can ([`Self::geometry`]); elsewhere the frame draws
    /// forward.
    pub fn set_geometry(&mut self, geometry: Geometry) {
        self.geometry.0 = geometry;
    }

    /// What the next frame runs: [`Geometry::Visibility`] where it was
    /// chosen and the renderer can (tier A, 1× MSAA, a device with
    /// `Features::PRIMITIVE_INDEX` and enough storage buffers per stage),
    /// for every drawn view but the draw view (the material pass shades
    /// the others, `src/debug.rs`), without ray-query shadows and without
    /// cluster culling (`src/passes/visibility.rs` says why); else
    /// [`Geometry::Forward`] (the draw view, the traced views, tiers B and
    /// C, 4× MSAA, cluster culling on).
    pub fn geometry(&self) -> Geometry {
        let view = self.debug.view;
        let shaded = view != DebugView::DrawIndex && !view.traces_rays();
        let visibility = self.geometry == (Geometry::Visibility, true);
        let clusters = self.passes.cull.cluster_culling_active();
        if visibility && shaded && !self.ray_query_shadows && !clusters {
            Geometry::Visibility
        } else {
            Geometry::Forward
        }
    }

    /// Builds the pre-pass the first time a frame needs it: the depth
    /// pre-pass while it is on, the visibility pass while the visibility
    /// buffer runs (the pre-pass with an id target); made again when that
    /// choice changes.
    pub(super) fn ensure_depth_prepass(&mut self) {
        let visibility = self.geometry() == Geometry::Visibility;
        let wanted = self.depth_prepass || visibility;
        let built = self.passes.prepass.as_ref().map(DepthPrepass::visibility);
        if !wanted || built == Some(visibility) {
            self.ensure_compute_raster();
            return;
        }
        let layouts = (self.heap.layout(), self.passes.draw.scene_layout());
        let count_in_buffer = self.config.indirect == crate::IndirectMode::Count;
        let (device, heap, msaa) = (&self.device, self.heap.heap_layout(), self.config.msaa);
        let prepass = DepthPrepass::new(device, heap, layouts, (msaa, visibility), count_in_buffer);
        self.passes.prepass = Some(prepass);
        self.ensure_compute_raster();
    }

    /// Chooses the visibility buffer's compute rasteriser for the next
    /// frames ([`crate::RendererConfig::compute_raster`]); a path the device
    /// lacks falls back ([`ComputeRaster::on`]; [`Self::compute_raster`]
    /// says what runs).
    pub fn set_compute_raster(&mut self, raster: ComputeRaster) {
        self.config.compute_raster = raster;
    }

    /// Sets the projected size in pixels below which instances go to the
    /// compute rasteriser ([`crate::RendererConfig::raster_threshold`];
    /// `f32::INFINITY`: every instance it can take). Refuses NaN and
    /// negative sizes ([`RenderError::RasterThreshold`]), keeping the
    /// threshold in use.
    pub fn set_raster_threshold(&mut self, pixels: f32) -> Result<(), Error> {
        check_raster_threshold(pixels)?;
        self.config.raster_threshold = pixels;
        Ok(())
    }

    /// The compute rasteriser's threshold in use, in pixels
    /// ([`Self::set_raster_threshold`]).
    pub fn raster_threshold(&self) -> f32 {
        self.config.raster_threshold
    }

    /// How the visibility buffer's material pass runs (while it runs,
    /// [`Self::geometry`]): [`MaterialPass::Compute`] (the default) where
    /// chosen and the renderer can run the visibility buffer and store
    /// into its HDR target, else [`MaterialPass::Fragment`] (4× MSAA,
    /// tiers B and C).
    pub fn material_pass(&self) -> MaterialPass {
        match self.hdr.storage() {
            true => MaterialPass::Compute,
            false => MaterialPass::Fragment,
        }
    }

    /// What the next frame's visibility pass rasterises by compute:
    /// [`ComputeRaster::Off`] unless the visibility buffer runs
    /// ([`Self::geometry`]), else the chosen path as the device allows it
    /// ([`ComputeRaster::on`]).
    pub fn compute_raster(&self) -> ComputeRaster {
        if self.geometry() == Geometry::Visibility {
            self.config.compute_raster.on(self.device.features())
        } else {
            ComputeRaster::Off
        }
    }

    /// The compute rasteriser's values of the last frame on the buffer
    /// path (8 bytes a pixel, row by row: `!id` then `!depth_bits`, 0
    /// where empty; `src/passes/compute_raster/`), once it ran.
    pub fn compute_raster_buffer(&self) -> Option<&wgpu::Buffer> {
        let prepass = self.passes.prepass.as_ref()?;
        prepass.compute_raster()?.target_buffer()
    }

    /// The frame uniforms' `raster` for a target of `size` and
    /// `object_slots` object slots: the size, the threshold and the item
    /// budget while the compute rasteriser runs in this frame's visibility
    /// pass (the cull pass then lists the instances it takes apart from the
    /// draws, `wgsl/cull_raster.wgsl`), else zero (it lists none).
    pub(super) fn raster_uniform(&self, size: (u32, u32), object_slots: u32) -> glam::Vec4 {
        let runs = self
            .passes
            .prepass
            .as_ref()
            .is_some_and(|p| p.visibility() && p.compute_raster().is_some());
        let threshold = self.config.raster_threshold;
        if !runs
            || self.geometry() != Geometry::Visibility
            || compute_raster::target_bytes(&self.device, size).is_none()
            || threshold.is_nan()
        {
            return glam::Vec4::ZERO;
        }
        let budget = compute_raster::item_budget(&self.device, object_slots);
        glam::Vec4::new(
            size.0 as f32,
            size.1 as f32,
            threshold.max(0.0),
            budget as f32,
        )
    }

    /// Builds, rebuilds or drops the pre-pass's compute rasteriser as
    /// [`Self::compute_raster`] says.
    fn ensure_compute_raster(&mut self) {
        let path = self.compute_raster();
        if let Some(prepass) = self.passes.prepass.as_mut() {
            prepass.set_compute_raster(&self.device, path);
        }
    }

    /// Whether a pre-pass runs this frame (the depth pre-pass or the
    /// visibility pass).
    pub(super) fn prepass_runs(&self) -> bool {
        self.depth_prepass || self.geometry() == Geometry::Visibility
    }

    /// The last visibility pass's id target (`Rg32Uint`: object slot + 1,
    /// arena triangle with the late and compute bits,
    /// [`crate::gpu_types::VISIBILITY_TRIANGLE_MASK`]; see
    /// `src/passes/visibility.rs`), once one ran.
    pub fn visibility_ids_texture(&self) -> Option<&wgpu::Texture> {
        self.passes
            .prepass
            .as_ref()
            .and_then(DepthPrepass::ids_texture)
    }
}
