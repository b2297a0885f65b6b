//! The device contract: which features and limits unbound needs, derived from
//! the capacities the application asks for, and a check that names everything
//! an adapter lacks.

use crate::gpu_types::{GpuMaterial, GpuMesh, GpuObject, GpuVertex, INDEX_SIZE_BYTES};

/// Features unbound cannot work without (tier A: the full bindless, GPU-driven path).
pub const REQUIRED_FEATURES: wgpu::Features = wgpu::Features::TEXTURE_BINDING_ARRAY
    .union(wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING)
    .union(wgpu::Features::PARTIALLY_BOUND_BINDING_ARRAY)
    .union(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT)
    .union(wgpu::Features::INDIRECT_FIRST_INSTANCE);

/// Features unbound uses when the adapter has them: GPU timestamps per pass.
pub const OPTIONAL_FEATURES: wgpu::Features =
    wgpu::Features::TIMESTAMP_QUERY.union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);

/// Storage buffers the largest unbound pipeline binds in one shader stage (the cull pass).
pub const STORAGE_BUFFERS_PER_STAGE: u32 = 8;

/// How much the renderer can hold. Every capacity is a hard upper bound: the GPU
/// tables start small and grow up to it, and the device limits unbound asks for
/// are derived from these numbers.
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
        }
    }
}

impl Capacities {
    /// Size in bytes of the largest storage-buffer binding these capacities need.
    pub fn max_storage_binding_size_bytes(&self) -> u64 {
        let tables = [
            u64::from(self.vertices) * size_of::<GpuVertex>() as u64,
            u64::from(self.meshes) * size_of::<GpuMesh>() as u64,
            u64::from(self.materials) * size_of::<GpuMaterial>() as u64,
            u64::from(self.objects) * size_of::<GpuObject>() as u64,
        ];
        tables.into_iter().max().unwrap_or(0)
    }

    /// Size in bytes of the largest buffer these capacities need.
    pub fn max_buffer_size_bytes(&self) -> u64 {
        self.max_storage_binding_size_bytes()
            .max(u64::from(self.indices) * INDEX_SIZE_BYTES)
    }

    /// The limits a device needs for these capacities; every other limit is
    /// the WebGPU default.
    pub fn required_limits(&self) -> wgpu::Limits {
        let defaults = wgpu::Limits::default();
        wgpu::Limits {
            max_binding_array_elements_per_shader_stage: self.textures_2d
                + self.textures_cube
                + self.samplers,
            max_binding_array_sampler_elements_per_shader_stage: self.samplers,
            max_storage_buffer_binding_size: self
                .max_storage_binding_size_bytes()
                .max(defaults.max_storage_buffer_binding_size),
            max_buffer_size: self.max_buffer_size_bytes().max(defaults.max_buffer_size),
            max_storage_buffers_per_shader_stage: STORAGE_BUFFERS_PER_STAGE
                .max(defaults.max_storage_buffers_per_shader_stage),
            ..defaults
        }
    }

    /// The largest capacities an adapter with `limits` supports, keeping the
    /// ratios of `self` where a limit cuts them.
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
        let max_binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let fit = |count: u32, stride: usize| -> u32 {
            count.min((max_binding / stride as u64).min(u64::from(u32::MAX)) as u32)
        };
        out.vertices = fit(out.vertices, size_of::<GpuVertex>());
        out.meshes = fit(out.meshes, size_of::<GpuMesh>());
        out.materials = fit(out.materials, size_of::<GpuMaterial>());
        out.objects = fit(out.objects, size_of::<GpuObject>());
        out.indices = out
            .indices
            .min((limits.max_buffer_size / INDEX_SIZE_BYTES).min(u64::from(u32::MAX)) as u32);
        out
    }
}

/// One limit that is lower than unbound needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowLimit {
    /// The `wgpu::Limits` field name.
    pub name: &'static str,
    /// What unbound needs.
    pub required: u64,
    /// What the adapter offers.
    pub available: u64,
}

impl std::fmt::Display for LowLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: requires {}, adapter has {}",
            self.name, self.required, self.available
        )
    }
}

/// Why an adapter or device cannot run unbound.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CapabilityError {
    /// The adapter lacks features and/or limits. Every missing feature and
    /// every low limit is listed.
    #[error(
        "adapter {adapter:?} ({backend:?}) cannot run unbound: missing features [{missing_features:?}]; low limits [{}]",
        low_limits.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    Unsupported {
        /// The adapter's name.
        adapter: String,
        /// The adapter's backend.
        backend: wgpu::Backend,
        /// Required features the adapter does not have.
        missing_features: wgpu::Features,
        /// Limits below what the capacities need.
        low_limits: Vec<LowLimit>,
    },
    /// The device was created without features unbound needs (it must be
    /// requested with [`request_device`] or with [`DeviceRequirements`] merged in).
    #[error(
        "device was created without required features {missing:?}; request it with unbound::request_device"
    )]
    DeviceMissingFeatures {
        /// Required features the device lacks.
        missing: wgpu::Features,
    },
    /// The device was created with limits below what the capacities need.
    #[error("device limits too low: {}", low.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    DeviceLowLimits {
        /// Limits below what the capacities need.
        low: Vec<LowLimit>,
    },
    /// `request_device` itself failed.
    #[error("request_device failed: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
}

