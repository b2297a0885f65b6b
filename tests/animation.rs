//! Animation (issue 26, its foundation): the CPU twins against values
//! computed by hand or independently here (sampling, composition, skinning
//! and morphing), the glTF loader's animation data (the Fox, and the
//! quantized Fox posing like the original), rigid node animation and a
//! skinned pose rendered, and hostile animation data refused with typed
//! errors.

mod common;

use std::path::Path;

use common::{
    Gpu, Target, asset, camera_framing_box, drawn_pixels, mismatched_pixels, save_output,
};
use glam::{Mat4, Quat, Vec3, Vec4};
use serde_json::{Value, json};
use unbound::animation::{
    AnimatedScene, AnimationData, AnimationError, AnimationNode, Channel, ChannelPath, Clip,
    DeformedVertex, Interpolation, MeshDeformation, MorphTarget, MorphTargets, NodeTransform,
    Playback, Pose, PosedMesh, Sampler, SamplerError, Skin, SkinInfluences, deform_vertex,
    joint_palette, joint_spheres, skinned_sphere,
};
use unbound::loaders::gltf::{
    GltfDocument, GltfError, Limit, LoadLimits, ParseOptions, parse_gltf, parse_gltf_slice,
    parse_gltf_slice_with_options,
};

fn sampler(
    times: &[f32],
    values: &[f32],
    components: usize,
    interpolation: Interpolation,
) -> Sampler {
    Sampler {
        times: times.to_vec(),
        values: values.to_vec(),
        components,
        interpolation,
    }
}

fn sample(sampler: &Sampler, time: f32, rotation: bool) -> Vec<f32> {
    let mut out = vec![0.0; sampler.components];
    sampler.sample(time, rotation, &mut out);
    out
}

fn close(a: &[f32], b: &[f32], tolerance: f32) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tolerance)
}

/// STEP, LINEAR and CUBICSPLINE against values computed by hand, times
/// before and after the keys, and a rotation slerped across the
/// hemisphere flip (170° to -170° about z: the short way passes 180°).
#[test]
fn samplers_interpolate_as_computed_by_hand() {
    let times = [1.0, 3.0, 4.0];
    let values = [0.0, 0.0, 0.0, 4.0, -2.0, 8.0, 6.0, 0.0, 0.0];
    let linear = sampler(&times, &values, 3, Interpolation::Linear);
    linear.validate().unwrap();
    assert_eq!(
        sample(&linear, 0.0, false),
        [0.0, 0.0, 0.0],
        "before the first key"
    );
    assert_eq!(sample(&linear, 2.0, false), [2.0, -1.0, 4.0]);
    assert_eq!(sample(&linear, 3.5, false), [5.0, -1.0, 4.0]);
    assert_eq!(
        sample(&linear, 10.0, false),
        [6.0, 0.0, 0.0],
        "after the last key"
    );
    let step = sampler(&times, &values, 3, Interpolation::Step);
    assert_eq!(sample(&step, 2.999, false), [0.0, 0.0, 0.0]);
    assert_eq!(sample(&step, 3.0, false), [4.0, -2.0, 8.0]);
    assert_eq!(sample(&step, 3.9, false), [4.0, -2.0, 8.0]);

    // CUBICSPLINE, keys at 0 and 2: v0 = 0 with out-tangent 1, v1 = 1
    // with in-tangent 0. At t = 1: s = 0.5, interval 2, so
    // p = (2s³-3s²+1)·0 + 2(s³-2s²+s)·1 + (-2s³+3s²)·1 + 2(s³-s²)·0
    //   = 0 + 0.25 + 0.5 + 0 = 0.75.
    // Layout per key: in-tangent, value, out-tangent.
    let cubic = sampler(
        &[0.0, 2.0],
        &[9.0, 0.0, 1.0, 0.0, 1.0, 9.0],
        1,
        Interpolation::CubicSpline,
    );
    cubic.validate().unwrap();
    assert!(close(&sample(&cubic, 1.0, false), &[0.75], 1e-6));
    // At t = 0.5: s = 0.25: 2(1/64 - 2/16 + 1/4)·1 + (-2/64 + 3/16)·1
    // = 0.28125 + 0.15625 = 0.4375.
    assert!(close(&sample(&cubic, 0.5, false), &[0.4375], 1e-6));
    assert_eq!(sample(&cubic, -1.0, false), [0.0]);
    assert_eq!(sample(&cubic, 3.0, false), [1.0]);

    // Rotations: 170° and -170° about z; their quaternions' dot product is
    // negative, so the shorter arc is through 180°, not back through 0°.
    let a = Quat::from_rotation_z(170f32.to_radians());
    let b = Quat::from_rotation_z((-170f32).to_radians());
    assert!(a.dot(b) < 0.0);
    let values: Vec<f32> = [a.to_array(), b.to_array()].concat();
    let rotation = sampler(&[0.0, 1.0], &values, 4, Interpolation::Linear);
    let half = Quat::from_slice(&sample(&rotation, 0.5, true));
    let expected = Quat::from_rotation_z(180f32.to_radians());
    assert!(half.dot(expected).abs() > 1.0 - 1e-6, "{half:?}");
    assert!((half.length() - 1.0).abs() < 1e-6);
    // A quarter of the way: 175°.
    let quarter = Quat::from_slice(&sample(&rotation, 0.25, true));
    assert!(
        quarter
            .dot(Quat::from_rotation_z(175f32.to_radians()))
            .abs()
            > 1.0 - 1e-6
    );
    // CUBICSPLINE rotations are normalised after the spline.
    let mut cubic_values = Vec::new();
    for q in [a, b] {
        cubic_values.extend([0.0; 4]);
        cubic_values.extend(q.to_array());
        cubic_values.extend([0.0; 4]);
    }
    let cubic_rotation = sampler(&[0.0, 1.0], &cubic_values, 4, Interpolation::CubicSpline);
    let q = Quat::from_slice(&sample(&cubic_rotation, 0.3, true));
    assert!((q.length() - 1.0).abs() < 1e-6, "{q:?}");
}

