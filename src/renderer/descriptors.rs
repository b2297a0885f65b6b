//! What a frame's targets must be for this renderer: the textures to
//! create ([`Renderer::color_target_descriptor`],
//! [`Renderer::depth_target_descriptor`]) and a camera of their aspect.
//! `FrameTarget::check` and `Renderer::check_camera_aspect` are
//! the checks these satisfy.

use crate::errors::RenderError;
use crate::output::DEPTH_FORMAT;
use crate::renderer::Renderer;
use crate::target::FrameTarget;

/// What the colour target is used as: unbound's output pass draws into it,
/// and the application can copy it out (readback, screenshots) or sample
/// it (its own pass after unbound's).
const COLOR_TARGET_USAGE: wgpu::TextureUsages = wgpu::TextureUsages::RENDER_ATTACHMENT
    .union(wgpu::TextureUsages::COPY_SRC)
    .union(wgpu::TextureUsages::TEXTURE_BINDING);

/// What the depth target is used as: the draw pass's depth attachment, and
/// occlusion culling's input (it builds its depth pyramid by sampling it).
const DEPTH_TARGET_USAGE: wgpu::TextureUsages =
    wgpu::TextureUsages::RENDER_ATTACHMENT.union(wgpu::TextureUsages::TEXTURE_BINDING);

impl Renderer {
    /// A colour target of `width` × `height` this renderer can draw into:
    /// 2D, one mip level, one sample per pixel, the configured
    /// [`RendererConfig::color_format`](crate::RendererConfig::color_format),
    /// usable as a render attachment, a copy source and a sampled texture.
    /// Create it with `device.create_texture(&descriptor)` and view it with
    /// [`crate::TargetView::new`]. A window's surface texture serves as well
    /// when the surface is configured with the same format.
    pub fn color_target_descriptor(
        &self,
        width: u32,
        height: u32,
    ) -> wgpu::TextureDescriptor<'static> {
        target_descriptor(
            "unbound colour target",
            (width, height),
            self.config.color_format,
            1,
            COLOR_TARGET_USAGE,
        )
    }

    /// The depth target to pair with a colour target of `width` × `height`:
    /// [`DEPTH_FORMAT`], the samples per pixel of the configured
    /// [`RendererConfig::msaa`](crate::RendererConfig::msaa), usable as a
    /// render attachment and a sampled texture (occlusion culling, on by
    /// default, reads it).
    pub fn depth_target_descriptor(
        &self,
        width: u32,
        height: u32,
    ) -> wgpu::TextureDescriptor<'static> {
        target_descriptor(
            "unbound depth target",
            (width, height),
            DEPTH_FORMAT,
            self.config.msaa.sample_count(),
            DEPTH_TARGET_USAGE,
        )
    }

    /// Refuses a camera that does not fit the frame's colour target
    /// ([`crate::Camera::fits`]): the frame would be stretched.
    pub(crate) fn check_camera_aspect(&self, target: &FrameTarget<'_>) -> Result<(), RenderError> {
        let (width, height) = target.color.size();
        if self.camera.fits(width, height) {
            Ok(())
        } else {
            Err(RenderError::CameraAspect {
                aspect: self.camera.aspect,
                target: (width, height),
            })
        }
    }
}

fn target_descriptor(
    label: &'static str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    sample_count: u32,
    usage: wgpu::TextureUsages,
) -> wgpu::TextureDescriptor<'static> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    }
}
