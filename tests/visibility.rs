//! The visibility buffer (`src/passes/visibility.rs`): the image is the
//! forward image, on the built-in demo scene (textured, normal-mapped),
//! FlightHelmet (glTF, alpha-masked and double-sided parts), the shadowed
//! scene (cascaded shadows, an alpha-masked quad) and the pre-pass tests'
//! overdraw scene (40 point lights, masked screens, blended quads drawn
//! forward and sorted on top), the Fox skinned and a sphere morphed at a
//! posed time (the visibility pass and the material pass pull the same
//! deformed vertices as the forward draw); occlusion culling on and off
//! give the same image and the same ids; tiers B and 4× MSAA keep forward.
//!
//! Tolerance: lit colour within 2/255 on at least 99% of pixels. The
//! material pass rebuilds each pixel's surface from its triangle and the
//! pixel's ray, so interpolated values differ from the rasterizer's by
//! float rounding, and its UV derivatives are differences of analytic
//! barycentrics where the raster's are differences of interpolated values
//! (texture LOD rounding); the rest is pixels on triangle edges. Object ids are compared exactly away from object edges
//! (the 3×3 neighbourhood of the forward object-id view holds one id).

mod common;

use common::occlusion_scene::{HEIGHT, WIDTH, sliding_camera};
use common::*;
use glam::{Mat4, Vec3};
use unbound::animation::{Playback, Playing, morph_reach};
use unbound::debug::decode_id;
use unbound::gpu_types::BUCKET_BLEND;
use unbound::loaders::gltf::parse_gltf;
use unbound::output::Msaa;
use unbound::{
    Camera, DebugOptions, DebugView, Geometry, ID_TARGET_FORMAT, ObjectDesc, Renderer,
    RendererConfig, Tier, shapes,
};

/// Renders `renderer`'s scene forward and through the visibility buffer
/// at `size`, and asserts the lit images agree (within 2/255 on 99% of
/// pixels) and the object ids equal the forward object-id view's away
/// from object edges (where no blended surface lies on top).
fn compare_geometry(gpu: &Gpu, renderer: &mut Renderer, name: &str, size: (u32, u32)) {
    let lit = Target::new(gpu, size.0, size.1);
    let id_target = Target::with_format(gpu, size.0, size.1, ID_TARGET_FORMAT);
    renderer.set_geometry(Geometry::Forward);
    assert_eq!(renderer.geometry(), Geometry::Forward);
    let (forward, _) = lit.render(gpu, renderer);
    let object_view = DebugOptions {
        view: DebugView::ObjectIndex,
        ..Default::default()
    };
    renderer.set_debug(&object_view).unwrap();
    let (objects, _) = id_target.render(gpu, renderer);
    renderer
        .set_debug(&DebugOptions {
            view: DebugView::MaterialIndex,
            ..Default::default()
        })
        .unwrap();
    let (materials, _) = id_target.render(gpu, renderer);
    renderer.set_debug(&DebugOptions::default()).unwrap();
    renderer.set_geometry(Geometry::Visibility);
    assert_eq!(renderer.geometry(), Geometry::Visibility, "{name}");
    // The draw view draws forward; the others through the material pass
    // (`tests/visibility_debug.rs`).
    renderer.set_debug(&object_view).unwrap();
    assert_eq!(renderer.geometry(), Geometry::Visibility);
    renderer
        .set_debug(&DebugOptions {
            view: DebugView::DrawIndex,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(renderer.geometry(), Geometry::Forward);
    renderer.set_debug(&DebugOptions::default()).unwrap();
    let (visibility, _) = lit.render(gpu, renderer);
    let ids = read_visibility_ids(gpu, renderer);

    let pixels = (size.0 * size.1) as usize;
    let differ = mismatched_pixels(&forward, &visibility, 2);
    if differ * 100 > pixels {
        save_output(&format!("visibility-{name}-forward"), &forward);
        save_output(&format!("visibility-{name}-visibility"), &visibility);
    }
    assert!(
        differ * 100 <= pixels,
        "{name}: {differ} of {pixels} pixels differ by more than 2/255 (largest {})",
        largest_difference(&forward, &visibility)
    );
    eprintln!("{name}: {differ} of {pixels} pixels differ by more than 2/255");
    let drawn = ids.iter().filter(|id| id[0] != 0).count();
    assert!(drawn * 10 > pixels, "{name}: {drawn} pixels drawn");
    // Object ids away from object edges, where the surface on top is not
    // blended (blended objects are drawn forward over the ids).
    let forward_id = |x: u32, y: u32| decode_id(objects.get_pixel(x, y).0);
    let blended = |x: u32, y: u32| {
        decode_id(materials.get_pixel(x, y).0)
            .is_some_and(|m| renderer.materials().bucket_of(m) == BUCKET_BLEND)
    };
    let mut interior = 0;
    for y in 1..size.1 - 1 {
        for x in 1..size.0 - 1 {
            let id = forward_id(x, y);
            let edge = (0..9).any(|n| forward_id(x + n % 3 - 1, y + n / 3 - 1) != id);
            if edge || blended(x, y) {
                continue;
            }
            let visible = ids[(y * size.0 + x) as usize][0].checked_sub(1);
            assert_eq!(visible, id, "{name}: object id at ({x}, {y})");
            interior += 1;
        }
    }
    assert!(interior * 3 > pixels, "{name}: {interior} interior pixels");
    eprintln!("{name}: object ids equal at {interior} interior pixels");
}

#[test]
fn the_demo_scene_looks_the_same_through_the_visibility_buffer() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let size = small_demo_scene(&mut renderer, Default::default());
    compare_geometry(&gpu, &mut renderer, "demo", size);
    gpu.finish();
}

#[test]
fn flight_helmet_looks_the_same_through_the_visibility_buffer() {
    let (gpu, mut renderer) = Gpu::with_flight_helmet();
    for (i, distance) in [(0, 0.9), (3, 0.45)] {
        let angle = i as f32 * 1.1;
        renderer
            .set_camera(&Camera {
                position: Vec3::new(angle.sin() * distance, 0.35, angle.cos() * distance),
                target: Vec3::new(0.0, 0.3, 0.0),
                aspect: 1.0,
                z_near: 0.01,
                ..Default::default()
            })
            .unwrap();
        compare_geometry(&gpu, &mut renderer, &format!("helmet-{i}"), (128, 128));
    }
    gpu.finish();
}

#[test]
fn the_shadowed_scene_looks_the_same_through_the_visibility_buffer() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = shadow_scene::renderer(&gpu, None, true, true);
    let size = shadow_scene::SIZE;
    compare_geometry(&gpu, &mut renderer, "shadows", (size, size));
    gpu.finish();
}

