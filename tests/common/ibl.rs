//! Reading back the environment maps (`passes::prefilter`): half-float
//! textures and the diffuse spherical-harmonics coefficients; the white
//! furnace (tests/furnace.rs, and tier C in tests/tiers.rs): under a
//! uniform white environment of radiance 1 (and no sun), a white metal
//! sphere reflects its directional albedo. Read from the renderer's HDR
//! target (`Renderer::hdr_target`: half floats, before exposure and tone
//! mapping, so no curve, no clipping, no 8-bit rounding), the mean over
//! each sphere's inner disc equals the CPU integration of the same BRDF
//! (`Brdf::directional_albedo`) averaged over the same disc.

use std::time::Instant;

use glam::{Vec2, Vec3, Vec4};
use unbound::lighting::{Brdf, Environment, PrefilterSettings};
use unbound::lighting::{EquirectImage, equirect_direction};
use unbound::passes::prefilter::Prefilter;
use unbound::{Camera, Material, ObjectDesc, RendererConfig, shapes};
use unbound_harness::RenderTargets;

use super::*;

/// A half float's value.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 => f32::INFINITY,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Texels of one mip and layer of an `Rgba16Float` texture, row by row.
pub fn read_rgba16f(gpu: &Gpu, texture: &wgpu::Texture, mip: u32, layer: u32) -> Vec<Vec4> {
    let width = (texture.width() >> mip).max(1);
    let height = (texture.height() >> mip).max(1);
    let row = width * 8;
    let padded = row.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: u64::from(padded * height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: mip,
            origin: wgpu::Origin3d {
                x: 0,
                y: 0,
                z: layer,
            },
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
    gpu.queue.submit([encoder.finish()]);
    let bytes = gpu.read_buffer(&buffer, 0, buffer.size());
    bytes
        .chunks(padded as usize)
        .flat_map(|r| r[..row as usize].chunks(8))
        .map(|t| {
            let h: Vec<f32> = t
                .chunks(2)
                .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect();
            Vec4::from_slice(&h)
        })
        .collect()
}

/// `Σ c_k Y_k(n)`: what a white Lambert surface of normal `n` reflects.
pub fn sh_irradiance(coefficients: &[Vec4], n: Vec3) -> Vec3 {
    let basis = [
        0.282095,
        0.488603 * n.y,
        0.488603 * n.z,
        0.488603 * n.x,
        1.092548 * n.x * n.y,
        1.092548 * n.y * n.z,
        0.315392 * (3.0 * n.z * n.z - 1.0),
        1.092548 * n.x * n.z,
        0.546274 * (n.x * n.x - n.y * n.y),
    ];
    coefficients
        .iter()
        .zip(basis)
        .map(|(c, y)| c.truncate() * y)
        .sum()
}

pub fn read_sh(gpu: &Gpu, buffer: &wgpu::Buffer) -> Vec<Vec4> {
    bytemuck::cast_slice::<u8, f32>(&gpu.read_buffer(buffer, 0, 9 * 16))
        .chunks(4)
        .map(Vec4::from_slice)
        .collect()
}

/// Prefilters the default sky at the default settings (drawn at 512 × 256,
/// and as a 2048 × 1024 image, the size of a typical `.hdr` panorama) and
/// checks the maps are plausible (the sky is brighter above than below);
/// returns the milliseconds each took, the BRDF table excluded.
pub fn time_default_prefilter(gpu: &Gpu) -> [f64; 2] {
    let prefilter = Prefilter::new(&gpu.device, &gpu.queue);
    let sky = unbound::lighting::Sky::default();
    let (w, h) = (2048, 1024);
    let texels = (0..w * h)
        .map(|i| {
            let uv = (glam::Vec2::new((i % w) as f32, (i / w) as f32) + 0.5)
                / glam::Vec2::new(w as f32, h as f32);
            sky.radiance(unbound::lighting::equirect_direction(uv))
        })
        .collect();
    let large = unbound::lighting::EquirectImage::new(w, h, texels).unwrap();
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    [Environment::Sky(sky), Environment::Equirect(large)].map(|environment| {
        let start = Instant::now();
        let maps = prefilter
            .prefilter(
                &gpu.device,
                &gpu.queue,
                &environment,
                &PrefilterSettings::default(),
            )
            .unwrap();
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let sh = read_sh(gpu, maps.sh_buffer());
        let (up, down) = (sh_irradiance(&sh, Vec3::Y), sh_irradiance(&sh, -Vec3::Y));
        assert!(up.z > down.z && down.min_element() > 0.0, "{up} {down}");
        ms
    })
}

const ROUGHNESS: [f32; 6] = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
/// Pixels per sphere (a square cell each).
const CELL: u32 = 48;
/// Sphere radius, in world units; cells are 2.5 radii apart.
const RADIUS: f32 = 1.0;
/// The disc measured: pixels within this fraction of the sphere's radius.
pub const INNER: f32 = 0.6;
/// |GPU - CPU| allowed per sphere. Sources: the BRDF table's sampling and
/// bilinear filtering (0.018 at n·v >= 0.1, tests/environment.rs), half
/// floats (0.001), the tessellated sphere's interpolated normals.
/// Measured on lavapipe: at most 0.0077 (roughness 1), 0.0011 elsewhere.
pub const FURNACE_TOLERANCE: f32 = 0.02;

/// The CPU's mean directional albedo over the disc `ρ <= INNER` of a
/// sphere seen from afar (n·v = √(1 - ρ²)), weighted by area.
pub fn cpu_disc_albedo(brdf: &Brdf) -> f32 {
    let rings = 24;
    let (mut total, mut area) = (0.0, 0.0);
    for i in 0..rings {
        let rho = (i as f32 + 0.5) / rings as f32 * INNER;
        let n_dot_v = (1.0 - rho * rho).sqrt();
        total += brdf.directional_albedo(n_dot_v, 128).x * rho;
        area += rho;
    }
    total / area
}

/// One sphere of the white furnace: its roughness, the GPU's mean over
/// its inner disc and the CPU's.
#[derive(Debug)]
pub struct FurnaceSphere {
    pub roughness: f32,
    pub gpu: Vec3,
    pub cpu: f32,
}

/// Draws the white furnace on `gpu` and measures each sphere; checks that
/// the CPU albedo falls with roughness.
pub fn white_furnace(gpu: &Gpu) -> Vec<FurnaceSphere> {
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    renderer
        .set_environment(&gpu.queue, &Environment::Uniform(Vec3::ONE))
        .unwrap();
    renderer
        .set_lighting(&unbound::Lighting {
            direction_to_light: Vec3::Y,
            light_color: Vec3::ZERO,
            ambient_color: Vec3::ONE,
        })
        .unwrap();
    let mesh = renderer
        .add_mesh(&shapes::sphere(96, 48).as_mesh_data())
        .unwrap();
    let spacing = 2.5 * RADIUS;
    let count = ROUGHNESS.len() as f32;
    for (i, roughness) in ROUGHNESS.into_iter().enumerate() {
        let material = renderer
            .add_material(&Material {
                base_color_factor: Vec4::ONE,
                metallic_factor: 1.0,
                roughness_factor: roughness,
                ..Default::default()
            })
            .unwrap();
        let x = (i as f32 - (count - 1.0) / 2.0) * spacing;
        renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: glam::Mat4::from_scale_rotation_translation(
                    // shapes::sphere's radius is 0.5.
                    Vec3::splat(2.0 * RADIUS),
                    glam::Quat::IDENTITY,
                    Vec3::new(x, 0.0, 0.0),
                ),
            })
            .unwrap();
    }
    // Far away and narrow: nearly orthographic, so n·v = √(1 - ρ²).
    let (width, height) = (CELL * ROUGHNESS.len() as u32, CELL);
    let distance = 200.0;
    let half_height = spacing / 2.0;
    renderer
        .set_camera(&Camera {
            position: Vec3::new(0.0, 0.0, distance),
            target: Vec3::ZERO,
            up: Vec3::Y,
            fov_y_radians: 2.0 * (half_height / distance).atan(),
            aspect: width as f32 / height as f32,
            z_near: distance - 10.0,
            z_far: distance + 10.0,
        })
        .unwrap();
    let target = Target::new(gpu, width, height);
    target.render(gpu, &mut renderer);
    let hdr = renderer.hdr_target().expect("a frame was drawn");
    assert_eq!((hdr.width(), hdr.height()), (width, height));
    let texels = read_rgba16f(gpu, hdr, 0, 0);

    let radius_px = RADIUS / spacing * CELL as f32;
    let mut previous = f32::INFINITY;
    let mut results = Vec::new();
    for (i, roughness) in ROUGHNESS.into_iter().enumerate() {
        let centre = ((i as f32 + 0.5) * CELL as f32, CELL as f32 / 2.0);
        let (mut sum, mut n) = (Vec3::ZERO, 0);
        for y in 0..height {
            for x in i as u32 * CELL..(i as u32 + 1) * CELL {
                let d = (x as f32 + 0.5 - centre.0).hypot(y as f32 + 0.5 - centre.1);
                if d <= INNER * radius_px {
                    sum += texels[(y * width + x) as usize].truncate();
                    n += 1;
                }
            }
        }
        let gpu_mean = sum / n as f32;
        let brdf = Brdf {
            base_color: Vec3::ONE,
            metallic: 1.0,
            roughness,
        };
        let cpu = cpu_disc_albedo(&brdf);
        results.push(FurnaceSphere {
            roughness,
            gpu: gpu_mean,
            cpu,
        });
        // Single scattering loses energy as roughness grows (at roughness
        // 1 and n·v = 1 the albedo is 1 - ln 2 = 0.307).
        assert!(cpu <= previous + 1e-3 && cpu > 0.3, "{roughness}: {cpu}");
        previous = cpu;
    }
    results
}

