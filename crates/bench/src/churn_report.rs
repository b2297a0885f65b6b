//! What `--texture-churn` reports (`churn.rs` measures it): the JSON's
//! types and the markdown table, one row per heap and size.

use serde::Serialize;

use crate::results::Stat;

/// One series: CPU wall time per iteration, ms.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Series {
    /// Recorded iterations (fewer than asked past `churn::SERIES_LIMIT_S`).
    pub iterations: u32,
    /// The iteration's calls together.
    pub total_ms: Stat,
    pub add_ms: Option<Stat>,
    pub remove_ms: Option<Stat>,
    /// Recording the frame (`render` and `CommandEncoder::finish`).
    pub record_ms: Option<Stat>,
    /// Submission to the device's idle.
    pub submit_to_idle_ms: Option<Stat>,
    /// Times the heap's bind group was built during the series.
    pub rebuilds: u64,
}

/// One heap at one size.
#[derive(Clone, Debug, Serialize)]
pub struct ChurnRun {
    /// `paged` or `bindless`.
    pub heap: String,
    pub textures: u32,
    /// Why it did not run, if it did not.
    pub skipped: Option<String>,
    /// The edge of the textures the heap was filled with (see the module
    /// docs).
    pub filler_size: u32,
    /// `Renderer::new`, s.
    pub renderer_s: f64,
    /// The fill's add calls, s.
    pub fill_add_s: f64,
    /// The fill's waits for the device, s.
    pub fill_wait_s: f64,
    /// The first frame, record and submit to idle, s.
    pub fill_frame_s: f64,
    /// Pages after the fill (paged heap).
    pub pages: u32,
    pub add_remove: Option<Series>,
    pub add_frame_remove: Option<Series>,
    pub frame: Option<Series>,
}

