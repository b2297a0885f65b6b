//! The smallest program that renders with unbound on its own device and
//! writes a PNG: no window, and nothing but `unbound`, `wgpu`, `glam`,
//! `pollster` and `image`.
//!
//! ```text
//! cargo run --example headless -- [OUT.png]     (default: headless.png)
//! ```
//!
//! The steps, in order: a device with unbound's requirements
//! ([`unbound::request_device`]), a [`Renderer`], a texture made in code,
//! meshes, materials and objects, a camera that fits the image, colour and
//! depth textures from the renderer's own descriptors, one frame, and the
//! colour read back with plain wgpu. Every error is printed and exits with
//! status 1. `WGPU_ADAPTER_NAME` and `WGPU_BACKEND` choose the adapter.

use std::error::Error;

// Reading the frame back is plain wgpu: copy the texture into a buffer
// (rows padded to 256 bytes), map it, strip the padding. A page of code, shared
// with the glTF viewer.
#[path = "shared/readback.rs"]
mod readback;
use readback::Readback;

use glam::{Mat4, Quat, Vec3, Vec4};
use unbound::lighting::Environment;
use unbound::{
    Camera, FrameTarget, Material, ObjectDesc, Renderer, RendererConfig, TargetView, TextureDesc,
    shapes,
};

const WIDTH: u32 = 480;
const HEIGHT: u32 = 270;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "headless.png".into());
    if let Err(error) = pollster::block_on(run(&path)) {
        eprintln!("headless: {error}");
        std::process::exit(1);
    }
    println!("wrote {path}");
}

async fn run(path: &str) -> Result<(), Box<dyn Error>> {
    // A device with the features and limits unbound needs.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = wgpu::util::initialize_adapter_from_env_or_default(&instance, None).await?;
    let config = RendererConfig::default();
    let (device, queue) =
        unbound::request_device(&adapter, &config.capacities, &Default::default()).await?;
    let mut renderer = Renderer::new(&adapter, &device, &queue, config)?;
    let adapter_name = adapter.get_info().name;
    println!("{adapter_name}, tier {:?}", renderer.tier());

    add_scene(&mut renderer)?;
    renderer.set_camera(&Camera {
        position: Vec3::new(0.0, 1.6, 5.0),
        target: Vec3::new(0.0, 0.4, 0.0),
        // The image's width / height: `render` refuses a camera that does
        // not fit the target rather than stretch the image.
        aspect: WIDTH as f32 / HEIGHT as f32,
        ..Camera::default()
    })?;
    // A new renderer lights with a uniform white environment; the sky
    // gives the metal something to reflect.
    renderer.set_environment(&queue, &Environment::sky())?;

    // Targets with exactly the format, samples and usages this renderer
    // checks for (the colour one can also be copied out).
    let color = device.create_texture(&renderer.color_target_descriptor(WIDTH, HEIGHT));
    let depth = device.create_texture(&renderer.depth_target_descriptor(WIDTH, HEIGHT));
    let (color_view, depth_view) = (TargetView::new(&color), TargetView::new(&depth));
    let background = wgpu::Color {
        r: 0.05,
        g: 0.05,
        b: 0.08,
        a: 1.0,
    };
    let target = FrameTarget::cleared(&color_view, &depth_view, background);

    // One frame, and the copy of its colour, in one submission.
    let mut encoder = device.create_command_encoder(&Default::default());
    let stats = renderer.render(&mut encoder, &target)?;
    let readback = Readback::record(&device, &mut encoder, &color);
    queue.submit([encoder.finish()]);
    println!("{stats}");

    let rgba = readback.read(&device)?;
    image::save_buffer(path, &rgba, WIDTH, HEIGHT, image::ColorType::Rgba8)?;
    Ok(())
}

/// A checkered floor, a textured cube, a plastic sphere and a gold torus.
fn add_scene(renderer: &mut Renderer) -> Result<(), unbound::Error> {
    let checker = renderer.add_texture(&TextureDesc {
        label: Some("checker"),
        width: 64,
        height: 64,
        data: &checker_texels(64, 8),
        ..TextureDesc::default()
    })?;
    let sampler = renderer.heap().default_sampler();
    let checkered = renderer.add_material(&Material::textured(checker, sampler))?;
    let red_plastic =
        renderer.add_material(&Material::dielectric(Vec4::new(0.8, 0.1, 0.1, 1.0)))?;
    let gold = renderer.add_material(&Material::metal(Vec4::new(1.0, 0.78, 0.34, 1.0), 0.3))?;

    let objects = [
        // The quad faces +Z: turned to face up, 8 units square.
        (
            shapes::quad(),
            checkered,
            Mat4::from_scale_rotation_translation(
                Vec3::splat(8.0),
                Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
                Vec3::new(0.0, -0.5, 0.0),
            ),
        ),
        (
            shapes::cube(),
            checkered,
            Mat4::from_rotation_translation(Quat::from_rotation_y(0.6), Vec3::new(-1.6, 0.0, 0.0)),
        ),
        (
            shapes::sphere(32, 16),
            red_plastic,
            Mat4::from_translation(Vec3::new(0.0, 0.0, 0.5)),
        ),
        (
            shapes::torus(0.25, 32, 16),
            gold,
            Mat4::from_rotation_translation(Quat::from_rotation_x(1.1), Vec3::new(1.6, 0.2, 0.0)),
        ),
    ];
    for (shape, material, world_from_object) in objects {
        let mesh = renderer.add_mesh(&shape.as_mesh_data())?;
        renderer.add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object,
        })?;
    }
    Ok(())
}

/// `size` × `size` sRGB texels, light and dark squares `cell` texels wide.
fn checker_texels(size: u32, cell: u32) -> Vec<u8> {
    (0..size * size)
        .flat_map(|i| {
            let (x, y) = (i % size / cell, i / size / cell);
            if (x + y) % 2 == 0 {
                [230, 230, 220, 255]
            } else {
                [60, 90, 140, 255]
            }
        })
        .collect()
}
