// Cluster culling (src/passes/cluster_cull.rs; the clusters:
// src/geometry/clusters.rs): after each of the camera's cull dispatches,
// every instance the camera kept in the opaque and double-sided buckets
// expands to its mesh's clusters; each cluster is tested and each one
// kept becomes one indirect draw of its index range, one instance, whose
// first_instance is the instance's entry in the camera's visible list (the
// draw-identity rule of draw.wgsl holds: instance_slot -> visible list ->
// object). Blended instances keep the cull pass's draws (their order is
// the blend order).
//
// Threads share the camera's visible list: with V visible entries and T
// threads dispatched, each entry gets spread = max(T / V, 1) consecutive
// threads, each taking an equal share of the entry's clusters (the host
// dispatches more threads where a cluster-LOD mesh has instances:
// ClusterCullPass::record). Per cluster, in this order:
//   frustum   the cluster's world sphere against the camera's planes;
//   cone      the normal cone against the camera position brought into
//             object space (back-facing is kept by any affine map of
//             positive determinant, so the object-space test is exact
//             for scaled and sheared instances); skipped for the
//             double-sided bucket and mirrored instances (determinant
//             <= 0);
//   occlusion the late phase only: the world sphere against the depth
//             pyramid of the early depth (occlusion.wgsl's test). The
//             early phase keeps the instance-level bits: a cluster of an
//             instance drawn early is not tested.
// Before these, an instance of a cluster-LOD mesh keeps only the clusters
// of its cut (cluster_lod.wgsl); the others are neither tested nor counted.
// Skinned instances (bind-pose clusters do not bound the pose) draw their
// whole mesh in one draw, as do meshes without clusters. Without indirect
// count (tiers B and C, FRAME_FLAG_UNCOMPACTED_DRAWS) every draw must fit
// the triangle filter's packing, so a skinned instance instead draws each
// cluster of its mesh (a cluster-LOD mesh: of level 0), untested.
//
// Each thread counts its survivors per bucket, the workgroup adds them up
// in shared memory, one global atomic per workgroup and bucket reserves
// their draws, and a second pass over the clusters writes them. The
// statistics (clusters tested, culled by frustum, cone and occlusion,
// drawn, triangles drawn) are summed per workgroup, then added once.

#include "types.wgsl"

const WORKGROUP_SIZE: u32 = 256u;
// instance_batch value of a free object slot.
const NO_MESH: u32 = 0xffffffffu;
// Object.skin of an unskinned object (twin: gpu_types::NO_SKIN).
const NO_SKIN: u32 = 0xffffffffu;
// Twin: gpu_types::CULL_PHASE_LATE.
const CULL_PHASE_LATE: u32 = 2u;

// The words of cluster_draws (twin: GpuClusterStats, then the draws):
// the header, then per cluster bucket (opaque, double-sided) a region of
// `capacity` DrawIndexedIndirect of 5 words.
const CLUSTER_HEADER_WORDS: u32 = 16u;
const STAT_DRAWS: u32 = 0u;
const STAT_TESTED: u32 = 2u;
const STAT_FRUSTUM: u32 = 3u;
const STAT_CONE: u32 = 4u;
const STAT_OCCLUDED: u32 = 5u;
const STAT_DRAWN: u32 = 6u;
const STAT_TRIANGLES_LO: u32 = 7u;
const STAT_TRIANGLES_HI: u32 = 8u;
const STAT_WHOLE_MESHES: u32 = 9u;
const DRAW_WORDS: u32 = 5u;
const CLUSTER_BUCKETS: u32 = 2u;
// Word of the camera's CullHeader.visible_instances in its counters
// (twin: the offset of GpuCullHeader::visible_instances / 4).
const HEADER_VISIBLE_INSTANCES: u32 = 1u;

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var<storage, read> instance_batch: array<u32>;
@group(0) @binding(2) var<storage, read> objects: array<Object>;
@group(0) @binding(3) var<storage, read> meshes: array<Mesh>;
@group(0) @binding(4) var<storage, read> clusters: array<Cluster>;
// The camera's region of the cull pass's counters and visible list.
@group(0) @binding(5) var<storage, read> cull_counters: array<u32>;
@group(0) @binding(6) var<storage, read> visible_instances: array<u32>;
@group(0) @binding(7) var<storage, read_write> cluster_draws: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read> cluster_lods: array<ClusterLod>;
@group(1) @binding(0) var<uniform> cull_phase: CullPhase;
@group(1) @binding(1) var depth_pyramid: texture_2d<f32>;
@group(1) @binding(2) var pyramid_sampler: sampler;

#include "frustum.wgsl"
#include "projection.wgsl"
#include "occlusion.wgsl"
#include "lod.wgsl"
#include "cluster_lod.wgsl"

