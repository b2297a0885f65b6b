//! Culling bounds that follow the pose (`src/passes/skin_bounds.rs`,
//! `bound_skins` in `wgsl/animation.wgsl`), on lavapipe (and the first
//! test on Mesa's GL llvmpipe too, tier C): the bounds the
//! GPU writes for skinned Foxes equal the CPU twin (`skinned_sphere` of
//! the CPU pose, placed as `world_sphere` places it); the posed mesh lies
//! inside them; the camera's visible set equals the CPU reference that
//! uses them while a limb swings outside the bind pose's sphere into view
//! (with the bind pose's bounds the Fox would be culled: the test asserts
//! that the bind pose's reference differs); occlusion culling draws what
//! frustum culling alone draws while the Foxes play; cull-only frames
//! (`Renderer::render_cull_only`) pose the bounds as full frames do.
//!
//! Tolerance: each GPU sphere's four values within 1e-4 of the CPU's,
//! relative to the largest of the CPU sphere's magnitudes (at least 1):
//! the palettes themselves are within 1e-4 relative
//! (`tests/animation_gpu.rs`).

mod common;

use common::occlusion_scene::background_srgb;
use common::straddling::{PLANE_EPSILON, assert_visible_set};
use common::*;
use glam::{Mat4, Quat, Vec3, Vec4};
use unbound::animation::{
    Playback, Playing, Pose, SkinnedMesh, joint_palette, joint_spheres, skinned_sphere,
};
use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
use unbound::geometry::MeshBounds;
use unbound::loaders::gltf::{GltfDocument, parse_gltf};
use unbound::shadows::caster_in_cascade;
use unbound::{Camera, DebugOptions, DebugView, ObjectDesc, ObjectHandle, Renderer, shapes};

const TOLERANCE: f32 = 1e-4;

/// wgpu's GL backend and lavapipe take turns (see tests/tiers.rs).
static GL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gl_turn() -> std::sync::MutexGuard<'static, ()> {
    GL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn fox() -> GltfDocument {
    parse_gltf(&asset("gltfpack/Fox.glb")).unwrap()
}

/// A renderer that culls by the frustum alone (occlusion as asked), with
/// flat lighting.
fn renderer(gpu: &Gpu, occlusion: bool) -> Renderer {
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    renderer.set_occlusion(occlusion);
    renderer.set_small_object_culling(false);
    renderer.set_lighting(&flat_lighting()).unwrap();
    renderer
}

/// The Fox's skinned mesh (its one object), its skin and its joint
/// spheres.
struct FoxSkin<'a> {
    mesh: usize,
    skin: usize,
    skinned: SkinnedMesh<'a>,
}

fn fox_skin(document: &GltfDocument) -> FoxSkin<'_> {
    let data = &document.animation;
    assert_eq!(data.objects.len(), 1, "the Fox places one object");
    let driver = data.objects[0];
    let skin = driver.skin.expect("the Fox is skinned");
    let influences = data.meshes[driver.mesh].skin.as_ref().unwrap();
    let positions = &document.meshes[driver.mesh].positions;
    let joints = data.skins[skin].joints.len();
    let skinned = SkinnedMesh::new(influences, positions, joints);
    assert_eq!(
        skinned.joint_spheres,
        joint_spheres(influences, positions, joints)
    );
    FoxSkin {
        mesh: driver.mesh,
        skin,
        skinned,
    }
}

