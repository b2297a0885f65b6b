//! What unbound's tests, demo and benchmarks share, and an application
//! embedding unbound does not need: choosing an adapter (with install hints
//! when none qualifies), opening a device for unbound in one place,
//! offscreen render targets, reading a rendered texture back, creating and
//! destroying Vulkan devices one at a time ([`lifecycle_turn`]: a
//! validation-layer race), and naga's
//! view of WGSL layouts and constants for the tests that keep host twins in
//! step ([`wgsl`]).
//!
//! It holds the workspace's one `unsafe` block: wgpu's token for its
//! experimental features (ray queries), in `device.rs`. `unsafe_code` is
//! `deny` here and `forbid` in every other crate.
#![deny(unsafe_code)]

mod adapter;
mod device;
mod lifecycle;
mod readback;
mod targets;
pub mod wgsl;
mod xvfb;

pub use adapter::{
    ADAPTER_ENV, AdapterChoice, BACKEND_ENV, INSTALL_HINT, NoAdapterError, create_instance,
    instance_flags, parse_backend, select_adapter, select_adapter_for_surface,
};
pub use device::{DeviceLimits, DeviceRequest, Gpu, OpenError, open_device, open_headless};
pub use lifecycle::{LifecycleTurn, lifecycle_turn};
pub use readback::{ReadbackError, ReadbackLayout, TextureReadback, read_buffer};
pub use targets::{BACKGROUND, RenderTargets, color_texture};
pub use xvfb::Xvfb;
