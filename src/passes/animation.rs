//! The animation playback pass (`wgsl/animation.wgsl`): per frame, one
//! compute dispatch samples every playing instance's clip (or two
//! blended), composes the node hierarchy and writes each instance's node
//! world matrices, joint palette and morph weights.
//!
//! The tables ([`AnimationTables`]: keys, nodes, clips, channels, joints)
//! are uploaded once, when the pass is made. Per frame the CPU writes only
//! the instances' records when what plays changed
//! ([`AnimationPass::set_instances`]) and the time, both copied inside the
//! frame's encoder (so a frame recorded but not yet submitted keeps what
//! it was recorded with). One thread per instance walks its nodes in order
//! (parents first): a first version, simple and exact; a workgroup per
//! instance with a thread per node and a barrier per hierarchy level is
//! the next step for deep skeletons.
//!
//! Output, per instance `i`, in [`AnimationPass::poses`] (`mat4x4<f32>`,
//! column-major) from [`AnimationPass::pose_offset`]: matrices
//! `i * stride .. i * stride + nodes` are the nodes' `scene_from_node`,
//! the next `joints` the palette (`scene_from_node(joint) *
//! inverse_bind`), `stride` being [`AnimationTables::pose_stride`]; in
//! [`AnimationPass::weights`] (`f32`) from
//! [`AnimationPass::weights_offset`], `i * weight_count ..` the morph
//! weights, node by node.
//!
//! **The deform buffer.** The poses buffer is also what the raster passes
//! skin with (`wgsl/pull.wgsl`, binding 12 of the scene group): made with
//! [`AnimationPass::with_skin_stream`], it starts with the skin stream,
//! one `vec4<u32>` per arena vertex (indexed like the arena's vertices:
//! joints as two `u16` pairs, weights as two `unorm16` pairs,
//! [`crate::animation::pack_influences`]), and the poses follow at an
//! offset aligned for a storage binding, then the morph weights (the
//! playback's binding 8 is that range), then the morph delta region
//! ([`AnimationPass::with_deform`]; one region per morphed mesh, written
//! by [`AnimationPass::write_morph_deltas`],
//! [`crate::animation::pack_morph_deltas`]). One buffer for all keeps
//! the draw's vertex stage at 8 storage buffers, the device contract of
//! every tier (tier C has no more to give), instead of 10.
//!
//! **Skinned bounds.** [`AnimationPass::record_with`] lets the renderer
//! record the skinned objects' culling bounds (`src/passes/skin_bounds.rs`)
//! into the same compute pass, after the playback's dispatch: they read the
//! palettes just written, and the pass's timestamps cover both.
//!
//! Every buffer's size is checked against the device's limits
//! (`src/capabilities/checked.rs`) before it is created, and the dispatch's
//! workgroup count before it is recorded. Eight storage buffers: the
//! WebGPU default per stage, which every tier's device contract asks for.

use wgpu::util::DeviceExt;

use crate::animation::{AnimationError, AnimationTables, Playing};
use crate::capabilities::CapabilityError;
use crate::capabilities::checked::{BufferBinding, check_buffer, check_dispatch};
use crate::errors::Error;
use crate::gpu_types::{GpuAnimFrame, GpuAnimInstance, uniform_bytes};
use crate::passes::{PassStats, buffer_entry, storage};
use crate::shaders;

/// Threads per workgroup (WGSL `ANIM_WORKGROUP_SIZE`): one per instance.
pub const WORKGROUP_SIZE: u32 = 64;

/// The playback pass of one [`AnimationTables`] for up to a fixed number of
/// instances (see the module docs).
#[derive(Debug)]
pub struct AnimationPass {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    frame: wgpu::Buffer,
    instances: wgpu::Buffer,
    poses: wgpu::Buffer,
    capacity: u32,
    records: Vec<GpuAnimInstance>,
    records_changed: bool,
    counts: GpuAnimFrame,
    pose_stride: u64,
    /// Where the poses start in `poses` (after the skin stream).
    poses_offset: u64,
    /// Where the morph weights start in `poses` (after the poses).
    weights_offset: u64,
    /// Where the morph deltas start in `poses` (after the weights).
    deltas_offset: u64,
    /// Vertices of the skin stream.
    stream_vertices: u32,
    /// `vec4` entries of the morph delta region.
    delta_entries: u32,
    /// Skin stream and delta entries to copy in the next record: (byte
    /// offset in the deform buffer, entries).
    stream_writes: Vec<(u64, Vec<[u32; 4]>)>,
    /// Bumped when the deform buffer is replaced (never: it is made once).
    version: u64,
    /// Bytes of every buffer the pass holds (tables, records, poses and
    /// skin stream, weights, the frame's uniforms).
    size_bytes: u64,
}