/// Uploads the Fox and places a copy at each of `placements`, copy `i`
/// skinned by instance `i`, which plays `playing[i]`.
fn fox_crowd(
    renderer: &mut Renderer,
    document: &GltfDocument,
    fox: &FoxSkin<'_>,
    placements: &[Mat4],
    playing: &[Playing],
) -> Vec<ObjectHandle> {
    let loaded = document.upload(renderer, Mat4::IDENTITY, None).unwrap();
    renderer
        .set_animation(&document.animation, placements.len() as u32)
        .unwrap();
    let desc = loaded.placements[0];
    let objects: Vec<ObjectHandle> = placements
        .iter()
        .enumerate()
        .map(|(i, placement)| {
            let world_from_object = *placement * desc.world_from_object;
            let object = if i == 0 {
                renderer
                    .set_transform(loaded.objects[0], world_from_object)
                    .unwrap();
                loaded.objects[0]
            } else {
                renderer
                    .add_object(&ObjectDesc {
                        world_from_object,
                        ..desc
                    })
                    .unwrap()
            };
            renderer
                .set_object_skin(object, Some(&fox.skinned), i as u32, fox.skin)
                .unwrap();
            object
        })
        .collect();
    renderer.play_animation(playing, 0.0).unwrap();
    objects
}

/// The CPU reference: copy `placement`'s world sphere playing `playing`
/// at `time` (the joint spheres moved by the CPU pose's palette and
/// enclosed, then placed as the object table places a mesh's sphere).
fn cpu_sphere(
    document: &GltfDocument,
    fox: &FoxSkin<'_>,
    placement: Mat4,
    playing: &Playing,
    time: f32,
) -> Vec4 {
    let data = &document.animation;
    let world = Pose::playing(data, playing, time).world_from_nodes(data);
    let palette = joint_palette(&data.skins[fox.skin], &world);
    let [x, y, z, radius] = skinned_sphere(&fox.skinned.joint_spheres, &palette).unwrap();
    let center = Vec3::new(x, y, z);
    let bounds = MeshBounds {
        min: center,
        max: center,
        center,
        radius,
    };
    Vec4::from_array(unbound::scene::world_sphere(&placement, &bounds))
}

/// The bounds stream as the GPU left it, per object.
fn gpu_spheres(gpu: &Gpu, renderer: &Renderer, objects: &[ObjectHandle]) -> Vec<Vec4> {
    let table = renderer.objects();
    let bytes = gpu.read_buffer(
        table.bounds_buffer(),
        0,
        u64::from(table.slots_in_use()) * 16,
    );
    let spheres: &[[f32; 4]] = bytemuck::cast_slice(&bytes);
    objects
        .iter()
        .map(|o| Vec4::from_array(spheres[table.resolve(*o).unwrap() as usize]))
        .collect()
}

/// The CPU's sphere of an object (the bind pose's for a skinned one).
fn bind_sphere(renderer: &Renderer, object: ObjectHandle) -> Vec4 {
    let slot = renderer.objects().resolve(object).unwrap();
    Vec4::from_array(renderer.objects().world_sphere_of_slot(slot).unwrap())
}

/// Relative difference of two spheres (see the module docs).
fn sphere_error(gpu: Vec4, cpu: Vec4) -> f32 {
    let scale = cpu.abs().max_element().max(1.0);
    (gpu - cpu).abs().max_element() / scale
}

/// Copies turned, scaled (one not uniformly) and spread out, and what each
/// plays: every clip at its own phase and speed, a clamped clip played
/// backwards, a blend and the rest pose.
fn crowd_of(document: &GltfDocument) -> (Vec<Mat4>, Vec<Playing>) {
    let clips = document.animation.clips.len();
    let mut placements = Vec::new();
    let mut playing = Vec::new();
    for i in 0..12 {
        let scale = if i == 5 {
            Vec3::new(1.5, 0.5, 1.0)
        } else {
            Vec3::splat(0.5 + 0.1 * i as f32)
        };
        placements.push(Mat4::from_scale_rotation_translation(
            scale,
            Quat::from_rotation_y(0.7 * i as f32) * Quat::from_rotation_x(0.2 * (i % 3) as f32),
            Vec3::new(
                150.0 * (i % 4) as f32,
                20.0 * (i % 2) as f32,
                -150.0 * (i / 4) as f32,
            ),
        ));
        playing.push(match i {
            9 => Playing::Blend(Playback::looping(0), Playback::looping(2), 0.4),
            10 => Playing::Nothing,
            11 => Playing::One(Playback {
                clip: 1,
                start: 0.5,
                speed: -1.0,
                looping: false,
            }),
            _ => Playing::One(Playback {
                clip: i % clips,
                start: -0.37 * i as f32,
                speed: 0.8 + 0.1 * (i % 4) as f32,
                looping: true,
            }),
        });
    }
    (placements, playing)
}

