//! Inline ray tracing over the bindless tables (with
//! [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries)):
//! acceleration structures made from the tables the raster path already
//! keeps, and kept in step with them.
//!
//! - `blas.rs`: one BLAS per mesh, built from the geometry arena in place,
//!   non-opaque while alpha-masked objects use the mesh;
//! - `tlas.rs`: the TLAS over the object table (custom data = object slot,
//!   mask = opaque, alpha-masked or blended), built only on frames where an
//!   instance changed;
//! - `deform.rs`: skinned and morphed objects (animation), each traced
//!   through a BLAS of its own, built from its deformed positions on the
//!   frames the animation moves that its [`RayDeformation`] policy allows
//!   (every frame, every Nth, once, or never: the bind pose; a pool within
//!   a stated budget; beyond it, the bind pose), so that rays see what the
//!   raster passes draw.
//!
//! A hit reaches everything else through the tables (`wgsl/ray_hit.wgsl`,
//! shared by everything that traces). A hit is (custom data, primitive
//! index, barycentrics); the custom data is the object slot, so
//! `objects[slot]` (bounds-checked like every table read) gives the
//! transform, mesh and material; `meshes[mesh].first_index + 3 * primitive`
//! gives the triangle's three entries in the index buffer, which are arena
//! vertex indices; each vertex is decoded by the draw pass's own vertex
//! function, so normals, tangents, UVs and colours come out as a rasterised
//! fragment's would, and interpolated; the material's factors and texture
//! and sampler slots index the heap after the usual checks. Textures are
//! sampled at level 0 (no ray cones). An alpha-masked candidate is confirmed
//! only where the base colour's alpha, computed as the draw pass computes it,
//! reaches the cutoff. Nothing is bound per object or per draw. The index
//! buffer gains `STORAGE`, and the arena `BLAS_INPUT`, only with ray
//! queries.
//!
//! Across frames in flight the rule of the tables holds: a frame's
//! encoder carries the builds of what changed before it was recorded, and
//! frames run in the order recorded. A frame dropped unsubmitted loses no
//! build: the next frame recorded builds again the BLASes it built and the
//! TLAS (`frames.rs`). A removed mesh's BLAS is dropped, not
//! destroyed: wgpu keeps it alive while a recorded frame, or the TLAS that
//! frame traces, still uses it.
//!
//! Mesh, object and material calls keep the structures in step
//! (`src/renderer/rays.rs`). `tests/ray_queries.rs` checks the rebuild rules,
//! 200 add and remove cycles against wgpu's allocator report and the live BLAS
//! count, the builds of a dropped frame made again, the hit-material view
//! against the drawn material view, and ray-query shadows against a CPU ray
//! test.

mod blas;
mod deform;
mod frames;
mod tlas;

use std::collections::HashMap;

use glam::Mat4;

use crate::gpu_types::GpuMesh;
use blas::MeshStructures;
use deform::DeformedInstances;
pub use deform::{
    DEFORMED_POSITIONS_BUDGET_BYTES, RayDeformation, WORKGROUP_SIZE as DEFORM_WORKGROUP_SIZE,
};
pub(crate) use deform::{DeformInputs, Deformation};
use frames::BuildLog;
pub(crate) use tlas::InstanceSource;
use tlas::Instances;

/// What the acceleration structures hold, for tests and statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccelerationStructureStats {
    /// Live BLASes: one per live mesh.
    pub blas: u32,
    /// BLASes waiting for the next frame's build.
    pub blas_pending: u32,
    /// Live TLAS instances: one per live object.
    pub tlas_instances: u32,
    /// Instances the TLAS has room for.
    pub tlas_capacity: u32,
    /// Skinned or morphed objects traced through a BLAS of their own, of
    /// deformed positions (`src/rays/deform.rs`).
    pub deformed: u32,
    /// Skinned or morphed objects beyond the deformed positions' budget
    /// ([`RendererConfig::deformed_ray_bytes`](crate::RendererConfig::deformed_ray_bytes)),
    /// traced in their bind pose.
    pub deformed_fallback: u32,
    /// Bytes of the deformed positions' pool.
    pub deformed_bytes: u64,
}

/// How the path-traced view ([`crate::DebugView::PathTraced`],
/// `wgsl/path_trace.wgsl`) traces: each frame adds `samples_per_frame`
/// paths per pixel of up to `bounces` bounces to what earlier frames
/// traced, for as long as the camera, the lighting, the target's size and
/// the scene stay the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathTracing {
    /// Bounces after the camera ray's hit: 0 lights surfaces by the sun,
    /// the punctual lights and their emission alone; each bounce adds a
    /// reflection of everything (the environment included, which a path
    /// reaches by missing every surface). At most [`Self::MAX_BOUNCES`].
    pub bounces: u32,
    /// Samples per pixel each frame adds: 1 to
    /// [`Self::MAX_SAMPLES_PER_FRAME`].
    pub samples_per_frame: u32,
}

