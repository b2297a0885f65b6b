//! Shadow cascades culled by occlusion (`src/passes/occlusion.rs`): the
//! shadow map and the image are bit for bit those of frustum culling alone,
//! frame after frame, while the camera moves by more than a texel, a caster
//! hidden under a roof comes out from under it, and a caster moves into
//! the cascades from outside them; and the cull does act (casters hidden
//! under the roof are not drawn, newly seen ones are drawn late). Tier B
//! culls the same; tier C keeps the cascades frustum-culled, with the same
//! image.

mod common;

use common::shadow_scene::{SIZE, camera, lighting, read_shadow_map, settings};
use common::*;
use glam::{Mat4, Quat, Vec3, Vec4};
use unbound::{CascadeCasterStats, Material, ObjectDesc, ObjectHandle, Renderer, Tier, shapes};

/// The roof's centre; the hidden cubes sit under it along the sun's rays.
const ROOF: Vec3 = Vec3::new(0.0, 3.5, 0.0);
const CUBE_HEIGHT: f32 = 1.0;

/// Where a point at `CUBE_HEIGHT` lies under the roof's centre, seen from
/// the sun.
fn under_roof() -> Vec3 {
    let sun = common::shadow_scene::sun_direction();
    ROOF - sun * ((ROOF.y - CUBE_HEIGHT) / sun.y)
}

fn placed(scale: Vec3, at: Vec3) -> Mat4 {
    Mat4::from_scale_rotation_translation(scale, Quat::IDENTITY, at)
}

/// Where the two moving casters stand on frame `frame`: one comes out from
/// under the roof, one comes from beyond the cascades (40 units away, past
/// their 16) into them.
fn movers(frame: usize) -> [Mat4; 2] {
    let out = under_roof() + Vec3::new(0.0, 0.0, 1.2 * frame as f32);
    let incoming = [40.0, 24.0, 9.0, 4.0, under_roof().x + 0.3, 2.0][frame.min(5)];
    let incoming = Vec3::new(incoming, CUBE_HEIGHT, under_roof().z - 0.4);
    [
        placed(Vec3::splat(0.45), out),
        placed(Vec3::splat(0.5), incoming),
    ]
}

/// The scene: a ground slab, a roof, a 5 × 5 grid of small cubes in the
/// roof's shadow, and the two movers.
fn build(renderer: &mut Renderer) -> [ObjectHandle; 2] {
    renderer.set_camera(&camera()).unwrap();
    renderer.set_lighting(&lighting(true)).unwrap();
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let material = |color: [f32; 4]| Material {
        base_color_factor: Vec4::from(color),
        metallic_factor: 0.0,
        roughness_factor: 0.8,
        ..Material::default()
    };
    let grey = renderer
        .add_material(&material([0.8, 0.8, 0.75, 1.0]))
        .unwrap();
    let red = renderer
        .add_material(&material([0.8, 0.2, 0.15, 1.0]))
        .unwrap();
    let mut add = |world_from_object, material| {
        let desc = ObjectDesc {
            mesh: cube,
            material,
            world_from_object,
        };
        renderer.add_object(&desc).unwrap()
    };
    add(placed(Vec3::new(14.0, 0.2, 14.0), Vec3::Y * -0.1), grey);
    add(placed(Vec3::new(5.0, 0.3, 5.0), ROOF), grey);
    for i in 0..25 {
        let offset = Vec3::new((i % 5) as f32 - 2.0, 0.0, (i / 5) as f32 - 2.0) * 0.6;
        add(placed(Vec3::splat(0.35), under_roof() + offset), red);
    }
    movers(0).map(|world_from_object| add(world_from_object, red))
}

/// The path's frames: the camera moves by more than a texel of every
/// cascade each frame (so they move too), and the movers move.
const FRAMES: usize = 6;

