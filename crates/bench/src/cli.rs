//! The command line (clap) and the options it resolves to.

use std::path::PathBuf;

use clap::Parser;
use unbound_harness::{AdapterChoice, parse_backend};
use unbound_scenes::bench::BenchScene;

use crate::runs::{FrameCounts, LightGrid, RenderPath, RunOptions};
use crate::streaming::StreamingOptions;

/// Benchmarks unbound's GPU-driven bindless frame against the bind-per-draw
/// baseline on the fixed scenes of docs/PERFORMANCE.md, or regenerates the
/// tables and plot from saved JSON (`--report-from`).
#[derive(Debug, Parser)]
#[command(
    name = "unbound-bench",
    args_override_self = true,
    after_help = "Lists are comma-separated. UNBOUND_ADAPTER and UNBOUND_BACKEND pick the \
                  adapter when --adapter and --backend are not given."
)]
pub struct Cli {
    /// Smoke test: sizes 1000, 3 frames after 1 warm-up, cull-only 65536
    /// instances, switches on (flags given explicitly win).
    #[arg(long)]
    quick: bool,
    /// Scenes to run: draw-bound, raster-bound, cube-grid, city (streets
    /// seen from street level, most instances hidden), crowd (animated
    /// Foxes, unbound only; the Fox is CC-BY 4.0, see assets/README.md),
    /// crowd-static (the same crowd without animation), dense (a 1M-triangle
    /// mesh per instance, cluster LOD with `--lod on`; only when named)
    /// [default: all six but dense].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_scene)]
    scenes: Option<Vec<BenchScene>>,
    /// Instance counts per scene (a size is the scene's number of
    /// instances) [default: 1000,10000,100000,1000000].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_count)]
    sizes: Option<Vec<u32>>,
    /// Measured frames per run [default: 20].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    frames: Option<u32>,
    /// Unmeasured frames before them [default: 5].
    #[arg(long, value_name = "N")]
    warmup: Option<u32>,
    /// Instances of the cull-only run, 0 for none [default: 4194304].
    #[arg(long, value_name = "N")]
    cull_only: Option<u32>,
    /// Also run the indirect-mode, indirect-call-validation and heap-size
    /// switches on draw-bound.
    #[arg(long)]
    switches: bool,
    /// Also run draw-bound with these texture counts in the heap (the
    /// heap-size runs; `--switches` runs them at 16,4096 unless given).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_count)]
    textures: Option<Vec<u32>>,
    /// The heap-size runs' objects sample only the first N of the heap's
    /// textures (all loaded and resident), the same N whatever the heap
    /// holds: `--textures 16,65536 --sampled-textures 16` isolates the
    /// heap's own cost from the content's (JSON `sampled_textures`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    sampled_textures: Option<u32>,
    /// How unbound binds 2D textures on tiers A and B: `bindless` (one
    /// binding-array element per texture) or `paged` (texture-array pages)
    /// [default: the renderer's].
    #[arg(long, value_name = "bindless|paged", value_parser = parse_texture_heap)]
    texture_heap: Option<unbound::TextureHeap>,
    /// Stream unbound's 2D textures under this budget, in MiB
    /// (`RendererConfig::texture_budget`; implies `--texture-heap paged`):
    /// the camera's texture feedback runs in the shading passes, so this
    /// also measures what the feedback costs where nothing streams.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    texture_budget: Option<u64>,
    /// Run only the streaming scene: TEXTURES tiles of SIZE² textures (full
    /// mip chains) on the paged heap under `--texture-budget` [default 256
    /// MiB], a still camera, `--frames` frames [default 60] all reported
    /// (no warm-up): frame time while streaming and settled, bytes
    /// promoted and evicted per frame, the frame it converges at
    /// [default: 512x1024, 2.7 GiB].
    #[arg(long, value_name = "TEXTURESxSIZE", num_args = 0..=1, default_missing_value = "512x1024", value_parser = crate::streaming::parse_streaming)]
    streaming: Option<(u32, u32)>,
    /// Also run draw-bound at 10000 and 100000 instances (when among the
    /// sizes) with tiers B and C forced, and the heap-size runs
    /// (`--textures`) on tiers B and C too (tier C up to 2046 textures, what
    /// its one array per size class holds).
    #[arg(long)]
    tiers: bool,
    /// Also run draw-bound at every size with each count of point lights,
    /// on unbound (0: the draw-bound run without lights), e.g. `--scenes
    /// draw-bound --sizes 100000 --lights 0,1000,10000`.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_lights)]
    lights: Vec<u32>,
    /// The light pass's cluster grid for unbound's runs, as tiles across,
    /// tiles down and depth slices [default: the renderer's, 32,18,48].
    /// JSON `light_lists.grid` says which ran.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_light_grid)]
    light_grid: Option<LightGrid>,
    /// The sun's shadows: `on` measures each frame run and the cull-only
    /// run on unbound again with 4 cascades, side by side.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set)]
    shadows: bool,
    /// Two-phase occlusion culling on unbound's runs (on by default; the
    /// image is the same either way).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = parse_switch, action = clap::ArgAction::Set)]
    occlusion: bool,
    /// Level of detail on unbound's frame runs (off by default): every mesh
    /// gets simplified levels and each instance draws the coarsest whose
    /// error stays under 1 pixel (the dense scene: a cluster-LOD hierarchy,
    /// a cut per instance under 1 pixel; with `--cluster-culling on`).
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set)]
    lod: bool,
    /// The camera's depth pre-pass on unbound's frame runs (off by default,
    /// as in `RendererConfig`; the image is the same either way): opaque and
    /// masked depth first, then each pixel shaded once. JSON
    /// `depth_prepass` and `gpu_prepass_ms` say which ran and what it cost.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set)]
    depth_prepass: bool,
    /// The camera's cluster culling on unbound's frame runs (off by
    /// default, as in `RendererConfig`; every tier, with triangle filtering
    /// always on tiers B and C; the image is the same either way). JSON
    /// `clusters` gives what it tested, culled and drew.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set)]
    cluster_culling: bool,
    /// How unbound's frame runs shade opaque surfaces: `forward`, or
    /// `visibility` (the visibility buffer, tier A; forward elsewhere).
    /// JSON `geometry` says which ran.
    #[arg(long, value_name = "forward|visibility", default_value = "forward", value_parser = parse_geometry)]
    geometry: unbound::Geometry,
    /// The visibility buffer's compute rasteriser on unbound's frame runs
    /// with `--geometry visibility`: `off` (default), `buffer` (64-bit
    /// buffer atomics), `texture` (`R64Uint` texture atomics) or `auto`;
    /// a path the device lacks falls back (JSON `geometry` says what ran).
    #[arg(long, value_name = "off|buffer|texture|auto", default_value = "off", value_parser = parse_compute_raster)]
    compute_raster: unbound::ComputeRaster,
    /// Instances whose projected bounds span fewer pixels go to the compute
    /// rasteriser (`inf`: all it can take).
    #[arg(long, value_name = "PIXELS", default_value_t = 32.0)]
    raster_threshold: f32,
    /// The visibility buffer's material pass, compute by default as the
    /// renderer's (JSON `geometry`: `+compute-shading`).
    #[arg(long, value_name = "compute|fragment", default_value = "compute", value_parser = crate::runs::parse_material_pass)]
    material_pass: unbound::MaterialPass,
    /// What unbound's frame runs draw: `lit` (default) or a debug view,
    /// named as the demo's `--view` names them (`normals`, `object`,
    /// `raster`, ...; an id view draws into an `Rgba8Unorm` target). JSON
    /// `debug_view` records it where not `lit`.
    #[arg(long, value_name = "NAME", default_value = "lit", value_parser = parse_debug_view)]
    debug_view: unbound::DebugView,
    /// Triangle filtering after cluster culling (off by default, as in
    /// `RendererConfig`; only with `--cluster-culling on`). JSON
    /// `clusters` gives the triangles it tested, dropped and drew.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set)]
    triangle_filtering: bool,
    /// Subgroup operations in unbound's cull pass where the adapter has
    /// them (off by default, as in `RendererConfig`; both variants find the
    /// same visible sets). JSON `cull_subgroups` says which ran.
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set)]
    subgroups: bool,
    /// After each of unbound's frame runs (level of detail off), count on
    /// the CPU how many triangles of the last frame's drawn instances (read
    /// back from the cull pass's visible lists, both occlusion phases)
    /// cover under a pixel and no pixel centre at all, with a histogram of
    /// their areas (JSON `small_triangles`; see docs/PERFORMANCE.md).
    #[arg(long)]
    count_small_triangles: bool,
    /// Render paths to measure [default: unbound,baseline].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    paths: Option<Vec<RenderPath>>,
    /// Write the results as JSON.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
    /// Draw frame and CPU time against instances (PNG).
    #[arg(long, value_name = "PATH")]
    plot: Option<PathBuf>,
    /// Run nothing: merge these result files (one adapter; the first file's
    /// run of a configuration wins) and print their tables.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    report_from: Vec<PathBuf>,
    /// Substring of the adapter name (case-insensitive).
    #[arg(long, value_name = "NAME")]
    adapter: Option<String>,
    /// Backend: vulkan, dx12, metal or gl.
    #[arg(long, value_name = "NAME", value_parser = parse_backend_arg)]
    backend: Option<wgpu::Backends>,
    /// Date recorded in the report [default: today (UTC) from `date`].
    #[arg(long, value_name = "YYYY-MM-DD")]
    date: Option<String>,
    #[command(flatten)]
    churn: crate::churn::ChurnArgs,
}

