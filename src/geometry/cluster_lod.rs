//! Cluster LOD (issue 28, stage 4): a hierarchy of simplified cluster
//! groups over one mesh, built at `GeometryArena::add` for a mesh added
//! with [`crate::MeshOptions::cluster_lod`], from which the camera's
//! cluster cull picks a cut per instance and frame, so detail varies
//! across one mesh without cracks.
//!
//! **Building** ([`build_hierarchy`]). Level 0 is the mesh's own clusters
//! ([`super::clusters::build_clusters`], so its indices are exactly those
//! of a mesh added without the hierarchy). Then, while more than one
//! cluster is left to merge:
//! 1. *Group*: `meshopt::partition_clusters` splits the clusters still to
//!    merge into groups of about [`GROUP_SIZE`] neighbours (adjacency by
//!    shared vertices; meshoptimizer's partitioner).
//! 2. *Simplify*: each group's triangles, merged, are simplified to half
//!    with the group's outer border locked (`SimplifyOptions::LockBorder`
//!    with `Sparse`: the border is that of the group's triangles, so every
//!    vertex shared with another group stays where it is, and the cost is
//!    that of the group, not of the mesh) and absolute errors.
//! 3. *Re-split*: the simplified triangles become clusters again
//!    (`build_clusters`). A group whose simplification keeps over
//!    [`LEAST_REDUCTION`] of its indices, or that makes as many clusters
//!    as it merged, is not simplified: its clusters go to the next round,
//!    to be grouped with other neighbours.
//!
//! The loop stops when a round leaves more than [`LEAST_REDUCTION`] of
//! the clusters it started with (or one cluster is left); the clusters
//! never merged are the roots. Every group that is simplified makes fewer
//! clusters than it merged, so any cut has at most as many clusters as
//! level 0 ([`ClusterHierarchy::max_cut_clusters`]), which bounds the
//! cull's draws per instance.
//!
//! **Errors and bounds.** A group has one [`LodBounds`]: a sphere that
//! contains every merged cluster's own sphere (so it contains the
//! clusters' triangles too), and an object-space error, the larger of the
//! simplifier's (absolute) error and the merged clusters' own errors, so
//! errors never decrease towards the roots. Each cluster stores its own
//! bounds (the group that made it; for level 0 the cluster's bounding
//! sphere with error 0) and its parent's (the group it was merged into;
//! for a root, error [`ROOT_ERROR`], which no threshold reaches).
//!
//! **The cut** ([`lod_fits`], twin of `lod_fits` in
//! `wgsl/cluster_cull.wgsl`): with `k` the LOD factor of
//! [`crate::lod::lod_factor`] (pixels per world unit at unit distance over
//! the threshold) and `d` the distance from the cull camera to the
//! nearest point of a bounds' world sphere (0 inside), bounds *fit* when
//! `error · scale · k ≤ d`. A cluster is drawn iff its own bounds fit and
//! its parent's do not. A group's bounds are the same floats in its
//! children (as parent) and in the clusters it made (as own), evaluated
//! by one function, so exactly one of the two sides of every group is
//! drawn: no crack and no overlap. Because a parent's sphere contains its
//! children's and its error is at least theirs, fitting is monotonic up
//! the hierarchy, so the drawn clusters cover the mesh once.
//! [`select_cut`] is the CPU twin of the whole selection.
//!
//! **Memory.** The coarser levels' indices follow the mesh's in its
//! arena range (the mesh's `index_count` stays level 0's); the vertices
//! are shared. Simplifying to half per round makes the coarser levels
//! about as many indices as level 0 again: about 2× the indices and 2×
//! the clusters of the mesh alone, plus one [`crate::gpu_types::GpuClusterLod`]
//! (48 bytes) per cluster of the table.

use glam::{Mat4, Vec3, Vec4};

use super::clusters::{Cluster, ClusteredIndices, build_clusters};
use crate::gpu_types::GpuClusterLod;

/// Clusters per group the partitioner aims at.
pub const GROUP_SIZE: usize = 8;
/// A group's simplification (or a round's clusters) keeping more than
/// this fraction is not worth a level.
pub const LEAST_REDUCTION: f32 = 0.85;
/// The parent error of a root cluster: never fits.
pub const ROOT_ERROR: f32 = f32::MAX;

/// A group's bounds: an object-space sphere and the simplification error
/// within it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LodBounds {
    /// Sphere centre.
    pub center: Vec3,
    /// Sphere radius.
    pub radius: f32,
    /// Object-space error (largest distance the surface may have moved).
    pub error: f32,
}

/// A cluster's place in the hierarchy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClusterLod {
    /// The bounds of the group that made the cluster (level 0: the
    /// cluster's sphere, error 0).
    pub own: LodBounds,
    /// The bounds of the group it was merged into (a root: error
    /// [`ROOT_ERROR`]).
    pub parent: LodBounds,
    /// The round that made it (0: the mesh's own clusters).
    pub level: u32,
}

