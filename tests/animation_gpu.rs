//! Animation on the GPU: the playback pass (`src/passes/animation.rs`)
//! against the CPU twins (`src/animation/pose.rs`): node world matrices,
//! joint palettes and morph weights read back after a frame, for the Fox
//! (its three clips at several times, speeds, phases, a clamped clip, a
//! blend, the rest pose) and for a generated hierarchy whose clips use
//! STEP, LINEAR and CUBICSPLINE and animate morph weights. On lavapipe
//! (the pass does not depend on the tier: tiers A and B run the same
//! pipeline) and on Mesa's GL llvmpipe (tier C).
//!
//! Tolerance: every element within 1e-4 of the largest element of its
//! matrix (at least 1), i.e. 1e-4 relative (the GPU's `acos`, `sin` and
//! divisions are not correctly rounded, and the Fox's matrices carry
//! translations of about 100 units).

mod common;

use common::{Gpu, Target, asset, camera_framing_box, color_distance, save_output};
use glam::{Mat4, Quat, Vec3};
use unbound::animation::{
    AnimationData, AnimationNode, AnimationTables, Channel, ChannelPath, Clip, Interpolation,
    NodeTransform, Playback, Playing, Pose, Sampler, Skin, joint_palette,
};
use unbound::loaders::gltf::{GltfDocument, parse_gltf};
use unbound::passes::animation::AnimationPass;
use unbound::{DebugOptions, DebugView, ObjectDesc, Renderer};

/// wgpu's GL backend and lavapipe take turns (see tests/tiers.rs).
static GL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gl_turn() -> std::sync::MutexGuard<'static, ()> {
    GL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

const TOLERANCE: f32 = 1e-4;

/// One frame of the pass at `time`, read back: per instance, its node
/// matrices and palette, and its weights.
fn play_on_gpu(
    gpu: &Gpu,
    pass: &mut AnimationPass,
    tables: &AnimationTables,
    time: f32,
) -> (Vec<Vec<Mat4>>, Vec<Vec<f32>>) {
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    pass.record(&gpu.device, &mut encoder, time, None).unwrap();
    gpu.queue.submit([encoder.finish()]);
    let instances = pass.instance_count() as usize;
    let stride = tables.pose_stride();
    let bytes = gpu.read_buffer(
        pass.poses(),
        pass.pose_offset(0),
        (instances * stride * 64) as u64,
    );
    let floats: &[f32] = bytemuck::cast_slice(&bytes);
    let poses = (0..instances)
        .map(|i| {
            (0..stride)
                .map(|m| Mat4::from_cols_slice(&floats[(i * stride + m) * 16..][..16]))
                .collect()
        })
        .collect();
    let per = tables.weight_count as usize;
    let weights = if per == 0 {
        vec![Vec::new(); instances]
    } else {
        let bytes = gpu.read_buffer(
            pass.weights(),
            pass.weights_offset(),
            (instances * per * 4) as u64,
        );
        let floats: &[f32] = bytemuck::cast_slice(&bytes);
        floats.chunks(per).map(<[f32]>::to_vec).collect()
    };
    (poses, weights)
}

/// The CPU twin's node matrices followed by every skin's palette, and the
/// weights of every node, in the tables' order.
fn play_on_cpu(data: &AnimationData, playing: &Playing, time: f32) -> (Vec<Mat4>, Vec<f32>) {
    let pose = Pose::playing(data, playing, time);
    let mut matrices = pose.world_from_nodes(data);
    let world = matrices.clone();
    for skin in &data.skins {
        matrices.extend(joint_palette(skin, &world));
    }
    (matrices, pose.weights.concat())
}

