//! `--count-small-triangles`: of the triangles the last frame of a run
//! drew, how many cover less than a pixel, or no pixel centre at all
//! (issue 15: whether rasterizing tiny instances in a compute pass would
//! pay). Counted on the CPU from what the GPU drew; docs/PERFORMANCE.md
//! gives the method.
//!
//! Each drawn instance's mesh is transformed by the frame's
//! `clip_from_world · world_from_object`, and each triangle falls in one
//! class ([`classify`]):
//! - *outside*: all three vertices beyond one plane of the clip volume (the
//!   rasterizer makes no fragment of it);
//! - *clipped*: otherwise a vertex beyond the near or far plane (clipped
//!   into other triangles; not measured);
//! - *back-facing*: culled by the draw pipeline (counter-clockwise front
//!   faces, back faces culled unless the material is double-sided), or of
//!   zero area;
//! - *drawn*: the rest, with its area in pixels at the target's size (the
//!   whole triangle, also where it reaches past the screen's edge) and
//!   whether a pixel centre of the screen lies inside it. A centre exactly
//!   on an edge counts as inside (the top-left rule is not applied), so
//!   "covers no pixel centre" can only be undercounted.

use glam::{DVec2, Mat4, UVec2, Vec4};
use serde::{Deserialize, Serialize};
use unbound::Camera;
use unbound_scenes::bench::SceneSpec;

/// Upper bounds (exclusive) of the area histogram's buckets in pixels; a
/// last bucket holds the larger triangles.
pub const AREA_BUCKETS_PX: [f64; 4] = [0.1, 1.0, 4.0, 16.0];

/// The small-triangle count of a run's last frame (JSON `small_triangles`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmallTriangles {
    /// Instances drawn (both occlusion phases).
    pub instances: u32,
    /// Their triangles: what the draws submitted.
    pub submitted: u64,
    /// Submitted, but wholly beyond one plane of the clip volume.
    pub outside: u64,
    /// Submitted, crossing the near or far plane (not measured).
    pub clipped: u64,
    /// Submitted, culled as back faces (or of zero area).
    pub back_facing: u64,
    /// Rasterized: front-facing (or double-sided) and inside the near and
    /// far planes.
    pub drawn: u64,
    /// Drawn triangles of less than one pixel of area.
    pub under_1px: u64,
    /// Drawn triangles with no pixel centre inside (or on an edge).
    pub no_sample: u64,
    /// Drawn triangles by area in pixels: < 0.1, < 1, < 4, < 16, ≥ 16.
    pub histogram: [u64; AREA_BUCKETS_PX.len() + 1],
}

impl SmallTriangles {
    fn add_triangle(&mut self, triangle: Triangle) {
        self.submitted += 1;
        match triangle {
            Triangle::Outside => self.outside += 1,
            Triangle::Clipped => self.clipped += 1,
            Triangle::BackFacing => self.back_facing += 1,
            Triangle::Drawn {
                area_px,
                covers_sample,
            } => {
                self.drawn += 1;
                self.under_1px += u64::from(area_px < 1.0);
                self.no_sample += u64::from(!covers_sample);
                let bucket = AREA_BUCKETS_PX
                    .iter()
                    .position(|&bound| area_px < bound)
                    .unwrap_or(AREA_BUCKETS_PX.len());
                self.histogram[bucket] += 1;
            }
        }
    }

    fn merge(mut self, other: Self) -> Self {
        self.instances += other.instances;
        self.submitted += other.submitted;
        self.outside += other.outside;
        self.clipped += other.clipped;
        self.back_facing += other.back_facing;
        self.drawn += other.drawn;
        self.under_1px += other.under_1px;
        self.no_sample += other.no_sample;
        for (sum, n) in self.histogram.iter_mut().zip(other.histogram) {
            *sum += n;
        }
        self
    }
}

/// What becomes of one triangle ([`classify`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Triangle {
    Outside,
    Clipped,
    BackFacing,
    Drawn { area_px: f64, covers_sample: bool },
}

/// Whether clip-space point `c` lies beyond each plane of wgpu's clip
/// volume (−w ≤ x, y ≤ w, 0 ≤ z ≤ w).
const CLIP_PLANES: [fn(Vec4) -> bool; 6] = [
    |c| c.x < -c.w,
    |c| c.x > c.w,
    |c| c.y < -c.w,
    |c| c.y > c.w,
    |c| c.z < 0.0,
    |c| c.z > c.w,
];

