//! `--texture-churn`: adding and removing one texture in heaps of 16 to
//! 100,000 textures, on the paged heap and the bindless one side by side
//! (and tier C's texture arrays with `--churn-tier-c`)
//! (issue 30: one add or remove at 100k slots costs at most 0.1 ms of CPU,
//! whatever the heap's size). The criterion benchmark of the same
//! (`benches/cpu.rs`) needs a Rust toolchain and spends most of its time
//! filling the heap; this mode runs from the release binary alone and
//! reports the fill.
//!
//! For each heap and size, the heap is filled (below), one frame renders
//! it, then three series of `--churn-iterations` iterations (after
//! [`WARMUP_WITHOUT_FRAME`] or [`WARMUP`] unrecorded ones), every call
//! timed on its own wall clock:
//! - *add + remove*: `Renderer::add_texture` of one 64² texture (mips
//!   generated) and `Renderer::remove_texture`, no frame between: the
//!   paged heap allocates a layer and queues its write, the remove drops
//!   the write; the bindless heap creates the texture, uploads it and
//!   submits its mips at once, and each call drops the bind group;
//! - *add + frame + remove*: the same with a frame between, recorded
//!   (`render` and `CommandEncoder::finish`), submitted and waited for: on
//!   the paged heap it records the layer's write and mips, on the bindless
//!   one it rebuilds the bind group over every bound texture;
//! - *frame*: the frame alone, nothing added, for the difference.
//!
//! A series stops early past [`SERIES_LIMIT_S`] (the bindless heap's frame
//! at 100,000 textures); the report gives the iterations it ran.
//!
//! The fill is what made the criterion benchmark slow: every texture the
//! paged heap takes becomes a layer written with its own
//! `Queue::write_texture` (a staging buffer each) and six mip passes (a
//! render pass, two views and a bind group each), 600,000 passes at
//! 100,000 textures, recorded in batches of 64 MiB of texels that the heap
//! submits itself. The public API has no cheaper way in: a texture smaller
//! than 64² is resampled into a 64² layer (one more texture and pass),
//! and `Mips::None` still gets the layer's chain. So the paged heap is
//! filled with 64² textures, the device waited for after every
//! [`FILL_BATCH`] adds (one of the heap's submissions) so that memory
//! stays bounded; the bindless heap with 1×1 textures without mips (one
//! texture and one `write_texture` each, no pass: its add cost depends on
//! how many textures it binds, not their size). Reported: the time in the
//! add calls, in the waits, and in the first frame (record and submit to
//! idle), which writes what is still queued and builds the bind group.

use std::time::Instant;

use unbound::{Capacities, Mips, Renderer, RendererConfig, TextureDesc, TextureHeap, Tier};
use unbound_harness::{AdapterChoice, Gpu, RenderTargets};

use crate::churn_report::{ChurnReport, ChurnRun, Series, summary};
use crate::gpu::{COLOR_FORMAT, Gpus};
use crate::results::Stat;

/// Unrecorded iterations before each series with a frame.
pub const WARMUP: u32 = 5;
/// Unrecorded iterations before the add + remove series: the first adds
/// after a large fill are slower for a while (on lavapipe, the first few
/// after 30,000 textures took 3 to 9 ms, then 0.3 µs; the process's
/// allocator meeting the freed texels of the fill, it seems).
pub const WARMUP_WITHOUT_FRAME: u32 = 100;
/// A series stops after this many seconds, whatever its iterations.
pub const SERIES_LIMIT_S: f64 = 10.0;
/// Adds between two waits for the device while filling: the paged heap
/// submits its queued writes every 64 MiB of texels, 4,096 64² textures.
pub const FILL_BATCH: u32 = 4096;
/// The edge of the texture added and removed.
pub const CHURN_SIZE: u32 = 64;

