//! The bindless GPU-driven path and the bind-per-draw baseline render the
//! same scene to matching images.

mod common;

use common::*;
use unbound::baseline::BaselineRenderer;
use unbound::bench_scenes::{self, BenchScene, SceneMaterial, SceneTexture};

/// Same shading code, same geometry, same textures: only the order of draws
/// differs, which changes pixels only where two objects' fragments have
/// exactly equal depth. Tolerance: channel difference <= 2 on all but 0.1%
/// of pixels.
#[test]
fn bindless_and_bind_per_draw_render_the_same_image() {
    let mut scene = bench_scenes::scattered(BenchScene::DrawBound, 400, 64, 3);
    // A few normal-mapped materials too.
    scene.textures.push(SceneTexture { size: 64, data: unbound::procedural::bump_normal_map(64, 4), srgb: false });
    let normal = scene.textures.len() - 1;
    for i in 0..8 {
        scene.materials[i] = SceneMaterial { base_color: i, normal: Some(normal) };
    }
    scene.width = 256;
    scene.height = 144;
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, scene.width, scene.height);

    let mut renderer = gpu.renderer(&caps);
    scene.load_into(&mut renderer).unwrap();
    let (bindless, stats) = target.render(&gpu, &mut renderer);

    let mut baseline = BaselineRenderer::new(&gpu.device, &gpu.queue, &scene, wgpu::TextureFormat::Rgba8UnormSrgb);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let baseline_stats = baseline.render(&mut encoder, &target.frame());
    let (buffer, padded) = target.copy_out(&gpu, &mut encoder);
    gpu.queue.submit([encoder.finish()]);
    let classic = target.image_from(&gpu, &buffer, padded);

    save_output("parity_bindless", &bindless);
    save_output("parity_baseline", &classic);
    let gpu_stats = renderer.latest_gpu_stats().expect("frame finished");
    assert_eq!(gpu_stats.visible_instances, baseline_stats.visible_instances, "same culling on GPU and CPU");
    assert_eq!(gpu_stats.triangles, baseline_stats.triangles);
    assert!(baseline_stats.draws > 50 && stats.bind_groups_set <= 3);
    let mut mismatched = 0;
    for (a, b) in bindless.pixels().zip(classic.pixels()) {
        if color_distance(*a, b.0) > 2 {
            mismatched += 1;
        }
    }
    let allowed = (bindless.width() * bindless.height()) as usize / 1000;
    assert!(mismatched <= allowed, "{mismatched} pixels differ (allowed {allowed})");
    let background = bindless.get_pixel(0, 0).0;
    assert!(bindless.pixels().filter(|p| p.0 != background).count() > 5000, "scene is visible");
    gpu.finish();
}
