//! The device contract: which features and limits unbound needs, derived from
//! the capacities the application asks for (`capacities.rs`: every buffer
//! they size), and a check that names everything an adapter lacks.
//!
//! - `mod.rs`: features, tiers, limits, the adapter check and its errors;
//! - `device.rs`: requesting a device ([`request_device`]) and checking one;
//! - `ray_queries.rs`: the optional ray-query capability.

mod device;
mod ray_queries;

pub use device::{DeviceOptions, check_device, format_features, request_device};
pub(crate) use ray_queries::check_ray_query_objects;
pub use ray_queries::{
    MAX_RAY_QUERY_OBJECTS, RAY_QUERY_FEATURES, RAY_QUERY_STORAGE_BUFFERS_PER_STAGE,
    check_device_ray_queries, ray_query_limits,
};

use crate::capacities::BufferBinding;
pub use crate::capacities::Capacities;

/// Features unbound cannot work without (tier A: the full bindless, GPU-driven path).
pub const REQUIRED_FEATURES: wgpu::Features = wgpu::Features::TEXTURE_BINDING_ARRAY
    .union(wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING)
    .union(wgpu::Features::PARTIALLY_BOUND_BINDING_ARRAY)
    .union(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT)
    .union(wgpu::Features::INDIRECT_FIRST_INSTANCE);

/// Features unbound uses when the adapter has them: GPU timestamps per pass,
/// BC1-BC7 textures uploaded as they are (KTX2 in glTF files; without the
/// feature they are a typed error, [`crate::HeapError::MissingFeature`]),
/// and subgroup operations in the cull pass (a plain fallback without).
pub const OPTIONAL_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::TEXTURE_COMPRESSION_BC)
    .union(wgpu::Features::SUBGROUP);

/// Storage buffers the largest unbound pipeline binds in one shader stage (the cull pass).
pub const STORAGE_BUFFERS_PER_STAGE: u32 = 8;

/// One limit that is lower than unbound needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowLimit {
    /// The `wgpu::Limits` field name.
    pub name: &'static str,
    /// What unbound needs.
    pub required: u64,
    /// What the adapter offers.
    pub available: u64,
    /// What needs that much: for a buffer-size limit, the largest buffer
    /// (see [`Capacities::buffers`]) when it is what raised the requirement.
    pub needed_by: Option<&'static str>,
}

impl std::fmt::Display for LowLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: requires {}", self.name, self.required)?;
        if let Some(needed_by) = self.needed_by {
            write!(f, " (for {needed_by})")?;
        }
        write!(f, ", adapter has {}", self.available)
    }
}

/// What unbound runs as on an adapter. Same API, same tables and handles;
/// the frame adapts to what the adapter offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Full: binding arrays with non-uniform indexing, GPU culling,
    /// `multi_draw_indexed_indirect_count` (Vulkan, DX12).
    A,
    /// No indirect count: the same heap; plain `multi_draw_indexed_indirect`
    /// over one draw per mesh slot, culled meshes with zero instances.
    B,
    /// No binding arrays: textures in a few 2D texture arrays by size class
    /// and format (resampled on upload), two fixed samplers, plain
    /// multi-draw; vertex pulling and GPU culling stay (OpenGL, WebGPU).
    C,
}

/// Downlevel capabilities every tier needs: compute shaders (culling),
/// storage buffers in vertex shaders (vertex pulling), indirect draws.
pub const REQUIRED_DOWNLEVEL: wgpu::DownlevelFlags = wgpu::DownlevelFlags::COMPUTE_SHADERS
    .union(wgpu::DownlevelFlags::VERTEX_STORAGE)
    .union(wgpu::DownlevelFlags::INDIRECT_EXECUTION);