fn parse_geometry(name: &str) -> Result<unbound::Geometry, String> {
    match name.trim() {
        "forward" => Ok(unbound::Geometry::Forward),
        "visibility" => Ok(unbound::Geometry::Visibility),
        other => Err(format!("unknown geometry {other:?}: forward or visibility")),
    }
}

fn parse_debug_view(name: &str) -> Result<unbound::DebugView, String> {
    unbound::DebugView::parse(name.trim()).ok_or_else(|| {
        let names: Vec<_> = unbound::DebugView::ALL.iter().map(|v| v.name()).collect();
        format!("unknown debug view {name:?} (one of {})", names.join(", "))
    })
}

fn parse_compute_raster(name: &str) -> Result<unbound::ComputeRaster, String> {
    match name.trim() {
        "off" => Ok(unbound::ComputeRaster::Off),
        "buffer" => Ok(unbound::ComputeRaster::Buffer),
        "texture" => Ok(unbound::ComputeRaster::Texture),
        "auto" => Ok(unbound::ComputeRaster::Auto),
        other => Err(format!(
            "unknown compute raster {other:?}: off, buffer, texture or auto"
        )),
    }
}

fn parse_texture_heap(name: &str) -> Result<unbound::TextureHeap, String> {
    match name.trim() {
        "bindless" => Ok(unbound::TextureHeap::Bindless),
        "paged" => Ok(unbound::TextureHeap::Paged),
        other => Err(format!("unknown texture heap {other:?}: bindless or paged")),
    }
}

