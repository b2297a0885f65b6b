//! The small-object culling tests' scene: tiny cubes far away, each placed
//! on or between pixel centres, a thin bar over a row of centres and one
//! large cube; the CPU verdicts of `unbound::small_objects`; and the
//! comparison of its images with small-object (and occlusion) culling on
//! and off (`tests/small_objects.rs`, `tests/occlusion_gl.rs`).

use glam::{Mat4, Quat, UVec2, Vec2, Vec3, Vec4};
use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
use unbound::small_objects::sphere_covers_no_sample;
use unbound::{Camera, ObjectHandle, Renderer, RendererConfig, Tier, shapes};

use super::*;

pub const WIDTH: u32 = 96;
pub const HEIGHT: u32 = 64;
/// Distance of the tiny cubes from the camera.
const DEPTH: f32 = 40.0;
/// Where, within its pixel, a tiny cube's centre projects (pixel units
/// from the pixel's top-left corner): at the centre (kept, and it draws
/// that pixel), between centres on one axis or both (culled).
const OFFSETS: [Vec2; 5] = [
    Vec2::new(0.5, 0.5),
    Vec2::new(1.0, 0.5),
    Vec2::new(0.5, 1.0),
    Vec2::new(1.0, 1.0),
    Vec2::new(0.8, 0.3),
];

pub fn camera() -> Camera {
    Camera {
        position: Vec3::ZERO,
        target: Vec3::new(0.0, 0.0, -1.0),
        aspect: WIDTH as f32 / HEIGHT as f32,
        ..Default::default()
    }
}

/// The world point at `depth` in front of `camera` that projects to pixel
/// position `pixel` (y down).
fn world_at_pixel(camera: &Camera, pixel: Vec2, depth: f32) -> Vec3 {
    let clip_from_world = camera.clip_from_world();
    let z = clip_from_world
        .project_point3(camera.position + Vec3::new(0.0, 0.0, -depth))
        .z;
    let ndc = Vec2::new(
        pixel.x / WIDTH as f32 * 2.0 - 1.0,
        1.0 - pixel.y / HEIGHT as f32 * 2.0,
    );
    clip_from_world.inverse().project_point3(ndc.extend(z))
}

pub struct TinyScene {
    /// Each object, its world bounding sphere, and the pixel its centre
    /// projects into when it sits on that pixel's centre.
    pub objects: Vec<(ObjectHandle, Vec4, Option<UVec2>)>,
    /// The pixels of the thin bar (row, first and last column).
    pub bar: (u32, u32, u32),
}

/// A large cube in the middle distance, a thin bar a fraction of a pixel
/// high across a row of pixel centres, and a grid of cubes far away whose
/// bounds span under half a pixel, each placed at one of `OFFSETS` within
/// its pixel.
pub fn tiny_scene(renderer: &mut Renderer) -> TinyScene {
    let camera = camera();
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let palette: Vec<_> = (0..6u8)
        .map(|i| {
            let texture = solid_texture(renderer, [40 + 40 * i, 200 - 30 * i, 90 + 25 * i, 255]);
            textured_material(renderer, texture)
        })
        .collect();
    let mut objects = Vec::new();
    let mut add = |renderer: &mut Renderer, world_from_object: Mat4, at: Option<UVec2>| {
        let desc = unbound::ObjectDesc {
            mesh: cube,
            material: palette[objects.len() % palette.len()],
            world_from_object,
        };
        objects.push((renderer.add_object(&desc).unwrap(), at));
    };
    // Pixels per world unit at `depth`.
    let per_unit = |depth: f32| {
        1.0 / (world_at_pixel(&camera, Vec2::new(1.0, 0.0), depth).x
            - world_at_pixel(&camera, Vec2::ZERO, depth).x)
    };
    // Above the grid of tiny cubes (rows 2 to 14), hiding none of them.
    let big = Mat4::from_scale_rotation_translation(
        Vec3::splat(8.0 / per_unit(25.0)),
        Quat::from_rotation_y(0.6),
        world_at_pixel(&camera, Vec2::new(20.0, 8.0), 25.0),
    );
    add(renderer, big, None);
    // The bar: a tenth of a pixel high, across columns 60 to 90 of row 10.
    let (row, first, last) = (10u32, 60u32, 90u32);
    let left = world_at_pixel(
        &camera,
        Vec2::new(first as f32 + 0.5, row as f32 + 0.5),
        20.0,
    );
    let right = world_at_pixel(
        &camera,
        Vec2::new(last as f32 + 0.5, row as f32 + 0.5),
        20.0,
    );
    let pixel_world = (right.x - left.x) / (last - first) as f32;
    // Half a pixel past the end centres, so that no edge passes one.
    let bar = Mat4::from_scale_rotation_translation(
        Vec3::new(
            right.x - left.x + pixel_world,
            0.1 * pixel_world,
            0.1 * pixel_world,
        ),
        Quat::IDENTITY,
        (left + right) / 2.0,
    );
    add(renderer, bar, None);
    // Bounds (the box around the unit cube's sphere) 0.3 pixel across.
    let side = 0.3 / per_unit(DEPTH) / 3f32.sqrt();
    let mut n = 0;
    for y in (20..60).step_by(3) {
        for x in (4..92).step_by(3) {
            let offset = OFFSETS[n % OFFSETS.len()];
            n += 1;
            let centre = world_at_pixel(&camera, Vec2::new(x as f32, y as f32) + offset, DEPTH);
            let world = Mat4::from_scale_rotation_translation(
                Vec3::splat(side),
                Quat::from_rotation_y(0.1 * n as f32),
                centre,
            );
            let at = (offset == Vec2::splat(0.5)).then_some(UVec2::new(x, y));
            add(renderer, world, at);
        }
    }
    let objects = objects
        .into_iter()
        .map(|(object, at)| {
            let sphere = renderer.objects().world_sphere_of_slot(object.slot());
            (object, Vec4::from_array(sphere.unwrap()), at)
        })
        .collect();
    TinyScene {
        objects,
        bar: (row, first, last),
    }
}

