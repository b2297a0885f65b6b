//! glTF materials and samplers as CPU descriptions, textures numbered in
//! order of first use (decoded later, once per image and colour space).

use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec4};

use super::extensions::texture_image;
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
    pub(super) sampler_of: HashMap<Option<usize>, usize>,
    /// Textures not used, each once.
    pub(super) warnings: Vec<String>,
    /// How many images the file has (an extension's image index is
    /// checked against it).
    pub(super) image_count: usize,
    /// A preferred image's fallback (the core `source` of the first texture
    /// naming it), used when it cannot be decoded.
    pub(super) fallbacks: HashMap<usize, usize>,
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
        let Some(info) = info else { return Ok(None) };
        let transform = info.texture_transform().map(|t| {
            let transform = UvTransform {
                offset: Vec2::from(t.offset()),
                rotation: t.rotation(),
                scale: Vec2::from(t.scale()),
            };
            (transform, t.tex_coord())
        });
        self.texture_ref(&info.texture(), info.tex_coord(), transform, srgb)
    }

    /// The reference for a texture slot; `None` (with a warning) when the
    /// texture has no image unbound can decode.
    fn texture_ref(
        &mut self,
        info: &gltf::texture::Texture<'_>,
        tex_coord: u32,
        transform: Option<(UvTransform, Option<u32>)>,
        srgb: bool,
    ) -> Result<Option<GltfTextureRef>, String> {
        let image = match texture_image(info, self.image_count)? {
            Ok(chosen) => {
                if let Some(fallback) = chosen.fallback {
                    self.fallbacks.entry(chosen.image).or_insert(fallback);
                }
                chosen.image
            }
            Err(why) => {
                let warning = format!("{why}: not used (the material's factors apply)");
                if !self.warnings.contains(&warning) {
                    self.warnings.push(warning);
                }
                return Ok(None);
            }
        };
        let key = (image, srgb);
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
            Some((t, set)) => (set.unwrap_or(tex_coord), t),
            None => (tex_coord, UvTransform::default()),
        };
        if uv_set > 1 {
            return Err(format!(
                "texture uses UV set {uv_set}; only 0 and 1 are supported"
            ));
        }
        Ok(Some(TextureRef {
            texture,
            sampler,
            uv_set,
            transform,
        }))
    }
}

/// A `KHR_texture_transform` object as the JSON of a normal or occlusion
/// texture holds it (the `gltf` crate types it only for the other slots):
/// the transform and its `texCoord` override. Absent or malformed members
/// take the extension's defaults.
fn transform_from_json(value: Option<&gltf::json::Value>) -> Option<(UvTransform, Option<u32>)> {
    let value = value?;
    let pair = |key: &str, default: [f32; 2]| {
        let read = value.get(key).and_then(|v| {
            let a = v.as_array()?;
            Some([a.first()?.as_f64()? as f32, a.get(1)?.as_f64()? as f32])
        });
        Vec2::from(read.unwrap_or(default))
    };
    let rotation = value.get("rotation").and_then(gltf::json::Value::as_f64);
    let tex_coord = value.get("texCoord").and_then(gltf::json::Value::as_u64);
    Some((
        UvTransform {
            offset: pair("offset", [0.0, 0.0]),
            rotation: rotation.unwrap_or(0.0) as f32,
            scale: pair("scale", [1.0, 1.0]),
        },
        tex_coord.map(|set| u32::try_from(set).unwrap_or(u32::MAX)),
    ))
}

/// The CPU material, its textures numbered by `references`.
pub(super) fn material_desc(
    material: &gltf::Material<'_>,
    references: &mut TextureReferences,
) -> Result<GltfMaterial, String> {
    let pbr = material.pbr_metallic_roughness();
    let base_color = references.info_ref(pbr.base_color_texture(), true)?;
    let metallic_roughness = references.info_ref(pbr.metallic_roughness_texture(), false)?;
    // Normal and occlusion textures are their own glTF types, each with
    // its texture, coordinate set and transform (and a scale or strength).
    let mut linear = |texture: &gltf::texture::Texture<'_>,
                      tex_coord: u32,
                      transform: Option<&gltf::json::Value>| {
        references.texture_ref(texture, tex_coord, transform_from_json(transform), false)
    };
    let (normal, normal_scale) = match material.normal_texture() {
        Some(t) => {
            let transform = t.extension_value("KHR_texture_transform");
            (linear(&t.texture(), t.tex_coord(), transform)?, t.scale())
        }
        None => (None, 1.0),
    };
    let (occlusion, occlusion_strength) = match material.occlusion_texture() {
        Some(t) => {
            let transform = t.extension_value("KHR_texture_transform");
            (
                linear(&t.texture(), t.tex_coord(), transform)?,
                t.strength(),
            )
        }
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
        unlit: material.extension_value("KHR_materials_unlit").is_some(),
    })
}
