//! Conservative bounds of a skinned mesh in any pose, from its joints
//! (the CPU twin of the GPU's, `bound_skins` in `wgsl/animation.wgsl`,
//! `src/passes/skin_bounds.rs`, which places the sphere with the object's
//! `world_from_object` as [`crate::scene::world_sphere`] does).
//!
//! Per joint, [`joint_spheres`] bounds the bind-pose vertices it
//! influences (weight above 0). A skinned vertex is `Σ wᵢ · Pᵢ · v` with
//! weights summing to 1, `Pᵢ` the palette: each `Pᵢ · v` lies in joint
//! `i`'s sphere moved by `Pᵢ` (centre `Pᵢ · c`, radius times `Pᵢ`'s largest
//! axis scale), so the vertex lies in the convex hull of those spheres,
//! and [`skinned_sphere`]'s enclosing sphere of them contains it. The
//! bound follows the joints, however far a limb swings.
//!
//! Morph targets move a vertex by `Σ w_t · Δp_t` before skinning: at most
//! [`morph_reach`] `= Σ_t max_v |Δp_t,v| · max(1, W_t)`, `W_t` a bound of
//! `|w_t|` over every pose ([`AnimationData::weight_bounds`]). A morphed
//! vertex lies within that reach of its rest position, so growing each
//! joint's sphere by it ([`SkinnedMesh::with_reach`]; moved by a palette,
//! the reach scales with the sphere's radius) or a rigid object's mesh
//! sphere (`crate::scene::ObjectTable`, then placed by
//! [`crate::scene::world_sphere`]) keeps the bound conservative. One
//! formula, on the CPU: the GPU reads the grown spheres.

use glam::{Mat4, Vec3};

use super::{AnimationData, ChannelPath, Interpolation, MorphTargets, SkinInfluences};

/// A skinned mesh as the renderer skins an object with it: its vertices'
/// joints and weights and its joints' bind-pose spheres (culling's bounds
/// follow them, see the module docs). Made once per mesh and skin, it
/// skins any number of objects.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedMesh<'a> {
    /// Joints and weights, one entry per vertex of the mesh.
    pub influences: &'a SkinInfluences,
    /// [`joint_spheres`] of the mesh's rest positions, one per joint of the
    /// skin.
    pub joint_spheres: Vec<Option<[f32; 4]>>,
}

impl<'a> SkinnedMesh<'a> {
    /// The mesh of rest positions `positions` skinned by `influences`,
    /// under a skin of `joints` joints.
    pub fn new(influences: &'a SkinInfluences, positions: &[[f32; 3]], joints: usize) -> Self {
        Self {
            influences,
            joint_spheres: joint_spheres(influences, positions, joints),
        }
    }

    /// The mesh morphed before skinning, its deltas reaching `reach`
    /// ([`morph_reach`]): every joint sphere grows by it.
    pub fn with_reach(mut self, reach: f32) -> Self {
        for sphere in self.joint_spheres.iter_mut().flatten() {
            sphere[3] += reach;
        }
        self
    }
}

/// How far morph targets `targets` can move a vertex (object space), with
/// `|weight t|` at most `weight_bounds[t]` (missing: 1): `Σ_t max_v
/// |Δp_t,v| · max(1, bound_t)` (see the module docs).
pub fn morph_reach(targets: &MorphTargets, weight_bounds: &[f32]) -> f32 {
    targets
        .targets
        .iter()
        .enumerate()
        .map(|(t, target)| {
            let longest = target.positions.as_ref().map_or(0.0, |d| {
                d.iter().fold(0.0f32, |a, &p| a.max(Vec3::from(p).length()))
            });
            longest * weight_bounds.get(t).copied().unwrap_or(1.0).max(1.0)
        })
        .sum()
}

