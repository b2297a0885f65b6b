//! unbound's errors: every bad input is one of these, before wgpu sees it.

use crate::camera::{Camera, LightingError};
use crate::capabilities::CapabilityError;
use crate::debug::ID_TARGET_FORMAT;
use crate::geometry::GeometryError;
use crate::heap::HeapError;
use crate::materials::MaterialError;
use crate::passes::draw::DEPTH_FORMAT;
use crate::scene::ObjectError;

/// Why a frame could not be recorded. Nothing was recorded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The colour target's format is neither the configured one nor
    /// [`ID_TARGET_FORMAT`].
    #[error(
        "colour target is {actual:?}, renderer was built for {expected:?} (or {ID_TARGET_FORMAT:?} for id views)"
    )]
    ColorFormat {
        /// Configured format.
        expected: wgpu::TextureFormat,
        /// Given format.
        actual: wgpu::TextureFormat,
    },
    /// The depth target is not [`DEPTH_FORMAT`].
    #[error("depth target is {actual:?}, expected {DEPTH_FORMAT:?}")]
    DepthFormat {
        /// Given format.
        actual: wgpu::TextureFormat,
    },
    /// The depth target is to be cleared to a value outside [0, 1].
    #[error("depth clear value {value} is outside [0, 1]")]
    DepthClearValue {
        /// Given value.
        value: f32,
    },
    /// Colour and depth sizes differ.
    #[error("colour target is {color:?}, depth target is {depth:?}")]
    SizeMismatch {
        /// Colour size.
        color: (u32, u32),
        /// Depth size.
        depth: (u32, u32),
    },
    /// An id debug view needs a colour target of [`ID_TARGET_FORMAT`].
    #[error(
        "the {view:?} debug view writes ids: it needs a {ID_TARGET_FORMAT:?} colour target, not {actual:?}"
    )]
    IdViewTarget {
        /// The view.
        view: crate::debug::DebugView,
        /// Given format.
        actual: wgpu::TextureFormat,
    },
    /// The camera has non-finite or degenerate values.
    #[error("camera is not valid: {0:?}")]
    InvalidCamera(Box<Camera>),
}

/// Any unbound error.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Device contract.
    #[error(transparent)]
    Capability(#[from] CapabilityError),
    /// Textures and samplers.
    #[error(transparent)]
    Heap(#[from] HeapError),
    /// Meshes.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// Materials.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// Objects.
    #[error(transparent)]
    Object(#[from] ObjectError),
    /// Lighting.
    #[error(transparent)]
    Lighting(#[from] LightingError),
    /// Frame recording.
    #[error(transparent)]
    Render(#[from] RenderError),
}
