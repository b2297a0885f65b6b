//! Clusters (issue 28, stages 1 to 3): every mesh, and every simplified
//! level of it, split at `GeometryArena::add` (`src/geometry/arena.rs`) into pieces of at
//! most [`CLUSTER_MAX_TRIANGLES`] triangles and [`CLUSTER_MAX_VERTICES`]
//! vertices, which the camera's cull can drop one by one.
//!
//! **Building.** `meshopt::build_meshlets` (cone weight
//! [`CLUSTER_CONE_WEIGHT`]) groups neighbouring triangles; 64 vertices /
//! 124 triangles are meshoptimizer's recommended sizes (124 × 3 index
//! bytes stay 4-byte aligned, and a well-shared mesh fills 124 triangles
//! before 64 vertices). Smaller clusters cull more finely but cost more
//! draws and more tests; about a hundred triangles keeps a cluster's draw
//! well above the per-draw cost of an indirect multi-draw. Per cluster
//! `meshopt::compute_meshlet_bounds` gives a bounding sphere and a normal
//! cone (apex, axis, cutoff: the cluster is entirely back-facing from any
//! camera position `c` with `dot(normalize(apex - c), axis) >= cutoff`).
//! A cluster whose normals span more than a hemisphere has no cone:
//! stored with a cutoff of [`NO_CONE_CUTOFF`], which no dot product
//! reaches ([`Cluster::has_cone`]).
//!
//! **Indices in cluster order.** The mesh's index range in the arena is
//! rewritten so that each cluster's triangles are contiguous (each
//! triangle keeps its corners in order, so its winding): the arena stays
//! one index buffer, a cluster is a plain `(first_index, index_count)`
//! range of it, and the whole-mesh draw of the instance path reads the
//! same triangles in cluster order. Both paths therefore draw from the
//! same index data; an image can differ from one drawn in the file's
//! order only where two triangles of one mesh make fragments of exactly
//! equal depth (or overlap in a blended mesh: there the order of a mesh's
//! triangles is the order they blend in, which the file never promised).
//!
//! **The GPU table.** One [`GpuCluster`] (WGSL `Cluster`, 64 bytes) per
//! cluster in the arena's cluster table, object-space; a mesh-table
//! entry ([`crate::gpu_types::GpuMesh`]) points at its clusters
//! (`first_cluster`, `cluster_count`); a mesh's levels take the clusters
//! after the mesh's own, in one range of the table, allocated and freed
//! with the mesh. Memory per mesh: 64 bytes per cluster, so for a
//! well-shared mesh about 0.52 bytes per triangle (64 / 124) against its
//! 12 bytes of indices, and 64 bytes for a 12-triangle cube (one
//! cluster); no extra index memory. The table's capacity follows
//! [`crate::Capacities::indices`] and `meshes`
//! ([`cluster_capacity`]: meshoptimizer's bound on the clusters of any
//! index list, so every mesh that fits the index buffer fits the table);
//! `Capacities::buffers` lists it, so the device check covers it.
//!
//! **Culling** (`src/passes/cluster_cull.rs`, `wgsl/cluster_cull.wgsl`)
//! reads the table; [`Cluster::cone_culls`] and
//! [`Cluster::sphere_in_frustum`] are the CPU twins of its tests, and
//! [`triangle_verdict`] the twin of the triangle filter's
//! (`src/passes/triangle_filter.rs`).

use glam::{Mat4, Vec3, Vec4};

use crate::gpu_types::GpuCluster;

/// Most vertices one cluster references.
pub const CLUSTER_MAX_VERTICES: usize = 64;
/// Most triangles in one cluster.
pub const CLUSTER_MAX_TRIANGLES: usize = 124;
/// meshoptimizer's balance between full clusters (0) and tight normal
/// cones (1): its recommended 0.25.
pub const CLUSTER_CONE_WEIGHT: f32 = 0.25;
/// The cutoff of a cluster without a usable normal cone: above any dot
/// product of unit vectors, so the cone test never culls it.
pub const NO_CONE_CUTOFF: f32 = 2.0;

/// Clusters the table needs at most for `indices` indices over `meshes`
/// mesh slots: meshoptimizer's bound (`meshopt_buildMeshletsBound`) of
/// one index list, `ceil(indices / (CLUSTER_MAX_VERTICES - 2))`, summed
/// over lists (one per slot, each rounding up once). A list holds at
/// least one triangle, so at most `indices / 3` lists round up: the bound
/// grows with `indices` alone once the slots outnumber them, which lets
/// [`crate::Capacities::clamped_to`] find the most indices a device holds
/// whatever the mesh capacity.
pub fn cluster_capacity(indices: u32, meshes: u32) -> u32 {
    let per_vertices = (CLUSTER_MAX_VERTICES - 2) as u32;
    (indices / per_vertices).saturating_add(meshes.min(indices / 3))
}

