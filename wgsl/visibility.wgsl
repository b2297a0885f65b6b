// The visibility buffer (src/passes/visibility.rs): the draw shader's
// module (draw.wgsl, with its variant's defines) plus the visibility pass,
// which rasterizes the camera's opaque and masked draws into depth and an
// id target, and the material pass, which shades every pixel with an id
// once, through the same shading as the draw pass (shade.wgsl,
// surface.wgsl's shade_surface).
//
// Id (Rg32Uint, 0 where nothing was drawn): x = object slot + 1; y = the
// triangle's index in the arena's index buffer (its first index / 3), with
// VISIBILITY_LATE set by the late occlusion phase's pass and
// VISIBILITY_COMPUTE by the compute rasteriser's resolve. The triangle is
// the draw's first index / 3 (the vertex stage finds its draw, find_draw)
// plus @builtin(primitive_index), which counts from 0 in every draw.

enable primitive_index;

#include "draw.wgsl"

// The material pass's extra bindings in its own scene group (group 1, the
// scene layout's entries plus these): the arena's index buffer and the
// visibility pass's ids.
@group(1) @binding(13) var<storage, read> arena_indices: array<u32>;
@group(1) @binding(14) var visibility_ids: texture_2d<u32>;

// Marks an id written by the late occlusion phase (twin:
// gpu_types::VISIBILITY_LATE).
const VISIBILITY_LATE: u32 = 0x80000000u;
// Marks an id the compute rasteriser's resolve wrote (twin:
// gpu_types::VISIBILITY_COMPUTE; compute_raster.wgsl sets it).
const VISIBILITY_COMPUTE: u32 = 0x40000000u;
// The triangle of an id's y: without the late and compute bits (twin:
// gpu_types::VISIBILITY_TRIANGLE_MASK).
const VISIBILITY_TRIANGLE_MASK: u32 = 0x3fffffffu;

struct VisibilityVertex {
    // The draw pass's position, computed by the same code (pulled_surface)
    // and invariant: blended objects drawn forward afterwards test against
    // exactly the depth forward shading would have left.
    @builtin(position) @invariant clip_position: vec4<f32>,
    @location(0) uv0: vec2<f32>,
    @location(1) uv1: vec2<f32>,
    @location(2) color: vec4<f32>,
    @location(3) @interpolate(flat) material: u32,
    @location(4) @interpolate(flat) object: u32,
    @location(5) @interpolate(flat) first_triangle: u32,
}

@vertex
fn vs_visibility(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) instance_slot: u32,
) -> VisibilityVertex {
    var out: VisibilityVertex;
    let pulled = pull_vertex(instance_slot, vertex_index);
    let surface = pulled_surface(pulled);
    out.clip_position = surface.clip_position;
    out.uv0 = surface.uv0;
    out.uv1 = surface.uv1;
    out.color = surface.color;
    out.material = surface.material;
    out.object = pulled.object_index;
    let d = find_draw(instance_slot);
    out.first_triangle = select(0u, draws[d].first_index / 3u, d < arrayLength(&draws));
    return out;
}

// The id of a visibility fragment of triangle `primitive` of its draw, or
// 0 where the alpha test drops it; `late`: the late occlusion phase's
// pass marks its ids (the fragment material pass's late phase shades only
// those: the first phase's were shaded before the late draws; the compute
// material pass shades every id once, after the late phase).
fn visibility_id(in: VisibilityVertex, primitive: u32, late: bool) -> vec2<u32> {
    var surface: VertexOutput;
    surface.clip_position = in.clip_position;
    surface.uv0 = in.uv0;
    surface.uv1 = in.uv1;
    surface.color = in.color;
    surface.material = in.material;
    let d = uv_derivatives(surface);
    if alpha_masked_out(materials[in.material], surface, d) {
        return vec2(0u);
    }
    return vec2(in.object + 1u, (in.first_triangle + primitive) | select(0u, VISIBILITY_LATE, late));
}

