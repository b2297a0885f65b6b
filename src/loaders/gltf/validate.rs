//! What a [`GltfDocument`] promises, checked. Parsing makes documents that
//! keep these promises; a document edited through its public fields may
//! not, and is refused with a [`DocumentError`] before anything indexes it:
//! [`GltfDocument::upload`] checks the references, the baseline renderer
//! everything.

use std::fmt;

use super::{GltfDocument, GltfMaterial, TexelData};
use crate::geometry::GeometryError;
use crate::handles::{SamplerHandle, TextureHandle};
use crate::heap::{CompressedTextureDesc, HeapError, Mips, TextureDesc};
use crate::lights::LightError;
use crate::materials::Material;

/// What an index names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Indexed {
    /// A texture (of [`GltfDocument::textures`], or of the handles given to
    /// [`GltfMaterial::to_material`]).
    Texture,
    /// A sampler.
    Sampler,
    /// A material.
    Material,
    /// A mesh.
    Mesh,
}

impl fmt::Display for Indexed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Texture => "texture",
            Self::Sampler => "sampler",
            Self::Material => "material",
            Self::Mesh => "mesh",
        })
    }
}

/// An index past the end of the list it indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} {index} is out of range (there are {count})")]
pub struct OutOfRange {
    /// What the index names.
    pub kind: Indexed,
    /// The index.
    pub index: usize,
    /// How many there are.
    pub count: usize,
}

/// Why a [`GltfDocument`] is inconsistent (see [`GltfDocument::validate`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// A material names a texture or sampler the document does not have.
    #[error("material {material}: {source}")]
    Material {
        /// Index into [`GltfDocument::materials`].
        material: usize,
        /// The reference.
        source: OutOfRange,
    },
    /// A mesh names a material the document does not have.
    #[error("mesh {mesh}: {source}")]
    Mesh {
        /// Index into [`GltfDocument::meshes`].
        mesh: usize,
        /// The reference.
        source: OutOfRange,
    },
    /// A placement names a mesh the document does not have.
    #[error("placement {placement}: {source}")]
    Placement {
        /// Index into [`GltfDocument::placements`].
        placement: usize,
        /// The reference.
        source: OutOfRange,
    },
    /// A texture's texels do not match its size and format (as the heap
    /// checks them, with no device limit on the size).
    #[error("texture {texture}: {source}")]
    Texels {
        /// Index into [`GltfDocument::textures`].
        texture: usize,
        /// What is wrong.
        source: HeapError,
    },
    /// A mesh's geometry is unusable ([`crate::MeshData::validate`]).
    #[error("mesh {mesh}: {source}")]
    Geometry {
        /// Index into [`GltfDocument::meshes`].
        mesh: usize,
        /// What is wrong.
        source: GeometryError,
    },
    /// The animation data does not hold together
    /// ([`AnimationData::validate`](crate::animation::AnimationData::validate),
    /// or one driver per placement and one stream per mesh).
    #[error("animation: {source}")]
    Animation {
        /// What is wrong.
        source: crate::animation::AnimationError,
    },
    /// A light the renderer would refuse ([`crate::Light::validate`]).
    #[error("light {light}: {source}")]
    Light {
        /// Index into [`GltfDocument::lights`].
        light: usize,
        /// What is wrong.
        source: LightError,
    },
}

/// `index`, if it is below `count`.
fn in_range(kind: Indexed, index: usize, count: usize) -> Result<usize, OutOfRange> {
    if index < count {
        Ok(index)
    } else {
        Err(OutOfRange { kind, index, count })
    }
}

impl GltfMaterial {
    /// The renderer's material, with texture `i` of the document uploaded as
    /// `textures[i]` and sampler `j` as `samplers[j]` (as in
    /// [`super::GltfScene`]). An index past the end of either is an error.
    pub fn to_material(
        &self,
        textures: &[TextureHandle],
        samplers: &[SamplerHandle],
    ) -> Result<Material, OutOfRange> {
        self.try_map_textures(|t| {
            let texture = in_range(Indexed::Texture, t.texture, textures.len())?;
            let sampler = in_range(Indexed::Sampler, t.sampler, samplers.len())?;
            Ok(t.with(textures[texture], samplers[sampler]))
        })
    }
}

impl GltfDocument {
    /// Checks what the document promises, as parsing made it: every index
    /// (material to texture and sampler, mesh to material, placement to
    /// mesh) in range, the animation data consistent, texels matching each texture's size and format (a
    /// missing texture has none), every mesh valid as
    /// [`crate::MeshData::validate`] says and every light as
    /// [`crate::Light::validate`] says. Reads all the geometry once.
    /// [`GltfDocument::upload`] checks the indices itself (the renderer
    /// checks the content).
    pub fn validate(&self) -> Result<(), DocumentError> {
        self.validate_references()?;
        for (texture, t) in self.textures.iter().enumerate() {
            let checked = match &t.data {
                TexelData::Rgba8(rgba) => TextureDesc {
                    label: None,
                    width: t.width,
                    height: t.height,
                    format: t.format(),
                    data: rgba,
                    mips: Mips::Generate,
                }
                .check(u32::MAX),
                TexelData::Compressed { format, levels } => {
                    let levels: Vec<&[u8]> = levels.iter().map(Vec::as_slice).collect();
                    CompressedTextureDesc {
                        label: None,
                        width: t.width,
                        height: t.height,
                        format: *format,
                        levels: &levels,
                    }
                    .check_shape(u32::MAX)
                }
                // The heap's missing texture: no texels of its own.
                TexelData::Missing => Ok(()),
            };
            checked.map_err(|source| DocumentError::Texels { texture, source })?;
        }
        for (mesh, m) in self.meshes.iter().enumerate() {
            m.as_mesh_data()
                .validate()
                .map_err(|source| DocumentError::Geometry { mesh, source })?;
        }
        if self.animation.is_animated() {
            let animation = &self.animation;
            animation
                .validate()
                .map_err(|source| DocumentError::Animation { source })?;
            if animation.objects.len() != self.placements.len()
                || animation.meshes.len() != self.meshes.len()
            {
                let object = animation.objects.len().min(self.placements.len());
                return Err(DocumentError::Animation {
                    source: crate::animation::AnimationError::DriverOutOfRange { object },
                });
            }
        }
        for (light, l) in self.lights.iter().enumerate() {
            l.scene_light
                .validate()
                .map_err(|source| DocumentError::Light { light, source })?;
        }
        Ok(())
    }

    /// The indices of [`GltfDocument::validate`] alone.
    pub(super) fn validate_references(&self) -> Result<(), DocumentError> {
        let (textures, samplers) = (self.textures.len(), self.samplers.len());
        for (material, m) in self.materials.iter().enumerate() {
            m.try_map_textures(|t| {
                in_range(Indexed::Texture, t.texture, textures)?;
                in_range(Indexed::Sampler, t.sampler, samplers)
            })
            .map_err(|source| DocumentError::Material { material, source })?;
        }
        for (mesh, m) in self.meshes.iter().enumerate() {
            in_range(Indexed::Material, m.material, self.materials.len())
                .map_err(|source| DocumentError::Mesh { mesh, source })?;
        }
        for (placement, p) in self.placements.iter().enumerate() {
            in_range(Indexed::Mesh, p.mesh, self.meshes.len())
                .map_err(|source| DocumentError::Placement { placement, source })?;
        }
        Ok(())
    }
}