/// One cluster of a mesh's index list, object-space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cluster {
    /// Bounding sphere centre.
    pub center: Vec3,
    /// Bounding sphere radius (encloses every vertex of the cluster).
    pub radius: f32,
    /// Normal cone apex.
    pub cone_apex: Vec3,
    /// Normal cone axis (unit, or zero without a cone).
    pub cone_axis: Vec3,
    /// Normal cone cutoff; [`NO_CONE_CUTOFF`] without a cone.
    pub cone_cutoff: f32,
    /// First triangle in the clustered index list.
    pub first_triangle: u32,
    /// Triangles in the cluster.
    pub triangle_count: u32,
}

impl Cluster {
    /// Whether the cluster has a normal cone the cull can use.
    pub fn has_cone(&self) -> bool {
        self.cone_cutoff < 1.0
    }

    /// Whether every triangle of the cluster faces away from a camera at
    /// object-space `camera` (the GPU's test, `wgsl/cluster_cull.wgsl`).
    pub fn cone_culls(&self, camera: Vec3) -> bool {
        let to_apex = (self.cone_apex - camera).normalize_or_zero();
        to_apex.dot(self.cone_axis) >= self.cone_cutoff
    }

    /// The bounding sphere in world space under `world_from_object`: the
    /// centre transformed, the radius scaled by the largest axis scale
    /// (the GPU's `world_sphere`).
    pub fn world_sphere(&self, world_from_object: &Mat4) -> Vec4 {
        let center = world_from_object.transform_point3(self.center);
        let scale = world_from_object
            .x_axis
            .truncate()
            .length()
            .max(world_from_object.y_axis.truncate().length())
            .max(world_from_object.z_axis.truncate().length());
        center.extend(self.radius * scale)
    }

    /// Whether a world sphere is at least partly inside every plane
    /// (`wgsl/frustum.wgsl`'s test).
    pub fn sphere_in_frustum(sphere: Vec4, planes: &[Vec4; 6]) -> bool {
        planes
            .iter()
            .all(|p| p.truncate().dot(sphere.truncate()) + p.w >= -sphere.w)
    }

    /// The GPU twin, with the cluster's indices starting at `first_index`
    /// of the arena for its list.
    pub fn to_gpu(&self, list_first_index: u32) -> GpuCluster {
        GpuCluster {
            bounding_sphere: self.center.extend(self.radius).to_array(),
            cone_apex: self.cone_apex.to_array(),
            cone_cutoff: self.cone_cutoff,
            cone_axis: self.cone_axis.to_array(),
            first_index: list_first_index + 3 * self.first_triangle,
            index_count: 3 * self.triangle_count,
            _pad: [0; 3],
        }
    }
}

/// How far the rasteriser may place a triangle's corner from where the
/// triangle filter computes it, in pixels per axis: the 1/16-pixel grid
/// of the fewest sub-pixel bits Vulkan allows (`src/passes/triangle_filter.rs`).
pub const TRIANGLE_SNAP_PIXELS: f32 = 0.0625;

/// The triangle filter's verdict on one triangle
/// (`wgsl/triangle_filter.wgsl`'s `VERDICT_*`, `src/passes/triangle_filter.rs`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TriangleVerdict {
    /// Drawn.
    Kept = 0,
    /// Wholly beyond one clip plane.
    Outside = 1,
    /// Clockwise on screen (opaque bucket), beyond snapping's reach.
    BackFacing = 2,
    /// No pixel centre in its screen box (one sample per pixel).
    NoPixel = 3,
}

