//! The device contract: which features and limits unbound needs, derived from
//! the capacities the application asks for (`src/capacities.rs`; every
//! buffer they size: `src/limits.rs`), and a check that names everything an
//! adapter lacks.
//!
//! - `tier.rs`: the tiers and the features each needs;
//! - `error.rs`: [`CapabilityError`] and [`LowLimit`];
//! - `adapter.rs`: the adapter check ([`check_adapter`]);
//! - `device.rs`: requesting a device ([`request_device`]) and checking one;
//! - `formats.rs`: what a device can do with a texture format;
//! - `ray_queries.rs`: the optional ray-query capability.

pub(crate) mod adapter;
pub(crate) mod device;
pub(crate) mod error;
pub(crate) mod formats;
pub(crate) mod ray_queries;
pub(crate) mod tier;

pub use crate::capacities::Capacities;
pub use adapter::{AdapterSupport, check_adapter, check_adapter_tier};
pub use device::{DeviceOptions, check_device, request_device};
pub use error::{CapabilityError, LowLimit};
pub use formats::format_features;
pub use ray_queries::{
    MAX_RAY_QUERY_OBJECTS, RAY_QUERY_FEATURES, RAY_QUERY_STORAGE_BUFFERS_PER_STAGE,
    check_device_ray_queries, ray_query_limits,
};
pub use tier::{
    OPTIONAL_FEATURES, REQUIRED_DOWNLEVEL, REQUIRED_FEATURES, STORAGE_BUFFERS_PER_STAGE,
    TIER_C_SAMPLERS, TIER_C_STAGE_SAMPLERS, TIER_C_STAGE_TEXTURES, TIER_C_TEXTURE_ARRAYS, Tier,
};
