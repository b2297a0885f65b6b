// Debug view: every object's bounding box as lines, red where the cull
// pass's frustum test rejects its bounding sphere, orange where the sphere
// is in the frustum but occlusion culling hid it, green where it is kept
// (see src/passes/bounds.rs). One plain draw of 24 vertices per object
// slot; free slots and the box of a culled object are tested exactly as in
// cull.wgsl, against the (possibly frozen) cull camera's planes, and drawn
// with the view camera. Hidden: in a frame that culls occlusion
// (FRAME_FLAG_OCCLUSION), the visibility bit the late phase just wrote
// ("in the frustum and not hidden", occlusion.wgsl) is clear. The late
// phase tests against the depth the view camera drew, so with a frozen
// cull camera orange means "in the frozen frustum, hidden from the view
// camera".

#include "types.wgsl"

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var<storage, read> instance_bounds: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> instance_batch: array<u32>;
// The camera's visibility bits (occlusion.wgsl): slot s at bit s % 32 of
// word s / 32.
@group(0) @binding(3) var<storage, read> visibility: array<u32>;

#include "frustum.wgsl"

// instance_batch value of a free object slot (as in cull.wgsl).
const NO_MESH: u32 = 0xffffffffu;

// Whether occlusion culling hid slot `i` this frame (its bit clear).
fn occluded(i: u32) -> bool {
    let word = i / 32u;
    if (frame.flags & FRAME_FLAG_OCCLUSION) == 0u || word >= arrayLength(&visibility) / 2u {
        return false;
    }
    return ((visibility[word] >> (i % 32u)) & 1u) == 0u;
}

struct BoundsOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_bounds(
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) instance: u32,
) -> BoundsOutput {
    var out: BoundsOutput;
    let live = min(frame.instance_count, min(arrayLength(&instance_batch), arrayLength(&instance_bounds)));
    if instance >= live || instance_batch[instance] == NO_MESH {
        // Outside the clip volume: nothing drawn.
        out.clip_position = vec4(0.0, 0.0, -2.0, 1.0);
        return out;
    }
    // 12 edges, 2 vertices each. Corner bits: x (1), y (2), z (4); edge e
    // runs along axis e / 4 from the corner built from the other two bits.
    let edge = vertex / 2u;
    let axis = edge / 4u;
    let others = edge % 4u;
    let low_axis = select(0u, 1u, axis == 0u);
    let high_axis = select(2u, 1u, axis == 2u);
    let corner = ((others & 1u) << low_axis) | ((others >> 1u) << high_axis) | ((vertex & 1u) << axis);
    let sign = vec3(
        select(-1.0, 1.0, (corner & 1u) != 0u),
        select(-1.0, 1.0, (corner & 2u) != 0u),
        select(-1.0, 1.0, (corner & 4u) != 0u),
    );
    let sphere = instance_bounds[instance];
    out.clip_position = frame.clip_from_world * vec4(sphere.xyz + sign * sphere.w, 1.0);
    if !sphere_in_frustum(sphere) {
        // Culled: red.
        out.color = vec4(1.0, 0.1, 0.1, 1.0);
    } else if occluded(instance) {
        // Occluded: orange.
        out.color = vec4(1.0, 0.6, 0.0, 1.0);
    } else {
        // Kept: green.
        out.color = vec4(0.1, 1.0, 0.2, 1.0);
    }
    return out;
}

@fragment
fn fs_bounds(in: BoundsOutput) -> @location(0) vec4<f32> {
    return in.color;
}
