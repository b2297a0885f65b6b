//! `unbound-demo`: renders the built-in procedural scene headless to a PNG
//! and reports what the GPU drew, checked against a CPU reference.
//!
//! ```text
//! unbound-demo --headless --out frame.png [--width W] [--height H]
//!              [--instances N] [--backend vulkan|dx12|metal|gl] [--adapter NAME]
//!              [--tier a|b|c] [--scene FILE.gltf|.glb [--instances-grid N]]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use glam::Vec4;
use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
use unbound::headless::{
    AdapterChoice, create_instance, instance_flags, parse_backend, select_adapter,
};
use unbound::loaders::gltf::load_gltf;
use unbound::procedural::{DemoSceneConfig, build_demo_scene, sphere_of};
use unbound::{Capacities, FrameTarget, Renderer, RendererConfig, Tier};

const USAGE: &str = "usage: unbound-demo --headless --out frame.png [--width W] [--height H] [--instances N] \
[--backend vulkan|dx12|metal|gl] [--adapter NAME] [--tier a|b|c] [--scene FILE.gltf|.glb [--instances-grid N]]";

#[derive(Debug)]
struct Args {
    headless: bool,
    out: String,
    width: u32,
    height: u32,
    instances: u32,
    choice: AdapterChoice,
    tier: Option<Tier>,
    scene: Option<std::path::PathBuf>,
    grid: u32,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        headless: false,
        out: "frame.png".into(),
        width: 1280,
        height: 720,
        instances: 10_000,
        choice: AdapterChoice::from_env(false),
        tier: None,
        scene: None,
        grid: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let number = |v: String| v.parse::<u32>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--headless" => args.headless = true,
            "--out" => args.out = value()?,
            "--width" => args.width = number(value()?)?,
            "--height" => args.height = number(value()?)?,
            "--instances" => args.instances = number(value()?)?,
            "--backend" => {
                let name = value()?;
                args.choice.backends =
                    Some(parse_backend(&name).ok_or(format!("unknown backend {name}"))?);
            }
            "--adapter" => args.choice.name = Some(value()?),
            "--scene" => args.scene = Some(value()?.into()),
            "--instances-grid" => args.grid = number(value()?)?,
            "--tier" => {
                let name = value()?;
                args.tier =
                    Some(Tier::parse(&name).ok_or(format!("unknown tier {name} (a, b or c)"))?);
            }
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if !args.headless {
        return Err(format!(
            "only headless rendering is available so far: pass --headless\n{USAGE}"
        ));
    }
    if args.width == 0 || args.height == 0 || args.instances == 0 {
        return Err("width, height and instances must be positive".into());
    }
    Ok(args)
}

