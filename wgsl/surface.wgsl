// Vertex decoding and surface shading of the bindless draw pass (draw.wgsl),
// written so that any other pipeline including this file (a comparison
// renderer, say) computes identical images from identical inputs.

#include "brdf.wgsl"
#include "octahedral.wgsl"
#include "environment.wgsl"
#if PUNCTUAL_LIGHTS
#include "punctual.wgsl"
#endif
#if SHADOWS
#include "shadows.wgsl"
#endif

struct VertexOutput {
    // Invariant: the draw pass's depth pre-pass (src/passes/prepass.rs)
    // runs this vertex shader in another pipeline, and the shaded draw then
    // tests its depth for equality with what the pre-pass wrote.
    @builtin(position) @invariant clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) world_tangent: vec4<f32>,
    @location(3) uv0: vec2<f32>,
    @location(4) uv1: vec2<f32>,
    @location(5) @interpolate(flat) material: u32,
    // Vertex colour (COLOR_0; white without one), linear RGBA.
    @location(6) color: vec4<f32>,
#if DEBUG_VIEWS
    // Set by the bindless draw pass's debug variant, for its id views.
    @location(7) @interpolate(flat) object: u32,
    @location(8) @interpolate(flat) draw: u32,
#endif
}

// How an object's transform moves directions: normals by the cofactor
// matrix (inverse transpose times the determinant), signed so they stay
// outward under mirroring; tangents by the linear part.
struct NormalTransform {
    normal: mat3x3<f32>,
    tangent: mat3x3<f32>,
}

fn normal_transform(world_from_object: mat4x4<f32>) -> NormalTransform {
    let c0 = world_from_object[0].xyz;
    let c1 = world_from_object[1].xyz;
    let c2 = world_from_object[2].xyz;
    // The sign is exact (a factor of 1 or -1), so the normal is the one
    // the sign applied after the product gives.
    let handed = select(1.0, -1.0, dot(c0, cross(c1, c2)) < 0.0);
    return NormalTransform(handed * mat3x3(cross(c1, c2), cross(c2, c0), cross(c0, c1)), mat3x3(c0, c1, c2));
}

// Transforms one arena-format vertex by `world_from_object`, whose normal
// transform `normals` is `normal_transform(world_from_object)` (built by the
// caller: the visibility buffer's material pass builds it once for three
// corners).
fn surface_vertex(
    clip_from_world: mat4x4<f32>,
    world_from_object: mat4x4<f32>,
    normals: NormalTransform,
    position: vec3<f32>,
    normal_oct: u32,
    tangent_packed: u32,
    uv0: vec2<f32>,
    uv1: vec2<f32>,
    color: u32,
    material: u32,
) -> VertexOutput {
    let world_position = world_from_object * vec4(position, 1.0);
    let tangent = unpack4x8snorm(tangent_packed);

    var out: VertexOutput;
    out.clip_position = clip_from_world * world_position;
    out.world_position = world_position.xyz;
    out.world_normal = normals.normal * decode_octahedral(normal_oct);
    out.world_tangent = vec4(normals.tangent * tangent.xyz, select(-1.0, 1.0, tangent.w >= 0.0));
    out.uv0 = uv0;
    out.uv1 = uv1;
    out.color = unpack4x8unorm(color);
    out.material = material;
    return out;
}

fn material_uv(t: MaterialTexture, uv0: vec2<f32>, uv1: vec2<f32>) -> vec2<f32> {
    let uv = vec3(select(uv0, uv1, t.uv_set == 1u), 1.0);
    return vec2(dot(t.uv_row0.xyz, uv), dot(t.uv_row1.xyz, uv));
}

// Screen-space derivatives of both UV sets, taken once at the top of the
// fragment shader (in uniform control flow) so textures can then be sampled
// with explicit gradients inside branches: materials skip the textures they
// do not use.
struct UvDerivatives {
    uv0_dx: vec2<f32>,
    uv0_dy: vec2<f32>,
    uv1_dx: vec2<f32>,
    uv1_dy: vec2<f32>,
}

fn uv_derivatives(in: VertexOutput) -> UvDerivatives {
    return UvDerivatives(dpdx(in.uv0), dpdy(in.uv0), dpdx(in.uv1), dpdy(in.uv1));
}

// UV, d(uv)/dx and d(uv)/dy of one material texture (the transform's linear
// part applied to the set's derivatives).
struct TextureCoordinates {
    uv: vec2<f32>,
    dx: vec2<f32>,
    dy: vec2<f32>,
}

fn texture_coordinates(t: MaterialTexture, in: VertexOutput, d: UvDerivatives) -> TextureCoordinates {
    let second = t.uv_set == 1u;
    let dx = select(d.uv0_dx, d.uv1_dx, second);
    let dy = select(d.uv0_dy, d.uv1_dy, second);
    return TextureCoordinates(
        material_uv(t, in.uv0, in.uv1),
        vec2(dot(t.uv_row0.xy, dx), dot(t.uv_row1.xy, dx)),
        vec2(dot(t.uv_row0.xy, dy), dot(t.uv_row1.xy, dy)),
    );
}

// The texels a material needs at one fragment.
struct SurfaceTexels {
    base_color: vec4<f32>,
    metallic_roughness: vec4<f32>,
    normal: vec4<f32>,
    occlusion: vec4<f32>,
    emissive: vec4<f32>,
}

