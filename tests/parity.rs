//! The bindless GPU-driven path and the bind-per-draw baseline render the
//! same scene to matching images.

mod common;

use common::*;
use unbound::{FrameStats, GpuFrameStats, Renderer};
use unbound_baseline::{BaselineRenderer, BaselineStats};
use unbound_scenes::bench::{self as bench_scenes, BenchScene, SceneMaterial, SceneTexture};

/// One frame through each path.
struct BothPaths {
    bindless: image::RgbaImage,
    stats: FrameStats,
    gpu_stats: GpuFrameStats,
    classic: image::RgbaImage,
    baseline_stats: BaselineStats,
}

/// Renders `renderer`, then the baseline that `baseline` builds, into
/// `target`; saves the images as `{name}_bindless` and `{name}_baseline`.
fn render_both(
    gpu: &Gpu,
    target: &Target,
    renderer: &mut Renderer,
    baseline: impl FnOnce() -> BaselineRenderer,
    name: &str,
) -> BothPaths {
    let (bindless, stats) = target.render(gpu, renderer);
    let mut baseline = baseline();
    // The baseline refuses what the bindless renderer refuses, and keeps
    // the lighting in use (the image below is unchanged).
    let mut nan = *renderer.lighting();
    nan.ambient_color.y = f32::NAN;
    assert!(
        baseline.set_lighting(&nan).is_err(),
        "NaN lighting accepted"
    );
    let (classic, baseline_stats) =
        target.capture(gpu, |encoder, frame| baseline.render(encoder, frame));
    save_output(&format!("{name}_bindless"), &bindless);
    save_output(&format!("{name}_baseline"), &classic);
    BothPaths {
        bindless,
        stats,
        gpu_stats: renderer.latest_gpu_stats().expect("frame finished"),
        classic,
        baseline_stats,
    }
}

/// Same shading code, same geometry, same textures: only the order of draws
/// differs, which changes pixels only where two objects' fragments have
/// exactly equal depth. Tolerance: channel difference <= 2 on all but 0.1%
/// of pixels.
#[test]
fn bindless_and_bind_per_draw_render_the_same_image() {
    let mut scene = bench_scenes::scattered(BenchScene::DrawBound, 400, 64, 3);
    // A few normal-mapped materials too.
    scene.textures.push(SceneTexture {
        size: 64,
        data: unbound_scenes::bump_normal_map(64, 4),
        srgb: false,
    });
    let normal = scene.textures.len() - 1;
    for i in 0..8 {
        scene.materials[i] = SceneMaterial {
            base_color: i,
            normal: Some(normal),
        };
    }
    scene.width = 256;
    scene.height = 144;
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, scene.width, scene.height);

    let mut renderer = gpu.renderer(&caps);
    scene.load_into(&mut renderer).unwrap();
    let both = render_both(
        &gpu,
        &target,
        &mut renderer,
        || {
            BaselineRenderer::new(
                &gpu.device,
                &gpu.queue,
                &scene,
                wgpu::TextureFormat::Rgba8UnormSrgb,
            )
        },
        "parity",
    );
    assert_eq!(
        both.gpu_stats.visible_instances, both.baseline_stats.visible_instances,
        "same culling on GPU and CPU"
    );
    assert_eq!(both.gpu_stats.triangles, both.baseline_stats.triangles);
    // Cull: 2 (tables, phase); draw: heap, tables, environment; output: 1;
    // occlusion culling: the pyramid's (one a level), the late cull's 2 and
    // the late draw's 3.
    let (width, height) = both.bindless.dimensions();
    let pyramid = unbound::passes::pyramid::pyramid_levels((width, height));
    assert!(both.baseline_stats.draws > 50 && both.stats.bind_groups_set <= 11 + pyramid);
    let mismatched = mismatched_pixels(&both.bindless, &both.classic, 2);
    let allowed = (both.bindless.width() * both.bindless.height()) as usize / 1000;
    assert!(
        mismatched <= allowed,
        "{mismatched} pixels differ (allowed {allowed})"
    );
    assert!(
        drawn_pixels(&both.bindless, both.bindless.get_pixel(0, 0).0) > 5000,
        "scene is visible"
    );
    gpu.finish();
}

