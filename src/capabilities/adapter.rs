//! The adapter check: the best tier an adapter supports with the
//! capacities asked for ([`check_adapter`]), and every limit it lacks.

use super::error::{CapabilityError, LowLimit};
use super::ray_queries;
use super::tier::{OPTIONAL_FEATURES, REQUIRED_DOWNLEVEL, Tier};
use crate::capacities::Capacities;
use crate::limits::BufferBinding;

/// Every limit unbound depends on, as a [`LowLimit`] whether low or not.
fn limit_rows(required: &wgpu::Limits, available: &wgpu::Limits) -> [LowLimit; 8] {
    // One row per `wgpu::Limits` field, named after it.
    macro_rules! rows {
        ($($field:ident),* $(,)?) => {
            [$(LowLimit {
                name: stringify!($field),
                required: u64::from(required.$field),
                available: u64::from(available.$field),
                needed_by: None,
            }),*]
        };
    }
    rows![
        max_sampled_textures_per_shader_stage,
        max_samplers_per_shader_stage,
        max_binding_array_elements_per_shader_stage,
        max_binding_array_sampler_elements_per_shader_stage,
        max_storage_buffer_binding_size,
        max_uniform_buffer_binding_size,
        max_buffer_size,
        max_storage_buffers_per_shader_stage,
    ]
}

/// The limits of `available` below what `tier` needs for `capacities`,
/// each buffer-size limit with the buffer that needs it.
pub(crate) fn low_limits(
    capacities: &Capacities,
    tier: Tier,
    available: &wgpu::Limits,
) -> Vec<LowLimit> {
    let largest = |binding| {
        let buffer = capacities.largest_buffer(binding);
        (buffer.size_bytes, buffer.label)
    };
    let buffers = [
        (
            "max_storage_buffer_binding_size",
            largest(Some(BufferBinding::Storage)),
        ),
        (
            "max_uniform_buffer_binding_size",
            largest(Some(BufferBinding::Uniform)),
        ),
        ("max_buffer_size", largest(None)),
    ];
    limit_rows(&tier.limits(capacities), available)
        .into_iter()
        .filter(|row| row.required > row.available)
        .map(|row| LowLimit {
            needed_by: buffers
                .iter()
                .find(|(name, (size, _))| *name == row.name && *size == row.required)
                .map(|(_, (_, label))| *label),
            ..row
        })
        .collect()
}

/// What an adapter offers unbound: confirmed by [`check_adapter`].
#[derive(Clone, Debug)]
pub struct AdapterSupport {
    /// The adapter's description.
    pub info: wgpu::AdapterInfo,
    /// The best tier the adapter supports.
    pub tier: Tier,
    /// Why each better tier was not possible.
    pub rejected: Vec<CapabilityError>,
    /// Optional features the adapter has (enabled by [`request_device`](crate::capabilities::request_device)).
    pub optional_features: wgpu::Features,
    /// The adapter's features.
    pub features: wgpu::Features,
    /// The adapter's limits.
    pub limits: wgpu::Limits,
    /// Whether the adapter can run ray queries with the capacities checked
    /// at `tier` ([`RAY_QUERY_FEATURES`](crate::capabilities::RAY_QUERY_FEATURES), [`ray_query_limits`](crate::capabilities::ray_query_limits), at most
    /// [`MAX_RAY_QUERY_OBJECTS`](crate::capabilities::MAX_RAY_QUERY_OBJECTS) objects, a tier with binding arrays); the
    /// error names what is missing. A device has them only when requested
    /// with the `ExperimentalFeatures` token ([`DeviceOptions`](crate::capabilities::DeviceOptions)).
    pub ray_queries: Result<(), CapabilityError>,
}

impl AdapterSupport {
    /// The tier to run: the best supported, or `requested` if lower.
    pub fn choose(&self, requested: Option<Tier>) -> Result<Tier, CapabilityError> {
        let rank = |t: Tier| Tier::ALL.iter().position(|x| *x == t).expect("listed");
        match requested {
            None => Ok(self.tier),
            Some(t) if rank(t) >= rank(self.tier) => Ok(t),
            Some(t) => Err(CapabilityError::TierUnavailable {
                requested: t,
                supported: self.tier,
            }),
        }
    }
}