@fragment
fn fs_visibility(in: VisibilityVertex, @builtin(primitive_index) primitive: u32) -> @location(0) vec2<u32> {
    let id = visibility_id(in, primitive, false);
    if id.x == 0u {
        discard;
    }
    return id;
}

@fragment
fn fs_visibility_late(in: VisibilityVertex, @builtin(primitive_index) primitive: u32) -> @location(0) vec2<u32> {
    let id = visibility_id(in, primitive, true);
    if id.x == 0u {
        discard;
    }
    return id;
}

// One triangle covering the target.
@vertex
fn vs_fullscreen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let corner = vec2(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4(corner * vec2(2.0, -2.0) + vec2(-1.0, 1.0), 0.0, 1.0);
}

// The barycentric plane of a triangle around one pixel's ray. The
// perspective-correct barycentrics of the point where the ray through
// `ndc` (normalised device coordinates) meets the triangle of clip-space
// corners c_i are the weights l with sum 1 for which the clip-space point
// sum(l_i c_i) lies on the ray (x = ndc.x w, y = ndc.y w): l is
// cross(a, b) normalised, with a = c.x - ndc.x c.w and b = c.y - ndc.y c.w
// over the three corners. Exact for corners behind the eye too (no
// division by a corner's w). cross(a, b) is affine in ndc (the cross(w, w)
// term vanishes), so around the pixel's own `at` it is
// at - dx cross(w, b) - dy cross(a, w) for an offset (dx, dy): a
// neighbouring pixel's ray costs a few multiply-adds, not a new
// intersection, and keeps the precision of a small offset (expanded about
// the screen's origin instead, tiny distant triangles would cancel).
struct BarycentricPlane {
    at: vec3<f32>,
    per_x: vec3<f32>,
    per_y: vec3<f32>,
}

fn barycentric_plane(c: array<vec4<f32>, 3>, ndc: vec2<f32>) -> BarycentricPlane {
    let w = vec3(c[0].w, c[1].w, c[2].w);
    let a = vec3(c[0].x, c[1].x, c[2].x) - ndc.x * w;
    let b = vec3(c[0].y, c[1].y, c[2].y) - ndc.y * w;
    return BarycentricPlane(cross(a, b), -cross(w, b), -cross(a, w));
}

// The barycentrics of the ray `offset` (in ndc) from the plane's pixel.
fn plane_barycentrics(plane: BarycentricPlane, offset: vec2<f32>) -> vec3<f32> {
    let l = plane.at + offset.x * plane.per_x + offset.y * plane.per_y;
    return l / (l.x + l.y + l.z);
}

// The surface the draw pass's fragment at `pixel` would have seen: its
// interpolated VertexOutput, its UV derivatives and which face it sees.
struct ReconstructedSurface {
    in: VertexOutput,
    d: UvDerivatives,
    front_facing: bool,
}

