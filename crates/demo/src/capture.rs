//! Render targets and PNG capture, shared by the headless and window modes.

use std::path::Path;

use unbound_harness::TextureReadback;

/// The colour target unbound draws into in `view`'s format (sRGB for the
/// shading views, linear for id views), plus depth.
#[derive(Debug)]
pub struct SceneTargets {
    pub color: wgpu::Texture,
    pub ids: wgpu::Texture,
    pub color_view: wgpu::TextureView,
    pub ids_view: wgpu::TextureView,
    pub depth_view: wgpu::TextureView,
}

pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

impl SceneTargets {
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Self {
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label, format, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let readable = wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::TEXTURE_BINDING;
        let color = texture("demo colour", COLOR_FORMAT, readable);
        let ids = texture("demo ids", unbound::ID_TARGET_FORMAT, readable);
        let depth = texture(
            "demo depth",
            unbound::DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        Self {
            color_view: color.create_view(&Default::default()),
            ids_view: ids.create_view(&Default::default()),
            depth_view: depth.create_view(&Default::default()),
            color,
            ids,
        }
    }

    /// The target a frame of `view` draws into.
    pub fn frame(&self, view: unbound::DebugView) -> unbound::FrameTarget<'_> {
        let color = if view.is_id_view() {
            &self.ids_view
        } else {
            &self.color_view
        };
        unbound::FrameTarget::cleared(
            color,
            &self.depth_view,
            wgpu::Color {
                r: 0.02,
                g: 0.02,
                b: 0.05,
                a: 1.0,
            },
        )
    }

    pub fn texture(&self, view: unbound::DebugView) -> &wgpu::Texture {
        if view.is_id_view() {
            &self.ids
        } else {
            &self.color
        }
    }
}

/// Waits for the copy (after submission) and writes an RGBA PNG.
pub fn save_png(
    readback: &TextureReadback,
    device: &wgpu::Device,
    path: &Path,
) -> Result<(), String> {
    let mut pixels = readback.read(device).map_err(|e| e.to_string())?;
    if matches!(
        readback.format,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    ) {
        for texel in pixels.chunks_exact_mut(4) {
            texel.swap(0, 2);
        }
    }
    image::save_buffer(
        path,
        &pixels,
        readback.width,
        readback.height,
        image::ExtendedColorType::Rgba8,
    )
    .map_err(|e| format!("{}: {e}", path.display()))
}