const TIMES: [f32; 4] = [0.0, 0.45, 1.3, 3.7];

fn crowd_camera() -> Camera {
    Camera {
        position: Vec3::new(250.0, 300.0, 400.0),
        target: Vec3::new(220.0, 0.0, -150.0),
        z_far: 3000.0,
        ..Default::default()
    }
}

/// Each skinned Fox's bounds, read back after frames at several times,
/// equal the CPU twin within `TOLERANCE`; they move with the pose (they
/// differ from the bind pose's); an object not skinned keeps the CPU's
/// sphere; an object unskinned gets the CPU's sphere back.
fn gpu_bounds_equal_the_cpu_skinned_sphere(gpu: &Gpu) {
    let document = fox();
    let fox = fox_skin(&document);
    let (placements, playing) = crowd_of(&document);
    let mut renderer = renderer(gpu, false);
    let objects = fox_crowd(&mut renderer, &document, &fox, &placements, &playing);
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let still = add_solid_object(
        &mut renderer,
        cube,
        [200, 20, 20, 255],
        Mat4::from_translation(Vec3::new(0.0, 50.0, 0.0)) * Mat4::from_scale(Vec3::splat(30.0)),
    )
    .object;
    renderer.set_camera(&crowd_camera()).unwrap();
    let target = Target::new(gpu, 64, 64);
    let (mut worst, mut moved) = (0.0f32, 0);
    for time in TIMES {
        renderer.set_animation_time(time).unwrap();
        target.render(gpu, &mut renderer);
        let spheres = gpu_spheres(gpu, &renderer, &objects);
        for (i, sphere) in spheres.iter().enumerate() {
            let expected = cpu_sphere(&document, &fox, placements[i], &playing[i], time);
            let error = sphere_error(*sphere, expected);
            assert!(
                error <= TOLERANCE,
                "t = {time}, Fox {i} ({:?}): GPU {sphere}, CPU {expected}, relative error {error}",
                playing[i]
            );
            worst = worst.max(error);
            if sphere_error(*sphere, bind_sphere(&renderer, objects[i])) > 0.01 {
                moved += 1;
            }
        }
        let [still_sphere] = gpu_spheres(gpu, &renderer, &[still])[..] else {
            unreachable!()
        };
        assert_eq!(still_sphere, bind_sphere(&renderer, still), "t = {time}");
    }
    eprintln!("worst relative error {worst:e}, {moved} bounds differ from the bind pose's");
    assert!(moved >= TIMES.len() * objects.len() / 2, "{moved} moved");
    // Unskinned: the CPU's sphere again, from the next frame on.
    renderer.set_object_skin(objects[3], None, 0, 0).unwrap();
    target.render(gpu, &mut renderer);
    let spheres = gpu_spheres(gpu, &renderer, &objects);
    assert_eq!(spheres[3], bind_sphere(&renderer, objects[3]));
    let expected = cpu_sphere(&document, &fox, placements[4], &playing[4], 3.7);
    assert!(sphere_error(spheres[4], expected) <= TOLERANCE);
    // Joint spheres that are not one per joint are refused.
    let short = SkinnedMesh {
        joint_spheres: fox.skinned.joint_spheres[1..].to_vec(),
        ..fox.skinned.clone()
    };
    let error = renderer
        .set_object_skin(objects[3], Some(&short), 0, fox.skin)
        .unwrap_err();
    assert!(
        matches!(
            error,
            unbound::Error::Animation(unbound::animation::AnimationError::JointSpheres { .. })
        ),
        "{error}"
    );
    gpu.finish();
}

