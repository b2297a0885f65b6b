//! Window mode on winit 0.30's `ApplicationHandler`: the application owns
//! the instance, surface, device and queue, and hands unbound a colour and a
//! depth view each frame, exactly as an application embedding the library
//! would. unbound draws into an offscreen target (so screenshots and id
//! views are exact); a present pass copies it into the surface and the
//! egui overlay is drawn over that.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use glam::Vec2;
use unbound::{Camera, Capacities, DebugOptions, DebugView, Renderer, RendererConfig};
use unbound_harness::{DeviceLimits, Gpu, TextureReadback, instance_flags, open_device};
use winit::application::ApplicationHandler;
use winit::event::{
    DeviceEvent, ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent,
};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::args::Args;
use crate::capture::{COLOR_FORMAT, SceneTargets, save_png};
use crate::controls::{CameraPath, Controller};
use crate::overlay::{FrameNumbers, Overlay, Requests, Settings};
use crate::present::{Present, color_pass};
use crate::scene::{self, LoadedScene};

pub fn run(args: Args) -> Result<(), String> {
    let event_loop = EventLoop::new().map_err(|e| {
        format!(
            "cannot open a window ({e}). Is DISPLAY or WAYLAND_DISPLAY set? \
             On X11 winit also needs libxkbcommon-x11, libX11-xcb, libXcursor, libXi and libXrandr \
             (./scripts/demo.sh installs them). Or render without a window: --headless --out frame.png"
        )
    })?;
    let mut app = App {
        args,
        state: None,
        result: Ok(()),
    };
    event_loop.run_app(&mut app).map_err(|e| e.to_string())?;
    app.result
}

struct App {
    args: Args,
    state: Option<State>,
    result: Result<(), String>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match State::new(event_loop, &self.args) {
            Ok(state) => self.state = Some(state),
            Err(e) => {
                self.result = Err(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(state) = &mut self.state else {
            return;
        };
        if let Err(e) = state.window_event(event_loop, &self.args, &event) {
            self.result = Err(e);
            event_loop.exit();
        }
    }

    fn device_event(&mut self, _: &ActiveEventLoop, _: winit::event::DeviceId, event: DeviceEvent) {
        if let (Some(state), DeviceEvent::MouseMotion { delta }) = (&mut self.state, event)
            && state.mouse_look
        {
            state
                .controller
                .rotate(Vec2::new(delta.0 as f32, delta.1 as f32));
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(state) = &self.state {
            state.window.request_redraw();
        }
    }
}

struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    surface_can_copy: bool,
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
    scene: LoadedScene,
    targets: SceneTargets,
    present: Present,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    overlay: Overlay,
    settings: Settings,
    numbers: FrameNumbers,
    controller: Controller,
    path: Option<CameraPath>,
    recording: Option<CameraPath>,
    frozen: Option<Camera>,
    mouse_look: bool,
    minimized: bool,
    frame: u64,
    last_frame: Option<Instant>,
    screenshots: u32,
    pending: Requests,
    /// Per frame: wall time since the previous frame and CPU record time
    /// (ms), for the summary of a scripted run.
    frame_ms: Vec<f32>,
    record_ms: Vec<f32>,
}

impl State {
    fn new(event_loop: &ActiveEventLoop, args: &Args) -> Result<Self, String> {
        let window = Arc::new(
            event_loop
                .create_window(
                    Window::default_attributes()
                        .with_title("unbound")
                        .with_inner_size(winit::dpi::PhysicalSize::new(args.width, args.height)),
                )
                .map_err(|e| format!("cannot create a window: {e}"))?,
        );
        let mut descriptor = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
            event_loop.owned_display_handle(),
        ));
        descriptor.backends = args.choice.backends.unwrap_or(wgpu::Backends::all());
        descriptor.flags = instance_flags();
        let instance = wgpu::Instance::new(descriptor);
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| format!("cannot create a surface for the window: {e}"))?;
        let capacities = Capacities {
            objects: args.instances.max(Capacities::default().objects),
            ..Capacities::default()
        };
        let Gpu {
            adapter,
            device,
            queue,
            ..
        } = pollster::block_on(open_device(
            instance,
            &args.choice,
            &capacities,
            Some(&surface),
            DeviceLimits::ForCapacities,
        ))
        .map_err(|e| e.to_string())?;
        let info = adapter.get_info();
        device.on_uncaptured_error(Arc::new(|e| eprintln!("wgpu error: {e}")));
        let mut renderer = Renderer::new(
            &adapter,
            &device,
            &queue,
            RendererConfig {
                capacities,
                color_format: COLOR_FORMAT,
                tier: args.tier,
                ..RendererConfig::default()
            },
        )
        .map_err(|e| e.to_string())?;
        let adapter_line = format!(
            "adapter: {} ({:?}, {:?}), driver: {} {}",
            info.name, info.backend, info.device_type, info.driver, info.driver_info
        );
        let tier_line = format!("tier: {}", renderer.tier().describe());
        println!("{adapter_line}\n{tier_line}");

