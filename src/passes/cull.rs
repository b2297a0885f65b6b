//! The cull pass (compute): frustum-tests every object slot and writes the
//! frame's visible-instance list (per mesh, roughly front to back) and one
//! indirect draw per mesh with visible instances. See `wgsl/cull.wgsl`.

use crate::gpu_types::{BLEND_SORT_CAP, BUCKET_BLEND, BUCKETS, GpuCullHeader, GpuMesh};
use crate::passes::{BufferBindGroup, GpuTables, PassStats, View, buffer_entry, storage};
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

/// Bytes of the counters buffer for `mesh_capacity` mesh slots: the
/// `CullHeader`, two `key_data` entries (count, range start) per (pipeline
/// bucket, mesh, depth bucket) key, so 384 B per mesh slot, and the blend
/// list.
pub(crate) fn counters_size_bytes(mesh_capacity: u32) -> u64 {
    let keys = u64::from(BUCKETS) * u64::from(DEPTH_BUCKETS) * u64::from(mesh_capacity);
    size_of::<GpuCullHeader>() as u64 + KEY_DATA_ENTRY_SIZE * (2 * keys + u64::from(BLEND_TAIL))
}

/// Bytes of the indirect draws for `mesh_capacity` mesh slots: one region
/// of a draw per mesh slot per pipeline bucket, then the sorted blended
/// draws.
pub(crate) fn draws_size_bytes(mesh_capacity: u32) -> u64 {
    DRAW_ARGS_SIZE * (u64::from(BUCKETS) * u64::from(mesh_capacity) + u64::from(BLEND_SORT_CAP))
}

