//! Streaming 2D textures under a memory budget on the paged heap
//! (`src/heap/residency.rs`, `RendererConfig::texture_budget`), driven by
//! the camera's texture feedback (`src/heap/feedback.rs`): 36 textures of
//! 256² (about 12 MiB of full layers with mips) under a budget of 9 full
//! layers (about 3 MiB). Each texture is made of 4 x 4 texel blocks of one
//! colour, so its 64² base holds every block as one texel (and equals its
//! full layer's level 2) and the images are exact: the first frame shows
//! bases (no magenta, blurrier than the full render), the textures the
//! camera sees closely become fully resident within the budget with no
//! `want_texture` call, evicting the least recently wanted, and an evicted
//! texture still shows its base.

mod common;

use common::*;
use unbound::{Geometry, HandleError, HeapError, MaterialPass, RendererConfig, TextureHeap};

/// Target side: a 3 x 3 grid of 128-pixel cells, each showing a 256²
/// texture at its level 1.
const SIDE: u32 = 384;
const HALF: f32 = 1.5;
/// Textures in the heap, of which 9 are shown.
const TEXTURES: usize = 36;
const TEXTURE_SIZE: u32 = 256;
const BLOCK: u32 = 4;

/// Bytes of one 256² layer with its mips, as the budget counts them.
fn full_layer() -> u64 {
    u64::from(TEXTURE_SIZE * TEXTURE_SIZE) * 4 * 4 / 3
}

/// The colour of block (`bx`, `by`) of texture `t`: never near magenta
/// (green at least 128, blue at most 149).
fn block_color(t: usize, bx: u32, by: u32) -> [u8; 4] {
    let h =
        (t as u32).wrapping_mul(2_654_435_761) ^ bx.wrapping_mul(40_503) ^ by.wrapping_mul(9_973);
    let h = h ^ (h >> 13);
    [
        (h & 0xff) as u8,
        128 + ((h >> 8) % 128) as u8,
        ((h >> 16) % 150) as u8,
        255,
    ]
}

fn add_textures(renderer: &mut unbound::Renderer) -> Vec<unbound::TextureHandle> {
    (0..TEXTURES)
        .map(|t| {
            let data: Vec<u8> = (0..TEXTURE_SIZE * TEXTURE_SIZE)
                .flat_map(|i| {
                    let (x, y) = (i % TEXTURE_SIZE, i / TEXTURE_SIZE);
                    block_color(t, x / BLOCK, y / BLOCK)
                })
                .collect();
            data_texture(
                renderer,
                TEXTURE_SIZE,
                wgpu::TextureFormat::Rgba8UnormSrgb,
                &data,
            )
        })
        .collect()
}

/// Shows textures `first..first + 9` on the 3 x 3 grid.
fn show(
    renderer: &mut unbound::Renderer,
    textures: &[unbound::TextureHandle],
    first: usize,
) -> Vec<unbound::ObjectHandle> {
    let quad = flat_quad_scene(renderer, HALF);
    (0..9)
        .map(|cell| {
            let material = textured_material(renderer, textures[first + cell]);
            let center = glam::Vec3::new((cell % 3) as f32 - 1.0, 1.0 - (cell / 3) as f32, 0.0);
            renderer
                .add_object(&unbound::ObjectDesc {
                    mesh: quad,
                    material,
                    world_from_object: quad_at(center, 1.0, 1.0),
                })
                .unwrap()
        })
        .collect()
}

/// How a test's renderer shades the camera.
#[derive(Clone, Copy, Debug)]
struct Shading {
    geometry: Geometry,
    material_pass: MaterialPass,
    /// The depth pre-pass (the visibility buffer has its own).
    prepass: bool,
}

impl Shading {
    const FORWARD: Self = Self {
        geometry: Geometry::Forward,
        material_pass: MaterialPass::Fragment,
        prepass: false,
    };
    const PREPASS: Self = Self {
        prepass: true,
        ..Self::FORWARD
    };
    const VISIBILITY: Self = Self {
        geometry: Geometry::Visibility,
        ..Self::FORWARD
    };

    /// Whether each sample is shaded once, the nearest surface's: a
    /// surface hidden behind another is never shaded, so its texture is
    /// never seen (early depth tests forced after the pre-pass:
    /// `CameraFeedback::choose`).
    fn shades_nearest_only(self) -> bool {
        self.prepass || self.geometry == Geometry::Visibility
    }
}

