//! Level of detail: simplified copies of a mesh, and which one an instance
//! draws.
//!
//! Two kinds, one per mesh, both switched by [`LodSettings`]: the
//! per-instance levels below ([`MeshOptions::lod_levels`]: one level for
//! the whole instance, on every tier and view), and cluster LOD
//! ([`MeshOptions::cluster_lod`], [`crate::geometry::cluster_lod`]: detail
//! per cluster, so a large mesh seen partly up close is fine only where
//! it is close; with cluster culling on (every tier), the camera's draws only;
//! elsewhere, and with LOD off, such a mesh draws its own triangles).
//! Cluster LOD suits large meshes; per-instance levels suit many small
//! instances, where one test per instance is cheaper than a loop over
//! clusters.
//!
//! A mesh added with [`MeshOptions::lod_levels`] gets a chain of up to
//! [`MAX_LOD_LEVELS`] simplified index lists ([`generate_levels`], with the
//! `meshopt` crate's simplifier), each about half the triangles of the one
//! before, over the mesh's own vertices. Each level is an entry of the mesh
//! table of its own (its index range in the arena after the mesh's); the
//! mesh's entry names them and carries each one's simplification error
//! divided by the mesh's bounding radius (`GpuMesh::lod_slots`,
//! `lod_errors`, `lod_levels`).
//!
//! With LOD on ([`LodSettings`], [`crate::Renderer::set_lod`]) the cull pass
//! (`wgsl/lod.wgsl`, included by `wgsl/cull.wgsl`) draws each instance with
//! the coarsest level whose error, projected at the instance's bounding
//! sphere, stays under [`LodSettings::threshold_px`] pixels: level `l` may be
//! drawn when `error_l · radius_world · k ≤ distance`, where `distance` is
//! from the camera to the nearest point of the world bounding sphere (0
//! inside it) and `k` is the pixels one world unit covers at unit distance
//! divided by the threshold ([`lod_factor`]). [`select_level`] is the CPU
//! twin of that choice, float operation for float operation. Every view of
//! the instance (the camera, shadow cascades, spot shadows) draws the level
//! the camera chose.
//!
//! Each level aims at half the indices of the one before; the chain stops
//! where a level would keep over 85% of them. A level's error is the larger
//! of the simplifier's estimate and the measured largest distance from a
//! vertex of the mesh to the level's surface (`deviation.rs`: the estimate
//! alone was up to 1.7× low on a sphere), and never below the level
//! before's. A level takes a slot of
//! [`Capacities::meshes`](crate::Capacities::meshes) and its indices follow the
//! mesh's in one range of the index buffer; the mesh's table entry is 112
//! bytes.
//!
//! In the cull pass the choice is a few vector operations, no loop, no array
//! and no texture fetch, made by `cull_instances`, `scatter_visible` and
//! `sort_blended` from the same inputs, so batching, the indirect draws, the
//! triangle count, occlusion and shadows work unchanged on levels: shadow
//! casters cast with the camera's levels, so a shadow matches what the camera
//! sees. Ray queries (BLASes, hit shading, the path-traced view) use the mesh
//! itself, and [`crate::Renderer::render_cull_only`], without a viewport, draws
//! level 0. A level indexes the mesh's own arena vertices, so a skinned or
//! morphed object's level is deformed vertex for vertex as the mesh is (the
//! skin stream and morph deltas are per arena vertex); its error is measured
//! in the rest pose, so a pose that folds the mesh may show more than the
//! threshold (`tests/animation_morph.rs`). `tests/lod.rs`: the level each of 400 instances drew, read back
//! from the draws, equals [`select_level`]'s at three thresholds, and
//! [`crate::DebugView::LodLevel`] shows each level on tiers A, B and C.
//!
//! Cost: one mesh-table entry per level and up to about the mesh's index
//! count again; adding a mesh with levels takes the simplifier (about 0.3 µs
//! a triangle a level) and the error measurement, whose cost is bounded in
//! the mesh's size however its triangles are placed: O(T log T + V) per
//! level for `T` triangles in the level and `V` vertices, at most 1024
//! nodes and triangles visited per vertex (`deviation.rs` states the bound;
//! a vertex at the cap overstates the error, never understates it).

use glam::{Vec3, Vec4};

use crate::camera::Camera;

