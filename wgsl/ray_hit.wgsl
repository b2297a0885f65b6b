// Hit shading through the global tables, shared by everything that traces
// (src/rays/, src/passes/rays.rs). A hit is a TLAS instance's custom data
// (the object slot), a primitive index (the triangle within its mesh) and
// two barycentrics; everything else is found through the tables: the
// object (transform, mesh, material), the mesh's first index, the
// triangle's three indices and vertices in the arena, the material and
// its textures in the heap. Nothing is bound per object.
//
// Textures are sampled at level 0 (a fixed level of detail, no ray cones):
// enough for alpha tests and ids. Needs types.wgsl, scene.wgsl, heap.wgsl
// and `enable wgpu_ray_query;` at the top of the module.
//
// A skinned or morphed object (Object.skin or Object.morph_deltas set) is
// traced through its own BLAS of deformed positions (src/rays/deform.rs);
// its hits are shaded from the same deformation, each corner morphed by
// morph.wgsl and skinned by skinning.wgsl as the vertex pulling does it,
// so positions, normals and tangents are the posed ones the raster passes
// interpolate.

#include "surface.wgsl"
#include "skinning.wgsl"
#include "morph.wgsl"

// What rays read besides the scene tables (group 2 of the passes that
// trace): the TLAS over the object table, the arena's index buffer, the
// mesh table, and the ray uniforms.
@group(2) @binding(0) var tlas: acceleration_structure;
@group(2) @binding(1) var<storage, read> indices: array<u32>;
@group(2) @binding(2) var<storage, read> meshes: array<Mesh>;
@group(2) @binding(3) var<uniform> rays: RayUniforms;

// Per-frame constants of the passes that trace (twin: GpuRayUniforms).
struct RayUniforms {
    // Clip space back to world space (the inverse of clip_from_world).
    world_from_clip: mat4x4<f32>,
    // Width and height of the target in pixels, then their reciprocals.
    viewport: vec4<f32>,
    // The path-traced view (path_trace.wgsl): samples per pixel
    // accumulated before this frame (0: start again), samples this frame,
    // bounces after the camera ray's hit.
    sample_index: u32,
    samples: u32,
    bounces: u32,
}

// TLAS instance masks by material (twins: gpu_types::RAY_MASK_*).
const RAY_MASK_OPAQUE: u32 = 1u;
const RAY_MASK_MASKED: u32 = 2u;
const RAY_MASK_BLENDED: u32 = 4u;

// A hit found again through the tables: the triangle's vertices
// interpolated and transformed as the draw pass's vertex shader does
// (surface_vertex), so that the surface functions of surface.wgsl apply;
// its `material` is the object's, bounds-checked.
struct RayHit {
    object: u32,
    surface: VertexOutput,
    // The triangle's normal as wound (counter-clockwise front faces), in
    // world space, not normalised: a face is front-facing for a ray whose
    // direction points against it.
    winding_normal: vec3<f32>,
}

// The arena vertex index of corner `corner` of triangle `primitive` of
// `mesh` (0 when an index is out of range: the fallback, as everywhere
// else).
fn ray_vertex_index(mesh: Mesh, primitive: u32, corner: u32) -> u32 {
    let k = primitive * 3u + corner;
    let at = select(0u, mesh.first_index + k, k < mesh.index_count);
    return checked_index(indices[min(at, arrayLength(&indices) - 1u)], counts.vertices);
}

fn vertex_position(v: Vertex) -> vec3<f32> {
    return vec3(v.position[0], v.position[1], v.position[2]);
}