/// The command line's part for this mode (flattened into `Cli`).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ChurnArgs {
    /// Run only the texture churn: for each heap size, fill unbound's
    /// heap with that many textures, render a frame, then time adding and
    /// removing one 64² texture, without and with a frame between, on the
    /// paged and the bindless heap (`--texture-heap` picks one); JSON and
    /// a table with the fill times [default: 16,4096,100000].
    #[arg(long, value_name = "LIST", num_args = 0..=1, value_delimiter = ',',
          default_missing_values = ["16", "4096", "100000"], value_parser = parse_heap_size)]
    texture_churn: Option<Vec<u32>>,
    /// Recorded iterations of each texture-churn series [default: 200].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    churn_iterations: Option<u32>,
    /// Also churn tier C's texture arrays (tier C forced), at the sizes its
    /// arrays hold beside the churned layers (2046 64² textures less the
    /// add + remove series' iterations; larger sizes are skipped).
    #[arg(long)]
    churn_tier_c: bool,
}

fn parse_heap_size(text: &str) -> Result<u32, String> {
    let size: u32 = text.trim().parse().map_err(|e| format!("{text:?}: {e}"))?;
    if !(1..=1 << 24).contains(&size) {
        return Err(format!("{size} textures: 1 to 16777216"));
    }
    Ok(size)
}

impl ChurnArgs {
    /// The mode's options if `--texture-churn` was given: both heaps unless
    /// `heap` names one.
    pub fn options(
        &self,
        heap: Option<TextureHeap>,
        choice: &AdapterChoice,
        date: impl FnOnce() -> String,
    ) -> Option<ChurnOptions> {
        let sizes = self.texture_churn.clone()?;
        let mut heaps: Vec<ChurnHeap> = heap
            .map_or_else(
                || vec![TextureHeap::Paged, TextureHeap::Bindless],
                |heap| vec![heap],
            )
            .into_iter()
            .map(ChurnHeap::Heap)
            .collect();
        if self.churn_tier_c {
            heaps.push(ChurnHeap::TierC);
        }
        Some(ChurnOptions {
            sizes,
            iterations: self.churn_iterations.unwrap_or(200),
            heaps,
            choice: choice.clone(),
            date: date(),
        })
    }
}

/// What `--texture-churn` runs.
#[derive(Clone, Debug)]
pub struct ChurnOptions {
    /// Textures in the heap before each series (reserved slots apart).
    pub sizes: Vec<u32>,
    /// Recorded iterations per series.
    pub iterations: u32,
    pub heaps: Vec<ChurnHeap>,
    pub choice: AdapterChoice,
    pub date: String,
}

/// A heap the churn runs: tiers A and B's (the best tier the device has),
/// or tier C's texture arrays (tier C forced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChurnHeap {
    Heap(TextureHeap),
    TierC,
}

impl ChurnHeap {
    fn name(self) -> &'static str {
        match self {
            Self::Heap(TextureHeap::Bindless) => "bindless",
            Self::Heap(TextureHeap::Paged) => "paged",
            Self::TierC => "tier C arrays",
        }
    }

    /// Whether its textures are layers (64² with mips; see the module
    /// docs), not textures of their own.
    fn layered(self) -> bool {
        self != Self::Heap(TextureHeap::Bindless)
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// `size`² texels of one colour, as a `TextureDesc` borrows them.
fn texels(size: u32, colour: [u8; 4]) -> Vec<u8> {
    std::iter::repeat_n(colour, (size * size) as usize)
        .flatten()
        .collect()
}

fn desc(size: u32, data: &[u8], mips: Mips) -> TextureDesc<'_> {
    TextureDesc {
        width: size,
        height: size,
        data,
        mips,
        ..TextureDesc::default()
    }
}

/// Records, submits and waits for one frame: (record, submit to idle), ms.
fn frame(gpu: &Gpu, renderer: &mut Renderer, targets: &RenderTargets) -> Result<[f64; 2], String> {
    let start = Instant::now();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer
        .render(&mut encoder, &crate::paths::frame(targets))
        .map_err(|e| e.to_string())?;
    let commands = encoder.finish();
    let record = ms(start);
    let start = Instant::now();
    gpu.queue.submit([commands]);
    wait(gpu)?;
    Ok([record, ms(start)])
}