fn renderer(gpu: &Gpu, budget: Option<u64>) -> unbound::Renderer {
    renderer_shading(gpu, budget, Shading::FORWARD)
}

/// [`renderer`] shading the camera as `shading` says.
fn renderer_shading(gpu: &Gpu, budget: Option<u64>, shading: Shading) -> unbound::Renderer {
    let Shading {
        geometry,
        material_pass,
        prepass,
    } = shading;
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        texture_heap: TextureHeap::Paged,
        texture_budget: budget,
        geometry,
        material_pass,
        depth_prepass: prepass,
        ..Default::default()
    });
    assert_eq!(renderer.geometry(), geometry);
    assert_eq!(renderer.material_pass(), material_pass);
    assert_ne!(
        renderer.tier(),
        unbound::Tier::C,
        "paged heap: tiers A and B"
    );
    assert_eq!(renderer.heap().residency().is_some(), budget.is_some());
    let _ = &mut renderer;
    renderer
}

/// One render of textures `first..first + 9` under `budget`, nothing
/// wanted, shading the camera as `shading` says (texture [`HIDDEN`]
/// behind the grid where it shades the nearest surface only).
fn render_once(
    gpu: &Gpu,
    target: &Target,
    (budget, shading): (Option<u64>, Shading),
    first: usize,
) -> image::RgbaImage {
    let mut renderer = renderer_shading(gpu, budget, shading);
    let textures = add_textures(&mut renderer);
    show(&mut renderer, &textures, first);
    if shading.shades_nearest_only() {
        hide_behind_the_grid(&mut renderer, textures[HIDDEN]);
    }
    let (image, _) = target.render(gpu, &mut renderer);
    image
}

/// A texture not shown: on a quad behind the grid's centre cell.
const HIDDEN: usize = 20;

/// Adds a quad showing `texture` behind the grid's centre cell (as wide
/// on screen as a shown texture, wholly covered).
fn hide_behind_the_grid(renderer: &mut unbound::Renderer, texture: unbound::TextureHandle) {
    let quad = renderer
        .add_mesh(&unbound::shapes::quad().as_mesh_data())
        .unwrap();
    let material = textured_material(renderer, texture);
    let behind = glam::Vec3::new(0.0, 0.0, -0.5);
    renderer
        .add_object(&unbound::ObjectDesc {
            mesh: quad,
            material,
            world_from_object: quad_at(behind, 0.95, 0.95),
        })
        .unwrap();
}

/// Pixels close to the "missing" texture's magenta.
fn magenta_pixels(image: &image::RgbaImage) -> usize {
    image
        .pixels()
        .filter(|p| p.0[0] > 160 && p.0[1] < 60 && p.0[2] > 160)
        .count()
}

/// Renders a frame, checks it has no magenta and the budget holds.
fn frame(gpu: &Gpu, target: &Target, renderer: &mut unbound::Renderer) -> image::RgbaImage {
    frame_with(gpu, target, renderer, TEXTURES)
}

/// [`frame`] with `textures` live.
fn frame_with(
    gpu: &Gpu,
    target: &Target,
    renderer: &mut unbound::Renderer,
    textures: usize,
) -> image::RgbaImage {
    let (image, stats) = target.render(gpu, renderer);
    assert_eq!(magenta_pixels(&image), 0, "no magenta, ever");
    let residency = stats.textures.expect("the frame's residency");
    assert_eq!(Some(residency), renderer.heap().residency());
    assert!(
        residency.resident_bytes <= residency.budget,
        "{residency:?}"
    );
    assert_eq!(residency.streamed as usize, textures, "every base stays");
    image
}

/// Feedback alone (no `want_texture`): the 9 textures shown, each 256²
/// over a 128-pixel cell (level code 8: more than the 64² base gives), are
/// promoted once their feedback is read. N = 3 still frames: frame 1
/// writes the feedback, frame 2 copies it back, frame 3 reads it, promotes
/// and shows the full layers; from then on every frame equals the fully
/// resident render within 1 of 255 per channel. The first frame has no
/// magenta and is blurrier.
#[test]
fn feedback_alone_streams_to_the_fully_resident_render() {
    streams_from_feedback(Shading::FORWARD);
}

/// [`feedback_alone_streams_to_the_fully_resident_render`] through the
/// visibility buffer: its material pass writes the feedback (the same
/// `sample_material`), compared with a fully resident render of the same.
/// A texture on a quad hidden behind the grid is never seen (the material
/// pass shades the nearest surface alone).
#[test]
fn feedback_from_the_visibility_buffer_streams_too() {
    streams_from_feedback(Shading::VISIBILITY);
}

