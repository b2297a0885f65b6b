// Tier C's heap (src/heap/texture_arrays.rs): no binding arrays. Every 2D
// texture is a layer of one of six texture arrays (size classes 64, 256, 1024
// x sRGB, linear), each bound once per sampler; texture_locations maps a heap
// slot to `array << TEXTURE_LOCATION_ARRAY_SHIFT | layer`, sampler_modes a
// sampler slot to SAMPLER_MODE_REPEAT or SAMPLER_MODE_CLAMP. Same slots, same
// checks against TableCounts as the bindless heap. Every number here has a
// Rust twin in src/gpu_types/texture_arrays.rs.

// The arrays, by size class and format.
const TEXTURE_ARRAY_64_SRGB: u32 = 0u;
const TEXTURE_ARRAY_64_LINEAR: u32 = 1u;
const TEXTURE_ARRAY_256_SRGB: u32 = 2u;
const TEXTURE_ARRAY_256_LINEAR: u32 = 3u;
const TEXTURE_ARRAY_1024_SRGB: u32 = 4u;
const TEXTURE_ARRAY_1024_LINEAR: u32 = 5u;
const TEXTURE_ARRAYS: u32 = 6u;
// Array `a` is bound at BINDING_REPEAT_ARRAYS + a with the repeating
// sampler and at BINDING_CLAMP_ARRAYS + a with the clamping one (GL pairs
// each texture with exactly one sampler).
const BINDING_REPEAT_ARRAYS: u32 = 0u;
const BINDING_CLAMP_ARRAYS: u32 = 6u;
const BINDING_SAMPLER_REPEAT: u32 = 12u;
const BINDING_SAMPLER_CLAMP: u32 = 13u;
const BINDING_TEXTURE_LOCATIONS: u32 = 14u;
const BINDING_SAMPLER_MODES: u32 = 15u;

@group(0) @binding(BINDING_REPEAT_ARRAYS + TEXTURE_ARRAY_64_SRGB) var repeat_64_srgb: texture_2d_array<f32>;
@group(0) @binding(BINDING_REPEAT_ARRAYS + TEXTURE_ARRAY_64_LINEAR) var repeat_64_linear: texture_2d_array<f32>;
@group(0) @binding(BINDING_REPEAT_ARRAYS + TEXTURE_ARRAY_256_SRGB) var repeat_256_srgb: texture_2d_array<f32>;
@group(0) @binding(BINDING_REPEAT_ARRAYS + TEXTURE_ARRAY_256_LINEAR) var repeat_256_linear: texture_2d_array<f32>;
@group(0) @binding(BINDING_REPEAT_ARRAYS + TEXTURE_ARRAY_1024_SRGB) var repeat_1024_srgb: texture_2d_array<f32>;
@group(0) @binding(BINDING_REPEAT_ARRAYS + TEXTURE_ARRAY_1024_LINEAR) var repeat_1024_linear: texture_2d_array<f32>;
@group(0) @binding(BINDING_CLAMP_ARRAYS + TEXTURE_ARRAY_64_SRGB) var clamp_64_srgb: texture_2d_array<f32>;
@group(0) @binding(BINDING_CLAMP_ARRAYS + TEXTURE_ARRAY_64_LINEAR) var clamp_64_linear: texture_2d_array<f32>;
@group(0) @binding(BINDING_CLAMP_ARRAYS + TEXTURE_ARRAY_256_SRGB) var clamp_256_srgb: texture_2d_array<f32>;
@group(0) @binding(BINDING_CLAMP_ARRAYS + TEXTURE_ARRAY_256_LINEAR) var clamp_256_linear: texture_2d_array<f32>;
@group(0) @binding(BINDING_CLAMP_ARRAYS + TEXTURE_ARRAY_1024_SRGB) var clamp_1024_srgb: texture_2d_array<f32>;
@group(0) @binding(BINDING_CLAMP_ARRAYS + TEXTURE_ARRAY_1024_LINEAR) var clamp_1024_linear: texture_2d_array<f32>;
@group(0) @binding(BINDING_SAMPLER_REPEAT) var sampler_repeat: sampler;
@group(0) @binding(BINDING_SAMPLER_CLAMP) var sampler_clamp: sampler;
@group(0) @binding(BINDING_TEXTURE_LOCATIONS) var<storage, read> texture_locations: array<u32>;
@group(0) @binding(BINDING_SAMPLER_MODES) var<storage, read> sampler_modes: array<u32>;

#include "heap_locations.wgsl"

// Reserved 2D slot holding the visible "missing" texture, where invalid
// indices land (twin: heap::TEXTURE_MISSING).
const TEXTURE_MISSING: u32 = 0u;
// Reserved 2D slot holding white: "no texture" (twin: heap::TEXTURE_WHITE).
const TEXTURE_WHITE: u32 = 1u;
// Twins: gpu_types::SAMPLER_MODE_*.
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
        case TEXTURE_ARRAY_64_SRGB: {
            if clamp { return textureSampleGrad(clamp_64_srgb, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_64_srgb, sampler_repeat, uv, layer, dx, dy);
        }
        case TEXTURE_ARRAY_64_LINEAR: {
            if clamp { return textureSampleGrad(clamp_64_linear, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_64_linear, sampler_repeat, uv, layer, dx, dy);
        }
        case TEXTURE_ARRAY_256_SRGB: {
            if clamp { return textureSampleGrad(clamp_256_srgb, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_256_srgb, sampler_repeat, uv, layer, dx, dy);
        }
        case TEXTURE_ARRAY_256_LINEAR: {
            if clamp { return textureSampleGrad(clamp_256_linear, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_256_linear, sampler_repeat, uv, layer, dx, dy);
        }
        case TEXTURE_ARRAY_1024_SRGB: {
            if clamp { return textureSampleGrad(clamp_1024_srgb, sampler_clamp, uv, layer, dx, dy); }
            return textureSampleGrad(repeat_1024_srgb, sampler_repeat, uv, layer, dx, dy);
        }
        // TEXTURE_ARRAY_1024_LINEAR
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
