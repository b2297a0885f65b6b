//! How far a simplified level really is from its mesh: the largest distance
//! from a vertex of the mesh to the level's surface (a one-sided Hausdorff
//! distance over the vertices). The simplifier's own estimate measures
//! distances to the planes of the original triangles and can be below it
//! (by up to 1.7× on a sphere), so the chain reports the larger of the two.
//!
//! The level's triangles go into a bounding-volume tree (median splits on
//! the longest axis of the triangles' centres, up to [`LEAF_TRIANGLES`] a
//! leaf), which adapts to where the triangles are: a dense cluster and a
//! far outlier get leaves of their own, where a uniform grid put the whole
//! cluster into one cell (the search was then quadratic). Each vertex
//! searches it depth first, the nearer child first, skipping every box no
//! nearer than the nearest triangle found.
//!
//! Cost bound, for `T` triangles in the level and `V` vertices used by the
//! mesh: building takes O(T log T) time and O(T) memory (about 2T/4 nodes of
//! 32 bytes, the triangles' 36 bytes each and an index each), and each
//! vertex's search visits at most [`MAX_VISITS_PER_VERTEX`] nodes and
//! triangles, so the whole measurement is O(T log T + V). A vertex whose
//! search reaches the cap takes the nearest distance found so far: an upper
//! bound of its true distance (the first descent reaches a leaf well within
//! the cap), so the level's error can be overstated, never understated.
//! Measured meshes (spheres, grids, a dense cluster with a far triangle) stay
//! far below the cap: `tests::clustered_triangles_cost_little`.

use glam::Vec3;

/// Most tree nodes and triangles one vertex's search visits (see the
/// module docs): far more than a search of any measured mesh takes, and
/// far more than the deepest first descent (a tree of 2^32 triangles is 31
/// levels deep, plus a leaf's triangles).
pub(crate) const MAX_VISITS_PER_VERTEX: u32 = 1024;

/// Most triangles in a leaf of the tree.
const LEAF_TRIANGLES: usize = 4;

/// Largest distance from a vertex used by `indices` to the triangles of
/// `level` (both triangle lists over `positions`), within the module's
/// cost bound.
pub(crate) fn deviation(positions: &[[f32; 3]], indices: &[u32], level: &[u32]) -> f32 {
    measure(positions, indices, level).deviation
}

/// A measurement and what it cost.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Measured {
    /// The largest distance (infinite for a level without triangles).
    pub(crate) deviation: f32,
    /// Nodes and triangles visited, over all vertices.
    pub(crate) visits: u64,
    /// Vertices whose search reached [`MAX_VISITS_PER_VERTEX`].
    pub(crate) capped: u32,
}

/// [`deviation`], with its cost.
pub(crate) fn measure(positions: &[[f32; 3]], indices: &[u32], level: &[u32]) -> Measured {
    let p = |i: u32| Vec3::from_array(positions[i as usize]);
    let triangles: Vec<[Vec3; 3]> = level
        .chunks_exact(3)
        .map(|t| [p(t[0]), p(t[1]), p(t[2])])
        .collect();
    let mut measured = Measured {
        deviation: 0.0,
        visits: 0,
        capped: 0,
    };
    if triangles.is_empty() {
        measured.deviation = f32::INFINITY;
        return measured;
    }
    let tree = Tree::build(&triangles);
    let mut stack = Vec::with_capacity(64);
    let mut used = vec![false; positions.len()];
    for &i in indices {
        if std::mem::replace(&mut used[i as usize], true) {
            continue;
        }
        let (nearest, visits) = tree.nearest(p(i), &triangles, &mut stack);
        measured.deviation = measured.deviation.max(nearest);
        measured.visits += u64::from(visits);
        measured.capped += u32::from(visits >= MAX_VISITS_PER_VERTEX);
    }
    measured
}

/// A node of the tree: a box and either two children or a leaf's
/// triangles.
#[derive(Clone, Copy)]
struct Node {
    min: Vec3,
    max: Vec3,
    /// A leaf: its first triangle in [`Tree::order`]. Otherwise: its left
    /// child (the right one follows it).
    first: u32,
    /// A leaf: its triangles (at least 1). Otherwise 0.
    count: u32,
}

