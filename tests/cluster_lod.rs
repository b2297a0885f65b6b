//! Cluster LOD (issue 28, stage 4): the hierarchy built at mesh add
//! covers every level's triangles once, its bounds nest and its errors
//! grow towards the roots, every cut of a closed mesh is closed (CPU);
//! on lavapipe the clusters the GPU's cut draws are the CPU twin's, and
//! with LOD off a cluster-LOD mesh renders exactly as the plain mesh; tier
//! B (forced) draws tier A's cut, pixel for pixel.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use glam::{Mat4, Quat, Vec3, Vec4};
use unbound::geometry::cluster_lod::{
    ClusterHierarchy, ROOT_ERROR, build_hierarchy, lod_fits, max_axis_scale, select_cut,
};
use unbound::geometry::clusters::build_clusters;
use unbound::gpu_types::{GpuClusterLod, GpuClusterStats};
use unbound::lod::lod_factor;
use unbound::{
    Camera, DebugOptions, DebugView, LodSettings, Material, MeshOptions, ObjectDesc, Renderer,
    RendererConfig, TextureRef, shapes,
};

fn hierarchy(n: u32) -> (shapes::Mesh, ClusterHierarchy) {
    let mesh = shapes::cube_sphere(n);
    let h = build_hierarchy(&mesh.positions, &mesh.indices);
    (mesh, h)
}

fn gpu_lods(h: &ClusterHierarchy) -> Vec<GpuClusterLod> {
    h.lods.iter().map(|l| l.to_gpu()).collect()
}

/// A triangle as its corners rotated to start at the smallest (winding
/// kept).
fn canonical(t: &[u32]) -> [u32; 3] {
    let r = (0..3).min_by_key(|&i| t[i]).unwrap();
    [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
}

fn triangles_of(h: &ClusterHierarchy, clusters: &[usize]) -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    for &c in clusters {
        let cluster = &h.clustered.clusters[c];
        let first = 3 * cluster.first_triangle as usize;
        let indices = &h.clustered.indices[first..first + 3 * cluster.triangle_count as usize];
        out.extend(indices.chunks_exact(3).map(canonical));
    }
    out
}

#[test]
fn every_triangle_is_in_one_cluster_of_its_level() {
    let (mesh, h) = hierarchy(24);
    assert!(h.levels >= 3, "{} levels", h.levels);
    let total = h.clustered.clusters.len();
    assert_eq!(h.lods.len(), total);
    // The clusters' ranges tile the indices: each triangle in one cluster.
    let mut next = 0;
    for cluster in &h.clustered.clusters {
        assert_eq!(cluster.first_triangle, next);
        assert!(cluster.triangle_count > 0 && cluster.triangle_count <= 124);
        next += cluster.triangle_count;
    }
    assert_eq!(3 * next as usize, h.clustered.indices.len());
    // Level 0 is the mesh's own clusters, exactly: the same triangles,
    // each once, and the same index list as a mesh without the hierarchy.
    let level0: Vec<usize> = (0..h.level0_clusters as usize).collect();
    assert!(h.lods[..level0.len()].iter().all(|l| l.level == 0));
    assert!(h.lods[level0.len()..].iter().all(|l| l.level > 0));
    let mut got = triangles_of(&h, &level0);
    let mut want: Vec<[u32; 3]> = mesh.indices.chunks_exact(3).map(canonical).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
    let plain = build_clusters(&mesh.positions, &mesh.indices);
    assert_eq!(
        plain.indices[..],
        h.clustered.indices[..h.level0_indices as usize]
    );
    // Each group's new clusters hold distinct triangles (a triangle once).
    let mut groups: BTreeMap<[u32; 4], Vec<usize>> = BTreeMap::new();
    for (c, lod) in h.lods.iter().enumerate().skip(level0.len()) {
        groups.entry(key(&lod.own)).or_default().push(c);
    }
    for clusters in groups.values() {
        let tris = triangles_of(&h, clusters);
        let unique: BTreeSet<_> = tris.iter().collect();
        assert_eq!(unique.len(), tris.len());
    }
    // About twice the indices of the mesh alone.
    let ratio = h.clustered.indices.len() as f32 / mesh.indices.len() as f32;
    assert!((1.3..2.2).contains(&ratio), "{ratio}");
}

fn key(b: &unbound::geometry::cluster_lod::LodBounds) -> [u32; 4] {
    [
        b.center.x.to_bits(),
        b.center.y.to_bits(),
        b.center.z.to_bits(),
        b.radius.to_bits(),
    ]
}

