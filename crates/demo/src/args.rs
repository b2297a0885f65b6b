//! Command line: [`Cli`] is what clap parses (and what `--help` lists);
//! [`Args`] is what the rest of the demo reads, with the adapter choice
//! merged from the environment, the camera pose parsed and the negated
//! flags turned around.

use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use unbound::output::{Msaa, Output, ToneMapping};
use unbound::{DebugView, Tier};
use unbound_harness::{AdapterChoice, parse_backend};

use crate::controls::CameraPose;

/// How the sun's shadows are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shadows {
    /// None.
    Off,
    /// Cascaded shadow maps (`on`).
    Maps,
    /// A shadow ray per lit fragment, through ray queries.
    RayQuery,
}

#[derive(Debug)]
pub struct Args {
    pub headless: bool,
    pub out: String,
    pub width: u32,
    pub height: u32,
    pub instances: u32,
    pub lights: u32,
    pub choice: AdapterChoice,
    pub tier: Option<Tier>,
    pub scene: Option<PathBuf>,
    pub environment: Option<PathBuf>,
    pub grid: u32,
    /// `--animation`: the clip to pose (an index or a name).
    pub animation: Option<String>,
    /// `--time`: the time to pose the clip at, in seconds (every copy at
    /// that time, the animation paused).
    pub time: Option<f32>,
    /// `--animation-on-cpu`: pose on the CPU instead (the GPU playback's
    /// reference).
    pub animation_on_cpu: bool,
    pub camera: Option<CameraPose>,
    pub camera_path: Option<PathBuf>,
    pub view: DebugView,
    /// The sun's shadows (`--shadows on|off|ray-query`).
    pub shadows: Shadows,
    /// Two-phase occlusion culling (`--occlusion on|off`, on by default).
    pub occlusion: bool,
    /// `--geometry forward|visibility`: forward shading (default) or the
    /// visibility buffer.
    pub geometry: unbound::Geometry,
    /// Level of detail (`--lod on|off`, off by default): the built-in
    /// scene's and a glTF file's meshes get simplified levels.
    pub lod: bool,
    /// Samples per pixel of the path-traced view (`--samples`).
    pub samples: u32,
    pub msaa: Msaa,
    pub output: Output,
    /// Automatic exposure: on for a glTF file unless `--exposure` fixes it.
    pub auto_exposure: bool,
    pub highlight_missing: bool,
    /// `--texture-budget MiB`: textures in pages, streamed under this many
    /// bytes of full-size layers.
    pub texture_budget: Option<u64>,
    pub freeze_cull: bool,
    pub bounds: bool,
    pub ui: bool,
    pub vsync: bool,
    pub frames: Option<u64>,
    pub screenshot: Option<PathBuf>,
    pub screenshot_ui: bool,
}

