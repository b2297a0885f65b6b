// Octahedral normals (the arena vertex's normal_oct, 2 × snorm16; twins:
// geometry::encode_octahedral): decoded by the surface
// (surface.wgsl), decoded and re-encoded by the morph (morph.wgsl). No
// bindings, so any module may include it.

// The unit normal packed in `packed`.
fn decode_octahedral(packed: u32) -> vec3<f32> {
    let e = unpack2x16snorm(packed);
    var n = vec3(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if n.z < 0.0 {
        let folded = (1.0 - abs(n.yx)) * select(vec2(-1.0), vec2(1.0), n.xy >= vec2(0.0));
        n = vec3(folded, n.z);
    }
    return normalize(n);
}

// The inverse of decode_octahedral (twin: geometry::encode_octahedral):
// a normal deformed by a morph (morph.wgsl) re-encoded.
fn encode_octahedral(normal: vec3<f32>) -> u32 {
    let n = normal / max(abs(normal.x) + abs(normal.y) + abs(normal.z), 1e-20);
    var e = n.xy;
    if n.z < 0.0 {
        e = (1.0 - abs(n.yx)) * select(vec2(-1.0), vec2(1.0), n.xy >= vec2(0.0));
    }
    return pack2x16snorm(e);
}
