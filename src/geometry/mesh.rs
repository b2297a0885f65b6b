//! What a mesh is before it enters the arena: [`MeshData`], its checks
//! ([`MeshData::validate`]), its bounds, and [`GeometryError`].

use glam::Vec3;

use crate::handles::{CapacityError, HandleError};

/// A triangle-list mesh to upload. Attributes other than positions are
/// optional: normals are computed (area-weighted) when missing, tangents
/// generated with MikkTSpace from the UV set [`MeshData::tangent_uv_set`]
/// (vertices split where triangle corners disagree: see
/// [`MeshData::generated_tangents`]), UVs default to zero, colours to white.
///
/// Front faces are counter-clockwise (glTF's rule); back faces are culled
/// unless the material is double-sided. Generating tangents costs about
/// 2.5 µs per triangle: set `tangent_uv_set: None` for a large mesh drawn
/// without a normal map.
#[derive(Clone, Copy, Debug)]
pub struct MeshData<'a> {
    /// Object-space positions.
    pub positions: &'a [[f32; 3]],
    /// Unit normals.
    pub normals: Option<&'a [[f32; 3]]>,
    /// Tangents: xyz direction, w handedness (±1; glTF's convention:
    /// bitangent `= cross(normal, xyz) * w`, pointing up the image, where a
    /// normal map's +Y points).
    pub tangents: Option<&'a [[f32; 4]]>,
    /// First UV set.
    pub uv0: Option<&'a [[f32; 2]]>,
    /// Second UV set.
    pub uv1: Option<&'a [[f32; 2]]>,
    /// Linear RGBA vertex colours (glTF `COLOR_0`), multiplying the base
    /// colour; stored as 8-bit unorm, values clamped to 0..1.
    pub colors: Option<&'a [[f32; 4]]>,
    /// Triangle list, indices into `positions`.
    pub indices: &'a [u32],
    /// Where tangents come from when `tangents` is `None`: `Some(set)`
    /// generates them with MikkTSpace from UV set `set` (0 or 1: the one the
    /// normal texture samples; glTF: its `texCoord`), the default
    /// `Some(0)`; `None` skips that cost for a mesh drawn without normal
    /// maps. Without generation, or without that UV set, every vertex gets
    /// [`crate::geometry::fallback_tangent`].
    pub tangent_uv_set: Option<u32>,
}

impl Default for MeshData<'_> {
    /// No data; tangents generated from UV set 0.
    fn default() -> Self {
        Self {
            positions: &[],
            normals: None,
            tangents: None,
            uv0: None,
            uv1: None,
            colors: None,
            indices: &[],
            tangent_uv_set: Some(0),
        }
    }
}

/// Object-space bounds of a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshBounds {
    /// Box minimum.
    pub min: Vec3,
    /// Box maximum.
    pub max: Vec3,
    /// Sphere centre (the box centre).
    pub center: Vec3,
    /// Sphere radius (enclosing every vertex).
    pub radius: f32,
}

