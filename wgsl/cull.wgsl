// GPU culling and draw building: the GPU decides what is drawn, for the
// camera, every shadow cascade and every shadowed spot light at once.
//
// Views: view 0 is the camera (frame.frustum_planes), views 1 to
// shadows.cascade_count the sun's shadow cascades (shadows.cascade_planes),
// then shadows.spot_count spot lights' views (shadows.spot_planes).
// Every output buffer holds one region per view, of equal size: counters
// (the view's CullHeader as words, its keys' counts and range starts, and
// view 0's blend list), instance ranks, the visible list and the draws.
//
// Three dispatches in one compute pass, four with blended objects (see
// src/passes/cull.rs):
//   cull_instances   one thread per object slot, reading its bounds and
//                    batch once: the world bounding sphere is tested against
//                    every view (a cascade without its near plane, which
//                    faces the sun: casters between the cascade and the sun
//                    cast into it; a spot's view with all six; blended
//                    objects cast no shadows). In each
//                    view that keeps it, the instance falls into one of
//                    DEPTH_BUCKETS buckets by distance from the view's near
//                    plane (reversed for blended instances: far to near) and
//                    takes the next rank in its (view, pipeline bucket, mesh,
//                    depth) key: counted per workgroup in shared memory,
//                    then added to the global counter once per workgroup and
//                    key.
//   build_draws      one workgroup per view: prefix sums over the keys give
//                    each key a range of the view's visible list; every
//                    (pipeline bucket, mesh) with a visible instance gets one
//                    DrawIndexedIndirect over its depth buckets' ranges,
//                    compacted into its pipeline bucket's region of the
//                    view's draws (opaque, double-sided, blended), with
//                    per-bucket draw counts in the view's header.
//   scatter_visible  one thread per object slot: writes the object index at
//                    the key's range start + rank in each view that keeps
//                    it; the camera's blended ones also go to the blend list
//                    with their exact depth.
//   sort_blended     one workgroup, only while blended objects exist: bitonic
//                    sort of the camera's blend list far to near, one draw
//                    per blended instance in that order (at most
//                    BLEND_SORT_CAP visible; beyond, build_draws keeps the
//                    per-mesh blended draws, far to near by depth bucket).
// So each instanced draw runs roughly front to back and early depth testing
// rejects most hidden fragments.
//
// Occlusion culling (src/passes/occlusion.rs) runs the same four dispatches
// twice a frame, told apart by `cull_phase` (group 1):
//   CULL_PHASE_FRUSTUM  frustum tests only (occlusion off).
//   CULL_PHASE_EARLY    the camera keeps an instance only if its
//                       visibility bit (last frame's verdict) is set and it
//                       is not blended; cascades as ever, or with
//                       FRAME_FLAG_CASCADE_OCCLUSION only the casters their
//                       own bits kept last frame.
//   CULL_PHASE_LATE     one view alone (cull_phase.view: the camera, or a
//                       cascade), into buffers of its own: every instance
//                       in its frustum is tested against the depth
//                       pyramid of its early phase's depth (occlusion.wgsl);
//                       those not hidden and not drawn early are kept (all
//                       blended ones not hidden, so they are sorted and
//                       drawn last), the hidden ones counted, and each
//                       instance's bit set to "in the frustum, not hidden".
// In every phase the camera (alone) drops instances covering no sample
// (small_objects.wgsl), and lists those the compute rasteriser takes apart
// from its draws (cull_raster.wgsl). Order within one key follows the atomic ranks; with
// depth testing it reaches the image only where two instances produce
// fragments of identical depth. With LOD on (lod.wgsl), an instance's key
// and draw use its chosen level's mesh slot in every view (the camera's
// choice).

#include "types.wgsl"

const WORKGROUP_SIZE: u32 = 256u;
const INVISIBLE: u32 = 0xffffffffu;
// instance_batch value of a free object slot.
const NO_MESH: u32 = 0xffffffffu;
// Depth buckets per mesh (front-to-back order within its draw).
const DEPTH_BUCKETS: u32 = 16u;
// instance_rank packs the bucket in the top 4 bits and the rank below, so
// at most 2^28 - 1 instances per key.
const RANK_BITS: u32 = 28u;
const RANK_MASK: u32 = 0x0fffffffu;
// The camera, every cascade and every shadowed spot light.
const MAX_VIEWS: u32 = 1u + MAX_CASCADES + MAX_SPOT_SHADOWS;
// The cascade plane casters are not tested against: the near one, facing
// the sun (twin: shadows::CASCADE_NEAR_PLANE).
const CASCADE_NEAR_PLANE: u32 = 4u;

