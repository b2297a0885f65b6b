// Vertex pulling, shared by the draw pass (draw.wgsl) and the shadow pass
// (shadow.wgsl): the object and the arena vertex behind one instance-rate
// slot and vertex index (the draw-identity rule: see draw.wgsl). Needs
// scene.wgsl's bindings and the heap's checked_index; morphs through
// morph.wgsl and skins through skinning.wgsl (the formulas every deforming
// pass shares).

#include "skinning.wgsl"
#include "morph.wgsl"

struct PulledVertex {
    object_index: u32,
    object: Object,
    vertex: Vertex,
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
    return pull_object_vertex(object_index, vertex_index);
}

// Arena vertex `vertex_index` of object slot `object_index`, morphed and
// skinned: what pull_vertex draws, and what the visibility buffer's
// material pass (visibility.wgsl) reconstructs a triangle's corners from.
fn pull_object_vertex(object_index: u32, vertex_index: u32) -> PulledVertex {
    var object = objects[checked_index(object_index, counts.objects)];
    let vertex = morph_vertex(object, vertex_index, vertices[checked_index(vertex_index, counts.vertices)]);
    if object.skin != NO_SKIN {
        object.world_from_object = object.world_from_object * skin_matrix(object.skin, vertex_index);
    }
    return PulledVertex(object_index, object, vertex);
}