/// Asserts every sphere within [`FURNACE_TOLERANCE`], printing the errors.
pub fn check_furnace(spheres: &[FurnaceSphere]) {
    for s in spheres {
        let error = (s.gpu - Vec3::splat(s.cpu)).abs().max_element();
        println!(
            "roughness {}: GPU {:.4}, CPU {:.4}, |error| {error:.4}",
            s.roughness, s.gpu.x, s.cpu
        );
    }
    for s in spheres {
        let error = (s.gpu - Vec3::splat(s.cpu)).abs().max_element();
        assert!(error <= FURNACE_TOLERANCE, "{s:?}");
    }
}

/// Radiance `max(d, 0)` per channel: red from +X, green from +Y, blue from
/// +Z, black from the negative axes.
pub fn axis_radiance(d: Vec3) -> Vec3 {
    d.max(Vec3::ZERO)
}

pub fn axis_environment(width: u32) -> Environment {
    let height = width / 2;
    let texels = (0..width * height)
        .map(|i| {
            let uv = (Vec2::new((i % width) as f32, (i / width) as f32) + 0.5)
                / Vec2::new(width as f32, height as f32);
            axis_radiance(equirect_direction(uv))
        })
        .collect();
    Environment::Equirect(EquirectImage::new(width, height, texels).unwrap())
}