/// Bytes of a per-instance list (the instance rank, the visible instances)
/// for `instance_capacity` instances.
pub(crate) fn instance_list_size_bytes(instance_capacity: u32) -> u64 {
    size_of::<u32>() as u64 * u64::from(instance_capacity)
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

/// The buffers the cull pass writes for one view, sized for the current
/// table capacities and kept from frame to frame.
#[derive(Debug)]
pub(crate) struct CullBuffers {
    /// `CullHeader` + per-(pipeline bucket, mesh, depth bucket) counts + their
    /// range starts + the blend list ([`BLEND_TAIL`] entries).
    pub counters: wgpu::Buffer,
    pub instance_rank: wgpu::Buffer,
    pub visible_instances: wgpu::Buffer,
    /// Per bucket a region of `mesh_capacity` draws, then `BLEND_SORT_CAP`
    /// sorted blended draws.
    pub draws: wgpu::Buffer,
    pub mesh_capacity: u32,
    pub instance_capacity: u32,
    /// Changes whenever the buffers are reallocated.
    pub version: u64,
}

impl CullBuffers {
    /// Buffers for `mesh_capacity` mesh slots and `instance_capacity`
    /// instances, each at least [`INITIAL_CAPACITY`].
    pub fn new(device: &wgpu::Device, mesh_capacity: u32, instance_capacity: u32) -> Self {
        let mesh_capacity = mesh_capacity.max(INITIAL_CAPACITY);
        let instance_capacity = instance_capacity.max(INITIAL_CAPACITY);
        let buffer = |label, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE | usage,
                mapped_at_creation: false,
            })
        };
        let copy = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        Self {
            counters: buffer(
                "unbound cull counters",
                counters_size_bytes(mesh_capacity),
                wgpu::BufferUsages::INDIRECT | copy,
            ),
            instance_rank: buffer(
                "unbound instance rank",
                instance_list_size_bytes(instance_capacity),
                copy,
            ),
            visible_instances: buffer(
                "unbound visible instances",
                instance_list_size_bytes(instance_capacity),
                copy,
            ),
            draws: buffer(
                "unbound indirect draws",
                draws_size_bytes(mesh_capacity),
                wgpu::BufferUsages::INDIRECT | copy,
            ),
            mesh_capacity,
            instance_capacity,
            version: 0,
        }
    }

    /// Reallocates the buffers if the tables outgrew them.
    pub fn ensure_capacity(
        &mut self,
        device: &wgpu::Device,
        meshes: &wgpu::Buffer,
        instance_capacity: u32,
    ) {
        let mesh_capacity = (meshes.size() / size_of::<GpuMesh>() as u64) as u32;
        if mesh_capacity > self.mesh_capacity || instance_capacity > self.instance_capacity {
            let version = self.version + 1;
            *self = Self::new(
                device,
                mesh_capacity.max(self.mesh_capacity),
                instance_capacity.max(self.instance_capacity),
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
}

/// What the cull pass wrote for a view this frame, handed to the passes that
/// read it (the draw pass, the statistics readback).
#[derive(Debug)]
pub(crate) struct CullOutput<'a> {
    /// Object slots of the visible instances, one range per (pipeline
    /// bucket, mesh, depth bucket) key, near to far.
    pub visible_instances: &'a wgpu::Buffer,
    /// `DrawIndexedIndirectArgs`: per pipeline bucket a region of
    /// `draws_per_bucket`, then the sorted blended draws.
    pub draws: &'a wgpu::Buffer,
    /// The `CullHeader` (draw counts per bucket, visible instances,
    /// triangles) first.
    pub counters: &'a wgpu::Buffer,
    /// Entries per bucket region of `draws`.
    pub draws_per_bucket: u32,
    /// Changes whenever these buffers are reallocated.
    pub version: u64,
    /// What the pass recorded.
    pub stats: PassStats,
}

#[derive(Debug)]
pub(crate) struct CullPass {
    layout: wgpu::BindGroupLayout,
    cull_instances: wgpu::ComputePipeline,
    build_draws: wgpu::ComputePipeline,
    scatter_visible: wgpu::ComputePipeline,
    sort_blended: wgpu::ComputePipeline,
    bind_group: BufferBindGroup<[u64; 3]>,
}

impl CullPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let entry = |binding, ty| buffer_entry(binding, compute, ty);
        let uniform = wgpu::BufferBindingType::Uniform;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound cull"),
            entries: &[
                entry(0, uniform),
                entry(1, storage(true)),
                entry(2, storage(true)),
                entry(3, storage(true)),
                entry(4, storage(true)),
                entry(5, storage(false)),
                entry(6, storage(false)),
                entry(7, storage(false)),
                entry(8, storage(false)),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound cull"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::CULL.create(device);
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
            build_draws: pipeline("build_draws"),
            scatter_visible: pipeline("scatter_visible"),
            sort_blended: pipeline("sort_blended"),
            layout,
            bind_group: BufferBindGroup::new("unbound cull"),
        }
    }

    /// Records the cull pass for `view` over every object slot: the view's
    /// visible list and indirect draws.
    pub fn record<'v>(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        tables: &GpuTables<'_>,
        view: &'v View,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> CullOutput<'v> {
        let out = &view.cull;
        let key = [tables.objects_version, tables.arena_version, out.version];
        let buffers = [
            &view.uniforms,
            tables.counts,
            tables.bounds,
            tables.batch,
            tables.meshes,
            &out.counters,
            &out.instance_rank,
            &out.visible_instances,
            &out.draws,
        ];
        let (bind_group, rebuilt) = self.bind_group.get(device, &self.layout, key, &buffers);

        encoder.clear_buffer(&out.counters, 0, None);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound cull"),
            timestamp_writes: timestamps,
        });
        pass.set_bind_group(0, bind_group, &[]);
        let (x, y) = dispatch_size(tables.object_slots);
        pass.set_pipeline(&self.cull_instances);
        pass.dispatch_workgroups(x, y, 1);
        pass.set_pipeline(&self.build_draws);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.scatter_visible);
        pass.dispatch_workgroups(x, y, 1);
        // clear, pass, bind, 3 x (pipeline + dispatch)
        let mut commands = 8;
        if tables.bucket_objects[BUCKET_BLEND as usize] > 0 {
            pass.set_pipeline(&self.sort_blended);
            pass.dispatch_workgroups(1, 1, 1);
            commands += 2;
        }
        CullOutput {
            visible_instances: &out.visible_instances,
            draws: &out.draws,
            counters: &out.counters,
            draws_per_bucket: out.mesh_capacity,
            version: out.version,
            stats: PassStats {
                commands_recorded: commands,
                bind_groups_set: 1,
                bind_group_rebuilds: u32::from(rebuilt),
            },
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
