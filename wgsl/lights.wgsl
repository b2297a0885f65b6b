// The light pass (src/passes/lights.rs): every frame, the light table's
// lights sorted into the view's clusters (froxels, clusters.wgsl), as one
// list of light slots per cluster, each in ascending slot order. Four
// dispatches in one compute pass:
//   prepare_lights  one thread per light slot: the light in view space.
//   count_lights    one workgroup per cluster: its threads test the lights
//                   (thread t: slots t, t + 64, ...) and sum the hits.
//   scan_clusters   one workgroup: prefix sums of the counts give each
//                   cluster its range of `light_indices` (cut at its end).
//   fill_lists      one workgroup per cluster: the lights again, 64 at a
//                   time; each hit's place is the number of hits at lower
//                   slots (a bit mask of the 64 tests and countOneBits), so
//                   every list is in ascending slot order, run after run.
// The tests are src/lighting/clusters.rs's twins: a sphere against the
// cluster's box and against the four side planes of its tile's frustum, and
// for spots the cone against the box's bounding sphere.

#include "types.wgsl"

const LIGHT_WORKGROUP_SIZE: u32 = 64u;
const SCAN_WORKGROUP_SIZE: u32 = 256u;

// A light in view space (written by prepare_lights, read by the others).
struct ViewLight {
    // Centre and cull radius.
    sphere: vec4<f32>,
    axis: vec3<f32>,
    kind: u32,
    cos_outer: f32,
    sin_outer: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var<storage, read> lights: array<Light>;
@group(0) @binding(2) var<storage, read_write> view_lights: array<ViewLight>;
// Per cluster (first, count) in light_indices; two more entries after the
// clusters: (references the frame needed, references written) and
// (clusters with at least one light, longest list).
@group(0) @binding(3) var<storage, read_write> cluster_ranges: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> light_indices: array<u32>;

var<workgroup> cluster_count: atomic<u32>;
// Two 64-bit masks of one chunk's hits, used in turn.
var<workgroup> hit_masks: array<atomic<u32>, 4>;
var<workgroup> partial_sums: array<u32, SCAN_WORKGROUP_SIZE>;
var<workgroup> lit_clusters: atomic<u32>;
var<workgroup> longest_list: atomic<u32>;

fn light_slots() -> u32 {
    return min(frame.light_grid.w, min(arrayLength(&lights), arrayLength(&view_lights)));
}

fn clusters() -> u32 {
    let grid = frame.light_grid;
    return min(grid.x * grid.y * grid.z, arrayLength(&cluster_ranges) - 2u);
}

fn cluster_index(cluster: vec3<u32>) -> u32 {
    let grid = frame.light_grid;
    return min((cluster.z * grid.y + cluster.y) * grid.x + cluster.x, clusters() - 1u);
}

struct ClusterBox {
    lo: vec3<f32>,
    hi: vec3<f32>,
    // The tile's sides as x / -z (left, right) and y / -z (bottom, top).
    sides: vec4<f32>,
}

// The view-space box of cluster (x, y, slice): its eight corners' bounds,
// and its tile's side planes.
fn cluster_bounds(cluster: vec3<u32>) -> ClusterBox {
    let step = vec2(2.0 / f32(frame.light_grid.x), 2.0 / f32(frame.light_grid.y));
    let x0 = -1.0 + f32(cluster.x) * step.x;
    let x1 = -1.0 + f32(cluster.x + 1u) * step.x;
    let y0 = 1.0 - f32(cluster.y + 1u) * step.y;
    let y1 = 1.0 - f32(cluster.y) * step.y;
    let near = frame.view_depth.w * exp2(f32(cluster.z) * frame.view_frustum.z);
    let far = frame.view_depth.w * exp2(f32(cluster.z + 1u) * frame.view_frustum.z);
    let per_depth = frame.view_frustum.xy;
    let a = vec2(x0, y0) * per_depth;
    let b = vec2(x1, y1) * per_depth;
    let lo = min(min(a * near, a * far), min(b * near, b * far));
    let hi = max(max(a * near, a * far), max(b * near, b * far));
    return ClusterBox(vec3(lo, -far), vec3(hi, -near), vec4(a.x, b.x, a.y, b.y));
}

// Whether the sphere (centre, r) reaches the half-space dot(n, p) >= 0.
fn sphere_reaches_plane(centre: vec3<f32>, r: f32, n: vec3<f32>) -> bool {
    return dot(n, centre) + r * length(n) >= 0.0;
}

fn light_touches_cluster(light: ViewLight, bounds: ClusterBox) -> bool {
    if light.kind == LIGHT_KIND_DIRECTIONAL {
        return true;
    }
    if light.kind == LIGHT_KIND_NONE {
        return false;
    }
    let centre = light.sphere.xyz;
    let r = light.sphere.w;
    let d = centre - clamp(centre, bounds.lo, bounds.hi);
    var touches = r * r - dot(d, d) >= 0.0;
    // The tile's side planes through the eye, normals inwards (not unit).
    touches = touches && sphere_reaches_plane(centre, r, vec3(1.0, 0.0, bounds.sides.x));
    touches = touches && sphere_reaches_plane(centre, r, vec3(-1.0, 0.0, -bounds.sides.y));
    touches = touches && sphere_reaches_plane(centre, r, vec3(0.0, 1.0, bounds.sides.z));
    touches = touches && sphere_reaches_plane(centre, r, vec3(0.0, -1.0, -bounds.sides.w));
    if light.kind == LIGHT_KIND_SPOT {
        let box_centre = (bounds.lo + bounds.hi) * 0.5;
        let box_radius = length(bounds.hi - bounds.lo) * 0.5;
        let v = box_centre - centre;
        let v_len_sq = dot(v, v);
        let v1_len = dot(v, light.axis);
        let closest = light.cos_outer * sqrt(max(v_len_sq - v1_len * v1_len, 0.0)) - v1_len * light.sin_outer;
        touches = touches && box_radius - closest >= 0.0 && v1_len + box_radius >= 0.0;
    }
    return touches;
}

@compute @workgroup_size(LIGHT_WORKGROUP_SIZE)
fn prepare_lights(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= light_slots() {
        return;
    }
    let light = lights[i];
    let centre = frame.view_from_world * vec4(light.position, 1.0);
    let axis = frame.view_from_world * vec4(light.direction, 0.0);
    view_lights[i] = ViewLight(vec4(centre.xyz, light.cull_radius), axis.xyz, light.kind, light.cos_outer, light.sin_outer, 0u, 0u);
}

@compute @workgroup_size(LIGHT_WORKGROUP_SIZE)
fn count_lights(@builtin(workgroup_id) cluster: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let bounds = cluster_bounds(cluster);
    let slots = light_slots();
    var count = 0u;
    for (var i = t; i < slots; i += LIGHT_WORKGROUP_SIZE) {
        if light_touches_cluster(view_lights[i], bounds) {
            count += 1u;
        }
    }
    atomicAdd(&cluster_count, count);
    workgroupBarrier();
    if t == 0u {
        cluster_ranges[cluster_index(cluster)] = vec2(0u, atomicLoad(&cluster_count));
    }
}

fn add_saturating(a: u32, b: u32) -> u32 {
    return select(a + b, 0xffffffffu, a > 0xffffffffu - b);
}

@compute @workgroup_size(SCAN_WORKGROUP_SIZE)
fn scan_clusters(@builtin(local_invocation_index) t: u32) {
    let count = clusters();
    let per_thread = (count + SCAN_WORKGROUP_SIZE - 1u) / SCAN_WORKGROUP_SIZE;
    let first = min(t * per_thread, count);
    let end = min(first + per_thread, count);
    var sum = 0u;
    var lit = 0u;
    var longest = 0u;
    for (var c = first; c < end; c++) {
        let wanted = cluster_ranges[c].y;
        sum = add_saturating(sum, wanted);
        lit += u32(wanted > 0u);
        longest = max(longest, wanted);
    }
    atomicAdd(&lit_clusters, lit);
    atomicMax(&longest_list, longest);
    partial_sums[t] = sum;
    workgroupBarrier();
    // Inclusive prefix sums of the threads' sums (Hillis-Steele).
    for (var step = 1u; step < SCAN_WORKGROUP_SIZE; step *= 2u) {
        var value = partial_sums[t];
        if t >= step {
            value = add_saturating(value, partial_sums[t - step]);
        }
        workgroupBarrier();
        partial_sums[t] = value;
        workgroupBarrier();
    }
    let capacity = arrayLength(&light_indices);
    var offset = partial_sums[t] - sum;
    for (var c = first; c < end; c++) {
        let wanted = cluster_ranges[c].y;
        let start = min(offset, capacity);
        cluster_ranges[c] = vec2(start, min(wanted, capacity - start));
        offset = add_saturating(offset, wanted);
    }
    if t == SCAN_WORKGROUP_SIZE - 1u {
        let total = partial_sums[t];
        cluster_ranges[count] = vec2(total, min(total, capacity));
        // Every thread's atomics came before the scan's barriers.
        cluster_ranges[count + 1u] = vec2(atomicLoad(&lit_clusters), atomicLoad(&longest_list));
    }
}

@compute @workgroup_size(LIGHT_WORKGROUP_SIZE)
fn fill_lists(@builtin(workgroup_id) cluster: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let range = cluster_ranges[cluster_index(cluster)];
    let bounds = cluster_bounds(cluster);
    let slots = light_slots();
    let bit = 1u << (t % 32u);
    let word = t / 32u;
    var written = 0u;
    var parity = 0u;
    for (var base = 0u; base < slots; base += LIGHT_WORKGROUP_SIZE) {
        let i = base + t;
        let hit = i < slots && light_touches_cluster(view_lights[i], bounds);
        if hit {
            atomicOr(&hit_masks[parity * 2u + word], bit);
        }
        workgroupBarrier();
        let low = atomicLoad(&hit_masks[parity * 2u]);
        let high = atomicLoad(&hit_masks[parity * 2u + 1u]);
        // The chunk's hits at lower slots than this thread's.
        let before = select(0u, countOneBits(low), word == 1u) + countOneBits(select(low, high, word == 1u) & (bit - 1u));
        let place = written + before;
        if hit && place < range.y {
            light_indices[range.x + place] = i;
        }
        written += countOneBits(low) + countOneBits(high);
        // The other mask was read by every thread before the barrier above.
        if t < 2u {
            atomicStore(&hit_masks[(1u - parity) * 2u + t], 0u);
        }
        parity = 1u - parity;
        workgroupBarrier();
    }
}