var<workgroup> local_draws: array<atomic<u32>, CLUSTER_BUCKETS>;
var<workgroup> base_draws: array<u32, CLUSTER_BUCKETS>;
var<workgroup> local_stats: array<atomic<u32>, 6>;

// What one visible entry draws.
struct Instance {
    // Bucket 0 or 1; CLUSTER_BUCKETS: nothing (blended, free, none).
    bucket: u32,
    mesh: u32,
    world_from_object: mat4x4<f32>,
    // Largest axis scale (world radius of a unit object-space radius).
    scale: f32,
    // The camera in object space.
    camera: vec3<f32>,
    cone: bool,
    // Skinned (tier A), or a mesh without clusters: one whole-mesh draw.
    whole: bool,
    // Skinned without indirect count: every cluster drawn, untested.
    untested: bool,
    // A cluster-LOD mesh: its clusters are every level's, cut per frame.
    lod_cut: bool,
}

fn instance(entry: u32) -> Instance {
    var out: Instance;
    out.bucket = CLUSTER_BUCKETS;
    let visible = min(cull_counters[HEADER_VISIBLE_INSTANCES], arrayLength(&visible_instances));
    if entry >= visible {
        return out;
    }
    let slot = visible_instances[entry];
    if slot >= min(arrayLength(&instance_batch), arrayLength(&objects)) {
        return out;
    }
    let batch = instance_batch[slot];
    let bucket = batch >> BUCKET_SHIFT;
    let mesh_count = min(frame.mesh_count, arrayLength(&meshes));
    if batch == NO_MESH || bucket >= CLUSTER_BUCKETS || (batch & MESH_MASK) >= mesh_count {
        return out;
    }
    let object = objects[slot];
    let m = object.world_from_object;
    let a = m[0].xyz;
    let b = m[1].xyz;
    let c = m[2].xyz;
    out.scale = max(length(a), max(length(b), length(c)));
    // The LOD level the cull pass chose (the same function of the same
    // inputs: the instance's world sphere).
    let sphere = meshes[batch & MESH_MASK].bounding_sphere;
    let world = vec4((m * vec4(sphere.xyz, 1.0)).xyz, sphere.w * out.scale);
    out.mesh = lod_mesh(batch & MESH_MASK, world, mesh_count);
    out.bucket = bucket;
    out.world_from_object = m;
    // Inverse of the linear part by cofactors: rows (b x c, c x a, a x b)
    // over the determinant.
    let det = dot(a, cross(b, c));
    let d = frame.camera_position.xyz - m[3].xyz;
    out.camera = vec3(dot(cross(b, c), d), dot(cross(c, a), d), dot(cross(a, b), d)) / det;
    out.cone = bucket == BUCKET_OPAQUE && det > 0.0;
    let first = meshes[out.mesh].first_cluster;
    let count = meshes[out.mesh].cluster_count;
    let skinned = object.skin != NO_SKIN;
    out.untested = skinned && (frame.flags & FRAME_FLAG_UNCOMPACTED_DRAWS) != 0u;
    out.whole = (skinned && !out.untested) || count == 0u || first + count > arrayLength(&clusters);
    // (A skinned cluster-LOD instance is whole: level 0, the mesh's range.)
    out.lod_cut = meshes[out.mesh].cluster_lod != 0u;
    return out;
}

// Whether cluster c is in the instance's cut (a skinned instance's:
// level 0, as its whole-mesh draw on tier A).
fn in_cut(inst: Instance, c: u32) -> bool {
    if !inst.lod_cut {
        return true;
    }
    if inst.untested {
        return c < arrayLength(&cluster_lods) && cluster_lods[c].level == 0u;
    }
    return in_lod_cut(inst.world_from_object, inst.scale, c);
}

// 0: drawn; 1: outside the frustum; 2: back-facing; 3: occluded.
fn cluster_verdict(inst: Instance, cluster: Cluster) -> u32 {
    if inst.untested {
        return 0u;
    }
    let s = cluster.bounding_sphere;
    let sphere = vec4((inst.world_from_object * vec4(s.xyz, 1.0)).xyz, s.w * inst.scale);
    if !sphere_in_frustum(sphere) {
        return 1u;
    }
    if inst.cone && dot(normalize(cluster.cone_apex - inst.camera), cluster.cone_axis) >= cluster.cone_cutoff {
        return 2u;
    }
    if cull_phase.phase == CULL_PHASE_LATE && sphere_occluded(frame.clip_from_world, sphere) {
        return 3u;
    }
    return 0u;
}

fn region_words() -> u32 {
    return (arrayLength(&cluster_draws) - CLUSTER_HEADER_WORDS) / CLUSTER_BUCKETS;
}

