//! GPU culling against a CPU reference: the exact visible set, the
//! indirect draws it produces, and statistics that do not depend on the
//! object count.

mod common;

use common::straddling::*;
use common::*;
use glam::{Mat4, Vec3, Vec4};
use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
use unbound::gpu_types::GpuCullHeader;
use unbound::passes::cull::DRAW_ARGS_SIZE;
use unbound::shapes;
use unbound::{Camera, ObjectDesc, ObjectHandle, Renderer, RendererConfig};
use unbound_scenes::Rng;

struct CullResult {
    visible: Vec<u32>,
    draws: Vec<wgpu::util::DrawIndexedIndirectArgs>,
    draw_count: u32,
}

fn run_cull(gpu: &Gpu, renderer: &mut Renderer, target: &Target) -> CullResult {
    target.render(gpu, renderer);
    let header: GpuCullHeader = bytemuck::pod_read_unaligned(&gpu.read_buffer(
        renderer.cull_counters_buffer(),
        0,
        size_of::<GpuCullHeader>() as u64,
    ));
    let (draw_count, visible_count) = (header.draw_count, header.visible_instances);
    let visible = gpu.read_u32s(
        renderer.visible_instances_buffer(),
        0,
        u64::from(visible_count),
    );
    // wgpu's DrawIndexedIndirectArgs, five u32 in this order.
    let words_per_draw = DRAW_ARGS_SIZE / size_of::<u32>() as u64;
    let raw = gpu.read_u32s(
        renderer.indirect_draws_buffer(),
        0,
        words_per_draw * u64::from(draw_count),
    );
    let draws = raw
        .chunks_exact(words_per_draw as usize)
        .map(|d| wgpu::util::DrawIndexedIndirectArgs {
            index_count: d[0],
            instance_count: d[1],
            first_index: d[2],
            base_vertex: d[3] as i32,
            first_instance: d[4],
        })
        .collect();
    CullResult {
        visible,
        draws,
        draw_count,
    }
}

/// (expected visible slots, slots too close to a plane to call).
fn cpu_reference(renderer: &Renderer, objects: &[ObjectHandle]) -> (Vec<u32>, Vec<u32>) {
    let planes = frustum_planes(&renderer.camera().clip_from_world());
    let (mut visible, mut ambiguous) = (Vec::new(), Vec::new());
    for &object in objects {
        let slot = renderer.objects().resolve(object).unwrap();
        let sphere = Vec4::from_array(renderer.objects().world_sphere_of_slot(slot).unwrap());
        if sphere_plane_margin(&planes, sphere) < PLANE_EPSILON * sphere.w.max(1.0) {
            ambiguous.push(slot);
        } else if sphere_in_frustum(&planes, sphere) {
            visible.push(slot);
        }
    }
    (visible, ambiguous)
}

fn assert_matches_reference(renderer: &Renderer, objects: &[ObjectHandle], result: &CullResult) {
    let (expected, ambiguous) = cpu_reference(renderer, objects);
    assert_visible_set(&result.visible, &expected, &ambiguous);

    // Draws: one per mesh with visible instances, in mesh order, covering the
    // visible list exactly, each matching its mesh's index range.
    let total: u32 = result.draws.iter().map(|d| d.instance_count).sum();
    assert_eq!(total as usize, result.visible.len());
    let mut next = 0;
    for draw in &result.draws {
        assert_eq!(draw.first_instance, next, "draws are contiguous");
        assert!(draw.instance_count > 0);
        assert_eq!(draw.base_vertex, 0);
        let instances = &result.visible[next as usize..(next + draw.instance_count) as usize];
        for &slot in instances {
            let mesh = renderer.objects().mesh_of_slot(slot).unwrap();
            assert_eq!(
                renderer.arena().index_count(mesh),
                draw.index_count,
                "instance in the wrong mesh's draw"
            );
        }
        // Within a draw, instances run front to back by depth bucket: the
        // distance from the near plane only drops within one bucket, and the
        // deepest of the 16 square-root-spaced buckets spans 1 - (15/16)^2 <
        // 1/8 of the depth range.
        let near = frustum_planes(&renderer.camera().clip_from_world())[4];
        let distances: Vec<f32> = instances
            .iter()
            .map(|&slot| {
                let sphere =
                    Vec4::from_array(renderer.objects().world_sphere_of_slot(slot).unwrap());
                near.truncate().dot(sphere.truncate()) + near.w
            })
            .collect();
        let depth_range = renderer.camera().z_far - renderer.camera().z_near;
        // Centres outside the near/far slab fall into the first/last bucket.
        let distances: Vec<f32> = distances
            .iter()
            .map(|d| d.clamp(0.0, depth_range))
            .collect();
        for pair in distances.windows(2) {
            assert!(
                pair[1] >= pair[0] - depth_range / 8.0,
                "draw not ordered front to back: {pair:?}"
            );
        }
        next += draw.instance_count;
    }
    assert_eq!(result.draws.len() as u32, result.draw_count);
}

