// The draw pass: vertex pulling from the geometry arena, bindless shading.
//
// Draw identity: every indirect draw's first_instance is the start of its
// mesh's range in the visible list. `instance_slot` comes from an
// instance-rate vertex buffer holding 0, 1, 2, ... (bound once per frame);
// instance-rate attributes honour first_instance on every backend, whereas
// @builtin(instance_index) ignores it on DX12 under multi-draw-indirect-count.
// Indices in the arena are pre-offset, so every draw uses base vertex 0 and
// @builtin(vertex_index) is the arena index everywhere.

#if !TEXTURE_ARRAYS
enable wgpu_binding_array;
#endif

#include "types.wgsl"
#include "scene.wgsl"
#if TEXTURE_ARRAYS
#include "heap_arrays.wgsl"
#else
#include "heap.wgsl"
#endif
#include "surface.wgsl"

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) instance_slot: u32,
) -> VertexOutput {
    let object_index = visible_instances[min(instance_slot, arrayLength(&visible_instances) - 1u)];
    let object = objects[checked_index(object_index, counts.objects)];
    let v = vertices[checked_index(vertex_index, counts.vertices)];
    return surface_vertex(
        frame.clip_from_world,
        object.world_from_object,
        vec3(v.position[0], v.position[1], v.position[2]),
        v.normal_oct,
        v.tangent,
        vec2(v.uv0[0], v.uv0[1]),
        vec2(v.uv1[0], v.uv1[1]),
        checked_index(object.material, counts.materials),
    );
}

fn sample_material(t: MaterialTexture, in: VertexOutput, d: UvDerivatives) -> vec4<f32> {
    let c = texture_coordinates(t, in, d);
    return sample_texture_2d_grad(t.texture, t.sampler, c.uv, c.dx, c.dy);
}

@fragment
fn fs_main(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let d = uv_derivatives(in);
    let material = materials[in.material];
    // Textures are sampled with explicit gradients, so a material only pays
    // for the textures it uses (the white "no texture" slot is skipped; an
    // invalid slot is not white and samples the missing texture). The
    // texture indices are non-uniform.
    var texels = default_texels();
    if material.base_color.texture != TEXTURE_WHITE {
        texels.base_color = sample_material(material.base_color, in, d);
    }
    if (material.flags & MATERIAL_FLAG_NORMAL_MAP) != 0u {
        texels.normal = sample_material(material.normal, in, d);
    }
    if material.occlusion.texture != TEXTURE_WHITE {
        texels.occlusion = sample_material(material.occlusion, in, d);
    }
    if material.emissive.texture != TEXTURE_WHITE && any(material.emissive_factor != vec3(0.0)) {
        texels.emissive = sample_material(material.emissive, in, d);
    }
    if material.alpha_mode == ALPHA_MASK && surface_base_color(material, texels).a < material.alpha_cutoff {
        discard;
    }
    return shade_surface(material, texels, in, front_facing);
}
