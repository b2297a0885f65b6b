//! The CPU twin of occlusion culling's depth pyramid and test
//! (`wgsl/pyramid.wgsl`, `wgsl/occlusion.wgsl`), formula for formula, for
//! tests and tools: build the pyramid from read-back depth, or take the
//! GPU's read back, and ask which bounding spheres it hides.
//!
//! Depth is standard (0 near, 1 far): a texel keeps the farthest depth
//! below it, and a sphere is hidden when the nearest depth of its world box
//! lies beyond every texel covering its projected rectangle, at the finest
//! level where at most 2 × 2 texels do.

use glam::{Mat4, UVec2, Vec2, Vec3, Vec4};

/// A depth pyramid: level 0 the depth target's size, level `l`
/// `max(1, size >> l)`, down to 1 × 1; texel `t` of level `l` covers pixels
/// `[t << l, (t + 1) << l)`, the last of a row or column to the edge.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthPyramid {
    /// Per level, row-major texels.
    levels: Vec<Vec<f32>>,
    size: UVec2,
}

/// One sphere's test, with how close it came to going the other way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OcclusionTest {
    /// Hidden: not drawn by the late phase.
    pub occluded: bool,
    /// The level tested (`None`: the box reaches the near plane or behind
    /// the camera, never hidden).
    pub level: Option<u32>,
    /// Nearest depth of the box minus the farthest pyramid depth covering
    /// it (hidden when positive).
    pub depth_margin: f32,
    /// Distance, in pixels, of the rectangle's edges from the nearest pixel
    /// boundary (a GPU rounding its own way may cover one pixel more or
    /// less where this is tiny).
    pub edge_margin: f32,
}

