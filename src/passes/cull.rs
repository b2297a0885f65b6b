//! The cull pass (compute, `wgsl/cull.wgsl`): tests every object slot against
//! every view at once (the camera, each shadow cascade, each shadowed spot
//! light) and writes, in each view's region of the cull buffers, the visible
//! instances (per mesh, roughly front to back) and one indirect draw per mesh
//! with visible instances.
//!
//! One compute pass, three dispatches, and a fourth while blended objects
//! exist:
//!
//! 1. `cull_instances` reads each object's bounding sphere and batch entry
//!    once and tests the sphere against every view: the camera's six frustum
//!    planes, each cascade's box without its near plane (casters between the
//!    box and the sun cast into it), each shadowed spot's six planes (blended
//!    objects cast no shadows). In each view that keeps it, a visible instance
//!    falls in one of [`DEPTH_BUCKETS`] depth buckets (square-root spacing
//!    between the view's near and far planes) and takes a rank in its (view,
//!    mesh, depth bucket) key. Ranks are counted first in workgroup memory
//!    ([`LOCAL_KEYS`] keys over all views), then added to the global counter
//!    once per workgroup and key: millions of atomics on a few addresses
//!    otherwise (this halved the 4M-instance cull on the H200). At most
//!    [`CULL_MAX_WORKGROUPS`] workgroups run; past that many slots each thread
//!    culls a strided run of instances. Each workgroup writes its base for each
//!    key to the tail of the instance-rank buffer.
//! 2. `build_draws` (one workgroup per view) prefix-sums the view's keys into
//!    range starts, a mesh's depth buckets near to far, and writes one
//!    compacted `DrawIndexedIndirect` per mesh with visible instances, in mesh
//!    order, plus the draw count, visible count and (64-bit) triangle count of
//!    the view's `CullHeader`.
//! 3. `scatter_visible` (`wgsl/scatter.wgsl`, the same workgroups over the same
//!    instances) copies its range starts and bases into workgroup memory once
//!    and writes each visible object's slot at its key's start plus its rank.
//!    Each instanced draw therefore runs roughly front to back, and early depth
//!    testing rejects most hidden fragments. Tier C's variant
//!    (`shaders::CULL_NO_SHARED_STARTS`) loads start and base per instance
//!    instead: a barrier there made llvmpipe's GL compile take over 15 minutes.
//! 4. `sort_blended` (one workgroup, `wgsl/blend_sort.wgsl`) sorts the
//!    camera's visible blended instances far to near (pipeline buckets and
//!    the blend sort: [`BUCKETS`]).
//!
//! One indirect draw per mesh with instancing, not per object: 100k indirect
//! draws cost about 3.1 ms on the H200, while the same triangles in a few
//! instanced draws cost far less, and the draw count stays small for the
//! validated plain multi-draw ([`IndirectMode::Plain`](crate::IndirectMode::Plain):
//! one draw per mesh slot, culled meshes with zero instances). Per instance
//! the pass moves 28 bytes, plus 8 per visible one (`docs/PERFORMANCE.md`).
//!
//! With [`RendererConfig::subgroups`](crate::RendererConfig::subgroups) and
//! `Features::SUBGROUP` (tiers A and B) the variant `shaders::CULL_SUBGROUPS`
//! counts a subgroup whose lanes all fall in one key with one atomic. It is
//! off by default, since the H200 culled slower with it (its compiler already
//! combines such atomics); both variants find the CPU reference's visible sets
//! (`tests/culling.rs`, `tests/view_culling.rs`).
//!
//! **Ordering.** Within one mesh the visible list follows the atomic ranks and
//! may change between runs; with depth testing that reaches the image only where
//! two instances of one mesh make fragments of exactly equal depth.
//!
//! **Bounds.** Every index the pass writes is bounded by its buffer's length,
//! and draw arguments come from the mesh table, whose ranges were checked on the
//! CPU, so `multi_draw_indexed_indirect_count` (which wgpu does not validate)
//! only ever reads inside the index buffer and the visible list. Dispatches are
//! 2D where 65,535 workgroups per dimension do not suffice.
//!
//! The camera's two occlusion phases run these same dispatches
//! (`src/passes/occlusion.rs`), and with level of detail on
//! `cull_instances` swaps each instance's mesh for its level's
//! ([`crate::lod`]); small objects are dropped for the camera
//! ([`crate::small_objects`]).

