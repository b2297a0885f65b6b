// The scene tables as the draw pass sees them (group 1; see
// src/passes/draw.rs). Growable storage buffers live here, apart from the
// texture heap, so growing one never rebuilds the heap's bind group.

@group(1) @binding(0) var<uniform> frame: FrameUniforms;
@group(1) @binding(1) var<storage, read> counts: TableCounts;
@group(1) @binding(2) var<storage, read> vertices: array<Vertex>;
@group(1) @binding(3) var<storage, read> objects: array<Object>;
@group(1) @binding(4) var<storage, read> materials: array<Material>;
@group(1) @binding(5) var<storage, read> visible_instances: array<u32>;
// The cull pass's draws and header, read by the draw-index debug view only.
@group(1) @binding(6) var<storage, read> draws: array<DrawIndexedIndirect>;
@group(1) @binding(7) var<storage, read> cull_header: CullHeader;
// The mesh table, read by the LOD debug view only (which level a draw drew).
@group(1) @binding(11) var<storage, read> mesh_table: array<Mesh>;
// The deform buffer (src/passes/animation.rs): the skin stream, one entry
// per arena vertex, then the animation pass's matrices, morph weights and
// morph deltas (read as bits).
@group(1) @binding(12) var<storage, read> deform: array<vec4<u32>>;
#if PUNCTUAL_LIGHTS
// The light table and the light pass's cluster lists, read by the
// fragments (punctual.wgsl through draw.wgsl's light_list).
@group(1) @binding(8) var<storage, read> lights: array<Light>;
// Per cluster (first, count) in light_indices (then one more entry).
@group(1) @binding(9) var<storage, read> cluster_ranges: array<vec2<u32>>;
@group(1) @binding(10) var<storage, read> light_indices: array<u32>;
#endif
