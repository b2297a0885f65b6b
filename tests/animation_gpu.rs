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

use common::{Gpu, asset};
use glam::{Mat4, Quat, Vec3};
use unbound::animation::{
    AnimationData, AnimationNode, AnimationTables, Channel, ChannelPath, Clip, Interpolation,
    NodeTransform, Playback, Playing, Pose, Sampler, Skin, joint_palette,
};
use unbound::loaders::gltf::parse_gltf;
use unbound::passes::animation::AnimationPass;

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
    pass.record(&gpu.device, &mut encoder, time).unwrap();
    gpu.queue.submit([encoder.finish()]);
    let instances = pass.instance_count() as usize;
    let stride = tables.pose_stride();
    let bytes = gpu.read_buffer(pass.poses(), 0, (instances * stride * 64) as u64);
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
        let bytes = gpu.read_buffer(pass.weights(), 0, (instances * per * 4) as u64);
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
