//! Cluster culling (issue 28, stage 2; `wgsl/cluster_cull.wgsl`, the
//! clusters: [`crate::geometry::clusters`]): with
//! [`crate::RendererConfig::cluster_culling`] on, each of the camera's cull
//! dispatches ends with one more, over the camera's visible list: each
//! opaque or double-sided instance expands to its mesh's (or chosen
//! level's) clusters, culled by frustum, normal cone and, in the late
//! occlusion phase, the depth pyramid; each survivor is one indirect draw
//! of its index range (one instance, `first_instance` its entry in the
//! visible list). An instance of a cluster-LOD mesh first keeps the
//! clusters of its cut (`wgsl/cluster_lod.wgsl`,
//! [`crate::geometry::cluster_lod`]: a plain loop over every level's
//! clusters for now; a traversal of the hierarchy is future work). The draw pass (and the depth pre-pass) then issue these
//! for the two buckets, with the count read on the GPU; blended instances
//! and every shadow view keep the instance draws. With
//! [`crate::RendererConfig::triangle_filtering`] the surviving clusters'
//! triangles are filtered before the draw
//! ([`crate::passes::triangle_filter`]).
//!
//! **Choices, and why.**
//! - *One thread per visible instance, looping over its clusters* (not a
//!   second dispatch over (instance, cluster) pairs): the instance's
//!   transform, object-space camera and level are computed once, no prefix
//!   sum over cluster counts is needed, and the cube grid (one cluster per
//!   mesh) gets exactly one thread per instance. A large mesh seen by few
//!   instances makes long threads; those scenes have few instances, so
//!   the dispatch stays short (`docs/PERFORMANCE.md` has the numbers).
//! - *One indirect draw per surviving cluster* (not a compacted index
//!   buffer): no index copy, no per-frame index memory; the cost is a
//!   draw per cluster, which the H200's multi-draw-indirect-count takes
//!   without CPU work. Draw identity stays DX12-safe (wgpu issue 7974):
//!   the shaders read `first_instance` through the instance-rate
//!   attribute, never `instance_index`.
//! - *Instance-level occlusion bits*: the early phase draws the clusters
//!   of instances seen last frame (frustum and cone culled, no pyramid);
//!   the late phase tests the clusters of newly seen instances against
//!   the pyramid too. No per-cluster "visible last frame" bit yet.
//! - *Tiers B and C through the triangle filter's packing*: without
//!   indirect count ([`crate::IndirectMode::Plain`]) the CPU cannot issue
//!   "as many draws as survived". There the triangle filter always runs
//!   after this pass, and its packed draws (one per bucket: every
//!   surviving cluster's kept triangles, their object decoded per vertex
//!   from `FILTERED_SLOT`) are issued as plain indirect draws, so the
//!   commands recorded are the same for any scene. The alternative, a
//!   plain multi-draw over the whole cluster draws region with
//!   zero-count padding, would cost Metal and GL (where wgpu loops over
//!   a multi-draw's draws on the CPU) a draw call per (instance, cluster)
//!   slot each frame: a million at the 1M cube grid. To keep every draw
//!   packable there, a skinned instance draws each of its mesh's clusters
//!   untested instead of one whole-mesh draw. What still cannot pack (a
//!   cluster whose vertices span too far, index regions or records that
//!   could run out) is bounded on the CPU from the live objects alone:
//!   [`crate::passes::triangle_filter`] says how.
//!
//! **Buffers** (`ClusterDrawBuffer`, beside the other cull buffers in
//! `src/passes/cull_buffers.rs`). Each set of cull buffers (the views', the late phase's)
//! has one cluster draws buffer: [`GpuClusterStats`] (the two buckets'
//! draw counts and the statistics), then per bucket a region of draws as
//! long as the live objects' clusters summed (each object counting its
//! mesh's largest level: [`crate::GeometryArena::instance_clusters`]),
//! so no frame can overflow it; 20 bytes per (object, cluster) per bucket
//! and phase. It grows with the scene, checked against the device's
//! limits before a frame records (`src/renderer/checks.rs`).

use crate::passes::cull_buffers::{
    CullBuffers, counters_region_bytes, dispatch_size, instance_region_bytes,
};
use crate::passes::{BufferBindGroup, GpuTables, PassStats, buffer_entry, storage};
use crate::shaders;

