//! Command line.

use std::path::PathBuf;

use unbound::{DebugView, Tier};
use unbound_harness::{AdapterChoice, parse_backend};

use crate::controls::CameraPose;

pub const USAGE: &str = "\
usage: unbound-demo [--headless --out frame.png] [--width W] [--height H] [--instances N]
                    [--scene FILE.gltf|.glb [--instances-grid N]]
                    [--camera eye=x,y,z target=x,y,z fovy=deg] [--camera-path FILE]
                    [--view lit|unlit|normals|uvs|material|object|draw|texture-slot]
                    [--highlight-missing] [--freeze-cull] [--bounds]
                    [--no-ui] [--no-vsync] [--frames N] [--screenshot PATH [--screenshot-ui]]
                    [--backend vulkan|dx12|metal|gl] [--adapter NAME] [--tier a|b|c]
Without --headless a window opens (press F1 in it for the controls).";

#[derive(Debug)]
pub struct Args {
    pub headless: bool,
    pub out: String,
    pub width: u32,
    pub height: u32,
    pub instances: u32,
    pub choice: AdapterChoice,
    pub tier: Option<Tier>,
    pub scene: Option<PathBuf>,
    pub grid: u32,
    pub camera: Option<CameraPose>,
    pub camera_path: Option<PathBuf>,
    pub view: DebugView,
    pub highlight_missing: bool,
    pub freeze_cull: bool,
    pub bounds: bool,
    pub ui: bool,
    pub vsync: bool,
    pub frames: Option<u64>,
    pub screenshot: Option<PathBuf>,
    pub screenshot_ui: bool,
}

pub fn parse() -> Result<Args, String> {
    parse_from(std::env::args().skip(1).collect())
}

pub fn parse_from(list: Vec<String>) -> Result<Args, String> {
    let mut args = Args {
        headless: false,
        out: "frame.png".into(),
        width: 1280,
        height: 720,
        instances: 10_000,
        choice: AdapterChoice::from_env(false),
        tier: None,
        scene: None,
        grid: 1,
        camera: None,
        camera_path: None,
        view: DebugView::Lit,
        highlight_missing: false,
        freeze_cull: false,
        bounds: false,
        ui: true,
        vsync: true,
        frames: None,
        screenshot: None,
        screenshot_ui: false,
    };
    let mut it = list.into_iter().peekable();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let number = |v: String| v.parse::<u32>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--headless" => args.headless = true,
            "--out" => args.out = value()?,
            "--width" => args.width = number(value()?)?,
            "--height" => args.height = number(value()?)?,
            "--instances" => args.instances = number(value()?)?,
            "--backend" => {
                let name = value()?;
                args.choice.backends =
                    Some(parse_backend(&name).ok_or(format!("unknown backend {name}"))?);
            }
            "--adapter" => args.choice.name = Some(value()?),
            "--scene" => args.scene = Some(value()?.into()),
            "--instances-grid" => args.grid = number(value()?)?,
            "--tier" => {
                let name = value()?;
                args.tier =
                    Some(Tier::parse(&name).ok_or(format!("unknown tier {name} (a, b or c)"))?);
            }
            "--camera" => {
                // Either one argument ("eye=... target=... fovy=...") or
                // several (eye=... target=... fovy=...).
                let mut text = value()?;
                while let Some(next) = it.peek()
                    && !next.starts_with("--")
                    && next.contains('=')
                {
                    text.push(' ');
                    text.push_str(&it.next().expect("peeked"));
                }
                args.camera = Some(CameraPose::parse(&text).map_err(|e| format!("--camera: {e}"))?);
            }
            "--camera-path" => args.camera_path = Some(value()?.into()),
            "--view" => {
                let name = value()?;
                args.view = DebugView::parse(&name).ok_or_else(|| {
                    let names: Vec<_> = DebugView::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown view {name} (one of {})", names.join(", "))
                })?;
            }
            "--highlight-missing" => args.highlight_missing = true,
            "--freeze-cull" => args.freeze_cull = true,
            "--bounds" => args.bounds = true,
            "--no-ui" => args.ui = false,
            "--no-vsync" => args.vsync = false,
            "--frames" => {
                let v = value()?;
                args.frames = Some(v.parse().map_err(|e| format!("--frames {v}: {e}"))?);
            }
            "--screenshot" => args.screenshot = Some(value()?.into()),
            "--screenshot-ui" => args.screenshot_ui = true,
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if args.width == 0 || args.height == 0 || args.instances == 0 {
        return Err("width, height and instances must be positive".into());
    }
    if args.camera.is_some() && args.camera_path.is_some() {
        return Err("--camera and --camera-path exclude each other".into());
    }
    if args.frames == Some(0) {
        return Err("--frames must be positive".into());
    }
    if args.headless && (args.screenshot.is_some() || args.frames.is_some()) {
        return Err(
            "--frames and --screenshot are for the window; headless runs write --out".into(),
        );
    }
    Ok(args)
}
