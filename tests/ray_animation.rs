//! The ray paths see the pose (`src/rays/deform.rs`): the Fox, skinned on
//! the GPU and posed far from its bind pose ("Run" at 0.3 s: its legs
//! stretched), stands on a ground plane under the sun. On lavapipe:
//!
//! - the hit-material view (camera rays through ray queries) equals the
//!   draw pass's material view (the raster frame, skinned in the vertex
//!   pulling) on at least 99% of the pixels away from silhouettes, the
//!   tolerance of `tests/ray_queries.rs`;
//! - ray-query shadows and shadow maps (whose casters the shadow pass
//!   skins) agree on at least 98% of the ground pixels away from shadow
//!   edges, the tolerance of `tests/ray_traced.rs`.
//!
//! Each test also checks that the pose moved enough pixels (ids, or ground
//! pixels' shadow) from the bind pose that tracing the bind pose would
//! fail it; and that the deformed BLAS is built on frames the animation
//! moves and on no other.

mod common;

use common::*;
use glam::{Mat4, Quat, Vec3, Vec4};
use unbound::animation::{AnimatedScene, AnimationError, Playback, SkinnedMesh};
use unbound::loaders::gltf::{GltfDocument, parse_gltf};
use unbound::{
    DebugView, FrameStats, Lighting, Material, ObjectDesc, RayDeformation, Renderer, shapes,
};

const SIZE: u32 = 160;

/// The posed time of "Run".
const POSED: f32 = 0.3;

/// The Fox on a ground plane under the sun, in a renderer with ray
/// queries; its player (not yet posed) and the scene's extent.
fn fox_scene(gpu: &Gpu) -> (Renderer, AnimatedScene, GltfDocument) {
    fox_scene_with(gpu, ray_config(ray_capacities()))
}

fn fox_scene_with(
    gpu: &Gpu,
    config: unbound::RendererConfig,
) -> (Renderer, AnimatedScene, GltfDocument) {
    let mut renderer = gpu.renderer_with(config);
    let document: GltfDocument = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let mut scene = document
        .upload(&mut renderer, Mat4::IDENTITY, None)
        .unwrap();
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let extent = (max - min).max_element();
    let center = (min + max) * 0.5;
    // The ground: a quad (facing +Z) turned to face +Y, under the feet.
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let ground = renderer
        .add_material(&Material {
            base_color_factor: Vec4::new(0.8, 0.8, 0.75, 1.0),
            metallic_factor: 0.0,
            roughness_factor: 0.8,
            ..Material::default()
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh: quad,
            material: ground,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::new(extent * 3.0, extent * 3.0, 1.0),
                Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
                Vec3::new(center.x, min.y, center.z),
            ),
        })
        .unwrap();
    renderer
        .set_lighting(&Lighting {
            direction_to_light: Vec3::new(-0.5, 0.8, 0.3).normalize(),
            ..Lighting::default()
        })
        .unwrap();
    let direction = Vec3::new(0.2, 1.0, 0.9).normalize();
    renderer
        .set_camera(&unbound::Camera {
            position: center + direction * extent * 1.25,
            target: Vec3::new(center.x, (center.y + min.y) * 0.5, center.z),
            up: Vec3::Y,
            fov_y_radians: 45f32.to_radians(),
            aspect: 1.0,
            z_near: extent * 0.05,
            z_far: extent * 10.0,
        })
        .unwrap();
    let mut player = scene.animation.take().expect("the Fox animates");
    player.play(Playback::looping(
        document.animation.clip_named("Run").unwrap(),
    ));
    (renderer, player, document)
}

/// The posed Fox's drawn and traced material views: (interior pixels,
/// equal, moved from the bind pose, Fox pixels); saved as `name`.
fn material_views(
    gpu: &Gpu,
    renderer: &mut Renderer,
    player: &mut AnimatedScene,
    name: &str,
) -> [usize; 4] {
    let size = SIZE as usize;
    let bind = decoded_ids(&id_view(gpu, renderer, DebugView::MaterialIndex, SIZE));
    player.pose_at(renderer, POSED).unwrap();
    let drawn_image = id_view(gpu, renderer, DebugView::MaterialIndex, SIZE);
    let traced_image = id_view(gpu, renderer, DebugView::HitMaterial, SIZE);
    save_output(&format!("ray_animation_{name}_drawn"), &drawn_image);
    save_output(&format!("ray_animation_{name}_traced"), &traced_image);
    let (drawn, traced) = (decoded_ids(&drawn_image), decoded_ids(&traced_image));
    let [inside, equal, moved] = material_agreement(&bind, &drawn, &traced, size);
    let fox = drawn
        .iter()
        .filter(|&&id| id != 0 && id != drawn[0])
        .count();
    [inside, equal, moved, fox]
}

