// GPU culling and draw building: the GPU decides what is drawn.
//
// Three dispatches in one compute pass, four with blended objects (see
// src/passes/cull.rs):
//   cull_instances   one thread per object slot: frustum test of the world
//                    bounding sphere. A visible instance falls into one of
//                    DEPTH_BUCKETS buckets by distance from the near plane
//                    (reversed for blended instances: far to near) and takes
//                    the next rank in its (pipeline bucket, mesh, depth) key: counted
//                    per workgroup in shared memory, then added to the global
//                    counter once per workgroup and key.
//   build_draws      one workgroup: prefix sums over the keys give each key
//                    a range of the visible list; every (pipeline bucket,
//                    mesh) with a visible instance gets one DrawIndexedIndirect
//                    over its depth buckets' ranges, compacted into its
//                    pipeline bucket's region of `draws` (opaque, double-sided,
//                    blended), with per-bucket draw counts in the header.
//   scatter_visible  one thread per object slot: writes the object index at
//                    the key's range start + rank; blended ones also go to
//                    the blend list with their exact depth.
//   sort_blended     one workgroup, only while blended objects exist: bitonic
//                    sort of the blend list far to near, one draw per
//                    blended instance in that order (at most BLEND_SORT_CAP
//                    visible; beyond, build_draws keeps the per-mesh blended
//                    draws, far to near by depth bucket).
// So each instanced draw runs roughly front to back and early depth testing
// rejects most hidden fragments. Order within one key follows the atomic
// ranks; with depth testing it reaches the image only where two instances
// produce fragments of identical depth.

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

struct CullCounters {
    header: CullHeader,
    // A draw slot is (pipeline bucket, mesh): slot = bucket * mesh_count + mesh.
    // key = slot * DEPTH_BUCKETS + depth, K = BUCKETS * mesh_count * DEPTH_BUCKETS:
    // [0, K): visible instances per key; [K, 2K): start of each key's range.
    // The last BLEND_TAIL entries: the blend list's length, one spare, then
    // BLEND_SORT_CAP (depth key, visible slot) pairs.
    key_data: array<atomic<u32>>,
}

const BLEND_TAIL: u32 = 2u + 2u * BLEND_SORT_CAP;

fn blend_list_start() -> u32 {
    return arrayLength(&counters.key_data) - 2u * BLEND_SORT_CAP;
}

fn blend_length_index() -> u32 {
    return arrayLength(&counters.key_data) - BLEND_TAIL;
}

