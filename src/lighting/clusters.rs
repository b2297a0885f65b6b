//! Clustered light culling on the CPU: the grid, the twin of
//! `wgsl/clusters.wgsl` (same formulas, same order, `f32`), and a reference
//! assignment for tests.
//!
//! The view frustum is cut into `tiles_x × tiles_y` screen tiles and
//! `depth_slices` slices of exponentially growing depth between the
//! camera's near and far planes (slice `k` spans view depths
//! `near · (far / near)^(k / slices)` to the next), so a cluster (froxel)
//! is about as deep as it is wide everywhere. Each cluster is bounded by
//! the view-space box of its eight corners and by the four side planes of
//! its tile's frustum (through the eye). A light belongs to a cluster when:
//!
//! - directional: always;
//! - point: its cull sphere (centre, [`GpuLight::cull_radius`]) touches the
//!   box and reaches the inner side of each of the four planes;
//! - spot: its cull sphere does, and its outer cone touches the box's
//!   bounding sphere (a cone-sphere test, conservative: the sphere holds
//!   the box).
//!
//! Each test is conservative (a sphere that reaches a point of the cluster
//! passes all of them). The planes matter for fine tiles: a tile's frustum
//! between two depths is a thin slanted wedge whose box is much wider than
//! it off the view's centre.
//!
//! A fragment finds its cluster from its pixel (the tile) and its window
//! depth (the view depth, hence the slice): no value is passed from the
//! vertex shader. Cluster `c = (slice · tiles_y + tile_y) · tiles_x +
//! tile_x`, tile row 0 at the top of the target.

use glam::{UVec2, UVec3, Vec2, Vec3, Vec4};

use crate::camera::Camera;
use crate::gpu_types::{
    GpuFrameUniforms, GpuLight, LIGHT_KIND_DIRECTIONAL, LIGHT_KIND_NONE, LIGHT_KIND_SPOT,
};
use crate::lights::LightError;

/// Most clusters a grid may have (the light pass prefix-sums their counts
/// in one workgroup).
pub const MAX_CLUSTERS: u32 = 1 << 16;
/// Most light references a grid may hold (256 MiB of indices; the
/// device's storage binding limit may allow fewer).
pub const MAX_LIGHT_REFERENCES: u32 = 1 << 26;
/// Most tiles across or down (a dispatch dimension).
pub const MAX_TILES: u32 = 1024;

/// How the light pass cuts the view into clusters, and how many light
/// references the cluster lists hold in all. Part of
/// [`crate::RendererConfig`].
///
/// A grid has at most [`MAX_TILES`] tiles a side, [`MAX_CLUSTERS`] clusters
/// and [`MAX_LIGHT_REFERENCES`] references; [`crate::Renderer::new`]
/// refuses a grid beyond them, or with a zero, with
/// [`LightError::Grid`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterGrid {
    /// Screen tiles across.
    pub tiles_x: u32,
    /// Screen tiles down.
    pub tiles_y: u32,
    /// Depth slices between the camera's near and far planes.
    pub depth_slices: u32,
    /// Most entries the light index list shared by all clusters may grow
    /// to (4 bytes each). The list is sized for the load and grows when a
    /// frame needs more (`passes/lights.rs`), up to this. A frame needing
    /// more than the list holds keeps the lists of the first clusters in
    /// cluster order whole and cuts the rest (the lights a cut list loses
    /// are its highest slots), and says so in
    /// [`crate::GpuFrameStats::light_lists`].
    pub max_light_references: u32,
}

impl Default for ClusterGrid {
    /// 32 × 18 tiles (square tiles on a 16:9 target, 32 × 57 pixels at
    /// 1024²) × 48 slices: 27,648 clusters; at most 2^24 light references
    /// (64 MiB, within WebGPU's default storage binding limit of 128 MiB).
    /// On the H200's draw-bound bench (1,000 to 65,536 point lights) it
    /// shaded 16-35% faster than 16 × 9 × 24 for at most 0.3 ms more in
    /// the light pass; 48 × 27 × 48 gained 0-4% more for twice the light
    /// pass (`docs/PERFORMANCE.md`).
    fn default() -> Self {
        Self {
            tiles_x: 32,
            tiles_y: 18,
            depth_slices: 48,
            max_light_references: 1 << 24,
        }
    }
}

impl ClusterGrid {
    /// Clusters in the grid.
    pub fn clusters(&self) -> u32 {
        self.tiles_x * self.tiles_y * self.depth_slices
    }

