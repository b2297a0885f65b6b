//! How much a renderer holds: [`Capacities`] and the smallest and largest
//! value each may take ([`Capacities::validate`]). Every GPU buffer the
//! renderer sizes from them, and the device limits those need, are derived
//! in `src/limits.rs` ([`Capacities::buffers`]), above the passes that size
//! them; this module stays below everything that reads a capacity.
//!
//! The one sum wgpu takes as a `u32` (binding-array elements) is checked.

use crate::capabilities::error::CapabilityError;
use crate::gpu_types::{MATERIAL_FALLBACK, MESH_MASK, TEXTURE_WHITE};

/// How much the renderer can hold. Every capacity is a hard upper bound: the GPU
/// tables start small and grow up to it, and the device limits unbound asks for
/// are derived from these numbers ([`Capacities::buffers`], `Tier::limits`).
///
/// | field | default |
/// | --- | --- |
/// | `textures_2d` | 4,096 |
/// | `textures_cube` | 16 |
/// | `samplers` | 64 |
/// | `vertices` | 2,097,152 (2^21) |
/// | `indices` | 8,388,608 (2^23) |
/// | `meshes` | 16,384 (2^14; levels of detail take slots too) |
/// | `materials` | 16,384 |
/// | `objects` | 1,048,576 (2^20) |
/// | `lights` | 65,536 (at most [`MAX_LIGHTS`], 2^20) |
///
/// Each must be at least [`Capacities::MIN`] (1, or the reserved slots: 2
/// 2D textures, 1 material) and the meshes at most [`MAX_MESHES`] (2^29);
/// [`Capacities::validate`] says which is wrong, and `Renderer::new` also
/// refuses capacities whose buffers exceed the device's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacities {
    /// Slots in the 2D texture array (slot 0 is the "missing" texture).
    pub textures_2d: u32,
    /// Slots in the cube texture array (slot 0 is the "missing" cube).
    pub textures_cube: u32,
    /// Slots in the sampler array (slot 0 is the default sampler).
    pub samplers: u32,
    /// Vertices in the geometry arena.
    pub vertices: u32,
    /// Indices in the geometry arena.
    pub indices: u32,
    /// Meshes in the mesh table.
    pub meshes: u32,
    /// Materials in the material table (slot 0 is the fallback material).
    pub materials: u32,
    /// Objects (instances) in the object table.
    pub objects: u32,
    /// Punctual lights in the light table (at most [`MAX_LIGHTS`]).
    pub lights: u32,
}

impl Default for Capacities {
    fn default() -> Self {
        Self {
            textures_2d: 4096,
            textures_cube: 16,
            samplers: 64,
            vertices: 1 << 21,
            indices: 1 << 23,
            meshes: 1 << 14,
            materials: 1 << 14,
            objects: 1 << 20,
            lights: 1 << 16,
        }
    }
}

/// Light slots the light pass can prepare: one thread each, in at most
/// 2^14 workgroups of 64.
pub const MAX_LIGHTS: u32 = 1 << 20;

/// Mesh slots the object table can name: an object's batch value packs its
/// mesh slot below the masked bit and the pipeline bucket
/// (`gpu_types::MESH_MASK`).
pub const MAX_MESHES: u32 = MESH_MASK + 1;

impl Capacities {
    /// The smallest capacities a renderer accepts: room for the reserved
    /// slots (the "missing" and white 2D textures, the "missing" cube, the
    /// default sampler, the fallback material) and at least one of
    /// everything else.
    pub const MIN: Self = Self {
        textures_2d: TEXTURE_WHITE + 1,
        textures_cube: 1,
        samplers: 1,
        vertices: 1,
        indices: 1,
        meshes: 1,
        materials: MATERIAL_FALLBACK + 1,
        objects: 1,
        lights: 1,
    };

    /// Each capacity with its field name.
    pub fn fields(&self) -> [(&'static str, u32); 9] {
        [
            ("textures_2d", self.textures_2d),
            ("textures_cube", self.textures_cube),
            ("samplers", self.samplers),
            ("vertices", self.vertices),
            ("indices", self.indices),
            ("meshes", self.meshes),
            ("materials", self.materials),
            ("objects", self.objects),
            ("lights", self.lights),
        ]
    }

    /// Each capacity, in [`Self::fields`] order.
    pub(crate) fn fields_mut(&mut self) -> [&mut u32; 9] {
        [
            &mut self.textures_2d,
            &mut self.textures_cube,
            &mut self.samplers,
            &mut self.vertices,
            &mut self.indices,
            &mut self.meshes,
            &mut self.materials,
            &mut self.objects,
            &mut self.lights,
        ]
    }

    /// Checks what holds on any device: every capacity at least
    /// [`Self::MIN`], meshes at most [`MAX_MESHES`], and the binding-array
    /// total within `u32`. Whether a device holds the buffers they size is
    /// checked by [`crate::check_adapter`] and
    /// [`crate::capabilities::check_device`], which call this first. (At
    /// most [`MAX_LIGHTS`] lights too.)
    pub fn validate(&self) -> Result<(), CapabilityError> {
        let minimums = Self::MIN.fields();
        for ((capacity, requested), (_, minimum)) in self.fields().into_iter().zip(minimums) {
            if requested < minimum {
                return Err(CapabilityError::CapacityTooSmall {
                    capacity,
                    requested,
                    minimum,
                });
            }
        }
        for (capacity, requested, maximum) in [
            ("meshes", self.meshes, MAX_MESHES),
            ("lights", self.lights, MAX_LIGHTS),
        ] {
            if requested > maximum {
                return Err(CapabilityError::CapacityTooLarge {
                    capacity,
                    requested,
                    maximum,
                });
            }
        }
        let total = self.binding_array_elements();
        if u32::try_from(total).is_err() {
            return Err(CapabilityError::CapacityOverflow {
                sum: "textures_2d + textures_cube + samplers",
                total,
            });
        }
        Ok(())
    }

    /// Texture and sampler slots in the binding arrays (tiers A and B), in
    /// `u64`: the sum of three `u32` may not fit one.
    pub fn binding_array_elements(&self) -> u64 {
        u64::from(self.textures_2d) + u64::from(self.textures_cube) + u64::from(self.samplers)
    }
}
