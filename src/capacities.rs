//! How much a renderer holds: [`Capacities`], the smallest and largest value
//! each may take ([`Capacities::validate`]), and every GPU buffer the
//! renderer sizes from them ([`Capacities::buffers`]).
//!
//! The device limits unbound asks for (`src/capabilities/`) are the largest of
//! these buffers, and the code that creates each buffer sizes it with the
//! same function the list calls, so the check made when a renderer is
//! created and the buffers it later allocates cannot drift apart.
//!
//! Arithmetic on capacities is done in `u64`: a `u32` count times a struct
//! size cannot overflow it. The one sum wgpu takes as a `u32` (binding-array
//! elements) is checked.

use crate::capabilities::{CapabilityError, STORAGE_BUFFERS_PER_STAGE};
use crate::geometry::{index_buffer_size_bytes, vertex_buffer_size_bytes};
use crate::gpu_table::array_size_bytes;
use crate::gpu_types::{
    GpuFrameUniforms, GpuLight, GpuMaterial, GpuMesh, GpuObject, GpuTableCounts, MESH_MASK,
};
use crate::heap::TEXTURE_WHITE;
use crate::materials::MATERIAL_FALLBACK;
use crate::passes::{cull, lights};

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
/// 2D textures, 1 material) and the meshes at most [`MAX_MESHES`] (2^30);
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
/// mesh slot below the pipeline bucket (`gpu_types::MESH_MASK`).
pub const MAX_MESHES: u32 = MESH_MASK + 1;

/// How a buffer is bound, which decides the device limit it must fit
/// besides `max_buffer_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferBinding {
    /// A storage buffer: at most `max_storage_buffer_binding_size`.
    Storage,
    /// A uniform buffer: at most `max_uniform_buffer_binding_size`.
    Uniform,
    /// Only a vertex or index buffer: `max_buffer_size` alone.
    VertexOrIndex,
}

impl BufferBinding {
    /// The largest buffer bound this way that `limits` allow.
    pub fn limit_bytes(self, limits: &wgpu::Limits) -> u64 {
        let binding = match self {
            Self::Storage => limits.max_storage_buffer_binding_size,
            Self::Uniform => limits.max_uniform_buffer_binding_size,
            Self::VertexOrIndex => u64::MAX,
        };
        binding.min(limits.max_buffer_size)
    }
}

/// One GPU buffer a renderer creates, at the largest size its capacities
/// allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DerivedBuffer {
    /// The buffer's wgpu label.
    pub label: &'static str,
    /// How it is bound.
    pub binding: BufferBinding,
    /// The [`Capacities`] field it grows with (`None`: a fixed size).
    pub sized_by: Option<&'static str>,
    /// Its largest size.
    pub size_bytes: u64,
}

