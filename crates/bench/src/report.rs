//! The report as markdown tables (the generated sections of
//! docs/PERFORMANCE.md, byte for byte), and writing it out.

use std::fmt::Write as _;

use unbound::{DebugView, IndirectMode};
use unbound_scenes::bench::BenchScene;

use crate::cli::Outputs;
use crate::results::{Report, RunResult, Stat, indirect_name};
use crate::runs::{RenderPath, RunKind};

/// Prints the tables, then writes the JSON and the plot if asked.
pub fn publish(report: &Report, outputs: &Outputs) -> Result<(), String> {
    print!("{}", markdown(report));
    if let Some(path) = &outputs.json {
        let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &outputs.plot {
        crate::plot::draw_plot(report, path)?;
    }
    Ok(())
}

fn fmt_stat(s: &Stat) -> String {
    format!("{:.3} ({:.3}–{:.3})", s.median, s.p10, s.p90)
}

fn fmt_opt(s: &Option<Stat>) -> String {
    s.as_ref()
        .map_or("n/a".into(), |s| format!("{:.3}", s.median))
}

/// One decimal, or two significant digits below 1 (software adapters copy
/// at a few GB/s).
fn fmt_tb_per_s(tb_per_s: f64) -> String {
    if tb_per_s >= 0.95 || tb_per_s <= 0.0 {
        format!("{tb_per_s:.1}")
    } else {
        let decimals = 1 - tb_per_s.log10().floor() as i32;
        format!("{tb_per_s:.*}", decimals.max(1) as usize)
    }
}

fn memory_mib(r: &RunResult) -> f64 {
    r.gpu_memory_bytes as f64 / 1048576.0
}

/// The cells the main and tier tables end with: CPU total, CPU record,
/// frame, GPU cull, GPU draw and memory.
fn timing_cells(r: &RunResult) -> String {
    format!(
        "{} | {:.3} | {} | {} | {} | {:.1}",
        fmt_stat(&r.cpu_total_ms),
        r.cpu_record_ms.median,
        fmt_stat(&r.frame_ms),
        fmt_opt(&r.gpu_cull_ms),
        fmt_opt(&r.gpu_draw_ms),
        memory_mib(r)
    )
}

fn kind(r: &RunResult) -> RunKind {
    r.id.run.kind
}

/// What a run's line or row adds when its frames drew a debug view
/// (`--debug-view`): ` (normals view)`; nothing for the lit view.
pub fn view_suffix(view: DebugView) -> String {
    match view {
        DebugView::Lit => String::new(),
        view => format!(" ({} view)", view.name()),
    }
}

/// The scene's name, with the debug view its frames drew.
fn scene_cell(r: &RunResult) -> String {
    r.id.run.scene_name().to_owned() + &view_suffix(r.id.debug_view)
}

/// The report as markdown: the main table, then the switches, the tiers and
/// the cull-only runs where there are any.
pub fn markdown(report: &Report) -> String {
    let round_trip = report
        .submit_round_trip_ms
        .map(|ms| {
            format!("; an almost empty submission's round trip (submit to completion) {ms:.3} ms")
        })
        .unwrap_or_default();
    let mut out = format!(
        "Adapter: {} ({}, {}), driver {} {}; date {}.\n{}{round_trip}.\n\n",
        report.adapter,
        report.backend,
        report.device_type,
        report.driver,
        report.driver_info,
        report.date,
        report.settings
    );
    main_table(&mut out, report);
    switches_table(&mut out, report);
    tiers_table(&mut out, report);
    lights_table(&mut out, report);
    shadows_table(&mut out, report);
    occlusion_table(&mut out, report);
    small_triangles_table(&mut out, report);
    crowd_table(&mut out, report);
    for r in report
        .results
        .iter()
        .filter(|r| kind(r) == RunKind::CullOnly && !r.id.run.shadows)
    {
        cull_only_line(&mut out, r);
        let shadowed = report.results.iter().find(|s| {
            s.id.debug_view == r.id.debug_view
                && s.id.run
                    == crate::runs::Run {
                        shadows: true,
                        ..r.id.run
                    }
        });
        if let Some(shadowed) = shadowed {
            cull_with_cascades_line(&mut out, r, shadowed);
        }
    }
    out
}

/// The crowd runs (unbound): the animation pass's GPU time, and each
/// animated run's CPU time over the same crowd's static one.
fn crowd_table(out: &mut String, report: &Report) {
    let crowd = |r: &&RunResult| matches!(kind(r), RunKind::Frame(s) if s.is_crowd());
    let rows: Vec<&RunResult> = report
        .results
        .iter()
        .filter(crowd)
        .filter(|r| !r.id.run.shadows && r.id.path == RenderPath::Unbound)
        .collect();
    if rows.is_empty() {
        return;
    }
    *out += "\nCrowd (unbound; Foxes playing their clips, or the same crowd static; CPU animated / static: CPU total over the static run's at the same count):\n\n| scene | instances | visible | triangles | CPU total ms (p10–p90) | CPU update ms | frame ms (p10–p90) | GPU animation ms | GPU cull ms | GPU draw ms | memory MiB | CPU animated / static |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for r in &rows {
        let run = r.id.run;
        let static_run = rows.iter().find(|s| {
            kind(s) == RunKind::Frame(BenchScene::CrowdStatic)
                && s.id.run.instances == run.instances
                && s.id.debug_view == r.id.debug_view
        });
        let ratio = match (run.kind, static_run) {
            (RunKind::Frame(BenchScene::Crowd), Some(s)) => {
                format!("{:.2}", r.cpu_total_ms.median / s.cpu_total_ms.median)
            }
            _ => "".into(),
        };
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.3} | {} | {} | {} | {} | {:.1} | {} |",
            scene_cell(r),
            run.instances,
            r.visible_instances,
            r.triangles,
            fmt_stat(&r.cpu_total_ms),
            r.cpu_update_ms.median,
            fmt_stat(&r.frame_ms),
            fmt_opt(&r.gpu_animation_ms),
            fmt_opt(&r.gpu_cull_ms),
            fmt_opt(&r.gpu_draw_ms),
            memory_mib(r),
            ratio
        )
        .expect("writing to a String");
    }
}

