//! Unusable images degrade (issue 13, item 6): a `.gltf` whose images are
//! missing, corrupt or undecodable loads by default with those images'
//! textures on the heap's missing-texture slot and one warning per file;
//! the strict mode keeps the error; a refused URI and a missing `.bin` are
//! errors in both modes. The baseline renders the degraded scene the same.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use glam::Mat4;
use unbound::debug::decode_id;
use unbound::heap::{MISSING_COLOR, TEXTURE_MISSING};
use unbound::loaders::gltf::{
    GltfDocument, GltfError, MissingImages, ParseOptions, RefusalReason, TexelData,
    parse_gltf_with_options,
};
use unbound::{DebugOptions, DebugView, ID_TARGET_FORMAT, Renderer};
use unbound_baseline::BaselineRenderer;

/// Target side, pixels: the three unit quads at x = -1.2, 0, 1.2 in a
/// square of half-width [`HALF`], 20 pixels per unit.
const SIZE: u32 = 72;
const HALF: f32 = 1.8;
/// The quads' centres along x.
const QUADS: [f32; 3] = [-1.2, 0.0, 1.2];
/// The present image's one colour (sRGB).
const PRESENT: [u8; 4] = [40, 160, 220, 255];
/// The bytes of the image embedded in buffer view 3: not an image.
const NOT_AN_IMAGE: &[u8] = b"this is not an image at all";

/// The scene's files in a fresh folder, removed on drop.
struct SceneDir {
    path: PathBuf,
}

impl Drop for SceneDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.path).ok();
    }
}

impl SceneDir {
    /// `scene.gltf` (JSON from [`scene_json`] with `image_uri` as image 1's
    /// URI and `bin_uri` as the buffer's) beside `quads.bin`, `present.png`
    /// and `corrupt.png`; `missing.png` does not exist.
    fn new(case: &str, image_uri: &str, bin_uri: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("unbound-missing-{case}-{}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        let bin = scene_bin();
        std::fs::write(path.join("quads.bin"), &bin).unwrap();
        let mut png = Vec::new();
        image::RgbaImage::from_pixel(4, 4, image::Rgba(PRESENT))
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        std::fs::write(path.join("present.png"), &png).unwrap();
        // Signature and IHDR (the size reads fine), no image data.
        std::fs::write(path.join("corrupt.png"), &png[..33]).unwrap();
        let json = scene_json(image_uri, bin_uri, bin.len());
        std::fs::write(path.join("scene.gltf"), json).unwrap();
        Self { path }
    }

    fn scene(&self) -> PathBuf {
        self.path.join("scene.gltf")
    }
}

/// Positions (view 0), UVs (view 1) and indices (view 2) of a unit quad
/// facing +Z, and [`NOT_AN_IMAGE`] (view 3).
fn scene_bin() -> Vec<u8> {
    let mut bin = Vec::new();
    for p in [
        [-0.5f32, -0.5, 0.0],
        [0.5, -0.5, 0.0],
        [0.5, 0.5, 0.0],
        [-0.5, 0.5, 0.0],
    ] {
        p.iter().for_each(|v| bin.extend(v.to_le_bytes()));
    }
    for uv in [[0.0f32, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]] {
        uv.iter().for_each(|v| bin.extend(v.to_le_bytes()));
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend(i.to_le_bytes());
    }
    bin.extend(NOT_AN_IMAGE);
    bin
}

/// Three quads, each its own mesh and material, every texture sampled
/// nearest:
/// - material 0: base colour `present.png`;
/// - material 1: base colour and occlusion `image_uri` (image 1, as sRGB
///   and as linear data), emissive image 2, which names `missing.png` too;
/// - material 2: base colour `corrupt.png` (image 3), metallic-roughness
///   image 4, embedded in buffer view 3 and not an image.
fn scene_json(image_uri: &str, bin_uri: &str, bin_len: usize) -> String {
    let nodes: Vec<String> = QUADS
        .iter()
        .enumerate()
        .map(|(i, x)| format!(r#"{{"mesh": {i}, "translation": [{x}, 0, 0]}}"#))
        .collect();
    let meshes: Vec<String> = (0..3)
        .map(|i| {
            format!(
                r#"{{"primitives": [{{"attributes": {{"POSITION": 0, "TEXCOORD_0": 1}}, "indices": 2, "material": {i}}}]}}"#
            )
        })
        .collect();
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": [0, 1, 2]}}],
  "nodes": [{nodes}],
  "meshes": [{meshes}],
  "materials": [
    {{"pbrMetallicRoughness": {{"baseColorTexture": {{"index": 0}}, "metallicFactor": 0}}}},
    {{"pbrMetallicRoughness": {{"baseColorTexture": {{"index": 1}}, "metallicFactor": 0}},
      "occlusionTexture": {{"index": 1}}, "emissiveTexture": {{"index": 2}}}},
    {{"pbrMetallicRoughness": {{"baseColorTexture": {{"index": 3}}, "metallicRoughnessTexture": {{"index": 4}}, "metallicFactor": 0}}}}
  ],
  "textures": [
    {{"source": 0, "sampler": 0}}, {{"source": 1, "sampler": 0}}, {{"source": 2, "sampler": 0}},
    {{"source": 3, "sampler": 0}}, {{"source": 4, "sampler": 0}}
  ],
  "samplers": [{{"magFilter": 9728, "minFilter": 9728}}],
  "images": [
    {{"uri": "present.png"}}, {{"uri": {image_uri:?}}}, {{"uri": "missing.png"}},
    {{"uri": "corrupt.png"}}, {{"bufferView": 3, "mimeType": "image/png"}}
  ],
  "buffers": [{{"byteLength": {bin_len}, "uri": {bin_uri:?}}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 32}},
    {{"buffer": 0, "byteOffset": 80, "byteLength": 12}},
    {{"buffer": 0, "byteOffset": 92, "byteLength": {image_len}}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]}},
    {{"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"}},
    {{"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}}
  ]
}}"#,
        nodes = nodes.join(", "),
        meshes = meshes.join(", "),
        image_len = NOT_AN_IMAGE.len(),
    )
}

