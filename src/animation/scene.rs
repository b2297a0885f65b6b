//! [`AnimatedScene`]: the objects a loaded scene placed, plus its node
//! hierarchy, clips, skins and morph targets, played at a time.
//!
//! It keeps one clock's worth of state: what plays (nothing, one
//! [`Playback`], or two blended). Posing is explicit: the application (or a
//! test, or a tool) calls [`AnimatedScene::pose_at`] with the time to show.
//! Rigid objects are moved through [`Renderer::set_transform`]; skinned
//! objects are skinned on the GPU (the renderer's animation, see
//! [`AnimatedScene::pose_at`]), and so are morphed objects;
//! [`AnimatedScene::posed_mesh`] deforms a mesh on the CPU (the GPU's
//! reference).

use glam::{Mat4, Vec3, Vec4};

use super::pose::{Playback, Playing};
use super::{
    AnimationData, AnimationError, DeformedVertex, Pose, SkinnedMesh, deform_vertex, joint_palette,
    morph_reach,
};
use crate::errors::Error;
use crate::geometry::MeshData;
use crate::handles::ObjectHandle;
use crate::renderer::Renderer;

/// An owned triangle mesh: a deformable mesh's rest geometry, or one
/// posed by [`AnimatedScene::posed_mesh`] (draw it with
/// [`PosedMesh::as_mesh_data`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PosedMesh {
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Tangents (handedness in `w`).
    pub tangents: Option<Vec<[f32; 4]>>,
    /// First UV set.
    pub uv0: Option<Vec<[f32; 2]>>,
    /// Second UV set.
    pub uv1: Option<Vec<[f32; 2]>>,
    /// Linear RGBA vertex colours.
    pub colors: Option<Vec<[f32; 4]>>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// See [`MeshData::tangent_uv_set`].
    pub tangent_uv_set: Option<u32>,
}

impl PosedMesh {
    /// The mesh as the arena takes it.
    pub fn as_mesh_data(&self) -> MeshData<'_> {
        MeshData {
            positions: &self.positions,
            normals: self.normals.as_deref(),
            tangents: self.tangents.as_deref(),
            uv0: self.uv0.as_deref(),
            uv1: self.uv1.as_deref(),
            colors: self.colors.as_deref(),
            indices: &self.indices,
            tangent_uv_set: self.tangent_uv_set,
        }
    }
}

/// A scene's objects and their animation, played at a time (see the
/// module docs). Made by the glTF loader (`GltfDocument::animated_scene`)
/// or from parts with [`AnimatedScene::new`].
#[derive(Clone, Debug)]
pub struct AnimatedScene {
    data: AnimationData,
    objects: Vec<ObjectHandle>,
    world_from_scene: Mat4,
    rest_meshes: Vec<Option<PosedMesh>>,
    playing: Playing,
    /// The renderer's animation this scene gave it
    /// (`Renderer::animation_id`), while its skinned and morphed objects
    /// are deformed on the GPU by it.
    on_gpu: Option<u64>,
}

impl AnimatedScene {
    /// `objects[i]` is driven by `data.objects[i]` (or `objects` is empty:
    /// a scene not in a renderer, posed for its meshes alone, which
    /// [`AnimatedScene::pose_at`] does not move); the scene is placed by
    /// `world_from_scene`; `rest_meshes[m]` is mesh `m`'s geometry where it
    /// deforms (skinned or morphed; `None` elsewhere). Checks `data`
    /// ([`AnimationData::validate`]) and that the lists agree.
    pub fn new(
        data: AnimationData,
        objects: Vec<ObjectHandle>,
        world_from_scene: Mat4,
        rest_meshes: Vec<Option<PosedMesh>>,
    ) -> Result<Self, AnimationError> {
        data.validate()?;
        if !objects.is_empty() && objects.len() != data.objects.len() {
            return Err(AnimationError::DriverOutOfRange {
                object: objects.len().min(data.objects.len()),
            });
        }
        Ok(Self {
            data,
            objects,
            world_from_scene,
            rest_meshes,
            playing: Playing::Nothing,
            on_gpu: None,
        })
    }