impl Node {
    /// Squared distance from `p` to the box (0 inside).
    fn distance_squared(&self, p: Vec3) -> f32 {
        (self.min - p)
            .max(p - self.max)
            .max(Vec3::ZERO)
            .length_squared()
    }
}

/// A bounding-volume tree over triangles (see the module docs).
struct Tree {
    nodes: Vec<Node>,
    /// Triangle indices, each leaf's in one run.
    order: Vec<u32>,
}

impl Tree {
    /// Built top-down with median splits: O(T log T).
    fn build(triangles: &[[Vec3; 3]]) -> Self {
        let centres: Vec<Vec3> = triangles
            .iter()
            .map(|t| (t[0] + t[1] + t[2]) / 3.0)
            .collect();
        let mut order: Vec<u32> = (0..triangles.len() as u32).collect();
        let empty = Node {
            min: Vec3::ZERO,
            max: Vec3::ZERO,
            first: 0,
            count: 0,
        };
        let mut nodes = vec![empty];
        let mut pending = vec![(0usize, 0usize, triangles.len())];
        while let Some((node, start, end)) = pending.pop() {
            let run = &mut order[start..end];
            let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
            let (mut low, mut high) = (min, max);
            for &t in run.iter() {
                for v in triangles[t as usize] {
                    min = min.min(v);
                    max = max.max(v);
                }
                low = low.min(centres[t as usize]);
                high = high.max(centres[t as usize]);
            }
            if run.len() <= LEAF_TRIANGLES {
                nodes[node] = Node {
                    min,
                    max,
                    first: start as u32,
                    count: run.len() as u32,
                };
                continue;
            }
            let spread = high - low;
            let axis = if spread.x >= spread.y && spread.x >= spread.z {
                0
            } else if spread.y >= spread.z {
                1
            } else {
                2
            };
            let half = run.len() / 2;
            run.select_nth_unstable_by(half, |&a, &b| {
                centres[a as usize][axis].total_cmp(&centres[b as usize][axis])
            });
            let left = nodes.len();
            nodes.extend([empty, empty]);
            nodes[node] = Node {
                min,
                max,
                first: left as u32,
                count: 0,
            };
            pending.push((left, start, start + half));
            pending.push((left + 1, start + half, end));
        }
        Self { nodes, order }
    }

    /// Distance from `p` to the nearest triangle, and the nodes and
    /// triangles visited (at most [`MAX_VISITS_PER_VERTEX`]; at the cap,
    /// the nearest found so far). `stack` is scratch space.
    fn nearest(&self, p: Vec3, triangles: &[[Vec3; 3]], stack: &mut Vec<u32>) -> (f32, u32) {
        let (mut best, mut best_squared) = (f32::INFINITY, f32::INFINITY);
        let mut visits = 0;
        stack.clear();
        stack.push(0);
        while let Some(index) = stack.pop() {
            let node = self.nodes[index as usize];
            if node.distance_squared(p) >= best_squared {
                continue;
            }
            if visits >= MAX_VISITS_PER_VERTEX {
                break;
            }
            visits += 1;
            if node.count > 0 {
                let run = node.first as usize..(node.first + node.count) as usize;
                for &t in &self.order[run] {
                    let [a, b, c] = triangles[t as usize];
                    best = best.min(point_triangle_distance(p, a, b, c));
                    visits += 1;
                }
                best_squared = best * best;
                continue;
            }
            let (left, right) = (node.first, node.first + 1);
            let near_left = self.nodes[left as usize].distance_squared(p)
                <= self.nodes[right as usize].distance_squared(p);
            // The nearer child is pushed last, to be searched first.
            let (near, far) = if near_left {
                (left, right)
            } else {
                (right, left)
            };
            stack.extend([far, near]);
        }
        (best, visits.min(MAX_VISITS_PER_VERTEX))
    }
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

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::{MAX_VISITS_PER_VERTEX, measure, point_triangle_distance};

    /// Deterministic numbers in 0..1.
    struct Numbers(u64);

    impl Numbers {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn point(&mut self, scale: f32) -> [f32; 3] {
            [
                self.next() * scale,
                self.next() * scale,
                self.next() * scale,
            ]
        }
    }

