//! Every shadow view's cull outputs against a CPU reference: each
//! cascade's and each shadowed spot light's visible set and draws, culled
//! in one dispatch with the camera's.

mod common;

use common::straddling::*;
use common::*;
use glam::{Vec3, Vec4};
use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
use unbound::gpu_types::GpuCullHeader;
use unbound::passes::cull::DRAW_ARGS_SIZE;
use unbound::{ObjectHandle, Renderer};

/// Opaque, double-sided and blended materials, for objects to take in turn.
fn three_materials(renderer: &mut Renderer) -> [unbound::MaterialHandle; 3] {
    let double_sided = unbound::Material {
        double_sided: true,
        ..Default::default()
    };
    let blended = unbound::Material {
        alpha_mode: unbound::AlphaMode::Blend,
        ..Default::default()
    };
    [Default::default(), double_sided, blended].map(|m| renderer.add_material(&m).unwrap())
}

/// One view's cull outputs read back: its visible list and, per pipeline
/// bucket, its draws (the regions [`Renderer::cull_region`] names).
struct ViewResult {
    header: GpuCullHeader,
    visible: Vec<u32>,
    bucket_draws: Vec<Vec<wgpu::util::DrawIndexedIndirectArgs>>,
}

fn read_view(gpu: &Gpu, renderer: &Renderer, view: u32) -> ViewResult {
    let region = renderer.cull_region(view).expect("view culled");
    let header: GpuCullHeader = bytemuck::pod_read_unaligned(&gpu.read_buffer(
        renderer.cull_counters_buffer(),
        region.counters_offset,
        size_of::<GpuCullHeader>() as u64,
    ));
    let visible = gpu.read_u32s(
        renderer.visible_instances_buffer(),
        region.visible_instances_offset,
        u64::from(header.visible_instances),
    );
    let words_per_draw = DRAW_ARGS_SIZE / size_of::<u32>() as u64;
    let bucket_draws = (0..unbound::gpu_types::BUCKETS)
        .map(|bucket| {
            let offset = region.draws_offset
                + u64::from(bucket) * u64::from(region.draws_per_bucket) * DRAW_ARGS_SIZE;
            let count = u64::from(header.bucket_draws[bucket as usize]);
            gpu.read_u32s(
                renderer.indirect_draws_buffer(),
                offset,
                words_per_draw * count,
            )
            .chunks_exact(words_per_draw as usize)
            .map(|d| wgpu::util::DrawIndexedIndirectArgs {
                index_count: d[0],
                instance_count: d[1],
                first_index: d[2],
                base_vertex: d[3] as i32,
                first_instance: d[4],
            })
            .collect()
        })
        .collect();
    ViewResult {
        header,
        visible,
        bucket_draws,
    }
}

/// Checks one view's outputs: its visible set equals `expected` exactly
/// (slots in `ambiguous` may go either way), no instance is written twice,
/// and its draws, per pipeline bucket, cover the visible list exactly, each
/// over one mesh's index range with its instances of that mesh.
fn assert_view_matches(
    renderer: &Renderer,
    result: &ViewResult,
    expected: &[u32],
    ambiguous: &[u32],
) {
    assert_visible_set(&result.visible, expected, ambiguous);
    let mut covered = vec![false; result.visible.len()];
    for (bucket, draws) in result.bucket_draws.iter().enumerate() {
        for draw in draws {
            assert!(draw.instance_count > 0);
            let range =
                draw.first_instance as usize..(draw.first_instance + draw.instance_count) as usize;
            for i in range {
                assert!(!covered[i], "bucket {bucket}: instance {i} drawn twice");
                covered[i] = true;
                let slot = result.visible[i];
                let mesh = renderer.objects().mesh_of_slot(slot).unwrap();
                assert_eq!(renderer.arena().index_count(mesh), draw.index_count);
            }
        }
    }
    assert!(covered.iter().all(|&c| c), "draws cover the visible list");
    let draws: usize = result.bucket_draws.iter().map(Vec::len).sum();
    assert_eq!(draws as u32, result.header.draw_count);
}

