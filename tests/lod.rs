//! Level of detail: generated levels are smaller and within their error;
//! the cull pass picks, for every instance, the level the CPU twin of its
//! projected-error test picks (read back from the draws it wrote, and
//! through the LOD debug view on tiers A, B and C); far instances draw
//! fewer triangles; bad settings are typed errors.

mod common;

use common::*;
use glam::{Mat4, Vec3, Vec4};
use unbound::gpu_types::GpuCullHeader;
use unbound::lod::{self, LodSettings, MAX_LOD_LEVELS, MeshOptions};
use unbound::passes::cull::DRAW_ARGS_SIZE;
use unbound::{
    Camera, DebugOptions, DebugView, Error, GeometryError, IndirectMode, LodError, MeshHandle,
    ObjectDesc, ObjectHandle, Renderer, RendererConfig, Tier, shapes,
};

const SIZE: u32 = 128;

/// Distance from `p` to the triangle `(a, b, c)`, worked out apart from the
/// library's region-by-region version: the projection onto the plane when
/// it falls inside the triangle, else the nearest of the three edges.
fn point_triangle_distance(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let n = (b - a).cross(c - a);
    if n.length_squared() > 0.0 {
        let q = p - n * ((p - a).dot(n) / n.length_squared());
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| n.dot((v - u).cross(q - u)) >= 0.0);
        if inside {
            return p.distance(q);
        }
    }
    let segment = |u: Vec3, v: Vec3| {
        let t =
            ((p - u).dot(v - u) / (v - u).length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
        p.distance(u + (v - u) * t)
    };
    segment(a, b).min(segment(b, c)).min(segment(c, a))
}

/// Largest distance from a vertex of the full mesh to the surface of
/// `indices` (a one-sided Hausdorff distance over the vertices).
fn deviation(positions: &[[f32; 3]], indices: &[u32]) -> f32 {
    let p = |i: u32| Vec3::from_array(positions[i as usize]);
    positions
        .iter()
        .map(|&v| {
            let v = Vec3::from_array(v);
            indices
                .chunks_exact(3)
                .map(|t| point_triangle_distance(v, p(t[0]), p(t[1]), p(t[2])))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
}

#[test]
fn generated_levels_have_fewer_indices_and_stay_within_their_error() {
    for (name, mesh) in [
        ("sphere", shapes::sphere(48, 24)),
        ("torus", shapes::torus(0.3, 48, 24)),
    ] {
        let levels = lod::generate_levels(&mesh.positions, &mesh.indices, MAX_LOD_LEVELS);
        assert!(levels.len() >= 3, "{name}: {} levels", levels.len());
        let mut previous = (mesh.indices.len(), 0.0);
        for (l, level) in levels.iter().enumerate() {
            let (count, error) = (level.indices.len(), level.error);
            assert!(count % 3 == 0 && count > 0, "{name} level {l}: {count}");
            assert!(
                (count as f32) <= previous.0 as f32 * 0.85,
                "{name} level {l}: {count} indices after {}",
                previous.0
            );
            assert!(error >= previous.1 && error.is_finite(), "{name} level {l}");
            assert!(
                level
                    .indices
                    .iter()
                    .all(|&i| (i as usize) < mesh.positions.len()),
                "{name} level {l} indexes past the vertices"
            );
            let measured = deviation(&mesh.positions, &level.indices);
            println!(
                "{name} level {}: {count} indices, error {error}, measured {measured}",
                l + 1
            );
            assert!(
                measured <= error * 1.0001 + 1e-6,
                "{name} level {l}: vertices {measured} from the level, reported {error}"
            );
            previous = (count, error);
        }
    }
    assert!(lod::generate_levels(&shapes::cube().positions, &[], 4).is_empty());
}

/// A mesh with its chain: its slot, and per entry (0: itself, then each
/// level) the entry's first index and index count; each level's error over
/// the bounding radius.
struct Chain {
    mesh: MeshHandle,
    /// The mesh's bounding radius.
    radius: f32,
    first_indices: Vec<u32>,
    index_counts: Vec<u32>,
    errors: Vec<f32>,
}

fn add_chain(renderer: &mut Renderer, mesh: &shapes::Mesh) -> Chain {
    let options = MeshOptions {
        lod_levels: MAX_LOD_LEVELS,
        ..Default::default()
    };
    let handle = renderer
        .add_mesh_with(&mesh.as_mesh_data(), &options)
        .unwrap();
    let (slot, bounds) = renderer.arena().resolve(handle).unwrap();
    let entry = *renderer.arena().gpu_entry(slot).unwrap();
    let levels = entry.lod_levels as usize;
    assert_eq!(
        levels, MAX_LOD_LEVELS as usize,
        "the sphere simplifies 4 times"
    );
    let mut chain = Chain {
        mesh: handle,
        radius: bounds.radius,
        first_indices: vec![entry.first_index],
        index_counts: vec![entry.index_count],
        errors: entry.lod_errors[..levels].to_vec(),
    };
    for &level_slot in &entry.lod_slots[..levels] {
        let level = renderer.arena().gpu_entry(level_slot).unwrap();
        assert_eq!(
            level.first_vertex, entry.first_vertex,
            "levels share the vertices"
        );
        assert!(level.index_count < *chain.index_counts.last().unwrap());
        chain.first_indices.push(level.first_index);
        chain.index_counts.push(level.index_count);
    }
    chain
}

fn lod_renderer(gpu: &Gpu, tier: Option<Tier>, occlusion: bool, lod: LodSettings) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        indirect: if tier.is_some() {
            IndirectMode::Plain
        } else {
            IndirectMode::Count
        },
        occlusion,
        lod,
        // Far instances can cover no pixel centre: every instance drawn.
        small_object_culling: false,
        ..Default::default()
    });
    renderer.set_lighting(&flat_lighting()).unwrap();
    renderer
}

