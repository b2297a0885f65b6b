//! Test harness: a deterministic adapter (software by default, overridable
//! with UNBOUND_ADAPTER / UNBOUND_BACKEND), a device that records wgpu and
//! Vulkan validation errors instead of panicking, GPU readback helpers and
//! reference-image comparison.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use unbound::{Capacities, FrameStats, FrameTarget, Renderer, RendererConfig};
use unbound_harness::{AdapterChoice, DeviceLimits, instance_flags, open_headless};

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
pub struct Gpu {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub errors: Arc<Mutex<Vec<String>>>,
}

impl Gpu {
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

    fn with_choice(capacities: &Capacities, choice: &AdapterChoice) -> Self {
        install_logger();
        let unbound_harness::Gpu {
            adapter,
            device,
            queue,
            ..
        } = open_headless(
            choice,
            capacities,
            instance_flags(),
            DeviceLimits::ForCapacities,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |error| {
            sink.lock().unwrap().push(error.to_string());
        }));
        Self {
            adapter,
            device,
            queue,
            errors,
        }
    }

    pub fn default_capacities() -> Capacities {
        Capacities {
            objects: 1 << 18,
            vertices: 1 << 20,
            indices: 1 << 22,
            ..Capacities::default()
        }
    }

    pub fn renderer(&self, capacities: &Capacities) -> Renderer {
        self.renderer_with(RendererConfig {
            capacities: *capacities,
            ..RendererConfig::default()
        })
    }

    pub fn renderer_with(&self, config: RendererConfig) -> Renderer {
        Renderer::new(&self.adapter, &self.device, &self.queue, config).expect("renderer")
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
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
        self.queue.submit([encoder.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        let bytes = staging.get_mapped_range(..).unwrap().to_vec();
        staging.unmap();
        bytes
    }

    pub fn read_u32s(&self, buffer: &wgpu::Buffer, offset: u64, count: u64) -> Vec<u32> {
        if count == 0 {
            return Vec::new();
        }
        bytemuck::cast_slice(&self.read_buffer(buffer, offset, count * 4)).to_vec()
    }
}

/// Colour + depth targets of one size, readable back.
pub struct Target {
    pub color: wgpu::Texture,
    pub depth: wgpu::Texture,
    pub color_view: wgpu::TextureView,
    pub depth_view: wgpu::TextureView,
    pub width: u32,
    pub height: u32,
}

impl Target {
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Self {
        Self::with_format(gpu, width, height, wgpu::TextureFormat::Rgba8UnormSrgb)
    }

    /// A target whose colour texture has `format` (e.g. the id views'
    /// [`unbound::ID_TARGET_FORMAT`]).
    pub fn with_format(gpu: &Gpu, width: u32, height: u32, format: wgpu::TextureFormat) -> Self {
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |format, usage| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("test target"),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let color = texture(
            format,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let depth = texture(
            unbound::DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        Self {
            color_view: color.create_view(&Default::default()),
            depth_view: depth.create_view(&Default::default()),
            color,
            depth,
            width,
            height,
        }
    }

    pub fn frame(&self) -> FrameTarget<'_> {
        FrameTarget::cleared(
            &self.color_view,
            &self.depth_view,
            wgpu::Color {
                r: 0.02,
                g: 0.02,
                b: 0.05,
                a: 1.0,
            },
        )
    }

    /// Records the colour texture's copy into a new readback buffer.
    pub fn copy_out(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
    ) -> unbound_harness::TextureReadback {
        unbound_harness::TextureReadback::record(&gpu.device, encoder, &self.color)
    }

    /// Waits for a copy from [`Self::copy_out`] (after submission) and makes
    /// it an image.
    pub fn image_from(
        &self,
        gpu: &Gpu,
        readback: &unbound_harness::TextureReadback,
    ) -> image::RgbaImage {
        let texels = readback.read(&gpu.device).unwrap();
        image::RgbaImage::from_raw(self.width, self.height, texels).unwrap()
    }

    /// Renders one frame, submits, waits and reads the image back.
    pub fn render(&self, gpu: &Gpu, renderer: &mut Renderer) -> (image::RgbaImage, FrameStats) {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let stats = renderer
            .render(&mut encoder, &self.frame())
            .expect("render");
        let readback = self.copy_out(gpu, &mut encoder);
        gpu.queue.submit([encoder.finish()]);
        (self.image_from(gpu, &readback), stats)
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

/// Lighting that shows base colours unchanged (ambient 1, no light).
pub fn flat_lighting() -> unbound::Lighting {
    unbound::Lighting {
        direction_to_light: glam::Vec3::Z,
        light_color: glam::Vec3::ZERO,
        ambient_color: glam::Vec3::ONE,
    }
}

/// A camera on +Z looking at the origin so that the square
/// [-half, half]^2 of the plane z = 0 exactly fills a square target.
pub fn camera_framing_plane(half: f32) -> unbound::Camera {
    let distance = 10.0 * half;
    unbound::Camera {
        position: glam::Vec3::new(0.0, 0.0, distance),
        target: glam::Vec3::ZERO,
        up: glam::Vec3::Y,
        fov_y_radians: 2.0 * (half / distance).atan(),
        aspect: 1.0,
        z_near: distance * 0.5,
        z_far: distance * 2.0,
    }
}

/// A 1x1 texture of one colour, without mips.
pub fn solid_texture(renderer: &mut Renderer, color: [u8; 4]) -> unbound::TextureHandle {
    renderer
        .add_texture(&unbound::TextureDesc {
            label: None,
            width: 1,
            height: 1,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            data: &color,
            mips: unbound::Mips::None,
        })
        .unwrap()
}

/// A material showing `texture` with the default sampler.
pub fn textured_material(
    renderer: &mut Renderer,
    texture: unbound::TextureHandle,
) -> unbound::MaterialHandle {
    let sampler = renderer.heap().default_sampler();
    renderer
        .add_material(&unbound::Material {
            base_color: Some(unbound::TextureRef::new(texture, sampler)),
            ..Default::default()
        })
        .unwrap()
}

/// Places a unit quad (facing +Z) scaled to `width` x `height` at `center`.
pub fn quad_at(center: glam::Vec3, width: f32, height: f32) -> glam::Mat4 {
    glam::Mat4::from_scale_rotation_translation(
        glam::Vec3::new(width, height, 1.0),
        glam::Quat::IDENTITY,
        center,
    )
}

/// Channel-wise distance.
pub fn color_distance(a: image::Rgba<u8>, b: [u8; 4]) -> u8 {
    (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap()
}

/// A camera looking at the box `(min, max)` from the front, slightly above,
/// framing it in a square target.
pub fn camera_framing_box(min: glam::Vec3, max: glam::Vec3) -> unbound::Camera {
    let center = (min + max) * 0.5;
    let radius = (max - min).length() * 0.5;
    let direction = glam::Vec3::new(0.35, 0.25, 1.0).normalize();
    unbound::Camera {
        position: center + direction * radius * 2.6,
        target: center,
        up: glam::Vec3::Y,
        fov_y_radians: 45f32.to_radians(),
        aspect: 1.0,
        z_near: radius * 0.05,
        z_far: radius * 10.0,
    }
}

/// Path of a file under the crate's `assets/`.
pub fn asset(relative: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(relative)
}

/// What [`record_across_a_free`] saw.
pub struct AcrossAFree {
    /// Centre pixel of frame 1 (recorded while the red texture was live).
    pub first: image::Rgba<u8>,
    /// Centre pixel of frame 2 (recorded after red was freed, blue added).
    pub second: image::Rgba<u8>,
    /// The freed texture.
    pub red: unbound::TextureHandle,
    /// The texture added after the free.
    pub blue: unbound::TextureHandle,
    /// Frame 2's statistics.
    pub second_stats: FrameStats,
}

/// Frame 1 samples a red texture on a quad filling the view. Before frame 1
/// is even submitted, the quad, its material and the red texture are freed, a
/// blue texture is added (it may reuse the slot) and frame 2 is recorded.
/// Both frames are submitted together. `while_live` runs while red is still
/// in use, for extra checks.
pub fn record_across_a_free(
    gpu: &Gpu,
    renderer: &mut Renderer,
    while_live: impl FnOnce(&mut Renderer, unbound::TextureHandle),
) -> AcrossAFree {
    renderer.set_lighting(&flat_lighting());
    renderer.set_camera(&camera_framing_plane(1.0)).unwrap();
    let quad = renderer
        .add_mesh(&unbound::shapes::quad().as_mesh_data())
        .unwrap();
    let place = |mesh, material| unbound::ObjectDesc {
        mesh,
        material,
        world_from_object: quad_at(glam::Vec3::ZERO, 2.0, 2.0),
    };
    let red = solid_texture(renderer, [255, 0, 0, 255]);
    let material = textured_material(renderer, red);
    let object = renderer.add_object(&place(quad, material)).unwrap();
    while_live(renderer, red);

    let target1 = Target::new(gpu, 16, 16);
    let target2 = Target::new(gpu, 16, 16);
    let mut encoder1 = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&mut encoder1, &target1.frame()).unwrap();
    let out1 = target1.copy_out(gpu, &mut encoder1);

    renderer.remove_object(object).unwrap();
    renderer.remove_material(material).unwrap();
    renderer.remove_texture(red).unwrap();
    let blue = solid_texture(renderer, [0, 0, 255, 255]);
    let material = textured_material(renderer, blue);
    renderer.add_object(&place(quad, material)).unwrap();
    let mut encoder2 = gpu.device.create_command_encoder(&Default::default());
    let second_stats = renderer.render(&mut encoder2, &target2.frame()).unwrap();
    let out2 = target2.copy_out(gpu, &mut encoder2);
    gpu.queue.submit([encoder1.finish(), encoder2.finish()]);

    AcrossAFree {
        first: *target1.image_from(gpu, &out1).get_pixel(8, 8),
        second: *target2.image_from(gpu, &out2).get_pixel(8, 8),
        red,
        blue,
        second_stats,
    }
}

/// Standard base64 (for data URIs in generated files).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    out
}

/// A KTX2 file (no supercompression, an empty data format descriptor) of
/// `vk_format` with the given levels, level 0 first.
pub fn ktx2_file(vk_format: u32, width: u32, height: u32, levels: &[Vec<u8>]) -> Vec<u8> {
    const MAGIC: [u8; 12] = [
        0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
    ];
    let dfd_offset = 80 + 24 * levels.len() as u32;
    let mut data_offset = u64::from(dfd_offset + 4).next_multiple_of(8);
    let mut out = MAGIC.to_vec();
    let level_count = levels.len() as u32;
    for word in [vk_format, 1, width, height, 0, 0, 1, level_count, 0] {
        out.extend(word.to_le_bytes());
    }
    for word in [dfd_offset, 4, 0, 0] {
        out.extend(word.to_le_bytes());
    }
    out.extend(0u64.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    for level in levels {
        let length = level.len() as u64;
        for word in [data_offset, length, length] {
            out.extend(word.to_le_bytes());
        }
        data_offset += length.next_multiple_of(8);
    }
    out.extend(4u32.to_le_bytes()); // DFD: its own total size, no blocks
    for level in levels {
        out.resize(out.len().next_multiple_of(8), 0);
        out.extend(level);
    }
    out
}

/// A glTF file: one unit quad facing +Z whose base colour texture is
/// `image` (embedded as a data URI), sampled nearest.
pub fn textured_quad_gltf(image: &[u8]) -> String {
    let mut buffer = Vec::new();
    for p in [
        [-0.5f32, -0.5, 0.0],
        [0.5, -0.5, 0.0],
        [0.5, 0.5, 0.0],
        [-0.5, 0.5, 0.0],
    ] {
        p.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    }
    for uv in [[0.0f32, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]] {
        uv.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        buffer.extend(i.to_le_bytes());
    }
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": [0]}}],
  "nodes": [{{"mesh": 0}}],
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0, "TEXCOORD_0": 1}}, "indices": 2, "material": 0}}]}}],
  "materials": [{{"pbrMetallicRoughness": {{"baseColorTexture": {{"index": 0}}, "metallicFactor": 0}}}}],
  "textures": [{{"source": 0, "sampler": 0}}],
  "samplers": [{{"magFilter": 9728, "minFilter": 9984}}],
  "images": [{{"uri": "data:image/ktx2;base64,{image}"}}],
  "buffers": [{{"byteLength": {len}, "uri": "data:application/octet-stream;base64,{buffer}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 32}},
    {{"buffer": 0, "byteOffset": 80, "byteLength": 12}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]}},
    {{"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"}},
    {{"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}}
  ]
}}"#,
        image = base64(image),
        len = buffer.len(),
        buffer = base64(&buffer),
    )
}

/// An 8x8 BC1 texture (VK_FORMAT_BC1_RGBA_UNORM_BLOCK = 133), full chain of
/// four levels, every block one solid colour per level: red, green, blue,
/// white (565 endpoints equal, all indices 0).
pub fn bc1_levels() -> Vec<Vec<u8>> {
    let block = |color: u16| {
        let mut b = color.to_le_bytes().to_vec();
        b.extend(color.to_le_bytes());
        b.extend([0u8; 4]);
        b
    };
    vec![
        block(0xF800).repeat(4),
        block(0x07E0),
        block(0x001F),
        block(0xFFFF),
    ]
}
