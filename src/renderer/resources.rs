//! The resource API: textures, samplers, meshes, materials, objects and
//! lights in, handles out. Every call validates on the CPU and changes CPU-side tables
//! only; the next frame uploads what changed.
//!
//! Nothing is freed while something live points at it: removing a texture
//! or sampler that a live material names, a material that a live object
//! uses, or a mesh that a live object draws is refused with a typed `InUse`
//! error that gives the count (reference counts are kept per slot on the
//! CPU). Update or remove the users first. Falling back to slot 0 instead
//! would show a wrong texture as soon as the slot is reused
//! (`tests/resources.rs` checks the refusals).

use crate::capabilities::tier::{HeapLayout, Tier};
use crate::errors::Error;
use crate::geometry::MeshData;
use crate::handles::{
    CubeTextureHandle, LightHandle, MaterialHandle, MeshHandle, ObjectHandle, SamplerHandle,
    TextureHandle,
};
use crate::heap::{CompressedTextureDesc, CubeTextureDesc, ResourceHeap, SamplerDesc, TextureDesc};
use crate::lights::Light;
use crate::lod::MeshOptions;
use crate::materials::{Material, MaterialError};
use crate::renderer::{Renderer, RendererConfig};
use crate::scene::ObjectDesc;

/// The renderer's resource heap: 2D textures stored as `config` and the
/// tier choose (`HeapLayout::new`), streamed under
/// [`RendererConfig::texture_budget`] where the storage allows.
pub(super) fn resource_heap(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    config: &RendererConfig,
    tier: Tier,
) -> ResourceHeap {
    let layout = HeapLayout::new(tier, config.texture_heap);
    let mut heap = ResourceHeap::new(device, queue, &config.capacities, layout);
    if let Some(budget) = config.texture_budget {
        heap.set_texture_budget(budget);
    }
    heap
}

impl Renderer {
    /// Uploads a 2D texture into the heap.
    pub fn add_texture(&mut self, desc: &TextureDesc<'_>) -> Result<TextureHandle, Error> {
        Ok(self.heap.add_texture_2d(desc)?)
    }

    /// Uploads a block-compressed (BC) 2D texture into the heap as it is.
    pub fn add_compressed_texture(
        &mut self,
        desc: &CompressedTextureDesc<'_>,
    ) -> Result<TextureHandle, Error> {
        Ok(self.heap.add_compressed_texture_2d(desc)?)
    }

    /// Uploads a cube texture into the heap.
    pub fn add_cube_texture(
        &mut self,
        desc: &CubeTextureDesc<'_>,
    ) -> Result<CubeTextureHandle, Error> {
        Ok(self.heap.add_texture_cube(desc)?)
    }

    /// Frees a 2D texture (refused while a material uses it).
    pub fn remove_texture(&mut self, handle: TextureHandle) -> Result<(), Error> {
        Ok(self.heap.remove_texture_2d(handle)?)
    }

    /// Marks a 2D texture as wanted by the next frame: with
    /// [`crate::RendererConfig::texture_budget`] on the paged heap, the
    /// streamer promotes wanted textures to their full size class within
    /// the budget (`src/heap/residency.rs`); otherwise nothing to do.
    pub fn want_texture(&mut self, handle: TextureHandle) -> Result<(), Error> {
        self.heap
            .want_texture_2d(handle)
            .map_err(crate::heap::HeapError::from)?;
        Ok(())
    }

    /// Frees a cube texture.
    pub fn remove_cube_texture(&mut self, handle: CubeTextureHandle) -> Result<(), Error> {
        Ok(self.heap.remove_texture_cube(handle)?)
    }

    /// Adds (or shares) a sampler.
    pub fn add_sampler(&mut self, desc: &SamplerDesc) -> Result<SamplerHandle, Error> {
        Ok(self.heap.add_sampler(desc)?)
    }

    /// Frees a sampler (refused while a material uses it).
    pub fn remove_sampler(&mut self, handle: SamplerHandle) -> Result<(), Error> {
        Ok(self.heap.remove_sampler(handle)?)
    }

    /// Adds a mesh to the arena (no simplified levels: see
    /// [`Self::add_mesh_with`]).
    pub fn add_mesh(&mut self, data: &MeshData<'_>) -> Result<MeshHandle, Error> {
        self.add_mesh_with(data, &MeshOptions::default())
    }

