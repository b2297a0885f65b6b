// Mip generation: each level is the previous one sampled once per texel with
// a linear filter at its centre, i.e. a 2x2 box filter (see src/mipmaps.rs).

@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var source_sampler: sampler;

struct FullscreenVertex {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_fullscreen(@builtin(vertex_index) vertex_index: u32) -> FullscreenVertex {
    // One triangle covering the target: uv (0,0), (2,0), (0,2).
    let uv = vec2(f32((vertex_index << 1u) & 2u), f32(vertex_index & 2u));
    var out: FullscreenVertex;
    out.clip_position = vec4(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0, 1.0);
    out.uv = uv;
    return out;
}

@fragment
fn fs_downsample(in: FullscreenVertex) -> @location(0) vec4<f32> {
    return textureSample(source, source_sampler, in.uv);
}