fn wait(gpu: &Gpu) -> Result<(), String> {
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Runs every heap at every size; `after_run` sees the report so far
/// after each (`main.rs` writes the JSON, so that a run cut short by a
/// time limit keeps what it measured).
pub fn measure_churn(
    options: &ChurnOptions,
    mut after_run: impl FnMut(&ChurnReport) -> Result<(), String>,
) -> Result<ChurnReport, String> {
    let mut gpus = Gpus::new(options.choice.clone());
    let gpu = gpus.get(false)?;
    let info = gpu.adapter.get_info();
    let mut report = ChurnReport {
        date: options.date.clone(),
        adapter: info.name,
        backend: format!("{:?}", info.backend),
        tier: String::new(),
        texture_size: CHURN_SIZE,
        iterations: options.iterations,
        warmup: [WARMUP_WITHOUT_FRAME, WARMUP],
        fill_batch: FILL_BATCH,
        runs: Vec::new(),
    };
    for &textures in &options.sizes {
        for &heap in &options.heaps {
            let (run, tier) = measure_run(gpu, heap, textures, options.iterations)?;
            // The report's tier is the device's; tier C's rows say theirs.
            if heap != ChurnHeap::TierC {
                report.tier = tier.unwrap_or(report.tier);
            }
            eprintln!("{}", summary(&run));
            report.runs.push(run);
            after_run(&report)?;
        }
    }
    Ok(report)
}

/// The renderer for `heap` with room for `textures` and the churned one;
/// `Err` with the reason when the device binds fewer, or tier C's arrays
/// hold fewer.
fn renderer(
    gpu: &Gpu,
    heap: ChurnHeap,
    textures: u32,
    iterations: u32,
) -> Result<Renderer, String> {
    // A removed layer is reused only once the frames that could sample it
    // have run, so the add + remove series (no frame) takes a new layer
    // per iteration, warm-up included.
    let churned = WARMUP_WITHOUT_FRAME + iterations;
    let tier_c_holds = crate::runs::TIER_C_HEAP_TEXTURES.saturating_sub(churned);
    if heap == ChurnHeap::TierC && textures > tier_c_holds {
        return Err(format!(
            "tier C's 64² array holds {tier_c_holds} textures beside the {churned} churned without a frame between"
        ));
    }
    let needed = textures + 16;
    let capacities = Capacities {
        textures_2d: needed.max(64),
        ..Capacities::default()
    }
    .clamped_to(&gpu.adapter.limits());
    if capacities.textures_2d < needed {
        return Err(format!(
            "the device binds {} 2D textures, {needed} needed",
            capacities.textures_2d
        ));
    }
    let config = RendererConfig {
        capacities,
        texture_heap: match heap {
            ChurnHeap::Heap(heap) => heap,
            ChurnHeap::TierC => TextureHeap::default(),
        },
        tier: (heap == ChurnHeap::TierC).then_some(Tier::C),
        ..RendererConfig::default()
    };
    Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config).map_err(|e| e.to_string())
}

/// One heap at one size: the fill, then the three series; the tier that
/// ran (none if skipped).
fn measure_run(
    gpu: &Gpu,
    heap: ChurnHeap,
    textures: u32,
    iterations: u32,
) -> Result<(ChurnRun, Option<String>), String> {
    let filler_size = if heap.layered() { CHURN_SIZE } else { 1 };
    let mut run = ChurnRun::unmeasured(heap.name(), textures, filler_size);
    eprintln!("texture churn: {} heap, {textures} textures", run.heap);
    let start = Instant::now();
    let mut renderer = match renderer(gpu, heap, textures, iterations) {
        Ok(renderer) => renderer,
        Err(reason) => {
            run.skipped = Some(reason);
            return Ok((run, None));
        }
    };
    run.renderer_s = start.elapsed().as_secs_f64();
    let tier = format!("{:?}", renderer.tier());
    let targets = RenderTargets::new(&gpu.device, 4, 4, COLOR_FORMAT);
    fill(gpu, &mut renderer, &targets, heap, &mut run)?;
    let churned = texels(CHURN_SIZE, [200, 100, 50, 255]);
    let churned = desc(CHURN_SIZE, &churned, Mips::Generate);
    let mut series = Churn {
        gpu,
        renderer: &mut renderer,
        targets: &targets,
        desc: &churned,
        iterations,
    };
    run.add_remove = Some(series.run(Step::AddRemove)?);
    run.add_frame_remove = Some(series.run(Step::AddFrameRemove)?);
    run.frame = Some(series.run(Step::Frame)?);
    run.pages = renderer.heap().page_count();
    Ok((run, Some(tier)))
}

