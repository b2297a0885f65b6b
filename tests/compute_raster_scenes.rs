//! The compute rasteriser (`src/passes/compute_raster/`, buffer path, and
//! the texture path where the adapter has it) on
//! the visibility tests' glTF and shadowed scenes (`tests/visibility.rs`),
//! with `tests/compute_raster.rs`'s comparison
//! (`tests/common/raster_compare.rs`): lit colour within 2/255 of forward
//! on at least 99% of pixels, ids equal to the hardware visibility pass's
//! away from triangle edges.
//!
//! - FlightHelmet (a double-sided part, normal maps, blended lenses drawn
//!   forward on top), zoomed so that the parts lie wholly in front of the
//!   near plane: hybrid (three of its five opaque parts go to compute at
//!   [`HELMET_THRESHOLD`]) and all compute (the five).
//! - The shadowed scene (cascaded shadows from the box and the masked
//!   quad): the box goes to compute (its bounds span between 64 and 96
//!   pixels); the ground (beyond the threshold and the guard band) and the
//!   alpha-masked quad stay hardware, the latter by design (the alpha test
//!   needs textures and derivatives).
//!
//! Each asserts that a real share went to compute (instances, triangles
//! and pixels, printed).

mod common;

use common::raster_compare::*;
use common::*;
use glam::Vec3;
use unbound::{Camera, ComputeRaster};

/// Asserts the share at each threshold: at least `objects` instances and
/// `pixels` pixels rasterised by compute.
fn assert_share(name: &str, shares: &[ComputeShare], (objects, pixels): (usize, usize)) {
    assert!(!shares.is_empty(), "{name}: the compute rasteriser ran");
    for share in shares {
        eprintln!(
            "{name} at {} px: {} instances ({:?}), {} triangles, {} pixels by compute",
            share.threshold,
            share.objects.len(),
            share.objects,
            share.triangles,
            share.pixels
        );
        assert!(
            share.objects.len() >= objects && share.triangles > 0 && share.pixels >= pixels,
            "{name} at {} px: {share:?}",
            share.threshold
        );
    }
}

/// FlightHelmet through the compute rasteriser's `path`.
fn flight_helmet(path: ComputeRaster) {
    let (gpu, mut renderer) = Gpu::with_flight_helmet();
    if path == ComputeRaster::Texture && !texture_path_runs(&gpu) {
        return;
    }
    renderer
        .set_camera(&Camera {
            position: Vec3::new(0.0, 0.35, 0.9),
            target: Vec3::new(0.0, 0.3, 0.0),
            fov_y_radians: 30f32.to_radians(),
            aspect: 1.0,
            z_near: 0.01,
            ..Default::default()
        })
        .unwrap();
    let raster = (path, &[HELMET_THRESHOLD, f32::INFINITY][..]);
    let shares = compare_raster(&gpu, &mut renderer, "helmet", (128, 128), raster);
    assert_share("helmet", &shares, (2, 1000));
    gpu.finish();
}

#[test]
fn flight_helmet_looks_the_same_through_the_compute_rasteriser() {
    flight_helmet(ComputeRaster::Buffer);
}

/// The texture path (`R64Uint`), where the adapter has it
/// (`texture_path_runs`: the H200 runs ask for it).
#[test]
fn flight_helmet_looks_the_same_on_the_texture_path() {
    flight_helmet(ComputeRaster::Texture);
}

/// FlightHelmet's threshold, in pixels of projected bounds: three of its
/// five opaque parts (about 1400 triangles, 1600 pixels) go to compute at
/// 256, none at 64 (each part's bounds span much of the image).
const HELMET_THRESHOLD: f32 = 256.0;

/// The shadowed scene through the compute rasteriser's `path`.
fn shadowed_scene(path: ComputeRaster) {
    let gpu = Gpu::new(&Gpu::default_capacities());
    if path == ComputeRaster::Texture && !texture_path_runs(&gpu) {
        return;
    }
    let mut renderer = shadow_scene::renderer(&gpu, None, true, true);
    let size = shadow_scene::SIZE;
    let raster = (path, &[96.0, 256.0][..]);
    let shares = compare_raster(&gpu, &mut renderer, "shadows", (size, size), raster);
    assert_share("shadows", &shares, (1, 1000));
    gpu.finish();
}

#[test]
fn the_shadowed_scene_looks_the_same_through_the_compute_rasteriser() {
    shadowed_scene(ComputeRaster::Buffer);
}

#[test]
fn the_shadowed_scene_looks_the_same_on_the_texture_path() {
    shadowed_scene(ComputeRaster::Texture);
}