// A view's counters region, in u32 words: its CullHeader (the fields at
// these words, twins: GpuCullHeader's offsets / 4), then key_data.
// A draw slot is (pipeline bucket, mesh): slot = bucket * mesh_count + mesh.
// key = slot * DEPTH_BUCKETS + depth, K = BUCKETS * mesh_count * DEPTH_BUCKETS:
// key_data [0, K): visible instances per key; [K, 2K): start of each key's
// range. The region's last BLEND_TAIL words (view 0's are used): the blend
// list's length, one spare, then BLEND_SORT_CAP (depth key, visible slot)
// pairs.
const HEADER_WORDS: u32 = 12u;
const HEADER_DRAW_COUNT: u32 = 0u;
const HEADER_VISIBLE_INSTANCES: u32 = 1u;
const HEADER_TRIANGLES_LO: u32 = 2u;
const HEADER_TRIANGLES_HI: u32 = 3u;
const HEADER_BUCKET_DRAWS: u32 = 4u;
const HEADER_SORTED_BLEND_DRAWS: u32 = 7u;
const HEADER_OCCLUDED_INSTANCES: u32 = 8u;
const HEADER_SMALL_INSTANCES: u32 = 9u;
const HEADER_RASTER_INSTANCES: u32 = 10u;
const HEADER_RASTER_ITEMS: u32 = 11u;

const BLEND_TAIL: u32 = 2u + 2u * BLEND_SORT_CAP;

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
// One bit per object slot: visible to the camera last frame (occlusion).
@group(0) @binding(1) var<storage, read_write> visibility: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> instance_bounds: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> instance_batch: array<u32>;
@group(0) @binding(4) var<storage, read> meshes: array<Mesh>;
@group(0) @binding(5) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> instance_rank: array<u32>;
@group(0) @binding(7) var<storage, read_write> visible_instances: array<u32>;
@group(0) @binding(8) var<storage, read_write> draws: array<DrawIndexedIndirect>;
@group(0) @binding(9) var<uniform> shadows: ShadowUniforms;
@group(1) @binding(0) var<uniform> cull_phase: CullPhase;
// The late phase's: the early depth's pyramid (a 1 x 1 stand-in otherwise).
@group(1) @binding(1) var depth_pyramid: texture_2d<f32>;
// Nearest in every direction (src/passes/occlusion.rs says why texels are
// sampled at their centres rather than loaded).
@group(1) @binding(2) var pyramid_sampler: sampler;

// Twins: gpu_types::CULL_PHASE_*.
const CULL_PHASE_FRUSTUM: u32 = 0u;
const CULL_PHASE_EARLY: u32 = 1u;
const CULL_PHASE_LATE: u32 = 2u;

#include "frustum.wgsl"
#include "projection.wgsl"
#include "occlusion.wgsl"
#include "small_objects.wgsl"
#include "lod.wgsl"
#include "cull_raster.wgsl"
#include "scatter.wgsl"
#include "blend_sort.wgsl"

// The cascades in use.
fn cascade_count() -> u32 {
    return min(shadows.cascade_count, MAX_CASCADES);
}

// The camera, the cascades and the spots in use (the late phase: the
// camera alone); every buffer holds this many regions.
fn view_count() -> u32 {
    if cull_phase.phase == CULL_PHASE_LATE {
        return 1u;
    }
    return 1u + cascade_count() + min(shadows.spot_count, MAX_SPOT_SHADOWS);
}

// Words of one view's counters region.
fn counter_region() -> u32 {
    return arrayLength(&counters) / view_count();
}

fn header_word(view: u32, field: u32) -> u32 {
    return view * counter_region() + field;
}

fn key_word(view: u32, key: u32) -> u32 {
    return view * counter_region() + HEADER_WORDS + key;
}

// View 0's blend list.
fn blend_list_start() -> u32 {
    return counter_region() - 2u * BLEND_SORT_CAP;
}

fn blend_length_index() -> u32 {
    return counter_region() - BLEND_TAIL;
}

// Entries of one view's instance rank and visible list regions.
fn instance_region() -> u32 {
    return min(arrayLength(&instance_rank), arrayLength(&visible_instances)) / view_count();
}

