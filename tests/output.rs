//! The HDR target and the output pass (`passes::output`): the curves on the
//! GPU equal their CPU twins (`unbound::output`) on a ramp of HDR values,
//! id bytes survive the half-float target exactly, a cleared frame tone
//! maps its clear colour and a loaded one keeps what unbound did not
//! cover, exposure is refused when not finite, the HDR target follows the
//! colour target's size, and 4× MSAA renders what 1× renders except along
//! geometric edges.

mod common;

use common::*;
use glam::{Vec3, Vec4};
use unbound::debug::decode_id;
use unbound::output::{Msaa, Output, OutputError, ToneMapping};
use unbound::{
    DebugOptions, DebugView, Error, FrameTarget, ID_TARGET_FORMAT, Material, ObjectDesc,
    RenderError, Renderer, RendererConfig, TargetLoad,
};

/// Every curve on the GPU matches its CPU twin on a ramp of HDR values
/// (`common::output::check_curves`).
#[test]
fn every_curve_on_the_gpu_matches_its_cpu_twin_on_a_ramp_of_hdr_values() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    check_curves(
        &gpu,
        RendererConfig {
            capacities,
            ..Default::default()
        },
    );
    gpu.finish();
}

/// Object ids 0 to 255 (every value of the red byte, the background's 0
/// too) go through the half-float HDR target and the output pass into an
/// 8-bit target exactly, at 1× and 4×: `k / 255` rounded to a half float
/// is within 2^-12 of itself, 0.06 of a step of the 8-bit write.
#[test]
fn id_bytes_survive_the_half_float_hdr_target_exactly() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    for msaa in [Msaa::X1, Msaa::X4] {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities,
            msaa,
            ..Default::default()
        });
        let objects = emissive_grid(&mut renderer, ramp);
        renderer
            .set_debug(&DebugOptions {
                view: DebugView::ObjectIndex,
                ..Default::default()
            })
            .unwrap();
        let target = Target::with_msaa(&gpu, GRID, GRID, ID_TARGET_FORMAT, msaa);
        let (image, _) = target.render(&gpu, &mut renderer);
        let mut red_bytes = [false; 256];
        for (i, object) in objects.iter().enumerate() {
            let (x, y) = cell_pixel(i as u32);
            let pixel = image.get_pixel(x, y).0;
            assert_eq!(decode_id(pixel), Some(object.slot()), "{msaa:?} cell {i}");
            red_bytes[usize::from(pixel[0])] = true;
        }
        assert!(red_bytes.iter().all(|&seen| seen), "{msaa:?}");
    }
    gpu.finish();
}

/// `Clear(c)`: the background is `c` tone mapped. `Load`: pixels unbound
/// does not cover keep the application's colour exactly, an opaque quad
/// shows its tone-mapped radiance, and a half-transparent one is
/// composited over the application's colour (premultiplied: half its
/// tone-mapped radiance plus half of what was there).
#[test]
fn cleared_frames_tone_map_the_clear_colour_and_loaded_ones_keep_what_unbound_leaves() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 2.0);
    renderer.set_lighting(&dark()).unwrap();
    let (opaque, blended) = (Vec3::new(3.0, 0.6, 0.2), Vec3::new(0.2, 0.5, 4.0));
    for (radiance, alpha_mode, x) in [
        (opaque, unbound::AlphaMode::Opaque, -1.0),
        (blended, unbound::AlphaMode::Blend, 1.0),
    ] {
        let material = renderer
            .add_material(&Material {
                base_color_factor: Vec4::new(0.0, 0.0, 0.0, 0.5),
                metallic_factor: 0.0,
                emissive_factor: radiance,
                alpha_mode,
                ..Default::default()
            })
            .unwrap();
        renderer
            .add_object(&ObjectDesc {
                mesh: quad,
                material,
                world_from_object: quad_at(Vec3::new(x, 0.0, 0.0), 2.0, 2.0),
            })
            .unwrap();
    }
    let target = Target::new(&gpu, 16, 16);
    let application = wgpu::Color {
        r: 0.3,
        g: 0.05,
        b: 0.6,
        a: 1.0,
    };
    let clear = wgpu::Color {
        r: 2.0,
        g: 0.4,
        b: 0.05,
        a: 1.0,
    };
    let (top, left, right) = ((8, 1), (4, 8), (12, 8));
    let image = |renderer: &mut Renderer, color_load| {
        let frame = FrameTarget {
            color_load,
            ..target.frame()
        };
        target
            .capture(&gpu, |encoder, _| {
                clear_color(encoder, target.color_view(), application);
                renderer.render(encoder, &frame).unwrap();
            })
            .0
    };
    let check = |image: &image::RgbaImage, at: (u32, u32), expected: [u8; 4], case: &str| {
        let pixel = *image.get_pixel(at.0, at.1);
        assert!(
            color_distance(pixel, expected) <= 1 && pixel[3] == expected[3],
            "{case}: {pixel:?}, expected {expected:?}"
        );
    };
    let srgb = |c: Vec3| {
        let [r, g, b] = c
            .to_array()
            .map(|v| (linear_to_srgb(v) * 255.0).round() as u8);
        [r, g, b, 255]
    };
    let rgb = |c: wgpu::Color| glam::DVec3::new(c.r, c.g, c.b).as_vec3();

    let cleared = image(&mut renderer, TargetLoad::Clear(clear));
    check(&cleared, top, shown_clear_srgb(clear), "cleared background");
    check(&cleared, left, srgb(shown(opaque)), "cleared, opaque");
    let over_clear = shown(blended * 0.5 + rgb(clear) * 0.5);
    check(&cleared, right, srgb(over_clear), "cleared, blended");

    let loaded = image(&mut renderer, TargetLoad::Load);
    let kept = *image(&mut renderer, TargetLoad::Clear(wgpu::Color::BLACK)).get_pixel(0, 0);
    assert_eq!(kept.0, [0, 0, 0, 255], "a black clear stays black");
    check(&loaded, top, srgb(rgb(application)), "loaded background");
    check(&loaded, left, srgb(shown(opaque)), "loaded, opaque");
    let over_application = shown(blended) * 0.5 + rgb(application) * 0.5;
    check(&loaded, right, srgb(over_application), "loaded, blended");
    gpu.finish();
}