/// The hit-material view of the posed Fox equals its drawn material view
/// away from silhouettes (at least 99% of interior pixels), and the pose
/// moves more of them from the bind pose than that 1% allows.
#[test]
fn hit_material_view_sees_the_posed_fox() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let (mut renderer, mut player, _document) = fox_scene(&gpu);
    let [inside, equal, moved, fox] = material_views(&gpu, &mut renderer, &mut player, "material");
    let ratio = equal as f64 / inside as f64;
    eprintln!(
        "hit-material view: {equal} of {inside} interior pixels equal ({ratio:.4}); \
         {moved} moved from the bind pose"
    );
    assert!(fox > 1000, "the frame shows the Fox and the ground ({fox})");
    assert!(
        moved as f64 > 0.02 * inside as f64,
        "the pose moves {moved} of {inside} interior pixels: too few to tell"
    );
    assert!(ratio >= 0.99, "{equal} of {inside} equal");
    let stats = renderer.acceleration_structures().unwrap();
    assert_eq!((stats.deformed, stats.deformed_fallback), (1, 0));
    // The Fox's 1,728 corners, 12 bytes each.
    assert!(stats.deformed_bytes >= 1728 * 12);
    gpu.finish();
}

/// Beyond the deformed positions' budget
/// (`RendererConfig::deformed_ray_bytes` one byte short of the Fox's 1,728
/// corners) the Fox is traced in its bind pose, the documented fallback:
/// no deformed BLAS is built, and the hit-material view then fails the
/// 99% of `hit_material_view_sees_the_posed_fox` (the deformed BLAS is
/// what passes it).
#[test]
fn beyond_the_budget_the_fox_is_traced_in_its_bind_pose() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let config = unbound::RendererConfig {
        deformed_ray_bytes: 1728 * 12 - 1,
        ..ray_config(ray_capacities())
    };
    let (mut renderer, mut player, _document) = fox_scene_with(&gpu, config);
    let [inside, equal, _, _] = material_views(&gpu, &mut renderer, &mut player, "fallback");
    let ratio = equal as f64 / inside as f64;
    eprintln!("bind pose traced: {equal} of {inside} interior pixels equal ({ratio:.4})");
    let stats = renderer.acceleration_structures().unwrap();
    assert_eq!((stats.deformed, stats.deformed_fallback), (0, 1));
    assert_eq!(stats.deformed_bytes, 0);
    assert!(ratio < 0.99, "{equal} of {inside} equal");
    renderer.set_animation_time(POSED + 0.1).unwrap();
    let frame = Target::new(&gpu, 8, 8).render(&gpu, &mut renderer).1;
    assert_eq!(frame.deformed_blas_builds, 0);
    gpu.finish();
}

/// Shadow maps for the Fox's scale.
fn fox_shadow_maps() -> unbound::ShadowSettings {
    unbound::ShadowSettings {
        enabled: true,
        resolution: 1024,
        max_distance: 1500.0,
        ..Default::default()
    }
}

/// Ray-query shadows of the posed Fox agree with its shadow maps on at
/// least 98% of the ground pixels away from shadow edges (both shadowed
/// or both lit; many of each), and the pose moves more of the maps'
/// shadow from the bind pose's than that 2% allows. The deformed BLAS is
/// built on frames the animation moves, not on a frame it stands still.
#[test]
fn ray_query_shadows_see_the_posed_fox() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let (mut renderer, mut player, _document) = fox_scene(&gpu);
    let bind = ShadowFrames::render(&gpu, &mut renderer, SIZE, &fox_shadow_maps());
    player.pose_at(&mut renderer, POSED).unwrap();
    let posed = ShadowFrames::render(&gpu, &mut renderer, SIZE, &fox_shadow_maps());
    save_output("ray_animation_shadows_rays", &posed.rays);
    save_output("ray_animation_shadows_maps", &posed.maps);
    let ShadowAgreement {
        pixels,
        in_shadow,
        agreeing,
        moved,
    } = ShadowAgreement::of(&bind, &posed);
    eprintln!(
        "shadows: rays and maps agree on {agreeing} of {pixels} ground pixels ({in_shadow} in \
         shadow); {moved} differ from the bind pose's"
    );
    assert!(
        in_shadow >= 100 && pixels - in_shadow >= 1000,
        "{in_shadow} of {pixels} in shadow"
    );
    assert!(
        moved as f64 > 0.04 * pixels as f64,
        "the pose moves {moved} of {pixels} shadow pixels: too few to tell"
    );
    assert!(
        agreeing as f64 >= 0.98 * pixels as f64,
        "{agreeing} of {pixels} agree"
    );
    // Built again when the time moves, not when it stands still.
    let target = Target::new(&gpu, 8, 8);
    renderer.set_animation_time(POSED + 0.1).unwrap();
    let moving = target.render(&gpu, &mut renderer).1;
    let still = target.render(&gpu, &mut renderer).1;
    assert_eq!((moving.deformed_blas_builds, moving.tlas_builds), (1, 1));
    assert_eq!((still.deformed_blas_builds, still.tlas_builds), (0, 0));
    gpu.finish();
}

