//! The geometry arena: one vertex storage buffer and one index buffer for
//! every mesh, read by shaders through indices (vertex pulling).
//!
//! Meshes are sub-allocated ranges of both buffers; freed ranges are reused
//! (first fit, coalesced); the buffers grow by reallocation plus a GPU copy.
//! Indices are stored already offset by the mesh's first vertex, so every
//! draw uses base vertex 0: on DX12, wgpu passes neither base vertex nor first
//! instance to shaders under multi-draw-indirect-count (wgpu issue 7974).
//!
//! Files: `mesh.rs` (the mesh data and its checks), `vertex.rs` (the
//! packed vertex format, computed normals), `tangents.rs` (MikkTSpace
//! tangents for meshes without them, and the vertex splitting they need),
//! `arena.rs` (the buffers, ranges and mesh table), `clusters.rs` (each
//! mesh split into clusters with bounds and normal cones, the cluster
//! table's contents), `cluster_lod.rs` (the cluster-LOD hierarchy of a
//! mesh added with `MeshOptions::cluster_lod`, and the CPU twin of its
//! per-frame cut).

mod arena;
pub mod cluster_lod;
pub mod clusters;
mod mesh;
mod tangents;
mod vertex;

pub use arena::GeometryArena;
pub(crate) use arena::{PackingBounds, index_buffer_size_bytes, vertex_buffer_size_bytes};
pub use mesh::{GeometryError, MeshBounds, MeshData};
pub use tangents::{GeneratedTangents, fallback_tangent};
pub use vertex::{PackedMesh, encode_octahedral, pack_4x8_snorm, pack_4x8_unorm};
