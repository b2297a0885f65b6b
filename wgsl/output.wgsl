// The output pass (src/passes/output.rs): one fullscreen triangle reads the
// HDR target the draw pass shaded (premultiplied: alpha is what covers the
// pixel), resolves it and writes the application's colour target.
//
// - lit view: the samples' average, un-premultiplied, times the exposure,
//   through the tone-mapping curve, premultiplied again; a sample past the
//   largest half float (infinity, or NaN from a blend over it) counts as
//   that largest value, and exposed radiance stops at 1e18, where every
//   curve is at its brightest: no NaN reaches the colour target;
// - debug views: the average as it is (no exposure, no curve);
// - id views: sample 0 as it is, never averaged, so ids stay exact (an id
//   byte k/255 survives the half float and the 8-bit write).
//
// The curves' CPU twins are in src/output.rs, with where each comes from.
// MULTISAMPLED: the HDR target has MSAA_SAMPLES samples per pixel
// (wgsl/hdr.wgsl reads it).

#include "types.wgsl"

// Exposure and curve (twin: GpuOutputUniforms).
struct OutputUniforms {
    exposure_scale: f32,
    tone_mapping: u32,
    debug_view: u32,
}

// OutputUniforms.tone_mapping (twin: output::ToneMapping).
const TONE_MAPPING_PBR_NEUTRAL: u32 = 0u;
const TONE_MAPPING_ACES: u32 = 1u;
const TONE_MAPPING_AGX: u32 = 2u;
const TONE_MAPPING_LINEAR: u32 = 3u;

@group(0) @binding(0) var<uniform> output: OutputUniforms;
#include "hdr.wgsl"

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    // (-1, -1), (3, -1), (-1, 3): one triangle covering the target.
    let corner = vec2(f32((vertex << 1u) & 2u), f32(vertex & 2u));
    return vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}

// Khronos PBR Neutral (the specification's formula).
fn pbr_neutral(color: vec3<f32>) -> vec3<f32> {
    let f90 = 0.04;
    let k_s = 0.8 - f90;
    let k_d = 0.15;
    let x = min(color.r, min(color.g, color.b));
    let f = select(f90, x - x * x / (4.0 * f90), x <= 2.0 * f90);
    let c = color - f;
    let p = max(c.r, max(c.g, c.b));
    if p <= k_s {
        return c;
    }
    let p_n = 1.0 - (1.0 - k_s) * (1.0 - k_s) / (p + 1.0 - 2.0 * k_s);
    let g = 1.0 / (k_d * (p - p_n) + 1.0);
    return c * (p_n / p * g) + vec3(p_n * (1.0 - g));
}

// ACES, Stephen Hill's fit, after the 1/0.6 exposure boost.
fn aces(color: vec3<f32>) -> vec3<f32> {
    // Columns: sRGB -> AP1 with the RRT's saturation, and back.
    let input = mat3x3(
        vec3(0.59719, 0.07600, 0.02840),
        vec3(0.35458, 0.90834, 0.13383),
        vec3(0.04823, 0.01566, 0.83777),
    );
    let output = mat3x3(
        vec3(1.60475, -0.10208, -0.00327),
        vec3(-0.53108, 1.10813, -0.07276),
        vec3(-0.07367, -0.00605, 1.07602),
    );
    let v = input * (color / 0.6);
    let fit = (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.4329510) + 0.238081);
    return clamp(output * fit, vec3(0.0), vec3(1.0));
}

// AgX: Sobotka's base, Wrensch's polynomial sigmoid, decoded with 2.2.
fn agx(color: vec3<f32>) -> vec3<f32> {
    let min_ev = -12.47393;
    let max_ev = 4.026069;
    let inset = mat3x3(
        vec3(0.842479062253094, 0.0423282422610123, 0.0423756549057051),
        vec3(0.0784335999999992, 0.878468636469772, 0.0784336),
        vec3(0.0792237451477643, 0.0791661274605434, 0.879142973793104),
    );
    let outset = mat3x3(
        vec3(1.19687900512017, -0.0528968517574562, -0.0529716355144438),
        vec3(-0.0980208811401368, 1.15190312990417, -0.0980434501171241),
        vec3(-0.0990297440797205, -0.0989611768448433, 1.15107367264116),
    );
    let log = clamp(log2(max(inset * color, vec3(1e-10))), vec3(min_ev), vec3(max_ev));
    let x = (log - min_ev) / (max_ev - min_ev);
    let x2 = x * x;
    let x4 = x2 * x2;
    let sigmoid = 15.5 * x4 * x2 - 40.14 * x4 * x + 31.96 * x4 - 6.868 * x2 * x + 0.4298 * x2 + 0.1191 * x - 0.00232;
    return pow(clamp(outset * sigmoid, vec3(0.0), vec3(1.0)), vec3(2.2));
}

fn tone_map(color: vec3<f32>) -> vec3<f32> {
    let c = max(color, vec3(0.0));
    switch output.tone_mapping {
        case TONE_MAPPING_ACES: { return aces(c); }
        case TONE_MAPPING_AGX: { return agx(c); }
        case TONE_MAPPING_LINEAR: { return c; }
        default: { return pbr_neutral(c); }
    }
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let pixel = vec2<u32>(position.xy);
    if output.debug_view >= DEBUG_VIEW_FIRST_ID && output.debug_view <= DEBUG_VIEW_LAST_ID {
        return textureLoad(hdr, pixel, 0);
    }
    let color = resolved(pixel);
    if output.debug_view != DEBUG_VIEW_LIT {
        return color;
    }
    if color.a <= 0.0 {
        return vec4(0.0);
    }
    // At most 1e18 (twin: output::EXPOSED_MAX): every curve shows its
    // brightest there already, and none overflows below it (ACES squares).
    let radiance = min(color.rgb / color.a * output.exposure_scale, vec3(1e18));
    return vec4(tone_map(radiance) * color.a, color.a);
}
