//! Triangle filtering (issue 28, stage 3; `wgsl/triangle_filter.wgsl`,
//! after Wihlidal, GDC 2016): with cluster culling on
//! (`src/passes/cluster_cull.rs`) and
//! [`crate::RendererConfig::triangle_filtering`] on, each of the camera's
//! cull dispatches ends with two more: every triangle of every surviving
//! cluster draw of the opaque and double-sided buckets is tested, and the
//! survivors' indices are written, compacted, to the bucket's region of a
//! per-frame index buffer that one indirect draw per bucket draws. A cube
//! (one cluster facing every way, which no normal cone can cull) loses
//! its back half here, and the million cluster draws of the cube grid
//! become two. On tiers B and C it runs whenever cluster culling does
//! (below).
//!
//! **When it pays** (`docs/PERFORMANCE.md`, H200): it halves the 1M cube
//! grid's rasterised triangles and takes the cluster path from 5.97 to
//! 5.39 ms there, but costs 0.1–0.2 ms at 100k and in the city, whose
//! draw pass is not bound by triangles: off by default. It is all or
//! nothing per frame (no projected-size threshold yet).
//!
//! **The tests** (the CPU twin: [`crate::geometry::clusters::triangle_verdict`]).
//! A triangle is dropped only where no sample can be covered: wholly
//! beyond one clip plane (any `w`); in the opaque bucket, clockwise on
//! screen by more than sub-pixel snapping ([`TRIANGLE_SNAP_PIXELS`] per corner and
//! axis) can change, with every corner in front of the eye; with one
//! sample per pixel, no pixel centre in its screen box grown by the same
//! slack. The back-face test is the rasteriser's own (screen winding after
//! the instance's transform), so a mirrored instance, whose winding flips,
//! loses exactly the triangles the rasteriser would cull; the
//! double-sided bucket gets no back-face test. A triangle touching
//! `w <= 0` gets no screen test. With MSAA the pixel-centre test is off
//! (samples are not at the centre). The images are those without
//! filtering: `tests/triangle_filter.rs`.
//!
//! **Draw identity** stays DX12-safe (wgpu issue 7974, no draw parameter
//! read through builtins): a compacted index is
//! `(record << 10) | (vertex - base)`, where `record` is the cluster draw's index and the record
//! (a `DrawIndexedIndirect` in the filter's draws buffer: `base_vertex` the
//! cluster's lowest arena vertex, `first_instance` its visible-list entry)
//! is what the scene group binds as `draws` while filtering ran. The
//! packed draws bind an instance-rate buffer holding [`FILTERED_SLOT`];
//! `pull_vertex` (`wgsl/pull.wgsl`) decodes such vertices. Indices of one
//! vertex are equal, so the post-transform cache still reuses it. A
//! cluster whose vertices span 2^[`LOCAL_VERTEX_BITS`] or more, a skinned
//! or morphed instance, a record past [`MAX_RECORDS`] and a cluster whose
//! survivors do not fit its bucket's region are drawn unfiltered, as
//! pass-through draws (one per cluster, as without filtering).
//!
//! **Tiers B and C** (no indirect count, [`crate::IndirectMode::Plain`]):
//! the packed draw of each bucket is a plain `draw_indexed_indirect`; a
//! skinned or morphed instance's clusters are packed untested (all their
//! triangles) rather than passed through. The pass-through draws are
//! issued as a plain multi-draw of `plain_pass_through_draws` draws per
//! bucket, cleared to zero before the cull and filled by the filter from
//! the front: 0 where the live objects' meshes have no cluster spanning
//! 2^[`LOCAL_VERTEX_BITS`] vertices, their index lists (every level's,
//! summed over objects) fit a bucket's index region and the records fit
//! the index's record bits; else as many as the wide meshes' objects can
//! draw clusters, or, where the index regions or records could run out,
//! the whole region. These bounds come from the live objects on the CPU
//! (`GeometryArena::packing_bounds`), never from the GPU's survivors. The
//! packed draw's cost does not grow with the scene; past the index budget
//! (about 5.6M triangles per bucket) the zero-padded pass-through draws do.
//!
//! **Memory** (`FilteredBuffers`, beside each cluster draws buffer): the
//! records and pass-through draws, 40 bytes per cluster draw per bucket,
//! and per bucket an index region of the bound `3 × 124 ×` cluster draws
//! per bucket, capped at [`INDEX_BUDGET_BYTES`] over both buckets and at
//! the device's storage binding and buffer limits: what does not fit is
//! drawn unfiltered (the fall-back above), so no scene fails for it.

