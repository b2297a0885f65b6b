//! Punctual lights: the light pass's cluster lists against the CPU
//! reference, shading at chosen pixels against the CPU twins (BRDF ×
//! falloff × cone), the many-lights image on tiers A and B against its
//! reference, identical frames run to run, the light-count heat map, glTF's
//! `KHR_lights_punctual`, and bad input refused with the renderer left
//! usable.

mod common;

use common::*;
use glam::{UVec2, Vec2, Vec3, Vec4};
use unbound::lighting::{Brdf, ClusterView};
use unbound::{
    ClusterGrid, DebugOptions, DebugView, Error, ID_TARGET_FORMAT, Light, LightError, LightKind,
    Material, ObjectDesc, RendererConfig, Tier,
};

/// A camera above and in front of the box the lights fill.
fn cluster_camera() -> unbound::Camera {
    unbound::Camera {
        position: Vec3::new(0.0, 3.0, 12.0),
        target: Vec3::new(0.0, 0.0, -6.0),
        up: Vec3::Y,
        fov_y_radians: 60f32.to_radians(),
        aspect: 16.0 / 9.0,
        z_near: 0.5,
        z_far: 80.0,
    }
}

/// A few hundred lights of every kind in and around the view: ranged and
/// unranged points, spots in all directions (a few aimed at the camera's
/// near clusters), directional lights.
fn mixed_lights() -> Vec<Light> {
    let mut rng = unbound_scenes::Rng::new(3);
    let position = |rng: &mut unbound_scenes::Rng| {
        Vec3::new(
            rng.range(-25.0, 25.0),
            rng.range(-8.0, 12.0),
            rng.range(-60.0, 14.0),
        )
    };
    let mut lights = Vec::new();
    for i in 0..300 {
        let p = position(&mut rng);
        let color = Vec3::new(rng.unit(), rng.unit(), rng.unit());
        let light = match i % 10 {
            0..=5 => Light::point(p, color, 5.0, Some(rng.range(0.3, 6.0))),
            // Unranged: culled at sqrt(I / 1e-4), 1 to 5 m.
            6 => Light::point(p, color, rng.range(1e-4, 25e-4), None),
            7 | 8 => {
                let direction = Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                );
                let outer = rng.range(0.05, std::f32::consts::FRAC_PI_2);
                Light::spot(
                    p,
                    direction,
                    color,
                    5.0,
                    Some(rng.range(1.0, 12.0)),
                    (outer * 0.5, outer),
                )
            }
            _ => Light::spot(
                Vec3::new(
                    rng.range(-3.0, 3.0),
                    rng.range(0.0, 5.0),
                    rng.range(0.0, 4.0),
                ),
                Vec3::new(0.0, 0.0, 1.0),
                color,
                5.0,
                Some(rng.range(2.0, 9.0)),
                (0.1, rng.range(0.2, 1.2)),
            ),
        };
        lights.push(light);
    }
    for direction in [Vec3::NEG_Y, Vec3::new(1.0, -1.0, 0.0)] {
        lights.push(Light::directional(direction, Vec3::ONE, 0.5));
    }
    lights
}

