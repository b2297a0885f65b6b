//! The material views of a generated glTF (metallic, roughness, occlusion,
//! emissive, tangents), checked texel by texel: shared by
//! `tests/debug_views.rs` (tier A) and `tests/tiers.rs` (tier C).

use glam::Vec3;
use unbound::{DebugOptions, DebugView, ID_TARGET_FORMAT, Renderer};

use super::*;

/// Target side in pixels.
const SIZE: u32 = 64;

/// Renders each of `views` into one linear target ([`ID_TARGET_FORMAT`]).
fn render_linear<const N: usize>(
    gpu: &Gpu,
    renderer: &mut Renderer,
    views: [DebugView; N],
) -> [image::RgbaImage; N] {
    let target = Target::with_format(gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    views.map(|view| {
        renderer
            .set_debug(&DebugOptions {
                view,
                ..Default::default()
            })
            .unwrap();
        target.render(gpu, renderer).0
    })
}

/// A `side`x`side` RGBA8 image as PNG bytes, texel `i` (row by row) being
/// `texel(i)`.
pub fn png(side: u32, texel: impl Fn(u32) -> [u8; 4]) -> Vec<u8> {
    let image = image::RgbaImage::from_fn(side, side, |x, y| image::Rgba(texel(y * side + x)));
    let mut bytes = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    bytes
}

/// The glTF loader's path to the material views, on `renderer`: a generated file whose quad
/// fills the target, 4x4-texel metallic-roughness, occlusion and emissive
/// PNGs of 16 distinct texels each (every texel 16x16 pixels on screen,
/// sampled nearest; read at the pixel at each texel's centre), glTF's
/// factors, occlusion `strength` and `KHR_materials_emissive_strength`, and
/// the occlusion texture on TEXCOORD_1, which mirrors TEXCOORD_0 left to
/// right. Each view shows, within one step of the 8-bit linear target, the
/// value the sampled texel holds under the glTF formulas: metallic = factor
/// x B, roughness = factor x G, occlusion = 1 + strength (R - 1), emissive
/// = factor x strength x the sRGB-decoded texel. Without a normal texture
/// the tangent view shows the fallback tangent.
pub fn check_gltf_material_views(gpu: &Gpu, renderer: &mut Renderer) {
    const TEXELS: u32 = 4;
    let metallic_roughness = |i: u32| [77, 250 - 13 * i as u8, 10 + 15 * i as u8, 255];
    let occlusion = |i: u32| [5 + 16 * i as u8, 200, 200, 255];
    let emissive = |i: u32| [17 * i as u8, 255 - 17 * i as u8, (i * 53 % 256) as u8, 255];
    let (metallic_factor, roughness_factor, strength) = (0.75, 0.6, 0.7);
    let (emissive_factor, emissive_strength) = (Vec3::new(0.9, 0.45, 0.3), 1.1);
    let material = format!(
        r#"{{"pbrMetallicRoughness": {{"metallicFactor": {metallic_factor}, "roughnessFactor": {roughness_factor}, "metallicRoughnessTexture": {{"index": 0}}}},
  "occlusionTexture": {{"index": 1, "strength": {strength}, "texCoord": 1}},
  "emissiveTexture": {{"index": 2}},
  "emissiveFactor": [{}, {}, {}],
  "extensions": {{"KHR_materials_emissive_strength": {{"emissiveStrength": {emissive_strength}}}}}}}"#,
        emissive_factor.x, emissive_factor.y, emissive_factor.z
    );
    let images =
        [metallic_roughness, occlusion, emissive].map(|texel| ("image/png", png(TEXELS, texel)));
    let mirrored = [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0]];
    let file = material_quad_gltf(
        &material,
        &images,
        mirrored,
        &["KHR_materials_emissive_strength"],
    );
    let document =
        unbound::loaders::gltf::parse_gltf_slice(file.as_bytes(), "views.gltf".as_ref(), None)
            .unwrap();
    assert!(document.warnings.is_empty(), "{:?}", document.warnings);
    renderer.set_camera(&camera_framing_plane(2.0)).unwrap();
    document
        .upload(renderer, quad_at(Vec3::ZERO, 4.0, 4.0), None)
        .unwrap();
    let views = [
        DebugView::Metallic,
        DebugView::Roughness,
        DebugView::Occlusion,
        DebugView::Emissive,
        DebugView::Tangents,
    ];
    let [m, r, o, e, t] = render_linear(gpu, renderer, views);
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let unorm = |b: u8| f32::from(b) / 255.0;
    let grey = |v: f32| [byte(v), byte(v), byte(v), 255];
    let fallback = Vec3::from_slice(&unbound::geometry::fallback_tangent(Vec3::Z));
    let tangent = (fallback * 0.5 + 0.5).to_array().map(byte);
    let cell = SIZE / TEXELS;
    for (column, row) in (0..TEXELS).flat_map(|c| (0..TEXELS).map(move |r| (c, r))) {
        let texel = row * TEXELS + column;
        let mirrored_texel = row * TEXELS + (TEXELS - 1 - column);
        let [_, g, b, _] = metallic_roughness(texel);
        let ao = unorm(occlusion(mirrored_texel)[0]);
        let [er, eg, eb, _] = emissive(texel).map(|c| srgb_to_linear(unorm(c)));
        let emitted = Vec3::new(er, eg, eb) * emissive_factor * emissive_strength;
        let expected = [
            ("metallic", &m, grey(metallic_factor * unorm(b))),
            ("roughness", &r, grey(roughness_factor * unorm(g))),
            ("occlusion", &o, grey(1.0 + strength * (ao - 1.0))),
            (
                "emissive",
                &e,
                [byte(emitted.x), byte(emitted.y), byte(emitted.z), 255],
            ),
            ("tangents", &t, [tangent[0], tangent[1], tangent[2], 255]),
        ];
        let (px, py) = (column * cell + cell / 2, row * cell + cell / 2);
        for (view, image, want) in expected {
            let got = *image.get_pixel(px, py);
            assert!(
                color_distance(got, want) <= 1,
                "{view} view at texel ({column}, {row}), pixel ({px}, {py}): {got:?}, the file says {want:?}"
            );
        }
    }
    gpu.finish();
}
