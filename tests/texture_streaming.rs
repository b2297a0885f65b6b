//! Streaming 2D textures under a memory budget on the paged heap
//! (`src/heap/residency.rs`, `RendererConfig::texture_budget`): 36
//! textures of 256² (about 12 MiB of full layers with mips) under a budget
//! of 9 full layers (about 3 MiB). Each texture is made of 4 x 4 texel
//! blocks of one colour, so its 64² base holds every block as one texel
//! and the images are exact: the first frame shows bases (no magenta,
//! blurrier than the full render), wanted textures become fully resident
//! within the budget, evicting the least recently wanted, and an evicted
//! texture still shows its base.

mod common;

use common::*;
use unbound::{RendererConfig, TextureHeap};

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

fn renderer(gpu: &Gpu, budget: Option<u64>) -> unbound::Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        texture_heap: TextureHeap::Paged,
        texture_budget: budget,
        ..Default::default()
    });
    assert_ne!(
        renderer.tier(),
        unbound::Tier::C,
        "paged heap: tiers A and B"
    );
    assert_eq!(renderer.heap().residency().is_some(), budget.is_some());
    let _ = &mut renderer;
    renderer
}

/// One render of textures `first..first + 9` under `budget`, nothing wanted.
fn render_once(gpu: &Gpu, target: &Target, budget: Option<u64>, first: usize) -> image::RgbaImage {
    let mut renderer = renderer(gpu, budget);
    let textures = add_textures(&mut renderer);
    show(&mut renderer, &textures, first);
    let (image, _) = target.render(gpu, &mut renderer);
    image
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
    let (image, stats) = target.render(gpu, renderer);
    assert_eq!(magenta_pixels(&image), 0, "no magenta, ever");
    let residency = stats.textures.expect("the frame's residency");
    assert_eq!(Some(residency), renderer.heap().residency());
    assert!(
        residency.resident_bytes <= residency.budget,
        "{residency:?}"
    );
    assert_eq!(residency.streamed as usize, TEXTURES, "every base stays");
    image
}

/// The streaming scenario (see the module docs). N = 1: a texture wanted
/// before a frame is fully resident in that frame (its write and map entry
/// are recorded by it), and the image then equals the fully resident
/// render within 1 of 255 per channel.
#[test]
fn streams_to_the_fully_resident_render_within_the_budget() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, SIDE, SIDE);
    let budget = 9 * full_layer();
    let full = render_once(&gpu, &target, None, 0);
    let bases = render_once(&gpu, &target, Some(0), 9);
    save_output("texture_streaming_full", &full);
    assert_eq!(magenta_pixels(&full), 0);

    let mut renderer = renderer(&gpu, Some(budget));
    let textures = add_textures(&mut renderer);
    let objects = show(&mut renderer, &textures, 0);

    // First frame: bases only, nothing resident at full size.
    let first = frame(&gpu, &target, &mut renderer);
    save_output("texture_streaming_first", &first);
    let stats = renderer.heap().residency().unwrap();
    assert_eq!((stats.resident_bytes, stats.fully_resident), (0, 0));
    let blurred = mismatched_pixels(&first, &full, 8);
    assert!(
        blurred > 1000,
        "the bases are blurrier: {blurred} pixels differ"
    );

    // The 27 textures not shown are wanted: 9 of them fill the budget.
    for _ in 0..2 {
        for &texture in &textures[9..] {
            renderer.want_texture(texture).unwrap();
        }
        frame(&gpu, &target, &mut renderer);
    }
    let stats = renderer.heap().residency().unwrap();
    assert_eq!(stats.fully_resident, 9, "{stats:?}");
    assert_eq!(stats.resident_bytes, budget);
    assert_eq!(stats.evicted_bytes, 0);

    // The shown ones are wanted (as the camera's feedback would say): the
    // least recently wanted are evicted, and the very next frame equals
    // the fully resident render.
    for &texture in &textures[..9] {
        renderer.want_texture(texture).unwrap();
    }
    let streamed = frame(&gpu, &target, &mut renderer);
    save_output("texture_streaming_settled", &streamed);
    let wrong = mismatched_pixels(&streamed, &full, 1);
    assert_eq!(
        wrong, 0,
        "{wrong} pixels differ from the fully resident render"
    );
    let stats = renderer.heap().residency().unwrap();
    assert_eq!(stats.fully_resident, 9, "{stats:?}");
    assert_eq!(stats.resident_bytes, budget);
    assert_eq!(stats.evicted_bytes, budget, "the 9 others evicted");
    assert_eq!(stats.requested_bytes, 2 * budget);

    // The evicted textures (9..18: promoted first, slot order) still show
    // their bases, as a heap with a budget of 0 shows them.
    for object in objects {
        renderer.remove_object(object).unwrap();
    }
    show(&mut renderer, &textures, 9);
    let evicted = frame(&gpu, &target, &mut renderer);
    let wrong = mismatched_pixels(&evicted, &bases, 1);
    assert_eq!(wrong, 0, "{wrong} pixels differ from the bases");
    gpu.finish();
}
