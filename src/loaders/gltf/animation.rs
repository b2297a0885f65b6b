//! Animation data of a glTF file into [`AnimationData`]: the default
//! scene's node hierarchy (parent before child), clips, the skins its nodes
//! use, and per primitive its side stream (skin influences, morph targets).
//!
//! - Skin influences: `JOINTS_0`/`WEIGHTS_0` and `JOINTS_1`/`WEIGHTS_1`
//!   (joints unsigned bytes or shorts; weights floats or normalised
//!   unsigned bytes or shorts). Weights are renormalised to sum to 1; a
//!   vertex whose sum was off by more than 1% is counted in one warning,
//!   and one without a usable weight is bound to its first joint (another
//!   warning). A joint index beyond the skin of a node that draws the
//!   primitive is [`AnimationError::JointOutOfRange`].
//! - Morph targets: POSITION, NORMAL and TANGENT deltas, floats or the
//!   signed byte and short encodings `KHR_mesh_quantization` allows (with
//!   it only); every primitive of a mesh must have as many targets, and
//!   the mesh's and nodes' `weights` one per target
//!   ([`AnimationError::MorphTargetCount`]).
//! - Skins: every joint must be a node of the scene
//!   ([`AnimationError::JointNotInScene`]), one finite inverse bind matrix
//!   per joint (identity without the accessor). gltfpack folds position
//!   dequantisation into them; nothing more is needed here.
//! - Clips: each channel on a node of the scene, its sampler's times and
//!   values checked by [`Sampler::validate`](crate::animation::Sampler::validate)
//!   (times backwards or NaN, values NaN or infinite, output counts). A
//!   channel on a node outside the scene, or animating the weights of a
//!   node without morph targets, cannot be played: dropped, counted in one
//!   warning.
//!
//! Everything read here is charged to [`Limit::AnimationValues`] (scalars:
//! key times, output components, joint indices and weights, morph deltas,
//! 16 per inverse bind matrix) before it is read, and each accessor to
//! [`Limit::AccessorElements`].

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use gltf::accessor::{DataType, Dimensions};

use super::accessors::{read_floats, read_integers};
use super::buffers::Buffers;
use super::checks::check_accessor;
use super::limits::Limit;
use super::stage::Parser;
use super::weights::{WeightRepairs, renormalise};
use super::{GltfError, GltfMesh, GltfPlacement};
use crate::animation::{
    AnimationData, AnimationError, AnimationNode, MeshDeformation, MorphTarget, MorphTargets,
    NodeTransform, ObjectDriver, Skin, SkinInfluences,
};

