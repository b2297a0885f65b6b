//! The cull pass's host-visible twins: its counters header, its phase
//! uniform and the blend sort's cap (`wgsl/cull.wgsl`).

use std::mem::offset_of;

use bytemuck::{Pod, Zeroable};

use super::BUCKETS;

/// The cull pass's counters header (WGSL `CullHeader`, 48 bytes), followed in
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
    /// The camera's region: instances the cull pass sent to the compute
    /// rasteriser (`src/passes/compute_raster/`), listed from the end of
    /// its visible list down; not in the draws (0 elsewhere).
    pub raster_instances: u32,
    /// The raster items those instances reserved.
    pub raster_items: u32,
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

/// The head of the camera's cluster draws buffer (64 bytes, 16 words;
/// `wgsl/cluster_cull.wgsl` writes it by word, `STAT_*`), followed by the
/// cluster draws of the opaque and the double-sided bucket
/// (`src/passes/cluster_cull.rs`). Read back for statistics.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuClusterStats {
    /// Draws written per cluster bucket (opaque, double-sided): the draw
    /// pass's counts (WGSL `STAT_DRAWS`).
    pub bucket_draws: [u32; CLUSTER_BUCKETS as usize],
    /// Clusters tested (`STAT_TESTED`).
    pub tested: u32,
    /// Clusters outside the frustum (`STAT_FRUSTUM`).
    pub frustum_culled: u32,
    /// Clusters facing away: their normal cone (`STAT_CONE`).
    pub cone_culled: u32,
    /// Clusters behind the depth pyramid, late phase (`STAT_OCCLUDED`).
    pub occluded: u32,
    /// Draws written, clusters and whole meshes (`STAT_DRAWN`).
    pub drawn: u32,
    /// Triangles drawn, low 32 bits (`STAT_TRIANGLES_LO`).
    pub triangles_lo: u32,
    /// Triangles drawn, high 32 bits (`STAT_TRIANGLES_HI`).
    pub triangles_hi: u32,
    /// Instances drawn whole: skinned, or without clusters
    /// (`STAT_WHOLE_MESHES`).
    pub whole_meshes: u32,
    /// Triangles the triangle filter tested (`STAT_FILTER_TESTED`,
    /// `wgsl/triangle_filter.wgsl`).
    pub filter_tested: u32,
    /// Triangles it dropped wholly outside the frustum
    /// (`STAT_FILTER_OUTSIDE`).
    pub filter_outside: u32,
    /// Triangles it dropped facing away (`STAT_FILTER_BACK`).
    pub filter_back: u32,
    /// Triangles it dropped covering no pixel centre
    /// (`STAT_FILTER_NO_PIXEL`).
    pub filter_no_pixel: u32,
    /// Triangles the cluster buckets drew after filtering: survivors and
    /// unfiltered draws' (`STAT_FILTER_DRAWN`); 0 where the filter did
    /// not run.
    pub filter_drawn: u32,
    /// Explicit padding.
    pub _pad: u32,
}

/// The triangle filter's parameters (WGSL `TriangleFilter`,
/// `wgsl/triangle_filter.wgsl`; `src/passes/triangle_filter.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuTriangleFilter {
    /// The target's size in pixels.
    pub viewport: [f32; 2],
    /// Draws per bucket of the cluster draws and the pass-through draws.
    pub draws_per_bucket: u32,
    /// Indices per bucket region of the filtered index buffer.
    pub index_capacity: u32,
    /// First word of [`GpuTriangleFilterHead`] in the filtered draws
    /// buffer (after the records).
    pub head_word: u32,
    /// 1: the no-pixel-centre test runs (one sample per pixel).
    pub pixel_test: u32,
    /// The snapping slack in pixels
    /// (`geometry::clusters::TRIANGLE_SNAP_PIXELS`).
    pub snap_pixels: f32,
    /// Explicit padding.
    pub _pad: u32,
}

/// The triangle filter's head in its draws buffer (64 bytes; the shader
/// writes it by word, `FILTER_*`): per cluster bucket the pass-through
/// draws' count, the compacted indices reserved, and the packed draw.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuTriangleFilterHead {
    /// Unfiltered draws per bucket (`FILTER_PASS_DRAWS`).
    pub pass_draws: [u32; CLUSTER_BUCKETS as usize],
    /// Compacted indices reserved per bucket, possibly past its region
    /// (`FILTER_INDICES`).
    pub indices: [u32; CLUSTER_BUCKETS as usize],
    /// Per bucket the draw of its compacted indices
    /// (`FILTER_PACKED_DRAWS`, a `DrawIndexedIndirect` of 5 words each).
    pub packed_draws: [[u32; 5]; CLUSTER_BUCKETS as usize],
    /// 1: the packed draws' draw count (`FILTER_ONE`). They are issued as
    /// count draws, which wgpu does not validate on the CPU's timeline: its
    /// validated indirect draws read the arguments before the frame's
    /// compute passes wrote them (seen on lavapipe).
    pub one: u32,
    /// Explicit padding.
    pub _pad: u32,
}