mod deviation;

/// Most simplified levels a mesh may have, besides itself (WGSL
/// `MAX_LOD_LEVELS` in `wgsl/types.wgsl`).
pub const MAX_LOD_LEVELS: u32 = 4;

/// Each level aims at this fraction of the indices of the one before.
const LEVEL_RATIO: f32 = 0.5;

/// A level that keeps more than this fraction of the one before's indices
/// is not worth its memory: the chain stops there.
const LEAST_REDUCTION: f32 = 0.85;

/// How a mesh is added (beyond its data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeshOptions {
    /// Simplified levels to generate (0, the default: none; at most
    /// [`MAX_LOD_LEVELS`]). Fewer are made where the simplifier cannot halve
    /// the triangles again.
    pub lod_levels: u32,
    /// Build a cluster-LOD hierarchy ([`crate::geometry::cluster_lod`]:
    /// groups of clusters simplified together, a cut chosen per instance
    /// and frame by the cluster cull) instead of per-instance levels; not
    /// with `lod_levels`. It is used where cluster culling runs
    /// ([`crate::Renderer::cluster_culling_active`]) with LOD on; elsewhere
    /// the mesh draws its own (finest) triangles.
    pub cluster_lod: bool,
}

/// Level-of-detail selection (off by default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodSettings {
    /// Whether the cull pass picks a level per instance (else every
    /// instance draws its mesh as it was added).
    pub enabled: bool,
    /// Largest simplification error, in pixels at the instance's nearest
    /// point, a level may show (1 by default; finite and above 0).
    pub threshold_px: f32,
}

impl Default for LodSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            threshold_px: 1.0,
        }
    }
}

/// Bad level-of-detail settings or mesh options.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LodError {
    /// The threshold is NaN, infinite, zero or negative.
    #[error("LOD threshold {threshold_px} px must be finite and above 0")]
    Threshold {
        /// The threshold given.
        threshold_px: f32,
    },
    /// More simplified levels asked for than a mesh entry names.
    #[error("{requested} LOD levels requested, at most {max}")]
    TooManyLevels {
        /// Levels asked for.
        requested: u32,
        /// [`MAX_LOD_LEVELS`].
        max: u32,
    },
    /// Both a cluster-LOD hierarchy and per-instance levels asked for.
    #[error("a mesh has either cluster LOD or {levels} LOD levels, not both")]
    ClusterLodWithLevels {
        /// Levels asked for.
        levels: u32,
    },
}

impl LodSettings {
    /// Refuses a threshold that is not finite and above 0.
    pub fn validate(&self) -> Result<(), LodError> {
        if !(self.threshold_px.is_finite() && self.threshold_px > 0.0) {
            return Err(LodError::Threshold {
                threshold_px: self.threshold_px,
            });
        }
        Ok(())
    }
}

impl MeshOptions {
    /// Refuses more levels than [`MAX_LOD_LEVELS`].
    pub fn validate(&self) -> Result<(), LodError> {
        if self.lod_levels > MAX_LOD_LEVELS {
            return Err(LodError::TooManyLevels {
                requested: self.lod_levels,
                max: MAX_LOD_LEVELS,
            });
        }
        if self.cluster_lod && self.lod_levels > 0 {
            return Err(LodError::ClusterLodWithLevels {
                levels: self.lod_levels,
            });
        }
        Ok(())
    }
}

/// One simplified level of a mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct LodLevel {
    /// Triangle list over the mesh's vertices.
    pub indices: Vec<u32>,
    /// Object-space simplification error: the larger of the simplifier's
    /// estimate and the largest distance from a vertex of the mesh to the
    /// level's surface, measured; never below the level before's.
    pub error: f32,
}