#[test]
fn parent_spheres_contain_children_and_errors_grow() {
    let (mesh, h) = hierarchy(24);
    // The groups, by their bounds: the clusters they made.
    let mut made: BTreeMap<[u32; 4], Vec<usize>> = BTreeMap::new();
    for (c, lod) in h.lods.iter().enumerate() {
        if lod.level > 0 {
            made.entry(key(&lod.own)).or_default().push(c);
        }
    }
    let mut roots = 0;
    for (c, lod) in h.lods.iter().enumerate() {
        let (own, parent) = (lod.own, lod.parent);
        // Its own sphere holds its triangles.
        for &i in &h.clustered.indices[3 * h.clustered.clusters[c].first_triangle as usize..]
            [..3 * h.clustered.clusters[c].triangle_count as usize]
        {
            let p = Vec3::from(mesh.positions[i as usize]);
            assert!((p - own.center).length() <= own.radius * (1.0 + 1e-5));
        }
        if parent.error == ROOT_ERROR {
            roots += 1;
            continue;
        }
        assert!(
            (own.center - parent.center).length() + own.radius <= parent.radius,
            "cluster {c}: parent sphere does not contain its own"
        );
        assert!(own.error <= parent.error, "cluster {c}: errors decrease");
        // The parent group made clusters of a later level, which carry
        // the same bounds as their own.
        let children = made
            .get(&key(&parent))
            .expect("the parent group made clusters");
        for &p in children {
            assert!(h.lods[p].level > lod.level);
            assert_eq!(h.lods[p].own, parent);
        }
    }
    assert!(roots >= 1 && roots < h.level0_clusters / 4, "{roots} roots");
    assert!(
        h.lods
            .iter()
            .any(|l| l.parent.error > 0.0 && l.parent.error < ROOT_ERROR)
    );
}

/// Undirected edges of `triangles` and how often each occurs, with the
/// directed count (for orientation).
fn open_edges(triangles: &[[u32; 3]]) -> usize {
    let mut edges: BTreeMap<(u32, u32), (u32, u32)> = BTreeMap::new();
    for t in triangles {
        for i in 0..3 {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            let e = edges.entry((a.min(b), a.max(b))).or_default();
            if a < b {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
    }
    edges.values().filter(|&&(f, b)| f != 1 || b != 1).count()
}

#[test]
fn every_cut_of_a_closed_mesh_is_closed() {
    let (mesh, h) = hierarchy(24);
    assert_eq!(
        open_edges(
            &mesh
                .indices
                .chunks_exact(3)
                .map(canonical)
                .collect::<Vec<_>>()
        ),
        0
    );
    let lods = gpu_lods(&h);
    let camera = Camera::default();
    let mut levels_seen = BTreeSet::new();
    let mut mixed = 0;
    // Uniform cuts (the camera far: the whole mesh at about one level) and
    // non-uniform ones (the camera near one side), over thresholds.
    let placements = [
        (Mat4::IDENTITY, Vec3::new(0.0, 0.0, 40.0)),
        (Mat4::IDENTITY, Vec3::new(0.0, 0.0, 0.8)),
        (
            Mat4::from_scale_rotation_translation(
                Vec3::splat(3.0),
                Quat::from_rotation_y(0.4),
                Vec3::new(1.0, 0.0, 0.0),
            ),
            Vec3::new(2.0, 1.0, 2.0),
        ),
        (
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.0, 2.0, 0.5),
                Quat::IDENTITY,
                Vec3::ZERO,
            ),
            Vec3::new(0.0, 0.2, 0.6),
        ),
    ];
    for (world, origin) in placements {
        for threshold_px in [0.25, 1.0, 4.0, 16.0, 64.0, 400.0] {
            let settings = LodSettings {
                enabled: true,
                threshold_px,
            };
            let k = lod_factor(&camera, 1080, &settings);
            let cut = select_cut(&lods, &world, origin, Some(k));
            assert!(!cut.is_empty());
            assert!(cut.len() <= h.max_cut_clusters() as usize);
            let levels: BTreeSet<u32> = cut.iter().map(|&c| lods[c].level).collect();
            mixed += usize::from(levels.len() > 1);
            levels_seen.extend(levels);
            let triangles = triangles_of(&h, &cut);
            assert_eq!(
                open_edges(&triangles),
                0,
                "cut at {threshold_px} px from {origin} is not closed"
            );
        }
    }
    // With LOD off, level 0.
    let finest = select_cut(&lods, &Mat4::IDENTITY, Vec3::ZERO, None);
    assert_eq!(finest, (0..h.level0_clusters as usize).collect::<Vec<_>>());
    assert!(levels_seen.len() >= 3, "{levels_seen:?}");
    assert!(mixed >= 3, "{mixed} cuts mixed levels");
}