// Draws of one view's region: BUCKETS bucket regions, then the sorted
// blended draws.
fn view_draws() -> u32 {
    return arrayLength(&draws) / view_count();
}

// Draws of one bucket region.
fn draw_region() -> u32 {
    return (view_draws() - BLEND_SORT_CAP) / BUCKETS;
}

// The view of region `region` of the output buffers: the late phase's one
// view, else the region itself.
fn region_view(region: u32) -> u32 {
    return select(region, cull_phase.view, cull_phase.phase == CULL_PHASE_LATE);
}

// Whether view `view` is a cascade culled by occlusion this frame.
fn cascade_culled_by_occlusion(view: u32) -> bool {
    let on = (frame.flags & FRAME_FLAG_CASCADE_OCCLUSION) != 0u;
    return on && view > 0u && view <= cascade_count();
}

fn view_plane(view: u32, p: u32) -> vec4<f32> {
    if view == 0u {
        return frame.frustum_planes[p];
    }
    if view <= cascade_count() {
        return shadows.cascade_planes[(view - 1u) * 6u + p];
    }
    return shadows.spot_planes[min(view - 1u - cascade_count(), MAX_SPOT_SHADOWS - 1u)][p];
}

// The camera: inside every frustum plane. A cascade: inside every plane of
// its box but the near one (towards the sun). A spot: inside every plane
// of its view.
fn sphere_in_view(view: u32, sphere: vec4<f32>) -> bool {
    if view == 0u {
        return sphere_in_frustum(sphere);
    }
    let cascade = view <= cascade_count();
    var inside = true;
    for (var p = 0u; p < 6u; p++) {
        if p != CASCADE_NEAR_PLANE || !cascade {
            let plane = view_plane(view, p);
            inside = inside && (dot(plane.xyz, sphere.xyz) + plane.w >= -sphere.w);
        }
    }
    return inside;
}

// Dispatches are 2D when one dimension would pass 65,535 workgroups.
fn flat_index(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
}

// Keys below this (over all views: view v's key k is local key
// v * keys per view + k) are counted per workgroup in shared memory first,
// then added to the global counters once per (workgroup, key), and the
// slot then holds the key's base: far fewer global atomics on the same few
// addresses. Higher keys count globally at once.
const LOCAL_KEYS: u32 = 2048u;
var<workgroup> local_counts: array<atomic<u32>, LOCAL_KEYS>;
// Per workgroup: instances the late phase hid; those covering no sample.
var<workgroup> local_hidden: atomic<u32>;
var<workgroup> local_small: atomic<u32>;

// Bucket 0 nearest: square root of the normalised distance between the
// view's near and far planes (finer buckets close to the view).
fn depth_bucket(view: u32, center: vec3<f32>) -> u32 {
    let near = view_plane(view, 4u);
    let far = view_plane(view, 5u);
    let from_near = max(dot(near.xyz, center) + near.w, 0.0);
    let to_far = max(dot(far.xyz, center) + far.w, 0.0);
    let t = from_near / max(from_near + to_far, 1e-6);
    return min(u32(sqrt(t) * f32(DEPTH_BUCKETS)), DEPTH_BUCKETS - 1u);
}

// Counts one instance in local key `k`: its rank among the workgroup's
// instances of the key so far.
fn count_locally(k: u32) -> u32 {
#if SUBGROUPS
    // Where every lane counting here has the same key (neighbouring
    // instances mostly do), they share one atomic; otherwise each counts
    // on its own.
    let leader = subgroupBroadcastFirst(k);
    if subgroupAll(k == leader) {
        let before = subgroupExclusiveAdd(1u);
        let total = subgroupAdd(1u);
        var base = 0u;
        if before == 0u {
            base = atomicAdd(&local_counts[k], total);
        }
        // The first active lane counted for all of them.
        return subgroupBroadcastFirst(base) + before;
    }
    return atomicAdd(&local_counts[k], 1u);
#else
    return atomicAdd(&local_counts[k], 1u);
#endif
}

// The keys in use this frame: view_keys per view, the first local_keys
// of them (over all views) counted in local_counts.
struct KeySpace { views: u32, mesh_count: u32, view_keys: u32, local_keys: u32, region: u32 }

// The instances a cull thread takes: the dispatch holds at most
// CULL_MAX_WORKGROUPS workgroups (src/passes/cull.rs), so each workgroup
// culls a contiguous run of this many times WORKGROUP_SIZE instances, and
// its shared-memory bookkeeping (clearing and flushing local_counts) is
// paid once per run.
fn instances_per_thread(workgroups: vec3<u32>) -> u32 {
    let threads = workgroups.x * workgroups.y * WORKGROUP_SIZE;
    return (min(frame.instance_count, instance_region()) + threads - 1u) / threads;
}