fn camera() -> Camera {
    Camera {
        position: Vec3::ZERO,
        target: Vec3::NEG_Z,
        aspect: 1.0,
        z_near: 0.05,
        z_far: 2000.0,
        ..Default::default()
    }
}

/// Per visible object slot, the entry of its mesh's chain its draw read
/// (the camera's opaque draws, compacted: tier A).
fn drawn_levels(gpu: &Gpu, renderer: &Renderer, chain: &Chain) -> Vec<(u32, u32)> {
    let header: GpuCullHeader = bytemuck::pod_read_unaligned(&gpu.read_buffer(
        renderer.cull_counters_buffer(),
        0,
        size_of::<GpuCullHeader>() as u64,
    ));
    let words = DRAW_ARGS_SIZE / 4;
    let draws = gpu.read_u32s(
        renderer.indirect_draws_buffer(),
        0,
        words * u64::from(header.bucket_draws[0]),
    );
    let visible = gpu.read_u32s(
        renderer.visible_instances_buffer(),
        0,
        u64::from(header.visible_instances),
    );
    let mut levels = Vec::new();
    for draw in draws.chunks_exact(words as usize) {
        let (index_count, instances, first_index, first) = (draw[0], draw[1], draw[2], draw[4]);
        let level = chain
            .first_indices
            .iter()
            .position(|&f| f == first_index)
            .expect("every draw reads one entry of the chain") as u32;
        assert_eq!(index_count, chain.index_counts[level as usize]);
        for &slot in &visible[first as usize..(first + instances) as usize] {
            levels.push((slot, level));
        }
    }
    levels.sort_unstable();
    levels
}

/// The CPU twin's level for `object`, or `None` where the test is within a
/// relative 1e-4 of its decision at some level (f32 rounding may go either
/// way there).
fn cpu_level(renderer: &Renderer, chain: &Chain, slot: u32, k: f32) -> Option<u32> {
    let sphere = Vec4::from_array(renderer.objects().world_sphere_of_slot(slot).unwrap());
    let origin = renderer.camera().position;
    let distance = lod::lod_distance(origin, sphere);
    let close = chain.errors.iter().any(|e| {
        let projected = e * sphere.w * k;
        (projected - distance).abs() <= 1e-4 * distance.max(projected)
    });
    (!close).then(|| lod::select_level(&chain.errors, sphere, origin, k))
}

