// The path-traced view (src/passes/rays.rs, DebugView::PathTraced): one
// fullscreen triangle into the HDR target whose fragments each trace
// `rays.samples` paths through their pixel (jittered inside it), add them
// to the pixel's running sum in `accumulation` and write the mean of every
// sample so far. Same tables, materials, environment and lights as the
// drawn frame, through the same BRDF (brdf.wgsl):
//
// - camera rays see what the draw pass draws (trace_visible); later rays
//   the closest opaque or alpha-masked surface (blended objects are not
//   path traced);
// - at each surface: its emission, the sun and every punctual light
//   through a shadow ray each (next-event estimation), then, up to
//   `rays.bounces` times, a direction drawn from a mixture of the cosine
//   and the BRDF's GGX reflection, weighted by brdf × n·l / its density,
//   which reaches the environment (its radiance cube at level 0, scaled
//   by `frame.ambient_color`) or another surface;
// - textures at level 0; occlusion textures are not used (paths find the
//   occlusion themselves).

enable wgpu_binding_array;
enable wgpu_ray_query;

#include "types.wgsl"
#include "scene.wgsl"
#include "heap.wgsl"
#include "ray_hit.wgsl"

// Each pixel's sum of the radiance its samples brought back (rgb) and the
// number of them whose camera ray hit a surface (a); overwritten by sample
// 0.
@group(2) @binding(4) var<storage, read_write> accumulation: array<vec4<f32>>;

// punctual.wgsl's lists (the draw pass reads its cluster's): paths reach
// every light, so the list is every slot.
fn light_list(fragment: vec4<f32>) -> vec2<u32> {
    return vec2(0u, arrayLength(&lights));
}

fn light_list_slot(i: u32) -> u32 {
    return i;
}

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    // (-1, -1), (3, -1), (-1, 3): one triangle covering the target.
    let corner = vec2(f32((vertex << 1u) & 2u), f32(vertex & 2u));
    return vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}

