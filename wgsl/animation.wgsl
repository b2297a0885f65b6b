// Animation playback (see src/passes/animation.rs and src/animation/):
// samples every playing instance's clip (or two blended), composes the
// node hierarchy and writes each instance's node world matrices, joint
// palette and morph weights. The CPU twins are src/animation/sampling.rs
// (sampling) and src/animation/pose.rs (blending, composition, palettes);
// the formulas here are theirs.
//
// One thread per instance walks its nodes in order (parents come first):
// simple, and enough for a first version; a workgroup per instance with a
// thread per node and a barrier per hierarchy level is the next step.
//
// Per instance, in `poses` (stride node_count + joint_count): first the
// node world matrices (scene_from_node), then the palette
// (scene_from_node(joint) * inverse_bind). While sampling, a node's slot
// holds its local transform instead: column 0 the translation, 1 the
// rotation, 2 the scale, 3.x the bits of the components clip b has set
// (blending); composition then turns each slot into its world matrix in
// place, reading its parent's slot, already composed.
//
// A second entry point, bound_skins, runs after play in the same compute
// pass: the bounds that culling reads for every skinned object, from its
// palette (see below and src/passes/skin_bounds.rs).

#include "types.wgsl"

// Twins: gpu_types::ANIM_*.
const ANIM_NO_PARENT: u32 = 0xffffffffu;
const ANIM_PATH_TRANSLATION: u32 = 0u;
const ANIM_PATH_ROTATION: u32 = 1u;
const ANIM_PATH_SCALE: u32 = 2u;
const ANIM_PATH_WEIGHTS: u32 = 3u;
const ANIM_STEP: u32 = 0u;
const ANIM_LINEAR: u32 = 1u;
const ANIM_CUBIC_SPLINE: u32 = 2u;
const ANIM_LOOP_A: u32 = 1u;
const ANIM_LOOP_B: u32 = 2u;
const ANIM_BLEND: u32 = 4u;
const ANIM_NO_CLIP: u32 = 0xffffffffu;
// Twin: passes::animation::WORKGROUP_SIZE.
const ANIM_WORKGROUP_SIZE: u32 = 64u;

// Twin: GpuAnimNode (64 bytes).
struct AnimNode {
    translation: vec3<f32>,
    parent: u32,
    rotation: vec4<f32>,
    scale: vec3<f32>,
    weight_count: u32,
    weight_offset: u32,
    rest_weights: u32,
    _pad: array<u32, 2>,
}

// Twin: GpuAnimClip (16 bytes).
struct AnimClip {
    duration: f32,
    first_channel: u32,
    channel_count: u32,
    _pad: u32,
}

// Twin: GpuAnimChannel (32 bytes).
struct AnimChannel {
    node: u32,
    path: u32,
    interpolation: u32,
    components: u32,
    times: u32,
    key_count: u32,
    values: u32,
    _pad: u32,
}

// Twin: GpuAnimJoint (80 bytes).
struct AnimJoint {
    inverse_bind: mat4x4<f32>,
    node: u32,
    _pad: array<u32, 3>,
}

// Twin: GpuAnimInstance (32 bytes).
struct AnimInstance {
    start_a: f32,
    speed_a: f32,
    start_b: f32,
    speed_b: f32,
    clip_a: u32,
    clip_b: u32,
    blend: f32,
    flags: u32,
}

// Twin: GpuAnimFrame (encase).
struct AnimFrame {
    time: f32,
    instance_count: u32,
    node_count: u32,
    joint_count: u32,
    weight_count: u32,
    clip_count: u32,
}

@group(0) @binding(0) var<uniform> frame: AnimFrame;
// Key times, output values and rest weights of every clip, as floats.
@group(0) @binding(1) var<storage, read> keys: array<f32>;
@group(0) @binding(2) var<storage, read> nodes: array<AnimNode>;
@group(0) @binding(3) var<storage, read> clips: array<AnimClip>;
@group(0) @binding(4) var<storage, read> channels: array<AnimChannel>;
@group(0) @binding(5) var<storage, read> joints: array<AnimJoint>;
@group(0) @binding(6) var<storage, read> instances: array<AnimInstance>;
@group(0) @binding(7) var<storage, read_write> poses: array<mat4x4<f32>>;
@group(0) @binding(8) var<storage, read_write> weights: array<f32>;

fn is_finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// Playback::clip_time: wrapped into [0, duration) when looping, clamped
// otherwise, 0 when not finite.
fn clip_time(time: f32, start: f32, speed: f32, looping: bool, duration: f32) -> f32 {
    var local = (time - start) * speed;
    if !is_finite(local) {
        return 0.0;
    }
    if looping && duration > 0.0 {
        // rem_euclid
        local = local - duration * trunc(local / duration);
        if local < 0.0 {
            local += duration;
        }
    } else {
        local = clamp(local, 0.0, max(duration, 0.0));
    }
    return select(0.0, local, is_finite(local));
}