/// The triangle with clip-space vertices `clip` (in index order) on a
/// target of `size` pixels.
pub fn classify(clip: [Vec4; 3], size: UVec2, double_sided: bool) -> Triangle {
    if CLIP_PLANES
        .iter()
        .any(|beyond| clip.iter().all(|&c| beyond(c)))
    {
        return Triangle::Outside;
    }
    if clip.iter().any(|&c| c.w <= 0.0 || c.z < 0.0 || c.z > c.w) {
        return Triangle::Clipped;
    }
    // Pixels with y up: counter-clockwise in NDC stays counter-clockwise,
    // and pixel centres still lie on the half-integers.
    let extent = size.as_dvec2();
    let screen = clip.map(|c| {
        let ndc = DVec2::new(f64::from(c.x), f64::from(c.y)) / f64::from(c.w);
        (ndc * 0.5 + 0.5) * extent
    });
    let twice_area = (screen[1] - screen[0]).perp_dot(screen[2] - screen[0]);
    let counter_clockwise = if twice_area > 0.0 {
        screen
    } else if double_sided && twice_area < 0.0 {
        [screen[0], screen[2], screen[1]]
    } else {
        return Triangle::BackFacing;
    };
    Triangle::Drawn {
        area_px: twice_area.abs() / 2.0,
        covers_sample: covers_pixel_centre(counter_clockwise, size),
    }
}

/// Whether `p` lies inside or on the edges of counter-clockwise triangle
/// `t`: no edge has it on its right.
pub fn inside(t: [DVec2; 3], p: DVec2) -> bool {
    (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        (b - a).perp_dot(p - a) >= 0.0
    })
}

/// Whether a pixel centre of a `size` target lies inside counter-clockwise
/// triangle `t` (pixel coordinates, y up): row by row over its bounding
/// box, the span each edge leaves on the row, and the first centre in it.
/// The division may round a tie the wrong way, so the centre is confirmed
/// (or its left neighbour found) with [`inside`] itself.
pub fn covers_pixel_centre(t: [DVec2; 3], size: UVec2) -> bool {
    let extent = size.as_dvec2();
    let min = t[0].min(t[1]).min(t[2]).max(DVec2::ZERO);
    let max = t[0].max(t[1]).max(t[2]).min(extent);
    let mut y = (min.y - 0.5).ceil() + 0.5;
    while y <= max.y {
        let (mut lo, mut hi) = (min.x, max.x);
        for i in 0..3 {
            let (a, b) = (t[i], t[(i + 1) % 3]);
            // (b − a) × (p − a) ≥ 0 on this row is k·x + c ≥ 0.
            let k = a.y - b.y;
            let c = (b.x - a.x) * (y - a.y) - k * a.x;
            if k > 0.0 {
                lo = lo.max(-c / k);
            } else if k < 0.0 {
                hi = hi.min(-c / k);
            } else if c < 0.0 {
                hi = f64::NEG_INFINITY;
            }
        }
        let first = (lo - 0.5).ceil() + 0.5;
        if hi.is_finite()
            && [first - 1.0, first]
                .into_iter()
                .any(|x| x > 0.0 && x < extent.x && inside(t, DVec2::new(x, y)))
        {
            return true;
        }
        y += 1.0;
    }
    false
}

