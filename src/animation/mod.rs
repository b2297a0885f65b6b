//! Animation: glTF node animation, skins and morph targets, as data and
//! as the CPU twins the GPU passes will be compared with.
//!
//! # Data model
//!
//! [`AnimationData`] is what a loaded scene animates, independent of any
//! file format (the glTF loader fills it, `src/loaders/gltf/animation.rs`;
//! this module imports nothing from the loaders):
//! - [`AnimationData::nodes`]: the scene's node hierarchy, every node of the
//!   scene (meshes, joints, empty nodes), flat and **parent before child**,
//!   so that composing world transforms is one forward loop
//!   ([`Pose::world_from_nodes`]). Each [`AnimationNode`] keeps its parent's
//!   index, its rest translation, rotation and scale ([`NodeTransform`]) and
//!   its rest morph weights.
//! - [`AnimationData::clips`]: each [`Clip`] has a name, a duration (its
//!   last key time; clips start at time 0), samplers ([`Sampler`]: key
//!   times, flat output values, [`Interpolation`]) and channels
//!   ([`Channel`]: a node, a [`ChannelPath`] and the sampler it reads).
//! - [`AnimationData::skins`]: each [`Skin`] names its joints (node
//!   indices), one inverse bind matrix per joint and the skeleton root.
//! - [`AnimationData::meshes`]: per mesh of the document, its side stream
//!   ([`MeshDeformation`]): joint indices and weights
//!   ([`SkinInfluences`], 4 or 8 per vertex) and morph targets
//!   ([`MorphTargets`]). The renderer's 40-byte vertex is not widened.
//! - [`AnimationData::objects`]: per object the scene places, the node
//!   that drives it, its mesh and its skin ([`ObjectDriver`]). glTF's rule
//!   holds: a skinned mesh's own node transform is ignored, its joints
//!   place it (its object transform is the scene's placement alone).
//!
//! # CPU twins
//!
//! Each step is a plain function, kept simple and exact, because the GPU
//! passes that will replace them are tested against them:
//! - sampling ([`Sampler::sample`], `sampling.rs`): STEP, LINEAR (rotations
//!   by shortest-path slerp, normalised) and CUBICSPLINE (glTF's Hermite
//!   form, tangents scaled by the key interval, rotations normalised after);
//!   before the first key the first value, after the last the last value;
//! - posing ([`Pose`], `pose.rs`): a clip at a time through [`Playback`]
//!   (start, speed, looping), or two blended ([`Pose::blend`]: translation
//!   and scale lerp, rotation slerp, weights lerp); world matrices composed
//!   in one forward loop; joint palettes `world(joint) * inverse_bind`;
//! - deformation ([`deform_vertex`], `deform.rs`): morph deltas first, then
//!   skinning with the palette; normals by the inverse transpose of the
//!   blended matrix, tangents by the matrix (handedness kept).
//!
//! # On the GPU
//!
//! [`AnimationTables`] (`gpu.rs`) lays an [`AnimationData`] out as the
//! playback pass reads it: key times, values and rest weights in one `f32`
//! table, the nodes (parent before child, rest TRS), clips, channels (each
//! with its sampler's record) and every skin's joints (inverse binds) in
//! one flat table, each row a twin in `crate::gpu_types` checked against
//! naga by `tests/layouts.rs`. They are uploaded once. Per instance the CPU
//! writes one 32-byte record (what plays: [`Playing`], clip indices,
//! starts, speeds, looping, blend weight) when it changes, and per frame
//! the time. The pass ([`crate::passes::animation`],
//! `wgsl/animation.wgsl`) samples, blends and composes with the CPU twins'
//! formulas (one thread per instance walks its nodes in order) and writes
//! node matrices, palettes and morph weights; `tests/animation_gpu.rs`
//! reads them back and compares them with the twins (1e-4 relative).
//!
//! Raster skinning: [`pack_influences`] packs a mesh's joints and weights
//! (16 bytes a vertex, the 4 heaviest influences) into the skin stream,
//! which shares one buffer with the pass's matrices (the deform buffer, so
//! that the draw's vertex stage binds 8 storage buffers, as every tier's
//! device contract allows). An object's record names its palette
//! (`GpuObject::skin`); `wgsl/pull.wgsl` blends the palette matrices
//! (`wgsl/skinning.wgsl`, the one skinning function every pass uses) and
//! folds them into `world_from_object`, so the camera's draw and every
//! shadow view pull the same deformed vertices, normals by the blended
//! matrix's cofactor. The 40-byte vertex and the arena are unchanged.
//!
//! Raster morphing: [`pack_morph_deltas`] packs a mesh's deltas (per
//! vertex and target 32 bytes: position and normal as `f32`, tangent as
//! `snorm16` over ±[`MORPH_TANGENT_RANGE`](crate::gpu_types::MORPH_TANGENT_RANGE)) into the deform buffer's delta
//! region, once per mesh; the weights the pass writes live in the same
//! buffer. An object's record names them (`GpuObject::morph_*`,
//! [`Renderer::set_object_morph`](crate::Renderer::set_object_morph)) and
//! `wgsl/morph.wgsl`'s `morph_vertex` (the one morph function every pass
//! uses) adds `Σ w·Δ` to the pulled vertex before
//! skinning (normal and tangent decoded, moved, renormalised, re-encoded),
//! as [`deform_vertex`] does.
//!
//! # Playing: [`AnimatedScene`]
//!
//! The glTF loader makes an [`AnimatedScene`] from a document and the
//! [`GltfScene`](crate::loaders::gltf::GltfScene) it uploaded
//! (`GltfDocument::animated_scene`); the application owns it next to the
//! scene's handles. [`AnimatedScene::pose_at`] moves the rigid objects
//! with [`Renderer::set_transform`](crate::Renderer::set_transform) (CPU)
//! and hands skinned objects to the GPU: the first call gives the renderer
//! the scene's animation ([`Renderer::set_animation`](crate::Renderer::set_animation),
//! one per renderer for now) and skins its objects
//! ([`Renderer::set_object_skin`](crate::Renderer::set_object_skin));
//! each call then sets what plays and the time
//! ([`Renderer::play_animation`](crate::Renderer::play_animation)).
//! [`AnimatedScene::posed_mesh`] deforms a mesh on the CPU (the reference
//! the GPU is tested against).
//!
//! # Bounds
//!
//! `bounds.rs`: per joint a sphere of the bind-pose vertices it moves
//! ([`joint_spheres`]); moved by a pose's palette and enclosed
//! ([`skinned_sphere`]) they contain the skinned mesh in that pose
//! (`tests/animation.rs` checks the Fox over 48 poses: within 1.06 × its
//! farthest vertex). The CPU twin of the GPU's per-object bound
//! (`src/passes/skin_bounds.rs`): each frame that plays, the GPU writes it
//! over a skinned object's bind-pose sphere before the cull, so culling
//! follows a swinging limb ([`SkinnedMesh`] carries the joint spheres to
//! [`Renderer::set_object_skin`](crate::Renderer::set_object_skin);
//! `tests/animation_culling.rs`). Morph deltas grow them by
//! [`morph_reach`] (see `bounds.rs`).
//!
//! The ray paths see the same pose: each traced skinned or morphed object
//! gets a BLAS of its deformed positions, morphed by `wgsl/morph.wgsl` and
//! skinned by `wgsl/skinning.wgsl` as the vertex pulling deforms them
//! (`src/rays/deform.rs`).
//!
//! Levels of detail (`src/lod/`) index their mesh's own arena vertices,
//! so a skinned or morphed object drawn on a simplified level is deformed
//! vertex for vertex as on the mesh; the level's error is the rest pose's
//! (`tests/animation_morph.rs`).
//!
//! Not yet: several animations per renderer (replacing one undeforms what
//! it deformed: `src/renderer/animation.rs`).

