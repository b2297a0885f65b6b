// The draw pass: vertex pulling from the geometry arena, bindless shading.
//
// Draw identity: every indirect draw's first_instance is the start of its
// mesh's range in the visible list. `instance_slot` comes from an
// instance-rate vertex buffer holding 0, 1, 2, ... (bound once per frame);
// instance-rate attributes honour first_instance on every backend, whereas
// @builtin(instance_index) ignores it on DX12 under multi-draw-indirect-count.
// Indices in the arena are pre-offset, so every draw uses base vertex 0 and
// @builtin(vertex_index) is the arena index everywhere.

enable wgpu_binding_array;

#include "types.wgsl"
#include "scene.wgsl"
#include "heap.wgsl"

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) world_tangent: vec4<f32>,
    @location(3) uv0: vec2<f32>,
    @location(4) uv1: vec2<f32>,
    @location(5) @interpolate(flat) material: u32,
}

fn decode_octahedral(packed: u32) -> vec3<f32> {
    let e = unpack2x16snorm(packed);
    var n = vec3(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if n.z < 0.0 {
        let folded = (1.0 - abs(n.yx)) * select(vec2(-1.0), vec2(1.0), n.xy >= vec2(0.0));
        n = vec3(folded, n.z);
    }
    return normalize(n);
}

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) instance_slot: u32,
) -> VertexOutput {
    let object_index = visible_instances[min(instance_slot, arrayLength(&visible_instances) - 1u)];
    let object = objects[checked_index(object_index, counts.objects)];
    let vertex = vertices[checked_index(vertex_index, counts.vertices)];

    let world_from_object = object.world_from_object;
    let position = vec3(vertex.position[0], vertex.position[1], vertex.position[2]);
    let world_position = world_from_object * vec4(position, 1.0);

    // Normals transform by the cofactor matrix (inverse transpose times the
    // determinant); the sign keeps them outward under mirroring.
    let c0 = world_from_object[0].xyz;
    let c1 = world_from_object[1].xyz;
    let c2 = world_from_object[2].xyz;
    let cofactor = mat3x3(cross(c1, c2), cross(c2, c0), cross(c0, c1));
    let handed = select(1.0, -1.0, dot(c0, cross(c1, c2)) < 0.0);
    let tangent = unpack4x8snorm(vertex.tangent);

    var out: VertexOutput;
    out.clip_position = frame.clip_from_world * world_position;
    out.world_position = world_position.xyz;
    out.world_normal = handed * (cofactor * decode_octahedral(vertex.normal_oct));
    out.world_tangent = vec4(mat3x3(c0, c1, c2) * tangent.xyz, select(-1.0, 1.0, tangent.w >= 0.0));
    out.uv0 = vec2(vertex.uv0[0], vertex.uv0[1]);
    out.uv1 = vec2(vertex.uv1[0], vertex.uv1[1]);
    out.material = checked_index(object.material, counts.materials);
    return out;
}

fn material_uv(t: MaterialTexture, uv0: vec2<f32>, uv1: vec2<f32>) -> vec2<f32> {
    let uv = vec3(select(uv0, uv1, t.uv_set == 1u), 1.0);
    return vec2(dot(t.uv_row0.xyz, uv), dot(t.uv_row1.xyz, uv));
}

fn sample_material(t: MaterialTexture, uv0: vec2<f32>, uv1: vec2<f32>) -> vec4<f32> {
    return sample_texture_2d(t.texture, t.sampler, material_uv(t, uv0, uv1));
}

@fragment
fn fs_main(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let material = materials[in.material];

    // Every sample happens before any branch or discard (derivatives need
    // uniform control flow); the texture indices are non-uniform.
    let base_color = material.base_color_factor * sample_material(material.base_color, in.uv0, in.uv1);
    let normal_texel = sample_material(material.normal, in.uv0, in.uv1);
    let occlusion_texel = sample_material(material.occlusion, in.uv0, in.uv1);
    let emissive_texel = sample_material(material.emissive, in.uv0, in.uv1);

    var normal = normalize(in.world_normal) * select(-1.0, 1.0, front_facing);
    let use_normal_map = (material.flags & MATERIAL_FLAG_NORMAL_MAP) != 0u
        && (frame.flags & FRAME_FLAG_NORMAL_MAPS) != 0u;
    if use_normal_map {
        let t = normalize(in.world_tangent.xyz - normal * dot(normal, in.world_tangent.xyz));
        let b = cross(normal, t) * in.world_tangent.w;
        let n = (normal_texel.xyz * 2.0 - 1.0) * vec3(material.normal_scale, material.normal_scale, 1.0);
        normal = normalize(mat3x3(t, b, normal) * n);
    }

    if material.alpha_mode == ALPHA_MASK && base_color.a < material.alpha_cutoff {
        discard;
    }

    let occlusion = mix(1.0, occlusion_texel.r, material.occlusion_strength);
    let diffuse = max(dot(normal, frame.light_direction.xyz), 0.0);
    let lit = frame.ambient_color.rgb * occlusion + frame.light_color.rgb * diffuse;
    let emissive = material.emissive_factor * material.emissive_strength * emissive_texel.rgb;
    let alpha = select(1.0, base_color.a, material.alpha_mode == ALPHA_BLEND);
    return vec4(base_color.rgb * lit + emissive, alpha);
}
