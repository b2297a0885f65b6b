// The BRDF of glTF 2.0's Appendix B: GGX distribution, height-correlated
// Smith visibility, Schlick Fresnel, f0 = 0.04 for dielectrics, metal and
// dielectric mixed by metallic. Twin: src/lighting/brdf.rs (same formulas,
// same order; its module documentation states them). Included by
// surface.wgsl; every path that shades includes it.

// Twins: lighting::brdf::DIELECTRIC_F0, MIN_ROUGHNESS (floats: written
// where used, since shared constants are integers).
fn brdf_alpha(roughness: f32) -> f32 {
    let r = clamp(roughness, 0.045, 1.0);
    return r * r;
}

fn ggx_distribution(alpha: f32, n_dot_h: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (3.14159265 * d * d);
}

// V = G / (4 n·l n·v), height-correlated.
fn smith_visibility(alpha: f32, n_dot_l: f32, n_dot_v: f32) -> f32 {
    let a2 = alpha * alpha;
    let gv = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    let gl = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / (gv + gl);
}

// (1 - v·h)^5
fn schlick_weight(v_dot_h: f32) -> f32 {
    let m = clamp(1.0 - v_dot_h, 0.0, 1.0);
    let m2 = m * m;
    return m2 * m2 * m;
}

// f(l, v) without the cosine, for unit normal n, view v and light l (both
// pointing away from the surface); 0 where the light is below the surface.
fn brdf(base_color: vec3<f32>, metallic: f32, roughness: f32, n: vec3<f32>, v: vec3<f32>, l: vec3<f32>) -> vec3<f32> {
    let n_dot_l = dot(n, l);
    if n_dot_l <= 0.0 {
        return vec3(0.0);
    }
    // Grazing views of normal-mapped surfaces can face away.
    let n_dot_v = max(dot(n, v), 1e-4);
    let h = normalize(v + l);
    let alpha = brdf_alpha(roughness);
    let specular = ggx_distribution(alpha, max(dot(n, h), 0.0)) * smith_visibility(alpha, n_dot_l, n_dot_v);
    let s = schlick_weight(dot(v, h));
    let dielectric_f = 0.04 + (1.0 - 0.04) * s;
    let metal_f = base_color + (1.0 - base_color) * s;
    let diffuse = (1.0 - metallic) * (1.0 - dielectric_f) * base_color / 3.14159265;
    let fresnel = (1.0 - metallic) * vec3(dielectric_f) + metallic * metal_f;
    return diffuse + fresnel * specular;
}