use wgpu::util::DeviceExt;

use crate::geometry::PackingBounds;
use crate::geometry::clusters::{CLUSTER_MAX_TRIANGLES, TRIANGLE_SNAP_PIXELS};
use crate::gpu_types::{CLUSTER_BUCKETS, GpuTriangleFilter, GpuTriangleFilterHead};
use crate::passes::{BufferBindGroup, GpuTables, PassStats, buffer_entry, storage};
use crate::shaders;

/// Low bits of a compacted index holding the vertex's offset from its
/// cluster's lowest vertex (WGSL `LOCAL_VERTEX_BITS`).
pub const LOCAL_VERTEX_BITS: u32 = 10;
/// Records a compacted index can name (WGSL `MAX_RECORDS`): the rest of
/// the 32 bits, less one so that no index is `0xffffffff`.
pub const MAX_RECORDS: u32 = (1 << (32 - LOCAL_VERTEX_BITS)) - 1;
/// The instance slot of the packed draws (WGSL `FILTERED_SLOT`).
pub const FILTERED_SLOT: u32 = u32::MAX;
/// Most bytes of compacted indices per cluster draws buffer (both
/// buckets).
pub const INDEX_BUDGET_BYTES: u64 = 128 << 20;
/// Bytes of one `DrawIndexedIndirect`.
const DRAW_BYTES: u64 = 20;

/// Bytes of the filter's draws buffer for `draws_per_bucket`: records,
/// head, pass-through draws.
pub(crate) fn filtered_draws_size_bytes(draws_per_bucket: u32) -> u64 {
    2 * u64::from(CLUSTER_BUCKETS) * u64::from(draws_per_bucket) * DRAW_BYTES
        + size_of::<GpuTriangleFilterHead>() as u64
}

/// Indices per bucket region for `draws_per_bucket` cluster draws under
/// `limits` (see the module docs).
pub(crate) fn index_capacity(draws_per_bucket: u32, limits: &wgpu::Limits) -> u32 {
    let bound = 3 * CLUSTER_MAX_TRIANGLES as u64 * u64::from(draws_per_bucket);
    let bytes = INDEX_BUDGET_BYTES
        .min(limits.max_buffer_size)
        .min(limits.max_storage_buffer_binding_size);
    let per_bucket = bytes / 4 / u64::from(CLUSTER_BUCKETS);
    // Whole triangles.
    (bound.min(per_bucket).min(u64::from(u32::MAX)) as u32) / 3 * 3
}

/// The filter's buffers for one cluster draws buffer.
#[derive(Debug)]
pub(crate) struct FilteredBuffers {
    /// Records (`2 × draws_per_bucket` draws), the head
    /// ([`GpuTriangleFilterHead`]), then per bucket its pass-through draws.
    pub draws: wgpu::Buffer,
    /// Per bucket `index_capacity` compacted indices.
    pub indices: wgpu::Buffer,
    /// The packed draws' instance-rate buffer: [`FILTERED_SLOT`].
    pub marker: wgpu::Buffer,
    pub draws_per_bucket: u32,
    /// Pass-through draws per bucket the CPU issues without a count
    /// (tiers B and C: [`plain_pass_through_draws`]; 0 on tier A, whose
    /// count is read on the GPU).
    pub plain_pass_through: u32,
    pub params: wgpu::Buffer,
    /// The target and samples `params` were written for.
    params_key: ((u32, u32), bool),
}