/// The largest error of the GPU's output against the CPU twin's, each
/// relative to its matrix's largest element (at least 1); weights
/// absolute (they are about 1).
fn compare(gpu: &Gpu, data: &AnimationData, playing: &[Playing], times: &[f32]) -> f32 {
    let tables = AnimationTables::new(data).unwrap();
    let mut pass = AnimationPass::new(&gpu.device, &tables, playing.len() as u32).unwrap();
    pass.set_instances(playing).unwrap();
    let mut worst = 0.0f32;
    for &time in times {
        let (poses, weights) = play_on_gpu(gpu, &mut pass, &tables, time);
        for (i, play) in playing.iter().enumerate() {
            let (matrices, expected_weights) = play_on_cpu(data, play, time);
            assert_eq!(poses[i].len(), matrices.len());
            for (m, (g, c)) in poses[i].iter().zip(&matrices).enumerate() {
                let scale = c.to_cols_array().iter().fold(1.0f32, |a, v| a.max(v.abs()));
                let error = (*g - *c)
                    .to_cols_array()
                    .iter()
                    .fold(0.0f32, |a, v| a.max(v.abs()))
                    / scale;
                assert!(
                    error <= TOLERANCE,
                    "t = {time}, instance {i} ({play:?}), matrix {m}: relative error {error}\nGPU {g}\nCPU {c}"
                );
                worst = worst.max(error);
            }
            assert_eq!(weights[i].len(), expected_weights.len());
            for (w, (g, c)) in weights[i].iter().zip(&expected_weights).enumerate() {
                let error = (g - c).abs();
                assert!(
                    error <= TOLERANCE,
                    "t = {time}, instance {i}, weight {w}: GPU {g}, CPU {c}"
                );
                worst = worst.max(error);
            }
        }
    }
    gpu.finish();
    worst
}

fn looping(clip: usize, start: f32, speed: f32) -> Playback {
    Playback {
        clip,
        start,
        speed,
        looping: true,
    }
}

/// The Fox's instances: rest, each clip with its own phase and speed, one
/// clamped (not looping, played backwards), a blend, a clip that does not
/// exist (the rest pose).
fn fox_instances(data: &AnimationData) -> Vec<Playing> {
    let survey = data.clip_named("Survey").unwrap();
    let walk = data.clip_named("Walk").unwrap();
    let run = data.clip_named("Run").unwrap();
    vec![
        Playing::Nothing,
        Playing::One(looping(survey, 0.0, 1.0)),
        Playing::One(looping(walk, 0.3, 1.5)),
        Playing::One(looping(run, -0.2, 0.8)),
        Playing::One(Playback {
            clip: walk,
            start: 0.5,
            speed: -1.0,
            looping: false,
        }),
        Playing::Blend(looping(walk, 0.0, 1.0), looping(run, 0.1, 1.0), 0.35),
        Playing::One(looping(99, 0.0, 1.0)),
    ]
}

const FOX_TIMES: [f32; 4] = [0.0, 0.37, 1.25, 4.9];

/// The Fox, on lavapipe (tiers A and B run this same pass).
#[test]
fn gpu_playback_of_the_fox_matches_the_cpu_twin() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let document = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let data = &document.animation;
    let worst = compare(&gpu, data, &fox_instances(data), &FOX_TIMES);
    eprintln!("Fox: worst relative error {worst:e}");
}

fn trs(translation: Vec3, rotation: Quat, scale: Vec3) -> NodeTransform {
    NodeTransform {
        translation,
        rotation,
        scale,
    }
}