        let size = window.inner_size();
        let (width, height) = (size.width.max(1), size.height.max(1));
        let aspect = width as f32 / height as f32;
        let scene = scene::load(&mut renderer, args, aspect)?;
        println!("{}", scene.description);
        let path = args
            .camera_path
            .as_deref()
            .map(CameraPath::load)
            .transpose()?;
        let start = args.camera.unwrap_or(scene.home);
        let controller = Controller::new(start, scene.radius());

        let caps = surface.get_capabilities(&adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| {
                f.is_srgb()
                    && matches!(
                        f,
                        wgpu::TextureFormat::Bgra8UnormSrgb | wgpu::TextureFormat::Rgba8UnormSrgb
                    )
            })
            .or_else(|| caps.formats.first().copied())
            .ok_or("the surface supports no format on this adapter")?;
        let surface_can_copy = caps.usages.contains(wgpu::TextureUsages::COPY_SRC);
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | if surface_can_copy {
                    wgpu::TextureUsages::COPY_SRC
                } else {
                    wgpu::TextureUsages::empty()
                },
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width,
            height,
            desired_maximum_frame_latency: 2,
            present_mode: present_mode(args.vsync),
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        surface.configure(&device, &config);
        let targets = SceneTargets::new(&device, width, height);
        let mut present = Present::new(&device, format);
        present.set_targets(&device, &targets);