impl DerivedBuffer {
    /// Whether the buffer fits `limits`.
    pub fn fits(&self, limits: &wgpu::Limits) -> bool {
        self.size_bytes <= self.binding.limit_bytes(limits)
    }
}

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
    fn fields_mut(&mut self) -> [&mut u32; 9] {
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

    /// Every GPU buffer a renderer with these capacities creates, at its
    /// largest (each sized by the function that sizes it at creation).
    /// Tier C's two maps are listed whatever the tier: they are small.
    pub fn buffers(&self) -> [DerivedBuffer; 18] {
        use BufferBinding::{Storage, Uniform, VertexOrIndex};
        let buffer = |label, binding, sized_by, size_bytes| DerivedBuffer {
            label,
            binding,
            sized_by,
            size_bytes,
        };
        // A view's cull buffers and the draw pass's instance ids start at
        // this many meshes and instances, and grow with the tables.
        let cull_meshes = self.meshes.max(cull::INITIAL_CAPACITY);
        let instances = self.objects.max(cull::INITIAL_CAPACITY);
        let (meshes, objects) = (Some("meshes"), Some("objects"));
        let [light_table, view_lights] = self.light_buffers();
        [
            buffer(
                "unbound arena vertices",
                Storage,
                Some("vertices"),
                vertex_buffer_size_bytes(self.vertices),
            ),
            buffer(
                "unbound arena indices",
                VertexOrIndex,
                Some("indices"),
                index_buffer_size_bytes(self.indices),
            ),
            buffer(
                "unbound mesh table",
                Storage,
                meshes,
                array_size_bytes::<GpuMesh>(self.meshes),
            ),
            buffer(
                "unbound cull counters",
                Storage,
                meshes,
                cull::counters_size_bytes(cull_meshes, cull::MAX_VIEWS),
            ),
            buffer(
                "unbound indirect draws",
                Storage,
                meshes,
                cull::draws_size_bytes(cull_meshes, cull::MAX_VIEWS),
            ),
            buffer(
                "unbound material table",
                Storage,
                Some("materials"),
                array_size_bytes::<GpuMaterial>(self.materials),
            ),
            buffer(
                "unbound object table",
                Storage,
                objects,
                array_size_bytes::<GpuObject>(self.objects),
            ),
            buffer(
                "unbound instance bounds",
                Storage,
                objects,
                array_size_bytes::<[f32; 4]>(self.objects),
            ),
            buffer(
                "unbound instance batch",
                Storage,
                objects,
                array_size_bytes::<u32>(self.objects),
            ),
            buffer(
                "unbound instance rank",
                Storage,
                objects,
                cull::instance_list_size_bytes(instances, cull::MAX_VIEWS),
            ),
            buffer(
                "unbound visible instances",
                Storage,
                objects,
                cull::instance_list_size_bytes(instances, cull::MAX_VIEWS),
            ),
            buffer(
                "unbound instance ids",
                VertexOrIndex,
                objects,
                array_size_bytes::<u32>(instances),
            ),
            light_table,
            view_lights,
            buffer(
                "unbound texture locations",
                Storage,
                Some("textures_2d"),
                array_size_bytes::<u32>(self.textures_2d),
            ),
            buffer(
                "unbound sampler modes",
                Storage,
                Some("samplers"),
                array_size_bytes::<u32>(self.samplers),
            ),
            buffer(
                "unbound table counts",
                Storage,
                None,
                size_of::<GpuTableCounts>() as u64,
            ),
            buffer(
                "unbound frame uniforms",
                Uniform,
                None,
                GpuFrameUniforms::SIZE_BYTES,
            ),
        ]
    }

    /// The light table and the light pass's view-space lights, of
    /// [`Self::buffers`].
    fn light_buffers(&self) -> [DerivedBuffer; 2] {
        [
            (
                "unbound light table",
                array_size_bytes::<GpuLight>(self.lights),
            ),
            (
                "unbound view lights",
                lights::view_lights_size_bytes(self.lights),
            ),
        ]
        .map(|(label, size_bytes)| DerivedBuffer {
            label,
            binding: BufferBinding::Storage,
            sized_by: Some("lights"),
            size_bytes,
        })
    }

    /// The largest buffer bound as `binding` (`None`: of all buffers).
    pub fn largest_buffer(&self, binding: Option<BufferBinding>) -> DerivedBuffer {
        self.buffers()
            .into_iter()
            .filter(|b| binding.is_none_or(|binding| b.binding == binding))
            .max_by_key(|b| b.size_bytes)
            .expect("every binding has a buffer")
    }

    /// Size in bytes of the largest storage-buffer binding these capacities need.
    pub fn max_storage_binding_size_bytes(&self) -> u64 {
        self.largest_buffer(Some(BufferBinding::Storage)).size_bytes
    }

    /// Size in bytes of the largest uniform-buffer binding these capacities need.
    pub fn max_uniform_binding_size_bytes(&self) -> u64 {
        self.largest_buffer(Some(BufferBinding::Uniform)).size_bytes
    }

    /// Size in bytes of the largest buffer these capacities need.
    pub fn max_buffer_size_bytes(&self) -> u64 {
        self.largest_buffer(None).size_bytes
    }

    /// The limits a device needs for these capacities; every other limit is
    /// the WebGPU default. A binding-array total beyond `u32` asks for
    /// `u32::MAX` ([`Self::validate`] refuses it).
    pub fn required_limits(&self) -> wgpu::Limits {
        let defaults = wgpu::Limits::default();
        wgpu::Limits {
            max_binding_array_elements_per_shader_stage: u32::try_from(
                self.binding_array_elements(),
            )
            .unwrap_or(u32::MAX),
            max_binding_array_sampler_elements_per_shader_stage: self.samplers,
            max_storage_buffer_binding_size: self
                .max_storage_binding_size_bytes()
                .max(defaults.max_storage_buffer_binding_size),
            max_uniform_buffer_binding_size: self
                .max_uniform_binding_size_bytes()
                .max(defaults.max_uniform_buffer_binding_size),
            max_buffer_size: self.max_buffer_size_bytes().max(defaults.max_buffer_size),
            max_storage_buffers_per_shader_stage: STORAGE_BUFFERS_PER_STAGE
                .max(defaults.max_storage_buffers_per_shader_stage),
            ..defaults
        }
    }

    /// The largest capacities an adapter with `limits` supports, keeping the
    /// ratios of `self` where a limit cuts them, never below [`Self::MIN`].
    /// Every buffer of [`Self::buffers`] fits `limits` afterwards unless a
    /// limit is too low for even [`Self::MIN`] (the adapter check then says
    /// which).
    pub fn clamped_to(&self, limits: &wgpu::Limits) -> Self {
        let mut out = *self;
        let array_budget = limits.max_binding_array_elements_per_shader_stage;
        out.samplers = out
            .samplers
            .min(limits.max_binding_array_sampler_elements_per_shader_stage);
        let textures = u64::from(out.textures_2d) + u64::from(out.textures_cube);
        let texture_budget = u64::from(array_budget.saturating_sub(out.samplers));
        if textures > texture_budget {
            out.textures_cube = out.textures_cube.min((texture_budget / 8) as u32);
            out.textures_2d = (texture_budget - u64::from(out.textures_cube)) as u32;
        }
        out.meshes = out.meshes.min(MAX_MESHES);
        out.lights = out.lights.min(MAX_LIGHTS);
        for field in 0..out.fields().len() {
            let (name, requested) = out.fields()[field];
            let fits = |count: u32| {
                let mut candidate = out;
                *candidate.fields_mut()[field] = count;
                candidate
                    .buffers()
                    .iter()
                    .filter(|b| b.sized_by == Some(name))
                    .all(|b| b.fits(limits))
            };
            if fits(requested) {
                continue;
            }
            // Buffers grow with their capacity: the largest count that fits.
            let (mut fitting, mut too_big) = (0, requested);
            while too_big - fitting > 1 {
                let middle = fitting + (too_big - fitting) / 2;
                if fits(middle) {
                    fitting = middle;
                } else {
                    too_big = middle;
                }
            }
            *out.fields_mut()[field] = fitting;
        }
        for (value, (_, minimum)) in out.fields_mut().into_iter().zip(Self::MIN.fields()) {
            *value = (*value).max(minimum);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Clamping leaves every buffer within the limits, the cull counters
    /// (384 B per mesh slot) included, and cuts nothing that fits.
    #[test]
    fn clamped_capacities_fit_every_buffer() {
        let limits = wgpu::Limits {
            max_binding_array_elements_per_shader_stage: 1 << 20,
            max_binding_array_sampler_elements_per_shader_stage: 1 << 10,
            ..wgpu::Limits::default()
        };
        let huge = Capacities {
            textures_2d: u32::MAX,
            textures_cube: u32::MAX,
            samplers: u32::MAX,
            vertices: u32::MAX,
            indices: u32::MAX,
            meshes: u32::MAX,
            materials: u32::MAX,
            objects: u32::MAX,
            lights: u32::MAX,
        };
        let clamped = huge.clamped_to(&limits);
        for buffer in clamped.buffers() {
            assert!(buffer.fits(&limits), "{buffer:?}");
        }
        clamped.validate().expect("clamped capacities are valid");
        // The cull counters bound the meshes, not the mesh table.
        let per_mesh = cull::counters_bytes(2) - cull::counters_bytes(1);
        assert_eq!(per_mesh, 384);
        let storage = limits.max_storage_buffer_binding_size;
        let counters = |meshes| cull::counters_size_bytes(meshes, cull::MAX_VIEWS);
        assert!(counters(clamped.meshes) <= storage);
        assert!(counters(clamped.meshes + 1) > storage);
        assert!(array_size_bytes::<GpuMesh>(clamped.meshes * 5) < storage);

        let defaults = Capacities::default();
        assert_eq!(defaults.clamped_to(&limits), defaults);
    }
}
