//! glTF extensions, reported honestly: the README's table is
//! `SUPPORTED_EXTENSIONS`, a required extension unbound does not support is
//! a typed error naming it, an optional one a warning saying what is lost,
//! once. `KHR_materials_unlit` is rendered (the one GPU test here).

mod common;

use std::path::Path;

use serde_json::{Value, json};
use unbound::loaders::gltf::{GltfDocument, GltfError, SUPPORTED_EXTENSIONS, parse_gltf_slice};

fn quad() -> Value {
    let image = common::ktx2_file(37, 1, 1, &[vec![200, 100, 50, 255]]);
    serde_json::from_str(&common::textured_quad_gltf(&image)).unwrap()
}

fn parse(file: &Value) -> Result<GltfDocument, GltfError> {
    parse_gltf_slice(file.to_string().as_bytes(), Path::new("ext.gltf"), None)
}

/// The extensions the README's table lists (first column, in backticks);
/// a row saying it needs the `draco` or `basisu` cargo feature only when
/// that feature is on.
fn readme_extensions() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = readme
        .split("### glTF extensions")
        .nth(1)
        .expect("README has a glTF extensions section");
    section
        .lines()
        .skip_while(|l| !l.starts_with("| extension"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter(|l| cfg!(feature = "draco") || !l.contains("with the `draco` cargo feature"))
        .filter(|l| cfg!(feature = "basisu") || !l.contains("with the `basisu` cargo feature"))
        .map(|l| {
            l.split('|')
                .nth(1)
                .unwrap()
                .trim()
                .trim_matches('`')
                .to_owned()
        })
        .collect()
}

#[test]
fn the_readme_table_lists_the_supported_extensions() {
    let mut listed = readme_extensions();
    listed.sort();
    let mut supported: Vec<String> = SUPPORTED_EXTENSIONS.iter().map(|e| e.to_string()).collect();
    supported.sort();
    assert_eq!(listed, supported);
}

/// Every supported extension may be required (the `gltf` crate's own list
/// knows only some of them); an unsupported one is
/// `GltfError::UnsupportedExtension` naming it.
#[test]
fn required_extensions_are_supported_or_a_typed_error_naming_them() {
    for &extension in SUPPORTED_EXTENSIONS {
        let mut file = quad();
        file["extensionsUsed"] = json!([extension]);
        file["extensionsRequired"] = json!([extension]);
        let document = parse(&file).unwrap_or_else(|e| panic!("{extension}: {e}"));
        assert!(
            document.warnings.is_empty(),
            "{extension}: {:?}",
            document.warnings
        );
    }
    for extension in [
        #[cfg(not(feature = "draco"))]
        "KHR_draco_mesh_compression",
        #[cfg(not(feature = "basisu"))]
        "KHR_texture_basisu",
        "VENDOR_unknown",
    ] {
        let mut file = quad();
        file["extensionsUsed"] = json!(["KHR_mesh_quantization", extension]);
        file["extensionsRequired"] = json!(["KHR_mesh_quantization", extension]);
        match parse(&file) {
            Err(GltfError::UnsupportedExtension {
                extension: named, ..
            }) => {
                assert_eq!(named, extension);
            }
            other => panic!("{extension}: {other:?}"),
        }
        let message = parse(&file).unwrap_err().to_string();
        assert!(message.contains(extension), "{message}");
        if extension == "KHR_draco_mesh_compression" {
            assert!(message.contains("`draco` cargo feature"), "{message}");
        }
        if extension == "KHR_texture_basisu" {
            assert!(message.contains("`basisu` cargo feature"), "{message}");
        }
    }
}

/// Optional extensions unbound ignores: each named once, with what is lost.
#[test]
fn optional_extensions_are_named_once_with_what_is_lost() {
    let mut file = quad();
    file["extensionsUsed"] = json!([
        "KHR_materials_sheen",
        "KHR_materials_clearcoat",
        "KHR_texture_transform",
        "VENDOR_unknown"
    ]);
    file["materials"][0]["extensions"] =
        json!({"KHR_materials_sheen": {"sheenColorFactor": [1, 0, 0]}});
    file["nodes"][0]["extensions"] = json!({"VENDOR_unknown": {}});
    let document = parse(&file).unwrap();
    assert_eq!(
        document.warnings,
        [
            "KHR_materials_sheen: sheen not rendered",
            "KHR_materials_clearcoat: clear coat not rendered",
            "VENDOR_unknown: unknown to unbound: ignored",
        ]
    );
}

/// An optional Draco extension on a primitive whose accessors have no
/// uncompressed data: the primitive is not drawn (its accessors would read
/// as zeros), with a warning, instead of a silently wrong mesh. (With the
/// `draco` feature the stream is decoded: `tests/gltf_draco.rs`.)
#[cfg(not(feature = "draco"))]
#[test]
fn draco_primitives_without_uncompressed_data_are_skipped_with_a_warning() {
    let mut file = quad();
    file["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    file["meshes"][0]["primitives"][0]["extensions"] =
        json!({"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": {"POSITION": 0}}});
    let with_fallback = parse(&file).unwrap();
    assert_eq!(with_fallback.meshes.len(), 1, "uncompressed data is used");
    for accessor in [0, 1, 2] {
        file["accessors"][accessor]
            .as_object_mut()
            .unwrap()
            .remove("bufferView");
    }
    let document = parse(&file).unwrap();
    assert!(document.meshes.is_empty() && document.placements.is_empty());
    assert!(
        document
            .warnings
            .iter()
            .any(|w| w.contains("1 primitive(s) without uncompressed data not drawn")),
        "{:?}",
        document.warnings
    );
}

/// `KHR_materials_unlit`: the quad shows its base colour whatever the
/// light (a bright sun, then darkness), passed through the default exposure
/// and tone mapping like any radiance: `shown_srgb(base colour)` within 2
/// of 255 per channel (rounding and the sRGB target). The same material
/// without the extension is lit: darker in the dark.
#[test]
fn unlit_materials_show_their_base_colour_without_lighting() {
    use common::{Gpu, Target, camera_framing_plane, shown_srgb};
    use glam::{Mat4, Vec3};
    let base = [0.6f32, 0.3, 0.1];
    let material = |unlit: bool| {
        let extensions = if unlit {
            r#", "extensions": {"KHR_materials_unlit": {}}"#
        } else {
            ""
        };
        format!(
            r#"{{"pbrMetallicRoughness": {{"baseColorFactor": [{}, {}, {}, 1], "metallicFactor": 0}}{extensions}}}"#,
            base[0], base[1], base[2]
        )
    };
    let (gpu, mut renderer) = Gpu::with_renderer();
    let target = Target::new(&gpu, 64, 64);
    renderer.set_camera(&camera_framing_plane(0.5)).unwrap();
    let mut centre = |unlit: bool, light: f32| {
        let uv1 = [[0.0; 2]; 4];
        let file = common::material_quad_gltf(&material(unlit), &[], uv1, &["KHR_materials_unlit"]);
        let document = parse_gltf_slice(file.as_bytes(), Path::new("unlit.gltf"), None).unwrap();
        assert_eq!(document.materials[0].unlit, unlit);
        renderer
            .set_lighting(&unbound::Lighting {
                direction_to_light: Vec3::Z,
                light_color: Vec3::splat(4.0 * light),
                ambient_color: Vec3::splat(light),
            })
            .unwrap();
        let scene = document
            .upload(&mut renderer, Mat4::IDENTITY, None)
            .unwrap();
        let pixel = target.render(&gpu, &mut renderer).0.get_pixel(32, 32).0;
        for object in scene.objects {
            renderer.remove_object(object).unwrap();
        }
        pixel
    };
    let expected = shown_srgb(Vec3::from(base));
    for light in [1.0, 0.0] {
        let pixel = centre(true, light);
        for c in 0..3 {
            assert!(
                pixel[c].abs_diff(expected[c]) <= 2,
                "light {light}: {pixel:?} against {expected:?}"
            );
        }
    }
    let lit_dark = centre(false, 0.0);
    assert!(
        lit_dark[0] + 20 < expected[0],
        "the lit material in the dark: {lit_dark:?}"
    );
}

/// A lossless WebP image of one colour, `size` x `size`.
fn webp(size: u32, color: [u8; 4]) -> Vec<u8> {
    let image = image::RgbaImage::from_pixel(size, size, image::Rgba(color));
    let mut bytes = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut bytes)
        .encode(&image, size, size, image::ExtendedColorType::Rgba8)
        .unwrap();
    bytes
}

