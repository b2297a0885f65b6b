//! What the baseline uploads, from either kind of scene: a procedural
//! [`SceneSpec`] here, a parsed glTF document in `gltf.rs`.

use glam::Mat4;

use unbound::camera::{Camera, Lighting};
use unbound::geometry::MeshData;
use unbound::heap::{Mips, SamplerDesc};
use unbound::lights::Light;
use unbound::loaders::gltf::GltfMaterial;
use unbound::materials::TextureRef;
use unbound_scenes::bench::SceneSpec;

use crate::textures::TextureInput;

/// A library material whose textures and samplers are indices into
/// [`SceneInput::textures`] and [`SceneInput::samplers`] (the naming of a
/// parsed glTF document).
pub(crate) type InputMaterial = GltfMaterial;

/// One object: its mesh and material (indices into [`SceneInput`]'s lists)
/// and placement.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InputObject {
    pub(crate) mesh: u32,
    pub(crate) material: u32,
    pub(crate) world_from_object: Mat4,
}

/// Everything the baseline uploads.
#[derive(Debug)]
pub(crate) struct SceneInput<'a> {
    pub(crate) textures: Vec<TextureInput<'a>>,
    pub(crate) samplers: Vec<SamplerDesc>,
    pub(crate) materials: Vec<InputMaterial>,
    pub(crate) meshes: Vec<MeshData<'a>>,
    pub(crate) objects: Vec<InputObject>,
    pub(crate) camera: Camera,
    pub(crate) lighting: Lighting,
    /// Punctual lights in world space, in slot order.
    pub(crate) lights: Vec<Light>,
}

impl<'a> SceneInput<'a> {
    /// A procedural scene: RGBA8 textures, one default sampler, the
    /// materials [`unbound_scenes::bench::SceneMaterial::material`] gives
    /// (as the bindless path loads them).
    pub(crate) fn from_spec(scene: &'a SceneSpec) -> Self {
        Self {
            textures: scene
                .textures
                .iter()
                .map(|t| TextureInput {
                    width: t.size,
                    height: t.size,
                    format: t.format(),
                    levels: vec![&t.data],
                    mips: Mips::Generate,
                })
                .collect(),
            samplers: vec![SamplerDesc::default()],
            materials: scene
                .materials
                .iter()
                .map(|m| m.material().map_textures(|&t| TextureRef::new(t, 0)))
                .collect(),
            meshes: scene.meshes.iter().map(|m| m.as_mesh_data()).collect(),
            objects: scene
                .objects
                .iter()
                .map(|o| InputObject {
                    mesh: o.mesh,
                    material: o.material,
                    world_from_object: o.world_from_object,
                })
                .collect(),
            camera: scene.camera,
            lighting: scene.lighting,
            lights: scene.lights.clone(),
        }
    }
}
