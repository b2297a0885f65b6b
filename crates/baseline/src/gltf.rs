//! A parsed glTF document into the baseline: the same document the bindless
//! path uploads with `GltfDocument::upload`.

use glam::Mat4;

use unbound::camera::{Camera, Lighting};
use unbound::loaders::gltf::{GltfDocument, TexelData};

use crate::scene::{InputObject, SceneInput};
use crate::textures::TextureInput;
use crate::{BaselineError, BaselineRenderer};

impl BaselineRenderer {
    /// Uploads a parsed glTF document the classic way, placed by
    /// `world_from_scene` (as [`GltfDocument::upload`]
    /// places it): per material a bind group with its textures and samplers.
    /// Block-compressed textures need `TEXTURE_COMPRESSION_BC` on `device`
    /// ([`BaselineError::MissingFeature`] otherwise), and materials must be
    /// valid ([`BaselineError::Material`]), checked before anything is
    /// created.
    pub fn from_gltf(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        document: &GltfDocument,
        world_from_scene: Mat4,
        camera: &Camera,
        lighting: &Lighting,
        color_format: wgpu::TextureFormat,
    ) -> Result<Self, BaselineError> {
        for (texture, t) in document.textures.iter().enumerate() {
            let format = t.format();
            let missing = format.required_features() - device.features();
            if !missing.is_empty() {
                return Err(BaselineError::MissingFeature {
                    texture,
                    format,
                    missing,
                });
            }
        }
        let input = scene_input(document, world_from_scene, camera, lighting);
        Self::build(device, queue, &input, color_format)
    }
}

/// The document as the baseline uploads it: textures with their levels,
/// samplers and materials as they are (textures by index), one object per
/// placement.
fn scene_input<'a>(
    document: &'a GltfDocument,
    world_from_scene: Mat4,
    camera: &Camera,
    lighting: &Lighting,
) -> SceneInput<'a> {
    SceneInput {
        textures: document
            .textures
            .iter()
            .map(|t| TextureInput {
                width: t.width,
                height: t.height,
                format: t.format(),
                levels: match &t.data {
                    TexelData::Rgba8(rgba) => vec![rgba.as_slice()],
                    TexelData::Compressed { levels, .. } => {
                        levels.iter().map(Vec::as_slice).collect()
                    }
                },
            })
            .collect(),
        samplers: document.samplers.clone(),
        materials: document.materials.clone(),
        meshes: document.meshes.iter().map(|m| m.as_mesh_data()).collect(),
        objects: document
            .placements
            .iter()
            .map(|p| InputObject {
                mesh: p.mesh as u32,
                material: document.meshes[p.mesh].material as u32,
                world_from_object: world_from_scene * p.scene_from_object,
            })
            .collect(),
        camera: *camera,
        lighting: *lighting,
    }
}
