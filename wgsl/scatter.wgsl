// The cull pass's scatter (included by cull.wgsl): each visible instance
// goes to its key's range start + rank in each view's visible list, the
// camera's sorted blended ones also to the blend list. A rank counted in a
// local key (cull_instances' shared-memory counts) is the instance's place
// among its workgroup's instances of that key: the workgroup's base for
// the key is added here.

// scatter_visible's range starts of the local keys (cull_instances' key
// space), each plus this workgroup's base for the key: loaded once per
// workgroup with coalesced reads. Every visible instance reading its start
// from the atomic counters took 0.1 ms of the 4M cull on the H200.
// Tier C's variant (NO_SHARED_STARTS) reads every start and base from
// memory: no barrier, which llvmpipe's GL compile needs.
#if !NO_SHARED_STARTS
var<workgroup> range_starts: array<u32, LOCAL_KEYS>;
#endif

// The start of key `key`'s range in view `view`'s visible list.
fn global_range_start(view: u32, key: u32, key_count: u32) -> u32 {
    return atomicLoad(&counters[key_word(view, key_count + key)]);
}

// Where the instances of local key `k` (view-major over keys.view_keys)
// that workgroup `run` counted start in their view's visible list.
fn local_range_start(keys: KeySpace, key_count: u32, run: u32, k: u32) -> u32 {
    let start = global_range_start(k / keys.view_keys, k % keys.view_keys, key_count);
    return start + instance_rank[workgroup_base_word(run, k)];
}

// The start of the range of view `view`'s key `key` for workgroup `run`'s
// instances.
fn range_start(keys: KeySpace, key_count: u32, run: u32, view: u32, key: u32) -> u32 {
    let k = view * keys.view_keys + key;
    if k < keys.local_keys {
#if NO_SHARED_STARTS
        return local_range_start(keys, key_count, run, k);
#else
        return range_starts[k];
#endif
    }
    return global_range_start(view, key, key_count);
}

// Writes instance `i` at its key's range start + rank in each view that
// keeps it (its batch, and with LOD its bounds, read only if one does);
// the camera's blended ones also go to the blend list while `sorted`.
fn scatter_instance(i: u32, keys: KeySpace, run: u32, sorted: bool) {
    let key_count = BUCKETS * keys.mesh_count * DEPTH_BUCKETS;
    var pipeline = BUCKETS;
    var draw_slot = 0u;
    for (var v = 0u; v < keys.views; v++) {
        let packed = instance_rank[v * keys.region + i];
        if packed == INVISIBLE {
            continue;
        }
        if pipeline == BUCKETS {
            let batch = instance_batch[i];
            var mesh = batch & MESH_MASK;
            if (frame.flags & FRAME_FLAG_LOD) != 0u {
                mesh = lod_mesh(mesh, instance_bounds[i], keys.mesh_count);
            }
            pipeline = batch >> BUCKET_SHIFT;
            draw_slot = pipeline * keys.mesh_count + mesh;
        }
        let key = draw_slot * DEPTH_BUCKETS + (packed >> RANK_BITS);
        let slot = range_start(keys, key_count, run, v, key) + (packed & RANK_MASK);
        if slot >= keys.region {
            continue;
        }
        visible_instances[v * keys.region + slot] = i;
        // The camera's blended instances, with exact sorting this frame:
        // into the blend list, keyed by the distance of the centre from the
        // near plane, at their place in the blend bucket's range (dense
        // from 0: no atomic counter).
        if v == 0u && pipeline == BUCKET_BLEND && sorted {
            let near = frame.frustum_planes[4];
            let distance = max(dot(near.xyz, instance_bounds[i].xyz) + near.w, 0.0);
            let blend_start = global_range_start(0u, BUCKET_BLEND * keys.mesh_count * DEPTH_BUCKETS, key_count);
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
    let keys = key_space();
    let key_count = BUCKETS * keys.mesh_count * DEPTH_BUCKETS;
    let run = workgroup_run(workgroup, workgroups);
#if !NO_SHARED_STARTS
    for (var k = local; k < keys.local_keys; k += WORKGROUP_SIZE) {
        range_starts[k] = local_range_start(keys, key_count, run, k);
    }
    workgroupBarrier();
#endif
    let sorted = atomicLoad(&counters[header_word(0u, HEADER_SORTED_BLEND_DRAWS)]) > 0u;
    let per_thread = instances_per_thread(workgroups);
    let first = flat_index(workgroup, workgroups, 0u) * per_thread + local;
    let end = min(frame.instance_count, keys.region);
    for (var n = 0u; n < per_thread; n++) {
        let i = first + n * WORKGROUP_SIZE;
        if i < end {
            scatter_instance(i, keys, run, sorted);
        }
    }
}
