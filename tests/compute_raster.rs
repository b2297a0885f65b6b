//! The visibility buffer's compute rasteriser (`src/passes/compute_raster/`),
//! on the buffer path (lavapipe has `SHADER_INT64_ATOMIC_MIN_MAX`), and the
//! texture path's image test where the adapter has `TEXTURE_INT64_ATOMIC`
//! (set `UNBOUND_TEST_R64=1` to make its absence a failure).
//!
//! - Coverage: generated triangles (a jittered grid of quads whose shared
//!   edges and corners lie on pixel centres, plus random triangles of
//!   random sizes at distinct depths, back faces and a coincident pair)
//!   cover exactly the pixels a CPU rasteriser with the stated top-left
//!   rule gives them, nearest first and equal depths to the lower id; the
//!   grid's shared edges are covered exactly once. The vertices are placed
//!   so their screen positions fall on a 1/16-pixel grid (well inside the
//!   1/256 snapping), so the comparison is exact.
//! - Determinism: two frames leave identical buffers.
//! - Images: the demo scene and the sphere grid, all compute and hybrid,
//!   against forward: lit colour within 2/255 on at least 99% of pixels
//!   (the visibility tests' tolerance), and the ids equal the hardware
//!   visibility pass's away from triangle edges (the 3×3 neighbourhood of
//!   the hardware ids holds one triangle). Occlusion on and off give the
//!   same image and ids.

mod common;

use common::raster_compare::*;
use common::sphere_grid::*;
use common::*;
use glam::{DMat4, DVec4, Mat4, Vec3};
use unbound::lighting::Environment;
use unbound::{
    Camera, ComputeRaster, Error, Geometry, Material, ObjectDesc, RenderError, Renderer,
    RendererConfig,
};

// ---------------------------------------------------------------- coverage

/// Target size of the coverage scene.
const SIZE: u32 = 96;
/// Screen coordinates are in 1/16 pixels.
const SUB: i64 = 16;

/// One generated triangle: screen corners in 1/16 pixels (y down), and its
/// distance from the camera (all three corners the same).
#[derive(Clone, Copy, Debug)]
struct ScreenTriangle {
    corners: [[i64; 2]; 3],
    distance: f64,
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo) as u64) as i64
    }
}

/// Twice the signed area of (a, b, c) on the y-down grid.
fn cross(a: [i64; 2], b: [i64; 2], c: [i64; 2]) -> i64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Whether the CPU rasteriser covers pixel centre `p` (1/16 pixels) with
/// `t`: front faces only (counter-clockwise in NDC: negative area on the
/// y-down grid); a centre strictly inside, or on a top edge (horizontal,
/// the third corner below it) or a left edge (the triangle to its right).
fn cpu_covers(t: &ScreenTriangle, p: [i64; 2]) -> bool {
    let [a, b, c] = t.corners;
    if cross(a, b, c) >= 0 {
        return false;
    }
    for (e0, e1, other) in [(a, b, c), (b, c, a), (c, a, b)] {
        let side = cross(e0, e1, p);
        let inside = cross(e0, e1, other);
        if side == 0 {
            let dy = e1[1] - e0[1];
            let top = dy == 0 && other[1] > e0[1];
            // The edge's x at the third corner's row, less its x, times dy:
            // negative where the third corner lies to the right.
            let t = (e0[0] - other[0]) * dy + (other[1] - e0[1]) * (e1[0] - e0[0]);
            let left = dy != 0 && t * dy < 0;
            if !(top || left) {
                return false;
            }
        } else if side.signum() != inside.signum() {
            return false;
        }
    }
    true
}