/// Three nodes in a chain (the last with two morph weights) and a skin of
/// the last two; clip 0: CUBICSPLINE translation, STEP rotation, LINEAR
/// scale and weights; clip 1: LINEAR rotation (slerp), CUBICSPLINE
/// weights.
fn generated() -> AnimationData {
    let node = |parent, rest, weights: Vec<f32>| AnimationNode {
        parent,
        source: 0,
        rest,
        weights,
    };
    let sampler = |times: &[f32], values: Vec<f32>, components, interpolation| Sampler {
        times: times.to_vec(),
        values,
        components,
        interpolation,
    };
    let q =
        |axis: Vec3, degrees: f32| Quat::from_axis_angle(axis.normalize(), degrees.to_radians());
    let quats = |qs: &[Quat]| qs.iter().flat_map(|q| q.to_array()).collect::<Vec<f32>>();
    let channel = |node, path, sampler| Channel {
        node,
        path,
        sampler,
    };
    let times = [0.0, 0.4, 1.0, 1.7];
    let clip0 = Clip {
        name: Some("cubic".into()),
        duration: 1.7,
        samplers: vec![
            // In-tangent, value, out-tangent per key.
            sampler(
                &times,
                (0..36).map(|i| ((i * 7 % 11) as f32 - 5.0) * 0.3).collect(),
                3,
                Interpolation::CubicSpline,
            ),
            sampler(
                &times,
                quats(&[
                    q(Vec3::Z, 10.0),
                    q(Vec3::X, 80.0),
                    q(Vec3::Y, -50.0),
                    q(Vec3::ONE, 170.0),
                ]),
                4,
                Interpolation::Step,
            ),
            sampler(
                &times[..2],
                vec![1.0, 1.0, 1.0, 2.0, 0.5, 1.5],
                3,
                Interpolation::Linear,
            ),
            sampler(
                &times[1..],
                vec![0.0, 1.0, 0.5, 0.25, 1.0, 0.0],
                2,
                Interpolation::Linear,
            ),
        ],
        channels: vec![
            channel(0, ChannelPath::Translation, 0),
            channel(1, ChannelPath::Rotation, 1),
            channel(2, ChannelPath::Scale, 2),
            channel(2, ChannelPath::Weights, 3),
        ],
    };
    let clip1 = Clip {
        name: Some("slerp".into()),
        duration: 1.0,
        samplers: vec![
            sampler(
                &times[..3],
                // 170° apart and across the hemisphere: the short arc.
                quats(&[
                    q(Vec3::Y, 0.0),
                    q(Vec3::Y, 170.0),
                    -q(Vec3::new(1.0, 1.0, 0.0), 300.0),
                ]),
                4,
                Interpolation::Linear,
            ),
            sampler(
                &times[..2],
                vec![0.5, -0.5, 0.0, 0.2, 1.0, 0.3, -1.0, 1.0, 0.7, 0.0, 0.0, 0.0],
                2,
                Interpolation::CubicSpline,
            ),
        ],
        channels: vec![
            channel(1, ChannelPath::Rotation, 0),
            channel(2, ChannelPath::Weights, 1),
        ],
    };
    AnimationData {
        nodes: vec![
            node(
                None,
                trs(Vec3::new(1.0, 2.0, 3.0), q(Vec3::X, 30.0), Vec3::ONE),
                vec![],
            ),
            node(
                Some(0),
                trs(Vec3::Y, q(Vec3::Z, -20.0), Vec3::splat(2.0)),
                vec![],
            ),
            node(
                Some(1),
                trs(Vec3::X * 0.5, Quat::IDENTITY, Vec3::ONE),
                vec![0.25, 0.75],
            ),
        ],
        clips: vec![clip0, clip1],
        skins: vec![Skin {
            joints: vec![1, 2],
            inverse_bind: vec![
                Mat4::from_translation(-Vec3::Y),
                Mat4::from_scale_rotation_translation(Vec3::splat(0.5), q(Vec3::X, 45.0), Vec3::Z),
            ],
            skeleton: None,
        }],
        meshes: vec![],
        objects: vec![],
    }
}

fn generated_instances() -> Vec<Playing> {
    vec![
        Playing::One(looping(0, 0.0, 1.0)),
        Playing::One(looping(1, 0.25, 1.0)),
        Playing::Blend(looping(0, 0.0, 1.0), looping(1, 0.0, 0.5), 0.6),
        Playing::Blend(looping(1, 0.0, 1.0), looping(0, 0.3, 1.0), 0.25),
    ]
}

