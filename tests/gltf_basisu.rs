//! `KHR_texture_basisu`. `assets/basisu/basisu.gltf` is a quad whose base
//! colour texture prefers a UASTC KTX2 image (`texture_uastc.ktx2`) and
//! falls back to the same pattern as PNG (`texture.png`); how they were
//! made is in `assets/basisu/README.md`.
//!
//! With the `basisu` cargo feature (`cargo test -p unbound --features
//! basisu --test gltf_basisu`): the UASTC image decodes close to the PNG
//! (uncompressed and zstd-supercompressed alike) and renders like it;
//! hostile KTX2 files (truncated, lying sizes, zero or huge dimensions,
//! ETC1S/BasisLZ, zlib) are typed errors, and with a fallback the fallback
//! loads with one warning. Without it (the default build): the fallback
//! loads with exactly one warning, and a file with only the Basis Universal
//! image is an error naming the extension and the feature.

mod common;

use std::path::Path;

use serde_json::{Value, json};
use unbound::loaders::gltf::{
    GltfDocument, GltfError, MissingImages, ParseOptions, parse_gltf_slice_with_options,
};

/// The committed glTF file.
fn gltf() -> Value {
    let text = std::fs::read_to_string(common::asset("basisu/basisu.gltf")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Parses `file` as if it were in `assets/basisu/`; `strict`: unusable
/// images are errors ([`MissingImages::Error`]).
fn parse(file: &Value, strict: bool) -> Result<GltfDocument, GltfError> {
    let options = ParseOptions {
        missing_images: if strict {
            MissingImages::Error
        } else {
            MissingImages::Placeholder
        },
        ..ParseOptions::default()
    };
    let dir = common::asset("basisu");
    parse_gltf_slice_with_options(
        file.to_string().as_bytes(),
        Path::new("basisu.gltf"),
        Some(&dir),
        &options,
    )
}

/// The PNG's RGBA8 texels.
fn png_texels() -> Vec<u8> {
    image::open(common::asset("basisu/texture.png"))
        .unwrap()
        .into_rgba8()
        .into_raw()
}

/// `file` without the texture's core `source`, so the Basis Universal
/// image is its only one.
fn without_fallback(mut file: Value) -> Value {
    file["textures"][0]
        .as_object_mut()
        .unwrap()
        .remove("source");
    file
}

#[cfg(not(feature = "basisu"))]
mod without_the_feature {
    use super::*;

    /// The texture uses its PNG fallback, said in exactly one warning that
    /// names the feature; the same image without a fallback is an error (a
    /// file needing it must require the extension) naming the extension
    /// and the feature, and so is the UASTC image used as a core source.
    #[test]
    fn the_fallback_loads_with_one_warning_and_no_fallback_is_an_error_naming_the_feature() {
        let document = parse(&gltf(), true).unwrap();
        assert_eq!(document.textures.len(), 1);
        assert_eq!(document.textures[0].image, 0, "the PNG");
        assert_eq!(document.textures[0].rgba().unwrap(), png_texels());
        assert_eq!(document.warnings.len(), 1, "{:?}", document.warnings);
        let warning = &document.warnings[0];
        assert!(
            warning.starts_with("KHR_texture_basisu: ")
                && warning.contains("`basisu` cargo feature"),
            "{warning}"
        );

        let mut only = without_fallback(gltf());
        only["extensionsRequired"] = json!(["KHR_texture_basisu"]);
        let error = parse(&only, false).unwrap_err();
        assert!(
            matches!(&error, GltfError::UnsupportedExtension { extension, .. } if extension == "KHR_texture_basisu"),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("`basisu` cargo feature"), "{message}");

        // Used without being required: the texture is not used, and both
        // warnings say why.
        let document = parse(&without_fallback(gltf()), false).unwrap();
        assert!(document.textures.is_empty());
        assert!(
            document.warnings[0].contains("texture 0's only source is in KHR_texture_basisu")
                && document.warnings[0].contains("`basisu` cargo feature"),
            "{:?}",
            document.warnings
        );

        let mut core = gltf();
        core["textures"][0] = json!({"source": 1});
        let error = parse(&core, true).unwrap_err();
        assert!(matches!(error, GltfError::Invalid { .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.contains("UASTC") && message.contains("`basisu` cargo feature"),
            "{message}"
        );
    }
}

#[cfg(feature = "basisu")]
mod with_the_feature {
    use super::*;
    use common::*;
    use glam::Mat4;
    use unbound::loaders::gltf::LoadLimits;

    /// The largest difference in any channel between UASTC's texels and
    /// the PNG's: UASTC is lossy. Measured: 1 on this 32x32 pattern (smooth
    /// gradients UASTC encodes almost exactly), allowed: 2.
    const UASTC_TOLERANCE: u8 = 2;

    /// The committed KTX2 file.
    fn ktx2(name: &str) -> Vec<u8> {
        std::fs::read(asset(&format!("basisu/{name}"))).unwrap()
    }

    /// The glTF with its Basis Universal image replaced by `bytes`
    /// (embedded as a data URI).
    fn with_image(bytes: &[u8]) -> Value {
        let mut file = gltf();
        file["images"][1] = json!({"uri": format!("data:image/ktx2;base64,{}", base64(bytes))});
        file
    }

    /// The largest difference in a channel between two RGBA8 buffers.
    fn largest(a: &[u8], b: &[u8]) -> u8 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap()
    }

    /// The UASTC image is preferred to the PNG, with no warning, and its
    /// texels are the PNG's within the tolerance; the zstd-supercompressed
    /// file decodes to the same texels.
    #[test]
    fn uastc_decodes_close_to_the_png() {
        let document = parse(&gltf(), true).unwrap();
        assert!(document.warnings.is_empty(), "{:?}", document.warnings);
        assert_eq!(document.textures.len(), 1);
        let texture = &document.textures[0];
        assert_eq!((texture.image, texture.width, texture.height), (1, 32, 32));
        assert_eq!(texture.format(), wgpu::TextureFormat::Rgba8UnormSrgb);
        let uastc = texture.rgba().unwrap().to_vec();
        let difference = largest(&uastc, &png_texels());
        eprintln!("UASTC against the PNG: largest channel difference {difference}");
        assert!(difference <= UASTC_TOLERANCE, "{difference}");
        assert_ne!(uastc, vec![0; uastc.len()]);

        let document = parse(&with_image(&ktx2("texture_uastc_zstd.ktx2")), true).unwrap();
        assert_eq!(document.textures[0].rgba().unwrap(), uastc);
    }

    /// Rendered: the UASTC quad against the same quad with the PNG (the
    /// extension removed), 128 x 128, same camera: no pixel differs by
    /// more than the texel tolerance (lighting scales differences down).
    #[test]
    fn the_uastc_quad_renders_like_the_png_quad() {
        let gpu = Gpu::new(&Gpu::default_capacities());
        let mut png = gltf();
        png["textures"][0]
            .as_object_mut()
            .unwrap()
            .remove("extensions");
        let mut images = Vec::new();
        for file in [gltf(), png] {
            let document = parse(&file, true).unwrap();
            let mut renderer = gpu.renderer(&Gpu::default_capacities());
            let scene = document
                .upload(&mut renderer, Mat4::IDENTITY, None)
                .unwrap();
            renderer
                .set_camera(&camera_framing_box(scene.bounds.0, scene.bounds.1))
                .unwrap();
            let target = Target::new(&gpu, 128, 128);
            images.push(target.render(&gpu, &mut renderer).0);
        }
        save_output("gltf_basisu_uastc", &images[0]);
        save_output("gltf_basisu_png", &images[1]);
        let covered = drawn_pixels(&images[1], images[1].get_pixel(0, 0).0);
        assert!(covered > 128 * 128 / 10, "{covered} pixels drawn");
        let difference = largest_difference(&images[0], &images[1]);
        eprintln!("rendered: largest difference {difference}");
        assert_eq!(
            mismatched_pixels(&images[0], &images[1], UASTC_TOLERANCE),
            0
        );
        gpu.finish();
    }

    /// Offsets in the committed uncompressed file (KTX 2.0 layout).
    const LEVEL_COUNT: usize = 40;
    const SCHEME: usize = 44;
    const WIDTH: usize = 20;
    const DFD_OFFSET: usize = 48;
    /// Level `i`'s byte length and uncompressed byte length.
    fn level_length(i: usize) -> usize {
        80 + 24 * i + 8
    }
    fn level_uncompressed(i: usize) -> usize {
        80 + 24 * i + 16
    }

    fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }

    /// Hostile and unsupported KTX2 files as the only image: each is
    /// `GltfError::Invalid` naming the image and what is wrong (strict
    /// mode), never a panic; an image over the limits is
    /// `GltfError::LimitExceeded`. With the PNG fallback, each loads the
    /// PNG with exactly one warning saying why.
    #[test]
    fn hostile_ktx2_files_are_typed_errors_or_fall_back_once() {
        let good = ktx2("texture_uastc.ktx2");
        let dfd = u32::from_le_bytes(good[DFD_OFFSET..DFD_OFFSET + 4].try_into().unwrap()) as usize;
        let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
        cases.push((
            "truncated",
            good[..good.len() - 100].to_vec(),
            "invalid KTX2",
        ));
        cases.push(("header only", good[..80].to_vec(), "invalid KTX2"));
        let mut lying = good.clone();
        put_u64(&mut lying, level_length(0), 1008);
        put_u64(&mut lying, level_uncompressed(0), 1008);
        cases.push(("short level 0", lying, "level 0 states 1008 bytes"));
        let mut lying = good.clone();
        put_u64(&mut lying, level_uncompressed(2), 1 << 40);
        cases.push(("huge stated level 2", lying, "level 2 states"));
        let mut wide = good.clone();
        put_u32(&mut wide, WIDTH, 64);
        cases.push(("width not the data's", wide, "needs 2048"));
        let mut zero = good.clone();
        put_u32(&mut zero, WIDTH, 0);
        cases.push(("zero width", zero, "ZeroWidth"));
        let mut levels = good.clone();
        put_u32(&mut levels, LEVEL_COUNT, 7);
        cases.push(("more levels than the chain", levels, "invalid KTX2"));
        let mut etc1s = good.clone();
        etc1s[dfd + 12] = 163;
        cases.push(("ETC1S", etc1s, "ETC1S/BasisLZ is not supported; UASTC is"));
        let mut basislz = good.clone();
        put_u32(&mut basislz, SCHEME, 1);
        cases.push((
            "BasisLZ",
            basislz,
            "ETC1S/BasisLZ is not supported; UASTC is",
        ));
        let mut zlib = good.clone();
        put_u32(&mut zlib, SCHEME, 3);
        cases.push((
            "zlib",
            zlib,
            "UASTC with ZLIB supercompression is not supported",
        ));
        let mut model = good.clone();
        model[dfd + 12] = 1;
        cases.push(("RGB colour model", model, "colour model"));
        // Level 0's zstd stream cut in half (the index says so).
        let mut zstd = ktx2("texture_uastc_zstd.ktx2");
        let length = u64::from_le_bytes(zstd[level_length(0)..][..8].try_into().unwrap());
        put_u64(&mut zstd, level_length(0), length / 2);
        cases.push(("cut zstd stream", zstd, "KTX2 zstd"));

        for (name, bytes, expected) in cases {
            let error = parse(&without_fallback(with_image(&bytes)), true).unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(error, GltfError::Invalid { .. }) && message.contains("image 1"),
                "{name}: {error:?}"
            );
            assert!(message.contains(expected), "{name}: {message}");

            let document = parse(&with_image(&bytes), true)
                .unwrap_or_else(|e| panic!("{name} with a fallback: {e}"));
            assert_eq!(document.textures[0].image, 0, "{name}: the PNG");
            assert_eq!(document.textures[0].rgba().unwrap(), png_texels(), "{name}");
            assert_eq!(
                document.warnings.len(),
                1,
                "{name}: {:?}",
                document.warnings
            );
            let warning = &document.warnings[0];
            assert!(
                warning.contains(expected) && warning.contains("fallback source, image 0"),
                "{name}: {warning}"
            );
        }
    }

    /// The UASTC image's texels (32 x 32 RGBA8, 4,096 bytes) and level 0's
    /// blocks (1,024 bytes) are charged to the image limits before it is
    /// decoded: one byte or pixel too few is `GltfError::LimitExceeded`,
    /// even with a fallback (limits protect the process).
    #[test]
    fn uastc_images_count_against_the_image_limits() {
        let dir = asset("basisu");
        let parse_with = |limits: LoadLimits| {
            let options = ParseOptions {
                limits,
                ..ParseOptions::default()
            };
            let text = gltf().to_string();
            parse_gltf_slice_with_options(
                text.as_bytes(),
                Path::new("basisu.gltf"),
                Some(&dir),
                &options,
            )
        };
        let mut limits = LoadLimits {
            max_image_bytes: 4096 + 1024,
            ..LoadLimits::default()
        };
        assert!(parse_with(limits).is_ok());
        limits.max_image_bytes -= 1;
        let error = parse_with(limits).unwrap_err();
        assert!(
            matches!(error, GltfError::LimitExceeded { .. }),
            "{error:?}"
        );
        let limits = LoadLimits {
            max_image_pixels: 32 * 32 - 1,
            ..LoadLimits::default()
        };
        let error = parse_with(limits).unwrap_err();
        assert!(
            matches!(error, GltfError::LimitExceeded { .. }),
            "{error:?}"
        );
    }
}
