//! Which glTF extensions unbound supports, and what is lost when a file
//! uses one it does not: the one place each extension is listed.
//!
//! - A **required** extension outside [`SUPPORTED_EXTENSIONS`] is
//!   [`GltfError::UnsupportedExtension`](super::GltfError::UnsupportedExtension),
//!   naming it, before any buffer is read.
//! - An **optional** one is named once in the warnings with what is lost
//!   (`"KHR_materials_sheen: sheen not rendered"`); an extension unbound
//!   does not know is named as ignored.
//! - A texture's image ([`texture_image`]): `EXT_texture_webp`'s `source`
//!   where the texture has one (decoded by the `image` crate), else, with
//!   the `basisu` cargo feature, `KHR_texture_basisu`'s (UASTC KTX2,
//!   `basisu.rs`), else the core `source`. A preferred image that cannot be
//!   decoded (ETC1S, say) falls back to the core `source` where there is
//!   one, said once per image in the warnings (`images.rs`). Where the
//!   preferred image is in a format unbound does not decode
//!   (`KHR_texture_basisu` without the `basisu` feature: its transcoder is
//!   C++; `EXT_texture_avif`), the core `source` is used, said once in the
//!   warnings; a texture with neither is not used, with a warning. A file
//!   *requiring* one of those is
//!   [`GltfError::UnsupportedExtension`](super::GltfError::UnsupportedExtension),
//!   whose message says why ([`why_unsupported`]).
//!
//! `KHR_draco_mesh_compression` and `KHR_texture_basisu` are supported only
//! with the `draco` and `basisu` cargo features (off by default; `draco.rs`
//! and `basisu.rs`, and the README says why).
//!
//! Adding an extension: its name in [`SUPPORTED_EXTENSIONS`] (and the
//! README's table, which `tests/gltf_extensions.rs` compares with it), its
//! data read where it applies (`meshopt.rs` for buffer views,
//! `accessors.rs` for accessor encodings, `instancing.rs` for nodes, `materials.rs` for materials),
//! and its line removed from [`loss`].

/// The glTF extensions unbound supports: a file may require them. With the
/// `draco` and `basisu` cargo features (off by default) they include
/// `KHR_draco_mesh_compression` and `KHR_texture_basisu`.
pub const SUPPORTED_EXTENSIONS: &[&str] = &{
    let mut all = [""; CORE_EXTENSIONS.len() + FEATURE_EXTENSIONS.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < CORE_EXTENSIONS.len() {
            CORE_EXTENSIONS[i]
        } else {
            FEATURE_EXTENSIONS[i - CORE_EXTENSIONS.len()]
        };
        i += 1;
    }
    all
};

/// The extensions the enabled cargo features add.
const FEATURE_EXTENSIONS: &[&str] = &[
    #[cfg(feature = "draco")]
    "KHR_draco_mesh_compression",
    #[cfg(feature = "basisu")]
    "KHR_texture_basisu",
];

/// The extensions supported whatever the cargo features.
const CORE_EXTENSIONS: [&str; 9] = [
    "KHR_lights_punctual",
    "KHR_materials_emissive_strength",
    "KHR_materials_unlit",
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "EXT_texture_webp",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "EXT_mesh_gpu_instancing",
];

/// What is lost when a file uses `extension`, which unbound does not
/// support, optionally.
fn loss(extension: &str) -> &'static str {
    match extension {
        "KHR_materials_anisotropy" => "anisotropy not rendered",
        "KHR_materials_clearcoat" => "clear coat not rendered",
        "KHR_materials_diffuse_transmission" => "diffuse transmission not rendered",
        "KHR_materials_dispersion" => "dispersion not rendered",
        "KHR_materials_ior" => "index of refraction fixed at 1.5",
        "KHR_materials_iridescence" => "iridescence not rendered",
        "KHR_materials_pbrSpecularGlossiness" => {
            "specular-glossiness not read: the core metallic-roughness material is shown"
        }
        "KHR_materials_sheen" => "sheen not rendered",
        "KHR_materials_specular" => "specular strength and colour not applied",
        "KHR_materials_transmission" => "transmission not rendered",
        "KHR_materials_variants" => "only the default material of each primitive is shown",
        "KHR_materials_volume" => "volume attenuation not rendered",
        "KHR_animation_pointer" => {
            "channels targeting a JSON pointer (material, light, camera properties) are not \
             played; channels on nodes are"
        }
        "KHR_xmp" | "KHR_xmp_json_ld" => "metadata not read",
        "KHR_draco_mesh_compression" => {
            "Draco-compressed primitives use their uncompressed accessors; those without are not drawn \
             (unbound was built without its `draco` cargo feature)"
        }
        "KHR_texture_basisu" => {
            "Basis Universal images not decoded (unbound was built without its `basisu` cargo feature): \
             textures use their fallback source, or none"
        }
        "EXT_texture_avif" => "AVIF images not decoded: textures use their core source, or none",
        _ => "unknown to unbound: ignored",
    }
}

