//! Structure-aware edits of glTF JSON: bytes read as a program of edits
//! (remove, add or rename keys, replace values with other JSON types, change
//! numbers to huge, negative or fractional ones, duplicate, drop or copy
//! array entries and subtrees) applied to a generated seed document, written
//! out as `.gltf` or GLB. Byte mutations rarely produce such files (finding 1
//! of issue 12, an image with both `uri` and `bufferView` but no `mimeType`,
//! is one edit of a seed here: `bufferView` added to a quad's image).
//!
//! [`single_edits`] lists every single edit of a few kinds instead (each
//! key removed, reference keys added, scalars replaced), for a sweep that
//! reaches what random programs reach rarely.
//!
//! Shared by the fuzz target `gltf_json` (`fuzz/fuzz_targets/gltf_json.rs`,
//! which includes this file and `files.rs` side by side) and
//! `tests/gltf_mutations.rs`, which runs deterministic programs and the sweep
//! in CI.

use serde_json::{Map, Value};

use super::{bc1_levels, ktx2_file, scene_gltf_parts, textured_quad_parts};

/// A document to edit: its JSON, and the bytes of buffer 0, which become the
/// BIN chunk when the program asks for a GLB.
#[derive(Clone, Debug)]
pub struct Seed {
    /// Names the seed in failures.
    pub name: &'static str,
    /// The glTF JSON.
    pub json: Value,
    /// Buffer 0's bytes.
    pub bin: Vec<u8>,
}

/// The generated seeds: the richer scene of [`scene_gltf_parts`], and the
/// textured quad with a BC1 and with an RGBA8 image.
pub fn seeds() -> Vec<Seed> {
    let seed = |name, (json, bin): (String, Vec<u8>)| Seed {
        name,
        json: serde_json::from_str(&json).expect("generated JSON"),
        bin,
    };
    vec![
        seed("scene", scene_gltf_parts()),
        seed(
            "quad-bc1",
            textured_quad_parts(&ktx2_file(133, 8, 8, &bc1_levels())),
        ),
        seed(
            "quad-rgba8",
            textured_quad_parts(&ktx2_file(37, 1, 1, &[vec![9, 8, 7, 255]])),
        ),
    ]
}

/// Edits per program at most (bounds the work per input).
const MAX_EDITS: usize = 24;
/// Values in a subtree that is duplicated or copied, at most (bounds growth).
const MAX_COPIED_VALUES: usize = 200;

/// glTF property names, for keys to add or rename to.
#[rustfmt::skip]
const KEYS: &[&str] = &[
    "uri", "bufferView", "mimeType", "scene", "scenes", "node", "nodes", "mesh", "meshes",
    "children", "buffer", "buffers", "byteOffset", "byteLength", "byteStride", "count",
    "componentType", "type", "normalized", "sparse", "min", "max", "accessors", "indices",
    "attributes", "POSITION", "NORMAL", "TANGENT", "TEXCOORD_0", "TEXCOORD_1", "TEXCOORD_7",
    "COLOR_0", "JOINTS_0", "_CUSTOM", "material", "materials", "mode", "targets", "source",
    "sampler", "samplers", "index", "texCoord", "textures", "images", "extensions", "extras",
    "extensionsUsed", "extensionsRequired", "KHR_texture_transform",
    "KHR_materials_emissive_strength", "KHR_animation_pointer", "KHR_texture_basisu", "offset",
    "rotation", "scale", "translation", "matrix", "weights", "skin", "camera", "animations",
    "channels", "target", "path", "input", "output", "pbrMetallicRoughness", "baseColorTexture",
    "baseColorFactor", "metallicRoughnessTexture", "normalTexture", "occlusionTexture",
    "emissiveTexture", "emissiveFactor", "alphaMode", "alphaCutoff", "magFilter", "minFilter",
    "wrapS", "wrapT", "asset", "version", "KHR_lights_punctual", "light", "lights", "spot",
    "innerConeAngle", "outerConeAngle", "range", "intensity",
];

/// Strings to put where values go.
const STRINGS: &[&str] = &[
    "",
    "image/png",
    "image/jpeg",
    "image/ktx2",
    "data:application/gltf-buffer;base64,AAECAwQFBgc=",
    "data:application/octet-stream;base64,",
    "data:image/png;base64,iVBORw0KGgo=",
    "data:,",
    "data:image/ktx2;base64,q0tUWCAyMLsNChoK",
    "missing.bin",
    "../outside.bin",
    "pointer",
    "translation",
    "weights",
    "SCALAR",
    "VEC2",
    "VEC3",
    "VEC4",
    "MAT4",
    "MASK",
    "BLEND",
    "2.0",
    "KHR_texture_transform",
    "KHR_draco_mesh_compression",
];

/// Numbers to put where values go: glTF enums, type limits, fractions.
#[rustfmt::skip]
const NUMBERS: &[f64] = &[
    0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 0.5, 1e-300, -0.0, 255.0, 256.0, 65535.0, 65536.0, 2147483647.0,
    2147483648.0, 4294967295.0, 4294967296.0, 9007199254740992.0, 18446744073709551615.0,
    -9223372036854775808.0, 1e300, -1e300, 5121.0, 5123.0, 5125.0, 5126.0, 9728.0, 9987.0, 33071.0,
    34962.0,
];

