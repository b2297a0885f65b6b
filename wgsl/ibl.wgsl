// Image-based light, shared by the prefilter (prefilter.wgsl) and the
// shading (environment.wgsl): directions of cube texels, the equirectangular
// mapping, spherical harmonics and GGX importance sampling. No bindings.

// The direction through point `uv` (-1..1 each, v down) of cube face
// `face` (+X, -X, +Y, -Y, +Z, -Z: the order of cube layers), unnormalised.
fn cube_direction(face: u32, uv: vec2<f32>) -> vec3<f32> {
    switch face {
        case 0u: { return vec3(1.0, -uv.y, -uv.x); }
        case 1u: { return vec3(-1.0, -uv.y, uv.x); }
        case 2u: { return vec3(uv.x, 1.0, uv.y); }
        case 3u: { return vec3(uv.x, -1.0, -uv.y); }
        case 4u: { return vec3(uv.x, -uv.y, 1.0); }
        default: { return vec3(-uv.x, -uv.y, -1.0); }
    }
}

// The inverse of cube_direction: (u, v in 0..1, face) for direction d.
fn cube_face_uv(d: vec3<f32>) -> vec3<f32> {
    let a = abs(d);
    var face: u32;
    var sc: f32;
    var tc: f32;
    var ma: f32;
    if a.x >= a.y && a.x >= a.z {
        face = select(1u, 0u, d.x > 0.0);
        sc = select(d.z, -d.z, d.x > 0.0);
        tc = -d.y;
        ma = a.x;
    } else if a.y >= a.z {
        face = select(3u, 2u, d.y > 0.0);
        sc = d.x;
        tc = select(-d.z, d.z, d.y > 0.0);
        ma = a.y;
    } else {
        face = select(5u, 4u, d.z > 0.0);
        sc = select(-d.x, d.x, d.z > 0.0);
        tc = -d.y;
        ma = a.z;
    }
    return vec3(vec2(sc, tc) / ma * 0.5 + 0.5, f32(face));
}

// The point (0..1 each, v down) of an equirectangular image that looks
// towards unit direction d (+Y up, the centre towards -Z). Twin:
// lighting::environment::equirect_direction (its inverse).
fn equirect_uv(d: vec3<f32>) -> vec2<f32> {
    let u = atan2(d.x, -d.z) / (2.0 * 3.14159265) + 0.5;
    let v = acos(clamp(d.y, -1.0, 1.0)) / 3.14159265;
    return vec2(u, v);
}

// The nine real spherical harmonics of bands 0..2 at unit direction d.
fn sh_basis(d: vec3<f32>) -> array<f32, 9> {
    return array(
        0.282095,
        0.488603 * d.y,
        0.488603 * d.z,
        0.488603 * d.x,
        1.092548 * d.x * d.y,
        1.092548 * d.y * d.z,
        0.315392 * (3.0 * d.z * d.z - 1.0),
        1.092548 * d.x * d.z,
        0.546274 * (d.x * d.x - d.y * d.y),
    );
}

// Point i of n of the Hammersley set in [0, 1)².
fn hammersley(i: u32, n: u32) -> vec2<f32> {
    return vec2((f32(i) + 0.5) / f32(n), f32(reverseBits(i)) * 2.3283064e-10);
}

// A half vector around +Z distributed as GGX's D(h) n·h, for alpha.
fn ggx_half_vector(u: vec2<f32>, alpha: f32) -> vec3<f32> {
    let cos_h = sqrt((1.0 - u.x) / (1.0 + (alpha * alpha - 1.0) * u.x));
    let sin_h = sqrt(max(1.0 - cos_h * cos_h, 0.0));
    let phi = 2.0 * 3.14159265 * u.y;
    return vec3(sin_h * cos(phi), sin_h * sin(phi), cos_h);
}

// An orthonormal basis whose third axis is n.
fn basis_around(n: vec3<f32>) -> mat3x3<f32> {
    let up = select(vec3(1.0, 0.0, 0.0), vec3(0.0, 0.0, 1.0), abs(n.z) < 0.999);
    let t = normalize(cross(up, n));
    return mat3x3(t, cross(n, t), n);
}
