//! Headless mode: render the scene to a PNG and report what the GPU drew,
//! checked against a CPU reference.

use std::path::Path;
use std::time::Instant;

use glam::Vec4;
use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
use unbound::{
    DebugOptions, DebugView, FrameStats, GpuFrameStats, ObjectHandle, PathTracing, Renderer,
};
use unbound_harness::{
    DeviceLimits, DeviceRequest, Gpu, TextureReadback, instance_flags, open_headless,
};
use unbound_scenes::demo::sphere_of;

use crate::args::Args;
use crate::capture::{SceneTargets, save_png};
use crate::controls::CameraPath;
use crate::renderer;
use crate::scene::{self, LoadedScene};

pub fn run(args: &Args) -> Result<(), String> {
    let Opened {
        device,
        queue,
        mut renderer,
    } = open(args)?;
    let aspect = args.width as f32 / args.height as f32;
    let scene = scene::load(&mut renderer, args, aspect)?;
    println!("{}", scene.description);
    set_view(&mut renderer, &scene, args, aspect)?;

    let targets = SceneTargets::new(&device, args.width, args.height, args.msaa);
    let rendered = render_frames(&device, &queue, &mut renderer, &targets, args)?;
    let gpu = renderer
        .latest_gpu_stats()
        .ok_or("GPU statistics did not come back")?;
    let reference = CpuReference::count(&renderer, &scene.objects)?;
    print_report(&renderer, &rendered.stats, &gpu, &reference);

    save_png(&rendered.readback, &device, Path::new(&args.out))?;
    println!("wrote {}", args.out);
    if reference.agrees_with(gpu.visible_instances) {
        Ok(())
    } else {
        Err("visible count differs from the CPU reference".into())
    }
}

/// What [`open`] opens.
struct Opened {
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: Renderer,
}

/// The device and the renderer; prints the adapter, the tier and why no
/// better tier was available.
fn open(args: &Args) -> Result<Opened, String> {
    let Gpu {
        adapter,
        device,
        queue,
        ..
    } = open_headless(
        &args.choice,
        &renderer::capacities(args),
        instance_flags(),
        DeviceRequest {
            limits: DeviceLimits::ForCapacities,
            ray_queries: args.ray_queries(),
        },
    )
    .map_err(|e| e.to_string())?;
    let created = renderer::create(&adapter, &device, &queue, args)?;
    println!("{}\n{}", created.adapter_line, created.tier_line);
    for reason in &created.renderer.adapter_support().rejected {
        println!("  (better tier not available: {reason})");
    }
    Ok(Opened {
        device,
        queue,
        renderer: created.renderer,
    })
}

/// The camera and the debug options from the command line.
fn set_view(
    renderer: &mut Renderer,
    scene: &LoadedScene,
    args: &Args,
    aspect: f32,
) -> Result<(), String> {
    // --camera, or the last pose of --camera-path (where a window replaying
    // the path ends), else the scene's own.
    let pose = match (&args.camera, &args.camera_path) {
        (Some(pose), _) => Some(*pose),
        (None, Some(path)) => Some(*CameraPath::load(path)?.poses.last().expect("not empty")),
        (None, None) => None,
    };
    if let Some(pose) = pose {
        renderer
            .set_camera(&scene.camera(&pose, aspect))
            .map_err(|e| e.to_string())?;
    }
    renderer
        .set_debug(&DebugOptions {
            view: args.view,
            highlight_missing: args.highlight_missing,
            cull_camera: args.freeze_cull.then(|| *renderer.camera()),
            culled_bounds: args.bounds,
        })
        .map_err(|e| e.to_string())
}

/// The steady-state frame: its statistics and its image on the way back.
struct Rendered {
    stats: FrameStats,
    readback: TextureReadback,
}

/// Frames to render: two (the first uploads everything; the second is a
/// steady-state frame whose statistics we report and whose image we save),
/// or for the path-traced view as many as `--samples` takes at up to 16
/// samples per pixel a frame (at least two).
fn frame_count(renderer: &mut Renderer, args: &Args) -> Result<u32, String> {
    if args.view != DebugView::PathTraced {
        return Ok(2);
    }
    let frames = args.samples.div_ceil(16).max(2);
    let settings = PathTracing {
        samples_per_frame: args.samples.div_ceil(frames),
        ..PathTracing::default()
    };
    renderer
        .set_path_tracing(&settings)
        .map_err(|e| format!("--samples: {e}"))?;
    Ok(frames)
}