/// Every shadow cascade's visible set equals the CPU reference exactly
/// (blended objects cast no shadows; a caster between the cascade and the
/// sun is kept), and its draws cover its visible list, per pipeline bucket
/// and mesh; the camera's set, culled in the same dispatch, still equals
/// its own reference.
#[test]
fn every_cascade_visible_set_equals_cpu_reference() {
    use unbound::shadows::caster_in_cascade;
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    for seed in 0..2 {
        // The second seed with the cull pass's subgroup variant.
        let mut renderer = subgroups_renderer(&gpu, caps, seed == 1);
        // The frustum cull alone: with occlusion culling the camera's
        // region holds only the early phase's list (`tests/occlusion.rs`),
        // and small-object culling drops more (`tests/small_objects.rs`).
        renderer.set_occlusion(false);
        renderer.set_small_object_culling(false);
        // Opaque, double-sided and blended, in turn.
        let materials = three_materials(&mut renderer);
        let objects = straddling_scene_with(&mut renderer, seed + 10, 3000, &materials);
        let target = straddling_target(&gpu, &renderer);
        renderer
            .set_lighting(&unbound::Lighting {
                direction_to_light: Vec3::new(0.3, 0.9, -0.4),
                ..Default::default()
            })
            .unwrap();
        renderer
            .set_shadows(&unbound::ShadowSettings {
                enabled: true,
                max_distance: 30.0,
                resolution: 256,
                ..Default::default()
            })
            .unwrap();
        target.render(&gpu, &mut renderer);
        let cascades = renderer.shadow_cascades().to_vec();
        assert_eq!(cascades.len(), 4);
        assert!(
            renderer.cull_region(5).is_none(),
            "the camera and 4 cascades"
        );

        // The camera: everything in its frustum, blended included.
        let planes = frustum_planes(&renderer.camera().clip_from_world());
        let sphere_of = |object: &ObjectHandle| {
            let slot = renderer.objects().resolve(*object).unwrap();
            (
                slot,
                Vec4::from_array(renderer.objects().world_sphere_of_slot(slot).unwrap()),
            )
        };
        let reference = |keep: &dyn Fn(usize, Vec4) -> bool, planes: &[Vec4; 6]| {
            let (mut expected, mut ambiguous) = (Vec::new(), Vec::new());
            for (i, object) in objects.iter().enumerate() {
                let (slot, sphere) = sphere_of(object);
                if sphere_plane_margin(planes, sphere) < PLANE_EPSILON * sphere.w.max(1.0) {
                    ambiguous.push(slot);
                } else if keep(i, sphere) {
                    expected.push(slot);
                }
            }
            expected.sort_unstable();
            ambiguous.sort_unstable();
            (expected, ambiguous)
        };
        let (expected, ambiguous) =
            reference(&|_, sphere| sphere_in_frustum(&planes, sphere), &planes);
        let camera = read_view(&gpu, &renderer, 0);
        assert!(!expected.is_empty());
        let mut visible = camera.visible.clone();
        visible.sort_unstable();
        visible.retain(|slot| ambiguous.binary_search(slot).is_err());
        assert_eq!(visible, expected, "camera");

        let mut kept_anywhere = 0;
        for (c, cascade) in cascades.iter().enumerate() {
            let planes = cascade.planes();
            let (expected, ambiguous) = reference(
                &|i, sphere| i % 3 != 2 && caster_in_cascade(&planes, sphere),
                &planes,
            );
            let result = read_view(&gpu, &renderer, 1 + c as u32);
            assert!(
                !expected.is_empty() && expected.len() < objects.len() * 2 / 3,
                "cascade {c}: {} of {} casters kept",
                expected.len(),
                objects.len()
            );
            assert!(result.bucket_draws[unbound::gpu_types::BUCKET_BLEND as usize].is_empty());
            assert_view_matches(&renderer, &result, &expected, &ambiguous);
            // Casters towards the sun beyond the box's near plane are kept.
            let near = planes[unbound::shadows::CASCADE_NEAR_PLANE];
            kept_anywhere += expected
                .iter()
                .filter(|&&slot| {
                    let sphere =
                        Vec4::from_array(renderer.objects().world_sphere_of_slot(slot).unwrap());
                    near.truncate().dot(sphere.truncate()) + near.w < -sphere.w
                })
                .count();
        }
        assert!(
            kept_anywhere > 0,
            "no caster beyond a near plane was tested"
        );
    }
    gpu.finish();
}

