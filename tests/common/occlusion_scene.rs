//! The occlusion-culling tests' scene: a wall with objects behind it, a
//! camera sliding past it, and the comparison of every frame with
//! occlusion culling on and off (`tests/occlusion.rs`,
//! `tests/occlusion_gl.rs`).

use glam::{Mat4, Vec3, Vec4};
use unbound::output::Msaa;
use unbound::{
    AlphaMode, Camera, IndirectMode, Material, ObjectHandle, Renderer, RendererConfig, TextureRef,
    Tier, shapes,
};

use super::*;

pub const WIDTH: u32 = 96;
pub const HEIGHT: u32 = 64;

/// A wall near the camera, a grid of cubes behind it (some blended, some
/// double-sided spheres), and a few in front. Returns each object and its
/// world bounding sphere.
pub fn wall_scene(renderer: &mut Renderer) -> Vec<(ObjectHandle, Vec4)> {
    let mut objects = Vec::new();
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let sphere = renderer
        .add_mesh(&shapes::sphere(12, 8).as_mesh_data())
        .unwrap();
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let mut add = |renderer: &mut Renderer, mesh, color: [u8; 4], world: Mat4| {
        let object = add_solid_object(renderer, mesh, color, world).object;
        objects.push(object);
    };
    // The wall: 6 wide, 4 high, at z = 2, facing the camera at z = 8.
    add(
        renderer,
        quad,
        [200, 200, 200, 255],
        quad_at(Vec3::new(0.0, 0.0, 2.0), 6.0, 4.0),
    );
    for i in 0..8 {
        for j in 0..4 {
            let centre = Vec3::new(-3.5 + i as f32, -1.5 + j as f32, -2.0 - (i % 3) as f32);
            let color = [30 * i as u8, 60 * j as u8, 180, 255];
            let world = Mat4::from_scale_rotation_translation(
                Vec3::splat(0.6),
                glam::Quat::from_rotation_y(0.3 * (i + j) as f32),
                centre,
            );
            let mesh = if (i + j) % 3 == 0 { sphere } else { cube };
            add(renderer, mesh, color, world);
        }
    }
    // In front of the wall.
    for i in 0..3 {
        let world = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.4),
            glam::Quat::from_rotation_x(0.5),
            Vec3::new(-2.0 + 2.0 * i as f32, -1.0, 4.0),
        );
        add(renderer, cube, [250, 120, 20, 255], world);
    }
    // Blended quads behind the wall and beside it.
    let white = renderer.heap().white_texture();
    let sampler = renderer.heap().default_sampler();
    let blended = renderer
        .add_material(&Material {
            base_color_factor: Vec4::new(0.2, 0.9, 0.3, 0.5),
            base_color: Some(TextureRef::new(white, sampler)),
            alpha_mode: AlphaMode::Blend,
            metallic_factor: 0.0,
            ..Default::default()
        })
        .unwrap();
    for x in [-1.0, 3.5] {
        let object = renderer
            .add_object(&unbound::ObjectDesc {
                mesh: quad,
                material: blended,
                world_from_object: quad_at(Vec3::new(x, 0.5, -0.5), 1.5, 1.5),
            })
            .unwrap();
        objects.push(object);
    }
    objects
        .into_iter()
        .map(|object| {
            let slot = object.slot();
            let sphere = renderer.objects().world_sphere_of_slot(slot).unwrap();
            (object, Vec4::from_array(sphere))
        })
        .collect()
}

/// Frame `frame` of a camera sliding left to right past the wall.
pub fn sliding_camera(frame: u32, frames: u32) -> Camera {
    let x = -9.0 + 18.0 * frame as f32 / (frames - 1) as f32;
    Camera {
        position: Vec3::new(x, 0.5, 8.0),
        target: Vec3::new(x * 0.4, 0.0, 0.0),
        aspect: WIDTH as f32 / HEIGHT as f32,
        ..Default::default()
    }
}

pub fn renderer_for(
    gpu: &Gpu,
    occlusion: bool,
    tier: Option<Tier>,
    plain: bool,
    msaa: Msaa,
) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        msaa,
        indirect: if plain {
            IndirectMode::Plain
        } else {
            IndirectMode::Count
        },
        occlusion,
        ..Default::default()
    });
    renderer.set_lighting(&flat_lighting()).unwrap();
    renderer
}

/// Renders the sliding path with occlusion culling on and off and compares
/// every frame pixel for pixel; returns the summed (late, occluded) counts
/// of the frames with occlusion culling whose statistics came back.
pub fn compare_path(gpu: &Gpu, tier: Option<Tier>, plain: bool, msaa: Msaa) -> (u32, u32) {
    let frames = 12;
    let mut on = renderer_for(gpu, true, tier, plain, msaa);
    let mut off = renderer_for(gpu, false, tier, plain, msaa);
    wall_scene(&mut on);
    wall_scene(&mut off);
    let target = Target::with_msaa(gpu, WIDTH, HEIGHT, Target::FORMAT, msaa);
    let (mut late, mut occluded) = (0, 0);
    for frame in 0..frames {
        let camera = sliding_camera(frame, frames);
        on.set_camera(&camera).unwrap();
        off.set_camera(&camera).unwrap();
        let (with, _) = target.render(gpu, &mut on);
        let (without, _) = target.render(gpu, &mut off);
        if mismatched_pixels(&with, &without, 0) > 0 {
            save_output(&format!("occlusion-{tier:?}-{frame}-on.png"), &with);
            save_output(&format!("occlusion-{tier:?}-{frame}-off.png"), &without);
            panic!(
                "{tier:?} plain {plain} {msaa:?} frame {frame}: {} pixels differ",
                mismatched_pixels(&with, &without, 0)
            );
        }
        // Not a blank frame: the comparison means something.
        assert!(
            drawn_pixels(&with, background_srgb()) > 100,
            "frame {frame}"
        );
        let stats = on.latest_gpu_stats().expect("stats arrive");
        let reference = off.latest_gpu_stats().expect("stats arrive");
        if stats.frame_index == u64::from(frame) && reference.frame_index == u64::from(frame) {
            // Visible means inside the frustum, either way.
            assert_eq!(stats.visible_instances, reference.visible_instances);
            assert_eq!(
                stats.early_instances
                    + stats.late_instances
                    + stats.occluded_instances
                    + stats.small_instances,
                stats.visible_instances
            );
            assert_eq!(
                (reference.late_instances, reference.occluded_instances),
                (0, 0)
            );
            if frame > 0 {
                late += stats.late_instances;
            }
            occluded += stats.occluded_instances;
        }
    }
    gpu.finish();
    (late, occluded)
}

pub fn background_srgb() -> [u8; 4] {
    shown_clear_srgb(unbound_harness::BACKGROUND)
}
