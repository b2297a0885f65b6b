//! Ray queries: the optional capability behind
//! [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries)
//! (acceleration structures over the arena and the object table, hits
//! shaded through the global tables: `src/rays/`).
//!
//! wgpu 30 calls ray queries experimental: a device has them only when it
//! is requested with the application's `wgpu::ExperimentalFeatures` token
//! ([`DeviceOptions::experimental_features`](super::DeviceOptions)), whose
//! constructor is `unsafe`. [`request_device`](super::request_device)
//! enables them whenever the caller hands it an enabled token and the
//! adapter has them; unbound itself holds no token and has no `unsafe`.

use super::error::{CapabilityError, LowLimit};
use super::tier::{STORAGE_BUFFERS_PER_STAGE, Tier};
use crate::capacities::Capacities;
use crate::geometry::index_buffer_size_bytes;

/// The features ray queries need.
pub const RAY_QUERY_FEATURES: wgpu::Features = wgpu::Features::EXPERIMENTAL_RAY_QUERY;

/// The most objects a renderer with ray queries can hold: a TLAS instance
/// names its object slot in its custom data, which has 24 bits.
pub const MAX_RAY_QUERY_OBJECTS: u32 = 1 << 24;

/// Storage buffers a shader stage binds when it traces rays: the ray
/// tables add the index buffer, the mesh table and the path tracer's
/// accumulation to a stage's own, hits on skinned objects read the deform
/// buffer (`wgsl/ray_hit.wgsl`), and the paged heap adds its
/// slot-to-layer map (`src/heap/pages.rs`): a traced stage binds up to
/// 12. Every adapter with ray queries (Vulkan, DX12, Metal) allows far
/// more.
pub const RAY_QUERY_STORAGE_BUFFERS_PER_STAGE: u32 = STORAGE_BUFFERS_PER_STAGE + 4;

/// The limits ray queries add for `capacities`: a TLAS of one instance per
/// object slot, a BLAS of up to every triangle the arena holds (one
/// geometry), one acceleration structure per shader stage (the TLAS), the
/// index buffer bound as a storage buffer (hit shading reads a triangle's
/// indices) and four more storage buffers per stage
/// ([`RAY_QUERY_STORAGE_BUFFERS_PER_STAGE`]). Every other limit is the
/// WebGPU default.
pub fn ray_query_limits(capacities: &Capacities) -> wgpu::Limits {
    let defaults = wgpu::Limits::default();
    wgpu::Limits {
        max_storage_buffers_per_shader_stage: RAY_QUERY_STORAGE_BUFFERS_PER_STAGE
            .max(defaults.max_storage_buffers_per_shader_stage),
        max_tlas_instance_count: capacities.objects,
        max_blas_primitive_count: capacities.indices / 3,
        max_blas_geometry_count: 1,
        max_acceleration_structures_per_shader_stage: 1,
        max_storage_buffer_binding_size: index_buffer_size_bytes(capacities.indices)
            .max(defaults.max_storage_buffer_binding_size),
        ..defaults
    }
}

/// The limits of `available` below what ray queries need for `capacities`.
fn ray_query_low_limits(capacities: &Capacities, available: &wgpu::Limits) -> Vec<LowLimit> {
    let required = ray_query_limits(capacities);
    let row = |name, required: u64, available: u64, needed_by| LowLimit {
        name,
        required,
        available,
        needed_by: Some(needed_by),
    };
    [
        row(
            "max_tlas_instance_count",
            required.max_tlas_instance_count.into(),
            available.max_tlas_instance_count.into(),
            "one TLAS instance per object slot",
        ),
        row(
            "max_blas_primitive_count",
            required.max_blas_primitive_count.into(),
            available.max_blas_primitive_count.into(),
            "a mesh of every triangle the arena holds",
        ),
        row(
            "max_blas_geometry_count",
            required.max_blas_geometry_count.into(),
            available.max_blas_geometry_count.into(),
            "one geometry per mesh",
        ),
        row(
            "max_acceleration_structures_per_shader_stage",
            required.max_acceleration_structures_per_shader_stage.into(),
            available
                .max_acceleration_structures_per_shader_stage
                .into(),
            "the TLAS",
        ),
        row(
            "max_storage_buffers_per_shader_stage",
            required.max_storage_buffers_per_shader_stage.into(),
            available.max_storage_buffers_per_shader_stage.into(),
            "the ray tables besides a stage's own",
        ),
        row(
            "max_storage_buffer_binding_size",
            required.max_storage_buffer_binding_size,
            available.max_storage_buffer_binding_size,
            "unbound arena indices, read by hit shading",
        ),
    ]
    .into_iter()
    .filter(|row| row.required > row.available)
    .collect()
}

