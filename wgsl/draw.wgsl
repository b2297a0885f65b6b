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
    var out = surface_vertex(
        frame.clip_from_world,
        object.world_from_object,
        vec3(v.position[0], v.position[1], v.position[2]),
        v.normal_oct,
        v.tangent,
        vec2(v.uv0[0], v.uv0[1]),
        vec2(v.uv1[0], v.uv1[1]),
        checked_index(object.material, counts.materials),
    );
    out.object = object_index;
    if frame.debug_view == DEBUG_VIEW_DRAW {
        out.draw = find_draw(instance_slot);
    }
    return out;
}

// The indirect draw whose instance range holds visible-list entry `slot`, or
// 0xffffffff. Each pipeline bucket's region of `draws` lists its draws in
// increasing first_instance order (the cull pass builds them in key order),
// so a binary search per region finds it; the sorted blended draws after the
// regions are searched one by one. Debug view only.
fn find_draw(slot: u32) -> u32 {
    let region = (arrayLength(&draws) - BLEND_SORT_CAP) / BUCKETS;
    for (var b = 0u; b < BUCKETS; b++) {
        let first = b * region;
        var lo = first;
        var hi = first + min(cull_header.bucket_draws[b], region);
        // lo ends at the first draw starting after `slot`.
        while lo < hi {
            let mid = (lo + hi) / 2u;
            if draws[mid].first_instance <= slot {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
        if lo > first {
            let d = draws[lo - 1u];
            if slot < d.first_instance + d.instance_count {
                return lo - 1u;
            }
        }
    }
    // Exactly sorted blended draws (one instance each, in depth order).
    let sorted = region * BUCKETS;
    for (var i = 0u; i < min(cull_header.sorted_blend_draws, BLEND_SORT_CAP); i++) {
        let d = draws[sorted + i];
        if d.instance_count > 0u && d.first_instance == slot {
            return sorted + i;
        }
    }
    return 0xffffffffu;
}

// `id + 1` as 24-bit little-endian RGB: exact in an 8-bit linear target.
fn id_color(id: u32) -> vec4<f32> {
    let e = id + 1u;
    return vec4(f32(e & 0xffu), f32((e >> 8u) & 0xffu), f32((e >> 16u) & 0xffu), 255.0) / 255.0;
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
    var base_slot = TEXTURE_WHITE;
    var sampled_missing = false;
    if material.base_color.texture != TEXTURE_WHITE {
        texels.base_color = sample_material(material.base_color, in, d);
        base_slot = checked_index(material.base_color.texture, counts.textures_2d);
        sampled_missing = base_slot == TEXTURE_MISSING;
    }
    if (material.flags & MATERIAL_FLAG_NORMAL_MAP) != 0u {
        texels.normal = sample_material(material.normal, in, d);
        sampled_missing = sampled_missing || checked_index(material.normal.texture, counts.textures_2d) == TEXTURE_MISSING;
    }
    if material.occlusion.texture != TEXTURE_WHITE {
        texels.occlusion = sample_material(material.occlusion, in, d);
        sampled_missing = sampled_missing || checked_index(material.occlusion.texture, counts.textures_2d) == TEXTURE_MISSING;
    }
    if material.emissive.texture != TEXTURE_WHITE && any(material.emissive_factor != vec3(0.0)) {
        texels.emissive = sample_material(material.emissive, in, d);
        sampled_missing = sampled_missing || checked_index(material.emissive.texture, counts.textures_2d) == TEXTURE_MISSING;
    }
    let base_color = surface_base_color(material, texels);
    if material.alpha_mode == ALPHA_MASK && base_color.a < material.alpha_cutoff {
        discard;
    }
    // Debug views (src/debug.rs): the same fragments, another last step.
    switch frame.debug_view {
        case DEBUG_VIEW_MATERIAL: { return id_color(in.material); }
        case DEBUG_VIEW_OBJECT: { return id_color(in.object); }
        case DEBUG_VIEW_DRAW: { return id_color(in.draw); }
        case DEBUG_VIEW_TEXTURE_SLOT: { return id_color(base_slot); }
        default: {}
    }
    if sampled_missing && (frame.flags & FRAME_FLAG_HIGHLIGHT_MISSING) != 0u {
        return vec4(1.0, 0.0, 1.0, 1.0);
    }
    switch frame.debug_view {
        case DEBUG_VIEW_UNLIT: {
            return vec4(base_color.rgb, surface_alpha(material, base_color));
        }
        case DEBUG_VIEW_NORMALS: {
            return vec4(shading_normal(material, texels, in, front_facing) * 0.5 + 0.5, 1.0);
        }
        case DEBUG_VIEW_UVS: {
            return vec4(fract(in.uv0), 0.0, 1.0);
        }
        default: {
            return shade_surface(material, texels, in, front_facing);
        }
    }
}