        let egui_ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let egui_renderer =
            egui_wgpu::Renderer::new(&device, format, egui_wgpu::RendererOptions::default());
        let numbers = FrameNumbers {
            adapter: adapter_line,
            tier: tier_line,
            scene: scene.description.clone(),
            ..FrameNumbers::default()
        };
        Ok(Self {
            window,
            surface,
            config,
            surface_can_copy,
            device,
            queue,
            renderer,
            scene,
            targets,
            present,
            egui_ctx,
            egui_state,
            egui_renderer,
            overlay: Overlay::default(),
            settings: Settings {
                view: args.view,
                highlight_missing: args.highlight_missing,
                freeze_cull: args.freeze_cull,
                bounds: args.bounds,
                vsync: args.vsync,
                show_ui: args.ui,
            },
            numbers,
            controller,
            path,
            recording: None,
            frozen: None,
            mouse_look: false,
            minimized: false,
            frame: 0,
            last_frame: None,
            screenshots: 0,
            pending: Requests::default(),
            frame_ms: Vec::new(),
            record_ms: Vec::new(),
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        self.minimized = width == 0 || height == 0;
        if self.minimized || (width, height) == (self.config.width, self.config.height) {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.device, &self.config);
        self.targets = SceneTargets::new(&self.device, width, height);
        self.present.set_targets(&self.device, &self.targets);
    }

    fn window_event(
        &mut self,
        event_loop: &ActiveEventLoop,
        args: &Args,
        event: &WindowEvent,
    ) -> Result<(), String> {
        let consumed = self.settings.show_ui
            && self
                .egui_state
                .on_window_event(&self.window, event)
                .consumed;
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        physical_key: PhysicalKey::Code(code),
                        state,
                        repeat,
                        ..
                    },
                ..
            } if !consumed || *state == ElementState::Released => {
                self.key(event_loop, *code, *state == ElementState::Pressed, *repeat)?;
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let pressed = *state == ElementState::Pressed;
                match button {
                    MouseButton::Right => self.mouse_look = pressed,
                    MouseButton::Left if !pressed || !consumed => self.mouse_look = pressed,
                    _ => {}
                }
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.controller.scroll(lines);
            }
            WindowEvent::Focused(false) => {
                self.controller.held = Default::default();
                self.mouse_look = false;
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop, args)?,
            _ => {}
        }
        Ok(())
    }

    fn key(
        &mut self,
        event_loop: &ActiveEventLoop,
        code: KeyCode,
        pressed: bool,
        repeat: bool,
    ) -> Result<(), String> {
        let held = &mut self.controller.held;
        match code {
            KeyCode::KeyW | KeyCode::ArrowUp => held.forward = pressed,
            KeyCode::KeyS | KeyCode::ArrowDown => held.back = pressed,
            KeyCode::KeyA | KeyCode::ArrowLeft => held.left = pressed,
            KeyCode::KeyD | KeyCode::ArrowRight => held.right = pressed,
            KeyCode::KeyQ => held.down = pressed,
            KeyCode::KeyE => held.up = pressed,
            KeyCode::ShiftLeft | KeyCode::ShiftRight => held.fast = pressed,
            KeyCode::ControlLeft | KeyCode::ControlRight => held.slow = pressed,
            _ => {}
        }
        if !pressed || repeat {
            return Ok(());
        }
        let s = &mut self.settings;
        match code {
            KeyCode::Escape => event_loop.exit(),
            KeyCode::Tab => self.pending.toggle_mode = true,
            KeyCode::KeyF => self.pending.frame_scene = true,
            KeyCode::KeyH => s.highlight_missing = !s.highlight_missing,
            KeyCode::KeyC => s.freeze_cull = !s.freeze_cull,
            KeyCode::KeyB => s.bounds = !s.bounds,
            KeyCode::KeyV => s.vsync = !s.vsync,
            KeyCode::F1 => s.show_ui = !s.show_ui,
            KeyCode::F12 => self.pending.screenshot = true,
            KeyCode::KeyR => match self.recording.take() {
                Some(path) => {
                    let file = PathBuf::from("camera-path.txt");
                    path.save(&file)?;
                    self.numbers.status =
                        format!("saved {} poses to {}", path.poses.len(), file.display());
                    println!("{}", self.numbers.status);
                }
                None => self.recording = Some(CameraPath::default()),
            },
            _ => {
                let views = [
                    KeyCode::Digit1,
                    KeyCode::Digit2,
                    KeyCode::Digit3,
                    KeyCode::Digit4,
                    KeyCode::Digit5,
                    KeyCode::Digit6,
                    KeyCode::Digit7,
                    KeyCode::Digit8,
                ];
                if let Some(i) = views.iter().position(|&k| k == code) {
                    s.view = DebugView::ALL[i];
                }
            }
        }
        Ok(())
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop, args: &Args) -> Result<(), String> {
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.duration_since(t).as_secs_f32());
        if self.last_frame.is_some() {
            self.overlay.push_frame_time(dt * 1e3);
            self.numbers.frame_ms = dt * 1e3;
            self.frame_ms.push(dt * 1e3);
        }
        self.last_frame = Some(now);
        if self.minimized {
            return Ok(());
        }
        self.apply_requests();

        // Camera: a replayed path, else the controller.
        let aspect = self.config.width as f32 / self.config.height as f32;
        let pose = match &self.path {
            Some(path) => path.pose(self.frame),
            None => {
                self.controller.update(dt.min(0.1));
                self.controller.pose()
            }
        };
        if let Some(recording) = &mut self.recording {
            recording.poses.push(pose);
        }
        self.renderer
            .set_camera(&self.scene.camera(&pose, aspect))
            .map_err(|e| e.to_string())?;
        match (self.settings.freeze_cull, self.frozen) {
            (true, None) => self.frozen = Some(*self.renderer.camera()),
            (false, Some(_)) => self.frozen = None,
            _ => {}
        }
        let view = self.settings.view;
        self.renderer
            .set_debug(&DebugOptions {
                view,
                highlight_missing: self.settings.highlight_missing,
                cull_camera: self.frozen,
                culled_bounds: self.settings.bounds,
            })
            .map_err(|e| e.to_string())?;
        if self.config.present_mode != present_mode(self.settings.vsync) {
            self.config.present_mode = present_mode(self.settings.vsync);
            self.surface.configure(&self.device, &self.config);
        }

        // unbound records its frame into our encoder, into our target.
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let record_start = Instant::now();
        let stats = self
            .renderer
            .render(&mut encoder, &self.targets.frame(view))
            .map_err(|e| e.to_string())?;
        self.numbers.record_ms = record_start.elapsed().as_secs_f32() * 1e3;
        self.record_ms.push(self.numbers.record_ms);
        self.numbers.instances = stats.instances;
        if stats.gpu.is_some() {
            self.numbers.gpu = stats.gpu;
        }
        self.numbers.mode = self.path.is_none().then_some(self.controller.mode);
        self.numbers.speed = self.controller.speed;
        self.numbers.recording = self.recording.as_ref().map(|r| r.poses.len());

        let last = args.frames.is_some_and(|n| self.frame + 1 >= n);
        let shot_path = if last && args.screenshot.is_some() {
            args.screenshot.clone()
        } else if std::mem::take(&mut self.pending.screenshot) {
            self.screenshots += 1;
            Some(PathBuf::from(format!(
                "unbound-{:03}.png",
                self.screenshots
            )))
        } else {
            None
        };
        let with_ui = args.screenshot_ui && self.settings.show_ui && self.surface_can_copy;
        if shot_path.is_some() && args.screenshot_ui && !with_ui {
            eprintln!(
                "note: saving the render target without the overlay ({})",
                if self.surface_can_copy {
                    "the overlay is hidden"
                } else {
                    "this surface cannot be copied from"
                }
            );
        }
        let mut readback: Option<TextureReadback> = match &shot_path {
            Some(_) if !with_ui => Some(TextureReadback::record(
                &self.device,
                &mut encoder,
                self.targets.texture(view),
            )),
            _ => None,
        };

        let surface_texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => Some(t),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => None,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                None
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err("acquiring the surface texture failed validation".into());
            }
        };
        let mut extra = Vec::new();
        if let Some(surface_texture) = &surface_texture {
            let output = surface_texture.texture.create_view(&Default::default());
            self.present
                .record(&mut encoder, &output, view.is_id_view());
            if self.settings.show_ui {
                extra = self.draw_overlay(&mut encoder, &output);
            }
            if shot_path.is_some() && with_ui {
                readback = Some(TextureReadback::record(
                    &self.device,
                    &mut encoder,
                    &surface_texture.texture,
                ));
            }
        }
        self.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        if let Some(surface_texture) = surface_texture {
            self.window.pre_present_notify();
            self.queue.present(surface_texture);
        }
        if let (Some(path), Some(readback)) = (shot_path, readback) {
            save_png(&readback, &self.device, &path)?;
            self.numbers.status = format!("wrote {}", path.display());
            println!("{}", self.numbers.status);
        }
        self.frame += 1;
        if last {
            let gpu = self.renderer.latest_gpu_stats().or(self.numbers.gpu);
            println!("frames: {}", self.frame);
            // A scripted run (e.g. --camera-path with --no-vsync) doubles as
            // a benchmark.
            println!(
                "frame time: {}; CPU record: {}",
                summary(&self.frame_ms),
                summary(&self.record_ms)
            );
            if let Some(gpu) = gpu {
                let ms = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3} ms"));
                println!(
                    "visible instances: {}, draws: {}, triangles: {}, GPU cull {}, draw {}",
                    gpu.visible_instances,
                    gpu.draws,
                    gpu.triangles,
                    ms(gpu.cull_ms),
                    ms(gpu.draw_ms)
                );
            }
            event_loop.exit();
        }
        Ok(())
    }

    fn apply_requests(&mut self) {
        if std::mem::take(&mut self.pending.toggle_mode) {
            self.controller.toggle_mode();
        }
        if std::mem::take(&mut self.pending.frame_scene) {
            self.controller.reset(self.scene.home);
        }
    }

    /// Runs the overlay's UI and records it over `output`. Returns egui's
    /// own command buffers (submitted before ours).
    fn draw_overlay(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        output: &wgpu::TextureView,
    ) -> Vec<wgpu::CommandBuffer> {
        let raw = self.egui_state.take_egui_input(&self.window);
        let mut requests = Requests::default();
        let mut full = self.egui_ctx.run_pass(raw, |ctx| {
            requests = self
                .overlay
                .ui(ctx, &self.numbers, &self.renderer, &mut self.settings);
        });
        self.pending.screenshot |= requests.screenshot;
        self.pending.frame_scene |= requests.frame_scene;
        self.pending.toggle_mode |= requests.toggle_mode;
        self.egui_state
            .handle_platform_output(&self.window, full.platform_output);
        let primitives = self.egui_ctx.tessellate(full.shapes, full.pixels_per_point);
        // egui checks that every texture delta is applied (drained).
        for (id, deltas) in full.textures_delta.set.drain() {
            for delta in deltas {
                self.egui_renderer
                    .update_texture(&self.device, &self.queue, id, &delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: full.pixels_per_point,
        };
        let extra = self.egui_renderer.update_buffers(
            &self.device,
            &self.queue,
            encoder,
            &primitives,
            &screen,
        );
        {
            let pass = color_pass(encoder, output, wgpu::LoadOp::Load, "demo overlay");
            self.egui_renderer
                .render(&mut pass.forget_lifetime(), &primitives, &screen);
        }
        for id in full.textures_delta.free.drain() {
            self.egui_renderer.free_texture(&id);
        }
        extra
    }
}

/// Median and 10th-90th percentile of `samples` (ms).
fn summary(samples: &[f32]) -> String {
    if samples.is_empty() {
        return "n/a".into();
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f32::total_cmp);
    let at = |q: f32| sorted[((sorted.len() - 1) as f32 * q).round() as usize];
    format!("median {:.3} ms ({:.3}-{:.3})", at(0.5), at(0.1), at(0.9))
}

fn present_mode(vsync: bool) -> wgpu::PresentMode {
    if vsync {
        wgpu::PresentMode::AutoVsync
    } else {
        wgpu::PresentMode::AutoNoVsync
    }
}
