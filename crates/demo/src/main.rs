//! `unbound-demo`: the built-in procedural scene or a glTF file, in a window
//! (fly through it, live statistics, debug views) or headless to a PNG. The
//! window mode is the reference example of embedding unbound: the demo owns
//! the device, queue and surface; unbound renders into a view it is given.
//!
//! ```text
//! unbound-demo [--headless --out frame.png] [--width W] [--height H]
//!              [--instances N] [--scene FILE.gltf|.glb [--instances-grid N]]
//!              [--camera eye=x,y,z target=x,y,z fovy=deg] [--camera-path FILE]
//!              [--view lit|unlit|normals|uvs|material|object|draw|texture-slot]
//!              [--highlight-missing] [--freeze-cull] [--bounds]
//!              [--no-ui] [--no-vsync] [--frames N] [--screenshot PATH [--screenshot-ui]]
//!              [--backend vulkan|dx12|metal|gl] [--adapter NAME] [--tier a|b|c]
//! ```
//!
//! Controls (window): see [`controls::HELP`] or the README.

mod args;
mod capture;
mod controls;
mod headless;
mod overlay;
mod present;
mod scene;
mod window;

use std::process::ExitCode;

fn main() -> ExitCode {
    let result = args::parse().and_then(|args| {
        if args.headless {
            headless::run(&args)
        } else {
            window::run(args)
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
