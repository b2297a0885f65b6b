//! Cluster culling (issue 28, stage 2; tier A on lavapipe): the clusters
//! the camera draws are exactly those the CPU twins of the frustum and
//! cone tests keep (up to clusters within rounding of a plane or a cone's
//! cutoff), and the image, lit and object ids, is the same with cluster
//! culling on and off, frame for frame, with occlusion culling on and off,
//! on the occlusion tests' wall scene and on FlightHelmet, and on tiers B
//! and C (forced on lavapipe), which draw the survivors through the
//! triangle filter's packed draws.

mod common;

use std::collections::BTreeSet;

use common::occlusion_scene::{HEIGHT, WIDTH, background_srgb, sliding_camera, wall_scene};
use common::*;
use glam::{Mat4, Quat, Vec3, Vec4};
use unbound::camera::frustum_planes;
use unbound::geometry::clusters::Cluster;
use unbound::gpu_types::GpuClusterStats;
use unbound::loaders::gltf::load_gltf;
use unbound::{
    Camera, DebugOptions, DebugView, ID_TARGET_FORMAT, Material, ObjectDesc, Renderer,
    RendererConfig, TextureRef, Tier, shapes,
};

fn renderer(gpu: &Gpu, clusters: bool, occlusion: bool) -> Renderer {
    renderer_of(gpu, None, clusters, occlusion)
}

/// A renderer of `tier` (`None`: the best, tier A on lavapipe).
fn renderer_of(gpu: &Gpu, tier: Option<Tier>, clusters: bool, occlusion: bool) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        occlusion,
        cluster_culling: clusters,
        tier,
        ..Default::default()
    });
    renderer.set_lighting(&flat_lighting()).unwrap();
    assert_eq!(renderer.cluster_culling_active(), clusters);
    renderer
}

/// The CPU twin of a cluster's verdict, or `None` where the GPU may
/// decide either way (within rounding of a frustum plane or the cone's
/// cutoff).
fn reference_keeps(
    cluster: &Cluster,
    world_from_object: &Mat4,
    camera: Vec3,
    planes: &[Vec4; 6],
    cone: bool,
) -> Option<bool> {
    let sphere = cluster.world_sphere(world_from_object);
    let margin = planes
        .iter()
        .map(|p| p.truncate().dot(sphere.truncate()) + p.w + sphere.w)
        .fold(f32::INFINITY, f32::min);
    if margin.abs() < 1e-4 * (1.0 + sphere.truncate().length() + sphere.w) {
        return None;
    }
    if !Cluster::sphere_in_frustum(sphere, planes) {
        return Some(false);
    }
    if !cone {
        return Some(true);
    }
    let local = world_from_object.inverse().transform_point3(camera);
    let dot = (cluster.cone_apex - local)
        .normalize_or_zero()
        .dot(cluster.cone_axis);
    if (dot - cluster.cone_cutoff).abs() < 1e-4 {
        return None;
    }
    Some(!cluster.cone_culls(local))
}

