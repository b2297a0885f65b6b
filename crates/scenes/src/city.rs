//! The city benchmark scene: blocks of buildings on a street grid, seen
//! from street level, so that most instances hide behind the buildings in
//! front of them (what occlusion culling is for; see `docs/PERFORMANCE.md`).
//!
//! Each building is a stack of storeys, one instance each, of nearly cubic
//! proportions: an instance's bounding sphere then fits its box closely,
//! where one tall box would have a sphere as wide as it is tall. Between
//! the buildings stand props: a lamp post and a parked car per block.

use glam::{Mat4, Vec3};

use unbound::Camera;
use unbound::shapes::{self, Mesh};

use crate::Rng;
use crate::spec::{BenchScene, SceneMaterial, SceneObject, SceneSpec, textures, wide_camera};

/// Distance between the centres of neighbouring blocks; a building's
/// footprint is at most `FOOTPRINT.1` wide, the rest is street.
pub const BLOCK_PITCH: f32 = 14.0;
/// Footprint side range `[low, high)` of a building.
const FOOTPRINT: (f32, f32) = (7.0, 10.0);
/// Storeys per building `[low, high)`.
const STOREYS: (u32, u32) = (2, 10);
/// A storey is this fraction of its footprint's side tall.
const STOREY_HEIGHT: f32 = 0.9;
/// The camera's eye height above the street.
const EYE_HEIGHT: f32 = 1.7;
/// How far the camera walks along its street each frame of a benchmark.
pub const WALK_PER_FRAME: f32 = 0.05;
/// Textures (and materials) of the city.
pub const CITY_TEXTURES: u32 = 64;
/// Average instances per block (storeys and props), which sizes the grid.
const INSTANCES_PER_BLOCK: f32 = (STOREYS.0 + STOREYS.1) as f32 / 2.0 + 2.0;

/// Mesh indices in [`SceneSpec::meshes`].
const STOREY_MESH: u32 = 0;
const LAMP_MESH: u32 = 1;
const CAR_MESH: u32 = 2;

/// Blocks per row of the city of `instances` instances.
fn blocks_per_row(instances: u32) -> u32 {
    ((instances as f32 / INSTANCES_PER_BLOCK).sqrt().ceil() as u32).max(2)
}

/// The city of exactly `instances` instances: blocks in rows of
/// `blocks_per_row`, row `r` at `z = -r * BLOCK_PITCH`, filled in order
/// (the last building may be cut short), 64 textures, 1280x720, the camera
/// [`city_camera`] at frame 0.
pub fn city(instances: u32) -> SceneSpec {
    let per_row = blocks_per_row(instances);
    let mut rng = Rng::new(u64::from(instances) ^ 0xc17);
    let mut objects = Vec::with_capacity(instances as usize);
    let mut block = 0;
    while (objects.len() as u32) < instances {
        let centre = Vec3::new(
            (block % per_row) as f32 * BLOCK_PITCH,
            0.0,
            -((block / per_row) as f32) * BLOCK_PITCH,
        );
        block_objects(&mut rng, centre, &mut objects);
        block += 1;
    }
    objects.truncate(instances as usize);
    SceneSpec {
        meshes: city_meshes(),
        textures: textures(CITY_TEXTURES, 64),
        materials: SceneMaterial::one_per_texture(CITY_TEXTURES as usize),
        objects,
        ..SceneSpec::wide(BenchScene::City.name(), city_camera(instances, 0.0))
    }
}

/// Storey (unit cube), lamp post (cylinder), car (unit cube).
fn city_meshes() -> Vec<Mesh> {
    vec![
        shapes::cube(),
        shapes::cylinder(0.12, 0.08, 8),
        shapes::cube(),
    ]
}