/// unbound's demo: the built-in scene or a glTF file, in a window or headless
/// to a PNG.
#[derive(Debug, Parser)]
#[command(
    name = "unbound-demo",
    // A flag given twice keeps its last value.
    args_override_self = true,
    after_help = "Without --headless a window opens (press F1 in it for the controls).\n\
                  UNBOUND_ADAPTER and UNBOUND_BACKEND choose the adapter when --adapter and --backend are absent."
)]
struct Cli {
    /// Render one frame to a PNG (--out) instead of opening a window
    #[arg(long, conflicts_with_all = ["frames", "screenshot"])]
    headless: bool,
    /// PNG written by --headless
    #[arg(long, value_name = "PATH", default_value = "frame.png")]
    out: String,
    /// Width of the window or image in pixels
    #[arg(long, value_name = "W", default_value_t = 1280, value_parser = positive_u32())]
    width: u32,
    /// Height of the window or image in pixels
    #[arg(long, value_name = "H", default_value_t = 720, value_parser = positive_u32())]
    height: u32,
    /// Objects in the built-in scene; also raises the object capacity
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = positive_u32())]
    instances: u32,
    /// Add N point lights at random (seeded) places in the scene's bounds,
    /// each reaching about 4 lights' worth of the scene; also raises the
    /// light capacity
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=i64::from(unbound::capacities::MAX_LIGHTS)))]
    lights: u32,
    /// Show a glTF file (.gltf or .glb) instead of the built-in scene
    #[arg(long, value_name = "FILE")]
    scene: Option<PathBuf>,
    /// Light the scene with an equirectangular Radiance .hdr image instead
    /// of the built-in procedural sky
    #[arg(long, value_name = "FILE.hdr")]
    environment: Option<PathBuf>,
    /// With --scene: N×N×N copies of the file on a grid
    #[arg(long = "instances-grid", value_name = "N", default_value_t = 1)]
    instances_grid: u32,
    /// With --scene: play the file's animation clip INDEX or NAME (default: the first) on the GPU; each --instances-grid copy plays with its own phase
    #[arg(long, value_name = "INDEX|NAME")]
    animation: Option<String>,
    /// With --scene: pose every copy at SECONDS of the clip (clips loop), paused (P plays on in the window); headless renders that pose
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = parse_time)]
    time: Option<f32>,
    /// With --scene and --time: pose on the CPU instead (rigid parts moved, skinned and morphed meshes deformed and added as meshes): the reference the GPU playback is compared with; still, in the window too
    #[arg(long = "animation-on-cpu")]
    animation_on_cpu: bool,
    /// Start pose: eye=x,y,z target=x,y,z [fovy=deg], one argument or several
    #[arg(
        long,
        num_args = 1..,
        value_name = "KEY=VALUE",
        conflicts_with = "camera_path"
    )]
    camera: Vec<String>,
    /// Replay a camera path (one pose per line, one per frame; headless renders the last)
    #[arg(long = "camera-path", value_name = "FILE")]
    camera_path: Option<PathBuf>,
    /// Debug view: lit, unlit, normals, uvs, material, object, draw, texture-slot, metallic, roughness, occlusion, emissive, tangents, light-count, cascades, lod, raster (compute against hardware rasteriser), hit-material or path-traced (these two traced with ray queries)
    #[arg(long, value_name = "VIEW", default_value = "lit", value_parser = parse_view)]
    view: DebugView,
    /// The sun's shadows: on (cascaded shadow maps), off, or ray-query (a shadow ray per lit fragment; needs an adapter with ray queries)
    #[arg(long, value_name = "MODE", default_value = "on", value_parser = parse_shadows)]
    shadows: Shadows,
    /// Two-phase occlusion culling: on (draw what was seen last frame, then what a depth pyramid of it does not hide) or off (frustum culling only); the image is the same
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = parse_switch, action = clap::ArgAction::Set)]
    occlusion: bool,
    /// Opaque surfaces: forward (each fragment shaded) or visibility (a visibility buffer, then each pixel shaded once; tier A at 1x MSAA, the lit view; forward elsewhere); the image is the same
    #[arg(long, value_name = "forward|visibility", default_value = "forward", value_parser = parse_geometry)]
    geometry: unbound::Geometry,
    /// Level of detail: on (the meshes of the built-in scene or the glTF file get simplified levels, each instance draws the coarsest whose error stays under 1 pixel) or off
    #[arg(long, value_name = "on|off", default_value = "off", value_parser = parse_switch, action = clap::ArgAction::Set)]
    lod: bool,
    /// Path-traced view: samples per pixel (headless traces them all, then writes the image; the window adds one a frame while nothing changes)
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = positive_u32())]
    samples: u32,
    /// Samples per pixel: 1 or 4 (the adapter permitting; not on the GL backend)
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_msaa)]
    msaa: Msaa,
    /// Fixed exposure in stops (EV): radiance is scaled by 2^EV before tone mapping. Default: 0 for the built-in scene; for a glTF file (lit in physical units, a sun of thousands of lux, say) automatic exposure, metered from each frame's luminance histogram, and the file's brightest directional light is the sun (its shadows)
    #[arg(long, value_name = "EV", value_parser = parse_exposure, allow_negative_numbers = true)]
    exposure: Option<f32>,
    /// Tone mapping: pbr-neutral, aces, agx or linear (exposure only)
    #[arg(long = "tone-mapping", value_name = "CURVE", default_value = "pbr-neutral", value_parser = parse_tone_mapping)]
    tone_mapping: ToneMapping,
    /// Paint pixels that sampled the missing texture (slot 0) magenta
    #[arg(long = "highlight-missing")]
    highlight_missing: bool,
    /// Stream textures under a budget of MiB mebibytes: textures in pages of texture arrays (tiers A and B), each held at 64² and, while the camera's feedback asks for more and the budget allows, at full size; the overlay shows resident, requested and evicted MiB. Tier C keeps every texture whole
    #[arg(long = "texture-budget", value_name = "MiB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    texture_budget: Option<u64>,
    /// Freeze the cull camera at the start pose
    #[arg(long = "freeze-cull")]
    freeze_cull: bool,
    /// Draw bounding boxes: green kept, red culled
    #[arg(long)]
    bounds: bool,
    /// Window: start with the overlay hidden (F1 shows it)
    #[arg(long = "no-ui")]
    no_ui: bool,
    /// Window: present without waiting for vertical sync
    #[arg(long = "no-vsync")]
    no_vsync: bool,
    /// Window: render N frames, then print a timing summary and exit
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,
    /// Window: save the last frame's render target (with --frames) to PATH
    #[arg(long, value_name = "PATH")]
    screenshot: Option<PathBuf>,
    /// Window: screenshots (--screenshot, F12) capture the window with the overlay
    #[arg(long = "screenshot-ui")]
    screenshot_ui: bool,
    /// Graphics backend: vulkan, dx12, metal or gl (default: UNBOUND_BACKEND, else all)
    #[arg(long, value_name = "BACKEND", value_parser = parse_backend_arg)]
    backend: Option<wgpu::Backends>,
    /// Use the adapter whose name contains NAME (default: UNBOUND_ADAPTER, else the first suitable)
    #[arg(long, value_name = "NAME")]
    adapter: Option<String>,
    /// Force a lower tier than the adapter supports: a, b or c
    #[arg(long, value_name = "TIER", value_parser = parse_tier)]
    tier: Option<Tier>,
}

