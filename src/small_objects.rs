//! Small-object culling (on by default,
//! [`RendererConfig::small_object_culling`](crate::RendererConfig::small_object_culling),
//! [`crate::Renderer::set_small_object_culling`]): the CPU twin of
//! `wgsl/small_objects.wgsl`, formula for formula, for tests and tools.
//!
//! An instance whose projected bounds hold no sample cannot make a
//! fragment, so the camera's cull drops it, as if it were outside the
//! frustum, and the image stays the same. The instance lies in its world
//! bounding sphere's box; projected, that box lies in the pixel rectangle of
//! its corners' bounds (the corners are shared with the occlusion test,
//! `wgsl/projection.wgsl`). The rasterizer makes a fragment only where a
//! sample (at 1× MSAA the pixel centre, `x + 0.5`, `y + 0.5`) is inside a
//! triangle (on an edge only by the top-left rule), so a rectangle that holds
//! no pixel centre on one axis, after widening it by
//! [`SMALL_OBJECT_MARGIN_PIXELS`] on every side, is covered by nothing the
//! instance draws. The margin, 1/16 pixel, is twice the vertex snapping of
//! Vulkan's minimum 4 sub-pixel bits and far above the projection's
//! rounding. A box reaching the near plane or behind the camera is always
//! kept.
//!
//! It runs for the camera alone, in every phase (frustum, early and late, so
//! with occlusion culling on or off); the frame uniforms' `pixel_grid` (the
//! target's size and the margin) is zero while it is off. The shadow views
//! keep their small casters: a shadow map texel is a different grid. At 4×
//! MSAA the test is off: the sample positions there are the implementation's
//! (standard on Vulkan, D3D and Metal, not promised by GL).
//!
//! Statistics: [`GpuFrameStats::small_instances`](crate::GpuFrameStats::small_instances);
//! `visible_instances` stays "in the frustum" (drawn, occluded or small), so
//! it still matches a CPU frustum count. `tests/small_objects.rs` (and
//! `tests/occlusion_gl.rs` on GL): tiny cubes on and between pixel centres
//! draw the same image with the culling on and off, and the visible count
//! and visibility bits equal this twin's verdicts.

use glam::{Mat4, UVec2, Vec2, Vec4};

use crate::occlusion::projected_box;

/// How far, in pixels, the projected rectangle is widened on every side
/// before looking for a pixel centre: twice the worst vertex snapping of a
/// rasterizer with Vulkan's minimum 4 bits of sub-pixel precision (1/32
/// pixel), far above the rounding of the projection itself.
pub const SMALL_OBJECT_MARGIN_PIXELS: f32 = 1.0 / 16.0;

/// One sphere's test, with how close it came to going the other way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleTest {
    /// Covers no sample: not drawn for the camera.
    pub culled: bool,
    /// Distance in pixels from the nearest decision boundary: between the
    /// widened rectangle's edges and the pixel centres next to them
    /// (a GPU rounding its own way may decide otherwise where this is
    /// tiny; infinite where the box was not tested).
    pub edge_margin: f32,
}

/// Whether a world bounding `sphere` (centre, radius) seen through
/// `clip_from_world` on a target of `size` pixels covers no pixel centre.
pub fn sphere_covers_no_sample(clip_from_world: &Mat4, sphere: Vec4, size: UVec2) -> SampleTest {
    let kept = SampleTest {
        culled: false,
        edge_margin: f32::INFINITY,
    };
    let Some((lo, hi)) = projected_box(clip_from_world, sphere) else {
        return kept;
    };
    if lo.z <= 0.0 || size.x == 0 || size.y == 0 {
        return kept;
    }
    let grid = size.as_vec2();
    let margin = SMALL_OBJECT_MARGIN_PIXELS;
    let first = Vec2::new(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * grid - margin;
    let last = Vec2::new(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * grid + margin;
    let centre = (first - 0.5).ceil() + 0.5;
    // Centres lie on the half-integers: the edges' distance from the
    // nearest one.
    let from_centre = |v: f32| ((v - 0.5) - (v - 0.5).round()).abs();
    let edge_margin = from_centre(first.x)
        .min(from_centre(first.y))
        .min(from_centre(last.x))
        .min(from_centre(last.y));
    SampleTest {
        culled: centre.cmpgt(last).any(),
        edge_margin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    /// A camera looking down -z with a 90° field of view on a square
    /// target of 100 pixels.
    fn camera() -> Mat4 {
        Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 100.0)
    }

    #[test]
    fn a_box_between_pixel_centres_is_culled_and_one_over_a_centre_kept() {
        let size = UVec2::splat(100);
        // At depth 10 one pixel spans 0.2 world units; pixel 50's centre
        // is at x = 0.1, its left edge at x = 0.
        let between = Vec4::new(0.2, 0.1, -10.0, 0.02);
        let over = Vec4::new(0.1, 0.1, -10.0, 0.02);
        assert!(sphere_covers_no_sample(&camera(), between, size).culled);
        assert!(!sphere_covers_no_sample(&camera(), over, size).culled);
        // Large: kept.
        let large = Vec4::new(0.2, 0.1, -10.0, 1.0);
        assert!(!sphere_covers_no_sample(&camera(), large, size).culled);
    }

    #[test]
    fn a_box_reaching_the_near_plane_or_behind_the_camera_is_kept() {
        let size = UVec2::splat(100);
        for centre in [Vec3::new(0.2, 0.1, -0.1), Vec3::new(0.2, 0.1, 5.0)] {
            let sphere = centre.extend(0.01);
            let test = sphere_covers_no_sample(&camera(), sphere, size);
            assert!(!test.culled, "{centre}");
        }
    }
}
