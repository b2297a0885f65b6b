// The shadow pass (src/passes/shadow.rs): one cascade's shadow casters,
// depth only, into its layer of the shadow map. Vertices are pulled as in
// the draw pass (pull.wgsl); `frame` is the cascade's view, whose
// clip_from_world is its orthographic projection along the light.
// Alpha-masked materials sample their base colour's alpha through the heap
// and discard below the cutoff (fs_mask), so they cast their holes; without
// a masked material in the scene the pass has no fragment shader at all.

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
#include "pull.wgsl"
#include "surface.wgsl"

struct ShadowVertex {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) uv0: vec2<f32>,
    @location(1) uv1: vec2<f32>,
    @location(2) @interpolate(flat) material: u32,
    // The vertex colour's alpha (it multiplies the base colour's).
    @location(3) alpha: f32,
}

@vertex
fn vs_shadow(
    @builtin(vertex_index) vertex_index: u32,
    @location(0) instance_slot: u32,
) -> ShadowVertex {
    let pulled = pull_vertex(instance_slot, vertex_index);
    let v = pulled.vertex;
    let world = pulled.object.world_from_object * vec4(v.position[0], v.position[1], v.position[2], 1.0);
    var out: ShadowVertex;
    out.clip_position = frame.clip_from_world * world;
    // Pancaking: a caster between the cascade and the sun (kept by the cull
    // pass) is flattened onto the near plane instead of clipped.
    out.clip_position.z = max(out.clip_position.z, 0.0);
    out.uv0 = vec2(v.uv0[0], v.uv0[1]);
    out.uv1 = vec2(v.uv1[0], v.uv1[1]);
    out.material = checked_index(pulled.object.material, counts.materials);
    out.alpha = unpack4x8unorm(v.color).a;
    return out;
}

// Alpha mask: the base colour's alpha (factor x texture x vertex colour,
// as the draw pass computes it) below the cutoff casts no shadow. Other
// materials write their depth.
@fragment
fn fs_mask(in: ShadowVertex) {
    var surface: VertexOutput;
    surface.uv0 = in.uv0;
    surface.uv1 = in.uv1;
    surface.color = vec4(1.0, 1.0, 1.0, in.alpha);
    // Derivatives in uniform control flow, before any branch.
    let d = uv_derivatives(surface);
    let material = materials[in.material];
    if material.alpha_mode != ALPHA_MASK {
        return;
    }
    var texels = default_texels();
    if material.base_color.texture != TEXTURE_WHITE {
        let c = texture_coordinates(material.base_color, surface, d);
        texels.base_color = sample_texture_2d_grad(material.base_color.texture, material.base_color.sampler, c.uv, c.dx, c.dy);
    }
    if surface_base_color(material, texels, surface).a < material.alpha_cutoff {
        discard;
    }
}
