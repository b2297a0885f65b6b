//! The device side of the contract: requesting a device with unbound's
//! needs merged with the application's ([`request_device`]), checking a
//! device already created ([`check_device`]), and what a device can do with
//! a texture format.

use super::adapter::{check_adapter, low_limits};
use super::error::CapabilityError;
use super::ray_queries::{RAY_QUERY_FEATURES, ray_query_limits};
use super::tier::Tier;
use crate::capacities::Capacities;

/// Checks that a device already created has what `tier` needs: features,
/// and limits that hold every buffer `capacities` size (after
/// [`Capacities::validate`]).
pub fn check_device(
    device: &wgpu::Device,
    capacities: &Capacities,
    tier: Tier,
) -> Result<(), CapabilityError> {
    capacities.validate()?;
    let missing = tier.features() - device.features();
    if !missing.is_empty() {
        return Err(CapabilityError::DeviceMissingFeatures { missing });
    }
    let low = low_limits(capacities, tier, &device.limits());
    if !low.is_empty() {
        return Err(CapabilityError::DeviceLowLimits { low });
    }
    Ok(())
}

/// What the application asks of the device beyond unbound's needs, for
/// [`request_device`].
#[derive(Clone, Debug)]
pub struct DeviceOptions<'a> {
    /// The device's debug label (default `"unbound device"`).
    pub label: Option<&'a str>,
    /// The application's own features (unbound's are added).
    pub features: wgpu::Features,
    /// The application's own limits (the larger of each limit wins).
    pub limits: wgpu::Limits,
    /// Memory allocation strategy.
    pub memory_hints: wgpu::MemoryHints,
    /// wgpu's experimental features: [`wgpu::ExperimentalFeatures::disabled`]
    /// unless the application holds the token that enables them (its
    /// constructor is `unsafe`: the application takes responsibility for
    /// wgpu's experimental code). With it, [`request_device`] enables ray
    /// queries where the adapter has them.
    pub experimental_features: wgpu::ExperimentalFeatures,
    /// API call tracing.
    pub trace: wgpu::Trace,
}

impl Default for DeviceOptions<'_> {
    fn default() -> Self {
        Self {
            label: Some("unbound device"),
            features: wgpu::Features::empty(),
            limits: wgpu::Limits::default(),
            memory_hints: wgpu::MemoryHints::default(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            trace: wgpu::Trace::Off,
        }
    }
}

/// Requests a device with unbound's needs for `capacities` merged with the
/// application's `options` (the larger of each limit wins; optional features
/// the adapter has are enabled too). Ray queries
/// ([`RAY_QUERY_FEATURES`], with the limits of [`ray_query_limits`]) are
/// enabled when `options.experimental_features` is the enabled token and
/// the adapter can run them ([`super::AdapterSupport::ray_queries`]);
/// without the token the device has none, and a renderer asking for them
/// gets a typed error.
pub async fn request_device(
    adapter: &wgpu::Adapter,
    capacities: &Capacities,
    options: &DeviceOptions<'_>,
) -> Result<(wgpu::Device, wgpu::Queue), CapabilityError> {
    let support = check_adapter(adapter, capacities)?;
    // The best tier's needs: a lower tier can still be chosen on this device.
    let mut required_limits = support
        .tier
        .limits(capacities)
        .or_better_values_from(&options.limits);
    // Tier C's texture arrays hold as many layers as the adapter allows (a
    // renderer on this device may be forced down to tier C).
    required_limits.max_texture_array_layers = support
        .limits
        .max_texture_array_layers
        .max(required_limits.max_texture_array_layers);
    let mut required_features =
        support.tier.features() | support.optional_features | options.features;
    // The visibility buffer's material pass, where the adapter can.
    // As many as the paged heap with the texture feedback needs, where the
    // adapter has them.
    let visibility = super::tier::VISIBILITY_STORAGE_BUFFERS_PER_STAGE;
    let paged = super::tier::VISIBILITY_PAGED_STORAGE_BUFFERS_PER_STAGE;
    let available = support.limits.max_storage_buffers_per_shader_stage;
    if support
        .optional_features
        .contains(wgpu::Features::PRIMITIVE_INDEX)
        && available >= visibility
    {
        required_limits.max_storage_buffers_per_shader_stage = required_limits
            .max_storage_buffers_per_shader_stage
            .max(available.min(paged));
    }
    if options.experimental_features.is_enabled() && support.ray_queries.is_ok() {
        required_features |= RAY_QUERY_FEATURES;
        required_limits = required_limits.or_better_values_from(&ray_query_limits(capacities));
    }
    let descriptor = wgpu::DeviceDescriptor {
        label: options.label,
        required_features,
        required_limits,
        experimental_features: options.experimental_features,
        memory_hints: options.memory_hints.clone(),
        trace: options.trace.clone(),
    };
    Ok(adapter.request_device(&descriptor).await?)
}