// The first half of culling instance `i`: its verdict in every view and
// its rank there (local ranks completed by finish_instance). Returns
// whether the late phase hid it (bit 0) and whether it covers no sample
// (bit 1).
fn cull_instance(i: u32, keys: KeySpace) -> u32 {
    let batch = instance_batch[i];
    var mesh = batch & MESH_MASK;
    let pipeline = batch >> BUCKET_SHIFT;
    let sphere = instance_bounds[i];
    let drawable = batch != NO_MESH && pipeline < BUCKETS && mesh < keys.mesh_count
        && meshes[mesh].index_count > 0u;
    mesh = lod_mesh(mesh, sphere, keys.mesh_count);
    // The camera's verdict (with occlusion culling, this phase's); covering
    // no sample: dropped, counted once a frame. A cascade's late phase
    // leaves the camera alone.
    var hidden = false;
    let camera_culled = region_view(0u) == 0u;
    let in_frustum = drawable && camera_culled && sphere_in_view(0u, sphere);
    let small = in_frustum && sphere_covers_no_sample(sphere);
    var camera_visible = false;
    if camera_culled {
        camera_visible = camera_keeps(i, in_frustum && !small, pipeline, &hidden);
    }
    // Per region (its view: region_view): depth bucket and rank (INVISIBLE
    // where culled), completed by finish_instance (no per-view array
    // across the barriers: llvmpipe's coroutines made GL's compile of one
    // take minutes).
    for (var v = 0u; v < keys.views; v++) {
        let view = region_view(v);
        // Blended objects cast no shadows.
        let in_view = drawable && pipeline != BUCKET_BLEND && sphere_in_view(view, sphere);
        var visible = select(in_view, camera_visible, view == 0u);
        // The camera's instances the compute rasteriser takes: listed apart.
        if view == 0u && visible && raster_list(i, batch, mesh, sphere) {
            visible = false;
        }
        if cascade_culled_by_occlusion(view) {
            visible = cascade_keeps(i, view, in_view, &hidden);
        }
        var depth = depth_bucket(view, sphere.xyz);
        // Blended instances run far to near.
        if pipeline == BUCKET_BLEND {
            depth = DEPTH_BUCKETS - 1u - depth;
        }
        let key = ((pipeline * keys.mesh_count) + mesh) * DEPTH_BUCKETS + depth;
        let local_index = v * keys.view_keys + key;
        var rank = 0u;
        if visible && local_index < keys.local_keys {
            rank = count_locally(local_index);
        } else if visible {
            rank = atomicAdd(&counters[key_word(v, key)], 1u);
        }
        let entry = (depth << RANK_BITS) | min(rank, RANK_MASK - 1u);
        instance_rank[v * keys.region + i] = select(INVISIBLE, entry, visible);
    }
    let counted_small = small && cull_phase.phase != CULL_PHASE_EARLY;
    return select(0u, 1u, hidden) | select(0u, 2u, counted_small);
}

// The keys in use this frame, the same in cull_instances and
// scatter_visible.
fn key_space() -> KeySpace {
    var keys: KeySpace;
    keys.views = view_count();
    keys.mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    keys.region = instance_region();
    // Keys are bucket-major: only buckets up to the last one in use occur.
    var buckets_in_use = 0u;
    for (var b = 0u; b < BUCKETS; b++) {
        if ((frame.flags >> (FRAME_FLAG_BUCKET_SHIFT + b)) & 1u) != 0u {
            buckets_in_use = b + 1u;
        }
    }
    keys.view_keys = buckets_in_use * keys.mesh_count * DEPTH_BUCKETS;
    keys.local_keys = min(keys.views * keys.view_keys, LOCAL_KEYS);
    return keys;
}

// The index of a cull or scatter workgroup (both dispatch the same).
fn workgroup_run(workgroup: vec3<u32>, workgroups: vec3<u32>) -> u32 {
    return workgroup.y * workgroups.x + workgroup.x;
}