/// On lavapipe (tier A).
#[test]
fn gpu_bounds_of_skinned_foxes_equal_the_cpu_skinned_sphere() {
    let _turn = gl_turn();
    gpu_bounds_equal_the_cpu_skinned_sphere(&Gpu::new(&Gpu::default_capacities()));
}

/// On Mesa's GL llvmpipe (tier C).
#[test]
fn gpu_bounds_of_skinned_foxes_equal_the_cpu_skinned_sphere_on_gl() {
    let _turn = gl_turn();
    let gpu = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    gpu_bounds_equal_the_cpu_skinned_sphere(&gpu);
}

/// `Renderer::render_cull_only` records the animation step as `render`
/// does, so cull-only frames cull against this frame's pose: after a
/// cull-only frame at each time (no full frame ever rendered), every
/// skinned Fox's bounds equal the CPU twin at that time, and most differ
/// from the bind pose's (without the step they stayed the bind pose's).
#[test]
fn cull_only_frames_cull_against_the_current_pose() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let document = fox();
    let fox = fox_skin(&document);
    let (placements, playing) = crowd_of(&document);
    let mut renderer = renderer(&gpu, false);
    let objects = fox_crowd(&mut renderer, &document, &fox, &placements, &playing);
    renderer.set_camera(&crowd_camera()).unwrap();
    let mut moved = 0;
    for time in TIMES {
        renderer.set_animation_time(time).unwrap();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        renderer.render_cull_only(&mut encoder).unwrap();
        gpu.queue.submit([encoder.finish()]);
        let spheres = gpu_spheres(&gpu, &renderer, &objects);
        for (i, sphere) in spheres.iter().enumerate() {
            let expected = cpu_sphere(&document, &fox, placements[i], &playing[i], time);
            let error = sphere_error(*sphere, expected);
            assert!(
                error <= TOLERANCE,
                "t = {time}, Fox {i}: GPU {sphere}, CPU {expected}, relative error {error}"
            );
            if sphere_error(*sphere, bind_sphere(&renderer, objects[i])) > 0.01 {
                moved += 1;
            }
        }
    }
    eprintln!("{moved} cull-only bounds differ from the bind pose's");
    assert!(moved >= TIMES.len() * objects.len() / 2, "{moved} moved");
    gpu.finish();
}

/// The Foxes posed on the CPU (`AnimatedScene::posed_mesh`, every vertex,
/// placed by its copy's transform) lie inside the bounds the GPU wrote for
/// that frame: no vertex farther from the centre than the radius plus
/// `TOLERANCE` relative.
#[test]
fn the_posed_foxes_lie_inside_their_gpu_bounds() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let document = fox();
    let fox = fox_skin(&document);
    let (placements, playing) = crowd_of(&document);
    let mut renderer = renderer(&gpu, false);
    let objects = fox_crowd(&mut renderer, &document, &fox, &placements, &playing);
    renderer.set_camera(&crowd_camera()).unwrap();
    let mut player = document
        .animated_scene(None, Mat4::IDENTITY)
        .unwrap()
        .unwrap();
    let target = Target::new(&gpu, 64, 64);
    let mut loosest = 0.0f32;
    for time in TIMES {
        renderer.set_animation_time(time).unwrap();
        target.render(&gpu, &mut renderer);
        let spheres = gpu_spheres(&gpu, &renderer, &objects);
        for (i, sphere) in spheres.iter().enumerate() {
            player.set_playing(playing[i]);
            let posed = player.posed_mesh(fox.mesh, Some(fox.skin), time).unwrap();
            let centre = sphere.truncate();
            let farthest = posed.positions.iter().fold(0.0f32, |a, p| {
                a.max(
                    placements[i]
                        .transform_point3(Vec3::from(*p))
                        .distance(centre),
                )
            });
            let slack = TOLERANCE * sphere.abs().max_element().max(1.0);
            assert!(
                farthest <= sphere.w + slack,
                "t = {time}, Fox {i}: a vertex {farthest} from the centre, radius {}",
                sphere.w
            );
            loosest = loosest.max(sphere.w / farthest);
        }
    }
    eprintln!("loosest bound: radius {loosest} x the farthest vertex");
    gpu.finish();
}