/// The bytes still to read; reads past the end give 0.
struct Program<'a>(&'a [u8]);

impl Program<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(first)
    }

    /// A number below `n` (0 when the program has ended).
    fn pick(&mut self, n: usize) -> usize {
        let wide = u16::from_le_bytes([self.byte().unwrap_or(0), self.byte().unwrap_or(0)]);
        usize::from(wide) % n.max(1)
    }
}

/// `seed` edited by `program`, as the bytes of a `.gltf` file or, when the
/// program's first byte is odd, of a GLB whose BIN chunk holds buffer 0
/// (whose URI is removed first).
pub fn edited(seed: &Seed, program: &[u8]) -> Vec<u8> {
    let mut program = Program(program);
    let mut json = seed.json.clone();
    let glb = program.byte().is_some_and(|b| b & 1 == 1);
    if glb
        && let Some(buffer) = json
            .pointer_mut("/buffers/0")
            .and_then(Value::as_object_mut)
    {
        buffer.remove("uri");
    }
    for _ in 0..MAX_EDITS {
        let Some(op) = program.byte() else { break };
        edit(&mut json, op, &mut program);
    }
    let text = serde_json::to_vec(&json).expect("JSON values serialise");
    if glb {
        glb_file(&text, &seed.bin)
    } else {
        text
    }
}

/// A GLB of `json` and `bin` (both padded to 4 bytes as the format says).
pub fn glb_file(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut json = json.to_vec();
    json.resize(json.len().next_multiple_of(4), b' ');
    let mut bin = bin.to_vec();
    bin.resize(bin.len().next_multiple_of(4), 0);
    let length = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    for word in [2, length as u32, json.len() as u32] {
        out.extend(word.to_le_bytes());
    }
    out.extend(b"JSON");
    out.extend(json);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(bin);
    out
}

/// Applies edit `op` somewhere the program chooses.
fn edit(json: &mut Value, op: u8, program: &mut Program<'_>) {
    match op % 8 {
        0 => match select(json, program) {
            Value::Object(map) if !map.is_empty() => {
                if let Some(key) = map.keys().nth(program.pick(map.len())).cloned() {
                    map.remove(&key);
                }
            }
            Value::Array(items) if !items.is_empty() => {
                items.remove(program.pick(items.len()));
            }
            _ => {}
        },
        1 => {
            let key = KEYS[program.pick(KEYS.len())];
            let value = new_value(program);
            match select(json, program) {
                Value::Object(map) => {
                    map.insert(key.to_owned(), value);
                }
                Value::Array(items) => items.push(value),
                other => *other = value,
            }
        }
        2 => {
            let value = new_value(program);
            *select(json, program) = value;
        }
        3 => {
            let target = select(json, program);
            *target = new_number(target.as_f64(), program);
        }
        4 => {
            if let Value::Array(items) = select(json, program)
                && !items.is_empty()
            {
                let copy = items[program.pick(items.len())].clone();
                if size(&copy) <= MAX_COPIED_VALUES {
                    items.push(copy);
                }
            }
        }
        5 => {
            let copy = select(json, program).clone();
            if size(&copy) <= MAX_COPIED_VALUES {
                *select(json, program) = copy;
            }
        }
        6 => {
            if let Value::Object(map) = select(json, program)
                && !map.is_empty()
            {
                let key = map.keys().nth(program.pick(map.len())).cloned();
                let renamed = KEYS[program.pick(KEYS.len())];
                if let Some(value) = key.and_then(|key| map.remove(&key)) {
                    map.insert(renamed.to_owned(), value);
                }
            }
        }
        _ => {
            let target = select(json, program);
            *target = other_type(std::mem::take(target));
        }
    }
}

/// A value somewhere in `value`: the program walks down one child at a
/// time, stopping at a leaf or when a byte says so (one in eight).
fn select<'v>(value: &'v mut Value, program: &mut Program<'_>) -> &'v mut Value {
    let len = match value {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        _ => 0,
    };
    if len == 0 || program.byte().unwrap_or(0).is_multiple_of(8) {
        return value;
    }
    let i = program.pick(len);
    match value {
        Value::Array(items) => select(&mut items[i], program),
        Value::Object(map) => select(map.values_mut().nth(i).expect("i < len"), program),
        leaf => leaf,
    }
}

/// A new value of a type the program chooses.
fn new_value(program: &mut Program<'_>) -> Value {
    match program.byte().unwrap_or(0) % 10 {
        0 => Value::Null,
        1 => Value::Bool(program.byte().unwrap_or(0) & 1 == 1),
        2 => new_number(None, program),
        3 => Value::from(STRINGS[program.pick(STRINGS.len())]),
        4 => Value::Array(Vec::new()),
        5 => Value::Object(Map::new()),
        6 => Value::Array(vec![new_number(None, program)]),
        7 => {
            let mut map = Map::new();
            map.insert(
                KEYS[program.pick(KEYS.len())].to_owned(),
                new_number(None, program),
            );
            Value::Object(map)
        }
        _ => Value::from(program.pick(8)),
    }
}

