//! A parsed glTF document into the baseline: the same document the bindless
//! path uploads with `GltfDocument::upload`, a missing image as the heap's
//! missing texture (`unbound::heap::MISSING_TEXTURE`).

use glam::Mat4;

use unbound::camera::{Camera, Lighting};
use unbound::heap::{MISSING_TEXTURE, Mips};
use unbound::loaders::gltf::{GltfDocument, TexelData};

use crate::scene::{InputObject, SceneInput};
use crate::textures::TextureInput;
use crate::{BaselineError, BaselineRenderer};

impl BaselineRenderer {
    /// Uploads a parsed glTF document the classic way, placed by
    /// `world_from_scene` (as [`GltfDocument::upload`]
    /// places it): per material a bind group with its textures and samplers.
    /// Checked before anything is created: the document must hold together
    /// ([`GltfDocument::validate`], else [`BaselineError::Document`]),
    /// textures must fit the device ([`BaselineError::TextureSize`]) and
    /// block-compressed ones need `TEXTURE_COMPRESSION_BC`
    /// ([`BaselineError::MissingFeature`]), and materials and lights must
    /// be valid ([`BaselineError::Material`], [`BaselineError::Light`]).
    pub fn from_gltf(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        document: &GltfDocument,
        world_from_scene: Mat4,
        camera: &Camera,
        lighting: &Lighting,
        color_format: wgpu::TextureFormat,
    ) -> Result<Self, BaselineError> {
        document.validate()?;
        let max = device.limits().max_texture_dimension_2d;
        for (texture, t) in document.textures.iter().enumerate() {
            if t.width > max || t.height > max {
                return Err(BaselineError::TextureSize {
                    texture,
                    width: t.width,
                    height: t.height,
                    max,
                });
            }
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

/// The document as the baseline uploads it: textures with their levels (a
/// missing one as the heap's missing texture), samplers and materials as
/// they are (textures by index), one object per placement.
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
            .map(|t| match &t.data {
                TexelData::Rgba8(rgba) => TextureInput {
                    width: t.width,
                    height: t.height,
                    format: t.format(),
                    levels: vec![rgba.as_slice()],
                    mips: Mips::Generate,
                },
                TexelData::Compressed { levels, .. } => TextureInput {
                    width: t.width,
                    height: t.height,
                    format: t.format(),
                    levels: levels.iter().map(Vec::as_slice).collect(),
                    mips: Mips::Generate,
                },
                TexelData::Missing => TextureInput {
                    width: MISSING_TEXTURE.width,
                    height: MISSING_TEXTURE.height,
                    format: MISSING_TEXTURE.format,
                    levels: vec![MISSING_TEXTURE.data],
                    mips: MISSING_TEXTURE.mips,
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
        lights: document
            .lights
            .iter()
            .map(|l| l.world_light(&world_from_scene))
            .collect(),
    }
}
