// The camera's share for the compute rasteriser (src/passes/compute_raster/
// says why the cull pass decides it): an instance it takes is listed for
// compute_raster.wgsl's classify instead of being counted into its draw
// key, so the hardware visibility pass never sees it, neither its
// instance nor its vertices. Included by cull.wgsl after its bindings,
// projection.wgsl and lod.wgsl (frame, meshes, counters,
// visible_instances, header_word, instance_region).

// Instances whose NDC box reaches beyond this stay hardware (keeps the
// raster's fixed-point coordinates far inside 32 bits).
const GUARD_NDC: i32 = 4;
// Triangles per raster item (twin: gpu_types::ITEM_TRIANGLES).
const ITEM_TRIANGLES: u32 = 16u;

// Whether the compute rasteriser takes an instance of batch value `batch`
// with world sphere `sphere`: it is on (frame.raster.z, the threshold in
// pixels, above 0), the instance is of the opaque or double-sided bucket
// with an opaque material (the raster has no alpha test), its sphere's box
// lies wholly in front of the near plane (the raster does not clip) and
// inside the guard band, and spans fewer than the threshold's pixels.
fn raster_takes(batch: u32, sphere: vec4<f32>) -> bool {
    let bucket = batch >> BUCKET_SHIFT;
    if !(frame.raster.z > 0.0) || bucket > BUCKET_DOUBLE_SIDED || (batch & BATCH_MASKED) != 0u {
        return false;
    }
    var lo: vec3<f32>;
    var hi: vec3<f32>;
    if !sphere_ndc_box(frame.clip_from_world, sphere, &lo, &hi) || lo.z <= 0.0 {
        return false;
    }
    let guard = vec2(f32(GUARD_NDC));
    if any(abs(lo.xy) > guard) || any(abs(hi.xy) > guard) {
        return false;
    }
    let extent = (hi.xy - lo.xy) * 0.5 * frame.raster.xy;
    return max(extent.x, extent.y) < frame.raster.z;
}

// Lists object slot `i` (batch `batch`, drawing mesh slot `mesh`, world
// sphere `sphere`) for the compute rasteriser where it takes it and the
// instance's raster items fit in frame.raster.w: the camera's visible list
// from its end down (header raster_instances long; the hardware entries
// fill it from the start, and each instance is in one of both), its items
// reserved in raster_items. False where it stays hardware.
fn raster_list(i: u32, batch: u32, mesh: u32, sphere: vec4<f32>) -> bool {
    if !raster_takes(batch, sphere) {
        return false;
    }
    let items = (meshes[mesh].index_count / 3u + ITEM_TRIANGLES - 1u) / ITEM_TRIANGLES;
    let capacity = u32(frame.raster.w);
    let reserved = header_word(0u, HEADER_RASTER_ITEMS);
    // Once full, no more atomics (and the counter cannot wrap).
    if items == 0u || items > capacity || atomicLoad(&counters[reserved]) > capacity - items {
        return false;
    }
    let first = atomicAdd(&counters[reserved], items);
    if first > capacity - items {
        return false;
    }
    let n = atomicAdd(&counters[header_word(0u, HEADER_RASTER_INSTANCES)], 1u);
    visible_instances[instance_region() - 1u - n] = i;
    return true;
}
