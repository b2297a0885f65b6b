// Triangle filtering (src/passes/triangle_filter.rs; issue 28, stage 3):
// after cluster culling (cluster_cull.wgsl), each surviving cluster draw
// of the camera's opaque and double-sided buckets has its triangles tested
// one by one, and those that survive are written, compacted, to the
// bucket's region of a per-frame index buffer, drawn by one indirect draw
// per bucket.
//
// One thread per cluster draw (workgroup z: the bucket). A triangle is
// dropped only where the rasteriser is certain to make no fragment of it:
//   outside   all three corners beyond one clip plane (x, y beyond ±w, z
//             below 0 or above w): a half-space is convex, so this holds
//             for any w, behind the eye included;
//   back      (opaque bucket only: the double-sided one culls no face)
//             every corner in front of the eye (w > 0) and the screen
//             area clockwise by more than sub-pixel snapping can change:
//             the rasteriser's own test (counter-clockwise is front), in
//             screen space, so a mirrored instance is judged exactly as
//             the rasteriser judges it;
//   no pixel  (one sample per pixel only) every corner in front of the
//             eye and no pixel centre (k + 0.5) inside the triangle's
//             screen box, grown by the snapping slack, along x or y.
// A triangle with a corner at or behind w = 0 gets no screen test.
//
// Draw identity (draw.wgsl's rule, DX12-safe): a compacted index is
// (record << LOCAL_VERTEX_BITS) | (vertex - lowest vertex of the cluster),
// where record is the cluster draw's index, whose record (a
// DrawIndexedIndirect: base_vertex the lowest vertex, first_instance the
// visible-list entry) pull.wgsl reads when its instance slot is
// FILTERED_SLOT (the packed draws' instance-rate buffer holds it). A
// cluster whose vertices span more than 2^LOCAL_VERTEX_BITS, a skinned or
// morphed instance (bind-pose positions are not the drawn ones), a draw of
// more than a cluster's triangles, and a cluster whose survivors do not
// fit the bucket's index region are drawn unfiltered: copied to the
// bucket's pass-through draws. Without indirect count (tiers B and C,
// FRAME_FLAG_UNCOMPACTED_DRAWS) the pass-through draws cost the CPU a draw
// each, so a skinned or morphed instance's clusters are packed too, all
// their triangles kept, untested.

#include "types.wgsl"

const WORKGROUP_SIZE: u32 = 256u;
const CLUSTER_BUCKETS: u32 = 2u;
// The cluster draws buffer (cluster_cull.wgsl): GpuClusterStats, then per
// bucket a region of draws_per_bucket draws of DRAW_WORDS words.
const CLUSTER_HEADER_WORDS: u32 = 16u;
const DRAW_WORDS: u32 = 5u;
const STAT_DRAWS: u32 = 0u;
// The filter's words of GpuClusterStats (twin: its offsets).
const STAT_FILTER_TESTED: u32 = 10u;
const STAT_FILTER_OUTSIDE: u32 = 11u;
const STAT_FILTER_BACK: u32 = 12u;
const STAT_FILTER_NO_PIXEL: u32 = 13u;
const STAT_FILTER_DRAWN: u32 = 14u;
// The words of GpuTriangleFilterHead, at params.head_word of `filtered`.
const FILTER_PASS_DRAWS: u32 = 0u;
const FILTER_INDICES: u32 = 2u;
const FILTER_PACKED_DRAWS: u32 = 4u;
const FILTER_ONE: u32 = 14u;
const FILTER_HEAD_WORDS: u32 = 16u;
// Twins: triangle_filter::{LOCAL_VERTEX_BITS, MAX_RECORDS}.
const LOCAL_VERTEX_BITS: u32 = 10u;
const MAX_RECORDS: u32 = 4194303u;
// Twin: clusters::CLUSTER_MAX_TRIANGLES.
const CLUSTER_MAX_TRIANGLES: u32 = 124u;
// Object.skin of an unskinned object (twin: gpu_types::NO_SKIN).
const NO_SKIN: u32 = 0xffffffffu;

// The filter's parameters, written when its buffers or the target change
// (twin: GpuTriangleFilter).
struct TriangleFilter {
    // The target's size in pixels.
    viewport: vec2<f32>,
    // Draws per bucket of the cluster draws and of the pass-through draws.
    draws_per_bucket: u32,
    // Indices per bucket region of filtered_indices.
    index_capacity: u32,
    // The head's first word in `filtered` (after the records).
    head_word: u32,
    // 1: the no-pixel test (one sample per pixel); 0 with MSAA.
    pixel_test: u32,
    // How far (pixels, per axis) the rasteriser may place a corner from
    // where this pass computes it, before a relative rounding slack
    // (clusters::TRIANGLE_SNAP_PIXELS).
    snap_pixels: f32,
    _pad: u32,
}

