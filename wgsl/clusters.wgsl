// The light clusters' geometry, shared by the light pass (lights.wgsl) and
// the draw pass's fragments. CPU twin: src/lighting/clusters.rs (same
// formulas, same order). Needs `frame: FrameUniforms`.
//
// The view is cut into frame.light_grid.x x .y screen tiles (row 0 at the
// top) and .z depth slices growing exponentially from near to far; cluster
// c = (slice * tiles_y + tile_y) * tiles_x + tile_x.

// The cluster of the fragment at `fragment` (@builtin(position): pixel
// centre, window depth): from the pixel and the depth alone, so nothing is
// passed from the vertex shader.
fn fragment_cluster(fragment: vec4<f32>) -> u32 {
    let grid = frame.light_grid.xyz;
    let tile = min(vec2<u32>(fragment.xy * frame.cluster_from_pixel.xy), grid.xy - 1u);
    let view_depth = frame.view_depth.x / (frame.view_depth.z - fragment.z * frame.view_depth.y);
    let slice = u32(clamp(floor(log2(view_depth) * frame.cluster_from_pixel.z + frame.cluster_from_pixel.w), 0.0, f32(grid.z - 1u)));
    return (slice * grid.y + tile.y) * grid.x + tile.x;
}