    /// The animation data.
    pub fn data(&self) -> &AnimationData {
        &self.data
    }

    /// The objects, in [`AnimationData::objects`] order.
    pub fn objects(&self) -> &[ObjectHandle] {
        &self.objects
    }

    /// Plays one clip (replacing what played).
    pub fn play(&mut self, playback: Playback) {
        self.playing = Playing::One(playback);
    }

    /// Plays two clips blended: `weight` 0 shows `a`, 1 shows `b`.
    pub fn blend(&mut self, a: Playback, b: Playback, weight: f32) {
        self.playing = Playing::Blend(a, b, weight);
    }

    /// Plays nothing: the rest pose.
    pub fn stop(&mut self) {
        self.playing = Playing::Nothing;
    }

    /// What plays.
    pub fn playing(&self) -> Playing {
        self.playing
    }

    /// Plays `playing` (what [`AnimatedScene::playing`] returned, or one of
    /// [`AnimatedScene::play`], [`AnimatedScene::blend`] and
    /// [`AnimatedScene::stop`] in one value).
    pub fn set_playing(&mut self, playing: Playing) {
        self.playing = playing;
    }

    /// Every node's local transform and weights at scene time `time`.
    pub fn pose(&self, time: f32) -> Pose {
        Pose::playing(&self.data, &self.playing, time)
    }

    /// `world_from_object` of each object at `time`: the scene's placement
    /// times its node's world transform (and its instance transform); for
    /// a skinned object the scene's placement alone (glTF ignores a skinned
    /// mesh's node: [`AnimatedScene::posed_mesh`] is in scene space).
    pub fn world_from_objects(&self, time: f32) -> Vec<Mat4> {
        let world = self.pose(time).world_from_nodes(&self.data);
        self.data
            .objects
            .iter()
            .map(|driver| match driver.skin {
                Some(_) => self.world_from_scene,
                None => self.world_from_scene * world[driver.node] * driver.node_from_object,
            })
            .collect()
    }

