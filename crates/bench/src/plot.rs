//! Log-log plot: frame time and CPU time against instances, both paths, one
//! panel per scene.

use plotters::coord::Shift;
use plotters::prelude::*;
use unbound_scenes::bench::BenchScene;

use crate::results::{Report, RunResult};
use crate::runs::{RenderPath, RunKind};

/// Draws the main table's runs (`RunKind::Frame`) of `report` into a PNG.
pub fn draw_plot(report: &Report, path: &std::path::Path) -> Result<(), String> {
    plotters::style::register_font(
        "sans-serif",
        FontStyle::Normal,
        include_bytes!("../../../assets/fonts/DejaVuSans.ttf"),
    )
    .map_err(|_| "font")?;
    let (width, height) = (1500u32, 520u32);
    let mut pixels = vec![0u8; (width * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        // One panel per scene measured.
        let scene_runs: Vec<(BenchScene, Vec<&RunResult>)> = BenchScene::ALL
            .into_iter()
            .map(|scene| {
                let runs = report
                    .results
                    .iter()
                    .filter(|r| r.id.run.kind == RunKind::Frame(scene) && !r.id.run.shadows)
                    .collect::<Vec<_>>();
                (scene, runs)
            })
            .filter(|(_, runs)| !runs.is_empty())
            .collect();
        let panels = root.split_evenly((1, scene_runs.len().max(1)));
        for (panel, (scene, runs)) in panels.iter().zip(&scene_runs) {
            draw_panel(panel, scene.name(), &report.adapter, runs)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    image::save_buffer(path, &pixels, width, height, image::ExtendedColorType::Rgb8)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// One scene's panel: a line per path and metric.
fn draw_panel(
    panel: &DrawingArea<BitMapBackend<'_>, Shift>,
    scene: &str,
    adapter: &str,
    runs: &[&RunResult],
) -> Result<(), String> {
    let instances = |r: &&RunResult| r.id.run.instances;
    let x_max = f64::from(runs.iter().map(instances).max().unwrap_or(1000)) * 1.5;
    let x_min = f64::from(runs.iter().map(instances).min().unwrap_or(1000)) / 1.5;
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
        .caption(format!("{scene} ({adapter})"), ("sans-serif", 18))
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
        (RenderPath::Unbound, "frame", RGBColor(0, 110, 200), false),
        (RenderPath::Unbound, "CPU", RGBColor(0, 110, 200), true),
        (RenderPath::Baseline, "frame", RGBColor(210, 70, 30), false),
        (RenderPath::Baseline, "CPU", RGBColor(210, 70, 30), true),
    ];
    for (path, metric, color, thin) in series {
        let mut points: Vec<(f64, f64)> = runs
            .iter()
            .filter(|r| r.id.path == path)
            .map(|r| {
                let ms = if metric == "frame" {
                    r.frame_ms.median
                } else {
                    r.cpu_total_ms.median
                };
                (f64::from(r.id.run.instances), ms)
            })
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if points.is_empty() {
            continue;
        }
        let style = ShapeStyle::from(color).stroke_width(if thin { 1 } else { 3 });
        chart
            .draw_series(LineSeries::new(points.clone(), style))
            .map_err(|e| e.to_string())?
            .label(format!("{} {metric}", path.name()))
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
    Ok(())
}