/// Renders the path with cascade occlusion culling on and off side by side
/// on `tier`, comparing shadow maps and images frame for frame; returns
/// the culling renderer's per-frame cascade statistics (the frames after
/// the first: statistics come back a frame late), and the other's.
fn compare_path(
    gpu: &Gpu,
    tier: Option<Tier>,
) -> (Vec<[CascadeCasterStats; 4]>, Vec<[CascadeCasterStats; 4]>) {
    let config = || unbound::RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        shadows: settings(true),
        ..Default::default()
    };
    let mut renderers = [gpu.renderer_with(config()), gpu.renderer_with(config())];
    renderers[1].set_cascade_occlusion(false);
    assert!(renderers[0].cascade_occlusion() && !renderers[1].cascade_occlusion());
    let handles = renderers.each_mut().map(build);
    let target = Target::new(gpu, SIZE, SIZE);
    let mut statistics = (Vec::new(), Vec::new());
    for frame in 0..=FRAMES {
        let mut camera = camera();
        let step = Vec3::new(0.37, 0.05, -0.21) * frame as f32;
        camera.position += step;
        camera.target += step;
        let mut outputs = Vec::new();
        for (renderer, handles) in renderers.iter_mut().zip(&handles) {
            renderer.set_camera(&camera).unwrap();
            for (&handle, world_from_object) in handles.iter().zip(movers(frame)) {
                renderer.set_transform(handle, world_from_object).unwrap();
            }
            let (image, stats) = target.render(gpu, renderer);
            outputs.push((image, read_shadow_map(gpu, renderer), stats.gpu));
        }
        let [(on, on_map, on_stats), (off, off_map, off_stats)] =
            <[_; 2]>::try_from(outputs).expect("two renderers");
        if frame > 0 {
            let cascades = |s: Option<unbound::GpuFrameStats>| {
                let s = s.expect("statistics of the frame before");
                assert_eq!(s.cascades, 4);
                s.cascade_casters
            };
            statistics.0.push(cascades(on_stats));
            statistics.1.push(cascades(off_stats));
        }
        if frame == FRAMES {
            break;
        }
        let texels = bytemuck::cast_slice::<u8, f32>(&on_map);
        assert!(texels.iter().any(|&d| d < 1.0), "casters were drawn");
        if on_map != off_map {
            save_output(&format!("cascade_occlusion_{frame}_on.png"), &on);
            panic!("{tier:?} frame {frame}: the shadow maps differ");
        }
        let mismatched = mismatched_pixels(&on, &off, 0);
        if mismatched > 0 {
            save_output(&format!("cascade_occlusion_{frame}_on.png"), &on);
            save_output(&format!("cascade_occlusion_{frame}_off.png"), &off);
        }
        assert_eq!(mismatched, 0, "{tier:?} frame {frame}: the images differ");
    }
    gpu.finish();
    statistics
}

fn totals(frames: &[[CascadeCasterStats; 4]]) -> CascadeCasterStats {
    let mut total = CascadeCasterStats::default();
    for cascade in frames.iter().flatten() {
        total.drawn += cascade.drawn;
        total.late += cascade.late;
        total.occluded += cascade.occluded;
    }
    total
}

/// The culling acts (casters occluded, casters drawn late after the first
/// frame) and leaves the map exact; without it every caster in a box is
/// drawn.
fn check_culled(tier: Option<Tier>) {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (on, off) = compare_path(&gpu, tier);
    let (on_total, off_total) = (totals(&on), totals(&off));
    assert!(on_total.occluded > 0, "{tier:?}: nothing occluded: {on:?}");
    assert!(on_total.late > 0, "{tier:?}: nothing drawn late: {on:?}");
    // Frames after the first: the early phase draws what was seen, the
    // late phase the rest (the movers, the cascades' new texels).
    assert!(
        totals(&on[1..]).late < totals(&on[1..]).drawn,
        "{tier:?}: the early phase drew something: {on:?}"
    );
    assert_eq!(off_total.late + off_total.occluded, 0, "{off:?}");
    // Drawn plus hidden, with the cull, is what frustum culling draws.
    assert_eq!(on_total.drawn + on_total.occluded, off_total.drawn);
}

#[test]
fn shadow_maps_and_images_are_the_same_with_cascade_occlusion_culling() {
    check_culled(None);
}

#[test]
fn tier_b_culls_the_cascades_the_same() {
    check_culled(Some(Tier::B));
}

/// Tier C keeps the cascades frustum-culled: the same images, nothing
/// occluded or drawn late.
#[test]
fn tier_c_keeps_the_cascades_frustum_culled() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (on, off) = compare_path(&gpu, Some(Tier::C));
    assert_eq!(totals(&on), totals(&off));
    assert_eq!(totals(&on).late + totals(&on).occluded, 0, "{on:?}");
}
