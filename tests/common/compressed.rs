//! The compressed files of issue 25 against their originals: gltfpack's
//! (`KHR_mesh_quantization`, `EXT_meshopt_compression`,
//! `KHR_meshopt_compression`; `assets/gltfpack/README.md`) and glTF
//! Transform's (`EXT_texture_webp`, `EXT_mesh_gpu_instancing`, and
//! `KHR_draco_mesh_compression` with the `draco` feature;
//! `assets/gltf-transform/README.md`), each rendered on one tier next to its
//! original with the same camera (`tests/gltf_compressed.rs` on tier A,
//! `tests/tiers.rs` on tiers B and C).

use std::path::{Path, PathBuf};

use glam::Mat4;
use unbound::loaders::gltf::{GltfScene, load_gltf};
use unbound::{RendererConfig, Tier};

use super::{
    Gpu, Target, asset, camera_framing_box, drawn_pixels, largest_difference, mismatched_pixels,
    save_output,
};

/// (name, original, compressed file): every pair `tests/gltf_compressed.rs`
/// compares on tier A; `tests/tiers.rs` compares them on tiers B and C.
pub fn compressed_pairs() -> Vec<(&'static str, PathBuf, PathBuf)> {
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

/// Side of the square image each file is rendered to.
const SIDE: u32 = 128;

/// A channel difference a compressed file's pixel may show (see
/// [`assert_renders_like_original`]).
pub const COMPRESSED_TOLERANCE: u8 = 24;

/// Loads `path` into a fresh renderer of `tier` (`None`: the device's
/// best) and renders one 128 x 128 frame with `camera` (default: framing
/// the scene's bounds).
fn render(
    gpu: &Gpu,
    tier: Option<Tier>,
    path: &Path,
    camera: Option<unbound::Camera>,
) -> (image::RgbaImage, GltfScene, unbound::Camera) {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        ..Default::default()
    });
    if let Some(tier) = tier {
        assert_eq!(renderer.tier(), tier);
    }
    let scene = load_gltf(&mut renderer, path, Mat4::IDENTITY)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let camera = camera.unwrap_or_else(|| camera_framing_box(scene.bounds.0, scene.bounds.1));
    renderer.set_camera(&camera).unwrap();
    let target = Target::new(gpu, SIDE, SIDE);
    let (image, _) = target.render(gpu, &mut renderer);
    (image, scene, camera)
}

/// How far a compressed file's image is from its original's: pixels that
/// differ by more than [`COMPRESSED_TOLERANCE`] in a channel, and the
/// largest channel difference.
#[derive(Clone, Copy, Debug)]
pub struct CompressedDifference {
    pub mismatched: usize,
    pub largest: u8,
}

/// `compressed` against `original`, both on `tier` on `gpu` and seen by
/// the same camera: the same number of objects, bounds equal within the
/// quantisation's precision (1/1000 of the scene's extent; gltfpack's
/// positions are 14 bits), and the images equal within a tolerance: at
/// most 3% of pixels differ by more than 24 in a channel (quantised
/// normals, texture coordinates and tangents move shading by a few levels,
/// and silhouettes by a fraction of a pixel). Both images are saved as
/// `{prefix}_{name}` and `{prefix}_{name}_original`.
pub fn assert_renders_like_original(
    gpu: &Gpu,
    tier: Option<Tier>,
    prefix: &str,
    (name, original, compressed): (&str, &Path, &Path),
) -> CompressedDifference {
    let (expected, reference, camera) = render(gpu, tier, original, None);
    let (image, scene, _) = render(gpu, tier, compressed, Some(camera));
    save_output(&format!("{prefix}_{name}"), &image);
    save_output(&format!("{prefix}_{name}_original"), &expected);
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
    let pixels = (SIDE * SIDE) as usize;
    let covered = drawn_pixels(&expected, expected.get_pixel(0, 0).0);
    assert!(covered > pixels / 20, "{name}: {covered} pixels drawn");
    let difference = CompressedDifference {
        mismatched: mismatched_pixels(&image, &expected, COMPRESSED_TOLERANCE),
        largest: largest_difference(&image, &expected),
    };
    eprintln!(
        "{prefix} {name}: {} of {pixels} pixels differ by more than {COMPRESSED_TOLERANCE}; \
         largest difference {}",
        difference.mismatched, difference.largest
    );
    assert!(
        difference.mismatched <= pixels * 3 / 100,
        "{prefix} {name}: {} pixels differ",
        difference.mismatched
    );
    difference
}