fn parse_scene(name: &str) -> Result<BenchScene, String> {
    BenchScene::parse(name.trim()).ok_or_else(|| {
        format!(
            "unknown scene {name:?} (draw-bound, raster-bound, cube-grid, city, crowd, crowd-static or dense)"
        )
    })
}

fn parse_switch(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{text:?}: on or off")),
    }
}

fn parse_count(text: &str) -> Result<u32, String> {
    text.trim().parse().map_err(|e| format!("{text:?}: {e}"))
}

fn parse_light_grid(text: &str) -> Result<LightGrid, String> {
    let counts: Vec<u32> = text.split(',').map(parse_count).collect::<Result<_, _>>()?;
    let grid: LightGrid = counts
        .try_into()
        .map_err(|_| format!("{text:?}: three counts, X,Y,Z"))?;
    let checked = unbound::lighting::ClusterGrid {
        tiles_x: grid[0],
        tiles_y: grid[1],
        depth_slices: grid[2],
        ..Default::default()
    };
    checked.validate().map_err(|e| e.to_string())?;
    Ok(grid)
}

fn parse_lights(text: &str) -> Result<u32, String> {
    let lights = parse_count(text)?;
    let max = unbound::capacities::MAX_LIGHTS;
    if lights > max {
        return Err(format!("{lights} lights: at most {max}"));
    }
    Ok(lights)
}