#[test]
fn gpu_visible_set_equals_cpu_reference_for_random_scenes() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    for seed in 0..4 {
        // Odd seeds with the cull pass's subgroup variant (lavapipe has
        // `Features::SUBGROUP`).
        let mut renderer = subgroups_renderer(&gpu, caps, seed % 2 == 1);
        // The frustum cull alone: with occlusion culling the camera's
        // region holds only the early phase's list (`tests/occlusion.rs`),
        // and small-object culling drops more (`tests/small_objects.rs`).
        renderer.set_occlusion(false);
        renderer.set_small_object_culling(false);
        let mut objects = straddling_scene(&mut renderer, seed, 3000);
        let target = straddling_target(&gpu, &renderer);
        let result = run_cull(&gpu, &mut renderer, &target);
        assert!(
            !result.visible.is_empty() && result.visible.len() < objects.len(),
            "scene should be partly visible"
        );
        assert_matches_reference(&renderer, &objects, &result);

        // Remove a third, move a third: the next frame follows.
        let mut rng = Rng::new(seed + 100);
        for (i, object) in objects.clone().iter().enumerate() {
            match i % 3 {
                0 => renderer.remove_object(*object).unwrap(),
                1 => renderer
                    .set_transform(
                        *object,
                        Mat4::from_translation(Vec3::new(
                            rng.range(-20.0, 20.0),
                            rng.range(-20.0, 20.0),
                            rng.range(-10.0, 10.0),
                        )),
                    )
                    .unwrap(),
                _ => {}
            }
        }
        objects = objects
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 3 != 0)
            .map(|(_, o)| o)
            .collect();
        let result = run_cull(&gpu, &mut renderer, &target);
        assert_matches_reference(&renderer, &objects, &result);
    }
    gpu.finish();
}

/// Past `CULL_MAX_WORKGROUPS` × 256 object slots each cull thread takes
/// several instances (three here): the visible set and the draws still
/// equal the CPU reference with the cull pass's subgroup variant (lavapipe
/// has `Features::SUBGROUP`), with it switched off, and on a device with
/// `SUBGROUP` withheld (the renderer asks for the variant and falls back);
/// the three visible sets are equal.
#[test]
fn gpu_visible_set_equals_cpu_reference_when_threads_cull_several_instances() {
    let mut caps = Gpu::default_capacities();
    caps.objects = 700_000;
    let gpu = Gpu::new(&caps);
    let withheld = gpu.withholding(wgpu::Features::SUBGROUP);
    let mut visible_sets = Vec::new();
    for (gpu, asked, runs) in [
        (&gpu, true, true),
        (&gpu, false, false),
        (&withheld, true, false),
    ] {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities: caps,
            subgroups: asked,
            occlusion: false,
            small_object_culling: false,
            ..Default::default()
        });
        assert_eq!(renderer.cull_uses_subgroups(), runs);
        let objects = straddling_scene(&mut renderer, 7, 600_000);
        let target = straddling_target(gpu, &renderer);
        let result = run_cull(gpu, &mut renderer, &target);
        assert!(!result.visible.is_empty() && result.visible.len() < objects.len());
        assert_matches_reference(&renderer, &objects, &result);
        let mut visible = result.visible.clone();
        visible.sort_unstable();
        visible_sets.push(visible);
        gpu.finish();
    }
    assert_eq!(visible_sets[0], visible_sets[1]);
    assert_eq!(visible_sets[0], visible_sets[2]);
}

