//! `unbound-demo`: the built-in procedural scene or a glTF file, in a window
//! (fly through it, live statistics, debug views) or headless to a PNG. The
//! window mode is the reference example of embedding unbound: the demo owns
//! the device, queue and surface; unbound renders into a view it is given.
//!
//! `unbound-demo --help` lists every option (see [`args`]).
//!
//! Controls (window): see [`controls::HELP`], or press F1 in the window.

mod animation;
mod args;
mod capture;
mod controls;
mod headless;
mod overlay;
mod present;
mod renderer;
mod scene;
mod window;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = match args::parse() {
        Ok(args) => args,
        // `--help` prints to stdout and exits 0; a bad argument prints to
        // stderr and exits 1 like every other error (not clap's usual 2).
        Err(e) => {
            e.print().ok();
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = if args.headless {
        headless::run(&args)
    } else {
        window::run(args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
