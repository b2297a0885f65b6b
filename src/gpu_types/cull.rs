//! The cull pass's host-visible twins: its counters header, its phase
//! uniform and the blend sort's cap (`wgsl/cull.wgsl`).

use std::mem::offset_of;

use bytemuck::{Pod, Zeroable};

use super::BUCKETS;

/// The cull pass's counters header (WGSL `CullHeader`, 40 bytes), followed in
/// the same buffer by per-mesh visible counts and offsets. Read back with a
/// frame of latency for statistics.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuCullHeader {
    /// Indirect draws written.
    pub draw_count: u32,
    /// Visible instances.
    pub visible_instances: u32,
    /// Triangles drawn, low 32 bits.
    pub triangles_lo: u32,
    /// Triangles drawn, high 32 bits.
    pub triangles_hi: u32,
    /// Draws per pipeline bucket (the draw pass's counts).
    pub bucket_draws: [u32; BUCKETS as usize],
    /// Blended instances drawn one by one, exactly far to near (0 when more
    /// than [`BLEND_SORT_CAP`] were visible: per-mesh draws instead).
    pub sorted_blend_draws: u32,
    /// The late occlusion phase's region only: instances inside the
    /// frustum, not drawn early, that the depth pyramid hid (0 elsewhere).
    pub occluded_instances: u32,
    /// The camera's region in the frustum phase and the late phase's:
    /// instances in the frustum whose projected bounds hold no sample
    /// (small-object culling), not drawn (0 elsewhere).
    pub small_instances: u32,
}

impl GpuCullHeader {
    /// Byte offset of `bucket_draws[bucket]`: where the draw pass reads the
    /// draw count of pipeline bucket `bucket`.
    pub const fn bucket_draws_offset(bucket: u32) -> u64 {
        (offset_of!(Self, bucket_draws) + bucket as usize * size_of::<u32>()) as u64
    }

    /// Byte offset of `sorted_blend_draws`: the draw count of the sorted
    /// blended draws.
    pub const SORTED_BLEND_DRAWS_OFFSET: u64 = offset_of!(Self, sorted_blend_draws) as u64;
}

/// Which phase a cull dispatch runs (WGSL `CullPhase`, 16 bytes; group 1
/// of the cull pass, with the depth pyramid): [`CULL_PHASE_FRUSTUM`],
/// [`CULL_PHASE_EARLY`] or [`CULL_PHASE_LATE`], and the late phase's view.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuCullPhase {
    /// One of the `CULL_PHASE_*` constants.
    pub phase: u32,
    /// The late phase's one view: 0 the camera, `1 + c` shadow cascade `c`
    /// (culled against its own previous depth, `src/passes/occlusion.rs`).
    pub view: u32,
    /// Explicit padding.
    pub _pad1: u32,
    /// Explicit padding.
    pub _pad2: u32,
}

/// Cull phase: frustum only, every view (occlusion culling off, or a frame
/// that draws nothing) (WGSL `CULL_PHASE_FRUSTUM`).
pub const CULL_PHASE_FRUSTUM: u32 = 0;
/// Cull phase: the camera keeps what was visible last frame (its
/// visibility bit), blended instances left to the late phase; cascades
/// frustum only (WGSL `CULL_PHASE_EARLY`).
pub const CULL_PHASE_EARLY: u32 = 1;
/// Cull phase: one view alone (the camera, or a shadow cascade:
/// [`GpuCullPhase::view`]); every instance in its frustum tested against
/// its depth pyramid, those not drawn early and not hidden kept, its
/// visibility bits written (WGSL `CULL_PHASE_LATE`). With
/// [`FRAME_FLAG_CASCADE_OCCLUSION`](crate::gpu_types::FRAME_FLAG_CASCADE_OCCLUSION)
/// the early phase keeps in each cascade what it kept last frame.
pub const CULL_PHASE_LATE: u32 = 2;

/// Most visible blended instances the cull pass sorts exactly far to near
/// per frame (WGSL `BLEND_SORT_CAP`). Above it, blended instances are drawn
/// per mesh, far to near by 16 depth buckets.
pub const BLEND_SORT_CAP: u32 = 2048;