mod bounds;
mod deform;
mod error;
mod gpu;
mod pose;
mod sampling;
mod scene;

pub use bounds::{SkinnedMesh, joint_spheres, morph_reach, skinned_sphere};
pub use deform::{DeformedVertex, MorphTarget, MorphTargets, SkinInfluences, deform_vertex};
pub use error::{AnimationError, SamplerError};
pub use gpu::{AnimationTables, MORPH_ENTRIES_PER_DELTA, pack_influences, pack_morph_deltas};
pub use pose::{Playback, Playing, Pose, joint_palette};
pub use sampling::{Interpolation, Sampler, slerp};
pub use scene::{AnimatedScene, PosedMesh};

use glam::{Mat4, Quat, Vec3};

/// A node's local transform as glTF animates it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeTransform {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Scale.
    pub scale: Vec3,
}

impl Default for NodeTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl NodeTransform {
    /// No translation, rotation or scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// `parent_from_node`: translation * rotation * scale.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// One node of the hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationNode {
    /// Index of the parent in [`AnimationData::nodes`] (always lower than
    /// this node's), `None` for a root of the scene.
    pub parent: Option<usize>,
    /// The node's index in its source file (glTF node index).
    pub source: usize,
    /// Local transform at rest (a node given as a matrix is decomposed).
    pub rest: NodeTransform,
    /// Morph weights at rest (the node's `weights`, else its mesh's; empty
    /// without morph targets).
    pub weights: Vec<f32>,
}

