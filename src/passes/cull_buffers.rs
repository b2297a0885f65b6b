//! The cull pass's outputs (`cull.rs`): the buffers every view's visible
//! list, indirect draws and counters live in, one 256-byte-aligned region
//! per view, their sizes (which `Capacities::buffers` lists, `src/limits.rs`)
//! and the workgroup geometry the sizes follow from.

use crate::geometry::PackingBounds;
use crate::gpu_types::{
    BLEND_SORT_CAP, BUCKETS, CLUSTER_BUCKETS, GpuClusterStats, GpuCullHeader, GpuMesh,
};
use crate::passes::triangle_filter::{FilteredBuffers, plain_pass_through_draws};

/// Threads per workgroup of every cull-pass entry point (WGSL
/// `WORKGROUP_SIZE` in `wgsl/cull.wgsl`).
pub const WORKGROUP_SIZE: u32 = 256;
const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65_535;
/// Depth buckets per mesh (WGSL `DEPTH_BUCKETS` in `wgsl/cull.wgsl`).
pub const DEPTH_BUCKETS: u32 = 16;
/// `u32` entries at the end of the counters buffer's `key_data` holding the
/// blend list: its length, one spare, then `BLEND_SORT_CAP` (depth key,
/// visible slot) pairs (WGSL `BLEND_TAIL` in `wgsl/cull.wgsl`).
pub const BLEND_TAIL: u32 = 2 + 2 * BLEND_SORT_CAP;
/// Bytes of one `DrawIndexedIndirectArgs` (WGSL `DrawIndexedIndirect`).
pub const DRAW_ARGS_SIZE: u64 = size_of::<wgpu::util::DrawIndexedIndirectArgs>() as u64;
/// Bytes of one entry of the counters buffer's `key_data` (WGSL `atomic<u32>`).
const KEY_DATA_ENTRY_SIZE: u64 = size_of::<u32>() as u64;
/// Mesh slots and instances a view's cull buffers start with (they grow
/// with the tables).
pub const INITIAL_CAPACITY: u32 = 64;
/// Most views culled in one dispatch: the camera, every shadow cascade and
/// every shadowed spot light (WGSL `MAX_VIEWS`).
pub const MAX_VIEWS: u32 = 1 + crate::shadows::MAX_CASCADES + crate::shadows::MAX_SPOT_SHADOWS;
/// Every view's region of a cull buffer starts at a multiple of this
/// (WebGPU's largest `min_storage_buffer_offset_alignment`), so that a
/// pass can bind one view's region alone.
pub const REGION_ALIGNMENT: u64 = 256;

fn aligned(bytes: u64) -> u64 {
    bytes.next_multiple_of(REGION_ALIGNMENT)
}

/// Bytes of one view's counters for `mesh_capacity` mesh slots, before
/// alignment: the `CullHeader`, two `key_data` entries (count, range start)
/// per (pipeline bucket, mesh, depth bucket) key, so 384 B per mesh slot,
/// and the blend list.
pub(crate) fn counters_bytes(mesh_capacity: u32) -> u64 {
    let keys = u64::from(BUCKETS) * u64::from(DEPTH_BUCKETS) * u64::from(mesh_capacity);
    size_of::<GpuCullHeader>() as u64 + KEY_DATA_ENTRY_SIZE * (2 * keys + u64::from(BLEND_TAIL))
}

/// Bytes of one view's region of the counters buffer.
pub(crate) fn counters_region_bytes(mesh_capacity: u32) -> u64 {
    aligned(counters_bytes(mesh_capacity))
}

/// Draws in one view's region for `mesh_capacity` mesh slots: a region of
/// at least a draw per mesh slot per pipeline bucket, then the sorted
/// blended draws; rounded up so that the region's bytes are aligned.
fn view_draws(mesh_capacity: u32) -> u64 {
    // 64 draws of 20 bytes are 5 x 256 bytes.
    let per_alignment = REGION_ALIGNMENT / 4;
    (u64::from(BUCKETS) * u64::from(mesh_capacity) + u64::from(BLEND_SORT_CAP))
        .next_multiple_of(per_alignment)
}