/// The frame runs measured with shadows, beside the same runs without.
fn shadows_table(out: &mut String, report: &Report) {
    let pairs: Vec<(&RunResult, &RunResult)> = report
        .results
        .iter()
        .filter(|r| r.id.run.shadows && matches!(kind(r), RunKind::Frame(_)))
        .filter_map(|on| {
            let off = crate::runs::Run {
                shadows: false,
                ..on.id.run
            };
            let off = report.results.iter().find(|r| {
                r.id.run == off && r.id.path == on.id.path && r.id.debug_view == on.id.debug_view
            })?;
            Some((off, on))
        })
        .collect();
    if pairs.is_empty() {
        return;
    }
    *out += "\nShadows (unbound, 4 cascades of 2048²; the frame includes the shadow pass, GPU draw is the camera's draw pass alone):\n\n| scene | instances | frame ms, off | frame ms, on | on / off | GPU cull ms, off | GPU cull ms, on | GPU draw ms, off | GPU draw ms, on | GPU shadows ms | memory MiB, on |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (off, on) in pairs {
        writeln!(
            out,
            "| {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {:.1} |",
            scene_cell(on),
            on.id.run.instances,
            fmt_stat(&off.frame_ms),
            fmt_stat(&on.frame_ms),
            on.frame_ms.median / off.frame_ms.median,
            fmt_opt(&off.gpu_cull_ms),
            fmt_opt(&on.gpu_cull_ms),
            fmt_opt(&off.gpu_draw_ms),
            fmt_opt(&on.gpu_draw_ms),
            fmt_opt(&on.gpu_shadows_ms),
            memory_mib(on)
        )
        .expect("writing to a String");
    }
}

