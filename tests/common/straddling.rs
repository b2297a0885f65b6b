//! Cull test scenes shared by `tests/culling.rs` and
//! `tests/view_culling.rs`: objects straddling the frustum's planes, and
//! renderers with or without the cull pass's subgroup variant.

use super::{Gpu, Target};
use glam::{Mat4, Quat, Vec3};
use unbound::{Camera, ObjectDesc, ObjectHandle, Renderer, RendererConfig};
use unbound_scenes::Rng;

/// Spheres within this distance of a plane are excluded from the exact
/// comparison: the GPU evaluates the same f32 expression but may fuse
/// multiply-adds, so results can differ in the last bits.
pub const PLANE_EPSILON: f32 = 1e-3;

/// A target that the renderer's camera (a straddling scene's, of random
/// aspect) fits: its shorter side 32 pixels, the longer one rounded to the
/// aspect.
pub fn straddling_target(gpu: &Gpu, renderer: &Renderer) -> Target {
    const SHORT: f32 = 32.0;
    let aspect = renderer.camera().aspect;
    let (width, height) = if aspect >= 1.0 {
        ((SHORT * aspect).round(), SHORT)
    } else {
        (SHORT, (SHORT / aspect).round())
    };
    Target::new(gpu, width as u32, height as u32)
}

/// Objects on a lattice around the frustum's planes so many straddle them.
pub fn straddling_scene(renderer: &mut Renderer, seed: u64, count: u32) -> Vec<ObjectHandle> {
    let material = renderer.add_material(&Default::default()).unwrap();
    straddling_scene_with(renderer, seed, count, &[material])
}

/// [`straddling_scene`], object `i` with material `i % materials.len()`.
pub fn straddling_scene_with(
    renderer: &mut Renderer,
    seed: u64,
    count: u32,
    materials: &[unbound::MaterialHandle],
) -> Vec<ObjectHandle> {
    let mut rng = Rng::new(seed);
    let meshes: Vec<_> = unbound_scenes::mesh_family(6)
        .iter()
        .map(|m| renderer.add_mesh(&m.as_mesh_data()).unwrap())
        .collect();
    let camera = Camera {
        position: Vec3::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), 20.0),
        target: Vec3::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), 0.0),
        fov_y_radians: rng.range(0.5, 1.2),
        aspect: rng.range(0.7, 1.8),
        z_near: 1.0,
        z_far: 35.0,
        ..Default::default()
    };
    renderer.set_camera(&camera).unwrap();
    (0..count as usize)
        .map(|i| {
            let position = Vec3::new(
                rng.range(-25.0, 25.0),
                rng.range(-25.0, 25.0),
                rng.range(-20.0, 22.0),
            );
            let scale = rng.range(0.2, 3.0);
            renderer
                .add_object(&ObjectDesc {
                    mesh: meshes[rng.below(meshes.len() as u32) as usize],
                    material: materials[i % materials.len()],
                    world_from_object: Mat4::from_scale_rotation_translation(
                        Vec3::splat(scale),
                        Quat::from_rotation_y(rng.range(0.0, 6.0)),
                        position,
                    ),
                })
                .unwrap()
        })
        .collect()
}

/// A renderer whose cull pass runs its subgroup variant or not, as asked
/// (the adapter must have `Features::SUBGROUP` for `subgroups`).
pub fn subgroups_renderer(gpu: &Gpu, capacities: unbound::Capacities, subgroups: bool) -> Renderer {
    let renderer = gpu.renderer_with(RendererConfig {
        capacities,
        subgroups,
        ..Default::default()
    });
    assert_eq!(
        renderer.cull_uses_subgroups(),
        subgroups,
        "the adapter must have Features::SUBGROUP (Mesa lavapipe does)"
    );
    renderer
}

/// The GPU's visible list `visible` holds each slot at most once and, past
/// the `ambiguous` slots (sorted), exactly the `expected` ones (sorted).
pub fn assert_visible_set(visible: &[u32], expected: &[u32], ambiguous: &[u32]) {
    let mut gpu_visible = visible.to_vec();
    gpu_visible.sort_unstable();
    let before = gpu_visible.len();
    gpu_visible.dedup();
    assert_eq!(before, gpu_visible.len(), "an instance was written twice");
    gpu_visible.retain(|slot| ambiguous.binary_search(slot).is_err());
    assert_eq!(
        gpu_visible,
        expected,
        "visible set differs from the CPU reference ({} ambiguous excluded)",
        ambiguous.len()
    );
}
