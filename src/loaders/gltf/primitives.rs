//! Triangle primitives: their accessors checked against the types each
//! semantic allows (`KHR_mesh_quantization`'s too), and read into a
//! [`GltfMesh`] by unbound's accessor reader (`accessors.rs`).

use glam::Vec3;
use gltf::accessor::{DataType, Dimensions};

use super::accessors::{read_floats, read_indices};
use super::buffers::Buffers;
use super::checks::{check_accessor, triangle_list};
use super::stage::Parser;
use super::{GltfError, GltfMesh};

impl Parser<'_, '_, '_> {
    /// Checks every accessor a triangle primitive reads: a type its
    /// semantic allows (with `quantized`, those of `KHR_mesh_quantization`
    /// too), a non-zero count, and count x stride within its buffer view
    /// (sparse storage is checked as it is read, `accessors.rs`).
    pub(super) fn check_primitive(
        &self,
        primitive: &gltf::Primitive<'_>,
        quantized: bool,
    ) -> Result<(), String> {
        use DataType::{F32, I8, I16, U8, U16, U32};
        use Dimensions::{Scalar, Vec2, Vec3, Vec4};
        let position = primitive
            .get(&gltf::Semantic::Positions)
            .ok_or("primitive without positions")?;
        let count = position.count();
        // (semantic, name, core types, quantized types): core integer
        // types must be normalised, quantized ones may not be for
        // positions and texture coordinates.
        let attributes = [
            (
                gltf::Semantic::Positions,
                "POSITION",
                &[(F32, Vec3)][..],
                &[(I8, Vec3), (U8, Vec3), (I16, Vec3), (U16, Vec3)][..],
            ),
            (
                gltf::Semantic::Normals,
                "NORMAL",
                &[(F32, Vec3)][..],
                &[(I8, Vec3), (I16, Vec3)][..],
            ),
            (
                gltf::Semantic::Tangents,
                "TANGENT",
                &[(F32, Vec4)][..],
                &[(I8, Vec4), (I16, Vec4)][..],
            ),
            (
                gltf::Semantic::TexCoords(0),
                "TEXCOORD_0",
                &[(F32, Vec2), (U8, Vec2), (U16, Vec2)][..],
                &[(I8, Vec2), (I16, Vec2)][..],
            ),
            (
                gltf::Semantic::TexCoords(1),
                "TEXCOORD_1",
                &[(F32, Vec2), (U8, Vec2), (U16, Vec2)][..],
                &[(I8, Vec2), (I16, Vec2)][..],
            ),
            (
                gltf::Semantic::Colors(0),
                "COLOR_0",
                &[
                    (F32, Vec3),
                    (F32, Vec4),
                    (U8, Vec3),
                    (U8, Vec4),
                    (U16, Vec3),
                    (U16, Vec4),
                ][..],
                &[][..],
            ),
        ];
        for (semantic, name, core, quantized_types) in attributes {
            let Some(accessor) = primitive.get(&semantic) else {
                continue;
            };
            let mut allowed = core.to_vec();
            if quantized {
                allowed.extend_from_slice(quantized_types);
            }
            check_accessor(&accessor, name, &allowed)?;
            let may_be_unnormalised = quantized
                && matches!(
                    semantic,
                    gltf::Semantic::Positions | gltf::Semantic::TexCoords(_)
                );
            if accessor.data_type() != F32 && !accessor.normalized() && !may_be_unnormalised {
                return Err(format!(
                    "{name} accessor {} is {:?} but not normalized",
                    accessor.index(),
                    accessor.data_type()
                ));
            }
            if accessor.count() != count {
                return Err(format!(
                    "{name} has {} elements, POSITION has {count}",
                    accessor.count()
                ));
            }
        }
        if let Some(indices) = primitive.indices() {
            check_accessor(
                &indices,
                "indices",
                &[(U8, Scalar), (U16, Scalar), (U32, Scalar)],
            )?;
        }
        Ok(())
    }

    pub(super) fn read_primitive(
        &self,
        buffers: &Buffers,
        mesh: &gltf::Mesh<'_>,
        primitive: &gltf::Primitive<'_>,
        material: usize,
    ) -> Result<GltfMesh, GltfError> {
        let error = |e: String| {
            self.invalid(format!(
                "mesh {} primitive {}: {e}",
                mesh.index(),
                primitive.index()
            ))
        };
        let floats2 = |semantic| {
            primitive
                .get(&semantic)
                .map(|a| read_floats::<2>(buffers, &a))
                .transpose()
        };
        let position = primitive
            .get(&gltf::Semantic::Positions)
            .expect("checked by check_primitive");
        let positions = read_floats::<3>(buffers, &position).map_err(error)?;
        let normals = primitive
            .get(&gltf::Semantic::Normals)
            .map(|a| read_floats::<3>(buffers, &a))
            .transpose()
            .map_err(error)?;
        let tangents = primitive
            .get(&gltf::Semantic::Tangents)
            .map(|a| read_floats::<4>(buffers, &a))
            .transpose()
            .map_err(error)?;
        let uv0 = floats2(gltf::Semantic::TexCoords(0)).map_err(error)?;
        let uv1 = floats2(gltf::Semantic::TexCoords(1)).map_err(error)?;
        let colors = match primitive.get(&gltf::Semantic::Colors(0)) {
            Some(a) if a.dimensions() == Dimensions::Vec3 => Some(
                read_floats::<3>(buffers, &a)
                    .map_err(error)?
                    .into_iter()
                    .map(|[r, g, b]| [r, g, b, 1.0])
                    .collect(),
            ),
            Some(a) => Some(read_floats::<4>(buffers, &a).map_err(error)?),
            None => None,
        };
        let indices = match primitive.indices() {
            Some(indices) => read_indices(buffers, &indices).map_err(error)?,
            None => (0..positions.len() as u32).collect(),
        };
        let mut out = GltfMesh {
            mesh: mesh.index(),
            primitive: primitive.index(),
            material,
            indices: match primitive.mode() {
                gltf::mesh::Mode::Triangles => indices,
                mode => triangle_list(mode, &indices),
            },
            positions,
            normals,
            tangents,
            uv0,
            uv1,
            colors,
            tangent_uv_set: None,
            bounds: crate::geometry::MeshBounds {
                min: Vec3::ZERO,
                max: Vec3::ZERO,
                center: Vec3::ZERO,
                radius: 0.0,
            },
        };
        let data = out.as_mesh_data();
        data.validate().map_err(|source| GltfError::Geometry {
            path: self.path.to_owned(),
            mesh: mesh.index(),
            primitive: primitive.index(),
            source,
        })?;
        out.bounds = data.bounds();
        Ok(out)
    }
}
