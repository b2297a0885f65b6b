//! The window's start, in order: the window; the instance (with the event
//! loop's display handle), a surface and a device that can present to it;
//! the renderer; the scene; the surface configuration, the offscreen targets
//! and the present pass; egui.

use std::sync::Arc;

use unbound::Renderer;
use unbound_harness::{DeviceLimits, DeviceRequest, Gpu, instance_flags, open_device};
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use super::{Egui, State, present_mode};
use crate::animation::Player;
use crate::args::{Args, Shadows};
use crate::capture::SceneTargets;
use crate::controls::{CameraPath, Controller};
use crate::overlay::{FrameNumbers, Overlay, Requests, Settings};
use crate::present::Present;
use crate::renderer;
use crate::scene;

/// What [`open_gpu`] opens for a window.
struct WindowGpu {
    surface: wgpu::Surface<'static>,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
    /// "adapter: ..." and "tier: ...", printed and shown in the overlay.
    adapter_line: String,
    tier_line: String,
}

/// The surface's configuration and whether it can be copied from (for
/// screenshots with the overlay).
struct SurfaceSetup {
    config: wgpu::SurfaceConfiguration,
    can_copy: bool,
}

impl State {
    pub(super) fn new(event_loop: &ActiveEventLoop, args: &Args) -> Result<Self, String> {
        let window = create_window(event_loop, args)?;
        let WindowGpu {
            surface,
            adapter,
            device,
            queue,
            mut renderer,
            adapter_line,
            tier_line,
        } = open_gpu(event_loop, &window, args)?;
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

        let SurfaceSetup { config, can_copy } =
            surface_setup(&surface, &adapter, width, height, args.vsync)?;
        surface.configure(&device, &config);
        let targets = SceneTargets::new(&device, width, height, renderer.config().msaa);
        let mut present = Present::new(&device, config.format);
        present.set_targets(&device, &targets);
        let egui = Egui::new(&window, &device, config.format);
        let numbers = FrameNumbers {
            adapter: adapter_line,
            tier: tier_line,
            scene: scene.description.clone(),
            clips: scene
                .player
                .as_ref()
                .map(Player::clip_names)
                .unwrap_or_default(),
            ..FrameNumbers::default()
        };
        let (clip, paused) = scene
            .player
            .as_ref()
            .map_or((None, false), |p| (p.clip(), p.paused));
        Ok(Self {
            window,
            surface,
            config,
            surface_can_copy: can_copy,
            device,
            queue,
            renderer,
            scene,
            targets,
            present,
            egui,
            overlay: Overlay::default(),
            settings: Settings {
                view: args.view,
                highlight_missing: args.highlight_missing,
                freeze_cull: args.freeze_cull,
                bounds: args.bounds,
                shadows: args.shadows != Shadows::Off,
                ray_query_shadows: args.shadows == Shadows::RayQuery,
                vsync: args.vsync,
                show_ui: args.ui,
                clip,
                paused,
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
}

fn create_window(event_loop: &ActiveEventLoop, args: &Args) -> Result<Arc<Window>, String> {
    let attributes = Window::default_attributes()
        .with_title("unbound")
        .with_inner_size(winit::dpi::PhysicalSize::new(args.width, args.height));
    let window = event_loop
        .create_window(attributes)
        .map_err(|e| format!("cannot create a window: {e}"))?;
    Ok(Arc::new(window))
}

/// The instance, a surface for `window`, an adapter that can present to it,
/// its device and the renderer.
fn open_gpu(
    event_loop: &ActiveEventLoop,
    window: &Arc<Window>,
    args: &Args,
) -> Result<WindowGpu, String> {
    let mut descriptor = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
        event_loop.owned_display_handle(),
    ));
    descriptor.backends = args.choice.backends.unwrap_or(wgpu::Backends::all());
    descriptor.flags = instance_flags();
    let instance = wgpu::Instance::new(descriptor);
    let surface = instance
        .create_surface(window.clone())
        .map_err(|e| format!("cannot create a surface for the window: {e}"))?;
    let Gpu {
        adapter,
        device,
        queue,
        ..
    } = pollster::block_on(open_device(
        instance,
        &args.choice,
        &renderer::capacities(args),
        Some(&surface),
        DeviceRequest {
            limits: DeviceLimits::ForCapacities,
            ray_queries: args.ray_queries(),
        },
    ))
    .map_err(|e| e.to_string())?;
    let created = renderer::create(&adapter, &device, &queue, args)?;
    Ok(WindowGpu {
        surface,
        adapter,
        device,
        queue,
        renderer: created.renderer,
        adapter_line: created.adapter_line,
        tier_line: created.tier_line,
    })
}

/// An sRGB 8-bit format if the surface offers one, copyable when it can be.
fn surface_setup(
    surface: &wgpu::Surface<'static>,
    adapter: &wgpu::Adapter,
    width: u32,
    height: u32,
    vsync: bool,
) -> Result<SurfaceSetup, String> {
    let caps = surface.get_capabilities(adapter);
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
    let can_copy = caps.usages.contains(wgpu::TextureUsages::COPY_SRC);
    let config = wgpu::SurfaceConfiguration {
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | if can_copy {
                wgpu::TextureUsages::COPY_SRC
            } else {
                wgpu::TextureUsages::empty()
            },
        format,
        color_space: wgpu::SurfaceColorSpace::Auto,
        width,
        height,
        desired_maximum_frame_latency: 2,
        present_mode: present_mode(vsync),
        alpha_mode: caps
            .alpha_modes
            .first()
            .copied()
            .unwrap_or(wgpu::CompositeAlphaMode::Auto),
        view_formats: vec![],
    };
    Ok(SurfaceSetup { config, can_copy })
}

impl Egui {
    fn new(window: &Window, device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let ctx = egui::Context::default();
        let input = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let painter =
            egui_wgpu::Renderer::new(device, format, egui_wgpu::RendererOptions::default());
        Self {
            ctx,
            input,
            painter,
        }
    }
}
