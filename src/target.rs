//! Where a frame is drawn: [`FrameTarget`], a colour and a depth
//! [`TargetView`], each cleared first or loaded.
//!
//! wgpu 30's `TextureView` tells only which texture it views, not which mip
//! level, layer or format, so unbound makes the views itself
//! ([`TargetView::new`], [`TargetView::of_level`]) and knows their size,
//! format, sample count and usage. [`FrameTarget::check`] refuses a target
//! wgpu would reject before anything is recorded.

use crate::debug::{DebugView, ID_TARGET_FORMAT};
use crate::errors::{RenderError, TargetKind};
use crate::output::{DEPTH_FORMAT, Msaa};

/// A view of one mip level and one array layer of a 2D texture, made by
/// unbound so that the frame's checks know what it views. The texture must
/// have been created with `RENDER_ATTACHMENT`, with one sample per texel
/// for colour and the renderer's [`Msaa`] samples for
/// depth; the view has the texture's format.
#[derive(Clone, Debug)]
pub struct TargetView {
    view: wgpu::TextureView,
    mip_level: u32,
    array_layer: u32,
}

impl TargetView {
    /// Mip level 0, layer 0 of `texture` (the whole texture for a plain 2D
    /// one). A texture that is not 2D gets a view that `render` refuses
    /// ([`RenderError::TargetDimension`]).
    pub fn new(texture: &wgpu::Texture) -> Self {
        Self::of_level(texture, 0, 0).unwrap_or_else(|_| Self {
            view: texture.create_view(&wgpu::TextureViewDescriptor::default()),
            mip_level: 0,
            array_layer: 0,
        })
    }

    /// Mip level `mip_level` of layer `array_layer` of a 2D `texture`.
    pub fn of_level(
        texture: &wgpu::Texture,
        mip_level: u32,
        array_layer: u32,
    ) -> Result<Self, RenderError> {
        if texture.dimension() != wgpu::TextureDimension::D2 {
            return Err(RenderError::TargetDimension {
                dimension: texture.dimension(),
            });
        }
        check_level(texture, mip_level, array_layer)?;
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("unbound target view"),
            dimension: Some(wgpu::TextureViewDimension::D2),
            base_mip_level: mip_level,
            mip_level_count: Some(1),
            base_array_layer: array_layer,
            array_layer_count: Some(1),
            ..Default::default()
        });
        Ok(Self {
            view,
            mip_level,
            array_layer,
        })
    }

    /// The wgpu view, for the application's own passes into the same target.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// The texture viewed.
    pub fn texture(&self) -> &wgpu::Texture {
        self.view.texture()
    }

    /// The mip level viewed.
    pub fn mip_level(&self) -> u32 {
        self.mip_level
    }

    /// The array layer viewed.
    pub fn array_layer(&self) -> u32 {
        self.array_layer
    }

    /// Width and height of the mip level viewed.
    pub fn size(&self) -> (u32, u32) {
        let texture = self.texture();
        let level = |extent: u32| (extent >> self.mip_level).max(1);
        (level(texture.width()), level(texture.height()))
    }

    /// The view's format (the texture's).
    pub fn format(&self) -> wgpu::TextureFormat {
        self.texture().format()
    }

    /// Samples per texel.
    pub fn sample_count(&self) -> u32 {
        self.texture().sample_count()
    }

    /// What any render target needs: a level and layer of a 2D texture
    /// usable as an attachment.
    fn check_attachment(&self, target: TargetKind) -> Result<(), RenderError> {
        let texture = self.texture();
        if texture.dimension() != wgpu::TextureDimension::D2 {
            return Err(RenderError::TargetDimension {
                dimension: texture.dimension(),
            });
        }
        check_level(texture, self.mip_level, self.array_layer)?;
        if !texture
            .usage()
            .contains(wgpu::TextureUsages::RENDER_ATTACHMENT)
        {
            return Err(RenderError::TargetUsage {
                target,
                usage: texture.usage(),
            });
        }
        Ok(())
    }
}

/// Whether `texture` has mip level `mip_level` and layer `array_layer`.
fn check_level(
    texture: &wgpu::Texture,
    mip_level: u32,
    array_layer: u32,
) -> Result<(), RenderError> {
    let (mip_levels, layers) = (texture.mip_level_count(), texture.depth_or_array_layers());
    if mip_level >= mip_levels || array_layer >= layers {
        return Err(RenderError::TargetLevel {
            mip_level,
            array_layer,
            mip_levels,
            layers,
        });
    }
    Ok(())
}

/// What a frame does first with one of its targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TargetLoad<T> {
    /// Clear to this value before drawing.
    Clear(T),
    /// Keep the contents: unbound draws over, and for depth tests against,
    /// what the application recorded into the target before.
    Load,
}

impl<T> From<TargetLoad<T>> for wgpu::LoadOp<T> {
    fn from(load: TargetLoad<T>) -> Self {
        match load {
            TargetLoad::Clear(value) => wgpu::LoadOp::Clear(value),
            TargetLoad::Load => wgpu::LoadOp::Load,
        }
    }
}