fn parse_backend_arg(name: &str) -> Result<wgpu::Backends, String> {
    parse_backend(name).ok_or_else(|| format!("unknown backend {name}"))
}

/// Today's date (UTC) from the system's `date`; "unknown" without one (then
/// `--date` gives it).
fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Where results go.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    pub json: Option<PathBuf>,
    pub plot: Option<PathBuf>,
}

/// What the command line asks for.
#[derive(Clone, Debug)]
pub enum Command {
    /// Measure, print the tables, write the outputs.
    Run(Box<RunOptions>, Outputs),
    /// Merge saved results, print the tables, write the outputs.
    ReportFrom(Vec<PathBuf>, Outputs),
    /// The streaming scene alone (`--streaming`): its table, its JSON.
    Streaming(Box<StreamingOptions>, Outputs),
    /// Texture adds and removes alone (`--texture-churn`).
    TextureChurn(Box<crate::churn::ChurnOptions>, Outputs),
}

impl Cli {
    /// The command, with `--quick` and the defaults filled in.
    pub fn command(self) -> Command {
        let outputs = Outputs {
            json: self.json,
            plot: self.plot,
        };
        if !self.report_from.is_empty() {
            return Command::ReportFrom(self.report_from, outputs);
        }
        let quick = self.quick;
        let (raster, threshold) = (self.compute_raster, self.raster_threshold);
        let geometry = (self.geometry, raster, threshold, self.material_pass);
        let mut choice = AdapterChoice::from_env(false);
        if self.adapter.is_some() {
            choice.name = self.adapter;
        }
        if self.backend.is_some() {
            choice.backends = self.backend;
        }
        let churn = self.churn.options(self.texture_heap, &choice, || {
            self.date.clone().unwrap_or_else(today)
        });
        if let Some(options) = churn {
            return Command::TextureChurn(Box::new(options), outputs);
        }
        if let Some((textures, size)) = self.streaming {
            let options = StreamingOptions {
                textures,
                size,
                budget: self.texture_budget.unwrap_or(256) << 20,
                frames: self.frames.unwrap_or(60),
                choice,
                date: self.date.unwrap_or_else(today),
            };
            return Command::Streaming(Box::new(options), outputs);
        }
        let options = RunOptions {
            geometry,
            scenes: self.scenes.unwrap_or_else(|| BenchScene::ALL.to_vec()),
            sizes: self.sizes.unwrap_or_else(|| {
                if quick {
                    vec![1_000]
                } else {
                    vec![1_000, 10_000, 100_000, 1_000_000]
                }
            }),
            frames: FrameCounts {
                measured: self.frames.unwrap_or(if quick { 3 } else { 20 }),
                warmup: self.warmup.unwrap_or(if quick { 1 } else { 5 }),
            },
            cull_only: self
                .cull_only
                .unwrap_or(if quick { 1 << 16 } else { 1 << 22 }),
            switches: self.switches || quick,
            heap_textures: self.textures.unwrap_or_else(|| {
                if self.switches || quick {
                    vec![16, 4096]
                } else {
                    Vec::new()
                }
            }),
            sampled_textures: self.sampled_textures,
            texture_heap: match self.texture_budget {
                Some(_) => unbound::TextureHeap::Paged,
                None => self.texture_heap.unwrap_or_default(),
            },
            texture_budget: self.texture_budget.map(|mib| mib << 20),
            tiers: self.tiers,
            lights: self.lights,
            light_grid: self.light_grid,
            shadows: self.shadows,
            occlusion: self.occlusion,
            lod: self.lod,
            depth_prepass: self.depth_prepass,
            cluster_culling: (self.cluster_culling, self.triangle_filtering),
            debug_view: self.debug_view,
            subgroups: self.subgroups,
            count_small_triangles: self.count_small_triangles,
            paths: self
                .paths
                .unwrap_or_else(|| vec![RenderPath::Unbound, RenderPath::Baseline]),
            choice,
            date: self.date.unwrap_or_else(today),
        };
        Command::Run(Box::new(options), outputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Command {
        Cli::try_parse_from(std::iter::once("unbound-bench").chain(args.iter().copied()))
            .unwrap()
            .command()
    }

    fn run_options(args: &[&str]) -> RunOptions {
        match parse(args) {
            Command::Run(options, _) => *options,
            other => panic!("expected a run: {other:?}"),
        }
    }

    #[test]
    fn the_depth_prepass_is_off_unless_asked_for() {
        assert!(!run_options(&[]).depth_prepass);
        assert!(run_options(&["--depth-prepass", "on"]).depth_prepass);
        assert!(!run_options(&["--depth-prepass", "off"]).depth_prepass);
    }

    #[test]
    fn a_debug_view_is_named_as_the_demo_names_it() {
        use unbound::DebugView;
        assert_eq!(run_options(&[]).debug_view, DebugView::Lit);
        for view in DebugView::ALL {
            assert_eq!(run_options(&["--debug-view", view.name()]).debug_view, view);
        }
        assert!(
            Cli::try_parse_from(["unbound-bench", "--debug-view", "sideways"]).is_err(),
            "an unknown view is refused"
        );
    }

    #[test]
    fn a_texture_budget_is_in_mebibytes_and_pages_the_heap() {
        let options = run_options(&["--texture-budget", "256"]);
        assert_eq!(options.texture_budget, Some(256 << 20));
        assert_eq!(options.texture_heap, unbound::TextureHeap::Paged);
        assert_eq!(run_options(&[]).texture_budget, None);
        assert!(
            Cli::try_parse_from(["unbound-bench", "--texture-budget", "0"]).is_err(),
            "a zero budget is refused"
        );
    }

    #[test]
    fn sampled_textures_are_a_count_of_at_least_one() {
        assert_eq!(run_options(&[]).sampled_textures, None);
        let options = run_options(&["--textures", "16,65536", "--sampled-textures", "16"]);
        assert_eq!(options.heap_textures, [16, 65536]);
        assert_eq!(options.sampled_textures, Some(16));
        assert!(Cli::try_parse_from(["unbound-bench", "--sampled-textures", "0"]).is_err());
        assert!(Cli::try_parse_from(["unbound-bench", "--sampled-textures", "x"]).is_err());
    }

    #[test]
    fn streaming_runs_the_streaming_scene_alone() {
        let streaming = |args: &[&str]| match parse(args) {
            Command::Streaming(options, _) => *options,
            other => panic!("expected --streaming: {other:?}"),
        };
        let default = streaming(&["--streaming"]);
        assert_eq!((default.textures, default.size), (512, 1024));
        assert_eq!((default.budget, default.frames), (256 << 20, 60));
        let small = streaming(&[
            "--streaming",
            "8x128",
            "--texture-budget",
            "1",
            "--frames",
            "12",
        ]);
        assert_eq!((small.textures, small.size), (8, 128));
        assert_eq!((small.budget, small.frames), (1 << 20, 12));
        for bad in ["8", "0x128", "8x0", "8x100000", "x"] {
            assert!(
                Cli::try_parse_from(["unbound-bench", "--streaming", bad]).is_err(),
                "{bad}"
            );
        }
    }

    /// The heap-size runs' (heap, sampled) textures.
    fn heaps(args: &[&str]) -> Vec<(u32, u32)> {
        let base = [
            "--scenes",
            "draw-bound",
            "--sizes",
            "1000",
            "--cull-only",
            "0",
        ];
        let options = run_options(&[&base[..], args].concat());
        crate::runs::plan(&options)
            .into_iter()
            .filter(|run| matches!(run.kind, crate::runs::RunKind::HeapSwitch { .. }))
            .map(|run| (run.textures(), run.sampled_textures()))
            .collect()
    }

    #[test]
    fn sampled_textures_keep_the_sampled_set_whatever_the_heap() {
        assert_eq!(
            heaps(&["--textures", "16,4096,65536", "--sampled-textures", "16"]),
            [(16, 16), (4096, 16), (65536, 16)]
        );
        assert_eq!(
            heaps(&["--textures", "8,4096", "--sampled-textures", "16"]),
            [(8, 8), (4096, 16)],
            "never more than the heap holds"
        );
        assert_eq!(heaps(&["--textures", "16,4096"]), [(16, 16), (4096, 4096)]);
    }

    #[test]
    fn lists_are_comma_separated() {
        let options = run_options(&[
            "--scenes",
            "draw-bound,cube-grid,city",
            "--sizes",
            "1000,10000",
            "--paths",
            "unbound",
        ]);
        assert_eq!(
            options.scenes,
            [
                BenchScene::DrawBound,
                BenchScene::CubeGrid,
                BenchScene::City
            ]
        );
        assert_eq!(run_options(&[]).scenes, BenchScene::ALL);
        assert_eq!(
            run_options(&["--scenes", "crowd,crowd-static"]).scenes,
            [BenchScene::Crowd, BenchScene::CrowdStatic]
        );
        assert_eq!(options.sizes, [1000, 10000]);
        assert_eq!(options.paths, [RenderPath::Unbound]);
        match parse(&["--report-from", "a.json,b.json", "--plot", "p.png"]) {
            Command::ReportFrom(files, outputs) => {
                assert_eq!(files, [PathBuf::from("a.json"), PathBuf::from("b.json")]);
                assert_eq!(outputs.plot, Some(PathBuf::from("p.png")));
            }
            other => panic!("expected --report-from: {other:?}"),
        }
    }

    #[test]
    fn quick_sets_defaults_that_flags_override() {
        let quick = run_options(&["--quick"]);
        assert_eq!(quick.sizes, [1000]);
        assert_eq!((quick.frames.measured, quick.frames.warmup), (3, 1));
        assert_eq!(quick.cull_only, 65536);
        assert!(quick.switches);
        let ci = run_options(&[
            "--sizes",
            "1000",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--cull-only",
            "65536",
        ]);
        assert_eq!((ci.frames.measured, ci.frames.warmup), (2, 1));
        assert!(!ci.switches);
        assert!(!ci.count_small_triangles);
        assert!(run_options(&["--count-small-triangles"]).count_small_triangles);
        assert_eq!(run_options(&[]).light_grid, None);
        let grid = run_options(&["--light-grid", "64,36,24"]).light_grid;
        assert_eq!(grid, Some([64, 36, 24]));
        assert_eq!(run_options(&[]).geometry.3, unbound::MaterialPass::Compute);
        let shading = run_options(&["--material-pass", "fragment"]).geometry.3;
        assert_eq!(shading, unbound::MaterialPass::Fragment);
        let frames = run_options(&["--quick", "--frames", "7"]);
        assert_eq!(frames.frames.measured, 7);
    }

    #[test]
    fn bad_values_are_refused() {
        let bad = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("unbound-bench").chain(args.iter().copied()))
                .is_err()
        };
        assert!(bad(&["--frames", "0"]));
        assert!(bad(&["--scenes", "nowhere"]));
        assert!(bad(&["--paths", "other"]));
        assert!(bad(&["--backend", "glide"]));
        assert!(bad(&["--lights", "2000000"]));
        assert!(bad(&["--light-grid", "16,9"]));
        assert!(bad(&["--light-grid", "0,9,24"]));
        assert!(bad(&["--light-grid", "1024,1024,1"]));
        assert!(bad(&["--shadows", "maybe"]));
        assert!(bad(&["--material-pass", "vertex"]));
        assert!(bad(&["--unknown"]));
    }
}
