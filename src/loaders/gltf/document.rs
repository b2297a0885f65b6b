//! The parsed document: what the CPU stage produces and the GPU stage
//! uploads (decoded textures, materials, validated triangle meshes, their
//! placements and lights).

use std::path::PathBuf;

use glam::{Mat4, Vec3};

use super::{GltfError, GltfLight, GltfScene, LoadProgress, Progress, upload};
use crate::animation::{AnimatedScene, AnimationData, PosedMesh};
use crate::geometry::{MeshBounds, MeshData};
use crate::heap::SamplerDesc;
use crate::materials::{Material, TextureRef};
use crate::renderer::Renderer;

/// The texels of a decoded texture.
#[derive(Clone, Debug, PartialEq)]
pub enum TexelData {
    /// Level 0 as tightly packed RGBA8; mips are generated on upload.
    Rgba8(Vec<u8>),
    /// Block-compressed levels from a KTX2 file (level 0 first), uploaded as
    /// they are (needs `TEXTURE_COMPRESSION_BC`).
    Compressed {
        /// The BC format (the sRGB variant for colour textures, where the
        /// format has one).
        format: wgpu::TextureFormat,
        /// Each level's blocks.
        levels: Vec<Vec<u8>>,
    },
    /// None: the image is missing or could not be decoded (the document's
    /// warnings name it, see [`MissingImages`]). Uploaded as the heap's
    /// "missing" texture ([`ResourceHeap::missing_texture`], texels
    /// [`MISSING_TEXTURE`]); the texture's `width` and `height` are 0.
    ///
    /// [`MissingImages`]: super::MissingImages
    /// [`ResourceHeap::missing_texture`]: crate::heap::ResourceHeap::missing_texture
    /// [`MISSING_TEXTURE`]: crate::heap::MISSING_TEXTURE
    Missing,
}

/// A decoded image as one texture.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfTexture {
    /// The image's name, if any.
    pub name: Option<String>,
    /// glTF image index.
    pub image: usize,
    /// Width in texels (0 when [`TexelData::Missing`]).
    pub width: u32,
    /// Height in texels (0 when [`TexelData::Missing`]).
    pub height: u32,
    /// Sampled as sRGB colour (base colour, emissive) or linear data.
    pub srgb: bool,
    /// The texels.
    pub data: TexelData,
}

impl GltfTexture {
    /// The texture format it is uploaded as.
    pub fn format(&self) -> wgpu::TextureFormat {
        match &self.data {
            TexelData::Compressed { format, .. } => *format,
            TexelData::Missing => crate::heap::MISSING_TEXTURE.format,
            TexelData::Rgba8(_) if self.srgb => wgpu::TextureFormat::Rgba8UnormSrgb,
            TexelData::Rgba8(_) => wgpu::TextureFormat::Rgba8Unorm,
        }
    }

    /// Level 0 as RGBA8, if the texture is neither block-compressed nor
    /// missing.
    pub fn rgba(&self) -> Option<&[u8]> {
        match &self.data {
            TexelData::Rgba8(rgba) => Some(rgba),
            TexelData::Compressed { .. } | TexelData::Missing => None,
        }
    }
}

/// A texture as a material uses it, texture and sampler named by index
/// into [`GltfDocument::textures`] and [`GltfDocument::samplers`].
pub type GltfTextureRef = TextureRef<usize, usize>;

/// A metallic-roughness material, textures named by index into the
/// document: the library's [`Material`] over [`GltfTextureRef`].
pub type GltfMaterial = Material<GltfTextureRef>;

/// One triangle primitive as a mesh (a triangle list, validated).
#[derive(Clone, Debug, PartialEq)]
pub struct GltfMesh {
    /// glTF mesh index.
    pub mesh: usize,
    /// Primitive index within the glTF mesh.
    pub primitive: usize,
    /// Index into [`GltfDocument::materials`].
    pub material: usize,
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Normals (computed on upload when missing; computed when parsed
    /// where generating tangents split vertices, as computing them after the
    /// split would break the smoothing across it).
    pub normals: Option<Vec<[f32; 3]>>,
    /// Tangents: the file's, else generated with MikkTSpace when parsed
    /// (from UV set [`GltfMesh::tangent_uv_set`], splitting vertices where
    /// triangle corners disagree: every attribute and the indices then
    /// cover the added vertices). `None` without a normal texture or
    /// without its UV set: the arena then gives every vertex
    /// [`crate::geometry::fallback_tangent`].
    pub tangents: Option<Vec<[f32; 4]>>,
    /// First UV set.
    pub uv0: Option<Vec<[f32; 2]>>,
    /// Second UV set.
    pub uv1: Option<Vec<[f32; 2]>>,
    /// Vertex colours (`COLOR_0`, linear RGBA; RGB files get alpha 1).
    pub colors: Option<Vec<[f32; 4]>>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// The UV set tangents are generated from: the material's normal
    /// texture's `texCoord`; `None` without a normal texture (nothing
    /// reads tangents then but the tangents debug view).
    pub tangent_uv_set: Option<u32>,
    /// Object-space bounds.
    pub bounds: MeshBounds,
}

impl GltfMesh {
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

/// One object: a mesh placed by the node hierarchy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GltfPlacement {
    /// Index into [`GltfDocument::meshes`].
    pub mesh: usize,
    /// glTF node index.
    pub node: usize,
    /// The node's world transform within the scene.
    pub scene_from_object: Mat4,
}

/// A parsed, validated glTF file, ready to upload (see the module docs).
/// Its fields are public to read and edit; [`GltfDocument::validate`] says
/// whether an edited document still holds together.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfDocument {
    /// The file (named in errors).
    pub path: PathBuf,
    /// Decoded textures, one per (image, sRGB or linear) use.
    pub textures: Vec<GltfTexture>,
    /// Samplers (index 0 onwards; glTF's default sampler where a texture has none).
    pub samplers: Vec<SamplerDesc>,
    /// Materials used by triangle primitives.
    pub materials: Vec<GltfMaterial>,
    /// The glTF material index of each of [`GltfDocument::materials`]
    /// (`None`: glTF's default material).
    pub material_indices: Vec<Option<usize>>,
    /// Triangle primitives of every mesh.
    pub meshes: Vec<GltfMesh>,
    /// Objects of the default scene.
    pub placements: Vec<GltfPlacement>,
    /// Lights of the default scene's nodes (`KHR_lights_punctual`).
    pub lights: Vec<GltfLight>,
    /// The default scene's node hierarchy, animations, skins, and per mesh
    /// its skin influences and morph targets; per placement the node and
    /// skin that drive it ([`AnimationData`]). A skinned mesh is still
    /// placed by its node in [`GltfDocument::placements`] (its bind pose);
    /// posed, glTF ignores that node ([`GltfDocument::animated_scene`]).
    pub animation: AnimationData,
    /// Things skipped or degraded, each once (an unusable image: once per
    /// file, see [`MissingImages`]).
    ///
    /// [`MissingImages`]: super::MissingImages
    pub warnings: Vec<String>,
}