/// Bytes per vertex of the skin stream.
pub const STREAM_ENTRY_BYTES: u64 = 16;

const MATRIX_BYTES: u64 = 64;

fn bytes_of<T: bytemuck::Pod>(items: &[T]) -> &[u8] {
    bytemuck::cast_slice(items)
}

impl AnimationPass {
    /// Uploads `tables` and makes room for `capacity` instances' records and
    /// outputs. Sizes beyond the device's limits are
    /// [`CapabilityError::DeviceLimit`].
    pub fn new(
        device: &wgpu::Device,
        tables: &AnimationTables,
        capacity: u32,
    ) -> Result<Self, Error> {
        Self::with_skin_stream(device, tables, capacity, 0)
    }

    /// [`AnimationPass::new`] with a skin stream of `stream_vertices`
    /// vertices before the poses (see the module docs).
    pub fn with_skin_stream(
        device: &wgpu::Device,
        tables: &AnimationTables,
        capacity: u32,
        stream_vertices: u32,
    ) -> Result<Self, Error> {
        Self::with_deform(device, tables, capacity, stream_vertices, 0)
    }

    /// [`AnimationPass::with_skin_stream`] with a morph delta region of
    /// `delta_entries` `vec4<u32>` after the weights (see the module docs).
    pub fn with_deform(
        device: &wgpu::Device,
        tables: &AnimationTables,
        capacity: u32,
        stream_vertices: u32,
        delta_entries: u32,
    ) -> Result<Self, Error> {
        let limits = device.limits();
        let capacity = capacity.max(1);
        let pose_stride = tables.pose_stride() as u64;
        let alignment = u64::from(limits.min_storage_buffer_offset_alignment);
        let poses_offset =
            (u64::from(stream_vertices) * STREAM_ENTRY_BYTES).next_multiple_of(alignment);
        let poses_only = (u64::from(capacity) * pose_stride * MATRIX_BYTES).max(MATRIX_BYTES);
        let weights_bytes = (u64::from(capacity) * u64::from(tables.weight_count) * 4).max(4);
        let weights_offset = (poses_offset + poses_only).next_multiple_of(alignment);
        let deltas_offset = (weights_offset + weights_bytes).next_multiple_of(STREAM_ENTRY_BYTES);
        let poses_bytes = deltas_offset + u64::from(delta_entries) * STREAM_ENTRY_BYTES;
        let instances_bytes = u64::from(capacity) * size_of::<GpuAnimInstance>() as u64;
        // A table of no entries is bound as one zeroed entry.
        fn padded<T: bytemuck::Pod + Default>(items: &[T]) -> Vec<T> {
            if items.is_empty() {
                vec![T::default()]
            } else {
                items.to_vec()
            }
        }
        let keys = padded(&tables.keys);
        let nodes = padded(&tables.nodes);
        let clips = padded(&tables.clips);
        let channels = padded(&tables.channels);
        let joints = padded(&tables.joints);
        let storage_sizes = [
            ("the animation keys", bytes_of(&keys).len() as u64),
            ("the animation nodes", bytes_of(&nodes).len() as u64),
            ("the animation clips", bytes_of(&clips).len() as u64),
            ("the animation channels", bytes_of(&channels).len() as u64),
            ("the animation joints", bytes_of(&joints).len() as u64),
            ("the animation instances", instances_bytes),
            ("the deform buffer", poses_bytes),
        ];
        for (what, bytes) in storage_sizes {
            check_buffer(&limits, what, BufferBinding::Storage, bytes)?;
        }
        let storage_bytes: u64 = storage_sizes.iter().map(|(_, bytes)| bytes).sum();
        let table = |label, contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        let keys = table("unbound animation keys", bytes_of(&keys));
        let nodes = table("unbound animation nodes", bytes_of(&nodes));
        let clips = table("unbound animation clips", bytes_of(&clips));
        let channels = table("unbound animation channels", bytes_of(&channels));
        let joints = table("unbound animation joints", bytes_of(&joints));
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let counts = GpuAnimFrame {
            time: 0.0,
            instance_count: 0,
            node_count: tables.nodes.len() as u32,
            joint_count: tables.joints.len() as u32,
            weight_count: tables.weight_count,
            clip_count: tables.clips.len() as u32,
        };
        let frame_bytes = uniform_bytes(&counts).len() as u64;
        let frame = buffer(
            "unbound animation frame",
            frame_bytes,
            U::UNIFORM | U::COPY_DST,
        );
        let instances = buffer(
            "unbound animation instances",
            instances_bytes,
            U::STORAGE | U::COPY_DST,
        );
        let outputs = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let poses = buffer("unbound deform buffer", poses_bytes, outputs);

        let resources = [
            &frame, &keys, &nodes, &clips, &channels, &joints, &instances, &poses, &poses,
        ];
        let ranges = [(poses_offset, poses_only), (weights_offset, weights_bytes)];
        let (pipeline, bind_group) = pipeline_and_group(device, resources, ranges);
        Ok(Self {
            pipeline,
            bind_group,
            frame,
            instances,
            poses,
            capacity,
            records: Vec::new(),
            records_changed: false,
            counts,
            pose_stride,
            poses_offset,
            weights_offset,
            deltas_offset,
            stream_vertices,
            delta_entries,
            stream_writes: Vec::new(),
            version: 0,
            size_bytes: storage_bytes + frame_bytes,
        })
    }

