//! What loading many `EXT_mesh_gpu_instancing` instances costs: generates
//! an instanced forest GLB in memory (`unbound_scenes::forest`, 1,000,000
//! trees unless told otherwise), then times the loader's CPU stage
//! (`parse_gltf_slice`) and, with `--upload`, the GPU stage's object adds
//! (`GltfDocument::upload`, a renderer whose object capacity is 2^20 on
//! the default adapter). Prints the wall time per instance and the peak
//! resident set each stage adds (`VmHWM` from `/proc/self/status`, reset
//! through `/proc/self/clear_refs` before each; Linux only). A measurement,
//! not a test: numbers depend on the machine.
//!
//! Usage: `cargo run --release --example gltf_instances -- [COUNT] [--upload]`

use std::error::Error;
use std::path::Path;
use std::time::Instant;

use glam::Mat4;
use unbound::loaders::gltf::parse_gltf_slice;
use unbound::{Capacities, Renderer, RendererConfig};

/// A field of `/proc/self/status` in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the peak to the current resident set and returns it (KiB).
fn reset_peak() -> u64 {
    // "5" resets VmHWM (Linux 4.0 and later); without it the peak is the
    // process's so far, an upper bound.
    std::fs::write("/proc/self/clear_refs", "5").ok();
    status_kib("VmRSS:").unwrap_or(0)
}

/// Prints one stage's line: time per instance and peak memory added.
fn report(stage: &str, count: u32, start: Instant, rss_before: u64) {
    let seconds = start.elapsed().as_secs_f64();
    let peak = status_kib("VmHWM:").unwrap_or(0);
    println!(
        "{stage}: {:.1} ms, {:.3} µs per instance, peak RSS +{} KiB ({:.1} bytes per instance)",
        seconds * 1e3,
        seconds * 1e6 / f64::from(count),
        peak.saturating_sub(rss_before),
        peak.saturating_sub(rss_before) as f64 * 1024.0 / f64::from(count),
    );
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: u32 = match args.iter().find(|a| !a.starts_with("--")) {
        Some(count) => count.parse()?,
        None => 1_000_000,
    };
    let upload = args.iter().any(|a| a == "--upload");
    let forest = unbound_scenes::forest(count, 2000.0, 1);
    println!(
        "{count} instances, a {} KiB GLB",
        forest.glb.len().div_ceil(1024)
    );
    let rss = reset_peak();
    let start = Instant::now();
    let document = parse_gltf_slice(&forest.glb, Path::new("forest.glb"), None)?;
    report("parse", count, start, rss);
    assert_eq!(document.placements.len(), count as usize);
    if upload {
        pollster::block_on(upload_document(&document, count))?;
    }
    Ok(())
}

/// Uploads `document` into a fresh renderer on the default adapter, timed.
async fn upload_document(
    document: &unbound::loaders::gltf::GltfDocument,
    count: u32,
) -> Result<(), Box<dyn Error>> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = wgpu::util::initialize_adapter_from_env_or_default(&instance, None).await?;
    let config = RendererConfig {
        capacities: Capacities {
            objects: 1 << 20,
            ..Capacities::default()
        },
        ..RendererConfig::default()
    };
    let (device, queue) =
        unbound::request_device(&adapter, &config.capacities, &Default::default()).await?;
    let mut renderer = Renderer::new(&adapter, &device, &queue, config)?;
    let rss = reset_peak();
    let start = Instant::now();
    let scene = document.upload(&mut renderer, Mat4::IDENTITY, None)?;
    report("upload", count, start, rss);
    assert_eq!(scene.objects.len(), count as usize);
    Ok(())
}
