//! Tiers A and B's paged texture heap (`src/heap/pages.rs`,
//! `TextureHeap::Paged`): images equal the bindless heap's, layers freed
//! are reused without a new page, adding into a page does not rebuild the
//! heap's bind group, a frame in flight keeps sampling a freed layer,
//! 16 and 16,384 small textures both render as their texels say (16,384
//! 64² textures pass the queued-texel limit: the heap submits writes itself),
//! a dropped frame loses no layer write, and a layer freed before any frame
//! recorded its write is reused at once.
//!
//! The tests take turns (`one_at_a_time`): this file's 16,384-texture test
//! makes Vulkan calls for minutes, and twice (2026-12-02) the process died
//! (heap corruption, then SIGSEGV) while other tests of the file created
//! and destroyed their devices: validation layers 1.3.239 keep every
//! device's state in one unlocked map (`crates/harness/src/lifecycle.rs`).

mod common;

use common::*;
use unbound::capabilities::HeapLayout;
use unbound::heap::page_layers;
use unbound::{Mips, RendererConfig, TextureDesc, TextureHeap};

/// Target side, and the plane half-width it frames: a grid of 3 x 3 cells
/// of one world unit, 32 pixels each.
const SIDE: u32 = 96;
const HALF: f32 = 1.5;

/// One test of this file at a time (the module doc says why); held for the
/// whole test, its `Gpu` dropped inside.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn renderer(gpu: &Gpu, capacities: unbound::Capacities, heap: TextureHeap) -> unbound::Renderer {
    let renderer = gpu.renderer_with(RendererConfig {
        capacities,
        texture_heap: heap,
        ..Default::default()
    });
    let expected = match heap {
        TextureHeap::Bindless => HeapLayout::BindingArrays,
        TextureHeap::Paged => HeapLayout::Pages,
    };
    assert_eq!(renderer.heap().heap_layout(), expected);
    renderer
}

/// The world-space centre of grid cell (`column`, `row`), row 0 on top.
fn cell_center(column: usize, row: usize) -> glam::Vec3 {
    glam::Vec3::new(column as f32 - 1.0, 1.0 - row as f32, 0.0)
}

/// Four distinct quadrant colours for texture `texture`.
fn colors(texture: usize) -> [[u8; 4]; 4] {
    std::array::from_fn(|q| {
        [
            (30 + 25 * texture) as u8,
            (40 + 55 * q) as u8,
            (220 - 20 * texture - 10 * q) as u8,
            255,
        ]
    })
}

/// Nine textured quads on a 3 x 3 grid: six at the size classes' own sizes
/// (64, 256, 1024 in sRGB and linear, mips generated) that the pages hold
/// as they are, two that pages resample (40 x 24 sRGB, 200 x 120 linear),
/// and a 4 x 4 checker magnified through a nearest, clamping sampler.
fn nine_textures(renderer: &mut unbound::Renderer) {
    let quad = flat_quad_scene(renderer, HALF);
    let srgb = wgpu::TextureFormat::Rgba8UnormSrgb;
    let linear = wgpu::TextureFormat::Rgba8Unorm;
    let shapes = [
        (64, 64, srgb),
        (64, 64, linear),
        (256, 256, srgb),
        (256, 256, linear),
        (1024, 1024, srgb),
        (1024, 1024, linear),
        (40, 24, srgb),
        (200, 120, linear),
        (4, 4, srgb),
    ];
    let nearest = renderer
        .add_sampler(&unbound::SamplerDesc {
            address_u: wgpu::AddressMode::ClampToEdge,
            address_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Nearest,
            mipmap_filter: wgpu::MipmapFilterMode::Nearest,
        })
        .unwrap();
    for (index, &(width, height, format)) in shapes.iter().enumerate() {
        let quadrants = colors(index);
        let data: Vec<u8> = (0..width * height)
            .flat_map(|i| {
                let (x, y) = (i % width, i / width);
                if index == 8 {
                    // A checker of single texels.
                    return quadrants[((x + y) % 2) as usize];
                }
                quadrants[usize::from(y >= height / 2) * 2 + usize::from(x >= width / 2)]
            })
            .collect();
        let texture = renderer
            .add_texture(&TextureDesc {
                label: None,
                width,
                height,
                format,
                data: &data,
                mips: Mips::Generate,
            })
            .unwrap();
        let sampler = if index == 8 {
            nearest
        } else {
            renderer.heap().default_sampler()
        };
        let material = renderer
            .add_material(&material_showing(texture, sampler))
            .unwrap();
        renderer
            .add_object(&unbound::ObjectDesc {
                mesh: quad,
                material,
                world_from_object: quad_at(cell_center(index % 3, index / 3), 1.0, 1.0),
            })
            .unwrap();
    }
}