/// A number: one of [`NUMBERS`], or `current` nudged (off by one, negated,
/// scaled by a power of two, plus a half).
fn new_number(current: Option<f64>, program: &mut Program<'_>) -> Value {
    let choice = program.byte().unwrap_or(0);
    let x = match current {
        Some(x) if choice & 1 == 1 => match (choice >> 1) % 5 {
            0 => x + 1.0,
            1 => x - 1.0,
            2 => -x,
            3 => x * f64::from(1u32 << (program.pick(32) as u32)),
            _ => x + 0.5,
        },
        _ => NUMBERS[program.pick(NUMBERS.len())],
    };
    number(x)
}

/// `x` as JSON: an integer when it is one (as a glTF writer would write
/// it), a float otherwise; infinities become the largest float.
fn number(x: f64) -> Value {
    let x = if x.is_finite() {
        x
    } else {
        f64::MAX.copysign(x)
    };
    if x.fract() == 0.0 && x >= 0.0 && x <= u64::MAX as f64 {
        Value::from(x as u64)
    } else if x.fract() == 0.0 && x >= i64::MIN as f64 && x < 0.0 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// The same content as another JSON type (a number as a string, an array as
/// its first element, an object as its values, ...).
fn other_type(value: Value) -> Value {
    match value {
        Value::Null => Value::from(0),
        Value::Bool(b) => Value::from(u8::from(b)),
        Value::Number(n) => Value::from(n.to_string()),
        Value::String(s) => s
            .parse::<f64>()
            .map_or(Value::Array(vec![Value::String(s)]), number),
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        Value::Array(_) => Value::Object(Map::new()),
        Value::Object(map) => Value::Array(map.into_iter().map(|(_, v)| v).collect()),
    }
}

/// Keys [`single_edits`] adds to every object: those naming other objects
/// or where their data is.
#[rustfmt::skip]
const SWEEP_KEYS: &[&str] = &[
    "uri", "bufferView", "mimeType", "buffer", "byteOffset", "byteStride", "sparse", "scene",
    "nodes", "node", "children", "mesh", "camera", "skin", "indices", "material", "source",
    "sampler", "index", "texCoord", "light", "extras",
];

/// Every single edit of these kinds, described by a JSON pointer: each key
/// of each object removed; each of [`SWEEP_KEYS`] set to 0 and to 1 in each
/// object; each number replaced by -1, 0.5, 2^32 and 1e300; each scalar by
/// null and by a string; each array emptied and its first entry doubled.
pub fn single_edits(json: &Value) -> Vec<(String, Value)> {
    let mut pointers = Vec::new();
    collect_pointers(json, String::new(), &mut pointers);
    let mut edits = Vec::new();
    let mut push = |pointer: &str, what: String, change: &dyn Fn(&mut Value)| {
        let mut edited = json.clone();
        change(
            edited
                .pointer_mut(pointer)
                .expect("a pointer into the seed"),
        );
        edits.push((format!("{pointer}: {what}"), edited));
    };
    for pointer in &pointers {
        match json.pointer(pointer).expect("a pointer into the seed") {
            Value::Object(map) => {
                for key in map.keys() {
                    push(pointer, format!("{key} removed"), &|v| {
                        if let Value::Object(map) = v {
                            map.remove(key);
                        }
                    });
                }
                for key in SWEEP_KEYS {
                    for n in [0, 1] {
                        push(pointer, format!("{key} = {n}"), &|v| {
                            if let Value::Object(map) = v {
                                map.insert((*key).to_owned(), Value::from(n));
                            }
                        });
                    }
                }
            }
            Value::Array(items) => {
                push(pointer, "emptied".into(), &|v| {
                    *v = Value::Array(Vec::new());
                });
                if let Some(first) = items.first() {
                    let first = first.clone();
                    push(pointer, "first doubled".into(), &move |v| {
                        if let Value::Array(items) = v {
                            items.insert(0, first.clone());
                        }
                    });
                }
            }
            scalar => {
                let mut replacements = vec![Value::Null, Value::from("x")];
                if scalar.is_number() {
                    replacements.extend([-1.0, 0.5, 4294967296.0, 1e300].map(number));
                }
                for replacement in replacements {
                    push(pointer, format!("= {replacement}"), &move |v| {
                        *v = replacement.clone();
                    });
                }
            }
        }
    }
    edits
}

/// JSON pointers of `value` and everything in it.
fn collect_pointers(value: &Value, pointer: String, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_pointers(item, format!("{pointer}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                collect_pointers(item, format!("{pointer}/{escaped}"), out);
            }
        }
        _ => {}
    }
    out.push(pointer);
}

/// Values in `value`, itself included.
fn size(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(size).sum(),
        Value::Object(map) => map.values().map(size).sum(),
        _ => 0,
    }
}
