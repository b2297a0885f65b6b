//! Files as gltfpack writes them (`KHR_mesh_quantization`,
//! `EXT_meshopt_compression`, `KHR_meshopt_compression`; fixtures and the
//! commands that made them in `assets/gltfpack/README.md`) and as glTF
//! Transform writes them (`EXT_texture_webp`, `EXT_mesh_gpu_instancing`:
//! `assets/gltf-transform/README.md`)
//! load and render like their uncompressed originals on tier A; the
//! instanced file's objects map one to one onto its original's. The pairs
//! and the comparison are `tests/common/compressed.rs`'s, which
//! `tests/tiers.rs` runs on tiers B and C.

mod common;

use std::path::Path;

use common::*;
use glam::{Mat4, Vec3};
use unbound::loaders::gltf::load_gltf;

/// Each compressed file against its original on tier A (lavapipe Vulkan),
/// seen by the same camera, within the tolerance of
/// [`assert_renders_like_original`] (at most 3% of pixels differ by more
/// than 24 in a channel; bounds within 1/1000 of the extent).
#[test]
fn gltfpack_files_render_like_their_originals() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    for (name, original, packed) in compressed_pairs() {
        assert_renders_like_original(&gpu, None, "gltfpack", (name, &original, &packed));
    }
    gpu.finish();
}

/// Bounds come from the dequantised positions: a quantized file's scene
/// bounds hold every dequantised vertex, placed by its node.
#[test]
fn quantized_bounds_hold_every_dequantised_vertex() {
    let document =
        unbound::loaders::gltf::parse_gltf(&asset("gltfpack/Fox_quantized.glb")).unwrap();
    let (min, max) = document.bounds(Mat4::IDENTITY);
    for placement in &document.placements {
        for p in &document.meshes[placement.mesh].positions {
            let p = placement.scene_from_object.transform_point3(Vec3::from(*p));
            assert!(
                p.cmpge(min - 1e-3).all() && p.cmple(max + 1e-3).all(),
                "{p}"
            );
        }
    }
    assert!(
        (max - min).length() > 10.0,
        "the fox is about 150 units long"
    );
}

/// Each object of `path` loaded into a fresh renderer: (world sphere
/// (centre, radius), index count of its mesh).
fn object_keys(gpu: &Gpu, path: &Path) -> Vec<(glam::Vec4, u32)> {
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let scene = load_gltf(&mut renderer, path, Mat4::IDENTITY).unwrap();
    let objects = renderer.objects();
    scene
        .objects
        .iter()
        .map(|&object| {
            let slot = objects.resolve(object).unwrap();
            let sphere = glam::Vec4::from_array(objects.world_sphere_of_slot(slot).unwrap());
            let mesh = objects.mesh_of_slot(slot).unwrap();
            (sphere, renderer.arena().index_count(mesh))
        })
        .collect()
}

/// The instanced engine's objects are its original's, one for one: each
/// instance is matched to the unmatched original object with the same
/// index count whose world sphere is nearest, and that sphere's centre and
/// radius are within 1/10,000 of the scene's extent (the meshopt step's
/// 14-bit positions; the largest difference seen is about 1/130,000); a
/// bijection, so no instance is lost, doubled or moved.
#[test]
fn instanced_objects_map_one_to_one_onto_the_original() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (_, original, instanced) = compressed_pairs()
        .into_iter()
        .find(|(name, ..)| *name == "2_cylinder_engine_instanced")
        .unwrap();
    let reference = object_keys(&gpu, &original);
    let objects = object_keys(&gpu, &instanced);
    assert_eq!(objects.len(), reference.len());
    let (min, max) = reference.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(min, max), (s, _)| (min.min(s.truncate()), max.max(s.truncate())),
    );
    let tolerance = (max - min).length() * 1e-4;
    let mut matched = vec![false; reference.len()];
    let mut worst = 0.0f32;
    for (i, &(sphere, indices)) in objects.iter().enumerate() {
        let nearest = (0..reference.len())
            .filter(|&j| !matched[j] && reference[j].1 == indices)
            .min_by(|&a, &b| {
                let d = |j: usize| (reference[j].0 - sphere).length();
                d(a).total_cmp(&d(b))
            })
            .unwrap_or_else(|| panic!("object {i}: no original of {indices} indices left"));
        let off = (reference[nearest].0 - sphere).abs().max_element();
        assert!(
            off <= tolerance,
            "object {i}: sphere {sphere} against {} (tolerance {tolerance})",
            reference[nearest].0
        );
        worst = worst.max(off);
        matched[nearest] = true;
    }
    eprintln!(
        "{} objects matched, largest sphere difference {worst} (tolerance {tolerance})",
        objects.len()
    );
    gpu.finish();
}