    /// Checks the grid: every count at least 1, at most [`MAX_TILES`]
    /// tiles a side, [`MAX_CLUSTERS`] clusters and
    /// [`MAX_LIGHT_REFERENCES`] references.
    pub fn validate(&self) -> Result<(), LightError> {
        let clusters =
            u64::from(self.tiles_x) * u64::from(self.tiles_y) * u64::from(self.depth_slices);
        let fits = [
            self.tiles_x,
            self.tiles_y,
            self.depth_slices,
            self.max_light_references,
        ]
        .iter()
        .all(|&n| n >= 1)
            && self.tiles_x <= MAX_TILES
            && self.tiles_y <= MAX_TILES
            && clusters <= u64::from(MAX_CLUSTERS)
            && self.max_light_references <= MAX_LIGHT_REFERENCES;
        if fits {
            Ok(())
        } else {
            Err(LightError::Grid { grid: *self })
        }
    }
}

/// The cluster fields of `FrameUniforms` (see
/// [`crate::gpu_types::GpuFrameUniforms`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterUniforms {
    /// Tiles across, tiles down, depth slices.
    pub grid: UVec3,
    /// Tiles per pixel (x, y); slice = `log2(depth) * z + w`.
    pub cluster_from_pixel: Vec4,
    /// near · far, far - near, far, near.
    pub view_depth: Vec4,
    /// tan(fov_y / 2) · aspect, tan(fov_y / 2), log2(far / near) / slices.
    pub view_frustum: Vec4,
}

/// A grid over one camera and target size: where clusters are, and which
/// cluster a fragment is in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterView {
    /// The grid.
    pub grid: ClusterGrid,
    /// The camera.
    pub camera: Camera,
    /// Target width and height in pixels.
    pub viewport: UVec2,
}

/// A view-space light as the cluster tests see it (WGSL `ViewLight`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewLight {
    /// Centre (view space) and cull radius.
    pub sphere: Vec4,
    /// Unit axis (view space; spot lights).
    pub axis: Vec3,
    /// `gpu_types::LIGHT_KIND_*`.
    pub kind: u32,
    /// Cosine of the outer cone angle.
    pub cos_outer: f32,
    /// Sine of the outer cone angle.
    pub sin_outer: f32,
}

/// How a light and a cluster's box relate, with the margin of the closest
/// call relative to the size of the numbers it was computed from: an
/// assignment whose margin is a few `f32` epsilons may come out either way
/// in another `f32` implementation (fused multiply-adds, another `exp2`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterTest {
    /// The light is assigned to the cluster.
    pub touches: bool,
    /// The closest comparison's distance from its decision over the scale
    /// of its rounding error (≥ 0; infinite when nothing is computed).
    pub margin: f32,
}

/// A cluster's view-space box (its eight corners' bounds) and its tile's
/// sides (WGSL `ClusterBox`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterBounds {
    /// The box's least corner.
    pub lo: Vec3,
    /// The box's greatest corner.
    pub hi: Vec3,
    /// The tile's sides as `x / -z` (left, right) and `y / -z` (bottom,
    /// top): a point is in the tile's frustum when its ratios lie between.
    pub sides: Vec4,
}

impl ClusterBounds {
    /// The four side planes through the eye, as inward normals (not unit):
    /// a point `p` of the tile's frustum has `n · p >= 0` for each.
    pub fn side_normals(&self) -> [Vec3; 4] {
        let s = self.sides;
        [
            Vec3::new(1.0, 0.0, s.x),
            Vec3::new(-1.0, 0.0, -s.y),
            Vec3::new(0.0, 1.0, s.z),
            Vec3::new(0.0, -1.0, -s.w),
        ]
    }
}

impl ClusterView {
    /// Writes this view's cluster fields into the frame's uniforms, with
    /// `light_slots` table slots to shade (0: none; the draw pass then reads
    /// no light).
    pub fn write_uniforms(&self, uniforms: &mut GpuFrameUniforms, light_slots: u32) {
        let fields = self.uniform_fields();
        uniforms.light_grid = fields.grid.extend(light_slots);
        uniforms.cluster_from_pixel = fields.cluster_from_pixel;
        uniforms.view_depth = fields.view_depth;
        uniforms.view_frustum = fields.view_frustum;
    }