/// Counts the triangles of the `drawn` objects (indices into
/// `scene.objects`) placed by `world_from_object` (per object, as the
/// frame had them) and seen by `camera` on the scene's target, on up to
/// `threads` threads.
pub fn count(
    scene: &SceneSpec,
    world_from_object: &[Mat4],
    camera: &Camera,
    drawn: &[usize],
    threads: usize,
) -> SmallTriangles {
    let clip_from_world = camera.clip_from_world();
    let size = UVec2::new(scene.width, scene.height);
    let chunk = drawn.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = drawn
            .chunks(chunk)
            .map(|objects| {
                scope.spawn(move || {
                    let mut counts = SmallTriangles::default();
                    let mut clip = Vec::new();
                    for &index in objects {
                        let object = &scene.objects[index];
                        let mesh = &scene.meshes[object.mesh as usize];
                        let double_sided = scene.materials[object.material as usize]
                            .material()
                            .double_sided;
                        let clip_from_object = clip_from_world * world_from_object[index];
                        clip.clear();
                        clip.extend(
                            mesh.positions
                                .iter()
                                .map(|&p| clip_from_object * glam::Vec3::from(p).extend(1.0)),
                        );
                        for t in mesh.indices.chunks_exact(3) {
                            let vertices = [0, 1, 2].map(|k| clip[t[k] as usize]);
                            counts.add_triangle(classify(vertices, size, double_sided));
                        }
                        counts.instances += 1;
                    }
                    counts
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a counting thread panicked"))
            .fold(SmallTriangles::default(), SmallTriangles::merge)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: UVec2 = UVec2::new(8, 8);

    /// Clip coordinates of pixel position `p` (y up) on `SIZE`, depth ½.
    fn at(p: [f64; 2]) -> Vec4 {
        let ndc = DVec2::from(p) / SIZE.as_dvec2() * 2.0 - 1.0;
        Vec4::new(ndc.x as f32, ndc.y as f32, 0.5, 1.0)
    }

    fn drawn(points: [[f64; 2]; 3]) -> Triangle {
        classify(points.map(at), SIZE, false)
    }

    fn assert_drawn(t: Triangle, area: f64, covers: bool) {
        let Triangle::Drawn {
            area_px,
            covers_sample,
        } = t
        else {
            panic!("not drawn: {t:?}");
        };
        assert!((area_px - area).abs() < 1e-5, "area {area_px}, not {area}");
        assert_eq!(covers_sample, covers, "{t:?}");
    }

    #[test]
    fn hand_computed_triangles() {
        // A right triangle of legs 4 holds 10 centres; area 8.
        assert_drawn(drawn([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]]), 8.0, true);
        // Between the centres (0.5 and 1.5 on each axis): area 0.32, none.
        assert_drawn(drawn([[0.6, 0.6], [1.4, 0.6], [0.6, 1.4]]), 0.32, false);
        // A sliver of area 2 between rows 0.5 and 1.5: none.
        assert_drawn(drawn([[0.6, 0.6], [8.6, 0.6], [0.6, 1.1]]), 2.0, false);
        // Tiny (0.045 px) but around the centre (1.5, 1.5).
        assert_drawn(drawn([[1.4, 1.4], [1.7, 1.4], [1.4, 1.7]]), 0.045, true);
        // A vertex on a centre covers it (edges count as inside).
        assert_drawn(drawn([[0.5, 0.5], [0.9, 0.5], [0.5, 0.9]]), 0.08, true);
        // Area 8, mostly off screen: x + y ≤ −2 holds no centre of it.
        assert_drawn(drawn([[-3.0, -3.0], [1.0, -3.0], [-3.0, 1.0]]), 8.0, false);
        // Clockwise: culled, unless double-sided.
        let clockwise = [[0.0, 0.0], [0.0, 4.0], [4.0, 0.0]].map(at);
        assert_eq!(classify(clockwise, SIZE, false), Triangle::BackFacing);
        assert_drawn(classify(clockwise, SIZE, true), 8.0, true);
        // Degenerate: no face.
        assert_eq!(
            drawn([[0.0, 0.0], [2.0, 2.0], [4.0, 4.0]]),
            Triangle::BackFacing
        );
        // A vertex in front of the near plane: clipped; all right of the
        // screen: outside.
        let mut near = [[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]].map(at);
        near[1].z = -0.1;
        assert_eq!(classify(near, SIZE, false), Triangle::Clipped);
        assert_eq!(
            drawn([[9.0, 0.0], [12.0, 0.0], [9.0, 4.0]]),
            Triangle::Outside
        );
    }

    #[test]
    fn counts_fall_in_their_buckets() {
        let mut counts = SmallTriangles::default();
        for (area, covers) in [(0.05, true), (0.5, false), (3.0, true), (100.0, true)] {
            counts.add_triangle(Triangle::Drawn {
                area_px: area,
                covers_sample: covers,
            });
        }
        counts.add_triangle(Triangle::Clipped);
        assert_eq!(counts.histogram, [1, 1, 1, 0, 1]);
        assert_eq!((counts.submitted, counts.drawn), (5, 4));
        assert_eq!(
            (counts.under_1px, counts.no_sample, counts.clipped),
            (2, 1, 1)
        );
    }

    /// Every pixel centre of the screen, one by one.
    fn brute_force_covers(t: [DVec2; 3], size: UVec2) -> bool {
        (0..size.y).any(|y| {
            (0..size.x).any(|x| inside(t, DVec2::new(f64::from(x) + 0.5, f64::from(y) + 0.5)))
        })
    }

    #[test]
    fn row_spans_find_what_testing_every_centre_finds() {
        // A fixed pseudo-random sequence (64-bit LCG).
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |scale: f64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * scale
        };
        let size = UVec2::new(16, 12);
        let (mut covered, mut missed) = (0, 0);
        for n in 0..20_000 {
            // Sizes from a tenth of a pixel to the whole screen; every 7th
            // triangle snapped to quarter pixels (ties on centres).
            let scale = [0.3, 1.0, 3.0, 20.0][n % 4];
            let origin = DVec2::new(next(18.0) - 1.0, next(14.0) - 1.0);
            let mut t = [0; 3].map(|_| origin + DVec2::new(next(scale), next(scale)));
            if n % 7 == 0 {
                t = t.map(|p| (p * 4.0).round() / 4.0);
            }
            // `classify` passes on triangles of positive area alone.
            let twice_area = (t[1] - t[0]).perp_dot(t[2] - t[0]);
            if twice_area == 0.0 {
                continue;
            } else if twice_area < 0.0 {
                t.swap(1, 2);
            }
            let expected = brute_force_covers(t, size);
            assert_eq!(covers_pixel_centre(t, size), expected, "{t:?}");
            if expected {
                covered += 1;
            } else {
                missed += 1;
            }
        }
        assert!(covered > 2000 && missed > 2000, "{covered} / {missed}");
    }
}