/// The many-lights scene through both paths: the bindless path shades each
/// fragment with its cluster's lights, the baseline with every light in
/// slot order. A light outside a cluster adds exactly zero where it does
/// not reach (its range window or cone is 0), so the images match as the
/// unlit scenes do: channel difference <= 2 on all but 0.1% of pixels (the
/// unranged spots, culled where under 10^-4 lux, add less than that). A
/// cluster list missing a light that reaches it would show here.
#[test]
fn the_many_lights_scene_renders_the_same_through_the_baseline() {
    let scene = many_lights_scene();
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, scene.width, scene.height);
    let mut renderer = gpu.renderer(&caps);
    scene.load_into(&mut renderer).unwrap();
    let both = render_both(
        &gpu,
        &target,
        &mut renderer,
        || {
            BaselineRenderer::new(
                &gpu.device,
                &gpu.queue,
                &scene,
                wgpu::TextureFormat::Rgba8UnormSrgb,
            )
        },
        "parity_lights",
    );
    assert_eq!(
        both.gpu_stats.visible_instances,
        both.baseline_stats.visible_instances
    );
    let mismatched = mismatched_pixels(&both.bindless, &both.classic, 2);
    let worst = largest_difference(&both.bindless, &both.classic);
    let allowed = (both.bindless.width() * both.bindless.height()) as usize / 1000;
    eprintln!("many lights parity: {mismatched} pixels differ by > 2, largest difference {worst}");
    assert!(
        mismatched <= allowed,
        "{mismatched} pixels differ by more than 2 (allowed {allowed}); largest difference {worst}"
    );
    gpu.finish();
}

/// Plain multi-draw-indirect over every mesh slot (culled meshes drawn with
/// zero instances) renders the same image as the compacted count variant.
#[test]
fn plain_multi_draw_matches_indirect_count() {
    let scene = bench_scenes::scattered(BenchScene::DrawBound, 300, 32, 5);
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, 128, 72);
    let mut images = Vec::new();
    for indirect in [unbound::IndirectMode::Count, unbound::IndirectMode::Plain] {
        let mut renderer = unbound::Renderer::new(
            &gpu.adapter,
            &gpu.device,
            &gpu.queue,
            unbound::RendererConfig {
                capacities: caps,
                indirect,
                ..Default::default()
            },
        )
        .unwrap();
        scene.load_into(&mut renderer).unwrap();
        let (image, _) = target.render(&gpu, &mut renderer);
        let stats = renderer.latest_gpu_stats().unwrap();
        images.push((image, stats));
    }
    let (count, plain) = (&images[0], &images[1]);
    assert_eq!(
        plain.1.draws,
        2 * scene.meshes.len() as u32,
        "plain mode issues one draw per mesh slot in each occlusion phase"
    );
    assert!(count.1.draws <= plain.1.draws);
    assert_eq!(count.1.visible_instances, plain.1.visible_instances);
    assert_eq!(count.0, plain.0, "identical images");
    gpu.finish();
}

/// FlightHelmet (parsed once) through both renderers: the baseline binds
/// each material's own textures and samplers, draws the double-sided hose
/// without culling and the blended lenses last without depth writes, as the
/// bindless path does. The lenses are the only blended object, so blend order
/// cannot differ. Tolerance: channel difference <= 2 on all but 0.1% of
/// pixels, as for the procedural scenes (measured on lavapipe: identical
/// images, largest difference 0).
#[test]
fn flight_helmet_renders_the_same_through_the_baseline() {
    let path = asset("FlightHelmet/FlightHelmet.gltf");
    let document = unbound::loaders::gltf::parse_gltf(&path).unwrap();
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, 160, 160);
    let (min, max) = document.bounds(glam::Mat4::IDENTITY);
    let camera = camera_framing_box(min, max);
    let lighting = unbound::Lighting::default();

    let mut renderer = gpu.renderer(&caps);
    let scene = document
        .upload(&mut renderer, glam::Mat4::IDENTITY, None)
        .unwrap();
    assert_eq!(scene.objects.len(), 6);
    renderer.set_camera(&camera).unwrap();
    renderer.set_lighting(&lighting).unwrap();
    let both = render_both(
        &gpu,
        &target,
        &mut renderer,
        || {
            BaselineRenderer::from_gltf(
                &gpu.device,
                &gpu.queue,
                &document,
                glam::Mat4::IDENTITY,
                &camera,
                &lighting,
                wgpu::TextureFormat::Rgba8UnormSrgb,
            )
            .unwrap()
        },
        "parity_flight_helmet",
    );
    assert_eq!(both.gpu_stats.visible_instances, 6);
    assert_eq!(both.baseline_stats.visible_instances, 6);
    assert_eq!(both.gpu_stats.triangles, both.baseline_stats.triangles);
    assert_eq!(both.baseline_stats.draws, 6, "one draw per object");
    let mismatched = mismatched_pixels(&both.bindless, &both.classic, 2);
    let worst = largest_difference(&both.bindless, &both.classic);
    let allowed = (both.bindless.width() * both.bindless.height()) as usize / 1000;
    assert!(
        mismatched <= allowed,
        "{mismatched} pixels differ by more than 2 (allowed {allowed}); largest difference {worst}"
    );
    eprintln!("FlightHelmet parity: {mismatched} pixels differ by > 2, largest difference {worst}");
    assert!(
        drawn_pixels(&both.bindless, both.bindless.get_pixel(0, 0).0) > 160 * 160 / 8,
        "the helmet is visible"
    );
    gpu.finish();
}
