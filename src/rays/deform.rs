//! What rays see of animated objects: each traced deformed object (an
//! object whose record names a palette, `GpuObject::skin`, or morph
//! targets, `GpuObject::morph_deltas`) gets a BLAS of its own, built from
//! its deformed positions, in place of its mesh's shared BLAS. Static
//! objects keep the mesh's BLAS.
//!
//! **The pass.** `wgsl/ray_deform.wgsl` (one dispatch for every job, after
//! the animation pass wrote the palettes and morph weights) morphs and
//! skins every corner of the mesh's triangles with the vertex pulling's
//! own functions (`wgsl/morph.wgsl`, then `wgsl/skinning.wgsl`), reading
//! the object's record from the object table, and writes it as three
//! floats into the object's region of the pool: a triangle list in index
//! order. Its BLAS is built from that region without indices, so its
//! triangle `k` is the mesh's triangle `k` and a hit's primitive index
//! finds the same triangle in the arena (`wgsl/ray_hit.wgsl`, which then
//! morphs and skins the three corners again to shade the posed surface).
//! Why not the arena's indices: wgpu addresses a
//! BLAS's vertices from the start of the buffer (`first_vertex` vertices
//! in), and the arena's indices are pre-offset by the mesh's first vertex,
//! so a region indexed by them would need that many unused vertices before
//! it; a triangle list costs three positions per triangle (12 bytes
//! each): about six per vertex of a closed, welded mesh, as many as its
//! vertices for a mesh stored as a list (the Fox), and no index copy.
//!
//! **The policy.** Each traced deformed object has a [`RayDeformation`]
//! ([`Renderer::set_object_ray_deformation`](crate::Renderer::set_object_ray_deformation),
//! else [`RendererConfig::ray_deformation`](crate::RendererConfig::ray_deformation),
//! [`EveryFrame`](RayDeformation::EveryFrame) by default). A job is *due*
//! on a frame when it was added or changed (its palette, morph, mesh,
//! opacity or policy) or a frame was dropped, or when its policy allows
//! this frame and the pose moved since its last build (the animation's
//! time or what plays changed): every frame for `EveryFrame`; for
//! `EveryNthFrame(n)` the frames whose count plus the object's slot is a
//! multiple of `n` (staggered by slot, so a crowd's builds spread evenly
//! over the `n` frames); never for `Once`, which keeps the pose of the
//! frame that built it. `BindPose` makes no job: the object is traced
//! through its mesh's BLAS, in its bind pose. A paused animation builds
//! nothing. Only the due jobs are deformed (one dispatch over the frame's
//! list of due jobs, packed from the start of the pool: a BLAS keeps what
//! it was built from, so the others' regions need not survive) and their
//! BLASes built; then the TLAS is built too (wgpu refuses a TLAS older
//! than a BLAS it holds), which costs CPU time linear in the objects
//! (`tlas.rs`).
//!
//! **The cost.** wgpu 30 has no refit (no BLAS update from moved
//! vertices): every due job is a full BLAS build of its triangles. On
//! lavapipe, where builds run on the CPU, one Fox (576 triangles) costs
//! about 0.2 to 0.35 ms of CPU per build at 100 Foxes, and recording costs
//! about 10 µs per due job (`measure_deformed_blas_rebuild_cpu` in
//! `tests/ray_animation.rs`, figures in `docs/PERFORMANCE.md`); the TLAS
//! build adds its per-object CPU cost on any frame with a due job.
//! `EveryNthFrame(n)` divides the per-frame builds by about `n` (the TLAS
//! is still built on every frame with a due job), at the price of rays
//! seeing a pose up to `n - 1` frames old: at 100 Foxes on lavapipe,
//! recording took 4.17 ms moving against 2.43 ms still with every frame,
//! 3.73 against 3.18 every 5th and 3.41 against 3.19 every 50th (the
//! times until lavapipe finished were too noisy on the shared CPU to
//! tell the builds apart; `docs/PERFORMANCE.md`). Between
//! builds a hit is where the last built pose puts it, but it is shaded
//! (and its facing judged) from its triangle as the current palette and
//! weights deform it (`wgsl/ray_hit.wgsl`): near silhouettes a stale hit
//! may shade, or be culled as a back face, as the current pose would.
//!
//! **The budget.** The pool holds at most
//! [`RendererConfig::deformed_ray_bytes`](crate::RendererConfig::deformed_ray_bytes)
//! (by default [`DEFORMED_POSITIONS_BUDGET_BYTES`]; less where the
//! device's storage binding or buffer size is smaller),
//! and one dispatch row per job (at most the device's workgroups per
//! dimension). A deformed object beyond either is traced in its bind pose
//! through its mesh's BLAS (documented fallback, logged once per object
//! and counted in [`super::AccelerationStructureStats::deformed_fallback`]);
//! the raster passes still draw it posed.

