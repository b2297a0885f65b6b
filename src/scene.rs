//! The object table: every instance's transform, mesh and material, plus a
//! compact bounds stream for the cull pass.
//!
//! Three parallel GPU arrays indexed by object slot:
//! - `objects` (80 B): `world_from_object`, mesh, material, flags — read by
//!   the draw pass;
//! - `bounds` (16 B): world-space bounding sphere — read by the cull pass;
//! - `batch` (4 B): mesh slot, alpha-masked bit and pipeline bucket
//!   (`mesh | masked << 29 | bucket << 30`; opaque, double-sided, blended),
//!   or `NO_MESH` for a free slot — read by the cull pass to bin instances
//!   per bucket and mesh (and to keep masked ones from the compute
//!   rasteriser).
//!
//! 100 bytes per instance in all, so 1M instances fit a 128 MiB binding.
//! World spheres are computed on the CPU when an object changes, never per
//! frame; only changed ranges are uploaded. A skinned object's sphere is
//! the bind pose's here; while its animation plays, the GPU writes its
//! pose's over it each frame before the cull (`src/passes/skin_bounds.rs`). A finite transform whose world
//! sphere overflows `f32` is refused (`ObjectError::NonFiniteBounds`): the
//! cull pass could not test it and would drop the object silently.

use std::collections::HashMap;

use glam::{Mat4, Vec4Swizzles};

use crate::geometry::{GeometryArena, MeshBounds};
use crate::gpu_table::GpuTable;
use crate::gpu_types::{BUCKET_SHIFT, BUCKETS, GpuObject, MESH_MASK, OBJECT_FLAG_LIVE};
use crate::handles::{
    CapacityError, HandleError, MaterialHandle, MeshHandle, ObjectHandle, ObjectSlot,
    SlotAllocator, new_owner_id,
};
use crate::materials::MaterialTable;
use crate::upload::UploadBatch;

/// `batch` value of a free object slot.
pub const NO_MESH: u32 = u32::MAX;

/// Bytes per instance across the object table's GPU arrays: an object, a
/// bounding sphere and a batch value.
pub const BYTES_PER_INSTANCE: u64 =
    (size_of::<GpuObject>() + size_of::<[f32; 4]>() + size_of::<u32>()) as u64;

// The per-instance budget: 1M instances fit one 128 MiB binding.
const _: () = assert!(BYTES_PER_INSTANCE <= 128);

/// An instance of a mesh with a material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectDesc {
    /// The mesh.
    pub mesh: MeshHandle,
    /// The material.
    pub material: MaterialHandle,
    /// Placement in the world.
    pub world_from_object: Mat4,
}

/// Why an object operation failed. Nothing changes on error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectError {
    /// Stale or foreign object, mesh or material handle.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// The table is full.
    #[error(transparent)]
    Capacity(#[from] CapacityError),
    /// NaN or infinity in the transform.
    #[error("world_from_object is not finite")]
    NonFiniteTransform,
    /// The mesh's bounding sphere under the transform is not finite (a
    /// finite transform so large that the world bounds overflow `f32`): the
    /// cull pass could not test it.
    #[error("world bounding sphere {sphere:?} (centre, radius) is not finite")]
    NonFiniteBounds {
        /// The world sphere computed.
        sphere: [f32; 4],
    },
}

/// A world-space bounding sphere: (centre, radius) of the mesh's sphere
/// under `world_from_object` (radius scaled by the largest axis scale).
pub fn world_sphere(world_from_object: &Mat4, bounds: &MeshBounds) -> [f32; 4] {
    let center = world_from_object.transform_point3(bounds.center);
    let scale = world_from_object
        .x_axis
        .xyz()
        .length()
        .max(world_from_object.y_axis.xyz().length())
        .max(world_from_object.z_axis.xyz().length());
    center.extend(bounds.radius * scale).to_array()
}