/// CPU time of one frame of `foxes` Foxes (one animation of that many
/// instances, each skinned) on the ray path, in milliseconds: (recording:
/// `render`, `finish` and `submit`; until lavapipe finished, where the
/// BLAS builds themselves run on the CPU), the median of 50 frames whose
/// time moves (`moving`: every Fox deformed and its BLAS built again) or
/// stands still (the same frame without deformation or builds: the
/// playback pass and the raster skinning still run). Every Fox is traced
/// as `policy` says: `EveryFrame` or `EveryNthFrame(n)` for an `n` that
/// divides the 50 measured frames.
fn crowd_frame_ms(gpu: &Gpu, foxes: u32, moving: bool, policy: RayDeformation) -> (f64, f64) {
    let mut renderer = gpu.renderer_with(ray_config(ray_capacities()));
    let document: GltfDocument = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let loaded = document
        .upload(&mut renderer, Mat4::IDENTITY, None)
        .unwrap();
    let data = &document.animation;
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let spacing = (max - min).max_element() * 1.2;
    let side = (foxes as f32).sqrt().ceil() as u32;
    let far = Vec3::new(1.0, 1.0, 1.0) * spacing * side as f32;
    renderer
        .set_camera(&camera_framing_box(min, max + far))
        .unwrap();
    renderer.set_animation(data, foxes).unwrap();
    for index in 0..foxes {
        let offset = Vec3::new((index % side) as f32, 0.0, (index / side) as f32) * spacing;
        for (slot, desc) in loaded.placements.iter().enumerate() {
            let world_from_object = Mat4::from_translation(offset) * desc.world_from_object;
            let object = if index == 0 {
                renderer
                    .set_transform(loaded.objects[slot], world_from_object)
                    .unwrap();
                loaded.objects[slot]
            } else {
                renderer
                    .add_object(&ObjectDesc {
                        world_from_object,
                        ..*desc
                    })
                    .unwrap()
            };
            let driver = data.objects[slot];
            if let Some(skin) = driver.skin {
                let skinned = data.meshes[driver.mesh].skin.as_ref().map(|influences| {
                    let positions = &document.meshes[driver.mesh].positions;
                    SkinnedMesh::new(influences, positions, data.skins[skin].joints.len())
                });
                renderer
                    .set_object_skin(object, skinned.as_ref(), index, skin)
                    .unwrap();
            }
            renderer.set_object_ray_deformation(object, policy).unwrap();
        }
    }
    let run = Playback::looping(data.clip_named("Run").unwrap());
    let playing = vec![unbound::animation::Playing::One(run); foxes as usize];
    renderer.play_animation(&playing, 0.3).unwrap();
    let target = Target::new(gpu, 64, 64);
    let (mut recording, mut total) = (Vec::new(), Vec::new());
    let period = match policy {
        RayDeformation::EveryNthFrame(n) => n.get(),
        _ => 1,
    };
    let mut built = 0;
    for frame in 0..60 {
        if moving {
            renderer
                .set_animation_time(0.3 + frame as f32 / 60.0)
                .unwrap();
        }
        let start = std::time::Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let stats = renderer.render(&mut encoder, &target.frame()).unwrap();
        gpu.queue.submit([encoder.finish()]);
        let recorded = start.elapsed();
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        if frame >= 10 {
            built += stats.deformed_blas_builds;
            recording.push(recorded.as_secs_f64() * 1e3);
            total.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    // Each Fox once every `period` frames (staggered: about
    // `foxes / period` a frame).
    let expected = if moving { foxes * 50 / period } else { 0 };
    assert_eq!(built, expected);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(recording), median(total))
}

/// A measurement, not a test (performance is never asserted): the CPU
/// cost of deforming and building the skinned objects' BLASes again every
/// frame, on lavapipe, for 1, 10 and 100 Foxes, against the same crowd
/// standing still; and every 5th and 50th frame
/// (`RayDeformation::EveryNthFrame`, staggered). `cargo test -p unbound --test ray_animation -- --ignored
/// --nocapture`; the figures are in `docs/PERFORMANCE.md`.
#[test]
#[ignore = "a measurement: run by hand"]
fn measure_deformed_blas_rebuild_cpu() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let every = RayDeformation::EveryFrame;
    for foxes in [1, 10, 100] {
        let still = crowd_frame_ms(&gpu, foxes, false, every);
        let moving = crowd_frame_ms(&gpu, foxes, true, every);
        eprintln!(
            "{foxes} Foxes: recording {:.2} ms moving, {:.2} ms still ({:.3} ms per Fox); \
             until done {:.2} ms moving, {:.2} ms still ({:.3} ms per Fox)",
            moving.0,
            still.0,
            (moving.0 - still.0) / f64::from(foxes),
            moving.1,
            still.1,
            (moving.1 - still.1) / f64::from(foxes),
        );
    }
    // Every 5th and every 50th frame, staggered: a fifth, a fiftieth of
    // the builds each frame (the TLAS still built every frame).
    for (foxes, n) in [(10, 5), (100, 5), (100, 50)] {
        let policy = RayDeformation::EveryNthFrame(std::num::NonZeroU32::new(n).unwrap());
        let still = crowd_frame_ms(&gpu, foxes, false, policy);
        let moving = crowd_frame_ms(&gpu, foxes, true, policy);
        eprintln!(
            "{foxes} Foxes, every {n}th frame: recording {:.2} ms moving, {:.2} ms still; \
             until done {:.2} ms moving, {:.2} ms still",
            moving.0, still.0, moving.1, still.1,
        );
    }
    gpu.finish();
}