const GENERATED_TIMES: [f32; 6] = [0.0, 0.2, 0.4, 0.55, 1.3, 2.9];

/// STEP, LINEAR (slerp across hemispheres), CUBICSPLINE, morph weights
/// and blends over a three-level hierarchy, on lavapipe.
#[test]
fn gpu_playback_of_every_interpolation_matches_the_cpu_twin() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let worst = compare(&gpu, &generated(), &generated_instances(), &GENERATED_TIMES);
    eprintln!("generated: worst relative error {worst:e}");
}

/// The same on Mesa's GL llvmpipe (tier C).
#[test]
fn gpu_playback_matches_the_cpu_twin_on_gl() {
    let _turn = gl_turn();
    let gpu = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    let worst = compare(&gpu, &generated(), &generated_instances(), &GENERATED_TIMES);
    let document = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let data = &document.animation;
    let fox = compare(&gpu, data, &fox_instances(data), &FOX_TIMES);
    eprintln!("GL: worst relative error {worst:e} (generated), {fox:e} (Fox)");
}

/// More instances than the pass holds is a typed error.
#[test]
fn too_many_instances_is_an_error() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let tables = AnimationTables::new(&generated()).unwrap();
    let mut pass = AnimationPass::new(&gpu.device, &tables, 2).unwrap();
    let error = pass.set_instances(&[Playing::Nothing; 3]).unwrap_err();
    assert_eq!(
        error,
        unbound::animation::AnimationError::TooManyInstances {
            instances: 3,
            capacity: 2
        }
    );
    gpu.finish();
}

/// Pixels whose 3 × 3 neighbourhood in `ids` holds one id: away from
/// every silhouette and every edge between objects.
fn interior(ids: &image::RgbaImage) -> Vec<(u32, u32)> {
    let (w, h) = ids.dimensions();
    let mut inside = Vec::new();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let centre = ids.get_pixel(x, y);
            let uniform =
                (y - 1..=y + 1).all(|ny| (x - 1..=x + 1).all(|nx| ids.get_pixel(nx, ny) == centre));
            if uniform {
                inside.push((x, y));
            }
        }
    }
    inside
}

/// The object-id image and the lit image of `renderer`.
fn ids_and_colours(
    gpu: &Gpu,
    renderer: &mut Renderer,
    ids: &Target,
    colours: &Target,
) -> (image::RgbaImage, image::RgbaImage) {
    let id_view = DebugOptions {
        view: DebugView::ObjectIndex,
        ..Default::default()
    };
    renderer.set_debug(&id_view).unwrap();
    let (id_image, _) = ids.render(gpu, renderer);
    renderer.set_debug(&DebugOptions::default()).unwrap();
    let (colour_image, _) = colours.render(gpu, renderer);
    (id_image, colour_image)
}

/// Largest colour difference allowed away from edges (0 to 255 per
/// channel): the GPU skins with 16-bit weights and its own float
/// arithmetic, the twin's deformed normals are re-encoded into the 40-byte
/// vertex (octahedral, 16 bits).
const COLOUR_TOLERANCE: u8 = 2;