/// Static scenes of 1k and 100k instances record the same commands and bind
/// groups per frame and upload nothing after the first frame; the visible
/// count coming back through the statistics equals the CPU reference.
#[test]
fn frame_cost_does_not_depend_on_instance_count() {
    let mut caps = Gpu::default_capacities();
    caps.objects = 1 << 17;
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, 64, 64);
    let mut per_size = Vec::new();
    for instances in [1_000u32, 100_000] {
        let mut renderer = gpu.renderer(&caps);
        let mut rng = Rng::new(u64::from(instances));
        let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
        let material = renderer.add_material(&Default::default()).unwrap();
        let half = (instances as f32).cbrt() * 2.0;
        let objects: Vec<_> = (0..instances)
            .map(|_| {
                let p = Vec3::new(
                    rng.range(-half, half),
                    rng.range(-half, half),
                    rng.range(-half, half),
                );
                renderer
                    .add_object(&ObjectDesc {
                        mesh: cube,
                        material,
                        world_from_object: Mat4::from_translation(p),
                    })
                    .unwrap()
            })
            .collect();
        renderer
            .set_camera(&Camera {
                position: Vec3::new(half * 1.5, half * 0.5, half * 1.5),
                target: Vec3::ZERO,
                z_far: half * 10.0,
                ..Default::default()
            })
            .unwrap();
        let (_, first) = target.render(&gpu, &mut renderer);
        assert!(first.bytes_uploaded > u64::from(instances) * 80);
        let (_, second) = target.render(&gpu, &mut renderer);
        let (_, third) = target.render(&gpu, &mut renderer);
        assert_eq!(second.bytes_uploaded, 0, "static scene uploads nothing");
        assert_eq!(third.bytes_uploaded, 0);
        assert_eq!(second.bind_group_rebuilds, 0);
        assert_eq!(
            (second.commands_recorded, second.bind_groups_set),
            (third.commands_recorded, third.bind_groups_set)
        );
        let gpu_stats = third
            .gpu
            .expect("earlier frames finished (the test waited for them)");
        let (expected, ambiguous) = cpu_reference(&renderer, &objects);
        // Instances within epsilon of a plane may go either way.
        assert!(ambiguous.len() < 20, "{} ambiguous", ambiguous.len());
        let visible = gpu_stats.visible_instances as usize;
        assert!(
            (expected.len()..=expected.len() + ambiguous.len()).contains(&visible),
            "GPU {visible}, CPU {} (+{} ambiguous)",
            expected.len(),
            ambiguous.len()
        );
        // Drawn: visible but the ones covering no pixel centre.
        let drawn = visible as u64 - u64::from(gpu_stats.small_instances);
        assert_eq!(gpu_stats.triangles, 12 * drawn);
        assert_eq!(gpu_stats.draws, 1);
        // The span from the first timed pass to the last holds each of them.
        if gpu
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            let times = (gpu_stats.span_ms, gpu_stats.cull_ms, gpu_stats.draw_ms);
            let (Some(span), Some(cull), Some(draw)) = times else {
                panic!("timestamps on this adapter, so times and a span: {times:?}");
            };
            assert!(
                span >= cull.max(draw),
                "span {span} ms, cull {cull}, draw {draw}"
            );
            assert!(gpu_stats.lead_ms.is_some(), "the frame's start was timed");
        }
        // Changing K objects uploads K entries, whatever the total.
        for object in &objects[..10] {
            renderer
                .set_transform(*object, Mat4::from_translation(Vec3::ONE))
                .unwrap();
        }
        let (_, changed) = target.render(&gpu, &mut renderer);
        assert_eq!(
            changed.bytes_uploaded,
            10 * unbound::scene::BYTES_PER_INSTANCE
        );
        per_size.push((second.commands_recorded, second.bind_groups_set));
    }
    assert_eq!(
        per_size[0], per_size[1],
        "1k and 100k instances record the same commands"
    );
    gpu.finish();
}
