//! Triangle filtering (issue 28, stage 3; tier A on lavapipe): the
//! triangles the filter hands the rasteriser are exactly those the CPU
//! twin of its three tests keeps (up to triangles within rounding of a
//! test's threshold), and the image, lit and object ids, is the same with
//! filtering on and off, frame for frame, with occlusion culling on and
//! off and with MSAA, on a scene holding a mirrored instance and a
//! double-sided material.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::occlusion_scene::{HEIGHT, WIDTH, background_srgb, sliding_camera, wall_scene};
use common::*;
use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use unbound::geometry::clusters::{TriangleVerdict, triangle_verdict};
use unbound::gpu_types::{GpuClusterStats, GpuObject, GpuTriangleFilterHead, GpuVertex};
use unbound::output::Msaa;
use unbound::passes::triangle_filter::LOCAL_VERTEX_BITS;
use unbound::{
    Camera, DebugOptions, DebugView, ID_TARGET_FORMAT, Material, ObjectDesc, Renderer,
    RendererConfig, TextureRef, shapes,
};

fn renderer(gpu: &Gpu, filtering: bool, occlusion: bool, msaa: Msaa) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        occlusion,
        cluster_culling: true,
        triangle_filtering: filtering,
        msaa,
        ..Default::default()
    });
    renderer.set_lighting(&flat_lighting()).unwrap();
    assert!(renderer.cluster_culling_active());
    assert_eq!(renderer.triangle_filtering_active(), filtering);
    renderer
}

/// Spheres, tori and cubes: plain, scaled unevenly, sheared, mirrored,
/// double-sided, half out of the frustum, and a row of far cubes smaller
/// than a pixel. Returns (object slot, world_from_object) per object.
fn filter_scene(renderer: &mut Renderer) -> Vec<(u32, Mat4)> {
    let sphere = renderer
        .add_mesh(&shapes::sphere(64, 32).as_mesh_data())
        .unwrap();
    let torus = renderer
        .add_mesh(&shapes::torus(0.35, 48, 24).as_mesh_data())
        .unwrap();
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    // Neighbouring vertices far apart in the vertex list: clusters whose
    // vertices span too much to pack, drawn unfiltered.
    let scattered = renderer
        .add_mesh(&scattered(&shapes::sphere(48, 24)).as_mesh_data())
        .unwrap();
    let white = renderer.heap().white_texture();
    let sampler = renderer.heap().default_sampler();
    let mut material = |double_sided, color: Vec4| {
        renderer
            .add_material(&Material {
                base_color: Some(TextureRef::new(white, sampler)),
                base_color_factor: color,
                double_sided,
                ..Default::default()
            })
            .unwrap()
    };
    let single = material(false, Vec4::new(0.9, 0.5, 0.2, 1.0));
    let double = material(true, Vec4::new(0.2, 0.6, 0.9, 1.0));
    let shear = Mat4::from_cols(
        Vec4::new(1.0, 0.0, 0.0, 0.0),
        Vec4::new(0.6, 1.0, 0.0, 0.0),
        Vec4::new(0.0, 0.3, 1.0, 0.0),
        Vec4::new(1.5, -1.0, -1.0, 1.0),
    );
    let srt = |scale: Vec3, angle: f32, at: Vec3| {
        Mat4::from_scale_rotation_translation(scale, Quat::from_rotation_y(angle), at)
    };
    let mut placements = vec![
        (
            sphere,
            single,
            Mat4::from_translation(Vec3::new(-2.0, 0.0, 0.0)),
        ),
        (
            torus,
            single,
            srt(Vec3::new(1.5, 0.5, 1.0), 1.0, Vec3::new(1.5, 1.0, 0.0)),
        ),
        (sphere, single, shear),
        // Mirrored: the winding flips.
        (
            torus,
            single,
            srt(Vec3::new(-1.0, 1.0, 1.0), 0.7, Vec3::new(0.0, -1.2, 1.0)),
        ),
        (
            cube,
            single,
            srt(Vec3::new(0.5, -0.5, 0.5), 0.4, Vec3::new(-1.0, -0.6, 3.0)),
        ),
        (
            torus,
            double,
            Mat4::from_translation(Vec3::new(-1.0, 1.6, 1.0)),
        ),
        (
            cube,
            double,
            srt(Vec3::splat(0.6), 0.9, Vec3::new(1.2, 0.3, 3.2)),
        ),
        // Across the frustum's sides (none meets the wall scene's objects:
        // the images of tests that draw both must not hold depth ties).
        (
            sphere,
            single,
            Mat4::from_translation(Vec3::new(3.6, 0.5, 3.5)),
        ),
        (
            sphere,
            single,
            srt(Vec3::splat(2.5), 0.0, Vec3::new(-6.0, 0.3, 0.0)),
        ),
        (
            scattered,
            single,
            srt(Vec3::splat(0.7), 0.0, Vec3::new(2.6, -1.6, 0.5)),
        ),
    ];
    // Far and small: under a pixel each.
    for i in 0..12 {
        let at = Vec3::new(-6.0 + i as f32, 2.0, -60.0);
        placements.push((cube, single, srt(Vec3::splat(0.08), i as f32, at)));
    }
    placements
        .into_iter()
        .map(|(mesh, material, world)| {
            let object = renderer
                .add_object(&ObjectDesc {
                    mesh,
                    material,
                    world_from_object: world,
                })
                .unwrap();
            (object.slot(), world)
        })
        .collect()
}