/// The CPU twin of the triangle filter's tests on a triangle of clip
/// positions `a`, `b`, `c` in a target of `viewport` pixels: outside the
/// frustum (any `w`), then with every `w > 0` back-facing where
/// `cull_back` and covering no pixel centre where `pixel_test`; the
/// slack is [`TRIANGLE_SNAP_PIXELS`] per corner
/// and axis, plus rounding.
pub fn triangle_verdict(
    [a, b, c]: [Vec4; 3],
    viewport: glam::Vec2,
    cull_back: bool,
    pixel_test: bool,
) -> TriangleVerdict {
    use glam::{BVec2, Vec2};
    let beyond = |f: &dyn Fn(Vec4) -> f32, limit: &dyn Fn(Vec4) -> f32| {
        [a, b, c].iter().all(|&p| f(p) > limit(p))
    };
    let w = |p: Vec4| p.w;
    let outside = beyond(&|p| p.x, &w)
        || beyond(&|p| -p.x, &w)
        || beyond(&|p| p.y, &w)
        || beyond(&|p| -p.y, &w)
        || beyond(&|p| p.z, &w)
        || beyond(&|p| -p.z, &|_| 0.0);
    if outside {
        return TriangleVerdict::Outside;
    }
    if a.w.min(b.w).min(c.w) <= 0.0 {
        return TriangleVerdict::Kept;
    }
    let half = viewport * 0.5;
    let pixels = |p: Vec4| Vec2::new(p.x / p.w + 1.0, 1.0 - p.y / p.w) * half;
    let (pa, pb, pc) = (pixels(a), pixels(b), pixels(c));
    let extent = pa.abs().max(pb.abs()).max(pc.abs().max(viewport));
    let snap = TRIANGLE_SNAP_PIXELS + 1e-5 * extent.max_element();
    let (e1, e2) = (pb - pa, pc - pa);
    // Twice the signed area, y down: counter-clockwise (front) negative.
    let area = e1.x * e2.y - e1.y * e2.x;
    let slack = 2.9 * snap * (e1.length() + e2.length()) + 8.0 * snap * snap;
    if cull_back && area > slack {
        return TriangleVerdict::BackFacing;
    }
    if pixel_test {
        let low = pa.min(pb).min(pc) - snap;
        let high = pa.max(pb).max(pc) + snap;
        let none: BVec2 = (high - 0.5).floor().cmplt((low - 0.5).ceil());
        if none.any() {
            return TriangleVerdict::NoPixel;
        }
    }
    TriangleVerdict::Kept
}

/// An index list rewritten in cluster order, and its clusters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusteredIndices {
    /// The same triangles (each with its corners in order), cluster by
    /// cluster.
    pub indices: Vec<u32>,
    /// The clusters, in `indices` order, covering it exactly.
    pub clusters: Vec<Cluster>,
}

impl ClusteredIndices {
    /// The widest cluster's vertex span: over clusters, its highest vertex
    /// index less its lowest (0 without clusters). The triangle filter
    /// packs a cluster's indices relative to its lowest vertex, so a span
    /// this wide decides whether they fit (`src/passes/triangle_filter.rs`).
    pub fn widest_vertex_span(&self) -> u32 {
        self.clusters
            .iter()
            .filter_map(|c| {
                let first = 3 * c.first_triangle as usize;
                let corners = self
                    .indices
                    .get(first..first + 3 * c.triangle_count as usize)?;
                let low = corners.iter().min()?;
                let high = corners.iter().max()?;
                Some(high - low)
            })
            .max()
            .unwrap_or(0)
    }
}

/// Splits the triangle list `indices` over `positions` into clusters
/// (see the module docs). The indices must be in range (checked by
/// [`crate::MeshData::validate`]); an empty list has no clusters.
pub fn build_clusters(positions: &[[f32; 3]], indices: &[u32]) -> ClusteredIndices {
    if indices.is_empty() || positions.is_empty() {
        return ClusteredIndices::default();
    }
    let bytes: &[u8] = bytemuck::cast_slice(positions);
    let adapter = meshopt::VertexDataAdapter::new(bytes, size_of::<[f32; 3]>(), 0)
        .expect("positions are whole [f32; 3] elements");
    let meshlets = meshopt::build_meshlets(
        indices,
        &adapter,
        CLUSTER_MAX_VERTICES,
        CLUSTER_MAX_TRIANGLES,
        CLUSTER_CONE_WEIGHT,
    );
    let mut out = ClusteredIndices {
        indices: Vec::with_capacity(indices.len()),
        clusters: Vec::with_capacity(meshlets.len()),
    };
    for meshlet in meshlets.iter() {
        let first_triangle = (out.indices.len() / 3) as u32;
        out.indices.extend(
            meshlet
                .triangles
                .iter()
                .map(|&local| meshlet.vertices[usize::from(local)]),
        );
        let bounds = meshopt::compute_meshlet_bounds(meshlet, &adapter);
        let axis = Vec3::from(bounds.cone_axis);
        // meshopt marks a cone wider than a hemisphere with cutoff 1 (and
        // an all-degenerate cluster with a zero axis): no cone either way.
        let usable = bounds.cone_cutoff < 1.0 && axis.length_squared() > 0.5;
        out.clusters.push(Cluster {
            center: Vec3::from(bounds.center),
            radius: bounds.radius,
            cone_apex: Vec3::from(bounds.cone_apex),
            cone_axis: if usable { axis } else { Vec3::ZERO },
            cone_cutoff: if usable {
                bounds.cone_cutoff
            } else {
                NO_CONE_CUTOFF
            },
            first_triangle,
            triangle_count: (meshlet.triangles.len() / 3) as u32,
        });
    }
    out
}