// Where workgroup `workgroup`'s base of local key `k` lies: past the
// views' regions of instance_rank (as long as the visible lists), one
// run of LOCAL_KEYS words per cull workgroup. cull_instances writes the
// bases of the keys its workgroup counted; scatter_visible (the same
// workgroups over the same instances) adds them to the local ranks.
fn workgroup_base_word(workgroup: u32, k: u32) -> u32 {
    return arrayLength(&visible_instances) + workgroup * LOCAL_KEYS + k;
}

@compute @workgroup_size(256)
fn cull_instances(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let keys = key_space();
    for (var k = local; k < keys.local_keys; k += WORKGROUP_SIZE) {
        atomicStore(&local_counts[k], 0u);
    }
    if local == 0u {
        atomicStore(&local_hidden, 0u);
        atomicStore(&local_small, 0u);
    }
    workgroupBarrier();

    // This workgroup's run of instances, WORKGROUP_SIZE apart per thread.
    let per_thread = instances_per_thread(workgroups);
    let first = flat_index(workgroup, workgroups, 0u) * per_thread + local;
    let end = min(frame.instance_count, keys.region);
    var hidden = 0u;
    var small = 0u;
    for (var n = 0u; n < per_thread; n++) {
        let i = first + n * WORKGROUP_SIZE;
        if i < end {
            let flags = cull_instance(i, keys);
            hidden += flags & 1u;
            small += flags >> 1u;
        }
    }
    if hidden > 0u {
        atomicAdd(&local_hidden, hidden);
    }
    if small > 0u {
        atomicAdd(&local_small, small);
    }
    workgroupBarrier();

    // Each local count goes to its global counter once; the base the
    // workgroup's ranks start from goes to its run of workgroup bases.
    let run = workgroup_run(workgroup, workgroups);
    for (var k = local; k < keys.local_keys; k += WORKGROUP_SIZE) {
        let count = atomicLoad(&local_counts[k]);
        if count > 0u {
            let base = atomicAdd(&counters[key_word(k / keys.view_keys, k % keys.view_keys)], count);
            let at = workgroup_base_word(run, k);
            if at < arrayLength(&instance_rank) {
                instance_rank[at] = base;
            }
        }
    }
    if local == 0u {
        let hidden_here = atomicLoad(&local_hidden);
        if hidden_here > 0u {
            atomicAdd(&counters[header_word(0u, HEADER_OCCLUDED_INSTANCES)], hidden_here);
        }
        let small_here = atomicLoad(&local_small);
        if small_here > 0u {
            atomicAdd(&counters[header_word(0u, HEADER_SMALL_INSTANCES)], small_here);
        }
    }
}

var<workgroup> scan_instances: array<u32, WORKGROUP_SIZE>;
var<workgroup> scan_draws: array<vec3<u32>, WORKGROUP_SIZE>;
var<workgroup> sum_triangles: array<vec2<u32>, WORKGROUP_SIZE>;
var<workgroup> blend_visible: atomic<u32>;

// 64-bit product of two u32 as (low, high).
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a_lo = a & 0xffffu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xffffu;
    let b_hi = b >> 16u;
    let lo_lo = a_lo * b_lo;
    let mid1 = a_hi * b_lo;
    let mid2 = a_lo * b_hi;
    let hi_hi = a_hi * b_hi;
    let mid = mid1 + (lo_lo >> 16u);
    let mid_carry = select(0u, 1u, mid < mid1);
    let mid_sum = mid + mid2;
    let mid_sum_carry = select(0u, 1u, mid_sum < mid);
    let low = (mid_sum << 16u) | (lo_lo & 0xffffu);
    let high = hi_hi + (mid_sum >> 16u) + ((mid_carry + mid_sum_carry) << 16u);
    return vec2(low, high);
}

fn add_wide(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let low = a.x + b.x;
    return vec2(low, a.y + b.y + select(0u, 1u, low < a.x));
}

