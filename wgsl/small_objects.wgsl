// Small-object culling, the camera's part of the cull pass (cull.wgsl): an
// instance whose projected bounds hold no sample cannot make a fragment.
// Needs `frame` (clip_from_world, pixel_grid). CPU twin, formula for
// formula: src/small_objects.rs.
//
// The sphere's world box holds the instance; projected, it lies inside the
// pixel rectangle of its corners' NDC bounds. The rasterizer makes a
// fragment only where a sample (at 1x, the pixel centre x + 0.5, y + 0.5)
// lies inside a triangle (on an edge only by the top-left rule), and every
// triangle lies in that rectangle: a rectangle, widened by
// frame.pixel_grid.z pixels each way for rounding and the rasterizer's
// vertex snapping, that holds no pixel centre on one axis covers none.
// A box reaching the near plane (or behind the camera) is always kept.

// Whether the instance bounded by `sphere` covers no pixel centre (false
// while small-object culling is off: pixel_grid zero).
fn sphere_covers_no_sample(sphere: vec4<f32>) -> bool {
    let grid = frame.pixel_grid.xy;
    if grid.x <= 0.0 || grid.y <= 0.0 {
        return false;
    }
    var lo: vec3<f32>;
    var hi: vec3<f32>;
    if !sphere_ndc_box(frame.clip_from_world, sphere, &lo, &hi) || lo.z <= 0.0 {
        return false;
    }
    let margin = frame.pixel_grid.z;
    // Pixel rectangle, y down in the target.
    let first = vec2(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * grid - margin;
    let last = vec2(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * grid + margin;
    // The first pixel centre at or after the rectangle's start, per axis.
    let centre = ceil(first - 0.5) + 0.5;
    return any(centre > last);
}