/// [`world_sphere`], refused when not finite.
fn finite_world_sphere(
    world_from_object: &Mat4,
    bounds: &MeshBounds,
) -> Result<[f32; 4], ObjectError> {
    let sphere = world_sphere(world_from_object, bounds);
    if sphere.iter().all(|v| v.is_finite()) {
        Ok(sphere)
    } else {
        Err(ObjectError::NonFiniteBounds { sphere })
    }
}

/// Every instance. See the module docs.
#[derive(Debug)]
pub struct ObjectTable {
    slots: SlotAllocator<ObjectSlot>,
    objects: GpuTable<GpuObject>,
    bounds: GpuTable<[f32; 4]>,
    batch: GpuTable<u32>,
    /// Live objects per pipeline bucket (empty buckets are not drawn).
    bucket_counts: [u32; BUCKETS as usize],
    /// Per morphed object's slot, how far its morph deltas reach (object
    /// space, added to its mesh's bounding radius).
    reach: HashMap<u32, f32>,
}

impl ObjectTable {
    pub(crate) fn new(device: &wgpu::Device, capacity: u32) -> Self {
        let storage = wgpu::BufferUsages::STORAGE;
        Self {
            slots: SlotAllocator::new(new_owner_id(), capacity, 0),
            objects: GpuTable::new(device, "unbound object table", storage, capacity),
            bounds: GpuTable::new(device, "unbound instance bounds", storage, capacity),
            batch: GpuTable::new(device, "unbound instance batch", storage, capacity),
            bucket_counts: [0; BUCKETS as usize],
            reach: HashMap::new(),
        }
    }

    /// How far slot `slot`'s morph deltas reach (0 without).
    fn reach_of(&self, slot: u32) -> f32 {
        self.reach.get(&slot).copied().unwrap_or(0.0)
    }

    fn set_reach(&mut self, slot: u32, reach: f32) {
        if reach > 0.0 {
            self.reach.insert(slot, reach);
        } else {
            self.reach.remove(&slot);
        }
    }

    /// Mesh slot `mesh`'s bounds, grown by slot `slot`'s morph reach.
    fn reached(&self, arena: &GeometryArena, slot: u32, mesh: u32) -> MeshBounds {
        let mut bounds = arena.bounds_of_slot(mesh);
        bounds.radius += self.reach_of(slot);
        bounds
    }