/// The specular cube is sampled the right way round: a mirror quad facing
/// the camera, or turned 45° about Y or X, reflects the axis environment
/// from +Z (blue), +X (red), -X (black) and +Y (green).
pub fn check_mirror(gpu: &Gpu, renderer: &mut unbound::Renderer) {
    let mesh = flat_quad_scene(renderer, 1.0);
    renderer
        .set_environment(&gpu.queue, &axis_environment(512))
        .unwrap();
    let mirror = renderer
        .add_material(&Material {
            metallic_factor: 1.0,
            roughness_factor: 0.0,
            ..Default::default()
        })
        .unwrap();
    let quarter = std::f32::consts::FRAC_PI_4;
    let cases = [
        (glam::Mat4::IDENTITY, [0, 0, 255]),
        (glam::Mat4::from_rotation_y(quarter), [255, 0, 0]),
        (glam::Mat4::from_rotation_y(-quarter), [0, 0, 0]),
        (glam::Mat4::from_rotation_x(-quarter), [0, 255, 0]),
    ];
    let target = Target::new(gpu, 8, 8);
    for (rotation, expected) in cases {
        let object = renderer
            .add_object(&ObjectDesc {
                mesh,
                material: mirror,
                world_from_object: rotation * quad_at(Vec3::ZERO, 1.0, 1.0),
            })
            .unwrap();
        let shown = *target.render(gpu, renderer).0.get_pixel(4, 4);
        assert!(
            // sRGB lifts the neighbouring axes' small leaks (the view is
            // not exactly along the axis off the centre): 0 vs 255 is
            // what matters.
            color_distance(shown, [expected[0], expected[1], expected[2], 255]) <= 60,
            "{rotation}: {shown:?} vs {expected:?}"
        );
        renderer.remove_object(object).unwrap();
    }
}