    /// The uniform fields of this view.
    pub fn uniform_fields(&self) -> ClusterUniforms {
        let g = &self.grid;
        let c = &self.camera;
        let slices = g.depth_slices as f32;
        let depth_ratio_log2 = (c.z_far / c.z_near).log2();
        let slice_scale = slices / depth_ratio_log2;
        let tan_half = (c.fov_y_radians * 0.5).tan();
        ClusterUniforms {
            grid: UVec3::new(g.tiles_x, g.tiles_y, g.depth_slices),
            cluster_from_pixel: Vec4::new(
                g.tiles_x as f32 / self.viewport.x as f32,
                g.tiles_y as f32 / self.viewport.y as f32,
                slice_scale,
                -c.z_near.log2() * slice_scale,
            ),
            view_depth: Vec4::new(c.z_near * c.z_far, c.z_far - c.z_near, c.z_far, c.z_near),
            view_frustum: Vec4::new(
                tan_half * c.aspect,
                tan_half,
                depth_ratio_log2 / slices,
                0.0,
            ),
        }
    }

    /// The cluster a fragment at pixel coordinates `pixel` (the pixel's
    /// centre, as `@builtin(position)` gives it) and window depth
    /// `depth` is in: `wgsl/clusters.wgsl`'s `fragment_cluster`.
    pub fn fragment_cluster(&self, pixel: Vec2, depth: f32) -> u32 {
        let u = self.uniform_fields();
        let grid = u.grid;
        let tile = (pixel * u.cluster_from_pixel.truncate().truncate())
            .as_uvec2()
            .min(grid.truncate() - 1);
        let view_depth = u.view_depth.x / (u.view_depth.z - depth * u.view_depth.y);
        let slice = (view_depth.log2() * u.cluster_from_pixel.z + u.cluster_from_pixel.w)
            .floor()
            .clamp(0.0, (grid.z - 1) as f32) as u32;
        (slice * grid.y + tile.y) * grid.x + tile.x
    }

    /// The view-space box of cluster `(x, y, slice)` and its tile's sides:
    /// `wgsl/lights.wgsl`'s `cluster_bounds`.
    pub fn cluster_bounds(&self, cluster: UVec3) -> ClusterBounds {
        let u = self.uniform_fields();
        let step = Vec2::new(2.0 / u.grid.x as f32, 2.0 / u.grid.y as f32);
        let x0 = -1.0 + cluster.x as f32 * step.x;
        let x1 = -1.0 + (cluster.x + 1) as f32 * step.x;
        let y0 = 1.0 - (cluster.y + 1) as f32 * step.y;
        let y1 = 1.0 - cluster.y as f32 * step.y;
        let near = u.view_depth.w * (cluster.z as f32 * u.view_frustum.z).exp2();
        let far = u.view_depth.w * ((cluster.z + 1) as f32 * u.view_frustum.z).exp2();
        let per_depth = Vec2::new(u.view_frustum.x, u.view_frustum.y);
        let a = Vec2::new(x0, y0) * per_depth;
        let b = Vec2::new(x1, y1) * per_depth;
        let lo = (a * near).min(a * far).min((b * near).min(b * far));
        let hi = (a * near).max(a * far).max((b * near).max(b * far));
        ClusterBounds {
            lo: lo.extend(-far),
            hi: hi.extend(-near),
            sides: Vec4::new(a.x, b.x, a.y, b.y),
        }
    }

    /// `light` in this view's space: `wgsl/lights.wgsl`'s `prepare_lights`.
    pub fn view_light(&self, light: &GpuLight) -> ViewLight {
        let view_from_world = self.camera.view_from_world();
        let centre = view_from_world * Vec3::from_array(light.position).extend(1.0);
        let axis = view_from_world * Vec3::from_array(light.direction).extend(0.0);
        ViewLight {
            sphere: centre.truncate().extend(light.cull_radius),
            axis: axis.truncate(),
            kind: light.kind,
            cos_outer: light.cos_outer,
            sin_outer: light.sin_outer,
        }
    }