/// Bytes of one view's region of the indirect draws.
pub(crate) fn draws_region_bytes(mesh_capacity: u32) -> u64 {
    DRAW_ARGS_SIZE * view_draws(mesh_capacity)
}

/// Bytes of the counters buffer of `views` views.
pub(crate) fn counters_size_bytes(mesh_capacity: u32, views: u32) -> u64 {
    counters_region_bytes(mesh_capacity) * u64::from(views)
}

/// Bytes of the indirect draws of `views` views.
pub(crate) fn draws_size_bytes(mesh_capacity: u32, views: u32) -> u64 {
    draws_region_bytes(mesh_capacity) * u64::from(views)
}

/// Bytes of a per-instance list of `views` views.
pub(crate) fn instance_list_size_bytes(instance_capacity: u32, views: u32) -> u64 {
    instance_region_bytes(instance_capacity) * u64::from(views)
}

/// Bytes of one view's region of a per-instance list (the instance rank,
/// the visible instances) for `instance_capacity` instances.
pub(crate) fn instance_region_bytes(instance_capacity: u32) -> u64 {
    aligned(size_of::<u32>() as u64 * u64::from(instance_capacity))
}

/// At most this many workgroups run `cull_instances`: past
/// `CULL_MAX_WORKGROUPS × 256` object slots each thread culls several
/// (`instances_per_thread` in `wgsl/cull.wgsl`), so the workgroup's
/// shared-memory counts are cleared and flushed once per run of instances
/// rather than once per 256. 1,024 workgroups of 256 fill a large GPU
/// (the H200 holds about 1,056 at once).
pub const CULL_MAX_WORKGROUPS: u32 = 1024;

/// Keys (over all views) that `cull_instances` counts per workgroup in
/// shared memory before one global atomic per key (WGSL `LOCAL_KEYS`).
pub const LOCAL_KEYS: u32 = 2048;

/// Workgroups `cull_instances` (and `scatter_visible`) run over
/// `object_slots` slots.
pub(crate) fn cull_workgroups(object_slots: u32) -> (u32, u32) {
    dispatch_size(object_slots.min(CULL_MAX_WORKGROUPS * WORKGROUP_SIZE))
}

/// Bytes of the instance-rank buffer's tail: per cull workgroup, the
/// global base of each local key it counted (`workgroup_base_word` in
/// `wgsl/cull.wgsl`), for `instance_capacity` object slots.
pub(crate) fn workgroup_bases_bytes(instance_capacity: u32) -> u64 {
    let (x, y) = cull_workgroups(instance_capacity);
    size_of::<u32>() as u64 * u64::from(x * y) * u64::from(LOCAL_KEYS)
}

/// Bytes of the instance-rank buffer of `views` views: each view's region
/// ([`instance_region_bytes`]), then the cull workgroups' bases
/// ([`workgroup_bases_bytes`]). `Capacities::buffers` lists it with this
/// size (`src/limits.rs`).
pub(crate) fn instance_rank_size_bytes(instance_capacity: u32, views: u32) -> u64 {
    instance_list_size_bytes(instance_capacity, views) + workgroup_bases_bytes(instance_capacity)
}

/// (x, y) workgroups covering `threads` with at most 65,535 per dimension.
pub fn dispatch_size(threads: u32) -> (u32, u32) {
    let groups = threads.div_ceil(WORKGROUP_SIZE).max(1);
    if groups <= MAX_WORKGROUPS_PER_DIMENSION {
        (groups, 1)
    } else {
        let y = groups.div_ceil(MAX_WORKGROUPS_PER_DIMENSION);
        (groups.div_ceil(y), y)
    }
}

