//! The renderer both modes create on the device they opened, and the lines
//! that describe the adapter and the tier.

use std::sync::Arc;

use unbound::lighting::{Environment, EquirectImage, HdrLimits};
use unbound::{AutoExposure, Capacities, Renderer, RendererConfig, ShadowSettings};

use crate::args::{Args, Shadows};
use crate::capture::COLOR_FORMAT;

/// unbound's capacities for the command line: room for `--instances`
/// objects and `--lights` lights at least.
pub fn capacities(args: &Args) -> Capacities {
    Capacities {
        objects: args.instances.max(Capacities::default().objects),
        lights: args.lights.max(Capacities::default().lights),
        ..Capacities::default()
    }
}

/// What [`create`] made.
pub struct DemoRenderer {
    pub renderer: Renderer,
    /// "adapter: name (backend, type), driver: ...".
    pub adapter_line: String,
    /// "tier: ...".
    pub tier_line: String,
}

/// The renderer (the tier `--tier` asks for, sRGB colour, `--msaa` samples,
/// `--exposure` (or, for a glTF file without it, automatic exposure) and
/// `--tone-mapping`, textures in pages streamed under `--texture-budget`,
/// ray queries for `--shadows
/// ray-query` and `--view hit-material`) on a device opened with
/// [`capacities`], lit by `--environment` or the procedural sky; wgpu
/// errors are printed to stderr.
pub fn create(
    adapter: &wgpu::Adapter,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    args: &Args,
) -> Result<DemoRenderer, String> {
    device.on_uncaptured_error(Arc::new(|e| eprintln!("wgpu error: {e}")));
    let config = RendererConfig {
        capacities: capacities(args),
        color_format: COLOR_FORMAT,
        msaa: args.msaa,
        tier: args.tier,
        shadows: ShadowSettings {
            enabled: args.shadows == Shadows::Maps,
            ..ShadowSettings::default()
        },
        ray_queries: args.ray_queries(),
        occlusion: args.occlusion,
        geometry: args.geometry,
        lod: unbound::LodSettings {
            enabled: args.lod,
            ..Default::default()
        },
        texture_heap: match args.texture_budget {
            Some(_) => unbound::TextureHeap::Paged,
            None => RendererConfig::default().texture_heap,
        },
        texture_budget: args.texture_budget,
        ..RendererConfig::default()
    };
    let mut renderer = Renderer::new(adapter, device, queue, config).map_err(|e| e.to_string())?;
    renderer
        .set_ray_query_shadows(args.shadows == Shadows::RayQuery)
        .map_err(|e| format!("--shadows: {e}"))?;
    renderer
        .set_output(&args.output)
        .map_err(|e| format!("--exposure: {e}"))?;
    // A file without --exposure: metered, adapting over about ten frames.
    let metered = AutoExposure {
        adaptation: 0.1,
        ..AutoExposure::default()
    };
    renderer
        .set_auto_exposure(args.auto_exposure.then_some(&metered))
        .map_err(|e| format!("auto exposure: {e}"))?;
    // A regular file only (a FIFO or device is refused before it is
    // opened), its size and the decoded image's checked before reading and
    // decoding, its sides against what the device can sample.
    let environment = match &args.environment {
        Some(path) => Environment::Equirect(
            EquirectImage::open_hdr_with(path, &HdrLimits::for_device(device))
                .map_err(|e| format!("--environment: {e}"))?,
        ),
        None => Environment::sky(),
    };
    renderer
        .set_environment(queue, &environment)
        .map_err(|e| format!("--environment: {e}"))?;
    let info = adapter.get_info();
    Ok(DemoRenderer {
        adapter_line: format!(
            "adapter: {} ({:?}, {:?}), driver: {} {}",
            info.name, info.backend, info.device_type, info.driver, info.driver_info
        ),
        tier_line: format!("tier: {}", renderer.tier().describe()),
        renderer,
    })
}