fn options(missing_images: MissingImages) -> ParseOptions {
    ParseOptions {
        missing_images,
        ..ParseOptions::default()
    }
}

fn parse(path: &Path, missing_images: MissingImages) -> Result<GltfDocument, GltfError> {
    parse_gltf_with_options(path, &options(missing_images), None)
}

/// The pixel at the centre of quad `i`.
fn centre(i: usize) -> (u32, u32) {
    let scale = SIZE as f32 / (2.0 * HALF);
    (((QUADS[i] + HALF) * scale) as u32, SIZE / 2)
}

/// The pixels well inside quad `i` (2 pixels from its edges).
fn inside(i: usize) -> impl Iterator<Item = (u32, u32)> {
    let (cx, cy) = centre(i);
    let half = (SIZE as f32 / (2.0 * HALF) / 2.0) as u32 - 2;
    (cy - half..cy + half).flat_map(move |y| (cx - half..cx + half).map(move |x| (x, y)))
}

/// One frame of `view` (with the missing-texture highlight or not), saved
/// as `tests/output/gltf_missing_{view}[_highlight].png`.
fn render(
    gpu: &Gpu,
    renderer: &mut Renderer,
    target: &Target,
    view: DebugView,
    highlight_missing: bool,
) -> image::RgbaImage {
    let options = DebugOptions {
        view,
        highlight_missing,
        ..Default::default()
    };
    renderer.set_debug(&options).unwrap();
    let (image, _) = target.render(gpu, renderer);
    let suffix = if highlight_missing { "_highlight" } else { "" };
    save_output(&format!("gltf_missing_{}{suffix}", view.name()), &image);
    image
}