/// Up to `levels` simplified levels of the triangle list `indices` over
/// `positions`, each simplified from the full mesh aiming at half the
/// indices of the level before; the chain stops early where a level would
/// not remove at least 15% of the indices of the one before. Each level's
/// error is measured against the full mesh (see [`LodLevel::error`]).
pub fn generate_levels(positions: &[[f32; 3]], indices: &[u32], levels: u32) -> Vec<LodLevel> {
    let mut chain: Vec<LodLevel> = Vec::new();
    if levels == 0 || indices.is_empty() {
        return chain;
    }
    let scale = meshopt::simplify_scale_decoder(positions);
    let mut previous = indices.len();
    for _ in 0..levels.min(MAX_LOD_LEVELS) {
        let target = ((previous as f32 * LEVEL_RATIO) as usize / 3) * 3;
        let mut relative_error = 0.0;
        let simplified = meshopt::simplify_decoder(
            indices,
            positions,
            target,
            f32::MAX,
            meshopt::SimplifyOptions::None,
            Some(&mut relative_error),
        );
        if simplified.is_empty() || simplified.len() as f32 > previous as f32 * LEAST_REDUCTION {
            break;
        }
        let before = chain.last().map_or(0.0, |level| level.error);
        let measured = deviation::deviation(positions, indices, &simplified);
        previous = simplified.len();
        chain.push(LodLevel {
            indices: simplified,
            error: (relative_error * scale).max(measured).max(before),
        });
    }
    chain
}

/// The factor `k` of the level test for a camera drawing a viewport
/// `viewport_height` pixels tall: pixels one world unit covers at unit
/// distance, over the threshold (`FrameUniforms.lod.w`).
pub fn lod_factor(camera: &Camera, viewport_height: u32, settings: &LodSettings) -> f32 {
    let pixels_per_unit = viewport_height as f32 / (2.0 * (camera.fov_y_radians * 0.5).tan());
    pixels_per_unit / settings.threshold_px
}

/// Distance from `origin` to the nearest point of `sphere` (centre xyz,
/// radius w), 0 inside it: the twin of `lod_distance` in `wgsl/lod.wgsl`.
pub fn lod_distance(origin: Vec3, sphere: Vec4) -> f32 {
    ((sphere.truncate() - origin).length() - sphere.w).max(0.0)
}

/// The level (0: the mesh itself) an instance with world bounding sphere
/// `sphere` draws, seen from `origin` with factor `k` ([`lod_factor`]),
/// given each simplified level's error over the mesh's bounding radius
/// (`GpuMesh::lod_errors`, non-decreasing; at most [`MAX_LOD_LEVELS`]
/// are read): how many levels have `error · sphere radius · k` at most the
/// distance, which is the last level that fits. The twin of `lod_level` in
/// `wgsl/lod.wgsl`.
pub fn select_level(errors_over_radius: &[f32], sphere: Vec4, origin: Vec3, k: f32) -> u32 {
    let distance = lod_distance(origin, sphere);
    errors_over_radius
        .iter()
        .take(MAX_LOD_LEVELS as usize)
        .filter(|&&error| error * sphere.w * k <= distance)
        .count() as u32
}

/// The colour [`crate::DebugView::LodLevel`] shows for `level` (linear
/// RGB): level 0 blue, 1 green, 2 yellow, 3 red, 4 cyan, white for any
/// other value (a pixel whose draw was not found). The twin of
/// `lod_level_color` in `wgsl/draw.wgsl`.
pub fn lod_level_color(level: u32) -> [f32; 3] {
    match level {
        0 => [0.0, 0.0, 1.0],
        1 => [0.0, 1.0, 0.0],
        2 => [1.0, 1.0, 0.0],
        3 => [1.0, 0.0, 0.0],
        4 => [0.0, 1.0, 1.0],
        _ => [1.0; 3],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_refuse_bad_thresholds() {
        for threshold_px in [f32::NAN, -1.0, 0.0, f32::INFINITY] {
            let settings = LodSettings {
                enabled: true,
                threshold_px,
            };
            assert!(matches!(
                settings.validate(),
                Err(LodError::Threshold { .. })
            ));
        }
        assert_eq!(LodSettings::default().validate(), Ok(()));
    }

    #[test]
    fn a_farther_instance_never_gets_a_finer_level() {
        let errors = [0.01, 0.02, 0.05, 0.1];
        let mut last = 0;
        for step in 0..200 {
            let sphere = Vec4::new(0.0, 0.0, -(step as f32) * 0.5, 1.0);
            let level = select_level(&errors, sphere, Vec3::ZERO, 500.0);
            assert!(level >= last);
            last = level;
        }
        assert_eq!(last, 4);
        // Inside the sphere: the mesh itself.
        assert_eq!(select_level(&errors, Vec4::W, Vec3::ZERO, 500.0), 0);
    }
}