/// Sampled-texture bindings of tier C: six texture arrays (size classes x
/// formats), each bound once per sampler (see `src/heap/texture_arrays.rs`).
pub const TIER_C_TEXTURE_ARRAYS: u32 = crate::gpu_types::TEXTURE_ARRAY_BINDINGS;
/// Fixed samplers of tier C.
pub const TIER_C_SAMPLERS: u32 = crate::gpu_types::TEXTURE_ARRAY_SAMPLERS;
/// Sampled textures the draw pass's fragment stage binds on tier C (its
/// device limit): the heap's texture arrays, the environment's specular
/// cube and BRDF table, and the shadow map (15 of the 16 texture units GL
/// 4.3 guarantees a stage).
pub const TIER_C_STAGE_TEXTURES: u32 = TIER_C_TEXTURE_ARRAYS + 2 + 1;
/// Samplers it binds: the heap's, the environment's and the shadow map's
/// comparison sampler.
pub const TIER_C_STAGE_SAMPLERS: u32 = TIER_C_SAMPLERS + 1 + 1;

impl Tier {
    /// Best first.
    pub const ALL: [Tier; 3] = [Tier::A, Tier::B, Tier::C];

    /// Features this tier needs.
    pub fn features(self) -> wgpu::Features {
        match self {
            Tier::A => REQUIRED_FEATURES,
            Tier::B => REQUIRED_FEATURES - wgpu::Features::MULTI_DRAW_INDIRECT_COUNT,
            Tier::C => wgpu::Features::INDIRECT_FIRST_INSTANCE,
        }
    }

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

    /// Whether the draw pass reads the draw count from the GPU.
    pub fn has_indirect_count(self) -> bool {
        self == Tier::A
    }

    /// Whether textures live in binding arrays (else in texture arrays).
    pub fn has_binding_arrays(self) -> bool {
        self != Tier::C
    }

    /// One line for logs and the demo.
    pub fn describe(self) -> &'static str {
        match self {
            Tier::A => "A (bindless binding arrays, GPU culling, multi-draw-indirect-count)",
            Tier::B => "B (bindless binding arrays, GPU culling, plain multi-draw-indirect)",
            Tier::C => "C (texture arrays by size class, GPU culling, plain multi-draw-indirect)",
        }
    }

    /// Parses `a`, `b` or `c`.
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "a" => Some(Tier::A),
            "b" => Some(Tier::B),
            "c" => Some(Tier::C),
            _ => None,
        }
    }
}