/// [`feedback_from_the_visibility_buffer_streams_too`] with the compute
/// material pass (`MaterialPass::Compute`), which writes the feedback
/// from compute (the same `sample_material`, its UV derivatives
/// reconstructed).
#[test]
fn feedback_from_the_compute_material_pass_streams_too() {
    streams_from_feedback(Shading {
        material_pass: MaterialPass::Compute,
        ..Shading::VISIBILITY
    });
}

/// [`feedback_alone_streams_to_the_fully_resident_render`] after the depth
/// pre-pass, where the draw pass forces early depth tests
/// (`CameraFeedback::EarlyDepth`, on a device with
/// `Features::SHADER_EARLY_DEPTH_TEST`, which lavapipe has): the same
/// images, and the texture of a quad hidden behind the grid is never seen
/// (its fragments fail the depth test before they shade; without the
/// forced test they would shade, ask for it, and the streamer would load
/// it over the budget the 9 shown ones fill).
#[test]
fn feedback_after_the_prepass_streams_with_early_depth_tests() {
    streams_from_feedback(Shading::PREPASS);
}

fn streams_from_feedback(shading: Shading) {
    const N: usize = 3;
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, SIDE, SIDE);
    let budget = 9 * full_layer();
    let early_depth = wgpu::Features::SHADER_EARLY_DEPTH_TEST;
    assert!(
        gpu.device.features().contains(early_depth),
        "the test device forces early depth tests"
    );
    let name = format!(
        "{:?}_{:?}_{}",
        shading.geometry, shading.material_pass, shading.prepass
    );
    let full = render_once(&gpu, &target, (None, shading), 0);
    save_output(&format!("texture_streaming_full_{name}"), &full);
    assert_eq!(magenta_pixels(&full), 0);

    let mut renderer = renderer_shading(&gpu, Some(budget), shading);
    let textures = add_textures(&mut renderer);
    show(&mut renderer, &textures, 0);
    if shading.shades_nearest_only() {
        hide_behind_the_grid(&mut renderer, textures[HIDDEN]);
    }

    let first = frame(&gpu, &target, &mut renderer);
    save_output(&format!("texture_streaming_first_{name}"), &first);
    let stats = renderer.heap().residency().unwrap();
    assert_eq!((stats.resident_bytes, stats.fully_resident), (0, 0));
    let blurred = mismatched_pixels(&first, &full, 8);
    assert!(
        blurred > 1000,
        "the bases are blurrier: {blurred} pixels differ"
    );
    // Frames 2 .. N - 1 still show bases; N and the 5 after, the full render.
    for n in 2..=N + 5 {
        let image = frame(&gpu, &target, &mut renderer);
        let wrong = mismatched_pixels(&image, &full, 1);
        if n < N {
            assert!(wrong > 1000, "frame {n}: only {wrong} pixels differ");
        } else {
            save_output(&format!("texture_streaming_settled_{name}"), &image);
            assert_eq!(
                wrong, 0,
                "frame {n}: {wrong} pixels differ from the full render"
            );
        }
    }
    let stats = renderer.heap().residency().unwrap();
    assert_eq!(stats.fully_resident, 9, "{stats:?}");
    assert_eq!(stats.resident_bytes, budget);
    assert_eq!(stats.evicted_bytes, 0, "the shown textures stay wanted");
    // 128 pixels for a texture width: code 8 (2^7 texels), or 9 where the
    // derivatives round below 1/128.
    let base = unbound::heap::BASE_LEVEL_CODE;
    for (t, &texture) in textures.iter().enumerate() {
        let code = renderer.texture_feedback(texture).unwrap().unwrap();
        match t {
            0..9 => assert!((base + 1..=base + 2).contains(&code), "texture {t}: {code}"),
            _ => assert_eq!(code, 0, "texture {t}: not shown (or hidden)"),
        }
    }
    gpu.finish();
}

/// The feedback's level codes against the CPU model
/// (`unbound::heap::level_code` of the footprint a quad of known size on
/// screen gives: a quad `w` pixels wide maps 1 texture width to `w`
/// pixels, a footprint of `1 / w`), within one level: quads 24, 96 and
/// 240 pixels wide (codes 6, 8 and 9 modelled).
#[test]
fn feedback_levels_match_the_cpu_model() {
    levels_match_the_cpu_model(Shading::FORWARD);
}