/// `mesh` with its vertices permuted (vertex v moves to v × 997 modulo
/// the count, which no factor of the count divides).
fn scattered(mesh: &shapes::Mesh) -> shapes::Mesh {
    let n = mesh.positions.len();
    assert!(!n.is_multiple_of(997));
    let to = |v: usize| v * 997 % n;
    let mut out = mesh.clone();
    for v in 0..n {
        out.positions[to(v)] = mesh.positions[v];
        out.normals[to(v)] = mesh.normals[v];
        out.uvs[to(v)] = mesh.uvs[v];
    }
    out.indices = mesh
        .indices
        .iter()
        .map(|&v| to(v as usize) as u32)
        .collect();
    out
}

fn filter_camera() -> Camera {
    Camera {
        position: Vec3::new(0.5, 1.0, 5.0),
        target: Vec3::ZERO,
        aspect: WIDTH as f32 / HEIGHT as f32,
        ..Default::default()
    }
}

type Triangle = (u32, [u32; 3]);

/// What the filter did in the last frame's first cull phase, checked
/// against the CPU twin: the triangles drawn are those it keeps, up to
/// triangles within rounding of a threshold.
struct Checked {
    /// The CPU's verdicts on the triangles of filtered clusters.
    verdicts: BTreeMap<TriangleVerdict, u32>,
    /// Cluster draws whose vertices span too much to pack.
    unfiltered: usize,
    /// Triangles drawn from the packed draws.
    packed: u32,
    /// Triangles drawn, packed and unfiltered.
    drawn: usize,
    stats: GpuClusterStats,
}