// Where `time` falls: between key `key` and the next at fraction `s`
// (`between`), or on key `key` alone (before the first, after the last).
struct Segment {
    key: u32,
    s: f32,
    interval: f32,
    between: bool,
}

fn segment(c: AnimChannel, time: f32) -> Segment {
    // Keys at or before `time` (a binary search: partition_point).
    var lo = 0u;
    var hi = c.key_count;
    while lo < hi {
        let mid = (lo + hi) / 2u;
        if keys[c.times + mid] <= time {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if lo == 0u {
        return Segment(0u, 0.0, 0.0, false);
    }
    if lo >= c.key_count {
        return Segment(c.key_count - 1u, 0.0, 0.0, false);
    }
    let k = lo - 1u;
    let t0 = keys[c.times + k];
    let interval = keys[c.times + k + 1u] - t0;
    return Segment(k, (time - t0) / interval, interval, true);
}

// Component `i` of key `k`'s value (not a tangent).
fn key_value(c: AnimChannel, k: u32, i: u32) -> f32 {
    if c.interpolation == ANIM_CUBIC_SPLINE {
        return keys[c.values + (3u * k + 1u) * c.components + i];
    }
    return keys[c.values + k * c.components + i];
}

// Component `i` sampled (STEP, LINEAR without slerp, CUBICSPLINE).
fn sample_component(c: AnimChannel, seg: Segment, i: u32) -> f32 {
    if !seg.between || c.interpolation == ANIM_STEP {
        return key_value(c, seg.key, i);
    }
    let k = seg.key;
    if c.interpolation == ANIM_LINEAR {
        let a = key_value(c, k, i);
        return a + (key_value(c, k + 1u, i) - a) * seg.s;
    }
    let s = seg.s;
    let s2 = s * s;
    let s3 = s2 * s;
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = seg.interval * (s3 - 2.0 * s2 + s);
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = seg.interval * (s3 - s2);
    let n = c.components;
    let v0 = keys[c.values + (3u * k + 1u) * n + i];
    let out_tangent0 = keys[c.values + (3u * k + 2u) * n + i];
    let in_tangent1 = keys[c.values + (3u * (k + 1u)) * n + i];
    let v1 = keys[c.values + (3u * (k + 1u) + 1u) * n + i];
    return h00 * v0 + h10 * out_tangent0 + h01 * v1 + h11 * in_tangent1;
}

// The twin of sampling::slerp: shortest arc, near-parallel linear.
fn slerp(a: vec4<f32>, b_in: vec4<f32>, s: f32) -> vec4<f32> {
    var b = b_in;
    var d = dot(a, b);
    if d < 0.0 {
        d = -d;
        b = -b;
    }
    if d > 0.9995 {
        return normalize(a + (b - a) * s);
    }
    let theta = acos(clamp(d, -1.0, 1.0));
    let sine = sin(theta);
    let wa = sin((1.0 - s) * theta) / sine;
    let wb = sin(s * theta) / sine;
    return normalize(a * wa + b * wb);
}

// A translation, rotation or scale channel sampled (rotations slerped
// when LINEAR, normalised always, as Pose::at_clip_time does).
fn sample_vector(c: AnimChannel, seg: Segment) -> vec4<f32> {
    if c.path == ANIM_PATH_ROTATION {
        if seg.between && c.interpolation == ANIM_LINEAR {
            let a = vec4(key_value(c, seg.key, 0u), key_value(c, seg.key, 1u),
                         key_value(c, seg.key, 2u), key_value(c, seg.key, 3u));
            let k = seg.key + 1u;
            let b = vec4(key_value(c, k, 0u), key_value(c, k, 1u),
                         key_value(c, k, 2u), key_value(c, k, 3u));
            return slerp(a, b, seg.s);
        }
        let q = vec4(sample_component(c, seg, 0u), sample_component(c, seg, 1u),
                     sample_component(c, seg, 2u), sample_component(c, seg, 3u));
        return normalize(q);
    }
    return vec4(sample_component(c, seg, 0u), sample_component(c, seg, 1u),
                sample_component(c, seg, 2u), 0.0);
}

// Whether a channel's values fit what it animates (the CPU twin skips
// those that do not too).
fn channel_fits(c: AnimChannel) -> bool {
    switch c.path {
        case ANIM_PATH_TRANSLATION, ANIM_PATH_SCALE: {
            return c.components == 3u;
        }
        case ANIM_PATH_ROTATION: {
            return c.components == 4u;
        }
        default: {
            return c.components == nodes[c.node].weight_count;
        }
    }
}

// Blends component `path` of a slot (pose a) towards `b` by `w`.
fn blended(path: u32, a: vec4<f32>, b: vec4<f32>, w: f32) -> vec4<f32> {
    if path == ANIM_PATH_ROTATION {
        return slerp(a, b, w);
    }
    return mix(a, b, w);
}

// Samples clip `clip` at clip time `t` into the instance's slots: pose a
// (`blend` false), or blended into pose a by `w` (`blend` true, marking
// the components it set).
fn apply_clip(pose_base: u32, weight_base: u32, clip: u32, t: f32, blend: bool, w: f32) {
    let record = clips[clip];
    for (var i = 0u; i < record.channel_count; i++) {
        let c = channels[record.first_channel + i];
        if !channel_fits(c) {
            continue;
        }
        let seg = segment(c, t);
        let slot = pose_base + c.node;
        if c.path == ANIM_PATH_WEIGHTS {
            let node = nodes[c.node];
            for (var j = 0u; j < node.weight_count; j++) {
                let value = sample_component(c, seg, j);
                let index = weight_base + node.weight_offset + j;
                weights[index] = select(value, mix(weights[index], value, w), blend);
            }
        } else {
            let value = sample_vector(c, seg);
            if blend {
                poses[slot][c.path] = blended(c.path, poses[slot][c.path], value, w);
            } else {
                poses[slot][c.path] = value;
            }
        }
        if blend {
            let marked = bitcast<u32>(poses[slot][3].x) | (1u << c.path);
            poses[slot][3].x = bitcast<f32>(marked);
        }
    }
}

// glam's Mat4::from_scale_rotation_translation.
fn trs_matrix(t: vec3<f32>, q: vec4<f32>, s: vec3<f32>) -> mat4x4<f32> {
    let x2 = q.x + q.x;
    let y2 = q.y + q.y;
    let z2 = q.z + q.z;
    let xx = q.x * x2;
    let xy = q.x * y2;
    let xz = q.x * z2;
    let yy = q.y * y2;
    let yz = q.y * z2;
    let zz = q.z * z2;
    let wx = q.w * x2;
    let wy = q.w * y2;
    let wz = q.w * z2;
    return mat4x4(
        vec4(1.0 - (yy + zz), xy + wz, xz - wy, 0.0) * s.x,
        vec4(xy - wz, 1.0 - (xx + zz), yz + wx, 0.0) * s.y,
        vec4(xz + wy, yz - wx, 1.0 - (xx + yy), 0.0) * s.z,
        vec4(t, 1.0),
    );
}

@compute @workgroup_size(ANIM_WORKGROUP_SIZE)
fn play(@builtin(global_invocation_id) id: vec3<u32>) {
    let instance = id.x;
    if instance >= frame.instance_count {
        return;
    }
    let playing = instances[instance];
    let stride = frame.node_count + frame.joint_count;
    let pose_base = instance * stride;
    let weight_base = instance * frame.weight_count;
    // The rest pose.
    for (var n = 0u; n < frame.node_count; n++) {
        let node = nodes[n];
        poses[pose_base + n] = mat4x4(
            vec4(node.translation, 0.0), node.rotation, vec4(node.scale, 0.0), vec4(0.0));
        for (var j = 0u; j < node.weight_count; j++) {
            weights[weight_base + node.weight_offset + j] = keys[node.rest_weights + j];
        }
    }
    // Clip a, then clip b blended over it.
    if playing.clip_a < frame.clip_count {
        let t = clip_time(frame.time, playing.start_a, playing.speed_a,
                          (playing.flags & ANIM_LOOP_A) != 0u, clips[playing.clip_a].duration);
        apply_clip(pose_base, weight_base, playing.clip_a, t, false, 0.0);
    }
    let blending = (playing.flags & ANIM_BLEND) != 0u;
    if blending && playing.clip_b < frame.clip_count {
        let t = clip_time(frame.time, playing.start_b, playing.speed_b,
                          (playing.flags & ANIM_LOOP_B) != 0u, clips[playing.clip_b].duration);
        apply_clip(pose_base, weight_base, playing.clip_b, t, true, playing.blend);
    }
    // Composition, in place: what clip b left at rest blends towards the
    // rest transform (Pose::blend against b's rest values).
    for (var n = 0u; n < frame.node_count; n++) {
        let node = nodes[n];
        let slot = pose_base + n;
        var local = poses[slot];
        if blending {
            let marked = bitcast<u32>(local[3].x);
            let w = playing.blend;
            if (marked & (1u << ANIM_PATH_TRANSLATION)) == 0u {
                local[0] = mix(local[0], vec4(node.translation, 0.0), w);
            }
            if (marked & (1u << ANIM_PATH_ROTATION)) == 0u {
                local[1] = slerp(local[1], node.rotation, w);
            }
            if (marked & (1u << ANIM_PATH_SCALE)) == 0u {
                local[2] = mix(local[2], vec4(node.scale, 0.0), w);
            }
            if (marked & (1u << ANIM_PATH_WEIGHTS)) == 0u {
                for (var j = 0u; j < node.weight_count; j++) {
                    let index = weight_base + node.weight_offset + j;
                    weights[index] = mix(weights[index], keys[node.rest_weights + j], w);
                }
            }
        }
        var world = trs_matrix(local[0].xyz, local[1], local[2].xyz);
        if node.parent != ANIM_NO_PARENT {
            world = poses[pose_base + node.parent] * world;
        }
        poses[slot] = world;
    }
    // The joint palette.
    for (var j = 0u; j < frame.joint_count; j++) {
        let joint = joints[j];
        poses[pose_base + frame.node_count + j] = poses[pose_base + joint.node] * joint.inverse_bind;
    }
}

// Skinned bounds (entry point bound_skins; host: src/passes/skin_bounds.rs;
// CPU twin: src/animation/bounds.rs, skinned_sphere then the object's
// world_sphere, formula for formula). Per skinned object, its skin's joint
// spheres (bind-pose mesh space; a negative radius marks a joint that
// moves no vertex) moved by the instance's palette and enclosed, then
// placed by the object's world_from_object: written over the object's
// entry of the bounds stream, which every view's cull then reads.

// Twin: GpuSkinnedBounds (16 bytes).
struct SkinnedBounds {
    object: u32,
    palette: u32,
    first_sphere: u32,
    joint_count: u32,
}

@group(0) @binding(9) var<storage, read> skinned: array<SkinnedBounds>;
@group(0) @binding(10) var<storage, read> joint_spheres: array<vec4<f32>>;
// The deform buffer (pull.wgsl's binding), read: palettes at vec4 indices.
@group(0) @binding(11) var<storage, read> deform: array<vec4<u32>>;
@group(0) @binding(12) var<storage, read> objects: array<Object>;
@group(0) @binding(13) var<storage, read_write> object_bounds: array<vec4<f32>>;

// The palettes are read as the raster passes read them.
#include "skinning.wgsl"

// The largest axis scale of `m` (world_sphere's and skinned_sphere's).
fn largest_scale(m: mat4x4<f32>) -> f32 {
    return max(max(length(m[0].xyz), length(m[1].xyz)), length(m[2].xyz));
}

// Joint `j`'s sphere of `record` moved by its palette matrix (radius < 0:
// the joint moves nothing).
fn moved_sphere(record: SkinnedBounds, j: u32) -> vec4<f32> {
    let index = record.first_sphere + j;
    if index >= arrayLength(&joint_spheres) {
        return vec4(0.0, 0.0, 0.0, -1.0);
    }
    let sphere = joint_spheres[index];
    if sphere.w < 0.0 {
        return sphere;
    }
    let m = palette_matrix(record.palette, j);
    return vec4((m * vec4(sphere.xyz, 1.0)).xyz, sphere.w * largest_scale(m));
}

@compute @workgroup_size(ANIM_WORKGROUP_SIZE)
fn bound_skins(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= arrayLength(&skinned) {
        return;
    }
    let record = skinned[id.x];
    if record.object >= min(arrayLength(&objects), arrayLength(&object_bounds)) {
        return;
    }
    let object = objects[record.object];
    // The object was unskinned, re-skinned elsewhere or its slot reused:
    // its CPU bounds stand.
    if object.skin != record.palette {
        return;
    }
    var lo = vec3(3.0e38);
    var hi = vec3(-3.0e38);
    var any = false;
    for (var j = 0u; j < record.joint_count; j++) {
        let s = moved_sphere(record, j);
        if s.w >= 0.0 {
            lo = min(lo, s.xyz - s.w);
            hi = max(hi, s.xyz + s.w);
            any = true;
        }
    }
    if !any {
        return;
    }
    let centre = (lo + hi) * 0.5;
    var radius = 0.0;
    for (var j = 0u; j < record.joint_count; j++) {
        let s = moved_sphere(record, j);
        if s.w >= 0.0 {
            radius = max(radius, distance(s.xyz, centre) + s.w);
        }
    }
    let world = object.world_from_object;
    let world_centre = (world * vec4(centre, 1.0)).xyz;
    object_bounds[record.object] = vec4(world_centre, radius * largest_scale(world));
}