/// What a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelPath {
    /// The node's translation (3 values).
    Translation,
    /// The node's rotation (4 values, a quaternion x, y, z, w).
    Rotation,
    /// The node's scale (3 values).
    Scale,
    /// The morph weights of the node's mesh (one value per target).
    Weights,
}

/// One animated property: which node, which path, which sampler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Channel {
    /// Index into [`AnimationData::nodes`].
    pub node: usize,
    /// What it animates.
    pub path: ChannelPath,
    /// Index into [`Clip::samplers`].
    pub sampler: usize,
}

/// One animation: samplers and the channels that read them.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// The animation's name, if any.
    pub name: Option<String>,
    /// Its last key time in seconds (a clip runs from 0 to its duration).
    pub duration: f32,
    /// Keyframe curves.
    pub samplers: Vec<Sampler>,
    /// Animated properties.
    pub channels: Vec<Channel>,
}

impl Clip {
    /// Keyframes of every sampler together (key times).
    pub fn keyframes(&self) -> usize {
        self.samplers.iter().map(|s| s.times.len()).sum()
    }
}

/// A skin: the joints that place a skinned mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// Joint `j` is node `joints[j]` of [`AnimationData::nodes`].
    pub joints: Vec<usize>,
    /// One per joint: `joint_from_mesh` at bind time.
    pub inverse_bind: Vec<Mat4>,
    /// The skeleton's root node, if the file names one (informative: glTF
    /// places skinned vertices by the joints' world transforms alone).
    pub skeleton: Option<usize>,
}

/// The side stream of one mesh: what deforms it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshDeformation {
    /// Joint indices and weights per vertex, if the mesh is skinned.
    pub skin: Option<SkinInfluences>,
    /// Morph targets, if it has any.
    pub morph: Option<MorphTargets>,
}

impl MeshDeformation {
    /// Whether the stream has one entry per vertex of a mesh of `vertices`
    /// vertices (influences, and each target's deltas).
    pub fn fits(&self, vertices: usize) -> bool {
        let skin = self.skin.as_ref().is_none_or(|s| {
            s.per_vertex > 0
                && s.joints.len() == vertices * s.per_vertex
                && s.weights.len() == s.joints.len()
        });
        let sized = |d: &Option<Vec<[f32; 3]>>| d.as_ref().is_none_or(|d| d.len() == vertices);
        let morph = self.morph.as_ref().is_none_or(|m| {
            m.targets
                .iter()
                .all(|t| sized(&t.positions) && sized(&t.normals) && sized(&t.tangents))
        });
        skin && morph
    }