/// The lists the light pass writes equal the CPU reference
/// (`ClusterView::assign`, the same tests in the same arithmetic order)
/// exactly, except for light-cluster pairs whose test is within a relative
/// 1e-6 (about 8 units in the last place) of its decision (an `f32` rounding, e.g. a fused multiply-add on
/// the GPU, may go either way there): each GPU list holds every light the
/// reference is sure of, nothing the reference rules out, in ascending
/// slot order, at consecutive offsets. Free slots (removed lights) are in
/// no list.
#[test]
fn cluster_lists_equal_the_cpu_reference() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let target = Target::new(&gpu, 320, 180);
    let camera = cluster_camera();
    renderer.set_camera(&camera).unwrap();
    let handles: Vec<_> = mixed_lights()
        .iter()
        .map(|l| renderer.add_light(l).unwrap())
        .collect();
    for handle in handles.iter().step_by(37) {
        renderer.remove_light(*handle).unwrap();
    }
    target.render(&gpu, &mut renderer);
    let lists = read_cluster_lists(&gpu, &renderer);

    let slots = renderer.lights().slots_in_use();
    let table: Vec<_> = (0..slots)
        .map(|s| renderer.lights().gpu_entry(s).unwrap())
        .collect();
    let view = ClusterView {
        grid: renderer.config().clusters,
        camera,
        viewport: UVec2::new(320, 180),
    };
    let reference = view.assign(&table, 1e-6);
    let (mut sure, mut uncertain, mut decided_either_way) = (0, 0, 0);
    let mut offset = 0;
    for (c, (gpu_list, expected)) in lists.clusters.iter().zip(&reference).enumerate() {
        assert_eq!(lists.firsts[c], offset, "cluster {c}: offset");
        offset += gpu_list.len() as u32;
        assert!(
            gpu_list.windows(2).all(|w| w[0] < w[1]),
            "cluster {c}: not in ascending slot order: {gpu_list:?}"
        );
        for slot in &expected.lights {
            assert!(
                gpu_list.contains(slot),
                "cluster {c}: light {slot} missing (GPU {gpu_list:?}, CPU {:?})",
                expected.lights
            );
        }
        for slot in gpu_list {
            assert!(
                expected.lights.contains(slot) || expected.uncertain.contains(slot),
                "cluster {c}: light {slot} ({:?}) should not be there",
                table[*slot as usize]
            );
            decided_either_way += usize::from(expected.uncertain.contains(slot));
        }
        sure += expected.lights.len();
        uncertain += expected.uncertain.len();
    }
    assert_eq!(lists.needed, offset, "references needed");
    assert_eq!(lists.written, offset, "every list fits");
    // The statistics the frame's readback reports.
    let lit = lists.clusters.iter().filter(|l| !l.is_empty()).count();
    assert_eq!(lists.lit_clusters as usize, lit, "clusters with a light");
    let longest = lists.clusters.iter().map(Vec::len).max().unwrap();
    assert_eq!(lists.longest as usize, longest, "longest list");
    eprintln!(
        "{sure} light-cluster pairs, {uncertain} too close to call ({decided_either_way} of them assigned by the GPU)"
    );
    // The scene tests something: many pairs, few too close to call, empty
    // and full clusters, and every light kind assigned somewhere.
    assert!(sure > 5_000, "{sure} pairs");
    assert!(uncertain * 200 < sure, "{uncertain} uncertain of {sure}");
    let empty = lists.clusters.iter().filter(|l| l.len() == 2).count();
    assert!(
        empty > 100,
        "{empty} clusters with only the directional lights"
    );
    let most = lists.clusters.iter().map(Vec::len).max().unwrap();
    assert!(most > 10, "at most {most} lights in a cluster");
    for kind in [
        unbound::gpu_types::LIGHT_KIND_POINT,
        unbound::gpu_types::LIGHT_KIND_SPOT,
    ] {
        assert!(
            lists
                .clusters
                .iter()
                .flatten()
                .any(|&s| table[s as usize].kind == kind),
            "no light of kind {kind} in any cluster"
        );
    }
    gpu.finish();
}

const SIZE: u32 = 64;
const HALF: f32 = 2.0;

/// A plane facing the camera, lit by one point light and one spot light
/// alone (no sun, no environment): at every 8th pixel the GPU shows the
/// CPU's BRDF × illuminance × cone × n·l (`Brdf::reflect_light`), through
/// the default tone mapping's CPU twin (`common::shown`), within 2 levels
/// of a linear 8-bit target (rounding, and `f32` differences in the window
/// and the cone); where neither light reaches (past the point light's
/// range, outside the spot's cone) the plane is exactly black.
#[test]
fn a_point_and_a_spot_light_shade_as_the_cpu_twins_predict() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mesh = flat_quad_scene(&mut renderer, HALF);
    renderer
        .set_lighting(&unbound::Lighting {
            light_color: Vec3::ZERO,
            ambient_color: Vec3::ZERO,
            ..unbound::Lighting::default()
        })
        .unwrap();
    let base_color = Vec4::new(0.8, 0.7, 0.6, 1.0);
    let (metallic, roughness) = (0.2, 0.45);
    let material = renderer
        .add_material(&Material {
            base_color_factor: base_color,
            metallic_factor: metallic,
            roughness_factor: roughness,
            ..Default::default()
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(Vec3::ZERO, 2.0 * HALF, 2.0 * HALF),
        })
        .unwrap();
    let point = Light::point(
        Vec3::new(-0.8, 0.6, 0.7),
        Vec3::new(1.0, 0.9, 0.7),
        1.2,
        Some(2.0),
    );
    let spot = Light::spot(
        Vec3::new(0.9, -0.5, 1.2),
        Vec3::new(0.1, 0.0, -1.0),
        Vec3::new(0.6, 0.8, 1.0),
        2.5,
        Some(3.0),
        (0.25, 0.55),
    );
    let handles = [
        renderer.add_light(&point).unwrap(),
        renderer.add_light(&spot).unwrap(),
    ];
    let target = Target::with_format(&gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("lights_point_and_spot", &image);

    let camera = camera_framing_plane(HALF);
    let brdf = Brdf {
        base_color: base_color.truncate(),
        metallic,
        roughness,
    };
    let lights = handles.map(|h| renderer.lights().get(h).unwrap());
    let (mut black, mut lit, mut brightest) = (0, 0, 0);
    for py in (4..SIZE).step_by(8) {
        for px in (4..SIZE).step_by(8) {
            let scale = 2.0 * HALF / SIZE as f32;
            let p = Vec3::new(
                (px as f32 + 0.5) * scale - HALF,
                HALF - (py as f32 + 0.5) * scale,
                0.0,
            );
            let v = (camera.position - p).normalize();
            let radiance: Vec3 = lights
                .iter()
                .map(|l| brdf.reflect_light(Vec3::Z, v, p, l))
                .sum();
            let expected = shown(radiance)
                .to_array()
                .map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
            let got = *image.get_pixel(px, py);
            if radiance == Vec3::ZERO {
                assert_eq!(
                    got.0,
                    [0, 0, 0, 255],
                    "pixel ({px}, {py}) is reached by no light"
                );
                black += 1;
            } else {
                assert!(
                    color_distance(got, [expected[0], expected[1], expected[2], 255]) <= 2,
                    "pixel ({px}, {py}): GPU {got:?}, CPU {expected:?}"
                );
                lit += 1;
                brightest = brightest.max(expected[0]);
            }
        }
    }
    assert!(black >= 8 && lit >= 16, "{black} black, {lit} lit samples");
    assert!(brightest > 100 && brightest < 255, "brightest {brightest}");
    gpu.finish();
}