/// [`feedback_levels_match_the_cpu_model`] after the depth pre-pass (early
/// depth tests forced: the same codes).
#[test]
fn feedback_levels_after_the_prepass_match_the_cpu_model() {
    levels_match_the_cpu_model(Shading::PREPASS);
}

fn levels_match_the_cpu_model(shading: Shading) {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, SIDE, SIDE);
    let mut renderer = renderer_shading(&gpu, Some(full_layer()), shading);
    let textures = add_textures(&mut renderer);
    let quad = flat_quad_scene(&mut renderer, HALF);
    let pixels_per_unit = SIDE as f32 / (2.0 * HALF);
    let widths = [24.0, 96.0, 240.0];
    let centres = [(-1.2, 1.2), (-0.9, -0.9), (0.55, 0.45)];
    for ((&width, (x, y)), &texture) in widths.iter().zip(centres).zip(&textures) {
        let material = textured_material(&mut renderer, texture);
        let side = width / pixels_per_unit;
        renderer
            .add_object(&unbound::ObjectDesc {
                mesh: quad,
                material,
                world_from_object: quad_at(glam::Vec3::new(x, y, 0.0), side, side),
            })
            .unwrap();
    }
    for _ in 0..3 {
        frame(&gpu, &target, &mut renderer);
    }
    for (&width, &texture) in widths.iter().zip(&textures) {
        let model = unbound::heap::level_code(1.0 / width);
        let code = renderer.texture_feedback(texture).unwrap().unwrap();
        assert!(
            code.abs_diff(model) <= 1,
            "a quad {width} pixels wide: code {code}, model {model}"
        );
    }
    for &texture in &textures[3..] {
        assert_eq!(renderer.texture_feedback(texture).unwrap(), Some(0));
    }
    // Only the 240-pixel quad's texture asks for more than its base (the
    // 96-pixel one by one level, the model's 8, or not): the 24-pixel one
    // never does.
    let stats = renderer.heap().residency().unwrap();
    assert!(stats.fully_resident >= 1, "{stats:?}");
    gpu.finish();
}

/// Alpha-masked materials live, so without a pre-pass early depth tests
/// are not forced (`CameraFeedback::choose`: the opaque bucket writes
/// depth and `fs_main` discards the holes; a forced early test would
/// write a hole's depth before the discard and hide what is behind it).
/// A masked quad with holes (every other 32-texel block transparent) in
/// front of a textured quad, streamed under the budget: after N = 3 still
/// frames it equals the fully resident render within 1 of 255 per
/// channel, the holes showing the quad behind. With the pre-pass (early
/// tests forced: it tests for equality and writes nothing) too.
#[test]
fn masked_holes_stay_holes_while_streaming() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, SIDE, SIDE);
    let scene = |renderer: &mut unbound::Renderer| {
        let textures = add_textures(renderer);
        let quad = flat_quad_scene(renderer, HALF);
        let holes: Vec<u8> = (0..TEXTURE_SIZE * TEXTURE_SIZE)
            .flat_map(|i| {
                let (x, y) = (i % TEXTURE_SIZE, i / TEXTURE_SIZE);
                let [r, g, b, _] = block_color(1, x / BLOCK, y / BLOCK);
                let hole = (x / 32 + y / 32) % 2 == 1;
                [r, g, b, if hole { 0 } else { 255 }]
            })
            .collect();
        let srgb = wgpu::TextureFormat::Rgba8UnormSrgb;
        let holes = data_texture(renderer, TEXTURE_SIZE, srgb, &holes);
        let sampler = renderer.heap().default_sampler();
        let masked = renderer
            .add_material(&unbound::Material {
                alpha_mode: unbound::AlphaMode::Mask { cutoff: 0.5 },
                ..material_showing(holes, sampler)
            })
            .unwrap();
        let behind = textured_material(renderer, textures[0]);
        for (material, z, side) in [(masked, 0.0, 2.0), (behind, -0.5, 2.8)] {
            let world_from_object = quad_at(glam::Vec3::new(0.0, 0.0, z), side, side);
            renderer
                .add_object(&unbound::ObjectDesc {
                    mesh: quad,
                    material,
                    world_from_object,
                })
                .unwrap();
        }
    };
    for shading in [Shading::FORWARD, Shading::PREPASS] {
        let mut resident = renderer_shading(&gpu, None, shading);
        scene(&mut resident);
        let (full, _) = target.render(&gpu, &mut resident);
        let mut streamed = renderer_shading(&gpu, Some(9 * full_layer()), shading);
        scene(&mut streamed);
        for _ in 0..3 {
            frame_with(&gpu, &target, &mut streamed, TEXTURES + 1);
        }
        let image = frame_with(&gpu, &target, &mut streamed, TEXTURES + 1);
        let name = format!("texture_streaming_masked_{}", shading.prepass);
        save_output(&name, &image);
        let wrong = mismatched_pixels(&image, &full, 1);
        assert_eq!(wrong, 0, "{shading:?}: {wrong} pixels differ");
        let stats = streamed.heap().residency().unwrap();
        assert_eq!(stats.fully_resident, 2, "{shading:?}: {stats:?}");
    }
    gpu.finish();
}