impl ClusterLod {
    /// The GPU twin.
    pub fn to_gpu(&self) -> GpuClusterLod {
        GpuClusterLod {
            own_sphere: self.own.center.extend(self.own.radius).to_array(),
            parent_sphere: self.parent.center.extend(self.parent.radius).to_array(),
            own_error: self.own.error,
            parent_error: self.parent.error,
            level: self.level,
            _pad: 0,
        }
    }
}

/// A mesh's clusters at every level, and their place in the hierarchy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterHierarchy {
    /// Every level's triangles in cluster order, level 0 first (exactly
    /// `build_clusters` of the mesh), and every cluster.
    pub clustered: ClusteredIndices,
    /// Per cluster of `clustered`, its bounds.
    pub lods: Vec<ClusterLod>,
    /// Clusters of level 0 (the first ones).
    pub level0_clusters: u32,
    /// Indices of level 0 (the first ones).
    pub level0_indices: u32,
    /// Rounds that simplified at least one group.
    pub levels: u32,
}

impl ClusterHierarchy {
    /// The most clusters any cut draws (see the module docs).
    pub fn max_cut_clusters(&self) -> u32 {
        self.level0_clusters
    }
}

/// Builds the hierarchy of `indices` over `positions` (see the module
/// docs). Indices must be in range; an empty list has no clusters.
pub fn build_hierarchy(positions: &[[f32; 3]], indices: &[u32]) -> ClusterHierarchy {
    let base = build_clusters(positions, indices);
    let mut out = ClusterHierarchy {
        level0_clusters: base.clusters.len() as u32,
        level0_indices: base.indices.len() as u32,
        lods: base
            .clusters
            .iter()
            .map(|c| {
                let own = LodBounds {
                    center: c.center,
                    radius: c.radius,
                    error: 0.0,
                };
                ClusterLod {
                    own,
                    parent: LodBounds {
                        error: ROOT_ERROR,
                        ..own
                    },
                    level: 0,
                }
            })
            .collect(),
        clustered: base,
        levels: 0,
    };
    if out.clustered.clusters.is_empty() {
        return out;
    }
    let bytes: &[u8] = bytemuck::cast_slice(positions);
    let adapter = meshopt::VertexDataAdapter::new(bytes, size_of::<[f32; 3]>(), 0)
        .expect("positions are whole [f32; 3] elements");
    let mut pending: Vec<usize> = (0..out.clustered.clusters.len()).collect();
    let mut round = 0;
    while pending.len() > 1 {
        round += 1;
        let groups = partition(&out.clustered, &pending, positions.len());
        let mut next = Vec::with_capacity(pending.len());
        let mut simplified_any = false;
        for group in groups {
            let made = if group.len() < 2 {
                None
            } else {
                simplify_group(&mut out, &group, &adapter, positions, round)
            };
            match made {
                Some(made) => {
                    simplified_any = true;
                    next.extend(made);
                }
                None => next.extend(group),
            }
        }
        if simplified_any {
            out.levels = round;
        }
        let shrunk = (next.len() as f32) <= LEAST_REDUCTION * pending.len() as f32;
        pending = next;
        if !simplified_any || !shrunk {
            break;
        }
    }
    out
}

/// The clusters `pending` grouped by `meshopt::partition_clusters`.
fn partition(
    clustered: &ClusteredIndices,
    pending: &[usize],
    vertex_count: usize,
) -> Vec<Vec<usize>> {
    let mut cluster_indices = Vec::new();
    let mut counts = Vec::with_capacity(pending.len());
    for &c in pending {
        let range = triangle_range(&clustered.clusters[c]);
        cluster_indices.extend_from_slice(&clustered.indices[range]);
        counts.push(3 * clustered.clusters[c].triangle_count);
    }
    let mut ids = vec![0u32; pending.len()];
    let groups = meshopt::partition_clusters(
        &mut ids,
        &cluster_indices,
        &counts,
        vertex_count,
        GROUP_SIZE,
    );
    let mut out = vec![Vec::new(); groups];
    for (&c, &g) in pending.iter().zip(&ids) {
        out[g as usize].push(c);
    }
    out.retain(|g| !g.is_empty());
    out
}

/// The index range of a cluster in its clustered list.
fn triangle_range(c: &Cluster) -> std::ops::Range<usize> {
    3 * c.first_triangle as usize..3 * (c.first_triangle + c.triangle_count) as usize
}

