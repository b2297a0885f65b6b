//! The material description: [`Material`] over any texture naming, and its
//! one encoder into the GPU form ([`Material::encode`]).

use glam::{Vec2, Vec3, Vec4};

use super::{MaterialError, finite, in_range};
use crate::gpu_types::{
    ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, GpuMaterial, GpuMaterialTexture,
    MATERIAL_FLAG_DOUBLE_SIDED, MATERIAL_FLAG_NORMAL_MAP, MATERIAL_FLAG_UNLIT,
};
use crate::handles::{SamplerHandle, TextureHandle};
use crate::heap::{ResourceHeap, SAMPLER_DEFAULT, TEXTURE_WHITE};

/// `KHR_texture_transform`: `uv' = T(offset) * R(rotation) * S(scale) * uv`,
/// with `R = [[cos, sin], [-sin, cos]]` (rows): rotating the UVs
/// counter-clockwise in texture space (v down), as the extension's
/// TextureTransformTest sample confirms (its rotation tile points at the
/// green marker).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    /// Translation.
    pub offset: Vec2,
    /// Rotation in radians, as in the extension's matrix.
    pub rotation: f32,
    /// Scale.
    pub scale: Vec2,
}

impl Default for UvTransform {
    fn default() -> Self {
        Self {
            offset: Vec2::ZERO,
            rotation: 0.0,
            scale: Vec2::ONE,
        }
    }
}

impl UvTransform {
    /// The two rows of the 2x3 affine matrix.
    pub fn rows(&self) -> [[f32; 4]; 2] {
        let (sin, cos) = self.rotation.sin_cos();
        [
            [cos * self.scale.x, sin * self.scale.y, self.offset.x, 0.0],
            [-sin * self.scale.x, cos * self.scale.y, self.offset.y, 0.0],
        ]
    }

    /// Applies the transform to one coordinate (the shader's computation).
    pub fn apply(&self, uv: Vec2) -> Vec2 {
        let [r0, r1] = self.rows();
        Vec2::new(
            r0[0] * uv.x + r0[1] * uv.y + r0[2],
            r1[0] * uv.x + r1[1] * uv.y + r1[2],
        )
    }
}

/// A texture as a material uses it: which texture through which sampler,
/// from which UV set and through which transform.
///
/// `T` and `S` name the texture and the sampler: heap handles for the
/// renderer (the default), indices into a parsed document for
/// [`crate::loaders::gltf::GltfTextureRef`], slots once resolved
/// ([`ResolvedTexture`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureRef<T = TextureHandle, S = SamplerHandle> {
    /// The texture.
    pub texture: T,
    /// The sampler.
    pub sampler: S,
    /// UV set, 0 or 1.
    pub uv_set: u32,
    /// UV transform.
    pub transform: UvTransform,
}

/// A texture reference resolved to slots: what the GPU material stores
/// (2D texture slot, sampler slot).
pub type ResolvedTexture = TextureRef<u32, u32>;

impl<T, S> TextureRef<T, S> {
    /// `texture` with `sampler`, UV set 0, no transform.
    pub fn new(texture: T, sampler: S) -> Self {
        Self {
            texture,
            sampler,
            uv_set: 0,
            transform: UvTransform::default(),
        }
    }

    /// The same use (UV set, transform) of `texture` and `sampler` named
    /// another way.
    pub fn with<T2, S2>(&self, texture: T2, sampler: S2) -> TextureRef<T2, S2> {
        TextureRef {
            texture,
            sampler,
            uv_set: self.uv_set,
            transform: self.transform,
        }
    }

    /// Checks the UV set and that the transform is finite.
    fn check(&self) -> Result<(), MaterialError> {
        if self.uv_set > 1 {
            return Err(MaterialError::UvSet {
                uv_set: self.uv_set,
            });
        }
        let t = &self.transform;
        finite(
            "uv transform",
            &[t.offset.x, t.offset.y, t.rotation, t.scale.x, t.scale.y],
        )
    }
}

/// How alpha is used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Fragments with alpha below the cutoff are discarded.
    Mask {
        /// The cutoff.
        cutoff: f32,
    },
    /// Alpha blended.
    Blend,
}