fn trs(translation: Vec3, rotation: Quat, scale: Vec3) -> NodeTransform {
    NodeTransform {
        translation,
        rotation,
        scale,
    }
}

/// Matrices composed here independently: translation, rotation and scale
/// each as its own matrix, products written out.
fn independent(t: Vec3, r: Quat, s: Vec3) -> Mat4 {
    Mat4::from_translation(t) * Mat4::from_quat(r) * Mat4::from_scale(s)
}

fn node(parent: Option<usize>, rest: NodeTransform) -> AnimationNode {
    AnimationNode {
        parent,
        source: 0,
        rest,
        weights: Vec::new(),
    }
}

/// A generated 3-level hierarchy (root, child, grandchild, and a second
/// child of the root), one node animated by a clip: world matrices within
/// 1e-5 of products computed independently, at rest and posed.
#[test]
fn three_level_composition_matches_independent_matrices() {
    let (t0, r0, s0) = (
        Vec3::new(1.0, 2.0, 3.0),
        Quat::from_rotation_y(0.7),
        Vec3::splat(2.0),
    );
    let (t1, r1, s1) = (
        Vec3::new(0.0, 1.0, 0.0),
        Quat::from_rotation_x(-0.4),
        Vec3::new(1.0, 0.5, 1.0),
    );
    let (t2, r2, s2) = (
        Vec3::new(0.5, 0.0, -1.0),
        Quat::from_rotation_z(1.2),
        Vec3::ONE,
    );
    let (t3, r3, s3) = (Vec3::new(-3.0, 0.0, 0.0), Quat::IDENTITY, Vec3::splat(0.25));
    let mut data = AnimationData {
        nodes: vec![
            node(None, trs(t0, r0, s0)),
            node(Some(0), trs(t1, r1, s1)),
            node(Some(1), trs(t2, r2, s2)),
            node(Some(0), trs(t3, r3, s3)),
        ],
        ..AnimationData::default()
    };
    // The child's translation moves from t1 to (0, 3, 0) over 2 seconds.
    data.clips.push(Clip {
        name: Some("lift".into()),
        duration: 2.0,
        samplers: vec![sampler(
            &[0.0, 2.0],
            &[0.0, 1.0, 0.0, 0.0, 3.0, 0.0],
            3,
            Interpolation::Linear,
        )],
        channels: vec![Channel {
            node: 1,
            path: ChannelPath::Translation,
            sampler: 0,
        }],
    });
    data.validate().unwrap();
    let root = independent(t0, r0, s0);
    let expect_at = |t1: Vec3| {
        let child = root * independent(t1, r1, s1);
        [
            root,
            child,
            child * independent(t2, r2, s2),
            root * independent(t3, r3, s3),
        ]
    };
    let check = |pose: &Pose, expected: [Mat4; 4], what: &str| {
        let world = pose.world_from_nodes(&data);
        for (i, (w, e)) in world.iter().zip(expected).enumerate() {
            let error = (*w - e)
                .to_cols_array()
                .iter()
                .fold(0f32, |m, x| m.max(x.abs()));
            assert!(error <= 1e-5, "{what}: node {i} off by {error}");
        }
    };
    check(&Pose::rest(&data), expect_at(t1), "rest");
    let playback = Playback {
        clip: 0,
        start: 1.0,
        speed: 1.0,
        looping: false,
    };
    // Scene time 2 is clip time 1: halfway, translation (0, 2, 0).
    check(
        &Pose::at(&data, &playback, 2.0),
        expect_at(Vec3::new(0.0, 2.0, 0.0)),
        "posed",
    );
    // Blending the rest pose with the clip's end at weight 0.25.
    let end = Pose::at_clip_time(&data, &data.clips[0], 2.0);
    let blended = Pose::rest(&data).blend(&end, 0.25);
    check(&blended, expect_at(Vec3::new(0.0, 1.5, 0.0)), "blended");

    // Joint palette: world(joint) * inverse bind, here the inverse of the
    // rest world, so the palette is the identity at rest.
    let rest_world = Pose::rest(&data).world_from_nodes(&data);
    let skin = Skin {
        joints: vec![2, 3],
        inverse_bind: vec![rest_world[2].inverse(), rest_world[3].inverse()],
        skeleton: Some(0),
    };
    for m in joint_palette(&skin, &rest_world) {
        assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-5), "{m:?}");
    }
}