/// Where one view's outputs lie in the cull buffers
/// ([`crate::Renderer::cull_counters_buffer`],
/// [`crate::Renderer::visible_instances_buffer`],
/// [`crate::Renderer::indirect_draws_buffer`]): byte offsets of its
/// region of each. View 0 (the camera) starts at 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CullRegion {
    /// The view's `GpuCullHeader`, then its per-key counts.
    pub counters_offset: u64,
    /// The view's visible list (object slots).
    pub visible_instances_offset: u64,
    /// The view's indirect draws: per pipeline bucket a region of
    /// `draws_per_bucket`, then the sorted blended draws.
    pub draws_offset: u64,
    /// Entries per bucket region of the view's draws.
    pub draws_per_bucket: u32,
}

/// The buffers the cull pass writes, one region per view (the camera,
/// then each shadow cascade), sized for the current table capacities and
/// kept from frame to frame.
#[derive(Debug)]
pub(crate) struct CullBuffers {
    /// Per view: `CullHeader` + per-(pipeline bucket, mesh, depth bucket)
    /// counts + their range starts + the blend list ([`BLEND_TAIL`]
    /// entries).
    pub counters: wgpu::Buffer,
    /// Per view: each slot's depth bucket and rank in its key; then, per
    /// cull workgroup, its base in each local key
    /// ([`workgroup_bases_bytes`]).
    pub instance_rank: wgpu::Buffer,
    pub visible_instances: wgpu::Buffer,
    /// Per view: per bucket a region of draws, then `BLEND_SORT_CAP`
    /// sorted blended draws.
    pub draws: wgpu::Buffer,
    pub mesh_capacity: u32,
    pub instance_capacity: u32,
    /// The camera's cluster draws (`cluster_cull.rs`), while cluster
    /// culling is on.
    pub clusters: Option<ClusterDrawBuffer>,
    /// Regions in each buffer: views culled.
    pub views: u32,
    /// Changes whenever the buffers are reallocated.
    pub version: u64,
}

impl CullBuffers {
    /// Buffers of `views` regions for `mesh_capacity` mesh slots and
    /// `instance_capacity` instances, each at least [`INITIAL_CAPACITY`].
    pub fn new(
        device: &wgpu::Device,
        mesh_capacity: u32,
        instance_capacity: u32,
        views: u32,
    ) -> Self {
        let mesh_capacity = mesh_capacity.max(INITIAL_CAPACITY);
        let instance_capacity = instance_capacity.max(INITIAL_CAPACITY);
        let views = views.clamp(1, MAX_VIEWS);
        let buffer = |label, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let instances = instance_list_size_bytes(instance_capacity, views);
        Self {
            counters: buffer(
                "unbound cull counters",
                counters_size_bytes(mesh_capacity, views),
                wgpu::BufferUsages::INDIRECT | copy,
            ),
            instance_rank: buffer(
                "unbound instance rank",
                instance_rank_size_bytes(instance_capacity, views),
                copy,
            ),
            visible_instances: buffer("unbound visible instances", instances, copy),
            draws: buffer(
                "unbound indirect draws",
                draws_size_bytes(mesh_capacity, views),
                wgpu::BufferUsages::INDIRECT | copy,
            ),
            mesh_capacity,
            instance_capacity,
            clusters: None,
            views,
            version: 0,
        }
    }

    /// Makes the cluster draws hold `instance_clusters` draws per bucket
    /// (`None`: cluster culling off, the buffer dropped), with the
    /// triangle filter's buffers for `filter` (the target's size, and
    /// whether the pixel-centre test runs) or without (`None`).
    pub fn ensure_clusters(
        &mut self,
        device: &wgpu::Device,
        instance_clusters: Option<u64>,
        filter: Option<((u32, u32), bool)>,
    ) {
        self.ensure_cluster_draws(device, instance_clusters);
        let Some(clusters) = self.clusters.as_mut() else {
            return;
        };
        let changed = match (filter, clusters.filtered.as_mut()) {
            (None, None) => false,
            (None, Some(_)) => {
                clusters.filtered = None;
                true
            }
            (Some((viewport, pixels)), Some(f))
                if f.draws_per_bucket == clusters.draws_per_bucket =>
            {
                f.retarget(device, viewport, pixels)
            }
            (Some((viewport, pixels)), _) => {
                let per_bucket = clusters.draws_per_bucket;
                clusters.filtered =
                    Some(FilteredBuffers::new(device, per_bucket, viewport, pixels));
                true
            }
        };
        if changed {
            self.version += 1;
        }
    }

