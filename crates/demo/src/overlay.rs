//! The live statistics overlay (egui): frame and pass times, what the GPU
//! drew, heap use, a frame-time graph, and switches for the debug views.

use std::collections::VecDeque;

use unbound::{ClusterStats, DebugView, GpuFrameStats, Renderer, ResidencyStats};

use crate::controls::{HELP, Mode};

/// What the overlay and the keyboard switch.
#[derive(Clone, Debug)]
pub struct Settings {
    pub view: DebugView,
    pub highlight_missing: bool,
    pub freeze_cull: bool,
    pub bounds: bool,
    /// The sun's shadows.
    pub shadows: bool,
    /// Made by ray queries rather than shadow maps (`--shadows ray-query`).
    pub ray_query_shadows: bool,
    pub vsync: bool,
    pub show_ui: bool,
    /// The clip the file's animation plays (`None`: the rest pose).
    pub clip: Option<usize>,
    /// The animation stands still (P).
    pub paused: bool,
}

/// What the user asked for this frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct Requests {
    pub screenshot: bool,
    pub frame_scene: bool,
    pub toggle_mode: bool,
}

/// Numbers the overlay shows, gathered by the window each frame.
#[derive(Clone, Debug, Default)]
pub struct FrameNumbers {
    pub frame_ms: f32,
    pub record_ms: f32,
    pub gpu: Option<GpuFrameStats>,
    pub instances: u32,
    pub adapter: String,
    pub tier: String,
    pub scene: String,
    pub mode: Option<Mode>,
    pub speed: f32,
    pub recording: Option<usize>,
    pub status: String,
    /// The file's clips (empty: it does not animate) and the time shown.
    pub clips: Vec<String>,
    pub animation_time: f32,
}

const HISTORY: usize = 240;

#[derive(Debug, Default)]
pub struct Overlay {
    frame_times: VecDeque<f32>,
}

impl Overlay {
    pub fn push_frame_time(&mut self, ms: f32) {
        if self.frame_times.len() == HISTORY {
            self.frame_times.pop_front();
        }
        self.frame_times.push_back(ms);
    }

    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        numbers: &FrameNumbers,
        renderer: &Renderer,
        settings: &mut Settings,
    ) -> Requests {
        let mut requests = Requests::default();
        egui::Window::new("unbound")
            .default_pos([12.0, 12.0])
            .default_width(300.0)
            .vscroll(true)
            .show(ctx, |ui| {
                ui.label(&numbers.adapter);
                ui.label(&numbers.tier);
                ui.label(&numbers.scene);
                ui.separator();
                let gpu = numbers.gpu.unwrap_or_default();
                egui::Grid::new("stats").num_columns(2).show(ui, |ui| {
                    let mut row = |name: &str, value: String| {
                        ui.label(name);
                        ui.label(value);
                        ui.end_row();
                    };
                    row("frame", format!("{:.2} ms", numbers.frame_ms));
                    row("CPU record", format!("{:.3} ms", numbers.record_ms));
                    row("instances", numbers.instances.to_string());
                    for (name, value) in gpu_rows(&gpu, renderer.occlusion()) {
                        row(name, value);
                    }
                    if renderer.debug().view == DebugView::PathTraced {
                        row("samples", renderer.path_traced_samples().to_string());
                    }
                    let live = renderer.heap().live_counts();
                    let bound = renderer.heap().counts();
                    row(
                        "textures",
                        format!(
                            "{} live, {} slots bound",
                            live.textures_2d, bound.textures_2d
                        ),
                    );
                    row(
                        "samplers",
                        format!("{} live, {} slots bound", live.samplers, bound.samplers),
                    );
                    if let Some(textures) = renderer.heap().residency() {
                        for (name, value) in residency_rows(&textures) {
                            row(name, value);
                        }
                    }
                    row("materials", renderer.materials().len().to_string());
                    row(
                        "GPU memory",
                        format!(
                            "{:.1} MiB",
                            renderer.memory().total_bytes() as f64 / f64::from(1 << 20)
                        ),
                    );
                });
                self.graph(ui);
                ui.separator();
                ui.horizontal_wrapped(|ui| {
                    ui.label("view:");
                    // Traced views only with ray queries.
                    let traces = renderer.acceleration_structures().is_some();
                    for view in DebugView::ALL {
                        if !view.traces_rays() || traces {
                            ui.selectable_value(&mut settings.view, view, view.name());
                        }
                    }
                });
                ui.checkbox(
                    &mut settings.highlight_missing,
                    "highlight missing texture (H)",
                );
                ui.checkbox(&mut settings.freeze_cull, "freeze cull camera (C)");
                ui.checkbox(
                    &mut settings.bounds,
                    "bounding boxes: culled red, occluded orange (B)",
                );
                ui.checkbox(&mut settings.shadows, "sun shadows (G)");
                ui.checkbox(&mut settings.vsync, "vsync (V)");
                if !numbers.clips.is_empty() {
                    animation_ui(ui, numbers, settings);
                }
                ui.horizontal(|ui| {
                    let mode = match numbers.mode {
                        Some(Mode::Orbit) => "orbit",
                        Some(Mode::Fly) => "fly",
                        None => "camera path",
                    };
                    requests.toggle_mode = ui.button(format!("camera: {mode} (Tab)")).clicked();
                    requests.frame_scene = ui.button("frame (F)").clicked();
                    requests.screenshot = ui.button("screenshot (F12)").clicked();
                });
                ui.label(format!("fly speed {:.3}/s (wheel)", numbers.speed));
                if let Some(poses) = numbers.recording {
                    ui.colored_label(
                        egui::Color32::RED,
                        format!("recording path: {poses} poses (R stops)"),
                    );
                }
                if !numbers.status.is_empty() {
                    ui.label(&numbers.status);
                }
                ui.collapsing("controls", |ui| {
                    ui.label(HELP);
                });
            });
        requests
    }

    /// The last frames' times, scaled to their maximum.
    fn graph(&self, ui: &mut egui::Ui) {
        let (response, painter) =
            ui.allocate_painter(egui::vec2(ui.available_width(), 60.0), egui::Sense::hover());
        let rect = response.rect;
        painter.rect_filled(rect, 2.0, egui::Color32::from_black_alpha(120));
        let max = self.frame_times.iter().copied().fold(1.0f32, f32::max);
        let scale = rect.height() / (max * 1.1);
        let step = rect.width() / HISTORY as f32;
        let points: Vec<egui::Pos2> = self
            .frame_times
            .iter()
            .enumerate()
            .map(|(i, &ms)| {
                egui::pos2(
                    rect.left() + i as f32 * step,
                    rect.bottom() - (ms.min(max) * scale),
                )
            })
            .collect();
        for pair in points.windows(2) {
            painter.line_segment([pair[0], pair[1]], (1.0, egui::Color32::LIGHT_GREEN));
        }
        // 16.7 ms (60 Hz) guide.
        if max > 16.7 {
            let y = rect.bottom() - 16.7 * scale;
            painter.line_segment(
                [egui::pos2(rect.left(), y), egui::pos2(rect.right(), y)],
                (1.0, egui::Color32::from_gray(90)),
            );
        }
        painter.text(
            rect.left_top() + egui::vec2(4.0, 2.0),
            egui::Align2::LEFT_TOP,
            format!("frame time, max {max:.1} ms"),
            egui::FontId::proportional(11.0),
            egui::Color32::GRAY,
        );
    }
}