impl FilteredBuffers {
    /// Buffers for `draws_per_bucket` cluster draws per bucket, a target
    /// of `viewport` pixels, the pixel test where `pixel_test`.
    pub fn new(
        device: &wgpu::Device,
        draws_per_bucket: u32,
        viewport: (u32, u32),
        pixel_test: bool,
    ) -> Self {
        let capacity = index_capacity(draws_per_bucket, &device.limits());
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | usage,
                mapped_at_creation: false,
            })
        };
        let index_bytes = 4 * u64::from(CLUSTER_BUCKETS) * u64::from(capacity.max(3));
        Self {
            draws: buffer(
                "unbound filtered draws",
                filtered_draws_size_bytes(draws_per_bucket),
                wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            ),
            indices: buffer(
                "unbound filtered indices",
                index_bytes,
                wgpu::BufferUsages::INDEX,
            ),
            marker: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unbound filtered slot"),
                contents: bytemuck::bytes_of(&FILTERED_SLOT),
                usage: wgpu::BufferUsages::VERTEX,
            }),
            draws_per_bucket,
            plain_pass_through: 0,
            params: Self::params(device, draws_per_bucket, capacity, viewport, pixel_test),
            params_key: (viewport, pixel_test),
        }
    }

    fn params(
        device: &wgpu::Device,
        draws_per_bucket: u32,
        index_capacity: u32,
        viewport: (u32, u32),
        pixel_test: bool,
    ) -> wgpu::Buffer {
        let params = GpuTriangleFilter {
            viewport: [viewport.0 as f32, viewport.1 as f32],
            draws_per_bucket,
            index_capacity,
            head_word: (self::head_offset(draws_per_bucket) / 4) as u32,
            pixel_test: u32::from(pixel_test),
            snap_pixels: TRIANGLE_SNAP_PIXELS,
            _pad: 0,
        };
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("unbound triangle filter"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        })
    }

    /// Rewrites the parameters for another target or sample count;
    /// returns whether they changed.
    pub fn retarget(
        &mut self,
        device: &wgpu::Device,
        viewport: (u32, u32),
        pixel_test: bool,
    ) -> bool {
        if self.params_key == (viewport, pixel_test) {
            return false;
        }
        let capacity = self.index_capacity();
        self.params = Self::params(
            device,
            self.draws_per_bucket,
            capacity,
            viewport,
            pixel_test,
        );
        self.params_key = (viewport, pixel_test);
        true
    }

    /// Indices per bucket region.
    pub fn index_capacity(&self) -> u32 {
        (self.indices.size() / 4 / u64::from(CLUSTER_BUCKETS)) as u32
    }

    /// Byte offset of the head.
    pub fn head_offset(&self) -> u64 {
        head_offset(self.draws_per_bucket)
    }

    /// Byte offset of bucket `bucket`'s pass-through draws.
    pub fn pass_draws_offset(&self, bucket: u32) -> u64 {
        self.head_offset()
            + size_of::<GpuTriangleFilterHead>() as u64
            + u64::from(bucket) * u64::from(self.draws_per_bucket) * DRAW_BYTES
    }

    /// The records, as the scene group binds them (`draws`, offset 0).
    pub fn records(&self) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer: &self.draws,
            offset: 0,
            size: wgpu::BufferSize::new(self.head_offset()),
        }
    }

    /// Clears the head and, on tiers B and C, the pass-through draws the
    /// CPU issues (zero-padded past what the filter writes).
    pub fn clear(&self, encoder: &mut wgpu::CommandEncoder) {
        let head = size_of::<GpuTriangleFilterHead>() as u64;
        encoder.clear_buffer(&self.draws, self.head_offset(), Some(head));
        if self.plain_pass_through > 0 {
            for bucket in 0..CLUSTER_BUCKETS {
                let bytes = u64::from(self.plain_pass_through) * DRAW_BYTES;
                encoder.clear_buffer(&self.draws, self.pass_draws_offset(bucket), Some(bytes));
            }
        }
    }

    pub fn size_bytes(&self) -> u64 {
        self.draws.size() + self.indices.size() + self.marker.size() + self.params.size()
    }
}

/// Pass-through draws per bucket that tiers without indirect count
/// (B and C) issue, zero-padded, for `draws_per_bucket` cluster draws per
/// bucket and `index_capacity` indices per bucket region, where the live
/// objects' cluster draws hold at most `bounds` (see the module docs):
/// none where every cluster draw provably packs, the wide clusters where
/// only they can fail, every draw where the records or the index regions
/// could run out.
pub(crate) fn plain_pass_through_draws(
    draws_per_bucket: u32,
    index_capacity: u32,
    bounds: PackingBounds,
) -> u32 {
    let records = u64::from(CLUSTER_BUCKETS) * u64::from(draws_per_bucket);
    if records > u64::from(MAX_RECORDS) || bounds.indices > u64::from(index_capacity) {
        return draws_per_bucket;
    }
    bounds.wide_clusters.min(u64::from(draws_per_bucket)) as u32
}

/// Byte offset of the head: after the records of both buckets.
fn head_offset(draws_per_bucket: u32) -> u64 {
    u64::from(CLUSTER_BUCKETS) * u64::from(draws_per_bucket) * DRAW_BYTES
}

