// unbound-demo's present pass (src/present.rs): copies the
// frame unbound drew into the window's surface. Shading views are copied
// (re-encoded to sRGB when the surface format is linear); id views, whose
// texels hold `id + 1` as 24-bit RGB, become one distinct colour per id
// (black where nothing was drawn). Not part of the library.

// PresentParams.mode (twins in present.rs).
const PRESENT_MODE_COPY: u32 = 0u;       // copy colour
const PRESENT_MODE_IDS: u32 = 1u;        // false-colour ids

// Twin: GpuPresentParams in present.rs.
struct PresentParams {
    // PRESENT_MODE_*.
    mode: u32,
    // 1 when the surface format is linear (the shader writes sRGB itself).
    encode_srgb: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var<uniform> params: PresentParams;

@vertex
fn vs_fullscreen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    // One triangle covering the screen.
    let uv = vec2(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}

fn srgb_encode(c: vec3<f32>) -> vec3<f32> {
    let low = c * 12.92;
    let high = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
    return select(high, low, c <= vec3(0.0031308));
}

fn srgb_decode(c: vec3<f32>) -> vec3<f32> {
    let low = c / 12.92;
    let high = pow((c + 0.055) / 1.055, vec3(2.4));
    return select(high, low, c <= vec3(0.04045));
}

// A well spread colour per id (integer hash), in linear light.
fn id_colour(id: u32) -> vec3<f32> {
    var h = id * 0x9E3779B9u;
    h = (h ^ (h >> 16u)) * 0x85EBCA6Bu;
    h = h ^ (h >> 13u);
    let c = vec3(f32(h & 0xffu), f32((h >> 8u) & 0xffu), f32((h >> 16u) & 0xffu)) / 255.0;
    return srgb_decode(c * 0.8 + 0.2);
}

@fragment
fn fs_present(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let size = textureDimensions(source);
    let texel = min(vec2<u32>(position.xy), size - 1u);
    let value = textureLoad(source, texel, 0);
    var linear = value.rgb;
    if params.mode == PRESENT_MODE_IDS {
        let bytes = vec3<u32>(round(value.rgb * 255.0));
        let encoded = bytes.x | (bytes.y << 8u) | (bytes.z << 16u);
        linear = select(id_colour(encoded - 1u), vec3(0.0), encoded == 0u);
    }
    if params.encode_srgb == 1u {
        return vec4(srgb_encode(linear), 1.0);
    }
    return vec4(linear, 1.0);
}