fn check_against_cpu(gpu: &Gpu, renderer: &Renderer, camera: &Camera) -> Checked {
    let (clusters, per_bucket) = renderer.cluster_draws_buffer().expect("clusters ran");
    let stats: GpuClusterStats =
        bytemuck::pod_read_unaligned(bytemuck::cast_slice(&gpu.read_u32s(clusters, 0, 16)));
    let visible_buffer = renderer.visible_instances_buffer();
    let visible = gpu.read_u32s(visible_buffer, 0, (visible_buffer.size() / 4).min(256));
    let object_buffer = renderer.objects().object_buffer();
    let objects: Vec<GpuObject> =
        bytemuck::pod_collect_to_vec(&gpu.read_buffer(object_buffer, 0, object_buffer.size()));
    let arena = renderer.arena();
    let indices = gpu.read_u32s(arena.index_buffer(), 0, arena.index_buffer().size() / 4);
    let vertex_bytes = gpu.read_buffer(arena.vertex_buffer(), 0, arena.vertex_buffer().size());
    let vertices: Vec<GpuVertex> = bytemuck::pod_collect_to_vec(&vertex_bytes);

    // The CPU's verdicts on the triangles of the GPU's cluster draws.
    let clip_from_world = camera.clip_from_world();
    let viewport = Vec2::new(WIDTH as f32, HEIGHT as f32);
    let (mut expected, mut undecided) = (BTreeSet::new(), BTreeSet::new());
    let mut verdicts = BTreeMap::new();
    let mut unfiltered = 0;
    for bucket in 0..2u32 {
        let count = stats.bucket_draws[bucket as usize];
        let offset = 64 + u64::from(bucket) * u64::from(per_bucket) * 20;
        let draws = gpu.read_u32s(clusters, offset, u64::from(count.max(1)) * 5);
        for d in draws.chunks_exact(5).take(count as usize) {
            let slot = visible[d[4] as usize];
            let world = Mat4::from_cols_array_2d(&objects[slot as usize].world_from_object);
            let clip_from_object = clip_from_world * world;
            let list = &indices[d[2] as usize..(d[2] + d[0]) as usize];
            let span = list.iter().max().unwrap() - list.iter().min().unwrap();
            let filterable = span < 1 << LOCAL_VERTEX_BITS;
            unfiltered += usize::from(!filterable);
            for t in list.chunks_exact(3) {
                let key = (slot, [t[0], t[1], t[2]]);
                if !filterable {
                    expected.insert(key);
                    continue;
                }
                let corners = [t[0], t[1], t[2]].map(|v| {
                    clip_from_object * Vec3::from(vertices[v as usize].position).extend(1.0)
                });
                let verdict = |scale: f32| {
                    let nudged = corners.map(|c| (c.truncate() * scale).extend(c.w));
                    triangle_verdict(nudged, viewport, bucket == 0, true)
                };
                let kept = verdict(1.0);
                // Within rounding of a threshold: the GPU may decide
                // either way.
                if verdict(1.0 + 1e-4) != kept || verdict(1.0 - 1e-4) != kept {
                    undecided.insert(key);
                } else if kept == TriangleVerdict::Kept {
                    expected.insert(key);
                }
                *verdicts.entry(kept).or_insert(0) += 1;
            }
        }
    }

    // What the GPU drew: the packed draws decoded, and the pass-through
    // draws' triangles.
    let filtered = renderer.filtered_triangle_buffers().expect("filtering ran");
    let head_words = gpu.read_u32s(filtered.draws, filtered.head_offset, 16);
    let head: GpuTriangleFilterHead =
        bytemuck::pod_read_unaligned(bytemuck::cast_slice(&head_words));
    let records = gpu.read_u32s(
        filtered.draws,
        0,
        2 * u64::from(filtered.draws_per_bucket) * 5,
    );
    let mut drawn: BTreeSet<Triangle> = BTreeSet::new();
    let mut packed_triangles = 0;
    for bucket in 0..2usize {
        let [count, instances, first, base, first_instance] = head.packed_draws[bucket];
        assert_eq!((instances, base, first_instance), (1, 0, 0));
        assert_eq!(first, bucket as u32 * filtered.index_capacity);
        assert!(count <= filtered.index_capacity && count % 3 == 0);
        let packed = gpu.read_u32s(
            filtered.indices,
            u64::from(first) * 4,
            u64::from(count.max(3)),
        );
        for t in packed.chunks_exact(3).take(count as usize / 3) {
            let corner = |p: u32| {
                let record = &records[(p >> LOCAL_VERTEX_BITS) as usize * 5..][..5];
                let local = p & ((1 << LOCAL_VERTEX_BITS) - 1);
                (visible[record[4] as usize], record[3] + local)
            };
            let [(slot, a), (s1, b), (s2, c)] = [t[0], t[1], t[2]].map(corner);
            assert!(slot == s1 && slot == s2, "one object per triangle");
            assert!(
                drawn.insert((slot, [a, b, c])),
                "drawn twice: {:?} bucket {bucket}",
                (slot, [a, b, c])
            );
            packed_triangles += 1;
        }
        let passes = head.pass_draws[bucket];
        let pass_words = gpu.read_u32s(
            filtered.draws,
            filtered.pass_draws_offset[bucket],
            u64::from(passes.max(1)) * 5,
        );
        for d in pass_words.chunks_exact(5).take(passes as usize) {
            let slot = visible[d[4] as usize];
            for t in indices[d[2] as usize..(d[2] + d[0]) as usize].chunks_exact(3) {
                assert!(drawn.insert((slot, [t[0], t[1], t[2]])), "drawn twice");
            }
        }
    }

    let decided: BTreeSet<Triangle> = drawn.difference(&undecided).copied().collect();
    let missing: Vec<_> = expected.difference(&decided).take(5).collect();
    let extra: Vec<_> = decided.difference(&expected).take(5).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "kept by the CPU, not drawn: {missing:?}; drawn, dropped by the CPU: {extra:?}"
    );
    assert!(
        undecided.len() * 50 <= expected.len(),
        "{} undecided of {}",
        undecided.len(),
        expected.len()
    );
    Checked {
        verdicts,
        unfiltered,
        packed: packed_triangles,
        drawn: drawn.len(),
        stats,
    }
}