/// The Fox (glTF, skinned by the playback pass's palettes) posed in its
/// "Run" clip, at two times, in the sun with shadows: the raster and
/// material passes skin what they pull as the forward draw does. The pose
/// differs from the bind pose (so the deformation is what is compared).
#[test]
fn the_skinned_fox_looks_the_same_through_the_visibility_buffer() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let document = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    // Framed closer than camera_framing_box frames it: the Fox covers
    // about a third of the image.
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let mut camera = camera_framing_box(min, max);
    let center = (min + max) * 0.5;
    camera.position = center + (camera.position - center) * 0.5;
    renderer.set_camera(&camera).unwrap();
    renderer
        .set_shadows(&unbound::ShadowSettings {
            enabled: true,
            max_distance: 2000.0,
            ..Default::default()
        })
        .unwrap();
    let mut scene = document
        .upload(&mut renderer, Mat4::IDENTITY, None)
        .unwrap();
    let size = 128;
    let (rest, _) = Target::new(&gpu, size, size).render(&gpu, &mut renderer);
    let mut player = scene.animation.take().expect("the Fox animates");
    player.play(Playback::looping(
        document.animation.clip_named("Run").unwrap(),
    ));
    for time in [0.3f32, 0.55] {
        player.pose_at(&mut renderer, time).unwrap();
        renderer.set_geometry(Geometry::Forward);
        let (posed, _) = Target::new(&gpu, size, size).render(&gpu, &mut renderer);
        let moved = mismatched_pixels(&rest, &posed, 8);
        assert!(
            moved > 200,
            "t = {time}: {moved} pixels moved from the bind pose"
        );
        compare_geometry(&gpu, &mut renderer, &format!("fox-{time}"), (size, size));
    }
    gpu.finish();
}