// The corners of arena triangle `triangle` of object slot `object`, pulled
// (morphed, skinned) and transformed as the draw pass's vertex stage does,
// the surface at pixel centre `pixel` of a `size` target on them, and its
// derivatives, as a 2x2 quad's fine differences take them (the pixel pair
// of its own row for x, of its own column for y), so texture LOD matches
// the raster's. Written to keep few values live (the shading after it
// needs the registers): positions first, then one corner at a time.
fn reconstruct_surface(object: u32, triangle: u32, pixel: vec2<f32>, size: vec2<f32>) -> ReconstructedSurface {
    // The object record once per pixel, not per corner; a rigid object's
    // normal transform (two 3x3 matrices and a cross product) likewise.
    let record = objects[checked_index(object, counts.objects)];
    let skinned = record.skin != NO_SKIN;
    let rigid = normal_transform(record.world_from_object);
    let last = arrayLength(&arena_indices) - 1u;
    var corners: array<u32, 3>;
    // Pass 1: the clip-space corners alone (the compiler drops a morph's
    // normal and tangent work here), as the visibility pass placed them.
    var clip: array<vec4<f32>, 3>;
    for (var k = 0u; k < 3u; k++) {
        corners[k] = arena_indices[min(triangle * 3u + k, last)];
        let v = object_vertex(record, corners[k]);
        let position = vec4(v.position[0], v.position[1], v.position[2], 1.0);
        clip[k] = frame.clip_from_world * (vertex_world_from_object(record, corners[k]) * position);
    }
    let to_ndc = vec2(2.0, -2.0) / size;
    let plane = barycentric_plane(clip, pixel * to_ndc + vec2(-1.0, 1.0));
    let l = plane_barycentrics(plane, vec2(0.0));
    // Fine differences: the pixel and its neighbour across the quad (right
    // or below in the quad's first column or row, left or above in its
    // second). One more ray per axis, the pixel's own being one of the
    // pair; the differences rather than the analytic derivative at the
    // pixel, because the raster's LOD is taken from the differences.
    let first = floor(pixel * 0.5) * 2.0 + 0.5 == pixel;
    let step = select(vec2(-1.0), vec2(1.0), first);
    let dx = (plane_barycentrics(plane, vec2(step.x * to_ndc.x, 0.0)) - l) * step.x;
    let dy = (plane_barycentrics(plane, vec2(0.0, step.y * to_ndc.y)) - l) * step.y;
    // Pass 2: each corner's attributes transformed and weighted into the
    // sums one corner at a time, never three whole corners live. A skinned
    // corner has its own matrices (built again: cheaper than keeping three).
    var out: ReconstructedSurface;
    let material = checked_index(record.material, counts.materials);
    for (var k = 0u; k < 3u; k++) {
        let v = object_vertex(record, corners[k]);
        var world_from_object = record.world_from_object;
        var normals = rigid;
        if skinned {
            world_from_object = vertex_world_from_object(record, corners[k]);
            normals = normal_transform(world_from_object);
        }
        let position = vec3(v.position[0], v.position[1], v.position[2]);
        let uv0 = vec2(v.uv0[0], v.uv0[1]);
        let uv1 = vec2(v.uv1[0], v.uv1[1]);
        let c = surface_vertex(frame.clip_from_world, world_from_object, normals, position, v.normal_oct, v.tangent, uv0, uv1, v.color, material);
        out.in.world_position += l[k] * c.world_position;
        out.in.world_normal += l[k] * c.world_normal;
        out.in.world_tangent += l[k] * c.world_tangent;
        out.in.uv0 += l[k] * c.uv0;
        out.in.uv1 += l[k] * c.uv1;
        out.in.color += l[k] * c.color;
        out.d.uv0_dx += dx[k] * c.uv0;
        out.d.uv0_dy += dy[k] * c.uv0;
        out.d.uv1_dx += dx[k] * c.uv1;
        out.d.uv1_dy += dy[k] * c.uv1;
    }
    out.in.material = material;
    let p = l.x * clip[0] + l.y * clip[1] + l.z * clip[2];
    out.in.clip_position = vec4(pixel, p.z / p.w, 1.0 / p.w);
    // Counter-clockwise on screen (wgpu's front face) where the clip-space
    // corners' (x, y, w) determinant is positive.
    out.front_facing = determinant(mat3x3(clip[0].xyw, clip[1].xyw, clip[2].xyw)) > 0.0;
    return out;
}

// The id at `position`, if the material pass of the phase (`late`: the
// late occlusion phase's, which shades only the late ids) shades it.
fn material_id(position: vec4<f32>, late: bool) -> vec2<u32> {
    let id = textureLoad(visibility_ids, vec2<u32>(position.xy), 0).xy;
    if late && (id.y & VISIBILITY_LATE) == 0u {
        return vec2(0u);
    }
    return id;
}

// The material pass: every pixel with an id (of this phase), shaded once.
@fragment
fn fs_material(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let id = material_id(position, false);
    if id.x == 0u {
        discard;
    }
    return shade_id(id, position);
}

