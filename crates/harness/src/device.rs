//! The one place where the demo, the benchmarks and the tests open a device
//! for unbound.

use unbound::{CapabilityError, Capacities, DeviceOptions, request_device};

use crate::adapter::{AdapterChoice, NoAdapterError, create_instance, select_adapter_for};

/// How large the device's limits are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceLimits {
    /// What the capacities need (tests and the demo: what an application
    /// would ask for).
    #[default]
    ForCapacities,
    /// Everything the adapter offers (benchmarks: the largest scenes fit).
    AdapterMax,
}

/// What a tool asks of the device besides unbound's needs for its
/// capacities. A [`DeviceLimits`] alone converts into one without ray
/// queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceRequest {
    /// How large the limits are.
    pub limits: DeviceLimits,
    /// Ray queries, where the adapter has them: the device is requested
    /// with wgpu's `ExperimentalFeatures` token, which this crate holds
    /// (see [`open_device`]). Without them the device has no experimental
    /// feature, and a renderer asking for ray queries on it gets a typed
    /// error.
    pub ray_queries: bool,
}

impl From<DeviceLimits> for DeviceRequest {
    fn from(limits: DeviceLimits) -> Self {
        Self {
            limits,
            ray_queries: false,
        }
    }
}

/// wgpu's token for its experimental features: the one `unsafe` block of
/// the workspace (`unsafe_code` is `forbid` everywhere else, `deny` in this
/// crate). wgpu makes the token's constructor `unsafe` because its
/// experimental code (ray queries here) may have bugs that reach undefined
/// behaviour from safe calls; the tools that ask for ray queries (tests,
/// demo, benchmarks) accept that, and unbound itself only receives the
/// token ([`unbound::DeviceOptions::experimental_features`]).
fn experimental_features(enabled: bool) -> wgpu::ExperimentalFeatures {
    if !enabled {
        return wgpu::ExperimentalFeatures::disabled();
    }
    // SAFETY: the caller asked for ray queries, wgpu's experimental
    // feature, accepting that wgpu's implementation of it may have bugs.
    #[allow(
        unsafe_code,
        reason = "wgpu's experimental-features token has an unsafe constructor; see above"
    )]
    let token = unsafe { wgpu::ExperimentalFeatures::enabled() };
    token
}

/// Opening a device failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// No adapter qualified (the message says what to install).
    #[error(transparent)]
    NoAdapter(#[from] NoAdapterError),
    /// The adapter refused the device.
    #[error(transparent)]
    Device(#[from] CapabilityError),
}

/// An instance, the adapter chosen from it, and a device for unbound.
#[derive(Debug)]
pub struct Gpu {
    /// The instance the adapter came from.
    pub instance: wgpu::Instance,
    /// The adapter.
    pub adapter: wgpu::Adapter,
    /// The device, with unbound's features and limits.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
}

/// Picks the adapter `choice` names from `instance` (one that can present to
/// `surface`, if given) and opens a device with unbound's needs for
/// `capacities` through [`unbound::request_device`], with ray queries if
/// `request` asks for them and the adapter has them.
pub async fn open_device(
    instance: wgpu::Instance,
    choice: &AdapterChoice,
    capacities: &Capacities,
    surface: Option<&wgpu::Surface<'_>>,
    request: impl Into<DeviceRequest>,
) -> Result<Gpu, OpenError> {
    let request = request.into();
    let adapter = select_adapter_for(&instance, choice, capacities, surface).await?;
    let options = DeviceOptions {
        label: Some("unbound harness"),
        limits: match request.limits {
            DeviceLimits::ForCapacities => wgpu::Limits::default(),
            DeviceLimits::AdapterMax => adapter.limits(),
        },
        experimental_features: experimental_features(request.ray_queries),
        ..DeviceOptions::default()
    };
    let (device, queue) = request_device(&adapter, capacities, &options).await?;
    Ok(Gpu {
        instance,
        adapter,
        device,
        queue,
    })
}

/// [`open_device`] on a new headless instance with `flags`, blocking, in
/// the process's [`lifecycle_turn`](crate::lifecycle_turn): headless
/// instances and devices are the tests', created on parallel threads.
pub fn open_headless(
    choice: &AdapterChoice,
    capacities: &Capacities,
    flags: wgpu::InstanceFlags,
    request: impl Into<DeviceRequest>,
) -> Result<Gpu, OpenError> {
    let _turn = crate::lifecycle_turn();
    let instance = create_instance(choice, flags);
    pollster::block_on(open_device(instance, choice, capacities, None, request))
}
