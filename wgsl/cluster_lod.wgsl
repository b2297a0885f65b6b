// Cluster LOD's per-frame cut (src/geometry/cluster_lod.rs; its in_cut is
// the CPU twin). Included by cluster_cull.wgsl after its bindings (frame,
// cluster_lods). A cluster of a cluster-LOD mesh is drawn iff the bounds
// of the group that made it fit and those of the group it was merged
// into do not; a group's bounds are the same floats on both sides and
// go through the one function lod_fits, so exactly one side of every
// group is drawn (no crack, no overlap). With LOD off, level 0: the
// mesh's own clusters.

// Whether bounds (object-space sphere, error) of an instance fit, seen
// from the cull camera: error * scale * k <= distance to the nearest
// point of the world sphere (0 inside). Twin: cluster_lod::lod_fits.
fn lod_fits(m: mat4x4<f32>, scale: f32, sphere: vec4<f32>, error: f32) -> bool {
    let center = (m * vec4(sphere.xyz, 1.0)).xyz;
    let distance = max(length(center - frame.lod.xyz) - sphere.w * scale, 0.0);
    return error * scale * frame.lod.w <= distance;
}

// Whether cluster `c` of a cluster-LOD mesh is in the instance's cut.
fn in_lod_cut(m: mat4x4<f32>, scale: f32, c: u32) -> bool {
    if c >= arrayLength(&cluster_lods) {
        return false;
    }
    let lod = cluster_lods[c];
    if (frame.flags & FRAME_FLAG_LOD) == 0u {
        return lod.level == 0u;
    }
    return lod_fits(m, scale, lod.own_sphere, lod.own_error)
        && !lod_fits(m, scale, lod.parent_sphere, lod.parent_error);
}