/// Where the triangle filter wrote one frame's output
/// ([`crate::Renderer::filtered_triangle_buffers`]).
#[derive(Clone, Copy, Debug)]
pub struct FilteredTriangleBuffers<'a> {
    /// The records (per cluster draw a `DrawIndexedIndirectArgs`:
    /// `base_vertex` the cluster's lowest vertex, `first_instance` its
    /// visible-list entry), the head at [`Self::head_offset`], then per
    /// bucket `draws_per_bucket` pass-through draws at
    /// [`Self::pass_draws_offset`].
    pub draws: &'a wgpu::Buffer,
    /// Per bucket `index_capacity` compacted indices.
    pub indices: &'a wgpu::Buffer,
    /// Byte offset of the [`GpuTriangleFilterHead`].
    pub head_offset: u64,
    /// Byte offsets of each bucket's pass-through draws.
    pub pass_draws_offset: [u64; CLUSTER_BUCKETS as usize],
    /// Compacted indices per bucket region.
    pub index_capacity: u32,
    /// Cluster draws (and records, and pass-through draws) per bucket.
    pub draws_per_bucket: u32,
}

impl FilteredBuffers {
    /// Where they lie, for inspection.
    pub fn view(&self) -> FilteredTriangleBuffers<'_> {
        FilteredTriangleBuffers {
            draws: &self.draws,
            indices: &self.indices,
            head_offset: self.head_offset(),
            pass_draws_offset: [0, 1].map(|b| self.pass_draws_offset(b)),
            index_capacity: self.index_capacity(),
            draws_per_bucket: self.draws_per_bucket,
        }
    }
}

/// What the filter reads and writes besides the tables.
pub(crate) struct FilterInputs<'a> {
    /// The camera's `FrameUniforms`.
    pub camera_uniforms: &'a wgpu::Buffer,
    /// The camera's region of the visible list.
    pub visible_instances: wgpu::BufferBinding<'a>,
    /// The cluster draws buffer (statistics head, then draws).
    pub cluster_draws: &'a wgpu::Buffer,
    pub filtered: &'a FilteredBuffers,
    /// Workgroups (x, y) covering `draws_per_bucket` threads
    /// (`cull_buffers::dispatch_size`).
    pub workgroups: (u32, u32),
    /// Changes whenever a buffer above is reallocated.
    pub version: u64,
}

/// The triangle filter's two dispatches (see the module docs).
#[derive(Debug)]
pub(crate) struct TriangleFilterPass {
    layout: wgpu::BindGroupLayout,
    filter: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
    /// Over the views' buffers, and over the late phase's.
    bind_groups: [BufferBindGroup<[u64; 3]>; 2],
}

impl TriangleFilterPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let entry = |binding, ty| buffer_entry(binding, compute, ty);
        let uniform = wgpu::BufferBindingType::Uniform;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound triangle filter"),
            entries: &[
                entry(0, uniform),
                entry(1, uniform),
                entry(2, storage(true)),
                entry(3, storage(true)),
                entry(4, storage(true)),
                entry(5, storage(true)),
                entry(6, storage(false)),
                entry(7, storage(false)),
                entry(8, storage(false)),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound triangle filter"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::TRIANGLE_FILTER.create(device);
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
            filter: pipeline("filter_triangles"),
            finish: pipeline("finish_filter"),
            layout,
            bind_groups: [
                BufferBindGroup::new("unbound triangle filter"),
                BufferBindGroup::new("unbound late triangle filter"),
            ],
        }
    }

    /// Records the dispatches into `pass` (after cluster culling wrote the
    /// cluster draws); the filter's head must have been cleared before
    /// the pass. Binds its own group 0.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        tables: &GpuTables<'_>,
        inputs: &FilterInputs<'_>,
        late: bool,
    ) -> PassStats {
        let filtered = inputs.filtered;
        let key = [tables.objects_version, tables.arena_version, inputs.version];
        let buffers = [
            inputs.camera_uniforms.as_entire_buffer_binding(),
            filtered.params.as_entire_buffer_binding(),
            tables.objects.as_entire_buffer_binding(),
            inputs.visible_instances.clone(),
            tables.indices.as_entire_buffer_binding(),
            tables.vertices.as_entire_buffer_binding(),
            inputs.cluster_draws.as_entire_buffer_binding(),
            filtered.draws.as_entire_buffer_binding(),
            filtered.indices.as_entire_buffer_binding(),
        ];
        let cache = &mut self.bind_groups[usize::from(late)];
        let (group, rebuilt) = cache.get_ranges(device, &self.layout, key, &buffers);
        pass.set_bind_group(0, group, &[]);
        pass.set_pipeline(&self.filter);
        let (x, y) = inputs.workgroups;
        pass.dispatch_workgroups(x, y, CLUSTER_BUCKETS);
        pass.set_pipeline(&self.finish);
        pass.dispatch_workgroups(1, 1, 1);
        PassStats {
            commands_recorded: 5,
            bind_groups_set: 1,
            bind_group_rebuilds: u32::from(rebuilt),
        }
    }
}
