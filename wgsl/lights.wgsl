// The light pass (src/passes/lights.rs): every frame, the light table's
// lights sorted into the view's clusters (froxels, clusters.wgsl), as one
// list of light slots per cluster, each in ascending slot order. Five
// dispatches in one compute pass:
//   prepare_lights  one thread per light slot: the light in view space.
//   column_lights   one workgroup per screen tile: the lights that may touch
//                   any cluster of the tile's column (a looser test), as
//                   one list per tile in ascending slot order, written as
//                   fill_lists writes (below); a column with more than its
//                   share of `column_lists` is marked, and its clusters
//                   test every light instead.
//   count_lights    one workgroup per cluster: its threads test the lights
//                   of its column (thread t: entries t, t + 64, ...) and
//                   sum the hits.
//   scan_clusters   one workgroup: prefix sums of the counts give each
//                   cluster its range of `light_indices` (cut at its end).
//   fill_lists      one workgroup per cluster: its column's lights again,
//                   64 at a time; each hit's place is the number of hits at
//                   lower slots (a bit mask of the 64 tests and
//                   countOneBits), so every list is in ascending slot
//                   order, run after run.
// The tests are src/lighting/clusters.rs's twins: a sphere against the
// cluster's box and against the four side planes of its tile's frustum, and
// for spots the cone against the box's bounding sphere. The column test
// is no twin: it only narrows what the cluster test sees, and holds every
// light the cluster test can take (see light_touches_column).

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
// Per cluster (first, count) in light_indices; three more entries after
// the clusters: (references the frame needed, references written),
// (clusters with at least one light, longest list) and (columns whose list
// overflowed, longest column list).
@group(0) @binding(3) var<storage, read_write> cluster_ranges: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> light_indices: array<u32>;
// Per screen tile the number of lights of its column, then per tile a list
// of column_capacity() slots.
@group(0) @binding(5) var<storage, read_write> column_lists: array<u32>;

var<workgroup> cluster_count: atomic<u32>;
// Two 64-bit masks of one chunk's hits, used in turn.
var<workgroup> hit_masks: array<atomic<u32>, 4>;
var<workgroup> partial_sums: array<u32, SCAN_WORKGROUP_SIZE>;
var<workgroup> lit_clusters: atomic<u32>;
var<workgroup> longest_list: atomic<u32>;
var<workgroup> full_columns: atomic<u32>;
var<workgroup> longest_column: atomic<u32>;
var<workgroup> column_count: u32;

fn light_slots() -> u32 {
    return min(frame.light_grid.w, min(arrayLength(&lights), arrayLength(&view_lights)));
}

fn clusters() -> u32 {
    let grid = frame.light_grid;
    return min(grid.x * grid.y * grid.z, arrayLength(&cluster_ranges) - 3u);
}

fn tiles() -> u32 {
    return frame.light_grid.x * frame.light_grid.y;
}

// Slots each tile's column list holds.
fn column_capacity() -> u32 {
    let tiles = tiles();
    return (max(arrayLength(&column_lists), tiles) - tiles) / tiles;
}

