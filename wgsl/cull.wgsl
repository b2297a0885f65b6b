// GPU culling and draw building: the GPU decides what is drawn.
//
// Three dispatches in one compute pass (see src/passes/cull.rs):
//   cull_instances   one thread per object slot: frustum test of the world
//                    bounding sphere; a visible instance takes the next rank
//                    among its mesh's visible instances (atomic counter).
//   build_draws      one workgroup: prefix sums over the per-mesh counts give
//                    each mesh a range of the visible list, and every mesh
//                    with a visible instance one DrawIndexedIndirect
//                    (compacted, in mesh order) whose first_instance is the
//                    start of that range.
//   scatter_visible  one thread per object slot: writes the object index at
//                    range start + rank.
// Draw order within one mesh follows the atomic ranks; with depth testing it
// reaches the image only where two instances produce fragments of identical
// depth.

#include "types.wgsl"

const WORKGROUP_SIZE: u32 = 256u;
const INVISIBLE: u32 = 0xffffffffu;
// instance_batch value of a free object slot.
const NO_MESH: u32 = 0xffffffffu;

struct CullCounters {
    header: CullHeader,
    // [0, mesh_count): visible instances per mesh;
    // [mesh_count, 2 * mesh_count): start of each mesh's range.
    mesh_data: array<atomic<u32>>,
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

// Dispatches are 2D when one dimension would pass 65,535 workgroups.
fn flat_index(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
}

// True when the sphere is at least partly inside every frustum plane.
fn sphere_in_frustum(sphere: vec4<f32>) -> bool {
    var inside = true;
    for (var p = 0u; p < 6u; p++) {
        let plane = frame.frustum_planes[p];
        inside = inside && (dot(plane.xyz, sphere.xyz) + plane.w >= -sphere.w);
    }
    return inside;
}

@compute @workgroup_size(256)
fn cull_instances(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = flat_index(workgroup, workgroups, local);
    if i >= min(frame.instance_count, arrayLength(&instance_rank)) {
        return;
    }
    let mesh = instance_batch[i];
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    var rank = INVISIBLE;
    if mesh < mesh_count && meshes[mesh].index_count > 0u
        && sphere_in_frustum(instance_bounds[i]) {
        rank = atomicAdd(&counters.mesh_data[mesh], 1u);
    }
    instance_rank[i] = rank;
}

var<workgroup> scan_instances: array<u32, WORKGROUP_SIZE>;
var<workgroup> scan_draws: array<u32, WORKGROUP_SIZE>;
var<workgroup> sum_triangles: array<vec2<u32>, WORKGROUP_SIZE>;

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
    let per_thread = (mesh_count + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    let first = min(local * per_thread, mesh_count);
    let end = min(first + per_thread, mesh_count);

    let uncompacted = (frame.flags & FRAME_FLAG_UNCOMPACTED_DRAWS) != 0u;
    var instances = 0u;
    var draw_count = 0u;
    var triangles = vec2(0u, 0u);
    for (var m = first; m < end; m++) {
        let visible = atomicLoad(&counters.mesh_data[m]);
        instances += visible;
        draw_count += select(0u, 1u, visible > 0u || uncompacted);
        triangles = add_wide(triangles, mul_wide(visible, meshes[m].index_count / 3u));
    }
    scan_instances[local] = instances;
    scan_draws[local] = draw_count;
    sum_triangles[local] = triangles;
    workgroupBarrier();

    // Inclusive Hillis-Steele scans; the triangle sum is a plain reduction.
    for (var stride = 1u; stride < WORKGROUP_SIZE; stride *= 2u) {
        var add_instances = 0u;
        var add_draws = 0u;
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

    var offset = scan_instances[local] - instances;
    var draw = scan_draws[local] - draw_count;
    let max_draws = arrayLength(&draws);
    for (var m = first; m < end; m++) {
        let visible = atomicLoad(&counters.mesh_data[m]);
        atomicStore(&counters.mesh_data[mesh_count + m], offset);
        if (visible > 0u || uncompacted) && draw < max_draws {
            let mesh = meshes[m];
            draws[draw] = DrawIndexedIndirect(mesh.index_count, visible, mesh.first_index, 0, offset);
            draw += 1u;
        }
        offset += visible;
    }
    if local == WORKGROUP_SIZE - 1u {
        counters.header.draw_count = min(scan_draws[local], max_draws);
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
    let rank = instance_rank[i];
    if rank == INVISIBLE {
        return;
    }
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    let slot = atomicLoad(&counters.mesh_data[mesh_count + instance_batch[i]]) + rank;
    if slot < arrayLength(&visible_instances) {
        visible_instances[slot] = i;
    }
}
