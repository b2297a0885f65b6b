//! `--streaming`: the streaming scene (`unbound_scenes::streaming`, more
//! texture than the budget holds, a still camera) on unbound's paged heap
//! under `--texture-budget` (issue 30: frame time while streaming and
//! when settled, and bytes uploaded per frame).
//!
//! Every frame is recorded, from the first: its CPU time (record), its
//! frame time (submit to completion), the streamer's bytes (full layers,
//! mips included, promoted and evicted that frame), the residency after
//! it, and the table bytes the renderer uploaded. Frame 0 also writes
//! every texture's base layer (the adds' queued writes), so the phases
//! leave it out: *streaming* is frames 1 up to convergence, *settled* the
//! frames from it on. The scene *converges* at the first frame from which
//! nothing is promoted or evicted to the end of the run, if at least
//! [`unbound::heap::WANTED_FRAMES`] frames (the feedback's rotation and then
//! some) follow it; else it has not converged within the run.

use std::time::Instant;

use serde::Serialize;
use unbound::{Capacities, Renderer, RendererConfig, ResidencyStats, TextureHeap};
use unbound_harness::{AdapterChoice, RenderTargets};

use crate::gpu::{COLOR_FORMAT, Gpus};
use crate::results::Stat;

/// What `--streaming` runs.
#[derive(Clone, Debug)]
pub struct StreamingOptions {
    /// Textures (tiles) of the scene.
    pub textures: u32,
    /// Their edge length.
    pub size: u32,
    /// `RendererConfig::texture_budget`, bytes.
    pub budget: u64,
    /// Frames rendered and reported.
    pub frames: u32,
    pub choice: AdapterChoice,
    pub date: String,
}

/// One frame of the run.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct StreamingFrame {
    pub frame: u32,
    /// Recording the frame (`Renderer::render`), ms.
    pub cpu_ms: f64,
    /// Submit to completion, ms.
    pub frame_ms: f64,
    /// The newest finished frame's draw pass (GPU timestamps), ms.
    pub gpu_draw_ms: Option<f64>,
    /// Full layers (mips included) the streamer promoted this frame: their
    /// level 0 is written from the kept texels, the mips generated.
    pub promoted_bytes: u64,
    /// Full layers evicted this frame.
    pub evicted_bytes: u64,
    /// Full layers resident after the frame.
    pub resident_bytes: u64,
    /// Textures whose full layer is resident after the frame.
    pub fully_resident: u32,
    /// Textures the newest feedback read asked at more than their base.
    pub wanted_by_feedback: u32,
    /// Table bytes the renderer uploaded (`FrameStats::bytes_uploaded`;
    /// texture layers are not among them).
    pub table_bytes_uploaded: u64,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct StreamingReport {
    pub date: String,
    pub adapter: String,
    pub backend: String,
    pub textures: u32,
    pub texture_size: u32,
    /// Every texture's full layer (of its size class), mips included:
    /// what the paged heap without a budget would hold.
    pub texture_bytes: u64,
    pub budget_bytes: u64,
    /// Generating the texels, s.
    pub generate_s: f64,
    /// Loading the scene into the renderer, s.
    pub load_s: f64,
    /// See the module docs; `None`: not within the run.
    pub converged_frame: Option<u32>,
    /// Frames 1 up to convergence (all but frame 0 without it).
    pub streaming_frame_ms: Option<Stat>,
    pub streaming_promoted_bytes: Option<Stat>,
    /// From convergence on.
    pub settled_frame_ms: Option<Stat>,
    pub frames: Vec<StreamingFrame>,
}

/// `--streaming`'s `TEXTURESxSIZE`.
pub fn parse_streaming(text: &str) -> Result<(u32, u32), String> {
    let (textures, size) = text
        .split_once('x')
        .ok_or_else(|| format!("{text:?}: TEXTURESxSIZE, e.g. 512x1024"))?;
    let count = |text: &str| {
        text.trim()
            .parse::<u32>()
            .map_err(|e| format!("{text:?}: {e}"))
    };
    let (textures, size) = (count(textures)?, count(size)?);
    if textures == 0 || !(1..=8192).contains(&size) {
        return Err(format!(
            "{text:?}: at least one texture, of 1 to 8192 texels"
        ));
    }
    Ok((textures, size))
}