    /// Whether `light` belongs to the cluster of `bounds`:
    /// `wgsl/lights.wgsl`'s `light_touches_cluster`, with its margin.
    pub fn test(light: &ViewLight, bounds: &ClusterBounds) -> ClusterTest {
        let (lo, hi) = (bounds.lo, bounds.hi);
        match light.kind {
            LIGHT_KIND_NONE => ClusterTest {
                touches: false,
                margin: f32::INFINITY,
            },
            LIGHT_KIND_DIRECTIONAL => ClusterTest {
                touches: true,
                margin: f32::INFINITY,
            },
            kind => {
                let centre = light.sphere.truncate();
                let r = light.sphere.w;
                let d = centre - centre.clamp(lo, hi);
                let sphere = r * r - d.dot(d);
                // Rounding scales with the coordinates' size as well as
                // with the result's.
                let coordinates = centre.abs().max(lo.abs()).max(hi.abs()).max_element();
                let d_len = d.length();
                let mut test = ClusterTest {
                    touches: sphere >= 0.0,
                    margin: sphere.abs() / (r * r + d_len * d_len + 2.0 * d_len * coordinates),
                };
                // The side planes (`sphere_reaches_plane`), in the shader's
                // order.
                for n in bounds.side_normals() {
                    let n_len = n.length();
                    let reach = n.dot(centre) + r * n_len;
                    test.touches = test.touches && reach >= 0.0;
                    let scale = n_len * (2.0 * coordinates + r);
                    test.margin = test.margin.min(reach.abs() / scale);
                }
                if kind == LIGHT_KIND_SPOT {
                    let box_centre = (lo + hi) * 0.5;
                    let box_radius = (hi - lo).length() * 0.5;
                    let v = box_centre - centre;
                    let v_len_sq = v.dot(v);
                    let v1_len = v.dot(light.axis);
                    let across = (v_len_sq - v1_len * v1_len).max(0.0).sqrt();
                    let closest = light.cos_outer * across - v1_len * light.sin_outer;
                    let side = box_radius - closest;
                    let front = v1_len + box_radius;
                    test.touches = test.touches && side >= 0.0 && front >= 0.0;
                    // Near the axis the square root magnifies the rounding
                    // of v·v - (v·axis)² (up to sqrt(ε) |v|).
                    let v_len = v_len_sq.sqrt();
                    let magnified = v_len_sq / across.max(1e-3 * v_len);
                    let scale = box_radius + v_len + coordinates;
                    test.margin = test
                        .margin
                        .min(side.abs() / (scale + magnified))
                        .min(front.abs() / scale);
                }
                test
            }
        }
    }

    /// Cluster `(x, y, slice)` of index `c`.
    pub fn cluster_coordinates(&self, c: u32) -> UVec3 {
        let g = &self.grid;
        UVec3::new(
            c % g.tiles_x,
            c / g.tiles_x % g.tiles_y,
            c / (g.tiles_x * g.tiles_y),
        )
    }

    /// The reference assignment: per cluster, the light slots (ascending)
    /// that belong to it for sure, and those whose test's relative margin
    /// ([`ClusterTest::margin`]) is under `tolerance`, which another `f32`
    /// implementation may decide either way.
    pub fn assign(&self, lights: &[GpuLight], tolerance: f32) -> Vec<ClusterReference> {
        let view_lights: Vec<ViewLight> = lights.iter().map(|l| self.view_light(l)).collect();
        (0..self.grid.clusters())
            .map(|c| {
                let bounds = self.cluster_bounds(self.cluster_coordinates(c));
                let mut reference = ClusterReference::default();
                for (slot, light) in view_lights.iter().enumerate() {
                    let test = Self::test(light, &bounds);
                    let list = if test.margin < tolerance {
                        &mut reference.uncertain
                    } else if test.touches {
                        &mut reference.lights
                    } else {
                        continue;
                    };
                    list.push(slot as u32);
                }
                reference
            })
            .collect()
    }
}

