//! How far a simplified level really is from its mesh: the largest distance
//! from a vertex of the mesh to the level's surface (a one-sided Hausdorff
//! distance over the vertices). The simplifier's own estimate measures
//! distances to the planes of the original triangles and can be below it
//! (by up to 1.7× on a sphere), so the chain reports the larger of the two.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use glam::{IVec3, Vec3};

/// Largest distance from a vertex used by `indices` to the triangles of
/// `level` (both triangle lists over `positions`). Triangles are binned
/// into a sparse grid of cells about a triangle wide; each vertex searches
/// rings of cells outwards until no unsearched cell can hold a nearer one.
pub(crate) fn deviation(positions: &[[f32; 3]], indices: &[u32], level: &[u32]) -> f32 {
    let p = |i: u32| Vec3::from_array(positions[i as usize]);
    let triangles: Vec<[Vec3; 3]> = level
        .chunks_exact(3)
        .map(|t| [p(t[0]), p(t[1]), p(t[2])])
        .collect();
    if triangles.is_empty() {
        return f32::INFINITY;
    }
    let (min, max) = triangles.iter().flatten().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), &v| (lo.min(v), hi.max(v)),
    );
    let extent = (max - min).max_element().max(f32::MIN_POSITIVE);
    let cell = extent / (triangles.len() as f32).sqrt().max(1.0);
    let cell_of = |v: Vec3| ((v - min) / cell).floor().as_ivec3();
    let mut grid: HashMap<IVec3, Vec<u32>, BuildHasherDefault<CellHasher>> = HashMap::default();
    for (t, tri) in triangles.iter().enumerate() {
        let lo = cell_of(tri[0].min(tri[1]).min(tri[2]));
        let hi = cell_of(tri[0].max(tri[1]).max(tri[2]));
        for z in lo.z..=hi.z {
            for y in lo.y..=hi.y {
                for x in lo.x..=hi.x {
                    grid.entry(IVec3::new(x, y, z)).or_default().push(t as u32);
                }
            }
        }
    }
    let rings = ((extent / cell).ceil() as i32 + 2).max(1);
    let mut used = vec![false; positions.len()];
    let mut largest = 0.0f32;
    for &i in indices {
        if std::mem::replace(&mut used[i as usize], true) {
            continue;
        }
        let v = p(i);
        let center = cell_of(v);
        let mut nearest = f32::INFINITY;
        for r in 0..=rings {
            for z in -r..=r {
                for y in -r..=r {
                    for x in -r..=r {
                        if x.abs().max(y.abs()).max(z.abs()) != r {
                            continue;
                        }
                        let Some(list) = grid.get(&(center + IVec3::new(x, y, z))) else {
                            continue;
                        };
                        for &t in list {
                            let [a, b, c] = triangles[t as usize];
                            nearest = nearest.min(point_triangle_distance(v, a, b, c));
                        }
                    }
                }
            }
            // Cells of ring r + 1 lie at least r cells away.
            if nearest <= r as f32 * cell {
                break;
            }
        }
        largest = largest.max(nearest);
    }
    largest
}

/// Distance from `p` to the triangle `(a, b, c)`: the closest point by
/// the region of the triangle's plane `p` projects into (vertex, edge or
/// face).
pub(crate) fn point_triangle_distance(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
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
    if !denom.is_finite() {
        // A degenerate triangle: its edges' nearest point.
        let edge = |s: Vec3, e: Vec3| {
            let d = e - s;
            let t = ((p - s).dot(d) / d.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
            p.distance(s + d * t)
        };
        return edge(a, b).min(edge(b, c)).min(edge(c, a));
    }
    p.distance(a + ab * (vb * denom) + ac * (vc * denom))
}

/// A multiplicative hash of a cell's three coordinates: the grid's keys
/// are small integers from this process, and the standard hasher's
/// resistance to chosen keys costs most of the search's time.
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_i32(&mut self, value: i32) {
        self.write_u64(u64::from(value as u32));
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(21) ^ value).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}
