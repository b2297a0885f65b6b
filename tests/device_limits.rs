//! Issue 24, classes 1, 2 and 8: every size the configuration, the scene
//! or the target decides is checked against the device before wgpu sees
//! it (a typed error naming the limit and the value); every buffer the
//! renderer allocates is no larger than the table the device was checked
//! against; a frame refused by wgpu is reported as that, not as a
//! frame-order problem with a frame number that wrapped around.

mod common;

use common::*;
use unbound::{
    CapabilityError, ClusterGrid, DebugOptions, DebugView, Error, ObjectDesc, RenderError,
    RendererConfig,
};

/// 65,536 depth slices pass `ClusterGrid::validate` (one tile), but the
/// light pass would dispatch a workgroup per cluster: one more than wgpu's
/// 65,535 per dimension.
#[test]
fn cluster_grid_beyond_the_dispatch_limit_is_refused() {
    let capacities = Gpu::default_capacities();
    let gpu = Gpu::new(&capacities);
    let grid = ClusterGrid {
        tiles_x: 1,
        tiles_y: 1,
        depth_slices: 65_536,
        max_light_references: 1 << 20,
    };
    grid.validate().expect("within the grid's own bounds");
    let config = RendererConfig {
        capacities,
        clusters: grid,
        ..RendererConfig::default()
    };
    let result = unbound::Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config);
    let maximum = u64::from(gpu.device.limits().max_compute_workgroups_per_dimension);
    let error = result.as_ref().err();
    assert!(
        matches!(
            error,
            Some(Error::Capability(CapabilityError::DeviceLimit {
                limit: "max_compute_workgroups_per_dimension",
                value: 65_536,
                maximum: m,
                ..
            })) if *m == maximum
        ),
        "{error:?}"
    );
    gpu.finish();
}

/// The path-traced view at 4096 × 2304 needs a 151 MB accumulation buffer
/// bound as storage; the device binds at most 128 MiB. A typed error,
/// before anything is recorded; the renderer still renders the lit view.
#[test]
fn path_traced_view_beyond_the_binding_limit_is_refused() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    let mut renderer = gpu.renderer_with(ray_config(capacities));
    let (width, height) = (4096, 2304);
    let needed = u64::from(width) * u64::from(height) * 16;
    let limit = gpu.device.limits().max_storage_buffer_binding_size;
    assert!(needed > limit, "the device binds {limit} bytes: no test");
    let mut camera = camera_framing_plane(1.0);
    camera.aspect = width as f32 / height as f32;
    renderer.set_camera(&camera).unwrap();
    let debug = DebugOptions {
        view: DebugView::PathTraced,
        ..DebugOptions::default()
    };
    renderer.set_debug(&debug).unwrap();
    let target = Target::new(&gpu, width, height);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let result = renderer.render(&mut encoder, &target.frame());
    let error = result.as_ref().err();
    assert!(
        matches!(
            error,
            Some(Error::Capability(CapabilityError::DeviceLimit {
                limit: "max_storage_buffer_binding_size",
                value,
                maximum,
                ..
            })) if *value == needed && *maximum == limit
        ),
        "{error:?}"
    );
    // Still usable: the lit view of the same target.
    renderer.set_debug(&DebugOptions::default()).unwrap();
    renderer.render(&mut encoder, &target.frame()).unwrap();
    gpu.queue.submit([encoder.finish()]);
    gpu.finish();
}

/// Every buffer the renderer sized, after the tables grew to their
/// capacities and a frame with every view culled and occlusion on, is at
/// most its entry in the table the device was checked against. (The
/// instance rank was not: its cull workgroups' bases were left out.)
#[test]
fn every_sized_buffer_fits_its_table_entry() {
    let capacities = unbound::Capacities {
        objects: 300,
        meshes: 70,
        lights: 8,
        materials: 4,
        textures_2d: 8,
        vertices: 1 << 12,
        indices: 1 << 14,
        ..unbound::Capacities::default()
    };
    let gpu = Gpu::new(&capacities);
    let mut renderer = gpu.renderer(&capacities);
    let mesh = flat_quad_scene(&mut renderer, 1.0);
    let texture = solid_texture(&mut renderer, [200, 100, 50, 255]);
    let material = textured_material(&mut renderer, texture);
    for i in 0..capacities.objects {
        let x = (i % 20) as f32 * 0.1 - 1.0;
        let y = (i / 20) as f32 * 0.1 - 1.0;
        let desc = ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(glam::Vec3::new(x, y, 0.0), 0.1, 0.1),
        };
        renderer.add_object(&desc).unwrap();
    }
    let target = Target::new(&gpu, 64, 64);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&mut encoder, &target.frame()).unwrap();
    gpu.queue.submit([encoder.finish()]);
    let table: Vec<_> = capacities
        .buffers()
        .into_iter()
        .chain(unbound::Capacities::cluster_buffers(&ClusterGrid::default()))
        .collect();
    let sized = renderer.sized_buffers();
    assert!(sized.len() >= 19, "{sized:?}");
    let mut too_large = Vec::new();
    for (label, size) in sized {
        let entry = table
            .iter()
            .find(|b| b.label == label)
            .unwrap_or_else(|| panic!("{label} has no table entry"));
        if size > entry.size_bytes {
            too_large.push((label, size, entry.size_bytes));
        }
    }
    assert!(
        too_large.is_empty(),
        "larger than their entries: {too_large:?}"
    );
    gpu.finish();
}

/// A frame refused at submission (its colour target destroyed first)
/// runs nothing, yet its statistics slot comes back: it read as "frame 0
/// ran on the GPU after frame 0, not after frame 18446744073709551615".
/// Now it is reported as the failure it was, once, and the frames after
/// it are no break in the sequence.
#[test]
fn a_frame_refused_by_wgpu_is_reported_as_failed() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    flat_quad_scene(&mut renderer, 1.0);
    let refused = Target::new(&gpu, 32, 32);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let stats = renderer.render(&mut encoder, &refused.frame()).unwrap();
    assert_eq!(stats.frame_index, 0);
    refused.color_texture().destroy();
    gpu.queue.submit([encoder.finish()]);
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let refusals = std::mem::take(&mut *gpu.errors.lock().unwrap());
    assert!(!refusals.is_empty(), "wgpu accepted a destroyed target");

    let target = Target::new(&gpu, 32, 32);
    let mut reports = Vec::new();
    for _ in 0..6 {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        match renderer.render(&mut encoder, &target.frame()) {
            Ok(_) => {
                gpu.queue.submit([encoder.finish()]);
            }
            Err(error) => reports.push(error),
        }
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
    }
    let messages: Vec<String> = reports.iter().map(ToString::to_string).collect();
    assert_matches!(
        reports.as_slice(),
        [Error::Render(RenderError::FrameFailed { frame: 0 })]
    );
    assert!(
        messages.iter().all(|m| !m.contains("18446744073709551615")),
        "{messages:?}"
    );
    gpu.finish();
}