/// One cluster of [`ClusterView::assign`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterReference {
    /// Slots that belong to the cluster, ascending.
    pub lights: Vec<u32>,
    /// Slots too close to call in `f32`, ascending.
    pub uncertain: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> ClusterView {
        ClusterView {
            grid: ClusterGrid::default(),
            camera: Camera {
                aspect: 16.0 / 9.0,
                ..Camera::default()
            },
            viewport: UVec2::new(320, 180),
        }
    }

    /// The boxes tile the frustum: a fragment's cluster holds the point it
    /// shades.
    #[test]
    fn a_fragment_lies_in_the_box_of_its_cluster() {
        let view = view();
        let clip_from_view = view.camera.clip_from_view();
        for (px, py, view_depth) in [(0.5, 0.5, 0.2), (160.5, 90.5, 4.9), (319.5, 179.5, 700.0)] {
            let ndc_x = px / 320.0 * 2.0 - 1.0;
            let ndc_y = 1.0 - py / 180.0 * 2.0;
            let (sx, sy) = (
                view.uniform_fields().view_frustum.x,
                view.uniform_fields().view_frustum.y,
            );
            let p = Vec3::new(
                ndc_x * sx * view_depth,
                ndc_y * sy * view_depth,
                -view_depth,
            );
            let clip = clip_from_view * p.extend(1.0);
            let depth = clip.z / clip.w;
            let c = view.fragment_cluster(Vec2::new(px, py), depth);
            let bounds = view.cluster_bounds(view.cluster_coordinates(c));
            let (lo, hi) = (bounds.lo, bounds.hi);
            let slack = Vec3::splat(view_depth * 1e-4);
            assert!(
                p.cmpge(lo - slack).all() && p.cmple(hi + slack).all(),
                "{p} not in cluster {c}: {lo} .. {hi}"
            );
        }
    }

    /// Every light whose sphere holds a point of a cluster is assigned to
    /// that cluster (or too close to call): the box and plane tests are
    /// conservative, on a fine grid whose off-centre boxes are much wider
    /// than their tiles.
    #[test]
    fn a_light_reaching_a_fragment_is_in_its_cluster() {
        let view = ClusterView {
            grid: ClusterGrid {
                tiles_x: 64,
                tiles_y: 36,
                depth_slices: 24,
                ..ClusterGrid::default()
            },
            ..view()
        };
        let (sx, sy) = (
            view.uniform_fields().view_frustum.x,
            view.uniform_fields().view_frustum.y,
        );
        let clip_from_view = view.camera.clip_from_view();
        let mut seed = 0x2545_f491_u32;
        let mut random = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        let (mut tested, mut rejected_by_planes) = (0, 0);
        for _ in 0..20_000 {
            let pixel = Vec2::new((random() * 320.0).floor(), (random() * 180.0).floor()) + 0.5;
            let view_depth =
                view.camera.z_near * (view.camera.z_far / view.camera.z_near).powf(random());
            let ndc = Vec2::new(pixel.x / 320.0 * 2.0 - 1.0, 1.0 - pixel.y / 180.0 * 2.0);
            let p = Vec3::new(
                ndc.x * sx * view_depth,
                ndc.y * sy * view_depth,
                -view_depth,
            );
            let clip = clip_from_view * p.extend(1.0);
            let c = view.fragment_cluster(pixel, clip.z / clip.w);
            let bounds = view.cluster_bounds(view.cluster_coordinates(c));
            // A sphere holding p, its centre anywhere up to 0.99 r away.
            let r = view_depth * (0.001 + random() * 0.2);
            let direction =
                Vec3::new(random() - 0.5, random() - 0.5, random() - 0.5).normalize_or(Vec3::X);
            let light = ViewLight {
                sphere: (p + direction * r * 0.99 * random()).extend(r),
                axis: Vec3::NEG_Z,
                kind: crate::gpu_types::LIGHT_KIND_POINT,
                cos_outer: 0.0,
                sin_outer: 1.0,
            };
            let test = ClusterView::test(&light, &bounds);
            assert!(
                test.touches || test.margin < 1e-6,
                "light {light:?} holds {p} but misses cluster {c}: {bounds:?}"
            );
            tested += 1;
            // How often the planes reject a light the box alone takes, for
            // random spheres near the cluster (the planes do something).
            let centre = p + direction * r * (1.0 + 4.0 * random());
            let near = ViewLight {
                sphere: centre.extend(r),
                ..light
            };
            let d = centre - centre.clamp(bounds.lo, bounds.hi);
            let box_only = r * r - d.dot(d) >= 0.0;
            rejected_by_planes +=
                usize::from(box_only && !ClusterView::test(&near, &bounds).touches);
        }
        assert_eq!(tested, 20_000);
        assert!(
            rejected_by_planes > 100,
            "{rejected_by_planes} rejected by the planes"
        );
    }

    #[test]
    fn bad_grids_are_refused() {
        assert!(ClusterGrid::default().validate().is_ok());
        for grid in [
            ClusterGrid {
                tiles_x: 0,
                ..ClusterGrid::default()
            },
            ClusterGrid {
                depth_slices: 1 << 10,
                ..ClusterGrid::default()
            },
            ClusterGrid {
                max_light_references: 0,
                ..ClusterGrid::default()
            },
        ] {
            assert!(grid.validate().is_err(), "{grid:?}");
        }
    }
}
