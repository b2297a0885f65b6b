// The cull pass's blend sort (included by cull.wgsl): one workgroup
// bitonic-sorts the camera's visible blended instances far to near and
// writes one draw per instance in that order (at most BLEND_SORT_CAP; see
// cull.wgsl's overview).

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
        sort_keys[0] = min(atomicLoad(&counters[blend_length_index()]), BLEND_SORT_CAP);
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
            sort_keys[i] = atomicLoad(&counters[start + 2u * i]);
            sort_slots[i] = atomicLoad(&counters[start + 2u * i + 1u]);
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
            let object = visible_instances[min(slot, instance_region() - 1u)];
            let o = min(object, arrayLength(&instance_batch) - 1u);
            let mesh = lod_mesh(instance_batch[o] & MESH_MASK, instance_bounds[o], mesh_count);
            if mesh < mesh_count {
                command = DrawIndexedIndirect(meshes[mesh].index_count, 1u, meshes[mesh].first_index, 0, slot);
            }
        }
        draws[first + i] = command;
    }
    if local == 0u {
        atomicStore(&counters[header_word(0u, HEADER_SORTED_BLEND_DRAWS)], n);
        atomicAdd(&counters[header_word(0u, HEADER_DRAW_COUNT)], n);
    }
}
