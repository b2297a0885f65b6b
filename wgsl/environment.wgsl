// Image-based light in the shading: bind group 3, the maps the environment
// prefilter (src/passes/prefilter/, prefilter.wgsl) made. Included by
// surface.wgsl, so every pipeline that shades binds it.

#include "ibl.wgsl"

// Twin: passes::prefilter::GpuEnvironmentUniforms.
struct EnvironmentUniforms {
    // Diffuse light: a white Lambert surface of normal n reflects
    // Σ sh[k] Y_k(n) (written by the prefilter's irradiance pass).
    sh: array<vec4<f32>, 9>,
    // x: the specular cube's last mip, whose roughness is 1.
    specular_lod: vec4<f32>,
}

@group(3) @binding(0) var<uniform> environment: EnvironmentUniforms;
@group(3) @binding(1) var environment_specular: texture_cube<f32>;
// The split sum's table at (n·v, roughness): A, B, diffuse albedo.
@group(3) @binding(2) var environment_brdf: texture_2d<f32>;
@group(3) @binding(3) var environment_sampler: sampler;

// Σ sh[k] Y_k(n), written out term by term: the loop over ibl.wgsl's
// sh_basis array (which the prefilter uses) made the H200's draw pass 10-30%
// slower (docs/PERFORMANCE.md). Same basis, same order.
fn environment_diffuse(n: vec3<f32>) -> vec3<f32> {
    let total = environment.sh[0].rgb * 0.282095
        + environment.sh[1].rgb * (0.488603 * n.y)
        + environment.sh[2].rgb * (0.488603 * n.z)
        + environment.sh[3].rgb * (0.488603 * n.x)
        + environment.sh[4].rgb * (1.092548 * n.x * n.y)
        + environment.sh[5].rgb * (1.092548 * n.y * n.z)
        + environment.sh[6].rgb * (0.315392 * (3.0 * n.z * n.z - 1.0))
        + environment.sh[7].rgb * (1.092548 * n.x * n.z)
        + environment.sh[8].rgb * (0.546274 * (n.x * n.x - n.y * n.y));
    return max(total, vec3(0.0));
}

// What the surface reflects of the environment towards v, before
// occlusion: the diffuse lobe's albedo times the diffuse light, plus the
// specular cube at the roughness's mip times f0 A + B. CPU twin (for a
// uniform environment of radiance 1): lighting::Brdf::ambient_albedo.
fn environment_light(base_color: vec3<f32>, metallic: f32, roughness: f32, n: vec3<f32>, v: vec3<f32>) -> vec3<f32> {
    let r = clamp(roughness, 0.0, 1.0);
    let n_dot_v = clamp(dot(n, v), 1e-4, 1.0);
    let table = textureSampleLevel(environment_brdf, environment_sampler, vec2(n_dot_v, r), 0.0);
    let reflected = reflect(-v, n);
    let specular = textureSampleLevel(environment_specular, environment_sampler, reflected, r * environment.specular_lod.x).rgb;
    let f0 = mix(vec3(0.04), base_color, metallic);
    let diffuse = (1.0 - metallic) * base_color * table.b * environment_diffuse(n);
    return diffuse + specular * (f0 * table.r + table.g);
}
