// Reading the HDR target as the output pass does (wgsl/output.wgsl), for
// every pass that reads it (wgsl/exposure.wgsl too): the binding (group 0,
// binding 1), each sample bounded, the samples' average.
// MULTISAMPLED: the HDR target has MSAA_SAMPLES samples per pixel.

#if MULTISAMPLED
// Twin: output::Msaa::X4.
const MSAA_SAMPLES: u32 = 4u;
@group(0) @binding(1) var hdr: texture_multisampled_2d<f32>;
#else
@group(0) @binding(1) var hdr: texture_2d<f32>;
#endif

// A sample of the HDR target with every channel at most the largest half
// float, 65504 (twin: output::HDR_MAX): a radiance past it is stored as
// infinity, and a blend over infinity may leave NaN; both read as the
// brightest value (a comparison with NaN is false).
fn bounded(sample: vec4<f32>) -> vec4<f32> {
    return select(vec4(65504.0), sample, sample <= vec4(65504.0));
}

// The average of the pixel's samples, each bounded: the resolve.
fn resolved(pixel: vec2<u32>) -> vec4<f32> {
#if MULTISAMPLED
    var sum = vec4(0.0);
    for (var s = 0u; s < MSAA_SAMPLES; s++) {
        sum += bounded(textureLoad(hdr, pixel, s));
    }
    return sum / f32(MSAA_SAMPLES);
#else
    return bounded(textureLoad(hdr, pixel, 0));
#endif
}