use std::collections::BTreeMap;
use std::num::NonZeroU32;

use wgpu::util::DeviceExt;

use crate::gpu_types::{GpuMesh, GpuObject, GpuRayDeformJob, NO_MORPH, NO_SKIN};
use crate::shaders;

/// Threads per workgroup of the deformation pass (WGSL
/// `RAY_DEFORM_WORKGROUP_SIZE`): one per corner.
pub const WORKGROUP_SIZE: u32 = 64;

/// The most bytes of deformed positions the pool holds (64 MiB: about
/// 1.86 M triangles, some 3,200 Foxes of 576 triangles).
pub const DEFORMED_POSITIONS_BUDGET_BYTES: u64 = 64 << 20;

/// Bytes of one deformed position (`Float32x3`).
const POSITION_BYTES: u64 = 12;

/// The pool's first size, in bytes.
const INITIAL_POOL_BYTES: u64 = 1 << 16;

/// How often rays see an animated (skinned or morphed) object's pose:
/// its deformed BLAS is built again (a full build: wgpu 30 has no refit)
/// on frames the pose moved, as this says (see `src/rays/deform.rs`).
/// Set per object with
/// [`Renderer::set_object_ray_deformation`](crate::Renderer::set_object_ray_deformation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RayDeformation {
    /// Every frame the pose moved (the default of
    /// [`RendererConfig::ray_deformation`](crate::RendererConfig::ray_deformation)).
    #[default]
    EveryFrame,
    /// Every `n`th frame the pose moved, staggered by object slot so that
    /// a crowd's builds spread over the `n` frames; between them rays see
    /// the pose of the last build.
    EveryNthFrame(NonZeroU32),
    /// Once, when the object is skinned or morphed (or its deformation,
    /// mesh, opacity or this policy changes); then kept while the
    /// animation plays.
    Once,
    /// Never: rays trace the mesh's bind pose (its shared BLAS, no
    /// deformed positions); the raster passes still draw it posed.
    BindPose,
}

impl RayDeformation {
    /// Whether rays trace the object through a deformed BLAS of its own.
    pub fn deforms(&self) -> bool {
        *self != Self::BindPose
    }

    /// Whether a moved pose is built on frame `frame` for object slot
    /// `slot`.
    fn allows(&self, frame: u64, slot: u32) -> bool {
        match self {
            Self::EveryFrame => true,
            Self::EveryNthFrame(n) => (frame + u64::from(slot)).is_multiple_of(u64::from(n.get())),
            Self::Once | Self::BindPose => false,
        }
    }
}

/// How the animation deforms an object: the fields of its record
/// ([`GpuObject`]) the deformation pass reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Deformation {
    /// Its palette (`GpuObject::skin`), or `NO_SKIN`.
    pub skin: u32,
    /// Its morph (`GpuObject::morph_deltas`, `morph_weights`,
    /// `morph_targets`, `morph_first_vertex`); `NO_MORPH` deltas for none.
    pub morph: [u32; 4],
}

impl Deformation {
    /// What `object`'s record says.
    pub fn of(object: &GpuObject) -> Self {
        Self {
            skin: object.skin,
            morph: [
                object.morph_deltas,
                object.morph_weights,
                object.morph_targets,
                object.morph_first_vertex,
            ],
        }
    }

