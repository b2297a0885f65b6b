//! The morphed sphere of `tests/animation_morph.rs` and
//! `tests/visibility.rs`: a generated sphere with two morph targets
//! (positions, normals, tangents) and a clip playing their weights.

use glam::{Mat4, Vec3};
use unbound::animation::{
    AnimationData, AnimationNode, Channel, ChannelPath, Clip, Interpolation, MeshDeformation,
    MorphTarget, MorphTargets, NodeTransform, ObjectDriver, Sampler,
};
use unbound::geometry::MeshData;
use unbound::shapes;

/// The sphere's rest geometry, with tangents given (generated ones could
/// split vertices, and the deltas are per vertex).
pub struct Sphere {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub tangents: Vec<[f32; 4]>,
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
}

impl Sphere {
    pub fn new() -> Self {
        let mesh = shapes::sphere(24, 12);
        let tangents = mesh
            .uvs
            .iter()
            .map(|uv| {
                let phi = uv[0] * std::f32::consts::TAU;
                [-phi.sin(), 0.0, -phi.cos(), 1.0]
            })
            .collect();
        Self {
            positions: mesh.positions,
            normals: mesh.normals,
            tangents,
            uvs: mesh.uvs,
            indices: mesh.indices,
        }
    }

    pub fn data<'a>(
        &'a self,
        positions: &'a [[f32; 3]],
        normals: &'a [[f32; 3]],
        tangents: &'a [[f32; 4]],
    ) -> MeshData<'a> {
        MeshData {
            positions,
            normals: Some(normals),
            tangents: Some(tangents),
            uv0: Some(&self.uvs),
            uv1: None,
            colors: None,
            indices: &self.indices,
            tangent_uv_set: Some(0),
        }
    }

    /// Target 0 stretches x and tilts normals; target 1 lifts the top,
    /// pushes it forward and turns normals and tangents.
    pub fn targets(&self) -> MorphTargets {
        let p = |i: usize| Vec3::from(self.positions[i]);
        let n = |i: usize| Vec3::from(self.normals[i]);
        let all = |f: &dyn Fn(usize) -> Vec3| {
            Some((0..self.positions.len()).map(|i| f(i).to_array()).collect())
        };
        MorphTargets {
            targets: vec![
                MorphTarget {
                    positions: all(&|i| Vec3::new(0.6 * p(i).x, 0.0, 0.0)),
                    normals: all(&|i| Vec3::new(-0.3 * n(i).x, 0.0, 0.0)),
                    tangents: None,
                },
                MorphTarget {
                    positions: all(&|i| {
                        let up = (p(i).y + 0.5).max(0.0);
                        Vec3::new(0.0, 0.5 * up, 0.4 * up * up)
                    }),
                    normals: all(&|i| Vec3::new(0.0, 0.0, 0.2 * n(i).y)),
                    tangents: all(&|_| Vec3::new(0.0, 0.2, 0.0)),
                },
            ],
            default_weights: vec![0.0, 0.0],
        }
    }
}

/// One node playing the sphere's two weights: LINEAR from (0, 0) at 0 s
/// to (1.3, 0.8) at 1 s (above 1: the reach's `max(1, |w|)` matters).
pub fn animation(targets: &MorphTargets) -> AnimationData {
    AnimationData {
        nodes: vec![AnimationNode {
            parent: None,
            source: 0,
            rest: NodeTransform::IDENTITY,
            weights: vec![0.0, 0.0],
        }],
        clips: vec![Clip {
            name: Some("morph".into()),
            duration: 1.0,
            samplers: vec![Sampler {
                times: vec![0.0, 1.0],
                values: vec![0.0, 0.0, 1.3, 0.8],
                components: 2,
                interpolation: Interpolation::Linear,
            }],
            channels: vec![Channel {
                node: 0,
                path: ChannelPath::Weights,
                sampler: 0,
            }],
        }],
        skins: vec![],
        meshes: vec![MeshDeformation {
            skin: None,
            morph: Some(targets.clone()),
        }],
        objects: vec![ObjectDriver {
            node: 0,
            mesh: 0,
            skin: None,
            node_from_object: Mat4::IDENTITY,
        }],
    }
}