/// A glTF 2.0 metallic-roughness material. Colour factors are linear.
///
/// `T` is how a texture is named: [`TextureRef`] (heap handles) for
/// [`crate::Renderer::add_material`], document indices in a parsed glTF file
/// ([`crate::loaders::gltf::GltfMaterial`]), anything else a tool needs;
/// [`Material::map_textures`] converts between them and [`Material::encode`]
/// writes the GPU form from any of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material<T = TextureRef> {
    /// Base colour factor (linear RGBA).
    pub base_color_factor: Vec4,
    /// Base colour texture (sRGB); `None`: white.
    pub base_color: Option<T>,
    /// Metallic factor.
    pub metallic_factor: f32,
    /// Roughness factor.
    pub roughness_factor: f32,
    /// Metallic (B) / roughness (G) texture.
    pub metallic_roughness: Option<T>,
    /// Tangent-space normal map.
    pub normal: Option<T>,
    /// Normal map scale.
    pub normal_scale: f32,
    /// Occlusion texture (R).
    pub occlusion: Option<T>,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// Emissive factor (linear RGB).
    pub emissive_factor: Vec3,
    /// `KHR_materials_emissive_strength`.
    pub emissive_strength: f32,
    /// Emissive texture (sRGB).
    pub emissive: Option<T>,
    /// Alpha mode.
    pub alpha_mode: AlphaMode,
    /// Render back faces too.
    pub double_sided: bool,
    /// `KHR_materials_unlit`: the surface shows its base colour (factor ×
    /// texture × vertex colour) as radiance, without lighting, occlusion or
    /// emission. Exposure and tone mapping still apply (`src/output.rs`).
    pub unlit: bool,
}

/// glTF's defaults ([`Material::untextured`]): white, **metallic 1 and
/// roughness 1** (a rough metal, which shows grey under the ambient term),
/// no textures, opaque, single-sided. For a plain coloured surface use
/// [`Material::dielectric`], [`Material::metal`] or
/// [`Material::textured`].
impl Default for Material {
    fn default() -> Self {
        Self::untextured()
    }
}

impl Material {
    /// Roughness of [`Material::dielectric`] and [`Material::textured`]:
    /// half-way between a mirror and a matte surface.
    pub const DIELECTRIC_ROUGHNESS: f32 = 0.5;

    /// A non-metal (plastic, paint, wood) of `base_color` (linear RGBA, each
    /// in [0, 1]; alpha is ignored while the material is opaque): metallic
    /// 0, roughness [`Self::DIELECTRIC_ROUGHNESS`], no textures, no
    /// emission, opaque, single-sided. Change any field afterwards with
    /// struct update syntax.
    pub const fn dielectric(base_color: Vec4) -> Self {
        Self {
            base_color_factor: base_color,
            metallic_factor: 0.0,
            roughness_factor: Self::DIELECTRIC_ROUGHNESS,
            ..Self::untextured()
        }
    }

    /// A metal whose reflectance is `base_color` (linear RGBA, each in
    /// [0, 1]), of `roughness` in [0, 1] (0: a mirror): metallic 1, no
    /// textures, no emission, opaque, single-sided. Values out of range are
    /// refused by [`crate::Renderer::add_material`].
    pub const fn metal(base_color: Vec4, roughness: f32) -> Self {
        Self {
            base_color_factor: base_color,
            metallic_factor: 1.0,
            roughness_factor: roughness,
            ..Self::untextured()
        }
    }

    /// A dielectric ([`Material::dielectric`] of white) showing
    /// `base_color` (an sRGB colour texture, UV set 0, no transform)
    /// sampled through `sampler`: the heap's default sampler
    /// ([`crate::heap::ResourceHeap::default_sampler`], linear filtering,
    /// repeat) unless you made another. Both handles belong to the renderer
    /// the material is added to.
    pub fn textured(base_color: TextureHandle, sampler: SamplerHandle) -> Self {
        Self {
            base_color: Some(TextureRef::new(base_color, sampler)),
            ..Self::dielectric(Vec4::ONE)
        }
    }
}

impl<T> Material<T> {
    /// glTF's default factors (white, fully metallic and rough, opaque,
    /// single-sided) and no textures. [`Material::default`] for any `T`.
    pub const fn untextured() -> Self {
        Self {
            base_color_factor: Vec4::ONE,
            base_color: None,
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            metallic_roughness: None,
            normal: None,
            normal_scale: 1.0,
            occlusion: None,
            occlusion_strength: 1.0,
            emissive_factor: Vec3::ZERO,
            emissive_strength: 1.0,
            emissive: None,
            alpha_mode: AlphaMode::Opaque,
            double_sided: false,
            unlit: false,
        }
    }

