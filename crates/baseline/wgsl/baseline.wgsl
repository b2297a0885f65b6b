// The bind-per-draw baseline (crates/baseline): what a good wgpu user writes
// without unbound. Per material a bind group with its textures, per mesh its
// own vertex and index buffers, per object a transform at a dynamic uniform
// offset. Shading is the same function as the bindless path (surface.wgsl).

#include "types.wgsl"

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
#if PUNCTUAL_LIGHTS
// The punctual lights, all of them looped over by every fragment (no
// clusters): a light that does not reach a fragment adds exactly zero.
@group(0) @binding(1) var<storage, read> lights: array<Light>;

// punctual.wgsl's light list: every slot.
fn light_list(fragment: vec4<f32>) -> vec2<u32> {
    return vec2(0u, min(frame.light_grid.w, arrayLength(&lights)));
}

fn light_list_slot(i: u32) -> u32 {
    return i;
}
#endif

@group(1) @binding(0) var<uniform> material: Material;
// Textures at 1-5 and their samplers at 6-10, in the material's order.
@group(1) @binding(1) var base_color_texture: texture_2d<f32>;
@group(1) @binding(2) var metallic_roughness_texture: texture_2d<f32>;
@group(1) @binding(3) var normal_texture: texture_2d<f32>;
@group(1) @binding(4) var occlusion_texture: texture_2d<f32>;
@group(1) @binding(5) var emissive_texture: texture_2d<f32>;
@group(1) @binding(6) var base_color_sampler: sampler;
@group(1) @binding(7) var metallic_roughness_sampler: sampler;
@group(1) @binding(8) var normal_sampler: sampler;
@group(1) @binding(9) var occlusion_sampler: sampler;
@group(1) @binding(10) var emissive_sampler: sampler;

struct ObjectUniforms {
    world_from_object: mat4x4<f32>,
}
@group(2) @binding(0) var<uniform> object: ObjectUniforms;

#include "surface.wgsl"

struct VertexInput {
    @location(0) position: vec3<f32>,
    @location(1) normal_oct: u32,
    @location(2) tangent: u32,
    @location(3) uv0: vec2<f32>,
    @location(4) uv1: vec2<f32>,
    @location(5) color: u32,
}

@vertex
fn vs_main(v: VertexInput) -> VertexOutput {
    return surface_vertex(frame.clip_from_world, object.world_from_object, normal_transform(object.world_from_object), v.position, v.normal_oct, v.tangent, v.uv0, v.uv1, v.color, 0u);
}

fn sample_grad(texture: texture_2d<f32>, s: sampler, t: MaterialTexture, in: VertexOutput, d: UvDerivatives) -> vec4<f32> {
    let c = texture_coordinates(t, in, d);
    return textureSampleGrad(texture, s, c.uv, c.dx, c.dy);
}

@fragment
fn fs_main(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    // The classic way: every bound texture is sampled (unused ones are bound
    // to a white texture). Explicit gradients as in the bindless path, so
    // both compute the same level of detail.
    let d = uv_derivatives(in);
    var texels: SurfaceTexels;
    texels.base_color = sample_grad(base_color_texture, base_color_sampler, material.base_color, in, d);
    texels.metallic_roughness = sample_grad(metallic_roughness_texture, metallic_roughness_sampler, material.metallic_roughness, in, d);
    texels.normal = sample_grad(normal_texture, normal_sampler, material.normal, in, d);
    texels.occlusion = sample_grad(occlusion_texture, occlusion_sampler, material.occlusion, in, d);
    texels.emissive = sample_grad(emissive_texture, emissive_sampler, material.emissive, in, d);
    if material.alpha_mode == ALPHA_MASK && surface_base_color(material, texels, in).a < material.alpha_cutoff {
        discard;
    }
    return shade_surface(material, texels, in, front_facing);
}
