//! [`super`]'s tests: every run reads back from its JSON, merging.

use super::*;

#[test]
fn every_measured_run_reads_back_from_its_json_fields() {
    let kinds = [
        RunKind::Frame(BenchScene::DrawBound),
        RunKind::Frame(BenchScene::RasterBound),
        RunKind::Frame(BenchScene::CubeGrid),
        RunKind::Frame(BenchScene::City),
        RunKind::Frame(BenchScene::Crowd),
        RunKind::Frame(BenchScene::CrowdStatic),
        RunKind::IndirectSwitch {
            indirect: IndirectMode::Plain,
            validation_indirect_call: false,
        },
        RunKind::IndirectSwitch {
            indirect: IndirectMode::Count,
            validation_indirect_call: false,
        },
        RunKind::HeapSwitch {
            textures: 16,
            sampled: 16,
            tier: Tier::A,
        },
        RunKind::HeapSwitch {
            textures: 4096,
            sampled: 4096,
            tier: Tier::A,
        },
        RunKind::HeapSwitch {
            textures: 65536,
            sampled: 16,
            tier: Tier::A,
        },
        RunKind::HeapSwitch {
            textures: 1024,
            sampled: 16,
            tier: Tier::A,
        },
        RunKind::HeapSwitch {
            textures: 65536,
            sampled: 16,
            tier: Tier::B,
        },
        RunKind::HeapSwitch {
            textures: 16,
            sampled: 16,
            tier: Tier::C,
        },
        RunKind::Tier(Tier::B),
        RunKind::Tier(Tier::C),
        RunKind::CullOnly,
        RunKind::Lights { lights: 10_000 },
    ];
    for kind in kinds {
        for shadows in [false, true] {
            let run = Run {
                kind,
                instances: 1000,
                shadows,
            };
            let paths = [RenderPath::Unbound, RenderPath::Baseline];
            for (path, occlusion) in paths.into_iter().flat_map(|p| [(p, false), (p, true)]) {
                if !run.measures(path) {
                    continue;
                }
                let id = RunId::new(run, path, occlusion, false);
                let culls = path == RenderPath::Unbound && kind != RunKind::CullOnly;
                assert_eq!(id.occlusion, occlusion && culls);
                let json = serde_json::to_string(&id).unwrap();
                assert_eq!(json.contains("shadows"), shadows, "{json}");
                let sampling = run.sampled_textures() != run.textures();
                assert_eq!(json.contains("sampled_textures"), sampling, "{json}");
                assert_eq!(json.contains("occlusion"), id.occlusion, "{json}");
                let back: RunId = serde_json::from_str(&json).unwrap();
                assert_eq!(back, id, "{json}");
            }
        }
    }
}

/// The depth pre-pass is part of a run's identity on unbound's frame
/// runs (so merged results keep both modes apart), left out of the
/// JSON when off, and not a run the baseline or the cull-only run make.
#[test]
fn the_depth_prepass_reads_back_where_it_runs() {
    let frame = Run {
        kind: RunKind::Lights { lights: 1000 },
        instances: 1000,
        shadows: false,
    };
    let on = RunId::new(frame, RenderPath::Unbound, true, false).with_depth_prepass(true);
    let off = RunId::new(frame, RenderPath::Unbound, true, false);
    assert!(on.depth_prepass && !off.depth_prepass);
    assert_ne!(on, off);
    let json = serde_json::to_string(&on).unwrap();
    assert!(json.contains("\"depth_prepass\":true"), "{json}");
    assert_eq!(serde_json::from_str::<RunId>(&json).unwrap(), on);
    let json_off = serde_json::to_string(&off).unwrap();
    assert!(!json_off.contains("depth_prepass"), "{json_off}");
    let cull_only = Run {
        kind: RunKind::CullOnly,
        ..frame
    };
    for (run, path) in [
        (frame, RenderPath::Baseline),
        (cull_only, RenderPath::Unbound),
    ] {
        let id = RunId::new(run, path, false, false).with_depth_prepass(true);
        assert!(!id.depth_prepass, "{id:?}");
        let json = serde_json::to_string(&id)
            .unwrap()
            .replace("\"path\"", "\"depth_prepass\":true,\"path\"");
        assert!(serde_json::from_str::<RunId>(&json).is_err(), "{json}");
    }
}

#[test]
fn results_from_before_tiers_read_as_tier_a() {
    let json = r#"{"scene":"draw-bound","path":"unbound","indirect":"count",
        "validation_indirect_call":true,"instances":10,"textures":1024}"#;
    let id: RunId = serde_json::from_str(json).unwrap();
    assert_eq!(id.run.kind, RunKind::Frame(BenchScene::DrawBound));
    let odd = json.replace("draw-bound", "elsewhere");
    assert!(serde_json::from_str::<RunId>(&odd).is_err());
    // Occlusion culling where it does not run is not a run this bench
    // makes.
    let baseline = json
        .replace("unbound", "baseline")
        .replace("\"path\"", "\"occlusion\":true,\"path\"");
    assert!(
        serde_json::from_str::<RunId>(&baseline).is_err(),
        "{baseline}"
    );
}