#[test]
fn the_drawn_clusters_are_the_cpu_references() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu, true, false);
    renderer.set_small_object_culling(false);
    let sphere = renderer
        .add_mesh(&shapes::sphere(64, 32).as_mesh_data())
        .unwrap();
    let torus = renderer
        .add_mesh(&shapes::torus(0.35, 48, 24).as_mesh_data())
        .unwrap();
    let white = renderer.heap().white_texture();
    let sampler = renderer.heap().default_sampler();
    let mut material = |double_sided| {
        renderer
            .add_material(&Material {
                base_color: Some(TextureRef::new(white, sampler)),
                double_sided,
                ..Default::default()
            })
            .unwrap()
    };
    let (single, double) = (material(false), material(true));
    // (mesh, double-sided, world_from_object): plain, scaled unevenly,
    // sheared, mirrored, double-sided, half out of the frustum.
    let shear = Mat4::from_cols(
        Vec4::new(1.0, 0.0, 0.0, 0.0),
        Vec4::new(0.6, 1.0, 0.0, 0.0),
        Vec4::new(0.0, 0.3, 1.0, 0.0),
        Vec4::new(1.5, -1.0, -1.0, 1.0),
    );
    let placements = [
        (
            sphere,
            false,
            Mat4::from_translation(Vec3::new(-2.0, 0.0, 0.0)),
        ),
        (
            torus,
            false,
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.5, 0.5, 1.0),
                Quat::from_rotation_x(1.0),
                Vec3::new(1.5, 1.0, 0.0),
            ),
        ),
        (sphere, false, shear),
        (
            torus,
            false,
            Mat4::from_scale_rotation_translation(
                Vec3::new(-1.0, 1.0, 1.0),
                Quat::from_rotation_y(0.7),
                Vec3::new(0.0, -1.5, 1.0),
            ),
        ),
        (
            torus,
            true,
            Mat4::from_translation(Vec3::new(-1.0, 1.8, 1.0)),
        ),
        (
            sphere,
            false,
            Mat4::from_translation(Vec3::new(3.0, 0.5, 2.0)),
        ),
    ];
    let mut objects = Vec::new();
    for (mesh, double_sided, world) in placements {
        let material = if double_sided { double } else { single };
        let object = renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: world,
            })
            .unwrap();
        objects.push((object.slot(), mesh, double_sided, world));
    }
    let camera = Camera {
        position: Vec3::new(0.5, 1.0, 5.0),
        target: Vec3::ZERO,
        aspect: WIDTH as f32 / HEIGHT as f32,
        ..Default::default()
    };
    renderer.set_camera(&camera).unwrap();
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    target.render(&gpu, &mut renderer);
    gpu.finish();

    // What the GPU drew: (object slot, first index) per cluster draw.
    let (buffer, per_bucket) = renderer
        .cluster_draws_buffer()
        .expect("cluster culling ran");
    let head = gpu.read_u32s(buffer, 0, 16);
    let stats: GpuClusterStats = *bytemuck::from_bytes(bytemuck::cast_slice(&head));
    let visible = gpu.read_u32s(renderer.visible_instances_buffer(), 0, 64);
    let mut drawn = BTreeSet::new();
    for bucket in 0..2u32 {
        let count = stats.bucket_draws[bucket as usize];
        let offset = 64 + u64::from(bucket) * u64::from(per_bucket) * 20;
        let draws = gpu.read_u32s(buffer, offset, u64::from(count.max(1)) * 5);
        for d in draws.chunks_exact(5).take(count as usize) {
            assert_eq!(d[1], 1, "one instance per cluster draw");
            assert!(
                drawn.insert((visible[d[4] as usize], d[2], d[0])),
                "drawn twice"
            );
        }
    }
    assert_eq!(stats.drawn as usize, drawn.len());

    // The CPU's verdicts.
    let planes = frustum_planes(&camera.clip_from_world());
    let arena = renderer.arena();
    let (mut expected, mut undecided, mut cone_culled) = (BTreeSet::new(), BTreeSet::new(), 0);
    for &(slot, mesh, double_sided, world) in &objects {
        let (mesh_slot, _) = arena.resolve(mesh).unwrap();
        let entry = *arena.gpu_entry(mesh_slot).unwrap();
        let cone = !double_sided && world.determinant() > 0.0;
        for c in entry.first_cluster..entry.first_cluster + entry.cluster_count {
            let gpu_cluster = arena.cluster(c).unwrap();
            let cluster = Cluster {
                center: Vec4::from(gpu_cluster.bounding_sphere).truncate(),
                radius: gpu_cluster.bounding_sphere[3],
                cone_apex: gpu_cluster.cone_apex.into(),
                cone_axis: gpu_cluster.cone_axis.into(),
                cone_cutoff: gpu_cluster.cone_cutoff,
                first_triangle: 0,
                triangle_count: gpu_cluster.index_count / 3,
            };
            let key = (slot, gpu_cluster.first_index, gpu_cluster.index_count);
            match reference_keeps(&cluster, &world, camera.position, &planes, cone) {
                Some(true) => _ = expected.insert(key),
                Some(false) => {
                    let local = world.inverse().transform_point3(camera.position);
                    cone_culled += usize::from(cone && cluster.cone_culls(local));
                }
                None => _ = undecided.insert(key),
            }
        }
    }
    let decided: BTreeSet<_> = drawn.difference(&undecided).copied().collect();
    assert_eq!(decided, expected, "clusters drawn (GPU) and kept (CPU)");
    assert!(
        undecided.len() * 20 < expected.len(),
        "{} undecided",
        undecided.len()
    );
    // The scene exercises both tests.
    assert!(cone_culled > 20, "{cone_culled} culled by cones");
    assert!(
        stats.cone_culled > 20 && stats.frustum_culled > 5,
        "{stats:?}"
    );
    assert_eq!(
        stats.tested,
        stats.frustum_culled + stats.cone_culled + stats.occluded + stats.drawn
    );
}

