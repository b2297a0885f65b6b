//! A glTF viewer: loads a file, frames it, and orbits around it.
//!
//! ```text
//! cargo run --example gltf_viewer -- [FILE.gltf|FILE.glb] [--frames N] [--png OUT.png]
//! ```
//!
//! Without a file it shows `assets/FlightHelmet`. The camera looks at the
//! centre of the scene's bounds from far enough that the bounding sphere
//! fills the view; drag with the left mouse button to orbit, or let it
//! turn on its own. `--frames N` closes the window after N frames;
//! `--png OUT.png` draws one frame without a window and writes it (as
//! `headless.rs` does). Needs the default `gltf` feature.

use std::error::Error;
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3};
use unbound::lighting::Environment;
use unbound::{Camera, FrameTarget, Renderer, RendererConfig, TargetView};
use winit::event::{ElementState, MouseButton, WindowEvent};

#[path = "shared/readback.rs"]
mod readback;
#[path = "shared/window.rs"]
mod window;
use window::WindowGpu;

const DEFAULT_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/FlightHelmet/FlightHelmet.gltf"
);
const FOV_Y: f32 = 45.0 * std::f32::consts::PI / 180.0;
const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.35,
    g: 0.5,
    b: 0.8,
    a: 1.0,
};

fn main() {
    if let Err(error) = run() {
        eprintln!("gltf_viewer: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let file = args
        .first()
        .filter(|a| !a.starts_with("--"))
        .map_or(DEFAULT_FILE, |f| f.as_str());
    let frames = option("--frames").map(|n| n.parse::<u32>()).transpose()?;
    if let Some(png) = option("--png") {
        return pollster::block_on(render_png(Path::new(file), Path::new(png)));
    }
    let file = PathBuf::from(file);
    window::run("unbound glTF viewer", frames, move |gpu| {
        Viewer::new(gpu, &file)
    })
}

/// A camera on a sphere around the scene: `yaw` about +Y, `pitch` above
/// the horizon, `distance` from `center`.
struct Orbit {
    center: Vec3,
    distance: f32,
    radius: f32,
    yaw: f32,
    pitch: f32,
}

impl Orbit {
    /// Loads `path` into `renderer` and frames it: the bounding sphere of
    /// the scene just fits the vertical field of view.
    fn load(renderer: &mut Renderer, path: &Path) -> Result<Self, Box<dyn Error>> {
        let scene = unbound::loaders::gltf::load_gltf(renderer, path, Mat4::IDENTITY)?;
        scene
            .warnings
            .iter()
            .for_each(|w| eprintln!("{}: {w}", path.display()));
        let (min, max) = scene.bounds;
        if scene.objects.is_empty() || min.cmpgt(max).any() {
            return Err(format!("{} places nothing to show", path.display()).into());
        }
        let radius = ((max - min).length() * 0.5).max(1e-3);
        let distance = radius / (FOV_Y * 0.5).sin();
        Ok(Self {
            center: (min + max) * 0.5,
            distance,
            radius,
            yaw: 0.4,
            pitch: 0.3,
        })
    }

    /// The camera for a `width` × `height` target (its aspect must fit).
    fn camera(&self, width: u32, height: u32) -> Camera {
        let direction = Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            self.yaw.cos() * self.pitch.cos(),
        );
        Camera {
            position: self.center + direction * self.distance,
            target: self.center,
            fov_y_radians: FOV_Y,
            aspect: width as f32 / height as f32,
            z_near: (self.distance - self.radius).max(self.radius * 0.01),
            z_far: self.distance + self.radius * 2.0,
            ..Camera::default()
        }
    }
}

/// One frame of `file` at 512 × 512 into `png`, without a window: the
/// device, targets and readback of `headless.rs`.
async fn render_png(file: &Path, png: &Path) -> Result<(), Box<dyn Error>> {
    let descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    let instance = wgpu::Instance::new(descriptor);
    let adapter = wgpu::util::initialize_adapter_from_env_or_default(&instance, None).await?;
    let config = RendererConfig::default();
    let (device, queue) =
        unbound::request_device(&adapter, &config.capacities, &Default::default()).await?;
    let mut renderer = Renderer::new(&adapter, &device, &queue, config)?;
    renderer.set_environment(&queue, &Environment::sky())?;
    let (width, height) = (512, 512);
    let orbit = Orbit::load(&mut renderer, file)?;
    renderer.set_camera(&orbit.camera(width, height))?;
    let color = device.create_texture(&renderer.color_target_descriptor(width, height));
    let depth = device.create_texture(&renderer.depth_target_descriptor(width, height));
    let (color_view, depth_view) = (TargetView::new(&color), TargetView::new(&depth));
    let target = FrameTarget::cleared(&color_view, &depth_view, BACKGROUND);
    let mut encoder = device.create_command_encoder(&Default::default());
    renderer.render(&mut encoder, &target)?;
    let readback = readback::Readback::record(&device, &mut encoder, &color);
    queue.submit([encoder.finish()]);
    let rgba = readback.read(&device)?;
    image::save_buffer(png, &rgba, width, height, image::ColorType::Rgba8)?;
    Ok(())
}

/// The windowed viewer: the orbit, turning on its own unless dragged.
struct Viewer {
    orbit: Orbit,
    /// The cursor's last position while the left button is down (NaN
    /// until it moves).
    dragging: Option<Vec2>,
}

impl Viewer {
    fn new(gpu: &mut WindowGpu, file: &Path) -> Result<Self, Box<dyn Error>> {
        gpu.renderer
            .set_environment(&gpu.queue, &Environment::sky())?;
        let orbit = Orbit::load(&mut gpu.renderer, file)?;
        Ok(Self {
            orbit,
            dragging: None,
        })
    }
}

impl window::Example for Viewer {
    fn draw(
        &mut self,
        gpu: &mut WindowGpu,
        encoder: &mut wgpu::CommandEncoder,
        color: &TargetView,
    ) -> Result<(), Box<dyn Error>> {
        if self.dragging.is_none() {
            self.orbit.yaw += 0.005;
        }
        let camera = self.orbit.camera(gpu.config.width, gpu.config.height);
        gpu.renderer.set_camera(&camera)?;
        let target = FrameTarget::cleared(color, &gpu.depth, BACKGROUND);
        gpu.renderer.render(encoder, &target)?;
        Ok(())
    }

    fn event(&mut self, event: &WindowEvent) {
        match *event {
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                self.dragging = (state == ElementState::Pressed).then_some(Vec2::NAN);
            }
            WindowEvent::CursorMoved { position, .. } => {
                let position = Vec2::new(position.x as f32, position.y as f32);
                if let Some(last) = self.dragging.as_mut() {
                    if last.is_finite() {
                        let moved = (position - *last) * 0.01;
                        self.orbit.yaw -= moved.x;
                        self.orbit.pitch = (self.orbit.pitch + moved.y).clamp(-1.5, 1.5);
                    }
                    *last = position;
                }
            }
            _ => {}
        }
    }
}
