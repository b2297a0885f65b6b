//! Automatic exposure (issue 27 item 7, `unbound::exposure`): the exposure
//! the GPU meters equals its CPU twin's from the read-back HDR target, on
//! tier A and B (lavapipe) and tier C (GL llvmpipe); the output shows it;
//! adaptation moves part of the way per frame; a file lit in lux and the
//! built-in scene both land in one mean-luminance band without a flag; bad
//! settings are typed errors.

mod common;

use common::shadow_scene::{self, SIZE};
use common::sun_file::sun_gltf_file;
use common::*;
use glam::{Vec3, Vec4};
use unbound::debug::decode_id;
use unbound::exposure::{AutoExposure, ExposureError, LuminanceHistogram, luminance};
use unbound::gpu_types::GpuExposureState;
use unbound::output::Output;
use unbound::{DebugOptions, DebugView, Error, ID_TARGET_FORMAT, Renderer, RendererConfig, Tier};

/// wgpu's GL backend and Mesa's software drivers side by side: the tests
/// here take turns, as in `tests/tiers.rs`.
static GL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gl_turn() -> std::sync::MutexGuard<'static, ()> {
    GL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// |GPU - CPU| exposure allowed, in EV: the GPU's log2 and exp2 are not
/// the CPU's, so a pixel on a bin's edge may fall on the other side (one
/// pixel of 16,384 moves the mean by at most 0.14 EV / 16,384); measured
/// 0 on tiers A, B and C (printed).
const EV_TOLERANCE: f32 = 0.01;

/// The exposure state the last frame left on the GPU.
fn read_state(gpu: &Gpu, renderer: &Renderer) -> GpuExposureState {
    let buffer = renderer.exposure_state_buffer().expect("auto exposure ran");
    let bytes = gpu.read_buffer(buffer, 0, size_of::<GpuExposureState>() as u64);
    *bytemuck::from_bytes(&bytes)
}

/// The last frame's HDR target, read back, each pixel with whether the
/// scene covers it: drawn in the object-id view of the same frame (a
/// frame of a debug view, which meters nothing), on the same device, so
/// rasterised alike. The renderer is left on the lit view.
fn hdr_pixels(gpu: &Gpu, renderer: &mut Renderer) -> Vec<(Vec4, bool)> {
    let hdr = read_rgba16f(gpu, renderer.hdr_target().unwrap(), 0, 0);
    let ids = DebugOptions {
        view: DebugView::ObjectIndex,
        ..DebugOptions::default()
    };
    renderer.set_debug(&ids).unwrap();
    let target = Target::with_format(gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let (image, _) = target.render(gpu, renderer);
    renderer.set_debug(&DebugOptions::default()).unwrap();
    let covered = image.pixels().map(|p| decode_id(p.0).is_some());
    hdr.into_iter().zip(covered).collect()
}

/// Mean Rec. 709 luminance of an sRGB image, linear: how bright it shows.
fn mean_luminance(image: &image::RgbaImage) -> f32 {
    let total: f32 = image
        .pixels()
        .map(|p| {
            luminance(Vec3::from_array(
                [0, 1, 2].map(|c| srgb_to_linear(f32::from(p.0[c]) / 255.0)),
            ))
        })
        .sum();
    total / (image.width() * image.height()) as f32
}

/// The shadow scene with automatic exposure at `settings`, on `tier`.
fn auto_exposed(gpu: &Gpu, tier: Option<Tier>, settings: &AutoExposure) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        shadows: shadow_scene::settings(true),
        ..Default::default()
    });
    shadow_scene::build(&mut renderer, true);
    renderer.set_auto_exposure(Some(settings)).unwrap();
    renderer
}

