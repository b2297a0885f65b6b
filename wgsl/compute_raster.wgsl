// The compute rasteriser of the visibility buffer (src/passes/compute_raster/
// says where it runs and why): small instances' triangles rasterised by
// compute into 64-bit depth-and-id values, then resolved into the
// visibility pass's id target and depth.
//
//   reset      one thread: the item counter and the raster dispatch's
//              arguments (x 0, y 1, z 1).
//   classify   one thread per instance the cull pass listed for the
//              compute rasteriser (cull_raster.wgsl: from the end of the
//              camera's visible list down, cull_header.raster_instances of
//              them; the hardware draws do not hold them): its drawn
//              mesh's (its LOD level's) index range cut into raster items
//              of ITEM_TRIANGLES triangles. The cull pass reserved room for
//              every listed instance's items, so all fit.
//   clear      (texture path) one thread per pixel: the R64Uint target to
//              0 (the buffer path clears with clear_buffer).
//   raster     two items per workgroup of 32 (grid-stride over the
//              items), one thread per triangle: pulled as the vertex stage pulls it,
//              back faces culled unless double-sided, snapped to 1/256
//              pixel, covered pixel centres found by integer edge
//              functions with the top-left fill rule, depth interpolated
//              linearly in screen space, and the atomic max of
//              (~depth bits) << 32 | ~id kept per pixel.
//   fs_resolve full-screen, inside the visibility render pass: each
//              pixel's value, where set, written as the pass's id (object
//              slot + 1, arena triangle) with its depth, depth-tested
//              against the hardware raster's.
//
// Value: 0 means empty. Nearer (smaller) depth has larger ~depth bits
// (non-negative floats order as their bits), so the atomic max keeps the
// nearest, and at equal depth the smallest id. id = item << 4 | triangle
// within the item (4 bits).
//
// Fill rule (top-left, as D3D and Vulkan state it): a pixel centre exactly
// on an edge is covered only if the edge is a left edge (its inward normal
// points to +x) or a top edge (horizontal, the triangle below it on the
// y-down grid), so a centre on an edge shared by two triangles is covered
// by exactly one.

#include "types.wgsl"

// Twin: gpu_types::GpuRasterParams.
struct RasterParams {
    // The target's size in pixels.
    size: vec2<u32>,
    // Items the item buffer holds.
    capacity: u32,
    _pad: u32,
}

// Triangles per item (the id's low 4 bits; twin: gpu_types::ITEM_TRIANGLES;
// cull_raster.wgsl reserves them): one thread each, and ITEMS_PER_GROUP
// items per workgroup of 32 threads (a warp on most GPUs), so that a mesh
// of 12 triangles (a cube) keeps 24 of a warp's 32 threads busy, not 12.
const ITEM_TRIANGLES: u32 = 16u;
const ITEM_SHIFT: u32 = 4u;
const ITEMS_PER_GROUP: u32 = 2u;
// An item's z: its triangle count, and this bit for double-sided.
const ITEM_COUNT_MASK: u32 = 0xffu;
const ITEM_DOUBLE_SIDED: u32 = 0x100u;
// Most workgroups of the raster dispatch (the items are strided over them).
const MAX_GROUPS: u32 = 65535u;
// Sub-pixel units per pixel of the snapped coordinates.
const SUBPIXEL: i32 = 256;
// Boxes narrower than this (in sub-pixel units: 64 pixels) take the 32-bit
// path: products of coordinates within the box stay under 2^29.
const SMALL_BOX: i32 = 16384;

@group(0) @binding(0) var<uniform> params: RasterParams;
@group(0) @binding(1) var<uniform> frame: FrameUniforms;
@group(0) @binding(2) var<storage, read> counts: TableCounts;
@group(0) @binding(3) var<storage, read> vertices: array<Vertex>;
@group(0) @binding(4) var<storage, read> objects: array<Object>;
@group(0) @binding(5) var<storage, read> materials: array<Material>;
// The camera's visible list: the listed instances at its end.
@group(0) @binding(6) var<storage, read> visible_instances: array<u32>;
@group(0) @binding(7) var<storage, read> meshes: array<Mesh>;
@group(0) @binding(8) var<storage, read> cull_header: CullHeader;
@group(0) @binding(9) var<storage, read> instance_bounds: array<vec4<f32>>;
// The items (object slot, first arena triangle, count | flags, 0): written
// by classify, read by raster and the resolve.
@group(0) @binding(10) var<storage, read_write> items_out: array<vec4<u32>>;
@group(0) @binding(11) var<storage, read> items: array<vec4<u32>>;
// Words 0-2: the raster dispatch's arguments; 3: items appended.
@group(0) @binding(12) var<storage, read_write> counter: array<atomic<u32>, 4>;
@group(0) @binding(13) var<storage, read> counter_read: array<u32, 4>;
@group(0) @binding(14) var<storage, read> deform: array<vec4<u32>>;
@group(0) @binding(15) var<storage, read> arena_indices: array<u32>;
// pull.wgsl's pull_vertex reads it; no entry point here calls that.
@group(0) @binding(18) var<storage, read> draws: array<DrawIndexedIndirect>;
#if R64_TEXTURE
@group(0) @binding(16) var raster_target: texture_storage_2d<r64uint, atomic>;
@group(0) @binding(17) var raster_texels: texture_storage_2d<r64uint, read>;
#else
@group(0) @binding(16) var<storage, read_write> raster_target: array<atomic<u64>>;
@group(0) @binding(17) var<storage, read> raster_values: array<vec2<u32>>;
#endif