/// Checks `adapter` for one tier; the error names every missing feature,
/// downlevel capability and low limit.
pub fn check_adapter_tier(
    adapter: &wgpu::Adapter,
    capacities: &Capacities,
    tier: Tier,
) -> Result<(), CapabilityError> {
    capacities.validate()?;
    check_parts(
        &adapter.get_info(),
        adapter.features(),
        adapter.get_downlevel_capabilities().flags,
        &adapter.limits(),
        capacities,
        tier,
    )
}

fn check_parts(
    info: &wgpu::AdapterInfo,
    features: wgpu::Features,
    downlevel: wgpu::DownlevelFlags,
    limits: &wgpu::Limits,
    capacities: &Capacities,
    tier: Tier,
) -> Result<(), CapabilityError> {
    let missing_features = tier.features() - features;
    let missing_downlevel = REQUIRED_DOWNLEVEL - downlevel;
    let low_limits = low_limits(capacities, tier, limits);
    if missing_features.is_empty() && missing_downlevel.is_empty() && low_limits.is_empty() {
        return Ok(());
    }
    Err(CapabilityError::Unsupported {
        adapter: info.name.clone(),
        backend: info.backend,
        tier,
        missing_features,
        missing_downlevel,
        low_limits,
    })
}

/// Finds the best tier `adapter` supports with `capacities`, with the
/// reasons every better tier was rejected; fails (naming everything missing
/// for the lowest tier) if none fits, and first if the capacities are not
/// valid on any device ([`Capacities::validate`](crate::Capacities::validate)).
pub fn check_adapter(
    adapter: &wgpu::Adapter,
    capacities: &Capacities,
) -> Result<AdapterSupport, CapabilityError> {
    capacities.validate()?;
    let info = adapter.get_info();
    let features = adapter.features();
    let downlevel = adapter.get_downlevel_capabilities().flags;
    let limits = adapter.limits();
    let mut rejected = Vec::new();
    for tier in Tier::ALL {
        match check_parts(&info, features, downlevel, &limits, capacities, tier) {
            Ok(()) => {
                let ray_queries = ray_queries::check_adapter_ray_queries(
                    &info, features, &limits, capacities, tier,
                );
                return Ok(AdapterSupport {
                    info,
                    tier,
                    rejected,
                    optional_features: features & OPTIONAL_FEATURES,
                    ray_queries,
                    features,
                    limits,
                });
            }
            Err(error) => rejected.push(error),
        }
    }
    Err(rejected.pop().expect("three tiers checked"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> wgpu::AdapterInfo {
        wgpu::AdapterInfo {
            name: "imaginary WebGL2".into(),
            vendor: 0,
            device: 0,
            device_type: wgpu::DeviceType::Other,
            device_pci_bus_id: String::new(),
            driver: String::new(),
            driver_info: String::new(),
            backend: wgpu::Backend::Gl,
            subgroup_min_size: 0,
            subgroup_max_size: 0,
            transient_saves_memory: None,
            limit_bucket: None,
        }
    }

    /// An adapter without compute shaders or vertex-stage storage buffers
    /// (WebGL2-like) is refused even for tier C, naming what is missing.
    #[test]
    fn missing_downlevel_capabilities_are_named() {
        let error = check_parts(
            &info(),
            wgpu::Features::INDIRECT_FIRST_INSTANCE,
            wgpu::DownlevelFlags::empty(),
            &wgpu::Limits::downlevel_webgl2_defaults(),
            &Capacities::default(),
            Tier::C,
        )
        .unwrap_err();
        let CapabilityError::Unsupported {
            missing_downlevel, ..
        } = &error
        else {
            panic!("{error}");
        };
        assert_eq!(*missing_downlevel, REQUIRED_DOWNLEVEL);
        assert!(error.to_string().contains("COMPUTE_SHADERS"), "{error}");
    }

    #[test]
    fn tiers_order_and_choice() {
        let support = AdapterSupport {
            info: info(),
            tier: Tier::B,
            rejected: Vec::new(),
            optional_features: wgpu::Features::empty(),
            features: wgpu::Features::empty(),
            limits: wgpu::Limits::default(),
            ray_queries: Err(CapabilityError::RayQueriesTier { tier: Tier::C }),
        };
        assert_eq!(support.choose(None).unwrap(), Tier::B);
        assert_eq!(support.choose(Some(Tier::C)).unwrap(), Tier::C);
        assert!(support.choose(Some(Tier::A)).is_err());
        assert!(Tier::A.has_indirect_count() && !Tier::B.has_indirect_count());
        assert!(Tier::B.has_binding_arrays() && !Tier::C.has_binding_arrays());
    }
}