/// Instances of a sphere at distances from 1.5 to 400, in every
/// direction of a cone inside the frustum, their radius 0.003 to 0.6 times
/// their distance.
fn scatter(renderer: &mut Renderer, chain: &Chain, count: u32) -> Vec<ObjectHandle> {
    let (mesh, radius) = (chain.mesh, chain.radius);
    let material = renderer
        .add_material(&unbound::Material::default())
        .unwrap();
    let mut rng = unbound_scenes::Rng::new(15);
    (0..count)
        .map(|i| {
            let t = i as f32 / (count - 1) as f32;
            let distance = 1.5 * (400.0f32 / 1.5).powf(t);
            let (x, y) = (rng.range(-0.35, 0.35), rng.range(-0.35, 0.35));
            // Radius over distance, log-uniform: every level at some
            // threshold.
            let scale = distance * 0.003 * 200.0f32.powf(rng.range(0.0, 1.0)) / radius;
            let center = Vec3::new(x, y, -1.0).normalize() * distance;
            let world_from_object =
                Mat4::from_translation(center) * Mat4::from_scale(Vec3::splat(scale));
            renderer
                .add_object(&ObjectDesc {
                    mesh,
                    material,
                    world_from_object,
                })
                .unwrap()
        })
        .collect()
}

/// The entry each visible instance drew against the CPU twin's level:
/// instances per level, the triangles drawn, the instances compared (not
/// within rounding of a decision).
fn check_levels(
    gpu: &Gpu,
    renderer: &Renderer,
    chain: &Chain,
    settings: &LodSettings,
) -> ([u32; 5], u64, usize) {
    let k = lod::lod_factor(renderer.camera(), SIZE, settings);
    let (mut per_level, mut triangles, mut compared) = ([0u32; 5], 0u64, 0);
    for (slot, level) in drawn_levels(gpu, renderer, chain) {
        per_level[level as usize] += 1;
        triangles += u64::from(chain.index_counts[level as usize] / 3);
        if let Some(expected) = cpu_level(renderer, chain, slot, k) {
            assert_eq!(level, expected, "object slot {slot}, {settings:?}");
            compared += 1;
        }
    }
    (per_level, triangles, compared)
}

#[test]
fn the_cull_pass_picks_the_cpu_twins_level_and_far_instances_draw_fewer_triangles() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = lod_renderer(&gpu, None, false, LodSettings::default());
    let chain = add_chain(&mut renderer, &shapes::sphere(48, 24));
    let objects = scatter(&mut renderer, &chain, 400);
    renderer.set_camera(&camera()).unwrap();
    let target = Target::new(&gpu, SIZE, SIZE);

    // LOD off (the default): every instance draws the mesh itself.
    let (_, _) = target.render(&gpu, &mut renderer);
    let off = renderer.latest_gpu_stats().expect("stats arrive");
    let levels = drawn_levels(&gpu, &renderer, &chain);
    assert_eq!(
        levels.len(),
        objects.len(),
        "every instance is in the frustum"
    );
    assert!(levels.iter().all(|&(_, level)| level == 0));
    assert_eq!(
        off.triangles,
        u64::from(chain.index_counts[0] / 3) * objects.len() as u64
    );

    let (mut seen_levels, mut near_triangles) = ([false; 5], Vec::new());
    for threshold_px in [1.0, 0.25, 0.05] {
        let settings = LodSettings {
            enabled: true,
            threshold_px,
        };
        renderer.set_lod(&settings).unwrap();
        target.render(&gpu, &mut renderer);
        let stats = renderer.latest_gpu_stats().expect("stats arrive");
        let (per_level, triangles, compared) = check_levels(&gpu, &renderer, &chain, &settings);
        println!("{threshold_px} px: levels {per_level:?}, {compared} compared");
        assert!(
            compared + 2 >= objects.len(),
            "{compared} of {} compared",
            objects.len()
        );
        near_triangles.push(triangles);
        for (seen, &n) in seen_levels.iter_mut().zip(&per_level) {
            *seen |= n > 0;
        }
        // The statistics count what was drawn: fewer triangles.
        assert_eq!(stats.triangles, triangles);
        assert!(stats.triangles < off.triangles);
        assert_eq!(stats.visible_instances, off.visible_instances);
    }
    assert_eq!(
        seen_levels, [true; 5],
        "every level is drawn at some threshold"
    );

    // From 300 units back every instance is farther: coarser levels,
    // fewer triangles.
    let settings = LodSettings {
        enabled: true,
        threshold_px: 1.0,
    };
    renderer.set_lod(&settings).unwrap();
    renderer
        .set_camera(&Camera {
            position: Vec3::new(0.0, 0.0, 300.0),
            ..camera()
        })
        .unwrap();
    target.render(&gpu, &mut renderer);
    let far = renderer.latest_gpu_stats().expect("stats arrive");
    let (per_level, triangles, compared) = check_levels(&gpu, &renderer, &chain, &settings);
    println!("1 px from 300 back: levels {per_level:?}, {compared} compared");
    assert_eq!(far.triangles, triangles);
    assert!(far.triangles * 2 < near_triangles[0], "{far:?}");
    assert_eq!(per_level.iter().sum::<u32>(), objects.len() as u32);
    gpu.finish();
}