    /// Mesh `mesh`'s skin influences (none: not skinned) and the joint
    /// spheres of its rest positions under skin `skin`: what
    /// [`Renderer::set_object_skin`] takes for an object drawing it.
    pub fn skinned_mesh(&self, mesh: usize, skin: usize) -> Option<SkinnedMesh<'_>> {
        let influences = self.data.meshes.get(mesh)?.skin.as_ref()?;
        let joints = self.data.skins.get(skin)?.joints.len();
        let rest = self.rest_meshes.get(mesh).and_then(Option::as_ref);
        let positions = rest.map_or(&[][..], |r| &r.positions[..]);
        Some(SkinnedMesh::new(influences, positions, joints))
    }

    /// Poses the scene at `time`: rigid objects are moved to their
    /// nodes' transforms ([`Renderer::set_transform`], on the CPU);
    /// skinned objects are skinned on the GPU. The first call gives the
    /// renderer this scene's animation ([`Renderer::set_animation`], one
    /// instance; it replaces any other animation, see
    /// `src/renderer/animation.rs`) and points each skinned object at its
    /// palette ([`Renderer::set_object_skin`], placed at the scene's
    /// placement); every call then hands over what plays and the time
    /// ([`Renderer::play_animation`]): the renderer's next frame samples
    /// the clip, composes the joints and skins in its raster passes.
    /// If another [`Renderer::set_animation`] replaced this scene's
    /// animation since (or `renderer` is another renderer), the call
    /// changes nothing and returns [`AnimationError::Replaced`]; the next
    /// call gives the renderer this scene's animation again.
    /// Objects with morph targets are morphed on the GPU too
    /// ([`Renderer::set_object_morph`], with the weights their node plays;
    /// their bounds grow by [`morph_reach`] under the node's
    /// [`AnimationData::weight_bounds`]).
    pub fn pose_at(&mut self, renderer: &mut Renderer, time: f32) -> Result<(), Error> {
        let morph_of = |mesh: usize| self.data.meshes.get(mesh).and_then(|m| m.morph.as_ref());
        let deformed = self
            .data
            .objects
            .iter()
            .any(|d| d.skin.is_some() || morph_of(d.mesh).is_some());
        if self
            .on_gpu
            .is_some_and(|id| renderer.animation_id() != Some(id))
        {
            // Another animation replaced this one: its tables are not ours.
            self.on_gpu = None;
            return Err(AnimationError::Replaced.into());
        }
        if deformed && !self.objects.is_empty() && self.on_gpu.is_none() {
            renderer.set_animation(&self.data, 1)?;
            for (driver, &object) in self.data.objects.iter().zip(&self.objects) {
                let morph = morph_of(driver.mesh);
                let reach = morph.map_or(0.0, |m| {
                    morph_reach(m, &self.data.weight_bounds(driver.node))
                });
                if morph.is_some() {
                    renderer.set_object_morph(object, morph, 0, driver.node, reach)?;
                }
                if let Some(skin) = driver.skin {
                    let skinned = self
                        .skinned_mesh(driver.mesh, skin)
                        .map(|s| s.with_reach(reach));
                    renderer.set_object_skin(object, skinned.as_ref(), 0, skin)?;
                }
            }
            self.on_gpu = renderer.animation_id();
        }
        if self.on_gpu.is_some() {
            renderer.play_animation(&[self.playing], time)?;
        }
        let transforms = self.world_from_objects(time);
        for ((driver, &object), transform) in
            self.data.objects.iter().zip(&self.objects).zip(transforms)
        {
            if driver.skin.is_none() || self.on_gpu.is_some() {
                renderer.set_transform(object, transform)?;
            }
        }
        Ok(())
    }

    /// Mesh `mesh` deformed at `time` on the CPU (a mesh without normals
    /// gets the normals the renderer computes for its rest pose, deformed):
    /// morphed with the weights
    /// of the first object that draws it (else the mesh's default
    /// weights), then skinned with skin `skin` if given (positions are then
    /// in scene space: draw it at the scene's placement). `None` if the
    /// mesh does not deform, an index is out of range or the mesh's stream
    /// does not have one entry per vertex. The reference the
    /// GPU's deformation will be compared with.
    pub fn posed_mesh(&self, mesh: usize, skin: Option<usize>, time: f32) -> Option<PosedMesh> {
        let rest = self.rest_meshes.get(mesh)?.as_ref()?;
        let deformation = self.data.meshes.get(mesh)?;
        if !deformation.fits(rest.positions.len()) {
            return None;
        }
        let pose = self.pose(time);
        let world = pose.world_from_nodes(&self.data);
        let palette = match skin {
            Some(s) => Some(joint_palette(self.data.skins.get(s)?, &world)),
            None => None,
        };
        let weights = match self.data.objects.iter().find(|d| d.mesh == mesh) {
            Some(driver) => pose.weights[driver.node].clone(),
            None => deformation
                .morph
                .as_ref()
                .map(|m| m.default_weights.clone())
                .unwrap_or_default(),
        };
        let morph = deformation.morph.as_ref().map(|m| (m, weights.as_slice()));
        let skinning = match (&deformation.skin, &palette) {
            (Some(influences), Some(palette)) => Some((influences, palette.as_slice())),
            _ => None,
        };
        // Without normals, those the renderer computes for the rest pose
        // (area-weighted), deformed: what the GPU's skinning draws.
        let rest_normals = rest.as_mesh_data().vertex_normals();
        let mut posed = rest.clone();
        posed.normals = Some(vec![[0.0; 3]; rest.positions.len()]);
        for v in 0..rest.positions.len() {
            let vertex = DeformedVertex {
                position: Vec3::from(rest.positions[v]),
                normal: rest_normals.get(v).copied().unwrap_or(Vec3::Z),
                tangent: rest.tangents.as_ref().map_or(Vec4::X, |t| Vec4::from(t[v])),
            };
            let out = deform_vertex(vertex, v, morph, skinning);
            posed.positions[v] = out.position.to_array();
            if let Some(normals) = posed.normals.as_mut() {
                normals[v] = out.normal.to_array();
            }
            if let Some(tangents) = posed.tangents.as_mut() {
                tangents[v] = out.tangent.to_array();
            }
        }
        Some(posed)
    }
}