use crate::gpu_types::{BLEND_SORT_CAP, BUCKET_BLEND, BUCKETS, GpuCullHeader, GpuMesh};
use crate::gpu_types::{CULL_PHASE_EARLY, CULL_PHASE_FRUSTUM, CULL_PHASE_LATE};
use crate::passes::{BufferBindGroup, GpuTables, PassStats, View, Views, buffer_entry, storage};
use crate::shaders;

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
fn cull_workgroups(object_slots: u32) -> (u32, u32) {
    dispatch_size(object_slots.min(CULL_MAX_WORKGROUPS * WORKGROUP_SIZE))
}

/// Bytes of the instance-rank buffer's tail: per cull workgroup, the
/// global base of each local key it counted (`workgroup_base_word` in
/// `wgsl/cull.wgsl`), for `instance_capacity` object slots.
pub(crate) fn workgroup_bases_bytes(instance_capacity: u32) -> u64 {
    let (x, y) = cull_workgroups(instance_capacity);
    size_of::<u32>() as u64 * u64::from(x * y) * u64::from(LOCAL_KEYS)
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
                instances + workgroup_bases_bytes(instance_capacity),
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
            views,
            version: 0,
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
            *self = Self::new(
                device,
                mesh_capacity.max(self.mesh_capacity),
                instance_capacity.max(self.instance_capacity),
                views,
            );
            self.version = version;
        }
    }

    pub fn size_bytes(&self) -> u64 {
        self.counters.size()
            + self.instance_rank.size()
            + self.visible_instances.size()
            + self.draws.size()
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
            version: self.version,
        }
    }
}

/// Which phase a cull dispatch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CullPhase {
    /// Frustum tests only, every view: occlusion culling off, or a frame
    /// that draws nothing.
    Frustum,
    /// Every view; the camera keeps what it saw last frame.
    Early,
    /// The camera alone, against the depth pyramid, into the late buffers.
    Late,
}

impl CullPhase {
    pub const ALL: [Self; 3] = [Self::Frustum, Self::Early, Self::Late];

    /// The frame's first cull: early with occlusion culling, else frustum.
    pub fn first(occlusion: bool) -> Self {
        if occlusion {
            Self::Early
        } else {
            Self::Frustum
        }
    }