/// unbound's frame runs with their occlusion statistics (results from
/// before them have none, and no table): what each phase drew of the
/// instances in the frustum in the last frame, and the passes' GPU times.
/// The pre-pass column: the visibility pass where it ran (it is the
/// pre-pass then: depth and ids), else whether the depth pre-pass did.
fn prepass_cell(r: &RunResult) -> &'static str {
    match (r.geometry.as_deref(), r.id.depth_prepass) {
        (Some("visibility"), _) => "visibility",
        (_, true) => "on",
        (_, false) => "off",
    }
}

fn occlusion_table(out: &mut String, report: &Report) {
    let rows: Vec<(&RunResult, crate::counts::OcclusionCounts)> = report
        .results
        .iter()
        .filter_map(|r| Some((r, r.occlusion_counts?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    *out += "\nOcclusion culling (unbound; counts of the last frame: visible = in the frustum = drawn early + drawn late + occluded):\n\n| scene | instances | shadows | occlusion | pre-pass | visible | drawn early | drawn late | occluded | triangles | frame ms (p10–p90) | GPU cull ms | GPU pyramid ms | GPU late cull ms | GPU pre-pass ms | GPU draw ms | shadow casters per cascade: drawn (late) / occluded |\n| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
    let on_off = |on: bool| if on { "on" } else { "off" };
    for (r, counts) in rows {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            scene_cell(r),
            r.id.run.instances,
            on_off(r.id.run.shadows),
            on_off(r.id.occlusion),
            prepass_cell(r),
            r.visible_instances,
            counts.early_instances,
            counts.late_instances,
            counts.occluded_instances,
            r.triangles,
            fmt_stat(&r.frame_ms),
            fmt_opt(&r.gpu_cull_ms),
            fmt_opt(&r.gpu_pyramid_ms),
            fmt_opt(&r.gpu_late_cull_ms),
            fmt_opt(&r.gpu_prepass_ms),
            fmt_opt(&r.gpu_draw_ms),
            cascade_casters(&counts.cascade_casters)
        )
        .expect("writing to a String");
    }
}

/// Each drawn cascade's casters as `drawn (late) / occluded`, `n/a`
/// without any.
fn cascade_casters(cascades: &[[u32; 3]; 4]) -> String {
    let drawn: Vec<String> = cascades
        .iter()
        .filter(|c| c.iter().any(|&n| n > 0))
        .map(|[drawn, late, occluded]| format!("{drawn} ({late}) / {occluded}"))
        .collect();
    if drawn.is_empty() {
        "n/a".to_string()
    } else {
        drawn.join(", ")
    }
}

/// unbound's frame runs with `--count-small-triangles`: the last frame's
/// triangles by what became of them and by area on screen.
fn small_triangles_table(out: &mut String, report: &Report) {
    let rows: Vec<(&RunResult, crate::small_triangles::SmallTriangles)> = report
        .results
        .iter()
        .filter_map(|r| Some((r, r.small_triangles?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    *out += "\nSmall triangles (unbound, the last frame's drawn instances; submitted = outside the clip volume + crossing the near or far plane + back-facing + rasterized; areas in pixels; a pixel centre on an edge counts as covered):\n\n| scene | instances | shadows | occlusion | drawn instances | submitted | outside | clipped | back-facing | rasterized | under 1 px | no pixel centre | < 0.1 px | 0.1–1 px | 1–4 px | 4–16 px | ≥ 16 px |\n| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    let on_off = |on: bool| if on { "on" } else { "off" };
    for (r, t) in rows {
        let share = |n: u64| format!("{n} ({:.1}%)", 100.0 * n as f64 / t.drawn.max(1) as f64);
        let [tiny, under, small, medium, large] = t.histogram;
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {tiny} | {under} | {small} | {medium} | {large} |",
            scene_cell(r),
            r.id.run.instances,
            on_off(r.id.run.shadows),
            on_off(r.id.occlusion),
            t.instances,
            t.submitted,
            t.outside,
            t.clipped,
            t.back_facing,
            t.drawn,
            share(t.under_1px),
            share(t.no_sample),
        )
        .expect("writing to a String");
    }
}

/// The cull pass for the camera and 4 cascades against the camera alone
/// (the goal: under 2x).
fn cull_with_cascades_line(out: &mut String, camera: &RunResult, cascades: &RunResult) {
    let median = |r: &RunResult| r.gpu_cull_ms.map_or(f64::NAN, |c| c.median);
    writeln!(
        out,
        "\nCull with 4 shadow cascades: {} instances; GPU cull {} ms against {} ms for the camera alone ({:.2}x).",
        cascades.id.run.instances,
        fmt_opt(&cascades.gpu_cull_ms),
        fmt_opt(&camera.gpu_cull_ms),
        median(cascades) / median(camera)
    )
    .expect("writing to a String");
}

/// Every scene, size and heap size on both paths (indirect count,
/// indirect-call validation on, tier A; the heap sizes on every tier measured).
fn main_table(out: &mut String, report: &Report) {
    *out += "| scene | path | instances | textures | draws | visible | triangles | CPU total ms (p10–p90) | CPU record ms | frame ms (p10–p90) | GPU cull ms | GPU draw ms | memory MiB |\n";
    *out += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    let rows = report.results.iter().filter(|r| {
        matches!(kind(r), RunKind::Frame(_) | RunKind::HeapSwitch { .. }) && !r.id.run.shadows
    });
    for r in rows {
        let run = r.id.run;
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            scene_cell(r),
            r.id.path.name(),
            run.instances,
            run.heap_label(),
            r.draws,
            r.visible_instances,
            r.triangles,
            timing_cells(r)
        )
        .expect("writing to a String");
    }
}

/// The unbound path's indirect switches.
fn switches_table(out: &mut String, report: &Report) {
    let switches: Vec<(IndirectMode, bool, &RunResult)> = report
        .results
        .iter()
        .filter(|r| r.id.path == RenderPath::Unbound)
        .filter_map(|r| match kind(r) {
            RunKind::IndirectSwitch {
                indirect,
                validation_indirect_call,
            } => Some((indirect, validation_indirect_call, r)),
            _ => None,
        })
        .collect();
    if switches.is_empty() {
        return;
    }
    *out += "\nSwitches (draw-bound, unbound):\n\n| indirect | indirect-call validation | instances | draws | CPU total ms | CPU record ms | frame ms | GPU draw ms |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (indirect, validation_indirect_call, r) in switches {
        writeln!(
            out,
            "| {}{} | {} | {} | {} | {} | {:.3} | {} | {} |",
            indirect_name(indirect),
            view_suffix(r.id.debug_view),
            if validation_indirect_call {
                "on"
            } else {
                "off"
            },
            r.id.run.instances,
            r.draws,
            fmt_stat(&r.cpu_total_ms),
            r.cpu_record_ms.median,
            fmt_stat(&r.frame_ms),
            fmt_opt(&r.gpu_draw_ms)
        )
        .expect("writing to a String");
    }
}

/// The lower tiers forced.
fn tiers_table(out: &mut String, report: &Report) {
    let tiers: Vec<_> = report
        .results
        .iter()
        .filter_map(|r| match kind(r) {
            RunKind::Tier(tier) => Some((tier, r)),
            _ => None,
        })
        .collect();
    if tiers.is_empty() {
        return;
    }
    *out += "\nTiers (draw-bound, unbound; tier A is the main table's row):\n\n| tier | instances | draws | visible | CPU total ms (p10–p90) | CPU record ms | frame ms (p10–p90) | GPU cull ms | GPU draw ms | memory MiB |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (tier, r) in tiers {
        writeln!(
            out,
            "| {tier:?}{} | {} | {} | {} | {} |",
            view_suffix(r.id.debug_view),
            r.id.run.instances,
            r.draws,
            r.visible_instances,
            timing_cells(r)
        )
        .expect("writing to a String");
    }
}

/// The lights runs beside the draw-bound run of the same size without
/// lights (unbound).
fn lights_table(out: &mut String, report: &Report) {
    let unbound = report
        .results
        .iter()
        .filter(|r| r.id.path == RenderPath::Unbound);
    let mut rows: Vec<(u32, &RunResult)> = unbound
        .clone()
        .filter_map(|r| match kind(r) {
            RunKind::Lights { lights } => Some((lights, r)),
            _ => None,
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    for r in unbound.filter(|r| kind(r) == RunKind::Frame(BenchScene::DrawBound)) {
        if rows.iter().any(|(_, l)| {
            l.id.run.instances == r.id.run.instances && l.id.debug_view == r.id.debug_view
        }) {
            rows.push((0, r));
        }
    }
    rows.sort_by_key(|(lights, r)| {
        let view = r.id.debug_view as u32;
        (r.id.run.instances, r.id.depth_prepass, view, *lights)
    });
    *out += "
Point lights (draw-bound, unbound; 0 lights is the main table's row):

| lights | instances | pre-pass | visible | CPU total ms (p10–p90) | CPU record ms | frame ms (p10–p90) | GPU cull ms | GPU lights ms | GPU pre-pass ms | GPU draw ms | memory MiB | grid | lights per lit cluster (mean, max) | reach a point | references needed / held | overflowed frames | lights per fragment: looped / reaching (sampled) |
| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
";
    for (lights, r) in rows {
        let lists = r
            .light_lists
            .map_or("| — | — | — | — | — | — |".to_owned(), |l| {
                let fragments = l.fragments.map_or("—".to_owned(), |f| {
                    format!("{:.1} / {:.1}", f.mean_looped, f.mean_reaching)
                });
                format!(
                    "| {}×{}×{} | {:.1}, {} | {:.1} | {:.0} / {} | {} of {} | {fragments} |",
                    l.grid[0],
                    l.grid[1],
                    l.grid[2],
                    l.mean_lights_per_lit_cluster.median,
                    l.max_lights_per_cluster,
                    l.lights_per_point,
                    l.references_needed.median,
                    l.references_capacity,
                    l.overflowed_frames,
                    l.measured_frames
                )
            });
        writeln!(
            out,
            "| {lights}{} | {} | {} | {} | {} | {:.3} | {} | {} | {} | {} | {} | {:.1} {lists}",
            view_suffix(r.id.debug_view),
            r.id.run.instances,
            prepass_cell(r),
            r.visible_instances,
            fmt_stat(&r.cpu_total_ms),
            r.cpu_record_ms.median,
            fmt_stat(&r.frame_ms),
            fmt_opt(&r.gpu_cull_ms),
            fmt_opt(&r.gpu_lights_ms),
            fmt_opt(&r.gpu_prepass_ms),
            fmt_opt(&r.gpu_draw_ms),
            memory_mib(r)
        )
        .expect("writing to a String");
    }
}

/// A cull-only run against its bandwidth bound.
fn cull_only_line(out: &mut String, r: &RunResult) {
    writeln!(
        out,
        "\nCull only{}: {} instances, {} visible{}; GPU cull {} ms; {:.0} instances/ms; bandwidth bound {:.4} ms at {} TB/s ({:.1}x of bound).",
        view_suffix(r.id.debug_view),
        r.id.run.instances,
        r.visible_instances,
        match r.cull_subgroups {
            Some(true) => ", subgroups",
            Some(false) => ", no subgroups",
            None => "",
        },
        fmt_opt(&r.gpu_cull_ms),
        r.instances_per_ms.unwrap_or(0.0),
        r.bandwidth_bound_ms.unwrap_or(0.0),
        fmt_tb_per_s(r.copy_bandwidth_bytes_per_s().unwrap_or(0.0) / 1e12),
        r.gpu_cull_ms.map_or(0.0, |c| c.median) / r.bandwidth_bound_ms.unwrap_or(f64::NAN)
    )
    .expect("writing to a String");
}

#[cfg(test)]
mod tests {
    use super::fmt_tb_per_s;

    #[test]
    fn bandwidth_keeps_two_significant_digits() {
        assert_eq!(fmt_tb_per_s(4.3), "4.3");
        assert_eq!(fmt_tb_per_s(0.25), "0.25");
        assert_eq!(fmt_tb_per_s(0.0133), "0.013");
        assert_eq!(fmt_tb_per_s(0.0), "0.0");
    }
}
