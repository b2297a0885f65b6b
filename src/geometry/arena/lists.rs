//! The arena's cluster lists: a mesh's (and its levels') index lists split
//! into clusters, or its cluster-LOD hierarchy
//! ([`crate::geometry::cluster_lod`]), placed in the index buffer and the
//! cluster tables.

use super::super::PackedMesh;
use super::super::cluster_lod::{self, ClusterLod};
use super::super::clusters::{self, ClusteredIndices};
use super::GeometryArena;
use crate::geometry::GeometryError;
use crate::gpu_types::GpuClusterLod;
use crate::lod::{self, MeshOptions};

/// [`GeometryArena::packing_bounds`]: bounds on what one frame's cluster
/// draws hold, from the live objects alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PackingBounds {
    /// Indices of the cluster draws, at most.
    pub indices: u64,
    /// Cluster draws whose vertices span too far to pack, at most.
    pub wide_clusters: u64,
}

/// A mesh's clustered index lists, ready to place.
pub(super) struct MeshLists {
    /// The mesh's list (with a hierarchy: every level's), then its
    /// per-instance levels'.
    pub lists: Vec<ClusteredIndices>,
    /// Per cluster of the first list, its hierarchy entry (empty without
    /// cluster LOD).
    pub lods: Vec<ClusterLod>,
    /// With cluster LOD, the most clusters a cut draws.
    pub max_cut: Option<u32>,
    /// Indices of the first list.
    pub own_indices: usize,
    /// Indices of every list.
    pub total_indices: usize,
    /// Its per-instance levels ([`MeshOptions::lod_levels`]).
    pub levels: Vec<lod::LodLevel>,
}

impl MeshLists {
    /// Over its lists' clusters, the widest vertex span.
    pub fn widest_vertex_span(&self) -> u32 {
        self.lists
            .iter()
            .map(ClusteredIndices::widest_vertex_span)
            .max()
            .unwrap_or(0)
    }
}

impl GeometryArena {
    /// What the triangle filter's packing can meet this frame, over live
    /// objects: at most how many indices the camera's cluster draws hold,
    /// and at most how many of them are clusters whose vertex span is
    /// `span_limit` or more (a scan of the mesh records; tiers without
    /// indirect count size their pass-through draws from it:
    /// `src/passes/triangle_filter.rs`).
    pub(crate) fn packing_bounds(&self, span_limit: u32) -> PackingBounds {
        let mut bounds = PackingBounds::default();
        for record in self.records.iter().flatten() {
            let objects = u64::from(record.objects);
            bounds.indices += objects * u64::from(record.total_indices);
            if record.widest_vertex_span >= span_limit {
                bounds.wide_clusters += objects * u64::from(record.max_clusters);
            }
        }
        bounds
    }

    /// The mesh's lists (with [`MeshOptions::cluster_lod`], its hierarchy
    /// first; with [`MeshOptions::lod_levels`], its simplified levels'
    /// after it: [`lod::generate_levels`]), or `ArenaFull` if the index buffer (`index_room` indices
    /// left) or the cluster table cannot hold them.
    pub(super) fn mesh_lists(
        &self,
        packed: &PackedMesh<'_>,
        options: &MeshOptions,
        index_room: u32,
    ) -> Result<MeshLists, GeometryError> {
        let positions: Vec<[f32; 3]> = packed.vertices.iter().map(|v| v.position).collect();
        let levels = if options.lod_levels > 0 {
            lod::generate_levels(&positions, &packed.indices, options.lod_levels)
        } else {
            Vec::new()
        };
        let hierarchy = options
            .cluster_lod
            .then(|| cluster_lod::build_hierarchy(&positions, &packed.indices));
        let own_indices = hierarchy
            .as_ref()
            .map_or(packed.indices.len(), |h| h.clustered.indices.len());
        let total = own_indices + levels.iter().map(|l| l.indices.len()).sum::<usize>();
        if total > index_room as usize {
            return Err(GeometryError::ArenaFull {
                what: "indices",
                requested: total,
                available: index_room,
            });
        }
        let (first_list, lods, max_cut) = match hierarchy {
            Some(h) => {
                let max_cut = h.max_cut_clusters();
                (Some(h.clustered), h.lods, Some(max_cut))
            }
            None => (None, Vec::new(), None),
        };
        Ok(MeshLists {
            lists: self.cluster_lists(packed, &levels, first_list)?,
            lods,
            max_cut,
            own_indices,
            total_indices: total,
            levels,
        })
    }