/// The jittered grid of quads (two front-facing triangles each), whose
/// base corners and many jittered ones lie on pixel centres, then random
/// triangles in front of it (some back-facing), then a coincident pair.
fn coverage_triangles() -> (Vec<ScreenTriangle>, usize) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let n = 8usize;
    let mut corners = vec![[0i64; 2]; (n + 1) * (n + 1)];
    for j in 0..=n {
        for i in 0..=n {
            let base = |k: usize| (8 + 10 * k as i64) * SUB + SUB / 2;
            let mut c = [base(i), base(j)];
            if i > 0 && i < n && j > 0 && j < n {
                for v in &mut c {
                    *v += match rng.range(0, 3) {
                        0 => 0,
                        1 => rng.range(-3, 4) * SUB,
                        _ => rng.range(-48, 49),
                    };
                }
            }
            corners[j * (n + 1) + i] = c;
        }
    }
    let mut triangles = Vec::new();
    let grid_distance = 20.0;
    for j in 0..n {
        for i in 0..n {
            let at = |i: usize, j: usize| corners[j * (n + 1) + i];
            let (tl, tr, bl, br) = (at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
            // Clockwise on the y-down grid (front-facing), alternating
            // diagonals.
            let pair = if (i + j) % 2 == 0 {
                [[tl, bl, br], [tl, br, tr]]
            } else {
                [[tl, bl, tr], [tr, bl, br]]
            };
            for corners in pair {
                triangles.push(ScreenTriangle {
                    corners,
                    distance: grid_distance,
                });
            }
        }
    }
    let grid = triangles.len();
    for k in 0..36 {
        let size = [3, 12, 40][k % 3] * SUB;
        let x = rng.range(0, i64::from(SIZE) * SUB - size);
        let y = rng.range(0, i64::from(SIZE) * SUB - size);
        let mut corner = || [x + rng.range(0, size), y + rng.range(0, size)];
        let mut t = [corner(), corner(), corner()];
        let area = cross(t[0], t[1], t[2]);
        // Every sixth one back-facing (culled), the rest front-facing.
        if (area > 0) != (k % 6 == 5) {
            t.swap(1, 2);
        }
        triangles.push(ScreenTriangle {
            corners: t,
            distance: 19.5 - k as f64 * 0.1,
        });
    }
    // A coincident pair: same corners, same depth (the lower id wins).
    let pair = ScreenTriangle {
        corners: [
            [20 * SUB, 60 * SUB],
            [30 * SUB, 80 * SUB],
            [45 * SUB, 58 * SUB],
        ],
        distance: 15.0,
    };
    triangles.extend([pair, pair]);
    (triangles, grid)
}

/// The coverage camera: narrow, so the whole mesh's bounding sphere lies
/// in front of the near plane and inside the compute rasteriser's guard
/// band.
fn coverage_camera() -> Camera {
    Camera {
        position: Vec3::new(0.0, 0.0, 30.0),
        target: Vec3::ZERO,
        up: Vec3::Y,
        fov_y_radians: 0.2,
        aspect: 1.0,
        z_near: 1.0,
        z_far: 100.0,
    }
}

/// World positions of `triangles`' corners: the screen points unprojected
/// (in f64) at their distance.
fn world_positions(camera: &Camera, triangles: &[ScreenTriangle]) -> Vec<[f32; 3]> {
    let clip_from_world = camera.clip_from_world().as_dmat4();
    let world_from_clip: DMat4 = clip_from_world.inverse();
    let eye = camera.position.as_dvec3();
    let forward = (camera.target - camera.position).normalize().as_dvec3();
    let mut positions = Vec::new();
    for t in triangles {
        let point = eye + forward * t.distance;
        let clip = clip_from_world * point.extend(1.0);
        let depth = clip.z / clip.w;
        for c in t.corners {
            let size = f64::from(SIZE);
            let ndc_x = c[0] as f64 / SUB as f64 / size * 2.0 - 1.0;
            let ndc_y = 1.0 - c[1] as f64 / SUB as f64 / size * 2.0;
            let world = world_from_clip * DVec4::new(ndc_x, ndc_y, depth, 1.0);
            let world = world.truncate() / world.w;
            positions.push(world.as_vec3().to_array());
        }
    }
    positions
}

/// The coverage scene in a renderer with the buffer path, all compute:
/// one object of one mesh holding every generated triangle (each with
/// three vertices of its own). Returns the renderer and, per arena
/// triangle of the mesh (the arena stores them in cluster order), the
/// generated triangle.
fn coverage_renderer(gpu: &Gpu, triangles: &[ScreenTriangle]) -> (Renderer, Vec<usize>) {
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    renderer.set_geometry(Geometry::Visibility);
    renderer.set_compute_raster(ComputeRaster::Buffer);
    renderer.set_raster_threshold(f32::INFINITY).unwrap();
    renderer.set_occlusion(false);
    let camera = coverage_camera();
    renderer.set_camera(&camera).unwrap();
    let positions = world_positions(&camera, triangles);
    let normals = vec![[0.0, 0.0, 1.0]; positions.len()];
    let indices: Vec<u32> = (0..positions.len() as u32).collect();
    let mesh = renderer
        .add_mesh(&unbound::MeshData {
            positions: &positions,
            normals: Some(&normals),
            indices: &indices,
            ..Default::default()
        })
        .unwrap();
    let material = renderer.add_material(&Material::default()).unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: Mat4::IDENTITY,
        })
        .unwrap();
    assert_eq!(renderer.compute_raster(), ComputeRaster::Buffer);
    // One frame uploads the arena; then its indices are read back.
    Target::new(gpu, SIZE, SIZE).render(gpu, &mut renderer);
    let arena = renderer.arena();
    let (slot, _) = arena.resolve(mesh).unwrap();
    let entry = *arena.gpu_entry(slot).unwrap();
    let stored = gpu.read_u32s(
        arena.index_buffer(),
        u64::from(entry.first_index) * 4,
        u64::from(entry.index_count),
    );
    assert_eq!(stored.len(), indices.len());
    let base = *stored.iter().min().unwrap();
    let order = stored
        .chunks(3)
        .map(|corners| {
            let t = (corners[0] - base) as usize / 3;
            let expected = [3 * t, 3 * t + 1, 3 * t + 2].map(|i| i as u32 + base);
            assert_eq!(corners, expected, "a triangle kept its corners in order");
            t
        })
        .collect();
    (renderer, order)
}