/// The level whose colour the LOD view shows in `pixel` (sRGB bytes;
/// channels on or off, shaded between half and full), `None` for another
/// colour.
fn level_of_pixel(pixel: image::Rgba<u8>) -> Option<u32> {
    let on = |c: u8| c > 150;
    let off = |c: u8| c < 20;
    (0..=MAX_LOD_LEVELS).find(|&level| {
        let color = lod::lod_level_color(level);
        (0..3).all(|c| {
            if color[c] > 0.5 {
                on(pixel[c])
            } else {
                off(pixel[c])
            }
        })
    })
}

/// One sphere per level, each at the size on screen that picks that level
/// (radius over distance between the level's switch and the next's), in
/// a cell of the image: level 0 left, 1 to 4 in the quadrants of the right
/// half. The LOD view shows each one's level on tiers A, B and C (B and C
/// forced on this adapter), with occlusion culling on (the default) and
/// off.
#[test]
fn the_lod_view_shows_each_level_on_every_tier() {
    const VIEW: u32 = 256;
    let gpu = Gpu::new(&Gpu::default_capacities());
    for (tier, occlusion) in [
        (None, true),
        (None, false),
        (Some(Tier::B), true),
        (Some(Tier::C), true),
    ] {
        let mut renderer = lod_renderer(&gpu, tier, occlusion, LodSettings::default());
        let chain = add_chain(&mut renderer, &shapes::sphere(32, 16));
        let material = renderer
            .add_material(&unbound::Material::default())
            .unwrap();
        let camera = camera();
        renderer.set_camera(&camera).unwrap();
        // The threshold puts the coarsest level's sphere at 4 pixels'
        // radius: radius / distance = q, about q · P pixels.
        let pixels_per_unit = VIEW as f32 / (2.0 * (camera.fov_y_radians / 2.0).tan());
        let errors = &chain.errors;
        let threshold_px = 4.0 / 0.7 * errors[3];
        let settings = LodSettings {
            enabled: true,
            threshold_px,
        };
        renderer.set_lod(&settings).unwrap();
        let k = lod::lod_factor(&camera, VIEW, &settings);
        // Level l fits while q <= 1 / (error_l k).
        let bound = |l: usize| 1.0 / (errors[l - 1] * k);
        let ratios = [
            1.4 * bound(1),
            (bound(1) * bound(2)).sqrt(),
            (bound(2) * bound(3)).sqrt(),
            (bound(3) * bound(4)).sqrt(),
            0.7 * bound(4),
        ];
        let cells = [
            (-0.5, 0.0),
            (0.25, 0.5),
            (0.75, 0.5),
            (0.25, -0.5),
            (0.75, -0.5),
        ];
        let tan = (camera.fov_y_radians / 2.0).tan();
        let distance = 10.0;
        for (&q, &(x, y)) in ratios.iter().zip(&cells) {
            let radius = q * distance;
            let direction = Vec3::new(x * tan, y * tan, -1.0).normalize();
            let world_from_object = Mat4::from_translation(direction * (distance + radius))
                * Mat4::from_scale(Vec3::splat(radius / chain.radius));
            renderer
                .add_object(&ObjectDesc {
                    mesh: chain.mesh,
                    material,
                    world_from_object,
                })
                .unwrap();
        }
        let debug = DebugOptions {
            view: DebugView::LodLevel,
            ..Default::default()
        };
        renderer.set_debug(&debug).unwrap();
        let target = Target::new(&gpu, VIEW, VIEW);
        // Occlusion culling draws everything late on the first frame, early
        // on the next.
        for frame in 0..2 {
            let (image, _) = target.render(&gpu, &mut renderer);
            let label = format!("lod_view_{tier:?}_{occlusion}_{frame}");
            let mut shown = Vec::new();
            for (level, &(x, y)) in cells.iter().enumerate() {
                let px = ((x + 1.0) * 0.5 * VIEW as f32) as u32;
                let py = ((1.0 - y) * 0.5 * VIEW as f32) as u32;
                let pixel = *image.get_pixel(px, py);
                // The CPU twin agrees on what each sphere should draw.
                let slot = level as u32;
                let sphere = renderer.objects().world_sphere_of_slot(slot).unwrap();
                assert_eq!(
                    cpu_level(&renderer, &chain, slot, k),
                    Some(level as u32),
                    "{sphere:?}"
                );
                shown.push(level_of_pixel(pixel));
                println!(
                    "{label}: level {level} radius {:.1} px: {pixel:?}",
                    ratios[level] * pixels_per_unit
                );
            }
            if shown != [Some(0), Some(1), Some(2), Some(3), Some(4)] {
                let path = save_output(&label, &image);
                panic!("{label}: levels shown {shown:?} ({})", path.display());
            }
        }
        gpu.finish();
    }
}

