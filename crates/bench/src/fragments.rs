//! After the last frame of a lights run: the lights a fragment loops over
//! against those that reach it, sampled (a readback, no shader counter).
//! At every [`STRIDE`]th pixel across and down that the scene covers
//! (depth under 1), the depth target read back gives the shaded point and
//! `ClusterView::fragment_cluster` (the shader's lookup) its cluster, whose
//! list length the light pass's cluster ranges give; the light table gives
//! the lights whose cull sphere holds the point, which are those the
//! shading adds after its range test (`wgsl/punctual.wgsl`).

use glam::{UVec2, Vec2, Vec3};
use serde::{Deserialize, Serialize};
use unbound::Renderer;
use unbound::gpu_types::{LIGHT_KIND_DIRECTIONAL, LIGHT_KIND_NONE};
use unbound::lighting::ClusterView;
use unbound_harness::{Gpu, RenderTargets, TextureReadback};

use crate::gpu::read_u32s;

/// Pixels between samples, across and down.
pub const STRIDE: u32 = 16;

/// The sampled fragments' light loops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FragmentLights {
    /// Pixels sampled that the scene covers.
    pub samples: u32,
    /// Mean length of the cluster list a sampled fragment loops over.
    pub mean_looped: f64,
    /// Mean number of lights whose cull sphere holds a sampled fragment's
    /// point (directional lights count as reaching).
    pub mean_reaching: f64,
}

/// Samples the last frame `renderer` drew into `targets` (after the device
/// finished it).
pub fn sample(
    gpu: &Gpu,
    renderer: &Renderer,
    targets: &RenderTargets,
) -> Result<FragmentLights, String> {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let readback = TextureReadback::record(&gpu.device, &mut encoder, &targets.depth)
        .map_err(|e| e.to_string())?;
    gpu.queue.submit([encoder.finish()]);
    let depth: Vec<f32> = readback
        .read(&gpu.device)
        .map_err(|e| e.to_string())?
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect();
    let grid = renderer.config().clusters;
    let ranges = read_u32s(
        gpu,
        renderer.cluster_ranges_buffer(),
        0,
        2 * u64::from(grid.clusters()),
    )?;
    let lights = renderer.lights();
    let table: Vec<_> = (0..lights.slots_in_use())
        .filter_map(|slot| lights.gpu_entry(slot))
        .filter(|l| l.kind != LIGHT_KIND_NONE)
        .collect();
    let (width, height) = (readback.width, readback.height);
    let camera = *renderer.camera();
    let view = ClusterView {
        grid,
        camera,
        viewport: UVec2::new(width, height),
    };
    let fields = view.uniform_fields();
    let world_from_view = camera.view_from_world().inverse();
    let (mut samples, mut looped, mut reaching) = (0u32, 0u64, 0u64);
    for y in (STRIDE / 2..height).step_by(STRIDE as usize) {
        for x in (STRIDE / 2..width).step_by(STRIDE as usize) {
            let d = depth[(y * width + x) as usize];
            if d >= 1.0 {
                continue;
            }
            let pixel = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            let cluster = view.fragment_cluster(pixel, d);
            looped += u64::from(ranges[2 * cluster as usize + 1]);
            let view_depth = fields.view_depth.x / (fields.view_depth.z - d * fields.view_depth.y);
            let ndc = Vec2::new(
                pixel.x / width as f32 * 2.0 - 1.0,
                1.0 - pixel.y / height as f32 * 2.0,
            );
            let p = world_from_view.transform_point3(Vec3::new(
                ndc.x * fields.view_frustum.x * view_depth,
                ndc.y * fields.view_frustum.y * view_depth,
                -view_depth,
            ));
            reaching += table
                .iter()
                .filter(|l| {
                    l.kind == LIGHT_KIND_DIRECTIONAL
                        || (Vec3::from_array(l.position) - p).length_squared()
                            < l.cull_radius * l.cull_radius
                })
                .count() as u64;
            samples += 1;
        }
    }
    let mean = |sum: u64| {
        if samples == 0 {
            0.0
        } else {
            sum as f64 / f64::from(samples)
        }
    };
    Ok(FragmentLights {
        samples,
        mean_looped: mean(looped),
        mean_reaching: mean(reaching),
    })
}