/// A view of the Fox scene at `SIZE` (ids decoded) and what the frame
/// built: one frame.
fn view(gpu: &Gpu, renderer: &mut Renderer, view: DebugView) -> (Vec<u32>, FrameStats) {
    renderer
        .set_debug(&unbound::DebugOptions {
            view,
            ..Default::default()
        })
        .unwrap();
    let target = Target::with_format(gpu, SIZE, SIZE, unbound::ID_TARGET_FORMAT);
    let (image, stats) = target.render(gpu, renderer);
    renderer
        .set_debug(&unbound::DebugOptions::default())
        .unwrap();
    (decoded_ids(&image), stats)
}

/// Deformed BLASes built by one small frame.
fn builds(gpu: &Gpu, renderer: &mut Renderer) -> (u32, u32) {
    let stats = Target::new(gpu, 8, 8).render(gpu, renderer).1;
    (stats.deformed_blas_builds, stats.tlas_builds)
}

/// Interior pixels of `drawn` and how many of them `traced` equals.
fn agreement(drawn: &[u32], traced: &[u32]) -> (usize, usize) {
    let [inside, equal, _] = material_agreement(drawn, drawn, traced, SIZE as usize);
    (inside, equal)
}

/// Every object of the Fox's scene traced as `policy` says.
fn set_policy(renderer: &mut Renderer, player: &AnimatedScene, policy: RayDeformation) {
    for &object in player.objects() {
        renderer.set_object_ray_deformation(object, policy).unwrap();
    }
}

