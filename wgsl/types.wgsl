// Structs the host writes. Each has one Rust twin in src/gpu_types/ (named
// Gpu + the same name); tests/layouts.rs checks sizes and offsets with naga.

// One vertex of the geometry arena (twin: GpuVertex, 40 bytes). Position
// stays first (ray tracing reads it as Float32x3 at offset 0).
struct Vertex {
    position: array<f32, 3>,
    normal_oct: u32,   // octahedral unit normal, pack2x16snorm
    tangent: u32,      // xyz tangent + w handedness, pack4x8snorm
    uv0: array<f32, 2>,
    uv1: array<f32, 2>,
    color: u32,        // linear RGBA vertex colour, pack4x8unorm
}

// Most simplified levels of a mesh (twin: lod::MAX_LOD_LEVELS).
const MAX_LOD_LEVELS: u32 = 4u;

// Where a mesh lives in the arena, its bounds and its simplified levels
// (twin: GpuMesh, 112 bytes; src/lod/). A level is an entry of its own,
// with the mesh's vertices and bounds and no levels.
struct Mesh {
    first_index: u32,
    index_count: u32,
    first_vertex: u32,
    vertex_count: u32,
    bounding_sphere: vec4<f32>,
    aabb_min: vec4<f32>,
    aabb_max: vec4<f32>,
    // Each level's simplification error over the bounding radius
    // (non-decreasing) and mesh slot; lod_levels of them.
    lod_errors: vec4<f32>,
    lod_slots: vec4<u32>,
    lod_levels: u32,
    // The entry's clusters in the cluster table (src/geometry/clusters.rs).
    first_cluster: u32,
    cluster_count: u32,
    // 1: its clusters are a cluster-LOD hierarchy (src/geometry/cluster_lod.rs).
    cluster_lod: u32,
}

// One cluster of a mesh (twin: GpuCluster, 64 bytes): object-space
// bounding sphere, normal cone (back-facing from camera c when
// dot(normalize(apex - c), axis) >= cutoff; cutoff 2 without a cone),
// and its range of the arena's index buffer.
struct Cluster {
    bounding_sphere: vec4<f32>,
    cone_apex: vec3<f32>,
    cone_cutoff: f32,
    cone_axis: vec3<f32>,
    first_index: u32,
    index_count: u32,
    _pad: array<u32, 3>,
}

// A cluster's place in its mesh's LOD hierarchy (twin: GpuClusterLod, 48
// bytes; entry i belongs to cluster i): the object-space sphere and error
// of the group that made it and of the group it was merged into.
struct ClusterLod {
    own_sphere: vec4<f32>,
    parent_sphere: vec4<f32>,
    own_error: f32,
    parent_error: f32,
    level: u32,
    _pad: u32,
}

// Object.morph_deltas of an object drawn without morph targets (twin:
// gpu_types::NO_MORPH).
const NO_MORPH: u32 = 0xffffffffu;
// Tangent deltas are snorm16 of delta / MORPH_TANGENT_RANGE (twin:
// gpu_types::MORPH_TANGENT_RANGE).
const MORPH_TANGENT_RANGE: u32 = 2u;

// One instance (twin: GpuObject, 96 bytes).
struct Object {
    world_from_object: mat4x4<f32>,
    mesh: u32,
    material: u32,
    flags: u32,
    // The palette of a skinned object (vec4 index of its first matrix in
    // the deform buffer, pull.wgsl), else NO_SKIN (twin: GpuObject::skin).
    skin: u32,
    // A morphed object's deltas (vec4 index in the deform buffer, two vec4
    // per vertex and target, morph.wgsl), else NO_MORPH; the index of its
    // node's first weight (4-byte units of the deform buffer); its mesh's
    // targets; the arena vertex its deltas start at (twin: GpuObject).
    morph_deltas: u32,
    morph_weights: u32,
    morph_targets: u32,
    morph_first_vertex: u32,
}

// A texture reference with its sampler, UV set and UV transform
// (twin: GpuMaterialTexture, 48 bytes).
struct MaterialTexture {
    uv_row0: vec4<f32>,
    uv_row1: vec4<f32>,
    texture: u32,
    sampler: u32,
    uv_set: u32,
    _pad: u32,
}