    /// Sets a slot's batch value (mesh and pipeline bucket), keeping the
    /// per-bucket counts.
    fn set_batch(&mut self, slot: u32, batch: u32) {
        if let Some(&old) = self.batch.get(slot)
            && old != NO_MESH
        {
            self.bucket_counts[(old >> BUCKET_SHIFT) as usize] -= 1;
        }
        if batch != NO_MESH {
            self.bucket_counts[(batch >> BUCKET_SHIFT) as usize] += 1;
        }
        self.batch.set(slot, batch);
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "one call site per operation, all fields of one entry"
    )]
    fn write(
        &mut self,
        slot: u32,
        mesh: u32,
        material: u32,
        class: u32,
        world_from_object: &Mat4,
        sphere: [f32; 4],
        deform: &GpuObject,
    ) {
        self.objects.set(
            slot,
            GpuObject {
                world_from_object: world_from_object.to_cols_array_2d(),
                mesh,
                material,
                flags: OBJECT_FLAG_LIVE,
                ..*deform
            },
        );
        self.bounds.set(slot, sphere);
        self.set_batch(slot, mesh | class);
    }

    /// Adds an object.
    pub fn add(
        &mut self,
        arena: &mut GeometryArena,
        materials: &mut MaterialTable,
        desc: &ObjectDesc,
    ) -> Result<ObjectHandle, ObjectError> {
        check_transform(&desc.world_from_object)?;
        let (mesh, bounds) = arena.resolve(desc.mesh)?;
        let material = materials.resolve(desc.material)?;
        let sphere = finite_world_sphere(&desc.world_from_object, &bounds)?;
        let handle = self.slots.alloc()?;
        self.reach.remove(&handle.slot());
        arena.retain(mesh);
        materials.retain(material);
        let class = materials.batch_class_of(material);
        self.write(
            handle.slot(),
            mesh,
            material,
            class,
            &desc.world_from_object,
            sphere,
            &GpuObject::UNDEFORMED,
        );
        Ok(handle)
    }

    /// Moves an object.
    pub fn set_transform(
        &mut self,
        arena: &GeometryArena,
        handle: ObjectHandle,
        world_from_object: Mat4,
    ) -> Result<(), ObjectError> {
        check_transform(&world_from_object)?;
        let slot = self.slots.resolve(handle)?;
        let object = *self.objects.get(slot).expect("live object");
        let bounds = self.reached(arena, slot, object.mesh);
        let sphere = finite_world_sphere(&world_from_object, &bounds)?;
        let class = self.batch.get(slot).map_or(0, |b| b & !MESH_MASK);
        self.write(
            slot,
            object.mesh,
            object.material,
            class,
            &world_from_object,
            sphere,
            &object,
        );
        Ok(())
    }

    /// Changes an object's mesh, material and transform.
    pub fn update(
        &mut self,
        arena: &mut GeometryArena,
        materials: &mut MaterialTable,
        handle: ObjectHandle,
        desc: &ObjectDesc,
    ) -> Result<(), ObjectError> {
        check_transform(&desc.world_from_object)?;
        let slot = self.slots.resolve(handle)?;
        let (mesh, bounds) = arena.resolve(desc.mesh)?;
        let material = materials.resolve(desc.material)?;
        let old = *self.objects.get(slot).expect("live object");
        // The reach of morph deltas follows the mesh, as the deltas do.
        let reach = if mesh == old.mesh {
            self.reach_of(slot)
        } else {
            0.0
        };
        let reached = MeshBounds {
            radius: bounds.radius + reach,
            ..bounds
        };
        let sphere = finite_world_sphere(&desc.world_from_object, &reached)?;
        self.set_reach(slot, reach);
        arena.retain(mesh);
        materials.retain(material);
        arena.release(old.mesh);
        materials.release(old.material);
        let class = materials.batch_class_of(material);
        self.write(
            slot,
            mesh,
            material,
            class,
            &desc.world_from_object,
            sphere,
            // The skin stream and the deltas follow the mesh: a new mesh is
            // drawn as it is.
            if mesh == old.mesh {
                &old
            } else {
                &GpuObject::UNDEFORMED
            },
        );
        Ok(())
    }

    /// Sets an object's skin ([`GpuObject::skin`]: its palette's place in
    /// the deform buffer, or [`crate::gpu_types::NO_SKIN`]); returns its mesh slot. Its CPU
    /// bounds are uploaded again (the GPU may have written a pose's over
    /// them, `src/passes/skin_bounds.rs`).
    pub(crate) fn set_skin(&mut self, handle: ObjectHandle, skin: u32) -> Result<u32, ObjectError> {
        let slot = self.slots.resolve(handle)?;
        let mut object = *self.objects.get(slot).expect("live object");
        object.skin = skin;
        self.objects.set(slot, object);
        let sphere = *self.bounds.get(slot).expect("live object");
        self.bounds.set(slot, sphere);
        Ok(object.mesh)
    }

    /// Sets an object's morph targets (the `morph_*` fields of
    /// [`GpuObject`]: `deltas` [`crate::gpu_types::NO_MORPH`] for none) and
    /// how far its deltas reach (`reach`, object space, added to its mesh's
    /// bounding radius: see `src/animation/bounds.rs`); returns its mesh slot.
    pub(crate) fn set_morph(
        &mut self,
        arena: &GeometryArena,
        handle: ObjectHandle,
        [deltas, weights, targets, first_vertex]: [u32; 4],
        reach: f32,
    ) -> Result<u32, ObjectError> {
        let slot = self.slots.resolve(handle)?;
        let mut object = *self.objects.get(slot).expect("live object");
        object.morph_deltas = deltas;
        object.morph_weights = weights;
        object.morph_targets = targets;
        object.morph_first_vertex = first_vertex;
        self.objects.set(slot, object);
        self.set_reach(slot, reach);
        let bounds = self.reached(arena, slot, object.mesh);
        let world = Mat4::from_cols_array_2d(&object.world_from_object);
        self.bounds.set(slot, finite_world_sphere(&world, &bounds)?);
        Ok(object.mesh)
    }

    /// Removes an object; its slot is reused by a later add.
    pub fn remove(
        &mut self,
        arena: &mut GeometryArena,
        materials: &mut MaterialTable,
        handle: ObjectHandle,
    ) -> Result<(), ObjectError> {
        let slot = self.slots.free(handle)?;
        let old = *self.objects.get(slot).expect("live object");
        arena.release(old.mesh);
        materials.release(old.material);
        self.objects.set(slot, GpuObject::default());
        self.bounds.set(slot, [0.0, 0.0, 0.0, -1.0]);
        self.reach.remove(&slot);
        self.set_batch(slot, NO_MESH);
        Ok(())
    }

    /// Moves every object using material slot `material` to batch class
    /// `class` (bucket and mask bit, `GpuMaterial::batch_class`; after a
    /// material's alpha mode or sidedness changed): a scan of the table,
    /// paid only on such changes.
    pub(crate) fn rebucket(&mut self, material: u32, class: u32) {
        for slot in 0..self.objects.len() {
            let object = *self.objects.get(slot).expect("in range");
            if object.flags & OBJECT_FLAG_LIVE != 0 && object.material == material {
                self.set_batch(slot, object.mesh | class);
            }
        }
    }

    /// Live objects per pipeline bucket.
    pub fn bucket_counts(&self) -> [u32; BUCKETS as usize] {
        self.bucket_counts
    }

    /// The GPU entry of a live object.
    pub fn get(&self, handle: ObjectHandle) -> Result<GpuObject, HandleError> {
        let slot = self.slots.resolve(handle)?;
        Ok(*self.objects.get(slot).expect("live object"))
    }

    /// The slot of a live object (what the cull pass reports as visible).
    pub fn resolve(&self, handle: ObjectHandle) -> Result<u32, HandleError> {
        self.slots.resolve(handle)
    }

    /// Object slots in use (high-water mark): what the cull pass scans.
    pub fn slots_in_use(&self) -> u32 {
        self.objects.len()
    }

    /// Live objects.
    pub fn len(&self) -> u32 {
        self.slots.live_count()
    }

    /// Whether there are no live objects.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// World bounding sphere of slot `slot` as last written.
    pub fn world_sphere_of_slot(&self, slot: u32) -> Option<[f32; 4]> {
        self.bounds.get(slot).copied()
    }

    /// Mesh slot of object slot `slot` (`NO_MESH` if free).
    pub fn mesh_of_slot(&self, slot: u32) -> Option<u32> {
        self.batch
            .get(slot)
            .map(|&b| if b == NO_MESH { NO_MESH } else { b & MESH_MASK })
    }

    pub(crate) fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        self.objects.flush(device, batch);
        self.bounds.flush(device, batch);
        self.batch.flush(device, batch);
    }

    /// The object table buffer.
    pub fn object_buffer(&self) -> &wgpu::Buffer {
        self.objects.buffer()
    }

    /// The bounds stream.
    pub fn bounds_buffer(&self) -> &wgpu::Buffer {
        self.bounds.buffer()
    }

    /// The batch (mesh slot) stream.
    pub fn batch_buffer(&self) -> &wgpu::Buffer {
        self.batch.buffer()
    }

    /// Capacity of the GPU buffers, in instances.
    pub fn gpu_capacity(&self) -> u32 {
        (self.batch.size_bytes() / 4) as u32
    }

    pub(crate) fn version(&self) -> u64 {
        self.objects.version() + self.bounds.version() + self.batch.version()
    }

    /// Bytes of GPU memory the table holds.
    pub fn size_bytes(&self) -> u64 {
        self.objects.size_bytes() + self.bounds.size_bytes() + self.batch.size_bytes()
    }
}

fn check_transform(m: &Mat4) -> Result<(), ObjectError> {
    if m.to_cols_array().iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(ObjectError::NonFiniteTransform)
    }
}