/// The animation's controls: which clip plays, pause, the time shown.
fn animation_ui(ui: &mut egui::Ui, numbers: &FrameNumbers, settings: &mut Settings) {
    ui.horizontal(|ui| {
        let shown = settings
            .clip
            .and_then(|c| numbers.clips.get(c))
            .map_or("rest pose", String::as_str);
        egui::ComboBox::from_label("clip")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut settings.clip, None, "rest pose");
                for (i, name) in numbers.clips.iter().enumerate() {
                    ui.selectable_value(&mut settings.clip, Some(i), name);
                }
            });
        ui.checkbox(&mut settings.paused, "pause (P)");
        ui.label(format!("{:.2} s", numbers.animation_time));
    });
}

/// The overlay's rows of GPU statistics: pass times, then what the camera's
/// cull kept; with occlusion culling on, the depth pyramid's and the late
/// cull's times and what each phase drew of the instances in the frustum.
/// With `--texture-budget`: the streamed textures' bytes (resident of the
/// budget, requested and evicted since the start, in MiB) and textures.
fn residency_rows(textures: &ResidencyStats) -> [(&'static str, String); 2] {
    let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
    [
        (
            "texture budget",
            format!(
                "{:.1} of {:.1} MiB resident, {:.1} requested, {:.1} evicted",
                mib(textures.resident_bytes),
                mib(textures.budget),
                mib(textures.requested_bytes),
                mib(textures.evicted_bytes)
            ),
        ),
        (
            "streamed",
            format!(
                "{} full of {}, {} wanted by feedback",
                textures.fully_resident, textures.streamed, textures.wanted_by_feedback
            ),
        ),
    ]
}

fn gpu_rows(gpu: &GpuFrameStats, occlusion: bool) -> Vec<(&'static str, String)> {
    let ms = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3} ms"));
    let mut rows = vec![("GPU cull", ms(gpu.cull_ms))];
    if occlusion {
        rows.push(("GPU pyramid", ms(gpu.pyramid_ms)));
        rows.push(("GPU late cull", ms(gpu.late_cull_ms)));
    }
    rows.extend([
        ("GPU lights", ms(gpu.lights_ms)),
        ("GPU draw", ms(gpu.draw_ms)),
        ("GPU shadows", ms(gpu.shadows_ms)),
        ("GPU output", ms(gpu.output_ms)),
        ("in frustum", gpu.visible_instances.to_string()),
    ]);
    if occlusion {
        rows.extend([
            ("drawn early", gpu.early_instances.to_string()),
            ("drawn late", gpu.late_instances.to_string()),
            ("occluded", gpu.occluded_instances.to_string()),
        ]);
    } else {
        rows.push(("occlusion culling", "off".into()));
    }
    rows.extend([
        ("draws", gpu.draws.to_string()),
        ("triangles", gpu.triangles.to_string()),
    ]);
    if let Some(clusters) = &gpu.clusters {
        rows.extend(cluster_rows(clusters));
    }
    if gpu.cascades > 0 {
        let cascades = gpu.cascade_casters.iter().take(gpu.cascades as usize);
        let casters: Vec<String> = cascades
            .map(|c| format!("{} ({}) / {}", c.drawn, c.late, c.occluded))
            .collect();
        rows.push(("casters drawn (late) / occluded", casters.join(", ")));
    }
    if let Some(lists) = gpu.light_lists {
        let overflow = if lists.overflowed() { " OVERFLOW" } else { "" };
        rows.push((
            "lights/cluster",
            format!(
                "{:.1} mean, {} max{overflow}",
                lists.mean_lights_per_lit_cluster(),
                lists.max_lights_per_cluster
            ),
        ));
    }
    rows
}