    /// Sets the pass-through draws the CPU issues without a count (tiers
    /// B and C: `bounds` on what the live objects' cluster draws hold;
    /// `None` on tier A) for the filter's buffers, if any.
    pub fn set_plain_pass_through(&mut self, bounds: Option<PackingBounds>) {
        let filtered = self.clusters.as_mut().and_then(|c| c.filtered.as_mut());
        if let Some(f) = filtered {
            f.plain_pass_through = bounds.map_or(0, |b| {
                plain_pass_through_draws(f.draws_per_bucket, f.index_capacity(), b)
            });
        }
    }

    fn ensure_cluster_draws(&mut self, device: &wgpu::Device, instance_clusters: Option<u64>) {
        match instance_clusters {
            None if self.clusters.is_some() => {
                self.clusters = None;
                self.version += 1;
            }
            None => {}
            Some(needed) => {
                let short = self
                    .clusters
                    .as_ref()
                    .is_none_or(|c| u64::from(c.draws_per_bucket) < needed);
                if short {
                    let draws = cluster_draws_capacity(needed).min(u64::from(u32::MAX));
                    self.clusters = Some(ClusterDrawBuffer::new(device, draws as u32));
                    self.version += 1;
                }
            }
        }
    }

    /// Reallocates the buffers if the tables outgrew them or the number of
    /// views changed (the shaders divide each buffer into `views` equal
    /// regions).
    pub fn ensure_capacity(
        &mut self,
        device: &wgpu::Device,
        meshes: &wgpu::Buffer,
        instance_capacity: u32,
        views: u32,
    ) {
        let mesh_capacity = (meshes.size() / size_of::<GpuMesh>() as u64) as u32;
        let views = views.clamp(1, MAX_VIEWS);
        if mesh_capacity > self.mesh_capacity
            || instance_capacity > self.instance_capacity
            || views != self.views
        {
            let version = self.version + 1;
            let clusters = self.clusters.take();
            *self = Self::new(
                device,
                mesh_capacity.max(self.mesh_capacity),
                instance_capacity.max(self.instance_capacity),
                views,
            );
            self.version = version;
            self.clusters = clusters;
        }
    }

    pub fn size_bytes(&self) -> u64 {
        self.counters.size()
            + self.instance_rank.size()
            + self.visible_instances.size()
            + self.draws.size()
            + self.clusters.as_ref().map_or(0, |c| {
                c.buffer.size() + c.filtered.as_ref().map_or(0, FilteredBuffers::size_bytes)
            })
    }

    /// Where view `view`'s outputs lie (`None` past the views culled).
    pub fn region(&self, view: u32) -> Option<CullRegion> {
        let v = u64::from(view);
        (view < self.views).then(|| CullRegion {
            counters_offset: v * counters_region_bytes(self.mesh_capacity),
            visible_instances_offset: v * instance_region_bytes(self.instance_capacity),
            draws_offset: v * draws_region_bytes(self.mesh_capacity),
            draws_per_bucket: self.draws_per_bucket(),
        })
    }

    fn draws_per_bucket(&self) -> u32 {
        ((view_draws(self.mesh_capacity) - u64::from(BLEND_SORT_CAP)) / u64::from(BUCKETS)) as u32
    }

    /// What the cull pass wrote for view `view` (0: the camera; must be
    /// below [`Self::views`]).
    pub fn output(&self, view: u32) -> CulledView<'_> {
        let region = self.region(view.min(self.views - 1)).expect("views >= 1");
        let binding = |buffer, offset, size| wgpu::BufferBinding {
            buffer,
            offset,
            size: wgpu::BufferSize::new(size),
        };
        CulledView {
            visible_instances: binding(
                &self.visible_instances,
                region.visible_instances_offset,
                instance_region_bytes(self.instance_capacity),
            ),
            draws: binding(
                &self.draws,
                region.draws_offset,
                draws_region_bytes(self.mesh_capacity),
            ),
            counters: binding(
                &self.counters,
                region.counters_offset,
                counters_region_bytes(self.mesh_capacity),
            ),
            draws_per_bucket: region.draws_per_bucket,
            clusters: None,
            version: self.version,
        }
    }
}