    /// Writes skin stream entries from vertex `first_vertex` (copied in
    /// the next [`AnimationPass::record`]); entries beyond the stream are
    /// [`AnimationError::StreamOutOfRange`]. A pending write of the same
    /// range is dropped (this one replaces it), so skinning many objects of
    /// one mesh before a frame (a crowd) keeps one copy of its stream.
    pub fn write_skin_stream(
        &mut self,
        first_vertex: u32,
        entries: Vec<[u32; 4]>,
    ) -> Result<(), AnimationError> {
        let end = u64::from(first_vertex) + entries.len() as u64;
        if end > u64::from(self.stream_vertices) {
            return Err(AnimationError::StreamOutOfRange {
                end,
                vertices: self.stream_vertices,
            });
        }
        self.queue_write(u64::from(first_vertex) * STREAM_ENTRY_BYTES, entries);
        Ok(())
    }

    /// Writes morph delta entries from entry `first` of the delta region
    /// (copied in the next [`AnimationPass::record`], a pending write of
    /// the same range replaced); entries beyond the region are
    /// [`AnimationError::DeltasOutOfRange`].
    pub fn write_morph_deltas(
        &mut self,
        first: u32,
        entries: Vec<[u32; 4]>,
    ) -> Result<(), AnimationError> {
        let end = u64::from(first) + entries.len() as u64;
        if end > u64::from(self.delta_entries) {
            return Err(AnimationError::DeltasOutOfRange {
                end,
                entries: self.delta_entries,
            });
        }
        let offset = self.deltas_offset + u64::from(first) * STREAM_ENTRY_BYTES;
        self.queue_write(offset, entries);
        Ok(())
    }

    fn queue_write(&mut self, offset: u64, entries: Vec<[u32; 4]>) {
        if !entries.is_empty() {
            let len = entries.len();
            self.stream_writes
                .retain(|(first, pending)| (*first, pending.len()) != (offset, len));
            self.stream_writes.push((offset, entries));
        }
    }

    /// Entries of the morph delta region.
    pub fn delta_entries(&self) -> u32 {
        self.delta_entries
    }

    /// Where entry `first` of the delta region is in the deform buffer, in
    /// `vec4` units ([`crate::gpu_types::GpuObject::morph_deltas`]).
    pub fn delta_index(&self, first: u32) -> u64 {
        self.deltas_offset / STREAM_ENTRY_BYTES + u64::from(first)
    }

    /// Where instance `instance`'s weight `weight` (a node's
    /// `weight_offset` plus its target) is in the deform buffer, in 4-byte
    /// units ([`crate::gpu_types::GpuObject::morph_weights`]).
    pub fn weight_index(&self, instance: u32, weight: u32) -> u64 {
        let per_instance = u64::from(self.counts.weight_count);
        self.weights_offset / 4 + u64::from(instance) * per_instance + u64::from(weight)
    }

    /// Bytes of GPU memory the pass holds.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// The deform buffer's version (for the bind groups that read it).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Where instance `instance`'s palette of the skin whose first joint is
    /// `first_joint` starts in the deform buffer, in `vec4` units
    /// ([`crate::gpu_types::GpuObject::skin`]).
    pub fn palette_index(&self, instance: u32, first_joint: u32) -> u64 {
        let nodes = u64::from(self.counts.node_count);
        (self.pose_offset(instance) + (nodes + u64::from(first_joint)) * MATRIX_BYTES) / 16
    }

    /// What each instance plays: instance `i` plays `playing[i]` (the
    /// records are copied to the GPU in the next
    /// [`AnimationPass::record`] only if they changed). More
    /// instances than the pass was made for is
    /// [`AnimationError::TooManyInstances`].
    pub fn set_instances(&mut self, playing: &[Playing]) -> Result<(), AnimationError> {
        if playing.len() > self.capacity as usize {
            return Err(AnimationError::TooManyInstances {
                instances: playing.len(),
                capacity: self.capacity as usize,
            });
        }
        let records: Vec<GpuAnimInstance> = playing.iter().map(AnimationTables::instance).collect();
        // Copied in the next record only if they changed.
        if records != self.records {
            self.records = records;
            self.records_changed = true;
        }
        Ok(())
    }

