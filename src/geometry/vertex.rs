//! The arena's vertex format from a [`MeshData`]: normals computed when
//! missing (area-weighted), tangents from the first UV set, octahedral
//! normals, 8-bit tangents and colours packed as the shaders unpack them.

use glam::{Vec2, Vec3};

use super::MeshData;
use crate::gpu_types::GpuVertex;

impl MeshData<'_> {
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

    /// Per-vertex tangents from the first UV set (accumulated per triangle,
    /// Gram-Schmidt against the normal), or any perpendicular without UVs.
    fn computed_tangents(&self, normals: &[Vec3]) -> Vec<[f32; 4]> {
        let n = self.positions.len();
        let mut tangent = vec![Vec3::ZERO; n];
        let mut bitangent = vec![Vec3::ZERO; n];
        if let Some(uv) = self.uv0 {
            for tri in self.indices.chunks_exact(3) {
                let [i0, i1, i2] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
                let [p0, p1, p2] = [i0, i1, i2].map(|i| Vec3::from(self.positions[i]));
                let [t0, t1, t2] = [i0, i1, i2].map(|i| Vec2::from(uv[i]));
                let (e1, e2) = (p1 - p0, p2 - p0);
                let (d1, d2) = (t1 - t0, t2 - t0);
                let det = d1.x * d2.y - d2.x * d1.y;
                if det.abs() < 1e-12 {
                    continue;
                }
                let r = 1.0 / det;
                let t = (e1 * d2.y - e2 * d1.y) * r;
                let b = (e2 * d1.x - e1 * d2.x) * r;
                for i in [i0, i1, i2] {
                    tangent[i] += t;
                    bitangent[i] += b;
                }
            }
        }
        (0..n)
            .map(|i| {
                let normal = normals[i];
                let t = tangent[i] - normal * normal.dot(tangent[i]);
                let t = t
                    .try_normalize()
                    .unwrap_or_else(|| normal.any_orthonormal_vector());
                let w = if normal.cross(t).dot(bitangent[i]) < 0.0 {
                    -1.0
                } else {
                    1.0
                };
                [t.x, t.y, t.z, w]
            })
            .collect()
    }

    /// The vertices in the arena's packed format.
    pub fn packed_vertices(&self) -> Vec<GpuVertex> {
        let normals: Vec<Vec3> = match self.normals {
            Some(normals) => normals
                .iter()
                .map(|n| Vec3::from(*n).try_normalize().unwrap_or(Vec3::Z))
                .collect(),
            None => self.computed_normals(),
        };
        let tangents = match self.tangents {
            Some(t) => t.to_vec(),
            None => self.computed_tangents(&normals),
        };
        (0..self.positions.len())
            .map(|i| GpuVertex {
                position: self.positions[i],
                normal_oct: encode_octahedral(normals[i]),
                tangent: pack_4x8_snorm(tangents[i]),
                uv0: self.uv0.map_or([0.0; 2], |uv| uv[i]),
                uv1: self.uv1.map_or([0.0; 2], |uv| uv[i]),
                color: self.colors.map_or(u32::MAX, |c| pack_4x8_unorm(c[i])),
            })
            .collect()
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
        assert!(mesh.packed_vertices().iter().all(|v| v.color == u32::MAX));
        let colored = MeshData {
            colors: Some(&colors),
            ..mesh
        };
        let packed: Vec<u32> = colored.packed_vertices().iter().map(|v| v.color).collect();
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