/// What the cull pass wrote for one view this frame, handed to the passes
/// that read it (the draw pass, the shadow pass, the statistics readback):
/// the view's regions of the cull buffers.
#[derive(Clone, Debug)]
pub(crate) struct CulledView<'a> {
    /// Object slots of the visible instances, one range per (pipeline
    /// bucket, mesh, depth bucket) key, near to far.
    pub visible_instances: wgpu::BufferBinding<'a>,
    /// `DrawIndexedIndirectArgs`: per pipeline bucket a region of
    /// `draws_per_bucket`, then the sorted blended draws.
    pub draws: wgpu::BufferBinding<'a>,
    /// The `CullHeader` (draw counts per bucket, visible instances,
    /// triangles) first.
    pub counters: wgpu::BufferBinding<'a>,
    /// Entries per bucket region of `draws`.
    pub draws_per_bucket: u32,
    /// The camera's cluster draws, which replace the opaque and
    /// double-sided buckets' draws when cluster culling ran.
    pub clusters: Option<ClusterDraws<'a>>,
    /// Changes whenever these buffers are reallocated.
    pub version: u64,
}

/// Fewest draws per bucket a cluster draws buffer holds.
const MIN_CLUSTER_DRAWS: u64 = 256;

/// Bytes of a cluster draws buffer of `draws_per_bucket` draws per
/// bucket.
pub(crate) fn cluster_draws_size_bytes(draws_per_bucket: u64) -> u64 {
    size_of::<GpuClusterStats>() as u64
        + u64::from(CLUSTER_BUCKETS) * draws_per_bucket * DRAW_ARGS_SIZE
}

/// Draws per bucket a buffer gets for `instance_clusters` (grown in
/// powers of two, so a growing scene reallocates rarely).
pub(crate) fn cluster_draws_capacity(instance_clusters: u64) -> u64 {
    instance_clusters
        .max(MIN_CLUSTER_DRAWS)
        .checked_next_power_of_two()
        .unwrap_or(u64::MAX)
}

/// One cull output's cluster draws: the statistics head, then the
/// buckets' draws.
#[derive(Debug)]
pub(crate) struct ClusterDrawBuffer {
    pub buffer: wgpu::Buffer,
    /// Draws per bucket region.
    pub draws_per_bucket: u32,
    /// The triangle filter's buffers, while it is on
    /// (`src/passes/triangle_filter.rs`).
    pub filtered: Option<FilteredBuffers>,
}

impl ClusterDrawBuffer {
    pub fn new(device: &wgpu::Device, draws_per_bucket: u32) -> Self {
        Self {
            buffer: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound cluster draws"),
                size: cluster_draws_size_bytes(u64::from(draws_per_bucket)),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            draws_per_bucket,
            filtered: None,
        }
    }

    /// Byte offset of bucket `bucket`'s draws.
    pub fn draws_offset(&self, bucket: u32) -> u64 {
        size_of::<GpuClusterStats>() as u64
            + u64::from(bucket) * u64::from(self.draws_per_bucket) * DRAW_ARGS_SIZE
    }
}

/// The camera's cluster draws as the raster passes issue them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClusterDraws<'a> {
    pub buffer: &'a ClusterDrawBuffer,
}

#[cfg(test)]
mod tests {
    use super::dispatch_size;

    #[test]
    fn dispatch_stays_within_limits_and_covers_every_thread() {
        for threads in [0, 1, 256, 257, 16_776_960, 16_777_216, 67_108_864] {
            let (x, y) = dispatch_size(threads);
            assert!(x <= 65_535 && y <= 65_535);
            assert!(u64::from(x) * u64::from(y) * 256 >= u64::from(threads));
        }
    }
}
