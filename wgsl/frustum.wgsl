// The frustum test of the cull pass (cull.wgsl), shared with the bounds
// debug view (bounds.wgsl) so both decide alike. Needs `frame`.

// True when the sphere is at least partly inside every frustum plane.
fn sphere_in_frustum(sphere: vec4<f32>) -> bool {
    var inside = true;
    for (var p = 0u; p < 6u; p++) {
        let plane = frame.frustum_planes[p];
        inside = inside && (dot(plane.xyz, sphere.xyz) + plane.w >= -sphere.w);
    }
    return inside;
}