/// `EXT_texture_webp`: the WebP image is preferred to the core `source`
/// (another colour), and loads without one (as glTF Transform writes it);
/// a WebP `source` that is not an image is a typed error naming it.
#[test]
fn webp_images_are_decoded_and_preferred() {
    let green = [10, 200, 30, 255];
    let mut file = quad();
    let images = file["images"].as_array_mut().unwrap();
    images.push(json!({
        "uri": format!("data:image/webp;base64,{}", common::base64(&webp(4, green)))
    }));
    file["textures"][0]["extensions"] = json!({"EXT_texture_webp": {"source": 1}});
    file["extensionsUsed"] = json!(["EXT_texture_webp"]);
    let texels = |document: &GltfDocument| {
        let texture = &document.textures[0];
        assert_eq!((texture.width, texture.image), (4, 1));
        match &texture.data {
            unbound::loaders::gltf::TexelData::Rgba8(texels) => texels[..4].to_vec(),
            other => panic!("{other:?}"),
        }
    };
    let preferred = parse(&file).unwrap();
    assert_eq!(texels(&preferred), green, "{:?}", preferred.warnings);
    assert!(preferred.warnings.is_empty(), "{:?}", preferred.warnings);
    file["textures"][0]
        .as_object_mut()
        .unwrap()
        .remove("source");
    file["extensionsRequired"] = json!(["EXT_texture_webp"]);
    assert_eq!(texels(&parse(&file).unwrap()), green);
    file["textures"][0]["extensions"]["EXT_texture_webp"]["source"] = json!(7);
    let error = parse(&file).unwrap_err().to_string();
    assert!(error.contains("EXT_texture_webp.source: 7"), "{error}");
}