// Material.alpha_mode (twins: gpu_types::ALPHA_*).
const ALPHA_OPAQUE: u32 = 0u;
const ALPHA_MASK: u32 = 1u;
const ALPHA_BLEND: u32 = 2u;
const MATERIAL_FLAG_DOUBLE_SIDED: u32 = 1u;
const MATERIAL_FLAG_NORMAL_MAP: u32 = 2u;
const MATERIAL_FLAG_UNLIT: u32 = 4u;

// glTF metallic-roughness material (twin: GpuMaterial, 304 bytes).
struct Material {
    base_color_factor: vec4<f32>,
    emissive_factor: vec3<f32>,
    emissive_strength: f32,
    metallic_factor: f32,
    roughness_factor: f32,
    normal_scale: f32,
    occlusion_strength: f32,
    alpha_cutoff: f32,
    alpha_mode: u32,
    flags: u32,
    _pad: u32,
    base_color: MaterialTexture,
    metallic_roughness: MaterialTexture,
    normal: MaterialTexture,
    occlusion: MaterialTexture,
    emissive: MaterialTexture,
}

// Live sizes of every table; every index read from a table is checked
// against these (twin: GpuTableCounts, 32 bytes).
struct TableCounts {
    textures_2d: u32,
    textures_cube: u32,
    samplers: u32,
    materials: u32,
    meshes: u32,
    objects: u32,
    vertices: u32,
    _pad: u32,
}

const FRAME_FLAG_NORMAL_MAPS: u32 = 1u;
// One draw per mesh slot, empty ones with zero instances (plain multi-draw).
const FRAME_FLAG_UNCOMPACTED_DRAWS: u32 = 2u;
// Bit (FRAME_FLAG_BUCKET_SHIFT + b) set: pipeline bucket b has live objects.
const FRAME_FLAG_BUCKET_SHIFT: u32 = 2u;
// Debug: pixels that sampled the missing texture (slot 0) turn magenta.
const FRAME_FLAG_HIGHLIGHT_MISSING: u32 = 32u;
// The frame culls occlusion: its late phase writes the visibility bits.
const FRAME_FLAG_OCCLUSION: u32 = 64u;
// The cull pass picks each instance's level of detail (lod.wgsl).
const FRAME_FLAG_LOD: u32 = 128u;
// The cascades are culled by occlusion too, each against its own depth.
const FRAME_FLAG_CASCADE_OCCLUSION: u32 = 256u;
// Bits FRAME_FLAG_FEEDBACK_SHIFT.. (3): the frame number mod 8, which
// fragments write the texture feedback (heap.wgsl).
const FRAME_FLAG_FEEDBACK_SHIFT: u32 = 16u;

// What the draw pass writes (twin: debug::DebugView). Views from
// DEBUG_VIEW_FIRST_ID to DEBUG_VIEW_LAST_ID write `id + 1` as 24-bit
// little-endian RGB into a linear target (0 = nothing drawn), so ids
// decode exactly.
const DEBUG_VIEW_LIT: u32 = 0u;
const DEBUG_VIEW_UNLIT: u32 = 1u;
const DEBUG_VIEW_NORMALS: u32 = 2u;
const DEBUG_VIEW_UVS: u32 = 3u;
const DEBUG_VIEW_METALLIC: u32 = 4u;
const DEBUG_VIEW_ROUGHNESS: u32 = 5u;
const DEBUG_VIEW_OCCLUSION: u32 = 6u;
const DEBUG_VIEW_EMISSIVE: u32 = 7u;
const DEBUG_VIEW_TANGENTS: u32 = 8u;
// Lights per cluster as a heat map (debug::light_count_color).
const DEBUG_VIEW_LIGHT_COUNT: u32 = 9u;
const DEBUG_VIEW_CASCADES: u32 = 10u;
// Path traced with ray queries (wgsl/path_trace.wgsl), not the draw pass.
const DEBUG_VIEW_PATH_TRACED: u32 = 11u;
// The level of detail each instance was drawn with (src/lod/).
const DEBUG_VIEW_LOD_LEVEL: u32 = 12u;
const DEBUG_VIEW_FIRST_ID: u32 = 13u;
const DEBUG_VIEW_MATERIAL: u32 = 13u;
const DEBUG_VIEW_OBJECT: u32 = 14u;
const DEBUG_VIEW_DRAW: u32 = 15u;
const DEBUG_VIEW_TEXTURE_SLOT: u32 = 16u;
// Primary rays through ray queries (wgsl/ray_view.wgsl), not the draw pass.
const DEBUG_VIEW_HIT_MATERIAL: u32 = 17u;
const DEBUG_VIEW_LAST_ID: u32 = 17u;
// Which rasteriser drew each pixel (visibility.wgsl; hardware everywhere in
// forward geometry): raster_view_color.
const DEBUG_VIEW_RASTER: u32 = 18u;