/// The pose and vertex that reach farthest outside the bind pose's sphere
/// (object space, `bind`): (clip, time, the vertex, how far outside).
fn farthest_outside(
    document: &GltfDocument,
    fox: &FoxSkin<'_>,
    bind: Vec4,
) -> (usize, f32, Vec3, f32) {
    let mut player = document
        .animated_scene(None, Mat4::IDENTITY)
        .unwrap()
        .unwrap();
    let mut best = (0, 0.0, Vec3::ZERO, f32::NEG_INFINITY);
    for (clip, data) in document.animation.clips.iter().enumerate() {
        player.play(Playback::looping(clip));
        for step in 0..24 {
            let time = data.duration * step as f32 / 24.0;
            let posed = player.posed_mesh(fox.mesh, Some(fox.skin), time).unwrap();
            for p in &posed.positions {
                let p = Vec3::from(*p);
                let outside = p.distance(bind.truncate()) - bind.w;
                if outside > best.3 {
                    best = (clip, time, p, outside);
                }
            }
        }
    }
    best
}

/// The camera's visible set, and each shadow cascade's (culled in the same
/// dispatch), equals the CPU reference that culls each Fox by its
/// CPU-posed skinned sphere, over several frames, for a crowd around
/// the frustum's edges and one Fox placed so that its bind pose's sphere
/// lies wholly outside the right plane while a limb swings across it into
/// view. The bind pose's reference differs there (it drops that Fox), and
/// the id image shows the limb: the Fox is drawn.
#[test]
fn the_visible_set_follows_a_limb_outside_the_bind_pose_bounds() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let document = fox();
    let fox = fox_skin(&document);
    let data = &document.animation;
    let camera = Camera {
        position: Vec3::ZERO,
        target: Vec3::new(0.0, 0.0, -1.0),
        z_far: 4000.0,
        ..Default::default()
    };
    let planes = frustum_planes(&camera.clip_from_world());
    // The bind pose's object-space sphere, as the object table bounds it.
    let mut probe = renderer(&gpu, false);
    let probe_objects = fox_crowd(
        &mut probe,
        &document,
        &fox,
        &[Mat4::IDENTITY],
        &[Playing::Nothing],
    );
    let bind = bind_sphere(&probe, probe_objects[0]);
    let (clip, time, vertex, outside) = farthest_outside(&document, &fox, bind);
    eprintln!("clip {clip} at {time} s: a vertex {outside} outside the bind sphere {bind}");
    assert!(outside > 0.05 * bind.w, "the limb leaves the bind sphere");
    // Turn the limb's direction onto the right plane's inward normal, and
    // put the bind sphere outside that plane by half the limb's reach.
    let right = planes[1];
    let inward = right.truncate();
    let limb = (vertex - bind.truncate()).normalize();
    let depth_point = Vec3::new(0.0, 0.0, -6.0 * bind.w);
    let distance = inward.dot(depth_point) + right.w;
    let bind_world = depth_point - inward * (distance + bind.w + 0.5 * outside);
    let swinging = Mat4::from_translation(bind_world)
        * Mat4::from_quat(Quat::from_rotation_arc(limb, inward))
        * Mat4::from_translation(-bind.truncate());
    // A crowd at the frustum's edges: every clip at its own phase.
    let mut placements = vec![swinging];
    let mut playing = vec![Playing::One(Playback::looping(clip))];
    let mut seed = 7u32;
    let mut random = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    for i in 0..40 {
        let depth = 300.0 + 1500.0 * random();
        let half_width = depth * (30f32.to_radians()).tan();
        let position = Vec3::new(
            (random() * 2.0 - 1.0) * 1.3 * half_width,
            (random() * 2.0 - 1.0) * 1.3 * half_width,
            -depth,
        );
        placements.push(Mat4::from_rotation_translation(
            Quat::from_rotation_y(random() * std::f32::consts::TAU)
                * Quat::from_rotation_x(random() - 0.5),
            position,
        ));
        playing.push(Playing::One(Playback {
            clip: i % data.clips.len(),
            start: random() * 3.0,
            speed: 1.0,
            looping: true,
        }));
    }
    let mut renderer = renderer(&gpu, false);
    let objects = fox_crowd(&mut renderer, &document, &fox, &placements, &playing);
    renderer.set_camera(&camera).unwrap();
    // The sun's cascades cull in the same dispatch, from the same bounds.
    renderer
        .set_lighting(&unbound::Lighting {
            direction_to_light: Vec3::new(0.3, 0.9, -0.4),
            ..Default::default()
        })
        .unwrap();
    renderer
        .set_shadows(&unbound::ShadowSettings {
            enabled: true,
            max_distance: 2000.0,
            resolution: 256,
            ..Default::default()
        })
        .unwrap();
    let target = Target::with_format(&gpu, 160, 160, wgpu::TextureFormat::Rgba8Unorm);
    // Bind-pose disagreements: the camera's, the cascades'.
    let (mut checked, mut bind_differs) = (0, [0, 0]);
    for frame_time in [time, time + 0.8, time + 2.1] {
        renderer.set_animation_time(frame_time).unwrap();
        target.render(&gpu, &mut renderer);
        // The camera (view 0) and each shadow cascade (views 1 to 4).
        let cascades = renderer.shadow_cascades().to_vec();
        assert_eq!(cascades.len(), 4);
        let views: Vec<(u32, [Vec4; 6], bool)> = std::iter::once((0, planes, true))
            .chain(
                (1..)
                    .zip(cascades.iter().map(|c| (c.planes(), false)))
                    .map(|(v, (p, c))| (v, p, c)),
            )
            .collect();
        for (view, planes, camera) in views {
            let keep = |sphere: Vec4| match camera {
                true => sphere_in_frustum(&planes, sphere),
                false => caster_in_cascade(&planes, sphere),
            };
            let mut expected = Vec::new();
            let mut ambiguous = Vec::new();
            for (i, object) in objects.iter().enumerate() {
                let slot = renderer.objects().resolve(*object).unwrap();
                let sphere = cpu_sphere(&document, &fox, placements[i], &playing[i], frame_time);
                let bind = bind_sphere(&renderer, *object);
                // Too close to call in f32 (GPU and CPU spheres differ by
                // about TOLERANCE relative).
                let margin = PLANE_EPSILON.max(TOLERANCE) * sphere.abs().max_element().max(1.0);
                if sphere_plane_margin(&planes, sphere) < margin {
                    ambiguous.push(slot);
                    continue;
                }
                let seen = keep(sphere);
                if seen {
                    expected.push(slot);
                }
                if sphere_plane_margin(&planes, bind) >= margin && keep(bind) != seen {
                    bind_differs[usize::from(!camera)] += 1;
                }
                checked += 1;
            }
            expected.sort_unstable();
            ambiguous.sort_unstable();
            let region = renderer.cull_region(view).unwrap();
            let header: unbound::gpu_types::GpuCullHeader =
                bytemuck::pod_read_unaligned(&gpu.read_buffer(
                    renderer.cull_counters_buffer(),
                    region.counters_offset,
                    size_of::<unbound::gpu_types::GpuCullHeader>() as u64,
                ));
            let visible = gpu.read_u32s(
                renderer.visible_instances_buffer(),
                region.visible_instances_offset,
                u64::from(header.visible_instances),
            );
            assert!(!expected.is_empty(), "view {view}");
            assert_visible_set(&visible, &expected, &ambiguous);
        }
        if frame_time == time {
            // The swinging Fox: its bind sphere wholly outside, its limb
            // inside, and it is drawn.
            let bind = bind_sphere(&renderer, objects[0]);
            assert!(!sphere_in_frustum(&planes, bind), "bind sphere {bind}");
            let limb_world = swinging.transform_point3(vertex);
            assert!(
                planes
                    .iter()
                    .all(|p| p.truncate().dot(limb_world) + p.w > 0.0),
                "the limb {limb_world} is in view"
            );
            let posed = cpu_sphere(&document, &fox, placements[0], &playing[0], frame_time);
            assert!(
                sphere_in_frustum(&planes, posed) && sphere_plane_margin(&planes, posed) > 1.0,
                "the swinging Fox is expected in view"
            );
            // Alone, it is drawn: every pixel it covers is outside its bind
            // sphere.
            probe.set_transform(probe_objects[0], swinging).unwrap();
            probe.play_animation(&playing[..1], time).unwrap();
            probe.set_camera(&camera).unwrap();
            probe
                .set_debug(&DebugOptions {
                    view: DebugView::ObjectIndex,
                    ..Default::default()
                })
                .unwrap();
            let (ids, _) = target.render(&gpu, &mut probe);
            let background = ids.get_pixel(0, 0);
            let limb_pixels = ids.pixels().filter(|p| *p != background).count();
            save_output("animation_culling_limb_ids", &ids);
            eprintln!("the limb covers {limb_pixels} pixels");
            assert!(limb_pixels > 0, "the limb is drawn");
        }
    }
    eprintln!(
        "{checked} Foxes checked in every view, culled otherwise by the bind pose's sphere: \
         {} by the camera, {} by the cascades",
        bind_differs[0], bind_differs[1]
    );
    assert!(bind_differs[0] > 0);
    gpu.finish();
}

