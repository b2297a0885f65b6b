//! The one checked path for every buffer, texture and dispatch whose size
//! derives from the configuration, the scene or the target: each is
//! compared with the device's `wgpu::Limits` before it is created or
//! recorded, and a size beyond a limit is a
//! [`CapabilityError::DeviceLimit`] naming the limit, the value and what
//! asked for it, so wgpu never sees it (wgpu's default error handler would
//! panic).
//!
//! - [`check_buffer`]: `max_buffer_size`, and the binding limit of how the
//!   buffer is bound ([`BufferBinding`]);
//! - [`check_texture_2d`]: `max_texture_dimension_2d` on each side and
//!   `max_texture_array_layers`;
//! - [`check_dispatch`]: `max_compute_workgroups_per_dimension` on each
//!   dimension;
//! - [`scoped`]: what cannot be checked up front (memory running out, a
//!   rule the checks above do not know) runs inside a validation and an
//!   out-of-memory error scope, and what they catch becomes
//!   [`CapabilityError::Creation`].
//!
//! Sizes known from the capacities alone are checked once, when the
//! renderer is made (`Capacities::buffers`, `src/limits.rs`); sizes that
//! follow the target or a setting are checked before each frame records
//! anything (`src/renderer/checks.rs`). `docs/CODE_STYLE.md` makes this the
//! rule for every new allocation.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use super::error::CapabilityError;

/// How a buffer is bound, which decides the device limit it must fit
/// besides `max_buffer_size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferBinding {
    /// A storage buffer: at most `max_storage_buffer_binding_size`.
    Storage,
    /// A uniform buffer: at most `max_uniform_buffer_binding_size`.
    Uniform,
    /// Only a vertex or index buffer: `max_buffer_size` alone.
    VertexOrIndex,
}

impl BufferBinding {
    /// The largest buffer bound this way that `limits` allow.
    pub fn limit_bytes(self, limits: &wgpu::Limits) -> u64 {
        self.binding_limit(limits)
            .map_or(u64::MAX, |(_, bytes)| bytes)
            .min(limits.max_buffer_size)
    }

    /// The binding limit's name and value (`None`: no binding limit).
    fn binding_limit(self, limits: &wgpu::Limits) -> Option<(&'static str, u64)> {
        match self {
            Self::Storage => Some((
                "max_storage_buffer_binding_size",
                limits.max_storage_buffer_binding_size,
            )),
            Self::Uniform => Some((
                "max_uniform_buffer_binding_size",
                limits.max_uniform_buffer_binding_size,
            )),
            Self::VertexOrIndex => None,
        }
    }
}

/// `value` against the limit `limit` of value `maximum`.
fn within(what: &'static str, limit: &'static str, value: u64, maximum: u64) -> CheckResult {
    if value > maximum {
        return Err(CapabilityError::DeviceLimit {
            what,
            limit,
            value,
            maximum,
        });
    }
    Ok(())
}

type CheckResult = Result<(), CapabilityError>;

/// Checks a buffer of `size_bytes` bound as `binding` (named `what` in the
/// error) against `limits`.
pub(crate) fn check_buffer(
    limits: &wgpu::Limits,
    what: &'static str,
    binding: BufferBinding,
    size_bytes: u64,
) -> CheckResult {
    within(what, "max_buffer_size", size_bytes, limits.max_buffer_size)?;
    if let Some((limit, maximum)) = binding.binding_limit(limits) {
        within(what, limit, size_bytes, maximum)?;
    }
    Ok(())
}

/// Checks a 2D texture (or array of `layers` layers) of `size` pixels.
pub(crate) fn check_texture_2d(
    limits: &wgpu::Limits,
    what: &'static str,
    (width, height): (u32, u32),
    layers: u32,
) -> CheckResult {
    let side = u64::from(limits.max_texture_dimension_2d);
    within(what, "max_texture_dimension_2d", width.into(), side)?;
    within(what, "max_texture_dimension_2d", height.into(), side)?;
    let max_layers = u64::from(limits.max_texture_array_layers);
    within(what, "max_texture_array_layers", layers.into(), max_layers)
}

/// Checks a dispatch of `workgroups` (x, y, z).
pub(crate) fn check_dispatch(
    limits: &wgpu::Limits,
    what: &'static str,
    workgroups: [u32; 3],
) -> CheckResult {
    let maximum = u64::from(limits.max_compute_workgroups_per_dimension);
    for count in workgroups {
        within(
            what,
            "max_compute_workgroups_per_dimension",
            count.into(),
            maximum,
        )?;
    }
    Ok(())
}

/// Runs `create` (which creates wgpu objects on `device`, or records into
/// an encoder of it) inside a validation and an out-of-memory error scope;
/// an error either caught is [`CapabilityError::Creation`] for `what`
/// (the objects made are then invalid: the caller drops them).
pub(crate) fn scoped<T>(
    device: &wgpu::Device,
    what: &'static str,
    create: impl FnOnce() -> T,
) -> Result<T, CapabilityError> {
    let out_of_memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let made = create();
    let caught = [validation.pop(), out_of_memory.pop()]
        .into_iter()
        .find_map(ready);
    match caught {
        Some(error) => Err(CapabilityError::Creation {
            what,
            message: error.to_string(),
        }),
        None => Ok(made),
    }
}

/// The error a popped scope caught. wgpu's native backends report errors
/// as they happen, so the future is ready at once; one that is not (a web
/// backend) is treated as no error.
fn ready(popped: impl Future<Output = Option<wgpu::Error>>) -> Option<wgpu::Error> {
    let mut context = Context::from_waker(Waker::noop());
    match pin!(popped).as_mut().poll(&mut context) {
        Poll::Ready(error) => error,
        Poll::Pending => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_names_the_limit_and_the_value() {
        let limits = wgpu::Limits::default();
        let storage = limits.max_storage_buffer_binding_size;
        assert!(check_buffer(&limits, "a", BufferBinding::Storage, storage).is_ok());
        let error = check_buffer(&limits, "a", BufferBinding::Storage, storage + 1).unwrap_err();
        assert!(matches!(
            error,
            CapabilityError::DeviceLimit {
                limit: "max_storage_buffer_binding_size",
                value,
                maximum,
                ..
            } if value == storage + 1 && maximum == storage
        ));
        let big = limits.max_buffer_size + 1;
        let error = check_buffer(&limits, "b", BufferBinding::VertexOrIndex, big).unwrap_err();
        assert!(error.to_string().contains("max_buffer_size"), "{error}");
        let side = limits.max_texture_dimension_2d;
        assert!(check_texture_2d(&limits, "t", (side, side), 1).is_ok());
        assert!(check_texture_2d(&limits, "t", (side + 1, 1), 1).is_err());
        let layers = limits.max_texture_array_layers;
        assert!(check_texture_2d(&limits, "t", (1, 1), layers + 1).is_err());
        assert!(check_dispatch(&limits, "d", [65_535, 1, 65_535]).is_ok());
        let error = check_dispatch(&limits, "d", [1, 1, 65_536]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("max_compute_workgroups_per_dimension"),
            "{error}"
        );
    }
}
