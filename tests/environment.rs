//! The environment prefilter on the GPU (`passes::prefilter`): the BRDF
//! table equals its CPU twin, a uniform environment stays uniform in every
//! map, and a directional one lands on the right cube faces with the
//! diffuse light a CPU integration predicts. Also its bad input.

mod common;

use std::f32::consts::PI;
use std::time::Instant;

use common::*;
use glam::{Vec3, Vec4};
use unbound::lighting::{
    Environment, EnvironmentError, EquirectImage, PrefilterSettings, split_sum,
};
use unbound::passes::prefilter::{BRDF_LUT_SIZE, Prefilter};

/// Small maps for tests.
const SETTINGS: PrefilterSettings = PrefilterSettings {
    specular_size: 32,
    specular_mips: 5,
    samples: 64,
};

#[test]
fn the_brdf_table_equals_the_cpu_split_sum() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let start = Instant::now();
    let prefilter = Prefilter::new(&gpu.device, &gpu.queue);
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    println!(
        "Prefilter::new (pipelines and BRDF table): {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let table = read_rgba16f(&gpu, prefilter.brdf_lut(), 0, 0);
    // (error, n·v texel, roughness texel): overall, and where n·v >= 0.1.
    let (mut worst, mut worst_facing) = ((0.0_f32, 0, 0), (0.0_f32, 0, 0));
    for y in (0..BRDF_LUT_SIZE).step_by(5) {
        for x in (0..BRDF_LUT_SIZE).step_by(5) {
            let n_dot_v = (x as f32 + 0.5) / BRDF_LUT_SIZE as f32;
            let roughness = (y as f32 + 0.5) / BRDF_LUT_SIZE as f32;
            // 256² samples: the integrand's 1 / (n·h) tail near grazing
            // half vectors needs a fine grid.
            let cpu = split_sum(roughness, n_dot_v, 256);
            let texel = table[(y * BRDF_LUT_SIZE + x) as usize];
            let error = (texel.truncate() - Vec3::new(cpu.scale, cpu.bias, cpu.diffuse))
                .abs()
                .max_element();
            if error > worst.0 {
                worst = (error, x, y);
            }
            if n_dot_v >= 0.1 && error > worst_facing.0 {
                worst_facing = (error, x, y);
            }
        }
    }
    println!(
        "worst |table - CPU| (error, n·v texel, roughness texel): {worst:?}, n·v >= 0.1: {worst_facing:?}"
    );
    // Measured: 0.046 (n·v 0.008, roughness 0.48), 0.018 where n·v >= 0.1;
    // the CPU's midpoint grid underestimates that tail (0.068 and 0.037 at
    // 64²), so the difference is mostly the reference's.
    assert!(worst.0 < 0.06, "{worst:?}");
    assert!(worst_facing.0 < 0.025, "{worst_facing:?}");
    gpu.finish();
}

#[test]
fn a_uniform_environment_stays_uniform_in_every_map() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let prefilter = Prefilter::new(&gpu.device, &gpu.queue);
    let color = Vec3::new(0.5, 1.0, 2.0);
    let environment = Environment::Uniform(color);
    // The test's settings, and the small ones the renderer uses for a
    // uniform environment.
    for settings in [SETTINGS, SETTINGS.for_environment(&environment)] {
        let maps = prefilter
            .prefilter(&gpu.device, &gpu.queue, &environment, &settings)
            .unwrap();
        for mip in 0..settings.specular_mips {
            for layer in 0..6 {
                for texel in read_rgba16f(&gpu, maps.specular(), mip, layer) {
                    // Half floats: 11 bits of mantissa.
                    let error = (texel.truncate() - color).abs().max_element();
                    assert!(
                        error < 2e-3,
                        "{settings:?} mip {mip} layer {layer}: {texel}"
                    );
                }
            }
        }
        let sh = read_sh(&gpu, maps.sh_buffer());
        for n in [Vec3::X, -Vec3::Y, Vec3::new(0.3, 0.5, -0.8).normalize()] {
            let diffuse = sh_irradiance(&sh, n);
            assert!(
                (diffuse - color).abs().max_element() < 1e-2,
                "{n}: {diffuse}"
            );
        }
    }
    gpu.finish();
}

