//! Culling bounds that follow the pose: the playback pass's second entry
//! point (`bound_skins` in `wgsl/animation.wgsl`), dispatched in the same
//! compute pass right after the playback
//! ([`crate::passes::animation::AnimationPass::record_with`]), before any
//! cull.
//!
//! Per skinned object, one [`GpuSkinnedBounds`] record names its slot, its
//! palette and its skin's joint spheres (bind-pose mesh space, `[x, y, z,
//! r]`, [`crate::animation::joint_spheres`]; a negative radius marks a
//! joint that moves no vertex). One thread per record moves each sphere by
//! its palette matrix, encloses them ([`crate::animation::skinned_sphere`]'s
//! formula) and places the result with the object's `world_from_object`
//! ([`crate::scene::world_sphere`]'s): that world sphere replaces the
//! object's entry of the bounds stream, which every view's cull (camera,
//! cascades, spots, occlusion's phases) and the bounds view then read. A
//! record whose object no longer has that palette (unskinned, re-skinned,
//! slot reused) is skipped: the CPU's bounds stand.
//!
//! Both tables are uploaded when they change (objects skinned, at load),
//! never per frame. Spheres are stored once per skinned mesh and skin (a
//! crowd of one model shares them): 16 bytes per joint, plus 16 bytes per
//! skinned object. Objects that are not skinned cost nothing; without any
//! skinned object, or when nothing plays, nothing is dispatched. Morph
//! deltas are in the joint spheres' radii already
//! ([`crate::animation::SkinnedMesh::with_reach`]).

use std::collections::HashMap;

use wgpu::util::DeviceExt;

use crate::animation::AnimationError;
use crate::capabilities::CapabilityError;
use crate::capabilities::checked::{BufferBinding, check_buffer, check_dispatch};
use crate::gpu_types::GpuSkinnedBounds;
use crate::passes::animation::WORKGROUP_SIZE;
use crate::passes::{PassStats, buffer_entry, storage};
use crate::shaders;

/// The joint sphere of a joint that moves no vertex (a negative radius).
const NO_SPHERE: [f32; 4] = [0.0, 0.0, 0.0, -1.0];

/// The buffers the bound is made from and written to, as the frame binds
/// them: the deform buffer (palettes), the object table and the bounds
/// stream, with the key that says when they were replaced.
#[derive(Clone, Copy, Debug)]
pub struct SkinBoundsTargets<'a> {
    /// The deform buffer (skin stream and palettes).
    pub deform: &'a wgpu::Buffer,
    /// The object table (`GpuObject`).
    pub objects: &'a wgpu::Buffer,
    /// The bounds stream the cull pass reads (written).
    pub bounds: &'a wgpu::Buffer,
    /// Changes whenever one of the three buffers is replaced.
    pub version: u64,
}

/// The skinned objects' bounds (see the module docs).
#[derive(Debug)]
pub struct SkinBoundsPass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    /// Every skinned mesh's joint spheres, one after the other.
    spheres: Vec<[f32; 4]>,
    /// Per (mesh's first arena vertex, skin's first joint): where its
    /// spheres start in `spheres`.
    placed: HashMap<(u32, u32), u32>,
    records: Vec<GpuSkinnedBounds>,
    /// Per object slot, its record's index.
    record_of_object: HashMap<u32, usize>,
    /// The records and the spheres on the GPU, once uploaded.
    tables: Option<(wgpu::Buffer, wgpu::Buffer)>,
    tables_changed: bool,
    /// The bind group, with the targets' version and the tables' upload
    /// it was built for.
    bind_group: Option<((u64, u64), wgpu::BindGroup)>,
    uploads: u64,
}

fn bytes_of<T: bytemuck::Pod>(items: &[T]) -> &[u8] {
    bytemuck::cast_slice(items)
}