/// Pixels of the cells `cells` (row-major cell numbers) of an image.
fn in_cells(x: u32, y: u32, cells: &[usize]) -> bool {
    cells.contains(&((y / 32) as usize * 3 + (x / 32) as usize))
}

/// Paged equals bindless on tier A (or B): exactly (within 2 of 255 per
/// channel) for textures at their class's size and for the nearest-sampled
/// checker (pages keep each sampler); textures pages resample to a class
/// (cells 6, 7) differ only in how their texels are filtered: the
/// centre of each quadrant, 4 pixels from every edge, is compared.
#[test]
fn paged_heap_renders_as_the_bindless_heap() {
    let _turn = one_at_a_time();
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let target = Target::new(&gpu, SIDE, SIDE);
    let mut images = Vec::new();
    for heap in [TextureHeap::Bindless, TextureHeap::Paged] {
        let mut renderer = renderer(&gpu, capacities, heap);
        assert_ne!(renderer.tier(), unbound::Tier::C);
        nine_textures(&mut renderer);
        let (image, _) = target.render(&gpu, &mut renderer);
        save_output(&format!("texture_pages_{heap:?}"), &image);
        images.push(image);
    }
    let (bindless, paged) = (&images[0], &images[1]);
    let mut wrong = Vec::new();
    for (x, y, pixel) in paged.enumerate_pixels() {
        let resampled = in_cells(x, y, &[6, 7]);
        let centre = |v: u32| (v % 16).abs_diff(8) <= 3;
        if resampled && !(centre(x) && centre(y)) {
            continue;
        }
        let expected = bindless.get_pixel(x, y).0;
        if color_distance(*pixel, expected) > 2 {
            wrong.push(format!("({x}, {y}): {pixel:?}, bindless {expected:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} pixels differ:\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    gpu.finish();
}

/// 64² sRGB textures of one colour each.
fn solid_64(renderer: &mut unbound::Renderer, color: [u8; 4]) -> unbound::TextureHandle {
    let data: Vec<u8> = std::iter::repeat_n(color, 64 * 64).flatten().collect();
    data_texture(renderer, 64, wgpu::TextureFormat::Rgba8UnormSrgb, &data)
}

/// Adding into a page with room writes a layer: no new page, no bind-group
/// rebuild; layers freed are reused once the frames that could sample them
/// have finished, so adding as many again makes no new page either.
#[test]
fn adds_and_removes_reuse_layers() {
    let _turn = one_at_a_time();
    const N: usize = 40;
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let mut renderer = renderer(&gpu, capacities, TextureHeap::Paged);
    let quad = flat_quad_scene(&mut renderer, 1.0);
    add_solid_object(
        &mut renderer,
        quad,
        [10, 200, 30, 255],
        quad_at(glam::Vec3::ZERO, 2.0, 2.0),
    );
    let target = Target::new(&gpu, 16, 16);
    let first: Vec<_> = (0..N)
        .map(|i| solid_64(&mut renderer, [i as u8, 0, 0, 255]))
        .collect();
    target.render(&gpu, &mut renderer);
    let pages = renderer.heap().page_count();
    let bytes = renderer.heap().texture_bytes();
    // One 64² sRGB page holds them all (and the reserved and the object's
    // textures).
    assert!(N + 4 <= page_layers(64, gpu.device.limits().max_texture_array_layers) as usize);
    assert_eq!(pages, 1, "one page of 64² sRGB layers");

    // One more add fits the page's room: the next frame does not rebuild.
    let rebuilds = renderer.heap().rebuilds();
    let one = solid_64(&mut renderer, [1, 2, 3, 255]);
    let (_, stats) = target.render(&gpu, &mut renderer);
    assert_eq!(
        renderer.heap().rebuilds(),
        rebuilds,
        "no rebuild: {stats:?}"
    );
    renderer.remove_texture(one).unwrap();

    for texture in first {
        renderer.remove_texture(texture).unwrap();
    }
    // Frames recorded after the removal finish: their layers come free.
    for _ in 0..3 {
        target.render(&gpu, &mut renderer);
        gpu.finish();
    }
    let rebuilds = renderer.heap().rebuilds();
    let again: Vec<_> = (0..N)
        .map(|i| solid_64(&mut renderer, [0, i as u8, 0, 255]))
        .collect();
    target.render(&gpu, &mut renderer);
    assert_eq!(renderer.heap().page_count(), pages, "no new page");
    assert_eq!(renderer.heap().texture_bytes(), bytes, "no page grew");
    assert_eq!(renderer.heap().rebuilds(), rebuilds, "no rebuild");
    assert_eq!(again.len(), N);
    gpu.finish();
}

/// A frame recorded before a texture's removal keeps sampling it, even
/// though a new texture is added (and may take its slot) before that frame
/// is submitted: the layer is quarantined until the frame finishes.
#[test]
fn a_frame_in_flight_keeps_its_layer() {
    let _turn = one_at_a_time();
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let mut renderer = renderer(&gpu, capacities, TextureHeap::Paged);
    let result = record_across_a_free(&gpu, &mut renderer, |_, _| {});
    result.assert_each_frame_shows_its_texture();
    gpu.finish();
}

/// What a linear (`Rgba8Unorm`) texture of one colour shows on the sRGB
/// target: its bytes are the base colour as they are.
fn shown_linear_texture(color: [u8; 4]) -> [u8; 4] {
    let encoded = std::array::from_fn(|c| {
        let v = f32::from(color[c]) / 255.0;
        let v = if c == 3 { v } else { linear_to_srgb(v) };
        (v * 255.0).round() as u8
    });
    flat_shown_srgb(encoded)
}

/// The colour of texture `i` of many: distinct for every `i` below 2^16.
fn many_color(i: u32) -> [u8; 4] {
    [(i & 0xff) as u8, (i >> 8) as u8 * 3, 77, 255]
}

/// Adds `count` 64² textures, each of its own colour, and shows 9 of them
/// (the first, the last, and ones spread over every page) on the 3 x 3
/// grid; returns which it showed.
fn show_many(renderer: &mut unbound::Renderer, count: u32) -> Vec<u32> {
    let quad = flat_quad_scene(renderer, HALF);
    let textures: Vec<_> = (0..count)
        .map(|i| {
            let data: Vec<u8> = std::iter::repeat_n(many_color(i), 64 * 64)
                .flatten()
                .collect();
            data_texture(renderer, 64, wgpu::TextureFormat::Rgba8Unorm, &data)
        })
        .collect();
    let shown: Vec<u32> = (0..9).map(|k| (count - 1) * k / 8).collect();
    for (cell, &i) in shown.iter().enumerate() {
        let material = textured_material(renderer, textures[i as usize]);
        renderer
            .add_object(&unbound::ObjectDesc {
                mesh: quad,
                material,
                world_from_object: quad_at(cell_center(cell % 3, cell / 3), 1.0, 1.0),
            })
            .unwrap();
    }
    shown
}

/// 16 and 16,384 textures in the paged heap: each shown quad has its
/// texture's colour (within 3 of 255 per channel), and 16,384 64² textures
/// take 16,384 / `page_layers(64)` pages.
#[test]
fn sixteen_and_16384_small_textures_render() {
    let _turn = one_at_a_time();
    for count in [16, 16_384] {
        let capacities = unbound::Capacities {
            textures_2d: count + 16,
            ..Gpu::default_capacities()
        };
        let gpu = Gpu::new(&capacities);
        let mut renderer = renderer(&gpu, capacities, TextureHeap::Paged);
        let shown = show_many(&mut renderer, count);
        let target = Target::new(&gpu, SIDE, SIDE);
        let (image, _) = target.render(&gpu, &mut renderer);
        save_output(&format!("texture_pages_{count}"), &image);
        let mut wrong = Vec::new();
        for (cell, &i) in shown.iter().enumerate() {
            let (x, y) = ((cell % 3) as u32 * 32 + 16, (cell / 3) as u32 * 32 + 16);
            let pixel = *image.get_pixel(x, y);
            let expected = shown_linear_texture(many_color(i));
            if color_distance(pixel, expected) > 3 {
                wrong.push(format!(
                    "texture {i} at ({x}, {y}): {pixel:?}, expected {expected:?}"
                ));
            }
        }
        assert!(wrong.is_empty(), "{count} textures:\n{}", wrong.join("\n"));
        let per_page = page_layers(64, gpu.device.limits().max_texture_array_layers);
        // The linear 64² pages, plus one sRGB page for the reserved slots.
        let linear_pages = count.div_ceil(per_page);
        assert_eq!(
            renderer.heap().page_count(),
            linear_pages + 1,
            "{count} textures"
        );
        gpu.finish();
    }
}

/// Adding a texture queues its layer's write for the next frame (no
/// submission of its own); a frame dropped unsubmitted loses none of them:
/// the next frame records them again. A texture pages resample (1 x 1) on
/// the left, one of a class's own size (64²: written as it is, its mips
/// generated in the frame) on the right, both minified.
#[test]
fn a_dropped_frame_loses_no_texture_write() {
    let _turn = one_at_a_time();
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let mut renderer = renderer(&gpu, capacities, TextureHeap::Paged);
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let target = Target::new(&gpu, 8, 8);
    target.render(&gpu, &mut renderer);
    let (green, blue) = ([20, 220, 40, 255], [30, 60, 230, 255]);
    let left = quad_at(glam::Vec3::new(-0.5, 0.0, 0.0), 1.0, 2.0);
    let right = quad_at(glam::Vec3::new(0.5, 0.0, 0.0), 1.0, 2.0);
    add_solid_object(&mut renderer, quad, green, left);
    let texture = solid_64(&mut renderer, blue);
    let material = textured_material(&mut renderer, texture);
    renderer
        .add_object(&unbound::ObjectDesc {
            mesh: quad,
            material,
            world_from_object: right,
        })
        .unwrap();
    let mut dropped = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&mut dropped, &target.frame()).unwrap();
    drop(dropped);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("texture_pages_dropped_frame", &image);
    for (x, color) in [(1, green), (6, blue)] {
        for y in 1..7 {
            let pixel = *image.get_pixel(x, y);
            assert!(
                color_distance(pixel, flat_shown_srgb(color)) <= 2,
                "({x}, {y}): {pixel:?}, expected {:?}",
                flat_shown_srgb(color)
            );
        }
    }
    gpu.finish();
}

/// A texture removed before any frame recorded its write frees its layer
/// at once (no frame names it): a thousand adds and removes between two
/// frames grow no page, and the next texture added is shown.
#[test]
fn a_texture_removed_before_a_frame_frees_its_layer_at_once() {
    let _turn = one_at_a_time();
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let mut renderer = renderer(&gpu, capacities, TextureHeap::Paged);
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let target = Target::new(&gpu, 8, 8);
    target.render(&gpu, &mut renderer);
    let bytes = renderer.heap().texture_bytes();
    for i in 0..1000u32 {
        let texture = solid_64(&mut renderer, [i as u8, 0, 0, 255]);
        renderer.remove_texture(texture).unwrap();
    }
    assert_eq!(renderer.heap().texture_bytes(), bytes, "no page grew");
    let color = [200, 120, 40, 255];
    let texture = solid_64(&mut renderer, color);
    let material = textured_material(&mut renderer, texture);
    renderer
        .add_object(&unbound::ObjectDesc {
            mesh: quad,
            material,
            world_from_object: quad_at(glam::Vec3::ZERO, 2.0, 2.0),
        })
        .unwrap();
    let (image, _) = target.render(&gpu, &mut renderer);
    let pixel = *image.get_pixel(4, 4);
    assert!(
        color_distance(pixel, flat_shown_srgb(color)) <= 2,
        "{pixel:?}, expected {:?}",
        flat_shown_srgb(color)
    );
    gpu.finish();
}
