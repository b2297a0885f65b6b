//! `unbound-bench`: unbound's GPU-driven bindless frame against the classic
//! bind-per-draw loop, side by side, on the fixed scenes of
//! `unbound_scenes::bench`. See `docs/PERFORMANCE.md` for the method.
//!
//! ```text
//! unbound-bench [--quick] [--scenes draw-bound,raster-bound,cube-grid]
//!               [--sizes 1000,10000,100000,1000000] [--frames 20] [--warmup 5]
//!               [--cull-only 4194304] [--switches] [--paths unbound,baseline]
//!               [--json out.json] [--plot out.png] [--adapter NAME] [--backend vulkan]
//! unbound-bench --report-from a.json[,b.json] [--json merged.json] [--plot out.png]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};
use unbound::{Capacities, FrameTarget, IndirectMode, Renderer, RendererConfig, Tier};
use unbound_baseline::BaselineRenderer;
use unbound_harness::{
    AdapterChoice, DeviceLimits, Gpu, instance_flags, open_headless, parse_backend,
};
use unbound_scenes::bench::{self as bench_scenes, BenchScene, SceneSpec};

/// Measured device-to-device copy bandwidth of the H200 (bytes/s), for the
/// cull pass's bandwidth bound.
const H200_COPY_BANDWIDTH: f64 = 4.3e12;
/// Bytes the cull pass reads and writes per instance: bounds 16 + batch 4 +
/// rank write 4 (cull); rank 4 + batch 4 + offset 4 + visible-list write 4
/// for visible instances (scatter, counted at the measured visible fraction).
const CULL_BYTES_FIXED: f64 = 16.0 + 4.0 + 4.0 + 4.0;
const CULL_BYTES_VISIBLE: f64 = 4.0 + 4.0 + 4.0;

