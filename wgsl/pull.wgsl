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
// skinned: what pull_vertex draws, and what the compute rasteriser
// (compute_raster.wgsl) rasterises.
fn pull_object_vertex(object_index: u32, vertex_index: u32) -> PulledVertex {
    var object = objects[checked_index(object_index, counts.objects)];
    let vertex = object_vertex(object, vertex_index);
    object.world_from_object = vertex_world_from_object(object, vertex_index);
    return PulledVertex(object_index, object, vertex);
}

// Arena vertex `vertex_index` of `object` (a record already read), morphed.
// The visibility buffer's material pass (visibility.wgsl) reads the record
// once for a triangle's three corners.
fn object_vertex(object: Object, vertex_index: u32) -> Vertex {
    return morph_vertex(object, vertex_index, vertices[checked_index(vertex_index, counts.vertices)]);
}

// The transform of `object`'s vertex `vertex_index`: its world_from_object,
// times the vertex's skin matrix where the object is skinned.
fn vertex_world_from_object(object: Object, vertex_index: u32) -> mat4x4<f32> {
    if object.skin != NO_SKIN {
        return object.world_from_object * skin_matrix(object.skin, vertex_index);
    }
    return object.world_from_object;
}
