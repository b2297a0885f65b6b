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

/// Distance from `p` to the triangle `(a, b, c)` (closest point by
/// regions, as in Ericson's "Real-Time Collision Detection").
fn point_triangle_distance(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return p.distance(a);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return p.distance(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return p.distance(a + ab * (d1 / (d1 - d3)));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return p.distance(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return p.distance(a + ac * (d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return p.distance(b + (c - b) * w);
    }
    let denom = 1.0 / (va + vb + vc);
    p.distance(a + ab * (vb * denom) + ac * (vc * denom))
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