    /// Adds a mesh to the arena with `options`: with
    /// [`MeshOptions::lod_levels`], a chain of simplified levels the cull
    /// pass picks from while LOD is on ([`crate::lod`]; each level takes a
    /// slot of [`crate::Capacities::meshes`] and its indices count against
    /// [`crate::Capacities::indices`]). Ray queries trace the mesh itself.
    pub fn add_mesh_with(
        &mut self,
        data: &MeshData<'_>,
        options: &MeshOptions,
    ) -> Result<MeshHandle, Error> {
        let handle = self.tables.arena.add(data, options)?;
        self.rays_add_mesh(handle.slot());
        Ok(handle)
    }

    /// Frees a mesh (refused while objects use it).
    pub fn remove_mesh(&mut self, handle: MeshHandle) -> Result<(), Error> {
        self.tables.arena.remove(handle)?;
        self.rays_remove_mesh(handle.slot());
        Ok(())
    }

    /// Adds a material.
    pub fn add_material(&mut self, material: &Material) -> Result<MaterialHandle, Error> {
        Ok(self.tables.materials.add(&mut self.heap, material)?)
    }

    /// Replaces a material.
    pub fn update_material(
        &mut self,
        handle: MaterialHandle,
        material: &Material,
    ) -> Result<(), Error> {
        let slot = self
            .tables
            .materials
            .resolve(handle)
            .map_err(MaterialError::from)?;
        let before = self.tables.materials.batch_class_of(slot);
        let alpha_mode_before = self.tables.materials.gpu_entry(slot).map(|m| m.alpha_mode);
        self.tables
            .materials
            .update(&mut self.heap, handle, material)?;
        if let Some(alpha_mode_before) = alpha_mode_before {
            self.rays_update_material(slot, alpha_mode_before);
        }
        let after = self.tables.materials.batch_class_of(slot);
        if after != before {
            // Alpha mode or sidedness changed: its objects move pipeline
            // (or in or out of the compute rasteriser's reach).
            self.tables.objects.rebucket(slot, after);
        }
        Ok(())
    }

    /// Frees a material (refused while objects use it).
    pub fn remove_material(&mut self, handle: MaterialHandle) -> Result<(), Error> {
        Ok(self.tables.materials.remove(&mut self.heap, handle)?)
    }

    /// Adds an object.
    pub fn add_object(&mut self, desc: &ObjectDesc) -> Result<ObjectHandle, Error> {
        let handle =
            self.tables
                .objects
                .add(&mut self.tables.arena, &mut self.tables.materials, desc)?;
        self.rays_set_object(handle);
        Ok(handle)
    }

    /// Moves an object.
    pub fn set_transform(
        &mut self,
        handle: ObjectHandle,
        world_from_object: glam::Mat4,
    ) -> Result<(), Error> {
        self.tables
            .objects
            .set_transform(&self.tables.arena, handle, world_from_object)?;
        self.rays_set_object(handle);
        Ok(())
    }

    /// Changes an object's mesh, material and transform.
    pub fn update_object(&mut self, handle: ObjectHandle, desc: &ObjectDesc) -> Result<(), Error> {
        self.tables.objects.update(
            &mut self.tables.arena,
            &mut self.tables.materials,
            handle,
            desc,
        )?;
        self.rays_set_object(handle);
        Ok(())
    }

    /// Removes an object.
    pub fn remove_object(&mut self, handle: ObjectHandle) -> Result<(), Error> {
        self.tables
            .objects
            .remove(&mut self.tables.arena, &mut self.tables.materials, handle)?;
        self.rays_remove_object(handle.slot());
        Ok(())
    }

    /// Adds a punctual light (see [`crate::lights`]); refuses what
    /// [`Light::validate`] refuses and a full table
    /// ([`crate::Capacities::lights`]), changing nothing.
    pub fn add_light(&mut self, light: &Light) -> Result<LightHandle, Error> {
        let handle = self.tables.lights.add(light)?;
        self.scene_changes += 1;
        Ok(handle)
    }

    /// Replaces a light (moves it, changes its colour, kind, ...).
    pub fn set_light(&mut self, handle: LightHandle, light: &Light) -> Result<(), Error> {
        self.tables.lights.set(handle, light)?;
        self.scene_changes += 1;
        Ok(())
    }

    /// Removes a light; its slot is reused by a later add.
    pub fn remove_light(&mut self, handle: LightHandle) -> Result<(), Error> {
        self.tables.lights.remove(handle)?;
        self.scene_changes += 1;
        Ok(())
    }
}
