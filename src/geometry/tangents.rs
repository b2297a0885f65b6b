//! Tangents for meshes that come without them: MikkTSpace, the algorithm
//! of the reference implementation that Blender and the common normal-map
//! bakers use (through the `bevy_mikktspace` crate, with its fixes of the
//! reference's two known bugs), from the positions, the normals and the UV
//! set named by [`MeshData::tangent_uv_set`] (glTF: the normal texture's
//! `texCoord`).
//!
//! MikkTSpace gives one tangent per triangle corner. Corners that share a
//! vertex and get the same tangent keep sharing it; a vertex whose corners
//! disagree (a mirrored UV seam, a hard UV edge) is split into one copy per
//! distinct tangent. The index count stays; the vertex count grows only
//! there ([`GeneratedTangents::split_from`]).
//!
//! The fallback tangent, for a mesh without that UV set (or that asks for
//! none: `tangent_uv_set: None`), a vertex no
//! triangle uses, or a corner MikkTSpace leaves without one (a degenerate
//! triangle with no usable neighbour), is [`fallback_tangent`]: a unit
//! vector perpendicular to the normal, handedness +1.

use bevy_mikktspace::{Geometry, TangentSpace};
use glam::{Vec3, Vec4};

use super::MeshData;

/// A mesh's MikkTSpace tangents, its vertices split where the triangle
/// corners sharing a vertex disagree.
///
/// Output vertex `i` for `i` below the input's vertex count is input vertex
/// `i`; output vertex `n + k` (`n` input vertices) is a copy of input vertex
/// `split_from[k]` ([`GeneratedTangents::sources`] lists them all).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeneratedTangents {
    /// One tangent per output vertex: xyz a unit vector perpendicular to the
    /// vertex's normal, w the handedness (±1, glTF's convention: bitangent
    /// `= cross(normal, tangent.xyz) * w`).
    pub tangents: Vec<[f32; 4]>,
    /// The input vertex each added vertex copies.
    pub split_from: Vec<u32>,
    /// The triangle list over the output vertices (as many indices as the
    /// input has).
    pub indices: Vec<u32>,
}

impl GeneratedTangents {
    /// Vertices of the input: output vertices below this count are them.
    pub fn input_vertex_count(&self) -> usize {
        self.tangents.len().saturating_sub(self.split_from.len())
    }

    /// The input vertex each output vertex copies, in order.
    pub fn sources(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.input_vertex_count()).chain(self.split_from.iter().map(|&s| s as usize))
    }

    /// A per-vertex attribute of the input extended to the output vertices;
    /// `None` unless `values` has one value per input vertex (and every
    /// [`split_from`](Self::split_from) names one).
    pub fn gather<T: Copy>(&self, values: &[T]) -> Option<Vec<T>> {
        if values.len() != self.input_vertex_count() {
            return None;
        }
        self.sources()
            .map(|source| values.get(source).copied())
            .collect()
    }
}

/// The tangent of a vertex without a MikkTSpace one: glam's
/// `Vec3::any_orthonormal_vector` of the normal (the first vector of the
/// orthonormal basis of Duff et al., "Building an Orthonormal Basis,
/// Revisited", 2017), handedness +1.
pub fn fallback_tangent(normal: Vec3) -> [f32; 4] {
    normal.any_orthonormal_vector().extend(1.0).to_array()
}

/// The mesh's triangle corners as MikkTSpace reads them, and the tangent it
/// writes for each.
struct Corners<'a> {
    positions: &'a [[f32; 3]],
    normals: &'a [Vec3],
    uvs: &'a [[f32; 2]],
    indices: &'a [u32],
    tangents: Vec<Option<[f32; 4]>>,
}

impl Corners<'_> {
    fn vertex(&self, face: usize, corner: usize) -> usize {
        self.indices[face * 3 + corner] as usize
    }
}

impl Geometry for Corners<'_> {
    fn num_faces(&self) -> usize {
        self.indices.len() / 3
    }

    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }

    fn position(&self, face: usize, corner: usize) -> [f32; 3] {
        self.positions[self.vertex(face, corner)]
    }

    fn normal(&self, face: usize, corner: usize) -> [f32; 3] {
        self.normals[self.vertex(face, corner)].to_array()
    }

    fn tex_coord(&self, face: usize, corner: usize) -> [f32; 2] {
        // MikkTSpace's v grows up the image, glTF's down: the bitangent
        // must point up the image (a normal map's +Y), as in the tools
        // that bake normal maps (Blender feeds it v up).
        let [u, v] = self.uvs[self.vertex(face, corner)];
        [u, 1.0 - v]
    }

    fn set_tangent(&mut self, tangent: Option<TangentSpace>, face: usize, corner: usize) {
        self.tangents[face * 3 + corner] = tangent.map(|t| t.tangent_encoded());
    }
}

/// A usable tangent: finite, unit length (within MikkTSpace's rounding),
/// handedness ±1; else `None`.
fn usable(tangent: [f32; 4]) -> Option<[f32; 4]> {
    let t = Vec4::from(tangent);
    let unit = (t.truncate().length() - 1.0).abs() < 1e-3;
    (t.is_finite() && unit && t.w.abs() == 1.0).then_some(tangent)
}

