//! Files the tests read or generate: the crate's assets, the workspace's
//! WGSL files, base64, KTX2, textured-quad glTFs and a glTF scene using
//! most of what the loader reads. The `gltf_json` fuzz target includes this
//! file too (for its seeds), so it uses nothing but `std`.

/// Path of a file under the crate's `assets/`.
pub fn asset(relative: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(relative)
}

/// Every `.wgsl` file under the workspace root (build output and hidden
/// directories skipped): path relative to the root, and contents; sorted.
pub fn workspace_wgsl_files() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    dirs.push(path);
                }
            } else if name.ends_with(".wgsl") {
                let relative = path.strip_prefix(root).unwrap();
                files.push((
                    relative.to_string_lossy().replace('\\', "/"),
                    std::fs::read_to_string(&path).unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}

/// Standard base64 (for data URIs in generated files).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    while !out.len().is_multiple_of(4) {
        out.push('=');
    }
    out
}

/// A KTX2 file (no supercompression, an empty data format descriptor) of
/// `vk_format` with the given levels, level 0 first.
pub fn ktx2_file(vk_format: u32, width: u32, height: u32, levels: &[Vec<u8>]) -> Vec<u8> {
    const MAGIC: [u8; 12] = [
        0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
    ];
    let dfd_offset = 80 + 24 * levels.len() as u32;
    let mut data_offset = u64::from(dfd_offset + 4).next_multiple_of(8);
    let mut out = MAGIC.to_vec();
    let level_count = levels.len() as u32;
    for word in [vk_format, 1, width, height, 0, 0, 1, level_count, 0] {
        out.extend(word.to_le_bytes());
    }
    for word in [dfd_offset, 4, 0, 0] {
        out.extend(word.to_le_bytes());
    }
    out.extend(0u64.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    for level in levels {
        let length = level.len() as u64;
        for word in [data_offset, length, length] {
            out.extend(word.to_le_bytes());
        }
        data_offset += length.next_multiple_of(8);
    }
    out.extend(4u32.to_le_bytes()); // DFD: its own total size, no blocks
    for level in levels {
        out.resize(out.len().next_multiple_of(8), 0);
        out.extend(level);
    }
    out
}

/// A glTF file: one unit quad facing +Z whose base colour texture is
/// `image` (embedded as a data URI), sampled nearest.
pub fn textured_quad_gltf(image: &[u8]) -> String {
    textured_quad_parts(image).0
}

/// [`textured_quad_gltf`] and the bytes of its one buffer (for a GLB
/// variant, which drops the buffer's URI and carries them as its BIN chunk).
pub fn textured_quad_parts(image: &[u8]) -> (String, Vec<u8>) {
    let mut buffer = Vec::new();
    for p in [
        [-0.5f32, -0.5, 0.0],
        [0.5, -0.5, 0.0],
        [0.5, 0.5, 0.0],
        [-0.5, 0.5, 0.0],
    ] {
        p.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    }
    for uv in [[0.0f32, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]] {
        uv.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        buffer.extend(i.to_le_bytes());
    }
    let json = format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": [0]}}],
  "nodes": [{{"mesh": 0}}],
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0, "TEXCOORD_0": 1}}, "indices": 2, "material": 0}}]}}],
  "materials": [{{"pbrMetallicRoughness": {{"baseColorTexture": {{"index": 0}}, "metallicFactor": 0}}}}],
  "textures": [{{"source": 0, "sampler": 0}}],
  "samplers": [{{"magFilter": 9728, "minFilter": 9984}}],
  "images": [{{"uri": "data:image/ktx2;base64,{image}"}}],
  "buffers": [{{"byteLength": {len}, "uri": "data:application/octet-stream;base64,{buffer}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 32}},
    {{"buffer": 0, "byteOffset": 80, "byteLength": 12}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]}},
    {{"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"}},
    {{"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}}
  ]
}}"#,
        image = base64(image),
        len = buffer.len(),
        buffer = base64(&buffer),
    );
    (json, buffer)
}