#[test]
fn bad_settings_are_typed_errors_and_level_slots_come_back() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    for threshold_px in [f32::NAN, -1.0, 0.0, f32::INFINITY] {
        let settings = LodSettings {
            enabled: true,
            threshold_px,
        };
        let built = gpu.try_renderer(RendererConfig {
            capacities: Gpu::default_capacities(),
            lod: settings,
            ..Default::default()
        });
        assert!(
            matches!(built, Err(Error::Lod(LodError::Threshold { .. }))),
            "{threshold_px}: {built:?}"
        );
    }
    let mut renderer = lod_renderer(&gpu, None, true, LodSettings::default());
    let on = LodSettings {
        enabled: true,
        threshold_px: 2.0,
    };
    renderer.set_lod(&on).unwrap();
    let nan = LodSettings {
        threshold_px: f32::NAN,
        ..on
    };
    assert!(matches!(
        renderer.set_lod(&nan),
        Err(Error::Lod(LodError::Threshold { .. }))
    ));
    let negative = LodSettings {
        threshold_px: -1.0,
        ..on
    };
    assert!(renderer.set_lod(&negative).is_err());
    assert_eq!(
        *renderer.lod(),
        on,
        "a refused setting keeps the one in use"
    );

    let sphere = shapes::sphere(32, 16);
    let too_many = MeshOptions {
        lod_levels: MAX_LOD_LEVELS + 1,
        ..Default::default()
    };
    assert!(matches!(
        renderer.add_mesh_with(&sphere.as_mesh_data(), &too_many),
        Err(Error::Geometry(GeometryError::Lod(
            LodError::TooManyLevels { .. }
        )))
    ));
    assert_eq!(renderer.arena().mesh_count(), 0);

    // A chain takes a slot per level and gives them all back.
    let chain = add_chain(&mut renderer, &sphere);
    assert_eq!(renderer.arena().mesh_count(), 1);
    let slots = renderer.arena().mesh_slots();
    assert_eq!(slots, 1 + MAX_LOD_LEVELS);
    renderer.remove_mesh(chain.mesh).unwrap();
    assert_eq!(renderer.arena().mesh_count(), 0);
    let again = add_chain(&mut renderer, &sphere);
    assert_eq!(
        renderer.arena().mesh_slots(),
        slots,
        "the freed slots are reused"
    );
    // And the renderer still draws.
    let material = renderer
        .add_material(&unbound::Material::default())
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh: again.mesh,
            material,
            world_from_object: Mat4::from_translation(Vec3::new(0.0, 0.0, -5.0)),
        })
        .unwrap();
    renderer.set_camera(&camera()).unwrap();
    let target = Target::new(&gpu, SIZE, SIZE);
    let (image, _) = target.render(&gpu, &mut renderer);
    assert!(drawn_pixels(&image, image.get_pixel(0, 0).0) > 100);
    gpu.finish();
}

