// Morph targets (the CPU twin: src/animation/deform.rs), shared by every
// shader that deforms a morphed vertex: the raster passes' vertex pulling
// (pull.wgsl), the pass that writes the deformed positions the ray paths'
// per-instance BLASes are built from (ray_deform.wgsl) and the hit shading
// of traced rays (ray_hit.wgsl). One formula, so that every pass sees the
// same morphed geometry. The includer declares `deform`, the deform buffer
// (src/passes/animation.rs), and includes types.wgsl.
//
// Applied to the bind-pose vertex before skinning: position, normal and
// tangent plus Σ weight_t · delta_t. Per vertex and target two vec4 of the
// deform buffer from object.morph_deltas (gpu::pack_morph_deltas): the
// position delta and the normal delta's x as f32, the normal delta's y and
// z as f32, the tangent delta as snorm16 over MORPH_TANGENT_RANGE; the
// weights are f32 from object.morph_weights. The normal is decoded, moved,
// normalised and re-encoded (octahedral.wgsl), the tangent likewise
// (snorm8, handedness kept): the vertex stays the arena's. Every read is
// clamped to the buffer. A simplified level (src/lod/) indexes its mesh's
// own arena vertices, so it is morphed (and skinned) vertex for vertex as
// the mesh is. Passes that read only the position (the shadow pass, the
// ray deformation) leave the normal and tangent work as dead code their
// compiled shaders drop.

#include "octahedral.wgsl"

fn morph_vertex(object: Object, vertex_index: u32, rest: Vertex) -> Vertex {
    let local = vertex_index - object.morph_first_vertex;
    if object.morph_deltas == NO_MORPH || vertex_index < object.morph_first_vertex {
        return rest;
    }
    let last = arrayLength(&deform) - 1u;
    var position = vec3(rest.position[0], rest.position[1], rest.position[2]);
    var normal = decode_octahedral(rest.normal_oct);
    let packed_tangent = unpack4x8snorm(rest.tangent);
    var tangent = packed_tangent.xyz;
    let first = object.morph_deltas + local * 2u * object.morph_targets;
    for (var t = 0u; t < object.morph_targets; t++) {
        let weight = bitcast<f32>(deform[min((object.morph_weights + t) / 4u, last)][(object.morph_weights + t) % 4u]);
        let a = bitcast<vec4<f32>>(deform[min(first + 2u * t, last)]);
        let b = deform[min(first + 2u * t + 1u, last)];
        let tangent_delta = vec3(unpack2x16snorm(b.z), unpack2x16snorm(b.w).x) * f32(MORPH_TANGENT_RANGE);
        position += weight * a.xyz;
        normal += weight * vec3(a.w, bitcast<vec2<f32>>(b.xy));
        tangent += weight * tangent_delta;
    }
    var out = rest;
    out.position = array<f32, 3>(position.x, position.y, position.z);
    out.normal_oct = encode_octahedral(normal);
    let handed = select(-1.0, 1.0, packed_tangent.w >= 0.0);
    out.tangent = pack4x8snorm(vec4(normalize(tangent), handed));
    return out;
}
