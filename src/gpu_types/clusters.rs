//! Twins of the cluster tables' WGSL structs (`wgsl/types.wgsl`): the
//! clusters of every mesh ([`crate::geometry::clusters`]) and their places
//! in a cluster-LOD hierarchy ([`crate::geometry::cluster_lod`]).

use bytemuck::{Pod, Zeroable};

/// One cluster of the cluster table (WGSL `Cluster`, 64 bytes): a piece
/// of a mesh's index range with its object-space bounding sphere and
/// normal cone ([`crate::geometry::clusters`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuCluster {
    /// Bounding sphere: centre xyz, radius w.
    pub bounding_sphere: [f32; 4],
    /// Normal cone apex.
    pub cone_apex: [f32; 3],
    /// Normal cone cutoff: back-facing from camera `c` when
    /// `dot(normalize(apex - c), axis) >= cutoff`; 2 without a cone.
    pub cone_cutoff: f32,
    /// Normal cone axis (unit; zero without a cone).
    pub cone_axis: [f32; 3],
    /// First index in the arena's index buffer.
    pub first_index: u32,
    /// Indices (3 per triangle).
    pub index_count: u32,
    /// Explicit padding.
    pub _pad: [u32; 3],
}

/// A cluster's place in its mesh's cluster-LOD hierarchy (WGSL
/// `ClusterLod`, 48 bytes; [`crate::geometry::cluster_lod`]): entry `i`
/// of the cluster-LOD table belongs to entry `i` of the cluster table.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuClusterLod {
    /// The sphere of the group that made the cluster: centre xyz,
    /// radius w (object space).
    pub own_sphere: [f32; 4],
    /// The sphere of the group it was merged into.
    pub parent_sphere: [f32; 4],
    /// The error of the group that made it (0 at level 0).
    pub own_error: f32,
    /// The error of the group it was merged into (`f32::MAX` for a root).
    pub parent_error: f32,
    /// The round that made it (0: the mesh's own clusters).
    pub level: u32,
    /// Explicit padding.
    pub _pad: u32,
}