impl Parser<'_, '_, '_> {
    pub(super) fn animation_error(&self, source: AnimationError) -> GltfError {
        GltfError::Animation {
            path: self.path.to_owned(),
            source,
        }
    }

    /// Checks `accessor`'s count and charges it before it is read.
    pub(super) fn charge_accessor(
        &mut self,
        accessor: &gltf::Accessor<'_>,
        components: usize,
    ) -> Result<(), GltfError> {
        let count = accessor.count() as u64;
        self.budget.check(Limit::AccessorElements, count)?;
        self.budget.charge(
            Limit::AnimationValues,
            count.saturating_mul(components as u64),
        )
    }

    /// A triangle primitive's side stream: skin influences and morph
    /// targets (see the module docs).
    pub(super) fn read_deformation(
        &mut self,
        buffers: &Buffers,
        (mesh, primitive): (&gltf::Mesh<'_>, &gltf::Primitive<'_>),
        quantized: bool,
        repairs: &mut WeightRepairs,
    ) -> Result<MeshDeformation, GltfError> {
        let vertices = primitive
            .get(&gltf::Semantic::Positions)
            .map_or(0, |a| a.count());
        let skin = self.read_influences(buffers, (mesh, primitive), vertices, repairs)?;
        let morph = self.read_morph_targets(buffers, (mesh, primitive), vertices, quantized)?;
        Ok(MeshDeformation { skin, morph })
    }

    fn read_influences(
        &mut self,
        buffers: &Buffers,
        (mesh, primitive): (&gltf::Mesh<'_>, &gltf::Primitive<'_>),
        vertices: usize,
        repairs: &mut WeightRepairs,
    ) -> Result<Option<SkinInfluences>, GltfError> {
        use DataType::{F32, U8, U16};
        let at = format!("mesh {} primitive {}", mesh.index(), primitive.index());
        let mut sets = Vec::new();
        for set in 0..2 {
            let joints = primitive.get(&gltf::Semantic::Joints(set));
            let weights = primitive.get(&gltf::Semantic::Weights(set));
            match (joints, weights) {
                (Some(j), Some(w)) => sets.push((j, w)),
                (None, None) => {}
                _ => {
                    return Err(self.invalid(format!(
                        "{at}: JOINTS_{set} and WEIGHTS_{set} must come together"
                    )));
                }
            }
        }
        if sets.is_empty() {
            return Ok(None);
        }
        for (j, w) in &sets {
            check_accessor(
                j,
                "JOINTS",
                &[(U8, Dimensions::Vec4), (U16, Dimensions::Vec4)],
            )
            .and_then(|()| {
                let allowed = [
                    (F32, Dimensions::Vec4),
                    (U8, Dimensions::Vec4),
                    (U16, Dimensions::Vec4),
                ];
                check_accessor(w, "WEIGHTS", &allowed)
            })
            .map_err(|e| self.invalid(format!("{at}: {e}")))?;
            if w.data_type() != F32 && !w.normalized() {
                return Err(self.invalid(format!(
                    "{at}: WEIGHTS accessor {} is not normalized",
                    w.index()
                )));
            }
            for accessor in [j, w] {
                if accessor.count() != vertices {
                    return Err(self.invalid(format!(
                        "{at}: accessor {} has {} elements, POSITION has {vertices}",
                        accessor.index(),
                        accessor.count()
                    )));
                }
                self.charge_accessor(accessor, 4)?;
            }
        }
        let per_vertex = 4 * sets.len();
        let mut joints = vec![0u16; vertices * per_vertex];
        let mut weights = vec![0f32; vertices * per_vertex];
        for (s, (j, w)) in sets.iter().enumerate() {
            let error = |e: String| self.invalid(format!("{at}: {e}"));
            let read_joints = read_integers::<4>(buffers, j).map_err(error)?;
            let read_weights = read_floats::<4>(buffers, w).map_err(error)?;
            for (v, (js, ws)) in read_joints.iter().zip(&read_weights).enumerate() {
                for c in 0..4 {
                    // Unsigned bytes or shorts: at most u16::MAX.
                    joints[v * per_vertex + 4 * s + c] = js[c] as u16;
                    weights[v * per_vertex + 4 * s + c] = ws[c];
                }
            }
        }
        for vertex in weights.chunks_mut(per_vertex) {
            renormalise(vertex, repairs);
        }
        Ok(Some(SkinInfluences {
            per_vertex,
            joints,
            weights,
        }))
    }

    fn read_morph_targets(
        &mut self,
        buffers: &Buffers,
        (mesh, primitive): (&gltf::Mesh<'_>, &gltf::Primitive<'_>),
        vertices: usize,
        quantized: bool,
    ) -> Result<Option<MorphTargets>, GltfError> {
        use DataType::{F32, I8, I16};
        let at = format!("mesh {} primitive {}", mesh.index(), primitive.index());
        let mut targets = Vec::new();
        for (t, target) in primitive.morph_targets().enumerate() {
            let mut read = |accessor: Option<gltf::Accessor<'_>>, name: &str, normalised: bool| {
                let Some(accessor) = accessor else {
                    return Ok(None);
                };
                let mut allowed = vec![(F32, Dimensions::Vec3)];
                if quantized {
                    allowed.extend([(I8, Dimensions::Vec3), (I16, Dimensions::Vec3)]);
                }
                check_accessor(&accessor, name, &allowed)
                    .map_err(|e| self.invalid(format!("{at}: morph target {t}: {e}")))?;
                if normalised && accessor.data_type() != F32 && !accessor.normalized() {
                    return Err(self.invalid(format!(
                        "{at}: morph target {t}: {name} accessor {} is not normalized",
                        accessor.index()
                    )));
                }
                if accessor.count() != vertices {
                    return Err(self.animation_error(AnimationError::MorphTargetCount {
                        mesh: mesh.index(),
                        what: "elements of a morph target accessor",
                        found: accessor.count(),
                        expected: vertices,
                    }));
                }
                self.charge_accessor(&accessor, 3)?;
                let deltas = read_floats::<3>(buffers, &accessor)
                    .map_err(|e| self.invalid(format!("{at}: {e}")))?;
                if deltas.iter().flatten().any(|d| !d.is_finite()) {
                    return Err(self.animation_error(AnimationError::NonFiniteMorphTarget {
                        mesh: mesh.index(),
                        primitive: primitive.index(),
                        target: t,
                    }));
                }
                Ok(Some(deltas))
            };
            targets.push(MorphTarget {
                positions: read(target.positions(), "POSITION", false)?,
                normals: read(target.normals(), "NORMAL", true)?,
                tangents: read(target.tangents(), "TANGENT", true)?,
            });
        }
        if targets.is_empty() {
            return Ok(None);
        }
        let default_weights = match mesh.weights() {
            Some(weights) if weights.len() != targets.len() => {
                return Err(self.animation_error(AnimationError::MorphTargetCount {
                    mesh: mesh.index(),
                    what: "weights of the mesh",
                    found: weights.len(),
                    expected: targets.len(),
                }));
            }
            Some(weights) => weights.to_vec(),
            None => vec![0.0; targets.len()],
        };
        Ok(Some(MorphTargets {
            targets,
            default_weights,
        }))
    }
}