/// The first frame from which nothing is promoted or evicted to the end,
/// with at least `WANTED_FRAMES` frames from it.
pub fn converged_frame(frames: &[StreamingFrame]) -> Option<u32> {
    let still = frames
        .iter()
        .rev()
        .take_while(|f| f.promoted_bytes == 0 && f.evicted_bytes == 0)
        .count();
    let first = frames.len() - still;
    (still as u64 >= unbound::heap::WANTED_FRAMES).then_some(first.max(1) as u32)
}

/// The edge of the page layer a `size`² texture is resampled to: the
/// smallest size class that holds it, the largest past them all.
fn layer_size(size: u32) -> u32 {
    let classes = unbound::gpu_types::TEXTURE_ARRAY_SIZES;
    classes
        .into_iter()
        .find(|&class| class >= size)
        .unwrap_or(classes[classes.len() - 1])
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// The renderer: the paged heap under the budget, room for the scene.
fn renderer(gpu: &unbound_harness::Gpu, options: &StreamingOptions) -> Result<Renderer, String> {
    let capacities = Capacities {
        textures_2d: (options.textures + 16).max(64),
        materials: (options.textures + 16).max(Capacities::default().materials),
        ..Capacities::default()
    }
    .clamped_to(&gpu.adapter.limits());
    let config = RendererConfig {
        capacities,
        texture_heap: TextureHeap::Paged,
        texture_budget: Some(options.budget),
        ..RendererConfig::default()
    };
    Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config).map_err(|e| e.to_string())
}

/// Runs the streaming scene.
pub fn measure_streaming(options: &StreamingOptions) -> Result<StreamingReport, String> {
    let mut gpus = Gpus::new(options.choice.clone());
    let gpu = gpus.get(true)?;
    let info = gpu.adapter.get_info();
    let started = Instant::now();
    let scene = unbound_scenes::streaming::streaming(options.textures, options.size);
    let generate_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let mut renderer = renderer(gpu, options)?;
    scene.load_into(&mut renderer).map_err(|e| e.to_string())?;
    let load_s = started.elapsed().as_secs_f64();
    eprintln!(
        "streaming: {} textures of {}² generated in {generate_s:.2} s, loaded in {load_s:.2} s",
        options.textures, options.size
    );
    let targets = RenderTargets::new(&gpu.device, scene.width, scene.height, COLOR_FORMAT);
    let mut before = ResidencyStats::default();
    let mut frames = Vec::with_capacity(options.frames as usize);
    for frame in 0..options.frames {
        let start = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let stats = renderer
            .render(&mut encoder, &crate::paths::frame(&targets))
            .map_err(|e| e.to_string())?;
        let cpu_ms = ms(start);
        let start = Instant::now();
        gpu.queue.submit([encoder.finish()]);
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        let frame_ms = ms(start);
        let after = stats
            .textures
            .ok_or("the renderer reports no residency: is the heap paged?")?;
        frames.push(StreamingFrame {
            frame,
            cpu_ms,
            frame_ms,
            gpu_draw_ms: renderer.latest_gpu_stats().and_then(|s| s.draw_ms),
            promoted_bytes: after.requested_bytes - before.requested_bytes,
            evicted_bytes: after.evicted_bytes - before.evicted_bytes,
            resident_bytes: after.resident_bytes,
            fully_resident: after.fully_resident,
            wanted_by_feedback: after.wanted_by_feedback,
            table_bytes_uploaded: stats.bytes_uploaded,
        });
        before = after;
    }
    let converged = converged_frame(&frames);
    let end = converged.map_or(frames.len(), |c| c as usize);
    let stat = |frames: &[StreamingFrame], f: fn(&StreamingFrame) -> f64| {
        (!frames.is_empty()).then(|| Stat::of(&frames.iter().map(f).collect::<Vec<_>>()))
    };
    let streaming = frames.get(1..end).unwrap_or_default();
    let settled = converged.map_or(&[][..], |c| &frames[c as usize..]);
    let layer = u64::from(layer_size(options.size)).pow(2) * 4 * 4 / 3;
    Ok(StreamingReport {
        date: options.date.clone(),
        adapter: info.name,
        backend: format!("{:?}", info.backend),
        textures: options.textures,
        texture_size: options.size,
        texture_bytes: layer * u64::from(options.textures),
        budget_bytes: options.budget,
        generate_s,
        load_s,
        converged_frame: converged,
        streaming_frame_ms: stat(streaming, |f| f.frame_ms),
        streaming_promoted_bytes: stat(streaming, |f| f.promoted_bytes as f64),
        settled_frame_ms: stat(settled, |f| f.frame_ms),
        frames,
    })
}