/// The many-lights scene matches its reference image on tier A (lavapipe;
/// channel difference <= 3 on all but 1% of pixels, for other drivers'
/// rasterisation), tier B draws the same image exactly, and two renders
/// (two frames of one renderer, and a second renderer) are bit-identical:
/// the cluster lists are in a fixed order.
#[test]
fn the_many_lights_scene_matches_its_reference_on_tiers_a_and_b_and_is_deterministic() {
    let scene = many_lights_scene();
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, scene.width, scene.height);
    let render = |tier: Option<Tier>| {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities: caps,
            tier,
            ..Default::default()
        });
        scene.load_into(&mut renderer).unwrap();
        let first = target.render(&gpu, &mut renderer).0;
        let second = target.render(&gpu, &mut renderer).0;
        assert_eq!(first, second, "two frames of one renderer ({tier:?})");
        (first, read_cluster_lists(&gpu, &renderer).clusters)
    };
    let (a, a_lists) = render(None);
    let (again, again_lists) = render(None);
    let (b, b_lists) = render(Some(Tier::B));
    save_output("lights_many", &a);
    assert!(
        a == again && a_lists == again_lists,
        "a second renderer differs"
    );
    assert!(a == b && a_lists == b_lists, "tier B differs from tier A");
    let references: usize = a_lists.iter().map(Vec::len).sum();
    assert!(references > 1000, "{references} light references");
    compare_with_reference(&gpu, "lights_many", &a, 3, 0.01);
    // The lights light the scene: without them its objects are darker.
    let mut dark = gpu.renderer(&caps);
    let mut unlit = scene.clone();
    unlit.lights.clear();
    unlit.load_into(&mut dark).unwrap();
    let without = target.render(&gpu, &mut dark).0;
    let background = without.get_pixel(0, 0).0;
    let objects = |image: &image::RgbaImage| -> u64 {
        image
            .pixels()
            .zip(without.pixels())
            .filter(|(_, w)| w.0 != background)
            .map(|(p, _)| u64::from(p[0]) + u64::from(p[1]) + u64::from(p[2]))
            .sum()
    };
    let (lit, unlit) = (objects(&a), objects(&without));
    eprintln!("objects' brightness: {lit} lit, {unlit} without the lights");
    assert!(lit > unlit * 3 / 2, "lights add little: {lit} vs {unlit}");
    gpu.finish();
}

