//! The demo binary renders the built-in scene headless, writes a PNG and
//! reports a visible count that matches its CPU reference (it exits with an
//! error otherwise).

use std::path::PathBuf;
use std::process::Command;

/// Runs the demo headless with `args`, writing to a temporary PNG; returns
/// (success, stdout and stderr, the PNG's path). `adapter` pins the adapter
/// name (the software one unless UNBOUND_ADAPTER says otherwise), `None`
/// lets `--backend` choose.
fn run_demo(name: &str, args: &[&str], adapter: Option<&str>) -> (bool, String, PathBuf) {
    // One demo process at a time: Mesa's GL (llvmpipe) and Vulkan (lavapipe)
    // drivers running side by side on two cores were seen to slow a run from
    // a second to minutes.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let out = std::env::temp_dir().join(format!("unbound-demo-{name}-{}.png", std::process::id()));
    let mut command = Command::new(env!("CARGO_BIN_EXE_unbound-demo"));
    command.arg("--headless").args(args).arg("--out").arg(&out);
    match adapter {
        Some(default) => {
            command.env(
                "UNBOUND_ADAPTER",
                std::env::var("UNBOUND_ADAPTER").unwrap_or_else(|_| default.into()),
            );
        }
        None => {
            command.env_remove("UNBOUND_ADAPTER");
        }
    }
    let output = command.output().expect("run unbound-demo");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text, out)
}

#[test]
fn demo_renders_headless_png() {
    let (ok, text, out) = run_demo(
        "procedural",
        &["--width", "160", "--height", "90", "--instances", "3000"],
        Some("llvmpipe"),
    );
    assert!(ok, "demo failed:\n{text}");
    for line in [
        "adapter:",
        "tier: A",
        "visible instances:",
        "draws:",
        "triangles:",
        "GPU time:",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    let image = image::open(&out).expect("demo wrote a PNG").to_rgba8();
    assert_eq!(image.dimensions(), (160, 90));
    let distinct: std::collections::HashSet<_> = image.pixels().map(|p| p.0).collect();
    assert!(
        distinct.len() > 100,
        "image looks empty ({} colours)",
        distinct.len()
    );
    std::fs::remove_file(out).ok();
}

#[test]
fn demo_runs_tier_c_on_gl_and_says_why() {
    let (ok, text, out) = run_demo(
        "gl",
        &[
            "--width",
            "160",
            "--height",
            "90",
            "--instances",
            "2000",
            "--backend",
            "gl",
            "--tier",
            "c",
        ],
        None,
    );
    assert!(ok, "GL demo failed:\n{text}");
    assert!(text.contains("tier: C"), "{text}");
    assert!(
        text.contains("better tier not available"),
        "the reasons are printed: {text}"
    );
    std::fs::remove_file(out).ok();
}

#[test]
fn demo_renders_a_gltf_scene() {
    let helmet = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/FlightHelmet/FlightHelmet.gltf"
    );
    let (ok, text, out) = run_demo(
        "gltf",
        &["--width", "96", "--height", "96", "--scene", helmet],
        Some("llvmpipe"),
    );
    assert!(ok, "glTF demo failed:\n{text}");
    assert!(
        text.contains("6 objects, 6 meshes, 6 materials, 15 textures"),
        "{text}"
    );
    assert!(text.contains("visible instances: 6"), "{text}");
    std::fs::remove_file(out).ok();
}

