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
#if RAY_QUERY_SHADOWS
enable wgpu_ray_query;
#endif

#include "types.wgsl"
#include "scene.wgsl"
#if TEXTURE_ARRAYS
#include "heap_arrays.wgsl"
#else
#include "heap.wgsl"
#endif
#include "pull.wgsl"
#if RAY_QUERY_SHADOWS
#include "ray_hit.wgsl"
#endif
#include "surface.wgsl"
#include "shade.wgsl"
#if PUNCTUAL_LIGHTS
#include "clusters.wgsl"

// punctual.wgsl's light list: the fragment's cluster's, written by the
// light pass (lights.wgsl), bounds-checked.
fn light_list(fragment: vec4<f32>) -> vec2<u32> {
    let range = cluster_ranges[min(fragment_cluster(fragment), arrayLength(&cluster_ranges) - 1u)];
    let first = min(range.x, arrayLength(&light_indices));
    return vec2(first, min(range.y, arrayLength(&light_indices) - first));
}

fn light_list_slot(i: u32) -> u32 {
    return light_indices[i];
}
#endif

// One pulled vertex as the raster passes' fragments see it: transformed
// by its object (skinned and morphed by the pull), its material checked.
// The visibility pass (visibility.wgsl) rasterises with it too; its
// material pass builds a triangle's corners with the same steps
// (object_vertex, vertex_world_from_object, surface_vertex).
fn pulled_surface(pulled: PulledVertex) -> VertexOutput {
    let v = pulled.vertex;
    return surface_vertex(
        frame.clip_from_world,
        pulled.object.world_from_object,
        normal_transform(pulled.object.world_from_object),
        vec3(v.position[0], v.position[1], v.position[2]),
        v.normal_oct,
        v.tangent,
        vec2(v.uv0[0], v.uv0[1]),
        vec2(v.uv1[0], v.uv1[1]),
        v.color,
        checked_index(pulled.object.material, counts.materials),
    );
}

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) instance_slot: u32,
) -> VertexOutput {
    let pulled = pull_vertex(instance_slot, vertex_index);
    var out = pulled_surface(pulled);
#if DEBUG_VIEWS
    out.object = pulled.object_index;
    if frame.debug_view == DEBUG_VIEW_DRAW {
        out.draw = find_draw(instance_slot);
    }
    if frame.debug_view == DEBUG_VIEW_LOD_LEVEL {
        out.draw = drawn_level(pulled.object.mesh, find_draw(instance_slot));
    }
#endif
    return out;
}

// The indirect draw whose instance range holds visible-list entry `slot`, or
// 0xffffffff. Each pipeline bucket's region of `draws` lists its draws in
// increasing first_instance order (the cull pass builds them in key order),
// so a binary search per region finds it; the sorted blended draws after the
// regions are searched one by one. Debug views, and the visibility pass
// (visibility.wgsl: the draw's first index).
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

// The level of detail draw `d` drew an instance of mesh slot `mesh` with:
// which of the mesh's entries (0: itself, l: its level l) has the index
// range the draw reads; 0xffffffff without a draw. LOD view only.
fn drawn_level(mesh: u32, d: u32) -> u32 {
    let entries = min(counts.meshes, arrayLength(&mesh_table));
    if d >= arrayLength(&draws) || mesh >= entries {
        return 0xffffffffu;
    }
    let first_index = draws[d].first_index;
    let entry = mesh_table[mesh];
    var level = 0u;
    for (var l = 0u; l < min(entry.lod_levels, MAX_LOD_LEVELS); l++) {
        if mesh_table[min(entry.lod_slots[l], entries - 1u)].first_index == first_index {
            level = l + 1u;
        }
    }
    return level;
}

// The LOD view's colours: level 0 blue, 1 green, 2 yellow, 3 red, 4 cyan,
// white for no level. Twin: lod::lod_level_color.
fn lod_level_color(level: u32) -> vec3<f32> {
    switch level {
        case 0u: { return vec3(0.0, 0.0, 1.0); }
        case 1u: { return vec3(0.0, 1.0, 0.0); }
        case 2u: { return vec3(1.0, 1.0, 0.0); }
        case 3u: { return vec3(1.0, 0.0, 0.0); }
        case 4u: { return vec3(0.0, 1.0, 1.0); }
        default: { return vec3(1.0); }
    }
}

// The heat map of the light-count view: black for no light, then on a
// log2 scale blue (1 light), cyan (about 3), green (8), yellow (about 23)
// and red (64 and more). Twin: debug::light_count_color.
fn light_count_color(count: u32) -> vec3<f32> {
    if count == 0u {
        return vec3(0.0);
    }
    let t = min(log2(f32(count)) / 6.0, 1.0);
    let ramp = array<vec3<f32>, 5>(vec3(0.0, 0.0, 1.0), vec3(0.0, 1.0, 1.0), vec3(0.0, 1.0, 0.0), vec3(1.0, 1.0, 0.0), vec3(1.0, 0.0, 0.0));
    let x = t * 4.0;
    let i = min(u32(x), 3u);
    return mix(ramp[i], ramp[i + 1u], x - f32(i));
}

