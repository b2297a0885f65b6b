//! What the camera drew in the last frame, read back from the cull pass's
//! visible lists: the frustum phase's list, or with occlusion culling the
//! early phase's (objects seen last frame, in the frustum, covering a
//! sample) and the late phase's (in the frustum, not hidden by the early
//! depth's pyramid, not drawn early). The two are disjoint: together every
//! instance drawn, each once (`wgsl/occlusion.wgsl`, `camera_keeps`).

use std::mem::offset_of;

use unbound::gpu_types::GpuCullHeader;
use unbound::{ObjectHandle, Renderer};
use unbound_harness::Gpu;

use crate::gpu::read_u32s;

/// The first `visible_instances` entries of a visible list, as its
/// header (at offset 0 of `counters`) counts them.
fn visible_list(
    gpu: &Gpu,
    counters: &wgpu::Buffer,
    visible: &wgpu::Buffer,
) -> Result<Vec<u32>, String> {
    let offset = offset_of!(GpuCullHeader, visible_instances) as u64;
    let count = read_u32s(gpu, counters, offset, 1)?[0];
    read_u32s(gpu, visible, 0, u64::from(count))
}

/// The object slots the camera drew in the last frame `renderer` recorded
/// (after the device finished it).
pub fn drawn_slots(gpu: &Gpu, renderer: &Renderer) -> Result<Vec<u32>, String> {
    let mut slots = visible_list(
        gpu,
        renderer.cull_counters_buffer(),
        renderer.visible_instances_buffer(),
    )?;
    if renderer.occlusion()
        && let Some((counters, visible)) = renderer.late_cull_buffers()
    {
        slots.extend(visible_list(gpu, counters, visible)?);
    }
    Ok(slots)
}