    /// Whether rays must trace it deformed.
    pub fn deforms(&self) -> bool {
        self.skin != NO_SKIN || self.morph[0] != NO_MORPH
    }
}

/// One traced deformed object.
#[derive(Debug)]
struct Job {
    record: GpuRayDeformJob,
    /// What its record said when the job was made: a change deforms again.
    deformation: Deformation,
    opaque: bool,
    policy: RayDeformation,
    /// The pose its BLAS was last built from (`None`: to be built).
    built: Option<(u64, u64)>,
    /// Its BLAS and what it reads, while it fits the pool.
    blas: Option<(wgpu::Blas, wgpu::BlasTriangleGeometrySizeDescriptor)>,
}

/// The pipeline and its bind group layout, made with the first job.
#[derive(Debug)]
struct Pipeline {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// The buffers a frame's deformation reads.
pub(crate) struct DeformInputs<'a> {
    /// The arena's vertices and indices.
    pub vertices: &'a wgpu::Buffer,
    pub indices: &'a wgpu::Buffer,
    /// The deform buffer (skin stream, palettes, morph weights and deltas).
    pub deform: &'a wgpu::Buffer,
    /// The object table (each job's record).
    pub objects: &'a wgpu::Buffer,
    /// Changes whenever the animation's pose may have changed.
    pub pose: (u64, u64),
}

/// Every traced deformed object, its BLAS and the pool of deformed
/// positions (see the module docs).
#[derive(Debug)]
pub(crate) struct DeformedInstances {
    /// The most bytes of deformed positions (before the device's limits).
    budget_bytes: u64,
    jobs: BTreeMap<u32, Job>,
    pipeline: Option<Pipeline>,
    pool: Option<wgpu::Buffer>,
    /// Positions the pooled jobs hold together.
    pooled_positions: u64,
    /// Jobs beyond the budget (traced in their bind pose).
    fallbacks: u32,
    /// Frames recorded: the phase of `EveryNthFrame`.
    frame: u64,
    /// The slots of the jobs the last recorded frame deformed, in order.
    due: Vec<u32>,
}

/// Positions within `budget_bytes` and the device's limits.
fn budget_positions(budget_bytes: u64, limits: &wgpu::Limits) -> u64 {
    budget_bytes
        .min(limits.max_storage_buffer_binding_size)
        .min(limits.max_buffer_size)
        / POSITION_BYTES
}

impl DeformedInstances {
    /// No job yet; at most `budget_bytes` of deformed positions.
    pub fn new(budget_bytes: u64) -> Self {
        Self {
            budget_bytes,
            jobs: BTreeMap::new(),
            pipeline: None,
            pool: None,
            pooled_positions: 0,
            fallbacks: 0,
            frame: 0,
            due: Vec::new(),
        }
    }