/// The frames of [`frame_count`]; the last one's statistics and image.
fn render_frames(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    renderer: &mut Renderer,
    targets: &SceneTargets,
    args: &Args,
) -> Result<Rendered, String> {
    let frame = targets.frame(args.view);
    let frames = frame_count(renderer, args)?;
    let mut last = None;
    let mut readback = None;
    for index in 0..frames {
        let mut encoder = device.create_command_encoder(&Default::default());
        let record_start = Instant::now();
        let stats = renderer
            .render(&mut encoder, &frame)
            .map_err(|e| e.to_string())?;
        let record_ms = record_start.elapsed().as_secs_f64() * 1e3;
        if index + 1 == frames {
            readback = Some(
                TextureReadback::record(device, &mut encoder, targets.texture(args.view))
                    .map_err(|e| e.to_string())?,
            );
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
    if args.view == DebugView::PathTraced {
        println!(
            "path traced: {} samples per pixel, {} bounces",
            renderer.path_traced_samples(),
            renderer.path_tracing().bounces
        );
    }
    Ok(Rendered {
        stats: last.expect("two frames rendered"),
        readback: readback.expect("second frame copied"),
    })
}

/// The CPU's count of the objects the GPU's cull should keep: the same
/// sphere/frustum test over every object.
struct CpuReference {
    /// Spheres inside the frustum by the CPU's own arithmetic.
    exact: u32,
    /// Spheres clearly inside (not within rounding of a plane).
    certain: u32,
    /// Spheres within 1e-3 of a plane, which f32 rounding on the GPU may
    /// decide either way.
    ambiguous: u32,
}

impl CpuReference {
    fn count(renderer: &Renderer, objects: &[ObjectHandle]) -> Result<Self, String> {
        let cull_camera = renderer.debug().cull_camera.unwrap_or(*renderer.camera());
        let planes = frustum_planes(&cull_camera.clip_from_world());
        let (mut exact, mut certain, mut ambiguous) = (0u32, 0u32, 0u32);
        for &object in objects {
            let sphere: Vec4 = sphere_of(renderer, object).ok_or("object vanished")?;
            let inside = sphere_in_frustum(&planes, sphere);
            exact += u32::from(inside);
            if sphere_plane_margin(&planes, sphere) < 1e-3 * sphere.w.max(1.0) {
                ambiguous += 1;
            } else {
                certain += u32::from(inside);
            }
        }
        Ok(Self {
            exact,
            certain,
            ambiguous,
        })
    }

    fn agrees_with(&self, visible_instances: u32) -> bool {
        visible_instances >= self.certain && visible_instances <= self.certain + self.ambiguous
    }
}

fn print_report(
    renderer: &Renderer,
    last: &FrameStats,
    gpu: &GpuFrameStats,
    reference: &CpuReference,
) {
    let CpuReference {
        exact,
        certain,
        ambiguous,
    } = reference;
    let ms = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3} ms"));
    println!("instances: {}", last.instances);
    println!(
        "visible instances: {} (CPU reference: {exact}; {certain} certain plus {ambiguous} within 1e-3 of a plane, \
         where f32 rounding on the GPU may decide either way)",
        gpu.visible_instances
    );
    if renderer.occlusion() {
        println!(
            "occlusion culling: {} drawn early, {} drawn late, {} occluded",
            gpu.early_instances, gpu.late_instances, gpu.occluded_instances
        );
    }
    println!("draws: {}", gpu.draws);
    println!("triangles: {}", gpu.triangles);
    println!(
        "GPU time: cull {}, pyramid {}, late cull {}, lights {}, draw {}, output {}",
        ms(gpu.cull_ms),
        ms(gpu.pyramid_ms),
        ms(gpu.late_cull_ms),
        ms(gpu.lights_ms),
        ms(gpu.draw_ms),
        ms(gpu.output_ms)
    );
    let memory = renderer.memory();
    println!(
        "GPU memory held by unbound: {:.1} MiB",
        memory.total_bytes() as f64 / f64::from(1 << 20)
    );
}