/// `--animation NAME --time SECONDS` poses the Fox headless, played on
/// the GPU (the playback pass's palettes, skinned in the vertex pulling):
/// the pose at 0.3 s of "Run" is another image than at 0 s, and each
/// equals the CPU-posed twin (`--animation-on-cpu`: the mesh deformed on
/// the CPU and drawn static) but for at most 1% of the pixels, by more
/// than 8 of 255 (silhouette pixels, where the GPU's own rounding of the
/// skinned positions moves an edge; the interior is checked exactly by
/// `tests/animation_gpu.rs`). An unknown clip fails, naming the file's
/// clips.
#[test]
fn demo_poses_a_gltf_animation_at_a_time() {
    let fox = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/gltfpack/Fox.glb");
    let render = |name: &str, time: &str, cpu: bool| {
        let mut args = vec![
            "--width",
            "96",
            "--height",
            "64",
            "--scene",
            fox,
            "--animation",
            "Run",
            "--time",
            time,
        ];
        if cpu {
            args.push("--animation-on-cpu");
        }
        let (ok, text, out) = run_demo(name, &args, Some("llvmpipe"));
        assert!(ok, "posed demo failed:\n{text}");
        let line = if cpu {
            format!("posed: clip 2 \"Run\" of 1.158 s at {time} s (1 objects deformed")
        } else {
            format!(
                "playing on the GPU: clip 2 \"Run\" of 1.158 s at {time} s \
                 (1 objects skinned, 1 copies, paused)"
            )
        };
        assert!(text.contains(&line), "{line:?} not in:\n{text}");
        assert!(text.contains("visible instances: 1"), "{text}");
        let image = image::open(&out).expect("demo wrote a PNG").to_rgba8();
        std::fs::remove_file(out).ok();
        image
    };
    let differing = |a: &image::RgbaImage, b: &image::RgbaImage, tolerance: u8| {
        a.pixels()
            .zip(b.pixels())
            .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > tolerance))
            .count()
    };
    let (start, later) = (render("fox0", "0", false), render("fox03", "0.3", false));
    let moved = differing(&start, &later, 0);
    assert!(moved > 100, "{moved} pixels differ between the poses");
    for (time, gpu) in [("0", &start), ("0.3", &later)] {
        let cpu = render(&format!("fox-cpu-{time}"), time, true);
        let off = differing(gpu, &cpu, 8);
        eprintln!("t = {time}: {off} pixels differ from the CPU-posed twin by more than 8");
        assert!(
            off * 100 <= (96 * 64),
            "t = {time}: {off} pixels differ from the CPU-posed twin"
        );
    }
    let (ok, text, _) = run_demo(
        "fox-bad",
        &["--scene", fox, "--animation", "Jump"],
        Some("llvmpipe"),
    );
    assert!(!ok, "an unknown clip must fail:\n{text}");
    assert!(text.contains("0 Survey, 1 Walk, 2 Run"), "{text}");
}

/// `--instances-grid 2` without `--time`: eight copies, each playing the
/// first clip from its own phase (the description says so, and the copies
/// do not all show the same pose: two renders of copies in step and out
/// of step differ).
#[test]
fn demo_grid_copies_play_at_their_own_phase() {
    let fox = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/gltfpack/Fox.glb");
    let render = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "--width",
            "96",
            "--height",
            "64",
            "--scene",
            fox,
            "--instances-grid",
            "2",
        ];
        args.extend_from_slice(extra);
        let (ok, text, out) = run_demo(name, &args, Some("llvmpipe"));
        assert!(ok, "grid demo failed:\n{text}");
        let image = image::open(&out).expect("demo wrote a PNG").to_rgba8();
        std::fs::remove_file(out).ok();
        (text, image)
    };
    let (text, phased) = render("fox-grid", &[]);
    assert!(
        text.contains("clip 0 \"Survey\" of") && text.contains("8 copies, each at its own phase"),
        "{text}"
    );
    let (text, in_step) = render("fox-grid-0", &["--time", "0"]);
    assert!(text.contains("8 copies, paused"), "{text}");
    let differing = phased
        .pixels()
        .zip(in_step.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert!(differing > 20, "{differing} pixels differ");
}

#[test]
fn bad_arguments_fail() {
    let (ok, text, _) = run_demo("bad", &["--instances", "zero"], Some("llvmpipe"));
    assert!(!ok, "bad arguments must fail:\n{text}");
    assert!(text.contains("--instances"), "{text}");
}