/// `KHR_texture_basisu` without the `basisu` feature: a texture with a fallback
/// `source` loads it, said once; a file requiring the extension is a typed
/// error naming it and saying why.
#[cfg(not(feature = "basisu"))]
#[test]
fn basisu_textures_use_their_fallback_or_are_refused_by_name() {
    let mut file = quad();
    let images = file["images"].as_array_mut().unwrap();
    images.push(json!({"uri": "data:image/ktx2;base64,AAAA"}));
    for texture in 0..2 {
        file["materials"][0]["emissiveTexture"] = json!({"index": texture});
        if texture == 1 {
            file["textures"]
                .as_array_mut()
                .unwrap()
                .push(json!({"source": 0}));
        }
        file["textures"][texture]["extensions"] = json!({"KHR_texture_basisu": {"source": 1}});
    }
    file["extensionsUsed"] = json!(["KHR_texture_basisu"]);
    let document = parse(&file).unwrap();
    assert_eq!(document.textures.len(), 1, "both use the fallback image 0");
    let material = &document.materials[0];
    assert!(material.base_color.is_some() && material.emissive.is_some());
    assert_eq!(
        document.warnings,
        [
            "KHR_texture_basisu: Basis Universal images not decoded (unbound was built without \
          its `basisu` cargo feature): textures use their fallback source, or none"
        ]
    );
    file["extensionsRequired"] = json!(["KHR_texture_basisu"]);
    let error = parse(&file).unwrap_err();
    assert!(
        matches!(&error, GltfError::UnsupportedExtension { extension, .. } if extension == "KHR_texture_basisu"),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("cargo feature"), "{message}");
}