/// Foxes playing behind a wall (some hidden, some showing their heads)
/// and in front of it: with occlusion culling on, every frame of a
/// playing sequence equals the frame frustum culling alone draws, pixel
/// for pixel, and occlusion culling did hide some.
#[test]
fn occlusion_culling_draws_what_frustum_culling_draws_while_foxes_play() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let document = fox();
    let fox = fox_skin(&document);
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let size = max - min;
    let clips = document.animation.clips.len();
    let (length, height) = (size.max_element(), size.y);
    let mut placements = Vec::new();
    let mut playing = Vec::new();
    // Three rows behind the wall, seven columns (the wall hides the middle
    // ones; the outer ones stand beside it, limbs swinging past its
    // edges), and three Foxes in front of it.
    let mut place = |x: f32, z: f32, i: usize| {
        placements.push(Mat4::from_rotation_translation(
            Quat::from_rotation_y(0.9 * i as f32),
            Vec3::new(x * length, -min.y, z * length),
        ));
        playing.push(Playing::One(Playback {
            clip: i % clips,
            start: 0.21 * i as f32,
            speed: 1.0,
            looping: true,
        }));
    };
    for row in 0..3 {
        for column in 0..7 {
            let i = row * 7 + column;
            place((column as f32 - 3.0) * 1.1, -(row as f32) * 1.3, i);
        }
    }
    for i in 0..3 {
        place(i as f32 - 1.0, 2.4, 21 + i);
    }
    let camera = Camera {
        position: Vec3::new(0.0, height * 1.2, length * 5.0),
        target: Vec3::new(0.0, height * 0.8, -length),
        aspect: 192.0 / 144.0,
        z_far: 4000.0,
        ..Default::default()
    };
    let wall = quad_at(
        Vec3::new(0.0, height * 2.0, length * 1.2),
        length * 5.5,
        height * 6.0,
    );
    let mut views = Vec::new();
    for occlusion in [true, false] {
        let mut renderer = renderer(&gpu, occlusion);
        fox_crowd(&mut renderer, &document, &fox, &placements, &playing);
        let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
        add_solid_object(&mut renderer, quad, [200, 200, 200, 255], wall);
        renderer.set_camera(&camera).unwrap();
        views.push(renderer);
    }
    let target = Target::new(&gpu, 192, 144);
    let (mut occluded, mut counted) = (0, std::collections::HashSet::new());
    for frame in 0..10 {
        let time = 0.13 * frame as f32;
        let mut images = Vec::new();
        for renderer in &mut views {
            renderer.set_animation_time(time).unwrap();
            images.push(target.render(&gpu, renderer).0);
        }
        let differing = mismatched_pixels(&images[0], &images[1], 0);
        if differing > 0 {
            save_output(
                &format!("animation_culling_occlusion_{frame}_on"),
                &images[0],
            );
            save_output(
                &format!("animation_culling_occlusion_{frame}_off"),
                &images[1],
            );
        }
        assert_eq!(differing, 0, "frame {frame}: {differing} pixels differ");
        assert!(
            drawn_pixels(&images[0], background_srgb()) > 500,
            "frame {frame}"
        );
        // Statistics of earlier frames come back later: each counted once.
        if let Some(stats) = views[0].latest_gpu_stats() {
            if counted.insert(stats.frame_index) {
                occluded += stats.occluded_instances;
            }
        }
        if frame == 0 {
            save_output("animation_culling_occlusion", &images[0]);
        }
    }
    eprintln!("{occluded} Foxes hidden by occlusion culling over the frames");
    assert!(occluded > 0, "occlusion culling hid no Fox");
    gpu.finish();
}