    /// Object slot `slot` is deformed as `deformation` says (skinned,
    /// morphed or both), draws `mesh` and is built as `policy` says (not
    /// `BindPose`: the caller removes it then): its job is made (or kept,
    /// if nothing changed), and its BLAS returned, or `None` beyond the
    /// budget (traced in bind pose).
    pub fn set(
        &mut self,
        device: &wgpu::Device,
        slot: u32,
        (deformation, policy): (Deformation, RayDeformation),
        mesh: &GpuMesh,
        opaque: bool,
    ) -> Option<&wgpu::Blas> {
        let record = GpuRayDeformJob {
            object: slot,
            first_index: mesh.first_index,
            corners: mesh.index_count,
            first_output: 0,
        };
        let same = self.jobs.get(&slot).is_some_and(|job| {
            (job.record.first_index, job.record.corners) == (mesh.first_index, mesh.index_count)
                && job.deformation == deformation
                && job.opaque == opaque
        });
        if let Some(job) = self
            .jobs
            .get_mut(&slot)
            .filter(|j| same && j.policy != policy)
        {
            // Another policy: the same BLAS, built again with the next frame.
            job.policy = policy;
            job.built = None;
        }
        if !same {
            self.remove(slot);
            let limits = device.limits();
            let corners = u64::from(mesh.index_count);
            let pooled = self.jobs.values().filter(|j| j.blas.is_some()).count() as u64;
            let fits = self.pooled_positions + corners
                <= budget_positions(self.budget_bytes, &limits)
                && pooled < u64::from(limits.max_compute_workgroups_per_dimension)
                && corners.div_ceil(u64::from(WORKGROUP_SIZE))
                    <= u64::from(limits.max_compute_workgroups_per_dimension)
                && corners >= 3;
            let blas = fits.then(|| {
                self.pooled_positions += corners;
                make_blas(device, mesh.index_count, opaque)
            });
            if blas.is_none() {
                self.fallbacks += 1;
                log::warn!(
                    "unbound: the deformed positions rays trace are over their budget \
                     ({} bytes, or the device's limits); object slot {slot} is traced in \
                     its bind pose",
                    self.budget_bytes
                );
            }
            self.jobs.insert(
                slot,
                Job {
                    record,
                    deformation,
                    opaque,
                    policy,
                    built: None,
                    blas,
                },
            );
        }
        self.jobs[&slot].blas.as_ref().map(|(blas, _)| blas)
    }

    /// Object slot `slot` is no longer deformed (or was removed).
    pub fn remove(&mut self, slot: u32) {
        if let Some(job) = self.jobs.remove(&slot) {
            match job.blas {
                Some(_) => self.pooled_positions -= u64::from(job.record.corners),
                None => self.fallbacks -= 1,
            }
        }
    }

    /// Whether slot `slot` is traced through a BLAS of its own.
    pub fn has_blas(&self, slot: u32) -> bool {
        self.jobs.get(&slot).is_some_and(|j| j.blas.is_some())
    }

    /// Builds everything again with the next frame.
    pub fn force(&mut self) {
        for job in self.jobs.values_mut() {
            job.built = None;
        }
    }

    /// Objects traced through a BLAS of their own, and those beyond the
    /// budget.
    pub fn counts(&self) -> (u32, u32) {
        (self.jobs.len() as u32 - self.fallbacks, self.fallbacks)
    }

    /// Bytes of the pool.
    pub fn pool_bytes(&self) -> u64 {
        self.pool.as_ref().map_or(0, wgpu::Buffer::size)
    }

