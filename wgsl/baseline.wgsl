// The bind-per-draw baseline (src/baseline.rs): what a good wgpu user writes
// without unbound. Per material a bind group with its textures, per mesh its
// own vertex and index buffers, per object a transform at a dynamic uniform
// offset. Shading is the same function as the bindless path (surface.wgsl).

#include "types.wgsl"

@group(0) @binding(0) var<uniform> frame: FrameUniforms;

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var base_color_texture: texture_2d<f32>;
@group(1) @binding(2) var normal_texture: texture_2d<f32>;
@group(1) @binding(3) var occlusion_texture: texture_2d<f32>;
@group(1) @binding(4) var emissive_texture: texture_2d<f32>;
@group(1) @binding(5) var base_color_sampler: sampler;
@group(1) @binding(6) var normal_sampler: sampler;
@group(1) @binding(7) var occlusion_sampler: sampler;
@group(1) @binding(8) var emissive_sampler: sampler;

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
}

@vertex
fn vs_main(v: VertexInput) -> VertexOutput {
    return surface_vertex(frame.clip_from_world, object.world_from_object, v.position, v.normal_oct, v.tangent, v.uv0, v.uv1, 0u);
}

@fragment
fn fs_main(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    var texels: SurfaceTexels;
    texels.base_color = textureSample(base_color_texture, base_color_sampler, material_uv(material.base_color, in.uv0, in.uv1));
    texels.normal = textureSample(normal_texture, normal_sampler, material_uv(material.normal, in.uv0, in.uv1));
    texels.occlusion = textureSample(occlusion_texture, occlusion_sampler, material_uv(material.occlusion, in.uv0, in.uv1));
    texels.emissive = textureSample(emissive_texture, emissive_sampler, material_uv(material.emissive, in.uv0, in.uv1));
    if material.alpha_mode == ALPHA_MASK && surface_base_color(material, texels).a < material.alpha_cutoff {
        discard;
    }
    return shade_surface(material, texels, in, front_facing);
}
