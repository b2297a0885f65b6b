//! The window plumbing of the windowed examples (`winit.rs`,
//! `gltf_viewer.rs`): a winit window, a surface, a device with unbound's
//! requirements that can present to it, and a renderer that draws straight
//! into the surface texture, in the surface's (sRGB) format. [`run`] opens
//! them, keeps the surface and the depth target the window's size, and
//! asks the [`Example`] for a frame whenever the window can show one.

use std::error::Error;
use std::sync::Arc;

use unbound::{Renderer, RendererConfig, TargetView};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

/// What the application owns once its window is open.
pub struct WindowGpu {
    pub window: Arc<Window>,
    pub surface: wgpu::Surface<'static>,
    pub config: wgpu::SurfaceConfiguration,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub renderer: Renderer,
    /// The depth target, from [`Renderer::depth_target_descriptor`] at the
    /// surface's size.
    pub depth: TargetView,
}

/// A windowed example: what it draws each frame and how it answers input.
pub trait Example {
    /// Records one frame into `encoder`: `color` is the surface texture,
    /// `gpu.depth` the depth target of its size.
    fn draw(
        &mut self,
        gpu: &mut WindowGpu,
        encoder: &mut wgpu::CommandEncoder,
        color: &TargetView,
    ) -> Result<(), Box<dyn Error>>;

    /// A window event the plumbing does not handle itself (mouse input).
    fn event(&mut self, _event: &WindowEvent) {}
}

type Make<E> = Box<dyn FnOnce(&mut WindowGpu) -> Result<E, Box<dyn Error>>>;

/// Opens a window titled `title`, makes the example with `make` once the
/// renderer exists, and draws until the window is closed or `frames`
/// frames were shown.
pub fn run<E: Example>(
    title: &'static str,
    frames: Option<u32>,
    make: impl FnOnce(&mut WindowGpu) -> Result<E, Box<dyn Error>> + 'static,
) -> Result<(), Box<dyn Error>> {
    let make: Make<E> = Box::new(make);
    let mut app = App {
        title,
        frames,
        make: Some(make),
        open: None,
        error: None,
    };
    EventLoop::new()?.run_app(&mut app)?;
    app.error.map_or(Ok(()), Err)
}

struct App<E> {
    title: &'static str,
    frames: Option<u32>,
    make: Option<Make<E>>,
    open: Option<(WindowGpu, E)>,
    error: Option<Box<dyn Error>>,
}

impl<E: Example> ApplicationHandler for App<E> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let Some(make) = self.make.take() else { return };
        let opened = pollster::block_on(open(event_loop, self.title))
            .and_then(|mut gpu| make(&mut gpu).map(|example| (gpu, example)));
        match opened {
            Ok(open) => self.open = Some(open),
            Err(error) => self.fail(event_loop, error),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some((gpu, example)) = self.open.as_mut() else {
            return;
        };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => gpu.resize(size.width, size.height),
            WindowEvent::RedrawRequested => match gpu.frame(example) {
                Err(error) => self.fail(event_loop, error),
                Ok(shown) => {
                    let left = self.frames.as_mut().filter(|_| shown);
                    if let Some(left) = left {
                        *left = left.saturating_sub(1);
                        if *left == 0 {
                            return event_loop.exit();
                        }
                    }
                    gpu.window.request_redraw();
                }
            },
            event => example.event(&event),
        }
    }
}

impl<E> App<E> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, error: Box<dyn Error>) {
        self.error = Some(error);
        event_loop.exit();
    }
}

/// The window, its surface, a device that can present to it and a
/// renderer drawing in the surface's format.
async fn open(event_loop: &ActiveEventLoop, title: &str) -> Result<WindowGpu, Box<dyn Error>> {
    let size = winit::dpi::PhysicalSize::new(800, 500);
    let attributes = Window::default_attributes()
        .with_title(title)
        .with_inner_size(size);
    let window = Arc::new(event_loop.create_window(attributes)?);
    let display = Box::new(event_loop.owned_display_handle());
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
        display,
    ));
    let surface = instance.create_surface(window.clone())?;
    let adapter =
        wgpu::util::initialize_adapter_from_env_or_default(&instance, Some(&surface)).await?;
    let size = window.inner_size();
    let mut config = surface
        .get_default_config(&adapter, size.width.max(1), size.height.max(1))
        .ok_or("the adapter cannot present to this window")?;
    // An sRGB format, if the surface has one, so that unbound's output is
    // shown as it is meant to be.
    let formats = surface.get_capabilities(&adapter).formats;
    config.format = formats
        .into_iter()
        .find(|f| f.is_srgb())
        .unwrap_or(config.format);
    let renderer_config = RendererConfig {
        color_format: config.format,
        ..Default::default()
    };
    let capacities = &renderer_config.capacities;
    let (device, queue) =
        unbound::request_device(&adapter, capacities, &Default::default()).await?;
    surface.configure(&device, &config);
    let renderer = Renderer::new(&adapter, &device, &queue, renderer_config)?;
    let depth = renderer.depth_target_descriptor(config.width, config.height);
    let depth = TargetView::new(&device.create_texture(&depth));
    Ok(WindowGpu {
        window,
        surface,
        config,
        device,
        queue,
        renderer,
        depth,
    })
}

impl WindowGpu {
    /// The surface and the depth target follow the window's size.
    fn resize(&mut self, width: u32, height: u32) {
        (self.config.width, self.config.height) = (width.max(1), height.max(1));
        self.surface.configure(&self.device, &self.config);
        let depth = self
            .renderer
            .depth_target_descriptor(self.config.width, self.config.height);
        self.depth = TargetView::new(&self.device.create_texture(&depth));
    }

    /// One frame of `example` into the surface texture; whether one was
    /// shown (none while the surface is being replaced or hidden).
    fn frame(&mut self, example: &mut impl Example) -> Result<bool, Box<dyn Error>> {
        use wgpu::CurrentSurfaceTexture as Current;
        let texture = match self.surface.get_current_texture() {
            Current::Success(texture) | Current::Suboptimal(texture) => texture,
            Current::Outdated | Current::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Ok(false);
            }
            Current::Timeout | Current::Occluded => return Ok(false),
            Current::Validation => return Err("the surface texture was refused".into()),
        };
        let color = TargetView::new(&texture.texture);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        example.draw(self, &mut encoder, &color)?;
        self.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.queue.present(texture);
        Ok(true)
    }
}