impl ChurnRun {
    /// `textures` in `heap`, filled with `filler_size`² textures, before
    /// anything is measured.
    pub fn unmeasured(heap: &str, textures: u32, filler_size: u32) -> Self {
        Self {
            heap: heap.into(),
            textures,
            skipped: None,
            filler_size,
            renderer_s: 0.0,
            fill_add_s: 0.0,
            fill_wait_s: 0.0,
            fill_frame_s: 0.0,
            pages: 0,
            add_remove: None,
            add_frame_remove: None,
            frame: None,
        }
    }
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct ChurnReport {
    pub date: String,
    pub adapter: String,
    pub backend: String,
    /// The renderer's tier (the heap setting applies on tiers A and B).
    pub tier: String,
    /// The edge of the texture added and removed.
    pub texture_size: u32,
    /// Recorded iterations asked for per series, after `warmup`
    /// unrecorded: before add + remove, and before each series with a
    /// frame.
    pub iterations: u32,
    pub warmup: [u32; 2],
    /// Adds between two waits for the device while filling.
    pub fill_batch: u32,
    pub runs: Vec<ChurnRun>,
}

/// A run in one line, for the progress output.
pub fn summary(run: &ChurnRun) -> String {
    let median =
        |s: &Option<Series>| s.map_or("n/a".into(), |s| format!("{:.4}", s.total_ms.median));
    match &run.skipped {
        Some(reason) => format!("  skipped: {reason}"),
        None => format!(
            "  filled in {:.2} s (adds {:.2} s, waits {:.2} s, first frame {:.2} s); medians: add + remove {} ms, add + frame + remove {} ms, frame {} ms",
            run.fill_add_s + run.fill_wait_s + run.fill_frame_s,
            run.fill_add_s,
            run.fill_wait_s,
            run.fill_frame_s,
            median(&run.add_remove),
            median(&run.add_frame_remove),
            median(&run.frame)
        ),
    }
}

/// Prints [`table`]; writes the JSON to `json` where asked (`--plot`,
/// given as `plot`, draws nothing here: a word on stderr).
pub fn publish(
    report: &ChurnReport,
    json: Option<&std::path::Path>,
    plot: Option<&std::path::Path>,
) -> Result<(), String> {
    print!("{}", table(report));
    if let Some(path) = plot {
        eprintln!(
            "{}: not written, --texture-churn draws no plot",
            path.display()
        );
    }
    json.map_or(Ok(()), |path| write_json(report, path))
}

/// Writes the report as JSON to `path`.
pub fn write_json(report: &ChurnReport, path: &std::path::Path) -> Result<(), String> {
    let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}

fn fmt_stat(stat: Option<Stat>) -> String {
    stat.map_or("n/a".into(), |s| {
        format!("{:.4} ({:.4}–{:.4})", s.median, s.p10, s.p90)
    })
}

/// The run as markdown: one row per heap and size.
pub fn table(report: &ChurnReport) -> String {
    let mut out = format!(
        "Texture churn: one {size}² texture (mips generated) added and removed, on {} ({}), \
         tier {}, {}; {} iterations per series after {} (add + remove) or {} (with a frame) \
         unrecorded. CPU wall time per iteration, ms, median (p10–p90). Fill: the heap's \
         textures added (s), the waits for the device between batches of {} (s), the first \
         frame (s). Iterations recorded per series (add + remove / with a frame / frame \
         alone; fewer past a series' time limit) and bind-group builds during the first two.\n\n",
        report.adapter,
        report.backend,
        report.tier,
        report.date,
        report.iterations,
        report.warmup[0],
        report.warmup[1],
        report.fill_batch,
        size = report.texture_size,
    );
    out += "| heap | textures | fill s: adds + waits + frame | pages | add + remove | add | remove \
            | add + frame + remove | its frame: record / submit to idle | frame alone | iterations | rebuilds |\n";
    out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for run in &report.runs {
        let (Some(churn), Some(framed), Some(frame)) =
            (run.add_remove, run.add_frame_remove, run.frame)
        else {
            let reason = run.skipped.as_deref().unwrap_or("not measured");
            out += &format!(
                "| {} | {} | skipped: {reason} | | | | | | | | | |\n",
                run.heap, run.textures
            );
            continue;
        };
        let median = |s: Option<Stat>| s.map_or("n/a".into(), |s| format!("{:.3}", s.median));
        out += &format!(
            "| {} | {} | {:.2} + {:.2} + {:.2} | {} | {} | {} | {} | {} | {} / {} | {} | {} / {} / {} | {} / {} |\n",
            run.heap,
            run.textures,
            run.fill_add_s,
            run.fill_wait_s,
            run.fill_frame_s,
            run.pages,
            fmt_stat(Some(churn.total_ms)),
            fmt_stat(churn.add_ms),
            fmt_stat(churn.remove_ms),
            fmt_stat(Some(framed.total_ms)),
            median(framed.record_ms),
            median(framed.submit_to_idle_ms),
            fmt_stat(Some(frame.total_ms)),
            churn.iterations,
            framed.iterations,
            frame.iterations,
            churn.rebuilds,
            framed.rebuilds,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_run_keeps_its_row() {
        let report = ChurnReport {
            date: "2026-12-02".into(),
            adapter: "test".into(),
            backend: "Vulkan".into(),
            tier: "A".into(),
            texture_size: 64,
            iterations: 1,
            warmup: [100, 5],
            fill_batch: 4096,
            runs: vec![ChurnRun {
                skipped: Some("the device binds 16 2D textures".into()),
                ..ChurnRun::unmeasured("bindless", 100_000, 1)
            }],
        };
        let text = table(&report);
        assert!(text.contains("| bindless | 100000 | skipped: the device binds 16 2D textures |"));
        let columns = |line: &str| line.matches('|').count();
        let lines: Vec<_> = text.lines().filter(|l| l.starts_with('|')).collect();
        assert!(
            lines.iter().all(|l| columns(l) == columns(lines[0])),
            "{text}"
        );
    }
}