// The hit on triangle `primitive` of object slot `object_slot` at
// `barycentrics` (the weights of its second and third vertices).
fn ray_hit(object_slot: u32, primitive: u32, barycentrics: vec2<f32>) -> RayHit {
    let slot = checked_index(object_slot, counts.objects);
    let object = objects[slot];
    let mesh = meshes[checked_index(object.mesh, counts.meshes)];
    let material = checked_index(object.material, counts.materials);
    let identity = mat4x4<f32>(vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0), vec4(0.0, 0.0, 0.0, 1.0));
    let i0 = ray_vertex_index(mesh, primitive, 0u);
    let i1 = ray_vertex_index(mesh, primitive, 1u);
    let i2 = ray_vertex_index(mesh, primitive, 2u);
    // Morphed first (the rest vertex where the object has no morph), as
    // the vertex pulling does.
    let v0 = morph_vertex(object, i0, vertices[i0]);
    let v1 = morph_vertex(object, i1, vertices[i1]);
    let v2 = morph_vertex(object, i2, vertices[i2]);
    let p0 = vertex_position(v0);
    let p1 = vertex_position(v1);
    let p2 = vertex_position(v2);
    // Each corner placed as the vertex pulling places it: skinned by its
    // own blended matrix (pull.wgsl), or by the object's transform alone
    // (a morphed corner's position is already morphed).
    var m0 = object.world_from_object;
    var m1 = object.world_from_object;
    var m2 = object.world_from_object;
    let skinned = object.skin != NO_SKIN;
    if skinned {
        m0 = m0 * skin_matrix(object.skin, i0);
        m1 = m1 * skin_matrix(object.skin, i1);
        m2 = m2 * skin_matrix(object.skin, i2);
    }
    let c0 = surface_vertex(identity, m0, normal_transform(m0), p0, v0.normal_oct, v0.tangent, vec2(v0.uv0[0], v0.uv0[1]), vec2(v0.uv1[0], v0.uv1[1]), v0.color, material);
    let c1 = surface_vertex(identity, m1, normal_transform(m1), p1, v1.normal_oct, v1.tangent, vec2(v1.uv0[0], v1.uv0[1]), vec2(v1.uv1[0], v1.uv1[1]), v1.color, material);
    let c2 = surface_vertex(identity, m2, normal_transform(m2), p2, v2.normal_oct, v2.tangent, vec2(v2.uv0[0], v2.uv0[1]), vec2(v2.uv1[0], v2.uv1[1]), v2.color, material);
    let w = vec3(1.0 - barycentrics.x - barycentrics.y, barycentrics.x, barycentrics.y);
    var s = c0;
    s.world_position = w.x * c0.world_position + w.y * c1.world_position + w.z * c2.world_position;
    s.clip_position = vec4(s.world_position, 1.0);
    s.world_normal = w.x * c0.world_normal + w.y * c1.world_normal + w.z * c2.world_normal;
    s.world_tangent = vec4(w.x * c0.world_tangent.xyz + w.y * c1.world_tangent.xyz + w.z * c2.world_tangent.xyz, c0.world_tangent.w);
    s.uv0 = w.x * c0.uv0 + w.y * c1.uv0 + w.z * c2.uv0;
    s.uv1 = w.x * c0.uv1 + w.y * c1.uv1 + w.z * c2.uv1;
    s.color = w.x * c0.color + w.y * c1.color + w.z * c2.color;
    // Edges transform by world_from_object, so their cross product by its
    // cofactor matrix: the winding's normal, mirroring included.
    // A skinned triangle's corners move apart: its winding is that of
    // its posed corners.
    let m = object.world_from_object;
    let cofactor = mat3x3(cross(m[1].xyz, m[2].xyz), cross(m[2].xyz, m[0].xyz), cross(m[0].xyz, m[1].xyz));
    var winding = cofactor * cross(p1 - p0, p2 - p0);
    if skinned {
        winding = cross(c1.world_position - c0.world_position, c2.world_position - c0.world_position);
    }
    return RayHit(slot, s, winding);
}

// A material texture at level 0, through the heap (binding arrays or pages).
fn ray_sample(t: MaterialTexture, surface: VertexOutput) -> vec4<f32> {
    let uv = material_uv(t, surface.uv0, surface.uv1);
    return sample_texture_2d_level0(t.texture, t.sampler, uv);
}

// Whether the surface at `hit` is there for a ray: alpha-masked materials
// only where the base colour's alpha (factor x texture x vertex colour, as
// the draw pass computes it) reaches the cutoff.
fn ray_hit_is_opaque(hit: RayHit) -> bool {
    let material = materials[hit.surface.material];
    if material.alpha_mode != ALPHA_MASK {
        return true;
    }
    var texels = default_texels();
    if material.base_color.texture != TEXTURE_WHITE {
        texels.base_color = ray_sample(material.base_color, hit.surface);
    }
    return surface_base_color(material, texels, hit.surface).a >= material.alpha_cutoff;
}

// Whether the draw pass would draw the face of `hit` a ray along `direction`
// sees: back faces only of double-sided materials.
fn ray_hit_is_drawn_face(hit: RayHit, direction: vec3<f32>) -> bool {
    let double_sided = (materials[hit.surface.material].flags & MATERIAL_FLAG_DOUBLE_SIDED) != 0u;
    return double_sided || dot(hit.winding_normal, direction) < 0.0;
}

// RAY_CANDIDATE_WORKAROUND: the traversal loops below read a candidate's
// kind on its own, then the whole candidate only for a triangle, and keep
// the query in the function that declares it. lavapipe (Mesa 25.0) reads
// a candidate's instance fields from address 0 (and crashes) in lanes
// without a candidate when they are read together with the kind, and
// loses a query's state when the query is passed to another function.