fn set_view(renderer: &mut Renderer, view: DebugView) {
    renderer
        .set_debug(&DebugOptions {
            view,
            ..Default::default()
        })
        .unwrap();
}

/// Renders `cameras` with cluster culling on and off (occlusion as
/// given), lit and as object ids; every pair of images must be equal.
fn compare(gpu: &Gpu, name: &str, scene: impl Fn(&mut Renderer), cameras: &[Camera]) {
    compare_on(gpu, None, name, scene, cameras);
}

/// [`compare`] on `tier`.
fn compare_on(
    gpu: &Gpu,
    tier: Option<Tier>,
    name: &str,
    scene: impl Fn(&mut Renderer),
    cameras: &[Camera],
) {
    for occlusion in [false, true] {
        let mut on = renderer_of(gpu, tier, true, occlusion);
        let mut off = renderer_of(gpu, tier, false, occlusion);
        scene(&mut on);
        scene(&mut off);
        let lit = Target::new(gpu, WIDTH, HEIGHT);
        let ids = Target::with_format(gpu, WIDTH, HEIGHT, ID_TARGET_FORMAT);
        let mut tested = 0;
        for (frame, camera) in cameras.iter().enumerate() {
            on.set_camera(camera).unwrap();
            off.set_camera(camera).unwrap();
            for (view, target) in [(DebugView::Lit, &lit), (DebugView::ObjectIndex, &ids)] {
                set_view(&mut on, view);
                set_view(&mut off, view);
                let (with, _) = target.render(gpu, &mut on);
                let (without, _) = target.render(gpu, &mut off);
                let differ = mismatched_pixels(&with, &without, 0);
                if differ > 0 {
                    save_output(&format!("clusters-{name}-{frame}-{view:?}-on.png"), &with);
                    save_output(
                        &format!("clusters-{name}-{frame}-{view:?}-off.png"),
                        &without,
                    );
                    panic!(
                        "{name} occlusion {occlusion} frame {frame} {view:?}: {differ} pixels differ"
                    );
                }
                if view == DebugView::Lit {
                    assert!(
                        drawn_pixels(&with, background_srgb()) > 100,
                        "{name} frame {frame}"
                    );
                }
            }
            if let Some(stats) = on.latest_gpu_stats() {
                tested += stats.clusters.map_or(0, |c| c.tested);
            }
        }
        assert!(tested > 0, "{name}: no cluster statistics came back");
    }
    gpu.finish();
}

#[test]
fn the_image_is_the_same_with_cluster_culling_on_and_off() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let frames = 8;
    let cameras: Vec<Camera> = (0..frames).map(|f| sliding_camera(f, frames)).collect();
    compare(&gpu, "wall", |r| _ = wall_scene(r), &cameras);
}

#[test]
fn flight_helmet_looks_the_same_with_cluster_culling_on_and_off() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let cameras: Vec<Camera> = (0..6)
        .map(|i| {
            let angle = i as f32 * 1.1;
            let distance = if i % 2 == 0 { 0.9 } else { 0.45 };
            Camera {
                position: Vec3::new(angle.sin() * distance, 0.35, angle.cos() * distance),
                target: Vec3::new(0.0, 0.3, 0.0),
                aspect: WIDTH as f32 / HEIGHT as f32,
                z_near: 0.01,
                ..Default::default()
            }
        })
        .collect();
    let scene = |r: &mut Renderer| {
        load_gltf(r, &asset("FlightHelmet/FlightHelmet.gltf"), Mat4::IDENTITY).unwrap();
    };
    compare(&gpu, "helmet", scene, &cameras);
}

#[test]
fn tiers_b_and_c_cull_clusters_with_the_same_image() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let frames = 4;
    let cameras: Vec<Camera> = (0..frames).map(|f| sliding_camera(f, frames)).collect();
    for tier in [Tier::B, Tier::C] {
        let mut renderer = renderer_of(&gpu, Some(tier), true, true);
        assert!(renderer.triangle_filtering_active(), "{tier:?}");
        wall_scene(&mut renderer);
        renderer.set_camera(&cameras[1]).unwrap();
        Target::new(&gpu, WIDTH, HEIGHT).render(&gpu, &mut renderer);
        assert!(renderer.cluster_draws_buffer().is_some(), "{tier:?}");
        assert!(renderer.filtered_triangle_buffers().is_some(), "{tier:?}");
        compare_on(
            &gpu,
            Some(tier),
            &format!("{tier:?}"),
            |r| _ = wall_scene(r),
            &cameras,
        );
    }
    gpu.finish();
}