    /// Instances the pass holds.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Instances that play.
    pub fn instance_count(&self) -> u32 {
        self.records.len() as u32
    }

    /// Records the pass for scene time `time` into `encoder`: the
    /// instances' records if they changed, the time, one dispatch (timed
    /// by `timestamps` when given). The second value says whether the
    /// dispatch was recorded (no instance: none, and no timestamps).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        time: f32,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(PassStats, bool), CapabilityError> {
        self.record_with(device, encoder, time, timestamps, None)
    }

    /// [`AnimationPass::record`], then `after` records into the same
    /// compute pass (and its timestamps), when the playback is dispatched:
    /// the skinned objects' bounds from the palettes just written
    /// (`src/passes/skin_bounds.rs`).
    pub fn record_with(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        time: f32,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
        after: Option<&dyn Fn(&mut wgpu::ComputePass<'_>) -> PassStats>,
    ) -> Result<(PassStats, bool), CapabilityError> {
        let instances = self.instance_count();
        let workgroups = instances.div_ceil(WORKGROUP_SIZE);
        check_dispatch(
            &device.limits(),
            "the animation playback",
            [workgroups, 1, 1],
        )?;
        let mut stats = PassStats::default();
        let mut upload = |bytes: &[u8], target: &wgpu::Buffer, offset: u64| {
            let staging = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unbound animation upload"),
                contents: bytes,
                usage: wgpu::BufferUsages::COPY_SRC,
            });
            encoder.copy_buffer_to_buffer(&staging, 0, target, offset, bytes.len() as u64);
            stats.commands_recorded += 1;
        };
        if self.records_changed && !self.records.is_empty() {
            upload(bytes_of(&self.records), &self.instances, 0);
        }
        for (offset, entries) in std::mem::take(&mut self.stream_writes) {
            upload(bytes_of(&entries), &self.poses, offset);
        }
        self.records_changed = false;
        let frame = GpuAnimFrame {
            time,
            instance_count: instances,
            ..self.counts
        };
        upload(&uniform_bytes(&frame), &self.frame, 0);
        if workgroups > 0 {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("unbound animation play"),
                timestamp_writes: timestamps,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(workgroups, 1, 1);
            stats.commands_recorded += 4;
            stats.bind_groups_set += 1;
            if let Some(after) = after {
                stats += after(&mut pass);
            }
        }
        Ok((stats, workgroups > 0))
    }

    /// Node world matrices and palettes (see the module docs).
    pub fn poses(&self) -> &wgpu::Buffer {
        &self.poses
    }

    /// Morph weights (see the module docs): the deform buffer, from
    /// [`AnimationPass::weights_offset`].
    pub fn weights(&self) -> &wgpu::Buffer {
        &self.poses
    }

    /// Byte offset of the morph weights in [`AnimationPass::weights`].
    pub fn weights_offset(&self) -> u64 {
        self.weights_offset
    }

    /// Byte offset of instance `instance`'s node world matrices in
    /// [`AnimationPass::poses`]; its palette follows the node matrices.
    pub fn pose_offset(&self, instance: u32) -> u64 {
        self.poses_offset + u64::from(instance) * self.pose_stride * MATRIX_BYTES
    }
}

/// The playback pipeline and its bind group over `resources` (bindings 0
/// to 8 in order; bindings 7 and 8, the poses and the weights, are the
/// ranges `ranges` (offset, bytes) of the deform buffer).
fn pipeline_and_group(
    device: &wgpu::Device,
    resources: [&wgpu::Buffer; 9],
    ranges: [(u64, u64); 2],
) -> (wgpu::ComputePipeline, wgpu::BindGroup) {
    let compute = wgpu::ShaderStages::COMPUTE;
    let mut entries = vec![buffer_entry(0, compute, wgpu::BufferBindingType::Uniform)];
    entries.extend((1..=6).map(|b| buffer_entry(b, compute, storage(true))));
    entries.extend((7..=8).map(|b| buffer_entry(b, compute, storage(false))));
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("unbound animation"),
        entries: &entries,
    });
    let bind_group_entries: Vec<wgpu::BindGroupEntry<'_>> = resources
        .iter()
        .enumerate()
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding: binding as u32,
            resource: if let Some(&(offset, size)) =
                binding.checked_sub(7).and_then(|r| ranges.get(r))
            {
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: wgpu::BufferSize::new(size),
                })
            } else {
                buffer.as_entire_binding()
            },
        })
        .collect();
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("unbound animation"),
        layout: &layout,
        entries: &bind_group_entries,
    });
    let module = shaders::ANIMATION.create(device);
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("unbound animation"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("unbound animation play"),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some("play"),
        compilation_options: Default::default(),
        cache: None,
    });
    (pipeline, bind_group)
}