// `id + 1` as 24-bit little-endian RGB: exact in an 8-bit linear target.
fn id_color(id: u32) -> vec4<f32> {
    let e = id + 1u;
    return vec4(f32(e & 0xffu), f32((e >> 8u) & 0xffu), f32((e >> 16u) & 0xffu), 255.0) / 255.0;
}

// Per-frame constants (twin: GpuFrameUniforms, 384 bytes).
struct FrameUniforms {
    clip_from_world: mat4x4<f32>,
    camera_position: vec4<f32>,
    light_direction: vec4<f32>,
    light_color: vec4<f32>,
    ambient_color: vec4<f32>,
    frustum_planes: array<vec4<f32>, 6>,
    instance_count: u32,
    mesh_count: u32,
    flags: u32,
    debug_view: u32,
    view_from_world: mat4x4<f32>,
    // The light clusters (clusters.wgsl): tiles across, tiles down, depth
    // slices, light slots in use (0: no live lights).
    light_grid: vec4<u32>,
    // Tiles per pixel (x, y); a fragment's slice is log2(view depth) * z + w.
    cluster_from_pixel: vec4<f32>,
    // View depth = x / (z - window depth * y); w: near.
    view_depth: vec4<f32>,
    // View-space x, y per unit of depth at the right and top edges;
    // z: log2(far / near) / slices.
    view_frustum: vec4<f32>,
    // Small-object culling (small_objects.wgsl): x, y the target's size in
    // pixels; zero while off.
    pixel_grid: vec4<f32>,
    // Level of detail (lod.wgsl): xyz the cull camera, w the factor k.
    lod: vec4<f32>,
    // The camera's compute rasteriser (cull_raster.wgsl): x, y the
    // target's size in pixels, z the threshold in pixels (0: off), w the
    // raster items the cull may reserve.
    raster: vec4<f32>,
}

// Most shadow cascades (twin: shadows::MAX_CASCADES).
const MAX_CASCADES: u32 = 4u;
// Most shadowed spot lights (twin: shadows::MAX_SPOT_SHADOWS).
const MAX_SPOT_SHADOWS: u32 = 8u;

// The sun's shadow cascades and the spot lights' shadows, for the cull
// pass and the shading (twin: GpuShadowUniforms; see src/shadows/).
struct ShadowUniforms {
    shadow_from_world: array<mat4x4<f32>, MAX_CASCADES>,
    // Six box planes per cascade (left, right, bottom, top, near, far);
    // casters are tested against all but the near one.
    cascade_planes: array<vec4<f32>, 24>,
    // Far view depth of each cascade's slice.
    split_depths: vec4<f32>,
    texel_world_sizes: vec4<f32>,
    camera_forward: vec4<f32>,
    // 0: shadows off.
    cascade_count: u32,
    resolution: u32,
    normal_offset_texels: f32,
    depth_bias_texels: f32,
    // Each shadowed spot's perspective view, by its Light.shadow index.
    spot_from_world: array<mat4x4<f32>, MAX_SPOT_SHADOWS>,
    // Each spot view's planes (left, right, bottom, top, near, far).
    spot_planes: array<array<vec4<f32>, 6>, MAX_SPOT_SHADOWS>,
    // World size of a texel per unit of depth along each spot's axis, four
    // a vector.
    spot_texel_scales: array<vec4<f32>, 2>,
    // 0: no spot shadows.
    spot_count: u32,
}