#if DEBUG_VIEWS
// The raster view's colours before shading: orange where the compute
// rasteriser drew the pixel, blue where the hardware did. Twin:
// debug::raster_view_color.
fn raster_view_color(compute: bool) -> vec3<f32> {
    return select(vec3(0.0, 0.5, 1.0), vec3(1.0, 0.5, 0.0), compute);
}

// The debug views' last step (src/debug.rs) for a surface the alpha test
// kept, sampled as `sampled`: a fragment of the draw pass, or a pixel of
// the visibility buffer's material pass (visibility.wgsl), which fills
// `in` the same way: `in.object` the object slot, `in.draw` the draw
// (draw view) or the level of detail (LOD view); `compute` whether the
// compute rasteriser drew it (raster view; never in the draw pass).
fn debug_color(material: Material, sampled: SampledSurface, in: VertexOutput, front_facing: bool, compute: bool) -> vec4<f32> {
    let texels = sampled.texels;
    let base_color = surface_base_color(material, texels, in);
    let base_slot = select(TEXTURE_WHITE, checked_index(material.base_color.texture, counts.textures_2d), texture_used(material, 0u));
    switch frame.debug_view {
        case DEBUG_VIEW_MATERIAL: { return id_color(in.material); }
        case DEBUG_VIEW_OBJECT: { return id_color(in.object); }
        case DEBUG_VIEW_DRAW: { return id_color(in.draw); }
        case DEBUG_VIEW_TEXTURE_SLOT: { return id_color(base_slot); }
        default: {}
    }
    if sampled.missing && (frame.flags & FRAME_FLAG_HIGHLIGHT_MISSING) != 0u {
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
        case DEBUG_VIEW_METALLIC: {
            return vec4(vec3(surface_metallic_roughness(material, texels).x), 1.0);
        }
        case DEBUG_VIEW_ROUGHNESS: {
            return vec4(vec3(surface_metallic_roughness(material, texels).y), 1.0);
        }
        case DEBUG_VIEW_OCCLUSION: {
            return vec4(vec3(surface_occlusion(material, texels)), 1.0);
        }
        case DEBUG_VIEW_EMISSIVE: {
            return vec4(surface_emissive(material, texels), 1.0);
        }
        case DEBUG_VIEW_TANGENTS: {
            return vec4(surface_tangent(in, geometric_normal(in, front_facing)) * 0.5 + 0.5, 1.0);
        }
        case DEBUG_VIEW_CASCADES: {
#if SHADOWS
            return vec4(cascade_view(in.world_position, geometric_normal(in, front_facing)), 1.0);
#else
            return vec4(1.0);
#endif
        }
        case DEBUG_VIEW_LOD_LEVEL: {
            // Shaded a little (half to full) so the shape stays readable.
            let shade = 0.75 + 0.25 * geometric_normal(in, front_facing).y;
            return vec4(lod_level_color(in.draw) * shade, 1.0);
        }
        case DEBUG_VIEW_RASTER: {
            // Shaded as the LOD view, so the shape stays readable.
            let shade = 0.75 + 0.25 * geometric_normal(in, front_facing).y;
            return vec4(raster_view_color(compute) * shade, 1.0);
        }
        case DEBUG_VIEW_LIGHT_COUNT: {
            return vec4(light_count_color(select(0u, light_list(in.clip_position).y, frame.light_grid.w != 0u)), 1.0);
        }
        default: {
            return shade_surface(material, texels, in, front_facing);
        }
    }
}
#endif

// The depth pre-pass's fragment shader (src/passes/prepass.rs), only while
// a material is alpha-masked: fs_main's alpha test, computed the same way
// (the base colour's texel, sampled with the same gradients), so that a
// fragment the pre-pass keeps is one fs_main keeps. Other materials write
// their depth.
@fragment
fn fs_depth(in: VertexOutput) {
    let d = uv_derivatives(in);
    if alpha_masked_out(materials[in.material], in, d) {
        discard;
    }
}

// EARLY_DEPTH (texture feedback variants, src/shaders/feedback.rs's
// CameraFeedback::choose): the depth test runs before the shader, so that
// fragments it rejects do not run the shading (which stores the feedback:
// a shader with stores and no forced early test runs for every fragment).
// Only where no pipeline of the module both writes depth and can discard.
#if EARLY_DEPTH
@early_depth_test(force)
#endif
@fragment
fn fs_main(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let d = uv_derivatives(in);
    let material = materials[in.material];
    let sampled = sample_surface(material, in, d);
    let texels = sampled.texels;
    let base_color = surface_base_color(material, texels, in);
    if material.alpha_mode == ALPHA_MASK && base_color.a < material.alpha_cutoff {
        discard;
    }
#if !DEBUG_VIEWS
    return shade_surface(material, texels, in, front_facing);
#else
    return debug_color(material, sampled, in, front_facing, false);
#endif
}