/// Depth of the far plane: what a cleared depth target holds.
pub const FAR_DEPTH: f32 = 1.0;

/// Where the frame is drawn, and whether each target is cleared first or
/// keeps what the application drew into it.
#[derive(Clone, Copy, Debug)]
pub struct FrameTarget<'a> {
    /// Colour target, of the renderer's colour format (or
    /// [`ID_TARGET_FORMAT`] for id views), one sample per pixel: the output
    /// pass writes it.
    pub color: &'a TargetView,
    /// Depth target, [`DEPTH_FORMAT`], same size, the renderer's
    /// [`Msaa`] samples per pixel; its texture also
    /// needs `TEXTURE_BINDING` while occlusion culling is on (the default:
    /// [`crate::Renderer::set_occlusion`]), which builds its depth pyramid
    /// from it.
    pub depth: &'a TargetView,
    /// Clear or keep the colour. `Clear(c)` clears the renderer's HDR
    /// target to `c`, a radiance tone mapped like the rest of the frame
    /// (Khronos PBR Neutral, the default, leaves values below 0.76 within
    /// 0.04 of themselves; [`ToneMapping::Linear`](crate::output::ToneMapping::Linear)
    /// keeps them exactly); id views clear to 0, "nothing drawn", whatever
    /// the colour. `Load` draws over what the application drew: what
    /// unbound covers is composited over it (premultiplied alpha), every
    /// other pixel keeps the application's colour.
    pub color_load: TargetLoad<wgpu::Color>,
    /// Clear the depth target to a value in [0, 1] ([`FAR_DEPTH`] is the far
    /// plane), or keep it so that unbound's objects are depth-tested against
    /// the application's own geometry.
    pub depth_load: TargetLoad<f32>,
}

impl<'a> FrameTarget<'a> {
    /// Colour cleared to opaque black, depth to the far plane.
    pub fn new(color: &'a TargetView, depth: &'a TargetView) -> Self {
        Self::cleared(color, depth, wgpu::Color::BLACK)
    }

    /// Colour cleared to `clear_color`, depth to the far plane: unbound
    /// draws the whole frame.
    pub fn cleared(color: &'a TargetView, depth: &'a TargetView, clear_color: wgpu::Color) -> Self {
        Self {
            color,
            depth,
            color_load: TargetLoad::Clear(clear_color),
            depth_load: TargetLoad::Clear(FAR_DEPTH),
        }
    }

    /// Colour and depth kept: unbound draws over what the application drew
    /// into them earlier in the encoder, hidden where that is nearer.
    pub fn loaded(color: &'a TargetView, depth: &'a TargetView) -> Self {
        Self {
            color,
            depth,
            color_load: TargetLoad::Load,
            depth_load: TargetLoad::Load,
        }
    }

    /// Checks everything wgpu would otherwise reject while recording: both
    /// targets 2D render attachments, colour of one sample and depth of
    /// `msaa`'s, the colour format `color_format` (or [`ID_TARGET_FORMAT`],
    /// which `view` requires if it is an id view), depth [`DEPTH_FORMAT`]
    /// with a clear value in [0, 1], and one size.
    pub fn check(
        &self,
        color_format: wgpu::TextureFormat,
        view: DebugView,
        msaa: Msaa,
    ) -> Result<(), RenderError> {
        let (color, depth) = (self.color, self.depth);
        color.check_attachment(TargetKind::Color)?;
        depth.check_attachment(TargetKind::Depth)?;
        let depth_expected = msaa.sample_count();
        if (color.sample_count(), depth.sample_count()) != (1, depth_expected) {
            return Err(RenderError::SampleCount {
                color: color.sample_count(),
                depth: depth.sample_count(),
                depth_expected,
            });
        }
        if color.format() != color_format && color.format() != ID_TARGET_FORMAT {
            return Err(RenderError::ColorFormat {
                expected: color_format,
                actual: color.format(),
            });
        }
        if view.is_id_view() && color.format() != ID_TARGET_FORMAT {
            return Err(RenderError::IdViewTarget {
                view,
                actual: color.format(),
            });
        }
        if depth.format() != DEPTH_FORMAT {
            return Err(RenderError::DepthFormat {
                actual: depth.format(),
            });
        }
        if let TargetLoad::Clear(value) = self.depth_load
            && !(0.0..=1.0).contains(&value)
        {
            return Err(RenderError::DepthClearValue { value });
        }
        if color.size() != depth.size() {
            return Err(RenderError::SizeMismatch {
                color: color.size(),
                depth: depth.size(),
            });
        }
        Ok(())
    }

    /// What occlusion culling and automatic exposure (`occlusion`: either
    /// on for this frame) need too: a depth texture they can read ([`RenderError::DepthNotSampleable`]).
    pub fn check_occlusion(&self, occlusion: bool) -> Result<(), RenderError> {
        let usage = self.depth.texture().usage();
        if occlusion && !usage.contains(wgpu::TextureUsages::TEXTURE_BINDING) {
            return Err(RenderError::DepthNotSampleable { usage });
        }
        Ok(())
    }
}
