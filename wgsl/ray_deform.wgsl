// Deformed positions for the ray paths (src/rays/deform.rs): for each
// traced deformed object (a job: skinned, morphed or both), every corner
// of its mesh's triangles, morphed by morph.wgsl then skinned by its
// palette with skinning.wgsl (the vertex pulling's formulas, in its
// order), written as three floats into the object's region of the
// deformed-position pool. The region is a triangle list in the order of
// the mesh's indices (corner k of the mesh is vertex k of the region), so
// the object's BLAS, built from it without indices, numbers its triangles
// as the mesh's BLAS does: a hit's primitive index finds the same
// triangle in the arena (ray_hit.wgsl).
//
// One workgroup row per job (y), one thread per corner (x).

#include "types.wgsl"

// Twin: rays::deform::WORKGROUP_SIZE.
const RAY_DEFORM_WORKGROUP_SIZE: u32 = 64u;

// One traced deformed object (twin: GpuRayDeformJob, 16 bytes).
struct RayDeformJob {
    // Its slot in the object table: its record names its palette
    // (Object.skin) and its morph (Object.morph_*).
    object: u32,
    // Its mesh's first index and index count in the arena.
    first_index: u32,
    corners: u32,
    // Its region's first vertex in the pool.
    first_output: u32,
}

@group(0) @binding(0) var<storage, read> jobs: array<RayDeformJob>;
@group(0) @binding(1) var<storage, read> vertices: array<Vertex>;
@group(0) @binding(2) var<storage, read> indices: array<u32>;
@group(0) @binding(3) var<storage, read> deform: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> positions: array<f32>;
@group(0) @binding(5) var<storage, read> objects: array<Object>;

#include "skinning.wgsl"
#include "morph.wgsl"

@compute @workgroup_size(RAY_DEFORM_WORKGROUP_SIZE)
fn deform_corners(@builtin(global_invocation_id) id: vec3<u32>) {
    let job = jobs[min(id.y, arrayLength(&jobs) - 1u)];
    let k = id.x;
    if k >= job.corners {
        return;
    }
    let object = objects[min(job.object, arrayLength(&objects) - 1u)];
    let at = min(job.first_index + k, arrayLength(&indices) - 1u);
    let index = min(indices[at], arrayLength(&vertices) - 1u);
    let v = morph_vertex(object, index, vertices[index]);
    var posed = vec4(v.position[0], v.position[1], v.position[2], 1.0);
    if object.skin != NO_SKIN {
        posed = skin_matrix(object.skin, index) * posed;
    }
    let out = 3u * (job.first_output + k);
    if out + 2u < arrayLength(&positions) {
        positions[out] = posed.x;
        positions[out + 1u] = posed.y;
        positions[out + 2u] = posed.z;
    }
}
