// A bounding sphere's world box seen by a view (the camera, or a shadow
// cascade's orthographic projection), shared by the late occlusion test
// (occlusion.wgsl) and small-object culling (small_objects.wgsl). CPU
// twin: unbound::occlusion::projected_box.

// The NDC bounds (lo, hi) of the eight corners of the sphere's world box
// through `clip_from_world`; false when a corner lies on or behind the
// camera plane (w <= 0), where no rectangle bounds the projection.
fn sphere_ndc_box(clip_from_world: mat4x4<f32>, sphere: vec4<f32>, lo: ptr<function, vec3<f32>>, hi: ptr<function, vec3<f32>>) -> bool {
    *lo = vec3(3.0e38);
    *hi = vec3(-3.0e38);
    for (var c = 0u; c < 8u; c++) {
        let signs = vec3(
            select(-1.0, 1.0, (c & 1u) != 0u),
            select(-1.0, 1.0, (c & 2u) != 0u),
            select(-1.0, 1.0, (c & 4u) != 0u),
        );
        let clip = clip_from_world * vec4(sphere.xyz + sphere.w * signs, 1.0);
        if clip.w <= 0.0 {
            return false;
        }
        let ndc = clip.xyz / clip.w;
        *lo = min(*lo, ndc);
        *hi = max(*hi, ndc);
    }
    return true;
}
