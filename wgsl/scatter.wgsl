// The cull pass's scatter (included by cull.wgsl): each visible instance
// goes to its key's range start + rank in each view's visible list, the
// camera's sorted blended ones also to the blend list.

// scatter_visible's copy of the first LOCAL_KEYS range starts (over all
// views, view-major), loaded once per workgroup with coalesced reads: every
// visible instance reading its start from the atomic counters took 0.1 ms
// of the 4M cull on the H200.
// Tier C's variant (NO_SHARED_STARTS) reads every start from the
// counters: no barrier, which llvmpipe's GL compile needs.
#if !NO_SHARED_STARTS
var<workgroup> range_starts: array<u32, LOCAL_KEYS>;
#endif

// The start of key `key`'s range in view `view`'s visible list.
fn range_start(view: u32, key: u32, key_count: u32) -> u32 {
#if !NO_SHARED_STARTS
    let cached = view * key_count + key;
    if cached < min(view_count() * key_count, LOCAL_KEYS) {
        return range_starts[cached];
    }
#endif
    return atomicLoad(&counters[key_word(view, key_count + key)]);
}

// Writes instance `i` at its key's range start + rank in each view that
// keeps it (its batch, and with LOD its bounds, read only if one does);
// the camera's blended ones also go to the blend list while `sorted`.
fn scatter_instance(i: u32, mesh_count: u32, sorted: bool) {
    let region = instance_region();
    let key_count = BUCKETS * mesh_count * DEPTH_BUCKETS;
    var pipeline = BUCKETS;
    var draw_slot = 0u;
    for (var v = 0u; v < view_count(); v++) {
        let packed = instance_rank[v * region + i];
        if packed == INVISIBLE {
            continue;
        }
        if pipeline == BUCKETS {
            let batch = instance_batch[i];
            var mesh = batch & MESH_MASK;
            if (frame.flags & FRAME_FLAG_LOD) != 0u {
                mesh = lod_mesh(mesh, instance_bounds[i], mesh_count);
            }
            pipeline = batch >> BUCKET_SHIFT;
            draw_slot = pipeline * mesh_count + mesh;
        }
        let key = draw_slot * DEPTH_BUCKETS + (packed >> RANK_BITS);
        let slot = range_start(v, key, key_count) + (packed & RANK_MASK);
        if slot >= region {
            continue;
        }
        visible_instances[v * region + slot] = i;
        // The camera's blended instances, with exact sorting this frame:
        // into the blend list, keyed by the distance of the centre from the
        // near plane, at their place in the blend bucket's range (dense
        // from 0: no atomic counter).
        if v == 0u && pipeline == BUCKET_BLEND && sorted {
            let near = frame.frustum_planes[4];
            let distance = max(dot(near.xyz, instance_bounds[i].xyz) + near.w, 0.0);
            let blend_start = range_start(0u, BUCKET_BLEND * mesh_count * DEPTH_BUCKETS, key_count);
            let entry = slot - blend_start;
            if entry < BLEND_SORT_CAP {
                let at = blend_list_start() + 2u * entry;
                atomicStore(&counters[at], bitcast<u32>(distance));
                atomicStore(&counters[at + 1u], slot);
            }
        }
    }
}

// Over the same runs of instances as cull_instances (at most
// CULL_MAX_WORKGROUPS workgroups).
@compute @workgroup_size(256)
fn scatter_visible(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
#if !NO_SHARED_STARTS
    let key_count = BUCKETS * mesh_count * DEPTH_BUCKETS;
    let cached = min(view_count() * key_count, LOCAL_KEYS);
    for (var k = local; k < cached; k += WORKGROUP_SIZE) {
        range_starts[k] = atomicLoad(&counters[key_word(k / key_count, key_count + k % key_count)]);
    }
    workgroupBarrier();
#endif
    let sorted = atomicLoad(&counters[header_word(0u, HEADER_SORTED_BLEND_DRAWS)]) > 0u;
    let per_thread = instances_per_thread(workgroups);
    let first = flat_index(workgroup, workgroups, 0u) * per_thread + local;
    let end = min(frame.instance_count, instance_region());
    for (var n = 0u; n < per_thread; n++) {
        let i = first + n * WORKGROUP_SIZE;
        if i < end {
            scatter_instance(i, mesh_count, sorted);
        }
    }
}
