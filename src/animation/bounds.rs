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
//! bound follows the joints, however far a limb swings. Morph deltas are
//! not included (a morphed mesh needs its deltas' bounds added).

use glam::{Mat4, Vec3};

use super::SkinInfluences;

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
