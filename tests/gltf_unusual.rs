//! Valid glTF that is unusual: generated files a glTF validator accepts,
//! each an edit of one textured quad, must load with the quad's content
//! (or, without a scene, with nothing placed and a warning). No GPU.

mod common;

use std::path::Path;

use serde_json::{Value, json};
use unbound::loaders::gltf::{GltfDocument, GltfError, parse_gltf_slice};

/// The textured quad (a 1x1 RGBA8 KTX2 image, data URIs only) as JSON.
fn quad() -> Value {
    let image = common::ktx2_file(37, 1, 1, &[vec![200, 100, 50, 255]]);
    serde_json::from_str(&common::textured_quad_gltf(&image)).unwrap()
}

fn parse(file: &Value) -> Result<GltfDocument, GltfError> {
    parse_gltf_slice(file.to_string().as_bytes(), Path::new("unusual.gltf"), None)
}

/// Parses `file`, which must give the quad's document with `warnings`
/// (substrings, one per warning, in order).
fn assert_loads_as_the_quad(name: &str, file: &Value, warnings: &[&str]) {
    let expected = parse(&quad()).unwrap();
    assert_eq!(expected.placements.len(), 1);
    assert!(expected.warnings.is_empty(), "{:?}", expected.warnings);
    let document = parse(file).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(document.meshes, expected.meshes, "{name}");
    assert_eq!(document.textures, expected.textures, "{name}");
    assert_eq!(document.materials, expected.materials, "{name}");
    assert_eq!(document.samplers, expected.samplers, "{name}");
    assert_eq!(document.placements, expected.placements, "{name}");
    assert_eq!(
        document.warnings.len(),
        warnings.len(),
        "{name}: {:?}",
        document.warnings
    );
    for (warning, expected) in document.warnings.iter().zip(warnings) {
        assert!(
            warning.contains(expected),
            "{name}: {warning:?} lacks {expected:?}"
        );
    }
}

/// Every number as a float (`4` becomes `4.0`).
fn floats_everywhere(value: &mut Value) {
    match value {
        Value::Number(n) => *value = json!(n.as_f64().unwrap()),
        Value::Array(items) => items.iter_mut().for_each(floats_everywhere),
        Value::Object(map) => map.values_mut().for_each(floats_everywhere),
        _ => {}
    }
}