impl Default for PathTracing {
    fn default() -> Self {
        Self {
            bounces: 4,
            samples_per_frame: 1,
        }
    }
}

impl PathTracing {
    /// The most bounces a path takes.
    pub const MAX_BOUNCES: u32 = 16;
    /// The most samples per pixel one frame traces.
    pub const MAX_SAMPLES_PER_FRAME: u32 = 1024;

    /// Checks the settings' ranges.
    pub fn validate(&self) -> Result<(), crate::RenderError> {
        if self.bounces > Self::MAX_BOUNCES
            || !(1..=Self::MAX_SAMPLES_PER_FRAME).contains(&self.samples_per_frame)
        {
            return Err(crate::RenderError::PathTracing {
                bounces: self.bounces,
                samples_per_frame: self.samples_per_frame,
            });
        }
        Ok(())
    }
}

/// What a frame built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BuildStats {
    pub blas_built: u32,
    /// Of which BLASes of deformed positions.
    pub deformed_built: u32,
    pub tlas_built: u32,
    pub commands_recorded: u32,
}

/// The acceleration structures of one renderer.
#[derive(Debug)]
pub(crate) struct RayTracing {
    meshes: MeshStructures,
    instances: Instances,
    deformed: DeformedInstances,
    /// Per object slot, its policy where it is not the default.
    policies: HashMap<u32, RayDeformation>,
    /// The policy of objects without one of their own
    /// (`RendererConfig::ray_deformation`).
    default_policy: RayDeformation,
    /// The builds of frames not yet known to have run.
    log: BuildLog,
}

impl RayTracing {
    /// Structures for a renderer of at most `max_objects` objects, and of
    /// at most `deformed_bytes` of deformed positions (`deform.rs`), built
    /// as `default_policy` says for objects without a policy of their own.
    pub fn new(
        device: &wgpu::Device,
        max_objects: u32,
        (deformed_bytes, default_policy): (u64, RayDeformation),
    ) -> Self {
        Self {
            meshes: MeshStructures::default(),
            instances: Instances::new(device, max_objects),
            deformed: DeformedInstances::new(deformed_bytes),
            policies: HashMap::new(),
            default_policy,
            log: BuildLog::default(),
        }
    }

    /// A mesh was added to `slot` (`mesh`: its entry in the mesh table).
    pub fn add_mesh(&mut self, device: &wgpu::Device, slot: u32, mesh: &GpuMesh) {
        self.meshes.add(device, slot, mesh);
    }

    /// The mesh in `slot` was removed (no object uses it: removal is
    /// refused otherwise).
    pub fn remove_mesh(&mut self, slot: u32) {
        self.meshes.remove(slot);
    }

    /// Object slot `slot`'s deformed BLAS is built as `policy` says
    /// (`deform.rs`), from its next [`Self::set_object`] on.
    pub fn set_policy(&mut self, slot: u32, policy: RayDeformation) {
        if policy == self.default_policy {
            self.policies.remove(&slot);
        } else {
            self.policies.insert(slot, policy);
        }
    }

    /// Object slot `slot`'s policy.
    fn policy(&self, slot: u32) -> RayDeformation {
        self.policies
            .get(&slot)
            .copied()
            .unwrap_or(self.default_policy)
    }