/// A glTF file: the unit quad of [`textured_quad_gltf`] (no normals: they
/// are computed, +Z) with a second UV set `uv1` (one per corner: (-x, -y),
/// (+x, -y), (+x, +y), (-x, +y)), the one material `material` (its JSON
/// object, naming textures 0, 1, ...) and one texture per image, each
/// sampled nearest (mag and min, no mips used) from `images`: (MIME type,
/// bytes) embedded as data URIs. `extensions` is the `extensionsUsed` list.
pub fn material_quad_gltf(
    material: &str,
    images: &[(&str, Vec<u8>)],
    uv1: [[f32; 2]; 4],
    extensions: &[&str],
) -> String {
    let mut buffer = Vec::new();
    let mut put = |values: &[f32]| values.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    put(&[
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0,
    ]);
    put(&[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    put(&uv1.concat());
    for i in [0u16, 1, 2, 0, 2, 3] {
        buffer.extend(i.to_le_bytes());
    }
    let textures: Vec<String> = (0..images.len())
        .map(|i| format!(r#"{{"source": {i}, "sampler": 0}}"#))
        .collect();
    let images: Vec<String> = images
        .iter()
        .map(|(mime, bytes)| format!(r#"{{"uri": "data:{mime};base64,{}"}}"#, base64(bytes)))
        .collect();
    let extensions: Vec<String> = extensions.iter().map(|e| format!("\"{e}\"")).collect();
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "extensionsUsed": [{extensions}],
  "scene": 0,
  "scenes": [{{"nodes": [0]}}],
  "nodes": [{{"mesh": 0}}],
  "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0, "TEXCOORD_0": 1, "TEXCOORD_1": 2}}, "indices": 3, "material": 0}}]}}],
  "materials": [{material}],
  "textures": [{textures}],
  "samplers": [{{"magFilter": 9728, "minFilter": 9728}}],
  "images": [{images}],
  "buffers": [{{"byteLength": {len}, "uri": "data:application/octet-stream;base64,{data}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 32}},
    {{"buffer": 0, "byteOffset": 80, "byteLength": 32}},
    {{"buffer": 0, "byteOffset": 112, "byteLength": 12}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]}},
    {{"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"}},
    {{"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"}},
    {{"bufferView": 3, "componentType": 5123, "count": 6, "type": "SCALAR"}}
  ]
}}"#,
        extensions = extensions.join(", "),
        textures = textures.join(", "),
        images = images.join(",\n    "),
        len = buffer.len(),
        data = base64(&buffer),
    )
}

/// A glTF file using most of what the loader reads, and the bytes of its one
/// buffer (a `data:application/gltf-buffer` URI): a node hierarchy (TRS,
/// matrix, a camera node), two meshes with indexed and non-indexed
/// triangles, a strip, a fan and points; normals and tangents interleaved
/// (stride 28), UVs as normalised u16 and u8, u8 and u32 indices; two
/// materials (every texture slot, `KHR_texture_transform`,
/// `KHR_materials_emissive_strength`, mask and blend), an image in a buffer
/// view with a MIME type and one as a data URI (2x2 RGBA8 KTX2 both), a
/// sampler, an animation, and two `KHR_lights_punctual` lights (a spot on
/// a mesh's node, a point on the camera's). A seed for structure-aware
/// fuzzing.
pub fn scene_gltf_parts() -> (String, Vec<u8>) {
    let mut buffer = Vec::new();
    let mut put = |bytes: &[u8]| {
        let offset = buffer.len();
        buffer.extend(bytes);
        buffer.resize(buffer.len().next_multiple_of(4), 0);
        (offset, bytes.len())
    };
    let floats =
        |values: &[f32]| -> Vec<u8> { values.iter().flat_map(|v| v.to_le_bytes()).collect() };
    let positions = put(&floats(&[0., 0., 0., 1., 0., 0., 1., 1., 0., 0., 1., 0.]));
    let mut interleaved = Vec::new();
    for _ in 0..4 {
        interleaved.extend(floats(&[0., 0., 1., 1., 0., 0., 1.]));
    }
    let normals_tangents = put(&interleaved);
    let uv_u16 = put(&[
        0, 0, 0, 0, 255, 255, 0, 0, 255, 255, 255, 255, 0, 0, 255, 255,
    ]);
    let uv_u8 = put(&[0, 0, 0, 0, 255, 0, 0, 0, 255, 255, 0, 0, 0, 255, 0, 0]);
    let indices_u8 = put(&[0, 1, 2, 0, 2, 3]);
    let strip_u32: Vec<u8> = [0u32, 1, 3, 2]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let strip = put(&strip_u32);
    let image = put(&ktx2_file(37, 2, 2, &[[255u8, 0, 0, 255].repeat(4)]));
    let animation = put(&floats(&[0., 1., 0., 0., 0., 0., 1., 0.]));
    let view = |(offset, length): (usize, usize), stride: &str| {
        format!(r#"{{"buffer": 0, "byteOffset": {offset}, "byteLength": {length}{stride}}}"#)
    };
    let views = [
        view(positions, ""),
        view(normals_tangents, r#", "byteStride": 28"#),
        view(uv_u16, ""),
        view(uv_u8, r#", "byteStride": 4"#),
        view(indices_u8, ""),
        view(strip, ""),
        view(image, ""),
        view(animation, ""),
    ]
    .join(",\n    ");
    let second_image = base64(&ktx2_file(37, 2, 2, &[[0u8, 0, 255, 255].repeat(4)]));
    let json = format!(
        r#"{{
  "asset": {{"version": "2.0", "generator": "unbound tests"}},
  "extensionsUsed": ["KHR_texture_transform", "KHR_materials_emissive_strength", "KHR_lights_punctual"],
  "extensions": {{"KHR_lights_punctual": {{"lights": [
    {{"type": "spot", "color": [1, 0.9, 0.8], "intensity": 20, "range": 10, "spot": {{"innerConeAngle": 0.3, "outerConeAngle": 0.6}}}},
    {{"type": "point", "intensity": 3}}
  ]}}}},
  "scene": 0,
  "scenes": [{{"nodes": [0]}}],
  "nodes": [
    {{"children": [1, 2], "translation": [1, 2, 3], "rotation": [0, 0, 0.7071068, 0.7071068], "scale": [2, 2, 2]}},
    {{"mesh": 0, "matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]}},
    {{"mesh": 1, "children": [3], "extensions": {{"KHR_lights_punctual": {{"light": 0}}}}}},
    {{"camera": 0, "extensions": {{"KHR_lights_punctual": {{"light": 1}}}}}}
  ],
  "cameras": [{{"type": "perspective", "perspective": {{"yfov": 0.8, "znear": 0.1}}}}],
  "meshes": [
    {{"primitives": [
      {{"attributes": {{"POSITION": 0, "NORMAL": 1, "TANGENT": 2, "TEXCOORD_0": 3, "TEXCOORD_1": 4}}, "indices": 5, "material": 0}},
      {{"attributes": {{"POSITION": 0, "TEXCOORD_0": 3}}, "indices": 6, "mode": 5, "material": 1}},
      {{"attributes": {{"POSITION": 0}}, "mode": 6, "material": 1}},
      {{"attributes": {{"POSITION": 0}}, "mode": 0}}
    ]}},
    {{"primitives": [{{"attributes": {{"POSITION": 0, "NORMAL": 1}}, "indices": 5}}]}}
  ],
  "materials": [
    {{"pbrMetallicRoughness": {{
        "baseColorTexture": {{"index": 0, "extensions": {{"KHR_texture_transform": {{"offset": [0.5, 0], "rotation": 0.3, "scale": [2, 2], "texCoord": 1}}}}}},
        "metallicRoughnessTexture": {{"index": 1}}}},
      "normalTexture": {{"index": 1, "scale": 0.5}},
      "occlusionTexture": {{"index": 1, "strength": 0.5, "texCoord": 1}},
      "emissiveTexture": {{"index": 0}},
      "emissiveFactor": [1, 1, 1],
      "extensions": {{"KHR_materials_emissive_strength": {{"emissiveStrength": 2}}}},
      "alphaMode": "MASK", "alphaCutoff": 0.3, "doubleSided": true}},
    {{"pbrMetallicRoughness": {{"baseColorFactor": [1, 0, 0, 0.5]}}, "alphaMode": "BLEND"}}
  ],
  "textures": [{{"source": 0, "sampler": 0}}, {{"source": 1}}],
  "samplers": [{{"magFilter": 9728, "minFilter": 9987, "wrapS": 33648, "wrapT": 33071}}],
  "images": [
    {{"bufferView": 6, "mimeType": "image/ktx2"}},
    {{"uri": "data:image/ktx2;base64,{second_image}"}}
  ],
  "animations": [{{
    "samplers": [{{"input": 7, "output": 8, "interpolation": "LINEAR"}}],
    "channels": [{{"sampler": 0, "target": {{"node": 1, "path": "translation"}}}}]
  }}],
  "buffers": [{{"byteLength": {len}, "uri": "data:application/gltf-buffer;base64,{data}"}}],
  "bufferViews": [
    {views}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]}},
    {{"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"}},
    {{"bufferView": 1, "byteOffset": 12, "componentType": 5126, "count": 4, "type": "VEC4"}},
    {{"bufferView": 2, "componentType": 5123, "normalized": true, "count": 4, "type": "VEC2"}},
    {{"bufferView": 3, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC2"}},
    {{"bufferView": 4, "componentType": 5121, "count": 6, "type": "SCALAR"}},
    {{"bufferView": 5, "componentType": 5125, "count": 4, "type": "SCALAR"}},
    {{"bufferView": 7, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]}},
    {{"bufferView": 7, "byteOffset": 8, "componentType": 5126, "count": 2, "type": "VEC3"}}
  ]
}}"#,
        len = buffer.len(),
        data = base64(&buffer),
    );
    (json, buffer)
}

/// An 8x8 BC1 texture (VK_FORMAT_BC1_RGBA_UNORM_BLOCK = 133), full chain of
/// four levels, every block one solid colour per level: red, green, blue,
/// white (565 endpoints equal, all indices 0).
pub fn bc1_levels() -> Vec<Vec<u8>> {
    let block = |color: u16| {
        let mut b = color.to_le_bytes().to_vec();
        b.extend(color.to_le_bytes());
        b.extend([0u8; 4]);
        b
    };
    vec![
        block(0xF800).repeat(4),
        block(0x07E0),
        block(0x001F),
        block(0xFFFF),
    ]
}

/// A GLB of `json` and, if given, a BIN chunk of `bin` (each padded to 4
/// bytes); without `bin` the file has no BIN chunk at all.
pub fn glb(json: &str, bin: Option<&[u8]>) -> Vec<u8> {
    let mut json = json.as_bytes().to_vec();
    json.resize(json.len().next_multiple_of(4), b' ');
    let bin = bin.map(|b| {
        let mut b = b.to_vec();
        b.resize(b.len().next_multiple_of(4), 0);
        b
    });
    let length = 12 + 8 + json.len() + bin.as_ref().map_or(0, |b| 8 + b.len());
    let mut out = b"glTF".to_vec();
    for word in [2, length as u32, json.len() as u32] {
        out.extend(word.to_le_bytes());
    }
    out.extend(b"JSON");
    out.extend(json);
    if let Some(bin) = bin {
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(bin);
    }
    out
}

/// The bytes of a base64 `data:` URI (of a generated file: panics on
/// anything else).
pub fn decode_data_uri(uri: &str) -> Vec<u8> {
    let payload = uri.split_once(";base64,").expect("a base64 data URI").1;
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let clean: Vec<u8> = payload.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let n = chunk.iter().fold(0u32, |n, &x| (n << 6) | u32::from(x)) << (6 * (4 - chunk.len()));
        out.extend(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..chunk.len() - 1]);
    }
    out
}