/// The Fox skinned on the GPU (`AnimatedScene::pose_at`: the playback
/// pass's palettes, skinned in the vertex pulling) at two times of "Run"
/// draws as its CPU-posed twin (`AnimatedScene::posed_mesh` drawn static
/// with the same material): object ids equal at every pixel away from
/// edges (the 3 × 3 rule of `interior`), colours there within
/// `COLOUR_TOLERANCE`; and the pose differs from the bind pose. The sun's
/// shadows are on in both (the Fox shadows itself): the shadow pass pulls
/// its vertices through the same skinning.
fn fox_skinned_on_the_gpu_draws_as_its_cpu_twin(gpu: &Gpu) {
    let capacities = Gpu::default_capacities();
    let document: GltfDocument = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let camera = camera_framing_box(min - (max - min) * 0.3, max + (max - min) * 0.3);
    let size = 192;
    let ids = Target::with_format(gpu, size, size, wgpu::TextureFormat::Rgba8Unorm);
    let colours = Target::new(gpu, size, size);
    let run = Playback::looping(document.animation.clip_named("Run").unwrap());

    // The camera stands a few hundred units away: the cascades reach it.
    let shadows = unbound::ShadowSettings {
        enabled: true,
        max_distance: 2000.0,
        ..Default::default()
    };
    let mut animated = gpu.renderer(&capacities);
    animated.set_shadows(&shadows).unwrap();
    let mut scene = document
        .upload(&mut animated, Mat4::IDENTITY, None)
        .unwrap();
    animated.set_camera(&camera).unwrap();
    let (bind_ids, _) = ids_and_colours(gpu, &mut animated, &ids, &colours);
    let mut player = scene.animation.take().expect("the Fox animates");
    player.play(run);

    let mut twin_player = document
        .animated_scene(None, Mat4::IDENTITY)
        .unwrap()
        .unwrap();
    twin_player.play(run);
    let driver = document.animation.objects[0];
    let mut twin = gpu.renderer(&capacities);
    twin.set_shadows(&shadows).unwrap();
    let reference = document.upload(&mut twin, Mat4::IDENTITY, None).unwrap();
    twin.set_camera(&camera).unwrap();

    for time in [0.3f32, 0.55] {
        player.pose_at(&mut animated, time).unwrap();
        let (gpu_ids, gpu_colours) = ids_and_colours(gpu, &mut animated, &ids, &colours);
        let posed = twin_player
            .posed_mesh(driver.mesh, driver.skin, time)
            .unwrap();
        let mesh = twin.add_mesh(&posed.as_mesh_data()).unwrap();
        let placement = reference.placements[0];
        twin.update_object(
            reference.objects[0],
            &ObjectDesc {
                mesh,
                material: placement.material,
                world_from_object: Mat4::IDENTITY,
            },
        )
        .unwrap();
        let (cpu_ids, cpu_colours) = ids_and_colours(gpu, &mut twin, &ids, &colours);
        // The shadows show: the GPU path without them differs.
        animated
            .set_shadows(&unbound::ShadowSettings::default())
            .unwrap();
        let (unshadowed, _) = colours.render(gpu, &mut animated);
        animated.set_shadows(&shadows).unwrap();
        let shadowed = common::mismatched_pixels(&gpu_colours, &unshadowed, 8);
        save_output(&format!("animation_gpu_fox_{time}"), &gpu_colours);
        save_output(&format!("animation_cpu_fox_{time}"), &cpu_colours);
        let inside = interior(&cpu_ids);
        let inside_count = inside.len();
        let background = cpu_ids.get_pixel(0, 0);
        let covered = inside
            .iter()
            .filter(|&&(x, y)| cpu_ids.get_pixel(x, y) != background)
            .count();
        let id_mismatches = inside
            .iter()
            .filter(|&&(x, y)| gpu_ids.get_pixel(x, y) != cpu_ids.get_pixel(x, y))
            .count();
        let worst_colour = inside
            .iter()
            .map(|&(x, y)| {
                color_distance(*gpu_colours.get_pixel(x, y), cpu_colours.get_pixel(x, y).0)
            })
            .max()
            .unwrap_or(0);
        let moved = inside
            .iter()
            .filter(|&&(x, y)| bind_ids.get_pixel(x, y) != cpu_ids.get_pixel(x, y))
            .count();
        eprintln!(
            "t = {time}: {inside_count} interior pixels ({covered} on the Fox), {id_mismatches} ids differ, \
             largest colour difference {worst_colour}, {moved} differ from the bind pose, \
             {shadowed} are shadowed"
        );
        assert!(covered > 300, "t = {time}: the Fox covers {covered} pixels");
        assert!(
            moved > 50,
            "t = {time}: the pose differs from the bind pose ({moved})"
        );
        assert!(
            shadowed > 20,
            "t = {time}: the Fox shadows itself ({shadowed})"
        );
        assert_eq!(id_mismatches, 0, "t = {time}: ids away from edges");
        assert!(
            worst_colour <= COLOUR_TOLERANCE,
            "t = {time}: colour difference {worst_colour}"
        );
        twin.update_object(reference.objects[0], &placement)
            .unwrap();
        twin.remove_mesh(mesh).unwrap();
    }
    // The playback pass is timed and its buffers counted; the static twin
    // has neither.
    for _ in 0..2 {
        colours.render(gpu, &mut animated);
        colours.render(gpu, &mut twin);
    }
    let timestamps = gpu
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    let played = animated.latest_gpu_stats().expect("statistics arrived");
    let still = twin.latest_gpu_stats().expect("statistics arrived");
    assert_eq!(played.animation_ms.is_some(), timestamps, "{played:?}");
    assert!(played.animation_ms.is_none_or(|ms| ms > 0.0));
    assert_eq!(still.animation_ms, None);
    // Matrices of one instance (26 nodes and 24 joints) and the skin
    // stream at least.
    assert!(animated.memory().animation_bytes >= (26 + 24) * 64 + 1728 * 16);
    assert_eq!(twin.memory().animation_bytes, 0);
    gpu.finish();
}

