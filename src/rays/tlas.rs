//! The top-level acceleration structure (TLAS): one instance per live
//! object slot, at the slot's index, whose custom data is the object slot
//! (what hit shading looks the object up by) and whose mask says whether
//! its material is opaque, alpha-masked or blended (rays choose what they
//! may hit: shadow rays skip blended objects).
//!
//! wgpu 30 encodes every instance on the CPU each time a TLAS is built
//! (`build_acceleration_structures` writes them all into a staging buffer),
//! so the TLAS is built only on frames where an object was added, removed,
//! moved or changed (mesh, material, or a material's alpha mode), or a BLAS
//! it uses was made again: the one exception to the rule that a frame's
//! CPU cost does not grow with the object count (`docs/PERFORMANCE.md`).
//! It holds room for a power of two of object slots and is made again,
//! twice as large, when the slots in use outgrow it.

use glam::Mat4;

use super::deform::Deformation;
use crate::gpu_types::{
    ALPHA_BLEND, ALPHA_MASK, RAY_MASK_BLENDED, RAY_MASK_MASKED, RAY_MASK_OPAQUE,
};

/// Instances a TLAS starts with room for.
const INITIAL_INSTANCES: u32 = 64;

/// The TLAS mask of an object whose material has `alpha_mode`.
pub(crate) fn instance_mask(alpha_mode: u32) -> u8 {
    let mask = match alpha_mode {
        ALPHA_MASK => RAY_MASK_MASKED,
        ALPHA_BLEND => RAY_MASK_BLENDED,
        _ => RAY_MASK_OPAQUE,
    };
    mask as u8
}

/// `world_from_object` as a TLAS instance's transform: its top three rows,
/// row-major.
pub(crate) fn instance_transform(world_from_object: &Mat4) -> [f32; 12] {
    let rows = world_from_object.transpose().to_cols_array();
    rows[..12].try_into().expect("twelve of sixteen")
}

/// What an instance was made from: its mesh and material slots and
/// whether the material is alpha-masked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InstanceSource {
    pub mesh: u32,
    pub material: u32,
    pub alpha_mode: u32,
    /// How the animation deforms it (`deform.rs`).
    pub deformation: Deformation,
}

impl InstanceSource {
    pub fn masked(&self) -> bool {
        self.alpha_mode == ALPHA_MASK
    }
}

/// The TLAS and the source of each instance, by object slot.
#[derive(Debug)]
pub(crate) struct Instances {
    tlas: wgpu::Tlas,
    /// Instances the TLAS has room for.
    capacity: u32,
    /// The most it may grow to (the object capacity).
    max_capacity: u32,
    sources: Vec<Option<InstanceSource>>,
    live: u32,
    /// An instance changed since the last build.
    dirty: bool,
    /// Bumped whenever the TLAS is made again (bind groups hold it).
    version: u64,
}

fn create_tlas(device: &wgpu::Device, capacity: u32) -> wgpu::Tlas {
    device.create_tlas(&wgpu::CreateTlasDescriptor {
        label: Some("unbound TLAS"),
        max_instances: capacity,
        flags: wgpu::AccelerationStructureFlags::PREFER_FAST_TRACE,
        update_mode: wgpu::AccelerationStructureUpdateMode::Build,
    })
}

impl Instances {
    pub fn new(device: &wgpu::Device, max_capacity: u32) -> Self {
        let capacity = INITIAL_INSTANCES.min(max_capacity);
        Self {
            tlas: create_tlas(device, capacity),
            capacity,
            max_capacity,
            sources: Vec::new(),
            live: 0,
            // A TLAS is built before any frame binds it, even an empty one.
            dirty: true,
            version: 0,
        }
    }

    /// Makes room for object slot `slot`, making the TLAS again (larger,
    /// its instances copied) if needed.
    fn ensure(&mut self, device: &wgpu::Device, slot: u32) {
        if slot < self.capacity {
            return;
        }
        let capacity = (slot + 1).next_power_of_two().min(self.max_capacity);
        let mut tlas = create_tlas(device, capacity);
        for (index, instance) in self.tlas.get().iter().enumerate() {
            if instance.is_some() {
                tlas[index].clone_from(instance);
            }
        }
        self.tlas = tlas;
        self.capacity = capacity;
        self.version += 1;
    }

    /// Sets object slot `slot`'s instance; returns the source it replaced.
    pub fn set(
        &mut self,
        device: &wgpu::Device,
        slot: u32,
        source: InstanceSource,
        blas: &wgpu::Blas,
        world_from_object: &Mat4,
    ) -> Option<InstanceSource> {
        self.ensure(device, slot);
        let index = slot as usize;
        if index >= self.sources.len() {
            self.sources.resize(index + 1, None);
        }
        let old = self.sources[index].replace(source);
        if old.is_none() {
            self.live += 1;
        }
        self.tlas[index] = Some(wgpu::TlasInstance::new(
            blas,
            instance_transform(world_from_object),
            slot,
            instance_mask(source.alpha_mode),
        ));
        self.dirty = true;
        old
    }

    /// Clears object slot `slot`'s instance; returns its source.
    pub fn remove(&mut self, slot: u32) -> Option<InstanceSource> {
        let old = self.sources.get_mut(slot as usize)?.take()?;
        self.tlas[slot as usize] = None;
        self.live -= 1;
        self.dirty = true;
        Some(old)
    }

    /// Points every instance of mesh slot `mesh` at `blas` (made again),
    /// but those `own_blas` says are traced through a BLAS of their own.
    pub fn repoint_mesh(&mut self, mesh: u32, blas: &wgpu::Blas, own_blas: impl Fn(u32) -> bool) {
        for (index, source) in self.sources.iter().enumerate() {
            if source.is_some_and(|s| s.mesh == mesh)
                && !own_blas(index as u32)
                && let Some(instance) = self.tlas[index].as_mut()
            {
                instance.set_blas(blas);
                self.dirty = true;
            }
        }
    }

    /// Points slot `slot`'s instance at `blas` (a BLAS of its own, made
    /// again).
    pub fn set_blas(&mut self, slot: u32, blas: &wgpu::Blas) {
        if let Some(Some(instance)) = self.tlas.get_mut_single(slot as usize) {
            instance.set_blas(blas);
            self.dirty = true;
        }
    }

    /// The object slots whose material is `material`, with their sources.
    pub fn using_material(&self, material: u32) -> Vec<(u32, InstanceSource)> {
        self.sources
            .iter()
            .enumerate()
            .filter_map(|(slot, s)| {
                s.filter(|s| s.material == material)
                    .map(|s| (slot as u32, s))
            })
            .collect()
    }

    /// Changes the alpha mode recorded for slot `slot` and its mask.
    pub fn set_alpha_mode(&mut self, slot: u32, alpha_mode: u32) {
        let index = slot as usize;
        if let Some(Some(source)) = self.sources.get_mut(index)
            && let Some(Some(instance)) = self.tlas.get_mut_single(index)
        {
            source.alpha_mode = alpha_mode;
            instance.mask = instance_mask(alpha_mode);
            self.dirty = true;
        }
    }

    /// Builds the TLAS with the next frame (a dropped frame's build was
    /// lost).
    pub fn force_build(&mut self) {
        self.dirty = true;
    }

    /// The TLAS if it must be built this frame (and marks it built).
    pub fn take_build(&mut self) -> Option<&wgpu::Tlas> {
        std::mem::take(&mut self.dirty).then_some(&self.tlas)
    }

    pub fn tlas(&self) -> &wgpu::Tlas {
        &self.tlas
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn live(&self) -> u32 {
        self.live
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }
}