impl AnimationData {
    /// Per morph weight of node `node`, a bound of its magnitude over
    /// every pose any clip or blend gives: the largest of its rest weight
    /// and every weight key value of its channels (CUBICSPLINE: plus the
    /// largest tangent times the longest key interval, which bounds the
    /// Hermite curve's overshoot). Blends lerp two poses, so they stay
    /// within. Empty for a node out of range.
    pub fn weight_bounds(&self, node: usize) -> Vec<f32> {
        let Some(rest) = self.nodes.get(node).map(|n| &n.weights) else {
            return Vec::new();
        };
        let mut bounds: Vec<f32> = rest.iter().map(|w| w.abs()).collect();
        let channels = self.clips.iter().flat_map(|clip| {
            clip.channels
                .iter()
                .filter(|c| c.node == node && c.path == ChannelPath::Weights)
                .filter_map(|c| clip.samplers.get(c.sampler))
        });
        for sampler in channels {
            let n = sampler.components.max(1);
            let cubic = sampler.interpolation == Interpolation::CubicSpline;
            let interval = sampler
                .times
                .windows(2)
                .fold(0.0f32, |a, w| a.max(w[1] - w[0]));
            let stride = if cubic { 3 * n } else { n };
            for (t, bound) in bounds.iter_mut().enumerate().take(n) {
                let (mut value, mut tangent) = (0.0f32, 0.0f32);
                for key in sampler.values.chunks(stride) {
                    let at = |i: usize| key.get(i).map_or(0.0, |v: &f32| v.abs());
                    if cubic {
                        value = value.max(at(n + t));
                        tangent = tangent.max(at(t)).max(at(2 * n + t));
                    } else {
                        value = value.max(at(t));
                    }
                }
                *bound = bound.max(value + tangent * interval);
            }
        }
        bounds
    }
}

/// Per joint (`joints` of them), the bounding sphere (`[x, y, z, radius]`,
/// bind-pose mesh space) of the vertices of `positions` it influences,
/// `None` for a joint that moves none. Influences naming a joint beyond
/// `joints` or a vertex beyond `positions` are skipped.
pub fn joint_spheres(
    influences: &SkinInfluences,
    positions: &[[f32; 3]],
    joints: usize,
) -> Vec<Option<[f32; 4]>> {
    let mut boxes: Vec<Option<(Vec3, Vec3)>> = vec![None; joints];
    let moved = |v: usize| influences.of(v).filter(|&(j, w)| w > 0.0 && j < joints);
    for (v, p) in positions.iter().enumerate() {
        let p = Vec3::from(*p);
        for (j, _) in moved(v) {
            let b = boxes[j].get_or_insert((p, p));
            *b = (b.0.min(p), b.1.max(p));
        }
    }
    let centres: Vec<Option<Vec3>> = boxes
        .iter()
        .map(|b| b.map(|(lo, hi)| (lo + hi) * 0.5))
        .collect();
    let mut radii = vec![0.0f32; joints];
    for (v, p) in positions.iter().enumerate() {
        let p = Vec3::from(*p);
        for (j, _) in moved(v) {
            if let Some(c) = centres[j] {
                radii[j] = radii[j].max(p.distance(c));
            }
        }
    }
    centres
        .iter()
        .zip(radii)
        .map(|(c, r)| c.map(|c| c.extend(r).to_array()))
        .collect()
}

/// The sphere (`[x, y, z, radius]`, in the palette's space) that contains
/// the mesh skinned by `palette` (see the module docs): the joints'
/// spheres moved by their palette matrices, enclosed. `None` without any
/// joint sphere.
pub fn skinned_sphere(spheres: &[Option<[f32; 4]>], palette: &[Mat4]) -> Option<[f32; 4]> {
    let moved: Vec<(Vec3, f32)> = spheres
        .iter()
        .zip(palette)
        .filter_map(|(s, m)| {
            let [x, y, z, r] = (*s)?;
            let scale = m
                .x_axis
                .truncate()
                .length()
                .max(m.y_axis.truncate().length())
                .max(m.z_axis.truncate().length());
            Some((m.transform_point3(Vec3::new(x, y, z)), r * scale))
        })
        .collect();
    let (lo, hi) = moved.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &(c, r)| (lo.min(c - r), hi.max(c + r)),
    );
    if moved.is_empty() {
        return None;
    }
    let centre = (lo + hi) * 0.5;
    let radius = moved
        .iter()
        .fold(0.0f32, |a, &(c, r)| a.max(c.distance(centre) + r));
    Some(centre.extend(radius).to_array())
}