/// Prints [`table`]; writes the JSON to `json` where asked (no plot:
/// `--plot`, given as `plot`, is ignored, with a word on stderr). Takes
/// the paths, not the command line's outputs, so this module does not
/// import the command line that imports it.
pub fn publish(
    report: &StreamingReport,
    json: Option<&std::path::Path>,
    plot: Option<&std::path::Path>,
) -> Result<(), String> {
    print!("{}", table(report));
    if let Some(path) = plot {
        eprintln!("{}: not written, --streaming draws no plot", path.display());
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The run as markdown: the phases, then every frame.
pub fn table(report: &StreamingReport) -> String {
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    let median = |s: &Option<Stat>| s.map_or("n/a".into(), |s| format!("{:.3}", s.median));
    let mut out = format!(
        "Streaming: {} textures of {}² ({:.0} MiB of full layers) under {:.0} MiB on {} ({}), {}; \
         converged at frame {}; frame ms median while streaming {}, settled {}.\n\n",
        report.textures,
        report.texture_size,
        mib(report.texture_bytes),
        mib(report.budget_bytes),
        report.adapter,
        report.backend,
        report.date,
        report
            .converged_frame
            .map_or("(not within the run)".into(), |c| c.to_string()),
        median(&report.streaming_frame_ms),
        median(&report.settled_frame_ms),
    );
    out += "| frame | CPU ms | frame ms | GPU draw ms | promoted MiB | evicted MiB | resident MiB | fully resident | wanted | table bytes |\n";
    out += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for f in &report.frames {
        out += &format!(
            "| {} | {:.3} | {:.3} | {} | {:.1} | {:.1} | {:.1} | {} | {} | {} |\n",
            f.frame,
            f.cpu_ms,
            f.frame_ms,
            f.gpu_draw_ms.map_or("n/a".into(), |ms| format!("{ms:.3}")),
            mib(f.promoted_bytes),
            mib(f.evicted_bytes),
            mib(f.resident_bytes),
            f.fully_resident,
            f.wanted_by_feedback,
            f.table_bytes_uploaded
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(frame: u32, promoted_bytes: u64) -> StreamingFrame {
        StreamingFrame {
            frame,
            cpu_ms: 0.0,
            frame_ms: 1.0,
            gpu_draw_ms: None,
            promoted_bytes,
            evicted_bytes: 0,
            resident_bytes: 0,
            fully_resident: 0,
            wanted_by_feedback: 0,
            table_bytes_uploaded: 0,
        }
    }

    #[test]
    fn layers_are_of_the_size_classes() {
        assert_eq!(layer_size(1024), 1024);
        assert_eq!(layer_size(128), 256);
        assert_eq!(layer_size(4096), 1024);
    }

    #[test]
    fn convergence_needs_a_still_tail_of_wanted_frames() {
        let run = |promoted: &[u64]| -> Vec<StreamingFrame> {
            (0..).zip(promoted).map(|(i, &p)| frame(i, p)).collect()
        };
        let tail = unbound::heap::WANTED_FRAMES as usize;
        let mut promoted = vec![0, 5, 5, 0, 5];
        promoted.extend(std::iter::repeat_n(0, tail));
        assert_eq!(converged_frame(&run(&promoted)), Some(5));
        promoted.pop();
        assert_eq!(converged_frame(&run(&promoted)), None, "too short a tail");
        assert_eq!(converged_frame(&run(&[0; 12])), Some(1), "frame 0 loads");
        let mut evicting = run(&[0; 12]);
        evicting[10].evicted_bytes = 1;
        assert_eq!(converged_frame(&evicting), None);
    }
}
