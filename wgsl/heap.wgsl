// The resource heap: every texture and sampler, bound once per frame
// (group 0; see src/heap/). Free slots hold the "missing" texture; slots
// past the bound prefix are not bound at all, so every index is checked
// against TableCounts before use (wgpu does not bounds-check binding arrays).
//
// With TEXTURE_PAGES (src/heap/pages.rs), 2D textures are layers of pages
// (2D texture arrays by size class and format) and texture_locations maps a
// slot to `page << TEXTURE_LOCATION_ARRAY_SHIFT | layer`; the map only
// names live pages. Bindings: src/heap/binding_arrays.rs, src/heap/pages.rs.

#if TEXTURE_PAGES
@group(0) @binding(0) var texture_pages: binding_array<texture_2d_array<f32>>;
#else
@group(0) @binding(0) var textures_2d: binding_array<texture_2d<f32>>;
#endif
@group(0) @binding(1) var textures_cube: binding_array<texture_cube<f32>>;
@group(0) @binding(2) var samplers: binding_array<sampler>;
#if TEXTURE_PAGES
@group(0) @binding(3) var<storage, read> texture_locations: array<u32>;
#include "heap_locations.wgsl"
#endif
#if TEXTURE_FEEDBACK
// Pages under a texture budget: the camera's texture feedback, per 2D slot
// the finest level code a sampled fragment asked for (src/heap/feedback.rs).
@group(0) @binding(4) var<storage, read_write> texture_feedback: array<atomic<u32>>;

// The finest level code (twin: heap::MAX_LEVEL_CODE).
const TEXTURE_FEEDBACK_MAX_CODE: u32 = 16u;
#endif

// Reserved 2D slot holding the visible "missing" texture, where invalid
// indices land (twin: heap::TEXTURE_MISSING).
const TEXTURE_MISSING: u32 = 0u;
// Reserved 2D slot holding white: "no texture" (twin: heap::TEXTURE_WHITE).
const TEXTURE_WHITE: u32 = 1u;

// Index `i` if it is below `live`, else the fallback slot 0.
fn checked_index(i: u32, live: u32) -> u32 {
    return select(0u, i, i < live);
}

#if TEXTURE_PAGES
// The page and layer of a 2D slot (checked: invalid slots land on slot 0).
fn texture_location(texture: u32) -> vec2<u32> {
    let slot = min(checked_index(texture, counts.textures_2d), arrayLength(&texture_locations) - 1u);
    let location = texture_locations[slot];
    return vec2(location >> TEXTURE_LOCATION_ARRAY_SHIFT, location & TEXTURE_LOCATION_LAYER_MASK);
}

#if TEXTURE_FEEDBACK
// The level code of a footprint of `rho` texture widths per pixel: code c
// asks for 2^(c - 1) texels across; 0 is left for "not seen" (twin:
// heap::level_code).
fn feedback_code(rho: f32) -> u32 {
    let needed = ceil(log2(1.0 / max(rho, 1e-9))) + 1.0;
    return u32(clamp(needed, 1.0, f32(TEXTURE_FEEDBACK_MAX_CODE)));
}

// Records the level a fragment at `pixel` asks of `texture` (UV
// derivatives `dx`, `dy`), for one fragment in 8: those with
// ((x ^ y) + frame % 8) % 8 == 0, so that every pixel writes once in 8
// frames (src/heap/feedback.rs). Checked before written: a fragment whose
// code the slot already holds (most of them, once a frame's first fragments
// have written) only loads, so the atomics contend only while a code grows.
fn note_texture_feedback(texture: u32, pixel: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) {
    let p = vec2<u32>(max(pixel, vec2(0.0)));
    let rotation = (frame.flags >> FRAME_FLAG_FEEDBACK_SHIFT) & 7u;
    if (((p.x ^ p.y) + rotation) & 7u) != 0u {
        return;
    }
    let slot = min(checked_index(texture, counts.textures_2d), arrayLength(&texture_feedback) - 1u);
    let code = feedback_code(max(length(dx), length(dy)));
    if atomicLoad(&texture_feedback[slot]) < code {
        atomicMax(&texture_feedback[slot], code);
    }
}
#endif

fn sample_texture_2d_grad(texture: u32, sampler_slot: u32, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec4<f32> {
    let at = texture_location(texture);
    let s = checked_index(sampler_slot, counts.samplers);
    return textureSampleGrad(texture_pages[at.x], samplers[s], uv, at.y, dx, dy);
}

fn sample_texture_2d_level0(texture: u32, sampler_slot: u32, uv: vec2<f32>) -> vec4<f32> {
    let at = texture_location(texture);
    let s = checked_index(sampler_slot, counts.samplers);
    return textureSampleLevel(texture_pages[at.x], samplers[s], uv, at.y, 0.0);
}
#else
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

fn sample_texture_2d_level0(texture: u32, sampler_slot: u32, uv: vec2<f32>) -> vec4<f32> {
    let t = checked_index(texture, counts.textures_2d);
    let s = checked_index(sampler_slot, counts.samplers);
    return textureSampleLevel(textures_2d[t], samplers[s], uv, 0.0);
}
#endif

fn sample_texture_cube(texture: u32, sampler_slot: u32, direction: vec3<f32>) -> vec4<f32> {
    let t = checked_index(texture, counts.textures_cube);
    let s = checked_index(sampler_slot, counts.samplers);
    return textureSample(textures_cube[t], samplers[s], direction);
}