/// A glTF file loaded with `LoadOptions::meshes` gets simplified levels
/// (FlightHelmet: 6 primitives of thousands of triangles each). With LOD
/// off the image is, pixel for pixel, the one of the file loaded without
/// them; with LOD on and the helmet far away, the frame draws fewer
/// triangles than without LOD.
#[test]
fn gltf_meshes_loaded_with_levels_draw_fewer_triangles_far_away() {
    use unbound::loaders::gltf::{LoadOptions, load_gltf_with};
    let gpu = Gpu::new(&Gpu::default_capacities());
    let target = Target::new(&gpu, SIZE, SIZE);
    let mut frames = Vec::new();
    for lod_levels in [0, MAX_LOD_LEVELS] {
        let mut renderer = lod_renderer(&gpu, None, false, LodSettings::default());
        let scene = load_gltf_with(
            &mut renderer,
            &asset("FlightHelmet/FlightHelmet.gltf"),
            LoadOptions {
                meshes: MeshOptions {
                    lod_levels,
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .unwrap();
        let levels: Vec<u32> = scene
            .meshes
            .iter()
            .map(|&mesh| {
                let (slot, _) = renderer.arena().resolve(mesh).unwrap();
                renderer.arena().gpu_entry(slot).unwrap().lod_levels
            })
            .collect();
        if lod_levels == 0 {
            assert!(levels.iter().all(|&n| n == 0));
        } else {
            assert!(
                levels.iter().all(|&n| n >= 1),
                "levels per mesh: {levels:?}"
            );
        }
        let (min, max) = scene.bounds;
        renderer.set_camera(&camera_framing_box(min, max)).unwrap();
        let (near, _) = target.render(&gpu, &mut renderer);
        // Far away: a few pixels tall.
        let centre = (min + max) * 0.5;
        renderer
            .set_camera(&Camera {
                position: centre + Vec3::new(0.0, 0.0, 40.0 * (max - min).length()),
                target: centre,
                aspect: 1.0,
                z_near: 0.05,
                z_far: 2000.0,
                ..Default::default()
            })
            .unwrap();
        let (far, _) = target.render(&gpu, &mut renderer);
        let without = renderer.latest_gpu_stats().expect("stats arrive");
        renderer
            .set_lod(&LodSettings {
                enabled: true,
                ..LodSettings::default()
            })
            .unwrap();
        target.render(&gpu, &mut renderer);
        let with = renderer.latest_gpu_stats().expect("stats arrive");
        assert_eq!(with.visible_instances, without.visible_instances);
        println!(
            "{lod_levels} levels asked, {levels:?} made: far away {} triangles with LOD, {} without",
            with.triangles, without.triangles
        );
        if lod_levels == 0 {
            assert_eq!(with.triangles, without.triangles);
        } else {
            assert!(
                with.triangles * 4 < without.triangles,
                "{} of {} triangles",
                with.triangles,
                without.triangles
            );
        }
        frames.push((near, far));
    }
    assert!(frames[0] == frames[1], "levels unused while LOD is off");
    gpu.finish();
}