/// Every shadowed spot light's visible set equals the CPU reference exactly
/// (casters inside all six planes of its view; blended objects cast no
/// shadows), and its draws cover its visible list; the spots are culled in
/// the same dispatch as the camera and the cascades, in the regions after
/// the cascades'.
#[test]
fn every_spot_visible_set_equals_cpu_reference() {
    use unbound::shadows::spots::caster_in_spot;
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let materials = three_materials(&mut renderer);
    let objects = straddling_scene_with(&mut renderer, 21, 3000, &materials);
    let target = straddling_target(&gpu, &renderer);
    // Spots of different cones and reaches, one without a range; a spot
    // that casts none between them.
    let spots = [
        (
            Vec3::new(0.0, 0.0, 24.0),
            Vec3::NEG_Z,
            0.5,
            Some(30.0),
            true,
        ),
        (Vec3::new(-20.0, 5.0, 0.0), Vec3::X, 0.9, Some(25.0), true),
        (Vec3::new(5.0, 5.0, 5.0), Vec3::Y, 0.7, None, false),
        (
            Vec3::new(10.0, 15.0, -5.0),
            Vec3::new(-1.0, -1.0, 0.5),
            0.3,
            None,
            true,
        ),
    ];
    for (position, direction, outer, range, casts_shadows) in spots {
        let light = unbound::Light {
            casts_shadows,
            ..unbound::Light::spot(position, direction, Vec3::ONE, 50.0, range, (0.0, outer))
        };
        renderer.add_light(&light).unwrap();
    }
    renderer
        .set_shadows(&unbound::ShadowSettings {
            enabled: true,
            cascades: 2,
            max_distance: 30.0,
            resolution: 256,
            ..Default::default()
        })
        .unwrap();
    target.render(&gpu, &mut renderer);
    let shadowed = renderer.spot_shadows().to_vec();
    assert_eq!(shadowed.len(), 3);
    assert!(
        renderer.cull_region(6).is_none(),
        "the camera, 2 cascades, 3 spots"
    );
    let mut total = 0;
    for (i, spot) in shadowed.iter().enumerate() {
        assert_eq!(
            renderer.lights().gpu_entry(spot.slot).unwrap().shadow,
            i as u32
        );
        let planes = spot.planes();
        let (mut expected, mut ambiguous) = (Vec::new(), Vec::new());
        for (k, object) in objects.iter().enumerate() {
            let slot = renderer.objects().resolve(*object).unwrap();
            let sphere = Vec4::from_array(renderer.objects().world_sphere_of_slot(slot).unwrap());
            if sphere_plane_margin(&planes, sphere) < PLANE_EPSILON * sphere.w.max(1.0) {
                ambiguous.push(slot);
            } else if k % 3 != 2 && caster_in_spot(&planes, sphere) {
                expected.push(slot);
            }
        }
        expected.sort_unstable();
        ambiguous.sort_unstable();
        let result = read_view(&gpu, &renderer, 3 + i as u32);
        assert!(
            !expected.is_empty() && expected.len() < objects.len() / 2,
            "spot {i}: {} of {} casters kept",
            expected.len(),
            objects.len()
        );
        assert!(result.bucket_draws[unbound::gpu_types::BUCKET_BLEND as usize].is_empty());
        assert_view_matches(&renderer, &result, &expected, &ambiguous);
        total += expected.len();
    }
    eprintln!("spot casters kept: {total}");
    gpu.finish();
}
