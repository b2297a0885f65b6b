//! The measurement loop, one for every render path (the `paths` and
//! `crowd` modules): each frame moves 1% of the objects, records, submits
//! and waits for the device, timing each step.

use std::time::Instant;

use glam::{Mat4, Vec3};
use unbound::{Camera, ClusterGrid, LightListStats};
use unbound_harness::Gpu;
use unbound_scenes::bench::{self as bench_scenes, BenchScene, SceneSpec};

use crate::paths::{BaselinePath, Counters, FramePath, PassTimes, UnboundPath, unbound_config};
use crate::results::{LightLists, RunId, RunResult, Stat};
use crate::runs::{FrameCounts, RunOptions};
use crate::runs::{RenderPath, Run};
use crate::small_triangles::{self, SmallTriangles};

/// Measures `run` on `path` with the frames, occlusion culling and level
/// of detail `options` ask for, and counts the last frame's small
/// triangles if they ask for that too.
pub fn measure_run(
    gpu: &Gpu,
    scene: &SceneSpec,
    run: Run,
    path: RenderPath,
    options: &RunOptions,
) -> Result<RunResult, String> {
    let id = RunId::new(run, path, options.occlusion, options.lod)
        .with_depth_prepass(options.depth_prepass)
        .with_debug_view(options.debug_view);
    let scene_kind = run.scene();
    let crowd = matches!(run.kind, crate::runs::RunKind::Frame(s) if s.is_crowd());
    let mut frame_path: Box<dyn FramePath> = match path {
        RenderPath::Unbound if crowd => Box::new(crate::crowd::CrowdPath::new(
            gpu,
            scene,
            unbound_config(
                gpu,
                scene,
                run,
                (id.occlusion, id.lod, options.subgroups),
                (
                    None,
                    id.depth_prepass,
                    options.cluster_culling,
                    (
                        (options.texture_heap, options.texture_budget),
                        options.geometry,
                    ),
                ),
            ),
            scene_kind == BenchScene::Crowd,
        )?),
        RenderPath::Unbound => Box::new(UnboundPath::new(
            gpu,
            scene,
            run,
            (id.occlusion, id.lod, options.subgroups),
            (
                options.light_grid,
                id.depth_prepass,
                options.cluster_culling,
                (
                    (options.texture_heap, options.texture_budget),
                    options.geometry,
                ),
            ),
        )?),
        RenderPath::Baseline => Box::new(BaselinePath::new(gpu, scene)),
    };
    frame_path.set_debug_view(gpu, options.debug_view)?;
    let mut last_frame = options.count_small_triangles.then(|| LastFrame::of(scene));
    let samples = measure(
        gpu,
        scene,
        run,
        options.frames,
        frame_path.as_mut(),
        last_frame.as_mut(),
    )?;
    let counters = frame_path.counters()?;
    let mut result = samples.into_result(id, options.frames, counters);
    let fragments = if result.light_lists.is_some() {
        frame_path.fragment_lights(gpu)?
    } else {
        None
    };
    result.light_lists = result.light_lists.take().map(|lists| LightLists {
        fragments,
        lights_per_point: (scene.lights.len() as f32 * crate::runs::LIGHTS_OVERLAP_PER_1000
            / 1000.0),
        ..lists
    });
    if let Some(last_frame) = last_frame {
        result.small_triangles =
            count_small_triangles(gpu, scene, &result, frame_path.as_ref(), &last_frame)?;
    }
    Ok(result)
}

/// The camera and every object's transform as the last frame had them.
struct LastFrame {
    camera: Camera,
    world_from_object: Vec<Mat4>,
}

impl LastFrame {
    fn of(scene: &SceneSpec) -> Self {
        Self {
            camera: scene.camera,
            world_from_object: scene.objects.iter().map(|o| o.world_from_object).collect(),
        }
    }
}

