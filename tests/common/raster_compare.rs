//! The compute rasteriser's image comparison (`tests/compute_raster.rs`,
//! `tests/compute_raster_scenes.rs`): forward against the hardware
//! visibility pass against the compute rasteriser at several thresholds.

use std::collections::BTreeSet;

use unbound::{ComputeRaster, Geometry, Renderer};

use super::*;

/// What one frame sent to the compute rasteriser, as the images show it:
/// the instances (object slots) and triangles whose every visible pixel
/// the compute rasteriser wrote. An instance is wholly compute or wholly
/// hardware, so these are compute instances unless a hardware one lies
/// wholly in front of compute-rasterised surfaces (not so in the scenes
/// tested: they are counted from above, not exactly).
#[derive(Clone, Debug)]
pub struct ComputeShare {
    pub threshold: f32,
    /// Pixels whose final id a compute-rasterised instance holds.
    pub pixels: usize,
    pub objects: BTreeSet<u32>,
    pub triangles: usize,
}

impl ComputeShare {
    /// From the frame's ids as read (`read_visibility_ids`: the compute
    /// rasteriser's resolve marks its pixels with
    /// [`unbound::gpu_types::VISIBILITY_COMPUTE`], on either atomic path).
    pub fn of(threshold: f32, raw: &[[u32; 2]]) -> Self {
        let (mut hardware, mut seen) = (BTreeSet::new(), BTreeSet::new());
        for id in raw.iter().filter(|id| id[0] != 0) {
            seen.insert(id[0] - 1);
            if id[1] & unbound::gpu_types::VISIBILITY_COMPUTE == 0 {
                hardware.insert(id[0] - 1);
            }
        }
        let ids = masked(raw);
        let objects: BTreeSet<u32> = seen.difference(&hardware).copied().collect();
        let computed = |id: &&[u32; 2]| id[0] != 0 && objects.contains(&(id[0] - 1));
        let pixels = ids.iter().filter(computed).count();
        let triangles = ids.iter().filter(computed).collect::<BTreeSet<_>>().len();
        Self {
            threshold,
            pixels,
            objects,
            triangles,
        }
    }
}

/// Reads the visibility ids of the last frame (object slot + 1, arena
/// triangle without the late bit).
pub fn read_ids(gpu: &Gpu, renderer: &Renderer) -> Vec<[u32; 2]> {
    masked(&read_visibility_ids(gpu, renderer))
}

/// Ids without the late and compute bits.
fn masked(raw: &[[u32; 2]]) -> Vec<[u32; 2]> {
    let mask = unbound::gpu_types::VISIBILITY_TRIANGLE_MASK;
    raw.iter()
        .map(|[object, triangle]| [*object, triangle & mask])
        .collect()
}

/// Whether a test runs the texture path (`R64Uint`): where the adapter has
/// [`unbound::TEXTURE_RASTER_FEATURES`]. Without them it says so and
/// returns false, unless `UNBOUND_TEST_R64=1` asks for the path (the H200
/// runs): then it fails.
pub fn texture_path_runs(gpu: &Gpu) -> bool {
    let wanted = std::env::var("UNBOUND_TEST_R64").is_ok_and(|v| v == "1");
    let has = gpu
        .device
        .features()
        .contains(unbound::TEXTURE_RASTER_FEATURES);
    assert!(
        has || !wanted,
        "UNBOUND_TEST_R64=1 but the adapter ({}) lacks TEXTURE_INT64_ATOMIC",
        gpu.adapter.get_info().name
    );
    if !has {
        eprintln!("texture path not run: the adapter lacks TEXTURE_INT64_ATOMIC");
    }
    has
}

/// The compute rasteriser's buffer of the last frame, as (`!id`,
/// `!depth bits`) pairs.
pub fn read_raster_buffer(gpu: &Gpu, renderer: &Renderer) -> Vec<[u32; 2]> {
    let buffer = renderer
        .compute_raster_buffer()
        .expect("the compute rasteriser ran");
    gpu.read_u32s(buffer, 0, buffer.size() / 4)
        .chunks(2)
        .map(|w| [w[0], w[1]])
        .collect()
}