/// What a device must have for unbound with given capacities.
#[derive(Clone, Debug)]
pub struct DeviceRequirements {
    /// Features that must be enabled.
    pub features: wgpu::Features,
    /// Limits that must be met.
    pub limits: wgpu::Limits,
}

impl DeviceRequirements {
    /// Requirements for `capacities`.
    pub fn new(capacities: &Capacities) -> Self {
        Self {
            features: REQUIRED_FEATURES,
            limits: capacities.required_limits(),
        }
    }
}

/// Every limit unbound depends on, as (name, required, available).
fn limit_rows(required: &wgpu::Limits, available: &wgpu::Limits) -> [(&'static str, u64, u64); 5] {
    [
        (
            "max_binding_array_elements_per_shader_stage",
            u64::from(required.max_binding_array_elements_per_shader_stage),
            u64::from(available.max_binding_array_elements_per_shader_stage),
        ),
        (
            "max_binding_array_sampler_elements_per_shader_stage",
            u64::from(required.max_binding_array_sampler_elements_per_shader_stage),
            u64::from(available.max_binding_array_sampler_elements_per_shader_stage),
        ),
        (
            "max_storage_buffer_binding_size",
            required.max_storage_buffer_binding_size,
            available.max_storage_buffer_binding_size,
        ),
        (
            "max_buffer_size",
            required.max_buffer_size,
            available.max_buffer_size,
        ),
        (
            "max_storage_buffers_per_shader_stage",
            u64::from(required.max_storage_buffers_per_shader_stage),
            u64::from(available.max_storage_buffers_per_shader_stage),
        ),
    ]
}

fn low_limits(required: &wgpu::Limits, available: &wgpu::Limits) -> Vec<LowLimit> {
    limit_rows(required, available)
        .into_iter()
        .filter(|(_, need, have)| need > have)
        .map(|(name, required, available)| LowLimit {
            name,
            required,
            available,
        })
        .collect()
}

/// What an adapter offers unbound: confirmed by [`check_adapter`].
#[derive(Clone, Debug)]
pub struct AdapterSupport {
    /// The adapter's description.
    pub info: wgpu::AdapterInfo,
    /// Optional features the adapter has (enabled by [`request_device`]).
    pub optional_features: wgpu::Features,
    /// The adapter's limits.
    pub limits: wgpu::Limits,
}

/// Checks that `adapter` can run unbound with `capacities`; the error names
/// every missing feature and every low limit.
pub fn check_adapter(
    adapter: &wgpu::Adapter,
    capacities: &Capacities,
) -> Result<AdapterSupport, CapabilityError> {
    check_adapter_parts(
        adapter.get_info(),
        adapter.features(),
        adapter.limits(),
        capacities,
    )
}

/// [`check_adapter`] on an adapter's parts (for adapters described elsewhere).
pub fn check_adapter_parts(
    info: wgpu::AdapterInfo,
    features: wgpu::Features,
    limits: wgpu::Limits,
    capacities: &Capacities,
) -> Result<AdapterSupport, CapabilityError> {
    let missing_features = REQUIRED_FEATURES - features;
    let low_limits = low_limits(&capacities.required_limits(), &limits);
    if !missing_features.is_empty() || !low_limits.is_empty() {
        return Err(CapabilityError::Unsupported {
            adapter: info.name.clone(),
            backend: info.backend,
            missing_features,
            low_limits,
        });
    }
    Ok(AdapterSupport {
        info,
        optional_features: features & OPTIONAL_FEATURES,
        limits,
    })
}

/// Checks that a device already created has what unbound needs.
pub fn check_device(device: &wgpu::Device, capacities: &Capacities) -> Result<(), CapabilityError> {
    let missing = REQUIRED_FEATURES - device.features();
    if !missing.is_empty() {
        return Err(CapabilityError::DeviceMissingFeatures { missing });
    }
    let low = low_limits(&capacities.required_limits(), &device.limits());
    if !low.is_empty() {
        return Err(CapabilityError::DeviceLowLimits { low });
    }
    Ok(())
}

/// Requests a device with unbound's needs merged with the application's own
/// `features` and `limits` (the larger of each limit wins; optional features
/// the adapter has are enabled too).
pub async fn request_device(
    adapter: &wgpu::Adapter,
    capacities: &Capacities,
    features: wgpu::Features,
    limits: &wgpu::Limits,
) -> Result<(wgpu::Device, wgpu::Queue), CapabilityError> {
    let support = check_adapter(adapter, capacities)?;
    let required_limits = capacities.required_limits().or_better_values_from(limits);
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("unbound device"),
        required_features: REQUIRED_FEATURES | support.optional_features | features,
        required_limits,
        ..Default::default()
    };
    Ok(adapter.request_device(&descriptor).await?)
}
