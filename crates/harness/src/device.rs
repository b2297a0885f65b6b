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
/// `capacities` through [`unbound::request_device`].
pub async fn open_device(
    instance: wgpu::Instance,
    choice: &AdapterChoice,
    capacities: &Capacities,
    surface: Option<&wgpu::Surface<'_>>,
    limits: DeviceLimits,
) -> Result<Gpu, OpenError> {
    let adapter = select_adapter_for(&instance, choice, capacities, surface).await?;
    let options = DeviceOptions {
        label: Some("unbound harness"),
        limits: match limits {
            DeviceLimits::ForCapacities => wgpu::Limits::default(),
            DeviceLimits::AdapterMax => adapter.limits(),
        },
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

/// [`open_device`] on a new headless instance with `flags`, blocking.
pub fn open_headless(
    choice: &AdapterChoice,
    capacities: &Capacities,
    flags: wgpu::InstanceFlags,
    limits: DeviceLimits,
) -> Result<Gpu, OpenError> {
    let instance = create_instance(choice, flags);
    pollster::block_on(open_device(instance, choice, capacities, None, limits))
}