/// The quad placed by `EXT_mesh_gpu_instancing` under a node translated by
/// (0, 0, 5): instance attributes from a second buffer of `bytes`, named
/// by `attributes` (accessor JSON objects on buffer view 3, appended).
fn instanced_quad(bytes: &[u8], attributes: &[(&str, Value)]) -> Value {
    let mut file = quad();
    file["extensionsUsed"] = json!(["EXT_mesh_gpu_instancing"]);
    file["buffers"].as_array_mut().unwrap().push(json!({
        "byteLength": bytes.len(),
        "uri": format!("data:application/octet-stream;base64,{}", common::base64(bytes))
    }));
    file["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(json!({"buffer": 1, "byteLength": bytes.len()}));
    let mut named = serde_json::Map::new();
    for (name, accessor) in attributes {
        let accessors = file["accessors"].as_array_mut().unwrap();
        named.insert((*name).into(), json!(accessors.len()));
        accessors.push(accessor.clone());
    }
    file["nodes"][0]["translation"] = json!([0, 0, 5]);
    file["nodes"][0]["extensions"] = json!({"EXT_mesh_gpu_instancing": {"attributes": named}});
    file
}

/// `EXT_mesh_gpu_instancing`: one object per instance, `node × T × R × S`,
/// with translations as floats, rotations as normalised shorts and scales
/// as unnormalised bytes (`KHR_mesh_quantization`'s encodings), against
/// the CPU reference within 1e-4 (a short's precision is 1/32767).
#[test]
fn instances_are_objects_under_their_node() {
    let mut bytes = Vec::new();
    let translations = [[1.0f32, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]];
    translations
        .iter()
        .flatten()
        .for_each(|v| bytes.extend(v.to_le_bytes()));
    // Identity, a quarter turn about Z, a half turn about X.
    let s = (std::f32::consts::FRAC_1_SQRT_2 * 32767.0).round() as i16;
    let rotations: [[i16; 4]; 3] = [[0, 0, 0, 32767], [0, 0, s, s], [32767, 0, 0, 0]];
    rotations
        .iter()
        .flatten()
        .for_each(|v| bytes.extend(v.to_le_bytes()));
    let scales: [[u8; 4]; 3] = [[1, 1, 1, 0], [2, 2, 2, 0], [1, 3, 1, 0]];
    bytes.extend(scales.iter().flatten());
    let accessor = |offset: usize, component: u32, kind: &str, normalized: bool| {
        json!({"bufferView": 3, "byteOffset": offset, "componentType": component,
               "count": 3, "type": kind, "normalized": normalized})
    };
    let mut file = instanced_quad(
        &bytes,
        &[
            ("TRANSLATION", accessor(0, 5126, "VEC3", false)),
            ("ROTATION", accessor(36, 5122, "VEC4", true)),
            ("SCALE", accessor(60, 5121, "VEC3", false)),
        ],
    );
    // Byte scales are padded to 4 bytes per element: a view with a stride.
    file["accessors"][5]["bufferView"] = json!(4);
    file["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(json!({"buffer": 1, "byteOffset": 60, "byteLength": 12, "byteStride": 4}));
    file["accessors"][5]["byteOffset"] = json!(0);
    let document = parse(&file).unwrap();
    assert_eq!(document.placements.len(), 3, "{:?}", document.warnings);
    let node = glam::Mat4::from_translation(glam::Vec3::new(0.0, 0.0, 5.0));
    for (i, placement) in document.placements.iter().enumerate() {
        let r = glam::Quat::from_array(rotations[i].map(|c| f32::from(c) / 32767.0)).normalize();
        let expected = node
            * glam::Mat4::from_scale_rotation_translation(
                glam::Vec3::new(
                    f32::from(scales[i][0]),
                    f32::from(scales[i][1]),
                    f32::from(scales[i][2]),
                ),
                r,
                glam::Vec3::from(translations[i]),
            );
        assert!(
            placement.scene_from_object.abs_diff_eq(expected, 1e-4),
            "instance {i}: {} against {expected}",
            placement.scene_from_object
        );
    }
}

/// Hostile instancing: 2^31 instances are refused by the placement limit
/// before anything is read or allocated; an accessor longer than its
/// buffer, counts that differ and a float-less rotation are typed errors.
#[test]
fn hostile_instancing_is_a_typed_error() {
    let bytes = vec![0u8; 24];
    let translation = |count: u64| json!({"bufferView": 3, "componentType": 5126, "count": count, "type": "VEC3"});
    let huge = instanced_quad(&bytes, &[("TRANSLATION", translation(1 << 31))]);
    match parse(&huge) {
        Err(GltfError::LimitExceeded { value, .. }) => assert_eq!(value, 1 << 31),
        other => panic!("{other:?}"),
    }
    let long = instanced_quad(&bytes, &[("TRANSLATION", translation(1000))]);
    let error = parse(&long).unwrap_err().to_string();
    assert!(error.contains("accessor 3"), "{error}");
    let rotation = json!({"bufferView": 3, "componentType": 5121, "count": 2, "type": "VEC4"});
    let differ = instanced_quad(
        &bytes,
        &[
            ("TRANSLATION", translation(2)),
            ("ROTATION", rotation.clone()),
        ],
    );
    let error = parse(&differ).unwrap_err().to_string();
    assert!(error.contains("does not allow"), "{error}");
    let mut rotation = rotation;
    rotation["componentType"] = json!(5126);
    rotation["count"] = json!(1);
    let differ = instanced_quad(
        &bytes,
        &[("TRANSLATION", translation(2)), ("ROTATION", rotation)],
    );
    let error = parse(&differ).unwrap_err().to_string();
    assert!(error.contains("different counts"), "{error}");
}

/// More instances than the renderer's object table holds: a typed error
/// naming both numbers, nothing added.
#[test]
fn more_instances_than_the_object_capacity_is_a_typed_error() {
    let bytes = vec![0u8; 12 * 8];
    let translation = json!({"bufferView": 3, "componentType": 5126, "count": 8, "type": "VEC3"});
    let document = parse(&instanced_quad(&bytes, &[("TRANSLATION", translation)])).unwrap();
    assert_eq!(document.placements.len(), 8);
    let capacities = unbound::Capacities {
        objects: 4,
        ..common::Gpu::default_capacities()
    };
    let gpu = common::Gpu::new(&capacities);
    let mut renderer = gpu.renderer(&capacities);
    let error = document
        .upload(&mut renderer, glam::Mat4::IDENTITY, None)
        .unwrap_err();
    let message = error.to_string();
    assert!(
        matches!(
            error,
            GltfError::ObjectCapacity {
                objects: 8,
                capacity: 4,
                live: 0,
                ..
            }
        ),
        "{message}"
    );
    assert!(message.contains("places 8 objects") && message.contains("capacity is 4"));
}