/// A sphere morphed by two targets (weights played by the animation pass,
/// `wgsl/morph.wgsl`) on a ground in the sun with shadows, at two times
/// of a LINEAR weight clip: the visibility buffer's passes morph what they
/// pull as the forward draw does.
#[test]
fn a_morphed_sphere_looks_the_same_through_the_visibility_buffer() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let sphere = morph_sphere::Sphere::new();
    let targets = sphere.targets();
    renderer
        .set_camera(&Camera {
            position: Vec3::new(0.5, 3.5, 5.0),
            target: Vec3::new(0.4, 0.6, 0.3),
            fov_y_radians: 50f32.to_radians(),
            aspect: 1.0,
            z_near: 0.5,
            z_far: 40.0,
            ..Camera::default()
        })
        .unwrap();
    renderer
        .set_shadows(&unbound::ShadowSettings {
            enabled: true,
            resolution: 512,
            max_distance: 16.0,
            ..Default::default()
        })
        .unwrap();
    let dielectric = |color: [f32; 4]| unbound::Material {
        base_color_factor: color.into(),
        metallic_factor: 0.0,
        roughness_factor: 0.6,
        ..Default::default()
    };
    let ground = renderer
        .add_material(&dielectric([0.8, 0.8, 0.75, 1.0]))
        .unwrap();
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh: quad,
            material: ground,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::new(10.0, 10.0, 1.0),
                glam::Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
                Vec3::ZERO,
            ),
        })
        .unwrap();
    let mesh = renderer
        .add_mesh(&sphere.data(&sphere.positions, &sphere.normals, &sphere.tangents))
        .unwrap();
    let blue = renderer
        .add_material(&dielectric([0.2, 0.5, 0.8, 1.0]))
        .unwrap();
    let object = renderer
        .add_object(&ObjectDesc {
            mesh,
            material: blue,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::splat(1.5),
                glam::Quat::from_rotation_y(0.4),
                Vec3::new(0.0, 1.0, 0.0),
            ),
        })
        .unwrap();
    let data = morph_sphere::animation(&targets);
    renderer.set_animation(&data, 1).unwrap();
    let reach = morph_reach(&targets, &data.weight_bounds(0));
    renderer
        .set_object_morph(object, Some(&targets), 0, 0, reach)
        .unwrap();
    let playing = [Playing::One(Playback {
        looping: false,
        ..Playback::looping(0)
    })];
    let size = 128;
    renderer.play_animation(&playing, 0.0).unwrap();
    let (rest, _) = Target::new(&gpu, size, size).render(&gpu, &mut renderer);
    for time in [0.5f32, 1.0] {
        renderer.play_animation(&playing, time).unwrap();
        renderer.set_geometry(Geometry::Forward);
        let (posed, _) = Target::new(&gpu, size, size).render(&gpu, &mut renderer);
        let moved = mismatched_pixels(&rest, &posed, 8);
        assert!(
            moved > 200,
            "t = {time}: {moved} pixels moved from the rest shape"
        );
        compare_geometry(&gpu, &mut renderer, &format!("morph-{time}"), (size, size));
    }
    gpu.finish();
}

/// The overdraw scene (lights, masks, blended quads sorted on top) along
/// the sliding path: forward against the visibility buffer, and the
/// visibility buffer with occlusion culling on against off (same image,
/// same ids but the late phase's mark).
#[test]
fn occlusion_on_and_off_agree_through_the_visibility_buffer() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut on = prepass_scene::renderer_for(&gpu, (None, Msaa::X1), false);
    let mut off = prepass_scene::renderer_for(&gpu, (None, Msaa::X1), false);
    off.set_occlusion(false);
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    for frame in 0..6 {
        let camera = sliding_camera(frame + 2, 10);
        on.set_camera(&camera).unwrap();
        off.set_camera(&camera).unwrap();
        compare_geometry(&gpu, &mut on, &format!("overdraw-{frame}"), (WIDTH, HEIGHT));
        off.set_geometry(Geometry::Visibility);
        let (with, _) = target.render(&gpu, &mut on);
        let on_ids = read_visibility_ids(&gpu, &on);
        let (without, _) = target.render(&gpu, &mut off);
        let off_ids = read_visibility_ids(&gpu, &off);
        assert_eq!(mismatched_pixels(&with, &without, 0), 0, "frame {frame}");
        let late = unbound::gpu_types::VISIBILITY_LATE;
        let unmarked: Vec<[u32; 2]> = on_ids.iter().map(|id| [id[0], id[1] & !late]).collect();
        assert_eq!(unmarked, off_ids, "frame {frame}");
    }
    gpu.finish();
}

