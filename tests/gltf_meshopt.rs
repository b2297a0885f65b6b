//! `EXT_meshopt_compression` and `KHR_meshopt_compression`, every mode and
//! filter, decoded by the loader and compared with the data they were
//! encoded from (the CPU reference), in files generated here with the
//! `meshopt` crate's encoders; and hostile streams as typed errors. No GPU.

mod common;

use std::path::Path;

use serde_json::{Value, json};
use unbound::loaders::gltf::{
    GltfDocument, GltfError, Limit, LoadLimits, ParseOptions, parse_gltf_slice,
    parse_gltf_slice_with_options,
};

/// A generated file: compressed views in a fallback buffer whose streams
/// are in buffer 0 (a data URI, or a GLB's BIN chunk).
struct File {
    /// `EXT` or `KHR`.
    ext: &'static str,
    streams: Vec<u8>,
    fallback_len: usize,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl File {
    fn new(ext: &'static str) -> Self {
        Self {
            ext,
            streams: Vec::new(),
            fallback_len: 0,
            views: Vec::new(),
            accessors: Vec::new(),
        }
    }

    fn name(&self) -> String {
        format!("{}_meshopt_compression", self.ext)
    }

    /// A view of `count` x `stride` decoded bytes compressed as `stream`;
    /// `vertex_stride`: the core view's `byteStride`. Returns its index.
    fn view(
        &mut self,
        stream: &[u8],
        (count, stride): (usize, usize),
        (mode, filter): (&str, &str),
        vertex_stride: Option<usize>,
    ) -> usize {
        let length = count * stride;
        let mut view = json!({
            "buffer": 1, "byteOffset": self.fallback_len, "byteLength": length,
            "extensions": {self.name(): {
                "buffer": 0, "byteOffset": self.streams.len(), "byteLength": stream.len(),
                "byteStride": stride, "count": count, "mode": mode, "filter": filter}}
        });
        if let Some(stride) = vertex_stride {
            view["byteStride"] = json!(stride);
        }
        self.streams.extend(stream);
        self.streams
            .resize(self.streams.len().next_multiple_of(4), 0);
        self.fallback_len += length.next_multiple_of(4);
        self.views.push(view);
        self.views.len() - 1
    }

    fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// The file: one triangle primitive with `attributes` and `indices`.
    fn json(&self, attributes: &Value, indices: Option<usize>) -> Value {
        let mut primitive = json!({"attributes": attributes});
        if let Some(indices) = indices {
            primitive["indices"] = json!(indices);
        }
        let used = [self.name(), "KHR_mesh_quantization".into()];
        json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": used, "extensionsRequired": used,
            "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [primitive]}],
            "buffers": [
                {"byteLength": self.streams.len(),
                 "uri": format!("data:application/octet-stream;base64,{}", common::base64(&self.streams))},
                {"byteLength": self.fallback_len, "extensions": {self.name(): {"fallback": true}}}
            ],
            "bufferViews": self.views, "accessors": self.accessors,
        })
    }
}

fn parse(file: &Value) -> Result<GltfDocument, GltfError> {
    parse_gltf_slice(file.to_string().as_bytes(), Path::new("meshopt.gltf"), None)
}

/// `n` points on a bumpy sphere, deterministic.
fn points(n: usize) -> Vec<[f32; 3]> {
    (0..n)
        .map(|i| {
            let (a, b) = (i as f32 * 0.7, i as f32 * 1.3);
            [
                a.sin() * b.cos() * 3.0,
                a.cos() * 2.0 - 0.5,
                b.sin() * 1.5 + 0.25,
            ]
        })
        .collect()
}

fn unit(p: [f32; 3]) -> [f32; 3] {
    let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    [p[0] / l, p[1] / l, p[2] / l]
}

/// Triangles over `n` vertices (a fan of strips), `3 * (n - 2)` indices.
fn triangles(n: u32) -> Vec<u32> {
    (0..n - 2).flat_map(|i| [i, i + 1, i + 2]).collect()
}

