//! Test harness: a deterministic adapter (software by default, overridable
//! with UNBOUND_ADAPTER / UNBOUND_BACKEND), a device that records wgpu and
//! Vulkan validation errors instead of panicking, GPU readback helpers
//! ([`images`]: targets, reference images), scene helpers ([`scene`],
//! [`lights`]),
//! generated files ([`files`]) and structure-aware edits of glTF JSON
//! ([`json_edits`], shared with the `gltf_json` fuzz target).
#![allow(
    dead_code,
    unused_imports,
    unused_macros,
    reason = "each test binary uses a different subset"
)]

mod compressed;
mod files;
mod ibl;
mod images;
pub mod json_edits;
mod lights;
pub mod morph_sphere;
pub mod occlusion_scene;
mod output;
pub mod prepass_scene;
pub mod raster_compare;
mod rays;
mod scene;
pub mod shadow_scene;
pub mod small_scene;
pub mod sphere_grid;
pub mod straddling;
pub mod sun_file;
mod views;
mod visibility_ids;

use std::sync::{Arc, Mutex, OnceLock};

pub use compressed::*;
pub use files::*;
pub use ibl::*;
pub use images::*;
pub use lights::*;
pub use output::*;
pub use rays::*;
pub use scene::*;
use unbound::{Capacities, Renderer, RendererConfig};
use unbound_harness::{
    AdapterChoice, DeviceLimits, DeviceRequest, LifecycleTurn, instance_flags, open_headless,
};
pub use views::*;
pub use visibility_ids::*;

/// `assert!(matches!(value, pattern))` that shows the value when it fails.
macro_rules! assert_matches {
    ($value:expr, $pattern:pat $(,)?) => {{
        let value = $value;
        assert!(matches!(value, $pattern), "{value:?}");
    }};
}
pub(crate) use assert_matches;

/// Validation messages logged by wgpu-hal (Vulkan validation layers) at
/// error level, from every device in this process.
static VALIDATION_MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct CaptureLogger;

impl log::Log for CaptureLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
    }

    fn log(&self, record: &log::Record<'_>) {
        if record.level() == log::Level::Error && record.target().starts_with("wgpu_hal::vulkan") {
            VALIDATION_MESSAGES.lock().unwrap().push(format!(
                "{}: {}",
                record.target(),
                record.args()
            ));
        } else if self.enabled(record.metadata()) {
            eprintln!(
                "[{}] {}: {}",
                record.level(),
                record.target(),
                record.args()
            );
        }
    }

    fn flush(&self) {}
}

fn install_logger() {
    static LOGGER: CaptureLogger = CaptureLogger;
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        log::set_logger(&LOGGER).expect("no other logger");
        log::set_max_level(log::LevelFilter::Warn);
    });
}

/// One test's GPU: adapter, device, queue and the errors they reported.
/// Its device is created and destroyed in the process's
/// [`unbound_harness::lifecycle_turn`] (a validation-layer race, see
/// there): a test declares its GPU before everything made with it, so the
/// GPU drops last and holds the device's last references.
pub struct Gpu {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub errors: Arc<Mutex<Vec<String>>>,
    /// Taken when the GPU drops; declared last, so released only after
    /// the fields above (and with them the device and its instance).
    teardown: Option<LifecycleTurn>,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        self.teardown = Some(unbound_harness::lifecycle_turn());
    }
}

/// Vulkan objects a test makes itself, outside [`Gpu`] (an instance's
/// adapter, a device of its own, a device request's result), made and
/// dropped in the process's [`unbound_harness::lifecycle_turn`] as
/// [`Gpu`]'s are. Reads as the value it holds.
pub struct InTurn<T> {
    value: T,
    /// Taken when it drops; declared last, so released after `value`.
    teardown: Option<LifecycleTurn>,
}

impl<T> InTurn<T> {
    /// What `make` returns, made in the turn. `make` must not take the turn
    /// itself ([`Gpu::new`] and the harness's `open_headless` do).
    pub fn make(make: impl FnOnce() -> T) -> Self {
        let turn = unbound_harness::lifecycle_turn();
        let value = make();
        drop(turn);
        Self {
            value,
            teardown: None,
        }
    }
}

impl<T> std::ops::Deref for InTurn<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> Drop for InTurn<T> {
    fn drop(&mut self) {
        self.teardown = Some(unbound_harness::lifecycle_turn());
    }
}

impl Gpu {
    /// A GPU of `adapter`, `device` and `queue` whose errors go to
    /// `errors`.
    pub fn from_parts(
        adapter: wgpu::Adapter,
        (device, queue): (wgpu::Device, wgpu::Queue),
        errors: Arc<Mutex<Vec<String>>>,
    ) -> Self {
        Self {
            adapter,
            device,
            queue,
            errors,
            teardown: None,
        }
    }