/// The light-count view shows, at chosen pixels of a plane facing the
/// camera, the heat-map colour (`debug::light_count_color`) of the count
/// the GPU wrote for the cluster the CPU twin of the fragment's cluster
/// lookup (`ClusterView::fragment_cluster`) finds: the fragment finds its
/// cluster from its pixel and depth alone.
#[test]
fn the_light_count_view_shows_each_pixels_cluster_count() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mesh = flat_quad_scene(&mut renderer, HALF);
    let material = renderer.add_material(&Material::default()).unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(Vec3::ZERO, 2.0 * HALF, 2.0 * HALF),
        })
        .unwrap();
    let mut rng = unbound_scenes::Rng::new(17);
    for _ in 0..60 {
        let p = Vec3::new(
            rng.range(-2.5, 2.5),
            rng.range(-2.5, 2.5),
            rng.range(-1.0, 1.0),
        );
        renderer
            .add_light(&Light::point(p, Vec3::ONE, 1.0, Some(rng.range(0.2, 1.5))))
            .unwrap();
    }
    renderer
        .set_debug(&DebugOptions {
            view: DebugView::LightCount,
            ..Default::default()
        })
        .unwrap();
    let target = Target::with_format(&gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("lights_count_view", &image);
    let lists = read_cluster_lists(&gpu, &renderer);
    let camera = camera_framing_plane(HALF);
    let view = ClusterView {
        grid: renderer.config().clusters,
        camera,
        viewport: UVec2::new(SIZE, SIZE),
    };
    let clip_from_world = camera.clip_from_world();
    let mut counts = std::collections::BTreeSet::new();
    // Pixel centres away from the tile edges (tiles are 4 x 7.1 pixels).
    for py in [3, 10, 17, 24, 31, 38, 45, 52, 60] {
        for px in [2, 9, 18, 25, 34, 41, 50, 57] {
            let scale = 2.0 * HALF / SIZE as f32;
            let p = Vec3::new(
                (px as f32 + 0.5) * scale - HALF,
                HALF - (py as f32 + 0.5) * scale,
                0.0,
            );
            let clip = clip_from_world * p.extend(1.0);
            let cluster =
                view.fragment_cluster(Vec2::new(px as f32 + 0.5, py as f32 + 0.5), clip.z / clip.w);
            let count = lists.clusters[cluster as usize].len() as u32;
            let expected =
                unbound::debug::light_count_color(count).map(|c| (c * 255.0).round() as u8);
            let got = *image.get_pixel(px, py);
            assert!(
                color_distance(got, [expected[0], expected[1], expected[2], 255]) <= 1,
                "pixel ({px}, {py}), cluster {cluster} of {count} lights: GPU {got:?}, CPU {expected:?}"
            );
            counts.insert(count);
        }
    }
    assert!(counts.len() >= 4, "too few distinct counts: {counts:?}");
    gpu.finish();
}

/// Every bad light is a typed error that changes nothing: NaN or infinite
/// values, a negative intensity or colour, a range that is not positive,
/// a spot cone with inner > outer or outer > π/2, a spot without a
/// direction, a full table, a stale or foreign handle; a bad cluster grid
/// when the renderer is built. The next frame renders as before.
#[test]
fn bad_lights_are_typed_errors_and_the_next_frame_renders() {
    let caps = unbound::Capacities {
        lights: 3,
        ..Gpu::default_capacities()
    };
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let mesh = flat_quad_scene(&mut renderer, HALF);
    let material = renderer
        .add_material(&Material {
            metallic_factor: 0.0,
            ..Default::default()
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(Vec3::ZERO, 2.0 * HALF, 2.0 * HALF),
        })
        .unwrap();
    let good = Light::point(Vec3::new(0.0, 0.0, 1.0), Vec3::ONE, 0.5, Some(3.0));
    let handle = renderer.add_light(&good).unwrap();
    let target = Target::new(&gpu, 16, 16);
    let (before, _) = target.render(&gpu, &mut renderer);

    let spot = |inner, outer| {
        Light::spot(
            Vec3::ZERO,
            Vec3::NEG_Z,
            Vec3::ONE,
            1.0,
            None,
            (inner, outer),
        )
    };
    let bad = [
        Light {
            intensity: f32::NAN,
            ..good
        },
        Light {
            position: Vec3::new(0.0, f32::INFINITY, 0.0),
            ..good
        },
        Light {
            intensity: -1.0,
            ..good
        },
        Light {
            color: Vec3::new(1.0, -0.1, 1.0),
            ..good
        },
        Light {
            range: Some(-2.0),
            ..good
        },
        Light {
            range: Some(0.0),
            ..good
        },
        Light {
            range: Some(f32::NAN),
            ..good
        },
        spot(0.6, 0.4),
        spot(0.1, 2.0),
        spot(-0.1, 0.4),
        spot(0.0, 0.0),
        Light {
            direction: Vec3::ZERO,
            ..spot(0.1, 0.4)
        },
        Light::directional(Vec3::ZERO, Vec3::ONE, 1.0),
    ];
    for light in &bad {
        let error = renderer.add_light(light).unwrap_err();
        assert!(matches!(error, Error::Light(_)), "{light:?}: {error}");
        let error = renderer.set_light(handle, light).unwrap_err();
        assert!(matches!(error, Error::Light(_)), "{light:?}: {error}");
    }
    assert_matches!(
        renderer.add_light(&spot(0.6, 0.4)),
        Err(Error::Light(LightError::Cone { .. }))
    );
    assert_matches!(
        renderer.add_light(&Light {
            intensity: -1.0,
            ..good
        }),
        Err(Error::Light(LightError::Negative {
            field: "intensity",
            ..
        }))
    );
    assert_eq!(renderer.lights().len(), 1);
    assert_eq!(
        renderer.lights().get(handle).unwrap(),
        good.to_gpu().unwrap()
    );

    // More lights than the table holds.
    let extra = [
        renderer.add_light(&good).unwrap(),
        renderer.add_light(&good).unwrap(),
    ];
    assert_matches!(
        renderer.add_light(&good),
        Err(Error::Light(LightError::Capacity(_)))
    );
    // Stale and foreign handles.
    renderer.remove_light(extra[0]).unwrap();
    renderer.remove_light(extra[1]).unwrap();
    for result in [
        renderer.remove_light(extra[0]),
        renderer.set_light(extra[1], &good),
    ] {
        assert_matches!(
            result,
            Err(Error::Light(LightError::Handle(
                unbound::HandleError::Stale { .. }
            )))
        );
    }
    let other = gpu.renderer(&caps);
    let foreign = {
        let mut other = other;
        other.add_light(&good).unwrap()
    };
    assert_matches!(
        renderer.remove_light(foreign),
        Err(Error::Light(LightError::Handle(
            unbound::HandleError::Foreign { .. }
        )))
    );
    let (after, _) = target.render(&gpu, &mut renderer);
    assert_eq!(before, after, "the frame after the errors");

    // A bad grid when the renderer is built.
    let grid = ClusterGrid {
        depth_slices: 0,
        ..ClusterGrid::default()
    };
    let refused = unbound::Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        RendererConfig {
            capacities: caps,
            clusters: grid,
            ..Default::default()
        },
    );
    assert_matches!(refused, Err(Error::Light(LightError::Grid { .. })));
    gpu.finish();
}

