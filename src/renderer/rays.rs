//! Keeping the acceleration structures (`src/rays/`) in step with the
//! tables: each resource call that changes a mesh, an object or a
//! material's alpha mode tells them, after the tables accepted it (and
//! counts the change: the path-traced view starts again). The ray
//! uniforms of a frame, and the path-traced view's accumulation. Nothing
//! here runs without [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries).

use crate::debug::DebugView;
use crate::errors::Error;
use crate::gpu_types::GpuRayUniforms;
use crate::handles::ObjectHandle;
use crate::rays::{BuildStats, DeformInputs, Deformation, InstanceSource, RayDeformation};
use crate::renderer::Renderer;

impl Renderer {
    /// Records this frame's acceleration-structure builds (after the
    /// upload, which wrote the arena, and the animation pass, which wrote
    /// the palettes and morph weights): BLASes of meshes added since the
    /// last frame, the skinned and morphed objects' deformed BLASes when the
    /// pose moved, the TLAS if an
    /// object changed.
    pub(super) fn build_acceleration_structures(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> BuildStats {
        let Some(rays) = &mut self.rays else {
            return BuildStats::default();
        };
        let tables = &self.tables;
        let animation = tables.animation.as_ref();
        let inputs = DeformInputs {
            vertices: tables.arena.vertex_buffer(),
            indices: tables.arena.index_buffer(),
            deform: animation.map_or(&tables.no_deform, |a| a.pass.poses()),
            objects: tables.objects.object_buffer(),
            pose: animation.map_or((0, 0), |a| (a.version, a.pose_changes)),
        };
        rays.record(&self.device, encoder, &inputs)
    }

    /// How often rays see `object`'s pose when it is skinned or morphed
    /// (see [`RayDeformation`] and `src/rays/deform.rs`; by default as
    /// [`RendererConfig::ray_deformation`](crate::RendererConfig::ray_deformation)
    /// says, every frame the pose moves unless set otherwise): its deformed BLAS is built again (a full
    /// build: wgpu 30 has no refit) on every frame, every Nth frame
    /// (staggered by slot), once, or never (traced in its bind pose). The
    /// policy stays with the object while it lives, through being skinned,
    /// morphed or undeformed. A handle that is not live is
    /// [`ObjectError`](crate::scene::ObjectError); without ray queries
    /// nothing traces, and a live handle is accepted.
    pub fn set_object_ray_deformation(
        &mut self,
        object: ObjectHandle,
        policy: RayDeformation,
    ) -> Result<(), Error> {
        let slot = self
            .tables
            .objects
            .resolve(object)
            .map_err(crate::scene::ObjectError::from)?;
        if let Some(rays) = &mut self.rays {
            rays.set_policy(slot, policy);
            self.rays_set_object(object);
        }
        Ok(())
    }

    /// A mesh was added to `slot`: its BLAS is made, to be built by the
    /// next frame.
    pub(super) fn rays_add_mesh(&mut self, slot: u32) {
        self.scene_changes += 1;
        let (Some(rays), Some(mesh)) = (&mut self.rays, self.tables.arena.gpu_entry(slot)) else {
            return;
        };
        rays.add_mesh(&self.device, slot, mesh);
    }

    /// The mesh in `slot` was removed.
    pub(super) fn rays_remove_mesh(&mut self, slot: u32) {
        self.scene_changes += 1;
        if let Some(rays) = &mut self.rays {
            rays.remove_mesh(slot);
        }
    }

    /// A live object was added or changed: its TLAS instance follows.
    pub(super) fn rays_set_object(&mut self, handle: ObjectHandle) {
        self.scene_changes += 1;
        let Some(rays) = &mut self.rays else {
            return;
        };
        let tables = &self.tables;
        let (Ok(slot), Ok(object)) = (tables.objects.resolve(handle), tables.objects.get(handle))
        else {
            return;
        };
        let alpha_mode = tables
            .materials
            .gpu_entry(object.material)
            .map_or(0, |m| m.alpha_mode);
        let source = InstanceSource {
            mesh: object.mesh,
            material: object.material,
            alpha_mode,
            deformation: Deformation::of(&object),
        };
        let world_from_object = glam::Mat4::from_cols_array_2d(&object.world_from_object);
        let meshes = |mesh| tables.arena.gpu_entry(mesh);
        rays.set_object(&self.device, meshes, slot, source, &world_from_object);
    }

    /// The object in `slot` was removed.
    pub(super) fn rays_remove_object(&mut self, slot: u32) {
        self.scene_changes += 1;
        let Some(rays) = &mut self.rays else {
            return;
        };
        let arena = &self.tables.arena;
        rays.remove_object(&self.device, |mesh| arena.gpu_entry(mesh), slot);
    }

    /// Material `slot` was replaced, its alpha mode was `alpha_mode_before`.
    pub(super) fn rays_update_material(&mut self, slot: u32, alpha_mode_before: u32) {
        self.scene_changes += 1;
        let Some(rays) = &mut self.rays else {
            return;
        };
        let tables = &self.tables;
        let Some(alpha_mode) = tables.materials.gpu_entry(slot).map(|m| m.alpha_mode) else {
            return;
        };
        if alpha_mode != alpha_mode_before {
            let meshes = |mesh| tables.arena.gpu_entry(mesh);
            rays.set_material_alpha_mode(&self.device, meshes, slot, alpha_mode);
        }
    }
}

/// What the path-traced view's accumulated samples were traced from: any
/// change starts it again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PathKey {
    camera: crate::Camera,
    lighting: crate::Lighting,
    size: (u32, u32),
    settings: crate::PathTracing,
    scene_changes: u64,
}

impl Renderer {
    /// The ray uniforms of a frame drawn into a target of `size` pixels;
    /// for the path-traced view, where this frame's samples go (from 0 when
    /// what they are traced from changed, the accumulation made the
    /// target's size), counted as traced.
    pub(super) fn ray_uniforms(&mut self, size: (u32, u32)) -> GpuRayUniforms {
        let mut uniforms = GpuRayUniforms::new(&self.camera, size);
        let lighting = self.sun();
        let Some(rays) = &mut self.passes.rays else {
            return uniforms;
        };
        if self.debug.view != DebugView::PathTraced {
            return uniforms;
        }
        let key = PathKey {
            camera: self.camera,
            lighting,
            size,
            settings: self.path_tracing,
            scene_changes: self.scene_changes,
        };
        let pixels = u64::from(size.0) * u64::from(size.1);
        let resized = rays.tables.ensure_accumulation(&self.device, pixels);
        if resized || self.path_key != Some(key) {
            self.path_samples = 0;
            self.path_key = Some(key);
        }
        uniforms.sample_index = self.path_samples;
        uniforms.samples = self.path_tracing.samples_per_frame;
        uniforms.bounces = self.path_tracing.bounces;
        self.path_samples = self
            .path_samples
            .saturating_add(self.path_tracing.samples_per_frame);
        uniforms
    }
}