impl SkinBoundsPass {
    /// The pipeline; no object yet.
    pub fn new(device: &wgpu::Device) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound skinned bounds"),
            entries: &[
                buffer_entry(9, compute, storage(true)),
                buffer_entry(10, compute, storage(true)),
                buffer_entry(11, compute, storage(true)),
                buffer_entry(12, compute, storage(true)),
                buffer_entry(13, compute, storage(false)),
            ],
        });
        let module = shaders::ANIMATION.create(device);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound skinned bounds"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("unbound skinned bounds"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("bound_skins"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self {
            pipeline,
            layout,
            spheres: Vec::new(),
            placed: HashMap::new(),
            records: Vec::new(),
            record_of_object: HashMap::new(),
            tables: None,
            tables_changed: false,
            bind_group: None,
            uploads: 0,
        }
    }

    /// Bounds object slot `object` by its palette `palette` (a `vec4` index
    /// into the deform buffer) and `spheres`, the joint spheres of its mesh
    /// (first arena vertex `first_vertex`) under its skin (first joint
    /// `first_joint`), replacing what bounded it before. Spheres already
    /// stored for that mesh and skin are shared when equal. More spheres
    /// than a `u32` counts is [`AnimationError::TableTooLarge`].
    pub fn set(
        &mut self,
        object: u32,
        palette: u32,
        (first_vertex, first_joint): (u32, u32),
        spheres: &[Option<[f32; 4]>],
    ) -> Result<(), AnimationError> {
        let too_large = AnimationError::TableTooLarge {
            what: "joint spheres",
        };
        let joint_count = u32::try_from(spheres.len()).map_err(|_| too_large.clone())?;
        let spheres: Vec<[f32; 4]> = spheres.iter().map(|s| s.unwrap_or(NO_SPHERE)).collect();
        let key = (first_vertex, first_joint);
        let stored = self.placed.get(&key).copied().filter(|&first| {
            self.spheres
                .get(first as usize..first as usize + spheres.len())
                == Some(&spheres[..])
        });
        let first_sphere = match stored {
            Some(first) => first,
            None => {
                let first = u32::try_from(self.spheres.len()).map_err(|_| too_large.clone())?;
                u32::try_from(self.spheres.len() + spheres.len()).map_err(|_| too_large)?;
                self.spheres.extend_from_slice(&spheres);
                self.placed.insert(key, first);
                first
            }
        };
        let record = GpuSkinnedBounds {
            object,
            palette,
            first_sphere,
            joint_count,
        };
        match self.record_of_object.get(&object) {
            Some(&i) if self.records[i] == record => return Ok(()),
            Some(&i) => self.records[i] = record,
            None => {
                self.record_of_object.insert(object, self.records.len());
                self.records.push(record);
            }
        }
        self.tables_changed = true;
        Ok(())
    }

    /// Object slot `object`'s bounds are the CPU's again.
    pub fn unset(&mut self, object: u32) {
        if let Some(i) = self.record_of_object.remove(&object) {
            self.records.swap_remove(i);
            if let Some(moved) = self.records.get(i) {
                self.record_of_object.insert(moved.object, i);
            }
            self.tables_changed = true;
        }
    }

    /// Skinned objects bounded.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no object is bounded.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Bytes of GPU memory the tables hold.
    pub fn size_bytes(&self) -> u64 {
        self.tables.as_ref().map_or(0, |(r, s)| r.size() + s.size())
    }

    /// Uploads the tables if they changed and builds the bind group over
    /// `targets`; returns the workgroups to dispatch, or `None` without
    /// any skinned object. Sizes beyond the device's limits
    /// are [`CapabilityError::DeviceLimit`].
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        targets: &SkinBoundsTargets<'_>,
    ) -> Result<Option<u32>, CapabilityError> {
        if self.records.is_empty() {
            return Ok(None);
        }
        let limits = device.limits();
        let workgroups = (self.records.len() as u32).div_ceil(WORKGROUP_SIZE);
        check_dispatch(&limits, "the skinned bounds", [workgroups, 1, 1])?;
        if self.tables_changed || self.tables.is_none() {
            let (records, spheres) = (bytes_of(&self.records), bytes_of(&self.spheres));
            let storage = BufferBinding::Storage;
            check_buffer(
                &limits,
                "the skinned bounds records",
                storage,
                records.len() as u64,
            )?;
            check_buffer(&limits, "the joint spheres", storage, spheres.len() as u64)?;
            let table = |label, contents| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: wgpu::BufferUsages::STORAGE,
                })
            };
            self.tables = Some((
                table("unbound skinned bounds records", records),
                table("unbound joint spheres", spheres),
            ));
            self.tables_changed = false;
            self.uploads += 1;
        }
        let (records, spheres) = self.tables.as_ref().expect("just uploaded");
        let key = (targets.version, self.uploads);
        if self.bind_group.as_ref().is_none_or(|(k, _)| *k != key) {
            let buffers = [
                records,
                spheres,
                targets.deform,
                targets.objects,
                targets.bounds,
            ];
            let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
                .iter()
                .zip(9..)
                .map(|(buffer, binding)| wgpu::BindGroupEntry {
                    binding,
                    resource: buffer.as_entire_binding(),
                })
                .collect();
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("unbound skinned bounds"),
                layout: &self.layout,
                entries: &entries,
            });
            self.bind_group = Some((key, group));
        }
        Ok(Some(workgroups))
    }

    /// Records the dispatch [`SkinBoundsPass::prepare`] prepared into
    /// `pass` (after the playback's, in the same compute pass).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, workgroups: u32) -> PassStats {
        let group = &self.bind_group.as_ref().expect("prepared").1;
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(workgroups, 1, 1);
        PassStats {
            commands_recorded: 3,
            bind_groups_set: 1,
            ..PassStats::default()
        }
    }
}
