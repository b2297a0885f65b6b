//! The renderer's sizes that follow its settings or the frame's target,
//! checked against the device's limits (`src/capabilities/checked.rs`)
//! before anything is created or recorded: the cluster grid's dispatches
//! and buffers when the renderer is made, and per frame the HDR target,
//! the depth pyramid and its dispatches, and the path tracer's
//! accumulation. The buffers sized by the capacities alone are checked
//! once, by the device check over `Capacities::buffers` (`src/limits.rs`).

use crate::capabilities::CapabilityError;
use crate::capabilities::checked::{BufferBinding, check_buffer, check_dispatch, check_texture_2d};
use crate::debug::DebugView;
use crate::lighting::ClusterGrid;
use crate::passes::cull_buffers::{cluster_draws_capacity, cluster_draws_size_bytes};
use crate::passes::pyramid::PYRAMID_WORKGROUP;
use crate::passes::rays::accumulation_size_bytes;
use crate::passes::triangle_filter::filtered_draws_size_bytes;
use crate::renderer::Renderer;

/// The light pass's dispatches over `grid` (a workgroup per cluster) and
/// the cluster buffers it sizes, against `limits`.
pub(super) fn check_grid(limits: &wgpu::Limits, grid: &ClusterGrid) -> Result<(), CapabilityError> {
    let workgroups = [grid.tiles_x, grid.tiles_y, grid.depth_slices];
    check_dispatch(
        limits,
        "the light pass (one workgroup per cluster)",
        workgroups,
    )?;
    for buffer in crate::Capacities::cluster_buffers(grid) {
        check_buffer(limits, buffer.label, buffer.binding, buffer.size_bytes)?;
    }
    Ok(())
}

impl Renderer {
    /// Checks what a frame into a target of `size` pixels would create
    /// or dispatch with the settings in use; nothing is recorded on error.
    pub(super) fn check_frame_limits(&self, size: (u32, u32)) -> Result<(), CapabilityError> {
        let limits = self.device.limits();
        check_texture_2d(&limits, "the HDR target", size, 1)?;
        if self.cluster_culling_active() {
            let draws = cluster_draws_capacity(self.tables.arena.instance_clusters());
            let bytes = cluster_draws_size_bytes(draws);
            check_buffer(
                &limits,
                "unbound cluster draws",
                BufferBinding::Storage,
                bytes,
            )?;
        }
        if self.triangle_filtering_active() {
            let draws = cluster_draws_capacity(self.tables.arena.instance_clusters());
            let per_bucket = draws.min(u64::from(u32::MAX)) as u32;
            let bytes = filtered_draws_size_bytes(per_bucket);
            check_buffer(
                &limits,
                "unbound filtered draws",
                BufferBinding::Storage,
                bytes,
            )?;
            // The filter binds the arena's index buffer as storage.
            let indices = self.tables.arena.index_buffer().size();
            check_buffer(
                &limits,
                "unbound arena indices",
                BufferBinding::Storage,
                indices,
            )?;
        }
        if self.occlusion_active() {
            check_texture_2d(&limits, "the depth pyramid", size, 1)?;
            let groups = |extent: u32| extent.div_ceil(PYRAMID_WORKGROUP);
            let workgroups = [groups(size.0), groups(size.1), 1];
            check_dispatch(&limits, "the depth pyramid's build", workgroups)?;
        }
        if self.debug.view == DebugView::PathTraced && self.passes.rays.is_some() {
            let pixels = u64::from(size.0) * u64::from(size.1);
            check_buffer(
                &limits,
                "unbound path-traced accumulation",
                BufferBinding::Storage,
                accumulation_size_bytes(pixels),
            )?;
        }
        Ok(())
    }
}