    pub fn gpu(self) -> u32 {
        match self {
            Self::Frustum => CULL_PHASE_FRUSTUM,
            Self::Early => CULL_PHASE_EARLY,
            Self::Late => CULL_PHASE_LATE,
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
    /// Changes whenever these buffers are reallocated.
    pub version: u64,
}

/// What one cull dispatch runs for and writes into.
pub(crate) struct CullInputs<'o, 'p> {
    pub phase: CullPhase,
    /// The buffers written: the views' ([`Views::cull`]), or the late
    /// phase's (the camera alone).
    pub out: &'o CullBuffers,
    /// The camera's visibility bits and their version.
    pub visibility: (&'p wgpu::Buffer, u64),
    /// Group 1: the phase and, for the late phase, the depth pyramid.
    pub phase_group: &'p wgpu::BindGroup,
}

/// What one cull dispatch wrote: each view's visible list, indirect draws
/// and counters in its region of `buffers` (the camera's first), or in the
/// late phase the camera's alone.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CullOutput<'a> {
    pub buffers: &'a CullBuffers,
    pub stats: PassStats,
}

impl<'a> CullOutput<'a> {
    /// What the dispatch wrote for `view`.
    pub fn view(&self, view: &View) -> CulledView<'a> {
        self.buffers.output(view.region)
    }
}

#[derive(Debug)]
pub(crate) struct CullPass {
    layout: wgpu::BindGroupLayout,
    cull_instances: wgpu::ComputePipeline,
    test_occlusion: wgpu::ComputePipeline,
    build_draws: wgpu::ComputePipeline,
    scatter_visible: wgpu::ComputePipeline,
    sort_blended: wgpu::ComputePipeline,
    /// Over the views' buffers, and over the late phase's.
    bind_groups: [BufferBindGroup<[u64; 4]>; 2],
    /// Built from [`shaders::CULL_SUBGROUPS`].
    subgroups: bool,
}

impl CullPass {
    /// The pass of `tier`; `phase_layout` is group 1's
    /// ([`crate::passes::occlusion::Occlusion::phase_layout`]).
    pub fn new(
        device: &wgpu::Device,
        phase_layout: &wgpu::BindGroupLayout,
        variant: shaders::ShaderVariant,
    ) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let entry = |binding, ty| buffer_entry(binding, compute, ty);
        let uniform = wgpu::BufferBindingType::Uniform;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound cull"),
            entries: &[
                entry(0, uniform),
                // The camera's visibility bits (occlusion culling).
                entry(1, storage(false)),
                entry(2, storage(true)),
                entry(3, storage(true)),
                entry(4, storage(true)),
                entry(5, storage(false)),
                entry(6, storage(false)),
                entry(7, storage(false)),
                entry(8, storage(false)),
                entry(9, uniform),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound cull"),
            bind_group_layouts: &[Some(&layout), Some(phase_layout)],
            immediate_size: 0,
        });
        let module = variant.create(device);
        let pipeline = |entry_point| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self {
            cull_instances: pipeline("cull_instances"),
            test_occlusion: pipeline("test_occlusion"),
            build_draws: pipeline("build_draws"),
            scatter_visible: pipeline("scatter_visible"),
            sort_blended: pipeline("sort_blended"),
            layout,
            bind_groups: [
                BufferBindGroup::new("unbound cull"),
                BufferBindGroup::new("unbound late cull"),
            ],
            subgroups: variant == shaders::CULL_SUBGROUPS,
        }
    }

    pub fn uses_subgroups(&self) -> bool {
        self.subgroups
    }

    /// Records the cull pass over every object slot for every view (the
    /// camera and the shadow cascades) at once, or for the camera alone in
    /// the late occlusion phase: each view's visible list and indirect
    /// draws, in its region of `inputs.out`.
    pub fn record<'o>(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        tables: &GpuTables<'_>,
        views: &Views,
        inputs: &CullInputs<'o, '_>,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> CullOutput<'o> {
        let CullInputs {
            phase,
            out,
            visibility,
            phase_group,
        } = *inputs;
        let late = phase == CullPhase::Late;
        let key = [
            tables.objects_version,
            tables.arena_version,
            out.version,
            visibility.1,
        ];
        let buffers = [
            &views.main.uniforms,
            visibility.0,
            tables.bounds,
            tables.batch,
            tables.meshes,
            &out.counters,
            &out.instance_rank,
            &out.visible_instances,
            &out.draws,
            &views.shadow_uniforms,
        ];
        let cache = &mut self.bind_groups[usize::from(late)];
        let (bind_group, rebuilt) = cache.get(device, &self.layout, key, &buffers);

        encoder.clear_buffer(&out.counters, 0, None);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(if late {
                "unbound late cull"
            } else {
                "unbound cull"
            }),
            timestamp_writes: timestamps,
        });
        pass.set_bind_group(0, bind_group, &[]);
        pass.set_bind_group(1, phase_group, &[]);
        let (x, y) = dispatch_size(tables.object_slots);
        // clear, pass, 2 binds, 3 x (pipeline + dispatch)
        let mut commands = 9;
        // The pyramid test runs apart from cull_instances (no texture
        // fetch in a shader with barriers: see wgsl/occlusion.wgsl).
        if late {
            pass.set_pipeline(&self.test_occlusion);
            pass.dispatch_workgroups(x, y, 1);
            commands += 2;
        }
        pass.set_pipeline(&self.cull_instances);
        let (cull_x, cull_y) = cull_workgroups(tables.object_slots);
        pass.dispatch_workgroups(cull_x, cull_y, 1);
        // One workgroup per view.
        pass.set_pipeline(&self.build_draws);
        pass.dispatch_workgroups(if late { 1 } else { views.count() }, 1, 1);
        pass.set_pipeline(&self.scatter_visible);
        pass.dispatch_workgroups(cull_x, cull_y, 1);
        // The early phase leaves blended objects to the late one.
        if tables.bucket_objects[BUCKET_BLEND as usize] > 0 && phase != CullPhase::Early {
            pass.set_pipeline(&self.sort_blended);
            pass.dispatch_workgroups(1, 1, 1);
            commands += 2;
        }
        let stats = PassStats {
            commands_recorded: commands,
            bind_groups_set: 2,
            bind_group_rebuilds: u32::from(rebuilt),
        };
        CullOutput {
            buffers: out,
            stats,
        }
    }
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
