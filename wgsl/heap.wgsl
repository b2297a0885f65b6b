// The resource heap: every texture and sampler, bound once per frame
// (group 0; see src/heap/). Free slots hold the "missing" texture; slots
// past the bound prefix are not bound at all, so every index is checked
// against TableCounts before use (wgpu does not bounds-check binding arrays).

@group(0) @binding(0) var textures_2d: binding_array<texture_2d<f32>>;
@group(0) @binding(1) var textures_cube: binding_array<texture_cube<f32>>;
@group(0) @binding(2) var samplers: binding_array<sampler>;

// Reserved 2D slot holding the visible "missing" texture, where invalid
// indices land (twin: heap::TEXTURE_MISSING).
const TEXTURE_MISSING: u32 = 0u;
// Reserved 2D slot holding white: "no texture" (twin: heap::TEXTURE_WHITE).
const TEXTURE_WHITE: u32 = 1u;

// Index `i` if it is below `live`, else the fallback slot 0.
fn checked_index(i: u32, live: u32) -> u32 {
    return select(0u, i, i < live);
}

fn sample_texture_2d(texture: u32, sampler_slot: u32, uv: vec2<f32>) -> vec4<f32> {
    let t = checked_index(texture, counts.textures_2d);
    let s = checked_index(sampler_slot, counts.samplers);
    return textureSample(textures_2d[t], samplers[s], uv);
}

fn sample_texture_2d_grad(texture: u32, sampler_slot: u32, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec4<f32> {
    let t = checked_index(texture, counts.textures_2d);
    let s = checked_index(sampler_slot, counts.samplers);
    return textureSampleGrad(textures_2d[t], samplers[s], uv, dx, dy);
}

fn sample_texture_cube(texture: u32, sampler_slot: u32, direction: vec3<f32>) -> vec4<f32> {
    let t = checked_index(texture, counts.textures_cube);
    let s = checked_index(sampler_slot, counts.samplers);
    return textureSample(textures_cube[t], samplers[s], direction);
}