/// One frame: the GPU's exposure against the CPU twin's from the HDR
/// target, and the image against the CPU's output of that HDR target at
/// the GPU's exposure (sRGB bytes within 1 on all but 1% of pixels:
/// the curves' own tolerance, `tests/output.rs`).
fn check_metering(gpu: &Gpu, tier: Option<Tier>) -> Tier {
    let settings = AutoExposure::default();
    let mut renderer = auto_exposed(gpu, tier, &settings);
    let target = Target::new(gpu, SIZE, SIZE);
    let (image, _) = target.render(gpu, &mut renderer);
    let state = read_state(gpu, &renderer);
    let hdr = hdr_pixels(gpu, &mut renderer);
    let uncovered = hdr.iter().filter(|(_, covered)| !covered).count();
    assert!(uncovered > 1000, "the background: {uncovered} pixels");
    let histogram = LuminanceHistogram::of_pixels(hdr.iter().copied());
    let cpu = histogram.target_ev(&settings).expect("metered pixels");
    let tier = renderer.tier();
    eprintln!(
        "{tier:?}: GPU {} EV (target {}, {} pixels), CPU {cpu} EV",
        state.exposure_ev, state.target_ev, state.metered_pixels
    );
    assert_eq!(
        state.metered_pixels,
        histogram.bins[1..].iter().sum::<u32>()
    );
    assert!((state.exposure_ev - cpu).abs() < EV_TOLERANCE, "{tier:?}");
    assert_eq!(state.exposure_ev, state.target_ev, "the first frame jumps");
    assert!((state.exposure_scale - state.exposure_ev.exp2()).abs() < 1e-4 * state.exposure_scale);
    // The image shows the metered exposure.
    let output = Output {
        exposure_ev: state.exposure_ev,
        ..Output::default()
    };
    let mut bad = 0;
    for (i, (pixel, _)) in hdr.iter().enumerate() {
        let shown = output.apply(pixel.truncate() / pixel.w);
        let expected = shown
            .to_array()
            .map(|v| (linear_to_srgb(v).clamp(0.0, 1.0) * 255.0).round() as u8);
        let got = image.get_pixel(i as u32 % SIZE, i as u32 / SIZE).0;
        if (0..3).any(|c| got[c].abs_diff(expected[c]) > 1) {
            bad += 1;
        }
    }
    assert!(
        bad <= hdr.len() / 100,
        "{tier:?}: {bad} pixels off by more than 1"
    );
    tier
}

#[test]
fn the_gpu_meters_what_its_cpu_twin_meters_on_every_tier() {
    let _turn = gl_turn();
    let vulkan = Gpu::new(&Gpu::default_capacities());
    assert_eq!(check_metering(&vulkan, None), Tier::A);
    assert_eq!(check_metering(&vulkan, Some(Tier::B)), Tier::B);
    vulkan.finish();
    let gl = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    assert_eq!(check_metering(&gl, None), Tier::C);
    gl.finish();
}

/// With adaptation 0.5 the exposure moves half the way per frame: after a
/// jump, the sun and ambient made 16 times brighter (4 stops) move the
/// metered exposure down by 4 stops (within 0.2: the bins' width), and
/// the exposure half way there, as the CPU twin says;
/// turning the setting on again jumps.
#[test]
fn adaptation_moves_part_of_the_way_each_frame() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let settings = AutoExposure {
        adaptation: 0.5,
        ..AutoExposure::default()
    };
    let mut renderer = auto_exposed(&gpu, None, &settings);
    let target = Target::new(&gpu, SIZE, SIZE);
    target.render(&gpu, &mut renderer);
    let first = read_state(&gpu, &renderer);
    let bright = unbound::Lighting {
        light_color: renderer.lighting().light_color * 16.0,
        ambient_color: renderer.lighting().ambient_color * 16.0,
        ..*renderer.lighting()
    };
    renderer.set_lighting(&bright).unwrap();
    target.render(&gpu, &mut renderer);
    let second = read_state(&gpu, &renderer);
    let hdr = hdr_pixels(&gpu, &mut renderer);
    let cpu_target = LuminanceHistogram::of_pixels(hdr)
        .target_ev(&settings)
        .unwrap();
    let expected = settings.adapt(first.exposure_ev, cpu_target, false);
    eprintln!(
        "first {} EV, then target {} (CPU {cpu_target}), exposure {} (CPU {expected})",
        first.exposure_ev, second.target_ev, second.exposure_ev
    );
    let darker = first.target_ev - second.target_ev;
    assert!((darker - 4.0).abs() < 0.2, "{darker}");
    assert!((second.exposure_ev - expected).abs() < EV_TOLERANCE);
    renderer.set_auto_exposure(Some(&settings)).unwrap();
    target.render(&gpu, &mut renderer);
    let third = read_state(&gpu, &renderer);
    assert_eq!(third.exposure_ev, third.target_ev);
    gpu.finish();
}