/// A two-joint skin with a morph target: the posed vertices against
/// values computed by hand.
#[test]
fn skinned_and_morphed_vertices_match_hand_values() {
    // Joint 0 at the origin; joint 1 at (1, 0, 0), its child. The clip
    // turns joint 1 by 90° about z over one second.
    let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let data = AnimationData {
        nodes: vec![
            node(None, NodeTransform::IDENTITY),
            node(Some(0), trs(Vec3::X, Quat::IDENTITY, Vec3::ONE)),
        ],
        clips: vec![Clip {
            name: Some("bend".into()),
            duration: 1.0,
            samplers: vec![sampler(
                &[0.0, 1.0],
                &[Quat::IDENTITY.to_array(), quarter.to_array()].concat(),
                4,
                Interpolation::Linear,
            )],
            channels: vec![Channel {
                node: 1,
                path: ChannelPath::Rotation,
                sampler: 0,
            }],
        }],
        skins: vec![Skin {
            joints: vec![0, 1],
            inverse_bind: vec![Mat4::IDENTITY, Mat4::from_translation(-Vec3::X)],
            skeleton: None,
        }],
        meshes: vec![MeshDeformation {
            skin: Some(SkinInfluences {
                per_vertex: 4,
                joints: vec![1, 0, 0, 0, 0, 1, 0, 0],
                weights: vec![1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0],
            }),
            morph: Some(MorphTargets {
                targets: vec![MorphTarget {
                    positions: Some(vec![[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]),
                    normals: None,
                    tangents: None,
                }],
                default_weights: vec![0.5],
            }),
        }],
        objects: Vec::new(),
    };
    let rest = PosedMesh {
        positions: vec![[2.0, 0.0, 0.0], [1.5, 0.0, 0.0]],
        normals: Some(vec![[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
        tangents: Some(vec![[0.0, 1.0, 0.0, -1.0], [1.0, 0.0, 0.0, 1.0]]),
        indices: vec![0, 1, 0],
        ..PosedMesh::default()
    };
    let mut scene = AnimatedScene::new(data, Vec::new(), Mat4::IDENTITY, vec![Some(rest)]).unwrap();
    scene.play(Playback {
        clip: 0,
        start: 0.0,
        speed: 1.0,
        looping: false,
    });
    let posed = scene.posed_mesh(0, Some(0), 1.0).unwrap();
    // Vertex 0: morphed to (2, 0, 0.5); joint 1's palette is
    // T(1,0,0)·Rz(90°)·T(-1,0,0): (2,0,0.5) → (1,0,0.5) → (0,1,0.5) →
    // (1, 1, 0.5). Its normal x turns to y, its tangent y to -x.
    let expect = |got: [f32; 3], want: [f32; 3]| {
        assert!(close(&got, &want, 1e-6), "{got:?} against {want:?}");
    };
    expect(posed.positions[0], [1.0, 1.0, 0.5]);
    expect(posed.normals.as_ref().unwrap()[0], [0.0, 1.0, 0.0]);
    let tangent = posed.tangents.as_ref().unwrap()[0];
    assert!(
        close(&tangent, &[-1.0, 0.0, 0.0, -1.0], 1e-6),
        "{tangent:?}"
    );
    // Vertex 1, half on each joint: joint 0 leaves (1.5, 0, 0); joint 1
    // takes it to (1, 0.5, 0); the average is (1.25, 0.25, 0). The blended
    // matrix keeps z, so the normal (0, 0, 1) stays.
    expect(posed.positions[1], [1.25, 0.25, 0.0]);
    expect(posed.normals.as_ref().unwrap()[1], [0.0, 0.0, 1.0]);
    // The same through the vertex function, morph weight 1 and no skin.
    let alone = deform_vertex(
        DeformedVertex {
            position: Vec3::new(2.0, 0.0, 0.0),
            normal: Vec3::X,
            tangent: Vec4::Y,
        },
        0,
        Some((scene.data().meshes[0].morph.as_ref().unwrap(), &[1.0])),
        None,
    );
    assert_eq!(alone.position, Vec3::new(2.0, 0.0, 1.0));
}

/// The JSON chunk of a GLB file.
fn glb_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    let length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[20..20 + length]).unwrap()
}

/// Each animation's duration as the file's JSON says: the largest `max` of
/// its samplers' input accessors.
fn durations(json: &Value) -> Vec<(String, f32)> {
    json["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|animation| {
            let end = animation["samplers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    json["accessors"][s["input"].as_u64().unwrap() as usize]["max"][0]
                        .as_f64()
                        .unwrap()
                })
                .fold(0.0, f64::max);
            (animation["name"].as_str().unwrap().to_owned(), end as f32)
        })
        .collect()
}

/// The Fox: its clips with their names and durations, one skin of as many
/// joints as the file's, and its skinning streams (numbers printed for the
/// report).
#[test]
fn the_fox_loads_its_clips_skin_and_streams() {
    let path = asset("gltfpack/Fox.glb");
    let json = glb_json(&path);
    let document = parse_gltf(&path).unwrap();
    let animation = &document.animation;
    let expected = durations(&json);
    assert_eq!(expected.len(), 3);
    let loaded: Vec<(String, f32)> = animation
        .clips
        .iter()
        .map(|c| (c.name.clone().unwrap(), c.duration))
        .collect();
    assert_eq!(loaded, expected);
    let names: Vec<&str> = loaded.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    let joints = json["skins"][0]["joints"].as_array().unwrap().len();
    assert_eq!(json["skins"].as_array().unwrap().len(), 1);
    assert_eq!(animation.skins.len(), 1);
    assert_eq!(animation.skins[0].joints.len(), joints);
    assert_eq!(joints, 24);
    assert_eq!(
        animation.nodes.len(),
        json["nodes"].as_array().unwrap().len()
    );
    // Every placement of the skinned mesh is driven by the skin.
    assert!(!animation.objects.is_empty());
    for driver in &animation.objects {
        assert_eq!(driver.skin, Some(0));
        let stream = animation.meshes[driver.mesh]
            .skin
            .as_ref()
            .expect("JOINTS_0/WEIGHTS_0");
        assert_eq!(stream.per_vertex, 4);
        assert_eq!(stream.len(), document.meshes[driver.mesh].positions.len());
        for v in 0..stream.len() {
            let sum: f32 = stream.of(v).map(|(_, w)| w).sum();
            assert!((sum - 1.0).abs() < 1e-5, "vertex {v}: {sum}");
        }
    }
    for (c, clip) in animation.clips.iter().enumerate() {
        let channels = json["animations"][c]["channels"].as_array().unwrap().len();
        assert_eq!(clip.channels.len(), channels);
        eprintln!(
            "Fox clip {c} {:?}: {:.4} s, {} channels, {} samplers, {} keyframes",
            clip.name.as_deref().unwrap_or(""),
            clip.duration,
            clip.channels.len(),
            clip.samplers.len(),
            clip.keyframes()
        );
    }
    assert!(document.warnings.is_empty(), "{:?}", document.warnings);
}

/// An animated scene of a parsed document, not in a renderer.
fn unplaced(document: &GltfDocument) -> AnimatedScene {
    document
        .animated_scene(None, Mat4::IDENTITY)
        .unwrap()
        .expect("animated")
}

