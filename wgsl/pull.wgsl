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

fn pull_vertex(instance_slot: u32, vertex_index: u32) -> PulledVertex {
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