fn tile_index(tile: vec2<u32>) -> u32 {
    return min(tile.y * frame.light_grid.x + tile.x, tiles() - 1u);
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

// The column of tile (x, y): its side planes, and between the first
// slice's near and the last slice's far plane (the other box fields are
// unused).
fn column_bounds(tile: vec2<u32>) -> ClusterBox {
    let first = cluster_bounds(vec3(tile, 0u));
    let last = cluster_bounds(vec3(tile, frame.light_grid.z - 1u));
    return ClusterBox(vec3(first.lo.xy, last.lo.z), vec3(first.hi.xy, first.hi.z), first.sides);
}

// Whether a light may touch a cluster of the column: its sphere, grown by
// a relative 1e-4 (thousands of f32 roundings: another entry point may
// round the same sums otherwise), reaches the four side planes and the
// depth range. Every light light_touches_cluster takes passes, so testing
// the column's lights alone gives the same lists.
fn light_touches_column(light: ViewLight, column: ClusterBox) -> bool {
    if light.kind == LIGHT_KIND_DIRECTIONAL {
        return true;
    }
    if light.kind == LIGHT_KIND_NONE {
        return false;
    }
    let centre = light.sphere.xyz;
    let size = max(max(abs(centre.x), abs(centre.y)), max(abs(centre.z), abs(column.lo.z)));
    let r = light.sphere.w + 1e-4 * (light.sphere.w + size);
    var touches = centre.z - r <= column.hi.z && centre.z + r >= column.lo.z;
    touches = touches && sphere_reaches_plane(centre, r, vec3(1.0, 0.0, column.sides.x));
    touches = touches && sphere_reaches_plane(centre, r, vec3(-1.0, 0.0, -column.sides.y));
    touches = touches && sphere_reaches_plane(centre, r, vec3(0.0, 1.0, column.sides.z));
    touches = touches && sphere_reaches_plane(centre, r, vec3(0.0, -1.0, -column.sides.w));
    return touches;
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

// Where the cluster workgroups of tile `tile` find their candidate lights:
// (first entry of the tile's column list in column_lists, entries), or
// (ALL_SLOTS, light slots) when the column list overflowed. Uniform across
// the workgroup (every thread must call it).
const ALL_SLOTS: u32 = 0xffffffffu;

fn cluster_candidates(tile: vec2<u32>, t: u32) -> vec2<u32> {
    let index = tile_index(tile);
    if t == 0u {
        column_count = column_lists[index];
    }
    let count = workgroupUniformLoad(&column_count);
    let capacity = column_capacity();
    if count > capacity {
        return vec2(ALL_SLOTS, light_slots());
    }
    return vec2(tiles() + index * capacity, count);
}

// The slot of candidate `i` of `candidates` (cluster_candidates).
fn candidate_slot(candidates: vec2<u32>, i: u32) -> u32 {
    if candidates.x == ALL_SLOTS {
        return i;
    }
    return column_lists[candidates.x + i];
}

// One chunk of LIGHT_WORKGROUP_SIZE tests, in ascending order: the number
// of hits at lower threads than t, and the chunk's hits. The masks at
// parity * 2 collect this chunk's; the other two, read by every thread
// before the previous chunk's last barrier, are cleared for the next.
// Every thread of the workgroup calls it (two barriers).
fn rank_hits(hit: bool, t: u32, parity: u32) -> vec2<u32> {
    let bit = 1u << (t % 32u);
    let word = t / 32u;
    if hit {
        atomicOr(&hit_masks[parity * 2u + word], bit);
    }
    workgroupBarrier();
    let low = atomicLoad(&hit_masks[parity * 2u]);
    let high = atomicLoad(&hit_masks[parity * 2u + 1u]);
    let before = select(0u, countOneBits(low), word == 1u) + countOneBits(select(low, high, word == 1u) & (bit - 1u));
    if t < 2u {
        atomicStore(&hit_masks[(1u - parity) * 2u + t], 0u);
    }
    workgroupBarrier();
    return vec2(before, countOneBits(low) + countOneBits(high));
}

@compute @workgroup_size(LIGHT_WORKGROUP_SIZE)
fn column_lights(@builtin(workgroup_id) tile: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let column = column_bounds(tile.xy);
    let index = tile_index(tile.xy);
    let capacity = column_capacity();
    let first = tiles() + index * capacity;
    let slots = light_slots();
    var written = 0u;
    var parity = 0u;
    for (var base = 0u; base < slots; base += LIGHT_WORKGROUP_SIZE) {
        let i = base + t;
        let hit = i < slots && light_touches_column(view_lights[i], column);
        let rank = rank_hits(hit, t, parity);
        let place = written + rank.x;
        if hit && place < capacity {
            column_lists[first + place] = i;
        }
        written += rank.y;
        parity = 1u - parity;
    }
    if t == 0u {
        column_lists[index] = written;
    }
}

@compute @workgroup_size(LIGHT_WORKGROUP_SIZE)
fn count_lights(@builtin(workgroup_id) cluster: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let bounds = cluster_bounds(cluster);
    let candidates = cluster_candidates(cluster.xy, t);
    var count = 0u;
    for (var i = t; i < candidates.y; i += LIGHT_WORKGROUP_SIZE) {
        if light_touches_cluster(view_lights[candidate_slot(candidates, i)], bounds) {
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
    // The column lists' statistics, a share of the tiles each.
    let capacity_per_column = column_capacity();
    for (var tile = t; tile < tiles(); tile += SCAN_WORKGROUP_SIZE) {
        let lights = column_lists[min(tile, arrayLength(&column_lists) - 1u)];
        atomicAdd(&full_columns, u32(lights > capacity_per_column));
        atomicMax(&longest_column, lights);
    }
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
        cluster_ranges[count + 2u] = vec2(atomicLoad(&full_columns), atomicLoad(&longest_column));
    }
}

@compute @workgroup_size(LIGHT_WORKGROUP_SIZE)
fn fill_lists(@builtin(workgroup_id) cluster: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let range = cluster_ranges[cluster_index(cluster)];
    let bounds = cluster_bounds(cluster);
    let candidates = cluster_candidates(cluster.xy, t);
    var written = 0u;
    var parity = 0u;
    for (var base = 0u; base < candidates.y; base += LIGHT_WORKGROUP_SIZE) {
        let i = base + t;
        var slot = 0u;
        var hit = false;
        if i < candidates.y {
            slot = candidate_slot(candidates, i);
            hit = light_touches_cluster(view_lights[slot], bounds);
        }
        let rank = rank_hits(hit, t, parity);
        let place = written + rank.x;
        if hit && place < range.y {
            light_indices[range.x + place] = slot;
        }
        written += rank.y;
        parity = 1u - parity;
    }
}