/// A 4x2 Radiance `.hdr` file (flat RGBE scanlines): the upper row
/// `top`, the lower `bottom`, each an RGBE texel.
fn hdr_file(name: &str, top: [u8; 4], bottom: [u8; 4]) -> PathBuf {
    let mut bytes = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 4\n".to_vec();
    for texel in [top; 4].into_iter().chain([bottom; 4]) {
        bytes.extend(texel);
    }
    let path = std::env::temp_dir().join(format!("unbound-demo-{name}-{}.hdr", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn mean_rgb(path: &std::path::Path) -> [f64; 3] {
    let image = image::open(path).expect("demo wrote a PNG").to_rgba8();
    let mut sum = [0.0; 3];
    for p in image.pixels() {
        for (total, byte) in sum.iter_mut().zip(p.0) {
            *total += f64::from(byte);
        }
    }
    sum.map(|s| s / f64::from(image.width() * image.height()))
}

#[test]
fn demo_lights_with_an_hdr_environment_and_refuses_a_malformed_one() {
    let size = ["--width", "64", "--height", "36", "--instances", "500"];
    // Red light from everywhere: the scene turns redder than under the sky.
    let red = hdr_file("red", [128, 0, 0, 130], [128, 0, 0, 130]);
    let red_arg = red.to_str().unwrap();
    let (ok, text, red_out) = run_demo(
        "hdr-red",
        &[&size[..], &["--environment", red_arg]].concat(),
        Some("llvmpipe"),
    );
    assert!(ok, "demo with --environment failed:\n{text}");
    let (ok, text, sky_out) = run_demo("hdr-sky", &size, Some("llvmpipe"));
    assert!(ok, "demo failed:\n{text}");
    let (lit_red, sky) = (mean_rgb(&red_out), mean_rgb(&sky_out));
    assert!(
        lit_red[0] - lit_red[2] > sky[0] - sky[2] + 5.0,
        "red environment {lit_red:?} vs sky {sky:?}"
    );
    // A file that is not an .hdr: a typed error, printed, and a failure.
    let bad = std::env::temp_dir().join(format!("unbound-demo-bad-{}.hdr", std::process::id()));
    std::fs::write(&bad, b"#?RADIANCE\nnot really").unwrap();
    let (ok, text, _) = run_demo(
        "hdr-bad",
        &[&size[..], &["--environment", bad.to_str().unwrap()]].concat(),
        Some("llvmpipe"),
    );
    assert!(!ok && text.contains("--environment"), "{text}");
    for path in [red, bad, red_out, sky_out] {
        std::fs::remove_file(path).ok();
    }
}

/// `--lights N` adds N seeded point lights (the same image twice), which
/// brighten the scene; `--view light-count` shows their clusters' counts
/// as a heat map (black where no light reaches, blue to red elsewhere); a
/// count over the light pass's maximum is refused by the parser.
#[test]
fn demo_adds_point_lights_and_shows_their_heat_map() {
    let size = ["--width", "96", "--height", "54", "--instances", "800"];
    let run = |name: &str, extra: &[&str]| {
        let (ok, text, out) = run_demo(name, &[&size[..], extra].concat(), Some("llvmpipe"));
        assert!(ok, "demo {extra:?} failed:\n{text}");
        (text, out)
    };
    let (_, unlit) = run("no-lights", &[]);
    let (text, lit) = run("lights", &["--lights", "400"]);
    assert!(text.contains("400 point lights"), "{text}");
    let (_, again) = run("lights-again", &["--lights", "400"]);
    let image = |path: &PathBuf| image::open(path).unwrap().to_rgba8();
    assert_eq!(image(&lit), image(&again), "--lights is not reproducible");
    let (lit_mean, unlit_mean) = (mean_rgb(&lit), mean_rgb(&unlit));
    assert!(
        lit_mean.iter().sum::<f64>() > unlit_mean.iter().sum::<f64>() + 3.0,
        "lights {lit_mean:?} vs none {unlit_mean:?}"
    );
    let (_, heat) = run("light-count", &["--lights", "400", "--view", "light-count"]);
    let heat = image(&heat);
    // The ramp's colours: blue through cyan, green and yellow to red.
    let ramp = heat
        .pixels()
        .filter(|p| p[0].min(p[1]).min(p[2]) == 0 && p[0].max(p[1]).max(p[2]) > 200)
        .count();
    assert!(ramp > 96 * 54 / 4, "{ramp} heat-map pixels");
    let (ok, text, _) = run_demo("too-many", &["--lights", "2000000"], Some("llvmpipe"));
    assert!(!ok && text.contains("--lights"), "{text}");
    for path in [unlit, lit, again] {
        std::fs::remove_file(path).ok();
    }
}

/// `--msaa 4`, `--exposure` and `--tone-mapping` reach the renderer: two
/// stops more exposure brighten the image, 4× renders, and GL (whose wgpu
/// backend cannot read a multisampled texture) refuses 4× with the reason.
#[test]
fn demo_takes_msaa_exposure_and_tone_mapping() {
    let size = ["--width", "64", "--height", "36", "--instances", "500"];
    let run = |name: &str, extra: &[&str]| {
        let (ok, text, out) = run_demo(name, &[&size[..], extra].concat(), Some("llvmpipe"));
        assert!(ok, "demo {extra:?} failed:\n{text}");
        let mean = mean_rgb(&out);
        std::fs::remove_file(out).ok();
        mean
    };
    let dark = run(
        "exposure-dark",
        &["--exposure", "-2", "--tone-mapping", "aces"],
    );
    let bright = run(
        "exposure-bright",
        &["--exposure", "2", "--tone-mapping", "aces"],
    );
    assert!(
        bright.iter().sum::<f64>() > dark.iter().sum::<f64>() + 60.0,
        "+2 EV {bright:?} vs -2 EV {dark:?}"
    );
    run("msaa", &["--msaa", "4", "--tone-mapping", "agx"]);
    let (ok, text, _) = run_demo(
        "msaa-gl",
        &[&size[..], &["--backend", "gl", "--msaa", "4"]].concat(),
        None,
    );
    assert!(!ok && text.contains("multisampled"), "{text}");
}

/// `--shadows ray-query`, `--view hit-material` and `--view path-traced`
/// open a device with ray queries (lavapipe has them) and render: shadow
/// rays darken the lit image, as the default shadow maps do, the traced material ids equal the drawn ones
/// on most pixels (the rest are silhouettes at this size), and the path
/// tracer traces the samples asked for.
#[test]
fn demo_traces_shadow_rays_and_the_hit_material_view() {
    let size = ["--width", "64", "--height", "36", "--instances", "500"];
    let run = |name: &str, extra: &[&str]| {
        let (ok, text, out) = run_demo(name, &[&size[..], extra].concat(), Some("llvmpipe"));
        assert!(ok, "demo {extra:?} failed:\n{text}");
        let image = image::open(&out).expect("demo wrote a PNG").to_rgba8();
        std::fs::remove_file(out).ok();
        image
    };
    let mean = |image: &image::RgbaImage| {
        image
            .pixels()
            .map(|p| p.0[..3].iter().map(|&c| f64::from(c)).sum::<f64>())
            .sum::<f64>()
            / f64::from(image.width() * image.height())
    };
    let unshadowed = run("shadows-off", &["--shadows", "off"]);
    let shadowed = run("shadows-ray-query", &["--shadows", "ray-query"]);
    let maps = run("shadows-on", &[]);
    for (name, image) in [("ray-query", &shadowed), ("maps (the default)", &maps)] {
        assert!(
            mean(image) < mean(&unshadowed) - 3.0,
            "shadowed by {name} {} vs unshadowed {}",
            mean(image),
            mean(&unshadowed)
        );
    }
    let drawn = run("material", &["--view", "material"]);
    let traced = run("hit-material", &["--view", "hit-material"]);
    let equal = drawn
        .pixels()
        .zip(traced.pixels())
        .filter(|(a, b)| a == b)
        .count();
    let total = drawn.pixels().len();
    assert!(
        equal * 10 >= total * 9,
        "{equal} of {total} pixels show the same material id"
    );
    assert!(
        drawn.pixels().any(|p| p.0 != [0, 0, 0, 0]),
        "the material view drew nothing"
    );
    // The path-traced view: --samples per pixel, then the image; it shows
    // the scene about as bright as the lit view does.
    let (ok, text, out) = run_demo(
        "path-traced",
        &[&size[..], &["--view", "path-traced", "--samples", "8"]].concat(),
        Some("llvmpipe"),
    );
    assert!(
        ok,
        "demo --view path-traced failed:
{text}"
    );
    assert!(text.contains("path traced: 8 samples per pixel"), "{text}");
    let traced = image::open(&out).expect("demo wrote a PNG").to_rgba8();
    std::fs::remove_file(out).ok();
    let (traced, lit) = (mean(&traced), mean(&unshadowed));
    assert!(
        (traced - lit).abs() < 0.35 * lit,
        "path traced {traced} vs lit {lit}"
    );
}
