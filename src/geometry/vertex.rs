//! The arena's vertex format from a [`MeshData`]: normals computed when
//! missing (area-weighted), tangents generated when missing
//! (`tangents.rs`), octahedral normals, 8-bit tangents and colours packed as
//! the shaders unpack them.

use std::borrow::Cow;

use glam::{Vec2, Vec3};

use super::tangents::{self, GeneratedTangents, fallback_tangent};
use super::{GeometryError, MeshData};
use crate::gpu_types::GpuVertex;

/// A mesh in the arena's format: its packed vertices and the triangle list
/// over them (the mesh's own indices, unless generating tangents split
/// vertices).
#[derive(Clone, Debug, PartialEq)]
pub struct PackedMesh<'a> {
    /// The vertices as the shaders read them.
    pub vertices: Vec<GpuVertex>,
    /// The triangle list, indices into `vertices`.
    pub indices: Cow<'a, [u32]>,
}

impl<'a> MeshData<'a> {
    /// Area-weighted vertex normals of the triangles.
    fn computed_normals(&self) -> Vec<Vec3> {
        let mut normals = vec![Vec3::ZERO; self.positions.len()];
        for tri in self.indices.chunks_exact(3) {
            let [a, b, c] =
                [tri[0], tri[1], tri[2]].map(|i| Vec3::from(self.positions[i as usize]));
            let n = (b - a).cross(c - a);
            for &i in tri {
                normals[i as usize] += n;
            }
        }
        normals
            .into_iter()
            .map(|n| n.try_normalize().unwrap_or(Vec3::Z))
            .collect()
    }

    /// The unit normals the vertices get: the mesh's, normalised (+Z where
    /// one has no length), else computed (area-weighted). Expects a mesh
    /// that passes [`MeshData::validate`].
    pub fn vertex_normals(&self) -> Vec<Vec3> {
        match self.normals {
            Some(normals) => normals
                .iter()
                .map(|n| Vec3::from(*n).try_normalize().unwrap_or(Vec3::Z))
                .collect(),
            None => self.computed_normals(),
        }
    }

    /// MikkTSpace tangents from the UV set [`MeshData::tangent_uv_set`] and
    /// the normals the vertices get (the mesh's own tangents are ignored),
    /// vertices split where triangle corners disagree; `Ok(None)` when the
    /// mesh lacks that UV set or asks for none. The mesh is validated first
    /// ([`MeshData::validate`]).
    pub fn generated_tangents(&self) -> Result<Option<GeneratedTangents>, GeometryError> {
        self.validate()?;
        Ok(tangents::generate(self, &self.vertex_normals()))
    }

    /// The vertices in the arena's packed format and the triangle list over
    /// them. Missing tangents are generated ([`MeshData::generated_tangents`],
    /// which may add vertices), or are [`fallback_tangent`]s without the UV
    /// set. Expects a mesh that passes [`MeshData::validate`].
    pub fn packed(&self) -> PackedMesh<'a> {
        let normals = self.vertex_normals();
        let generated = match self.tangents {
            Some(_) => None,
            None => tangents::generate(self, &normals),
        };
        let pack = |source: usize, tangent: [f32; 4]| GpuVertex {
            position: self.positions[source],
            normal_oct: encode_octahedral(normals[source]),
            tangent: pack_4x8_snorm(tangent),
            uv0: self.uv0.map_or([0.0; 2], |uv| uv[source]),
            uv1: self.uv1.map_or([0.0; 2], |uv| uv[source]),
            color: self.colors.map_or(u32::MAX, |c| pack_4x8_unorm(c[source])),
        };
        match generated {
            Some(generated) => PackedMesh {
                vertices: (generated.sources().zip(&generated.tangents))
                    .map(|(source, &tangent)| pack(source, tangent))
                    .collect(),
                indices: Cow::Owned(generated.indices),
            },
            None => PackedMesh {
                vertices: (0..self.positions.len())
                    .map(|i| {
                        let tangent = self
                            .tangents
                            .map_or_else(|| fallback_tangent(normals[i]), |t| t[i]);
                        pack(i, tangent)
                    })
                    .collect(),
                indices: Cow::Borrowed(self.indices),
            },
        }
    }
}

/// Octahedral encoding of a unit vector as two 16-bit snorms (WGSL
/// `unpack2x16snorm` order: x in the low half).
pub fn encode_octahedral(n: Vec3) -> u32 {
    let n = n / (n.x.abs() + n.y.abs() + n.z.abs());
    let e = if n.z >= 0.0 {
        Vec2::new(n.x, n.y)
    } else {
        let sign = Vec2::new(n.x.signum(), n.y.signum());
        (Vec2::ONE - Vec2::new(n.y.abs(), n.x.abs())) * sign
    };
    let snorm = |v: f32| u32::from((v.clamp(-1.0, 1.0) * 32767.0).round() as i16 as u16);
    snorm(e.x) | (snorm(e.y) << 16)
}

/// WGSL `pack4x8unorm`.
pub fn pack_4x8_unorm(v: [f32; 4]) -> u32 {
    v.iter().enumerate().fold(0, |packed, (i, x)| {
        let byte = (x.clamp(0.0, 1.0) * 255.0).round() as u32;
        packed | (byte << (8 * i))
    })
}

/// WGSL `pack4x8snorm`.
pub fn pack_4x8_snorm(v: [f32; 4]) -> u32 {
    v.iter().enumerate().fold(0, |packed, (i, x)| {
        let byte = u32::from((x.clamp(-1.0, 1.0) * 127.0).round() as i8 as u8);
        packed | (byte << (8 * i))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_pack_as_unorm8_and_default_to_white() {
        let positions = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let colors = [[1.0, 0.5, 0.0, 1.0], [2.0, -1.0, 0.2, 0.0], [0.0; 4]];
        let mesh = MeshData {
            positions: &positions,
            indices: &[0, 1, 2],
            ..Default::default()
        };
        assert!(mesh.packed().vertices.iter().all(|v| v.color == u32::MAX));
        let colored = MeshData {
            colors: Some(&colors),
            ..mesh
        };
        let packed: Vec<u32> = colored.packed().vertices.iter().map(|v| v.color).collect();
        // Little-endian bytes r, g, b, a (WGSL unpack4x8unorm); clamped.
        assert_eq!(packed[0].to_le_bytes(), [255, 128, 0, 255]);
        assert_eq!(packed[1].to_le_bytes(), [255, 0, 51, 0]);
    }

    #[test]
    fn octahedral_round_trip_is_close() {
        for n in [
            Vec3::X,
            -Vec3::Y,
            Vec3::new(0.3, -0.5, -0.8).normalize(),
            Vec3::new(-0.6, 0.1, 0.2).normalize(),
        ] {
            let packed = encode_octahedral(n);
            let e = Vec2::new(
                f32::from((packed & 0xffff) as u16 as i16) / 32767.0,
                f32::from((packed >> 16) as u16 as i16) / 32767.0,
            );
            let mut d = Vec3::new(e.x, e.y, 1.0 - e.x.abs() - e.y.abs());
            if d.z < 0.0 {
                let folded = (Vec2::ONE - Vec2::new(d.y.abs(), d.x.abs()))
                    * Vec2::new(d.x.signum(), d.y.signum());
                d = Vec3::new(folded.x, folded.y, d.z);
            }
            assert!(d.normalize().dot(n) > 0.9999, "{n} -> {d}");
        }
    }
}
