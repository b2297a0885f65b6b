// Vertex pulling, shared by the draw pass (draw.wgsl) and the shadow pass
// (shadow.wgsl): the object and the arena vertex behind one instance-rate
// slot and vertex index (the draw-identity rule: see draw.wgsl). Needs
// scene.wgsl's bindings and the heap's checked_index; skins through
// skinning.wgsl (the formula every deforming pass shares).

#include "skinning.wgsl"

struct PulledVertex {
    object_index: u32,
    object: Object,
    vertex: Vertex,
}

// Morph targets (the CPU twin: src/animation/deform.rs), applied to the
// bind-pose vertex before skinning: position, normal and tangent plus
// Σ weight_t · delta_t. Per vertex and target two vec4 of the deform buffer
// from object.morph_deltas (gpu::pack_morph_deltas): the position delta and
// the normal delta's x as f32, the normal delta's y and z as f32, the
// tangent delta as snorm16 over MORPH_TANGENT_RANGE; the weights are
// f32 from object.morph_weights. The normal is decoded, moved, normalised
// and re-encoded (octahedral, surface.wgsl), the tangent likewise (snorm8,
// handedness kept): the vertex stays the arena's. Every read is clamped to
// the buffer; simplified levels are not morphed correctly (as with skins,
// their vertices are not the mesh's). The shadow passes read only the
// position: the normal and tangent work is dead code their compiled
// shaders drop.
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

// The instance slot of the triangle filter's packed draws
// (twin: triangle_filter::FILTERED_SLOT): their vertex index is
// (record << LOCAL_VERTEX_BITS) | (vertex - base), record an entry of
// `draws` (bound to the filter's records then) whose base_vertex is the
// base and first_instance the visible-list entry
// (wgsl/triangle_filter.wgsl).
const FILTERED_SLOT: u32 = 0xffffffffu;
const LOCAL_VERTEX_BITS: u32 = 10u;

fn pull_vertex(drawn_slot: u32, drawn_index: u32) -> PulledVertex {
    var instance_slot = drawn_slot;
    var vertex_index = drawn_index;
    if drawn_slot == FILTERED_SLOT {
        let record = draws[min(drawn_index >> LOCAL_VERTEX_BITS, arrayLength(&draws) - 1u)];
        instance_slot = record.first_instance;
        vertex_index = u32(record.base_vertex) + (drawn_index & ((1u << LOCAL_VERTEX_BITS) - 1u));
    }
    let object_index = visible_instances[min(instance_slot, arrayLength(&visible_instances) - 1u)];
    var object = objects[checked_index(object_index, counts.objects)];
    let vertex = morph_vertex(object, vertex_index, vertices[checked_index(vertex_index, counts.vertices)]);
    if object.skin != NO_SKIN {
        object.world_from_object = object.world_from_object * skin_matrix(object.skin, vertex_index);
    }
    return PulledVertex(object_index, object, vertex);
}