// As heap.wgsl's (this module binds no heap).
fn checked_index(i: u32, live: u32) -> u32 {
    return select(0u, i, i < live);
}

#include "pull.wgsl"
#include "lod.wgsl"

@compute @workgroup_size(1)
fn reset() {
    atomicStore(&counter[0], 0u);
    atomicStore(&counter[1], 1u);
    atomicStore(&counter[2], 1u);
    atomicStore(&counter[3], 0u);
}

// Raster items for the instance listed `k`-th.
fn classify_instance(k: u32) {
    let object = visible_instances[arrayLength(&visible_instances) - 1u - k];
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    if object >= arrayLength(&objects) || mesh_count == 0u {
        return;
    }
    let sphere = instance_bounds[min(object, arrayLength(&instance_bounds) - 1u)];
    // The level the cull pass chose (lod.wgsl: the same inputs).
    let mesh = meshes[min(lod_mesh(objects[object].mesh, sphere, mesh_count), mesh_count - 1u)];
    let triangles = mesh.index_count / 3u;
    let n = (triangles + ITEM_TRIANGLES - 1u) / ITEM_TRIANGLES;
    let first = atomicAdd(&counter[3], n);
    let capacity = min(params.capacity, arrayLength(&items_out));
    if n == 0u || first >= capacity || n > capacity - first {
        // Not reached (the cull pass reserved room for every listed
        // instance's items); the range inside the buffer holds empty items.
        for (var i = first; i < min(first + n, capacity); i++) {
            items_out[i] = vec4(0u);
        }
        return;
    }
    let material = materials[min(objects[object].material, arrayLength(&materials) - 1u)];
    let flags = select(0u, ITEM_DOUBLE_SIDED, (material.flags & MATERIAL_FLAG_DOUBLE_SIDED) != 0u);
    let first_triangle = mesh.first_index / 3u;
    for (var k = 0u; k < n; k++) {
        let count = min(ITEM_TRIANGLES, triangles - k * ITEM_TRIANGLES);
        items_out[first + k] = vec4(object, first_triangle + k * ITEM_TRIANGLES, count | flags, 0u);
    }
    atomicMax(&counter[0], min((first + n + ITEMS_PER_GROUP - 1u) / ITEMS_PER_GROUP, MAX_GROUPS));
}

@compute @workgroup_size(256)
fn classify(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let listed = min(cull_header.raster_instances, arrayLength(&visible_instances));
    for (var k = id.x; k < listed; k += groups.x * 256u) {
        classify_instance(k);
    }
}

#if R64_TEXTURE
@compute @workgroup_size(8, 8)
fn clear(@builtin(global_invocation_id) id: vec3<u32>) {
    if all(id.xy < params.size) {
        textureAtomicMin(raster_target, id.xy, 0lu);
    }
}

fn keep_nearest(pixel: vec2<u32>, value: u64) {
    textureAtomicMax(raster_target, pixel, value);
}

fn raster_value(pixel: vec2<u32>) -> vec2<u32> {
    let v = textureLoad(raster_texels, pixel).x;
    return vec2(u32(v & 0xfffffffflu), u32(v >> 32u));
}
#else
fn keep_nearest(pixel: vec2<u32>, value: u64) {
    atomicMax(&raster_target[pixel.y * params.size.x + pixel.x], value);
}

fn raster_value(pixel: vec2<u32>) -> vec2<u32> {
    return raster_values[min(pixel.y * params.size.x + pixel.x, arrayLength(&raster_values) - 1u)];
}
#endif