/// The default scene's nodes (else the first scene's), parent before
/// child (breadth first), with the glTF node each comes from, its parent
/// and its world transform as `place` composes it.
struct Hierarchy {
    /// Per glTF node, its index in the hierarchy.
    index_of: Vec<Option<usize>>,
    /// Per hierarchy node: glTF node, parent.
    nodes: Vec<(usize, Option<usize>)>,
    /// Per glTF node: `scene_from_node` from the file's matrices.
    world: Vec<Mat4>,
}

fn hierarchy(document: &gltf::Document) -> Hierarchy {
    let count = document.nodes().count();
    let mut out = Hierarchy {
        index_of: vec![None; count],
        nodes: Vec::new(),
        world: vec![Mat4::IDENTITY; count],
    };
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next());
    let mut queue: std::collections::VecDeque<(gltf::Node<'_>, Option<usize>)> = scene
        .iter()
        .flat_map(|s| s.nodes())
        .map(|n| (n, None))
        .collect();
    while let Some((node, parent)) = queue.pop_front() {
        if out.index_of[node.index()].is_some() {
            continue;
        }
        let index = out.nodes.len();
        out.index_of[node.index()] = Some(index);
        out.nodes.push((node.index(), parent));
        let parent_world = parent.map_or(Mat4::IDENTITY, |p| out.world[out.nodes[p].0]);
        out.world[node.index()] =
            parent_world * Mat4::from_cols_array_2d(&node.transform().matrix());
        queue.extend(node.children().map(|child| (child, Some(index))));
    }
    out
}

/// A node's rest transform: its TRS, or its matrix decomposed (a matrix
/// that does not decompose keeps its translation and column lengths).
fn rest_transform(node: &gltf::Node<'_>) -> NodeTransform {
    let (t, r, s) = node.transform().decomposed();
    let rest = NodeTransform {
        translation: Vec3::from(t),
        rotation: Quat::from_array(r),
        scale: Vec3::from(s),
    };
    if rest.translation.is_finite() && rest.rotation.is_finite() && rest.scale.is_finite() {
        return rest;
    }
    let m = Mat4::from_cols_array_2d(&node.transform().matrix());
    NodeTransform {
        translation: m.w_axis.truncate(),
        rotation: Quat::IDENTITY,
        scale: Vec3::new(
            m.x_axis.truncate().length(),
            m.y_axis.truncate().length(),
            m.z_axis.truncate().length(),
        ),
    }
}

