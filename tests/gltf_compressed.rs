//! Files as gltfpack writes them (`KHR_mesh_quantization`,
//! `EXT_meshopt_compression`, `KHR_meshopt_compression`; fixtures and the
//! commands that made them in `assets/gltfpack/README.md`) and as glTF
//! Transform writes them (`EXT_texture_webp`, `EXT_mesh_gpu_instancing`:
//! `assets/gltf-transform/README.md`)
//! load and render like their uncompressed originals; the instanced
//! file's objects map one to one onto its original's.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use glam::{Mat4, Vec3};
use unbound::loaders::gltf::{GltfScene, load_gltf};

/// (name, original, gltfpack's file).
fn pairs() -> Vec<(&'static str, PathBuf, PathBuf)> {
    let engine =
        Path::new("/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb");
    assert!(
        engine.is_file(),
        "{} is missing: install Debian's assimp-testmodels",
        engine.display()
    );
    let pairs = vec![
        (
            "flight_helmet_meshopt",
            asset("FlightHelmet/FlightHelmet.gltf"),
            asset("FlightHelmet/FlightHelmet_meshopt.gltf"),
        ),
        (
            "barn_lamp_quantized",
            asset("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf"),
            asset("AnisotropyBarnLamp/AnisotropyBarnLamp_quantized.gltf"),
        ),
        (
            "barn_lamp_meshopt_khr",
            asset("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf"),
            asset("AnisotropyBarnLamp/AnisotropyBarnLamp_meshopt.gltf"),
        ),
        (
            "fox_quantized",
            asset("gltfpack/Fox.glb"),
            asset("gltfpack/Fox_quantized.glb"),
        ),
        (
            "fox_meshopt",
            asset("gltfpack/Fox.glb"),
            asset("gltfpack/Fox_meshopt.glb"),
        ),
        (
            "fox_webp",
            asset("gltfpack/Fox.glb"),
            asset("gltf-transform/Fox_webp.glb"),
        ),
        (
            "barn_lamp_webp",
            asset("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf"),
            asset("AnisotropyBarnLamp/AnisotropyBarnLamp_webp.gltf"),
        ),
        (
            "2_cylinder_engine_meshopt",
            engine.to_owned(),
            asset("gltfpack/2CylinderEngine_meshopt.glb"),
        ),
        (
            "2_cylinder_engine_instanced",
            engine.to_owned(),
            asset("gltf-transform/2CylinderEngine_instanced.glb"),
        ),
    ];
    // glTF Transform's `draco` files: only with the `draco` feature (the
    // README's extension table says why it is off by default).
    #[cfg(feature = "draco")]
    let pairs = [
        pairs,
        vec![
            (
                "fox_draco",
                asset("gltfpack/Fox.glb"),
                asset("gltf-transform/Fox_draco.glb"),
            ),
            (
                "barn_lamp_draco",
                asset("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf"),
                asset("AnisotropyBarnLamp/AnisotropyBarnLamp_draco.gltf"),
            ),
        ],
    ]
    .concat();
    pairs
}

/// Loads `path` into a fresh renderer and renders one 128 x 128 frame with
/// `camera` (default: framing the scene's bounds).
fn render(
    gpu: &Gpu,
    path: &Path,
    camera: Option<unbound::Camera>,
) -> (image::RgbaImage, GltfScene, unbound::Camera) {
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let scene = load_gltf(&mut renderer, path, Mat4::IDENTITY)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let camera = camera.unwrap_or_else(|| camera_framing_box(scene.bounds.0, scene.bounds.1));
    renderer.set_camera(&camera).unwrap();
    let target = Target::new(gpu, 128, 128);
    let (image, _) = target.render(gpu, &mut renderer);
    (image, scene, camera)
}

/// Each gltfpack file against its original, seen by the same camera:
/// the same number of objects, bounds equal within the quantisation's
/// precision (1/1000 of the scene's extent; gltfpack's positions are 14
/// bits), and the images equal within a tolerance: at most 3% of pixels
/// differ by more than 24 in a channel (quantised normals, texture
/// coordinates and tangents move shading by a few levels, and silhouettes
/// by a fraction of a pixel).
#[test]
fn gltfpack_files_render_like_their_originals() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    for (name, original, packed) in pairs() {
        let (expected, reference, camera) = render(&gpu, &original, None);
        let (image, scene, _) = render(&gpu, &packed, Some(camera));
        save_output(&format!("gltfpack_{name}"), &image);
        save_output(&format!("gltfpack_{name}_original"), &expected);
        assert_eq!(scene.objects.len(), reference.objects.len(), "{name}");
        let extent = (reference.bounds.1 - reference.bounds.0).length();
        let off = (scene.bounds.0 - reference.bounds.0)
            .abs()
            .max((scene.bounds.1 - reference.bounds.1).abs());
        assert!(
            off.max_element() <= extent * 1e-3,
            "{name}: bounds {:?} against {:?}",
            scene.bounds,
            reference.bounds
        );
        let covered = drawn_pixels(&expected, expected.get_pixel(0, 0).0);
        assert!(covered > 128 * 128 / 20, "{name}: {covered} pixels drawn");
        let mismatched = mismatched_pixels(&image, &expected, 24);
        eprintln!(
            "{name}: {mismatched} of {} pixels differ by more than 24; largest difference {}",
            128 * 128,
            largest_difference(&image, &expected)
        );
        assert!(
            mismatched <= 128 * 128 * 3 / 100,
            "{name}: {mismatched} pixels differ"
        );
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
    let (_, original, instanced) = pairs()
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
