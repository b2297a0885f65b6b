// The environment prefilter (src/passes/prefilter/), run once per
// environment, and the BRDF lookup table, made once per renderer. Each entry
// point is one compute pass over 8x8 texels of one or six layers:
// - project: equirectangular source -> radiance cube (as 6 layers), mip 0;
// - downsample: radiance mip m - 1 -> mip m (2x2 box);
// - specular: radiance -> one mip of the specular cube, GGX-filtered at
//   that mip's roughness (filtered importance sampling: each sample reads
//   the radiance mip whose texels cover its solid angle);
// - irradiance: radiance -> 9 spherical-harmonics coefficients of the
//   diffuse light (one workgroup);
// - brdf_lut: the split sum's environment BRDF per (n·v, roughness).

#include "brdf.wgsl"
#include "ibl.wgsl"

// Twin: passes::prefilter::GpuPrefilterParams.
struct PrefilterParams {
    // Output face (or table) side in texels.
    size: u32,
    // Samples per output texel (specular, brdf_lut).
    samples: u32,
    // Perceptual roughness of the output mip (specular).
    roughness: f32,
    // Side of the source's mip 0 (specular).
    source_size: u32,
    // Mips of the source (specular).
    source_mips: u32,
    // Sub-samples per side of each output texel (project).
    box_side: u32,
    // The source mip read (downsample, irradiance).
    source_level: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: PrefilterParams;
@group(0) @binding(1) var equirect: texture_2d<f32>;
@group(0) @binding(2) var source: texture_2d_array<f32>;
@group(0) @binding(3) var source_sampler: sampler;
@group(0) @binding(4) var out_layers: texture_storage_2d_array<rgba16float, write>;
@group(0) @binding(5) var<storage, read_write> sh_out: array<vec4<f32>, 9>;
@group(0) @binding(6) var out_table: texture_storage_2d<rgba16float, write>;

// Clamped to the largest finite half float.
fn store_layer(id: vec3<u32>, value: vec3<f32>) {
    textureStore(out_layers, id.xy, id.z, vec4(min(value, vec3(65504.0)), 1.0));
}

// The unit direction through the centre of texel id.xy of face id.z, or
// through `offset` (0..1 each) within it.
fn texel_direction(id: vec3<u32>, size: u32, offset: vec2<f32>) -> vec3<f32> {
    let uv = (vec2<f32>(id.xy) + offset) / f32(size) * 2.0 - 1.0;
    return normalize(cube_direction(id.z, uv));
}

@compute @workgroup_size(8, 8, 1)
fn project(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= params.size || id.y >= params.size {
        return;
    }
    let dims = vec2<f32>(textureDimensions(equirect));
    let k = params.box_side;
    var total = vec3(0.0);
    for (var i = 0u; i < k * k; i++) {
        let offset = (vec2(f32(i % k), f32(i / k)) + 0.5) / f32(k);
        let uv = equirect_uv(texel_direction(id, params.size, offset));
        let texel = min(vec2<u32>(uv * dims), vec2<u32>(dims) - 1u);
        total += textureLoad(equirect, texel, 0).rgb;
    }
    store_layer(id, total / f32(k * k));
}

@compute @workgroup_size(8, 8, 1)
fn downsample(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= params.size || id.y >= params.size {
        return;
    }
    let p = vec2<i32>(id.xy) * 2;
    let layer = i32(id.z);
    let level = i32(params.source_level);
    let sum = textureLoad(source, p, layer, level) + textureLoad(source, p + vec2(1, 0), layer, level)
        + textureLoad(source, p + vec2(0, 1), layer, level) + textureLoad(source, p + vec2(1, 1), layer, level);
    store_layer(id, sum.rgb * 0.25);
}

// Radiance from direction d at mip `lod` of the source (its 6 layers as
// cube faces; filtering does not cross faces).
fn source_radiance(d: vec3<f32>, lod: f32) -> vec3<f32> {
    let f = cube_face_uv(d);
    return textureSampleLevel(source, source_sampler, f.xy, i32(f.z), lod).rgb;
}

@compute @workgroup_size(8, 8, 1)
fn specular(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= params.size || id.y >= params.size {
        return;
    }
    let n = texel_direction(id, params.size, vec2(0.5));
    if params.roughness <= 0.0 {
        // A mirror: the radiance itself.
        store_layer(id, source_radiance(n, 0.0));
        return;
    }
    let alpha = brdf_alpha(params.roughness);
    let frame = basis_around(n);
    let source_texel_solid_angle = 4.0 * 3.14159265 / (6.0 * f32(params.source_size * params.source_size));
    let max_lod = f32(params.source_mips - 1u);
    var total = vec3(0.0);
    var weight = 0.0;
    for (var i = 0u; i < params.samples; i++) {
        let h_local = ggx_half_vector(hammersley(i, params.samples), alpha);
        let h = frame * h_local;
        // The view is taken along the normal (the split sum's assumption).
        let l = 2.0 * dot(n, h) * h - n;
        let n_dot_l = dot(n, l);
        if n_dot_l > 0.0 {
            // pdf(l) = D (n·h) / (4 v·h) = D / 4 with v = n.
            let pdf = ggx_distribution(alpha, h_local.z) / 4.0;
            let sample_solid_angle = 1.0 / (f32(params.samples) * pdf + 1e-6);
            let lod = clamp(0.5 * log2(sample_solid_angle / source_texel_solid_angle) + 1.0, 0.0, max_lod);
            total += source_radiance(l, lod) * n_dot_l;
            weight += n_dot_l;
        }
    }
    store_layer(id, total / max(weight, 1e-6));
}

var<workgroup> sh_partial: array<array<vec3<f32>, 9>, 64>;

@compute @workgroup_size(64, 1, 1)
fn irradiance(@builtin(local_invocation_index) thread: u32) {
    let size = params.size;
    var sums: array<vec3<f32>, 9>;
    for (var i = thread; i < 6u * size * size; i += 64u) {
        let id = vec3(i % size, (i / size) % size, i / (size * size));
        let uv = (vec2<f32>(id.xy) + 0.5) / f32(size) * 2.0 - 1.0;
        // The texel's solid angle: its area (2 / size)² seen at distance
        // |(u, v, 1)| and angle.
        let solid_angle = 4.0 / (f32(size * size) * pow(1.0 + dot(uv, uv), 1.5));
        let radiance = textureLoad(source, vec2<i32>(id.xy), i32(id.z), i32(params.source_level)).rgb * solid_angle;
        let y = sh_basis(normalize(cube_direction(id.z, uv)));
        for (var k = 0u; k < 9u; k++) {
            sums[k] += radiance * y[k];
        }
    }
    sh_partial[thread] = sums;
    workgroupBarrier();
    if thread == 0u {
        // Convolved with the clamped cosine (π, 2π/3, π/4 per band) and
        // divided by π: the radiance a white Lambert surface reflects.
        let band = array(1.0, 2.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 0.25, 0.25, 0.25, 0.25, 0.25);
        for (var k = 0u; k < 9u; k++) {
            var total = vec3(0.0);
            for (var t = 0u; t < 64u; t++) {
                total += sh_partial[t][k];
            }
            sh_out[k] = vec4(total * band[k], 0.0);
        }
    }
}

@compute @workgroup_size(8, 8, 1)
fn brdf_lut(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x >= params.size || id.y >= params.size {
        return;
    }
    let n_dot_v = (f32(id.x) + 0.5) / f32(params.size);
    let roughness = (f32(id.y) + 0.5) / f32(params.size);
    let alpha = brdf_alpha(roughness);
    let v = vec3(sqrt(1.0 - n_dot_v * n_dot_v), 0.0, n_dot_v);
    var scale = 0.0;
    var bias = 0.0;
    var diffuse = 0.0;
    for (var i = 0u; i < params.samples; i++) {
        let u = hammersley(i, params.samples);
        // Specular: F D V (n·l) / pdf with D cancelled, F = f0 (1 - s) + s.
        let h = ggx_half_vector(u, alpha);
        let v_dot_h = dot(v, h);
        let l = 2.0 * v_dot_h * h - v;
        if l.z > 0.0 && v_dot_h > 0.0 {
            let w = smith_visibility(alpha, l.z, n_dot_v) * l.z * 4.0 * v_dot_h / h.z;
            let s = schlick_weight(v_dot_h);
            scale += (1.0 - s) * w;
            bias += s * w;
        }
        // Diffuse per unit diffuse colour: cosine-sampled, 1 - F(0.04).
        let phi = 2.0 * 3.14159265 * u.y;
        let cos_l = sqrt(1.0 - u.x);
        let sin_l = sqrt(u.x);
        let ld = vec3(sin_l * cos(phi), sin_l * sin(phi), cos_l);
        diffuse += 1.0 - (0.04 + 0.96 * schlick_weight(dot(v, normalize(v + ld))));
    }
    let n = f32(params.samples);
    textureStore(out_table, id.xy, vec4(scale / n, bias / n, diffuse / n, 1.0));
}
