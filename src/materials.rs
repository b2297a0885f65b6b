//! The material table: glTF metallic-roughness materials in one storage
//! buffer, referencing textures and samplers only by heap handle.
//!
//! Slot 0 is the fallback material (the "missing" texture), so an
//! out-of-range material index in the object table shows that texture.
//! While a material is live, the textures and samplers it names cannot be
//! freed (the heap refuses); while objects use a material, it cannot be
//! removed.

use glam::{Vec2, Vec3, Vec4};

use crate::gpu_table::GpuTable;
use crate::gpu_types::{
    GpuMaterial, GpuMaterialTexture, MATERIAL_FLAG_DOUBLE_SIDED, MATERIAL_FLAG_NORMAL_MAP,
};
use crate::handles::{
    CapacityError, HandleError, MaterialHandle, MaterialSlot, SamplerHandle, SlotAllocator,
    TextureHandle, new_owner_id,
};
use crate::heap::{ResourceHeap, SAMPLER_DEFAULT, TEXTURE_MISSING, TEXTURE_WHITE};
use crate::upload::UploadBatch;

/// Reserved material slot: shows the "missing" texture.
pub const MATERIAL_FALLBACK: u32 = 0;

/// `KHR_texture_transform`: `uv' = T(offset) * R(rotation) * S(scale) * uv`,
/// with `R = [[cos, sin], [-sin, cos]]` (rows): rotating the UVs
/// counter-clockwise in texture space (v down), as the extension's
/// TextureTransformTest sample confirms (its rotation tile points at the
/// green marker).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    /// Translation.
    pub offset: Vec2,
    /// Rotation in radians, as in the extension's matrix.
    pub rotation: f32,
    /// Scale.
    pub scale: Vec2,
}

impl Default for UvTransform {
    fn default() -> Self {
        Self {
            offset: Vec2::ZERO,
            rotation: 0.0,
            scale: Vec2::ONE,
        }
    }
}

impl UvTransform {
    /// The two rows of the 2x3 affine matrix.
    pub fn rows(&self) -> [[f32; 4]; 2] {
        let (sin, cos) = self.rotation.sin_cos();
        [
            [cos * self.scale.x, sin * self.scale.y, self.offset.x, 0.0],
            [-sin * self.scale.x, cos * self.scale.y, self.offset.y, 0.0],
        ]
    }

    /// Applies the transform to one coordinate (the shader's computation).
    pub fn apply(&self, uv: Vec2) -> Vec2 {
        let [r0, r1] = self.rows();
        Vec2::new(
            r0[0] * uv.x + r0[1] * uv.y + r0[2],
            r1[0] * uv.x + r1[1] * uv.y + r1[2],
        )
    }
}

/// A texture as a material uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureRef {
    /// The texture.
    pub texture: TextureHandle,
    /// The sampler.
    pub sampler: SamplerHandle,
    /// UV set, 0 or 1.
    pub uv_set: u32,
    /// UV transform.
    pub transform: UvTransform,
}

impl TextureRef {
    /// `texture` with `sampler`, UV set 0, no transform.
    pub fn new(texture: TextureHandle, sampler: SamplerHandle) -> Self {
        Self {
            texture,
            sampler,
            uv_set: 0,
            transform: UvTransform::default(),
        }
    }
}

/// How alpha is used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Fragments with alpha below the cutoff are discarded.
    Mask {
        /// The cutoff.
        cutoff: f32,
    },
    /// Alpha blended.
    Blend,
}

/// A glTF 2.0 metallic-roughness material. Colour factors are linear.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Base colour factor (linear RGBA).
    pub base_color_factor: Vec4,
    /// Base colour texture (sRGB); `None`: white.
    pub base_color: Option<TextureRef>,
    /// Metallic factor.
    pub metallic_factor: f32,
    /// Roughness factor.
    pub roughness_factor: f32,
    /// Metallic (B) / roughness (G) texture.
    pub metallic_roughness: Option<TextureRef>,
    /// Tangent-space normal map.
    pub normal: Option<TextureRef>,
    /// Normal map scale.
    pub normal_scale: f32,
    /// Occlusion texture (R).
    pub occlusion: Option<TextureRef>,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// Emissive factor (linear RGB).
    pub emissive_factor: Vec3,
    /// `KHR_materials_emissive_strength`.
    pub emissive_strength: f32,
    /// Emissive texture (sRGB).
    pub emissive: Option<TextureRef>,
    /// Alpha mode.
    pub alpha_mode: AlphaMode,
    /// Render back faces too.
    pub double_sided: bool,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            base_color_factor: Vec4::ONE,
            base_color: None,
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            metallic_roughness: None,
            normal: None,
            normal_scale: 1.0,
            occlusion: None,
            occlusion_strength: 1.0,
            emissive_factor: Vec3::ZERO,
            emissive_strength: 1.0,
            emissive: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
        }
    }
}

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
}

/// (texture slot, sampler slot) of a material's five textures.
type TextureSlots = [(u32, u32); 5];

