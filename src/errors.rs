//! unbound's errors: every bad input is one of these, before wgpu sees it.

use crate::camera::{Camera, LightingError};
use crate::capabilities::error::CapabilityError;
use crate::debug::ID_TARGET_FORMAT;
use crate::geometry::GeometryError;
use crate::heap::HeapError;
use crate::lighting::EnvironmentError;
use crate::lights::LightError;
use crate::materials::MaterialError;
use crate::output::{DEPTH_FORMAT, OutputError};
use crate::scene::ObjectError;
use crate::shadows::ShadowError;

/// Which of a frame's two targets an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// The colour target.
    Color,
    /// The depth target.
    Depth,
}

/// Why a frame could not be recorded (nothing was recorded then), or why a
/// per-frame setting was refused (`set_camera`, `set_debug`,
/// `set_path_tracing`, `set_ray_query_shadows`; the setting in use is kept),
/// or a target view could not be made ([`crate::TargetView::of_level`]).
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
    /// Colour and depth sizes differ (of the mip levels viewed).
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
    /// The compute rasteriser's threshold
    /// ([`crate::RendererConfig::raster_threshold`]) is NaN or negative
    /// (`f32::INFINITY` is valid: every instance it can take).
    #[error("raster threshold {pixels} px: it must be 0 or more (f32::INFINITY: every instance)")]
    RasterThreshold {
        /// The threshold given.
        pixels: f32,
    },
    /// The camera's [`aspect`](Camera::aspect) does not fit the colour
    /// target ([`Camera::fits`]): the image would be stretched. Set the
    /// aspect to the target's width / height.
    #[error(
        "camera aspect {aspect} does not fit the {}x{} colour target: set Camera::aspect to width / height",
        target.0,
        target.1
    )]
    CameraAspect {
        /// The camera's aspect.
        aspect: f32,
        /// The colour target's width and height.
        target: (u32, u32),
    },
    /// A target texture is not 2D.
    #[error("target textures must be 2D, this one is {dimension:?}")]
    TargetDimension {
        /// The texture's dimension.
        dimension: wgpu::TextureDimension,
    },
    /// A [`TargetView`](crate::TargetView) of a mip level or layer the
    /// texture does not have.
    #[error(
        "no mip level {mip_level}, layer {array_layer} in a texture of {mip_levels} levels and {layers} layers"
    )]
    TargetLevel {
        /// Level asked for.
        mip_level: u32,
        /// Layer asked for.
        array_layer: u32,
        /// The texture's levels.
        mip_levels: u32,
        /// The texture's layers.
        layers: u32,
    },
    /// A target texture was created without `RENDER_ATTACHMENT`.
    #[error("the {target:?} target's texture lacks RENDER_ATTACHMENT (usage {usage:?})")]
    TargetUsage {
        /// Which target.
        target: TargetKind,
        /// The texture's usage.
        usage: wgpu::TextureUsages,
    },
    /// Occlusion culling is on ([`crate::Renderer::set_occlusion`], the
    /// default) and the depth target's texture lacks `TEXTURE_BINDING`: the
    /// depth pyramid is built by reading it. Create the depth texture with
    /// `RENDER_ATTACHMENT | TEXTURE_BINDING`, or turn occlusion culling off.
    #[error(
        "occlusion culling and automatic exposure read the depth target, whose texture \
         lacks TEXTURE_BINDING (usage {usage:?}); add it or turn both off"
    )]
    DepthNotSampleable {
        /// The depth texture's usage.
        usage: wgpu::TextureUsages,
    },
    /// A frame `render` recorded earlier ran on the GPU after another frame
    /// than the one recorded before it: a recorded frame's command buffer
    /// was dropped, or frames were submitted out of order. Such a frame's
    /// uploads (new meshes, table changes) were lost or applied late, and
    /// are not uploaded again: what the renderer draws may be missing data
    /// until the application sets it again. Reported once, by the next
    /// `render` after the GPU statistics showed it.
    #[error(
        "frame {frame} ran on the GPU after {}, not {}: a recorded frame was dropped or submitted out of order, and the uploads it carried are lost (submit every recorded frame, in order)",
        ran_after.map_or("no other frame".to_owned(), |f| format!("frame {f}")),
        frame.checked_sub(1).map_or("first".to_owned(), |f| format!("after frame {f}"))
    )]
    FrameSequence {
        /// The frame that ran out of sequence.
        frame: u64,
        /// The frame that ran right before it (`None`: none had run).
        ran_after: Option<u64>,
    },
    /// Something that traces rays was asked of a renderer built without
    /// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries).
    #[error("{what} traces rays: build the renderer with RendererConfig::ray_queries")]
    RayQueriesOff {
        /// What was asked for.
        what: &'static str,
    },
    /// Path-tracing settings out of range
    /// ([`PathTracing::validate`](crate::rays::PathTracing::validate)).
    #[error(
        "path tracing with {bounces} bounces and {samples_per_frame} samples per frame: at most 16 bounces, 1 to 1024 samples"
    )]
    PathTracing {
        /// Bounces asked for.
        bounces: u32,
        /// Samples per frame asked for.
        samples_per_frame: u32,
    },
    /// The colour target is multisampled (the output pass writes one
    /// sample per pixel: multisampling is the renderer's HDR target's), or
    /// the depth target's samples per pixel are not the renderer's
    /// [`RendererConfig::msaa`](crate::RendererConfig::msaa).
    #[error(
        "colour target has {color} samples per pixel (must have 1), depth target {depth} (the renderer's MSAA setting needs {depth_expected})"
    )]
    SampleCount {
        /// Colour samples per pixel.
        color: u32,
        /// Depth samples per pixel.
        depth: u32,
        /// The depth target's samples per pixel the renderer needs.
        depth_expected: u32,
    },
    /// A frame `render` recorded did not run on the GPU: its command
    /// buffer was refused when it was submitted (a wgpu validation error,
    /// which went to the device's error handler: a target destroyed before
    /// the submission, say). Its uploads were lost, as with
    /// [`Self::FrameSequence`], which is not reported for the frames right
    /// after it. Reported once, by the next `render` after its statistics
    /// slot came back.
    #[error(
        "frame {frame} did not run on the GPU: its command buffer was refused when submitted (see the wgpu error reported for it), and the uploads it carried are lost"
    )]
    FrameFailed {
        /// The frame that did not run.
        frame: u64,
    },
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
    /// The environment (image-based light).
    #[error(transparent)]
    Environment(#[from] EnvironmentError),
    /// Punctual lights (and the cluster grid).
    #[error(transparent)]
    Light(#[from] LightError),
    /// Exposure and tone mapping.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Automatic exposure settings.
    #[error(transparent)]
    Exposure(#[from] crate::exposure::ExposureError),
    /// Shadow settings.
    #[error(transparent)]
    Shadow(#[from] ShadowError),
    /// Level-of-detail settings.
    #[error(transparent)]
    Lod(#[from] crate::lod::LodError),
    /// Animation data and playback.
    #[error(transparent)]
    Animation(#[from] crate::animation::AnimationError),
}