impl GpuTriangleFilterHead {
    /// Byte offset of `pass_draws[bucket]`.
    pub const fn pass_draws_offset(bucket: u32) -> u64 {
        (offset_of!(Self, pass_draws) + bucket as usize * size_of::<u32>()) as u64
    }

    /// Byte offset of `one`.
    pub const ONE_OFFSET: u64 = offset_of!(Self, one) as u64;

    /// Byte offset of `packed_draws[bucket]`.
    pub const fn packed_draw_offset(bucket: u32) -> u64 {
        (offset_of!(Self, packed_draws) + bucket as usize * 5 * size_of::<u32>()) as u64
    }
}

/// Pipeline buckets whose camera draws go through cluster culling: the
/// opaque and the double-sided one (WGSL `CLUSTER_BUCKETS`); blended
/// instances keep their instance draws.
pub const CLUSTER_BUCKETS: u32 = 2;

impl GpuClusterStats {
    /// Byte offset of `bucket_draws[bucket]`: the cluster draw count of
    /// pipeline bucket `bucket`.
    pub const fn bucket_draws_offset(bucket: u32) -> u64 {
        (offset_of!(Self, bucket_draws) + bucket as usize * size_of::<u32>()) as u64
    }
}

/// What cluster culling did in one frame (`src/passes/cluster_cull.rs`),
/// read from [`GpuClusterStats`] (`crate::GpuFrameStats::clusters`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterStats {
    /// Clusters tested.
    pub tested: u32,
    /// Clusters outside the frustum.
    pub frustum_culled: u32,
    /// Clusters facing away (normal cone).
    pub cone_culled: u32,
    /// Clusters behind the depth pyramid (late phase).
    pub occluded: u32,
    /// Draws written: surviving clusters and whole meshes.
    pub drawn: u32,
    /// Instances drawn whole (skinned, on tier A; tiers B and C draw a
    /// skinned instance's clusters untested). The cull has no per-cluster
    /// size test, so no "culled by size" count: small instances go in the
    /// instance cull (`crate::small_objects`), small triangles in the
    /// filter's no-pixel test ([`Self::filter_no_pixel`]).
    pub whole_meshes: u32,
    /// Triangles of the cluster draws, before triangle filtering.
    pub triangles: u64,
    /// Triangles the triangle filter tested (0 with filtering off).
    pub filter_tested: u32,
    /// Triangles it dropped: wholly outside the frustum.
    pub filter_outside: u32,
    /// Triangles it dropped: facing away (opaque bucket).
    pub filter_back: u32,
    /// Triangles it dropped: covering no pixel centre.
    pub filter_no_pixel: u32,
    /// Triangles the opaque and double-sided buckets hand the rasteriser:
    /// after filtering where it ran, else [`Self::triangles`].
    pub triangles_drawn: u64,
}

impl ClusterStats {
    /// The statistics a [`GpuClusterStats`] holds.
    pub fn from_gpu(s: &GpuClusterStats) -> Self {
        Self {
            tested: s.tested,
            frustum_culled: s.frustum_culled,
            cone_culled: s.cone_culled,
            occluded: s.occluded,
            drawn: s.drawn,
            whole_meshes: s.whole_meshes,
            triangles: u64::from(s.triangles_lo) | (u64::from(s.triangles_hi) << 32),
            filter_tested: s.filter_tested,
            filter_outside: s.filter_outside,
            filter_back: s.filter_back,
            filter_no_pixel: s.filter_no_pixel,
            triangles_drawn: if s.filter_tested == 0 && s.filter_drawn == 0 {
                u64::from(s.triangles_lo) | (u64::from(s.triangles_hi) << 32)
            } else {
                u64::from(s.filter_drawn)
            },
        }
    }
}

/// Two phases' statistics summed.
impl std::ops::Add for ClusterStats {
    type Output = Self;

    fn add(self, o: Self) -> Self {
        Self {
            tested: self.tested + o.tested,
            frustum_culled: self.frustum_culled + o.frustum_culled,
            cone_culled: self.cone_culled + o.cone_culled,
            occluded: self.occluded + o.occluded,
            drawn: self.drawn + o.drawn,
            whole_meshes: self.whole_meshes + o.whole_meshes,
            triangles: self.triangles + o.triangles,
            filter_tested: self.filter_tested + o.filter_tested,
            filter_outside: self.filter_outside + o.filter_outside,
            filter_back: self.filter_back + o.filter_back,
            filter_no_pixel: self.filter_no_pixel + o.filter_no_pixel,
            triangles_drawn: self.triangles_drawn + o.triangles_drawn,
        }
    }
}
