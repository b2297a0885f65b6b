//! Files the tests read or generate: the crate's assets, the workspace's
//! WGSL files, base64, KTX2 and a textured-quad glTF.

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
    format!(
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
    )
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