// What an unused texture contributes (white; a flat normal).
fn default_texels() -> SurfaceTexels {
    return SurfaceTexels(vec4(1.0), vec4(1.0), vec4(0.5, 0.5, 1.0, 1.0), vec4(1.0), vec4(1.0));
}

// Base colour with alpha (before the mask test): factor x texture x vertex
// colour.
fn surface_base_color(material: Material, texels: SurfaceTexels, in: VertexOutput) -> vec4<f32> {
    return material.base_color_factor * texels.base_color * in.color;
}

// Metallic (the texture's blue channel) and roughness (green), as glTF says.
fn surface_metallic_roughness(material: Material, texels: SurfaceTexels) -> vec2<f32> {
    let mr = vec2(material.metallic_factor * texels.metallic_roughness.b, material.roughness_factor * texels.metallic_roughness.g);
    return clamp(mr, vec2(0.0), vec2(1.0));
}

// Ambient occlusion: the texture's red channel, scaled by the strength.
fn surface_occlusion(material: Material, texels: SurfaceTexels) -> f32 {
    return mix(1.0, texels.occlusion.r, material.occlusion_strength);
}

// Emitted radiance: factor x KHR_materials_emissive_strength x texture.
fn surface_emissive(material: Material, texels: SurfaceTexels) -> vec3<f32> {
    return material.emissive_factor * material.emissive_strength * texels.emissive.rgb;
}

// The interpolated normal, facing the viewer.
fn geometric_normal(in: VertexOutput, front_facing: bool) -> vec3<f32> {
    return normalize(in.world_normal) * select(-1.0, 1.0, front_facing);
}

// The tangent normal mapping uses: the vertex tangent made orthogonal to
// `normal` (the geometric normal).
fn surface_tangent(in: VertexOutput, normal: vec3<f32>) -> vec3<f32> {
    return normalize(in.world_tangent.xyz - normal * dot(normal, in.world_tangent.xyz));
}

// The shading normal: the interpolated normal facing the viewer, with the
// material's normal map applied (when normal maps are on).
fn shading_normal(
    material: Material,
    texels: SurfaceTexels,
    in: VertexOutput,
    front_facing: bool,
) -> vec3<f32> {
    var normal = geometric_normal(in, front_facing);
    let use_normal_map = (material.flags & MATERIAL_FLAG_NORMAL_MAP) != 0u
        && (frame.flags & FRAME_FLAG_NORMAL_MAPS) != 0u;
    if use_normal_map {
        let t = surface_tangent(in, normal);
        let b = cross(normal, t) * in.world_tangent.w;
        let n = (texels.normal.xyz * 2.0 - 1.0) * vec3(material.normal_scale, material.normal_scale, 1.0);
        normal = normalize(mat3x3(t, b, normal) * n);
    }
    return normal;
}

// Alpha as written: the base colour's for blended materials, else 1.
fn surface_alpha(material: Material, base_color: vec4<f32>) -> f32 {
    return select(1.0, base_color.a, material.alpha_mode == ALPHA_BLEND);
}

// The directional light (the sun), times its shadows' visibility in the
// variants defining SHADOWS (shadows.wgsl), and, in variants defining
// PUNCTUAL_LIGHTS, the punctual lights that reach the fragment
// (punctual.wgsl; shadowed spots times their visibility too) through the glTF BRDF (brdf.wgsl), plus the
// environment's light (environment.wgsl) scaled by `frame.ambient_color` and
// by occlusion (which applies to this indirect light only), plus emission.
// `frame.light_color` is the sun's illuminance on a surface facing it; in
// variants defining RAY_QUERY_SHADOWS the sun is seen only where a shadow
// ray towards it escapes (ray_hit.wgsl).
fn shade_surface(
    material: Material,
    texels: SurfaceTexels,
    in: VertexOutput,
    front_facing: bool,
) -> vec4<f32> {
    let base_color = surface_base_color(material, texels, in);
    if (material.flags & MATERIAL_FLAG_UNLIT) != 0u {
        // KHR_materials_unlit: the base colour is the radiance.
        return vec4(base_color.rgb, surface_alpha(material, base_color));
    }
    let normal = shading_normal(material, texels, in, front_facing);
    let view = normalize(frame.camera_position.xyz - in.world_position);
    let light = frame.light_direction.xyz;
    let mr = surface_metallic_roughness(material, texels);
    var sun = brdf(base_color.rgb, mr.x, mr.y, normal, view, light) * frame.light_color.rgb * max(dot(normal, light), 0.0);
#if SHADOWS
    // The sun only: image-based light is not shadowed.
    if dot(normal, light) > 0.0 {
        sun *= sun_visibility(in.world_position, geometric_normal(in, front_facing), light);
    }
#endif
#if RAY_QUERY_SHADOWS
    // The sun only: image-based light is not shadowed.
    if dot(normal, light) > 0.0 {
        sun *= ray_sun_visibility(in.world_position, geometric_normal(in, front_facing), light);
    }
#endif
    let indirect = environment_light(base_color.rgb, mr.x, mr.y, normal, view);
    let ambient = frame.ambient_color.rgb * indirect * surface_occlusion(material, texels);
#if PUNCTUAL_LIGHTS
    let punctual = punctual_lights(base_color.rgb, mr, normal, view, in.world_position, in.clip_position, geometric_normal(in, front_facing));
    return vec4(sun + punctual + ambient + surface_emissive(material, texels), surface_alpha(material, base_color));
#else
    return vec4(sun + ambient + surface_emissive(material, texels), surface_alpha(material, base_color));
#endif
}
