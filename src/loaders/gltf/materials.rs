//! glTF materials and samplers as CPU descriptions, textures numbered in
//! order of first use (decoded later, once per image and colour space).

use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec4};

use super::{GltfMaterial, GltfTextureRef};
use crate::heap::SamplerDesc;
use crate::materials::{AlphaMode, TextureRef, UvTransform};

/// A texture before decoding: (glTF image, sampled as sRGB).
pub(super) type TextureKey = (usize, bool);

fn sampler_desc(sampler: &gltf::texture::Sampler<'_>) -> SamplerDesc {
    use gltf::texture::{MagFilter, MinFilter, WrappingMode};
    let wrap = |mode| match mode {
        WrappingMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        WrappingMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
        WrappingMode::Repeat => wgpu::AddressMode::Repeat,
    };
    let nearest_mag = sampler.mag_filter() == Some(MagFilter::Nearest);
    let (min_filter, mipmap_filter) = match sampler.min_filter() {
        Some(MinFilter::Nearest | MinFilter::NearestMipmapNearest) => {
            (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Nearest)
        }
        Some(MinFilter::NearestMipmapLinear) => {
            (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Linear)
        }
        Some(MinFilter::LinearMipmapNearest) => {
            (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Nearest)
        }
        _ => (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Linear),
    };
    SamplerDesc {
        address_u: wrap(sampler.wrap_s()),
        address_v: wrap(sampler.wrap_t()),
        mag_filter: if nearest_mag {
            wgpu::FilterMode::Nearest
        } else {
            wgpu::FilterMode::Linear
        },
        min_filter,
        mipmap_filter,
    }
}

/// Textures and samplers materials refer to, numbered in order of first use.
#[derive(Default)]
pub(super) struct TextureReferences {
    /// (image, sRGB) per texture.
    pub(super) textures: Vec<TextureKey>,
    pub(super) samplers: Vec<SamplerDesc>,
    /// glTF sampler (`None`: the default) to index in `samplers`.
    sampler_of: HashMap<Option<usize>, usize>,
}

impl TextureReferences {
    /// The reference for a texture slot with an optional
    /// `KHR_texture_transform` (base colour, metallic-roughness, emissive),
    /// if the material fills it.
    fn info_ref(
        &mut self,
        info: Option<gltf::texture::Info<'_>>,
        srgb: bool,
    ) -> Result<Option<GltfTextureRef>, String> {
        info.map(|t| self.texture_ref(&t.texture(), t.tex_coord(), t.texture_transform(), srgb))
            .transpose()
    }

    fn texture_ref(
        &mut self,
        info: &gltf::texture::Texture<'_>,
        tex_coord: u32,
        transform: Option<gltf::texture::TextureTransform<'_>>,
        srgb: bool,
    ) -> Result<GltfTextureRef, String> {
        let key = (info.source().index(), srgb);
        let texture = match self.textures.iter().position(|k| *k == key) {
            Some(t) => t,
            None => {
                self.textures.push(key);
                self.textures.len() - 1
            }
        };
        let gltf_sampler = info.sampler();
        let samplers = &mut self.samplers;
        let sampler = *self
            .sampler_of
            .entry(gltf_sampler.index())
            .or_insert_with(|| {
                samplers.push(sampler_desc(&gltf_sampler));
                samplers.len() - 1
            });
        let (uv_set, transform) = match transform {
            Some(t) => (
                t.tex_coord().unwrap_or(tex_coord),
                UvTransform {
                    offset: Vec2::from(t.offset()),
                    rotation: t.rotation(),
                    scale: Vec2::from(t.scale()),
                },
            ),
            None => (tex_coord, UvTransform::default()),
        };
        if uv_set > 1 {
            return Err(format!(
                "texture uses UV set {uv_set}; only 0 and 1 are supported"
            ));
        }
        Ok(TextureRef {
            texture,
            sampler,
            uv_set,
            transform,
        })
    }
}

/// The CPU material, its textures numbered by `references`.
pub(super) fn material_desc(
    material: &gltf::Material<'_>,
    references: &mut TextureReferences,
) -> Result<GltfMaterial, String> {
    let pbr = material.pbr_metallic_roughness();
    let base_color = references.info_ref(pbr.base_color_texture(), true)?;
    let metallic_roughness = references.info_ref(pbr.metallic_roughness_texture(), false)?;
    let (normal, normal_scale) = match material.normal_texture() {
        Some(t) => (
            Some(references.texture_ref(&t.texture(), t.tex_coord(), None, false)?),
            t.scale(),
        ),
        None => (None, 1.0),
    };
    let (occlusion, occlusion_strength) = match material.occlusion_texture() {
        Some(t) => (
            Some(references.texture_ref(&t.texture(), t.tex_coord(), None, false)?),
            t.strength(),
        ),
        None => (None, 1.0),
    };
    let emissive = references.info_ref(material.emissive_texture(), true)?;
    Ok(GltfMaterial {
        base_color_factor: Vec4::from(pbr.base_color_factor()),
        base_color,
        metallic_factor: pbr.metallic_factor(),
        roughness_factor: pbr.roughness_factor(),
        metallic_roughness,
        normal,
        normal_scale,
        occlusion,
        occlusion_strength,
        emissive_factor: Vec3::from(material.emissive_factor()),
        emissive_strength: material.emissive_strength().unwrap_or(1.0),
        emissive,
        alpha_mode: match material.alpha_mode() {
            gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
            gltf::material::AlphaMode::Mask => AlphaMode::Mask {
                cutoff: material.alpha_cutoff().unwrap_or(0.5),
            },
            gltf::material::AlphaMode::Blend => AlphaMode::Blend,
        },
        double_sided: material.double_sided(),
    })
}
