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
//! - `ray_queries.rs`: the optional ray-query capability;
//! - `checked.rs`: every size from the configuration, the scene or the
//!   target checked against the device's limits before it is used.
//!
//! The same API, tables and handles run on three [`Tier`]s; [`check_adapter`]
//! finds the best one the adapter supports and records why each better one
//! was rejected (every missing feature, downlevel capability and low limit),
//! [`RendererConfig::tier`](crate::RendererConfig::tier) forces a lower one and
//! [`Renderer::tier`](crate::Renderer::tier) reports it.
//!
//! | tier | needs | textures | draws |
//! | --- | --- | --- | --- |
//! | A | [`REQUIRED_FEATURES`]: binding arrays, non-uniform indexing, partially bound arrays, `MULTI_DRAW_INDIRECT_COUNT`, `INDIRECT_FIRST_INSTANCE` | binding arrays | compacted, `multi_draw_indexed_indirect_count` |
//! | B | as A without indirect count (Metal) | binding arrays | one per mesh slot, culled ones with zero instances |
//! | C | `INDIRECT_FIRST_INSTANCE`, compute, vertex-stage storage buffers, indirect execution (OpenGL 4.3+) | six texture arrays (`src/heap/texture_arrays.rs`) | as B |
//!
//! Every tier keeps vertex pulling, GPU culling and the draw-identity rule
//! ([`crate::passes::draw`]); ray queries need binding arrays (tiers A and B).
//! Tier C fits GL's 16 texture units per stage: the draw pass's fragment stage
//! binds 15 sampled textures ([`TIER_C_STAGE_TEXTURES`]) and 4 samplers, and
//! reads the light table and cluster lists as storage buffers (7 in the
//! fragment stage, within the 8 unbound asks for). `tests/tiers.rs` renders
//! the test scenes on GL against tier A's references.

pub(crate) mod adapter;
pub(crate) mod checked;
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
    HeapLayout, OPTIONAL_FEATURES, REQUIRED_DOWNLEVEL, REQUIRED_FEATURES,
    STORAGE_BUFFERS_PER_STAGE, TIER_C_SAMPLERS, TIER_C_STAGE_SAMPLERS, TIER_C_STAGE_TEXTURES,
    TIER_C_TEXTURE_ARRAYS, TextureHeap, Tier, VISIBILITY_PAGED_STORAGE_BUFFERS_PER_STAGE,
    VISIBILITY_STORAGE_BUFFERS_PER_STAGE,
};
