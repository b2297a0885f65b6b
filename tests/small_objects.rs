//! Small-object culling: the image is the one drawn without it, pixel for
//! pixel (with occlusion culling on and off, tiers A and C), and what the
//! camera drops (and counts) is exactly what the CPU twin
//! (`unbound::small_objects`) finds, more than nothing. Tier C on GL: `tests/occlusion_gl.rs`.

mod common;

use common::small_scene::*;
use common::*;
use unbound::Tier;
use unbound::output::Msaa;

#[test]
fn the_image_is_the_same_with_small_object_culling_on_and_off() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    compare_images(&gpu, None);
    compare_images(&gpu, Some(Tier::C));
}

#[test]
fn the_camera_drops_exactly_what_the_cpu_test_finds() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    let mut expected_visible = None;
    for occlusion in [true, false] {
        let mut renderer = renderer_for(&gpu, None, occlusion, true);
        let scene = tiny_scene(&mut renderer);
        let (verdicts, borderline) = cpu_verdicts(&scene);
        assert_eq!(borderline, 0, "objects too near a decision boundary");
        let culled = verdicts
            .iter()
            .filter(|(inside, no_sample)| *inside && *no_sample)
            .count();
        assert!(culled > 100, "only {culled} objects cover no sample");
        let visible = verdicts
            .iter()
            .filter(|(inside, no_sample)| *inside && !no_sample)
            .count();
        expected_visible = Some(visible as u32);
        let mut stats = None;
        for _ in 0..3 {
            target.render(&gpu, &mut renderer);
            stats = renderer.latest_gpu_stats();
        }
        let stats = stats.expect("stats arrive");
        assert_eq!(stats.frame_index, 2, "the last frame's statistics");
        // Nothing hides anything here: drawn is in the frustum and
        // covering a sample; visible, in the frustum.
        let drawn = stats.early_instances + stats.late_instances;
        assert_eq!(drawn, visible as u32, "occlusion {occlusion}");
        assert_eq!(stats.visible_instances, (visible + culled) as u32);
        assert_eq!(
            stats.small_instances, culled as u32,
            "occlusion {occlusion}"
        );
        if occlusion {
            assert_eq!(stats.occluded_instances, 0);
            // Each object's bit: in the frustum and covering a sample.
            let words = scene.objects.len().div_ceil(32) as u64;
            let bits = gpu.read_u32s(renderer.visibility_buffer(), 0, words);
            for ((object, sphere, _), (inside, no_sample)) in scene.objects.iter().zip(&verdicts) {
                let slot = object.slot();
                let bit = (bits[slot as usize / 32] >> (slot % 32)) & 1 == 1;
                assert_eq!(bit, *inside && !no_sample, "slot {slot}, sphere {sphere}");
            }
        }
    }
    // Off, every object in the frustum is drawn.
    let mut renderer = renderer_for(&gpu, None, false, false);
    let scene = tiny_scene(&mut renderer);
    let (verdicts, _) = cpu_verdicts(&scene);
    let inside = verdicts.iter().filter(|(inside, _)| *inside).count() as u32;
    let mut stats = None;
    for _ in 0..3 {
        target.render(&gpu, &mut renderer);
        stats = renderer.latest_gpu_stats();
    }
    let stats = stats.expect("stats arrive");
    assert_eq!(stats.visible_instances, inside);
    assert_eq!((stats.early_instances, stats.small_instances), (inside, 0));
    assert!(inside > expected_visible.unwrap());
    // At 4x MSAA the test is off (the samples sit where the implementation
    // puts them): every object in the frustum is drawn.
    let mut renderer = gpu.renderer_with(unbound::RendererConfig {
        capacities: Gpu::default_capacities(),
        msaa: Msaa::X4,
        occlusion: false,
        ..Default::default()
    });
    assert!(renderer.small_object_culling(), "on by default");
    renderer.set_camera(&camera()).unwrap();
    tiny_scene(&mut renderer);
    let target = Target::with_msaa(&gpu, WIDTH, HEIGHT, Target::FORMAT, Msaa::X4);
    let mut stats = None;
    for _ in 0..3 {
        target.render(&gpu, &mut renderer);
        stats = renderer.latest_gpu_stats();
    }
    let stats = stats.expect("stats arrive");
    assert_eq!(stats.early_instances, inside);
    assert_eq!(
        (stats.visible_instances, stats.small_instances),
        (inside, 0)
    );
    gpu.finish();
}