impl GltfDocument {
    /// Bounds (min, max) of every placed mesh's box under `world_from_scene`
    /// (min > max when nothing is placed). Placements naming no mesh of the
    /// document are skipped ([`GltfDocument::validate`] reports them).
    pub fn bounds(&self, world_from_scene: Mat4) -> (Vec3, Vec3) {
        let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for placement in &self.placements {
            let Some(mesh) = self.meshes.get(placement.mesh) else {
                continue;
            };
            let bounds = &mesh.bounds;
            let world = world_from_scene * placement.scene_from_object;
            for corner in 0..8 {
                let pick = |bit: u32, lo: f32, hi: f32| if corner & bit == 0 { lo } else { hi };
                let local = Vec3::new(
                    pick(1, bounds.min.x, bounds.max.x),
                    pick(2, bounds.min.y, bounds.max.y),
                    pick(4, bounds.min.z, bounds.max.z),
                );
                let p = world.transform_point3(local);
                min = min.min(p);
                max = max.max(p);
            }
        }
        (min, max)
    }

    /// Adds the document to `renderer`, placed by `world_from_scene`. Its
    /// indices are checked first ([`GltfError::Document`]: nothing is
    /// added); on a later error everything added is removed again.
    pub fn upload(
        &self,
        renderer: &mut Renderer,
        world_from_scene: Mat4,
        progress: Option<&mut dyn FnMut(LoadProgress)>,
    ) -> Result<GltfScene, GltfError> {
        self.upload_with(
            renderer,
            world_from_scene,
            &crate::MeshOptions::default(),
            progress,
        )
    }

    /// [`GltfDocument::upload`], each mesh added with `meshes` (simplified
    /// levels for level of detail).
    pub fn upload_with(
        &self,
        renderer: &mut Renderer,
        world_from_scene: Mat4,
        meshes: &crate::MeshOptions,
        progress: Option<&mut dyn FnMut(LoadProgress)>,
    ) -> Result<GltfScene, GltfError> {
        upload::upload(
            self,
            renderer,
            (world_from_scene, meshes),
            &mut Progress(progress),
        )
    }

    /// The animated scene of `scene`, which this document's upload made
    /// with `world_from_scene` ([`GltfScene::animation`] holds the one
    /// [`load_gltf`](super::load_gltf) made); `None` if nothing animates
    /// or deforms. Without a scene (a document not uploaded), it poses and
    /// deforms meshes ([`AnimatedScene::posed_mesh`]) but moves no object.
    /// [`GltfError::Animation`] if the animation data or the scene's
    /// objects do not match.
    pub fn animated_scene(
        &self,
        scene: Option<&GltfScene>,
        world_from_scene: Mat4,
    ) -> Result<Option<AnimatedScene>, GltfError> {
        if !self.animation.is_animated() {
            return Ok(None);
        }
        let rest_meshes = self
            .meshes
            .iter()
            .zip(&self.animation.meshes)
            .map(|(mesh, deformation)| {
                let deforms = deformation.skin.is_some() || deformation.morph.is_some();
                deforms.then(|| PosedMesh {
                    positions: mesh.positions.clone(),
                    normals: mesh.normals.clone(),
                    tangents: mesh.tangents.clone(),
                    uv0: mesh.uv0.clone(),
                    uv1: mesh.uv1.clone(),
                    colors: mesh.colors.clone(),
                    indices: mesh.indices.clone(),
                    tangent_uv_set: mesh.tangent_uv_set,
                })
            })
            .collect();
        AnimatedScene::new(
            self.animation.clone(),
            scene.map(|s| s.objects.clone()).unwrap_or_default(),
            world_from_scene,
            rest_meshes,
        )
        .map(Some)
        .map_err(|source| GltfError::Animation {
            path: self.path.clone(),
            source,
        })
    }
}