/// Fills the heap with `run.textures` textures (see the module docs) and
/// renders the first frame, timing each part into `run`.
fn fill(
    gpu: &Gpu,
    renderer: &mut Renderer,
    targets: &RenderTargets,
    heap: ChurnHeap,
    run: &mut ChurnRun,
) -> Result<(), String> {
    let data = texels(run.filler_size, [90, 160, 220, 255]);
    let mips = if heap.layered() {
        Mips::Generate
    } else {
        Mips::None
    };
    let filler = desc(run.filler_size, &data, mips);
    let (mut add_s, mut wait_s) = (0.0, 0.0);
    let started = Instant::now();
    let mut reported = 0;
    let mut added = 0;
    while added < run.textures {
        let batch = FILL_BATCH.min(run.textures - added);
        let start = Instant::now();
        for _ in 0..batch {
            renderer.add_texture(&filler).map_err(|e| e.to_string())?;
        }
        add_s += start.elapsed().as_secs_f64();
        let start = Instant::now();
        wait(gpu)?;
        wait_s += start.elapsed().as_secs_f64();
        added += batch;
        // Progress every tenth of a large fill.
        if added - reported >= run.textures.max(40_000) / 10 {
            reported = added;
            let seconds = started.elapsed().as_secs_f64();
            eprintln!("  filled {added} of {} in {seconds:.1} s", run.textures);
        }
    }
    let [record, submit] = frame(gpu, renderer, targets)?;
    run.fill_add_s = add_s;
    run.fill_wait_s = wait_s;
    run.fill_frame_s = (record + submit) / 1e3;
    Ok(())
}

/// What one iteration of a series does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    AddRemove,
    AddFrameRemove,
    Frame,
}

/// The series' shared state.
struct Churn<'a> {
    gpu: &'a Gpu,
    renderer: &'a mut Renderer,
    targets: &'a RenderTargets,
    desc: &'a TextureDesc<'a>,
    iterations: u32,
}

/// One iteration's times, ms: add, frame record, submit to idle, remove.
type Times = [Option<f64>; 4];

impl Churn<'_> {
    fn step(&mut self, step: Step) -> Result<Times, String> {
        let mut times: Times = [None; 4];
        let added = if step == Step::Frame {
            None
        } else {
            let start = Instant::now();
            let handle = self
                .renderer
                .add_texture(self.desc)
                .map_err(|e| e.to_string())?;
            times[0] = Some(ms(start));
            Some(handle)
        };
        if step != Step::AddRemove {
            let [record, submit] = frame(self.gpu, self.renderer, self.targets)?;
            (times[1], times[2]) = (Some(record), Some(submit));
        }
        if let Some(handle) = added {
            let start = Instant::now();
            self.renderer
                .remove_texture(handle)
                .map_err(|e| e.to_string())?;
            times[3] = Some(ms(start));
        }
        Ok(times)
    }

    /// [`WARMUP`] or [`WARMUP_WITHOUT_FRAME`] iterations, then the recorded ones (up to
    /// [`SERIES_LIMIT_S`]); the device waited for before and after.
    fn run(&mut self, step: Step) -> Result<Series, String> {
        let warmup = match step {
            Step::AddRemove => WARMUP_WITHOUT_FRAME,
            Step::AddFrameRemove | Step::Frame => WARMUP,
        };
        for _ in 0..warmup {
            self.step(step)?;
        }
        wait(self.gpu)?;
        let rebuilds = self.renderer.heap().rebuilds();
        let started = Instant::now();
        let mut recorded = Vec::with_capacity(self.iterations as usize);
        while recorded.len() < self.iterations as usize
            && started.elapsed().as_secs_f64() < SERIES_LIMIT_S
        {
            recorded.push(self.step(step)?);
        }
        wait(self.gpu)?;
        Ok(series(
            &recorded,
            self.renderer.heap().rebuilds() - rebuilds,
        ))
    }
}