fn positive_u32() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..)
}

fn parse_backend_arg(name: &str) -> Result<wgpu::Backends, String> {
    parse_backend(name).ok_or_else(|| format!("unknown backend {name} (vulkan, dx12, metal or gl)"))
}

fn parse_tier(name: &str) -> Result<Tier, String> {
    Tier::parse(name).ok_or_else(|| format!("unknown tier {name} (a, b or c)"))
}

fn parse_view(name: &str) -> Result<DebugView, String> {
    DebugView::parse(name).ok_or_else(|| {
        let names: Vec<_> = DebugView::ALL.iter().map(|v| v.name()).collect();
        format!("unknown view {name} (one of {})", names.join(", "))
    })
}

fn parse_shadows(name: &str) -> Result<Shadows, String> {
    match name {
        "on" => Ok(Shadows::Maps),
        "off" => Ok(Shadows::Off),
        "ray-query" => Ok(Shadows::RayQuery),
        _ => Err(format!("unknown shadows {name} (on, off or ray-query)")),
    }
}

fn parse_time(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(seconds) if seconds.is_finite() => Ok(seconds),
        _ => Err(format!("--time {text}: not a finite number of seconds")),
    }
}

fn parse_geometry(name: &str) -> Result<unbound::Geometry, String> {
    match name {
        "forward" => Ok(unbound::Geometry::Forward),
        "visibility" => Ok(unbound::Geometry::Visibility),
        other => Err(format!("unknown geometry {other}: forward or visibility")),
    }
}

fn parse_switch(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("unknown switch {text} (on or off)")),
    }
}

fn parse_msaa(samples: &str) -> Result<Msaa, String> {
    samples
        .parse()
        .ok()
        .and_then(Msaa::from_sample_count)
        .ok_or_else(|| format!("unknown sample count {samples} (1 or 4)"))
}

fn parse_exposure(ev: &str) -> Result<f32, String> {
    let exposure_ev: f32 = ev.parse().map_err(|e| format!("{ev}: {e}"))?;
    let output = Output {
        exposure_ev,
        ..Output::default()
    };
    output.validate().map_err(|e| e.to_string())?;
    Ok(exposure_ev)
}

fn parse_tone_mapping(name: &str) -> Result<ToneMapping, String> {
    ToneMapping::parse(name).ok_or_else(|| {
        let names: Vec<_> = ToneMapping::ALL.iter().map(|t| t.name()).collect();
        format!("unknown tone mapping {name} (one of {})", names.join(", "))
    })
}

/// Parses the process's arguments. `--help` comes back as an error whose
/// [`clap::Error::use_stderr`] is false (print it and exit 0).
pub fn parse() -> Result<Args, clap::Error> {
    parse_from(std::env::args_os())
}

/// Parses `list`, whose first item is the program name.
pub fn parse_from<I, T>(list: I) -> Result<Args, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Cli::try_parse_from(list)?.into_args()
}