/// [`drawn_slots`] as positions in `objects` (the scene's handles, in
/// scene order).
pub fn drawn_objects(
    gpu: &Gpu,
    renderer: &Renderer,
    objects: &[ObjectHandle],
) -> Result<Vec<usize>, String> {
    let slots = drawn_slots(gpu, renderer)?;
    let mut index_of_slot = vec![
        usize::MAX;
        objects
            .iter()
            .map(|o| o.slot() as usize + 1)
            .max()
            .unwrap_or(0)
    ];
    for (index, object) in objects.iter().enumerate() {
        index_of_slot[object.slot() as usize] = index;
    }
    slots
        .into_iter()
        .map(|slot| {
            index_of_slot
                .get(slot as usize)
                .copied()
                .filter(|&index| index != usize::MAX)
                .ok_or_else(|| {
                    format!("the visible list holds slot {slot}, no object of the scene")
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use glam::{DVec2, Mat4, UVec2, Vec4};
    use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
    use unbound::small_objects::sphere_covers_no_sample;
    use unbound::{Capacities, Renderer, RendererConfig};
    use unbound_harness::{
        AdapterChoice, DeviceLimits, RenderTargets, instance_flags, open_headless,
    };
    use unbound_scenes::bench::{SceneSpec, cube_grid};

    use super::*;
    use crate::small_triangles::{SmallTriangles, count};

    /// The cube grid on a target so small that its faces are a pixel or
    /// two: many triangles under a pixel, many over.
    fn small_cube_grid() -> SceneSpec {
        let mut scene = cube_grid(1000, 0.4);
        (scene.width, scene.height) = (40, 40);
        scene
    }

    /// Counted independently of `small_triangles`: pixels y down (front
    /// faces clockwise there), every pixel centre of each triangle's box
    /// tested against its three edges.
    fn brute_force(scene: &SceneSpec, drawn: &[usize]) -> SmallTriangles {
        let clip_from_world = scene.camera.clip_from_world();
        let (width, height) = (f64::from(scene.width), f64::from(scene.height));
        let mut counts = SmallTriangles {
            instances: drawn.len() as u32,
            ..Default::default()
        };
        for &index in drawn {
            let object = &scene.objects[index];
            let mesh = &scene.meshes[object.mesh as usize];
            let clip_from_object = clip_from_world * object.world_from_object;
            for t in mesh.indices.chunks_exact(3) {
                counts.submitted += 1;
                let clip: Vec<Vec4> = t
                    .iter()
                    .map(|&v| {
                        clip_from_object * glam::Vec3::from(mesh.positions[v as usize]).extend(1.0)
                    })
                    .collect();
                let all = |f: &dyn Fn(Vec4) -> bool| clip.iter().all(|&c| f(c));
                if all(&|c| c.x < -c.w)
                    || all(&|c| c.x > c.w)
                    || all(&|c| c.y < -c.w)
                    || all(&|c| c.y > c.w)
                    || all(&|c| c.z < 0.0)
                    || all(&|c| c.z > c.w)
                {
                    counts.outside += 1;
                    continue;
                }
                if clip.iter().any(|c| c.z < 0.0 || c.z > c.w) {
                    counts.clipped += 1;
                    continue;
                }
                let p: Vec<DVec2> = clip
                    .iter()
                    .map(|c| {
                        let (x, y) = (
                            f64::from(c.x) / f64::from(c.w),
                            f64::from(c.y) / f64::from(c.w),
                        );
                        DVec2::new((x + 1.0) / 2.0 * width, (1.0 - y) / 2.0 * height)
                    })
                    .collect();
                let edge = |a: DVec2, b: DVec2, q: DVec2| {
                    (b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x)
                };
                let signed = edge(p[0], p[1], p[2]);
                // Clockwise on screen (y down) is counter-clockwise in NDC.
                if signed >= 0.0 {
                    counts.back_facing += 1;
                    continue;
                }
                counts.drawn += 1;
                let area = -signed / 2.0;
                counts.under_1px += u64::from(area < 1.0);
                let bucket = [0.1, 1.0, 4.0, 16.0].iter().filter(|&&b| area >= b).count();
                counts.histogram[bucket] += 1;
                let lo = p[0].min(p[1]).min(p[2]).floor().max(DVec2::ZERO);
                let hi = p[0]
                    .max(p[1])
                    .max(p[2])
                    .ceil()
                    .min(DVec2::new(width, height));
                let mut covered = false;
                for y in lo.y as u32..hi.y as u32 {
                    for x in lo.x as u32..hi.x as u32 {
                        let q = DVec2::new(f64::from(x) + 0.5, f64::from(y) + 0.5);
                        covered |= (0..3).all(|i| edge(p[i], p[(i + 1) % 3], q) <= 0.0);
                    }
                }
                counts.no_sample += u64::from(!covered);
            }
        }
        counts
    }

    /// The objects frustum culling and small-object culling keep, by the
    /// library's CPU twins, and those too close to a decision to tell.
    fn frustum_reference(scene: &SceneSpec) -> (Vec<usize>, Vec<usize>) {
        let clip_from_world: Mat4 = scene.camera.clip_from_world();
        let planes = frustum_planes(&clip_from_world);
        let size = UVec2::new(scene.width, scene.height);
        let (mut kept, mut borderline) = (Vec::new(), Vec::new());
        for (index, object) in scene.objects.iter().enumerate() {
            let bounds = scene.meshes[object.mesh as usize].as_mesh_data().bounds();
            let sphere = Vec4::from(unbound::scene::world_sphere(
                &object.world_from_object,
                &bounds,
            ));
            let small = sphere_covers_no_sample(&clip_from_world, sphere, size);
            if sphere_plane_margin(&planes, sphere).abs() < 1e-3 || small.edge_margin < 1e-3 {
                borderline.push(index);
            } else if sphere_in_frustum(&planes, sphere) && !small.culled {
                kept.push(index);
            }
        }
        (kept, borderline)
    }

    #[test]
    fn drawn_triangles_are_counted_as_brute_force_counts_them() {
        let gpu = open_headless(
            &AdapterChoice::from_env(true),
            &Capacities::default(),
            instance_flags(),
            DeviceLimits::ForCapacities,
        )
        .expect("a test adapter (lavapipe)");
        let scene = small_cube_grid();
        let transforms: Vec<Mat4> = scene.objects.iter().map(|o| o.world_from_object).collect();
        for occlusion in [false, true] {
            let config = RendererConfig {
                occlusion,
                ..RendererConfig::default()
            };
            let mut renderer =
                Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config).unwrap();
            let objects = scene.load_into(&mut renderer).unwrap();
            let targets = RenderTargets::new(
                &gpu.device,
                scene.width,
                scene.height,
                crate::gpu::COLOR_FORMAT,
            );
            let mut stats = None;
            for _ in 0..3 {
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                renderer.render(&mut encoder, &targets.cleared()).unwrap();
                gpu.queue.submit([encoder.finish()]);
                gpu.device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .unwrap();
                stats = renderer.latest_gpu_stats();
            }
            let stats = stats.expect("statistics of the last frame");
            let drawn = drawn_objects(&gpu, &renderer, &objects).unwrap();
            assert_eq!(
                drawn.len() as u32,
                stats.early_instances + stats.late_instances
            );
            let mut unique = drawn.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), drawn.len(), "an instance drawn twice");
            let (kept, borderline) = frustum_reference(&scene);
            if !occlusion {
                let differing: Vec<_> = kept
                    .iter()
                    .filter(|i| !unique.contains(i))
                    .chain(unique.iter().filter(|i| !kept.contains(i)))
                    .filter(|i| !borderline.contains(i))
                    .collect();
                assert!(
                    differing.is_empty(),
                    "drawn differs from the CPU's culling at {differing:?}"
                );
            } else {
                // Occlusion culling draws a part of the same set.
                assert!(
                    unique
                        .iter()
                        .all(|i| kept.contains(i) || borderline.contains(i))
                );
                assert!(
                    stats.occluded_instances > 0,
                    "nothing hidden: no test of occlusion"
                );
            }
            let counted = count(&scene, &transforms, &scene.camera, &drawn, 3);
            assert_eq!(
                counted,
                brute_force(&scene, &drawn),
                "occlusion {occlusion}"
            );
            assert_eq!(counted.submitted, stats.triangles);
            // A scene that tells small triangles from large ones.
            let under_1px = counted.histogram[0] + counted.histogram[1];
            assert_eq!(counted.under_1px, under_1px);
            assert!(
                counted.no_sample > 0 && under_1px > 0 && counted.drawn > under_1px,
                "{counted:?}"
            );
            eprintln!("occlusion {occlusion}: {counted:?}");
        }
    }
}
