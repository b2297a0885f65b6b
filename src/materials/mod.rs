//! The material table: glTF metallic-roughness materials in one storage
//! buffer, referencing textures and samplers only by heap handle.
//!
//! Slot 0 is the fallback material (the "missing" texture), so an
//! out-of-range material index in the object table shows that texture.
//! While a material is live, the textures and samplers it names cannot be
//! freed (the heap refuses); while objects use a material, it cannot be
//! removed.
//!
//! The material itself ([`Material`], [`TextureRef`], [`UvTransform`],
//! [`AlphaMode`]) and its one encoder are in `material.rs`; this file holds
//! the table.
//!
//! A material is defined once: `Material<T>` over any way of naming a
//! texture. The renderer's [`Material`] names textures by heap handle; a
//! parsed glTF file's material names them by index into the document, and
//! `Material::map_textures` converts one into the other. One encoder,
//! `Material::encode`, checks the factors (finite and in glTF 2.0's ranges:
//! base colour, metallic, roughness and occlusion strength 0 to 1; emissive
//! factor and strength and alpha cutoff at least 0), UV sets and transforms,
//! and writes the GPU form, asking a closure for each texture's slots (a
//! missing texture is the white slot); the bind-per-draw baseline calls the
//! same encoder with its own numbering.

mod material;

pub use material::{AlphaMode, Material, ResolvedTexture, TextureRef, UvTransform};

use crate::gpu_table::GpuTable;
use crate::gpu_types::GpuMaterial;
use crate::handles::{
    CapacityError, HandleError, MaterialHandle, MaterialSlot, SlotAllocator, new_owner_id,
};
use crate::heap::{ResourceHeap, TEXTURE_MISSING};
use crate::upload::UploadBatch;

pub use crate::gpu_types::MATERIAL_FALLBACK;

/// Why a material operation failed. Nothing changes on error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MaterialError {
    /// A texture or sampler handle is stale or foreign, or the material handle is.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// The table is full.
    #[error(transparent)]
    Capacity(#[from] CapacityError),
    /// NaN or infinity in a factor or transform.
    #[error("material field {field} is not finite")]
    NonFinite {
        /// The field.
        field: &'static str,
    },
    /// A factor outside the range glTF 2.0 gives it: base colour,
    /// metallic, roughness and occlusion strength in 0..=1; emissive factor,
    /// emissive strength and alpha cutoff at least 0.
    #[error("material field {field} = {value} is outside {min}..={max}")]
    OutOfRange {
        /// The field.
        field: &'static str,
        /// The value given.
        value: f32,
        /// Least allowed value.
        min: f32,
        /// Greatest allowed value.
        max: f32,
    },
    /// UV set other than 0 or 1.
    #[error("uv set {uv_set} (only 0 and 1 exist)")]
    UvSet {
        /// The requested set.
        uv_set: u32,
    },
    /// Live objects still use the material.
    #[error("material slot {slot} is still used by {objects} object(s)")]
    InUse {
        /// The slot.
        slot: u32,
        /// Live objects referencing it.
        objects: u32,
    },
    /// A value the shading derives from valid factors overflows `f32`:
    /// the emission, emissive factor × emissive strength.
    #[error("material {derived} = {value} is not finite (from {inputs})")]
    Derived {
        /// What was derived.
        derived: &'static str,
        /// Its value (infinite where the product overflowed).
        value: f32,
        /// The factors it was derived from, with their values.
        inputs: String,
    },
}

/// (texture slot, sampler slot) of a material's five textures.
type HeldTextures = [(u32, u32); 5];

/// Every material in one storage buffer. See the module docs.
#[derive(Debug)]
pub struct MaterialTable {
    slots: SlotAllocator<MaterialSlot>,
    table: GpuTable<GpuMaterial>,
    /// Per slot: textures it holds references on, and objects using it.
    uses: Vec<(Option<HeldTextures>, u32)>,
    /// Table entries with an alpha-masked material (the shadow pass tests
    /// alpha only while there are any).
    masked: u32,
}

fn texture_slots(material: &GpuMaterial) -> HeldTextures {
    [
        &material.base_color,
        &material.metallic_roughness,
        &material.normal,
        &material.occlusion,
        &material.emissive,
    ]
    .map(|t| (t.texture, t.sampler))
}

impl MaterialTable {
    pub(crate) fn new(device: &wgpu::Device, heap: &mut ResourceHeap, capacity: u32) -> Self {
        let mut table = Self {
            slots: SlotAllocator::new(new_owner_id(), capacity.max(1), 1),
            table: GpuTable::new(
                device,
                "unbound material table",
                wgpu::BufferUsages::STORAGE,
                capacity.max(1),
            ),
            uses: Vec::new(),
            masked: 0,
        };
        let fallback = Material {
            base_color: Some(TextureRef::new(
                heap.missing_texture(),
                heap.default_sampler(),
            )),
            // A dielectric: the ambient term shows the checker plainly.
            metallic_factor: 0.0,
            ..Material::default()
        }
        .to_gpu(heap)
        .expect("reserved slots are live");
        debug_assert_eq!(fallback.base_color.texture, TEXTURE_MISSING);
        table.store(heap, MATERIAL_FALLBACK, fallback);
        table
    }