    /// The stream over new vertices, vertex `i` a copy of vertex
    /// `sources[i]` (when generating tangents splits vertices). A source
    /// out of range is clamped to the last vertex (a valid `sources` never
    /// needs it). An empty stream stays empty.
    pub fn gathered(&self, sources: &[usize]) -> Self {
        let skin = self.skin.as_ref().map(|s| {
            if s.is_empty() {
                return s.clone();
            }
            let n = s.per_vertex;
            let last = s.len().saturating_sub(1);
            let (mut joints, mut weights) = (Vec::new(), Vec::new());
            for &source in sources {
                let v = source.min(last);
                joints.extend_from_slice(&s.joints[v * n..(v + 1) * n]);
                weights.extend_from_slice(&s.weights[v * n..(v + 1) * n]);
            }
            SkinInfluences {
                per_vertex: n,
                joints,
                weights,
            }
        });
        let gather = |deltas: &Option<Vec<[f32; 3]>>| {
            deltas.as_ref().map(|d| {
                if d.is_empty() {
                    return Vec::new();
                }
                let last = d.len().saturating_sub(1);
                sources.iter().map(|&s| d[s.min(last)]).collect()
            })
        };
        let morph = self.morph.as_ref().map(|m| MorphTargets {
            targets: m
                .targets
                .iter()
                .map(|t| MorphTarget {
                    positions: gather(&t.positions),
                    normals: gather(&t.normals),
                    tangents: gather(&t.tangents),
                })
                .collect(),
            default_weights: m.default_weights.clone(),
        });
        Self { skin, morph }
    }
}

/// What drives one object the scene places.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectDriver {
    /// Index into [`AnimationData::nodes`] of the node that places it.
    pub node: usize,
    /// The mesh it draws (index into [`AnimationData::meshes`]).
    pub mesh: usize,
    /// The skin that deforms it (index into [`AnimationData::skins`]):
    /// its node's transform is then ignored.
    pub skin: Option<usize>,
    /// `node_from_object`: identity, or an instance's transform
    /// (`EXT_mesh_gpu_instancing`).
    pub node_from_object: Mat4,
}

/// Everything a scene animates (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnimationData {
    /// The node hierarchy, parent before child.
    pub nodes: Vec<AnimationNode>,
    /// Animations.
    pub clips: Vec<Clip>,
    /// Skins.
    pub skins: Vec<Skin>,
    /// Per mesh, what deforms it (empty entries for rigid meshes).
    pub meshes: Vec<MeshDeformation>,
    /// Per placed object, in placement order, what drives it.
    pub objects: Vec<ObjectDriver>,
}

impl AnimationData {
    /// Whether anything moves or deforms.
    pub fn is_animated(&self) -> bool {
        !self.clips.is_empty()
            || self
                .meshes
                .iter()
                .any(|m| m.skin.is_some() || m.morph.is_some())
    }

    /// The clip named `name`, if any.
    pub fn clip_named(&self, name: &str) -> Option<usize> {
        self.clips
            .iter()
            .position(|c| c.name.as_deref() == Some(name))
    }

    /// Checks what the CPU twins index: parents before children, channels'
    /// nodes and samplers, skins' joints, inverse bind counts, drivers,
    /// sampler times and values ([`Sampler::validate`]).
    pub fn validate(&self) -> Result<(), AnimationError> {
        let nodes = self.nodes.len();
        for (i, node) in self.nodes.iter().enumerate() {
            if node.parent.is_some_and(|p| p >= i) {
                return Err(AnimationError::NodeOrder { node: i });
            }
        }
        for (c, clip) in self.clips.iter().enumerate() {
            for (s, sampler) in clip.samplers.iter().enumerate() {
                sampler
                    .validate()
                    .map_err(|reason| AnimationError::Sampler {
                        clip: c,
                        sampler: s,
                        reason,
                    })?;
            }
            for channel in &clip.channels {
                if channel.node >= nodes || channel.sampler >= clip.samplers.len() {
                    return Err(AnimationError::ChannelOutOfRange { clip: c });
                }
            }
        }
        for (s, skin) in self.skins.iter().enumerate() {
            if skin.inverse_bind.len() != skin.joints.len() {
                return Err(AnimationError::InverseBindCount {
                    skin: s,
                    joints: skin.joints.len(),
                    matrices: skin.inverse_bind.len(),
                });
            }
            if let Some(&joint) = skin.joints.iter().find(|&&j| j >= nodes) {
                return Err(AnimationError::JointNotInScene {
                    skin: s,
                    node: joint,
                });
            }
        }
        for (o, object) in self.objects.iter().enumerate() {
            let skin_ok = object.skin.is_none_or(|s| s < self.skins.len());
            if object.node >= nodes || object.mesh >= self.meshes.len() || !skin_ok {
                return Err(AnimationError::DriverOutOfRange { object: o });
            }
        }
        Ok(())
    }
}