/// Renders forward, through the hardware visibility pass and through the
/// compute rasteriser (`path`) at each of `thresholds`; asserts the lit
/// images agree with forward and the ids with the hardware pass's away
/// from triangle edges. Returns, per threshold, what went to compute.
pub fn compare_raster(
    gpu: &Gpu,
    renderer: &mut Renderer,
    name: &str,
    size: (u32, u32),
    (path, thresholds): (ComputeRaster, &[f32]),
) -> Vec<ComputeShare> {
    let lit = Target::new(gpu, size.0, size.1);
    // One phase: the buffer then holds every compute-rasterised pixel
    // (occlusion on and off are compared below).
    renderer.set_occlusion(false);
    renderer.set_geometry(Geometry::Forward);
    let (forward, _) = lit.render(gpu, renderer);
    renderer.set_geometry(Geometry::Visibility);
    renderer.set_compute_raster(ComputeRaster::Off);
    lit.render(gpu, renderer);
    let hardware = read_ids(gpu, renderer);
    renderer.set_compute_raster(path);
    assert_eq!(renderer.compute_raster(), path, "{name}");
    let pixels = (size.0 * size.1) as usize;
    let mut shares = Vec::new();
    for &threshold in thresholds {
        renderer.set_raster_threshold(threshold).unwrap();
        let (image, _) = lit.render(gpu, renderer);
        let raw = read_visibility_ids(gpu, renderer);
        let ids = masked(&raw);
        let differ = mismatched_pixels(&forward, &image, 2);
        if differ * 100 > pixels {
            save_output(&format!("compute-raster-{name}-{threshold}"), &image);
            save_output(&format!("compute-raster-{name}-forward"), &forward);
        }
        assert!(
            differ * 100 <= pixels,
            "{name} at {threshold} px: {differ} of {pixels} pixels differ by more than 2/255"
        );
        // Ids away from triangle edges (the 3×3 neighbourhood of the
        // hardware ids holds one triangle), objects away from object edges.
        let (mut triangles, mut objects) = (0, 0);
        for y in 1..size.1 - 1 {
            for x in 1..size.0 - 1 {
                let at = |x: u32, y: u32| hardware[(y * size.0 + x) as usize];
                let id = at(x, y);
                let got = ids[(y * size.0 + x) as usize];
                let around = |same: &dyn Fn([u32; 2]) -> bool| {
                    (0..9).all(|n| same(at(x + n % 3 - 1, y + n / 3 - 1)))
                };
                if id[0] == 0 || !around(&|other| other[0] == id[0]) {
                    continue;
                }
                assert_eq!(
                    got[0], id[0],
                    "{name} at {threshold} px: object at ({x}, {y})"
                );
                objects += 1;
                if around(&|other| other == id) {
                    assert_eq!(got, id, "{name} at {threshold} px: id at ({x}, {y})");
                    triangles += 1;
                }
            }
        }
        // Pixels the compute rasteriser drew (its resolve's bit).
        let compute_bit = unbound::gpu_types::VISIBILITY_COMPUTE;
        let computed = raw.iter().filter(|id| id[1] & compute_bit != 0).count();
        let share = ComputeShare::of(threshold, &raw);
        eprintln!(
            "{name} at {threshold} px: {differ} of {pixels} pixels differ; ids equal at \
             {triangles} triangle-interior and objects at {objects} object-interior pixels; \
             {computed} pixels rasterised by compute; {share:?}"
        );
        shares.push(share);
        assert!(
            objects * 5 > pixels,
            "{name}: {objects} object-interior pixels"
        );
        if threshold == f32::INFINITY {
            let drawn = ids.iter().filter(|id| id[0] != 0).count();
            assert!(
                computed * 2 > drawn,
                "{name}: {computed} of {drawn} drawn pixels rasterised by compute"
            );
        }
    }
    shares
}