    /// [`Self::from_parts`] with a sink recording the device's errors.
    fn recording_errors(adapter: wgpu::Adapter, device: wgpu::Device, queue: wgpu::Queue) -> Self {
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |error| {
            sink.lock().unwrap().push(error.to_string());
        }));
        Self::from_parts(adapter, (device, queue), errors)
    }

    /// A device for unbound with `capacities` on the test adapter. Panics
    /// with install instructions if no suitable adapter exists.
    pub fn new(capacities: &Capacities) -> Self {
        Self::with_choice(capacities, &AdapterChoice::from_env(true))
    }

    /// The first adapter of `backends` that unbound accepts (any tier):
    /// tier C tests run on Mesa's GL llvmpipe adapter.
    pub fn with_backend(capacities: &Capacities, backends: wgpu::Backends) -> Self {
        Self::with_choice(
            capacities,
            &AdapterChoice {
                backends: Some(backends),
                name: None,
                prefer_software: true,
            },
        )
    }

    /// A device for unbound with `capacities` on the test adapter, with ray
    /// queries (requested with wgpu's experimental-features token, which
    /// the harness holds) if the adapter has them.
    pub fn with_ray_queries(capacities: &Capacities) -> Self {
        Self::open(
            capacities,
            &AdapterChoice::from_env(true),
            DeviceRequest {
                limits: DeviceLimits::ForCapacities,
                ray_queries: true,
            },
        )
    }

    /// A second device on the test adapter with the first one's features
    /// and limits less `withheld` (a renderer on it falls back to what
    /// needs none of them).
    pub fn withholding(&self, withheld: wgpu::Features) -> Self {
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("unbound test, features withheld"),
            required_features: self.device.features() - withheld,
            required_limits: self.device.limits(),
            ..Default::default()
        };
        let turn = unbound_harness::lifecycle_turn();
        let (device, queue) = pollster::block_on(self.adapter.request_device(&descriptor))
            .unwrap_or_else(|error| panic!("a device without {withheld:?}: {error}"));
        drop(turn);
        Self::recording_errors(self.adapter.clone(), device, queue)
    }

    fn with_choice(capacities: &Capacities, choice: &AdapterChoice) -> Self {
        Self::open(capacities, choice, DeviceLimits::ForCapacities.into())
    }

    fn open(capacities: &Capacities, choice: &AdapterChoice, request: DeviceRequest) -> Self {
        install_logger();
        let unbound_harness::Gpu {
            adapter,
            device,
            queue,
            ..
        } = open_headless(choice, capacities, instance_flags(), request)
            .unwrap_or_else(|error| panic!("{error}"));
        Self::recording_errors(adapter, device, queue)
    }

    pub fn default_capacities() -> Capacities {
        Capacities {
            objects: 1 << 18,
            vertices: 1 << 20,
            indices: 1 << 22,
            ..Capacities::default()
        }
    }

    /// A device with [`Self::default_capacities`] and a renderer on it.
    pub fn with_renderer() -> (Self, Renderer) {
        let capacities = Self::default_capacities();
        let gpu = Self::new(&capacities);
        let renderer = gpu.renderer(&capacities);
        (gpu, renderer)
    }

    /// [`Self::with_renderer`] with the Khronos sample FlightHelmet loaded
    /// (`assets/FlightHelmet/FlightHelmet.gltf`, at the origin): the
    /// real-asset scene the rasteriser comparisons share.
    pub fn with_flight_helmet() -> (Self, Renderer) {
        let (gpu, mut renderer) = Self::with_renderer();
        unbound::loaders::gltf::load_gltf(
            &mut renderer,
            &files::asset("FlightHelmet/FlightHelmet.gltf"),
            glam::Mat4::IDENTITY,
        )
        .unwrap();
        (gpu, renderer)
    }

    pub fn renderer(&self, capacities: &Capacities) -> Renderer {
        self.renderer_with(RendererConfig {
            capacities: *capacities,
            ..RendererConfig::default()
        })
    }

    pub fn renderer_with(&self, config: RendererConfig) -> Renderer {
        self.try_renderer(config).expect("renderer")
    }

    /// A renderer on this device, or the error `config` is refused with.
    pub fn try_renderer(&self, config: RendererConfig) -> Result<Renderer, unbound::Error> {
        Renderer::new(&self.adapter, &self.device, &self.queue, config)
    }

    /// Waits for the GPU and fails on any wgpu or validation-layer error.
    pub fn finish(&self) {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        let errors = self.errors.lock().unwrap();
        assert!(errors.is_empty(), "wgpu errors: {errors:#?}");
        let messages = VALIDATION_MESSAGES.lock().unwrap();
        assert!(messages.is_empty(), "validation errors: {messages:#?}");
    }

    /// Copies `buffer[range]` back (blocking).
    pub fn read_buffer(&self, buffer: &wgpu::Buffer, offset: u64, size: u64) -> Vec<u8> {
        unbound_harness::read_buffer(&self.device, &self.queue, buffer, offset, size)
            .expect("buffer readback")
    }

    pub fn read_u32s(&self, buffer: &wgpu::Buffer, offset: u64, count: u64) -> Vec<u32> {
        if count == 0 {
            return Vec::new();
        }
        bytemuck::cast_slice(&self.read_buffer(buffer, offset, count * 4)).to_vec()
    }
}