/// At most [`MAX_RAY_QUERY_OBJECTS`] objects with ray queries, whatever
/// the device.
pub(crate) fn check_ray_query_objects(capacities: &Capacities) -> Result<(), CapabilityError> {
    if capacities.objects > MAX_RAY_QUERY_OBJECTS {
        return Err(CapabilityError::CapacityTooLarge {
            capacity: "objects (with ray queries)",
            requested: capacities.objects,
            maximum: MAX_RAY_QUERY_OBJECTS,
        });
    }
    Ok(())
}

/// What holds whatever the device: [`check_ray_query_objects`], and a tier
/// whose textures are in binding arrays (hits sample the heap through
/// them).
fn check_ray_query_config(capacities: &Capacities, tier: Tier) -> Result<(), CapabilityError> {
    check_ray_query_objects(capacities)?;
    if !tier.has_binding_arrays() {
        return Err(CapabilityError::RayQueriesTier { tier });
    }
    Ok(())
}

/// Whether an adapter (`info`, `features`, `limits`) can run ray queries
/// with `capacities` at `tier`: the error names what is missing.
pub(crate) fn check_adapter_ray_queries(
    info: &wgpu::AdapterInfo,
    features: wgpu::Features,
    limits: &wgpu::Limits,
    capacities: &Capacities,
    tier: Tier,
) -> Result<(), CapabilityError> {
    check_ray_query_objects(capacities)?;
    let missing_features = RAY_QUERY_FEATURES - features;
    let low_limits = ray_query_low_limits(capacities, limits);
    if !missing_features.is_empty() || !low_limits.is_empty() {
        return Err(CapabilityError::RayQueriesUnsupported {
            adapter: info.name.clone(),
            backend: info.backend,
            missing_features,
            low_limits,
        });
    }
    check_ray_query_config(capacities, tier)
}

/// Checks that a device already created can run ray queries for a
/// renderer of `tier` with `capacities`: the feature (a device requested
/// without the `ExperimentalFeatures` token lacks it) and the limits of
/// [`ray_query_limits`].
pub fn check_device_ray_queries(
    device: &wgpu::Device,
    capacities: &Capacities,
    tier: Tier,
) -> Result<(), CapabilityError> {
    check_ray_query_config(capacities, tier)?;
    let missing = RAY_QUERY_FEATURES - device.features();
    if !missing.is_empty() {
        return Err(CapabilityError::DeviceMissingFeatures { missing });
    }
    let low = ray_query_low_limits(capacities, &device.limits());
    if !low.is_empty() {
        return Err(CapabilityError::DeviceLowLimits { low });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each reason is named: too many objects for 24 bits, a tier without
    /// binding arrays, a missing feature, a low limit.
    #[test]
    fn every_reason_is_named() {
        let info = wgpu::AdapterInfo {
            name: "imaginary".into(),
            vendor: 0,
            device: 0,
            device_type: wgpu::DeviceType::Other,
            device_pci_bus_id: String::new(),
            driver: String::new(),
            driver_info: String::new(),
            backend: wgpu::Backend::Vulkan,
            subgroup_min_size: 0,
            subgroup_max_size: 0,
            transient_saves_memory: None,
            limit_bucket: None,
        };
        let capacities = Capacities::default();
        let enough = ray_query_limits(&capacities);
        let check = |features, limits: &wgpu::Limits, capacities: &Capacities, tier| {
            check_adapter_ray_queries(&info, features, limits, capacities, tier)
        };
        check(RAY_QUERY_FEATURES, &enough, &capacities, Tier::A).unwrap();
        let error = check(RAY_QUERY_FEATURES, &enough, &capacities, Tier::C).unwrap_err();
        assert!(matches!(
            error,
            CapabilityError::RayQueriesTier { tier: Tier::C }
        ));
        let many = Capacities {
            objects: MAX_RAY_QUERY_OBJECTS + 1,
            ..capacities
        };
        let error = check(RAY_QUERY_FEATURES, &enough, &many, Tier::A).unwrap_err();
        assert!(
            matches!(error, CapabilityError::CapacityTooLarge { requested, maximum, .. }
                if requested == MAX_RAY_QUERY_OBJECTS + 1 && maximum == MAX_RAY_QUERY_OBJECTS),
            "{error}"
        );
        let low = wgpu::Limits {
            max_tlas_instance_count: capacities.objects - 1,
            ..enough.clone()
        };
        let error = check(wgpu::Features::empty(), &low, &capacities, Tier::B).unwrap_err();
        let CapabilityError::RayQueriesUnsupported {
            missing_features,
            low_limits,
            ..
        } = &error
        else {
            panic!("{error}");
        };
        assert_eq!(*missing_features, RAY_QUERY_FEATURES);
        assert_eq!(low_limits.len(), 1);
        assert_eq!(low_limits[0].name, "max_tlas_instance_count");
        assert!(
            error.to_string().contains("EXPERIMENTAL_RAY_QUERY"),
            "{error}"
        );
    }
}
