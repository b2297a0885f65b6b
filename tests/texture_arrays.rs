//! Tier C's texture arrays, every one of them: a texture of each size class
//! (64, 256, 1024) and format (sRGB, linear) lands in the array of its
//! class, survives that array's growth, and is sampled as its texels say.
//! (`tests/tiers.rs` renders scenes on tier C; their textures are 64² or
//! 512², so they reach two of the six arrays only.)

mod common;

use common::*;
use unbound::gpu_types::{TEXTURE_ARRAY_FORMATS, TEXTURE_ARRAY_SIZES};
use unbound::{RendererConfig, Tier};

/// Layers each array starts with (`src/heap/texture_arrays.rs`): the fifth
/// texture of a class and format doubles its array.
const INITIAL_LAYERS: u64 = 4;

/// Target side, and the plane half-width it frames: a grid of 3 x 3 cells
/// of one world unit, 32 pixels each.
const SIDE: u32 = 96;
const HALF: f32 = 1.5;

/// One shown texture: `(width, height)` for each array, in array order
/// (class by class, sRGB first). Not all the class's own size: a texture is
/// resampled to the smallest class that holds its larger side (capped at
/// the largest), stretched to a square.
const SHOWN_SIZES: [(u32, u32); 6] = [
    (64, 64),
    (40, 24),
    (256, 256),
    (200, 120),
    (1024, 1024),
    (1500, 700),
];

/// The colour of quadrant `quadrant` (0 top left, 1 top right, 2 bottom
/// left, 3 bottom right) of shown texture `texture`: distinct in every
/// texture and quadrant.
fn quadrant_color(texture: usize, quadrant: usize) -> [u8; 4] {
    [
        (40 + 30 * texture) as u8,
        (30 + 60 * quadrant) as u8,
        (200 - 20 * texture - 15 * quadrant) as u8,
        255,
    ]
}

/// RGBA8 texels of `width` x `height` in four quadrants of `color`.
fn quadrants(width: u32, height: u32, color: impl Fn(usize) -> [u8; 4]) -> Vec<u8> {
    let mut texels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        for x in 0..width {
            let quadrant = usize::from(x >= width / 2) + 2 * usize::from(y >= height / 2);
            texels.extend(color(quadrant));
        }
    }
    texels
}

fn add_texture(
    renderer: &mut unbound::Renderer,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    data: &[u8],
) -> unbound::TextureHandle {
    renderer
        .add_texture(&unbound::TextureDesc {
            label: None,
            width,
            height,
            format,
            data,
            mips: unbound::Mips::None,
        })
        .unwrap()
}

/// What a quadrant of colour `color` shows: an sRGB texture's bytes are
/// decoded when sampled, a linear one's are the base colour as they are.
fn shown(color: [u8; 4], srgb: bool) -> [u8; 4] {
    if srgb {
        return flat_shown_srgb(color);
    }
    let encoded = std::array::from_fn(|c| {
        let v = f32::from(color[c]) / 255.0;
        let v = if c == 3 { v } else { linear_to_srgb(v) };
        (v * 255.0).round() as u8
    });
    flat_shown_srgb(encoded)
}

#[test]
fn every_size_class_and_format_is_stored_and_sampled() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier: Some(Tier::C),
        ..Default::default()
    });
    assert_eq!(renderer.tier(), Tier::C);
    let quad = flat_quad_scene(&mut renderer, HALF);
    for (texture, (class, format)) in arrays_in_order().into_iter().enumerate() {
        let before = renderer.heap().texture_bytes();
        let size = SHOWN_SIZES[texture];
        let data = quadrants(size.0, size.1, |q| quadrant_color(texture, q));
        let shown_texture = add_texture(&mut renderer, size, format, &data);
        // Four more of its size: its array, and no other, grows from 4
        // layers to 8, copying the shown texture's layer.
        let filler = vec![128; (size.0 * size.1 * 4) as usize];
        for _ in 0..INITIAL_LAYERS {
            add_texture(&mut renderer, size, format, &filler);
        }
        let array_bytes = |layers: u64| u64::from(class * class) * 4 * layers * 4 / 3;
        assert_eq!(
            renderer.heap().texture_bytes() - before,
            array_bytes(2 * INITIAL_LAYERS) - array_bytes(INITIAL_LAYERS),
            "{size:?} {format:?}: the {class}² array grew, and it alone"
        );
        let material = textured_material(&mut renderer, shown_texture);
        let (column, row) = (texture % 3, texture / 3);
        renderer
            .add_object(&unbound::ObjectDesc {
                mesh: quad,
                material,
                world_from_object: quad_at(cell_center(column, row), 1.0, 1.0),
            })
            .unwrap();
    }
    let target = Target::new(&gpu, SIDE, SIDE);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("texture_arrays_tier_c", &image);
    let mut wrong = Vec::new();
    for (texture, &(_, format)) in arrays_in_order().iter().enumerate() {
        let (column, row) = (texture % 3, texture / 3);
        for quadrant in 0..4 {
            // The quadrant's centre: a quarter of the cell in from its
            // corner, 8 pixels from every edge of the quadrant.
            let (x, y) = (
                column as u32 * 32 + 8 + 16 * (quadrant as u32 % 2),
                row as u32 * 32 + 8 + 16 * (quadrant as u32 / 2),
            );
            let pixel = *image.get_pixel(x, y);
            let expected = shown(quadrant_color(texture, quadrant), format.is_srgb());
            if color_distance(pixel, expected) > 3 {
                wrong.push(format!(
                    "texture {texture} ({format:?}) quadrant {quadrant} at ({x}, {y}): {pixel:?}, expected {expected:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    gpu.finish();
}

/// Each array's (size class, format), in array order.
fn arrays_in_order() -> Vec<(u32, wgpu::TextureFormat)> {
    TEXTURE_ARRAY_SIZES
        .iter()
        .flat_map(|&size| TEXTURE_ARRAY_FORMATS.iter().map(move |&f| (size, f)))
        .collect()
}

/// The world-space centre of grid cell (`column`, `row`), row 0 on top.
fn cell_center(column: usize, row: usize) -> glam::Vec3 {
    glam::Vec3::new(column as f32 - 1.0, 1.0 - row as f32, 0.0)
}
