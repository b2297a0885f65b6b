//! Deforming a vertex: morph target deltas first, then linear blend
//! skinning with a joint palette (the CPU twin of the shaders',
//! `wgsl/morph.wgsl`'s `morph_vertex` then `wgsl/skinning.wgsl`'s
//! `skin_matrix`, which the vertex pulling and the ray paths share).
//!
//! - Morph: `p += Σ weight_t · Δp_t`, likewise normals and tangents' xyz.
//! - Skin: `M = Σ weight_i · palette[joint_i]`; positions by `M`, normals
//!   by the inverse transpose of `M`'s upper 3 × 3, tangents by `M`'s upper
//!   3 × 3 (their handedness `w` is kept); normals and tangents are
//!   normalised last. Weights are used as stored: the loader renormalises
//!   them.

use glam::{Mat3, Mat4, Vec3, Vec4};

/// Joint indices and weights per vertex: `per_vertex` influences (4, or 8
/// with glTF's `JOINTS_1`/`WEIGHTS_1`), vertex `v`'s at
/// `v * per_vertex .. (v + 1) * per_vertex`.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinInfluences {
    /// Influences per vertex (4 or 8).
    pub per_vertex: usize,
    /// Joint indices (into the skin's joints).
    pub joints: Vec<u16>,
    /// Weights, summing to 1 per vertex.
    pub weights: Vec<f32>,
}

impl SkinInfluences {
    /// Vertex `vertex`'s `(joint, weight)` pairs (none for a vertex
    /// beyond the stream).
    pub fn of(&self, vertex: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let range = vertex * self.per_vertex..(vertex + 1) * self.per_vertex;
        let joints = self.joints.get(range.clone()).unwrap_or_default();
        let weights = self.weights.get(range).unwrap_or_default();
        joints
            .iter()
            .zip(weights)
            .map(|(&j, &w)| (usize::from(j), w))
    }

    /// Vertices.
    pub fn len(&self) -> usize {
        self.joints.len() / self.per_vertex.max(1)
    }

    /// Whether there is no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One morph target: per-vertex deltas of what it moves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// Position deltas.
    pub positions: Option<Vec<[f32; 3]>>,
    /// Normal deltas.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Tangent deltas (xyz; the handedness does not morph).
    pub tangents: Option<Vec<[f32; 3]>>,
}

/// A mesh's morph targets and their default weights.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTargets {
    /// The targets.
    pub targets: Vec<MorphTarget>,
    /// The mesh's default weights, one per target.
    pub default_weights: Vec<f32>,
}

impl MorphTargets {
    /// Vertices the deltas cover (the longest of every target's deltas).
    pub fn vertices(&self) -> usize {
        let len = |d: &Option<Vec<[f32; 3]>>| d.as_ref().map_or(0, Vec::len);
        self.targets
            .iter()
            .map(|t| len(&t.positions).max(len(&t.normals)).max(len(&t.tangents)))
            .max()
            .unwrap_or(0)
    }
}

/// A deformed vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeformedVertex {
    /// Position.
    pub position: Vec3,
    /// Unit normal.
    pub normal: Vec3,
    /// Unit tangent, handedness in `w`.
    pub tangent: Vec4,
}

/// Deforms vertex `vertex` of a mesh: `rest` is its position, normal and
/// tangent; `morph` with `weights` moves it first, then `skin` with
/// `palette` (both optional). A joint index beyond the palette is ignored
/// (the loader refuses such files).
pub fn deform_vertex(
    rest: DeformedVertex,
    vertex: usize,
    morph: Option<(&MorphTargets, &[f32])>,
    skin: Option<(&SkinInfluences, &[Mat4])>,
) -> DeformedVertex {
    let (mut position, mut normal, mut tangent) = (rest.position, rest.normal, rest.tangent);
    if let Some((targets, weights)) = morph {
        for (target, &weight) in targets.targets.iter().zip(weights) {
            let delta = |deltas: &Option<Vec<[f32; 3]>>| {
                deltas
                    .as_ref()
                    .and_then(|d| d.get(vertex))
                    .map_or(Vec3::ZERO, |&d| Vec3::from(d) * weight)
            };
            position += delta(&target.positions);
            normal += delta(&target.normals);
            tangent += delta(&target.tangents).extend(0.0);
        }
    }
    if let Some((influences, palette)) = skin {
        let mut blended = Mat4::ZERO;
        for (joint, weight) in influences.of(vertex) {
            if let Some(matrix) = palette.get(joint) {
                blended += *matrix * weight;
            }
        }
        let linear = Mat3::from_mat4(blended);
        position = blended.transform_point3(position);
        normal = linear.inverse().transpose() * normal;
        tangent = (linear * tangent.truncate()).extend(tangent.w);
    }
    DeformedVertex {
        position,
        normal: normal.normalize_or_zero(),
        tangent: tangent.truncate().normalize_or_zero().extend(tangent.w),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morph_then_skin() {
        let targets = MorphTargets {
            targets: vec![MorphTarget {
                positions: Some(vec![[0.0, 2.0, 0.0]]),
                ..MorphTarget::default()
            }],
            default_weights: vec![0.0],
        };
        let influences = SkinInfluences {
            per_vertex: 4,
            joints: vec![0, 1, 0, 0],
            weights: vec![0.5, 0.5, 0.0, 0.0],
        };
        let palette = [
            Mat4::from_translation(Vec3::X),
            Mat4::from_scale(Vec3::splat(3.0)),
        ];
        let rest = DeformedVertex {
            position: Vec3::new(1.0, 0.0, 0.0),
            normal: Vec3::Y,
            tangent: Vec4::new(1.0, 0.0, 0.0, -1.0),
        };
        let posed = deform_vertex(
            rest,
            0,
            Some((&targets, &[0.5])),
            Some((&influences, &palette)),
        );
        // Morphed: (1, 1, 0); blended matrix: scale 2 plus translation 0.5 x.
        assert!((posed.position - Vec3::new(2.5, 2.0, 0.0)).length() < 1e-6);
        assert!((posed.normal - Vec3::Y).length() < 1e-6);
        assert_eq!(posed.tangent, Vec4::new(1.0, 0.0, 0.0, -1.0));
    }
}
