// Tier C's heap (src/texture_arrays.rs): no binding arrays. Every 2D texture
// is a layer of one of six texture arrays (size classes 64, 256, 1024 x sRGB,
// linear), each bound once per sampler; texture_locations maps a heap slot to
// `array << TEXTURE_LOCATION_ARRAY_SHIFT | layer`, sampler_modes a sampler slot
// to SAMPLER_MODE_REPEAT or SAMPLER_MODE_CLAMP. Same slots, same checks
// against TableCounts as the bindless heap.

@group(0) @binding(0) var repeat_64_srgb: texture_2d_array<f32>;
@group(0) @binding(1) var repeat_64_linear: texture_2d_array<f32>;
@group(0) @binding(2) var repeat_256_srgb: texture_2d_array<f32>;
@group(0) @binding(3) var repeat_256_linear: texture_2d_array<f32>;
@group(0) @binding(4) var repeat_1024_srgb: texture_2d_array<f32>;
@group(0) @binding(5) var repeat_1024_linear: texture_2d_array<f32>;
@group(0) @binding(6) var clamp_64_srgb: texture_2d_array<f32>;
@group(0) @binding(7) var clamp_64_linear: texture_2d_array<f32>;
@group(0) @binding(8) var clamp_256_srgb: texture_2d_array<f32>;
@group(0) @binding(9) var clamp_256_linear: texture_2d_array<f32>;
@group(0) @binding(10) var clamp_1024_srgb: texture_2d_array<f32>;
@group(0) @binding(11) var clamp_1024_linear: texture_2d_array<f32>;
@group(0) @binding(12) var sampler_repeat: sampler;
@group(0) @binding(13) var sampler_clamp: sampler;
@group(0) @binding(14) var<storage, read> texture_locations: array<u32>;
@group(0) @binding(15) var<storage, read> sampler_modes: array<u32>;

// Reserved 2D slot holding the visible "missing" texture, where invalid
// indices land (twin: heap::TEXTURE_MISSING).
const TEXTURE_MISSING: u32 = 0u;
// Reserved 2D slot holding white: "no texture" (twin: heap::TEXTURE_WHITE).
const TEXTURE_WHITE: u32 = 1u;
// Twins: gpu_types::TEXTURE_LOCATION_*, gpu_types::SAMPLER_MODE_*.
const TEXTURE_LOCATION_ARRAY_SHIFT: u32 = 24u;
const TEXTURE_LOCATION_LAYER_MASK: u32 = 0xffffffu;
const SAMPLER_MODE_REPEAT: u32 = 0u;
const SAMPLER_MODE_CLAMP: u32 = 1u;

// Index `i` if it is below `live`, else the fallback slot 0.
fn checked_index(i: u32, live: u32) -> u32 {
    return select(0u, i, i < live);
}

fn sample_array(array: u32, clamp: bool, uv: vec2<f32>, layer: i32, dx: vec2<f32>, dy: vec2<f32>) -> vec4<f32> {
    // GL combines each texture with exactly one sampler, so every array is
    // bound twice (repeat and clamp): 12 texture units of the 16 a stage has.
    switch array {
        case 0u: {
            if clamp { return textureSampleGrad(clamp_64_srgb, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_64_srgb, sampler_repeat, uv, layer, dx, dy);
        }
        case 1u: {
            if clamp { return textureSampleGrad(clamp_64_linear, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_64_linear, sampler_repeat, uv, layer, dx, dy);
        }
        case 2u: {
            if clamp { return textureSampleGrad(clamp_256_srgb, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_256_srgb, sampler_repeat, uv, layer, dx, dy);
        }
        case 3u: {
            if clamp { return textureSampleGrad(clamp_256_linear, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_256_linear, sampler_repeat, uv, layer, dx, dy);
        }
        case 4u: {
            if clamp { return textureSampleGrad(clamp_1024_srgb, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_1024_srgb, sampler_repeat, uv, layer, dx, dy);
        }
        default: {
            if clamp { return textureSampleGrad(clamp_1024_linear, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_1024_linear, sampler_repeat, uv, layer, dx, dy);
        }
    }
}

fn sample_texture_2d_grad(texture: u32, sampler_slot: u32, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec4<f32> {
    let slot = min(checked_index(texture, counts.textures_2d), arrayLength(&texture_locations) - 1u);
    let location = texture_locations[slot];
    let mode = sampler_modes[min(checked_index(sampler_slot, counts.samplers), arrayLength(&sampler_modes) - 1u)];
    return sample_array(location >> TEXTURE_LOCATION_ARRAY_SHIFT, mode != SAMPLER_MODE_REPEAT, uv, i32(location & TEXTURE_LOCATION_LAYER_MASK), dx, dy);
}