    /// The mesh's (`first` where already built: a cluster-LOD hierarchy)
    /// and its levels' index lists split into clusters, or `ArenaFull` if
    /// the cluster table cannot hold them.
    pub(super) fn cluster_lists(
        &self,
        packed: &PackedMesh<'_>,
        levels: &[lod::LodLevel],
        first: Option<ClusteredIndices>,
    ) -> Result<Vec<ClusteredIndices>, GeometryError> {
        let positions: Vec<[f32; 3]> = packed.vertices.iter().map(|v| v.position).collect();
        let first = first.unwrap_or_else(|| clusters::build_clusters(&positions, &packed.indices));
        let lists: Vec<ClusteredIndices> = std::iter::once(first)
            .chain(
                levels
                    .iter()
                    .map(|l| clusters::build_clusters(&positions, &l.indices)),
            )
            .collect();
        let requested: usize = lists.iter().map(|l| l.clusters.len()).sum();
        let available = self.cluster_ranges.available();
        if requested > available as usize {
            return Err(GeometryError::ArenaFull {
                what: "clusters",
                requested,
                available,
            });
        }
        Ok(lists)
    }

    /// The index lists in cluster order, offset by the first vertex, in
    /// one run from `first_index`; their clusters written to the table
    /// from `first_cluster`. Returns the indices and each list's (first
    /// cluster, cluster count).
    pub(super) fn place_lists(
        &mut self,
        lists: &[ClusteredIndices],
        first_index: u32,
        first_vertex: u32,
        first_cluster: u32,
    ) -> (Vec<u32>, Vec<(u32, u32)>) {
        let total = lists.iter().map(|l| l.indices.len()).sum();
        let mut indices: Vec<u32> = Vec::with_capacity(total);
        let mut list_clusters = Vec::with_capacity(lists.len());
        let mut next_cluster = first_cluster;
        for list in lists {
            let list_first_index = first_index + indices.len() as u32;
            list_clusters.push((next_cluster, list.clusters.len() as u32));
            for cluster in &list.clusters {
                self.clusters
                    .set(next_cluster, cluster.to_gpu(list_first_index));
                next_cluster += 1;
            }
            indices.extend(list.indices.iter().map(|i| i + first_vertex));
        }
        (indices, list_clusters)
    }

    /// A cluster-LOD mesh's hierarchy entries, from `first_cluster` (its
    /// clusters' first entry).
    pub(super) fn place_lods(&mut self, lods: &[ClusterLod], first_cluster: u32) {
        for (i, lod) in lods.iter().enumerate() {
            self.cluster_lods
                .set(first_cluster + i as u32, lod.to_gpu());
        }
    }

    /// Clusters (every level's) of the largest live cluster-LOD mesh; 0
    /// without one. A scan of the mesh records.
    pub fn largest_cluster_lod_mesh(&self) -> u32 {
        self.records
            .iter()
            .flatten()
            .filter(|r| r.cluster_lod)
            .map(|r| r.clusters.len() as u32)
            .max()
            .unwrap_or(0)
    }

    /// The cluster-LOD table buffer (parallel to the cluster table).
    pub fn cluster_lod_buffer(&self) -> &wgpu::Buffer {
        self.cluster_lods.buffer()
    }

    /// The cluster-LOD table's entry `index` (meaningful for the clusters
    /// of a mesh with [`crate::gpu_types::GpuMesh::cluster_lod`]).
    pub fn cluster_lod(&self, index: u32) -> Option<&GpuClusterLod> {
        self.cluster_lods.get(index)
    }
}