#[derive(Clone, Debug)]
struct Options {
    scenes: Vec<BenchScene>,
    sizes: Vec<u32>,
    frames: u32,
    warmup: u32,
    cull_only: u32,
    switches: bool,
    tiers: bool,
    paths: Vec<String>,
    json: Option<PathBuf>,
    plot: Option<PathBuf>,
    report_from: Vec<PathBuf>,
    choice: AdapterChoice,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
struct Stat {
    median: f64,
    p10: f64,
    p90: f64,
}

impl Stat {
    fn of(values: &[f64]) -> Self {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        Self {
            median: at(0.5),
            p10: at(0.1),
            p90: at(0.9),
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct RunResult {
    scene: String,
    path: String,
    /// Capability tier of the unbound path ("A" when absent).
    #[serde(default)]
    tier: String,
    indirect: String,
    validation_indirect_call: bool,
    instances: u32,
    textures: u32,
    changed_per_frame: u32,
    frames: u32,
    cpu_update_ms: Stat,
    cpu_record_ms: Stat,
    cpu_submit_ms: Stat,
    cpu_total_ms: Stat,
    frame_ms: Stat,
    gpu_cull_ms: Option<Stat>,
    gpu_draw_ms: Option<Stat>,
    visible_instances: u32,
    draws: u32,
    triangles: u64,
    gpu_memory_bytes: u64,
    /// Cull-only runs: instances per millisecond of cull GPU time, and the
    /// bandwidth bound in ms at the H200's copy bandwidth.
    instances_per_ms: Option<f64>,
    bandwidth_bound_ms: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Report {
    date: String,
    adapter: String,
    backend: String,
    device_type: String,
    driver: String,
    driver_info: String,
    settings: String,
    results: Vec<RunResult>,
}

const USAGE: &str = "usage: unbound-bench [--quick] [--scenes LIST] [--sizes LIST] [--frames N] [--warmup N] \
[--cull-only N] [--switches] [--paths unbound,baseline] [--json PATH] [--plot PATH] [--adapter NAME] \
[--backend vulkan|dx12|metal|gl] | --report-from JSON [--plot PATH]";

fn parse_list<T>(value: &str, parse: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    value
        .split(',')
        .map(|v| parse(v.trim()).ok_or(format!("bad list item {v:?}")))
        .collect()
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        scenes: vec![
            BenchScene::DrawBound,
            BenchScene::RasterBound,
            BenchScene::CubeGrid,
        ],
        sizes: vec![1_000, 10_000, 100_000, 1_000_000],
        frames: 20,
        warmup: 5,
        cull_only: 1 << 22,
        switches: false,
        tiers: false,
        paths: vec!["unbound".into(), "baseline".into()],
        json: None,
        plot: None,
        report_from: Vec::new(),
        choice: AdapterChoice::from_env(false),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        match flag.as_str() {
            "--quick" => {
                options.sizes = vec![1_000];
                options.frames = 3;
                options.warmup = 1;
                options.cull_only = 1 << 16;
                options.switches = true;
            }
            "--scenes" => options.scenes = parse_list(&value()?, BenchScene::parse)?,
            "--sizes" => options.sizes = parse_list(&value()?, |v| v.parse().ok())?,
            "--frames" => {
                options.frames = value()?.parse().map_err(|e| format!("--frames: {e}"))?;
            }
            "--warmup" => {
                options.warmup = value()?.parse().map_err(|e| format!("--warmup: {e}"))?;
            }
            "--cull-only" => {
                options.cull_only = value()?.parse().map_err(|e| format!("--cull-only: {e}"))?;
            }
            "--switches" => options.switches = true,
            "--tiers" => options.tiers = true,
            "--paths" => options.paths = parse_list(&value()?, |v| Some(v.to_owned()))?,
            "--json" => options.json = Some(value()?.into()),
            "--plot" => options.plot = Some(value()?.into()),
            "--report-from" => {
                options.report_from = parse_list(&value()?, |v| Some(PathBuf::from(v)))?;
            }
            "--adapter" => options.choice.name = Some(value()?),
            "--backend" => {
                let name = value()?;
                options.choice.backends =
                    Some(parse_backend(&name).ok_or(format!("unknown backend {name}"))?);
            }
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if options.frames == 0 {
        return Err("--frames must be positive".into());
    }
    Ok(options)
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|options| {
        if !options.report_from.is_empty() {
            // Several result files (one adapter) merge into one report.
            let mut merged: Option<Report> = None;
            for path in &options.report_from {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let report: Report =
                    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                match &mut merged {
                    // The first file's run of a configuration wins.
                    Some(m) => {
                        for r in report.results {
                            if !m.results.iter().any(|x| same_run(x, &r)) {
                                m.results.push(r);
                            }
                        }
                    }
                    None => merged = Some(report),
                }
            }
            let report = merged.expect("at least one file");
            print!("{}", markdown(&report));
            if let Some(path) = &options.json {
                let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
                std::fs::write(path, text + "\n")
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            if let Some(plot) = &options.plot {
                draw_plot(&report, plot)?;
            }
            Ok(())
        } else {
            run(&options)
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn open_gpu(choice: &AdapterChoice, validation_indirect_call: bool) -> Result<Gpu, String> {
    let mut flags = instance_flags();
    flags.set(
        wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL,
        validation_indirect_call,
    );
    let gpu = open_headless(
        choice,
        &Capacities::default(),
        flags,
        DeviceLimits::AdapterMax,
    )
    .map_err(|e| e.to_string())?;
    gpu.device
        .on_uncaptured_error(std::sync::Arc::new(|e| panic!("wgpu error: {e}")));
    Ok(gpu)
}

struct Targets {
    _color: wgpu::Texture,
    _depth: wgpu::Texture,
    color: wgpu::TextureView,
    depth: wgpu::TextureView,
}

fn targets(device: &wgpu::Device, width: u32, height: u32) -> Targets {
    let size = wgpu::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let make = |format| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("bench target"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
    };
    let color = make(wgpu::TextureFormat::Rgba8UnormSrgb);
    let depth = make(unbound::DEPTH_FORMAT);
    Targets {
        color: color.create_view(&Default::default()),
        depth: depth.create_view(&Default::default()),
        _color: color,
        _depth: depth,
    }
}

/// One run's configuration.
#[derive(Clone, Copy, Debug)]
struct RunConfig {
    scene: BenchScene,
    instances: u32,
    textures: u32,
    indirect: IndirectMode,
    validation_indirect_call: bool,
    cull_only: bool,
    tier: Tier,
}

/// Per-frame samples.
#[derive(Default)]
struct Samples {
    update: Vec<f64>,
    record: Vec<f64>,
    submit: Vec<f64>,
    total: Vec<f64>,
    frame: Vec<f64>,
    cull: Vec<f64>,
    draw: Vec<f64>,
}

impl Samples {
    fn push(&mut self, update: f64, record: f64, submit: f64, frame: f64) {
        self.update.push(update);
        self.record.push(record);
        self.submit.push(submit);
        self.total.push(update + record + submit);
        self.frame.push(frame);
    }

    fn into_result(
        self,
        config: &RunConfig,
        path: &str,
        options: &Options,
        changed: u32,
    ) -> RunResult {
        let optional = |v: &[f64]| (!v.is_empty()).then(|| Stat::of(v));
        RunResult {
            scene: if config.cull_only {
                "cull-only".into()
            } else {
                config.scene.name().into()
            },
            path: path.into(),
            indirect: match config.indirect {
                IndirectMode::Count => "count".into(),
                IndirectMode::Plain => "plain".into(),
            },
            validation_indirect_call: config.validation_indirect_call,
            instances: config.instances,
            textures: config.textures,
            changed_per_frame: changed,
            frames: options.frames,
            cpu_update_ms: Stat::of(&self.update),
            cpu_record_ms: Stat::of(&self.record),
            cpu_submit_ms: Stat::of(&self.submit),
            cpu_total_ms: Stat::of(&self.total),
            frame_ms: Stat::of(&self.frame),
            gpu_cull_ms: optional(&self.cull),
            gpu_draw_ms: optional(&self.draw),
            ..Default::default()
        }
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// Changed objects per frame: 1% (at least one).
fn changes_per_frame(instances: u32) -> u32 {
    (instances / 100).max(1)
}

/// The `k`-th changed transform: the original nudged by a small offset that
/// alternates, so the scene stays statistically the same.
fn nudged(original: &Mat4, frame: u32) -> Mat4 {
    let offset = if frame.is_multiple_of(2) { 0.05 } else { -0.05 };
    Mat4::from_translation(Vec3::splat(offset)) * *original
}

fn run_unbound(
    gpu: &Gpu,
    scene: &SceneSpec,
    config: &RunConfig,
    options: &Options,
) -> Result<RunResult, String> {
    let capacities = Capacities {
        objects: config.instances.max(1024),
        textures_2d: (config.textures + 16).max(64),
        ..Capacities::default()
    }
    .clamped_to(&gpu.adapter.limits());
    let renderer_config = RendererConfig {
        capacities,
        indirect: config.indirect,
        tier: Some(config.tier),
        ..RendererConfig::default()
    };
    let mut renderer = Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, renderer_config)
        .map_err(|e| e.to_string())?;
    let objects = scene.load_into(&mut renderer).map_err(|e| e.to_string())?;
    let target = targets(&gpu.device, scene.width, scene.height);
    let frame_target = FrameTarget::new(&target.color, &target.depth);
    let changed = changes_per_frame(config.instances);
    let mut samples = Samples::default();
    let mut last_gpu = None;
    let half = (scene.objects.len() as f32).cbrt();
    for frame in 0..options.warmup + options.frames {
        let start = Instant::now();
        for k in 0..changed {
            let index = ((frame * changed + k) % config.instances) as usize;
            renderer
                .set_transform(
                    objects[index],
                    nudged(&scene.objects[index].world_from_object, frame),
                )
                .map_err(|e| e.to_string())?;
        }
        if config.scene == BenchScene::CubeGrid {
            renderer
                .set_camera(&bench_scenes::cube_grid_camera(half, frame as f32 * 0.01))
                .map_err(|e| e.to_string())?;
        }
        let update = ms(start);
        let start = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        if config.cull_only {
            renderer.render_cull_only(&mut encoder);
        } else {
            renderer
                .render(&mut encoder, &frame_target)
                .map_err(|e| e.to_string())?;
        }
        let record = ms(start);
        let start = Instant::now();
        gpu.queue.submit([encoder.finish()]);
        let submit = ms(start);
        let start = Instant::now();
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        let wall = submit + ms(start);
        let gpu_stats = renderer.latest_gpu_stats();
        if frame >= options.warmup {
            samples.push(update, record, submit, wall);
            if let Some(g) = gpu_stats {
                samples.cull.extend(g.cull_ms);
                samples.draw.extend(g.draw_ms);
            }
        }
        last_gpu = gpu_stats;
    }
    let gpu_stats = last_gpu.ok_or("no GPU statistics came back")?;
    let mut result = samples.into_result(config, "unbound", options, changed);
    result.tier = format!("{:?}", renderer.tier());
    result.visible_instances = gpu_stats.visible_instances;
    result.draws = gpu_stats.draws;
    result.triangles = gpu_stats.triangles;
    result.gpu_memory_bytes = renderer.memory().total_bytes();
    if config.cull_only {
        if let Some(cull) = &result.gpu_cull_ms {
            result.instances_per_ms = Some(f64::from(config.instances) / cull.median);
            let visible = f64::from(gpu_stats.visible_instances) / f64::from(config.instances);
            let bytes =
                (CULL_BYTES_FIXED + CULL_BYTES_VISIBLE * visible) * f64::from(config.instances);
            result.bandwidth_bound_ms = Some(bytes / H200_COPY_BANDWIDTH * 1e3);
        }
    }
    Ok(result)
}

fn run_baseline(
    gpu: &Gpu,
    scene: &SceneSpec,
    config: &RunConfig,
    options: &Options,
) -> Result<RunResult, String> {
    let mut baseline = BaselineRenderer::new(
        &gpu.device,
        &gpu.queue,
        scene,
        wgpu::TextureFormat::Rgba8UnormSrgb,
    );
    let target = targets(&gpu.device, scene.width, scene.height);
    let frame_target = FrameTarget::new(&target.color, &target.depth);
    let changed = changes_per_frame(config.instances);
    let mut samples = Samples::default();
    let mut last = Default::default();
    let half = (scene.objects.len() as f32).cbrt();
    for frame in 0..options.warmup + options.frames {
        let start = Instant::now();
        for k in 0..changed {
            let index = ((frame * changed + k) % config.instances) as usize;
            baseline.set_transform(
                index,
                nudged(&scene.objects[index].world_from_object, frame),
            );
        }
        if config.scene == BenchScene::CubeGrid {
            baseline.set_camera(&bench_scenes::cube_grid_camera(half, frame as f32 * 0.01));
        }
        let update = ms(start);
        let start = Instant::now();
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        last = baseline.render(&mut encoder, &frame_target);
        let record = ms(start);
        let start = Instant::now();
        gpu.queue.submit([encoder.finish()]);
        let submit = ms(start);
        let start = Instant::now();
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        let wall = submit + ms(start);
        let draw_ms = baseline.last_draw_ms();
        if frame >= options.warmup {
            samples.push(update, record, submit, wall);
            samples.draw.extend(draw_ms);
        }
    }
    let mut result = samples.into_result(config, "baseline", options, changed);
    result.visible_instances = last.visible_instances;
    result.draws = last.draws;
    result.triangles = last.triangles;
    let texture_bytes: u64 = scene
        .textures
        .iter()
        .map(|t| u64::from(t.size * t.size) * 4 * 4 / 3)
        .sum();
    result.gpu_memory_bytes = baseline.buffer_bytes() + texture_bytes;
    Ok(result)
}

fn run(options: &Options) -> Result<(), String> {
    let mut configs = Vec::new();
    for &scene in &options.scenes {
        for &instances in &options.sizes {
            let textures = if scene == BenchScene::CubeGrid {
                64
            } else {
                1024
            };
            configs.push(RunConfig {
                scene,
                instances,
                textures,
                indirect: IndirectMode::Count,
                validation_indirect_call: true,
                cull_only: false,
                tier: Tier::A,
            });
        }
    }
    if options.switches {
        let size = options
            .sizes
            .iter()
            .copied()
            .filter(|&s| s <= 100_000)
            .max()
            .unwrap_or(1_000);
        for (indirect, validation) in [
            (IndirectMode::Plain, true),
            (IndirectMode::Plain, false),
            (IndirectMode::Count, false),
        ] {
            configs.push(RunConfig {
                scene: BenchScene::DrawBound,
                instances: size,
                textures: 1024,
                indirect,
                validation_indirect_call: validation,
                cull_only: false,
                tier: Tier::A,
            });
        }
        for textures in [16, 4096] {
            configs.push(RunConfig {
                scene: BenchScene::DrawBound,
                instances: size,
                textures,
                indirect: IndirectMode::Count,
                validation_indirect_call: true,
                cull_only: false,
                tier: Tier::A,
            });
        }
    }
    if options.tiers {
        for &instances in options
            .sizes
            .iter()
            .filter(|&&s| s == 10_000 || s == 100_000)
        {
            for tier in [Tier::B, Tier::C] {
                configs.push(RunConfig {
                    scene: BenchScene::DrawBound,
                    instances,
                    textures: 1024,
                    indirect: IndirectMode::Plain,
                    validation_indirect_call: true,
                    cull_only: false,
                    tier,
                });
            }
        }
    }
    if options.cull_only > 0 {
        configs.push(RunConfig {
            scene: BenchScene::DrawBound,
            instances: options.cull_only,
            textures: 16,
            indirect: IndirectMode::Count,
            validation_indirect_call: true,
            cull_only: true,
            tier: Tier::A,
        });
    }

    let mut gpus: Vec<(bool, Gpu)> = Vec::new();
    let mut report = Report {
        date: today(),
        settings: format!(
            "frames {} after {} warm-up; 1% of instances (at least 1) moved per frame; frame = submit to completion (device poll); \
             CPU total = update + record + finish/submit; unbound with indirect count unless noted; release build",
            options.frames, options.warmup
        ),
        ..Default::default()
    };
    for config in &configs {
        if !gpus
            .iter()
            .any(|(v, _)| *v == config.validation_indirect_call)
        {
            gpus.push((
                config.validation_indirect_call,
                open_gpu(&options.choice, config.validation_indirect_call)?,
            ));
        }
        let gpu = &gpus
            .iter()
            .find(|(v, _)| *v == config.validation_indirect_call)
            .expect("opened")
            .1;
        if report.adapter.is_empty() {
            let info = gpu.adapter.get_info();
            report.adapter = info.name;
            report.backend = format!("{:?}", info.backend);
            report.device_type = format!("{:?}", info.device_type);
            report.driver = info.driver;
            report.driver_info = info.driver_info;
            eprintln!(
                "adapter: {} ({}), driver {} {}",
                report.adapter, report.backend, report.driver, report.driver_info
            );
        }
        let started = Instant::now();
        let scene = bench_scenes::build(config.scene, config.instances, config.textures);
        let is_switch = config.indirect != IndirectMode::Count
            || !config.validation_indirect_call
            || config.textures == 16
            || config.textures == 4096;
        for path in &options.paths {
            if (config.cull_only || config.tier != Tier::A) && path != "unbound" {
                continue;
            }
            if is_switch && path == "baseline" && config.indirect != IndirectMode::Count {
                continue;
            }
            let result = match path.as_str() {
                "unbound" => run_unbound(gpu, &scene, config, options)?,
                "baseline" => run_baseline(gpu, &scene, config, options)?,
                other => return Err(format!("unknown path {other}")),
            };
            eprintln!(
                "{:>12} {:>8} {:>8} {:>5} {:>5} textures {:>4}: cpu {:8.3} ms, frame {:8.3} ms ({:.1} s)",
                result.scene,
                result.path,
                result.instances,
                result.indirect,
                if result.validation_indirect_call {
                    "val"
                } else {
                    "noval"
                },
                result.textures,
                result.cpu_total_ms.median,
                result.frame_ms.median,
                started.elapsed().as_secs_f64()
            );
            report.results.push(result);
        }
    }
    print!("{}", markdown(&report));
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &options.plot {
        draw_plot(&report, path)?;
    }
    Ok(())
}

/// Same scene, path, size and settings.
fn same_run(a: &RunResult, b: &RunResult) -> bool {
    let tier = |r: &RunResult| {
        if r.tier.is_empty() {
            "A".to_owned()
        } else {
            r.tier.clone()
        }
    };
    (
        &a.scene,
        &a.path,
        a.instances,
        a.textures,
        &a.indirect,
        a.validation_indirect_call,
    ) == (
        &b.scene,
        &b.path,
        b.instances,
        b.textures,
        &b.indirect,
        b.validation_indirect_call,
    ) && tier(a) == tier(b)
}

fn today() -> String {
    // Days since the epoch to a civil date (proleptic Gregorian).
    let days = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn fmt_stat(s: &Stat) -> String {
    format!("{:.3} ({:.3}–{:.3})", s.median, s.p10, s.p90)
}

fn fmt_opt(s: &Option<Stat>) -> String {
    s.as_ref()
        .map_or("n/a".into(), |s| format!("{:.3}", s.median))
}

/// The report as markdown tables.
fn markdown(report: &Report) -> String {
    let mut out = format!(
        "Adapter: {} ({}, {}), driver {} {}; date {}.\n{}.\n\n",
        report.adapter,
        report.backend,
        report.device_type,
        report.driver,
        report.driver_info,
        report.date,
        report.settings
    );
    let tier_a = |r: &&RunResult| r.tier.is_empty() || r.tier == "A";
    out += "| scene | path | instances | textures | draws | visible | triangles | CPU total ms (p10–p90) | CPU record ms | frame ms (p10–p90) | GPU cull ms | GPU draw ms | memory MiB |\n";
    out += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for r in report
        .results
        .iter()
        .filter(|r| r.indirect == "count" && r.validation_indirect_call && r.scene != "cull-only")
        .filter(tier_a)
    {
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.3} | {} | {} | {} | {:.1} |\n",
            r.scene,
            r.path,
            r.instances,
            r.textures,
            r.draws,
            r.visible_instances,
            r.triangles,
            fmt_stat(&r.cpu_total_ms),
            r.cpu_record_ms.median,
            fmt_stat(&r.frame_ms),
            fmt_opt(&r.gpu_cull_ms),
            fmt_opt(&r.gpu_draw_ms),
            r.gpu_memory_bytes as f64 / 1048576.0
        );
    }
    let switches: Vec<_> = report
        .results
        .iter()
        .filter(|r| {
            r.scene == "draw-bound"
                && r.path == "unbound"
                && (r.indirect != "count" || !r.validation_indirect_call)
        })
        .filter(tier_a)
        .collect();
    if !switches.is_empty() {
        out += "\nSwitches (draw-bound, unbound):\n\n| indirect | indirect-call validation | instances | draws | CPU total ms | CPU record ms | frame ms | GPU draw ms |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in switches {
            out += &format!(
                "| {} | {} | {} | {} | {} | {:.3} | {} | {} |\n",
                r.indirect,
                if r.validation_indirect_call {
                    "on"
                } else {
                    "off"
                },
                r.instances,
                r.draws,
                fmt_stat(&r.cpu_total_ms),
                r.cpu_record_ms.median,
                fmt_stat(&r.frame_ms),
                fmt_opt(&r.gpu_draw_ms)
            );
        }
    }
    let tiers: Vec<_> = report.results.iter().filter(|r| !tier_a(r)).collect();
    if !tiers.is_empty() {
        out += "\nTiers (draw-bound, unbound; tier A is the main table's row):\n\n| tier | instances | draws | visible | CPU total ms (p10–p90) | CPU record ms | frame ms (p10–p90) | GPU cull ms | GPU draw ms | memory MiB |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
        for r in tiers {
            out += &format!(
                "| {} | {} | {} | {} | {} | {:.3} | {} | {} | {} | {:.1} |\n",
                r.tier,
                r.instances,
                r.draws,
                r.visible_instances,
                fmt_stat(&r.cpu_total_ms),
                r.cpu_record_ms.median,
                fmt_stat(&r.frame_ms),
                fmt_opt(&r.gpu_cull_ms),
                fmt_opt(&r.gpu_draw_ms),
                r.gpu_memory_bytes as f64 / 1048576.0
            );
        }
    }
    for r in report.results.iter().filter(|r| r.scene == "cull-only") {
        out += &format!(
            "\nCull only: {} instances, {} visible; GPU cull {} ms; {:.0} instances/ms; bandwidth bound {:.4} ms at {:.1} TB/s ({:.1}x of bound).\n",
            r.instances,
            r.visible_instances,
            fmt_opt(&r.gpu_cull_ms),
            r.instances_per_ms.unwrap_or(0.0),
            r.bandwidth_bound_ms.unwrap_or(0.0),
            H200_COPY_BANDWIDTH / 1e12,
            r.gpu_cull_ms.map_or(0.0, |c| c.median) / r.bandwidth_bound_ms.unwrap_or(f64::NAN)
        );
    }
    out
}

/// Log-log plot: frame time and CPU time against instances, both paths, one
/// panel per scene.
fn draw_plot(report: &Report, path: &std::path::Path) -> Result<(), String> {
    use plotters::prelude::*;
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        include_bytes!("../../../assets/fonts/DejaVuSans.ttf"),
    )
    .map_err(|_| "font")?;
    let scenes = ["draw-bound", "raster-bound", "cube-grid"];
    let (width, height) = (1500u32, 520u32);
    let mut pixels = vec![0u8; (width * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let panels = root.split_evenly((1, scenes.len()));
        for (panel, scene) in panels.iter().zip(scenes) {
            let runs: Vec<&RunResult> = report
                .results
                .iter()
                .filter(|r| {
                    r.scene == scene
                        && (r.tier.is_empty() || r.tier == "A")
                        && r.indirect == "count"
                        && r.validation_indirect_call
                        && (r.textures == 1024 || scene == "cube-grid")
                })
                .collect();
            if runs.is_empty() {
                continue;
            }
            let x_max = f64::from(runs.iter().map(|r| r.instances).max().unwrap_or(1000)) * 1.5;
            let x_min = f64::from(runs.iter().map(|r| r.instances).min().unwrap_or(1000)) / 1.5;
            let y_values: Vec<f64> = runs
                .iter()
                .flat_map(|r| [r.frame_ms.median, r.cpu_total_ms.median])
                .collect();
            let y_max = y_values.iter().copied().fold(1e-3, f64::max) * 2.0;
            let y_min = y_values
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min)
                .max(1e-3)
                / 2.0;
            let mut chart = ChartBuilder::on(panel)
                .caption(format!("{scene} ({})", report.adapter), ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d((x_min..x_max).log_scale(), (y_min..y_max).log_scale())
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .x_desc("instances")
                .y_desc("ms per frame")
                .x_label_formatter(&|x| format!("{}", x.round() as u64))
                .y_label_formatter(&|y| format!("{y}"))
                .label_style(("sans-serif", 13))
                .draw()
                .map_err(|e| e.to_string())?;
            let series = [
                ("unbound", "frame", RGBColor(0, 110, 200), false),
                ("unbound", "CPU", RGBColor(0, 110, 200), true),
                ("baseline", "frame", RGBColor(210, 70, 30), false),
                ("baseline", "CPU", RGBColor(210, 70, 30), true),
            ];
            for (path_name, metric, color, dashed) in series {
                let mut points: Vec<(f64, f64)> = runs
                    .iter()
                    .filter(|r| r.path == path_name)
                    .map(|r| {
                        (
                            f64::from(r.instances),
                            if metric == "frame" {
                                r.frame_ms.median
                            } else {
                                r.cpu_total_ms.median
                            },
                        )
                    })
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                if points.is_empty() {
                    continue;
                }
                let style = ShapeStyle::from(color).stroke_width(if dashed { 1 } else { 3 });
                chart
                    .draw_series(LineSeries::new(points.clone(), style))
                    .map_err(|e| e.to_string())?
                    .label(format!("{path_name} {metric}"))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], style));
                chart
                    .draw_series(points.iter().map(|&p| Circle::new(p, 3, style.filled())))
                    .map_err(|e| e.to_string())?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 13))
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    image::save_buffer(path, &pixels, width, height, image::ExtendedColorType::Rgb8)
        .map_err(|e| format!("{}: {e}", path.display()))
}