/// Simplifies one group and appends its new clusters (level `round`) to
/// `out`, setting the group's clusters' parent bounds; returns the new
/// clusters, or `None` (nothing changed) where it does not pay.
fn simplify_group(
    out: &mut ClusterHierarchy,
    group: &[usize],
    adapter: &meshopt::VertexDataAdapter<'_>,
    positions: &[[f32; 3]],
    round: u32,
) -> Option<std::ops::Range<usize>> {
    let merged: Vec<u32> = group
        .iter()
        .flat_map(|&c| {
            out.clustered.indices[triangle_range(&out.clustered.clusters[c])]
                .iter()
                .copied()
        })
        .collect();
    let target = (merged.len() / 6) * 3;
    let mut error = 0.0f32;
    let options = meshopt::SimplifyOptions::LockBorder
        | meshopt::SimplifyOptions::Sparse
        | meshopt::SimplifyOptions::ErrorAbsolute;
    let simplified = meshopt::simplify(
        &merged,
        adapter,
        target,
        f32::MAX,
        options,
        Some(&mut error),
    );
    if simplified.is_empty() || simplified.len() as f32 > LEAST_REDUCTION * merged.len() as f32 {
        return None;
    }
    let pieces = build_clusters(positions, &simplified);
    if pieces.clusters.len() >= group.len() {
        return None;
    }
    let children: Vec<LodBounds> = group.iter().map(|&c| out.lods[c].own).collect();
    let bounds = enclose(&children, error);
    for &c in group {
        out.lods[c].parent = bounds;
    }
    let first_triangle = (out.clustered.indices.len() / 3) as u32;
    let made = pieces.clusters.len();
    out.clustered.indices.extend_from_slice(&pieces.indices);
    for cluster in pieces.clusters {
        out.clustered.clusters.push(Cluster {
            first_triangle: first_triangle + cluster.first_triangle,
            ..cluster
        });
        out.lods.push(ClusterLod {
            own: bounds,
            parent: LodBounds {
                error: ROOT_ERROR,
                ..bounds
            },
            level: round,
        });
    }
    Some(out.lods.len() - made..out.lods.len())
}

/// Bounds containing every child's sphere, with an error of at least
/// `error` and of every child's.
fn enclose(children: &[LodBounds], error: f32) -> LodBounds {
    let (mut min, mut max) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for c in children {
        min = min.min(c.center - c.radius);
        max = max.max(c.center + c.radius);
    }
    let center = (min + max) * 0.5;
    let radius = children
        .iter()
        .map(|c| (c.center - center).length() + c.radius)
        .fold(0.0f32, f32::max);
    // A few ulps more, so containment survives the rounding of the check.
    let radius = radius * (1.0 + 4.0 * f32::EPSILON) + f32::MIN_POSITIVE;
    LodBounds {
        center,
        radius,
        error: children.iter().map(|c| c.error).fold(error, f32::max),
    }
}

/// Whether `bounds` of an instance with `world_from_object` (largest axis
/// scale `scale`) fit, seen from `origin` with LOD factor `k`:
/// `error · scale · k ≤ distance` to the nearest point of the world
/// sphere (0 inside). The twin of `lod_fits` in `wgsl/cluster_cull.wgsl`.
pub fn lod_fits(
    sphere: Vec4,
    error: f32,
    world_from_object: &Mat4,
    scale: f32,
    origin: Vec3,
    k: f32,
) -> bool {
    let center = world_from_object.transform_point3(sphere.truncate());
    let distance = ((center - origin).length() - sphere.w * scale).max(0.0);
    error * scale * k <= distance
}

/// Whether a cluster is in the cut (its own bounds fit, its parent's do
/// not); with LOD off (`k` `None`), whether it is of level 0.
pub fn in_cut(lod: &GpuClusterLod, world_from_object: &Mat4, origin: Vec3, k: Option<f32>) -> bool {
    let Some(k) = k else {
        return lod.level == 0;
    };
    let scale = max_axis_scale(world_from_object);
    lod_fits(
        Vec4::from(lod.own_sphere),
        lod.own_error,
        world_from_object,
        scale,
        origin,
        k,
    ) && !lod_fits(
        Vec4::from(lod.parent_sphere),
        lod.parent_error,
        world_from_object,
        scale,
        origin,
        k,
    )
}

/// The clusters (indices into `lods`) an instance draws: the CPU twin of
/// the GPU's cut (frustum, cone and occlusion aside).
pub fn select_cut(
    lods: &[GpuClusterLod],
    world_from_object: &Mat4,
    origin: Vec3,
    k: Option<f32>,
) -> Vec<usize> {
    (0..lods.len())
        .filter(|&c| in_cut(&lods[c], world_from_object, origin, k))
        .collect()
}

/// The largest axis scale of `world_from_object` (the world radius of a
/// unit object-space radius; the GPU's `Instance.scale`).
pub fn max_axis_scale(world_from_object: &Mat4) -> f32 {
    world_from_object
        .x_axis
        .truncate()
        .length()
        .max(world_from_object.y_axis.truncate().length())
        .max(world_from_object.z_axis.truncate().length())
}