/// Threads per visible entry the dispatch aims at where cluster-LOD meshes
/// have instances: a share of about this many clusters per thread.
const CLUSTERS_PER_THREAD: u32 = 64;
/// The most threads per object slot.
const MAX_SPREAD: u32 = 256;

/// Threads the dispatch runs for `object_slots` object slots, where the
/// largest live cluster-LOD mesh has `lod_clusters` clusters (0: none):
/// one per slot, or, with cluster-LOD meshes, enough that an instance's
/// clusters split into shares of about [`CLUSTERS_PER_THREAD`] (at most
/// [`MAX_SPREAD`] per slot, and at most 2^24 threads unless the slots
/// alone need more). The shader spreads the threads over the visible
/// entries, so more threads only shorten the loops.
fn dispatch_threads(object_slots: u32, lod_clusters: u32) -> u32 {
    let spread = lod_clusters
        .div_ceil(CLUSTERS_PER_THREAD)
        .clamp(1, MAX_SPREAD);
    object_slots
        .saturating_mul(spread)
        .min((1 << 24).max(object_slots))
}

/// The cluster culling dispatch (see the module docs).
#[derive(Debug)]
pub(crate) struct ClusterCullPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    /// Over the views' buffers, and over the late phase's.
    bind_groups: [BufferBindGroup<[u64; 3]>; 2],
}

impl ClusterCullPass {
    /// The pass; `phase_layout` is the cull pass's group 1.
    pub fn new(device: &wgpu::Device, phase_layout: &wgpu::BindGroupLayout) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let entry = |binding, ty| buffer_entry(binding, compute, ty);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound cluster cull"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, storage(true)),
                entry(2, storage(true)),
                entry(3, storage(true)),
                entry(4, storage(true)),
                entry(5, storage(true)),
                entry(6, storage(true)),
                entry(7, storage(false)),
                entry(8, storage(true)),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound cluster cull"),
            bind_group_layouts: &[Some(&layout), Some(phase_layout)],
            immediate_size: 0,
        });
        let module = shaders::CLUSTER_CULL.create(device);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("cull_clusters"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("cull_clusters"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self {
            layout,
            pipeline,
            bind_groups: [
                BufferBindGroup::new("unbound cluster cull"),
                BufferBindGroup::new("unbound late cluster cull"),
            ],
        }
    }

    /// Records the dispatch into `pass` (the cull pass's, group 1 already
    /// set) over the camera's region of `out` (`camera_uniforms`: its
    /// `FrameUniforms`), whose cluster draws
    /// buffer's head must have been cleared before the pass.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        tables: &GpuTables<'_>,
        camera_uniforms: &wgpu::Buffer,
        out: &CullBuffers,
        late: bool,
    ) -> PassStats {
        let Some(draws) = out.clusters.as_ref() else {
            return PassStats::default();
        };
        let key = [tables.objects_version, tables.arena_version, out.version];
        let binding = |buffer, size| wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: wgpu::BufferSize::new(size),
        };
        let buffers = [
            camera_uniforms.as_entire_buffer_binding(),
            tables.batch.as_entire_buffer_binding(),
            tables.objects.as_entire_buffer_binding(),
            tables.meshes.as_entire_buffer_binding(),
            tables.clusters.as_entire_buffer_binding(),
            binding(&out.counters, counters_region_bytes(out.mesh_capacity)),
            binding(
                &out.visible_instances,
                instance_region_bytes(out.instance_capacity),
            ),
            draws.buffer.as_entire_buffer_binding(),
            tables.cluster_lods.as_entire_buffer_binding(),
        ];
        let cache = &mut self.bind_groups[usize::from(late)];
        let (group, rebuilt) = cache.get_ranges(device, &self.layout, key, &buffers);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        let (x, y) = dispatch_size(dispatch_threads(
            tables.object_slots,
            tables.cluster_lod_clusters,
        ));
        pass.dispatch_workgroups(x, y, 1);
        PassStats {
            commands_recorded: 3,
            bind_groups_set: 1,
            bind_group_rebuilds: u32::from(rebuilt),
        }
    }
}