// Twins: clusters::TriangleVerdict.
const VERDICT_KEPT: u32 = 0u;
const VERDICT_OUTSIDE: u32 = 1u;
const VERDICT_BACK: u32 = 2u;
const VERDICT_NO_PIXEL: u32 = 3u;

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var<uniform> params: TriangleFilter;
@group(0) @binding(2) var<storage, read> objects: array<Object>;
// The camera's region of the visible list.
@group(0) @binding(3) var<storage, read> visible_instances: array<u32>;
// The arena's index and vertex buffers.
@group(0) @binding(4) var<storage, read> indices: array<u32>;
@group(0) @binding(5) var<storage, read> vertices: array<Vertex>;
@group(0) @binding(6) var<storage, read_write> cluster_draws: array<atomic<u32>>;
// Records (2 x draws_per_bucket draws), the head, then per bucket the
// pass-through draws.
@group(0) @binding(7) var<storage, read_write> filtered: array<atomic<u32>>;
// Per bucket a region of index_capacity compacted indices.
@group(0) @binding(8) var<storage, read_write> filtered_indices: array<u32>;

var<workgroup> local_indices: atomic<u32>;
var<workgroup> local_passes: atomic<u32>;
var<workgroup> base_indices: u32;
var<workgroup> base_passes: u32;
// Tested, outside, back, no pixel, drawn.
var<workgroup> local_stats: array<atomic<u32>, 5>;

fn clip_position(world_from_object: mat4x4<f32>, vertex: u32) -> vec4<f32> {
    let v = vertices[min(vertex, arrayLength(&vertices) - 1u)];
    let world = world_from_object * vec4(v.position[0], v.position[1], v.position[2], 1.0);
    return frame.clip_from_world * world;
}

fn all_beyond(a: f32, b: f32, c: f32, limit: vec3<f32>) -> bool {
    return a > limit.x && b > limit.y && c > limit.z;
}

// The verdict on one triangle (the CPU twin: clusters::triangle_verdict).
fn triangle_verdict(a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, cull_back: bool) -> u32 {
    let w = vec3(a.w, b.w, c.w);
    if all_beyond(a.x, b.x, c.x, w) || all_beyond(-a.x, -b.x, -c.x, w)
        || all_beyond(a.y, b.y, c.y, w) || all_beyond(-a.y, -b.y, -c.y, w)
        || all_beyond(a.z, b.z, c.z, w) || all_beyond(-a.z, -b.z, -c.z, vec3(0.0)) {
        return VERDICT_OUTSIDE;
    }
    if min(w.x, min(w.y, w.z)) <= 0.0 {
        return VERDICT_KEPT;
    }
    // Framebuffer pixels (y down).
    let half = params.viewport * 0.5;
    let pa = vec2(a.x / a.w + 1.0, 1.0 - a.y / a.w) * half;
    let pb = vec2(b.x / b.w + 1.0, 1.0 - b.y / b.w) * half;
    let pc = vec2(c.x / c.w + 1.0, 1.0 - c.y / c.w) * half;
    let extent = max(max(abs(pa), abs(pb)), max(abs(pc), params.viewport));
    let snap = params.snap_pixels + 1e-5 * max(extent.x, extent.y);
    let e1 = pb - pa;
    let e2 = pc - pa;
    // Twice the signed area; y down, so counter-clockwise (front) is
    // negative. Moving each corner by at most `snap` per axis changes it
    // by at most 2 sqrt(2) snap (|e1| + |e2|) + 8 snap^2.
    let area = e1.x * e2.y - e1.y * e2.x;
    let slack = 2.9 * snap * (length(e1) + length(e2)) + 8.0 * snap * snap;
    if cull_back && area > slack {
        return VERDICT_BACK;
    }
    if params.pixel_test != 0u {
        let low = min(pa, min(pb, pc)) - snap;
        let high = max(pa, max(pb, pc)) + snap;
        let none = floor(high - 0.5) < ceil(low - 0.5);
        if none.x || none.y {
            return VERDICT_NO_PIXEL;
        }
    }
    return VERDICT_KEPT;
}

