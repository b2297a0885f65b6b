//! What the GPU reports of a finished frame ([`GpuFrameStats`]), as
//! `src/readback.rs` reads it back: counts of each cull phase, pass times,
//! the light lists' fill, each shadow cascade's casters.

use crate::gpu_types::ClusterStats;
use crate::shadows::MAX_CASCADES;

/// What the GPU reported for one finished frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuFrameStats {
    /// The frame these numbers belong to.
    pub frame_index: u64,
    /// Indirect draws issued (both occlusion phases).
    pub draws: u32,
    /// Instances inside the camera's frustum: drawn early, drawn late,
    /// drawn by the compute rasteriser (`src/passes/compute_raster/`),
    /// occluded or covering no sample (with occlusion culling off, all
    /// drawn but the small ones).
    pub visible_instances: u32,
    /// Instances the early occlusion phase's hardware draws drew (seen last
    /// frame); with occlusion culling off, every instance drawn. The
    /// compute rasteriser's are not in the draws, nor here or in
    /// `late_instances` and `triangles`.
    pub early_instances: u32,
    /// Instances the late occlusion phase drew (newly seen, blended ones
    /// included); 0 with occlusion culling off.
    pub late_instances: u32,
    /// Instances in the frustum that the depth pyramid hid: not drawn.
    pub occluded_instances: u32,
    /// Instances in the camera's frustum whose projected bounds hold no
    /// sample (small-object culling): not drawn (counted in
    /// `visible_instances`).
    pub small_instances: u32,
    /// Triangles submitted (both phases).
    pub triangles: u64,
    /// Cull pass GPU time (the early phase's with occlusion culling), if
    /// timestamp queries exist.
    pub cull_ms: Option<f64>,
    /// Depth pyramid build GPU time, if timestamp queries exist and the
    /// frame culled occlusion.
    pub pyramid_ms: Option<f64>,
    /// Late cull GPU time, if timestamp queries exist and the frame culled
    /// occlusion.
    pub late_cull_ms: Option<f64>,
    /// Draw pass GPU time (both phases), if timestamp queries exist.
    pub draw_ms: Option<f64>,
    /// Depth pre-pass GPU time (both phases), if timestamp queries exist
    /// and the frame drew one ([`crate::Renderer::set_depth_prepass`]).
    pub prepass_ms: Option<f64>,
    /// Output pass (resolve, exposure, tone mapping) GPU time, if
    /// timestamp queries exist.
    pub output_ms: Option<f64>,
    /// Light pass GPU time, if timestamp queries exist and the frame had
    /// live lights (else the pass is not recorded).
    pub lights_ms: Option<f64>,
    /// The light pass's cluster lists, if the frame had live lights.
    pub light_lists: Option<LightListStats>,
    /// Animation playback pass GPU time (sampling, blending, composing,
    /// palettes), if timestamp queries exist and the frame played an
    /// animation (else the pass is not recorded).
    pub animation_ms: Option<f64>,
    /// Shadow pass GPU time, if timestamp queries exist and the frame drew
    /// shadow cascades: from its first shadow view's pass to its last,
    /// with the cascades' pyramids and late culls between them.
    pub shadows_ms: Option<f64>,
    /// From the first timed pass's beginning to the last one's end, if
    /// timestamp queries exist: the GPU's time for the frame's passes with
    /// the gaps between them (barriers, pass changes, untimed passes).
    /// Less than the frame's submit-to-completion time by the uploads
    /// before the first pass, the submission and the wait.
    pub span_ms: Option<f64>,
    /// From the frame's start on the GPU (an empty pass recorded before
    /// its uploads) to its first timed pass, if timestamp queries exist and
    /// the frame drew: the GPU work the frame records before its passes
    /// (uploads, copies). Work wgpu submits ahead of the frame's command
    /// buffer (`queue.write_*`) is not in it.
    pub lead_ms: Option<f64>,
    /// The sun's shadow cascades the frame drew (0 with shadows off).
    pub cascades: u32,
    /// Each of those cascades' casters (the first `cascades` entries).
    pub cascade_casters: [CascadeCasterStats; MAX_CASCADES as usize],
    /// The camera's cluster culling, both occlusion phases summed (`None`
    /// while it is off).
    pub clusters: Option<ClusterStats>,
}

/// One shadow cascade's casters in a finished frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CascadeCasterStats {
    /// Casters drawn into its layer (both occlusion phases).
    pub drawn: u32,
    /// Of those, drawn by its late phase (0 while the cascades are not
    /// culled by occlusion, [`crate::Renderer::set_cascade_occlusion`]).
    pub late: u32,
    /// Casters in its box that the pyramid of its early depth hid: not
    /// drawn.
    pub occluded: u32,
}

/// How full a frame's cluster lists were (`passes/lights.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LightListStats {
    /// Clusters in the grid.
    pub clusters: u32,
    /// Clusters with at least one light.
    pub lit_clusters: u32,
    /// The longest cluster list (before any cut).
    pub max_lights_per_cluster: u32,
    /// References all lists needed together.
    pub references_needed: u32,
    /// References the index list held: the lists were cut when fewer than
    /// needed ([`Self::overflowed`]).
    pub references_capacity: u32,
    /// Screen tiles whose column list (the light pass's first cull) had
    /// more lights than it holds: their clusters tested every light
    /// (slower, nothing lost).
    pub overflowed_columns: u32,
    /// The most lights any tile's column held.
    pub max_lights_per_column: u32,
}

impl LightListStats {
    /// Whether the lists needed more references than the list held, so
    /// that the later clusters' lists were cut.
    pub fn overflowed(&self) -> bool {
        self.references_needed > self.references_capacity
    }

    /// Mean lights per cluster with at least one (0 without any).
    pub fn mean_lights_per_lit_cluster(&self) -> f64 {
        if self.lit_clusters == 0 {
            0.0
        } else {
            f64::from(self.references_needed) / f64::from(self.lit_clusters)
        }
    }
}
