//! `unbound-bench`: unbound's GPU-driven bindless frame against the classic
//! bind-per-draw loop, side by side, on the fixed scenes of
//! `unbound_scenes::bench`. See `docs/PERFORMANCE.md` for the method.
//!
//! ```text
//! unbound-bench [--quick] [--scenes draw-bound,raster-bound,cube-grid,city,crowd,crowd-static]
//!               [--sizes 1000,10000,100000,1000000] [--frames 20] [--warmup 5]
//!               [--cull-only 4194304] [--switches] [--tiers] [--paths unbound,baseline]
//!               [--json out.json] [--plot out.png] [--adapter NAME] [--backend vulkan]
//!               [--count-small-triangles] [--date YYYY-MM-DD]
//!               [--textures 16,4096 [--sampled-textures N]] [--texture-budget MIB]
//! unbound-bench --streaming [512x1024] [--texture-budget 256] [--frames 60] [--json out.json]
//! unbound-bench --texture-churn [16,4096,100000] [--churn-iterations 200]
//!               [--texture-heap paged|bindless] [--json out.json]
//! unbound-bench --report-from a.json[,b.json] [--json merged.json] [--plot out.png]
//! ```
//!
//! - `cli`: the command line;
//! - `runs`: the options, the kinds of run, which ones the options ask for;
//! - `driver`: every planned run measured on each path, into one report;
//! - `measure`: the one measurement loop over either render path;
//! - `paths`: unbound's and the baseline's render paths;
//! - `crowd`: the crowd scenes' path (animated Foxes, or the same static);
//! - `drawn`: what the camera drew in the last frame, read back;
//! - `small_triangles`: how many of its triangles cover under a pixel
//!   (`--count-small-triangles`);
//! - `gpu`: devices, render targets, the adapter's copy bandwidth;
//! - `results`: results as saved in JSON, merging saved files; `counts`:
//!   what a frame's culling counted;
//! - `report`: the markdown tables; `plot`: the PNG;
//! - `streaming`: the streaming scene under a texture budget
//!   (`--streaming`), its own table and JSON;
//! - `churn`: adding and removing one texture in heaps of growing size
//!   (`--texture-churn`); `churn_report`: its table and JSON.

mod churn;
mod churn_report;
mod cli;
mod counts;
mod crowd;
mod drawn;
mod driver;
mod fragments;
mod gpu;
mod measure;
mod paths;
mod plot;
mod report;
mod results;
mod runs;
mod small_triangles;
mod streaming;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let result = match Cli::parse().command() {
        Command::Run(options, outputs) => {
            driver::measure_all(&options).and_then(|report| report::publish(&report, &outputs))
        }
        Command::ReportFrom(files, outputs) => {
            results::merge(&files).and_then(|report| report::publish(&report, &outputs))
        }
        Command::TextureChurn(options, outputs) => {
            let (json, plot) = (outputs.json.as_deref(), outputs.plot.as_deref());
            let write =
                |report: &_| json.map_or(Ok(()), |path| churn_report::write_json(report, path));
            churn::measure_churn(&options, write)
                .and_then(|report| churn_report::publish(&report, json, plot))
        }
        Command::Streaming(options, outputs) => {
            streaming::measure_streaming(&options).and_then(|report| {
                streaming::publish(&report, outputs.json.as_deref(), outputs.plot.as_deref())
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