/// The arena triangle (within the mesh) an id of the raster buffer names
/// (one instance: its items are 0, 1, 2, ... in arena order).
fn raster_triangle(value: [u32; 2]) -> Option<usize> {
    if value == [0, 0] {
        return None;
    }
    let id = !value[0];
    let triangles = unbound::gpu_types::ITEM_TRIANGLES;
    let shift = triangles.trailing_zeros();
    Some(((id >> shift) * triangles + (id & (triangles - 1))) as usize)
}

#[test]
fn coverage_equals_the_cpu_rasteriser_under_the_top_left_rule() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (triangles, grid) = coverage_triangles();
    let (mut renderer, order) = coverage_renderer(&gpu, &triangles);
    // The generated triangle's place in the arena (the id order).
    let mut arena_of = vec![0; triangles.len()];
    for (arena, &t) in order.iter().enumerate() {
        arena_of[t] = arena;
    }
    let target = Target::new(&gpu, SIZE, SIZE);
    target.render(&gpu, &mut renderer);
    let values = read_raster_buffer(&gpu, &renderer);
    let ids = read_ids(&gpu, &renderer);
    let mut first = None;
    let (mut covered, mut on_grid_edges) = (0, 0);
    let grid_span = 8 * SUB + SUB / 2..88 * SUB + SUB / 2;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let centre = [i64::from(x) * SUB + SUB / 2, i64::from(y) * SUB + SUB / 2];
            let covering: Vec<usize> = (0..triangles.len())
                .filter(|&t| cpu_covers(&triangles[t], centre))
                .collect();
            // The grid tiles its square: every centre inside it once.
            let grid_cover = covering.iter().filter(|&&t| t < grid).count();
            let inside = grid_span.contains(&centre[0]) && grid_span.contains(&centre[1]);
            assert_eq!(grid_cover, usize::from(inside), "grid cover at ({x}, {y})");
            let on_edge = (0..grid).any(|t| {
                let [a, b, c] = triangles[t].corners;
                [(a, b), (b, c), (c, a)]
                    .iter()
                    .any(|&(e0, e1)| cross(e0, e1, centre) == 0)
            });
            on_grid_edges += usize::from(inside && on_edge);
            // Nearest first; equal depths to the lower id (arena order).
            let expected = covering.iter().copied().min_by(|&a, &b| {
                let (da, db) = (triangles[a].distance, triangles[b].distance);
                da.total_cmp(&db).then(arena_of[a].cmp(&arena_of[b]))
            });
            let pixel = (y * SIZE + x) as usize;
            let got = raster_triangle(values[pixel]).map(|arena| order[arena]);
            assert_eq!(got, expected, "raster buffer at ({x}, {y})");
            // The resolve's id: object slot 0, the mesh's first arena
            // triangle + the triangle.
            match expected {
                None => assert_eq!(ids[pixel], [0, 0], "id at ({x}, {y})"),
                Some(t) => {
                    let arena = arena_of[t] as u32;
                    let first = *first.get_or_insert(ids[pixel][1] - arena);
                    assert_eq!(ids[pixel], [1, first + arena], "id at ({x}, {y})");
                    covered += 1;
                }
            }
        }
    }
    eprintln!("{covered} pixels covered, {on_grid_edges} centres on the grid's edges");
    assert!(on_grid_edges > 100, "{on_grid_edges} centres on edges");
    gpu.finish();
}

#[test]
fn two_frames_leave_identical_raster_buffers() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (triangles, _) = coverage_triangles();
    let (mut renderer, _) = coverage_renderer(&gpu, &triangles);
    let target = Target::new(&gpu, SIZE, SIZE);
    target.render(&gpu, &mut renderer);
    let first = read_raster_buffer(&gpu, &renderer);
    target.render(&gpu, &mut renderer);
    let second = read_raster_buffer(&gpu, &renderer);
    assert!(first.iter().filter(|v| **v != [0, 0]).count() > 1000);
    assert_eq!(first, second);
    gpu.finish();
}