pub fn renderer_for(
    gpu: &Gpu,
    tier: Option<Tier>,
    occlusion: bool,
    small_objects: bool,
) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        occlusion,
        small_object_culling: small_objects,
        ..Default::default()
    });
    renderer.set_lighting(&flat_lighting()).unwrap();
    renderer.set_camera(&camera()).unwrap();
    renderer
}

/// The CPU verdict per object: (in the frustum, covers no sample), and how
/// many objects lie too near a decision boundary to compare.
pub fn cpu_verdicts(scene: &TinyScene) -> (Vec<(bool, bool)>, usize) {
    let clip_from_world = camera().clip_from_world();
    let planes = frustum_planes(&clip_from_world);
    let size = UVec2::new(WIDTH, HEIGHT);
    let mut borderline = 0;
    let verdicts = (scene.objects.iter())
        .map(|(_, sphere, _)| {
            let test = sphere_covers_no_sample(&clip_from_world, *sphere, size);
            if test.edge_margin < 1e-3 || sphere_plane_margin(&planes, *sphere).abs() < 1e-3 {
                borderline += 1;
            }
            (sphere_in_frustum(&planes, *sphere), test.culled)
        })
        .collect();
    (verdicts, borderline)
}

/// Renders the scene with small-object culling and occlusion culling on
/// and off (three frames each, so occlusion culling's early phase draws
/// what the last frame saw) and asserts the four images equal pixel for
/// pixel, that the scene has objects to cull, and that the kept sub-pixel
/// cubes and the bar draw their pixels.
pub fn compare_images(gpu: &Gpu, tier: Option<Tier>) {
    let target = Target::new(gpu, WIDTH, HEIGHT);
    let mut images = Vec::new();
    let mut scene = None;
    for (occlusion, small_objects) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut renderer = renderer_for(gpu, tier, occlusion, small_objects);
        scene = Some(tiny_scene(&mut renderer));
        // With occlusion culling, frame 1 draws early what frame 0 saw.
        let mut image = None;
        for _ in 0..3 {
            image = Some(target.render(gpu, &mut renderer).0);
        }
        images.push(((occlusion, small_objects), image.unwrap()));
    }
    let scene = scene.unwrap();
    let (reference_key, reference) = &images[0];
    for (key, image) in &images[1..] {
        let differ = mismatched_pixels(reference, image, 0);
        if differ > 0 {
            save_output(&format!("small-objects-{tier:?}-reference.png"), reference);
            save_output(&format!("small-objects-{tier:?}-{key:?}.png"), image);
        }
        assert_eq!(
            differ, 0,
            "{tier:?}: {key:?} differs from {reference_key:?}"
        );
    }
    // The scene has culled objects, and the kept sub-pixel ones and the
    // bar each draw their pixels.
    let (verdicts, _) = cpu_verdicts(&scene);
    let culled = verdicts
        .iter()
        .filter(|(inside, no_sample)| *inside && *no_sample)
        .count();
    assert!(culled > 100, "only {culled} objects cover no sample");
    let background = image::Rgba(shown_clear_srgb(unbound_harness::BACKGROUND));
    let mut centred = 0;
    for (_, _, at) in &scene.objects {
        if let Some(at) = at {
            assert_ne!(
                *reference.get_pixel(at.x, at.y),
                background,
                "object at {at}"
            );
            centred += 1;
        }
    }
    assert!(centred > 50, "{centred}");
    let (row, first, last) = scene.bar;
    for x in first..=last {
        assert_ne!(*reference.get_pixel(x, row), background, "bar at {x}");
    }
    gpu.finish();
}