/// `Fox_quantized.glb` (gltfpack: 14-bit positions, 8-bit weights, 16-bit
/// rotations, position dequantisation folded into the inverse bind
/// matrices, clips resampled at 30 Hz) posed at 0.5 s of "Walk" (a key
/// time in both files: 12/24 s and 15/30 s) lies where the original does:
/// each original vertex is matched with the quantized vertex nearest to it
/// at rest, and their posed positions differ by at most 0.05% of the Fox's
/// extent (measured: 0.004% at rest, 0.02% walking; the 14-bit grid's step
/// is 0.006% of the extent, and 8-bit weights and 16-bit rotations add
/// the rest). A pose that ignored the folded dequantisation would be off
/// by about the whole extent.
#[test]
fn the_quantized_fox_poses_like_the_original() {
    let original = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let quantized = parse_gltf(&asset("gltfpack/Fox_quantized.glb")).unwrap();
    let posed = |document: &GltfDocument, time: Option<f32>| {
        let mut scene = unplaced(document);
        let driver = document.animation.objects[0];
        if let Some(time) = time {
            let walk = document.animation.clip_named("Walk").unwrap();
            scene.play(Playback {
                clip: walk,
                start: 0.0,
                speed: 1.0,
                looping: false,
            });
            return scene.posed_mesh(driver.mesh, driver.skin, time).unwrap();
        }
        scene.posed_mesh(driver.mesh, driver.skin, 0.0).unwrap()
    };
    let (rest_a, rest_b) = (posed(&original, None), posed(&quantized, None));
    let (walk_a, walk_b) = (posed(&original, Some(0.5)), posed(&quantized, Some(0.5)));
    let (mut min, mut max) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in &rest_a.positions {
        min = min.min(Vec3::from(*p));
        max = max.max(Vec3::from(*p));
    }
    let extent = (max - min).length();
    let (mut rest_error, mut pose_error, mut moved) = (0f32, 0f32, 0f32);
    for (a, rest) in rest_a.positions.iter().enumerate() {
        let rest = Vec3::from(*rest);
        let b = (0..rest_b.positions.len())
            .min_by(|&i, &j| {
                let di = rest.distance(Vec3::from(rest_b.positions[i]));
                let dj = rest.distance(Vec3::from(rest_b.positions[j]));
                di.total_cmp(&dj)
            })
            .unwrap();
        rest_error = rest_error.max(rest.distance(Vec3::from(rest_b.positions[b])));
        let (pa, pb) = (
            Vec3::from(walk_a.positions[a]),
            Vec3::from(walk_b.positions[b]),
        );
        pose_error = pose_error.max(pa.distance(pb));
        moved = moved.max(pa.distance(rest));
    }
    eprintln!(
        "Fox extent {extent:.2}: rest {rest_error:.4}, walk at 0.5 s {pose_error:.4} apart; \
         a vertex moved up to {moved:.2} from rest"
    );
    assert!(moved > extent * 0.05, "the walk moves the Fox: {moved}");
    assert!(rest_error <= extent * 5e-4, "rest poses {rest_error} apart");
    assert!(pose_error <= extent * 5e-4, "walk poses {pose_error} apart");
}

/// Buffer views and accessors of a generated glTF, one view each, in one
/// buffer written as a data URI.
#[derive(Default)]
struct Builder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Builder {
    fn push(
        &mut self,
        bytes: &[u8],
        component: u32,
        kind: &str,
        count: usize,
        extra: &Value,
    ) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        let mut accessor = json!({
            "bufferView": self.views.len() - 1, "componentType": component, "count": count, "type": kind
        });
        if let (Some(a), Some(e)) = (accessor.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn floats(&mut self, values: &[f32], kind: &str, extra: &Value) -> usize {
        let per = match kind {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => unreachable!(),
        };
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.push(&bytes, 5126, kind, values.len() / per, extra)
    }

    /// Key times, with the `min` and `max` the specification requires.
    fn times(&mut self, times: &[f32]) -> usize {
        let (min, max) = (times[0], times[times.len() - 1]);
        let bounds = if min.is_finite() && max.is_finite() {
            json!({"min": [min], "max": [max]})
        } else {
            json!({"min": [0.0], "max": [1.0]})
        };
        self.floats(times, "SCALAR", &bounds)
    }

    /// The file: `json` with the buffer, views and accessors added.
    fn file(self, mut json: Value) -> Vec<u8> {
        json["asset"] = json!({"version": "2.0"});
        json["buffers"] = json!([{
            "byteLength": self.bin.len(),
            "uri": format!("data:application/octet-stream;base64,{}", common::base64(&self.bin)),
        }]);
        json["bufferViews"] = Value::Array(self.views);
        json["accessors"] = Value::Array(self.accessors);
        json.to_string().into_bytes()
    }
}

/// A unit cube's positions, normals and indices as accessors.
fn cube_primitive(builder: &mut Builder) -> Value {
    let cube = unbound::shapes::cube();
    let positions: Vec<f32> = cube.positions.concat();
    let normals: Vec<f32> = cube.normals.concat();
    let bounds = json!({"min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5]});
    let position = builder.floats(&positions, "VEC3", &bounds);
    let normal = builder.floats(&normals, "VEC3", &json!({}));
    let index_bytes: Vec<u8> = cube.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let indices = builder.push(&index_bytes, 5125, "SCALAR", cube.indices.len(), &json!({}));
    json!({"attributes": {"POSITION": position, "NORMAL": normal}, "indices": indices})
}

/// A cube (node 1) below a parent moved back by 1 in z (node 0), its
/// translation animated linearly from (-1, 0.25, 0) at 0 s to
/// (1, 0.25, 0) at 1 s.
fn sliding_cube() -> Vec<u8> {
    let mut builder = Builder::default();
    let primitive = cube_primitive(&mut builder);
    let input = builder.times(&[0.0, 1.0]);
    let output = builder.floats(&[-1.0, 0.25, 0.0, 1.0, 0.25, 0.0], "VEC3", &json!({}));
    builder.file(json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"translation": [0.0, 0.0, -1.0], "children": [1]}, {"mesh": 0}],
        "meshes": [{"primitives": [primitive]}],
        "animations": [{
            "name": "slide",
            "samplers": [{"input": input, "output": output}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}]
        }]
    }))
}