/// Why a mesh was rejected. The arena is unchanged after any error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// No positions or no indices.
    #[error("mesh has no {what}")]
    Empty {
        /// "positions" or "indices".
        what: &'static str,
    },
    /// The index count is not a multiple of 3.
    #[error("index count {count} is not a multiple of 3")]
    NotTriangles {
        /// Indices given.
        count: usize,
    },
    /// An attribute's length differs from the position count.
    #[error("{attribute} has {actual} elements, positions have {expected}")]
    AttributeLength {
        /// Attribute name.
        attribute: &'static str,
        /// Position count.
        expected: usize,
        /// Attribute length.
        actual: usize,
    },
    /// NaN or infinity in an attribute.
    #[error("{attribute}[{index}] is not finite")]
    NonFinite {
        /// Attribute name.
        attribute: &'static str,
        /// Element index.
        index: usize,
    },
    /// Finite positions whose bounds overflow `f32` (coordinates near
    /// `f32::MAX`): the cull pass could not test them.
    #[error("mesh bounds are not finite: centre {center}, radius {radius}")]
    NonFiniteBounds {
        /// Sphere centre computed.
        center: Vec3,
        /// Sphere radius computed.
        radius: f32,
    },
    /// [`MeshData::tangent_uv_set`] names a UV set that does not exist.
    #[error("tangent uv set {uv_set} (only 0 and 1 exist)")]
    TangentUvSet {
        /// The set named.
        uv_set: u32,
    },
    /// An index past the vertex count.
    #[error("indices[{position}] = {value} is out of range for {vertex_count} vertices")]
    IndexOutOfRange {
        /// Where in the index list.
        position: usize,
        /// The index.
        value: u32,
        /// Vertices in the mesh.
        vertex_count: usize,
    },
    /// The arena cannot hold the mesh.
    #[error("geometry arena full: {what} needs {requested}, at most {available} available")]
    ArenaFull {
        /// "vertices" or "indices".
        what: &'static str,
        /// Elements requested.
        requested: usize,
        /// Largest allocation possible.
        available: u32,
    },
    /// Mesh table full.
    #[error(transparent)]
    Capacity(#[from] CapacityError),
    /// Stale or foreign handle.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// Bad level-of-detail options ([`crate::MeshOptions`]).
    #[error(transparent)]
    Lod(#[from] crate::lod::LodError),
    /// Live objects still use the mesh.
    #[error("mesh slot {slot} is still used by {objects} object(s)")]
    InUse {
        /// The mesh slot.
        slot: u32,
        /// Live objects referencing it.
        objects: u32,
    },
}

fn check_finite<const N: usize>(
    attribute: &'static str,
    values: &[[f32; N]],
) -> Result<(), GeometryError> {
    match values.iter().position(|v| v.iter().any(|x| !x.is_finite())) {
        Some(index) => Err(GeometryError::NonFinite { attribute, index }),
        None => Ok(()),
    }
}

fn check_len<T>(
    attribute: &'static str,
    values: Option<&[T]>,
    expected: usize,
) -> Result<(), GeometryError> {
    match values {
        Some(v) if v.len() != expected => Err(GeometryError::AttributeLength {
            attribute,
            expected,
            actual: v.len(),
        }),
        _ => Ok(()),
    }
}

impl MeshData<'_> {
    /// Checks everything the arena relies on.
    pub fn validate(&self) -> Result<(), GeometryError> {
        let n = self.positions.len();
        if n == 0 {
            return Err(GeometryError::Empty { what: "positions" });
        }
        if self.indices.is_empty() {
            return Err(GeometryError::Empty { what: "indices" });
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(GeometryError::NotTriangles {
                count: self.indices.len(),
            });
        }
        check_len("normals", self.normals, n)?;
        check_len("tangents", self.tangents, n)?;
        check_len("uv0", self.uv0, n)?;
        check_len("uv1", self.uv1, n)?;
        check_len("colors", self.colors, n)?;
        if let Some(uv_set @ 2..) = self.tangent_uv_set {
            return Err(GeometryError::TangentUvSet { uv_set });
        }
        check_finite("positions", self.positions)?;
        check_finite("normals", self.normals.unwrap_or_default())?;
        check_finite("tangents", self.tangents.unwrap_or_default())?;
        check_finite("uv0", self.uv0.unwrap_or_default())?;
        check_finite("uv1", self.uv1.unwrap_or_default())?;
        check_finite("colors", self.colors.unwrap_or_default())?;
        if let Some(position) = self.indices.iter().position(|&i| i as usize >= n) {
            return Err(GeometryError::IndexOutOfRange {
                position,
                value: self.indices[position],
                vertex_count: n,
            });
        }
        Ok(())
    }

    /// UV set `set` (0 or 1), if the mesh has it.
    pub fn uv_set(&self, set: u32) -> Option<&[[f32; 2]]> {
        match set {
            0 => self.uv0,
            1 => self.uv1,
            _ => None,
        }
    }

    /// Object-space bounds of the positions, refused when they overflow
    /// `f32`.
    pub fn finite_bounds(&self) -> Result<MeshBounds, GeometryError> {
        let bounds = self.bounds();
        if bounds.center.is_finite() && bounds.radius.is_finite() {
            Ok(bounds)
        } else {
            Err(GeometryError::NonFiniteBounds {
                center: bounds.center,
                radius: bounds.radius,
            })
        }
    }

    /// Object-space bounds of the positions.
    pub fn bounds(&self) -> MeshBounds {
        let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for p in self.positions {
            min = min.min(Vec3::from(*p));
            max = max.max(Vec3::from(*p));
        }
        let center = (min + max) * 0.5;
        let radius = self
            .positions
            .iter()
            .map(|p| Vec3::from(*p).distance(center))
            .fold(0.0, f32::max);
        MeshBounds {
            min,
            max,
            center,
            radius,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_meshes_are_rejected() {
        let p = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let ok = MeshData {
            positions: &p,
            indices: &[0, 1, 2],
            ..Default::default()
        };
        assert!(ok.validate().is_ok());
        let bad = MeshData {
            indices: &[0, 1, 3],
            ..ok
        };
        assert!(matches!(
            bad.validate(),
            Err(GeometryError::IndexOutOfRange { value: 3, .. })
        ));
        let nan = [[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let bad = MeshData {
            positions: &nan,
            ..ok
        };
        assert!(matches!(
            bad.validate(),
            Err(GeometryError::NonFinite { .. })
        ));
        let bad = MeshData {
            indices: &[0, 1],
            ..ok
        };
        assert!(matches!(
            bad.validate(),
            Err(GeometryError::NotTriangles { .. })
        ));
    }
}