// Corner `k` of arena triangle `triangle` of object slot `object` in clip
// space, pulled (morphed, skinned) and transformed as the vertex stage's
// surface_vertex (surface.wgsl) does.
fn corner_clip(object: u32, triangle: u32, k: u32) -> vec4<f32> {
    let last = arrayLength(&arena_indices) - 1u;
    let pulled = pull_object_vertex(object, arena_indices[min(triangle * 3u + k, last)]);
    let v = pulled.vertex;
    let world_position = pulled.object.world_from_object * vec4(v.position[0], v.position[1], v.position[2], 1.0);
    return frame.clip_from_world * world_position;
}

// A clip-space corner on the y-down pixel grid, in 1/256 pixels.
fn snapped(clip: vec4<f32>) -> vec2<i32> {
    let ndc = clip.xy / clip.w;
    let size = vec2<f32>(params.size);
    let screen = vec2(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * size;
    return vec2<i32>(round(screen * f32(SUBPIXEL)));
}

// Twice the signed area of (a, b, p) on the grid: positive where p lies to
// the inside of edge a -> b of a triangle of positive area.
fn edge_function(a: vec2<i32>, b: vec2<i32>, p: vec2<i32>) -> i64 {
    return i64(b.x - a.x) * i64(p.y - a.y) - i64(b.y - a.y) * i64(p.x - a.x);
}

// 0 where a centre exactly on edge a -> b is covered (a top or left
// edge), else 1 (the edge function must then be at least 1).
fn edge_bias(a: vec2<i32>, b: vec2<i32>) -> i64 {
    let d = b - a;
    let top_left = d.y < 0 || (d.y == 0 && d.x > 0);
    return select(1li, 0li, top_left);
}

fn raster_triangle(item: u32, local: u32, it: vec4<u32>) {
    let triangle = it.y + local;
    let c0 = corner_clip(it.x, triangle, 0u);
    var c1 = corner_clip(it.x, triangle, 1u);
    var c2 = corner_clip(it.x, triangle, 2u);
    if min(c0.w, min(c1.w, c2.w)) <= 0.0 {
        return;
    }
    let p0 = snapped(c0);
    var p1 = snapped(c1);
    var p2 = snapped(c2);
    var area = edge_function(p0, p1, p2);
    // Front faces (counter-clockwise in NDC) have negative area on the
    // y-down grid.
    let double_sided = (it.z & ITEM_DOUBLE_SIDED) != 0u;
    if area == 0li || (area > 0li && !double_sided) {
        return;
    }
    if area < 0li {
        let p = p1;
        p1 = p2;
        p2 = p;
        let c = c1;
        c1 = c2;
        c2 = c;
        area = -area;
    }
    let z = vec3(c0.z / c0.w, c1.z / c1.w, c2.z / c2.w);
    let lo = min(p0, min(p1, p2));
    let hi = max(p0, max(p1, p2));
    let half = SUBPIXEL / 2;
    // Pixels whose centre (x * 256 + 128) lies in the box.
    let first = max((lo - half + 255) >> vec2(8u), vec2(0));
    let last = min((hi - half) >> vec2(8u), vec2<i32>(params.size) - 1);
    let id = ~((item << ITEM_SHIFT) | local);
    if all(hi - lo < vec2(SMALL_BOX)) {
        raster_small(array(p0 - lo, p1 - lo, p2 - lo), lo, first, last, z, id);
        return;
    }
    let bias = vec3(edge_bias(p1, p2), edge_bias(p2, p0), edge_bias(p0, p1));
    // The edge functions at the first pixel centre, stepped per pixel.
    let start = first * SUBPIXEL + half;
    var row = vec3(edge_function(p1, p2, start), edge_function(p2, p0, start), edge_function(p0, p1, start));
    let step_x = vec3(i64(p1.y - p2.y), i64(p2.y - p0.y), i64(p0.y - p1.y)) * i64(SUBPIXEL);
    let step_y = vec3(i64(p2.x - p1.x), i64(p0.x - p2.x), i64(p1.x - p0.x)) * i64(SUBPIXEL);
    for (var y = first.y; y <= last.y; y++) {
        var w = row;
        for (var x = first.x; x <= last.x; x++) {
            if all(w >= bias) {
                let l = vec3(f32(w.x), f32(w.y), f32(w.z)) / f32(area);
                let depth = clamp(dot(l, z), 0.0, 1.0);
                let value = (u64(~bitcast<u32>(depth)) << 32u) | u64(id);
                keep_nearest(vec2(u32(x), u32(y)), value);
            }
            w += step_x;
        }
        row += step_y;
    }
}

// As edge_function, in i32: exact for points of a box under SMALL_BOX
// (each product under 2^29).
fn edge_small(a: vec2<i32>, b: vec2<i32>, p: vec2<i32>) -> i32 {
    return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// As edge_bias, for edge_small.
fn edge_bias_small(a: vec2<i32>, b: vec2<i32>) -> i32 {
    let d = b - a;
    return select(1, 0, d.y < 0 || (d.y == 0 && d.x > 0));
}

// The pixels `first` to `last` of a triangle whose box spans fewer than
// SMALL_BOX sub-pixel units: its corners `q` relative to the box's corner
// `origin`, so that the edge functions fit i32 and step by additions; the
// same values as the 64-bit path's.
fn raster_small(q: array<vec2<i32>, 3>, origin: vec2<i32>, first: vec2<i32>, last: vec2<i32>, z: vec3<f32>, id: u32) {
    let area = f32(edge_small(q[0], q[1], q[2]));
    let bias = vec3(edge_bias_small(q[1], q[2]), edge_bias_small(q[2], q[0]), edge_bias_small(q[0], q[1]));
    let start = first * SUBPIXEL + SUBPIXEL / 2 - origin;
    var row = vec3(edge_small(q[1], q[2], start), edge_small(q[2], q[0], start), edge_small(q[0], q[1], start));
    let step_x = vec3(q[1].y - q[2].y, q[2].y - q[0].y, q[0].y - q[1].y) * SUBPIXEL;
    let step_y = vec3(q[2].x - q[1].x, q[0].x - q[2].x, q[1].x - q[0].x) * SUBPIXEL;
    for (var y = first.y; y <= last.y; y++) {
        var w = row;
        for (var x = first.x; x <= last.x; x++) {
            if all(w >= bias) {
                let l = vec3<f32>(w) / area;
                let depth = clamp(dot(l, z), 0.0, 1.0);
                let value = (u64(~bitcast<u32>(depth)) << 32u) | u64(id);
                keep_nearest(vec2(u32(x), u32(y)), value);
            }
            w += step_x;
        }
        row += step_y;
    }
}

@compute @workgroup_size(32)
fn raster(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let total = min(counter_read[3], min(params.capacity, arrayLength(&items)));
    let slot = local / ITEM_TRIANGLES;
    let lane = local % ITEM_TRIANGLES;
    for (var item = group.x * ITEMS_PER_GROUP + slot; item < total; item += groups.x * ITEMS_PER_GROUP) {
        let it = items[item];
        if lane < (it.z & ITEM_COUNT_MASK) {
            raster_triangle(item, lane, it);
        }
    }
}

// One triangle covering the target.
@vertex
fn vs_resolve(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let corner = vec2(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4(corner * vec2(2.0, -2.0) + vec2(-1.0, 1.0), 0.0, 1.0);
}

struct Resolved {
    @location(0) id: vec2<u32>,
    @builtin(frag_depth) depth: f32,
}

// Marks an id written by the late occlusion phase (twin:
// gpu_types::VISIBILITY_LATE).
const VISIBILITY_LATE: u32 = 0x80000000u;
// Marks every id the resolve writes: the compute rasteriser drew the pixel
// (twin: gpu_types::VISIBILITY_COMPUTE; the material pass's raster view).
const VISIBILITY_COMPUTE: u32 = 0x40000000u;

fn resolve(position: vec4<f32>, late: bool) -> Resolved {
    let v = raster_value(vec2<u32>(position.xy));
    var out: Resolved;
    out.id = vec2(0u);
    out.depth = 1.0;
    if v.x == 0u && v.y == 0u {
        return out;
    }
    let id = ~v.x;
    let it = items[min(id >> ITEM_SHIFT, arrayLength(&items) - 1u)];
    let triangle = it.y + (id & (ITEM_TRIANGLES - 1u));
    out.id = vec2(it.x + 1u, triangle | VISIBILITY_COMPUTE | select(0u, VISIBILITY_LATE, late));
    out.depth = bitcast<f32>(~v.y);
    return out;
}

@fragment
fn fs_resolve(@builtin(position) position: vec4<f32>) -> Resolved {
    let out = resolve(position, false);
    if out.id.x == 0u {
        discard;
    }
    return out;
}

@fragment
fn fs_resolve_late(@builtin(position) position: vec4<f32>) -> Resolved {
    let out = resolve(position, true);
    if out.id.x == 0u {
        discard;
    }
    return out;
}