fn write_draw(bucket: u32, draw: u32, index_count: u32, first_index: u32, entry: u32) {
    if draw >= region_words() / DRAW_WORDS {
        return;
    }
    let at = CLUSTER_HEADER_WORDS + bucket * region_words() + draw * DRAW_WORDS;
    atomicStore(&cluster_draws[at], index_count);
    atomicStore(&cluster_draws[at + 1u], 1u);
    atomicStore(&cluster_draws[at + 2u], first_index);
    atomicStore(&cluster_draws[at + 3u], 0u);
    atomicStore(&cluster_draws[at + 4u], entry);
}

@compute @workgroup_size(256)
fn cull_clusters(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if local < CLUSTER_BUCKETS {
        atomicStore(&local_draws[local], 0u);
    }
    if local < 6u {
        atomicStore(&local_stats[local], 0u);
    }
    workgroupBarrier();

    let thread = (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
    let visible = min(cull_counters[HEADER_VISIBLE_INSTANCES], arrayLength(&visible_instances));
    let spread = max(workgroups.x * workgroups.y * WORKGROUP_SIZE / max(visible, 1u), 1u);
    let entry = thread / spread;
    let part = thread % spread;
    var inst = instance(entry);
    let mesh_first = meshes[min(inst.mesh, arrayLength(&meshes) - 1u)].first_cluster;
    let mesh_count = meshes[min(inst.mesh, arrayLength(&meshes) - 1u)].cluster_count;
    // This thread's share of the entry's clusters (a whole mesh: part 0).
    let share = (mesh_count + spread - 1u) / spread;
    let first = mesh_first + min(part * share, mesh_count);
    let count = min(share, mesh_count - min(part * share, mesh_count));
    if part > 0u && (inst.whole || count == 0u) {
        inst.bucket = CLUSTER_BUCKETS;
    }
    // Count: survivors, and the statistics.
    var drawn = 0u;
    var tested = 0u;
    var culled = vec3(0u);
    var triangles = 0u;
    if inst.bucket < CLUSTER_BUCKETS && inst.whole {
        drawn = 1u;
        triangles = meshes[inst.mesh].index_count / 3u;
    } else if inst.bucket < CLUSTER_BUCKETS {
        for (var c = first; c < first + count; c++) {
            if !in_cut(inst, c) {
                continue;
            }
            let cluster = clusters[c];
            let verdict = cluster_verdict(inst, cluster);
            if verdict == 0u {
                drawn += 1u;
                triangles += cluster.index_count / 3u;
            } else {
                culled[verdict - 1u] += 1u;
            }
            tested += 1u;
        }
    }
    var local_first = 0u;
    if drawn > 0u {
        local_first = atomicAdd(&local_draws[inst.bucket], drawn);
    }
    if inst.bucket < CLUSTER_BUCKETS {
        if !inst.whole {
            atomicAdd(&local_stats[0], tested);
        } else {
            atomicAdd(&local_stats[4], 1u);
        }
        atomicAdd(&local_stats[1], culled.x);
        atomicAdd(&local_stats[2], culled.y);
        atomicAdd(&local_stats[3], culled.z);
        atomicAdd(&local_stats[5], triangles);
    }
    workgroupBarrier();
    if local < CLUSTER_BUCKETS {
        let total = atomicLoad(&local_draws[local]);
        if total > 0u {
            base_draws[local] = atomicAdd(&cluster_draws[STAT_DRAWS + local], total);
            atomicAdd(&cluster_draws[STAT_DRAWN], total);
        }
    }
    if local == 0u {
        let tested = atomicLoad(&local_stats[0]);
        if tested > 0u {
            atomicAdd(&cluster_draws[STAT_TESTED], tested);
        }
        atomicAdd(&cluster_draws[STAT_FRUSTUM], atomicLoad(&local_stats[1]));
        atomicAdd(&cluster_draws[STAT_CONE], atomicLoad(&local_stats[2]));
        atomicAdd(&cluster_draws[STAT_OCCLUDED], atomicLoad(&local_stats[3]));
        atomicAdd(&cluster_draws[STAT_WHOLE_MESHES], atomicLoad(&local_stats[4]));
        let added = atomicLoad(&local_stats[5]);
        let before = atomicAdd(&cluster_draws[STAT_TRIANGLES_LO], added);
        if before + added < before {
            atomicAdd(&cluster_draws[STAT_TRIANGLES_HI], 1u);
        }
    }
    workgroupBarrier();
    if drawn == 0u {
        return;
    }

    // Write: the same verdicts again, survivors at the reserved draws.
    var draw = base_draws[inst.bucket] + local_first;
    if inst.whole {
        write_draw(inst.bucket, draw, meshes[inst.mesh].index_count, meshes[inst.mesh].first_index, entry);
        return;
    }
    for (var c = first; c < first + count; c++) {
        if !in_cut(inst, c) {
            continue;
        }
        let cluster = clusters[c];
        if cluster_verdict(inst, cluster) == 0u {
            write_draw(inst.bucket, draw, cluster.index_count, cluster.first_index, entry);
            draw += 1u;
        }
    }
}