@fragment
fn fs_material_late(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let id = material_id(position, true);
    if id.x == 0u {
        discard;
    }
    return shade_id(id, position);
}

// The compute material pass (src/passes/visibility.rs, MaterialPass::
// Compute): the same shading, one thread per pixel in 8x8 workgroups,
// stored into the HDR target (group 1, binding 15) instead of returned to
// a render pass. It runs once a frame, after the last visibility pass, so
// it shades every id whichever occlusion phase wrote it. Pixels without
// an id are left as they are. Nothing it reaches takes implicit
// derivatives: the reconstruction gives sample_surface its UV derivatives.
@group(1) @binding(15) var hdr_output: texture_storage_2d<rgba16float, write>;

@compute @workgroup_size(8, 8)
fn cs_material(@builtin(global_invocation_id) pixel: vec3<u32>) {
    let size = textureDimensions(visibility_ids);
    if pixel.x >= size.x || pixel.y >= size.y {
        return;
    }
    let position = vec4(vec2<f32>(pixel.xy) + 0.5, 0.0, 1.0);
    let id = material_id(position, false);
    if id.x == 0u {
        return;
    }
    textureStore(hdr_output, pixel.xy, shade_id(id, position));
}

// Shades the surface of `id` at `position`: the draw pass's sampling and
// shading of the reconstructed surface.
fn shade_id(id: vec2<u32>, position: vec4<f32>) -> vec4<f32> {
    let size = vec2<f32>(textureDimensions(visibility_ids));
    let s = reconstruct_surface(id.x - 1u, id.y & VISIBILITY_TRIANGLE_MASK, position.xy, size);
    let material = materials[s.in.material];
#if DEBUG_VIEWS
    return debug_id_color(id, s, material);
#else
    let texels = sample_surface(material, s.in, s.d).texels;
    return shade_surface(material, texels, s.in, s.front_facing);
#endif
}

#if DEBUG_VIEWS
// The debug views through the visibility buffer (src/debug.rs): the draw
// pass's last step (draw.wgsl's debug_color) on the reconstructed surface,
// with the object slot from the id, the level of detail from the mesh
// entry whose index range holds the triangle (triangle_level), and which
// rasteriser drew the pixel from the id's VISIBILITY_COMPUTE bit. The
// draw view draws forward: the id does not name the draw.
fn debug_id_color(id: vec2<u32>, s: ReconstructedSurface, material: Material) -> vec4<f32> {
    var in = s.in;
    in.object = id.x - 1u;
    let triangle = id.y & VISIBILITY_TRIANGLE_MASK;
    if frame.debug_view == DEBUG_VIEW_LOD_LEVEL {
        in.draw = triangle_level(objects[checked_index(in.object, counts.objects)].mesh, triangle);
    }
    let sampled = sample_surface(material, in, s.d);
    return debug_color(material, sampled, in, s.front_facing, (id.y & VISIBILITY_COMPUTE) != 0u);
}

// The level of detail of mesh slot `mesh` whose index range holds arena
// triangle `triangle`: l for its level l (the entry lod_slots[l - 1]), 0
// for the mesh itself (or no level), 0xffffffff for no mesh. The twin of
// draw.wgsl's drawn_level, which finds the level by the draw's first index.
fn triangle_level(mesh: u32, triangle: u32) -> u32 {
    let entries = min(counts.meshes, arrayLength(&mesh_table));
    if mesh >= entries {
        return 0xffffffffu;
    }
    let index = triangle * 3u;
    let entry = mesh_table[mesh];
    var level = 0u;
    for (var l = 0u; l < min(entry.lod_levels, MAX_LOD_LEVELS); l++) {
        let range = mesh_table[min(entry.lod_slots[l], entries - 1u)];
        if index >= range.first_index && index - range.first_index < range.index_count {
            level = l + 1u;
        }
    }
    return level;
}
#endif