/// Every material in one storage buffer. See the module docs.
#[derive(Debug)]
pub struct MaterialTable {
    slots: SlotAllocator<MaterialSlot>,
    table: GpuTable<GpuMaterial>,
    /// Per slot: textures it holds references on, and objects using it.
    uses: Vec<(Option<TextureSlots>, u32)>,
}

fn finite(field: &'static str, values: &[f32]) -> Result<(), MaterialError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(MaterialError::NonFinite { field })
    }
}

fn gpu_texture(
    heap: &ResourceHeap,
    texture: Option<&TextureRef>,
    none: u32,
) -> Result<GpuMaterialTexture, MaterialError> {
    let identity = UvTransform::default().rows();
    let Some(texture) = texture else {
        return Ok(GpuMaterialTexture {
            uv_row0: identity[0],
            uv_row1: identity[1],
            texture: none,
            sampler: SAMPLER_DEFAULT,
            uv_set: 0,
            _pad: 0,
        });
    };
    if texture.uv_set > 1 {
        return Err(MaterialError::UvSet {
            uv_set: texture.uv_set,
        });
    }
    let t = &texture.transform;
    finite(
        "uv transform",
        &[t.offset.x, t.offset.y, t.rotation, t.scale.x, t.scale.y],
    )?;
    let rows = t.rows();
    Ok(GpuMaterialTexture {
        uv_row0: rows[0],
        uv_row1: rows[1],
        texture: heap.texture_2d_slot(texture.texture)?,
        sampler: heap.sampler_slot(texture.sampler)?,
        uv_set: texture.uv_set,
        _pad: 0,
    })
}

impl Material {
    /// The GPU form, with handles resolved to slots (errors on stale handles).
    pub fn to_gpu(&self, heap: &ResourceHeap) -> Result<GpuMaterial, MaterialError> {
        finite("base_color_factor", &self.base_color_factor.to_array())?;
        finite("emissive_factor", &self.emissive_factor.to_array())?;
        finite(
            "scalar factors",
            &[
                self.metallic_factor,
                self.roughness_factor,
                self.normal_scale,
                self.occlusion_strength,
                self.emissive_strength,
            ],
        )?;
        let (alpha_mode, alpha_cutoff) = match self.alpha_mode {
            AlphaMode::Opaque => (0, 0.5),
            AlphaMode::Mask { cutoff } => {
                finite("alpha cutoff", &[cutoff])?;
                (1, cutoff)
            }
            AlphaMode::Blend => (2, 0.5),
        };
        let mut flags = 0;
        if self.double_sided {
            flags |= MATERIAL_FLAG_DOUBLE_SIDED;
        }
        if self.normal.is_some() {
            flags |= MATERIAL_FLAG_NORMAL_MAP;
        }
        Ok(GpuMaterial {
            base_color_factor: self.base_color_factor.to_array(),
            emissive_factor: self.emissive_factor.to_array(),
            emissive_strength: self.emissive_strength,
            metallic_factor: self.metallic_factor,
            roughness_factor: self.roughness_factor,
            normal_scale: self.normal_scale,
            occlusion_strength: self.occlusion_strength,
            alpha_cutoff,
            alpha_mode,
            flags,
            _pad: 0,
            base_color: gpu_texture(heap, self.base_color.as_ref(), TEXTURE_WHITE)?,
            metallic_roughness: gpu_texture(heap, self.metallic_roughness.as_ref(), TEXTURE_WHITE)?,
            normal: gpu_texture(heap, self.normal.as_ref(), TEXTURE_WHITE)?,
            occlusion: gpu_texture(heap, self.occlusion.as_ref(), TEXTURE_WHITE)?,
            emissive: gpu_texture(heap, self.emissive.as_ref(), TEXTURE_WHITE)?,
        })
    }
}

fn texture_slots(material: &GpuMaterial) -> TextureSlots {
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
        };
        let fallback = Material {
            base_color: Some(TextureRef::new(
                heap.missing_texture(),
                heap.default_sampler(),
            )),
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
        self.table.set(slot, fallback);
        Ok(())
    }

    /// The pipeline bucket of material slot `slot`.
    pub fn bucket_of(&self, slot: u32) -> u32 {
        self.table.get(slot).map_or(0, GpuMaterial::bucket)
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

#[cfg(test)]
mod tests {
    use super::UvTransform;
    use glam::Vec2;

    #[test]
    fn uv_transform_is_translation_rotation_scale() {
        let t = UvTransform {
            offset: Vec2::new(0.5, 0.25),
            rotation: std::f32::consts::FRAC_PI_2,
            scale: Vec2::new(2.0, 3.0),
        };
        // S: (1, 0) -> (2, 0); R(90°): (2, 0) -> (0, -2); T: -> (0.5, -1.75).
        let uv = t.apply(Vec2::new(1.0, 0.0));
        assert!((uv - Vec2::new(0.5, -1.75)).length() < 1e-5, "{uv}");
    }
}
