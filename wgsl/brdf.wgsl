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

// The interim ambient, until stage 2's prefiltered environment replaces
// it: what the surface reflects towards a view at n_dot_v under a uniform
// white environment of radiance 1, `(1 - metallic) c D + f0 A + B`, from
// least-squares fits of the CPU integration. Twins in
// src/lighting/brdf.rs: SPLIT_SUM_FIT (rows: features of x = n·v
// [1, x, x², x³, (1 - x)⁵]; columns: powers 0..4 of roughness; [0] fits
// A + B, [1] B), DIFFUSE_ALBEDO_FIT, split_sum_fit, Brdf::ambient_albedo.
fn split_sum_row(c: array<f32, 5>, r: f32) -> f32 {
    return c[0] + r * (c[1] + r * (c[2] + r * (c[3] + r * c[4])));
}

fn split_sum_poly(rows: array<array<f32, 5>, 5>, r: f32, x: f32) -> f32 {
    let m = 1.0 - x;
    let fit = split_sum_row(rows[0], r) + split_sum_row(rows[1], r) * x
        + split_sum_row(rows[2], r) * x * x + split_sum_row(rows[3], r) * x * x * x
        + split_sum_row(rows[4], r) * m * m * m * m * m;
    return clamp(fit, 0.0, 1.0);
}

// (A, B): the specular lobe of Fresnel reflectance f0 reflects f0 A + B.
fn split_sum_fit(roughness: f32, n_dot_v: f32) -> vec2<f32> {
    let r = clamp(roughness, 0.0, 1.0);
    let x = clamp(n_dot_v, 1e-4, 1.0);
    let white = split_sum_poly(array(
        array(1.3287, -0.00566, -18.53819, 42.78146, -25.45729),
        array(-1.41518, 3.41229, 56.31652, -149.45438, 92.82936),
        array(1.94125, -7.44582, -56.11211, 166.26407, -107.34532),
        array(-0.85133, 3.77297, 20.57011, -65.18488, 42.90251),
        array(-0.31888, -1.55599, 24.55652, -50.75647, 28.93415),
    ), r, x);
    let bias = min(split_sum_poly(array(
        array(-0.13768, 16.03887, -62.09184, 80.02142, -33.95894),
        array(0.49681, -63.76968, 251.70991, -328.77049, 140.90452),
        array(-0.58954, 83.25475, -333.64587, 440.32083, -190.14866),
        array(0.23033, -35.6062, 144.3934, -192.08699, 83.43636),
        array(1.17957, -17.9954, 60.53052, -74.39021, 30.8294),
    ), r, x), white);
    return vec2(white - bias, bias);
}

fn ambient_albedo(base_color: vec3<f32>, metallic: f32, roughness: f32, n_dot_v: f32) -> vec3<f32> {
    let x = clamp(n_dot_v, 1e-4, 1.0);
    let ab = split_sum_fit(roughness, x);
    let diffuse = (1.0 - metallic) * base_color * (0.93404 + x * (0.06048 - 0.03548 * x));
    let f0 = mix(vec3(0.04), base_color, metallic);
    return diffuse + f0 * ab.x + ab.y;
}