/// The x of the centre of the pixels that differ from the background.
fn drawn_center_x(image: &image::RgbaImage) -> f32 {
    let background = image.get_pixel(0, 0).0;
    let (mut sum, mut count) = (0.0, 0.0);
    for (x, _, pixel) in image.enumerate_pixels() {
        if pixel.0 != background {
            sum += x as f32;
            count += 1.0;
        }
    }
    sum / count
}

/// Rigid node animation rendered: the cube posed by `pose_at` at two times
/// renders exactly like the same file with its object placed by hand at
/// the transform computed here (parent T(0,0,-1) times the sampled
/// translation), and moves right between them.
#[test]
fn rigid_node_animation_renders_where_the_cpu_places_it() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let file = sliding_cube();
    let document = parse_gltf_slice(&file, Path::new("slide.gltf"), None).unwrap();
    let camera = camera_framing_box(Vec3::new(-1.6, -0.6, -1.6), Vec3::new(1.6, 1.1, -0.4));
    let target = Target::new(&gpu, 96, 96);
    let mut animated = gpu.renderer(&Gpu::default_capacities());
    let mut scene = document
        .upload(&mut animated, Mat4::IDENTITY, None)
        .unwrap();
    animated.set_camera(&camera).unwrap();
    let mut player = scene.animation.take().expect("the file animates");
    player.play(Playback::looping(0));
    let mut by_hand = gpu.renderer(&Gpu::default_capacities());
    let reference = document.upload(&mut by_hand, Mat4::IDENTITY, None).unwrap();
    by_hand.set_camera(&camera).unwrap();
    let mut images = Vec::new();
    for (time, x) in [(0.25, -0.5), (0.75, 0.5)] {
        player.pose_at(&mut animated, time).unwrap();
        let (image, _) = target.render(&gpu, &mut animated);
        let placed = Mat4::from_translation(Vec3::new(0.0, 0.0, -1.0))
            * Mat4::from_translation(Vec3::new(x, 0.25, 0.0));
        by_hand.set_transform(reference.objects[0], placed).unwrap();
        let (expected, _) = target.render(&gpu, &mut by_hand);
        save_output(&format!("animation_slide_{time}"), &image);
        assert!(
            drawn_pixels(&image, image.get_pixel(0, 0).0) > 200,
            "t = {time}: cube drawn"
        );
        assert_eq!(mismatched_pixels(&image, &expected, 0), 0, "t = {time}");
        images.push(image);
    }
    let moved = drawn_center_x(&images[1]) - drawn_center_x(&images[0]);
    assert!(moved > 10.0, "the cube moved right by {moved} pixels");
    gpu.finish();
}

/// A skinned pose rendered: the Fox's CPU-posed mesh at 0.3 s of "Run",
/// drawn static at the scene's placement, changes the silhouette of its
/// rest pose, which itself covers the same pixels as the bind pose the
/// loader places by the mesh's node (glTF: at rest the joints place the
/// mesh where its node does).
#[test]
fn a_skinned_pose_renders_and_differs_from_the_bind_pose() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let path = asset("gltfpack/Fox.glb");
    let document = parse_gltf(&path).unwrap();
    let target = Target::new(&gpu, 128, 128);
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let camera = camera_framing_box(min - (max - min) * 0.3, max + (max - min) * 0.3);
    let mut player = unplaced(&document);
    let driver = document.animation.objects[0];
    let draw = |mesh: Option<&PosedMesh>| {
        let mut renderer = gpu.renderer(&Gpu::default_capacities());
        match mesh {
            Some(mesh) => {
                let handle = renderer.add_mesh(&mesh.as_mesh_data()).unwrap();
                let material = renderer
                    .add_material(&unbound::Material::dielectric(Vec4::ONE))
                    .unwrap();
                renderer
                    .add_object(&unbound::ObjectDesc {
                        mesh: handle,
                        material,
                        world_from_object: Mat4::IDENTITY,
                    })
                    .unwrap();
            }
            None => {
                document
                    .upload(&mut renderer, Mat4::IDENTITY, None)
                    .unwrap();
            }
        }
        renderer.set_camera(&camera).unwrap();
        target.render(&gpu, &mut renderer).0
    };
    let rest = player.posed_mesh(driver.mesh, driver.skin, 0.0).unwrap();
    let run = document.animation.clip_named("Run").unwrap();
    player.play(Playback {
        clip: run,
        start: 0.0,
        speed: 1.0,
        looping: true,
    });
    let running = player.posed_mesh(driver.mesh, driver.skin, 0.3).unwrap();
    let mask = |image: &image::RgbaImage| -> Vec<bool> {
        let background = image.get_pixel(0, 0).0;
        image.pixels().map(|p| p.0 != background).collect()
    };
    let (bind, at_rest, posed) = (draw(None), draw(Some(&rest)), draw(Some(&running)));
    save_output("animation_fox_bind", &bind);
    save_output("animation_fox_run", &posed);
    let differ = |a: &[bool], b: &[bool]| a.iter().zip(b).filter(|(x, y)| x != y).count();
    let (bind_mask, rest_mask, posed_mask) = (mask(&bind), mask(&at_rest), mask(&posed));
    let covered = bind_mask.iter().filter(|&&c| c).count();
    let rest_vs_bind = differ(&bind_mask, &rest_mask);
    let posed_vs_rest = differ(&rest_mask, &posed_mask);
    eprintln!(
        "Fox silhouette: {covered} pixels; rest against bind {rest_vs_bind}, run against rest {posed_vs_rest}"
    );
    assert!(covered > 300, "{covered} pixels drawn");
    assert!(
        rest_vs_bind <= covered / 50,
        "rest pose against bind pose: {rest_vs_bind} pixels"
    );
    assert!(
        posed_vs_rest >= covered / 10,
        "run pose against rest: {posed_vs_rest} pixels"
    );
    gpu.finish();
}