#[test]
fn missing_and_corrupt_images_load_as_the_missing_texture_with_one_warning_per_file() {
    let dir = SceneDir::new("lenient", "missing.png", "quads.bin");
    let document = parse(&dir.scene(), MissingImages::Placeholder).unwrap();

    // One warning per file: missing.png is named once, though two images,
    // three textures and two texture slots of one material use it.
    let not_found = dir.path.join("missing.png").canonicalize().unwrap_err();
    let suffix = "; shown as the missing texture";
    assert_eq!(document.warnings.len(), 3, "{:#?}", document.warnings);
    assert_eq!(
        document.warnings[0],
        format!("image missing.png: unreadable: {not_found}{suffix}")
    );
    for (warning, prefix) in document.warnings[1..].iter().zip([
        "image corrupt.png: undecodable: ",
        "image 4 (bufferView 3): undecodable: ",
    ]) {
        assert!(
            warning.starts_with(prefix)
                && warning.ends_with(suffix)
                && warning.len() > prefix.len() + suffix.len(),
            "{warning}"
        );
    }
    // Textures in order of first use: (image, sRGB).
    let textures: Vec<(usize, bool, bool)> = document
        .textures
        .iter()
        .map(|t| (t.image, t.srgb, t.data == TexelData::Missing))
        .collect();
    assert_eq!(
        textures,
        [
            (0, true, false),
            (1, true, true),
            (1, false, true),
            (2, true, true),
            (3, true, true),
            (4, false, true),
        ]
    );
    assert_eq!(document.textures[0].rgba().unwrap()[..4], PRESENT);
    document.validate().unwrap();

    // The strict mode keeps the first error, of the missing file.
    match parse(&dir.scene(), MissingImages::Error) {
        Err(GltfError::Resource { uri, source, .. }) => {
            assert_eq!(uri, "missing.png");
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected the missing file's error, got {other:?}"),
    }
    // With missing.png present, the corrupt one's.
    std::fs::copy(dir.path.join("present.png"), dir.path.join("missing.png")).unwrap();
    match parse(&dir.scene(), MissingImages::Error) {
        Err(error @ GltfError::Invalid { .. }) => {
            assert!(error.to_string().contains("image 3: "), "{error}");
        }
        other => panic!("expected the corrupt image's error, got {other:?}"),
    }
    let repaired = parse(&dir.scene(), MissingImages::Placeholder).unwrap();
    assert_eq!(repaired.warnings.len(), 2, "{:#?}", repaired.warnings);
    assert!(repaired.warnings[0].starts_with("image corrupt.png: "));
}

/// A URI the file policy refuses and a missing buffer are errors in both
/// modes.
#[test]
fn refused_uris_and_missing_buffers_are_errors_in_both_modes() {
    let refused = SceneDir::new("refused", "../x.png", "quads.bin");
    let no_bin = SceneDir::new("no-bin", "missing.png", "gone.bin");
    for mode in [MissingImages::Placeholder, MissingImages::Error] {
        match parse(&refused.scene(), mode) {
            Err(GltfError::Refused { uri, reason, .. }) => {
                assert_eq!(
                    (uri.as_str(), reason),
                    ("../x.png", RefusalReason::OutsideRoot)
                );
            }
            other => panic!("{mode:?}: expected a refusal, got {other:?}"),
        }
        match parse(&no_bin.scene(), mode) {
            Err(GltfError::Resource { uri, .. }) => assert_eq!(uri, "gone.bin"),
            other => panic!("{mode:?}: expected the missing buffer, got {other:?}"),
        }
    }
}

/// The degraded scene on lavapipe: the quads whose base colour image is
/// missing or corrupt sample the missing-texture slot (the texture-slot
/// view decodes to slot 0, the unlit view shows its magenta and black
/// checker, the highlight marks every pixel of them), the other quad its
/// texture; the bind-per-draw baseline renders the same image.
/// Mesa's GL and Vulkan software drivers slow each other badly: this
/// file's GPU tests take turns.
static GPU_TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gpu_turn() -> std::sync::MutexGuard<'static, ()> {
    GPU_TURN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn degraded_scene_renders_the_missing_texture_on_both_paths() {
    let _turn = gpu_turn();
    let (gpu, renderer) = Gpu::with_renderer();
    assert_eq!(renderer.tier(), unbound::Tier::A);
    degraded_scene_renders_the_missing_texture(&gpu, renderer, true);
}

/// Tier C (Mesa's GL adapter, texture arrays): the same slots, checker and
/// highlight (the baseline is compared on tier A only).
#[test]
fn degraded_scene_renders_the_missing_texture_on_tier_c() {
    let _turn = gpu_turn();
    let gpu = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    let renderer = gpu.renderer(&Gpu::default_capacities());
    assert_eq!(renderer.tier(), unbound::Tier::C);
    degraded_scene_renders_the_missing_texture(&gpu, renderer, false);
}

fn degraded_scene_renders_the_missing_texture(
    gpu: &Gpu,
    mut renderer: Renderer,
    with_baseline: bool,
) {
    let dir = SceneDir::new(
        if with_baseline { "render" } else { "render-c" },
        "missing.png",
        "quads.bin",
    );
    let document = parse(&dir.scene(), MissingImages::Placeholder).unwrap();
    let scene = document
        .upload(&mut renderer, Mat4::IDENTITY, None)
        .unwrap();
    assert_eq!(scene.warnings, document.warnings);
    let missing = renderer.heap().missing_texture();
    assert_eq!(scene.textures[1..], [missing; 5]);
    assert_ne!(scene.textures[0], missing);
    let camera = camera_framing_plane(HALF);
    renderer.set_camera(&camera).unwrap();
    renderer.set_lighting(&flat_lighting()).unwrap();
    let ids = Target::with_format(gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let slots = render(gpu, &mut renderer, &ids, DebugView::TextureSlot, false);
    let present_slot = renderer.heap().texture_2d_slot(scene.textures[0]).unwrap();
    for (i, slot) in [present_slot, TEXTURE_MISSING, TEXTURE_MISSING]
        .into_iter()
        .enumerate()
    {
        for (x, y) in inside(i) {
            assert_eq!(
                decode_id(slots.get_pixel(x, y).0),
                Some(slot),
                "quad {i} at ({x}, {y})"
            );
        }
    }

    let target = Target::new(gpu, SIZE, SIZE);
    let unlit = render(gpu, &mut renderer, &target, DebugView::Unlit, false);
    for (x, y) in inside(0) {
        assert!(
            color_distance(*unlit.get_pixel(x, y), PRESENT) <= 2,
            "({x}, {y})"
        );
    }
    let black = [0, 0, 0, 255];
    for i in [1, 2] {
        let pixels: Vec<[u8; 4]> = inside(i).map(|(x, y)| unlit.get_pixel(x, y).0).collect();
        // Tier C keeps the 8x8 checker in a 64x64 layer, filtered up: its
        // cell borders blend the two colours, which stay on the line from
        // black to magenta.
        let on_checker = |p: &[u8; 4]| {
            if with_baseline {
                *p == MISSING_COLOR || *p == black
            } else {
                p[1] <= 2 && p[0].abs_diff(p[2]) <= 2
            }
        };
        let stray: Vec<_> = pixels.iter().filter(|p| !on_checker(p)).collect();
        assert!(
            stray.is_empty(),
            "quad {i}: the checker's two colours only: {stray:?}"
        );
        if with_baseline {
            let magenta = pixels.iter().filter(|p| **p == MISSING_COLOR).count();
            assert!(
                magenta > pixels.len() / 4 && magenta < pixels.len() * 3 / 4,
                "quad {i}: {magenta} of {} magenta",
                pixels.len()
            );
        } else {
            // Filtered from coarser levels of the layer: half magenta on
            // average.
            let red = pixels.iter().map(|p| u32::from(p[0])).sum::<u32>() / pixels.len() as u32;
            assert!((48..208).contains(&red), "quad {i}: mean red {red}");
        }
    }

    // The highlight is a magenta radiance in the lit view, tone mapped like
    // the rest of it (within 1 of the CPU curve: half-float rounding).
    let highlighted = render(gpu, &mut renderer, &target, DebugView::Lit, true);
    let [r, g, b] = shown_srgb(glam::Vec3::new(1.0, 0.0, 1.0));
    let highlight = [r, g, b, 255];
    for i in 0..3 {
        let magenta = inside(i)
            .filter(|&(x, y)| color_distance(*highlighted.get_pixel(x, y), highlight) <= 1)
            .count();
        let expected = if i == 0 { 0 } else { inside(i).count() };
        assert_eq!(magenta, expected, "quad {i}");
    }

    if !with_baseline {
        gpu.finish();
        return;
    }
    let lit = render(gpu, &mut renderer, &target, DebugView::Lit, false);
    let mut baseline = BaselineRenderer::from_gltf(
        &gpu.device,
        &gpu.queue,
        &document,
        Mat4::IDENTITY,
        &camera,
        &flat_lighting(),
        wgpu::TextureFormat::Rgba8UnormSrgb,
    )
    .unwrap();
    let (classic, _) = target.capture(gpu, |encoder, frame| baseline.render(encoder, frame));
    save_output("gltf_missing_baseline", &classic);
    let worst = largest_difference(&lit, &classic);
    assert!(worst <= 2, "the baseline differs by up to {worst}");
    // The checker shows through the lighting on both.
    let (x, y) = centre(1);
    let row: Vec<[u8; 4]> = (x - 8..x + 8).map(|x| classic.get_pixel(x, y).0).collect();
    assert!(row.iter().any(|p| p[0] > 100 && p[1] < 40) && row.iter().any(|p| p[0] < 40));
    gpu.finish();
}
