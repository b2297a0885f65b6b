//! The depth pre-pass (`src/passes/prepass.rs`): images with it equal the
//! images without it, pixel for pixel, on a scene with overdraw (a wall
//! in front of a grid of cubes and spheres, two alpha-masked screens with
//! holes in front of the wall, blended quads) lit by point lights, along a
//! camera path with occlusion culling on (both phases pre-passed) and off,
//! on tiers A and B, with 4× MSAA, and in the object-id view (tier C:
//! `tests/tiers.rs`). The scene and the comparison: `tests/common/prepass_scene.rs`.
//!
//! Tolerance: none. The pre-pass writes the depth the draw pass would have
//! written (the same draws through the same `@invariant` vertex stage), so
//! the draw pass shades exactly the fragments that won without it, with
//! the same inputs. Only exactly coplanar surfaces could differ (the last
//! drawn wins instead of the first); the scene has none.

mod common;

use common::occlusion_scene::{HEIGHT, WIDTH, sliding_camera};
use common::prepass_scene::{compare_path, renderer_for};
use common::*;
use unbound::Tier;
use unbound::output::Msaa;

#[test]
fn the_image_is_the_same_with_and_without_the_depth_prepass() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    compare_path(&gpu, (None, Msaa::X1), true);
    compare_path(&gpu, (None, Msaa::X1), false);
}

#[test]
fn the_prepass_image_is_the_same_on_tier_b_and_with_msaa() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    compare_path(&gpu, (Some(Tier::B), Msaa::X1), true);
    compare_path(&gpu, (None, Msaa::X4), true);
}

/// The pre-pass's GPU time comes back while it runs (where the adapter has
/// timestamp queries), and the switch turns it off again.
#[test]
fn the_prepass_is_timed_and_switches_at_run_time() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer_for(&gpu, (None, Msaa::X1), false);
    renderer.set_camera(&sliding_camera(2, 5)).unwrap();
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    let (before, _) = target.render(&gpu, &mut renderer);
    renderer.set_depth_prepass(true);
    let (with, _) = target.render(&gpu, &mut renderer);
    target.render(&gpu, &mut renderer);
    let stats = renderer.latest_gpu_stats().expect("statistics");
    let timed = gpu
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    assert_eq!(stats.prepass_ms.is_some(), timed, "{stats:?}");
    renderer.set_depth_prepass(false);
    let (after, _) = target.render(&gpu, &mut renderer);
    target.render(&gpu, &mut renderer);
    let stats = renderer.latest_gpu_stats().expect("statistics");
    assert_eq!(stats.prepass_ms, None, "{stats:?}");
    assert_eq!(mismatched_pixels(&before, &with, 0), 0);
    assert_eq!(mismatched_pixels(&before, &after, 0), 0);
    gpu.finish();
}