/// What the hostile skinned file is made of; each case changes one field.
#[derive(Clone)]
struct Skinned {
    joints: Vec<u8>,
    weights: Vec<f32>,
    skin_joints: Vec<usize>,
    inverse_binds: usize,
    times: Vec<f32>,
    rotations: Vec<f32>,
    interpolation: &'static str,
    mesh_weights: Vec<f32>,
    channel_node: usize,
    channel_path: &'static str,
    /// `JOINTS_1` (unsigned shorts) and `WEIGHTS_1` (normalised unsigned
    /// shorts), 4 each per vertex.
    second_set: Option<(Vec<u16>, Vec<u16>)>,
}

impl Default for Skinned {
    fn default() -> Self {
        Self {
            joints: vec![0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0],
            weights: vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0],
            skin_joints: vec![1, 2],
            inverse_binds: 2,
            times: vec![0.0, 1.0],
            rotations: [
                Quat::IDENTITY.to_array(),
                Quat::from_rotation_z(1.0).to_array(),
            ]
            .concat(),
            interpolation: "LINEAR",
            mesh_weights: vec![0.0],
            channel_node: 2,
            channel_path: "rotation",
            second_set: None,
        }
    }
}

impl Skinned {
    /// A triangle skinned to two joints (nodes 1 and 2; node 3 is outside
    /// the scene), with one morph target, and a clip turning joint 2.
    fn file(&self) -> Vec<u8> {
        let mut b = Builder::default();
        let bounds = json!({"min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]});
        let position = b.floats(
            &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            "VEC3",
            &bounds,
        );
        let joints = b.push(
            &self.joints,
            5121,
            "VEC4",
            self.joints.len() / 4,
            &json!({}),
        );
        let weights = b.floats(&self.weights, "VEC4", &json!({}));
        let delta = b.floats(
            &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            "VEC3",
            &json!({}),
        );
        let identity = Mat4::IDENTITY.to_cols_array();
        let binds: Vec<f32> = (0..self.inverse_binds).flat_map(|_| identity).collect();
        let inverse_binds = b.floats(&binds, "MAT4", &json!({}));
        let input = b.times(&self.times);
        let output = b.floats(&self.rotations, "VEC4", &json!({}));
        let weight_times = b.times(&[0.0, 1.0]);
        let weight_values = b.floats(&[0.0, 1.0], "SCALAR", &json!({}));
        let mut attributes =
            json!({"POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights});
        if let Some((joints, weights)) = &self.second_set {
            let bytes = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
            let joints = b.push(&bytes(joints), 5123, "VEC4", joints.len() / 4, &json!({}));
            let normalized = json!({"normalized": true});
            let weights = b.push(
                &bytes(weights),
                5123,
                "VEC4",
                weights.len() / 4,
                &normalized,
            );
            attributes["JOINTS_1"] = json!(joints);
            attributes["WEIGHTS_1"] = json!(weights);
        }
        b.file(json!({
            "scene": 0,
            "scenes": [{"nodes": [0, 1]}],
            "nodes": [{"mesh": 0, "skin": 0}, {"children": [2]}, {"translation": [1.0, 0.0, 0.0]}, {}],
            "skins": [{"joints": self.skin_joints, "inverseBindMatrices": inverse_binds}],
            "meshes": [{
                "primitives": [{
                    "attributes": attributes,
                    "targets": [{"POSITION": delta}]
                }],
                "weights": self.mesh_weights
            }],
            "animations": [{
                "samplers": [{"input": input, "output": output, "interpolation": self.interpolation}],
                "channels": [{"sampler": 0, "target": {"node": self.channel_node, "path": self.channel_path}}]
            }, {
                "name": "swell",
                "samplers": [{"input": weight_times, "output": weight_values}],
                "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}]
            }]
        }))
    }

    fn parse(&self) -> Result<GltfDocument, GltfError> {
        parse_gltf_slice(&self.file(), Path::new("skinned.gltf"), None)
    }

    fn error(&self) -> AnimationError {
        match self.parse() {
            Err(GltfError::Animation { source, .. }) => source,
            other => panic!("expected an animation error, got {other:?}"),
        }
    }
}

/// The valid file loads, poses and deforms: a rotation clip and a morph
/// weights clip, and a second set of influences (`JOINTS_1` as unsigned
/// shorts, `WEIGHTS_1` as normalised unsigned shorts) read as 8 per vertex.
#[test]
fn the_generated_skinned_file_loads() {
    let document = Skinned::default().parse().unwrap();
    assert!(document.warnings.is_empty(), "{:?}", document.warnings);
    let animation = &document.animation;
    assert_eq!(
        (
            animation.nodes.len(),
            animation.skins.len(),
            animation.clips.len()
        ),
        (3, 1, 2)
    );
    assert_eq!(
        animation.skins[0].joints,
        [1, 2],
        "hierarchy indices, breadth first"
    );
    assert_eq!(animation.meshes[0].morph.as_ref().unwrap().targets.len(), 1);
    let mut scene = unplaced(&document);
    scene.play(Playback::looping(0));
    let posed = scene.posed_mesh(0, Some(0), 0.5).unwrap();
    // Vertex 0 is on joint 1 (the root, at rest): only its morph (weight
    // 0) applies.
    assert_eq!(posed.positions[0], [0.0, 0.0, 0.0]);
    assert_ne!(
        posed.positions[1],
        [1.0, 0.0, 0.0],
        "joint 2 turns vertex 1"
    );
    // The weights clip at 0.25 s: weight 0.25 moves vertex 0 by a quarter
    // of its delta (0, 0, 1).
    scene.play(Playback::looping(
        document.animation.clip_named("swell").unwrap(),
    ));
    let swollen = scene.posed_mesh(0, Some(0), 0.25).unwrap();
    assert_eq!(swollen.positions[0], [0.0, 0.0, 0.25]);

    // Vertex 2 split over both sets: joint 0 by WEIGHTS_0, joint 1 by
    // WEIGHTS_1 (32768 / 65535).
    let mut file = Skinned::default();
    file.weights[8..12].copy_from_slice(&[0.5, 0.0, 0.0, 0.0]);
    let mut joints = vec![0u16; 12];
    let mut weights = vec![0u16; 12];
    joints[8] = 1;
    weights[8] = 32768;
    file.second_set = Some((joints, weights));
    let document = file.parse().unwrap();
    assert!(
        document.warnings.is_empty(),
        "within 1% of 1: {:?}",
        document.warnings
    );
    let stream = document.animation.meshes[0].skin.as_ref().unwrap();
    assert_eq!(stream.per_vertex, 8);
    let influences: Vec<(usize, f32)> = stream.of(2).filter(|&(_, w)| w > 0.0).collect();
    let half = 32768.0 / 65535.0;
    let sum = 0.5 + half;
    assert_eq!(influences.len(), 2, "{influences:?}");
    assert_eq!(influences[0].0, 0);
    assert!((influences[0].1 - 0.5 / sum).abs() < 1e-6, "{influences:?}");
    assert_eq!(influences[1].0, 1);
    assert!(
        (influences[1].1 - half / sum).abs() < 1e-6,
        "{influences:?}"
    );
}

/// Each kind of bad skin, sampler or morph target: a typed error, and
/// weights that do not sum to 1 renormalised with one warning.
#[test]
fn hostile_animation_data_gives_typed_errors() {
    let case = |edit: fn(&mut Skinned)| {
        let mut file = Skinned::default();
        edit(&mut file);
        file
    };
    assert_eq!(
        case(|f| f.joints[4] = 5).error(),
        AnimationError::JointOutOfRange {
            mesh: 0,
            primitive: 0,
            vertex: 1,
            joint: 5,
            joints: 2
        }
    );
    assert_eq!(
        case(|f| f.skin_joints = vec![1, 3]).error(),
        AnimationError::JointNotInScene { skin: 0, node: 3 }
    );
    assert_eq!(
        case(|f| f.inverse_binds = 1).error(),
        AnimationError::InverseBindCount {
            skin: 0,
            joints: 2,
            matrices: 1
        }
    );
    let sampler_error = |file: Skinned| match file.error() {
        AnimationError::Sampler {
            clip: 0,
            sampler: 0,
            reason,
        } => reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        sampler_error(case(|f| {
            f.times = vec![0.0, 2.0, 1.0];
            f.rotations.extend(Quat::IDENTITY.to_array());
        })),
        SamplerError::TimesNotIncreasing { key: 2, time: 1.0 }
    );
    assert!(matches!(
        sampler_error(case(|f| f.times[1] = f32::NAN)),
        SamplerError::TimesNotIncreasing { key: 1, .. }
    ));
    assert!(matches!(
        sampler_error(case(|f| f.rotations[5] = f32::NAN)),
        SamplerError::NonFiniteValue { index: 5, .. }
    ));
    assert_eq!(
        sampler_error(case(|f| f.rotations.extend(Quat::IDENTITY.to_array()))),
        SamplerError::OutputCount {
            keys: 2,
            values: 12,
            expected: 8
        }
    );
    assert_eq!(
        sampler_error(case(|f| f.interpolation = "CUBICSPLINE")),
        SamplerError::OutputCount {
            keys: 2,
            values: 8,
            expected: 24
        }
    );
    assert_eq!(
        case(|f| f.mesh_weights = vec![0.0, 0.5]).error(),
        AnimationError::MorphTargetCount {
            mesh: 0,
            what: "weights of the mesh",
            found: 2,
            expected: 1
        }
    );

    // Channel targets the `gltf` crate does not validate but unwraps.
    for (edit, message) in [
        (case(|f| f.channel_node = 9), "target node out of range"),
        (case(|f| f.channel_path = "pointer"), "invalid target path"),
    ] {
        match edit.parse() {
            Err(GltfError::Parse { message: m, .. }) => assert!(m.contains(message), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    // Weights summing to 0.5 and to 0: renormalised, one warning each.
    let repaired = case(|f| {
        f.weights[0] = 0.5;
        f.weights[4] = 0.0;
    })
    .parse()
    .unwrap();
    assert_eq!(repaired.warnings.len(), 2, "{:?}", repaired.warnings);
    assert!(repaired.warnings[0].contains("did not sum to 1: renormalised"));
    assert!(repaired.warnings[1].contains("bound to their first joint"));
    let stream = repaired.animation.meshes[0].skin.as_ref().unwrap();
    assert_eq!(
        stream.of(0).map(|(_, w)| w).collect::<Vec<_>>(),
        [1.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(stream.of(1).next(), Some((1, 1.0)));
}

/// Animation values count against `LoadLimits::max_animation_values`
/// before they are read.
#[test]
fn animation_values_are_limited() {
    let file = Skinned::default().file();
    let options = ParseOptions {
        limits: LoadLimits {
            max_animation_values: 40,
            ..LoadLimits::default()
        },
        ..ParseOptions::default()
    };
    match parse_gltf_slice_with_options(&file, Path::new("skinned.gltf"), None, &options) {
        Err(GltfError::LimitExceeded {
            limit: Limit::AnimationValues,
            max: 40,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

/// Skinned bounds (`src/animation/bounds.rs`): the Fox posed by each of
/// its clips at 16 times of each lies inside the sphere made of its
/// joints' spheres and that pose's palette (within 1e-5 of the radius),
/// and some pose reaches outside the bind pose's bounding sphere (the
/// bound follows the limbs; the bind pose's would not contain them).
#[test]
fn the_posed_fox_lies_inside_its_skinned_bounds() {
    let document = parse_gltf(&asset("gltfpack/Fox.glb")).unwrap();
    let data = &document.animation;
    let mut player = unplaced(&document);
    let driver = data.objects[0];
    let skin = &data.skins[driver.skin.unwrap()];
    let influences = data.meshes[driver.mesh].skin.as_ref().unwrap();
    let rest = &document.meshes[driver.mesh].positions;
    let spheres = joint_spheres(influences, rest, skin.joints.len());
    assert!(spheres.iter().any(Option::is_some));
    // The bind pose's sphere, as the renderer bounds a mesh.
    let (lo, hi) = rest.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p))),
    );
    let bind_centre = (lo + hi) * 0.5;
    let bind_radius = rest
        .iter()
        .fold(0.0f32, |a, p| a.max(Vec3::from(*p).distance(bind_centre)));
    let (mut outside_bind, mut loosest) = (0usize, 0.0f32);
    for clip in 0..data.clips.len() {
        player.play(Playback::looping(clip));
        let duration = data.clips[clip].duration;
        for step in 0..16 {
            let time = duration * step as f32 / 16.0;
            let posed = player.posed_mesh(driver.mesh, driver.skin, time).unwrap();
            let palette = joint_palette(skin, &player.pose(time).world_from_nodes(data));
            let [x, y, z, radius] = skinned_sphere(&spheres, &palette).unwrap();
            let centre = Vec3::new(x, y, z);
            let farthest = posed
                .positions
                .iter()
                .fold(0.0f32, |a, p| a.max(Vec3::from(*p).distance(centre)));
            assert!(
                farthest <= radius * (1.0 + 1e-5),
                "clip {clip} at {time}: a vertex {farthest} from the centre, radius {radius}"
            );
            loosest = loosest.max(radius / farthest);
            outside_bind += posed
                .positions
                .iter()
                .filter(|p| Vec3::from(**p).distance(bind_centre) > bind_radius)
                .count();
        }
    }
    eprintln!(
        "Fox skinned bounds: at most {loosest:.2} x the farthest vertex; \
         {outside_bind} posed vertices (over 48 poses) outside the bind pose's sphere"
    );
    assert!(outside_bind > 0, "some pose leaves the bind pose's sphere");
}

/// Morph deltas keep the skinned bound conservative: a strip of two
/// joints, morphed by two targets whose weights a CUBICSPLINE clip
/// overshoots (tangents 3 and -3), posed at 41 times by palettes that turn,
/// scale and move: every morphed-then-skinned vertex lies inside
/// `skinned_sphere` of the joint spheres grown by `morph_reach` (with the
/// weights bounded by `AnimationData::weight_bounds`, which every sampled
/// weight respects).
#[test]
fn morph_reach_keeps_skinned_bounds_conservative() {
    use unbound::animation::{SkinnedMesh, morph_reach};
    let positions: Vec<[f32; 3]> = (0..40)
        .map(|i| [(i % 5) as f32 * 0.1, i as f32 * 0.05, 0.0])
        .collect();
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    for i in 0..40 {
        let top = i as f32 / 39.0;
        joints.extend_from_slice(&[0u16, 1, 0, 0]);
        weights.extend_from_slice(&[1.0 - top, top, 0.0, 0.0]);
    }
    let influences = SkinInfluences {
        per_vertex: 4,
        joints,
        weights,
    };
    let deltas = |f: &dyn Fn(f32) -> [f32; 3]| Some((0..40).map(|i| f(i as f32)).collect());
    let targets = MorphTargets {
        targets: vec![
            MorphTarget {
                positions: deltas(&|i| [0.3 * (i * 0.7).sin(), 0.2, -0.1]),
                ..MorphTarget::default()
            },
            MorphTarget {
                positions: deltas(&|i| [0.0, 0.0, 0.5 * i / 40.0]),
                ..MorphTarget::default()
            },
        ],
        default_weights: vec![0.0, 0.0],
    };
    let mut data = AnimationData {
        nodes: vec![node(None, NodeTransform::IDENTITY)],
        clips: vec![Clip {
            name: None,
            duration: 1.0,
            samplers: vec![Sampler {
                times: vec![0.0, 1.0],
                // Per key: in-tangents, values, out-tangents.
                values: vec![0.0, 0.0, 0.0, 0.0, 3.0, -2.0, -3.0, 0.0, 1.0, 0.5, 0.0, 0.0],
                components: 2,
                interpolation: Interpolation::CubicSpline,
            }],
            channels: vec![Channel {
                node: 0,
                path: ChannelPath::Weights,
                sampler: 0,
            }],
        }],
        ..AnimationData::default()
    };
    data.nodes[0].weights = vec![0.0, 0.0];
    let bounds = data.weight_bounds(0);
    let reach = morph_reach(&targets, &bounds);
    let skinned = SkinnedMesh::new(&influences, &positions, 2).with_reach(reach);
    let playback = Playback {
        looping: false,
        ..Playback::looping(0)
    };
    let mut overshoot = 0.0f32;
    for k in 0..=40 {
        let time = k as f32 / 40.0;
        let played = Pose::at(&data, &playback, time).weights[0].clone();
        for (w, bound) in played.iter().zip(&bounds) {
            assert!(w.abs() <= *bound, "t = {time}: weight {w} beyond {bound}");
        }
        overshoot = overshoot.max(played[0]);
        let palette = [
            Mat4::from_rotation_z(time * 2.0),
            Mat4::from_scale_rotation_translation(
                Vec3::splat(1.0 + time),
                Quat::from_rotation_x(-time),
                Vec3::new(time, 0.5, -time),
            ),
        ];
        let sphere = skinned_sphere(&skinned.joint_spheres, &palette).unwrap();
        let centre = Vec3::new(sphere[0], sphere[1], sphere[2]);
        for (v, position) in positions.iter().enumerate() {
            let rest = DeformedVertex {
                position: Vec3::from(*position),
                normal: Vec3::Z,
                tangent: Vec4::X,
            };
            let posed = deform_vertex(
                rest,
                v,
                Some((&targets, &played)),
                Some((&influences, &palette)),
            );
            let distance = posed.position.distance(centre);
            assert!(
                distance <= sphere[3] * (1.0 + 1e-5),
                "t = {time}, vertex {v}: {distance} > {}",
                sphere[3]
            );
        }
    }
    // The curve overshoots its keys (0 and 1): the tangents matter.
    assert!(overshoot > 1.0, "{overshoot}");
}