// ------------------------------------------------------------------ images

/// The demo scene's renderer and size.
fn demo_renderer(gpu: &Gpu) -> (Renderer, (u32, u32)) {
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let size = small_demo_scene(&mut renderer, Default::default());
    (renderer, size)
}

#[test]
fn the_demo_scene_looks_the_same_through_the_compute_rasteriser() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (mut renderer, size) = demo_renderer(&gpu);
    let raster = (ComputeRaster::Buffer, &[f32::INFINITY, 24.0, 8.0][..]);
    compare_raster(&gpu, &mut renderer, "demo", size, raster);
    gpu.finish();
}

#[test]
fn the_sphere_grid_looks_the_same_through_the_compute_rasteriser() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    set_up_sphere_grid(&gpu, &mut renderer);
    let raster = (ComputeRaster::Buffer, &[f32::INFINITY][..]);
    compare_raster(&gpu, &mut renderer, "spheres", sphere_grid_size(), raster);
    gpu.finish();
}

/// Occlusion on and off: the same image and ids, all compute, over three
/// frames (the later ones rasterise in the early phase too).
#[test]
fn occlusion_on_and_off_agree_through_the_compute_rasteriser() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (mut on, size) = demo_renderer(&gpu);
    let (mut off, _) = demo_renderer(&gpu);
    off.set_occlusion(false);
    let target = Target::new(&gpu, size.0, size.1);
    for renderer in [&mut on, &mut off] {
        renderer.set_geometry(Geometry::Visibility);
        renderer.set_compute_raster(ComputeRaster::Buffer);
        renderer.set_raster_threshold(f32::INFINITY).unwrap();
    }
    for frame in 0..3 {
        let (with, _) = target.render(&gpu, &mut on);
        let on_ids = read_ids(&gpu, &on);
        let (without, _) = target.render(&gpu, &mut off);
        let off_ids = read_ids(&gpu, &off);
        assert_eq!(mismatched_pixels(&with, &without, 0), 0, "frame {frame}");
        assert_eq!(on_ids, off_ids, "frame {frame}");
    }
    gpu.finish();
}

/// The texture path (`R64Uint`): the demo scene as on the buffer path,
/// where the adapter has the features; a failure without them only where
/// `UNBOUND_TEST_R64=1` asks for the path.
#[test]
fn the_texture_path_looks_the_same() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    if !texture_path_runs(&gpu) {
        return;
    }
    let (mut renderer, size) = demo_renderer(&gpu);
    let raster = (ComputeRaster::Texture, &[f32::INFINITY, 24.0][..]);
    compare_raster(&gpu, &mut renderer, "demo-r64", size, raster);
    let sphere_size = sphere_grid_size();
    let mut spheres = gpu.renderer(&Gpu::default_capacities());
    spheres
        .set_environment(&gpu.queue, &Environment::sky())
        .unwrap();
    spheres.set_lighting(&sphere_grid_lighting()).unwrap();
    spheres.set_camera(&sphere_grid_camera()).unwrap();
    sphere_grid_document()
        .upload(&mut spheres, Mat4::IDENTITY, None)
        .unwrap();
    let raster = (ComputeRaster::Texture, &[f32::INFINITY][..]);
    compare_raster(&gpu, &mut spheres, "spheres-r64", sphere_size, raster);
    gpu.finish();
}

/// NaN and negative thresholds are typed errors, at creation and at run
/// time (the threshold in use stays); 0 and infinity are valid.
#[test]
fn bad_raster_thresholds_are_typed_errors() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    renderer.set_raster_threshold(12.0).unwrap();
    for pixels in [f32::NAN, -1.0, -f32::MIN_POSITIVE, f32::NEG_INFINITY] {
        let built = gpu.try_renderer(RendererConfig {
            capacities: Gpu::default_capacities(),
            raster_threshold: pixels,
            ..Default::default()
        });
        assert!(
            matches!(
                built,
                Err(Error::Render(RenderError::RasterThreshold { .. }))
            ),
            "{pixels}: {built:?}"
        );
        let refused = renderer.set_raster_threshold(pixels);
        assert!(
            matches!(
                refused,
                Err(Error::Render(RenderError::RasterThreshold { .. }))
            ),
            "{pixels}: {refused:?}"
        );
        assert_eq!(renderer.raster_threshold(), 12.0);
    }
    for pixels in [0.0, f32::INFINITY] {
        renderer.set_raster_threshold(pixels).unwrap();
        assert_eq!(renderer.raster_threshold(), pixels);
    }
    gpu.finish();
}