/// A camera panning along a strip of the 36 textures (each 128 pixels
/// wide when passed), under a budget of 9: the feedback wants what comes
/// into view, the least recently wanted are evicted, and no frame shows
/// magenta; every texture keeps its base (`streamed` counts them, and from
/// afar, where the bases are enough, the image equals a renderer's whose
/// budget is 0: each texture's layers still hold its texels).
#[test]
fn eviction_under_a_moving_camera_keeps_every_base() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, SIDE, SIDE);
    let strip = |renderer: &mut unbound::Renderer, textures: &[unbound::TextureHandle]| {
        let quad = flat_quad_scene(renderer, HALF);
        for (t, &texture) in textures.iter().enumerate() {
            let material = textured_material(renderer, texture);
            let centre = glam::Vec3::new((t % 12) as f32 - 5.5, 1.0 - (t / 12) as f32, 0.0);
            renderer
                .add_object(&unbound::ObjectDesc {
                    mesh: quad,
                    material,
                    world_from_object: quad_at(centre, 1.0, 1.0),
                })
                .unwrap();
        }
    };
    let looking_at = |x: f32, half: f32| {
        let mut camera = camera_framing_plane(half);
        camera.position.x = x;
        camera.target.x = x;
        camera
    };
    let budget = 9 * full_layer();
    let mut renderer = renderer(&gpu, Some(budget));
    let textures = add_textures(&mut renderer);
    strip(&mut renderer, &textures);
    for step in 0..36 {
        let x = -5.5 + 11.0 * step as f32 / 35.0;
        renderer.set_camera(&looking_at(x, HALF)).unwrap();
        frame(&gpu, &target, &mut renderer);
    }
    let stats = renderer.heap().residency().unwrap();
    assert!(stats.evicted_bytes >= 9 * full_layer(), "{stats:?}");
    assert!(stats.requested_bytes >= 18 * full_layer(), "{stats:?}");

    // From afar every texture is at most 32 pixels wide: its base is all it
    // needs, and whichever layer it samples shows its own texels.
    let far = looking_at(0.0, 6.5);
    renderer.set_camera(&far).unwrap();
    let afar = frame(&gpu, &target, &mut renderer);
    let mut bases = self::renderer(&gpu, Some(0));
    let base_textures = add_textures(&mut bases);
    strip(&mut bases, &base_textures);
    bases.set_camera(&far).unwrap();
    let (reference, _) = target.render(&gpu, &mut bases);
    save_output("texture_streaming_afar", &afar);
    let wrong = mismatched_pixels(&afar, &reference, 1);
    assert_eq!(wrong, 0, "{wrong} pixels differ from the bases");
    gpu.finish();
}

/// `want_texture` is an application override (a texture no camera sees is
/// promoted); with a stale handle it is a typed error and the renderer
/// renders on.
#[test]
fn want_texture_overrides_and_refuses_a_stale_handle() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, SIDE, SIDE);
    let mut renderer = renderer(&gpu, Some(9 * full_layer()));
    let textures = add_textures(&mut renderer);
    show(&mut renderer, &textures, 0);
    renderer.want_texture(textures[20]).unwrap();
    frame(&gpu, &target, &mut renderer);
    let stats = renderer.heap().residency().unwrap();
    assert_eq!(stats.fully_resident, 1, "{stats:?}");

    renderer.remove_texture(textures[35]).unwrap();
    let error = renderer.want_texture(textures[35]).unwrap_err();
    assert!(
        matches!(
            error,
            unbound::Error::Heap(HeapError::Handle(HandleError::Stale { .. }))
        ),
        "{error:?}"
    );
    assert!(renderer.texture_feedback(textures[35]).is_err());
    let image = frame_with(&gpu, &target, &mut renderer, TEXTURES - 1);
    assert_eq!(magenta_pixels(&image), 0);
    gpu.finish();
}