    /// The same material with each texture reference converted by `f`.
    pub fn map_textures<U>(&self, mut f: impl FnMut(&T) -> U) -> Material<U> {
        let converted: Result<_, std::convert::Infallible> = self.try_map_textures(|t| Ok(f(t)));
        match converted {
            Ok(material) => material,
        }
    }

    /// [`Material::map_textures`] with a conversion that can fail (the first
    /// error is returned; textures in field order).
    pub fn try_map_textures<U, E>(
        &self,
        mut f: impl FnMut(&T) -> Result<U, E>,
    ) -> Result<Material<U>, E> {
        let mut convert = |t: &Option<T>| t.as_ref().map(&mut f).transpose();
        Ok(Material {
            base_color_factor: self.base_color_factor,
            base_color: convert(&self.base_color)?,
            metallic_factor: self.metallic_factor,
            roughness_factor: self.roughness_factor,
            metallic_roughness: convert(&self.metallic_roughness)?,
            normal: convert(&self.normal)?,
            normal_scale: self.normal_scale,
            occlusion: convert(&self.occlusion)?,
            occlusion_strength: self.occlusion_strength,
            emissive_factor: self.emissive_factor,
            emissive_strength: self.emissive_strength,
            emissive: convert(&self.emissive)?,
            alpha_mode: self.alpha_mode,
            double_sided: self.double_sided,
            unlit: self.unlit,
        })
    }

    /// The GPU form: the one material encoder. `resolve` gives each texture
    /// reference's slots (whatever numbering the shader reading them uses),
    /// UV set and transform; a missing texture is white
    /// ([`TEXTURE_WHITE`], [`SAMPLER_DEFAULT`], UV set 0, no transform).
    /// Errors on non-finite factors or transforms, UV sets other than 0 and
    /// 1, and whatever `resolve` returns.
    pub fn encode(
        &self,
        mut resolve: impl FnMut(&T) -> Result<ResolvedTexture, MaterialError>,
    ) -> Result<GpuMaterial, MaterialError> {
        finite("base_color_factor", &self.base_color_factor.to_array())?;
        finite("emissive_factor", &self.emissive_factor.to_array())?;
        finite(
            "scalar factors",
            &[
                self.metallic_factor,
                self.roughness_factor,
                self.normal_scale,
                self.occlusion_strength,
                self.emissive_strength,
            ],
        )?;
        self.check_ranges()?;
        let (alpha_mode, alpha_cutoff) = match self.alpha_mode {
            AlphaMode::Opaque => (ALPHA_OPAQUE, 0.5),
            AlphaMode::Mask { cutoff } => {
                finite("alpha cutoff", &[cutoff])?;
                in_range("alpha cutoff", &[cutoff], 0.0, f32::INFINITY)?;
                (ALPHA_MASK, cutoff)
            }
            AlphaMode::Blend => (ALPHA_BLEND, 0.5),
        };
        let mut flags = 0;
        if self.double_sided {
            flags |= MATERIAL_FLAG_DOUBLE_SIDED;
        }
        if self.normal.is_some() {
            flags |= MATERIAL_FLAG_NORMAL_MAP;
        }
        if self.unlit {
            flags |= MATERIAL_FLAG_UNLIT;
        }
        let mut texture = |t: &Option<T>| gpu_texture(t.as_ref().map(&mut resolve).transpose()?);
        Ok(GpuMaterial {
            base_color_factor: self.base_color_factor.to_array(),
            emissive_factor: self.emissive_factor.to_array(),
            emissive_strength: self.emissive_strength,
            metallic_factor: self.metallic_factor,
            roughness_factor: self.roughness_factor,
            normal_scale: self.normal_scale,
            occlusion_strength: self.occlusion_strength,
            alpha_cutoff,
            alpha_mode,
            flags,
            _pad: 0,
            base_color: texture(&self.base_color)?,
            metallic_roughness: texture(&self.metallic_roughness)?,
            normal: texture(&self.normal)?,
            occlusion: texture(&self.occlusion)?,
            emissive: texture(&self.emissive)?,
        })
    }
}

