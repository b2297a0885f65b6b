//! [`super`]'s tests: which runs a command line plans.

use clap::Parser;

use super::*;
use crate::cli::{Cli, Command};

fn planned(args: &[&str]) -> Vec<(Run, RenderPath)> {
    let args = std::iter::once("unbound-bench").chain(args.iter().copied());
    let Command::Run(options, _) = Cli::try_parse_from(args).unwrap().command() else {
        panic!("expected a run");
    };
    plan(&options)
        .into_iter()
        .flat_map(|run| {
            options
                .paths
                .iter()
                .filter(move |&&path| run.measures(path))
                .map(move |&path| (run, path))
        })
        .collect()
}

#[test]
fn quick_runs_every_scene_switch_and_the_cull_pass() {
    let described: Vec<String> = planned(&["--quick"])
        .into_iter()
        .map(|(run, path)| {
            format!(
                "{} {} {} {} {} {} {:?}",
                run.scene_name(),
                path.name(),
                run.instances,
                crate::results::indirect_name(run.indirect()),
                run.validation_indirect_call(),
                run.textures(),
                run.tier()
            )
        })
        .collect();
    assert_eq!(
        described,
        [
            "draw-bound unbound 1000 count true 1024 A",
            "draw-bound baseline 1000 count true 1024 A",
            "raster-bound unbound 1000 count true 1024 A",
            "raster-bound baseline 1000 count true 1024 A",
            "cube-grid unbound 1000 count true 64 A",
            "cube-grid baseline 1000 count true 64 A",
            "city unbound 1000 count true 64 A",
            "city baseline 1000 count true 64 A",
            "crowd unbound 1000 count true 1 A",
            "crowd-static unbound 1000 count true 1 A",
            "draw-bound unbound 1000 plain true 1024 A",
            "draw-bound unbound 1000 plain false 1024 A",
            "draw-bound unbound 1000 count false 1024 A",
            "draw-bound baseline 1000 count false 1024 A",
            "draw-bound unbound 1000 count true 16 A",
            "draw-bound baseline 1000 count true 16 A",
            "draw-bound unbound 1000 count true 4096 A",
            "draw-bound baseline 1000 count true 4096 A",
            "cull-only unbound 65536 count true 16 A",
        ]
    );
}

#[test]
fn shadows_on_adds_a_shadowed_unbound_run_after_each_frame_and_the_cull() {
    let runs = planned(&[
        "--scenes",
        "cube-grid",
        "--sizes",
        "100000,1000000",
        "--cull-only",
        "1000000",
        "--shadows",
        "on",
    ]);
    let described: Vec<String> = runs
        .iter()
        .map(|(run, path)| {
            format!(
                "{} {} {} {}",
                run.scene_name(),
                path.name(),
                run.instances,
                run.shadows
            )
        })
        .collect();
    assert_eq!(
        described,
        [
            "cube-grid unbound 100000 false",
            "cube-grid baseline 100000 false",
            "cube-grid unbound 100000 true",
            "cube-grid unbound 1000000 false",
            "cube-grid baseline 1000000 false",
            "cube-grid unbound 1000000 true",
            "cull-only unbound 1000000 false",
            "cull-only unbound 1000000 true",
        ]
    );
    let off = planned(&["--quick", "--shadows", "off"]);
    assert!(off.iter().all(|(run, _)| !run.shadows));
}

#[test]
fn lights_run_on_unbound_beside_the_draw_bound_frame() {
    let runs = planned(&[
        "--scenes",
        "cube-grid",
        "--sizes",
        "100000",
        "--lights",
        "0,1000,10000",
        "--cull-only",
        "0",
    ]);
    let described: Vec<_> = runs
        .iter()
        .map(|(run, path)| (run.scene_name(), run.lights(), path.name()))
        .collect();
    assert_eq!(
        described,
        [
            ("cube-grid", 0, "unbound"),
            ("cube-grid", 0, "baseline"),
            ("draw-bound", 0, "unbound"),
            ("draw-bound", 0, "baseline"),
            ("draw-bound", 1000, "unbound"),
            ("draw-bound", 10000, "unbound"),
        ]
    );
    // One range whatever the count: more lights overlap more.
    let scene = unbound_scenes::bench::build(BenchScene::DrawBound, 2000, 16);
    let few = with_lights(scene.clone(), 10);
    let many = with_lights(scene, 100);
    assert_eq!((few.lights.len(), many.lights.len()), (10, 100));
    let range = |s: &SceneSpec| s.lights[0].range.unwrap();
    assert!((range(&few) - range(&many)).abs() < 1e-3 * range(&few));
}

#[test]
fn tiers_run_on_unbound_at_the_listed_sizes() {
    let runs = planned(&[
        "--scenes",
        "draw-bound",
        "--sizes",
        "1000,10000",
        "--tiers",
        "--cull-only",
        "0",
    ]);
    let tiers: Vec<_> = runs
        .iter()
        .filter(|(run, _)| matches!(run.kind, RunKind::Tier(_)))
        .map(|(run, path)| (run.tier(), run.instances, run.indirect(), *path))
        .collect();
    assert_eq!(
        tiers,
        [
            (Tier::B, 10_000, IndirectMode::Plain, RenderPath::Unbound),
            (Tier::C, 10_000, IndirectMode::Plain, RenderPath::Unbound),
        ]
    );
}

/// `--tiers` with `--textures` measures the heap on tiers B and C too,
/// unbound only, with plain indirect draws as `RunKind::Tier`; tier C
/// only the sizes its arrays hold.
#[test]
fn heap_sizes_run_on_every_tier_with_tiers() {
    let runs = planned(&[
        "--scenes",
        "draw-bound",
        "--sizes",
        "1000",
        "--textures",
        "16,2046,65536",
        "--sampled-textures",
        "16",
        "--tiers",
        "--cull-only",
        "0",
    ]);
    let heaps: Vec<_> = runs
        .iter()
        .filter(|(run, _)| matches!(run.kind, RunKind::HeapSwitch { .. }))
        .map(|(run, path)| (run.tier(), run.textures(), run.indirect(), *path))
        .collect();
    let (u, b) = (RenderPath::Unbound, RenderPath::Baseline);
    let (count, plain) = (IndirectMode::Count, IndirectMode::Plain);
    assert_eq!(
        heaps,
        [
            (Tier::A, 16, count, u),
            (Tier::A, 16, count, b),
            (Tier::A, 2046, count, u),
            (Tier::A, 2046, count, b),
            (Tier::A, 65536, count, u),
            (Tier::A, 65536, count, b),
            (Tier::B, 16, plain, u),
            (Tier::B, 2046, plain, u),
            (Tier::B, 65536, plain, u),
            (Tier::C, 16, plain, u),
            (Tier::C, 2046, plain, u),
        ]
    );
}