// The bucket regions of `draws` (the sorted blended draws follow them).
fn draw_region() -> u32 {
    return (arrayLength(&draws) - BLEND_SORT_CAP) / BUCKETS;
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var<storage, read> counts: TableCounts;
@group(0) @binding(2) var<storage, read> instance_bounds: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> instance_batch: array<u32>;
@group(0) @binding(4) var<storage, read> meshes: array<Mesh>;
@group(0) @binding(5) var<storage, read_write> counters: CullCounters;
@group(0) @binding(6) var<storage, read_write> instance_rank: array<u32>;
@group(0) @binding(7) var<storage, read_write> visible_instances: array<u32>;
@group(0) @binding(8) var<storage, read_write> draws: array<DrawIndexedIndirect>;

#include "frustum.wgsl"

// Dispatches are 2D when one dimension would pass 65,535 workgroups.
fn flat_index(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
}


// Keys below this are counted per workgroup in shared memory first, then
// added to the global counters once per (workgroup, key): far fewer global
// atomics on the same few addresses. Higher keys count globally at once.
const LOCAL_KEYS: u32 = 1024u;
var<workgroup> local_counts: array<atomic<u32>, LOCAL_KEYS>;
var<workgroup> local_bases: array<u32, LOCAL_KEYS>;

// Bucket 0 nearest: square root of the normalised distance between the near
// and far planes (finer buckets close to the camera).
fn depth_bucket(center: vec3<f32>) -> u32 {
    let near = frame.frustum_planes[4];
    let far = frame.frustum_planes[5];
    let from_near = max(dot(near.xyz, center) + near.w, 0.0);
    let to_far = max(dot(far.xyz, center) + far.w, 0.0);
    let t = from_near / max(from_near + to_far, 1e-6);
    return min(u32(sqrt(t) * f32(DEPTH_BUCKETS)), DEPTH_BUCKETS - 1u);
}

@compute @workgroup_size(256)
fn cull_instances(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    // Keys are bucket-major: only buckets up to the last one in use occur.
    var buckets_in_use = 0u;
    for (var b = 0u; b < BUCKETS; b++) {
        if ((frame.flags >> (FRAME_FLAG_BUCKET_SHIFT + b)) & 1u) != 0u {
            buckets_in_use = b + 1u;
        }
    }
    let local_keys = min(buckets_in_use * mesh_count * DEPTH_BUCKETS, LOCAL_KEYS);
    for (var k = local; k < local_keys; k += WORKGROUP_SIZE) {
        atomicStore(&local_counts[k], 0u);
    }
    workgroupBarrier();

    let i = flat_index(workgroup, workgroups, local);
    let in_range = i < min(frame.instance_count, arrayLength(&instance_rank));
    var visible = false;
    var key = 0u;
    var depth = 0u;
    if in_range {
        let batch = instance_batch[i];
        let mesh = batch & MESH_MASK;
        let pipeline = batch >> BUCKET_SHIFT;
        let sphere = instance_bounds[i];
        visible = batch != NO_MESH && pipeline < BUCKETS && mesh < mesh_count
            && meshes[mesh].index_count > 0u && sphere_in_frustum(sphere);
        depth = depth_bucket(sphere.xyz);
        // Blended instances run far to near.
        if pipeline == BUCKET_BLEND {
            depth = DEPTH_BUCKETS - 1u - depth;
        }
        key = ((pipeline * mesh_count) + mesh) * DEPTH_BUCKETS + depth;
    }
    let counted_locally = visible && key < local_keys;
    var rank = 0u;
    if counted_locally {
        rank = atomicAdd(&local_counts[key], 1u);
    } else if visible {
        rank = atomicAdd(&counters.key_data[key], 1u);
    }
    workgroupBarrier();

    for (var k = local; k < local_keys; k += WORKGROUP_SIZE) {
        let count = atomicLoad(&local_counts[k]);
        if count > 0u {
            local_bases[k] = atomicAdd(&counters.key_data[k], count);
        }
    }
    workgroupBarrier();

    if in_range {
        if counted_locally {
            rank += local_bases[key];
        }
        let packed = (depth << RANK_BITS) | min(rank, RANK_MASK - 1u);
        instance_rank[i] = select(INVISIBLE, packed, visible);
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
fn build_draws(@builtin(local_invocation_index) local: u32) {
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
            visible += atomicLoad(&counters.key_data[s * DEPTH_BUCKETS + d]);
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
            atomicStore(&counters.key_data[key_count + key], offset);
            offset += atomicLoad(&counters.key_data[key]);
        }
        let visible = offset - start;
        let bucket = s / mesh_count;
        let in_use = ((frame.flags >> (FRAME_FLAG_BUCKET_SHIFT + bucket)) & 1u) != 0u;
        let sorted_apart = bucket == BUCKET_BLEND && sort_blended;
        let instances_here = select(visible, 0u, sorted_apart);
        let write = select(visible > 0u || (uncompacted && in_use), uncompacted && in_use, sorted_apart);
        if write && draw[bucket] < per_bucket {
            let mesh = meshes[s % mesh_count];
            draws[bucket * per_bucket + draw[bucket]] =
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
        counters.header.draw_count = totals.x + totals.y + select(totals.z, 0u, sort_blended);
        counters.header.bucket_draws[0] = totals.x;
        counters.header.bucket_draws[1] = totals.y;
        counters.header.bucket_draws[2] = totals.z;
        counters.header.sorted_blend_draws = select(0u, blended, sort_blended);
        counters.header.visible_instances = scan_instances[local];
        counters.header.triangles_lo = sum_triangles[local].x;
        counters.header.triangles_hi = sum_triangles[local].y;
    }
}

@compute @workgroup_size(256)
fn scatter_visible(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = flat_index(workgroup, workgroups, local);
    if i >= min(frame.instance_count, arrayLength(&instance_rank)) {
        return;
    }
    let packed = instance_rank[i];
    if packed == INVISIBLE {
        return;
    }
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    let batch = instance_batch[i];
    let draw_slot = (batch >> BUCKET_SHIFT) * mesh_count + (batch & MESH_MASK);
    let key = draw_slot * DEPTH_BUCKETS + (packed >> RANK_BITS);
    let key_count = BUCKETS * mesh_count * DEPTH_BUCKETS;
    let slot = atomicLoad(&counters.key_data[key_count + key]) + (packed & RANK_MASK);
    if slot < arrayLength(&visible_instances) {
        visible_instances[slot] = i;
        // Blended, with exact sorting this frame: into the blend list, keyed
        // by the distance of its centre from the near plane.
        if (batch >> BUCKET_SHIFT) == BUCKET_BLEND && counters.header.sorted_blend_draws > 0u {
            let near = frame.frustum_planes[4];
            let distance = max(dot(near.xyz, instance_bounds[i].xyz) + near.w, 0.0);
            let entry = atomicAdd(&counters.key_data[blend_length_index()], 1u);
            if entry < BLEND_SORT_CAP {
                let at = blend_list_start() + 2u * entry;
                atomicStore(&counters.key_data[at], bitcast<u32>(distance));
                atomicStore(&counters.key_data[at + 1u], slot);
            }
        }
    }
}

// Exactly the 16 KiB of workgroup memory every device offers.
var<workgroup> sort_keys: array<u32, BLEND_SORT_CAP>;
var<workgroup> sort_slots: array<u32, BLEND_SORT_CAP>;

// a goes before b: farther first; equal depths by visible slot.
fn farther_first(key_a: u32, slot_a: u32, key_b: u32, slot_b: u32) -> bool {
    return key_a > key_b || (key_a == key_b && slot_a < slot_b);
}

@compute @workgroup_size(256)
fn sort_blended(@builtin(local_invocation_index) local: u32) {
    // The list's length, passed through sort_keys[0] (no workgroup memory is
    // left for a variable of its own) so that it is uniform across the
    // workgroup and the loops below may hold barriers.
    if local == 0u {
        sort_keys[0] = min(atomicLoad(&counters.key_data[blend_length_index()]), BLEND_SORT_CAP);
    }
    let n = workgroupUniformLoad(&sort_keys[0]);
    workgroupBarrier();
    var size = 1u;
    while size < n {
        size *= 2u;
    }
    let start = blend_list_start();
    for (var i = local; i < size; i += WORKGROUP_SIZE) {
        if i < n {
            sort_keys[i] = atomicLoad(&counters.key_data[start + 2u * i]);
            sort_slots[i] = atomicLoad(&counters.key_data[start + 2u * i + 1u]);
        } else {
            // Padding sorts last: nearest possible, largest slot.
            sort_keys[i] = 0u;
            sort_slots[i] = 0xffffffffu;
        }
    }
    workgroupBarrier();
    // Bitonic sort of `size` (a power of two) entries.
    for (var k = 2u; k <= size; k *= 2u) {
        for (var j = k / 2u; j > 0u; j /= 2u) {
            for (var i = local; i < size; i += WORKGROUP_SIZE) {
                let partner = i ^ j;
                if partner > i {
                    let ascending = (i & k) == 0u;
                    let a_first = farther_first(sort_keys[i], sort_slots[i], sort_keys[partner], sort_slots[partner]);
                    if a_first != ascending {
                        let key = sort_keys[i];
                        let slot = sort_slots[i];
                        sort_keys[i] = sort_keys[partner];
                        sort_slots[i] = sort_slots[partner];
                        sort_keys[partner] = key;
                        sort_slots[partner] = slot;
                    }
                }
            }
            workgroupBarrier();
        }
    }
    // One draw per blended instance, farthest first, after the bucket
    // regions; unused entries draw nothing (plain multi-draw reads them all).
    let first = draw_region() * BUCKETS;
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    for (var i = local; i < BLEND_SORT_CAP; i += WORKGROUP_SIZE) {
        var command = DrawIndexedIndirect(0u, 0u, 0u, 0, 0u);
        if i < n {
            let slot = sort_slots[i];
            let object = visible_instances[min(slot, arrayLength(&visible_instances) - 1u)];
            let mesh = instance_batch[min(object, arrayLength(&instance_batch) - 1u)] & MESH_MASK;
            if mesh < mesh_count {
                command = DrawIndexedIndirect(meshes[mesh].index_count, 1u, meshes[mesh].first_index, 0, slot);
            }
        }
        draws[first + i] = command;
    }
    if local == 0u {
        counters.header.sorted_blend_draws = n;
        counters.header.draw_count += n;
    }
}