impl<T> Material<T> {
    /// Checks the factors' ranges (glTF 2.0's), once they are finite.
    fn check_ranges(&self) -> Result<(), MaterialError> {
        in_range(
            "base_color_factor",
            &self.base_color_factor.to_array(),
            0.0,
            1.0,
        )?;
        in_range("metallic_factor", &[self.metallic_factor], 0.0, 1.0)?;
        in_range("roughness_factor", &[self.roughness_factor], 0.0, 1.0)?;
        in_range("occlusion_strength", &[self.occlusion_strength], 0.0, 1.0)?;
        let unbounded = f32::INFINITY;
        in_range(
            "emissive_factor",
            &self.emissive_factor.to_array(),
            0.0,
            unbounded,
        )?;
        in_range(
            "emissive_strength",
            &[self.emissive_strength],
            0.0,
            unbounded,
        )?;
        let emission = (self.emissive_factor * self.emissive_strength).max_element();
        if !emission.is_finite() {
            return Err(MaterialError::Derived {
                derived: "emissive factor × emissive strength (brightest channel)",
                value: emission,
                inputs: format!(
                    "emissive_factor {:?}, emissive_strength {}",
                    self.emissive_factor, self.emissive_strength
                ),
            });
        }
        Ok(())
    }
}

impl Material {
    /// The GPU form, with handles resolved to heap slots (errors on stale
    /// handles): [`Material::encode`] over the heap.
    pub fn to_gpu(&self, heap: &ResourceHeap) -> Result<GpuMaterial, MaterialError> {
        self.encode(|t| {
            t.check()?;
            Ok(t.with(
                heap.texture_2d_slot(t.texture)?,
                heap.sampler_slot(t.sampler)?,
            ))
        })
    }
}

