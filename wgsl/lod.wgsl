// Level of detail (src/lod/; its select_level is the CPU twin): which
// mesh slot an instance draws. Included by cull.wgsl, after its bindings
// (frame, meshes). No loop, no array, no texture: cull_instances holds
// barriers, llvmpipe compiles such a shader as a coroutine, and per-thread
// state in it makes GL's compile explode.

// Distance from the cull camera to the nearest point of the world sphere,
// 0 inside it (twin: lod::lod_distance).
fn lod_distance(sphere: vec4<f32>) -> f32 {
    return max(length(sphere.xyz - frame.lod.xyz) - sphere.w, 0.0);
}

// The level an instance of live mesh slot `mesh` with world sphere
// `sphere` draws: how many of the mesh's levels have
// error * radius * k <= distance (errors are non-decreasing, so that is
// the last level that fits; 0: the mesh itself).
fn lod_level(mesh: u32, sphere: vec4<f32>) -> u32 {
    let levels = min(meshes[mesh].lod_levels, MAX_LOD_LEVELS);
    let projected = meshes[mesh].lod_errors * sphere.w * frame.lod.w;
    let fits = projected <= vec4(lod_distance(sphere));
    let used = vec4(levels) > vec4(0u, 1u, 2u, 3u);
    let counted = vec4<u32>(fits & used);
    return counted.x + counted.y + counted.z + counted.w;
}

// The mesh slot an instance of `mesh` draws: with LOD on, its chosen
// level's entry (the mesh itself at level 0, or where the entry is not a
// live slot below mesh_count).
fn lod_mesh(mesh: u32, sphere: vec4<f32>, mesh_count: u32) -> u32 {
    if (frame.flags & FRAME_FLAG_LOD) == 0u || mesh >= mesh_count {
        return mesh;
    }
    let level = lod_level(mesh, sphere);
    if level == 0u {
        return mesh;
    }
    let slot = meshes[mesh].lod_slots[level - 1u];
    return select(mesh, slot, slot < mesh_count && meshes[min(slot, mesh_count - 1u)].index_count > 0u);
}