/// Cluster culling on tier B (forced) draws a skinned instance's clusters
/// untested through the triangle filter's packing, where tier A draws it
/// whole: the playing Foxes look the same, frame for frame.
#[test]
fn tier_b_cluster_culls_skinned_foxes_as_tier_a_does() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let document = fox();
    let fox = fox_skin(&document);
    let (placements, playing) = crowd_of(&document);
    let mut views: Vec<Renderer> = [None, Some(unbound::Tier::B)]
        .into_iter()
        .map(|tier| {
            let mut renderer = gpu.renderer_with(unbound::RendererConfig {
                capacities: Gpu::default_capacities(),
                cluster_culling: true,
                tier,
                ..Default::default()
            });
            renderer.set_small_object_culling(false);
            renderer.set_lighting(&flat_lighting()).unwrap();
            fox_crowd(&mut renderer, &document, &fox, &placements, &playing);
            renderer.set_camera(&crowd_camera()).unwrap();
            renderer
        })
        .collect();
    let target = Target::new(&gpu, 160, 160);
    let mut whole = [0, 0];
    for (frame, time) in TIMES.into_iter().enumerate() {
        let mut images = Vec::new();
        for (i, renderer) in views.iter_mut().enumerate() {
            renderer.set_animation_time(time).unwrap();
            images.push(target.render(&gpu, renderer).0);
            if let Some(clusters) = renderer.latest_gpu_stats().and_then(|s| s.clusters) {
                whole[i] += clusters.whole_meshes;
            }
        }
        let differing = mismatched_pixels(&images[1], &images[0], 0);
        if differing > 0 {
            save_output(&format!("animation_culling_tier_b_{frame}"), &images[1]);
            save_output(&format!("animation_culling_tier_a_{frame}"), &images[0]);
        }
        assert_eq!(differing, 0, "frame {frame}: {differing} pixels differ");
        assert!(drawn_pixels(&images[0], background_srgb()) > 500);
    }
    gpu.finish();
    assert!(whole[0] > 0, "tier A draws skinned Foxes whole");
    assert_eq!(whole[1], 0, "tier B packs their clusters");
}