    /// Records the deformation of this frame's due jobs (see the module
    /// docs' policy): their table, one dispatch. Returns whether it did:
    /// their BLASes must then be built, after it ([`Self::builds`]).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &DeformInputs<'_>,
    ) -> bool {
        let due = self.due_records(inputs.pose);
        if due.is_empty() {
            return false;
        }
        let needed = due.iter().map(|j| u64::from(j.corners)).sum::<u64>() * POSITION_BYTES;
        if self.pool.as_ref().is_none_or(|pool| pool.size() < needed) {
            let limits = device.limits();
            let cap = budget_positions(self.budget_bytes, &limits) * POSITION_BYTES;
            // Room for every pooled job (all are due after a dropped
            // frame), so the pool is not made again as the due set varies.
            let all = self.pooled_positions * POSITION_BYTES;
            let size = all
                .next_power_of_two()
                .max(INITIAL_POOL_BYTES)
                .min(cap.max(all));
            self.pool = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound deformed positions"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::BLAS_INPUT,
                mapped_at_creation: false,
            }));
        }
        let pipeline = self.pipeline.get_or_insert_with(|| make_pipeline(device));
        // The table is small (16 bytes a job): written in the frame's own
        // encoder each frame that deforms, so a dropped frame loses nothing.
        let jobs = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("unbound deform jobs"),
            contents: bytemuck::cast_slice(&due),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let pool = self.pool.as_ref().expect("made above");
        let buffers = [
            &jobs,
            inputs.vertices,
            inputs.indices,
            inputs.deform,
            pool,
            inputs.objects,
        ];
        let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
            .iter()
            .enumerate()
            .map(|(binding, buffer)| wgpu::BindGroupEntry {
                binding: binding as u32,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound ray deform"),
            layout: &pipeline.layout,
            entries: &entries,
        });
        let widest = due.iter().map(|j| j.corners).max().unwrap_or(0);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound ray deform"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        // Within the device's limits: `set` pools no more jobs, and no
        // wider ones, than one dispatch holds.
        pass.dispatch_workgroups(widest.div_ceil(WORKGROUP_SIZE), due.len() as u32, 1);
        true
    }

    /// This frame's due jobs (see the module docs' policy), marked built
    /// from `pose`, their regions packed from the pool's start in slot
    /// order; counts the frame.
    fn due_records(&mut self, pose: (u64, u64)) -> Vec<GpuRayDeformJob> {
        let frame = self.frame;
        self.frame += 1;
        self.due.clear();
        let mut next = 0u32;
        let mut records = Vec::new();
        for (&slot, job) in &mut self.jobs {
            let due = job.blas.is_some()
                && match job.built {
                    None => true,
                    Some(built) => built != pose && job.policy.allows(frame, slot),
                };
            if due {
                job.built = Some(pose);
                job.record.first_output = next;
                next += job.record.corners;
                records.push(job.record);
                self.due.push(slot);
            }
        }
        records
    }

    /// The build entries of the last recorded frame's due jobs' BLASes,
    /// reading the pool as the deformation just wrote it.
    pub fn builds(&self) -> Vec<wgpu::BlasBuildEntry<'_>> {
        let Some(pool) = &self.pool else {
            return Vec::new();
        };
        self.due
            .iter()
            .filter_map(|slot| {
                let job = self.jobs.get(slot)?;
                let (blas, size) = job.blas.as_ref()?;
                Some(wgpu::BlasBuildEntry {
                    blas,
                    geometry: wgpu::BlasGeometries::TriangleGeometries(vec![
                        wgpu::BlasTriangleGeometry {
                            size,
                            vertex_buffer: pool,
                            first_vertex: job.record.first_output,
                            vertex_stride: POSITION_BYTES,
                            index_buffer: None,
                            first_index: None,
                            transform_buffer: None,
                            transform_buffer_offset: None,
                        },
                    ]),
                })
            })
            .collect()
    }
}

/// The BLAS of one job: `corners` positions, a triangle list.
fn make_blas(
    device: &wgpu::Device,
    corners: u32,
    opaque: bool,
) -> (wgpu::Blas, wgpu::BlasTriangleGeometrySizeDescriptor) {
    let size = wgpu::BlasTriangleGeometrySizeDescriptor {
        vertex_format: wgpu::VertexFormat::Float32x3,
        vertex_count: corners,
        index_format: None,
        index_count: None,
        flags: if opaque {
            wgpu::AccelerationStructureGeometryFlags::OPAQUE
        } else {
            wgpu::AccelerationStructureGeometryFlags::empty()
        },
    };
    let blas = device.create_blas(
        &wgpu::CreateBlasDescriptor {
            label: Some("unbound deformed BLAS"),
            // Built again every frame it moves: fast builds over fast
            // traces.
            flags: wgpu::AccelerationStructureFlags::PREFER_FAST_BUILD,
            update_mode: wgpu::AccelerationStructureUpdateMode::Build,
        },
        wgpu::BlasGeometrySizeDescriptors::Triangles {
            descriptors: vec![size.clone()],
        },
    );
    (blas, size)
}

fn make_pipeline(device: &wgpu::Device) -> Pipeline {
    let compute = wgpu::ShaderStages::COMPUTE;
    let entry = |binding, read_only| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: compute,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("unbound ray deform"),
        entries: &[
            entry(0, true),
            entry(1, true),
            entry(2, true),
            entry(3, true),
            entry(4, false),
            entry(5, true),
        ],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("unbound ray deform"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let module = shaders::RAY_DEFORM.create(device);
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("unbound ray deform"),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some("deform_corners"),
        compilation_options: Default::default(),
        cache: None,
    });
    Pipeline { pipeline, layout }
}