/// `E(n) / π = ∫ L(l) max(n·l, 0) dl / π` by a midpoint rule.
fn cpu_diffuse(n: Vec3) -> Vec3 {
    let (n_theta, n_phi) = (256, 512);
    let mut total = Vec3::ZERO;
    for i in 0..n_theta {
        let theta = (i as f32 + 0.5) / n_theta as f32 * PI;
        for j in 0..n_phi {
            let phi = (j as f32 + 0.5) / n_phi as f32 * 2.0 * PI;
            let l = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            let d_omega = theta.sin() * (PI / n_theta as f32) * (2.0 * PI / n_phi as f32);
            total += axis_radiance(l) * n.dot(l).max(0.0) * d_omega;
        }
    }
    total / PI
}

#[test]
fn a_directional_environment_lands_on_its_faces_with_the_predicted_diffuse_light() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let prefilter = Prefilter::new(&gpu.device, &gpu.queue);
    let start = Instant::now();
    let maps = prefilter
        .prefilter(&gpu.device, &gpu.queue, &axis_environment(256), &SETTINGS)
        .unwrap();
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    println!(
        "prefilter of a 256x128 image into {}² x {} mips: {:.1} ms",
        SETTINGS.specular_size,
        SETTINGS.specular_mips,
        start.elapsed().as_secs_f64() * 1e3
    );
    // The centre texel of each face (+X, -X, +Y, -Y, +Z, -Z) at mip 0 is
    // the radiance along the face's axis.
    let axes = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    let side = SETTINGS.specular_size;
    for (layer, axis) in axes.iter().enumerate() {
        let face = read_rgba16f(&gpu, maps.specular(), 0, layer as u32);
        // The four texels around the centre, averaged.
        let c = side / 2;
        let centre: Vec4 = [(c - 1, c - 1), (c, c - 1), (c - 1, c), (c, c)]
            .iter()
            .map(|&(x, y)| face[(y * side + x) as usize])
            .sum::<Vec4>()
            / 4.0;
        let expected = axis_radiance(*axis);
        assert!(
            (centre.truncate() - expected).abs().max_element() < 0.02,
            "face {layer}: {centre} vs {expected}"
        );
        // Rougher mips blur towards the neighbours but keep the axis's
        // colour the largest.
        let rough = read_rgba16f(
            &gpu,
            maps.specular(),
            SETTINGS.specular_mips - 1,
            layer as u32,
        );
        let mean: Vec4 = rough.iter().sum::<Vec4>() / rough.len() as f32;
        if expected != Vec3::ZERO {
            assert_eq!(
                mean.truncate().max_position(),
                expected.max_position(),
                "face {layer}: {mean}"
            );
        }
    }
    let sh = read_sh(&gpu, maps.sh_buffer());
    let mut worst = 0.0_f32;
    for n in [
        Vec3::X,
        -Vec3::X,
        Vec3::Y,
        -Vec3::Z,
        Vec3::new(0.3, 0.5, -0.8).normalize(),
        Vec3::new(-0.6, 0.2, 0.7).normalize(),
    ] {
        let (gpu_value, cpu) = (sh_irradiance(&sh, n), cpu_diffuse(n));
        let error = (gpu_value - cpu).abs().max_element();
        worst = worst.max(error);
        assert!(error < 0.03, "{n}: SH {gpu_value} vs integrated {cpu}");
    }
    println!("worst |SH diffuse - integrated|: {worst}");
    gpu.finish();
}

#[test]
fn the_default_sky_is_brighter_above_than_below() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let [sky_ms, large_ms] = time_default_prefilter(&gpu);
    println!(
        "default settings: prefilter of the sky at 512x256 {sky_ms:.1} ms, at 2048x1024 {large_ms:.1} ms"
    );
    gpu.finish();
}