#[test]
fn the_filtered_triangles_are_the_cpu_references() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu, true, false, Msaa::X1);
    renderer.set_small_object_culling(false);
    filter_scene(&mut renderer);
    let camera = filter_camera();
    renderer.set_camera(&camera).unwrap();
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    target.render(&gpu, &mut renderer);
    gpu.finish();
    let Checked {
        verdicts,
        unfiltered,
        packed,
        drawn,
        stats,
    } = check_against_cpu(&gpu, &renderer, &camera);
    // The scene exercises the three tests and the pass-through draws.
    for verdict in [
        TriangleVerdict::Outside,
        TriangleVerdict::BackFacing,
        TriangleVerdict::NoPixel,
    ] {
        assert!(
            verdicts.get(&verdict).copied().unwrap_or(0) > 10,
            "{verdicts:?}"
        );
    }
    assert!(unfiltered > 0, "no cluster drawn unfiltered");
    // The statistics count the same.
    assert_eq!(stats.filter_drawn as usize, drawn, "{stats:?}");
    assert_eq!(
        stats.filter_tested,
        stats.filter_outside + stats.filter_back + stats.filter_no_pixel + packed,
        "{stats:?}"
    );
    assert!(stats.filter_back > 0 && stats.filter_no_pixel > 0 && stats.filter_outside > 0);
}

fn set_view(renderer: &mut Renderer, view: DebugView) {
    renderer
        .set_debug(&DebugOptions {
            view,
            ..Default::default()
        })
        .unwrap();
}

/// The wall scene and the filter's scene together.
fn both_scenes(renderer: &mut Renderer) {
    wall_scene(renderer);
    filter_scene(renderer);
}

/// Renders `cameras` with filtering on and off (cluster culling on,
/// occlusion as given), lit and as object ids; every pair of images must
/// be equal.
fn compare(gpu: &Gpu, name: &str, msaa: Msaa, occlusions: &[bool], cameras: &[Camera]) {
    for &occlusion in occlusions {
        let mut on = renderer(gpu, true, occlusion, msaa);
        let mut off = renderer(gpu, false, occlusion, msaa);
        both_scenes(&mut on);
        both_scenes(&mut off);
        let lit = Target::with_msaa(gpu, WIDTH, HEIGHT, Target::FORMAT, msaa);
        let ids = Target::with_msaa(gpu, WIDTH, HEIGHT, ID_TARGET_FORMAT, msaa);
        let mut filtered = 0;
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
                    save_output(&format!("filter-{name}-{frame}-{view:?}-on.png"), &with);
                    save_output(&format!("filter-{name}-{frame}-{view:?}-off.png"), &without);
                    panic!(
                        "{name} occlusion {occlusion} frame {frame} {view:?}: {differ} pixels differ"
                    );
                }
                if view == DebugView::Lit {
                    assert!(
                        drawn_pixels(&with, background_srgb()) > 100,
                        "{name} {frame}"
                    );
                }
            }
            if let Some(stats) = on.latest_gpu_stats().and_then(|s| s.clusters) {
                filtered += stats.filter_back + stats.filter_no_pixel + stats.filter_outside;
            }
        }
        assert!(filtered > 0, "{name}: no triangle filtered");
    }
    gpu.finish();
}

