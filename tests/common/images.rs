//! Render targets read back as images, saved outputs, reference-image
//! comparison and pixel measures.

use std::path::PathBuf;

use unbound::{FrameStats, FrameTarget, Renderer};
use unbound_harness::{RenderTargets, TextureReadback};

use super::Gpu;

/// The harness's colour + depth targets, cleared for each frame and read
/// back as images.
pub struct Target {
    targets: RenderTargets,
}

impl Target {
    /// The colour format of [`Self::new`]: the renderer's default.
    pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Self {
        Self::with_format(gpu, width, height, Self::FORMAT)
    }

    /// A target whose colour texture has `format` (e.g. the id views'
    /// [`unbound::ID_TARGET_FORMAT`]).
    pub fn with_format(gpu: &Gpu, width: u32, height: u32, format: wgpu::TextureFormat) -> Self {
        Self::with_msaa(gpu, width, height, format, unbound::output::Msaa::X1)
    }

    /// A target for a renderer of `msaa` (its depth texture has that many
    /// samples per pixel).
    pub fn with_msaa(
        gpu: &Gpu,
        width: u32,
        height: u32,
        format: wgpu::TextureFormat,
        msaa: unbound::output::Msaa,
    ) -> Self {
        Self {
            targets: RenderTargets::with_msaa(&gpu.device, width, height, format, msaa),
        }
    }

    /// The colour texture.
    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.targets.color
    }

    pub fn color_view(&self) -> &unbound::TargetView {
        &self.targets.color_view
    }

    pub fn depth_view(&self) -> &unbound::TargetView {
        &self.targets.depth_view
    }

    /// Colour and depth cleared (colour to the harness's background).
    pub fn frame(&self) -> FrameTarget<'_> {
        self.targets.cleared()
    }

    /// Records the colour texture's copy into a new readback buffer.
    pub fn copy_out(&self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder) -> TextureReadback {
        TextureReadback::record(&gpu.device, encoder, &self.targets.color)
            .expect("test targets fit a buffer")
    }

    /// Waits for a copy from [`Self::copy_out`] (after submission) and makes
    /// it an image.
    pub fn image_from(&self, gpu: &Gpu, readback: &TextureReadback) -> image::RgbaImage {
        let texels = readback.read(&gpu.device).unwrap();
        image::RgbaImage::from_raw(readback.width, readback.height, texels).unwrap()
    }

    /// Records what `record` draws into [`Self::frame`] in a new encoder,
    /// submits it, waits and reads the colour back.
    pub fn capture<R>(
        &self,
        gpu: &Gpu,
        record: impl FnOnce(&mut wgpu::CommandEncoder, &FrameTarget<'_>) -> R,
    ) -> (image::RgbaImage, R) {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let result = record(&mut encoder, &self.frame());
        let readback = self.copy_out(gpu, &mut encoder);
        gpu.queue.submit([encoder.finish()]);
        (self.image_from(gpu, &readback), result)
    }

    /// Renders one frame, submits, waits and reads the image back.
    pub fn render(&self, gpu: &Gpu, renderer: &mut Renderer) -> (image::RgbaImage, FrameStats) {
        self.capture(gpu, |encoder, frame| {
            renderer.render(encoder, frame).expect("render")
        })
    }
}

fn output_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/output");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes an image under `tests/output/` (for failures and inspection).
pub fn save_output(name: &str, image: &image::RgbaImage) -> PathBuf {
    let path = output_dir().join(format!("{name}.png"));
    image.save(&path).unwrap();
    path
}

/// Channel-wise distance.
pub fn color_distance(a: image::Rgba<u8>, b: [u8; 4]) -> u8 {
    (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap()
}

/// Pixels where `a` and `b` differ by more than `tolerance` in some channel.
pub fn mismatched_pixels(a: &image::RgbaImage, b: &image::RgbaImage, tolerance: u8) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(x, y)| color_distance(**x, y.0) > tolerance)
        .count()
}

/// The largest channel difference between `a` and `b`.
pub fn largest_difference(a: &image::RgbaImage, b: &image::RgbaImage) -> u8 {
    a.pixels()
        .zip(b.pixels())
        .map(|(x, y)| color_distance(*x, y.0))
        .max()
        .unwrap_or(0)
}

/// Pixels of `image` not exactly `background` (RGBA): what was drawn.
pub fn drawn_pixels(image: &image::RgbaImage, background: [u8; 4]) -> usize {
    image.pixels().filter(|p| p.0 != background).count()
}

/// Compares `image` with `tests/reference/{name}.png`: a pixel matches when
/// every channel differs by at most `channel_tolerance`; at most
/// `max_mismatched_fraction` of pixels may fail. On failure the actual image
/// and a difference image are written to `tests/output/`. Set
/// `UNBOUND_BLESS=1` to write the reference instead (with the adapter beside it).
pub fn compare_with_reference(
    gpu: &Gpu,
    name: &str,
    image: &image::RgbaImage,
    channel_tolerance: u8,
    max_mismatched_fraction: f64,
) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference");
    let path = dir.join(format!("{name}.png"));
    if std::env::var_os("UNBOUND_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        image.save(&path).unwrap();
        let info = gpu.adapter.get_info();
        std::fs::write(
            dir.join(format!("{name}.adapter.txt")),
            format!(
                "{} ({:?}), driver: {} {}\n",
                info.name, info.backend, info.driver, info.driver_info
            ),
        )
        .unwrap();
        return;
    }
    let reference = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with UNBOUND_BLESS=1)", path.display()))
        .to_rgba8();
    assert_eq!(
        reference.dimensions(),
        image.dimensions(),
        "{name}: size differs"
    );
    let mut diff = image::RgbaImage::new(image.width(), image.height());
    let mut mismatched = 0usize;
    for (x, y, actual) in image.enumerate_pixels() {
        let expected = reference.get_pixel(x, y);
        let delta = (0..4)
            .map(|c| actual[c].abs_diff(expected[c]))
            .max()
            .unwrap();
        if delta > channel_tolerance {
            mismatched += 1;
        }
        let v = delta.saturating_mul(4);
        diff.put_pixel(
            x,
            y,
            image::Rgba([v, if delta > channel_tolerance { 255 } else { 0 }, v, 255]),
        );
    }
    let fraction = mismatched as f64 / f64::from(image.width() * image.height());
    if fraction > max_mismatched_fraction {
        let actual = save_output(&format!("{name}.actual"), image);
        let diff_path = save_output(&format!("{name}.diff"), &diff);
        panic!(
            "{name}: {mismatched} pixels ({:.3}%) differ by more than {channel_tolerance} (allowed {:.3}%); wrote {} and {}",
            fraction * 100.0,
            max_mismatched_fraction * 100.0,
            actual.display(),
            diff_path.display()
        );
    }
}
