//! The embedding API a new application meets first: targets made from the
//! renderer's own descriptors, the camera's aspect checked against the
//! target, the named environments and the material constructors.

mod common;

use common::*;
use glam::{Mat4, Vec3, Vec4};
use unbound::lighting::Environment;
use unbound::output::Msaa;
use unbound::{
    Camera, DEPTH_FORMAT, Error, FrameTarget, Material, ObjectDesc, RenderError, Renderer,
    RendererConfig, TargetView, shapes,
};
use unbound_harness::TextureReadback;

/// A non-square size, so that a stretched camera would show.
const WIDTH: u32 = 48;
const HEIGHT: u32 = 32;

/// A camera that fits `width` × `height`, looking at the origin.
fn camera_for(width: u32, height: u32) -> Camera {
    Camera {
        position: Vec3::new(0.0, 0.8, 3.0),
        aspect: width as f32 / height as f32,
        ..Camera::default()
    }
}

/// A red plastic sphere, a gold cube and a textured quad.
fn add_scene(renderer: &mut Renderer) {
    let texture = solid_texture(renderer, [40, 200, 60, 255]);
    let sampler = renderer.heap().default_sampler();
    let materials = [
        Material::dielectric(Vec4::new(0.8, 0.1, 0.1, 1.0)),
        Material::metal(Vec4::new(1.0, 0.8, 0.3, 1.0), 0.3),
        Material::textured(texture, sampler),
    ];
    let meshes = [shapes::sphere(16, 8), shapes::cube(), shapes::quad()];
    for (i, (mesh, material)) in meshes.iter().zip(&materials).enumerate() {
        let mesh = renderer.add_mesh(&mesh.as_mesh_data()).unwrap();
        let material = renderer.add_material(material).unwrap();
        let x = i as f32 - 1.0;
        renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: Mat4::from_translation(Vec3::new(x, 0.0, 0.0)),
            })
            .unwrap();
    }
}

/// Renders one frame into `color` and `depth` and reads the colour back.
fn render_into(
    gpu: &Gpu,
    renderer: &mut Renderer,
    color: &wgpu::Texture,
    depth: &wgpu::Texture,
) -> Result<image::RgbaImage, Error> {
    let (color_view, depth_view) = (TargetView::new(color), TargetView::new(depth));
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let target = FrameTarget::cleared(&color_view, &depth_view, unbound_harness::BACKGROUND);
    renderer.render(&mut encoder, &target)?;
    let readback = TextureReadback::record(&gpu.device, &mut encoder, color).unwrap();
    gpu.queue.submit([encoder.finish()]);
    let texels = readback.read(&gpu.device).unwrap();
    Ok(image::RgbaImage::from_raw(readback.width, readback.height, texels).unwrap())
}

/// The descriptors have what `FrameTarget::check` and occlusion culling
/// demand, and targets made from them render, with occlusion culling on
/// and off and at 1× and 4× MSAA, the image the harness's targets render.
#[test]
fn targets_from_the_descriptors_render_with_occlusion_on_and_off_and_at_4x() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    for msaa in [Msaa::X1, Msaa::X4] {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities,
            msaa,
            ..RendererConfig::default()
        });
        let color = renderer.color_target_descriptor(WIDTH, HEIGHT);
        let depth = renderer.depth_target_descriptor(WIDTH, HEIGHT);
        for descriptor in [&color, &depth] {
            let size = descriptor.size;
            assert_eq!(
                (size.width, size.height, size.depth_or_array_layers),
                (48, 32, 1)
            );
            assert_eq!(descriptor.dimension, wgpu::TextureDimension::D2);
            assert_eq!(descriptor.mip_level_count, 1);
        }
        assert_eq!(color.format, renderer.config().color_format);
        assert_eq!(color.sample_count, 1);
        let copy_out = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        assert!(color.usage.contains(copy_out), "{:?}", color.usage);
        assert_eq!(depth.format, DEPTH_FORMAT);
        assert_eq!(depth.sample_count, msaa.sample_count());
        let sampled_attachment =
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING;
        assert_eq!(depth.usage, sampled_attachment);

        add_scene(&mut renderer);
        renderer.set_camera(&camera_for(WIDTH, HEIGHT)).unwrap();
        let (color, depth) = (
            gpu.device.create_texture(&color),
            gpu.device.create_texture(&depth),
        );
        let harness = Target::with_msaa(&gpu, WIDTH, HEIGHT, Target::FORMAT, msaa);
        for occlusion in [true, false] {
            renderer.set_occlusion(occlusion);
            // Twice: with occlusion culling the second frame culls against
            // the first one's depth.
            for _ in 0..2 {
                let image = render_into(&gpu, &mut renderer, &color, &depth).unwrap();
                let (reference, _) = harness.render(&gpu, &mut renderer);
                assert_eq!(image, reference, "{msaa:?}, occlusion {occlusion}");
                let drawn = drawn_pixels(&image, shown_clear_srgb(unbound_harness::BACKGROUND));
                assert!(drawn > 200, "{drawn} pixels drawn at {msaa:?}");
            }
        }
    }
    // The colour format follows the configuration.
    let bgra = wgpu::TextureFormat::Bgra8UnormSrgb;
    let renderer = gpu.renderer_with(RendererConfig {
        capacities,
        color_format: bgra,
        ..RendererConfig::default()
    });
    assert_eq!(renderer.color_target_descriptor(8, 8).format, bgra);
    gpu.finish();
}