/// A glTF file's `KHR_lights_punctual` lights are placed by their nodes
/// (at the node's origin, shining along its -Z, through the hierarchy),
/// uploaded with the scene and removed again with a failed upload; a light
/// the renderer would refuse is `GltfError::Light` naming the light and
/// its node.
#[test]
fn gltf_lights_are_placed_by_their_nodes_and_bad_ones_are_errors() {
    let file = |lights: &str| {
        format!(
            r#"{{
  "asset": {{"version": "2.0"}},
  "extensionsUsed": ["KHR_lights_punctual"],
  "extensions": {{"KHR_lights_punctual": {{"lights": [{lights}]}}}},
  "scene": 0,
  "scenes": [{{"nodes": [0, 3]}}],
  "nodes": [
    {{"translation": [1, 2, 3], "children": [1, 2]}},
    {{"rotation": [-0.7071068, 0, 0, 0.7071068], "extensions": {{"KHR_lights_punctual": {{"light": 0}}}}}},
    {{"translation": [0, 0, -2], "extensions": {{"KHR_lights_punctual": {{"light": 1}}}}}},
    {{"rotation": [0, 0.7071068, 0, 0.7071068], "extensions": {{"KHR_lights_punctual": {{"light": 2}}}}}}
  ]
}}"#
        )
    };
    let good = r#"{"type": "spot", "color": [1, 0.5, 0.25], "intensity": 30, "range": 8, "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.5}, "name": "down"},
        {"type": "point", "intensity": 4},
        {"type": "directional", "intensity": 2}"#;
    let path = std::path::Path::new("lights.gltf");
    let document =
        unbound::loaders::gltf::parse_gltf_slice(file(good).as_bytes(), path, None).unwrap();
    assert!(document.warnings.is_empty(), "{:?}", document.warnings);
    let by_light = |i: usize| document.lights.iter().find(|l| l.light == i).unwrap();
    let spot = &by_light(0).scene_light;
    assert_eq!(by_light(0).name.as_deref(), Some("down"));
    assert!((spot.position - Vec3::new(1.0, 2.0, 3.0)).length() < 1e-6);
    // Rotated -90° about X: -Z becomes -Y.
    assert!(
        (spot.direction - Vec3::NEG_Y).length() < 1e-6,
        "{}",
        spot.direction
    );
    assert_eq!(
        spot.kind,
        LightKind::Spot {
            inner_cone_angle: 0.2,
            outer_cone_angle: 0.5
        }
    );
    assert_eq!(
        (spot.color, spot.intensity, spot.range),
        (Vec3::new(1.0, 0.5, 0.25), 30.0, Some(8.0))
    );
    let point = &by_light(1).scene_light;
    assert!((point.position - Vec3::new(1.0, 2.0, 1.0)).length() < 1e-6);
    assert_eq!(
        (point.kind, point.intensity, point.range),
        (LightKind::Point, 4.0, None)
    );
    // Turned 90° about Y: -Z becomes -X.
    let sun = &by_light(2).scene_light;
    assert!(
        (sun.direction - Vec3::NEG_X).length() < 1e-6,
        "{}",
        sun.direction
    );
    document.validate().unwrap();

    let (gpu, mut renderer) = Gpu::with_renderer();
    let shift = glam::Mat4::from_translation(Vec3::new(0.0, 10.0, 0.0));
    let scene = document.upload(&mut renderer, shift, None).unwrap();
    assert_eq!(scene.lights.len(), 3);
    let uploaded = renderer
        .lights()
        .get(scene.lights[document.lights.iter().position(|l| l.light == 1).unwrap()])
        .unwrap();
    assert_eq!(uploaded.position, [1.0, 12.0, 1.0]);
    assert_eq!(uploaded.intensity, [4.0, 4.0, 4.0]);

    for (bad, why) in [
        (
            r#"{"type": "point", "intensity": -1}"#,
            "negative intensity",
        ),
        (r#"{"type": "point", "range": -3}"#, "negative range"),
        (
            r#"{"type": "spot", "spot": {"innerConeAngle": 0.6, "outerConeAngle": 0.4}}"#,
            "inner > outer",
        ),
        (
            r#"{"type": "spot", "spot": {"outerConeAngle": 2.0}}"#,
            "outer > pi/2",
        ),
    ] {
        let lights = format!("{bad}, {{\"type\": \"point\"}}, {{\"type\": \"point\"}}");
        let error = unbound::loaders::gltf::parse_gltf_slice(file(&lights).as_bytes(), path, None)
            .unwrap_err();
        assert_matches!(
            &error,
            unbound::loaders::gltf::GltfError::Light {
                light: 0,
                node: 1,
                ..
            }
        );
        eprintln!("{why}: {error}");
    }
    // An edited document is checked again, and a failed upload leaves no
    // light behind.
    let mut edited = document.clone();
    edited.lights.last_mut().unwrap().scene_light.intensity = f32::NAN;
    assert!(edited.validate().is_err());
    let before = renderer.lights().len();
    assert!(
        edited
            .upload(&mut renderer, glam::Mat4::IDENTITY, None)
            .is_err()
    );
    assert_eq!(renderer.lights().len(), before);
    gpu.finish();
}

