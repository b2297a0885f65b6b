// Automatic exposure (src/passes/exposure.rs; what it computes and why:
// src/exposure.rs, whose LuminanceHistogram is the CPU twin).
//
// histogram_main: one invocation per pixel of the HDR target, 16x16 per
// workgroup: the pixel's bin counted in workgroup memory, then each
// workgroup's counts added to the frame's histogram.
// reduce_main: one workgroup of EXPOSURE_BINS: reads the histogram and
// clears it for the next frame; invocation 0 walks the bins in order and
// writes the exposure (ExposureState), which the output pass copies.
// MULTISAMPLED: the HDR target has MSAA_SAMPLES samples per pixel.

// Twins: exposure::EXPOSURE_BINS, MIN_LOG2_LUMINANCE, MAX_LOG2_LUMINANCE.
const EXPOSURE_BINS: u32 = 256u;
const MIN_LOG2_LUMINANCE: i32 = -20;
const MAX_LOG2_LUMINANCE: i32 = 16;

// Rec. 709 luminance (twin: exposure::luminance, output::LUMINANCE_WEIGHTS).
fn luminance(rgb: vec3<f32>) -> f32 {
    return dot(rgb, vec3(0.2126, 0.7152, 0.0722));
}

// Twin: GpuExposureParams.
struct ExposureParams {
    min_ev: f32,
    max_ev: f32,
    // log2(MID_GREY) + compensation_ev: where the metered mean goes.
    key_log2: f32,
    adaptation: f32,
    low_fraction: f32,
    high_fraction: f32,
    // 1: go straight to the metered exposure (the first frame).
    jump: u32,
}

// Twin: GpuExposureState.
struct ExposureState {
    exposure_ev: f32,
    exposure_scale: f32,
    target_ev: f32,
    metered_pixels: u32,
}

@group(0) @binding(0) var<uniform> params: ExposureParams;
#include "hdr.wgsl"
@group(0) @binding(2) var<storage, read_write> histogram: array<atomic<u32>, EXPOSURE_BINS>;
@group(0) @binding(3) var<storage, read_write> state: ExposureState;
// The frame's depth target, as unfilterable float (GLSL cannot textureLoad
// a depth texture): pixels still at the far plane show the clear colour,
// not the scene, and are not metered.
#if MULTISAMPLED
@group(0) @binding(4) var depth: texture_multisampled_2d<f32>;
#else
@group(0) @binding(4) var depth: texture_2d<f32>;
#endif

// Whether any sample of the pixel is nearer than the far plane (1).
fn covered(pixel: vec2<u32>) -> bool {
#if MULTISAMPLED
    var nearest = 1.0;
    for (var s = 0u; s < MSAA_SAMPLES; s++) {
        nearest = min(nearest, textureLoad(depth, pixel, s).r);
    }
    return nearest < 1.0;
#else
    return textureLoad(depth, pixel, 0).r < 1.0;
#endif
}

var<workgroup> local_bins: array<atomic<u32>, EXPOSURE_BINS>;
var<workgroup> bins: array<u32, EXPOSURE_BINS>;

// The bin of resolved, premultiplied radiance of a pixel the scene covers
// or not (twin: exposure::luminance_bin).
fn luminance_bin(color: vec4<f32>, covered: bool) -> u32 {
    if !covered || color.a <= 0.0 {
        return 0u;
    }
    let y = luminance(color.rgb / color.a);
    let lowest = f32(MIN_LOG2_LUMINANCE);
    // Also false for NaN.
    if !(y > exp2(lowest)) {
        return 0u;
    }
    let t = (log2(y) - lowest) / f32(MAX_LOG2_LUMINANCE - MIN_LOG2_LUMINANCE);
    return clamp(u32(t * f32(EXPOSURE_BINS - 1u)) + 1u, 1u, EXPOSURE_BINS - 1u);
}

@compute @workgroup_size(16, 16)
fn histogram_main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(local_invocation_index) index: u32,
) {
    atomicStore(&local_bins[index], 0u);
    workgroupBarrier();
    if all(id.xy < textureDimensions(hdr)) {
        atomicAdd(&local_bins[luminance_bin(resolved(id.xy), covered(id.xy))], 1u);
    }
    workgroupBarrier();
    let count = atomicLoad(&local_bins[index]);
    if count > 0u {
        atomicAdd(&histogram[index], count);
    }
}

// The log2 luminance at the centre of bin `bin` (twin: exposure::bin_centre_log2).
fn bin_centre_log2(bin: u32) -> f32 {
    let range = f32(MAX_LOG2_LUMINANCE - MIN_LOG2_LUMINANCE);
    return f32(MIN_LOG2_LUMINANCE) + (f32(bin) - 0.5) / f32(EXPOSURE_BINS - 1u) * range;
}

@compute @workgroup_size(256)
fn reduce_main(@builtin(local_invocation_index) index: u32) {
    bins[index] = atomicExchange(&histogram[index], 0u);
    workgroupBarrier();
    if index != 0u {
        return;
    }
    // The walk of exposure::LuminanceHistogram::target_ev, in its order.
    var total = 0u;
    for (var bin = 1u; bin < EXPOSURE_BINS; bin++) {
        total += bins[bin];
    }
    state.metered_pixels = total;
    if total == 0u {
        return;
    }
    let low = f32(total) * params.low_fraction;
    let high = f32(total) * params.high_fraction;
    var below = 0.0;
    var sum = 0.0;
    var weight = 0.0;
    for (var bin = 1u; bin < EXPOSURE_BINS; bin++) {
        let above = below + f32(bins[bin]);
        let kept = max(min(above, high) - max(below, low), 0.0);
        sum += kept * bin_centre_log2(bin);
        weight += kept;
        below = above;
    }
    let mean = sum / max(weight, 1.17549435e-38);
    let target_ev = clamp(params.key_log2 - mean, params.min_ev, params.max_ev);
    var exposure_ev = target_ev;
    if params.jump == 0u {
        exposure_ev = state.exposure_ev + (target_ev - state.exposure_ev) * params.adaptation;
    }
    state.exposure_ev = exposure_ev;
    state.exposure_scale = exp2(exposure_ev);
    state.target_ev = target_ev;
}