/// A result of `id` with most optional fields.
fn sample_result(id: RunId) -> RunResult {
    let stat = |median| Stat {
        median,
        p10: median,
        p90: median,
    };
    RunResult {
        id,
        changed_per_frame: 10,
        frames: 3,
        cpu_update_ms: stat(0.1),
        cpu_record_ms: stat(0.2),
        cpu_submit_ms: stat(0.3),
        cpu_total_ms: stat(0.6),
        frame_ms: stat(1.0),
        gpu_cull_ms: Some(stat(0.01)),
        gpu_draw_ms: Some(stat(0.5)),
        gpu_prepass_ms: Some(stat(0.25)),
        gpu_output_ms: Some(stat(0.05)),
        gpu_lights_ms: None,
        gpu_pyramid_ms: Some(stat(0.02)),
        gpu_late_cull_ms: Some(stat(0.03)),
        gpu_animation_ms: None,
        gpu_shadows_ms: None,
        span_ms: None,
        lead_ms: None,
        visible_instances: 400,
        occlusion_counts: Some(OcclusionCounts {
            early_instances: 90,
            late_instances: 10,
            occluded_instances: 300,
            ..Default::default()
        }),
        draws: 3,
        triangles: 1200,
        gpu_memory_bytes: 1 << 20,
        cull_subgroups: None,
        geometry: None,
        instances_per_ms: None,
        bandwidth_bound_ms: None,
        copy_bandwidth_bytes_per_s: None,
        small_triangles: Some(crate::small_triangles::SmallTriangles {
            instances: 100,
            submitted: 1200,
            drawn: 500,
            under_1px: 40,
            histogram: [10, 30, 100, 300, 60],
            ..Default::default()
        }),
        light_lists: Some(LightLists {
            grid: [32, 18, 24],
            clusters: 13_824,
            overflowed_frames: 1,
            ..Default::default()
        }),
        clusters: None,
    }
}

/// A result with every optional field, and one from before the
/// occlusion statistics: both read back, the new fields as written or
/// absent.
#[test]
fn occlusion_statistics_read_back_and_older_results_still_read() {
    let run = Run {
        kind: RunKind::Frame(BenchScene::City),
        instances: 1000,
        shadows: false,
    };
    let result = sample_result(RunId::new(run, RenderPath::Unbound, true, false));
    let json = serde_json::to_value(&result).unwrap();
    let back: RunResult = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back.id, result.id);
    assert_eq!(back.occlusion_counts, result.occlusion_counts);
    assert_eq!(back.gpu_pyramid_ms.map(|s| s.median), Some(0.02));
    assert_eq!(back.gpu_late_cull_ms.map(|s| s.median), Some(0.03));
    assert_eq!(back.small_triangles, result.small_triangles);
    let lists = back.light_lists.unwrap();
    assert_eq!((lists.grid, lists.overflowed_frames), ([32, 18, 24], 1));
    // As written before: no occlusion field, counts or times.
    let mut older = json;
    let fields = older.as_object_mut().unwrap();
    for field in [
        "occlusion",
        "occlusion_counts",
        "gpu_pyramid_ms",
        "gpu_late_cull_ms",
        "small_triangles",
        "light_lists",
    ] {
        assert!(fields.remove(field).is_some(), "{field} written");
    }
    let back: RunResult = serde_json::from_value(older).unwrap();
    assert!(!back.id.occlusion);
    assert_eq!(back.occlusion_counts, None);
    assert!(back.gpu_pyramid_ms.is_none() && back.gpu_late_cull_ms.is_none());
    assert_eq!(back.small_triangles, None);
    assert!(back.light_lists.is_none());
}

/// A debug view is part of a run's identity: written as `debug_view` where
/// not lit, read back, kept apart when merged and named in the report's
/// rows and progress line; not a run the baseline makes.
#[test]
fn runs_of_different_debug_views_are_different_runs() {
    let run = Run {
        kind: RunKind::Frame(BenchScene::City),
        instances: 1000,
        shadows: false,
    };
    let lit = RunId::new(run, RenderPath::Unbound, false, false);
    let normals = lit.with_debug_view(DebugView::Normals);
    assert_ne!(lit, normals);
    let json = serde_json::to_string(&normals).unwrap();
    assert!(json.contains("\"debug_view\":\"normals\""), "{json}");
    assert_eq!(serde_json::from_str::<RunId>(&json).unwrap(), normals);
    let lit_json = serde_json::to_string(&lit.with_debug_view(DebugView::Lit)).unwrap();
    assert!(!lit_json.contains("debug_view"), "{lit_json}");
    for odd in [
        json.replace("normals", "sideways"),
        json.replace("normals", "lit"),
        json.replace("unbound", "baseline")
            .replace(",\"tier\":\"A\"", ",\"tier\":\"\""),
    ] {
        assert!(serde_json::from_str::<RunId>(&odd).is_err(), "{odd}");
    }
    let baseline = RunId::new(run, RenderPath::Baseline, false, false);
    assert_eq!(
        baseline.with_debug_view(DebugView::Normals).debug_view,
        DebugView::Lit
    );

    // Two files, one run each, differing only by the view: both kept.
    let dir = std::env::temp_dir().join(format!("unbound-bench-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<PathBuf> = [lit, normals, lit]
        .into_iter()
        .enumerate()
        .map(|(i, id)| {
            let report = Report {
                results: vec![sample_result(id)],
                ..Report::default()
            };
            let path = dir.join(format!("{i}.json"));
            std::fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
            path
        })
        .collect();
    let merged = merge(&files).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let ids: Vec<RunId> = merged.results.iter().map(|r| r.id).collect();
    assert_eq!(ids, [lit, normals]);

    let markdown = crate::report::markdown(&merged);
    let rows: Vec<&str> = markdown
        .lines()
        .filter(|l| l.starts_with("| city"))
        .collect();
    assert_eq!(
        rows.len(),
        6,
        "main, occlusion and small-triangle tables:\n{markdown}"
    );
    assert_eq!(
        rows.iter()
            .filter(|l| l.starts_with("| city (normals view) |"))
            .count(),
        3,
        "{markdown}"
    );
    assert_eq!(crate::report::view_suffix(DebugView::Lit), "");
}
