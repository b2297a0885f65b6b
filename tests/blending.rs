//! Blended instances are drawn exactly far to near across meshes (the cull
//! pass's GPU sort), up to `BLEND_SORT_CAP` visible; beyond it they fall back
//! to per-mesh draws ordered by depth bucket, and still render.

mod common;

use common::*;
use glam::{Vec3, Vec4};
use unbound::gpu_types::BLEND_SORT_CAP;
use unbound::{AlphaMode, Material, MaterialHandle, ObjectDesc, Renderer, TextureRef, shapes};

fn blended(renderer: &mut Renderer, color: Vec4) -> MaterialHandle {
    let white = renderer.heap().white_texture();
    let sampler = renderer.heap().default_sampler();
    renderer
        .add_material(&Material {
            base_color_factor: color,
            base_color: Some(TextureRef::new(white, sampler)),
            alpha_mode: AlphaMode::Blend,
            metallic_factor: 0.0,
            ..Default::default()
        })
        .unwrap()
}

/// `layers` (radiance, alpha) blended in this order over the harness's
/// background radiance, as shown through the default tone mapping.
fn blend_over(layers: &[(Vec3, f32)]) -> [u8; 4] {
    let background = unbound_harness::BACKGROUND;
    let mut c = glam::DVec3::new(background.r, background.g, background.b).as_vec3();
    for &(color, alpha) in layers {
        c = c * (1.0 - alpha) + color * alpha;
    }
    let [r, g, b] = shown_srgb(c);
    [r, g, b, 255]
}

/// Red (far) and blue (near) on one mesh, green between them on another:
/// per-mesh draws would blend green last, over blue. Red and green also
/// share a depth bucket.
#[test]
fn blended_instances_of_different_meshes_blend_exactly_far_to_near() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mesh_a = flat_quad_scene(&mut renderer, 2.0);
    let mesh_b = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let layers = [
        (mesh_a, -1.0, Vec3::new(1.0, 0.0, 0.0)),
        (mesh_b, 0.0, Vec3::new(0.0, 1.0, 0.0)),
        (mesh_a, 1.0, Vec3::new(0.0, 0.0, 1.0)),
    ];
    // Added near to far, so no insertion order happens to be right.
    for &(mesh, z, color) in layers.iter().rev() {
        let material = blended(&mut renderer, color.extend(0.5));
        renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: quad_at(Vec3::new(0.0, 0.0, z), 2.0, 2.0),
            })
            .unwrap();
    }
    let target = Target::new(&gpu, 32, 32);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("blend_exact_order", &image);
    target.render(&gpu, &mut renderer);
    let stats = renderer.latest_gpu_stats().unwrap();
    assert_eq!(stats.visible_instances, 3);
    assert_eq!(stats.draws, 3, "one sorted draw per blended instance");
    let centre = *image.get_pixel(16, 16);
    let expected = blend_over(&[(layers[0].2, 0.5), (layers[1].2, 0.5), (layers[2].2, 0.5)]);
    let per_mesh = blend_over(&[(layers[0].2, 0.5), (layers[2].2, 0.5), (layers[1].2, 0.5)]);
    assert!(
        color_distance(image::Rgba(expected), per_mesh) > 20,
        "the test tells the orders apart: {expected:?} vs {per_mesh:?}"
    );
    assert!(
        color_distance(centre, expected) <= 3,
        "centre {centre:?}, expected {expected:?} (per-mesh order would give {per_mesh:?})"
    );
    gpu.finish();
}

/// Past the cap, blended instances are drawn per mesh (far to near by depth
/// bucket); under it, one draw each. Both render every instance.
#[test]
fn blend_sort_cap_falls_back_to_per_mesh_draws() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let meshes = [
        flat_quad_scene(&mut renderer, 2.0),
        renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap(),
    ];
    let material = blended(&mut renderer, Vec4::new(1.0, 1.0, 1.0, 0.25));
    let target = Target::new(&gpu, 64, 64);
    let mut objects = Vec::new();
    for (count, expected_draws) in [
        (BLEND_SORT_CAP - 8, BLEND_SORT_CAP - 8),
        (BLEND_SORT_CAP + 8, 2),
    ] {
        while objects.len() < count as usize {
            let i = objects.len();
            let (x, y) = ((i % 48) as f32, (i / 48) as f32);
            objects.push(
                renderer
                    .add_object(&ObjectDesc {
                        mesh: meshes[i % 2],
                        material,
                        world_from_object: quad_at(
                            Vec3::new(-1.9 + x * 0.08, -1.9 + y * 0.08, (i % 7) as f32 * 0.1),
                            0.05,
                            0.05,
                        ),
                    })
                    .unwrap(),
            );
        }
        let (image, _) = target.render(&gpu, &mut renderer);
        target.render(&gpu, &mut renderer);
        let stats = renderer.latest_gpu_stats().unwrap();
        assert_eq!(stats.visible_instances, count);
        assert_eq!(stats.draws, expected_draws, "{count} blended instances");
        let background = image.get_pixel(63, 63).0;
        let lit = image
            .pixels()
            .filter(|p| color_distance(**p, background) > 10)
            .count();
        assert!(lit > 500, "{count}: {lit} pixels show the quads");
    }
    gpu.finish();
}