fn cameras() -> Vec<Camera> {
    let frames = 6;
    let mut cameras: Vec<Camera> = (0..frames).map(|f| sliding_camera(f, frames)).collect();
    cameras.push(filter_camera());
    cameras
}

#[test]
fn the_image_is_the_same_with_filtering_on_and_off() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    compare(&gpu, "x1", Msaa::X1, &[false, true], &cameras());
}

#[test]
fn the_image_is_the_same_with_filtering_on_and_off_with_msaa() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let cameras = cameras();
    compare(
        &gpu,
        "x4",
        Msaa::X4,
        &[false],
        &cameras[cameras.len() - 2..],
    );
}

/// Tiers B and C (forced on lavapipe) draw the filter's packed draws and
/// the scattered mesh's pass-through draws without a GPU count: their
/// object ids are tier A's (filtering on), pixel for pixel, and tier B's
/// lit image too (tier C's textures are resampled into its arrays).
#[test]
fn tiers_b_and_c_draw_tier_as_filtered_image() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut a = renderer(&gpu, true, true, Msaa::X1);
    both_scenes(&mut a);
    let cameras = cameras();
    for tier in [unbound::Tier::B, unbound::Tier::C] {
        let mut other = gpu.renderer_with(RendererConfig {
            capacities: Gpu::default_capacities(),
            cluster_culling: true,
            tier: Some(tier),
            ..Default::default()
        });
        other.set_lighting(&flat_lighting()).unwrap();
        assert!(other.triangle_filtering_active(), "{tier:?}");
        both_scenes(&mut other);
        let lit = Target::new(&gpu, WIDTH, HEIGHT);
        let ids = Target::with_format(&gpu, WIDTH, HEIGHT, ID_TARGET_FORMAT);
        let mut filtered = 0;
        for (frame, camera) in cameras.iter().enumerate() {
            a.set_camera(camera).unwrap();
            other.set_camera(camera).unwrap();
            let mut views = vec![(DebugView::ObjectIndex, &ids)];
            if tier == unbound::Tier::B {
                views.push((DebugView::Lit, &lit));
            }
            for (view, target) in views {
                set_view(&mut a, view);
                set_view(&mut other, view);
                let (expected, _) = target.render(&gpu, &mut a);
                let (image, _) = target.render(&gpu, &mut other);
                let differ = mismatched_pixels(&image, &expected, 0);
                if differ > 0 {
                    save_output(&format!("filter-{tier:?}-{frame}-{view:?}.png"), &image);
                    save_output(
                        &format!("filter-{tier:?}-{frame}-{view:?}-a.png"),
                        &expected,
                    );
                    panic!("{tier:?} frame {frame} {view:?}: {differ} pixels differ");
                }
            }
            if let Some(stats) = other.latest_gpu_stats().and_then(|s| s.clusters) {
                filtered += stats.filter_back + stats.filter_no_pixel + stats.filter_outside;
            }
        }
        assert!(filtered > 0, "{tier:?}: no triangle filtered");
    }
    gpu.finish();
}

#[test]
fn filtering_is_off_without_cluster_culling() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        cluster_culling: false,
        triangle_filtering: true,
        ..Default::default()
    });
    assert!(!renderer.triangle_filtering_active());
    renderer.set_lighting(&flat_lighting()).unwrap();
    wall_scene(&mut renderer);
    renderer.set_camera(&sliding_camera(2, 6)).unwrap();
    Target::new(&gpu, WIDTH, HEIGHT).render(&gpu, &mut renderer);
    assert!(renderer.filtered_triangle_buffers().is_none());
    gpu.finish();
}