/// One texture of the GPU material; `None`: white.
fn gpu_texture(texture: Option<ResolvedTexture>) -> Result<GpuMaterialTexture, MaterialError> {
    let texture = texture.unwrap_or(TextureRef {
        texture: TEXTURE_WHITE,
        sampler: SAMPLER_DEFAULT,
        uv_set: 0,
        transform: UvTransform::default(),
    });
    texture.check()?;
    let rows = texture.transform.rows();
    Ok(GpuMaterialTexture {
        uv_row0: rows[0],
        uv_row1: rows[1],
        texture: texture.texture,
        sampler: texture.sampler,
        uv_set: texture.uv_set,
        _pad: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::{AlphaMode, Material, MaterialError, TextureRef, UvTransform};
    use crate::gpu_types::{ALPHA_MASK, MATERIAL_FLAG_NORMAL_MAP};
    use crate::heap::{SAMPLER_DEFAULT, TEXTURE_WHITE};
    use glam::Vec2;

    /// A material naming its textures by (texture, sampler) index.
    fn indexed() -> Material<TextureRef<usize, usize>> {
        Material {
            base_color: Some(TextureRef {
                uv_set: 1,
                transform: UvTransform {
                    rotation: 0.5,
                    ..UvTransform::default()
                },
                ..TextureRef::new(3, 1)
            }),
            normal: Some(TextureRef::new(4, 0)),
            alpha_mode: AlphaMode::Mask { cutoff: 0.25 },
            ..Material::untextured()
        }
    }

    #[test]
    fn encoder_writes_resolved_slots_and_white_for_missing_textures() {
        let material = indexed();
        let gpu = material
            .encode(|t| Ok(t.with(10 + t.texture as u32, 20 + t.sampler as u32)))
            .unwrap();
        let base = &gpu.base_color;
        assert_eq!((base.texture, base.sampler, base.uv_set), (13, 21, 1));
        let rows = material.base_color.unwrap().transform.rows();
        assert_eq!((base.uv_row0, base.uv_row1), (rows[0], rows[1]));
        let identity = UvTransform::default().rows();
        for missing in [&gpu.metallic_roughness, &gpu.occlusion, &gpu.emissive] {
            assert_eq!(
                (missing.texture, missing.sampler),
                (TEXTURE_WHITE, SAMPLER_DEFAULT)
            );
            assert_eq!(
                (missing.uv_row0, missing.uv_row1),
                (identity[0], identity[1])
            );
        }
        assert_eq!((gpu.alpha_mode, gpu.alpha_cutoff), (ALPHA_MASK, 0.25));
        assert_eq!(gpu.flags, MATERIAL_FLAG_NORMAL_MAP);
        // Renaming the textures changes nothing else.
        let renamed = material.map_textures(|t| t.with(t.texture + 10, t.sampler + 20));
        let again = renamed
            .encode(|t| Ok(t.with(t.texture as u32, t.sampler as u32)))
            .unwrap();
        assert_eq!(gpu, again);
    }

    #[test]
    fn encoder_checks_what_resolve_returns() {
        let mut material = indexed();
        let bad_set = material.encode(|t| {
            Ok(TextureRef {
                uv_set: 2,
                ..t.with(0, 0)
            })
        });
        assert_eq!(bad_set, Err(MaterialError::UvSet { uv_set: 2 }));
        material.emissive_strength = f32::NAN;
        assert!(matches!(
            material.encode(|t| Ok(t.with(0, 0))),
            Err(MaterialError::NonFinite { .. })
        ));
        material.emissive_strength = 1.0;
        material.roughness_factor = 1.5;
        assert_eq!(
            material.encode(|t| Ok(t.with(0, 0))),
            Err(MaterialError::OutOfRange {
                field: "roughness_factor",
                value: 1.5,
                min: 0.0,
                max: 1.0
            })
        );
        material.roughness_factor = 1.0;
        material.base_color_factor.y = -0.25;
        assert!(matches!(
            material.encode(|t| Ok(t.with(0, 0))),
            Err(MaterialError::OutOfRange {
                field: "base_color_factor",
                ..
            })
        ));
    }

    #[test]
    fn constructors_set_what_they_name_and_keep_the_rest_at_gltf_defaults() {
        use crate::handles::{SamplerSlot, SlotAllocator, Texture2dSlot, new_owner_id};
        use glam::Vec4;
        let color = Vec4::new(0.8, 0.2, 0.1, 1.0);
        let defaults = Material::default();
        let plastic = Material::dielectric(color);
        assert_eq!(
            (plastic.base_color_factor, plastic.metallic_factor),
            (color, 0.0)
        );
        assert_eq!(plastic.roughness_factor, Material::DIELECTRIC_ROUGHNESS);
        let gold = Material::metal(color, 0.25);
        assert_eq!((gold.metallic_factor, gold.roughness_factor), (1.0, 0.25));
        let texture = SlotAllocator::<Texture2dSlot>::new(new_owner_id(), 4, 0)
            .alloc()
            .unwrap();
        let sampler = SlotAllocator::<SamplerSlot>::new(new_owner_id(), 4, 0)
            .alloc()
            .unwrap();
        let textured = Material::textured(texture, sampler);
        assert_eq!(textured.base_color, Some(TextureRef::new(texture, sampler)));
        assert_eq!(
            Material {
                base_color: None,
                ..textured
            },
            Material::dielectric(Vec4::ONE)
        );
        // Everything else is glTF's default, as `Material::default()` is.
        for material in [plastic, gold, textured] {
            let factors_as_default = Material {
                base_color_factor: defaults.base_color_factor,
                base_color: None,
                metallic_factor: defaults.metallic_factor,
                roughness_factor: defaults.roughness_factor,
                ..material
            };
            assert_eq!(factors_as_default, Material::default());
        }
        // The GPU form of each is valid and names its factors.
        let gpu = plastic.encode(|t| Ok(t.with(0, 0))).unwrap();
        assert_eq!(gpu.base_color_factor, color.to_array());
        assert_eq!((gpu.metallic_factor, gpu.roughness_factor), (0.0, 0.5));
        let out_of_range = Material::metal(color, 1.5).encode(|t| Ok(t.with(0, 0)));
        assert!(matches!(
            out_of_range,
            Err(MaterialError::OutOfRange {
                field: "roughness_factor",
                ..
            })
        ));
    }

    #[test]
    fn uv_transform_is_translation_rotation_scale() {
        let t = UvTransform {
            offset: Vec2::new(0.5, 0.25),
            rotation: std::f32::consts::FRAC_PI_2,
            scale: Vec2::new(2.0, 3.0),
        };
        // S: (1, 0) -> (2, 0); R(90°): (2, 0) -> (0, -2); T: -> (0.5, -1.75).
        let uv = t.apply(Vec2::new(1.0, 0.0));
        assert!((uv - Vec2::new(0.5, -1.75)).length() < 1e-5, "{uv}");
    }
}