    /// Object slot `slot` now draws `source` at `world_from_object`.
    /// `mesh_table` looks up a mesh slot's entry (for a BLAS made again).
    pub fn set_object<'m>(
        &mut self,
        device: &wgpu::Device,
        mesh_table: impl Fn(u32) -> Option<&'m GpuMesh>,
        slot: u32,
        source: InstanceSource,
        world_from_object: &Mat4,
    ) {
        if source.masked() {
            self.count_masked(device, &mesh_table, source.mesh, true);
        }
        // A skinned or morphed object is traced through its own BLAS of
        // deformed positions (within the budget, unless its policy says
        // bind pose), any other through its mesh's.
        let policy = self.policy(slot);
        let own = match mesh_table(source.mesh) {
            Some(mesh) if source.deformation.deforms() && policy.deforms() => {
                let opaque = !source.masked();
                let deformation = (source.deformation, policy);
                self.deformed.set(device, slot, deformation, mesh, opaque)
            }
            _ => {
                self.deformed.remove(slot);
                None
            }
        };
        let Some(blas) = own.or(self.meshes.blas(source.mesh)) else {
            return;
        };
        let old = self
            .instances
            .set(device, slot, source, blas, world_from_object);
        if let Some(old) = old.filter(InstanceSource::masked) {
            self.count_masked(device, &mesh_table, old.mesh, false);
        }
    }

    /// Object slot `slot` was removed.
    pub fn remove_object<'m>(
        &mut self,
        device: &wgpu::Device,
        mesh_table: impl Fn(u32) -> Option<&'m GpuMesh>,
        slot: u32,
    ) {
        self.deformed.remove(slot);
        self.policies.remove(&slot);
        if let Some(old) = self.instances.remove(slot).filter(InstanceSource::masked) {
            self.count_masked(device, &mesh_table, old.mesh, false);
        }
    }

    /// Material slot `material`'s alpha mode is now `alpha_mode`: its
    /// objects' masks change, and meshes may need another BLAS.
    pub fn set_material_alpha_mode<'m>(
        &mut self,
        device: &wgpu::Device,
        mesh_table: impl Fn(u32) -> Option<&'m GpuMesh>,
        material: u32,
        alpha_mode: u32,
    ) {
        for (slot, old) in self.instances.using_material(material) {
            let new = InstanceSource { alpha_mode, ..old };
            self.instances.set_alpha_mode(slot, alpha_mode);
            if new.masked() != old.masked() {
                self.count_masked(device, &mesh_table, old.mesh, new.masked());
                // A deformed BLAS's opaque flag follows its object's.
                let policy = self.policy(slot);
                let traced = old.deformation.deforms() && policy.deforms();
                let Some(mesh) = mesh_table(old.mesh).filter(|_| traced) else {
                    continue;
                };
                let deformation = (old.deformation, policy);
                let own = self
                    .deformed
                    .set(device, slot, deformation, mesh, !new.masked());
                if let Some(blas) = own {
                    self.instances.set_blas(slot, blas);
                }
            }
        }
    }

    fn count_masked<'m>(
        &mut self,
        device: &wgpu::Device,
        mesh_table: &impl Fn(u32) -> Option<&'m GpuMesh>,
        mesh: u32,
        added: bool,
    ) {
        if self
            .meshes
            .count_masked_user(device, mesh_table(mesh), mesh, added)
        {
            let blas = self.meshes.blas(mesh).expect("made again");
            let deformed = &self.deformed;
            self.instances
                .repoint_mesh(mesh, blas, |slot| deformed.has_blas(slot));
        }
    }

    /// Records the builds this frame needs into `encoder`, after the upload
    /// that wrote the arena and the animation pass that wrote the palettes:
    /// new (or remade) BLASes from the arena's vertices and indices; the
    /// deformed objects' positions and BLASes when the pose moved
    /// (`deform.rs`); then the TLAS if an instance changed or a deformed
    /// BLAS was built; and again whatever a frame dropped unsubmitted built
    /// (`frames.rs`).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &DeformInputs<'_>,
    ) -> BuildStats {
        if let Some(lost) = self.log.take_lost() {
            self.meshes.requeue(&lost.blas);
            self.instances.force_build();
            self.deformed.force();
        }
        let deformed = self.deformed.record(device, encoder, inputs);
        if deformed {
            // wgpu refuses a TLAS built before a BLAS it holds.
            self.instances.force_build();
        }
        let slots = self.meshes.pending_slots();
        let mut blas = self.meshes.take_builds(inputs.vertices, inputs.indices);
        let mesh_builds = blas.len() as u32;
        if deformed {
            blas.extend(self.deformed.builds());
        }
        let tlas = self.instances.take_build();
        if blas.is_empty() && tlas.is_none() {
            return BuildStats::default();
        }
        let stats = BuildStats {
            blas_built: blas.len() as u32,
            deformed_built: blas.len() as u32 - mesh_builds,
            tlas_built: u32::from(tlas.is_some()),
            commands_recorded: 1 + 4 * u32::from(deformed),
        };
        encoder.build_acceleration_structures(blas.iter(), tlas);
        self.log.log(encoder, slots);
        stats
    }

    /// The TLAS, as the last recorded frame built it.
    pub fn tlas(&self) -> &wgpu::Tlas {
        self.instances.tlas()
    }

    /// Changes when the TLAS is made again (bind groups hold it).
    pub fn version(&self) -> u64 {
        self.instances.version()
    }

    pub fn stats(&self) -> AccelerationStructureStats {
        AccelerationStructureStats {
            blas: self.meshes.live(),
            blas_pending: self.meshes.pending() as u32,
            tlas_instances: self.instances.live(),
            tlas_capacity: self.instances.capacity(),
            deformed: self.deformed.counts().0,
            deformed_fallback: self.deformed.counts().1,
            deformed_bytes: self.deformed.pool_bytes(),
        }
    }
}