/// Without live lights a frame records what it recorded before lights
/// existed (no light pass; the lit shader without the light loop), and
/// draws the same image; a light adds the light pass (one compute pass:
/// bind group, five pipelines and dispatches) and the readback's copy of
/// its statistics, and changes the image;
/// removing it returns to the first frame exactly.
#[test]
fn without_live_lights_the_frame_is_the_frame_without_lights() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mesh = flat_quad_scene(&mut renderer, HALF);
    add_solid_object(
        &mut renderer,
        mesh,
        [180, 180, 180, 255],
        quad_at(Vec3::ZERO, 2.0 * HALF, 2.0 * HALF),
    );
    let target = Target::new(&gpu, 32, 32);
    target.render(&gpu, &mut renderer);
    let (before, stats_before) = target.render(&gpu, &mut renderer);
    let light = Light::point(Vec3::new(0.0, 0.0, 1.0), Vec3::ONE, 2.0, Some(3.0));
    let handle = renderer.add_light(&light).unwrap();
    target.render(&gpu, &mut renderer);
    let (lit, stats_lit) = target.render(&gpu, &mut renderer);
    renderer.remove_light(handle).unwrap();
    target.render(&gpu, &mut renderer);
    let (after, stats_after) = target.render(&gpu, &mut renderer);
    assert_eq!(
        stats_lit.commands_recorded,
        stats_before.commands_recorded + 12 + 1,
        "the light pass and the copy of its statistics"
    );
    assert_eq!(stats_lit.bind_groups_set, stats_before.bind_groups_set + 1);
    assert_eq!(
        stats_after.commands_recorded,
        stats_before.commands_recorded
    );
    assert_ne!(lit, before, "the light shows");
    assert_eq!(after, before, "no light, no trace");
    gpu.finish();
}