/// Buffers as data URIs with the specification's own MIME type.
#[test]
fn gltf_buffer_data_uris_load() {
    let mut file = quad();
    let uri = file["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let payload = uri.split_once(',').unwrap().1;
    file["buffers"][0]["uri"] = json!(format!("data:application/gltf-buffer;base64,{payload}"));
    assert_loads_as_the_quad("gltf-buffer", &file, &[]);
}

/// JSON has one number type: `36.0` is the integer 36 (counts, indices,
/// enums, byte lengths and offsets).
#[test]
fn integers_written_as_floats_load() {
    let mut file = quad();
    floats_everywhere(&mut file);
    let text = file.to_string();
    for written in [
        "\"count\":4.0",
        "\"mesh\":0.0",
        "\"scene\":0.0",
        "\"componentType\":5126.0",
    ] {
        assert!(text.contains(written), "{written} in {text}");
    }
    assert_loads_as_the_quad("floats", &file, &[]);
}

/// `extras` may be any JSON value.
#[test]
fn extras_of_every_type_load() {
    let mut file = quad();
    file["asset"]["extras"] = json!("a string");
    file["scenes"][0]["extras"] = json!({"an": "object"});
    file["nodes"][0]["extras"] = json!(42);
    file["meshes"][0]["extras"] = json!([1, "two", {"three": 3}]);
    file["meshes"][0]["primitives"][0]["extras"] = json!(true);
    file["materials"][0]["extras"] = Value::Null;
    file["buffers"][0]["extras"] = json!(-1.5);
    file["accessors"][0]["extras"] = json!([]);
    file["extras"] = json!("root");
    assert_loads_as_the_quad("extras", &file, &[]);
}

/// `KHR_animation_pointer` channels name a JSON pointer instead of a node;
/// they are dropped with a warning naming what is not played, and channels
/// with a node are still accepted (this one animates the weights of a node
/// without morph targets: dropped too, with its own warning).
#[test]
fn animation_channels_without_a_node_load() {
    let mut file = quad();
    // Two keyframe times and two values, read from the UV view.
    let accessors = file["accessors"].as_array_mut().unwrap();
    accessors.push(json!({"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]}));
    accessors.push(json!({"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR"}));
    file["extensionsUsed"] = json!(["KHR_animation_pointer"]);
    file["animations"] = json!([{
        "samplers": [{"input": 3, "output": 4}],
        "channels": [
            {"sampler": 0, "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {
                "pointer": "/materials/0/pbrMetallicRoughness/metallicFactor"}}}},
            {"sampler": 0, "target": {"node": 0, "path": "weights"}}
        ]
    }]);
    assert_loads_as_the_quad(
        "animation pointer",
        &file,
        &[
            "1 animation channel without a target node not played (KHR_animation_pointer",
            "1 morph weight channel(s) on nodes without morph targets ignored",
            "KHR_animation_pointer",
        ],
    );
}

/// No `scene` and no `scenes`, an empty `scenes` list, and scenes without
/// nodes: the meshes are read, nothing is placed, and a warning says why.
/// With scenes but no `scene`, the first scene is shown.
#[test]
fn files_without_a_scene_load_empty_with_a_warning() {
    let reference = parse(&quad()).unwrap();
    let mut cases = Vec::new();
    let mut no_scene = quad();
    no_scene.as_object_mut().unwrap().remove("scene");
    no_scene.as_object_mut().unwrap().remove("scenes");
    cases.push(("no scene", no_scene, "no scene"));
    let mut no_scenes = quad();
    no_scenes.as_object_mut().unwrap().remove("scene");
    no_scenes["scenes"] = json!([]);
    cases.push(("empty scene list", no_scenes, "no scene"));
    let mut empty = quad();
    empty["scenes"] = json!([{"nodes": []}]);
    cases.push(("scene without nodes", empty, "scene 0 is empty"));
    let mut omitted = quad();
    omitted["scenes"] = json!([{}, {"nodes": [0]}]);
    omitted["scene"] = json!(0);
    cases.push(("scene with nodes omitted", omitted, "scene 0 is empty"));
    for (name, file, warning) in cases {
        let document = parse(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(document.placements.is_empty(), "{name}");
        assert_eq!(
            document.meshes, reference.meshes,
            "{name}: meshes are still read"
        );
        assert_eq!(
            document.warnings.len(),
            1,
            "{name}: {:?}",
            document.warnings
        );
        assert!(
            document.warnings[0].contains(warning),
            "{name}: {:?}",
            document.warnings
        );
        let (min, max) = document.bounds(glam::Mat4::IDENTITY);
        assert!(min.x > max.x, "{name}: empty bounds");
    }
    let mut first = quad();
    first.as_object_mut().unwrap().remove("scene");
    first["scenes"] = json!([{"nodes": [0]}, {"nodes": []}]);
    let document = parse(&first).unwrap();
    assert_eq!(document.placements, reference.placements);
    assert!(document.warnings.is_empty(), "{:?}", document.warnings);
}

/// An accessor without a buffer view is zeros, and sparse storage on top of
/// it gives the elements it names: positions written only as sparse values
/// load as the quad; texture coordinates without a view are all zero.
#[test]
fn accessors_without_a_buffer_view_are_zeros_and_take_sparse_values() {
    let mut file = quad();
    // Sparse indices 0..4 (u8) and the quad's 48 bytes of positions as
    // values, read from views appended to the same buffer.
    let uri = file["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let mut buffer = common::decode_data_uri(&uri);
    let positions = buffer[..48].to_vec();
    let indices_at = buffer.len();
    buffer.extend([0u8, 1, 2, 3]);
    let values_at = buffer.len();
    buffer.extend(&positions);
    file["buffers"][0] = json!({
        "byteLength": buffer.len(),
        "uri": format!("data:application/octet-stream;base64,{}", common::base64(&buffer)),
    });
    let views = file["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": indices_at, "byteLength": 4}));
    views.push(json!({"buffer": 0, "byteOffset": values_at, "byteLength": 48}));
    file["accessors"][0] = json!({
        "componentType": 5126, "count": 4, "type": "VEC3",
        "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0],
        "sparse": {"count": 4,
            "indices": {"bufferView": 3, "componentType": 5121},
            "values": {"bufferView": 4}}
    });
    assert_loads_as_the_quad("sparse on zeros", &file, &[]);

    let mut zeros = quad();
    zeros["accessors"][1]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let document = parse(&zeros).unwrap();
    assert_eq!(
        document.meshes[0].uv0.as_deref(),
        Some(&[[0.0f32; 2]; 4][..])
    );
    assert_eq!(
        document.meshes[0].positions,
        parse(&quad()).unwrap().meshes[0].positions
    );

    // A sparse index outside the accessor is a typed error.
    let mut outside = file.clone();
    let uri = outside["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let mut bytes = common::decode_data_uri(&uri);
    bytes[indices_at + 3] = 9;
    outside["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        common::base64(&bytes)
    ));
    let error = parse(&outside).unwrap_err().to_string();
    assert!(error.contains("sparse index 9"), "{error}");
}

/// A texture without a source, or whose only source is in an extension
/// unbound does not decode, is not used: the material shows its factors,
/// and a warning names the texture (and the extension, once).
#[test]
fn textures_without_a_usable_source_load_unused_with_a_warning() {
    let mut no_source = quad();
    no_source["textures"][0]
        .as_object_mut()
        .unwrap()
        .remove("source");
    // With the `basisu` feature a KTX2 `KHR_texture_basisu` source is used
    // (tests/gltf_basisu.rs).
    #[cfg(not(feature = "basisu"))]
    let basisu_only = {
        let mut file = no_source.clone();
        file["textures"][0]["extensions"] = json!({"KHR_texture_basisu": {"source": 0}});
        file["extensionsUsed"] = json!(["KHR_texture_basisu"]);
        file
    };
    for (name, file, warnings) in [
        ("no source", no_source, &["texture 0 has no source"][..]),
        #[cfg(not(feature = "basisu"))]
        (
            "Basis Universal only",
            basisu_only,
            &[
                "texture 0's only source is in KHR_texture_basisu",
                "KHR_texture_basisu: Basis Universal images not decoded",
            ][..],
        ),
    ] {
        let document = parse(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(document.textures.is_empty(), "{name}");
        assert_eq!(document.materials[0].base_color, None, "{name}");
        assert_eq!(document.placements.len(), 1, "{name}");
        assert_eq!(
            document.warnings.len(),
            warnings.len(),
            "{name}: {:?}",
            document.warnings
        );
        for expected in warnings {
            assert!(
                document.warnings.iter().any(|w| w.contains(expected)),
                "{name}: {:?} lacks {expected:?}",
                document.warnings
            );
        }
    }
}

/// A GLB without a BIN chunk loads when no buffer needs one (its buffers
/// are data URIs); a buffer without a URI then is an error only when a view
/// reads it, naming why.
#[test]
fn glbs_without_a_bin_chunk_load_when_no_buffer_needs_one() {
    let glb = common::glb(&quad().to_string(), None);
    let document =
        unbound::loaders::gltf::parse_gltf_slice(&glb, Path::new("no-bin.glb"), None).unwrap();
    assert_eq!(document.meshes, parse(&quad()).unwrap().meshes);
    let mut needs_bin = quad();
    needs_bin["buffers"][0]
        .as_object_mut()
        .unwrap()
        .remove("uri");
    let glb = common::glb(&needs_bin.to_string(), None);
    let error = unbound::loaders::gltf::parse_gltf_slice(&glb, Path::new("no-bin.glb"), None)
        .unwrap_err()
        .to_string();
    assert!(error.contains("without a GLB BIN chunk"), "{error}");
    // Nothing to draw at all: an empty scene with a warning.
    let empty = json!({"asset": {"version": "2.0"}, "scenes": [{}], "scene": 0});
    let glb = common::glb(&empty.to_string(), None);
    let document =
        unbound::loaders::gltf::parse_gltf_slice(&glb, Path::new("empty.glb"), None).unwrap();
    assert!(document.meshes.is_empty() && document.placements.is_empty());
    assert_eq!(document.warnings.len(), 1, "{:?}", document.warnings);
}
