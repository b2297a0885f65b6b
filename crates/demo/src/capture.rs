//! Render targets and PNG capture, shared by the headless and window modes.

use std::path::Path;

use unbound_harness::{BACKGROUND, RenderTargets, TextureReadback, color_texture};

/// The colour target unbound draws into in `view`'s format (sRGB for the
/// shading views, linear for id views), plus depth of the renderer's
/// samples per pixel.
#[derive(Debug)]
pub struct SceneTargets {
    pub color: wgpu::Texture,
    pub ids: wgpu::Texture,
    pub color_view: unbound::TargetView,
    pub ids_view: unbound::TargetView,
    pub depth_view: unbound::TargetView,
}

pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

impl SceneTargets {
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        msaa: unbound::output::Msaa,
    ) -> Self {
        let RenderTargets {
            color,
            color_view,
            depth_view,
            ..
        } = RenderTargets::with_msaa(device, width, height, COLOR_FORMAT, msaa);
        let ids = color_texture(device, width, height, unbound::ID_TARGET_FORMAT);
        Self {
            ids_view: unbound::TargetView::new(&ids),
            color,
            ids,
            color_view,
            depth_view,
        }
    }

    /// The target a frame of `view` draws into.
    pub fn frame(&self, view: unbound::DebugView) -> unbound::FrameTarget<'_> {
        let color = if view.is_id_view() {
            &self.ids_view
        } else {
            &self.color_view
        };
        unbound::FrameTarget::cleared(color, &self.depth_view, BACKGROUND)
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