// PCG (O'Neill), one step: a well-mixed 32-bit hash.
fn pcg(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// Two numbers in [0, 1) from `state`, which advances.
fn random2(state: ptr<function, u32>) -> vec2<f32> {
    *state = pcg(*state);
    let a = *state;
    *state = pcg(*state);
    return vec2(f32(a >> 8u), f32(*state >> 8u)) * (1.0 / 16777216.0);
}

// A direction about `n` with probability density n·l / π (ibl.wgsl's
// basis_around).
fn cosine_direction(n: vec3<f32>, u: vec2<f32>) -> vec3<f32> {
    let r = sqrt(u.x);
    let phi = 6.2831853 * u.y;
    return normalize(basis_around(n) * vec3(r * cos(phi), r * sin(phi), sqrt(max(1.0 - u.x, 0.0))));
}

// How often a bounce follows the GGX reflection rather than the cosine:
// more for metals (no diffuse part) and smooth surfaces (a narrow lobe the
// cosine rarely finds), at least 0.1 and at most 0.9 (each density stays
// above zero wherever the BRDF is).
fn specular_probability(metallic: f32, roughness: f32) -> f32 {
    return clamp(mix(0.25, 1.0, metallic) * (1.0 - 0.75 * roughness), 0.1, 0.9);
}

// The probability density of bouncing towards `l` from `v` about `n`: the
// mixture of the cosine and the GGX reflection the bounce samples from.
fn bounce_density(n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, alpha: f32, specular: f32) -> f32 {
    let h = normalize(v + l);
    let n_dot_h = max(dot(n, h), 0.0);
    let v_dot_h = max(dot(v, h), 1e-6);
    let reflection = ggx_distribution(alpha, n_dot_h) * n_dot_h / (4.0 * v_dot_h);
    return mix(max(dot(n, l), 0.0) / 3.14159265, reflection, specular);
}

// Where a ray leaving a surface at `p` with normal `n` (facing the ray)
// starts: off the surface, as ray_sun_visibility offsets its rays.
fn leave(p: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let a = abs(p);
    return p + n * (2e-4 * max(max(a.x, a.y), max(a.z, 1.0)));
}

// The sun and the punctual lights that reach `p`, reflected towards `v`.
fn direct_light(base_color: vec3<f32>, mr: vec2<f32>, n: vec3<f32>, v: vec3<f32>, p: vec3<f32>, origin: vec3<f32>) -> vec3<f32> {
    var total = vec3(0.0);
    let sun = frame.light_direction.xyz;
    if dot(n, sun) > 0.0 && any(frame.light_color.rgb > vec3(0.0)) && !trace_any(origin, sun, 0.0, 1e30, RAY_MASK_OPAQUE | RAY_MASK_MASKED) {
        total += brdf(base_color, mr.x, mr.y, n, v, sun) * frame.light_color.rgb * dot(n, sun);
    }
    if frame.light_grid.w == 0u {
        return total;
    }
    let slots = arrayLength(&lights);
    for (var i = 0u; i < slots; i++) {
        let light = lights[i];
        if light.kind == LIGHT_KIND_NONE {
            continue;
        }
        var l = -light.direction;
        var reach = 1e30;
        if light.kind != LIGHT_KIND_DIRECTIONAL {
            let to_light = light.position - origin;
            reach = length(to_light);
            l = to_light / max(reach, 1e-6);
        }
        if dot(n, l) > 0.0 && !trace_any(origin, l, 0.0, reach, RAY_MASK_OPAQUE | RAY_MASK_MASKED) {
            total += punctual_radiance(light, base_color, mr, n, v, p);
        }
    }
    return total;
}

// The radiance one path brings back along the camera ray (rgb), and 1 if
// the camera ray hit a surface, else 0 (a miss brings back nothing: the
// draw pass draws no sky either).
fn trace_path(camera: CameraRay, state: ptr<function, u32>) -> vec4<f32> {
    var radiance = vec3(0.0);
    var throughput = vec3(1.0);
    var origin = camera.origin;
    var direction = camera.direction;
    for (var bounce = 0u; bounce <= rays.bounces; bounce++) {
        var hit: RayIntersection;
        if bounce == 0u {
            hit = trace_visible(origin, direction, 0.0, camera.length);
        } else {
            hit = trace_closest(origin, direction, 0.0, 1e30, RAY_MASK_OPAQUE | RAY_MASK_MASKED);
        }
        if hit.kind == RAY_QUERY_INTERSECTION_NONE {
            if bounce == 0u {
                return vec4(0.0);
            }
            let sky = textureSampleLevel(environment_specular, environment_sampler, direction, 0.0).rgb;
            radiance += throughput * frame.ambient_color.rgb * sky;
            break;
        }
        let found = ray_hit(hit.instance_custom_data, hit.primitive_index, hit.barycentrics);
        let surface = found.surface;
        let material = materials[surface.material];
        var texels = default_texels();
        if material.base_color.texture != TEXTURE_WHITE {
            texels.base_color = ray_sample(material.base_color, surface);
        }
        if material.metallic_roughness.texture != TEXTURE_WHITE {
            texels.metallic_roughness = ray_sample(material.metallic_roughness, surface);
        }
        if (material.flags & MATERIAL_FLAG_NORMAL_MAP) != 0u {
            texels.normal = ray_sample(material.normal, surface);
        }
        if material.emissive.texture != TEXTURE_WHITE {
            texels.emissive = ray_sample(material.emissive, surface);
        }
        let front_facing = dot(found.winding_normal, direction) < 0.0;
        let facing = normalize(found.winding_normal) * select(-1.0, 1.0, front_facing);
        let n = shading_normal(material, texels, surface, front_facing);
        let v = -direction;
        let base_color = surface_base_color(material, texels, surface).rgb;
        if (material.flags & MATERIAL_FLAG_UNLIT) != 0u {
            // KHR_materials_unlit: emits its base colour, reflects nothing.
            radiance += throughput * base_color;
            break;
        }
        let mr = surface_metallic_roughness(material, texels);
        let p = surface.world_position;
        let start = leave(p, facing);
        radiance += throughput * (surface_emissive(material, texels) + direct_light(base_color, mr, n, v, p, start));
        if bounce == rays.bounces {
            break;
        }
        // The next direction from the mixture of the cosine and the GGX
        // reflection, weighted by brdf × n·l / density.
        let alpha = brdf_alpha(mr.y);
        let specular = specular_probability(mr.x, mr.y);
        let choice = random2(state);
        var l = cosine_direction(n, random2(state));
        if choice.x < specular {
            // ibl.wgsl's GGX half vector (density D(h) n·h) about n.
            let h = normalize(basis_around(n) * ggx_half_vector(random2(state), alpha));
            l = reflect(-v, h);
        }
        let density = bounce_density(n, v, l, alpha, specular);
        if dot(l, facing) <= 0.0 || dot(n, l) <= 0.0 || density <= 0.0 {
            break;
        }
        throughput *= brdf(base_color, mr.x, mr.y, n, v, l) * (dot(n, l) / density);
        origin = start;
        direction = l;
    }
    return vec4(radiance, 1.0);
}

@fragment
fn fs_main(@builtin(position) pixel: vec4<f32>) -> @location(0) vec4<f32> {
    let width = u32(rays.viewport.x);
    let at = min(u32(pixel.y) * width + u32(pixel.x), arrayLength(&accumulation) - 1u);
    var state = pcg(at ^ pcg(rays.sample_index));
    var total = vec4(0.0);
    for (var s = 0u; s < rays.samples; s++) {
        let jitter = random2(&state) - 0.5;
        total += trace_path(camera_ray(pixel.xy + jitter), &state);
    }
    if rays.sample_index > 0u {
        total += accumulation[at];
    }
    accumulation[at] = total;
    // The mean radiance premultiplied by the fraction of samples that hit
    // (alpha: coverage, as the draw pass writes it), blended over what the
    // target was cleared to.
    return total / f32(rays.sample_index + rays.samples);
}
