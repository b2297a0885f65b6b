//! The driver: every run the options plan, measured on each render path
//! (`measure.rs`), with the cull-only runs' bandwidth bound, gathered into
//! one [`Report`].

use std::time::Instant;

use unbound_scenes::bench as bench_scenes;

use crate::gpu::{self, Gpus};
use crate::measure::measure_run;
use crate::results::{Report, RunId, RunResult};
use crate::runs::{RenderPath, RunKind, RunOptions, cull_traffic_bytes, plan, with_lights};

/// A cull-only result's throughput, and its bandwidth bound at the
/// adapter's measured copy bandwidth (when both could be measured).
fn add_cull_bound(result: &mut RunResult, copy_bandwidth_bytes_per_s: Option<f64>) {
    let Some(cull) = &result.gpu_cull_ms else {
        return;
    };
    let instances = result.id.run.instances;
    result.instances_per_ms = Some(f64::from(instances) / cull.median);
    if let Some(bandwidth) = copy_bandwidth_bytes_per_s {
        let bytes = cull_traffic_bytes(instances, result.visible_instances);
        result.bandwidth_bound_ms = Some(bytes / bandwidth * 1e3);
        result.copy_bandwidth_bytes_per_s = Some(bandwidth);
    }
}

/// Runs everything `options` ask for.
pub fn measure_all(options: &RunOptions) -> Result<Report, String> {
    let mut gpus = Gpus::new(options.choice.clone());
    let mut report = Report {
        date: options.date.clone(),
        settings: format!(
            "frames {} after {} warm-up; 1% of instances (at least 1) moved per frame; frame = submit to completion (device poll); \
             CPU total = update + record + finish/submit; unbound with indirect count unless noted; unbound's depth pre-pass {}; unbound's cluster culling {}; release build",
            options.frames.measured,
            options.frames.warmup,
            match (options.geometry.0, options.depth_prepass) {
                // The visibility pass is the pre-pass (ids and depth).
                (unbound::Geometry::Visibility, _) =>
                    "replaced by the visibility pass where it runs",
                (unbound::Geometry::Forward, true) => "on",
                (unbound::Geometry::Forward, false) => "off",
            },
            match options.cluster_culling {
                (false, _) => "off",
                (true, true) => "on, triangles filtered",
                (true, false) => "on, triangles unfiltered",
            }
        ),
        ..Default::default()
    };
    for run in plan(options) {
        let paths: Vec<RenderPath> = options
            .paths
            .iter()
            .copied()
            .filter(|&p| run.measures(p))
            .collect();
        if paths.is_empty() {
            continue;
        }
        let gpu = gpus.get(run.validation_indirect_call())?;
        if report.adapter.is_empty() {
            report.describe_adapter(&gpu.adapter.get_info());
            eprintln!(
                "adapter: {} ({}), driver {} {}",
                report.adapter, report.backend, report.driver, report.driver_info
            );
            let round_trip = gpu::submit_round_trip_ms(gpu)?;
            eprintln!("submit round trip: {round_trip:.3} ms");
            report.submit_round_trip_ms = Some(round_trip);
        }
        let copy_bandwidth = if run.kind == RunKind::CullOnly {
            let bandwidth = gpu::copy_bandwidth(gpu)?;
            match bandwidth {
                Some(b) => eprintln!("copy bandwidth: {:.1} GB/s read + written", b / 1e9),
                None => eprintln!("copy bandwidth: not measured (no timestamp queries)"),
            }
            bandwidth
        } else {
            None
        };
        let started = Instant::now();
        let scene = with_lights(
            bench_scenes::build_sampling(
                run.scene(),
                run.instances,
                (run.textures(), run.sampled_textures()),
            ),
            run.lights(),
        );
        for path in paths {
            let mut result = measure_run(gpu, &scene, run, path, options)?;
            if run.kind == RunKind::CullOnly {
                add_cull_bound(&mut result, copy_bandwidth);
            }
            print_progress(&result, started);
            report.results.push(result);
        }
    }
    Ok(report)
}

fn print_progress(result: &RunResult, started: Instant) {
    let RunId {
        run,
        path,
        occlusion,
        lod,
        depth_prepass,
        debug_view,
    } = result.id;
    eprintln!(
        "{:>12} {:>8}{}{}{}{}{} {:>8} {:>5} {:>5} textures {:>4}: cpu {:8.3} ms, frame {:8.3} ms ({:.1} s)",
        run.scene_name(),
        path.name(),
        if run.shadows { " shadows" } else { "" },
        if occlusion { " occlusion" } else { "" },
        if lod { " lod" } else { "" },
        if depth_prepass { " prepass" } else { "" },
        crate::report::view_suffix(debug_view),
        run.instances,
        crate::results::indirect_name(run.indirect()),
        if run.validation_indirect_call() {
            "val"
        } else {
            "noval"
        },
        run.heap_label(),
        result.cpu_total_ms.median,
        result.frame_ms.median,
        started.elapsed().as_secs_f64()
    );
}