/// 200 directional lights (in every cluster: 200 × 27,648 references, more
/// than the list's first size of `GUESSED_LIGHTS_PER_CLUSTER` per
/// cluster). With room to grow, the first frame's lists overflow, the
/// statistics say so, the next frame's list grows and its lists fit whole.
/// With a grid whose most references are too few (1,000), every frame
/// reports the overflow and the list stays at its most.
#[test]
fn overflowing_lists_are_reported_and_the_list_grows_to_fit() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, 320, 180);
    let with_lights = |max_light_references| {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities,
            clusters: ClusterGrid {
                max_light_references,
                ..ClusterGrid::default()
            },
            ..Default::default()
        });
        flat_quad_scene(&mut renderer, HALF);
        renderer.set_camera(&cluster_camera()).unwrap();
        for i in 0..200 {
            let direction = Vec3::new((i as f32 * 0.1).sin(), -1.0, (i as f32 * 0.1).cos());
            let light = Light::directional(direction, Vec3::ONE, 1e-3);
            renderer.add_light(&light).unwrap();
        }
        renderer
    };
    let clusters = ClusterGrid::default().clusters();
    let needed = 200 * clusters;
    let light_lists = |stats: &unbound::FrameStats, frame: u64| {
        let gpu = stats.gpu.expect("the previous frame's statistics");
        assert_eq!(gpu.frame_index, frame, "statistics of frame {frame}");
        gpu.light_lists.expect("light list statistics")
    };

    let mut renderer = with_lights(ClusterGrid::default().max_light_references);
    let (_, first) = target.render(&gpu, &mut renderer);
    assert!(
        first.light_references < needed,
        "{}",
        first.light_references
    );
    assert!(!first.light_references_grown);
    let (_, second) = target.render(&gpu, &mut renderer);
    let lists = light_lists(&second, first.frame_index);
    assert!(lists.overflowed(), "{lists:?}");
    assert_eq!(
        (lists.references_needed, lists.references_capacity),
        (needed, first.light_references)
    );
    assert_eq!((lists.clusters, lists.lit_clusters), (clusters, clusters));
    assert_eq!(lists.max_lights_per_cluster, 200);
    assert!((lists.mean_lights_per_lit_cluster() - 200.0).abs() < 1e-9);
    assert!(second.light_references_grown, "the list grows");
    assert!(second.light_references >= needed);
    let (_, third) = target.render(&gpu, &mut renderer);
    let lists = light_lists(&third, second.frame_index);
    assert!(!lists.overflowed(), "{lists:?}");
    assert!(!third.light_references_grown);
    assert_eq!(third.light_references, second.light_references);
    let read = read_cluster_lists(&gpu, &renderer);
    assert_eq!((read.needed, read.written), (needed, needed));
    assert!(
        third.to_string().contains("200.0 lights per lit cluster"),
        "{third}"
    );

    let mut small = with_lights(1000);
    let mut previous = None;
    for frame in 0..3 {
        let (_, stats) = target.render(&gpu, &mut small);
        assert_eq!(stats.light_references, 1000);
        assert!(!stats.light_references_grown);
        if let Some(previous) = previous {
            let lists = light_lists(&stats, previous);
            assert!(lists.overflowed(), "frame {frame}: {lists:?}");
            assert_eq!(
                (lists.references_needed, lists.references_capacity),
                (needed, 1000)
            );
            assert!(stats.to_string().contains("OVERFLOW"), "{stats}");
        }
        previous = Some(stats.frame_index);
    }
    let read = read_cluster_lists(&gpu, &small);
    assert_eq!((read.needed, read.written), (needed, 1000));
    gpu.finish();
}

