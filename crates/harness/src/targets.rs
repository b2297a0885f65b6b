//! Offscreen render targets for unbound's frames in the tests, the demo and
//! the benchmarks.

/// The colour the tools clear to: a dark blue-grey, so that black geometry
/// still shows.
pub const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.02,
    g: 0.02,
    b: 0.05,
    a: 1.0,
};

/// A colour texture and a depth texture ([`unbound::DEPTH_FORMAT`]) of one
/// size, with the views unbound draws into. The depth texture has the
/// samples per pixel of the renderer's [`unbound::output::Msaa`] setting;
/// colour always has one.
#[derive(Debug)]
pub struct RenderTargets {
    /// The colour texture (see [`color_texture`] for its usages).
    pub color: wgpu::Texture,
    /// The depth texture.
    pub depth: wgpu::Texture,
    /// The whole colour texture.
    pub color_view: unbound::TargetView,
    /// The whole depth texture.
    pub depth_view: unbound::TargetView,
}

impl RenderTargets {
    /// Colour in `color_format` and depth, `width` x `height`, for a
    /// renderer without multisampling.
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        color_format: wgpu::TextureFormat,
    ) -> Self {
        Self::with_msaa(
            device,
            width,
            height,
            color_format,
            unbound::output::Msaa::X1,
        )
    }

    /// Colour in `color_format` and depth of `msaa`'s samples per pixel,
    /// `width` x `height`.
    pub fn with_msaa(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        color_format: wgpu::TextureFormat,
        msaa: unbound::output::Msaa,
    ) -> Self {
        let color = color_texture(device, width, height, color_format);
        let depth = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("unbound-harness depth"),
            // Occlusion culling builds its depth pyramid from it; tests
            // read it back.
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            sample_count: msaa.sample_count(),
            ..color_descriptor(width, height, unbound::DEPTH_FORMAT)
        });
        Self {
            color_view: unbound::TargetView::new(&color),
            depth_view: unbound::TargetView::new(&depth),
            color,
            depth,
        }
    }

    /// The frame target: colour cleared to [`BACKGROUND`], depth cleared.
    pub fn cleared(&self) -> unbound::FrameTarget<'_> {
        unbound::FrameTarget::cleared(&self.color_view, &self.depth_view, BACKGROUND)
    }
}

/// A texture unbound can draw colour into, which can also be copied out
/// (readback, screenshots) and sampled (a present pass): the colour texture
/// of [`RenderTargets`], or a second one of another format beside it.
pub fn color_texture(
    device: &wgpu::Device,
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&color_descriptor(width, height, format))
}

fn color_descriptor(
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
) -> wgpu::TextureDescriptor<'static> {
    wgpu::TextureDescriptor {
        label: Some("unbound-harness colour"),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    }
}