/// Why an adapter or device cannot run unbound.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CapabilityError {
    /// The adapter lacks features, downlevel capabilities and/or limits for
    /// `tier` (for [`check_adapter`]: for the lowest tier, so for every
    /// tier). Everything missing is listed.
    #[error(
        "adapter {adapter:?} ({backend:?}) cannot run unbound tier {tier:?}: missing features [{missing_features:?}]; missing downlevel capabilities [{missing_downlevel:?}]; low limits [{}]",
        low_limits.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    Unsupported {
        /// The adapter's name.
        adapter: String,
        /// The adapter's backend.
        backend: wgpu::Backend,
        /// The tier checked.
        tier: Tier,
        /// Required features the adapter does not have.
        missing_features: wgpu::Features,
        /// Required downlevel capabilities the adapter does not have.
        missing_downlevel: wgpu::DownlevelFlags,
        /// Limits below what the capacities need.
        low_limits: Vec<LowLimit>,
    },
    /// A tier better than the adapter supports was forced.
    #[error("tier {requested:?} was requested but the adapter supports at best {supported:?}")]
    TierUnavailable {
        /// The tier asked for.
        requested: Tier,
        /// The best tier available.
        supported: Tier,
    },
    /// The device was created without features unbound needs (it must be
    /// requested with [`request_device`], or with [`Tier::features`] and
    /// [`Tier::limits`] merged in; ray queries, which wgpu calls
    /// experimental, also with the application's
    /// `wgpu::ExperimentalFeatures` token in [`DeviceOptions`]).
    #[error(
        "device was created without required features {missing:?}; request it with unbound::request_device (experimental features: with DeviceOptions::experimental_features enabled)"
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
    /// The device cannot multisample a target the renderer needs with the
    /// configured [`crate::output::Msaa`] (the HDR target's
    /// [`crate::output::HDR_FORMAT`] or [`crate::DEPTH_FORMAT`]).
    #[error(
        "the device cannot render {format:?} with {samples} samples per pixel (it supports {supported:?})"
    )]
    SampleCount {
        /// Samples per pixel asked for.
        samples: u32,
        /// The format that lacks them.
        format: wgpu::TextureFormat,
        /// The sample counts the device supports for it.
        supported: Vec<u32>,
    },
    /// The backend cannot read a multisampled texture in a shader, which
    /// the output pass does to resolve the HDR target: wgpu's GL backend
    /// makes multisampled textures render targets only (wgpu issues 2117
    /// and 6084).
    #[error(
        "{backend:?} cannot read a multisampled texture in a shader (wgpu issues 2117, 6084): {samples} samples per pixel need Vulkan, DX12 or Metal"
    )]
    MsaaBackend {
        /// The backend.
        backend: wgpu::Backend,
        /// Samples per pixel asked for.
        samples: u32,
    },
    /// Ray queries were asked for
    /// ([`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries))
    /// on an adapter without the feature or with limits too low for the
    /// capacities (see [`ray_query_limits`]). Everything missing is listed.
    #[error(
        "adapter {adapter:?} ({backend:?}) cannot run ray queries: missing features [{missing_features:?}]; low limits [{}]",
        low_limits.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    RayQueriesUnsupported {
        /// The adapter's name.
        adapter: String,
        /// The adapter's backend.
        backend: wgpu::Backend,
        /// Features ray queries need that the adapter does not have.
        missing_features: wgpu::Features,
        /// Limits below what ray queries need.
        low_limits: Vec<LowLimit>,
    },
    /// Ray queries were asked for on a tier without binding arrays: hits
    /// sample the heap's textures through them.
    #[error(
        "ray queries need tier A or B (hits sample textures through the heap's binding arrays); the renderer runs tier {tier:?}"
    )]
    RayQueriesTier {
        /// The renderer's tier.
        tier: Tier,
    },
    /// `request_device` itself failed.
    #[error("request_device failed: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
    /// A capacity is below [`Capacities::MIN`]: zero, or fewer slots than
    /// the built-in fallbacks take.
    #[error("capacity {capacity} is {requested}; it must be at least {minimum}")]
    CapacityTooSmall {
        /// The [`Capacities`] field.
        capacity: &'static str,
        /// The value asked for.
        requested: u32,
        /// The smallest value accepted.
        minimum: u32,
    },
    /// A capacity is beyond what unbound's GPU encodings can name, whatever
    /// the device (see [`crate::capacities::MAX_MESHES`]).
    #[error("capacity {capacity} is {requested}; it can be at most {maximum}")]
    CapacityTooLarge {
        /// The [`Capacities`] field.
        capacity: &'static str,
        /// The value asked for.
        requested: u32,
        /// The largest value accepted.
        maximum: u32,
    },
    /// Capacities whose sum is a device limit of type `u32` add up to more
    /// than `u32::MAX`, which no device offers.
    #[error("{sum} is {total}, more than the u32 limit wgpu takes")]
    CapacityOverflow {
        /// The sum, by field names.
        sum: &'static str,
        /// Its value.
        total: u64,
    },
}

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
    /// Optional features the adapter has (enabled by [`request_device`]).
    pub optional_features: wgpu::Features,
    /// The adapter's features.
    pub features: wgpu::Features,
    /// The adapter's limits.
    pub limits: wgpu::Limits,
    /// Whether the adapter can run ray queries with the capacities checked
    /// at `tier` ([`RAY_QUERY_FEATURES`], [`ray_query_limits`], at most
    /// [`MAX_RAY_QUERY_OBJECTS`] objects, a tier with binding arrays); the
    /// error names what is missing. A device has them only when requested
    /// with the `ExperimentalFeatures` token ([`DeviceOptions`]).
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
/// valid on any device ([`Capacities::validate`]).
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