/// The many-lights scene shaded through a grid with finer tiles (48 × 27
/// tiles, the default's 48 slices: 62,208 clusters, near the most) and one
/// far coarser (4 × 2 × 4) is the default grid's image: a fragment shades each light of its list whose
/// cull sphere holds it, in slot order, and every list holds those, so
/// only a light whose sphere passes within `f32` rounding of a fragment
/// could differ (and it sends under the cutoff illuminance there).
/// Tolerance: 1 level of 8 bits on at most 0.1% of the pixels.
#[test]
fn finer_and_coarser_grids_shade_the_same_image() {
    let scene = many_lights_scene();
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let target = Target::new(&gpu, scene.width, scene.height);
    let render = |grid: ClusterGrid| {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities: caps,
            clusters: grid,
            ..Default::default()
        });
        scene.load_into(&mut renderer).unwrap();
        // The first frame may grow the index list.
        target.render(&gpu, &mut renderer);
        let (image, stats) = target.render(&gpu, &mut renderer);
        let (_, next) = target.render(&gpu, &mut renderer);
        let gpu_stats = next.gpu.expect("statistics");
        assert_eq!(gpu_stats.frame_index, stats.frame_index);
        let lists = gpu_stats.light_lists.expect("light list statistics");
        assert!(!lists.overflowed(), "{grid:?}: {lists:?}");
        eprintln!("{grid:?}: {lists:?}, {} references", stats.light_references);
        (image, lists)
    };
    let default = ClusterGrid::default();
    let (a, a_lists) = render(default);
    let fine = ClusterGrid {
        tiles_x: 48,
        tiles_y: 27,
        ..default
    };
    let (b, b_lists) = render(fine);
    let coarse = ClusterGrid {
        tiles_x: 4,
        tiles_y: 2,
        depth_slices: 4,
        ..default
    };
    let (c, c_lists) = render(coarse);
    save_output("lights_many_fine_grid", &b);
    save_output("lights_many_coarse_grid", &c);
    let allowed = (a.width() * a.height()) as usize / 1000;
    for (name, image) in [("fine", &b), ("coarse", &c)] {
        let mismatched = mismatched_pixels(&a, image, 1);
        let differ = mismatched_pixels(&a, image, 0);
        eprintln!("{name} grid: {differ} pixels differ, {mismatched} by more than 1 level");
        assert!(differ <= allowed, "{name} grid: {differ} pixels differ");
        assert_eq!(mismatched, 0, "{name} grid");
    }
    // Finer clusters hold fewer lights each.
    let mean = |l: &unbound::LightListStats| l.mean_lights_per_lit_cluster();
    assert!(mean(&b_lists) < mean(&a_lists) && mean(&a_lists) < mean(&c_lists));
    gpu.finish();
}

/// More lights in a tile's column than its list holds
/// (`MAX_COLUMN_LIGHTS`; directional lights are in every column): the
/// statistics count the columns over their list, their clusters test every
/// light instead, and the lists still equal the CPU reference (every light
/// the reference is sure of, nothing it rules out, ascending).
#[test]
fn columns_over_their_list_fall_back_to_every_light() {
    use unbound::passes::lights::MAX_COLUMN_LIGHTS;
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, 320, 180);
    let grid = ClusterGrid {
        tiles_x: 4,
        tiles_y: 2,
        depth_slices: 4,
        ..ClusterGrid::default()
    };
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities,
        clusters: grid,
        ..Default::default()
    });
    let camera = cluster_camera();
    renderer.set_camera(&camera).unwrap();
    for light in mixed_lights() {
        renderer.add_light(&light).unwrap();
    }
    for i in 0..MAX_COLUMN_LIGHTS {
        let direction = Vec3::new((i as f32).sin(), -1.0, (i as f32).cos());
        let light = Light::directional(direction, Vec3::ONE, 1e-6);
        renderer.add_light(&light).unwrap();
    }
    // The first frames grow the index list; the last one fits.
    let mut stats = target.render(&gpu, &mut renderer).1;
    for _ in 0..3 {
        stats = target.render(&gpu, &mut renderer).1;
    }
    let gpu_stats = stats.gpu.and_then(|g| g.light_lists).expect("statistics");
    assert!(!gpu_stats.overflowed(), "{gpu_stats:?}");
    assert_eq!(gpu_stats.overflowed_columns, 8, "{gpu_stats:?}");
    assert!(gpu_stats.max_lights_per_column > MAX_COLUMN_LIGHTS);

    let lists = read_cluster_lists(&gpu, &renderer);
    let slots = renderer.lights().slots_in_use();
    let table: Vec<_> = (0..slots)
        .map(|s| renderer.lights().gpu_entry(s).unwrap())
        .collect();
    let view = ClusterView {
        grid,
        camera,
        viewport: UVec2::new(320, 180),
    };
    let reference = view.assign(&table, 1e-6);
    for (c, (gpu_list, expected)) in lists.clusters.iter().zip(&reference).enumerate() {
        assert!(
            gpu_list.windows(2).all(|w| w[0] < w[1]),
            "cluster {c}: not in ascending slot order"
        );
        let missing: Vec<_> = expected
            .lights
            .iter()
            .filter(|s| !gpu_list.contains(s))
            .collect();
        assert!(missing.is_empty(), "cluster {c}: missing {missing:?}");
        let extra: Vec<_> = gpu_list
            .iter()
            .filter(|s| !expected.lights.contains(s) && !expected.uncertain.contains(s))
            .collect();
        assert!(extra.is_empty(), "cluster {c}: should not hold {extra:?}");
        assert!(gpu_list.len() > MAX_COLUMN_LIGHTS as usize);
    }
    assert_eq!(lists.written, lists.needed, "every list fits");
    gpu.finish();
}