/// The mean luminance band both scenes land in without a flag: the file
/// lit by a 2,049 lux sun and the built-in scene (the default sun of
/// 0.85π lux), each with the default automatic exposure. Without it, the
/// file is blown out (mean luminance over 0.8). Measured: 0.131 and 0.127,
/// 0.994 blown.
const MEAN_LUMINANCE_BAND: std::ops::Range<f32> = 0.08..0.35;

#[test]
fn a_file_in_lux_and_the_built_in_scene_land_in_one_band() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let target = Target::new(&gpu, SIZE, SIZE);
    let mut file = gpu.renderer(&Gpu::default_capacities());
    file.set_camera(&shadow_scene::camera()).unwrap();
    file.set_shadows(&shadow_scene::settings(true)).unwrap();
    let path = sun_gltf_file("band.gltf");
    unbound::loaders::gltf::load_gltf(&mut file, &path, glam::Mat4::IDENTITY).unwrap();
    let (blown, _) = target.render(&gpu, &mut file);
    file.set_auto_exposure(Some(&AutoExposure::default()))
        .unwrap();
    let (file_image, _) = target.render(&gpu, &mut file);
    save_output("exposure_file", &file_image);

    let mut built_in = auto_exposed(&gpu, None, &AutoExposure::default());
    let (built_in_image, _) = target.render(&gpu, &mut built_in);
    save_output("exposure_built_in", &built_in_image);
    let means = [blown, file_image, built_in_image].map(|i| mean_luminance(&i));
    eprintln!(
        "mean luminance: file at 0 EV {}, file auto {}, built-in auto {}",
        means[0], means[1], means[2]
    );
    assert!(means[0] > 0.8, "{means:?}");
    assert!(MEAN_LUMINANCE_BAND.contains(&means[1]), "{means:?}");
    assert!(MEAN_LUMINANCE_BAND.contains(&means[2]), "{means:?}");
    gpu.finish();
}

/// Bad settings are typed errors that keep the setting in use; a depth
/// target the meter cannot read is a typed error too.
#[test]
fn bad_settings_are_refused_and_keep_the_setting_in_use() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let good = AutoExposure {
        compensation_ev: 1.0,
        ..AutoExposure::default()
    };
    renderer.set_auto_exposure(Some(&good)).unwrap();
    let nan = AutoExposure {
        adaptation: f32::NAN,
        ..good
    };
    let refused = renderer.set_auto_exposure(Some(&nan));
    assert!(
        matches!(
            refused,
            Err(Error::Exposure(ExposureError::NonFinite {
                field: "adaptation",
                ..
            }))
        ),
        "{refused:?}"
    );
    let reversed = AutoExposure {
        min_ev: 3.0,
        max_ev: -3.0,
        ..good
    };
    let refused = renderer.set_auto_exposure(Some(&reversed));
    assert!(
        matches!(refused, Err(Error::Exposure(ExposureError::Range { .. }))),
        "{refused:?}"
    );
    let beyond = AutoExposure {
        max_ev: 127.0,
        ..good
    };
    let refused = renderer.set_auto_exposure(Some(&beyond));
    assert!(
        matches!(refused, Err(Error::Exposure(ExposureError::Range { .. }))),
        "{refused:?}"
    );
    assert_eq!(renderer.auto_exposure(), Some(&good));

    // The meter reads the depth target: one it cannot sample is refused
    // (occlusion culling off), and renders with automatic exposure off.
    renderer.set_occlusion(false);
    let target = Target::new(&gpu, 16, 16);
    let depth = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: target.color_texture().size(),
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: unbound::DEPTH_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let depth = unbound::TargetView::new(&depth);
    let frame = unbound::FrameTarget::new(target.color_view(), &depth);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let refused = renderer.render(&mut encoder, &frame);
    assert!(
        matches!(
            refused,
            Err(Error::Render(
                unbound::RenderError::DepthNotSampleable { .. }
            ))
        ),
        "{refused:?}"
    );
    renderer.set_auto_exposure(None).unwrap();
    assert_eq!(renderer.auto_exposure(), None);
    renderer.render(&mut encoder, &frame).unwrap();
    gpu.queue.submit([encoder.finish()]);
    gpu.finish();
}