/// `RayDeformation::EveryNthFrame(3)`: while the time moves every frame,
/// the Fox's BLAS is built on one frame in three (and the TLAS with it),
/// on frames a fixed phase apart. On a due frame the hit-material view
/// equals the drawn one (99% of interior pixels, as
/// `hit_material_view_sees_the_posed_fox`); on the next frames, the time
/// moved on, it is the due frame's image (the pose of the last build; at
/// least 99.9% of pixels, the facing of a hit being judged from the
/// current pose), which then fails that 99% against the drawn view (the pose
/// moved enough to tell); the next due frame catches up (99% again).
#[test]
fn every_third_frame_rays_see_the_pose_of_the_last_due_frame() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let (mut renderer, mut player, _document) = fox_scene(&gpu);
    let every_third = RayDeformation::EveryNthFrame(std::num::NonZeroU32::new(3).unwrap());
    set_policy(&mut renderer, &player, every_third);
    let start = POSED - 0.2;
    player.pose_at(&mut renderer, start).unwrap();
    assert_eq!(
        builds(&gpu, &mut renderer),
        (1, 1),
        "a new job is built at once"
    );
    let mut due = Vec::new();
    for frame in 1..=6u32 {
        renderer
            .set_animation_time(start + 0.02 * frame as f32)
            .unwrap();
        let (deformed, tlas) = builds(&gpu, &mut renderer);
        assert_eq!(deformed, tlas, "frame {frame}");
        if deformed == 1 {
            due.push(frame);
        }
    }
    assert!(
        due.len() == 2 && due[1] == due[0] + 3,
        "builds on frames {due:?} of 6"
    );
    // Frame 7 onwards: still frames (nothing moves, nothing is built) until
    // the frame before a due one.
    let mut frame = 7;
    while (frame + 1) % 3 != due[0] % 3 {
        assert_eq!(builds(&gpu, &mut renderer), (0, 0));
        frame += 1;
    }
    renderer.set_animation_time(POSED).unwrap();
    let (drawn_a, stats) = view(&gpu, &mut renderer, DebugView::MaterialIndex);
    assert_eq!(stats.deformed_blas_builds, 0, "not due");
    let (traced_a, stats) = view(&gpu, &mut renderer, DebugView::HitMaterial);
    assert_eq!(stats.deformed_blas_builds, 1, "due");
    renderer.set_animation_time(POSED + 0.3).unwrap();
    let (traced_b, stats) = view(&gpu, &mut renderer, DebugView::HitMaterial);
    assert_eq!(stats.deformed_blas_builds, 0, "not due");
    let (drawn_b, stats) = view(&gpu, &mut renderer, DebugView::MaterialIndex);
    assert_eq!(stats.deformed_blas_builds, 0, "not due");
    let (traced_b_due, stats) = view(&gpu, &mut renderer, DebugView::HitMaterial);
    assert_eq!(stats.deformed_blas_builds, 1, "due");

    let (inside_a, equal_a) = agreement(&drawn_a, &traced_a);
    let (inside_b, stale_b) = agreement(&drawn_b, &traced_b);
    let (_, equal_b) = agreement(&drawn_b, &traced_b_due);
    let kept = traced_a
        .iter()
        .zip(&traced_b)
        .filter(|(a, b)| a == b)
        .count();
    eprintln!(
        "due: {equal_a} of {inside_a} equal; between: {stale_b} of {inside_b} (stale pose), \
         {kept} of {} pixels as on the due frame; next due: {equal_b} of {inside_b}",
        traced_a.len()
    );
    assert!(equal_a as f64 >= 0.99 * inside_a as f64);
    // Not every pixel: a hit is shaded, and its facing judged, from its
    // triangle as the current palette skins it (`wgsl/ray_hit.wgsl`), so
    // a few grazing triangles may turn (4 of 25,600 pixels here).
    assert!(
        kept as f64 >= 0.999 * traced_a.len() as f64,
        "between due frames, the last due pose"
    );
    assert!(
        (stale_b as f64) < 0.99 * inside_b as f64,
        "the stale pose fails the due frame's 99%: the pose moved enough to tell"
    );
    assert!(equal_b as f64 >= 0.99 * inside_b as f64);
    gpu.finish();
}

/// `RayDeformation::BindPose`: no deformed BLAS (the mesh's is traced), no
/// build while the time moves; the hit-material view of the posed Fox is
/// the drawn view of its rest pose (99% of interior pixels; the posed
/// drawn view differs from it on more than 2%).
#[test]
fn bind_pose_policy_traces_the_rest_pose() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let (mut renderer, mut player, _document) = fox_scene(&gpu);
    set_policy(&mut renderer, &player, RayDeformation::BindPose);
    player.pose_at(&mut renderer, POSED).unwrap();
    let (traced, stats) = view(&gpu, &mut renderer, DebugView::HitMaterial);
    assert_eq!(stats.deformed_blas_builds, 0);
    let (posed, _) = view(&gpu, &mut renderer, DebugView::MaterialIndex);
    let accel = renderer.acceleration_structures().unwrap();
    assert_eq!((accel.deformed, accel.deformed_fallback), (0, 0));
    renderer.set_animation_time(POSED + 0.1).unwrap();
    assert_eq!(builds(&gpu, &mut renderer).0, 0);
    player.stop();
    player.pose_at(&mut renderer, POSED).unwrap();
    let (rest, _) = view(&gpu, &mut renderer, DebugView::MaterialIndex);
    let (inside_rest, equal_rest) = agreement(&rest, &traced);
    let (inside_posed, equal_posed) = agreement(&posed, &traced);
    eprintln!(
        "bind pose traced: {equal_rest} of {inside_rest} equal to the drawn rest pose, \
         {equal_posed} of {inside_posed} to the drawn pose"
    );
    assert!(equal_rest as f64 >= 0.99 * inside_rest as f64);
    assert!((equal_posed as f64) < 0.98 * inside_posed as f64);
    gpu.finish();
}

