//! Valid glTF that the `gltf` crate's strict deserialiser refuses, rewritten
//! before it sees it. The JSON is read as a `serde_json::Value` (nesting
//! limited to 128 levels by `serde_json`, so the walks below recurse at most
//! that deep) and changed where the crate is stricter than the
//! specification:
//! - a number with an integral value written as a float (`"count": 36.0`)
//!   becomes an integer: JSON has one number type, and the schema's integers
//!   are its integral numbers, while the crate's indices, counts and enums
//!   refuse floats;
//! - `extras` are dropped wherever they appear: they may be any JSON value,
//!   the crate (built without its `extras` feature) takes only objects, and
//!   unbound reads none;
//! - a scene without `nodes` (optional in the schema, required by the
//!   crate) gets an empty list;
//! - animation channels whose target has no `node` (`KHR_animation_pointer`
//!   targets a JSON pointer instead: a material's, light's or camera's
//!   property, or a node's by pointer) are dropped with a warning saying
//!   so: the crate requires the node, and unbound plays channels on nodes
//!   only (translation, rotation, scale, morph weights), which are kept.
//!
//! Everything else is left to the crate's validation.

use gltf::json::Value;

/// Integers up to this magnitude are exact in an `f64` (2^53).
const MAX_EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

/// The glTF JSON in `json`, normalised (see the module docs), as the
/// crate's unvalidated root, with a warning for each thing dropped.
pub(super) fn root_from_slice(json: &[u8]) -> Result<(gltf::json::Root, Vec<String>), String> {
    let mut value: Value = gltf::json::deserialize::from_slice(json).map_err(|e| e.to_string())?;
    let warnings = normalise(&mut value);
    let root = gltf::json::deserialize::from_value(value).map_err(|e| e.to_string())?;
    Ok((root, warnings))
}

/// Rewrites `value` in place (see the module docs); returns the warnings.
fn normalise(value: &mut Value) -> Vec<String> {
    integers_without_extras(value);
    let scenes = value.get_mut("scenes").and_then(Value::as_array_mut);
    for scene in scenes
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
    {
        scene
            .entry("nodes")
            .or_insert_with(|| Value::Array(Vec::new()));
    }
    let mut warnings = Vec::new();
    let dropped = drop_channels_without_a_node(value);
    if dropped > 0 {
        let plural = if dropped == 1 { "" } else { "s" };
        warnings.push(format!(
            "{dropped} animation channel{plural} without a target node not played \
             (KHR_animation_pointer: the material, light, camera or other properties \
             they animate stay at their static values; channels on nodes play)"
        ));
    }
    warnings
}

/// Integral floats as integers, and no `extras`, throughout `value`.
fn integers_without_extras(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            let Some(x) = number.as_f64() else { return };
            if x.fract() == 0.0 && x.abs() <= MAX_EXACT_INTEGER {
                *value = if x < 0.0 {
                    Value::from(x as i64)
                } else {
                    Value::from(x as u64)
                };
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integers_without_extras),
        Value::Object(map) => {
            map.remove("extras");
            map.values_mut().for_each(integers_without_extras);
        }
        _ => {}
    }
}

/// Drops animation channels whose target is an object without a `node`;
/// returns how many.
fn drop_channels_without_a_node(root: &mut Value) -> usize {
    let Some(animations) = root.get_mut("animations").and_then(Value::as_array_mut) else {
        return 0;
    };
    let mut dropped = 0;
    for animation in animations {
        if let Some(channels) = animation.get_mut("channels").and_then(Value::as_array_mut) {
            let before = channels.len();
            channels.retain(|channel| {
                let target = channel.get("target").and_then(Value::as_object);
                target.is_none_or(|target| target.contains_key("node"))
            });
            dropped += before - channels.len();
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use gltf::json::Value;

    fn normalised(text: &str) -> (Value, Vec<String>) {
        let mut value: Value = gltf::json::deserialize::from_str(text).unwrap();
        let warnings = super::normalise(&mut value);
        (value, warnings)
    }

    #[test]
    fn integral_floats_become_integers_and_others_stay() {
        let (value, warnings) =
            normalised(r#"{"a": 36.0, "b": [-2.0, 0.5, 1e300, 7], "c": {"d": 1.0e3}}"#);
        assert_eq!(
            value.to_string(),
            r#"{"a":36,"b":[-2,0.5,1e+300,7],"c":{"d":1000}}"#
        );
        assert!(warnings.is_empty());
    }

    #[test]
    fn scenes_without_nodes_get_an_empty_list() {
        let (value, _) = normalised(r#"{"scenes": [{}, {"nodes": [0]}, 3]}"#);
        assert_eq!(
            value.to_string(),
            r#"{"scenes":[{"nodes":[]},{"nodes":[0]},3]}"#
        );
    }

    #[test]
    fn extras_are_dropped_at_every_depth() {
        let (value, _) = normalised(r#"{"extras": 1, "nodes": [{"extras": "x", "mesh": 0}]}"#);
        assert_eq!(value.to_string(), r#"{"nodes":[{"mesh":0}]}"#);
    }

    #[test]
    fn channels_without_a_node_are_dropped_with_a_warning() {
        let (value, warnings) = normalised(
            r#"{"animations": [{"channels": [
                {"sampler": 0, "target": {"path": "pointer"}},
                {"sampler": 0, "target": {"node": 1, "path": "scale"}},
                {"sampler": 0}
            ]}, {"channels": [{"sampler": 0, "target": {"path": "pointer"}}]}]}"#,
        );
        let channels = |a: usize| value["animations"][a]["channels"].as_array().unwrap().len();
        assert_eq!((channels(0), channels(1)), (2, 0));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("2 animation channels without a target node not played"));
    }
}
