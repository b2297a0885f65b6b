//! Generated content: meshes, textures and the built-in demo scene (no
//! downloads), shared by the demo, tests and benchmarks.

use glam::Vec3;
use unbound::Light;
use unbound::shapes::{Mesh, cube, cylinder, sphere, torus};

pub mod bench;
pub mod city;
pub mod crowd;
pub mod demo;
mod forest;
mod scatter;
mod spec;
pub mod streaming;

pub use forest::{Forest, forest};
pub use scatter::{Scatter, ScatterBox};

/// A small deterministic random number generator (PCG32).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        let mut rng = Self(
            seed.wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407),
        );
        rng.next_u32();
        rng
    }

    /// Next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        let old = self.0;
        self.0 = old
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in `[low, high)`.
    pub fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    /// Uniform integer in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }
}

/// `count` distinct meshes: spheres, tori, cylinders, cones and cubes of
/// varying tessellation.
pub fn mesh_family(count: u32) -> Vec<Mesh> {
    (0..count)
        .map(|i| {
            let detail = 6 + (i / 5) % 12;
            match i % 5 {
                0 => cube(),
                1 => sphere(detail + 2, detail / 2 + 2),
                2 => torus(0.08 + 0.02 * (i % 7) as f32, detail + 4, detail / 2 + 3),
                3 => cylinder(0.4, 0.25 + 0.02 * (i % 6) as f32, detail + 2),
                _ => cylinder(0.45, 0.0, detail + 2),
            }
        })
        .collect()
}

/// HSV (all in 0..1) to sRGB bytes.
pub fn hsv_to_rgba8(h: f32, s: f32, v: f32) -> [u8; 4] {
    let h6 = (h.fract() + 1.0).fract() * 6.0;
    let c = v * s;
    let x = c * (1.0 - ((h6 % 2.0) - 1.0).abs());
    let (r, g, b) = match h6 as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b]
        .map(|ch| ((ch + m) * 255.0).round() as u8)
        .into_iter()
        .chain([255])
        .collect::<Vec<_>>()
        .try_into()
        .unwrap()
}

/// An RGBA8 checkerboard of `cells` x `cells` squares.
pub fn checker(size: u32, cells: u32, a: [u8; 4], b: [u8; 4]) -> Vec<u8> {
    let cell = (size / cells.max(1)).max(1);
    (0..size * size)
        .flat_map(|i| {
            let (x, y) = (i % size / cell, i / size / cell);
            if (x + y) % 2 == 0 { a } else { b }
        })
        .collect()
}

/// An RGBA8 texture filled with one colour.
pub fn solid(size: u32, color: [u8; 4]) -> Vec<u8> {
    std::iter::repeat_n(color, (size * size) as usize)
        .flatten()
        .collect()
}

/// The `index`-th distinct demo texture: a two-colour pattern whose hue and
/// layout depend on the index.
pub fn demo_texture(index: u32, size: u32) -> Vec<u8> {
    let hue = (index as f32 * 0.618_034).fract();
    let a = hsv_to_rgba8(hue, 0.65, 0.95);
    let b = hsv_to_rgba8(hue + 0.5, 0.5, 0.35);
    let cells = 2 + index % 7;
    match (index / 7) % 3 {
        0 => checker(size, cells, a, b),
        1 => (0..size * size)
            .flat_map(|i| {
                if (i % size * cells / size).is_multiple_of(2) {
                    a
                } else {
                    b
                }
            })
            .collect(),
        _ => (0..size * size)
            .flat_map(|i| {
                let (x, y) = (
                    (i % size) as f32 / size as f32 - 0.5,
                    (i / size) as f32 / size as f32 - 0.5,
                );
                let ring = ((x * x + y * y).sqrt() * cells as f32 * 2.0) as u32;
                if ring.is_multiple_of(2) { a } else { b }
            })
            .collect(),
    }
}

/// A tangent-space normal map of hemispherical bumps (RGBA8, linear).
pub fn bump_normal_map(size: u32, bumps: u32) -> Vec<u8> {
    let cell = size as f32 / bumps.max(1) as f32;
    (0..size * size)
        .flat_map(|i| {
            let x = ((i % size) as f32 % cell) / cell * 2.0 - 1.0;
            let y = ((i / size) as f32 % cell) / cell * 2.0 - 1.0;
            let r2 = x * x + y * y;
            let n = if r2 < 0.8 {
                Vec3::new(x, -y, (1.0 - r2).max(0.05).sqrt()).normalize()
            } else {
                Vec3::Z
            };
            let e = (n * 0.5 + 0.5) * 255.0;
            [e.x.round() as u8, e.y.round() as u8, e.z.round() as u8, 255]
        })
        .collect()
}

/// Illuminance (lux) of a [`scatter_point_lights`] light on a surface
/// facing it at half its range.
pub const SCATTERED_LIGHT_LUX: f32 = 2.0;

/// `count` point lights at seeded random positions in the box
/// `(min, max)`, of random hues (saturation 0.6), each with the range
/// that makes a point of the box lie within about `overlap` lights' ranges
/// (all the same), and the intensity that gives [`SCATTERED_LIGHT_LUX`] at
/// half of it.
pub fn scatter_point_lights(
    count: u32,
    (min, max): (Vec3, Vec3),
    overlap: f32,
    seed: u64,
) -> Vec<Light> {
    let mut rng = Rng::new(seed);
    let extent = (max - min).max(Vec3::splat(1e-3));
    let volume = extent.x * extent.y * extent.z;
    let per_light = overlap * volume / count.max(1) as f32;
    let range = (3.0 * per_light / (4.0 * std::f32::consts::PI))
        .cbrt()
        .max(1e-3);
    // E = I (1 - (1/2)^4) / (range / 2)^2 at half the range.
    let intensity = SCATTERED_LIGHT_LUX * range * range / (4.0 * (1.0 - 1.0 / 16.0));
    (0..count)
        .map(|_| {
            let position = min + extent * Vec3::new(rng.unit(), rng.unit(), rng.unit());
            let [r, g, b, _] = hsv_to_rgba8(rng.unit(), 0.6, 1.0);
            let color = Vec3::new(f32::from(r), f32::from(g), f32::from(b)) / 255.0;
            Light::point(position, color, intensity, Some(range))
        })
        .collect()
}