/// The overlay's rows of cluster culling (while it runs; both occlusion
/// phases summed): clusters tested and culled by each test (the cull has no
/// per-cluster size test: small instances go in the instance cull, small
/// triangles in the filter's no-pixel test), draws, and with triangle
/// filtering what it dropped.
fn cluster_rows(c: &ClusterStats) -> Vec<(&'static str, String)> {
    let mut rows = vec![
        ("clusters tested", c.tested.to_string()),
        (
            "clusters culled frustum / cone / occluded",
            format!("{} / {} / {}", c.frustum_culled, c.cone_culled, c.occluded),
        ),
        (
            "cluster draws (whole meshes)",
            format!("{} ({})", c.drawn, c.whole_meshes),
        ),
        ("cluster triangles", c.triangles.to_string()),
    ];
    if c.filter_tested > 0 {
        rows.extend([
            (
                "triangles filtered outside / back / no pixel",
                format!(
                    "{} / {} / {} of {}",
                    c.filter_outside, c.filter_back, c.filter_no_pixel, c.filter_tested
                ),
            ),
            ("triangles to the rasteriser", c.triangles_drawn.to_string()),
        ]);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_rows_show_while_cluster_culling_runs() {
        let clusters = ClusterStats {
            tested: 50,
            frustum_culled: 10,
            cone_culled: 7,
            occluded: 3,
            drawn: 30,
            triangles: 3000,
            filter_tested: 3000,
            filter_outside: 100,
            filter_back: 1200,
            filter_no_pixel: 200,
            triangles_drawn: 1500,
            ..Default::default()
        };
        let off = gpu_rows(&GpuFrameStats::default(), false);
        assert!(off.iter().all(|(n, _)| !n.contains("cluster")));
        let gpu = GpuFrameStats {
            clusters: Some(clusters),
            ..Default::default()
        };
        let rows = gpu_rows(&gpu, false);
        let value = |name: &str| {
            rows.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(value("clusters tested"), Some("50"));
        assert_eq!(
            value("clusters culled frustum / cone / occluded"),
            Some("10 / 7 / 3")
        );
        assert_eq!(value("cluster draws (whole meshes)"), Some("30 (0)"));
        assert_eq!(
            value("triangles filtered outside / back / no pixel"),
            Some("100 / 1200 / 200 of 3000")
        );
        assert_eq!(value("triangles to the rasteriser"), Some("1500"));
    }

    #[test]
    fn occlusion_rows_show_each_phase_and_its_times_while_on() {
        use unbound::CascadeCasterStats;
        let gpu = GpuFrameStats {
            visible_instances: 100,
            early_instances: 30,
            late_instances: 5,
            occluded_instances: 65,
            pyramid_ms: Some(0.25),
            late_cull_ms: Some(0.125),
            cull_ms: Some(0.5),
            cascades: 2,
            cascade_casters: [
                CascadeCasterStats {
                    drawn: 40,
                    late: 4,
                    occluded: 9,
                },
                CascadeCasterStats {
                    drawn: 70,
                    late: 0,
                    occluded: 1,
                },
                CascadeCasterStats::default(),
                CascadeCasterStats::default(),
            ],
            ..Default::default()
        };
        let on = gpu_rows(&gpu, true);
        let value = |rows: &[(&str, String)], name: &str| {
            rows.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
        };
        for (name, expected) in [
            ("in frustum", "100"),
            ("drawn early", "30"),
            ("drawn late", "5"),
            ("occluded", "65"),
            ("GPU pyramid", "0.250 ms"),
            ("GPU late cull", "0.125 ms"),
            ("GPU cull", "0.500 ms"),
            ("GPU draw", "n/a"),
            ("casters drawn (late) / occluded", "40 (4) / 9, 70 (0) / 1"),
        ] {
            assert_eq!(value(&on, name).as_deref(), Some(expected), "{name}");
        }
        assert_eq!(value(&on, "occlusion culling"), None);
        let off = gpu_rows(&gpu, false);
        assert_eq!(value(&off, "occlusion culling").as_deref(), Some("off"));
        for name in [
            "drawn early",
            "drawn late",
            "occluded",
            "GPU pyramid",
            "GPU late cull",
        ] {
            assert_eq!(value(&off, name), None, "{name}");
        }
    }
}