/// One block at `centre` (on the street plane, y = 0): a building of
/// random footprint and storeys, a lamp post at its south-east corner and a
/// car parked along its south side (the north-south streets stay clear).
fn block_objects(rng: &mut Rng, centre: Vec3, objects: &mut Vec<SceneObject>) {
    let side = rng.range(FOOTPRINT.0, FOOTPRINT.1);
    let storeys = STOREYS.0 + rng.below(STOREYS.1 - STOREYS.0);
    let storey_height = side * STOREY_HEIGHT;
    let material = rng.below(CITY_TEXTURES);
    for storey in 0..storeys {
        let y = (storey as f32 + 0.5) * storey_height;
        objects.push(SceneObject {
            mesh: STOREY_MESH,
            material,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::new(side, storey_height, side),
                glam::Quat::IDENTITY,
                centre + Vec3::Y * y,
            ),
        });
    }
    let kerb = side * 0.5 + 0.6;
    objects.push(SceneObject {
        mesh: LAMP_MESH,
        material: rng.below(CITY_TEXTURES),
        world_from_object: Mat4::from_translation(centre + Vec3::new(kerb, 2.0, kerb))
            * Mat4::from_scale(Vec3::new(1.0, 4.0, 1.0)),
    });
    let along = rng.range(-side * 0.4, side * 0.4);
    objects.push(SceneObject {
        mesh: CAR_MESH,
        material: rng.below(CITY_TEXTURES),
        world_from_object: Mat4::from_translation(centre + Vec3::new(along, 0.7, kerb + 0.6))
            * Mat4::from_scale(Vec3::new(4.0, 1.4, 1.8)),
    });
}

/// The camera of the city of `instances` instances after `frame` frames:
/// at eye height in the street east of the middle column, just south of
/// the first row, looking north into the city 10° off the street's axis
/// (so the street's far end is hidden too), walking [`WALK_PER_FRAME`]
/// north each frame.
pub fn city_camera(instances: u32, frame: f32) -> Camera {
    let per_row = blocks_per_row(instances);
    let rows = (instances as f32 / INSTANCES_PER_BLOCK / per_row as f32).ceil();
    let street_x = (per_row / 2) as f32 * BLOCK_PITCH - BLOCK_PITCH * 0.5;
    let position = Vec3::new(
        street_x,
        EYE_HEIGHT,
        BLOCK_PITCH * 0.5 - frame * WALK_PER_FRAME,
    );
    let yaw = 10f32.to_radians();
    let forward = Vec3::new(yaw.sin(), 0.05, -yaw.cos());
    let extent = (per_row as f32).max(rows) * BLOCK_PITCH;
    wide_camera(
        position,
        position + forward,
        0.2,
        extent * 1.5 + BLOCK_PITCH,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_city_has_exactly_the_instances_asked_on_a_square_grid() {
        for instances in [1, 100, 1000, 10_000] {
            let scene = city(instances);
            assert_eq!(scene.objects.len(), instances as usize);
            assert!(scene.objects.iter().all(|o| o.mesh < 3 && o.material < 64));
        }
        let scene = city(10_000);
        let (min, max) = scene.bounds();
        let (width, depth) = (max.x - min.x, max.z - min.z);
        assert!(
            (0.7..1.4).contains(&(width / depth)),
            "{width} x {depth}: about square"
        );
        // Street level: the eye below every storey but the lowest's top,
        // inside the grid's width, south of the first row.
        let camera = city_camera(10_000, 0.0);
        assert!(camera.position.y < FOOTPRINT.0 * STOREY_HEIGHT);
        assert!((min.x..max.x).contains(&camera.position.x));
        assert!(camera.position.z > FOOTPRINT.1 * 0.5);
        // The camera stands in a street: no storey's footprint holds it.
        for o in &scene.objects {
            let (scale, _, centre) = o.world_from_object.to_scale_rotation_translation();
            let inside = (camera.position.x - centre.x).abs() < scale.x * 0.5
                && (camera.position.z - centre.z).abs() < scale.z * 0.5;
            assert!(!inside || o.mesh != STOREY_MESH, "{centre}");
        }
        assert!(city_camera(10_000, 20.0).position.z < camera.position.z);
    }
}