/// `RayDeformation::Once`: the Fox's BLAS is built when it is skinned,
/// then not again while the time moves (its hit-material view stays the
/// same at every pixel); another policy builds it again.
#[test]
fn once_policy_builds_once() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let (mut renderer, mut player, _document) = fox_scene(&gpu);
    set_policy(&mut renderer, &player, RayDeformation::Once);
    player.pose_at(&mut renderer, POSED).unwrap();
    let (first, stats) = view(&gpu, &mut renderer, DebugView::HitMaterial);
    assert_eq!(stats.deformed_blas_builds, 1);
    for frame in 1..=4 {
        renderer
            .set_animation_time(POSED + 0.05 * frame as f32)
            .unwrap();
        assert_eq!(builds(&gpu, &mut renderer), (0, 0), "frame {frame}");
    }
    let (later, stats) = view(&gpu, &mut renderer, DebugView::HitMaterial);
    assert_eq!(stats.deformed_blas_builds, 0);
    assert_eq!(first, later, "the pose it was built with");
    set_policy(&mut renderer, &player, RayDeformation::EveryFrame);
    assert_eq!(builds(&gpu, &mut renderer).0, 1);
    gpu.finish();
}

/// `RendererConfig::ray_deformation` is the policy of objects without one
/// of their own: `BindPose` there traces the posed Fox through its mesh's
/// BLAS (no deformed one, no build) until the Fox's own policy says
/// `EveryFrame`.
#[test]
fn the_configured_policy_is_the_default() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let config = unbound::RendererConfig {
        ray_deformation: RayDeformation::BindPose,
        ..ray_config(ray_capacities())
    };
    let (mut renderer, mut player, _document) = fox_scene_with(&gpu, config);
    player.pose_at(&mut renderer, POSED).unwrap();
    assert_eq!(builds(&gpu, &mut renderer).0, 0);
    assert_eq!(renderer.acceleration_structures().unwrap().deformed, 0);
    set_policy(&mut renderer, &player, RayDeformation::EveryFrame);
    assert_eq!(builds(&gpu, &mut renderer).0, 1);
    assert_eq!(renderer.acceleration_structures().unwrap().deformed, 1);
    gpu.finish();
}

/// A policy for a removed object is a typed error.
#[test]
fn ray_deformation_of_a_removed_object_is_an_error() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let (mut renderer, player, _document) = fox_scene(&gpu);
    let object = player.objects()[0];
    renderer.remove_object(object).unwrap();
    let result = renderer.set_object_ray_deformation(object, RayDeformation::Once);
    assert!(
        matches!(result, Err(unbound::Error::Object(_))),
        "{result:?}"
    );
    gpu.finish();
}

/// An `AnimatedScene` whose animation another `set_animation` replaced
/// does not play its clip against the other animation's tables: its
/// `pose_at` returns `AnimationError::Replaced` and changes nothing (the
/// renderer renders, the Fox still skinned by nothing: no deformed BLAS);
/// the next `pose_at` gives the renderer its animation again.
#[test]
fn a_scene_whose_animation_was_replaced_is_told() {
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let (mut renderer, mut player, document) = fox_scene(&gpu);
    player.pose_at(&mut renderer, POSED).unwrap();
    renderer.set_animation(&document.animation, 2).unwrap();
    let result = player.pose_at(&mut renderer, POSED + 0.1);
    assert!(
        matches!(
            result,
            Err(unbound::Error::Animation(AnimationError::Replaced))
        ),
        "{result:?}"
    );
    Target::new(&gpu, 8, 8).render(&gpu, &mut renderer);
    assert_eq!(renderer.acceleration_structures().unwrap().deformed, 0);
    player.pose_at(&mut renderer, POSED + 0.1).unwrap();
    let stats = Target::new(&gpu, 8, 8).render(&gpu, &mut renderer).1;
    assert_eq!(stats.deformed_blas_builds, 1);
    assert_eq!(renderer.acceleration_structures().unwrap().deformed, 1);
    gpu.finish();
}
