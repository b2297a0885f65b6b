//! Structure-aware fuzzing of the loader's scene-graph walk (the node
//! hierarchy, its placements and lights): the input bytes are a program
//! that builds a `.gltf` of meshes of several primitives (all reading one
//! triangle), nodes naming meshes, lights, children (shared, cyclic or out
//! of range) and matrices or translation, rotation and scale from a table
//! of extreme values, and scenes naming root nodes. It is parsed with
//! `max_placements` lowered to 4096, so a node x primitive product past it
//! must be refused before it is allocated. A parsed document must hold
//! together (`GltfDocument::validate`) and stay within the limit.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use unbound::loaders::gltf::{LoadLimits, ParseOptions, parse_gltf_slice_with_options};

/// Most placements and lights a document may make here.
const MAX_PLACEMENTS: u64 = 4096;

/// Numbers a transform is built from: ordinary, tiny, huge, and the
/// largest finite floats, whose products overflow.
const NUMBERS: [f64; 12] = [
    0.0, 1.0, -1.0, 0.5, 2.0, 1e-30, 1e10, -1e10, 1e30, 3.4e38, -3.4e38, 0.7071,
];

/// A buffer of one triangle, (0, 0, 0), (1, 0, 0), (0, 1, 0), as `f32`s.
const TRIANGLE_URI: &str =
    "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA";

/// The program's bytes, read one at a time (0 once they run out).
struct Program<'a>(std::slice::Iter<'a, u8>);

impl Program<'_> {
    fn byte(&mut self) -> u8 {
        self.0.next().copied().unwrap_or(0)
    }

    /// A number below `n` (0 for `n == 0`).
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }

    fn numbers(&mut self, count: usize) -> Vec<f64> {
        (0..count)
            .map(|_| NUMBERS[self.below(NUMBERS.len())])
            .collect()
    }
}

/// The `.gltf` the program builds.
fn build(data: &[u8]) -> Value {
    let mut program = Program(data.iter());
    let meshes: Vec<Value> = (0..1 + program.below(4))
        .map(|_| {
            let primitives: Vec<Value> = (0..1 + program.byte() as usize * 2)
                .map(|_| json!({"attributes": {"POSITION": 0}}))
                .collect();
            json!({ "primitives": primitives })
        })
        .collect();
    let node_count = program.below(48);
    let nodes: Vec<Value> = (0..node_count)
        .map(|_| {
            let flags = program.byte();
            let mut node = serde_json::Map::new();
            if flags & 1 != 0 {
                // One past the end now and then: an invalid index.
                node.insert("mesh".into(), json!(program.below(meshes.len() + 1)));
            }
            if flags & 2 != 0 {
                let children: Vec<usize> = (0..1 + program.below(4))
                    .map(|_| program.below(node_count + 1))
                    .collect();
                node.insert("children".into(), json!(children));
            }
            if flags & 4 != 0 {
                node.insert("matrix".into(), json!(program.numbers(16)));
            } else if flags & 8 != 0 {
                node.insert("translation".into(), json!(program.numbers(3)));
                node.insert("rotation".into(), json!(program.numbers(4)));
                node.insert("scale".into(), json!(program.numbers(3)));
            }
            if flags & 16 != 0 {
                let light = json!({ "light": program.below(3) });
                node.insert("extensions".into(), json!({ "KHR_lights_punctual": light }));
            }
            Value::Object(node)
        })
        .collect();
    let scenes: Vec<Value> = (0..1 + program.below(2))
        .map(|_| {
            let roots: Vec<usize> = (0..program.below(8))
                .map(|_| program.below(node_count + 1))
                .collect();
            json!({ "nodes": roots })
        })
        .collect();
    json!({
        "asset": { "version": "2.0" },
        "scene": program.below(scenes.len() + 1),
        "scenes": scenes,
        "nodes": nodes,
        "meshes": meshes,
        "buffers": [{
            "byteLength": 36,
            "uri": TRIANGLE_URI,
        }],
        "bufferViews": [{ "buffer": 0, "byteLength": 36 }],
        "accessors": [{
            "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
            "min": [0, 0, 0], "max": [1, 1, 0],
        }],
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": { "KHR_lights_punctual": { "lights": [
            { "type": "point", "intensity": 1e30 },
            { "type": "spot", "spot": { "innerConeAngle": 1.0, "outerConeAngle": 0.5 } },
            { "type": "directional", "color": [1.0, 0.5, 0.0] },
        ]}},
    })
}

fuzz_target!(|data: &[u8]| {
    let bytes = serde_json::to_vec(&build(data)).expect("JSON of values serialises");
    let options = ParseOptions {
        limits: LoadLimits {
            max_placements: MAX_PLACEMENTS,
            ..LoadLimits::DEFAULT
        },
        ..ParseOptions::default()
    };
    // No base directory: nothing is read from disk.
    if let Ok(document) =
        parse_gltf_slice_with_options(&bytes, Path::new("fuzz-input"), None, &options)
    {
        document
            .validate()
            .expect("a parsed document is consistent");
        let placed = document.placements.len() + document.lights.len();
        assert!(placed as u64 <= MAX_PLACEMENTS, "{placed} placed");
    }
});