fn main() -> ExitCode {
    match parse_args().and_then(|args| run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let capacities = Capacities {
        objects: args.instances.max(Capacities::default().objects),
        ..Capacities::default()
    };
    let instance = create_instance(&args.choice, instance_flags());
    let adapter = pollster::block_on(select_adapter(&instance, &args.choice, &capacities))
        .map_err(|e| e.to_string())?;
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(unbound::request_device(
        &adapter,
        &capacities,
        wgpu::Features::empty(),
        &wgpu::Limits::default(),
    ))
    .map_err(|e| e.to_string())?;
    device.on_uncaptured_error(std::sync::Arc::new(|e| eprintln!("wgpu error: {e}")));
    let config = RendererConfig {
        capacities,
        color_format: wgpu::TextureFormat::Rgba8UnormSrgb,
        tier: args.tier,
        ..RendererConfig::default()
    };
    let mut renderer =
        Renderer::new(&adapter, &device, &queue, config).map_err(|e| e.to_string())?;
    println!(
        "adapter: {} ({:?}, {:?}), driver: {} {}",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    println!("tier: {}", renderer.tier().describe());
    for reason in &renderer.adapter_support().rejected {
        println!("  (better tier not available: {reason})");
    }

    let started = Instant::now();
    let scene_config = DemoSceneConfig {
        instances: args.instances,
        ..DemoSceneConfig::default()
    };
    let aspect = args.width as f32 / args.height as f32;
    let objects = match &args.scene {
        Some(path) => {
            let scene =
                load_gltf(&mut renderer, path, glam::Mat4::IDENTITY).map_err(|e| e.to_string())?;
            for warning in &scene.warnings {
                println!("warning: {warning}");
            }
            // --instances-grid N: N x N x N copies of the scene, one scene
            // width apart.
            let mut scene = scene;
            if args.grid > 1 {
                let size = (scene.bounds.1 - scene.bounds.0).max_element() * 1.2;
                let n = args.grid as i32;
                for x in 0..n {
                    for y in 0..n {
                        for z in 0..n {
                            if (x, y, z) == (0, 0, 0) {
                                continue;
                            }
                            let offset = glam::Mat4::from_translation(
                                glam::Vec3::new(x as f32, y as f32, -z as f32) * size,
                            );
                            for placement in &scene.placements {
                                let desc = unbound::ObjectDesc {
                                    world_from_object: offset * placement.world_from_object,
                                    ..*placement
                                };
                                scene
                                    .objects
                                    .push(renderer.add_object(&desc).map_err(|e| e.to_string())?);
                            }
                        }
                    }
                }
                scene.bounds.1 += glam::Vec3::new(1.0, 1.0, 0.0) * size * (n - 1) as f32;
                scene.bounds.0 -= glam::Vec3::Z * size * (n - 1) as f32;
            }
            if !scene.objects.is_empty() {
                renderer
                    .set_camera(&camera_framing(scene.bounds.0, scene.bounds.1, aspect))
                    .map_err(|e| e.to_string())?;
            }
            println!(
                "scene: {} ({} objects, {} meshes, {} materials, {} textures), loaded in {:.0} ms",
                path.display(),
                scene.objects.len(),
                scene.meshes.len(),
                scene.materials.len(),
                scene.textures.len(),
                started.elapsed().as_secs_f64() * 1e3
            );
            scene.objects
        }
        None => {
            let scene = build_demo_scene(&mut renderer, &scene_config, aspect)
                .map_err(|e| e.to_string())?;
            println!(
                "scene: {} instances, {} meshes, {} textures/materials, built in {:.0} ms",
                scene.objects.len(),
                scene.meshes.len(),
                scene.materials.len(),
                started.elapsed().as_secs_f64() * 1e3
            );
            scene.objects
        }
    };

    let (color, depth) = targets(&device, args.width, args.height);
    let color_view = color.create_view(&Default::default());
    let depth_view = depth.create_view(&Default::default());
    let frame = FrameTarget {
        color: &color_view,
        depth: &depth_view,
        clear_color: Some(wgpu::Color {
            r: 0.02,
            g: 0.02,
            b: 0.05,
            a: 1.0,
        }),
    };
    // Two frames: the first uploads everything; the second is a steady-state
    // frame whose statistics we report.
    let mut last = None;
    let mut readback = None;
    for index in 0..2 {
        let mut encoder = device.create_command_encoder(&Default::default());
        let record_start = Instant::now();
        let stats = renderer
            .render(&mut encoder, &frame)
            .map_err(|e| e.to_string())?;
        let record_ms = record_start.elapsed().as_secs_f64() * 1e3;
        if index == 1 {
            readback = Some(copy_out(&device, &mut encoder, &color));
        }
        let submit_start = Instant::now();
        queue.submit([encoder.finish()]);
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        let wait_ms = submit_start.elapsed().as_secs_f64() * 1e3;
        println!(
            "frame {index}: recorded in {record_ms:.2} ms, submit to completion {wait_ms:.1} ms; {stats}"
        );
        last = Some(stats);
    }
    let gpu = renderer
        .latest_gpu_stats()
        .ok_or("GPU statistics did not come back")?;

    // CPU reference: the same sphere/frustum test over every object.
    let planes = frustum_planes(&renderer.camera().clip_from_world());
    let (mut exact, mut certain, mut ambiguous) = (0u32, 0u32, 0u32);
    for &object in &objects {
        let sphere: Vec4 = sphere_of(&renderer, object).ok_or("object vanished")?;
        let inside = sphere_in_frustum(&planes, sphere);
        exact += u32::from(inside);
        if sphere_plane_margin(&planes, sphere) < 1e-3 * sphere.w.max(1.0) {
            ambiguous += 1;
        } else {
            certain += u32::from(inside);
        }
    }
    let ms = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3} ms"));
    println!("instances: {}", last.map_or(0, |s| s.instances));
    println!(
        "visible instances: {} (CPU reference: {exact}; {certain} certain plus {ambiguous} within 1e-3 of a plane, \
         where f32 rounding on the GPU may decide either way)",
        gpu.visible_instances
    );
    println!("draws: {}", gpu.draws);
    println!("triangles: {}", gpu.triangles);
    println!(
        "GPU time: cull {}, draw {}",
        ms(gpu.cull_ms),
        ms(gpu.draw_ms)
    );
    let memory = renderer.memory();
    println!(
        "GPU memory held by unbound: {:.1} MiB",
        memory.total_bytes() as f64 / f64::from(1 << 20)
    );

    let (buffer, padded) = readback.expect("second frame copied");
    save_png(&device, &buffer, padded, args.width, args.height, &args.out)?;
    println!("wrote {}", args.out);
    let within = gpu.visible_instances >= certain && gpu.visible_instances <= certain + ambiguous;
    if within {
        Ok(())
    } else {
        Err("visible count differs from the CPU reference".into())
    }
}

/// Looks at the box `(min, max)` from the front, slightly above.
fn camera_framing(min: glam::Vec3, max: glam::Vec3, aspect: f32) -> unbound::Camera {
    let center = (min + max) * 0.5;
    let radius = ((max - min).length() * 0.5).max(1e-3);
    let direction = glam::Vec3::new(0.35, 0.25, 1.0).normalize();
    unbound::Camera {
        position: center + direction * radius * 2.6,
        target: center,
        up: glam::Vec3::Y,
        fov_y_radians: 45f32.to_radians(),
        aspect,
        z_near: radius * 0.05,
        z_far: radius * 10.0,
    }
}

fn targets(device: &wgpu::Device, width: u32, height: u32) -> (wgpu::Texture, wgpu::Texture) {
    let size = wgpu::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let texture = |format, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("demo target"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    (
        texture(
            wgpu::TextureFormat::Rgba8UnormSrgb,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        ),
        texture(
            unbound::DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        ),
    )
}

fn copy_out(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    color: &wgpu::Texture,
) -> (wgpu::Buffer, u32) {
    let padded = (color.width() * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("demo readback"),
        size: u64::from(padded * color.height()),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        color.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: None,
            },
        },
        color.size(),
    );
    (buffer, padded)
}

fn save_png(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    padded: u32,
    width: u32,
    height: u32,
    path: &str,
) -> Result<(), String> {
    buffer.map_async(wgpu::MapMode::Read, .., |r| r.expect("map readback"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| e.to_string())?;
    let data = buffer.get_mapped_range(..).map_err(|e| e.to_string())?;
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for row in 0..height {
        let start = (row * padded) as usize;
        pixels.extend_from_slice(&data[start..start + (width * 4) as usize]);
    }
    image::save_buffer(
        path,
        &pixels,
        width,
        height,
        image::ExtendedColorType::Rgba8,
    )
    .map_err(|e| format!("{path}: {e}"))
}