/// A camera whose aspect does not fit the colour target is refused with a
/// typed error, nothing recorded, and the renderer draws the next frame;
/// an aspect within half a pixel of the target's fits.
#[test]
fn a_camera_that_does_not_fit_the_target_is_refused() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    add_scene(&mut renderer);
    let color = gpu
        .device
        .create_texture(&renderer.color_target_descriptor(WIDTH, HEIGHT));
    let depth = gpu
        .device
        .create_texture(&renderer.depth_target_descriptor(WIDTH, HEIGHT));
    // A new renderer's camera is square.
    assert_eq!(renderer.camera().aspect, 1.0);
    let refused = render_into(&gpu, &mut renderer, &color, &depth);
    assert!(
        matches!(
            refused,
            Err(Error::Render(RenderError::CameraAspect {
                aspect: 1.0,
                target: (WIDTH, HEIGHT)
            }))
        ),
        "{refused:?}"
    );
    let message = refused.unwrap_err().to_string();
    assert!(message.contains("48x32"), "{message}");

    renderer.set_camera(&camera_for(WIDTH, HEIGHT)).unwrap();
    let fitting = render_into(&gpu, &mut renderer, &color, &depth).unwrap();
    // 1.49 at a height of 32 is 47.68 pixels: it fits 48.
    renderer
        .set_camera(&Camera {
            aspect: 1.49,
            ..camera_for(WIDTH, HEIGHT)
        })
        .unwrap();
    let nearly = render_into(&gpu, &mut renderer, &color, &depth).unwrap();
    assert_eq!(nearly.dimensions(), fitting.dimensions());
    // 1.47 is 47.04 pixels: a pixel short.
    renderer
        .set_camera(&Camera {
            aspect: 1.47,
            ..camera_for(WIDTH, HEIGHT)
        })
        .unwrap();
    assert!(matches!(
        render_into(&gpu, &mut renderer, &color, &depth),
        Err(Error::Render(RenderError::CameraAspect { .. }))
    ));
    gpu.finish();
}

/// A new renderer lights with `Environment::uniform_white()`: setting it
/// changes no pixel. The sky lights the same scene differently.
#[test]
fn a_new_renderer_starts_with_the_uniform_white_environment() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    add_scene(&mut renderer);
    renderer.set_camera(&camera_for(WIDTH, HEIGHT)).unwrap();
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    let (new, _) = target.render(&gpu, &mut renderer);
    renderer
        .set_environment(&gpu.queue, &Environment::uniform_white())
        .unwrap();
    let (white, _) = target.render(&gpu, &mut renderer);
    assert_eq!(mismatched_pixels(&new, &white, 0), 0);
    renderer
        .set_environment(&gpu.queue, &Environment::sky())
        .unwrap();
    let (sky, _) = target.render(&gpu, &mut renderer);
    assert!(mismatched_pixels(&new, &sky, 2) > 100);
    gpu.finish();
}