/// The last frame's small-triangle count (`--count-small-triangles`), for
/// paths that report what they drew; `None` with level of detail (the
/// levels' geometry is the renderer's) and on other paths. The drawn
/// objects must be the ones the GPU counted.
fn count_small_triangles(
    gpu: &Gpu,
    scene: &SceneSpec,
    result: &RunResult,
    path: &dyn FramePath,
    last_frame: &LastFrame,
) -> Result<Option<SmallTriangles>, String> {
    if result.id.lod {
        eprintln!("small triangles: not counted with level of detail on");
        return Ok(None);
    }
    let Some(drawn) = path.drawn_objects(gpu)? else {
        return Ok(None);
    };
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counts = small_triangles::count(
        scene,
        &last_frame.world_from_object,
        &last_frame.camera,
        &drawn,
        threads,
    );
    let drawn_instances = result
        .occlusion_counts
        .map_or(0, |c| c.early_instances + c.late_instances);
    if counts.submitted != result.triangles || counts.instances != drawn_instances {
        return Err(format!(
            "small triangles: the visible lists read back hold {} instances of {} triangles, the GPU counted {} of {}",
            counts.instances, counts.submitted, drawn_instances, result.triangles
        ));
    }
    eprintln!(
        "small triangles: {} instances, {} triangles counted on {threads} threads in {:.2} s",
        counts.instances,
        counts.submitted,
        started.elapsed().as_secs_f64()
    );
    Ok(Some(counts))
}

/// Changed objects per frame: 1% (at least one).
fn changes_per_frame(instances: u32) -> u32 {
    (instances / 100).max(1)
}

