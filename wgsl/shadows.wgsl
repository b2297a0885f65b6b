// The sun's cascaded shadows and the spot lights' shadows in the shading
// (src/shadows/): bind group 2
// of the draw pass's shadows variant (passes::draw::SHADOW_GROUP). Included
// by surface.wgsl under SHADOWS, so frames without shadows carry none of
// this code. Needs `frame` (the camera's uniforms).

@group(2) @binding(0) var<uniform> shadows: ShadowUniforms;
// One layer per cascade, then one per shadowed spot (Depth32Float).
@group(2) @binding(1) var shadow_map: texture_depth_2d_array;
// Linear filtering, compare less-equal: each tap is a 2x2 bilinear PCF.
@group(2) @binding(2) var shadow_sampler: sampler_comparison;

// The cascade whose slice holds `world_position`, by its view depth along
// the camera's forward axis; cascade_count beyond the last split (the
// CPU sets unused splits to the largest f32).
fn shadow_cascade(world_position: vec3<f32>) -> u32 {
    let depth = dot(world_position - frame.camera_position.xyz, shadows.camera_forward.xyz);
    let beyond = select(vec4(0u), vec4(1u), vec4(depth) > shadows.split_depths);
    return min(beyond.x + beyond.y + beyond.z + beyond.w, shadows.cascade_count);
}

// The fraction of the sun reaching a surface at `world_position` with
// geometric normal `normal` (unit; `light` towards the sun): 1 lit, 0 in
// shadow. The point moves along the normal and towards the sun by the
// settings' offsets in texels of its cascade, then 2 x 2 bilinear
// comparison taps half a texel away are averaged: a tent over 3 x 3 texels
// (nine taps cost the H200's draw pass far more: src/shadows/mod.rs).
fn sun_visibility(world_position: vec3<f32>, normal: vec3<f32>, light: vec3<f32>) -> f32 {
    let cascade = shadow_cascade(world_position);
    if cascade >= shadows.cascade_count {
        return 1.0;
    }
    let texel = shadows.texel_world_sizes[cascade];
    let offset = normal * (shadows.normal_offset_texels * texel)
        + light * (shadows.depth_bias_texels * texel);
    let clip = shadows.shadow_from_world[cascade] * vec4(world_position + offset, 1.0);
    let uv = clip.xy * vec2(0.5, -0.5) + 0.5;
    let depth = min(clip.z, 1.0);
    let half_texel = 0.5 / f32(max(shadows.resolution, 1u));
    let lit = textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(-half_texel, -half_texel), cascade, depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(half_texel, -half_texel), cascade, depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(-half_texel, half_texel), cascade, depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(half_texel, half_texel), cascade, depth);
    return lit * 0.25;
}

// The fraction of spot light `light` (with a spot shadow: light.shadow <
// shadows.spot_count) reaching a surface at `world_position` with
// geometric normal `normal` (unit): as sun_visibility, in the spot's layer
// (after the cascades'), the offsets in texels of the spot's map at the
// point's depth along the light's axis. Outside the spot's view (a cone
// wider than the view, or beyond its reach) the light is not shadowed.
fn spot_visibility(light: Light, world_position: vec3<f32>, normal: vec3<f32>) -> f32 {
    let spot = min(light.shadow, MAX_SPOT_SHADOWS - 1u);
    let shadow_from_world = shadows.spot_from_world[spot];
    let to_light = normalize(light.position - world_position);
    // The view depth along the axis: clip w of a perspective projection.
    let depth_along_axis = max((shadow_from_world * vec4(world_position, 1.0)).w, 0.0);
    let texel = shadows.spot_texel_scales[spot / 4u][spot % 4u] * depth_along_axis;
    let offset = normal * (shadows.normal_offset_texels * texel)
        + to_light * (shadows.depth_bias_texels * texel);
    let clip = shadow_from_world * vec4(world_position + offset, 1.0);
    if clip.w <= 0.0 {
        return 1.0;
    }
    let ndc = clip.xyz / clip.w;
    if any(abs(ndc.xy) > vec2(1.0)) || ndc.z > 1.0 {
        return 1.0;
    }
    let uv = ndc.xy * vec2(0.5, -0.5) + 0.5;
    let depth = max(ndc.z, 0.0);
    let layer = shadows.cascade_count + spot;
    let half_texel = 0.5 / f32(max(shadows.resolution, 1u));
    let lit = textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(-half_texel, -half_texel), layer, depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(half_texel, -half_texel), layer, depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(-half_texel, half_texel), layer, depth)
        + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2(half_texel, half_texel), layer, depth);
    return lit * 0.25;
}

// The cascades debug view: red, green, blue, yellow for cascades 0 to 3,
// white beyond the last; half as bright where the sun does not reach
// (shadowed, or facing away).
fn cascade_view(world_position: vec3<f32>, normal: vec3<f32>) -> vec3<f32> {
    var color = vec3(1.0);
    switch shadow_cascade(world_position) {
        case 0u: { color = vec3(1.0, 0.0, 0.0); }
        case 1u: { color = vec3(0.0, 1.0, 0.0); }
        case 2u: { color = vec3(0.0, 0.0, 1.0); }
        case 3u: { color = vec3(1.0, 1.0, 0.0); }
        default: {}
    }
    let light = frame.light_direction.xyz;
    var visibility = 0.0;
    if dot(normal, light) > 0.0 {
        visibility = sun_visibility(world_position, normal, light);
    }
    return color * (0.5 + 0.5 * visibility);
}
