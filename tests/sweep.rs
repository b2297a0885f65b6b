//! Issue 24, class 1: the renderer under wgpu's default error handler,
//! which panics on any validation or out-of-memory error, over extreme but
//! accepted configurations and target sizes up to the device's largest
//! 2D texture (8192² on the test device), in every debug view and the
//! path-traced one. Each frame either renders or is a typed error; a panic
//! anywhere fails the test. No `on_uncaptured_error` is installed here.
//!
//! Kept cheap on lavapipe: scenes of one quad, one sample per pixel;
//! every view runs at the small sizes, the large sizes run the lit view,
//! one id view and the traced views (the path tracer's accumulation is
//! refused before any work).

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use unbound::lighting::clusters::{MAX_CLUSTERS, MAX_LIGHT_REFERENCES, MAX_TILES};
use unbound::{
    CapabilityError, Capacities, ClusterGrid, DebugOptions, DebugView, Error, ID_TARGET_FORMAT,
    RenderError, Renderer, RendererConfig,
};
use unbound_harness::{AdapterChoice, DeviceLimits, DeviceRequest, instance_flags, open_headless};

/// A device for `capacities` whose errors go to wgpu's default handler.
fn panicking_gpu(capacities: &Capacities, ray_queries: bool) -> Gpu {
    let request = DeviceRequest {
        limits: DeviceLimits::ForCapacities,
        ray_queries,
    };
    let opened = open_headless(
        &AdapterChoice::from_env(true),
        capacities,
        instance_flags(),
        request,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    Gpu::from_parts(
        opened.adapter,
        (opened.device, opened.queue),
        Arc::new(Mutex::new(Vec::new())),
    )
}

/// Renders one frame of `view` into a `size` target and submits it;
/// returns the typed error if the renderer refused it.
fn frame(gpu: &Gpu, renderer: &mut Renderer, view: DebugView, size: (u32, u32)) -> Option<Error> {
    let mut camera = camera_framing_plane(1.0);
    camera.aspect = size.0 as f32 / size.1 as f32;
    renderer.set_camera(&camera).unwrap();
    let debug = DebugOptions {
        view,
        ..DebugOptions::default()
    };
    if let Err(error) = renderer.set_debug(&debug) {
        return Some(error);
    }
    let format = if view.is_id_view() {
        ID_TARGET_FORMAT
    } else {
        Target::FORMAT
    };
    let target = Target::with_format(gpu, size.0, size.1, format);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let result = renderer.render(&mut encoder, &target.frame());
    gpu.queue.submit([encoder.finish()]);
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    result.err()
}

/// Each frame of `views` at `sizes` that the renderer refused, with its
/// error; the number rendered is added to `rendered`.
fn sweep(
    gpu: &Gpu,
    renderer: &mut Renderer,
    (sizes, views): (&[(u32, u32)], &[DebugView]),
    rendered: &mut usize,
) -> Vec<(DebugView, (u32, u32), Error)> {
    let mut refused = Vec::new();
    for &size in sizes {
        for &view in views {
            match frame(gpu, renderer, view, size) {
                None => *rendered += 1,
                Some(error) => refused.push((view, size, error)),
            }
        }
    }
    refused
}

/// One quad, one material, one point light.
fn quad_scene(renderer: &mut Renderer) {
    let mesh = flat_quad_scene(renderer, 1.0);
    let texture = solid_texture(renderer, [90, 160, 220, 255]);
    let material = textured_material(renderer, texture);
    let desc = unbound::ObjectDesc {
        mesh,
        material,
        world_from_object: quad_at(glam::Vec3::ZERO, 1.0, 1.0),
    };
    renderer.add_object(&desc).unwrap();
    let light = unbound::Light::point(glam::Vec3::Z, glam::Vec3::ONE, 1.0, Some(5.0));
    renderer.add_light(&light).unwrap();
}

const SMALL: [(u32, u32); 2] = [(1, 1), (64, 36)];

#[test]
fn extreme_configurations_and_targets_never_reach_wgpu_validation() {
    let started = std::time::Instant::now();
    let mut rendered = 0;
    // Capacities at the largest the adapter's limits allow (the tables
    // start small, so this costs little until they fill), with the
    // cluster grid at its extremes: one beyond the dispatch limit.
    let adapter_limits = panicking_gpu(&Capacities::default(), false)
        .adapter
        .limits();
    let largest = Capacities {
        vertices: u32::MAX,
        indices: u32::MAX,
        meshes: u32::MAX,
        materials: u32::MAX,
        objects: u32::MAX,
        lights: u32::MAX,
        ..Capacities::default()
    }
    .clamped_to(&adapter_limits);
    let gpu = panicking_gpu(&largest, false);
    let side = gpu.device.limits().max_texture_dimension_2d.min(8192);
    let large = [(4096, 2304), (side, side)];
    // The most references the device binds (the library's most may be
    // more: that grid is refused, or renders where the device allows it).
    let limits = gpu.device.limits();
    let bound = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
        / 4;
    let device_references = u64::from(MAX_LIGHT_REFERENCES).min(bound) as u32;
    let grids = [
        ClusterGrid::default(),
        ClusterGrid {
            tiles_x: MAX_TILES,
            tiles_y: MAX_CLUSTERS / MAX_TILES,
            depth_slices: 1,
            max_light_references: device_references,
        },
        ClusterGrid {
            max_light_references: MAX_LIGHT_REFERENCES,
            ..ClusterGrid::default()
        },
        ClusterGrid {
            tiles_x: 1,
            tiles_y: 1,
            depth_slices: MAX_CLUSTERS,
            max_light_references: 1,
        },
    ];
    let mut refused_renderers = Vec::new();
    let mut refused = Vec::new();
    for (index, grid) in grids.into_iter().enumerate() {
        let config = RendererConfig {
            capacities: largest,
            clusters: grid,
            ..RendererConfig::default()
        };
        let mut renderer = match Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config) {
            Ok(renderer) => renderer,
            Err(error) => {
                refused_renderers.push(error);
                continue;
            }
        };
        quad_scene(&mut renderer);
        if index == 0 {
            let views = (&SMALL[..], &DebugView::ALL[..]);
            refused.extend(sweep(&gpu, &mut renderer, views, &mut rendered));
        }
        let views = [DebugView::Lit, DebugView::MaterialIndex];
        refused.extend(sweep(&gpu, &mut renderer, (&large, &views), &mut rendered));
    }
    // With ray queries: every view at the small sizes, and the path tracer
    // at the large ones, whose accumulation exceeds the binding limit.
    let capacities = ray_capacities();
    let rays = panicking_gpu(&capacities, true);
    let mut renderer = Renderer::new(
        &rays.adapter,
        &rays.device,
        &rays.queue,
        ray_config(capacities),
    )
    .expect("ray-query renderer");
    quad_scene(&mut renderer);
    let views = (&SMALL[..], &DebugView::ALL[..]);
    let traced = sweep(&rays, &mut renderer, views, &mut rendered);
    assert!(traced.is_empty(), "{traced:#?}");
    let views = [DebugView::PathTraced];
    refused.extend(sweep(&rays, &mut renderer, (&large, &views), &mut rendered));
    eprintln!(
        "{rendered} frames rendered, refused: {refused:#?}, renderers refused: \
         {refused_renderers:#?}, in {:?}",
        started.elapsed()
    );
    // The grid beyond the dispatch limit is refused up front, and so is the
    // library's largest index list where the device binds less.
    let (dispatch, lists): (Vec<_>, Vec<_>) = refused_renderers.iter().partition(|e| {
        matches!(
            e,
            Error::Capability(CapabilityError::DeviceLimit {
                limit: "max_compute_workgroups_per_dimension",
                ..
            })
        )
    });
    assert_eq!(dispatch.len(), 1, "{refused_renderers:?}");
    assert_eq!(
        lists.len(),
        usize::from(u64::from(MAX_LIGHT_REFERENCES) > bound),
        "{refused_renderers:?}"
    );
    for error in lists {
        assert_matches!(
            error,
            Error::Capability(CapabilityError::DeviceLimit {
                what: "unbound light indices",
                ..
            })
        );
    }
    // Refused frames: the traced views without ray queries, and the path
    // tracer at the large sizes.
    for (view, size, error) in &refused {
        let expected = match error {
            Error::Render(RenderError::RayQueriesOff { .. }) => {
                matches!(view, DebugView::PathTraced | DebugView::HitMaterial)
            }
            Error::Capability(CapabilityError::DeviceLimit { limit, .. }) => {
                *view == DebugView::PathTraced
                    && large.contains(size)
                    && ["max_storage_buffer_binding_size", "max_buffer_size"].contains(limit)
            }
            _ => false,
        };
        assert!(expected, "{view:?} at {size:?}: {error}");
    }
    let path_traced_refusals = refused
        .iter()
        .filter(|(_, _, e)| matches!(e, Error::Capability(_)))
        .count();
    assert_eq!(path_traced_refusals, large.len());
    assert!(rendered >= 2 * DebugView::ALL.len() + 2 * large.len());
}