// The closest surface along a ray among the instances `cull_mask` selects:
// opaque geometry is committed by the traversal itself; the candidates of
// non-opaque geometry (meshes that alpha-masked objects use) are confirmed
// where ray_hit_is_opaque says so. `kind` is RAY_QUERY_INTERSECTION_NONE for
// a miss.
fn trace_closest(origin: vec3<f32>, direction: vec3<f32>, t_min: f32, t_max: f32, cull_mask: u32) -> RayIntersection {
    var query: ray_query;
    rayQueryInitialize(&query, tlas, RayDesc(RAY_FLAG_NONE, cull_mask, t_min, t_max, origin, direction));
    while rayQueryProceed(&query) {
        // The candidate's kind first, the rest only for a triangle (see
        // RAY_CANDIDATE_WORKAROUND below).
        if rayQueryGetCandidateIntersection(&query).kind == RAY_QUERY_INTERSECTION_TRIANGLE {
            let candidate = rayQueryGetCandidateIntersection(&query);
            if ray_hit_is_opaque(ray_hit(candidate.instance_custom_data, candidate.primitive_index, candidate.barycentrics)) {
                rayQueryConfirmIntersection(&query);
            }
        }
    }
    return rayQueryGetCommittedIntersection(&query);
}

// Whether anything `cull_mask` selects lies along the ray between t_min
// and t_max (alpha-masked holes let it through): traversal ends at the
// first surface found. Any face occludes.
fn trace_any(origin: vec3<f32>, direction: vec3<f32>, t_min: f32, t_max: f32, cull_mask: u32) -> bool {
    var query: ray_query;
    rayQueryInitialize(&query, tlas, RayDesc(RAY_FLAG_TERMINATE_ON_FIRST_HIT, cull_mask, t_min, t_max, origin, direction));
    while rayQueryProceed(&query) {
        // The candidate's kind first, the rest only for a triangle (see
        // RAY_CANDIDATE_WORKAROUND below).
        if rayQueryGetCandidateIntersection(&query).kind == RAY_QUERY_INTERSECTION_TRIANGLE {
            let candidate = rayQueryGetCandidateIntersection(&query);
            if ray_hit_is_opaque(ray_hit(candidate.instance_custom_data, candidate.primitive_index, candidate.barycentrics)) {
                rayQueryConfirmIntersection(&query);
            }
        }
    }
    return rayQueryGetCommittedIntersection(&query).kind != RAY_QUERY_INTERSECTION_NONE;
}

// Back faces the draw pass culls a ray sees through: this many at most.
const RAY_CULLED_FACES: u32 = 4u;

// What a camera ray shows, as the draw pass would draw it: the closest
// surface of any kind, seen through back faces of single-sided materials
// (up to RAY_CULLED_FACES of them).
fn trace_visible(origin: vec3<f32>, direction: vec3<f32>, t_min: f32, t_max: f32) -> RayIntersection {
    var t_from = t_min;
    var hit = trace_closest(origin, direction, t_from, t_max, 0xffu);
    for (var i = 0u; i < RAY_CULLED_FACES; i++) {
        if hit.kind == RAY_QUERY_INTERSECTION_NONE || ray_hit_is_drawn_face(ray_hit(hit.instance_custom_data, hit.primitive_index, hit.barycentrics), direction) {
            return hit;
        }
        t_from = hit.t * (1.0 + 1e-5) + 1e-6;
        hit = trace_closest(origin, direction, t_from, t_max, 0xffu);
    }
    return hit;
}

// The camera ray through the centre of pixel `pixel` (frame buffer
// coordinates, +y down): from the near plane to the far plane.
struct CameraRay {
    origin: vec3<f32>,
    direction: vec3<f32>,
    length: f32,
}

fn camera_ray(pixel: vec2<f32>) -> CameraRay {
    let ndc = vec2(pixel.x * rays.viewport.z * 2.0 - 1.0, 1.0 - pixel.y * rays.viewport.w * 2.0);
    let near = rays.world_from_clip * vec4(ndc, 0.0, 1.0);
    let far = rays.world_from_clip * vec4(ndc, 1.0, 1.0);
    let origin = near.xyz / near.w;
    let span = far.xyz / far.w - origin;
    return CameraRay(origin, normalize(span), length(span));
}

// The sun's visibility at `world_position` (a surface with unit normal
// `normal` on the sun's side): 0 where an opaque or alpha-masked object
// lies towards the sun (`light`, unit), 1 where none does. An alpha-masked
// occluder lets the sun through its holes; blended objects cast no shadow.
fn ray_sun_visibility(world_position: vec3<f32>, normal: vec3<f32>, light: vec3<f32>) -> f32 {
    // The ray starts off the surface along its normal, by 2e-4 of the
    // point's largest coordinate (at least 1): clear of the surface's own
    // triangles as f32 rounds positions. It reaches everything.
    let offset = 2e-4;
    let distance = 1e30;
    let p = abs(world_position);
    let scale = max(max(p.x, p.y), max(p.z, 1.0));
    let origin = world_position + normal * (offset * scale);
    let blocked = trace_any(origin, light, 0.0, distance, RAY_MASK_OPAQUE | RAY_MASK_MASKED);
    return select(1.0, 0.0, blocked);
}