fn write_draw(at: u32, index_count: u32, first_index: u32, base_vertex: u32, entry: u32) {
    if at + DRAW_WORDS > arrayLength(&filtered) {
        return;
    }
    atomicStore(&filtered[at], index_count);
    atomicStore(&filtered[at + 1u], 1u);
    atomicStore(&filtered[at + 2u], first_index);
    atomicStore(&filtered[at + 3u], base_vertex);
    atomicStore(&filtered[at + 4u], entry);
}

fn pass_draw_word(bucket: u32, draw: u32) -> u32 {
    return params.head_word + FILTER_HEAD_WORDS + (bucket * params.draws_per_bucket + draw) * DRAW_WORDS;
}

// What one cluster's test found: a bit per kept triangle, how many were
// kept, and how many were dropped outside, back-facing, under no pixel.
struct Tested {
    kept_bits: vec4<u32>,
    survivors: u32,
    dropped: vec3<u32>,
}

fn test_triangles(first_index: u32, triangles: u32, world_from_object: mat4x4<f32>, cull_back: bool) -> Tested {
    var out = Tested(vec4(0u), 0u, vec3(0u));
    for (var t = 0u; t < triangles; t++) {
        let i = first_index + 3u * t;
        let verdict = triangle_verdict(
            clip_position(world_from_object, indices[i]),
            clip_position(world_from_object, indices[i + 1u]),
            clip_position(world_from_object, indices[i + 2u]),
            cull_back,
        );
        if verdict == VERDICT_KEPT {
            out.survivors += 1u;
            out.kept_bits |= select(vec4(0u), vec4(1u << (t & 31u)), vec4(t >> 5u) == vec4(0u, 1u, 2u, 3u));
        } else {
            out.dropped[verdict - 1u] += 1u;
        }
    }
    return out;
}

// Every one of `triangles` kept.
fn all_kept(triangles: u32) -> vec4<u32> {
    var bits = vec4(0u);
    for (var w = 0u; w < 4u; w++) {
        let n = min(triangles - min(triangles, 32u * w), 32u);
        bits[w] = select((1u << min(n, 31u)) - 1u, 0xffffffffu, n == 32u);
    }
    return bits;
}

// The kept triangles' compacted indices from filtered_indices[at]: `high`
// (the record's bits) | the corner's offset from `lowest`.
fn write_survivors(at: u32, high: u32, lowest: u32, first_index: u32, triangles: u32, kept_bits: vec4<u32>) {
    var out = at;
    for (var t = 0u; t < triangles; t++) {
        let word = select(select(kept_bits.x, kept_bits.y, t >= 32u), select(kept_bits.z, kept_bits.w, t >= 96u), t >= 64u);
        if (word & (1u << (t & 31u))) == 0u {
            continue;
        }
        let i = first_index + 3u * t;
        filtered_indices[out] = high | (indices[i] - lowest);
        filtered_indices[out + 1u] = high | (indices[i + 1u] - lowest);
        filtered_indices[out + 2u] = high | (indices[i + 2u] - lowest);
        out += 3u;
    }
}