// Pipeline buckets, drawn in this order (twins: gpu_types::BUCKET_*).
const BUCKET_OPAQUE: u32 = 0u;        // opaque and mask, back faces culled
const BUCKET_DOUBLE_SIDED: u32 = 1u;  // opaque and mask, both faces
const BUCKET_BLEND: u32 = 2u;         // alpha blended, far to near
const BUCKETS: u32 = 3u;
// instance_batch = mesh | masked | bucket << BUCKET_SHIFT.
const BUCKET_SHIFT: u32 = 30u;
// The material is alpha-masked (twin: gpu_types::BATCH_MASKED).
const BATCH_MASKED: u32 = 0x20000000u;
const MESH_MASK: u32 = 0x1fffffffu;

// Head of the cull counters buffer (twin: GpuCullHeader, 48 bytes).
struct CullHeader {
    draw_count: u32,
    visible_instances: u32,
    triangles_lo: u32,
    triangles_hi: u32,
    bucket_draws: array<u32, BUCKETS>,
    // Blended instances drawn one by one in exact far-to-near order (after
    // the three bucket regions of the draws buffer); 0 when more than
    // BLEND_SORT_CAP are visible and the blend bucket's per-mesh draws are
    // used instead.
    sorted_blend_draws: u32,
    // The late occlusion phase's region only: instances in the frustum, not
    // drawn early, hidden by the depth pyramid.
    occluded_instances: u32,
    // The camera's region (frustum and late phases): instances in the
    // frustum covering no sample (small_objects.wgsl), not drawn.
    small_instances: u32,
    // The camera's region: instances sent to the compute rasteriser
    // (cull_raster.wgsl), listed from the end of its visible list down,
    // and the raster items they reserved. Not in the draws.
    raster_instances: u32,
    raster_items: u32,
}

// Which phase a cull dispatch runs (twin: GpuCullPhase, 16 bytes; the
// CULL_PHASE_* constants in cull.wgsl).
struct CullPhase {
    phase: u32,
    // The late phase's view: 0 the camera, 1 + c cascade c.
    view: u32,
    _pad1: u32,
    _pad2: u32,
}

// Most visible blended instances sorted exactly per frame (one workgroup's
// bitonic sort in shared memory; twin: gpu_types::BLEND_SORT_CAP).
const BLEND_SORT_CAP: u32 = 2048u;

// wgpu's DrawIndexedIndirectArgs (20 bytes), written by the cull pass.
struct DrawIndexedIndirect {
    index_count: u32,
    instance_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

// Light.kind (twins: gpu_types::LIGHT_KIND_*). A free slot is all zero.
const LIGHT_KIND_NONE: u32 = 0u;
const LIGHT_KIND_DIRECTIONAL: u32 = 1u;
const LIGHT_KIND_POINT: u32 = 2u;
const LIGHT_KIND_SPOT: u32 = 3u;

// One punctual light of the light table (twin: GpuLight, 80 bytes).
struct Light {
    position: vec3<f32>,
    // KHR_lights_punctual range; 0: none (plain inverse square).
    range: f32,
    // Unit direction the light shines in (spot, directional).
    direction: vec3<f32>,
    // Radius of the sphere tested against clusters.
    cull_radius: f32,
    // Colour times intensity: candela (point, spot), lux (directional).
    intensity: vec3<f32>,
    kind: u32,
    // Spot cone attenuation: saturate(cos * cone_scale + cone_offset)^2.
    cone_scale: f32,
    cone_offset: f32,
    cos_outer: f32,
    sin_outer: f32,
    // A shadowed spot's index among the spot shadows (its shadow map layer
    // is ShadowUniforms.cascade_count plus this), else NO_SPOT_SHADOW.
    shadow: u32,
    _pad: array<u32, 3>,
}

// Light.shadow of a light without a spot shadow (twin:
// shadows::spots::NO_SPOT_SHADOW).
const NO_SPOT_SHADOW: u32 = 0xffffffffu;
