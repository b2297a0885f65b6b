// Punctual lights in the shading (KHR_lights_punctual): the range window,
// the spot cone and the loop over the lights that reach a fragment. CPU
// twin: src/lighting/punctual.rs (same formulas, same order). Included by
// surface.wgsl.
//
// The including shader declares the light table, `lights: array<Light>`,
// and says which lights reach a fragment:
//   fn light_list(fragment: vec4<f32>) -> vec2<u32>  (first, count)
//   fn light_list_slot(i: u32) -> u32                 (i-th light's slot)
// The bindless draw pass reads its cluster's list (clusters.wgsl); the
// baseline loops over every slot.

// Twin: lighting::punctual::MIN_DISTANCE_SQUARED.
fn range_attenuation(distance_squared: f32, range: f32) -> f32 {
    let d2 = max(distance_squared, 1e-4);
    if range <= 0.0 {
        return 1.0 / d2;
    }
    let r = d2 / (range * range);
    let window = clamp(1.0 - r * r, 0.0, 1.0);
    return window / d2;
}

fn cone_attenuation(cos_angle: f32, scale: f32, offset: f32) -> f32 {
    let a = clamp(cos_angle * scale + offset, 0.0, 1.0);
    return a * a;
}

// Radiance `light` reflects towards v at world position p: the BRDF times
// the illuminance times n·l, as the sun in shade_surface.
fn punctual_radiance(light: Light, base_color: vec3<f32>, mr: vec2<f32>, n: vec3<f32>, v: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
    var l = -light.direction;
    var illuminance = light.intensity;
    if light.kind != LIGHT_KIND_DIRECTIONAL {
        let to_light = light.position - p;
        let d2 = max(dot(to_light, to_light), 1e-4);
        l = to_light / sqrt(d2);
        var attenuation = range_attenuation(d2, light.range);
        if light.kind == LIGHT_KIND_SPOT {
            attenuation *= cone_attenuation(dot(light.direction, -l), light.cone_scale, light.cone_offset);
        }
        // Past the range or outside the cone: nothing, without the BRDF.
        if attenuation <= 0.0 {
            return vec3(0.0);
        }
        illuminance *= attenuation;
    }
    return brdf(base_color, mr.x, mr.y, n, v, l) * illuminance * max(dot(n, l), 0.0);
}

// Every light that reaches the fragment at `fragment` (its
// @builtin(position)), in ascending slot order: each of its list whose
// cull sphere holds `p`. With no live lights
// (frame.light_grid.w == 0) nothing is read: a uniform branch. In variants
// defining SHADOWS, a spot light with a spot shadow is multiplied by its
// visibility (shadows.wgsl) at `p` with the geometric normal
// `geometric_normal`.
fn punctual_lights(base_color: vec3<f32>, mr: vec2<f32>, n: vec3<f32>, v: vec3<f32>, p: vec3<f32>, fragment: vec4<f32>, geometric_normal: vec3<f32>) -> vec3<f32> {
    var total = vec3(0.0);
    if frame.light_grid.w == 0u {
        return total;
    }
    let list = light_list(fragment);
    let slots = arrayLength(&lights);
    for (var i = 0u; i < list.y; i++) {
        let slot = min(light_list_slot(list.x + i), slots - 1u);
        // Outside its cull sphere a light sends nothing (0 beyond a range,
        // under the cutoff without): tested before the whole light is read
        // and the BRDF evaluated. Twin: punctual::arrival.
        let kind = lights[slot].kind;
        let to_light = lights[slot].position - p;
        let cull_radius = lights[slot].cull_radius;
        let reaches = kind == LIGHT_KIND_DIRECTIONAL || dot(to_light, to_light) < cull_radius * cull_radius;
        if kind != LIGHT_KIND_NONE && reaches {
            let light = lights[slot];
            var radiance = punctual_radiance(light, base_color, mr, n, v, p);
#if SHADOWS
            let shadowed = light.kind == LIGHT_KIND_SPOT && light.shadow < shadows.spot_count;
            if shadowed && any(radiance > vec3(0.0)) {
                radiance *= spot_visibility(light, p, geometric_normal);
            }
#endif
            total += radiance;
        }
    }
    return total;
}
