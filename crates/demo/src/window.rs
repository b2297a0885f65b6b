//! Window mode on winit 0.30's `ApplicationHandler`: the application owns
//! the instance, surface, device and queue, and hands unbound a colour and a
//! depth view each frame, exactly as an application embedding the library
//! would. unbound draws into an offscreen target (so screenshots and id
//! views are exact); a present pass copies it into the surface and the
//! egui overlay is drawn over that.
//!
//! This file holds the application and its input; `setup.rs` opens the
//! window, device and renderer; `frame.rs` draws one frame.

mod frame;
mod setup;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use glam::Vec2;
use unbound::{Camera, DebugView, Renderer};
use winit::application::ApplicationHandler;
use winit::event::{
    DeviceEvent, ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent,
};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::args::Args;
use crate::capture::SceneTargets;
use crate::controls::{CameraPath, Controller};
use crate::overlay::{FrameNumbers, Overlay, Requests, Settings};
use crate::present::Present;
use crate::scene::LoadedScene;

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

/// egui's context, its winit input state and its wgpu painter.
struct Egui {
    ctx: egui::Context,
    input: egui_winit::State,
    painter: egui_wgpu::Renderer,
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
    egui: Egui,
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
    fn resize(&mut self, width: u32, height: u32) {
        self.minimized = width == 0 || height == 0;
        if self.minimized || (width, height) == (self.config.width, self.config.height) {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.device, &self.config);
        let msaa = self.renderer.config().msaa;
        self.targets = SceneTargets::new(&self.device, width, height, msaa);
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
                .egui
                .input
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
            KeyCode::KeyG => s.shadows = !s.shadows,
            KeyCode::KeyV => s.vsync = !s.vsync,
            KeyCode::KeyP => s.paused = !s.paused,
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

    fn apply_requests(&mut self) {
        if std::mem::take(&mut self.pending.toggle_mode) {
            self.controller.toggle_mode();
        }
        if std::mem::take(&mut self.pending.frame_scene) {
            self.controller.reset(self.scene.home);
        }
    }
}

fn present_mode(vsync: bool) -> wgpu::PresentMode {
    if vsync {
        wgpu::PresentMode::AutoVsync
    } else {
        wgpu::PresentMode::AutoNoVsync
    }
}