/// A changed transform: the original nudged by a small offset that
/// alternates, so the scene stays statistically the same.
fn nudged(original: &Mat4, frame: u32) -> Mat4 {
    let offset = if frame.is_multiple_of(2) { 0.05 } else { -0.05 };
    Mat4::from_translation(Vec3::splat(offset)) * *original
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// The loop: warm-up frames, then the measured ones.
/// Keeps `last_frame` up to date when given.
fn measure(
    gpu: &Gpu,
    scene: &SceneSpec,
    run: Run,
    frames: FrameCounts,
    path: &mut dyn FramePath,
    mut last_frame: Option<&mut LastFrame>,
) -> Result<Samples, String> {
    let changed = changes_per_frame(run.instances);
    let half = (scene.objects.len() as f32).cbrt();
    let mut samples = Samples::default();
    for frame in 0..frames.warmup + frames.measured {
        let start = Instant::now();
        for k in 0..changed {
            let index = ((frame * changed + k) % run.instances) as usize;
            let world_from_object = nudged(&scene.objects[index].world_from_object, frame);
            path.move_object(index, world_from_object)?;
            if let Some(last) = last_frame.as_deref_mut() {
                last.world_from_object[index] = world_from_object;
            }
        }
        path.animate(frame)?;
        let camera = match run.scene() {
            BenchScene::CubeGrid => Some(bench_scenes::cube_grid_camera(half, frame as f32 * 0.01)),
            // A walk up the street: newly uncovered objects every frame.
            BenchScene::City => Some(unbound_scenes::city::city_camera(
                run.instances,
                frame as f32,
            )),
            BenchScene::DrawBound
            | BenchScene::RasterBound
            | BenchScene::Crowd
            | BenchScene::CrowdStatic
            | BenchScene::Dense => None,
        };
        if let Some(camera) = camera {
            path.set_camera(&camera)?;
            if let Some(last) = last_frame.as_deref_mut() {
                last.camera = camera;
            }
        }
        let update = ms(start);
        let start = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        path.record_frame(&mut encoder)?;
        let record = ms(start);
        let start = Instant::now();
        gpu.queue.submit([encoder.finish()]);
        let submit = ms(start);
        let start = Instant::now();
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        let wall = submit + ms(start);
        let times = path.pass_times();
        if frame >= frames.warmup {
            samples.push(update, record, submit, wall, times);
        }
    }
    Ok(samples)
}

/// Per-frame samples (ms).
#[derive(Debug, Default)]
struct Samples {
    update: Vec<f64>,
    record: Vec<f64>,
    submit: Vec<f64>,
    total: Vec<f64>,
    frame: Vec<f64>,
    cull: Vec<f64>,
    draw: Vec<f64>,
    prepass: Vec<f64>,
    lights: Vec<f64>,
    output: Vec<f64>,
    pyramid: Vec<f64>,
    late_cull: Vec<f64>,
    animation: Vec<f64>,
    shadows: Vec<f64>,
    span: Vec<f64>,
    lead: Vec<f64>,
    light_lists: Vec<LightListStats>,
}

impl Samples {
    fn push(&mut self, update: f64, record: f64, submit: f64, frame: f64, times: PassTimes) {
        self.update.push(update);
        self.record.push(record);
        self.submit.push(submit);
        self.total.push(update + record + submit);
        self.frame.push(frame);
        self.cull.extend(times.cull_ms);
        self.draw.extend(times.draw_ms);
        self.prepass.extend(times.prepass_ms);
        self.lights.extend(times.lights_ms);
        self.output.extend(times.output_ms);
        self.pyramid.extend(times.pyramid_ms);
        self.late_cull.extend(times.late_cull_ms);
        self.animation.extend(times.animation_ms);
        self.shadows.extend(times.shadows_ms);
        self.span.extend(times.span_ms);
        self.lead.extend(times.lead_ms);
        self.light_lists.extend(times.light_lists);
    }

    /// The measured frames' cluster lists, if any came back.
    fn light_lists(&self, grid: Option<(ClusterGrid, u32)>) -> Option<LightLists> {
        let (grid, grown_frames) = grid?;
        let last = self.light_lists.last()?;
        let of = |f: fn(&LightListStats) -> f64| {
            Stat::of(&self.light_lists.iter().map(f).collect::<Vec<_>>())
        };
        Some(LightLists {
            grid: [grid.tiles_x, grid.tiles_y, grid.depth_slices],
            clusters: last.clusters,
            lit_clusters: of(|l| f64::from(l.lit_clusters)),
            mean_lights_per_lit_cluster: of(LightListStats::mean_lights_per_lit_cluster),
            max_lights_per_cluster: self
                .light_lists
                .iter()
                .map(|l| l.max_lights_per_cluster)
                .max()?,
            references_needed: of(|l| f64::from(l.references_needed)),
            references_capacity: last.references_capacity,
            overflowed_frames: self.light_lists.iter().filter(|l| l.overflowed()).count() as u32,
            max_lights_per_column: self
                .light_lists
                .iter()
                .map(|l| l.max_lights_per_column)
                .max()?,
            overflowed_columns: self
                .light_lists
                .iter()
                .map(|l| l.overflowed_columns)
                .max()?,
            measured_frames: self.light_lists.len() as u32,
            grown_frames,
            lights_per_point: 0.0,
            fragments: None,
        })
    }

    fn into_result(self, id: RunId, frames: FrameCounts, counters: Counters) -> RunResult {
        let optional = |v: &[f64]| (!v.is_empty()).then(|| Stat::of(v));
        RunResult {
            light_lists: self.light_lists(counters.light_grid),
            id,
            changed_per_frame: changes_per_frame(id.run.instances),
            frames: frames.measured,
            cpu_update_ms: Stat::of(&self.update),
            cpu_record_ms: Stat::of(&self.record),
            cpu_submit_ms: Stat::of(&self.submit),
            cpu_total_ms: Stat::of(&self.total),
            frame_ms: Stat::of(&self.frame),
            gpu_cull_ms: optional(&self.cull),
            gpu_draw_ms: optional(&self.draw),
            gpu_prepass_ms: optional(&self.prepass),
            gpu_lights_ms: optional(&self.lights),
            gpu_output_ms: optional(&self.output),
            gpu_pyramid_ms: optional(&self.pyramid),
            gpu_late_cull_ms: optional(&self.late_cull),
            gpu_animation_ms: optional(&self.animation),
            gpu_shadows_ms: optional(&self.shadows),
            span_ms: optional(&self.span),
            lead_ms: optional(&self.lead),
            visible_instances: counters.visible_instances,
            occlusion_counts: counters.occlusion,
            draws: counters.draws,
            triangles: counters.triangles,
            gpu_memory_bytes: counters.gpu_memory_bytes,
            cull_subgroups: counters.cull_subgroups,
            geometry: counters.geometry.map(str::to_owned),
            instances_per_ms: None,
            bandwidth_bound_ms: None,
            copy_bandwidth_bytes_per_s: None,
            small_triangles: None,
            clusters: counters.clusters,
        }
    }
}