#[test]
fn building_options_are_checked() {
    let options = MeshOptions {
        lod_levels: 2,
        cluster_lod: true,
    };
    assert!(options.validate().is_err());
    let empty = build_hierarchy(&[], &[]);
    assert!(empty.clustered.clusters.is_empty() && empty.lods.is_empty());
}

const WIDTH: u32 = 160;
const HEIGHT: u32 = 96;

fn renderer(gpu: &Gpu) -> Renderer {
    renderer_of(gpu, None)
}

/// A renderer of `tier` (`None`: the best, tier A on lavapipe).
fn renderer_of(gpu: &Gpu, tier: Option<unbound::Tier>) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        occlusion: false,
        cluster_culling: true,
        tier,
        ..Default::default()
    });
    renderer.set_lighting(&flat_lighting()).unwrap();
    renderer.set_small_object_culling(false);
    assert!(renderer.cluster_culling_active());
    renderer
}

/// Three instances of a cube sphere (a cluster-LOD mesh or not), near,
/// middle and far, all inside the frustum.
fn scene(renderer: &mut Renderer, cluster_lod: bool) -> (unbound::MeshHandle, Vec<(u32, Mat4)>) {
    let mesh = shapes::cube_sphere(40);
    let options = MeshOptions {
        cluster_lod,
        ..Default::default()
    };
    let handle = renderer
        .add_mesh_with(&mesh.as_mesh_data(), &options)
        .unwrap();
    let white = renderer.heap().white_texture();
    let sampler = renderer.heap().default_sampler();
    let material = renderer
        .add_material(&Material {
            base_color: Some(TextureRef::new(white, sampler)),
            double_sided: true,
            ..Default::default()
        })
        .unwrap();
    let objects = [
        Mat4::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_y(0.3),
            Vec3::new(-0.4, 0.0, 1.4),
        ),
        Mat4::from_translation(Vec3::new(1.6, 0.3, -3.0)),
        Mat4::from_scale_rotation_translation(
            Vec3::new(3.0, 2.0, 3.0),
            Quat::IDENTITY,
            Vec3::new(-6.0, 1.0, -30.0),
        ),
    ]
    .into_iter()
    .map(|world| {
        let object = renderer
            .add_object(&ObjectDesc {
                mesh: handle,
                material,
                world_from_object: world,
            })
            .unwrap();
        (object.slot(), world)
    })
    .collect();
    (handle, objects)
}

fn camera() -> Camera {
    Camera {
        position: Vec3::new(0.0, 0.5, 4.0),
        target: Vec3::new(0.0, 0.0, -2.0),
        aspect: WIDTH as f32 / HEIGHT as f32,
        z_far: 200.0,
        ..Default::default()
    }
}