/// MikkTSpace tangents of `mesh` (already validated) with unit `normals`,
/// or `None` when [`MeshData::tangent_uv_set`] is `None` or names a UV set
/// the mesh lacks.
pub(super) fn generate(mesh: &MeshData<'_>, normals: &[Vec3]) -> Option<GeneratedTangents> {
    let uvs = mesh.uv_set(mesh.tangent_uv_set?)?;
    let mut corners = Corners {
        positions: mesh.positions,
        normals,
        uvs,
        indices: mesh.indices,
        tangents: vec![None; mesh.indices.len()],
    };
    // The crate's error type has no variants yet (it reserves them): should
    // one appear, every vertex gets the fallback tangent.
    if bevy_mikktspace::generate_tangents(&mut corners).is_err() {
        corners.tangents.fill(None);
    }
    Some(split(mesh.indices, normals, &corners.tangents))
}

/// One vertex per distinct (input vertex, corner tangent): see the module
/// docs.
fn split(
    indices: &[u32],
    normals: &[Vec3],
    corner_tangents: &[Option<[f32; 4]>],
) -> GeneratedTangents {
    let input_count = normals.len();
    let mut first: Vec<Option<[f32; 4]>> = vec![None; input_count];
    let mut copies: std::collections::HashMap<(u32, [u32; 4]), u32> = Default::default();
    let mut out = GeneratedTangents {
        tangents: Vec::new(),
        split_from: Vec::new(),
        indices: Vec::with_capacity(indices.len()),
    };
    let mut added: Vec<[f32; 4]> = Vec::new();
    for (&vertex, tangent) in indices.iter().zip(corner_tangents) {
        let v = vertex as usize;
        let tangent = tangent
            .and_then(usable)
            .unwrap_or_else(|| fallback_tangent(normals[v]));
        let index = match first[v] {
            None => {
                first[v] = Some(tangent);
                vertex
            }
            Some(existing) if existing == tangent => vertex,
            Some(_) => *copies
                .entry((vertex, tangent.map(f32::to_bits)))
                .or_insert_with(|| {
                    out.split_from.push(vertex);
                    added.push(tangent);
                    (input_count + added.len() - 1) as u32
                }),
        };
        out.indices.push(index);
    }
    out.tangents = first
        .iter()
        .zip(normals)
        .map(|(tangent, &normal)| tangent.unwrap_or_else(|| fallback_tangent(normal)))
        .chain(added)
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use glam::{Vec3, Vec4};

    use super::super::{GeometryError, MeshData};
    use crate::shapes;

    /// Every tangent unit, perpendicular to its vertex's normal, handedness
    /// ±1.
    fn assert_well_formed(mesh: &MeshData<'_>) {
        let generated = mesh
            .generated_tangents()
            .unwrap()
            .expect("the mesh has UVs");
        let normals = mesh.vertex_normals();
        assert_eq!(generated.indices.len(), mesh.indices.len());
        for ((i, t), source) in generated
            .tangents
            .iter()
            .enumerate()
            .zip(generated.sources())
        {
            let t = Vec4::from(*t);
            let n = normals[source];
            assert!(t.is_finite(), "vertex {i}: {t}");
            assert!(
                (t.truncate().length() - 1.0).abs() < 1e-3,
                "vertex {i}: {t}"
            );
            assert!(
                t.truncate().dot(n).abs() < 1e-3,
                "vertex {i}: {t} against {n}"
            );
            assert_eq!(t.w.abs(), 1.0, "vertex {i}: {t}");
        }
    }

    #[test]
    fn a_quad_gets_u_as_tangent_and_its_bitangent_points_up_the_image() {
        let quad = shapes::quad();
        let generated = quad.as_mesh_data().generated_tangents().unwrap().unwrap();
        // glTF's v grows down the image: on this quad up the image is +Y, so
        // bitangent = cross(+Z, +X) * w = +Y needs w = +1.
        for t in &generated.tangents {
            assert!(
                Vec4::from(*t).distance(Vec4::new(1.0, 0.0, 0.0, 1.0)) < 1e-6,
                "{t:?}"
            );
        }
        assert!(generated.split_from.is_empty());
        assert_eq!(generated.indices, quad.indices);
    }

    #[test]
    fn mirrored_uvs_split_the_shared_vertices_and_flip_the_handedness() {
        // Two quads side by side sharing the edge x = 0; the right one's
        // UVs mirror the left one's (u runs back from the seam).
        let positions = [
            [-1.0, -1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 1.0, 0.0],
            [-1.0, 1.0, 0.0],
            [1.0, -1.0, 0.0],
            [1.0, 1.0, 0.0],
        ];
        let uvs = [
            [0.0, 1.0],
            [1.0, 1.0],
            [1.0, 0.0],
            [0.0, 0.0],
            [0.0, 1.0],
            [0.0, 0.0],
        ];
        let normals = [[0.0, 0.0, 1.0]; 6];
        let indices = [0, 1, 2, 0, 2, 3, 1, 4, 5, 1, 5, 2];
        let mesh = MeshData {
            positions: &positions,
            normals: Some(&normals),
            uv0: Some(&uvs),
            indices: &indices,
            ..Default::default()
        };
        assert_well_formed(&mesh);
        let generated = mesh.generated_tangents().unwrap().unwrap();
        // The seam's two vertices (1 and 2) each get a copy.
        let mut split = generated.split_from.clone();
        split.sort_unstable();
        assert_eq!(split, [1, 2]);
        assert_eq!(generated.tangents.len(), 8);
        for (corner, &vertex) in generated.indices.iter().enumerate() {
            let t = Vec4::from(generated.tangents[vertex as usize]);
            let want = if corner < 6 {
                Vec4::new(1.0, 0.0, 0.0, 1.0)
            } else {
                Vec4::new(-1.0, 0.0, 0.0, -1.0)
            };
            assert!(t.distance(want) < 1e-6, "corner {corner}: {t}");
        }
        let positions_out = generated.gather(&positions).unwrap();
        for (p, source) in positions_out.iter().zip(generated.sources()) {
            assert_eq!(*p, positions[source]);
        }
        // One value per input vertex, or nothing.
        assert_eq!(generated.gather(&positions[..5]), None);
    }

    #[test]
    fn degenerate_uvs_and_huge_coordinates_give_finite_tangents() {
        let sphere = shapes::sphere(12, 6);
        // Every UV the same: no triangle has a UV area.
        let flat_uvs = vec![[0.25, 0.75]; sphere.positions.len()];
        assert_well_formed(&MeshData {
            uv0: Some(&flat_uvs),
            ..sphere.as_mesh_data()
        });
        // Collinear UVs, zero-area triangles and repeated vertices.
        let positions = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0; 3]];
        let uvs = [[0.0, 0.0], [0.5, 0.5], [1.0, 1.0], [0.0, 0.0]];
        assert_well_formed(&MeshData {
            positions: &positions,
            uv0: Some(&uvs),
            indices: &[0, 1, 2, 0, 0, 0, 3, 1, 2, 2, 1, 0],
            ..Default::default()
        });
        // A lone triangle with no area: MikkTSpace gives it no tangent.
        let point = [[2.0, 3.0, 4.0]; 3];
        let mesh = MeshData {
            positions: &point,
            uv0: Some(&uvs[..3]),
            indices: &[0, 1, 2],
            ..Default::default()
        };
        assert_well_formed(&mesh);
        let fallback = super::fallback_tangent(Vec3::Z);
        assert_eq!(
            mesh.generated_tangents().unwrap().unwrap().tangents,
            [fallback; 3]
        );
        // Coordinates whose differences overflow f32.
        let huge = f32::MAX / 2.0;
        let positions = [[-huge, -huge, 0.0], [huge, -huge, 0.0], [huge, huge, 0.0]];
        let uvs = [[0.0, 0.0], [1.0e30, 0.0], [1.0e-30, 1.0e30]];
        assert_well_formed(&MeshData {
            positions: &positions,
            uv0: Some(&uvs),
            indices: &[0, 1, 2],
            ..Default::default()
        });
    }

    #[test]
    fn tangents_follow_the_named_uv_set_or_fall_back() {
        let quad = shapes::quad();
        // UV set 1 turned a quarter: u runs up the quad.
        let turned: Vec<[f32; 2]> = quad.uvs.iter().map(|[u, v]| [1.0 - v, *u]).collect();
        let mesh = MeshData {
            uv1: Some(&turned),
            tangent_uv_set: Some(1),
            ..quad.as_mesh_data()
        };
        let generated = mesh.generated_tangents().unwrap().unwrap();
        assert!(Vec3::from_slice(&generated.tangents[0]).distance(Vec3::Y) < 1e-6);
        let without_set = MeshData { uv1: None, ..mesh };
        assert!(without_set.generated_tangents().unwrap().is_none());
        let not_asked = MeshData {
            tangent_uv_set: None,
            ..quad.as_mesh_data()
        };
        assert!(not_asked.generated_tangents().unwrap().is_none());
        // Bad input is a typed error, not a panic.
        let third_set = MeshData {
            tangent_uv_set: Some(2),
            ..quad.as_mesh_data()
        };
        assert_eq!(
            third_set.generated_tangents(),
            Err(GeometryError::TangentUvSet { uv_set: 2 })
        );
        let out_of_range = MeshData {
            indices: &[0, 1, 9],
            ..quad.as_mesh_data()
        };
        assert!(matches!(
            out_of_range.generated_tangents(),
            Err(GeometryError::IndexOutOfRange { value: 9, .. })
        ));
        // Packed without generation: the fallback tangent, indices as given.
        let packed = not_asked.packed();
        assert_eq!(packed.indices.as_ref(), quad.indices.as_slice());
        let fallback = super::fallback_tangent(Vec3::Z);
        assert!(Vec3::from_slice(&fallback).dot(Vec3::Z).abs() < 1e-6);
        let unpack = |packed: u32| (packed >> 24) as u8 as i8;
        assert_eq!(unpack(packed.vertices[0].tangent), 127);
    }
}
