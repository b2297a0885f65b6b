// The depth pyramid of the occlusion culling's late phase (see
// src/passes/pyramid.rs and occlusion.wgsl). Depth is standard (0 near,
// 1 far), so each texel keeps the farthest depth below it. wgpu has no
// min/max reduction samplers: every texel reads its children with
// textureLoad.
//
//   depth_to_pyramid  level 0, the depth target's size: per pixel the
//                     farthest of its samples.
//   reduce_level      level l from level l - 1 (wgpu's mip sizes,
//                     max(1, size >> l)): texel t keeps the farthest of
//                     children 2t and 2t + 1 in each axis, and the last
//                     texel of a row or column also the children past them
//                     (an odd size), so that nothing of the level below is
//                     left out.

const PYRAMID_WORKGROUP: u32 = 8u;

// The depth target, bound as unfilterable float (which WebGPU allows for
// depth formats): GLSL has no textureLoad of depth textures.
#if MULTISAMPLED
@group(0) @binding(0) var depth: texture_multisampled_2d<f32>;
#else
@group(0) @binding(0) var depth: texture_2d<f32>;
#endif
// read_write, though only written: see src/passes/pyramid.rs.
@group(0) @binding(1) var level_out: texture_storage_2d<r32float, read_write>;
// The level below, as a storage texture of one level (see
// src/passes/pyramid.rs: not a sampled view of one mip).
@group(0) @binding(2) var level_in: texture_storage_2d<r32float, read>;

@compute @workgroup_size(PYRAMID_WORKGROUP, PYRAMID_WORKGROUP)
fn depth_to_pyramid(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(level_out);
    if any(id.xy >= size) {
        return;
    }
#if MULTISAMPLED
    var farthest = 0.0;
    for (var s = 0u; s < textureNumSamples(depth); s++) {
        farthest = max(farthest, textureLoad(depth, id.xy, i32(s)).r);
    }
#else
    let farthest = textureLoad(depth, id.xy, 0).r;
#endif
    textureStore(level_out, id.xy, vec4(farthest, 0.0, 0.0, 0.0));
}

@compute @workgroup_size(PYRAMID_WORKGROUP, PYRAMID_WORKGROUP)
fn reduce_level(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(level_out);
    if any(id.xy >= size) {
        return;
    }
    let below = textureDimensions(level_in);
    let first = 2u * id.xy;
    // Children 2t and 2t + 1; the last texel to the level below's edge.
    let last = select(min(first + 1u, below - 1u), below - 1u, id.xy == size - 1u);
    var farthest = 0.0;
    for (var y = first.y; y <= last.y; y++) {
        for (var x = first.x; x <= last.x; x++) {
            farthest = max(farthest, textureLoad(level_in, vec2(x, y)).r);
        }
    }
    textureStore(level_out, id.xy, vec4(farthest, 0.0, 0.0, 0.0));
}