/// The application's own pass: clears `view` to `color`.
fn clear_color(encoder: &mut wgpu::CommandEncoder, view: &unbound::TargetView, color: wgpu::Color) {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("application's own pass"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: view.view(),
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(color),
                store: wgpu::StoreOp::Store,
            },
        })],
        ..Default::default()
    });
}

/// NaN, infinite and out-of-range exposures are typed errors; the output in
/// use stays and the renderer keeps rendering. Exposure scales radiance by
/// 2^EV before the curve.
#[test]
fn bad_exposure_is_refused_and_the_output_in_use_stays() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let radiance = Vec3::new(0.1, 0.2, 0.3);
    emissive_grid(&mut renderer, |_| radiance);
    let good = Output {
        exposure_ev: 1.0,
        tone_mapping: ToneMapping::Linear,
    };
    renderer.set_output(&good).unwrap();
    for exposure_ev in [f32::NAN, f32::INFINITY, -f32::INFINITY, 1000.0] {
        let error = renderer
            .set_output(&Output {
                exposure_ev,
                ..good
            })
            .unwrap_err();
        assert!(
            matches!(error, Error::Output(OutputError::Exposure { exposure_ev: e }) if e.to_bits() == exposure_ev.to_bits()),
            "{error:?}"
        );
        assert_eq!(renderer.output(), &good);
    }
    let target = Target::new(&gpu, GRID, GRID);
    let (image, _) = target.render(&gpu, &mut renderer);
    let expected = shown_linear_srgb(radiance * 2.0);
    for pixel in image.pixels() {
        assert!(
            color_distance(*pixel, expected) <= 1,
            "{pixel:?} {expected:?}"
        );
    }
    gpu.finish();
}

/// Linear radiance as the bytes of an sRGB target, clipped to [0, 1].
fn shown_linear_srgb(c: Vec3) -> [u8; 4] {
    let [r, g, b] = c
        .to_array()
        .map(|v| (linear_to_srgb(v.clamp(0.0, 1.0)) * 255.0).round() as u8);
    [r, g, b, 255]
}

/// The HDR target is created by the first frame and again when the colour
/// target's size changes; its bytes (all samples) are in `MemoryStats`.
#[test]
fn hdr_target_follows_the_colour_target_size_and_counts_its_bytes() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    for msaa in [Msaa::X1, Msaa::X4] {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities,
            msaa,
            ..Default::default()
        });
        assert!(renderer.hdr_target().is_none());
        let before = renderer.memory().output_bytes;
        let samples = u64::from(msaa.sample_count());
        let mut created = Vec::new();
        for (width, height) in [(16, 16), (16, 16), (32, 8), (32, 8), (16, 16)] {
            let target = Target::with_msaa(&gpu, width, height, Target::FORMAT, msaa);
            let aspect = width as f32 / height as f32;
            let camera = unbound::Camera {
                aspect,
                ..Default::default()
            };
            renderer.set_camera(&camera).unwrap();
            let (_, stats) = target.render(&gpu, &mut renderer);
            created.push(stats.hdr_targets_created);
            let hdr = renderer.hdr_target().unwrap();
            assert_eq!((hdr.width(), hdr.height()), (width, height));
            assert_eq!(hdr.sample_count(), msaa.sample_count());
            assert_eq!(hdr.format(), unbound::output::HDR_FORMAT);
            let bytes = u64::from(width * height) * 8 * samples;
            assert_eq!(renderer.memory().output_bytes, before + bytes);
        }
        assert_eq!(created, [1, 0, 1, 0, 1], "{msaa:?}");
    }
    gpu.finish();
}

/// A renderer of 4× needs a depth target of 4 samples and a colour target
/// of one: anything else is a typed error before anything is recorded (no
/// panic in wgpu at `finish`), and the renderer stays usable.
#[test]
fn msaa_targets_are_checked() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities,
        msaa: Msaa::X4,
        ..Default::default()
    });
    let one_sample = Target::new(&gpu, 8, 8);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let error = renderer
        .render(&mut encoder, &one_sample.frame())
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Render(RenderError::SampleCount {
                color: 1,
                depth: 1,
                depth_expected: 4
            })
        ),
        "{error:?}"
    );
    let four = Target::with_msaa(&gpu, 8, 8, Target::FORMAT, Msaa::X4);
    let frame = FrameTarget {
        color: four.depth_view(),
        ..four.frame()
    };
    assert!(
        renderer.render(&mut encoder, &frame).is_err(),
        "depth as colour"
    );
    drop(encoder);
    let (image, _) = four.render(&gpu, &mut renderer);
    assert_eq!(image.dimensions(), (8, 8));
    gpu.finish();
}

/// 4× renders what 1× renders except along edges, and its id view is the
/// first sample, never averaged (`common::output::check_msaa`).
#[test]
fn msaa_4x_matches_1x_except_along_edges() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let config = RendererConfig {
        capacities,
        ..Default::default()
    };
    check_msaa(&gpu, config, "msaa");
    gpu.finish();
}