/// Where the visibility buffer cannot run the frame draws forward: tier B,
/// 4× MSAA, cluster culling on (its cut would be lost).
#[test]
fn tier_b_msaa_and_cluster_culling_keep_forward() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    for (tier, msaa) in [(Some(Tier::B), Msaa::X1), (None, Msaa::X4)] {
        let renderer = gpu.renderer_with(RendererConfig {
            capacities: Gpu::default_capacities(),
            tier,
            msaa,
            geometry: Geometry::Visibility,
            ..Default::default()
        });
        assert_eq!(renderer.geometry(), Geometry::Forward, "{tier:?} {msaa:?}");
    }
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        geometry: Geometry::Visibility,
        ..Default::default()
    });
    assert_eq!(renderer.geometry(), Geometry::Visibility);
    renderer.set_cluster_culling(true);
    assert_eq!(renderer.geometry(), Geometry::Forward, "cluster culling on");
    assert!(renderer.cluster_culling_active());
    renderer.set_cluster_culling(false);
    assert_eq!(renderer.geometry(), Geometry::Visibility);
    gpu.finish();
}

/// The camera's cull header of the last frame.
fn camera_header(gpu: &Gpu, renderer: &Renderer) -> unbound::gpu_types::GpuCullHeader {
    let bytes = size_of::<unbound::gpu_types::GpuCullHeader>() as u64;
    bytemuck::pod_read_unaligned(&gpu.read_buffer(renderer.cull_counters_buffer(), 0, bytes))
}

/// The camera's hardware draws of the opaque and double-sided buckets:
/// their instance counts summed, read back after the last frame.
fn hardware_instances(gpu: &Gpu, renderer: &Renderer) -> u32 {
    let header = camera_header(gpu, renderer);
    let per_bucket = u64::from(renderer.cull_region(0).unwrap().draws_per_bucket);
    let words = unbound::passes::cull::DRAW_ARGS_SIZE / 4;
    (0..2)
        .map(|bucket: usize| {
            let draws = u64::from(header.bucket_draws[bucket]);
            let offset = bucket as u64 * per_bucket * unbound::passes::cull::DRAW_ARGS_SIZE;
            let raw = gpu.read_u32s(renderer.indirect_draws_buffer(), offset, words * draws);
            raw.chunks_exact(words as usize).map(|d| d[1]).sum::<u32>()
        })
        .sum()
}

/// Instances the compute rasteriser takes are not in the hardware draws
/// (`src/passes/compute_raster/`): with a threshold that takes every one,
/// the camera's opaque and double-sided draws hold only the alpha-masked
/// quad (the compute rasteriser has no alpha test) and the cull pass
/// lists the other 15 apart; at threshold 0 the draws hold all 16 and
/// none is listed. Either way every quad reaches the ids.
#[test]
fn compute_rasterised_instances_leave_the_hardware_draws() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let quad = flat_quad_scene(&mut renderer, 4.0);
    let mut slots = Vec::new();
    for i in 0..16 {
        let center = Vec3::new(
            -3.0 + 2.0 * (i % 4) as f32,
            -3.0 + 2.0 * (i / 4) as f32,
            0.0,
        );
        let added = add_solid_object(
            &mut renderer,
            quad,
            [200, 90, 40, 255],
            quad_at(center, 1.5, 1.5),
        );
        slots.push(renderer.objects().resolve(added.object).unwrap());
        if i == 5 {
            let texture = solid_texture(&mut renderer, [40, 90, 200, 255]);
            let sampler = renderer.heap().default_sampler();
            let masked = unbound::Material {
                alpha_mode: unbound::AlphaMode::Mask { cutoff: 0.5 },
                ..material_showing(texture, sampler)
            };
            renderer.update_material(added.material, &masked).unwrap();
        }
    }
    renderer.set_occlusion(false);
    renderer.set_geometry(Geometry::Visibility);
    renderer.set_compute_raster(unbound::ComputeRaster::Buffer);
    assert_eq!(renderer.compute_raster(), unbound::ComputeRaster::Buffer);
    let target = Target::new(&gpu, 64, 64);
    for (threshold, hardware, listed) in
        [(f32::INFINITY, 1, 15), (0.0, 16, 0), (f32::INFINITY, 1, 15)]
    {
        renderer.set_raster_threshold(threshold).unwrap();
        target.render(&gpu, &mut renderer);
        assert_eq!(
            hardware_instances(&gpu, &renderer),
            hardware,
            "threshold {threshold}"
        );
        let header = camera_header(&gpu, &renderer);
        assert_eq!(header.raster_instances, listed, "threshold {threshold}");
        let mut seen: Vec<u32> = read_visibility_ids(&gpu, &renderer)
            .iter()
            .filter(|id| id[0] != 0)
            .map(|id| id[0] - 1)
            .collect();
        seen.sort_unstable();
        seen.dedup();
        let mut expected = slots.clone();
        expected.sort_unstable();
        assert_eq!(seen, expected, "threshold {threshold}: objects in the ids");
    }
    gpu.finish();
}