impl Args {
    /// Whether the renderer needs ray queries: for ray-query shadows and
    /// the traced views (hit-material, path-traced).
    pub fn ray_queries(&self) -> bool {
        self.shadows == Shadows::RayQuery || self.view.traces_rays()
    }
}

impl Cli {
    fn into_args(self) -> Result<Args, clap::Error> {
        let auto_exposure = self.scene.is_some() && self.exposure.is_none();
        // `--camera eye=.. target=..` arrives as one value or several.
        let camera = if self.camera.is_empty() {
            None
        } else {
            let pose = CameraPose::parse(&self.camera.join(" ")).map_err(|e| {
                Cli::command().error(ErrorKind::ValueValidation, format!("--camera: {e}"))
            })?;
            Some(pose)
        };
        let mut choice = AdapterChoice::from_env(false);
        if let Some(backends) = self.backend {
            choice.backends = Some(backends);
        }
        if let Some(name) = self.adapter {
            choice.name = Some(name);
        }
        Ok(Args {
            headless: self.headless,
            out: self.out,
            width: self.width,
            height: self.height,
            instances: self.instances,
            lights: self.lights,
            choice,
            tier: self.tier,
            scene: self.scene,
            environment: self.environment,
            grid: self.instances_grid,
            animation: self.animation,
            time: self.time,
            animation_on_cpu: self.animation_on_cpu,
            camera,
            camera_path: self.camera_path,
            view: self.view,
            shadows: self.shadows,
            occlusion: self.occlusion,
            geometry: self.geometry,
            lod: self.lod,
            samples: self.samples,
            msaa: self.msaa,
            output: Output {
                exposure_ev: self.exposure.unwrap_or(0.0),
                tone_mapping: self.tone_mapping,
            },
            auto_exposure,
            highlight_missing: self.highlight_missing,
            texture_budget: self.texture_budget.map(|mib| mib << 20),
            freeze_cull: self.freeze_cull,
            bounds: self.bounds,
            ui: !self.no_ui,
            vsync: !self.no_vsync,
            frames: self.frames,
            screenshot: self.screenshot,
            screenshot_ui: self.screenshot_ui,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[&str]) -> Result<Args, clap::Error> {
        parse_from(std::iter::once("unbound-demo").chain(list.iter().copied()))
    }

    #[test]
    fn command_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn defaults() {
        let args = parse(&[]).unwrap();
        assert!(!args.headless);
        assert_eq!(args.out, "frame.png");
        assert_eq!(
            (args.width, args.height, args.instances),
            (1280, 720, 10_000)
        );
        assert_eq!(args.grid, 1);
        assert_eq!(args.view, DebugView::Lit);
        assert_eq!((args.msaa, args.output), (Msaa::X1, Output::default()));
        assert!(args.ui && args.vsync && args.shadows == Shadows::Maps && args.occlusion);
        assert!(!args.lod);
        assert!(args.camera.is_none() && args.tier.is_none() && args.frames.is_none());
        // The built-in scene: fixed 0 EV; a file: automatic exposure.
        assert!(!args.auto_exposure);
        assert!(parse(&["--scene", "a.glb"]).unwrap().auto_exposure);
    }

    #[test]
    fn camera_is_one_argument_or_several() {
        let one = parse(&["--camera", "eye=1,2,3 target=0,0,0 fovy=50"]).unwrap();
        let several = parse(&[
            "--camera",
            "eye=1,2,3",
            "target=0,0,0",
            "fovy=50",
            "--bounds",
        ])
        .unwrap();
        assert!(several.bounds);
        let (one, several) = (one.camera.unwrap(), several.camera.unwrap());
        assert_eq!(one.format(), several.format());
        assert_eq!(one.format(), "eye=1,2,3 target=0,0,0 fovy=50");
        let error = parse(&["--camera", "eye=1,2,3"]).unwrap_err();
        assert!(
            error.to_string().contains("target=x,y,z is missing"),
            "{error}"
        );
    }

    #[test]
    fn values_are_checked() {
        for (list, expected) in [
            (&["--instances", "zero"][..], "--instances"),
            (&["--width", "0"], "--width"),
            (&["--frames", "0"], "--frames"),
            (&["--tier", "d"], "unknown tier d"),
            (&["--view", "foo"], "unknown view foo"),
            (&["--shadows", "maybe"], "unknown shadows maybe"),
            (&["--occlusion", "maybe"], "unknown switch maybe"),
            (&["--lod", "maybe"], "unknown switch maybe"),
            (&["--backend", "foo"], "unknown backend foo"),
            (&["--msaa", "2"], "unknown sample count 2"),
            (&["--shadows", "maps"], "unknown shadows maps"),
            (&["--samples", "0"], "--samples"),
            (&["--exposure", "NaN"], "not finite"),
            (&["--exposure", "1e9"], "not finite"),
            (
                &["--tone-mapping", "reinhard"],
                "unknown tone mapping reinhard",
            ),
            (&["--bogus"], "--bogus"),
        ] {
            let error = parse(list).unwrap_err();
            assert!(error.use_stderr(), "{list:?}");
            assert!(error.to_string().contains(expected), "{list:?}: {error}");
        }
    }

    #[test]
    fn rules_between_flags() {
        let camera = [
            "--camera",
            "eye=1,2,3 target=0,0,0",
            "--camera-path",
            "p.txt",
        ];
        assert!(parse(&camera).is_err());
        assert!(parse(&["--headless", "--frames", "3"]).is_err());
        assert!(parse(&["--headless", "--screenshot", "a.png"]).is_err());
        // F12 screenshots honour --screenshot-ui without --screenshot.
        assert!(parse(&["--screenshot-ui"]).unwrap().screenshot_ui);
        let last = parse(&["--width", "10", "--width", "20", "--headless", "--headless"]);
        assert_eq!(last.unwrap().width, 20);
        let cameras = [
            "--camera",
            "eye=1,2,3",
            "target=0,0,0",
            "--camera",
            "eye=4,5,6 target=0,0,0",
        ];
        let camera = parse(&cameras).unwrap().camera.unwrap();
        assert_eq!(camera.format(), "eye=4,5,6 target=0,0,0 fovy=45");
    }

    #[test]
    fn values_are_read() {
        let args = parse(&[
            "--headless",
            "--out",
            "x.png",
            "--tier",
            "b",
            "--view",
            "texture-slot",
            "--backend",
            "gl",
            "--adapter",
            "llvm",
            "--no-ui",
            "--no-vsync",
            "--scene",
            "a.glb",
            "--instances-grid",
            "3",
            "--msaa",
            "4",
            "--exposure",
            "-1.5",
            "--tone-mapping",
            "agx",
            "--shadows",
            "off",
            "--occlusion",
            "off",
            "--lod",
            "on",
        ])
        .unwrap();
        assert!(args.lod);
        assert_eq!(args.msaa, Msaa::X4);
        assert!(!args.occlusion);
        assert_eq!(
            args.output,
            Output {
                exposure_ev: -1.5,
                tone_mapping: ToneMapping::Agx
            }
        );
        assert!(!args.auto_exposure, "--exposure fixes the exposure");
        assert_eq!(args.shadows, Shadows::Off);
        assert_eq!(args.out, "x.png");
        assert_eq!(args.tier, Some(Tier::B));
        assert_eq!(args.view, DebugView::TextureSlot);
        assert_eq!(args.choice.backends, Some(wgpu::Backends::GL));
        assert_eq!(args.choice.name.as_deref(), Some("llvm"));
        assert!(!args.ui && !args.vsync);
        assert_eq!(args.grid, 3);
    }

    #[test]
    fn texture_budget_is_in_mebibytes() {
        assert_eq!(parse(&[]).unwrap().texture_budget, None);
        let args = parse(&["--texture-budget", "256"]).unwrap();
        assert_eq!(args.texture_budget, Some(256 << 20));
        assert!(parse(&["--texture-budget", "0"]).is_err());
    }

    #[test]
    fn help_lists_every_option_and_view() {
        let error = parse(&["--help"]).unwrap_err();
        assert!(!error.use_stderr());
        let help = error.to_string();
        for argument in Cli::command().get_arguments() {
            if let Some(long) = argument.get_long() {
                assert!(
                    help.contains(&format!("--{long}")),
                    "--{long} missing:\n{help}"
                );
            }
        }
        for view in DebugView::ALL {
            assert!(
                help.contains(view.name()),
                "{} missing:\n{help}",
                view.name()
            );
        }
        for curve in ToneMapping::ALL {
            assert!(help.contains(curve.name()), "{curve:?} missing:\n{help}");
        }
    }
}