    /// The largest distance by trying every triangle.
    fn brute_force(positions: &[[f32; 3]], indices: &[u32], level: &[u32]) -> f32 {
        let p = |i: u32| Vec3::from_array(positions[i as usize]);
        indices
            .iter()
            .map(|&i| {
                level
                    .chunks_exact(3)
                    .map(|t| point_triangle_distance(p(i), p(t[0]), p(t[1]), p(t[2])))
                    .fold(f32::INFINITY, f32::min)
            })
            .fold(0.0, f32::max)
    }

    /// `triangles` small random triangles (sides up to 2% of the cube's)
    /// in a cube of side `size`, then one triangle `far` away; the level
    /// keeps every other triangle and the far one.
    fn cluster(triangles: u32, size: f32, far: f32) -> (Vec<[f32; 3]>, Vec<u32>, Vec<u32>) {
        let mut numbers = Numbers(7);
        let mut positions: Vec<[f32; 3]> = Vec::new();
        for _ in 0..triangles {
            let centre = Vec3::from_array(numbers.point(size));
            for _ in 0..3 {
                let offset = Vec3::from_array(numbers.point(size * 0.02));
                positions.push((centre + offset).to_array());
            }
        }
        positions.extend([
            [far, far, far],
            [far + 1.0, far, far],
            [far, far + 1.0, far],
        ]);
        let indices: Vec<u32> = (0..positions.len() as u32).collect();
        let level: Vec<u32> = indices
            .chunks_exact(3)
            .enumerate()
            .filter(|(t, _)| t % 2 == 0 || *t as u32 == triangles)
            .flat_map(|(_, t)| t.iter().copied())
            .collect();
        (positions, indices, level)
    }

    #[test]
    fn the_tree_finds_what_trying_every_triangle_finds() {
        for (triangles, far) in [(1, 0.0), (5, 0.0), (300, 0.0), (300, 1e3)] {
            let (positions, indices, level) = cluster(triangles, 1.0, far);
            let measured = measure(&positions, &indices, &level);
            assert_eq!(measured.capped, 0);
            assert_eq!(
                measured.deviation,
                brute_force(&positions, &indices, &level),
                "{triangles} triangles"
            );
        }
        assert_eq!(measure(&[[0.0; 3]], &[0], &[]).deviation, f32::INFINITY);
    }

    /// The grid this replaced sized its cells from the whole mesh's box, so
    /// a dense cluster and one far triangle put the cluster into one cell:
    /// every vertex tried every triangle (V x T distance tests). The tree's
    /// search stays a small number of visits a vertex.
    #[test]
    fn clustered_triangles_cost_little() {
        let triangles = 20_000;
        let (positions, indices, level) = cluster(triangles, 1e-3, 1e3);
        let measured = measure(&positions, &indices, &level);
        let vertices = positions.len() as u64;
        println!(
            "{vertices} vertices, {} level triangles: {} visits ({:.1} a vertex), {} capped",
            level.len() / 3,
            measured.visits,
            measured.visits as f64 / vertices as f64,
            measured.capped
        );
        assert_eq!(measured.capped, 0);
        assert!(
            measured.visits <= 200 * vertices,
            "{} visits for {vertices} vertices",
            measured.visits
        );
        // A sample of vertices, checked by trying every triangle.
        let sample: Vec<u32> = indices.iter().copied().step_by(97).collect();
        let sampled = measure(&positions, &sample, &level);
        assert_eq!(sampled.deviation, brute_force(&positions, &sample, &level));
    }

    /// A vertex whose search is cut short still gets a distance no smaller
    /// than its true one.
    #[test]
    fn the_cap_overstates_and_never_understates() {
        // Triangles all about equally near the centre of a sphere: the
        // search cannot prune.
        let mut numbers = Numbers(3);
        let mut positions = vec![[0.0f32; 3]];
        for _ in 0..6000 {
            let d = Vec3::from_array(numbers.point(2.0)) - 1.0;
            let d = d.normalize_or(Vec3::X);
            let (u, v) = (
                d.any_orthonormal_vector(),
                d.cross(d.any_orthonormal_vector()),
            );
            for corner in [d, d + u * 0.01, d + v * 0.01] {
                positions.push(corner.to_array());
            }
        }
        let level: Vec<u32> = (1..positions.len() as u32).collect();
        let measured = measure(&positions, &[0], &level);
        let exact = brute_force(&positions, &[0], &level);
        assert!(measured.visits <= u64::from(MAX_VISITS_PER_VERTEX));
        assert!(measured.deviation >= exact, "{measured:?} < {exact}");
    }
}