    /// Writes a slot, moving the texture references from its old contents
    /// (if any) to the new.
    fn store(&mut self, heap: &mut ResourceHeap, slot: u32, material: GpuMaterial) {
        let textures = texture_slots(&material);
        for (texture, sampler) in textures {
            heap.retain(texture, sampler);
        }
        let i = slot as usize;
        if i >= self.uses.len() {
            self.uses.resize(i + 1, (None, 0));
        }
        if let Some(old) = self.uses[i].0.replace(textures) {
            for (texture, sampler) in old {
                heap.release(texture, sampler);
            }
        }
        self.set_entry(slot, material);
    }

    /// Writes a table entry, counting masked materials.
    fn set_entry(&mut self, slot: u32, material: GpuMaterial) {
        let is_masked = |m: &GpuMaterial| u32::from(m.alpha_mode == crate::gpu_types::ALPHA_MASK);
        let before = self.table.get(slot).map_or(0, is_masked);
        self.masked = self.masked - before + is_masked(&material);
        self.table.set(slot, material);
    }

    /// Adds a material; its textures stay referenced until it is removed.
    pub fn add(
        &mut self,
        heap: &mut ResourceHeap,
        material: &Material,
    ) -> Result<MaterialHandle, MaterialError> {
        let gpu = material.to_gpu(heap)?;
        let handle = self.slots.alloc()?;
        self.store(heap, handle.slot(), gpu);
        Ok(handle)
    }

    /// Replaces a live material's contents (objects using it follow).
    pub fn update(
        &mut self,
        heap: &mut ResourceHeap,
        handle: MaterialHandle,
        material: &Material,
    ) -> Result<(), MaterialError> {
        let slot = self.slots.resolve(handle)?;
        let gpu = material.to_gpu(heap)?;
        self.store(heap, slot, gpu);
        Ok(())
    }

    /// Removes a material, releasing its textures. Refused while objects use it.
    pub fn remove(
        &mut self,
        heap: &mut ResourceHeap,
        handle: MaterialHandle,
    ) -> Result<(), MaterialError> {
        let slot = self.slots.resolve(handle)?;
        let objects = self.uses[slot as usize].1;
        if objects > 0 {
            return Err(MaterialError::InUse { slot, objects });
        }
        self.slots.free(handle)?;
        for (texture, sampler) in self.uses[slot as usize].0.take().into_iter().flatten() {
            heap.release(texture, sampler);
        }
        // The freed entry shows the fallback until the slot is reused.
        let fallback = *self.table.get(MATERIAL_FALLBACK).expect("reserved");
        self.set_entry(slot, fallback);
        Ok(())
    }

    /// Live materials whose alpha mode is mask.
    pub fn masked_count(&self) -> u32 {
        self.masked
    }

    /// The pipeline bucket of material slot `slot`.
    pub fn bucket_of(&self, slot: u32) -> u32 {
        self.table.get(slot).map_or(0, GpuMaterial::bucket)
    }

    /// The batch bits above the mesh of objects with material slot `slot`
    /// ([`GpuMaterial::batch_class`]).
    pub fn batch_class_of(&self, slot: u32) -> u32 {
        self.table.get(slot).map_or(0, GpuMaterial::batch_class)
    }

    /// The slot of a live material.
    pub fn resolve(&self, handle: MaterialHandle) -> Result<u32, HandleError> {
        self.slots.resolve(handle)
    }

    pub(crate) fn retain(&mut self, slot: u32) {
        self.uses[slot as usize].1 += 1;
    }

    pub(crate) fn release(&mut self, slot: u32) {
        self.uses[slot as usize].1 -= 1;
    }

    /// Material slots in use (high-water mark).
    pub fn slots_in_use(&self) -> u32 {
        self.table.len()
    }

    /// Live materials (the fallback included).
    pub fn len(&self) -> u32 {
        self.slots.live_count()
    }

    /// Whether only the fallback exists.
    pub fn is_empty(&self) -> bool {
        self.len() <= 1
    }

    /// The GPU entry of a slot as last written.
    pub fn gpu_entry(&self, slot: u32) -> Option<&GpuMaterial> {
        self.table.get(slot)
    }

    pub(crate) fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        self.table.flush(device, batch);
    }

    /// The material table buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        self.table.buffer()
    }

    pub(crate) fn version(&self) -> u64 {
        self.table.version()
    }

    /// Bytes of GPU memory the table holds.
    pub fn size_bytes(&self) -> u64 {
        self.table.size_bytes()
    }
}

/// Errors unless every value is finite.
fn finite(field: &'static str, values: &[f32]) -> Result<(), MaterialError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(MaterialError::NonFinite { field })
    }
}

/// Errors on the first value outside `min..=max`.
fn in_range(field: &'static str, values: &[f32], min: f32, max: f32) -> Result<(), MaterialError> {
    match values.iter().find(|v| !(min..=max).contains(*v)) {
        Some(&value) => Err(MaterialError::OutOfRange {
            field,
            value,
            min,
            max,
        }),
        None => Ok(()),
    }
}
