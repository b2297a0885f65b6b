//! Every GPU buffer a renderer sizes from its [`Capacities`]
//! ([`Capacities::buffers`]), and the device limits they need
//! ([`Capacities::required_limits`], [`Tier::limits`]).
//!
//! The code that creates each buffer sizes it with the same function the
//! list calls, so the check made when a renderer is created and the buffers
//! it later allocates cannot drift apart; `tests/device_limits.rs` holds
//! them to it (each buffer of [`crate::Renderer::sized_buffers`] at most
//! its entry). The cluster buffers, sized by the grid rather than the
//! capacities, are listed by [`Capacities::cluster_buffers`]. This module
//! sits above the passes (it asks them for their sizes) and below the
//! device check that uses it. How a buffer is bound, and the checks of
//! sizes that follow a target or a setting, are in
//! `src/capabilities/checked.rs`.
//!
//! Arithmetic on capacities is done in `u64`: a `u32` count times a struct
//! size cannot overflow it.

use crate::capabilities::tier::{
    STORAGE_BUFFERS_PER_STAGE, TIER_C_STAGE_SAMPLERS, TIER_C_STAGE_TEXTURES, Tier,
};
use crate::capacities::{Capacities, MAX_LIGHTS, MAX_MESHES};
use crate::geometry::clusters::cluster_capacity;
use crate::geometry::{index_buffer_size_bytes, vertex_buffer_size_bytes};
use crate::gpu_table::array_size_bytes;
use crate::gpu_types::{
    GpuCluster, GpuClusterLod, GpuFrameUniforms, GpuLight, GpuMaterial, GpuMesh, GpuObject,
    GpuTableCounts,
};
use crate::lighting::ClusterGrid;
use crate::passes::cull_buffers as cull;
use crate::passes::lights;
use crate::passes::occlusion;

pub use crate::capabilities::checked::BufferBinding;

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

impl Tier {
    /// Limits this tier needs for `capacities`.
    pub fn limits(self, capacities: &Capacities) -> wgpu::Limits {
        let limits = capacities.required_limits();
        match self {
            Tier::A | Tier::B => limits,
            Tier::C => wgpu::Limits {
                max_binding_array_elements_per_shader_stage: 0,
                max_binding_array_sampler_elements_per_shader_stage: 0,
                max_sampled_textures_per_shader_stage: TIER_C_STAGE_TEXTURES,
                max_samplers_per_shader_stage: TIER_C_STAGE_SAMPLERS,
                ..limits
            },
        }
    }
}

impl Capacities {
    /// Every GPU buffer a renderer with these capacities creates, at its
    /// largest (each sized by the function that sizes it at creation).
    /// Tier C's two maps are listed whatever the tier: they are small.
    pub fn buffers(&self) -> [DerivedBuffer; 22] {
        use BufferBinding::{Storage, Uniform, VertexOrIndex};
        let buffer = |label, binding, sized_by, size_bytes| DerivedBuffer {
            label,
            binding,
            sized_by,
            size_bytes,
        };
        // Per-view buffers and instance ids start at this many, then grow.
        let cull_meshes = self.meshes.max(cull::INITIAL_CAPACITY);
        let instances = self.objects.max(cull::INITIAL_CAPACITY);
        let (meshes, objects) = (Some("meshes"), Some("objects"));
        let [light_table, view_lights] = self.light_buffers();
        let [
            vertices,
            indices,
            mesh_table,
            cluster_table,
            cluster_lod_table,
        ] = self.arena_buffers();
        [
            vertices,
            indices,
            mesh_table,
            cluster_table,
            cluster_lod_table,
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
                cull::instance_rank_size_bytes(instances, cull::MAX_VIEWS),
            ),
            buffer(
                "unbound visible instances",
                Storage,
                objects,
                cull::instance_list_size_bytes(instances, cull::MAX_VIEWS),
            ),
            buffer(
                "unbound visibility bits",
                Storage,
                objects,
                occlusion::visibility_size_bytes(instances),
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
                "unbound texture feedback",
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

    /// The geometry arena's vertices, indices, mesh table, cluster table
    /// and cluster-LOD table, of [`Self::buffers`].
    fn arena_buffers(&self) -> [DerivedBuffer; 5] {
        let clusters = cluster_capacity(self.indices, self.meshes);
        [
            (
                "unbound arena vertices",
                BufferBinding::Storage,
                "vertices",
                vertex_buffer_size_bytes(self.vertices),
            ),
            (
                "unbound arena indices",
                BufferBinding::VertexOrIndex,
                "indices",
                index_buffer_size_bytes(self.indices),
            ),
            (
                "unbound mesh table",
                BufferBinding::Storage,
                "meshes",
                array_size_bytes::<GpuMesh>(self.meshes),
            ),
            (
                "unbound cluster table",
                BufferBinding::Storage,
                "indices",
                array_size_bytes::<GpuCluster>(clusters),
            ),
            (
                "unbound cluster LOD table",
                BufferBinding::Storage,
                "indices",
                array_size_bytes::<GpuClusterLod>(clusters),
            ),
        ]
        .map(|(label, binding, sized_by, size_bytes)| DerivedBuffer {
            label,
            binding,
            sized_by: Some(sized_by),
            size_bytes,
        })
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
                lights::view_lights_size_bytes(self.lights.max(lights::INITIAL_LIGHT_CAPACITY)),
            ),
        ]
        .map(|(label, size_bytes)| DerivedBuffer {
            label,
            binding: BufferBinding::Storage,
            sized_by: Some("lights"),
            size_bytes,
        })
    }

    /// The cluster buffers a renderer with `grid` creates (sized by the
    /// grid, not the capacities): the cluster ranges and the light index
    /// list, checked against the device when the renderer is made.
    pub fn cluster_buffers(grid: &ClusterGrid) -> [DerivedBuffer; 3] {
        [
            (
                "unbound light columns",
                lights::column_lists_size_bytes(grid, u32::MAX),
            ),
            (
                "unbound cluster ranges",
                lights::cluster_ranges_size_bytes(grid),
            ),
            (
                "unbound light indices",
                lights::light_indices_size_bytes(grid),
            ),
        ]
        .map(|(label, size_bytes)| DerivedBuffer {
            label,
            binding: BufferBinding::Storage,
            sized_by: None,
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