/// The NDC bounds `(lo, hi)` of the eight corners of a world bounding
/// `sphere`'s (centre, radius) box seen through `clip_from_world` (twin of
/// `sphere_ndc_box` in `wgsl/projection.wgsl`); `None` when a corner lies
/// on or behind the camera plane (`w <= 0`).
pub fn projected_box(clip_from_world: &Mat4, sphere: Vec4) -> Option<(Vec3, Vec3)> {
    let (mut lo, mut hi) = (Vec3::splat(3.0e38), Vec3::splat(-3.0e38));
    for c in 0..8u32 {
        let sign = |bit: u32| if c & bit != 0 { 1.0 } else { -1.0 };
        let signs = Vec3::new(sign(1), sign(2), sign(4));
        let clip = *clip_from_world * (sphere.truncate() + sphere.w * signs).extend(1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        lo = lo.min(ndc);
        hi = hi.max(ndc);
    }
    Some((lo, hi))
}

fn level_size(size: UVec2, level: u32) -> UVec2 {
    UVec2::new((size.x >> level).max(1), (size.y >> level).max(1))
}

impl DepthPyramid {
    /// The pyramid over a depth target of `size` whose pixel `(x, y)` holds
    /// `depth[y * width + x]` (with several samples: their farthest).
    pub fn from_depth(size: UVec2, depth: &[f32]) -> Self {
        assert_eq!(
            depth.len(),
            (size.x * size.y) as usize,
            "one depth per pixel"
        );
        let count = 32 - size.x.max(size.y).max(1).leading_zeros();
        let mut levels = vec![depth.to_vec()];
        for level in 1..count {
            let (below, below_size) = (&levels[level as usize - 1], level_size(size, level - 1));
            let here = level_size(size, level);
            let mut texels = Vec::with_capacity((here.x * here.y) as usize);
            for y in 0..here.y {
                for x in 0..here.x {
                    let last = |t: u32, n: u32, below: u32| {
                        if t == n - 1 {
                            below - 1
                        } else {
                            (2 * t + 1).min(below - 1)
                        }
                    };
                    let (x1, y1) = (last(x, here.x, below_size.x), last(y, here.y, below_size.y));
                    let mut farthest = 0.0f32;
                    for cy in 2 * y..=y1 {
                        for cx in 2 * x..=x1 {
                            farthest = farthest.max(below[(cy * below_size.x + cx) as usize]);
                        }
                    }
                    texels.push(farthest);
                }
            }
            levels.push(texels);
        }
        Self { levels, size }
    }

    /// A pyramid read back from the GPU: `levels[l]` row-major texels of
    /// level `l` (`None` if a level has the wrong size or one is missing).
    pub fn from_levels(size: UVec2, levels: Vec<Vec<f32>>) -> Option<Self> {
        let count = 32 - size.x.max(size.y).max(1).leading_zeros();
        let sizes_match = levels.len() == count as usize
            && levels.iter().enumerate().all(|(l, texels)| {
                let s = level_size(size, l as u32);
                texels.len() == (s.x * s.y) as usize
            });
        sizes_match.then_some(Self { levels, size })
    }

    /// Level 0's size.
    pub fn size(&self) -> UVec2 {
        self.size
    }

    /// Level `level`'s texels, row-major.
    pub fn level(&self, level: u32) -> &[f32] {
        &self.levels[level as usize]
    }

    /// Levels down to 1 × 1.
    pub fn level_count(&self) -> u32 {
        self.levels.len() as u32
    }

    /// The late phase's test of a world bounding `sphere` (centre, radius)
    /// seen through `clip_from_world`.
    pub fn test_sphere(&self, clip_from_world: &Mat4, sphere: Vec4) -> OcclusionTest {
        let never = OcclusionTest {
            occluded: false,
            level: None,
            depth_margin: f32::NEG_INFINITY,
            edge_margin: f32::INFINITY,
        };
        let Some((lo, hi)) = projected_box(clip_from_world, sphere) else {
            return never;
        };
        if lo.z <= 0.0 {
            return never;
        }
        let extent = self.size.as_vec2();
        let first = Vec2::new(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * extent;
        let last = Vec2::new(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * extent;
        let edge = |v: f32| (v - v.round()).abs();
        let edge_margin = edge(first.x)
            .min(edge(first.y))
            .min(edge(last.x))
            .min(edge(last.y));
        let clamp = |v: Vec2| v.floor().clamp(Vec2::ZERO, extent - 1.0).as_uvec2();
        let (p0, p1) = (clamp(first), clamp(last));
        let mut level = 0;
        let (t0, t1) = loop {
            let s = level_size(self.size, level);
            let t0 = (p0 >> level).min(s - 1);
            let t1 = (p1 >> level).min(s - 1);
            if (t1 - t0).cmple(UVec2::ONE).all() || level + 1 >= self.level_count() {
                break (t0, t1);
            }
            level += 1;
        };
        let width = level_size(self.size, level).x;
        let texels = &self.levels[level as usize];
        let mut farthest = 0.0f32;
        for y in t0.y..=t1.y {
            for x in t0.x..=t1.x {
                farthest = farthest.max(texels[(y * width + x) as usize]);
            }
        }
        OcclusionTest {
            occluded: lo.z > farthest,
            level: Some(level),
            depth_margin: lo.z - farthest,
            edge_margin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_texel_is_the_farthest_of_the_pixels_it_covers() {
        // Odd sizes: the last texel of a row or column reaches the edge.
        for (w, h) in [(7u32, 5u32), (1, 9), (16, 3), (13, 13)] {
            let depth: Vec<f32> = (0..w * h)
                .map(|i| ((i * 7919) % 101) as f32 / 101.0)
                .collect();
            let pyramid = DepthPyramid::from_depth(UVec2::new(w, h), &depth);
            assert_eq!(pyramid.level(pyramid.level_count() - 1).len(), 1);
            for level in 0..pyramid.level_count() {
                let s = level_size(pyramid.size(), level);
                for ty in 0..s.y {
                    for tx in 0..s.x {
                        let covers = |t: u32, n: u32, full: u32| {
                            let end = if t == n - 1 { full } else { (t + 1) << level };
                            (t << level)..end
                        };
                        let mut farthest = 0.0f32;
                        for y in covers(ty, s.y, h) {
                            for x in covers(tx, s.x, w) {
                                farthest = farthest.max(depth[(y * w + x) as usize]);
                            }
                        }
                        let texel = pyramid.level(level)[(ty * s.x + tx) as usize];
                        assert_eq!(texel, farthest, "{w}x{h} level {level} texel {tx},{ty}");
                    }
                }
            }
        }
    }
}