@compute @workgroup_size(256)
fn filter_triangles(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if local == 0u {
        atomicStore(&local_indices, 0u);
        atomicStore(&local_passes, 0u);
    }
    if local < 5u {
        atomicStore(&local_stats[local], 0u);
    }
    workgroupBarrier();

    let bucket = min(workgroup.z, CLUSTER_BUCKETS - 1u);
    let draw = (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
    let per_bucket = params.draws_per_bucket;
    let at = CLUSTER_HEADER_WORDS + (bucket * per_bucket + draw) * DRAW_WORDS;
    let count = min(atomicLoad(&cluster_draws[STAT_DRAWS + bucket]), per_bucket);
    let live = draw < count && at + DRAW_WORDS <= arrayLength(&cluster_draws);
    var index_count = 0u;
    var first_index = 0u;
    var entry = 0u;
    if live {
        index_count = atomicLoad(&cluster_draws[at]);
        first_index = atomicLoad(&cluster_draws[at + 2u]);
        entry = atomicLoad(&cluster_draws[at + 4u]);
    }
    let record_index = bucket * per_bucket + draw;
    // filterable: packed (and tested unless deformed).
    var filterable = live && index_count <= 3u * CLUSTER_MAX_TRIANGLES && record_index < MAX_RECORDS
        && first_index <= arrayLength(&indices) && index_count <= arrayLength(&indices) - first_index;
    var world_from_object = mat4x4<f32>();
    var deformed = false;
    if filterable {
        let slot = visible_instances[min(entry, arrayLength(&visible_instances) - 1u)];
        let object = objects[min(slot, arrayLength(&objects) - 1u)];
        deformed = object.skin != NO_SKIN || object.morph_deltas != NO_MORPH;
        filterable = !deformed || (frame.flags & FRAME_FLAG_UNCOMPACTED_DRAWS) != 0u;
        world_from_object = object.world_from_object;
    }
    var lowest = 0xffffffffu;
    if filterable {
        var highest = 0u;
        for (var i = first_index; i < first_index + index_count; i++) {
            lowest = min(lowest, indices[i]);
            highest = max(highest, indices[i]);
        }
        filterable = highest - lowest < (1u << LOCAL_VERTEX_BITS);
    }
    var tested = Tested(vec4(0u), 0u, vec3(0u));
    let triangles = index_count / 3u;
    if filterable && !deformed {
        tested = test_triangles(first_index, triangles, world_from_object, bucket == BUCKET_OPAQUE);
    } else if filterable {
        tested = Tested(all_kept(triangles), triangles, vec3(0u));
    }
    let kept_bits = tested.kept_bits;
    let survivors = tested.survivors;
    let dropped = tested.dropped;
    var local_first = 0u;
    if filterable && survivors > 0u {
        local_first = atomicAdd(&local_indices, 3u * survivors);
    }
    var local_pass = 0u;
    if live && !filterable {
        local_pass = atomicAdd(&local_passes, 1u);
    }
    if filterable && !deformed {
        atomicAdd(&local_stats[0], triangles);
        atomicAdd(&local_stats[1], dropped.x);
        atomicAdd(&local_stats[2], dropped.y);
        atomicAdd(&local_stats[3], dropped.z);
        atomicAdd(&local_stats[4], survivors);
    } else if live {
        atomicAdd(&local_stats[4], triangles);
    }
    workgroupBarrier();
    if local == 0u {
        let head = params.head_word;
        base_indices = atomicAdd(&filtered[head + FILTER_INDICES + bucket], atomicLoad(&local_indices));
        base_passes = atomicAdd(&filtered[head + FILTER_PASS_DRAWS + bucket], atomicLoad(&local_passes));
        for (var s = 0u; s < 5u; s++) {
            let value = atomicLoad(&local_stats[s]);
            if value > 0u {
                atomicAdd(&cluster_draws[STAT_FILTER_TESTED + s], value);
            }
        }
    }
    workgroupBarrier();

    if live && !filterable {
        write_draw(pass_draw_word(bucket, base_passes + local_pass), index_count, first_index, 0u, entry);
    }
    if !filterable || survivors == 0u {
        return;
    }
    let capacity = params.index_capacity;
    let region = bucket * capacity;
    let start = base_indices + local_first;
    if start + 3u * survivors > capacity || region + capacity > arrayLength(&filtered_indices) {
        // Out of index space: degenerate triangles where the reservation
        // began inside the region, and the cluster drawn unfiltered.
        for (var i = start; i < capacity; i++) {
            filtered_indices[min(region + i, arrayLength(&filtered_indices) - 1u)] = 0u;
        }
        let spill = atomicAdd(&filtered[params.head_word + FILTER_PASS_DRAWS + bucket], 1u);
        write_draw(pass_draw_word(bucket, spill), index_count, first_index, 0u, entry);
        if !deformed {
            atomicSub(&cluster_draws[STAT_FILTER_TESTED], triangles);
            atomicSub(&cluster_draws[STAT_FILTER_OUTSIDE], dropped.x);
            atomicSub(&cluster_draws[STAT_FILTER_BACK], dropped.y);
            atomicSub(&cluster_draws[STAT_FILTER_NO_PIXEL], dropped.z);
            atomicAdd(&cluster_draws[STAT_FILTER_DRAWN], triangles - survivors);
        }
        return;
    }
    write_draw(record_index * DRAW_WORDS, index_count, first_index, lowest, entry);
    write_survivors(region + start, record_index << LOCAL_VERTEX_BITS, lowest, first_index, triangles, kept_bits);
}

// The buckets' packed draws: each bucket's compacted indices, clamped to
// its region, one instance whose instance-rate slot is FILTERED_SLOT.
@compute @workgroup_size(2)
fn finish_filter(@builtin(local_invocation_index) bucket: u32) {
    let head = params.head_word;
    let reserved = atomicLoad(&filtered[head + FILTER_INDICES + bucket]);
    let at = head + FILTER_PACKED_DRAWS + bucket * DRAW_WORDS;
    write_draw(at, min(reserved, params.index_capacity), bucket * params.index_capacity, 0u, 0u);
    atomicStore(&filtered[head + FILTER_ONE], 1u);
}