impl Parser<'_, '_, '_> {
    /// The document's [`AnimationData`]: `placements` and `meshes` as
    /// parsed, `deformations` one per mesh (see the module docs).
    pub(super) fn animation_data(
        &mut self,
        document: &gltf::Document,
        buffers: &Buffers,
        (placements, meshes, deformations): (&[GltfPlacement], &[GltfMesh], Vec<MeshDeformation>),
        warnings: &mut Vec<String>,
    ) -> Result<AnimationData, GltfError> {
        // Morph targets per glTF mesh: every primitive must have as many.
        let mut targets_of: HashMap<usize, usize> = HashMap::new();
        for (mesh, deformation) in meshes.iter().zip(&deformations) {
            let count = deformation.morph.as_ref().map_or(0, |m| m.targets.len());
            let expected = *targets_of.entry(mesh.mesh).or_insert(count);
            if count != expected {
                return Err(self.animation_error(AnimationError::MorphTargetCount {
                    mesh: mesh.mesh,
                    what: "morph targets of a primitive",
                    found: count,
                    expected,
                }));
            }
        }
        let tree = hierarchy(document);
        let gltf_nodes: Vec<gltf::Node<'_>> = document.nodes().collect();
        let mut nodes = Vec::with_capacity(tree.nodes.len());
        for &(source, parent) in &tree.nodes {
            let node = &gltf_nodes[source];
            let targets = node
                .mesh()
                .and_then(|m| targets_of.get(&m.index()).copied())
                .unwrap_or(0);
            let weights = match (node.weights(), node.mesh()) {
                (Some(w), Some(mesh)) if w.len() != targets => {
                    return Err(self.animation_error(AnimationError::MorphTargetCount {
                        mesh: mesh.index(),
                        what: "weights of a node drawing it",
                        found: w.len(),
                        expected: targets,
                    }));
                }
                (Some(w), Some(_)) => w.to_vec(),
                _ => node
                    .mesh()
                    .and_then(|m| m.weights())
                    .map(<[f32]>::to_vec)
                    .unwrap_or_else(|| vec![0.0; targets]),
            };
            nodes.push(AnimationNode {
                parent,
                source,
                rest: rest_transform(node),
                weights,
            });
        }
        let mut data = AnimationData {
            nodes,
            meshes: deformations,
            ..AnimationData::default()
        };
        self.drivers(&gltf_nodes, buffers, &tree, placements, meshes, &mut data)?;
        data.clips = self.read_clips(document, buffers, &tree.index_of, &data, warnings)?;
        Ok(data)
    }

    /// Per placement its [`ObjectDriver`], and the skins they use (in
    /// order of first use).
    fn drivers(
        &mut self,
        gltf_nodes: &[gltf::Node<'_>],
        buffers: &Buffers,
        tree: &Hierarchy,
        placements: &[GltfPlacement],
        meshes: &[GltfMesh],
        data: &mut AnimationData,
    ) -> Result<(), GltfError> {
        let mut skin_of: HashMap<usize, usize> = HashMap::new();
        let mut checked = std::collections::HashSet::new();
        for placement in placements {
            let node = &gltf_nodes[placement.node];
            let index =
                tree.index_of[placement.node].expect("placements are made from the scene's nodes");
            let world = tree.world[placement.node];
            let node_from_object = if placement.scene_from_object == world {
                Mat4::IDENTITY
            } else {
                world.inverse() * placement.scene_from_object
            };
            let influences = data.meshes[placement.mesh].skin.as_ref();
            let skin = match (node.skin(), influences) {
                (Some(skin), Some(influences)) => {
                    let compact = match skin_of.get(&skin.index()) {
                        Some(&s) => s,
                        None => {
                            let read = self.read_skin(&skin, buffers, &tree.index_of)?;
                            data.skins.push(read);
                            skin_of.insert(skin.index(), data.skins.len() - 1);
                            data.skins.len() - 1
                        }
                    };
                    let joints = data.skins[compact].joints.len();
                    let mesh = &meshes[placement.mesh];
                    // Each mesh and skin once, however many instances.
                    let unchecked = checked.insert((placement.mesh, compact));
                    if let Some(vertex) = unchecked
                        .then(|| {
                            (0..influences.len())
                                .find(|&v| influences.of(v).any(|(j, _)| j >= joints))
                        })
                        .flatten()
                    {
                        let joint = influences.of(vertex).map(|(j, _)| j).max().unwrap_or(0);
                        return Err(self.animation_error(AnimationError::JointOutOfRange {
                            mesh: mesh.mesh,
                            primitive: mesh.primitive,
                            vertex,
                            joint: joint as u32,
                            joints,
                        }));
                    }
                    Some(compact)
                }
                _ => None,
            };
            data.objects.push(ObjectDriver {
                node: index,
                mesh: placement.mesh,
                skin,
                node_from_object,
            });
        }
        Ok(())
    }

    fn read_skin(
        &mut self,
        skin: &gltf::Skin<'_>,
        buffers: &Buffers,
        index_of: &[Option<usize>],
    ) -> Result<Skin, GltfError> {
        let mut joints = Vec::new();
        for joint in skin.joints() {
            let index = index_of[joint.index()].ok_or_else(|| {
                self.animation_error(AnimationError::JointNotInScene {
                    skin: skin.index(),
                    node: joint.index(),
                })
            })?;
            joints.push(index);
        }
        let inverse_bind = match skin.inverse_bind_matrices() {
            None => vec![Mat4::IDENTITY; joints.len()],
            Some(accessor) => {
                let allowed = [(DataType::F32, Dimensions::Mat4)];
                check_accessor(&accessor, "inverseBindMatrices", &allowed)
                    .map_err(|e| self.invalid(format!("skin {}: {e}", skin.index())))?;
                if accessor.count() != joints.len() {
                    return Err(self.animation_error(AnimationError::InverseBindCount {
                        skin: skin.index(),
                        joints: joints.len(),
                        matrices: accessor.count(),
                    }));
                }
                self.charge_accessor(&accessor, 16)?;
                let read = read_floats::<16>(buffers, &accessor)
                    .map_err(|e| self.invalid(format!("skin {}: {e}", skin.index())))?;
                let matrices: Vec<Mat4> = read.iter().map(Mat4::from_cols_array).collect();
                if let Some(joint) = matrices.iter().position(|m| !m.is_finite()) {
                    return Err(self.animation_error(AnimationError::NonFiniteInverseBind {
                        skin: skin.index(),
                        joint,
                    }));
                }
                matrices
            }
        };
        Ok(Skin {
            joints,
            inverse_bind,
            skeleton: skin.skeleton().and_then(|s| index_of[s.index()]),
        })
    }
}