/// The statistics of a series' iterations.
fn series(recorded: &[Times], rebuilds: u64) -> Series {
    let stat = |part: usize| {
        let values: Option<Vec<f64>> = recorded.iter().map(|times| times[part]).collect();
        values.filter(|v| !v.is_empty()).map(|v| Stat::of(&v))
    };
    let totals: Vec<f64> = recorded
        .iter()
        .map(|times| times.iter().flatten().sum())
        .collect();
    Series {
        iterations: recorded.len() as u32,
        total_ms: Stat::of(&totals),
        add_ms: stat(0),
        record_ms: stat(1),
        submit_to_idle_ms: stat(2),
        remove_ms: stat(3),
        rebuilds,
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn parse(args: &[&str]) -> Result<Command, clap::Error> {
        Cli::try_parse_from(std::iter::once("unbound-bench").chain(args.iter().copied()))
            .map(Cli::command)
    }

    fn churn(args: &[&str]) -> ChurnOptions {
        match parse(args).unwrap() {
            Command::TextureChurn(options, _) => *options,
            other => panic!("expected --texture-churn: {other:?}"),
        }
    }

    #[test]
    fn texture_churn_runs_alone_on_both_heaps_unless_one_is_named() {
        let default = churn(&["--texture-churn"]);
        assert_eq!(default.sizes, [16, 4096, 100_000]);
        assert_eq!(default.iterations, 200);
        assert_eq!(
            default.heaps,
            [TextureHeap::Paged, TextureHeap::Bindless].map(ChurnHeap::Heap)
        );
        let small = churn(&[
            "--texture-churn",
            "16,64",
            "--churn-iterations",
            "3",
            "--texture-heap",
            "paged",
            "--date",
            "2026-12-02",
        ]);
        assert_eq!(small.sizes, [16, 64]);
        assert_eq!(small.iterations, 3);
        assert_eq!(small.heaps, [ChurnHeap::Heap(TextureHeap::Paged)]);
        let tier_c = churn(&["--texture-churn", "16", "--churn-tier-c"]);
        assert_eq!(tier_c.heaps.last(), Some(&ChurnHeap::TierC));
        assert!(ChurnHeap::TierC.layered());
        assert_eq!(small.date, "2026-12-02");
        assert!(
            matches!(parse(&["--churn-iterations", "3"]), Ok(Command::Run(..))),
            "--churn-iterations alone runs the usual benchmark"
        );
        for bad in [
            &["--texture-churn", "0"][..],
            &["--texture-churn", "16,x"],
            &["--texture-churn", "99999999"],
            &["--texture-churn", "--churn-iterations", "0"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_series_totals_each_iteration_and_keeps_absent_parts_absent() {
        let recorded: Vec<Times> = (1..=11)
            .map(|i| [Some(f64::from(i)), None, None, Some(0.5)])
            .collect();
        let s = series(&recorded, 2);
        assert_eq!((s.iterations, s.rebuilds), (11, 2));
        let add = s.add_ms.expect("timed");
        assert_eq!((add.p10, add.median, add.p90), (2.0, 6.0, 10.0));
        assert_eq!(s.total_ms.median, 6.5);
        assert_eq!(s.remove_ms.map(|r| r.median), Some(0.5));
        assert!(s.record_ms.is_none() && s.submit_to_idle_ms.is_none());
    }
}
