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
//!    the blend sort: [`BUCKETS`](crate::gpu_types::BUCKETS)).
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

use crate::gpu_types::{BUCKET_BLEND, CULL_PHASE_EARLY, CULL_PHASE_FRUSTUM, CULL_PHASE_LATE};
use crate::passes::cluster_cull::ClusterCullPass;
pub use crate::passes::cull_buffers::{
    BLEND_TAIL, CULL_MAX_WORKGROUPS, CullRegion, DEPTH_BUCKETS, DRAW_ARGS_SIZE, INITIAL_CAPACITY,
    LOCAL_KEYS, MAX_VIEWS, REGION_ALIGNMENT, WORKGROUP_SIZE,
};
pub(crate) use crate::passes::cull_buffers::{ClusterDraws, CullBuffers, CulledView};
use crate::passes::cull_buffers::{cull_workgroups, dispatch_size};
use crate::passes::triangle_filter::{FilterInputs, TriangleFilterPass};
use crate::passes::{BufferBindGroup, GpuTables, PassStats, View, Views, buffer_entry, storage};
use crate::shaders;

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

/// Which of the cull pass's cached bind groups a dispatch uses: one per
/// set of output buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CullBindGroup {
    /// The views' buffers (frustum and early phases).
    Views,
    /// The camera's late buffers.
    CameraLate,
    /// Shadow cascade `c`'s late buffers.
    CascadeLate(usize),
}

impl CullBindGroup {
    fn index(self) -> usize {
        match self {
            Self::Views => 0,
            Self::CameraLate => 1,
            Self::CascadeLate(c) => 2 + c,
        }
    }
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
    /// The cached group 0 over `out`.
    pub bind_group: CullBindGroup,
}

/// What one cull dispatch wrote: each view's visible list, indirect draws
/// and counters in its region of `buffers` (the camera's first), or in the
/// late phase the camera's alone.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CullOutput<'a> {
    pub buffers: &'a CullBuffers,
    pub stats: PassStats,
    /// Cluster culling ran: the camera's opaque and double-sided draws
    /// are in `buffers.clusters`.
    pub clusters: bool,
}

impl<'a> CullOutput<'a> {
    /// The cluster draws buffer, whose head holds the cluster statistics,
    /// if cluster culling ran.
    pub fn cluster_head(&self) -> Option<&'a wgpu::Buffer> {
        let buffers: &'a CullBuffers = self.buffers;
        buffers
            .clusters
            .as_ref()
            .filter(|_| self.clusters)
            .map(|c| &c.buffer)
    }

    /// What the dispatch wrote for `view`.
    pub fn view(&self, view: &View) -> CulledView<'a> {
        let mut culled = self.buffers.output(view.region);
        if self.clusters && view.region == 0 {
            culled.clusters = self
                .buffers
                .clusters
                .as_ref()
                .map(|buffer| ClusterDraws { buffer });
        }
        culled
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
    /// Over the views' buffers, the camera's late ones, each cascade's late
    /// ones ([`CullBindGroup`]).
    bind_groups: Vec<BufferBindGroup<[u64; 4]>>,
    /// Built from [`shaders::CULL_SUBGROUPS`].
    subgroups: bool,
    /// The camera's cluster culling (`crate::passes::cluster_cull`), built
    /// when first recorded (a cold GL compile of it takes long), with
    /// group 1's layout.
    clusters: Option<ClusterCullPass>,
    phase_layout: wgpu::BindGroupLayout,
    /// Cluster culling is on ([`crate::RendererConfig::cluster_culling`]).
    cluster_culling: bool,
    /// Triangle filtering after it (`crate::passes::triangle_filter`),
    /// built when the cluster draws first come with its buffers.
    filter: Option<TriangleFilterPass>,
}

impl CullPass {
    /// Triangle filtering after cluster culling in `pass`, where `out`'s
    /// cluster draws have the filter's buffers.
    fn record_filter(
        &mut self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        (tables, views): (&GpuTables<'_>, &Views),
        out: &CullBuffers,
        late: bool,
    ) -> PassStats {
        let Some(draws) = out.clusters.as_ref() else {
            return PassStats::default();
        };
        let Some(filtered) = draws.filtered.as_ref() else {
            return PassStats::default();
        };
        let filter = self
            .filter
            .get_or_insert_with(|| TriangleFilterPass::new(device));
        let inputs = FilterInputs {
            camera_uniforms: &views.main.uniforms,
            visible_instances: out.output(0).visible_instances,
            cluster_draws: &draws.buffer,
            filtered,
            workgroups: dispatch_size(filtered.draws_per_bucket),
            version: out.version,
        };
        filter.record(device, pass, tables, &inputs, late)
    }

    /// The pass of `tier`; `phase_layout` is group 1's
    /// ([`crate::passes::occlusion::Occlusion::phase_layout`]).
    /// `cluster_culling`: the setting.
    pub fn new(
        device: &wgpu::Device,
        phase_layout: &wgpu::BindGroupLayout,
        variant: shaders::ShaderVariant,
        cluster_culling: bool,
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
            bind_groups: Vec::new(),
            subgroups: variant == shaders::CULL_SUBGROUPS,
            clusters: None,
            phase_layout: phase_layout.clone(),
            cluster_culling,
            filter: None,
        }
    }

    pub fn uses_subgroups(&self) -> bool {
        self.subgroups
    }

    /// Turns cluster culling on or off (from the next frame).
    pub fn set_cluster_culling(&mut self, on: bool) {
        self.cluster_culling = on;
    }

    /// Whether the camera's draws go through cluster culling.
    pub fn cluster_culling_active(&self) -> bool {
        self.cluster_culling
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
            bind_group: cached,
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
        let index = cached.index();
        if self.bind_groups.len() <= index {
            self.bind_groups
                .resize_with(index + 1, || BufferBindGroup::new("unbound cull"));
        }
        let cache = &mut self.bind_groups[index];
        let (bind_group, rebuilt) = cache.get(device, &self.layout, key, &buffers);

        encoder.clear_buffer(&out.counters, 0, None);
        let clusters_active = self.cluster_culling;
        let clusters = match &out.clusters {
            Some(draws) if clusters_active => {
                let head = size_of::<crate::gpu_types::GpuClusterStats>() as u64;
                encoder.clear_buffer(&draws.buffer, 0, Some(head));
                if let Some(filtered) = &draws.filtered {
                    filtered.clear(encoder);
                }
                let layout = &self.phase_layout;
                Some(
                    self.clusters
                        .get_or_insert_with(|| ClusterCullPass::new(device, layout)),
                )
            }
            _ => None,
        };
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
        // The early phase leaves blended objects to the late one; cascades
        // have none.
        let camera = !matches!(cached, CullBindGroup::CascadeLate(_));
        let blended = tables.bucket_objects[BUCKET_BLEND as usize] > 0;
        if blended && camera && phase != CullPhase::Early {
            pass.set_pipeline(&self.sort_blended);
            pass.dispatch_workgroups(1, 1, 1);
            commands += 2;
        }
        let mut stats = PassStats {
            commands_recorded: commands,
            bind_groups_set: 2,
            bind_group_rebuilds: u32::from(rebuilt),
        };
        // Last: it binds its own group 0.
        let ran = clusters.is_some();
        if let Some(clusters) = clusters {
            stats += clusters.record(device, &mut pass, tables, &views.main.uniforms, out, late);
            stats.commands_recorded += 1;
            stats += self.record_filter(device, &mut pass, (tables, views), out, late);
        }
        CullOutput {
            buffers: out,
            stats,
            clusters: ran,
        }
    }
}