#[test]
fn bad_environments_and_settings_are_refused() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let prefilter = Prefilter::new(&gpu.device, &gpu.queue);
    let run = |environment: &Environment, settings: &PrefilterSettings| {
        prefilter.prefilter(&gpu.device, &gpu.queue, environment, settings)
    };
    let max = gpu.device.limits().max_texture_dimension_2d;
    // Wider than the device allows: refused by the prefilter if the image
    // itself is accepted (the device allows less than MAX_EQUIRECT_SIDE),
    // else by EquirectImage::new.
    println!("max_texture_dimension_2d: {max}");
    let wide = max + 1;
    let image = EquirectImage::new(wide, 1, vec![Vec3::ONE; wide as usize]);
    let refused = match image {
        Ok(image) => run(&Environment::Equirect(image), &SETTINGS).map(|_| ()),
        Err(error) => Err(error),
    };
    assert!(
        matches!(refused, Err(EnvironmentError::TooLarge { width, .. }) if width == wide),
        "{refused:?}"
    );
    assert_matches!(
        run(
            &Environment::Uniform(Vec3::new(f32::NAN, 0.0, 0.0)),
            &SETTINGS
        ),
        Err(EnvironmentError::BadRadiance { .. })
    );
    for settings in [
        PrefilterSettings {
            specular_size: 48,
            ..SETTINGS
        },
        PrefilterSettings {
            specular_mips: 7,
            ..SETTINGS
        },
        PrefilterSettings {
            samples: 0,
            ..SETTINGS
        },
    ] {
        assert_matches!(
            run(&Environment::Uniform(Vec3::ONE), &settings),
            Err(EnvironmentError::Settings(_))
        );
    }
    // Still usable.
    run(&Environment::sky(), &SETTINGS).unwrap();
    gpu.finish();
}

/// `Renderer::set_environment`: bad input is `Error::Environment` and the
/// environment in use stays; a new one changes the image at once.
#[test]
fn the_renderer_replaces_its_environment_and_keeps_it_on_bad_input() {
    use unbound::{Error, Material, ObjectDesc};
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    // What the prefilter adds to every renderer: its pipelines, the BRDF
    // table and the default uniform environment.
    let start = Instant::now();
    let mut renderer = gpu.renderer(&capacities);
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    println!(
        "Renderer::new, BRDF table and uniform environment included: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let mesh = flat_quad_scene(&mut renderer, 1.0);
    let material = renderer
        .add_material(&Material {
            metallic_factor: 0.0,
            ..Default::default()
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(Vec3::ZERO, 2.0, 2.0),
        })
        .unwrap();
    let target = Target::new(&gpu, 8, 8);
    let centre =
        |renderer: &mut unbound::Renderer| *target.render(&gpu, renderer).0.get_pixel(4, 4);
    // The default uniform white environment: a white rough dielectric.
    let white = centre(&mut renderer);
    assert_eq!(white, image::Rgba(flat_shown_srgb([255, 255, 255, 255])));
    let red = Environment::Uniform(Vec3::new(1.0, 0.0, 0.0));
    renderer.set_environment(&gpu.queue, &red).unwrap();
    let lit_red = centre(&mut renderer);
    assert!(lit_red[0] > 200 && lit_red[1] < 80, "{lit_red:?}");
    let bad = Environment::Uniform(Vec3::new(0.0, f32::INFINITY, 0.0));
    assert_matches!(
        renderer.set_environment(&gpu.queue, &bad),
        Err(Error::Environment(EnvironmentError::BadRadiance { .. }))
    );
    assert_eq!(centre(&mut renderer), lit_red, "the red environment stays");
    // A uniform environment's maps: 32² × 6 faces and 5 smaller mips of
    // Rgba16Float, 10 vec4 of coefficients, and the 64² BRDF table.
    let cube_texels: u64 = [32u64, 16, 8, 4, 2, 1].iter().map(|s| s * s * 6).sum();
    assert_eq!(
        renderer.memory().environment_bytes,
        cube_texels * 8 + 160 + 64 * 64 * 8
    );
    gpu.finish();
}

/// The specular cube is sampled the right way round (tier C: tests/tiers.rs).
#[test]
fn a_mirror_reflects_the_environment_the_right_way_round() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    check_mirror(&gpu, &mut renderer);
    gpu.finish();
}