/// On lavapipe (tier A).
#[test]
fn the_fox_skinned_on_the_gpu_draws_as_its_cpu_twin() {
    let _turn = gl_turn();
    fox_skinned_on_the_gpu_draws_as_its_cpu_twin(&Gpu::new(&Gpu::default_capacities()));
}

/// On Mesa's GL llvmpipe (tier C).
#[test]
fn the_fox_skinned_on_the_gpu_draws_as_its_cpu_twin_on_gl() {
    let _turn = gl_turn();
    let gpu = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    fox_skinned_on_the_gpu_draws_as_its_cpu_twin(&gpu);
}

/// `Renderer::set_animation_time` moves only the time: after the Fox's
/// "Run" is handed over at 0 s, setting 0.55 s draws exactly what playing
/// it at 0.55 s draws (and not what 0 s draws); a time that is not finite
/// is a typed error.
#[test]
fn setting_only_the_time_draws_what_playing_at_that_time_draws() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let document = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let camera = camera_framing_box(min - (max - min) * 0.3, max + (max - min) * 0.3);
    let colours = Target::new(&gpu, 128, 128);
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let mut scene = document
        .upload(&mut renderer, Mat4::IDENTITY, None)
        .unwrap();
    renderer.set_camera(&camera).unwrap();
    let mut player = scene.animation.take().expect("the Fox animates");
    player.play(Playback::looping(
        document.animation.clip_named("Run").unwrap(),
    ));
    player.pose_at(&mut renderer, 0.55).unwrap();
    let (played, _) = colours.render(&gpu, &mut renderer);
    player.pose_at(&mut renderer, 0.0).unwrap();
    let (start, _) = colours.render(&gpu, &mut renderer);
    renderer.set_animation_time(0.55).unwrap();
    let (timed, _) = colours.render(&gpu, &mut renderer);
    assert!(
        common::mismatched_pixels(&start, &played, 8) > 50,
        "the pose at 0 s differs from the one at 0.55 s"
    );
    assert_eq!(common::mismatched_pixels(&timed, &played, 0), 0);
    for time in [f32::NAN, f32::INFINITY] {
        let error = renderer.set_animation_time(time).unwrap_err();
        assert!(
            matches!(
                error,
                unbound::Error::Animation(unbound::animation::AnimationError::Time { .. })
            ),
            "{error}"
        );
    }
    gpu.finish();
}
