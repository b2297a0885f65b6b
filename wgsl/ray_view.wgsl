// The hit-material view (src/passes/rays.rs): one fullscreen triangle into
// the HDR target whose fragments each trace the camera ray through their
// pixel's centre with a ray query and write the id of the material they
// hit, as the draw pass's material view writes its fragments' (`id + 1`
// as 24-bit RGB; nothing where nothing is hit). What
// the ray sees is what the draw pass draws: the closest surface, seen
// through alpha-masked holes and single-sided back faces.

enable wgpu_binding_array;
enable wgpu_ray_query;

#include "types.wgsl"
#include "scene.wgsl"
#include "heap.wgsl"
#include "ray_hit.wgsl"

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    // (-1, -1), (3, -1), (-1, 3): one triangle covering the target.
    let corner = vec2(f32((vertex << 1u) & 2u), f32(vertex & 2u));
    return vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) pixel: vec4<f32>) -> @location(0) vec4<f32> {
    let ray = camera_ray(pixel.xy);
    let hit = trace_visible(ray.origin, ray.direction, 0.0, ray.length);
    if hit.kind == RAY_QUERY_INTERSECTION_NONE {
        // Nothing drawn: the target keeps what it was cleared or loaded to.
        discard;
    }
    let object = objects[checked_index(hit.instance_custom_data, counts.objects)];
    return id_color(checked_index(object.material, counts.materials));
}