/// Why unbound does not support `extension`, where more can be said than
/// its name (appended to the message of
/// [`GltfError::UnsupportedExtension`](super::GltfError::UnsupportedExtension)).
pub(super) fn why_unsupported(extension: &str) -> &'static str {
    match extension {
        "KHR_texture_basisu" => {
            ": unbound was built without its `basisu` cargo feature (Basis Universal's C++ \
             transcoder, off by default: see the README's extension table); files with a \
             fallback `source` load it"
        }
        "KHR_draco_mesh_compression" => {
            ": unbound was built without its `draco` cargo feature (the pure-Rust \
             draco-oxide-decoder, off by default: see the README's extension table)"
        }
        _ => "",
    }
}

/// The first required extension unbound does not support, if any.
pub(super) fn unsupported_required<'a>(
    required: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    required
        .into_iter()
        .find(|extension| !SUPPORTED_EXTENSIONS.contains(extension))
}

/// One warning per used extension unbound does not support, each naming
/// what is lost.
pub(super) fn ignored_warnings<'a>(used: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut seen: Vec<&str> = Vec::new();
    for extension in used {
        if !SUPPORTED_EXTENSIONS.contains(&extension) && !seen.contains(&extension) {
            seen.push(extension);
        }
    }
    seen.iter().map(|e| format!("{e}: {}", loss(e))).collect()
}

/// Extensions whose texture extension object names an image in a format
/// unbound does not decode.
const IMAGE_EXTENSIONS: [&str; 2] = ["KHR_texture_basisu", "EXT_texture_avif"];

/// The image a texture samples, and the image to use instead if that one
/// cannot be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TextureImage {
    /// The preferred image.
    pub(super) image: usize,
    /// The texture's core `source`, where it is not `image`.
    pub(super) fallback: Option<usize>,
}

/// The image `extension`'s object on `texture` names as its `source`,
/// checked against the file's `image_count` images (an error otherwise);
/// `None` without the extension.
fn extension_source(
    texture: &gltf::Texture<'_>,
    extension: &str,
    image_count: usize,
) -> Result<Option<usize>, String> {
    let Some(object) = texture.extension_value(extension) else {
        return Ok(None);
    };
    let source = object.get("source").and_then(gltf::json::Value::as_u64);
    match source.and_then(|s| usize::try_from(s).ok()) {
        Some(image) if image < image_count => Ok(Some(image)),
        _ => Err(format!(
            "textures[{}].extensions.{extension}.source: {} is not one of the {image_count} images",
            texture.index(),
            object
                .get("source")
                .map_or("none".to_owned(), ToString::to_string)
        )),
    }
}

/// The image texture `texture` samples: `EXT_texture_webp`'s `source`,
/// else (with the `basisu` cargo feature) `KHR_texture_basisu`'s, each
/// checked against the file's `image_count` images (an error otherwise),
/// else its core `source`, which is also the fallback of the other two.
/// `Ok(Err(why))`: no image unbound can use, and why (the extensions that
/// name its image).
pub(super) fn texture_image(
    texture: &gltf::Texture<'_>,
    image_count: usize,
) -> Result<Result<TextureImage, String>, String> {
    let core = texture.source().map(|image| image.index());
    let mut preferred = extension_source(texture, "EXT_texture_webp", image_count)?;
    if cfg!(feature = "basisu") && preferred.is_none() {
        preferred = extension_source(texture, "KHR_texture_basisu", image_count)?;
    }
    if let Some(image) = preferred {
        let fallback = core.filter(|&c| c != image);
        return Ok(Ok(TextureImage { image, fallback }));
    }
    if let Some(image) = core {
        return Ok(Ok(TextureImage {
            image,
            fallback: None,
        }));
    }
    let from: Vec<&str> = IMAGE_EXTENSIONS
        .into_iter()
        .filter(|e| texture.extension_value(e).is_some())
        .collect();
    Ok(Err(if from.is_empty() {
        format!("texture {} has no source", texture.index())
    } else {
        format!(
            "texture {}'s only source is in {}, which unbound does not decode{}",
            texture.index(),
            from.join(", "),
            if from.contains(&"KHR_texture_basisu") {
                " (KHR_texture_basisu needs its `basisu` cargo feature)"
            } else {
                ""
            }
        )
    }))
}

/// Whether `primitive` is Draco-compressed (`KHR_draco_mesh_compression`,
/// which unbound does not decode) without uncompressed positions: its
/// accessors would read as zeros.
pub(super) fn without_uncompressed_data(primitive: &gltf::Primitive<'_>) -> bool {
    primitive
        .extension_value("KHR_draco_mesh_compression")
        .is_some()
        && primitive
            .get(&gltf::Semantic::Positions)
            .is_some_and(|p| p.view().is_none() && p.sparse().is_none())
}

#[cfg(test)]
mod tests {
    #[test]
    fn ignored_extensions_are_named_once_with_what_is_lost() {
        let warnings = super::ignored_warnings([
            "KHR_materials_sheen",
            "KHR_texture_transform",
            "KHR_materials_sheen",
            "VENDOR_thing",
        ]);
        assert_eq!(
            warnings,
            [
                "KHR_materials_sheen: sheen not rendered",
                "VENDOR_thing: unknown to unbound: ignored"
            ]
        );
    }

    #[test]
    fn unsupported_required_extensions_are_found() {
        assert_eq!(
            super::unsupported_required(["KHR_mesh_quantization", "EXT_texture_avif"]),
            Some("EXT_texture_avif")
        );
        assert_eq!(super::unsupported_required(["KHR_mesh_quantization"]), None);
    }
}
