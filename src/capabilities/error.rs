//! Why an adapter or device cannot run unbound: [`CapabilityError`], and
//! [`LowLimit`], one limit found too low.

use super::tier::Tier;

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
    /// (see [`Capacities::buffers`](crate::Capacities::buffers)) when it is what raised the requirement.
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

/// Why an adapter or device cannot run unbound.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CapabilityError {
    /// The adapter lacks features, downlevel capabilities and/or limits for
    /// `tier` (for [`check_adapter`](crate::capabilities::check_adapter): for the lowest tier, so for every
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
    /// requested with [`request_device`](crate::capabilities::request_device), or with [`Tier::features`] and
    /// [`Tier::limits`] merged in; ray queries, which wgpu calls
    /// experimental, also with the application's
    /// `wgpu::ExperimentalFeatures` token in [`DeviceOptions`](crate::capabilities::DeviceOptions)).
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
    /// capacities (see [`ray_query_limits`](crate::capabilities::ray_query_limits)). Everything missing is listed.
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
    /// A capacity is below [`Capacities::MIN`](crate::Capacities::MIN): zero, or fewer slots than
    /// the built-in fallbacks take.
    #[error("capacity {capacity} is {requested}; it must be at least {minimum}")]
    CapacityTooSmall {
        /// The [`Capacities`](crate::Capacities) field.
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
        /// The [`Capacities`](crate::Capacities) field.
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
    /// A buffer, texture or dispatch whose size follows the configuration,
    /// the scene or the target exceeds a limit of this device
    /// (`src/capabilities/checked.rs`); nothing was created or recorded.
    #[error("{what} needs {value} for {limit}, the device allows {maximum}")]
    DeviceLimit {
        /// What needed it (a buffer's label, a pass's dispatch, a target).
        what: &'static str,
        /// The `wgpu::Limits` field.
        limit: &'static str,
        /// The value needed.
        value: u64,
        /// The device's limit.
        maximum: u64,
    },
    /// wgpu refused to create something no check could foresee (memory
    /// ran out, or a validation rule): an error scope caught it.
    #[error("creating {what} failed: {message}")]
    Creation {
        /// What was being created.
        what: &'static str,
        /// wgpu's error.
        message: String,
    },
}
