// Linear blend skinning, shared by every shader that deforms a skinned
// vertex: the raster passes' vertex pulling (pull.wgsl), the hit shading
// of traced rays (ray_hit.wgsl), the pass that writes the deformed
// positions the ray paths' per-instance BLASes are built from
// (ray_deform.wgsl), and the culling bounds of skinned objects
// (animation.wgsl's bound_skins, which reads the palettes alone). One formula, so that every pass sees the same
// deformed geometry. The includer declares `deform`, the deform buffer
// (src/passes/animation.rs): the skin stream, one entry per arena vertex,
// then the animation pass's matrices (read as bits).

// Object.skin of an object drawn as its mesh is (twin: gpu_types::NO_SKIN).
const NO_SKIN: u32 = 0xffffffffu;

// Matrix `m` of the palette starting at vec4 `palette` of the deform buffer.
fn palette_matrix(palette: u32, m: u32) -> mat4x4<f32> {
    let last = arrayLength(&deform) - 1u;
    let first = palette + 4u * m;
    return mat4x4(
        bitcast<vec4<f32>>(deform[min(first, last)]),
        bitcast<vec4<f32>>(deform[min(first + 1u, last)]),
        bitcast<vec4<f32>>(deform[min(first + 2u, last)]),
        bitcast<vec4<f32>>(deform[min(first + 3u, last)]),
    );
}

// Linear blend skinning (the CPU twin: src/animation/deform.rs): the
// vertex's joints' palette matrices weighted by its weights (16-bit,
// divided by their sum). It takes the bind-pose vertex to the skinned
// object's space; folded into world_from_object, every raster pass
// deforms the same way, and the cofactor normals of surface_vertex are
// the blended matrix's inverse transpose, as on the CPU.
fn skin_matrix(palette: u32, vertex_index: u32) -> mat4x4<f32> {
    let s = deform[min(vertex_index, arrayLength(&deform) - 1u)];
    let joints = vec4(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u);
    let weights = vec4(unpack2x16unorm(s.z), unpack2x16unorm(s.w));
    let total = max(weights.x + weights.y + weights.z + weights.w, 1e-6);
    var blended = palette_matrix(palette, joints.x) * weights.x;
    blended = blended + palette_matrix(palette, joints.y) * weights.y;
    blended = blended + palette_matrix(palette, joints.z) * weights.z;
    blended = blended + palette_matrix(palette, joints.w) * weights.w;
    return blended * (1.0 / total);
}