#[test]
fn the_gpu_cut_is_the_cpu_twins() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu);
    let (mesh, objects) = scene(&mut renderer, true);
    let camera = camera();
    renderer.set_camera(&camera).unwrap();
    let settings = LodSettings {
        enabled: true,
        threshold_px: 1.5,
    };
    renderer.set_lod(&settings).unwrap();
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    target.render(&gpu, &mut renderer);
    gpu.finish();

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
            assert!(drawn.insert((visible[d[4] as usize], d[2])), "drawn twice");
        }
    }

    let k = lod_factor(&camera, HEIGHT, &settings);
    let arena = renderer.arena();
    let (mut expected, mut undecided) = (BTreeSet::new(), BTreeSet::new());
    let mut levels = BTreeSet::new();
    for &(slot, world) in &objects {
        let (mesh_slot, _) = arena.resolve(mesh).unwrap();
        let entry = *arena.gpu_entry(mesh_slot).unwrap();
        assert_eq!(entry.cluster_lod, 1);
        let scale = max_axis_scale(&world);
        let lods: Vec<GpuClusterLod> = (entry.first_cluster
            ..entry.first_cluster + entry.cluster_count)
            .map(|c| *arena.cluster_lod(c).unwrap())
            .collect();
        // Within rounding of the threshold, the GPU may decide either way.
        let near = |sphere: [f32; 4], error: f32| {
            if error == ROOT_ERROR {
                return false;
            }
            let center = world.transform_point3(Vec4::from(sphere).truncate());
            let distance = ((center - camera.position).length() - sphere[3] * scale).max(0.0);
            (error * scale * k - distance).abs() < 1e-4 * (1.0 + distance)
        };
        for c in select_cut(&lods, &world, camera.position, Some(k)) {
            levels.insert(lods[c].level);
            let first_index = arena
                .cluster(entry.first_cluster + c as u32)
                .unwrap()
                .first_index;
            expected.insert((slot, first_index));
        }
        for (c, lod) in lods.iter().enumerate() {
            if near(lod.own_sphere, lod.own_error) || near(lod.parent_sphere, lod.parent_error) {
                let first_index = arena
                    .cluster(entry.first_cluster + c as u32)
                    .unwrap()
                    .first_index;
                undecided.insert((slot, first_index));
            }
        }
        // The twin's test is the one the cut evaluates.
        assert!(lod_fits(
            Vec4::from(lods[0].own_sphere),
            lods[0].own_error,
            &world,
            scale,
            camera.position,
            k
        ));
    }
    let got: BTreeSet<_> = drawn.difference(&undecided).copied().collect();
    let want: BTreeSet<_> = expected.difference(&undecided).copied().collect();
    assert_eq!(got, want, "clusters drawn (GPU) and in the cut (CPU)");
    assert!(
        undecided.len() * 20 < want.len(),
        "{} undecided",
        undecided.len()
    );
    assert!(levels.len() >= 3, "the cut should span levels: {levels:?}");
    assert_eq!(
        stats.tested,
        stats.frustum_culled + stats.cone_culled + stats.drawn
    );
    assert_eq!(stats.frustum_culled + stats.cone_culled, 0, "{stats:?}");
}

#[test]
fn with_lod_off_a_cluster_lod_mesh_renders_as_the_plain_mesh() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut with = renderer(&gpu);
    let mut without = renderer(&gpu);
    scene(&mut with, true);
    scene(&mut without, false);
    let lit = Target::new(&gpu, WIDTH, HEIGHT);
    for (frame, position) in [Vec3::new(0.0, 0.5, 4.0), Vec3::new(2.0, 1.5, 1.0)]
        .into_iter()
        .enumerate()
    {
        let camera = Camera {
            position,
            ..camera()
        };
        for r in [&mut with, &mut without] {
            r.set_camera(&camera).unwrap();
            r.set_debug(&DebugOptions {
                view: DebugView::Lit,
                ..Default::default()
            })
            .unwrap();
        }
        let (a, _) = lit.render(&gpu, &mut with);
        let (b, _) = lit.render(&gpu, &mut without);
        let differ = mismatched_pixels(&a, &b, 0);
        if differ > 0 {
            save_output(&format!("cluster-lod-{frame}-with.png"), &a);
            save_output(&format!("cluster-lod-{frame}-without.png"), &b);
        }
        assert_eq!(differ, 0, "frame {frame}: {differ} pixels differ");
        let corner = a.get_pixel(0, 0).0;
        assert!(drawn_pixels(&a, corner) > 1000, "frame {frame}");
    }
    gpu.finish();
}

#[test]
fn tier_b_draws_tier_as_cut() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut a = renderer(&gpu);
    let mut b = renderer_of(&gpu, Some(unbound::Tier::B));
    assert!(b.triangle_filtering_active());
    scene(&mut a, true);
    scene(&mut b, true);
    let settings = LodSettings {
        enabled: true,
        threshold_px: 1.5,
    };
    let lit = Target::new(&gpu, WIDTH, HEIGHT);
    for (frame, position) in [Vec3::new(0.0, 0.5, 4.0), Vec3::new(2.0, 1.5, 1.0)]
        .into_iter()
        .enumerate()
    {
        let camera = Camera {
            position,
            ..camera()
        };
        for r in [&mut a, &mut b] {
            r.set_camera(&camera).unwrap();
            r.set_lod(&settings).unwrap();
        }
        let (expected, _) = lit.render(&gpu, &mut a);
        let (image, _) = lit.render(&gpu, &mut b);
        let differ = mismatched_pixels(&image, &expected, 0);
        if differ > 0 {
            save_output(&format!("cluster-lod-tier-b-{frame}.png"), &image);
            save_output(&format!("cluster-lod-tier-a-{frame}.png"), &expected);
        }
        assert_eq!(differ, 0, "frame {frame}: {differ} pixels differ");
        let corner = image.get_pixel(0, 0).0;
        assert!(drawn_pixels(&image, corner) > 1000, "frame {frame}");
    }
    gpu.finish();
}