@compute @workgroup_size(256)
fn build_draws(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    // One workgroup per view.
    let view = workgroup.x;
    if view >= view_count() {
        return;
    }
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    let slots = BUCKETS * mesh_count;
    let per_thread = (slots + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    let first = min(local * per_thread, slots);
    let end = min(first + per_thread, slots);

    let uncompacted = (frame.flags & FRAME_FLAG_UNCOMPACTED_DRAWS) != 0u;
    if local == 0u {
        atomicStore(&blend_visible, 0u);
    }
    workgroupBarrier();
    var instances = 0u;
    var draw_count = vec3(0u, 0u, 0u);
    var triangles = vec2(0u, 0u);
    for (var s = first; s < end; s++) {
        var visible = 0u;
        for (var d = 0u; d < DEPTH_BUCKETS; d++) {
            visible += atomicLoad(&counters[key_word(view, s * DEPTH_BUCKETS + d)]);
        }
        instances += visible;
        if s / mesh_count == BUCKET_BLEND {
            atomicAdd(&blend_visible, visible);
        }
        let in_use = ((frame.flags >> (FRAME_FLAG_BUCKET_SHIFT + s / mesh_count)) & 1u) != 0u;
        draw_count[s / mesh_count] += select(0u, 1u, visible > 0u || (uncompacted && in_use));
        triangles = add_wide(triangles, mul_wide(visible, meshes[s % mesh_count].index_count / 3u));
    }
    scan_instances[local] = instances;
    scan_draws[local] = draw_count;
    sum_triangles[local] = triangles;
    workgroupBarrier();

    // Inclusive Hillis-Steele scans; the triangle sum is a plain reduction.
    for (var stride = 1u; stride < WORKGROUP_SIZE; stride *= 2u) {
        var add_instances = 0u;
        var add_draws = vec3(0u, 0u, 0u);
        var add_triangles = vec2(0u, 0u);
        if local >= stride {
            add_instances = scan_instances[local - stride];
            add_draws = scan_draws[local - stride];
            add_triangles = sum_triangles[local - stride];
        }
        workgroupBarrier();
        scan_instances[local] += add_instances;
        scan_draws[local] += add_draws;
        sum_triangles[local] = add_wide(sum_triangles[local], add_triangles);
        workgroupBarrier();
    }

    // Up to BLEND_SORT_CAP visible blended instances are drawn one by one in
    // exact order (sort_blended); then the blend bucket's per-mesh draws are
    // left out (compacted) or empty (uncompacted).
    let blended = atomicLoad(&blend_visible);
    let sort_blended = blended <= BLEND_SORT_CAP;

    // Each bucket's draws go to its own region of `draws`, compacted.
    var offset = scan_instances[local] - instances;
    var draw = scan_draws[local] - draw_count;
    let per_bucket = draw_region();
    let key_count = slots * DEPTH_BUCKETS;
    for (var s = first; s < end; s++) {
        let start = offset;
        for (var d = 0u; d < DEPTH_BUCKETS; d++) {
            let key = s * DEPTH_BUCKETS + d;
            atomicStore(&counters[key_word(view, key_count + key)], offset);
            offset += atomicLoad(&counters[key_word(view, key)]);
        }
        let visible = offset - start;
        let bucket = s / mesh_count;
        let in_use = ((frame.flags >> (FRAME_FLAG_BUCKET_SHIFT + bucket)) & 1u) != 0u;
        let sorted_apart = bucket == BUCKET_BLEND && sort_blended;
        let instances_here = select(visible, 0u, sorted_apart);
        let write = select(visible > 0u || (uncompacted && in_use), uncompacted && in_use, sorted_apart);
        if write && draw[bucket] < per_bucket {
            let mesh = meshes[s % mesh_count];
            draws[view * view_draws() + bucket * per_bucket + draw[bucket]] =
                DrawIndexedIndirect(mesh.index_count, instances_here, mesh.first_index, 0, start);
            draw[bucket] += 1u;
        }
    }
    if local == WORKGROUP_SIZE - 1u {
        var totals = min(scan_draws[local], vec3(per_bucket));
        if sort_blended && !uncompacted {
            totals.z = 0u;
        }
        // sort_blended adds its draws to draw_count.
        let draw_count = totals.x + totals.y + select(totals.z, 0u, sort_blended);
        atomicStore(&counters[header_word(view, HEADER_DRAW_COUNT)], draw_count);
        for (var b = 0u; b < BUCKETS; b++) {
            atomicStore(&counters[header_word(view, HEADER_BUCKET_DRAWS + b)], totals[b]);
        }
        atomicStore(&counters[header_word(view, HEADER_SORTED_BLEND_DRAWS)], select(0u, blended, sort_blended));
        if view == 0u {
            atomicStore(&counters[blend_length_index()], select(0u, blended, sort_blended));
        }
        atomicStore(&counters[header_word(view, HEADER_VISIBLE_INSTANCES)], scan_instances[local]);
        atomicStore(&counters[header_word(view, HEADER_TRIANGLES_LO)], sum_triangles[local].x);
        atomicStore(&counters[header_word(view, HEADER_TRIANGLES_HI)], sum_triangles[local].y);
    }
}