/// Each triangle rotated to start at its smallest index (the index codec
/// may rotate triangles, keeping their winding).
fn canonical(indices: &[u32]) -> Vec<[u32; 3]> {
    indices
        .chunks(3)
        .map(|t| {
            let k = (0..3).min_by_key(|&k| t[k]).unwrap();
            [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
        })
        .collect()
}

/// A POSITION accessor of `values` in `view` (with the `min` and `max`
/// the specification requires).
fn position_accessor(view: usize, values: &[[f32; 3]]) -> Value {
    let bound = |f: fn(f32, f32) -> f32, start: f32| {
        let mut b = [start; 3];
        for v in values {
            for k in 0..3 {
                b[k] = f(b[k], v[k]);
            }
        }
        b
    };
    json!({"bufferView": view, "componentType": 5126, "count": values.len(), "type": "VEC3",
        "min": bound(f32::min, f32::INFINITY), "max": bound(f32::max, f32::NEG_INFINITY)})
}

fn float_bytes(values: &[[f32; 3]]) -> Vec<u8> {
    values
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

const N: usize = 48;

/// Positions as an `ATTRIBUTES` stream without a filter, at strides 12
/// (tight), 16 and 252 (the largest a core view allows, the positions
/// followed by other bytes), indices as `TRIANGLES` (16 and 32 bits) and
/// `INDICES` streams: positions exact, triangles equal up to rotation, and
/// the `INDICES` sequence exact.
#[test]
fn attributes_triangles_and_indices_decode_exactly() {
    let positions = points(N);
    let reference = triangles(N as u32);
    for ext in ["EXT", "KHR"] {
        for (stride, mode, index_size) in [
            (12, "TRIANGLES", 2),
            (16, "TRIANGLES", 4),
            (252, "INDICES", 4),
            (12, "INDICES", 2),
        ] {
            let mut file = File::new(ext);
            let mut vertices = vec![0u8; N * stride];
            for (i, p) in positions.iter().enumerate() {
                vertices[i * stride..i * stride + 12].copy_from_slice(&float_bytes(&[*p]));
                for (k, byte) in vertices[i * stride + 12..(i + 1) * stride]
                    .iter_mut()
                    .enumerate()
                {
                    *byte = (i * 31 + k * 7) as u8;
                }
            }
            let stream = encode_vertices(&vertices, stride);
            let view = file.view(&stream, (N, stride), ("ATTRIBUTES", "NONE"), Some(stride));
            let position = file.accessor(position_accessor(view, &positions));
            let stream = if mode == "TRIANGLES" {
                meshopt::encode_index_buffer(&reference, N).unwrap()
            } else {
                meshopt::encode_index_sequence(&reference, N).unwrap()
            };
            let view = file.view(&stream, (reference.len(), index_size), (mode, "NONE"), None);
            let component = if index_size == 2 { 5123 } else { 5125 };
            let indices = file.accessor(json!({"bufferView": view, "componentType": component, "count": reference.len(), "type": "SCALAR"}));
            let document = parse(&file.json(&json!({"POSITION": position}), Some(indices)))
                .unwrap_or_else(|e| panic!("{ext} stride {stride} {mode}: {e}"));
            let mesh = &document.meshes[0];
            assert_eq!(mesh.positions, positions, "{ext} stride {stride}");
            if mode == "TRIANGLES" {
                assert_eq!(
                    canonical(&mesh.indices),
                    canonical(&reference),
                    "{ext} {mode}"
                );
            } else {
                assert_eq!(mesh.indices, reference, "{ext} {mode}");
            }
        }
    }
}

/// The vertex codec's stream of `bytes`, `stride` bytes a vertex.
fn encode_vertices(bytes: &[u8], stride: usize) -> Vec<u8> {
    macro_rules! encode {
        ($($n:literal)*) => {
            match stride {
                $($n => {
                    let vertices: Vec<[u8; $n]> =
                        bytes.chunks($n).map(|c| c.try_into().unwrap()).collect();
                    meshopt::encode_vertex_buffer(&vertices).unwrap()
                })*
                _ => unreachable!("stride {stride}"),
            }
        };
    }
    encode!(4 8 12 16 252 256)
}

/// A 256-byte stride (the largest the extensions allow) decodes exactly:
/// the decoded view is read as tightly packed positions.
#[test]
fn the_largest_stride_decodes() {
    let floats: Vec<f32> = (0..256).map(|i| (i as f32 * 0.37).sin() * 10.0).collect();
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut file = File::new("EXT");
    let view = file.view(
        &encode_vertices(&bytes, 256),
        (4, 256),
        ("ATTRIBUTES", "NONE"),
        None,
    );
    let expected: Vec<[f32; 3]> = floats[..252]
        .chunks(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    let position = file.accessor(position_accessor(view, &expected));
    let document = parse(&file.json(&json!({"POSITION": position}), None)).unwrap();
    assert_eq!(document.meshes[0].positions, expected);
}

/// Each filter against the values it encoded: `OCTAHEDRAL` normals in 8
/// and 16 bits, `QUATERNION` as 16-bit tangents (equal up to sign),
/// `EXPONENTIAL` positions, and the KHR version's `COLOR` in 8 and 16 bits.
/// Tolerances: the filters' quantisation (stated per case).
#[test]
fn every_filter_decodes_to_what_it_encoded() {
    let positions = points(N);
    let normals: Vec<[f32; 3]> = positions.iter().map(|&p| unit(p)).collect();
    let with_w = |v: &[[f32; 3]], w: f32| -> Vec<[f32; 4]> {
        v.iter().map(|p| [p[0], p[1], p[2], w]).collect()
    };
    let quaternions: Vec<[f32; 4]> = positions
        .iter()
        .map(|p| {
            let q = [p[0], p[1], p[2], 1.0 + p[0].abs()];
            let l = q.iter().map(|x| x * x).sum::<f32>().sqrt();
            q.map(|x| x / l)
        })
        .collect();
    let colors: Vec<[f32; 4]> = (0..N)
        .map(|i| {
            let t = i as f32 / N as f32;
            [t, 1.0 - t, (t * 7.0).fract(), 0.5 + t / 2.0]
        })
        .collect();
    for ext in ["EXT", "KHR"] {
        let mut file = File::new(ext);
        let position_stream = encode_vertices(&float_bytes(&positions), 12);
        let raw = file.view(&position_stream, (N, 12), ("ATTRIBUTES", "NONE"), Some(12));
        let position = file.accessor(position_accessor(raw, &positions));
        let exp: Vec<[u32; 3]> =
            meshopt::encode_filter_exp(&positions, 15, meshopt::EncodeExpMode::Separate);
        let exp_bytes: Vec<u8> = bytemuck::cast_slice(&exp).to_vec();
        let view = file.view(
            &encode_vertices(&exp_bytes, 12),
            (N, 12),
            ("ATTRIBUTES", "EXPONENTIAL"),
            Some(12),
        );
        let exp_positions = file.accessor(position_accessor(view, &positions));
        let oct8: Vec<[i8; 4]> = meshopt::encode_filter_oct(&with_w(&normals, 1.0), 8);
        let view = file.view(
            &encode_vertices(bytemuck::cast_slice(&oct8), 4),
            (N, 4),
            ("ATTRIBUTES", "OCTAHEDRAL"),
            Some(4),
        );
        let normal8 = file.accessor(json!({"bufferView": view, "componentType": 5120, "normalized": true, "count": N, "type": "VEC3"}));
        let oct16: Vec<[i16; 4]> = meshopt::encode_filter_oct(&with_w(&normals, 1.0), 16);
        let view = file.view(
            &encode_vertices(bytemuck::cast_slice(&oct16), 8),
            (N, 8),
            ("ATTRIBUTES", "OCTAHEDRAL"),
            Some(8),
        );
        let normal16 = file.accessor(json!({"bufferView": view, "componentType": 5122, "normalized": true, "count": N, "type": "VEC3"}));
        let quat: Vec<[i16; 4]> = meshopt::encode_filter_quat(&quaternions, 12);
        let view = file.view(
            &encode_vertices(bytemuck::cast_slice(&quat), 8),
            (N, 8),
            ("ATTRIBUTES", "QUATERNION"),
            Some(8),
        );
        let tangent = file.accessor(json!({"bufferView": view, "componentType": 5122, "normalized": true, "count": N, "type": "VEC4"}));
        let mut attributes = json!({"POSITION": position, "NORMAL": normal8, "TANGENT": tangent});
        let mut color_accessors = Vec::new();
        if ext == "KHR" {
            let c8: Vec<[u8; 4]> = meshopt::encode_filter_color(&colors, 8);
            let view = file.view(
                &encode_vertices(bytemuck::cast_slice(&c8), 4),
                (N, 4),
                ("ATTRIBUTES", "COLOR"),
                Some(4),
            );
            color_accessors.push((file.accessor(json!({"bufferView": view, "componentType": 5121, "normalized": true, "count": N, "type": "VEC4"})), 3.0 / 255.0));
            let c16: Vec<[u16; 4]> = meshopt::encode_filter_color(&colors, 12);
            let view = file.view(
                &encode_vertices(bytemuck::cast_slice(&c16), 8),
                (N, 8),
                ("ATTRIBUTES", "COLOR"),
                Some(8),
            );
            color_accessors.push((file.accessor(json!({"bufferView": view, "componentType": 5123, "normalized": true, "count": N, "type": "VEC4"})), 3.0 / 2048.0));
        }
        // Each alternative attribute in a primitive of its own file.
        let read = |attributes: Value| {
            parse(&file.json(&attributes, None))
                .unwrap_or_else(|e| panic!("{ext}: {e}"))
                .meshes
                .remove(0)
        };
        let close = |a: &[f32], b: &[f32], tolerance: f32| {
            a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tolerance)
        };
        let mesh = read(attributes.clone());
        for (n, m) in normals.iter().zip(mesh.normals.unwrap()) {
            assert!(close(n, &m, 0.03), "{ext} 8-bit octahedral: {n:?} {m:?}");
        }
        for (q, t) in quaternions.iter().zip(mesh.tangents.unwrap()) {
            let flipped = q.map(|x| -x);
            assert!(
                close(q, &t, 2e-3) || close(&flipped, &t, 2e-3),
                "{ext} quaternion: {q:?} {t:?}"
            );
        }
        attributes["NORMAL"] = json!(normal16);
        let mesh = read(attributes.clone());
        for (n, m) in normals.iter().zip(mesh.normals.unwrap()) {
            assert!(close(n, &m, 2e-4), "{ext} 16-bit octahedral: {n:?} {m:?}");
        }
        attributes["POSITION"] = json!(exp_positions);
        let mesh = read(attributes.clone());
        for (p, q) in positions.iter().zip(&mesh.positions) {
            let tolerance = p.iter().fold(0f32, |m, x| m.max(x.abs())) * 1e-4;
            assert!(close(p, q, tolerance), "{ext} exponential: {p:?} {q:?}");
        }
        for (accessor, tolerance) in color_accessors {
            attributes["COLOR_0"] = json!(accessor);
            let mesh = read(attributes.clone());
            for (c, d) in colors.iter().zip(mesh.colors.unwrap()) {
                assert!(close(c, &d, tolerance), "{ext} colour: {c:?} {d:?}");
            }
        }
    }
}

/// One file with a positions stream, a triangle stream, and `edit` applied
/// to the triangle view's extension object.
fn edited(edit: impl FnOnce(&mut Value)) -> Value {
    let positions = points(N);
    let reference = triangles(N as u32);
    let mut file = File::new("EXT");
    let stream = encode_vertices(&float_bytes(&positions), 12);
    let view = file.view(&stream, (N, 12), ("ATTRIBUTES", "NONE"), Some(12));
    let position = file.accessor(position_accessor(view, &positions));
    let stream = meshopt::encode_index_buffer(&reference, N).unwrap();
    let view = file.view(&stream, (reference.len(), 4), ("TRIANGLES", "NONE"), None);
    let indices = file.accessor(json!({"bufferView": view, "componentType": 5125, "count": reference.len(), "type": "SCALAR"}));
    let mut json = file.json(&json!({"POSITION": position}), Some(indices));
    edit(&mut json["bufferViews"][1]);
    json
}

/// Hostile streams: truncated, counts that lie, a stream claiming 4 GB,
/// layouts the decoders cannot take, a fallback buffer read uncompressed.
/// Each is a typed error, refused before anything of the claimed size is
/// allocated (the 4 GB claim runs within the default limits).
#[test]
fn hostile_streams_are_typed_errors() {
    assert!(parse(&edited(|_| {})).is_ok(), "the unedited file loads");
    let ext = |v: &mut Value| v["extensions"]["EXT_meshopt_compression"].clone();
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "truncated",
            edited(|v| {
                let length = ext(v)["byteLength"].as_u64().unwrap();
                v["extensions"]["EXT_meshopt_compression"]["byteLength"] = json!(length / 2);
            }),
            "does not decode",
        ),
        (
            "count lies",
            edited(|v| {
                v["extensions"]["EXT_meshopt_compression"]["count"] = json!(3 * 1000);
                v["byteLength"] = json!(4 * 3 * 1000);
            }),
            "does not decode",
        ),
        (
            "count overruns the view",
            edited(|v| {
                v["extensions"]["EXT_meshopt_compression"]["count"] = json!(3 * 1000);
            }),
            "overrun",
        ),
        (
            "stride 260",
            edited(|v| {
                v["extensions"]["EXT_meshopt_compression"]["byteStride"] = json!(260);
                v["extensions"]["EXT_meshopt_compression"]["mode"] = json!("ATTRIBUTES");
            }),
            "cannot be decoded",
        ),
        (
            "triangles not a multiple of 3",
            edited(|v| {
                v["extensions"]["EXT_meshopt_compression"]["count"] = json!(20);
            }),
            "cannot be decoded",
        ),
        (
            "stream outside its buffer",
            edited(|v| {
                v["extensions"]["EXT_meshopt_compression"]["byteOffset"] = json!(1u64 << 40);
            }),
            "outside buffer 0",
        ),
        (
            "unknown filter",
            edited(|v| {
                v["extensions"]["EXT_meshopt_compression"]["filter"] = json!("COLOR");
            }),
            "filter",
        ),
        (
            "fallback read",
            edited(|v| {
                v.as_object_mut().unwrap().remove("extensions");
            }),
            "meshopt fallback buffer",
        ),
    ];
    for (name, file, expected) in cases {
        match parse(&file) {
            Err(GltfError::Invalid { message, .. }) => {
                assert!(message.contains(expected), "{name}: {message}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    let huge = edited(|v| {
        // 3 x 357,913,941 indices of 4 bytes: 4 GB less 4 bytes.
        v["extensions"]["EXT_meshopt_compression"]["count"] = json!((1u64 << 30) - 1);
        v["byteLength"] = json!((4u64 << 30) - 4);
    });
    match parse(&huge) {
        Err(GltfError::LimitExceeded { limit, value, .. }) => {
            assert_eq!(limit, Limit::DecompressedBytes);
            assert!(value >= (4 << 30) - 4, "{value}");
        }
        other => panic!("4 GB claim: {other:?}"),
    }
    let small = ParseOptions {
        limits: LoadLimits {
            max_decompressed_bytes: 100,
            ..LoadLimits::DEFAULT
        },
        ..ParseOptions::default()
    };
    let error = parse_gltf_slice_with_options(
        edited(|_| {}).to_string().as_bytes(),
        Path::new("meshopt.gltf"),
        None,
        &small,
    )
    .unwrap_err();
    assert!(
        matches!(
            error,
            GltfError::LimitExceeded {
                limit: Limit::DecompressedBytes,
                ..
            }
        ),
        "{error}"
    );
}

/// In a GLB, the BIN chunk is the first buffer's alone: a fallback buffer
/// without a URI is never given it (nor read), and another buffer without
/// a URI is an error when read.
#[test]
fn glb_fallback_buffers_never_get_the_bin_chunk() {
    let mut json = edited(|_| {});
    let uri = json["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let bin = common::decode_data_uri(&uri);
    json["buffers"][0].as_object_mut().unwrap().remove("uri");
    let glb = common::glb(&json.to_string(), Some(&bin));
    let document = parse_gltf_slice(&glb, Path::new("meshopt.glb"), None).unwrap();
    assert_eq!(document.meshes[0].positions, points(N));
    json["buffers"][1]["extensions"] = json!({});
    json["bufferViews"][1]
        .as_object_mut()
        .unwrap()
        .remove("extensions");
    let glb = common::glb(&json.to_string(), Some(&bin));
    let error = parse_gltf_slice(&glb, Path::new("meshopt.glb"), None).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("only the first buffer can be the GLB's BIN chunk"),
        "{error}"
    );
}
