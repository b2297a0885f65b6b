//! The fixed benchmark scenes (see `docs/PERFORMANCE.md`), as plain data
//! ([`SceneSpec`], defined in `spec.rs`, loadable into both the bindless
//! renderer and the bind-per-draw baseline).

use glam::{Mat4, Quat, Vec3};

use unbound::shapes::{self, Mesh};
use unbound::{Camera, Lighting};

pub use crate::spec::{BenchScene, SceneMaterial, SceneObject, SceneSpec, SceneTexture};
use crate::spec::{textures, wide_camera};
use crate::{Rng, ScatterBox};

/// Meshes of roughly `min..=max` triangles each.
fn meshes_between(count: u32, min: usize, max: usize) -> Vec<Mesh> {
    (0..count)
        .map(|i| {
            let t = i as f32 / (count.max(2) - 1) as f32;
            let target = (min as f32 * (max as f32 / min as f32).powf(t)) as usize;
            if target <= 12 {
                return shapes::cube();
            }
            match i % 3 {
                // A UV sphere of s segments and s/2 rings has ~s^2 triangles.
                0 => {
                    let s = ((target as f32).sqrt()).round().max(3.0) as u32;
                    shapes::sphere(s, (s / 2).max(2))
                }
                // A torus of s segments and s/2 sides has s^2 triangles.
                1 => {
                    let s = ((target as f32).sqrt()).round().max(3.0) as u32;
                    shapes::torus(0.12, s, (s / 2).max(3))
                }
                // A closed cylinder of s segments has 4s triangles.
                _ => shapes::cylinder(0.4, 0.3, (target as u32 / 4).max(3)),
            }
        })
        .collect()
}

/// Draw-bound or raster-bound scene: `instances` objects scattered in a
/// cube, 1024 textures (64x64) / materials, 1280x720, about half visible.
pub fn scattered(scene: BenchScene, instances: u32, textures_count: u32, seed: u64) -> SceneSpec {
    scattered_sampling(scene, instances, (textures_count, textures_count), seed)
}

/// [`scattered`] with `textures_count` textures and materials (all loaded)
/// of which the objects use only the first `sampled` (at most all): the
/// same objects in the same places whatever the heap holds, so that a
/// larger heap with the same `sampled` changes the heap alone, not what
/// the frame samples (`unbound-bench --sampled-textures`).
pub fn scattered_sampling(
    scene: BenchScene,
    instances: u32,
    (textures_count, sampled): (u32, u32),
    seed: u64,
) -> SceneSpec {
    let sampled = sampled.clamp(1, textures_count.max(1));
    let meshes = match scene {
        BenchScene::RasterBound => meshes_between(16, 1000, 5000),
        _ => meshes_between(24, 12, 100),
    };
    let mut rng = Rng::new(seed);
    let scatter = ScatterBox::for_count(instances, 1.6, (0.7, 1.3));
    let half = scatter.half_extent;
    let objects = (0..instances)
        .map(|_| {
            // One draw from `rng` whatever `sampled` is: the same places.
            let placed = scatter.next(&mut rng, meshes.len() as u32, sampled);
            SceneObject {
                mesh: placed.mesh,
                material: placed.material,
                world_from_object: placed.world_from_object,
            }
        })
        .collect();
    // On the cube's face plane looking at its centre with a 60° vertical
    // field of view: about half the objects are in front and inside.
    let camera = wide_camera(Vec3::new(0.0, 0.0, half), Vec3::ZERO, 0.1, half * 4.0);
    SceneSpec {
        meshes,
        textures: textures(textures_count, 64),
        materials: SceneMaterial::one_per_texture(textures_count as usize),
        objects,
        ..SceneSpec::wide(scene.name(), camera)
    }
}

/// The cube grid: `n` unit cubes on a regular grid of spacing 2 filling a
/// cube of side about `2 * cbrt(n)`, 64 distinct 64x64 textures assigned
/// pseudo-randomly, 1024x1024, camera at (1.2h, 0.6h, 1.2h) looking at the
/// centre. `orbit_radians` turns the camera about the vertical axis.
pub fn cube_grid(n: u32, orbit_radians: f32) -> SceneSpec {
    let side = (n as f32).cbrt().ceil() as u32;
    let mut rng = Rng::new(u64::from(n));
    let mut objects = Vec::with_capacity(n as usize);
    let offset = (side as f32 - 1.0) * 1.0;
    'fill: for x in 0..side {
        for y in 0..side {
            for z in 0..side {
                if objects.len() as u32 == n {
                    break 'fill;
                }
                objects.push(SceneObject {
                    mesh: 0,
                    material: rng.below(64),
                    world_from_object: Mat4::from_translation(
                        Vec3::new(x as f32, y as f32, z as f32) * 2.0 - Vec3::splat(offset),
                    ),
                });
            }
        }
    }
    let h = side as f32;
    SceneSpec {
        name: BenchScene::CubeGrid.name().into(),
        meshes: vec![shapes::cube()],
        textures: textures(64, 64),
        materials: SceneMaterial::one_per_texture(64),
        objects,
        camera: cube_grid_camera(h, orbit_radians),
        lighting: Lighting::default(),
        lights: Vec::new(),
        width: 1024,
        height: 1024,
    }
}

/// Textures of the dense scene.
pub const DENSE_TEXTURES: u32 = 16;
/// The dense scene's cube sphere grid: `12 n²` = 1,009,200 triangles.
const DENSE_GRID: u32 = 290;

/// The dense mesh: a closed cube sphere of about 1M triangles
/// ([`shapes::cube_sphere`]) with a bumpy radius (normals of the sphere).
pub fn dense_mesh() -> Mesh {
    let mut mesh = shapes::cube_sphere(DENSE_GRID);
    for p in &mut mesh.positions {
        let d = Vec3::from(*p).normalize();
        let bump = (9.0 * d.x).sin() * (9.0 * d.y).sin() * (9.0 * d.z).sin();
        *p = (d * 0.5 * (1.0 + 0.08 * bump)).to_array();
    }
    mesh
}

/// The dense scene: `n` instances of [`dense_mesh`] on a square grid of
/// spacing 1.5 on the ground, turned at random, seen at 1920x1080 from
/// above one edge looking across the field (near instances fill the
/// screen, far ones are a few pixels).
pub fn dense(n: u32) -> SceneSpec {
    let side = (n as f32).sqrt().ceil().max(1.0) as u32;
    let mut rng = Rng::new(u64::from(n));
    let half = (side as f32 - 1.0) * 0.75;
    let objects = (0..n)
        .map(|i| {
            let (x, z) = (
                (i % side) as f32 * 1.5 - half,
                (i / side) as f32 * 1.5 - half,
            );
            let turn = rng.below(360) as f32;
            SceneObject {
                mesh: 0,
                material: rng.below(DENSE_TEXTURES),
                world_from_object: Mat4::from_rotation_translation(
                    Quat::from_rotation_y(turn.to_radians()),
                    Vec3::new(x, 0.0, z),
                ),
            }
        })
        .collect();
    let (width, height) = (1920, 1080);
    SceneSpec {
        name: BenchScene::Dense.name().into(),
        meshes: vec![dense_mesh()],
        textures: textures(DENSE_TEXTURES, 64),
        materials: SceneMaterial::one_per_texture(DENSE_TEXTURES as usize),
        objects,
        camera: Camera {
            position: Vec3::new(0.0, 2.5 + 0.1 * half, half + 3.0),
            target: Vec3::new(0.0, 0.0, 0.0),
            up: Vec3::Y,
            fov_y_radians: 60f32.to_radians(),
            aspect: width as f32 / height as f32,
            z_near: 0.1,
            z_far: half * 8.0 + 10.0,
        },
        lighting: Lighting::default(),
        lights: Vec::new(),
        width,
        height,
    }
}

/// The cube grid's camera for half-side `h`, orbited by `orbit_radians`.
pub fn cube_grid_camera(h: f32, orbit_radians: f32) -> Camera {
    let position = Quat::from_rotation_y(orbit_radians) * Vec3::new(1.2 * h, 0.6 * h, 1.2 * h);
    Camera {
        position,
        target: Vec3::ZERO,
        up: Vec3::Y,
        fov_y_radians: 60f32.to_radians(),
        aspect: 1.0,
        z_near: 0.5,
        z_far: h * 8.0,
    }
}

impl SceneSpec {
    /// World bounds (min, max) of the objects' bounding spheres (objects
    /// whose mesh is not in [`Self::meshes`] are left out).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let mut bounds = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for object in &self.objects {
            // The crowd's objects name a mesh the bench loads from a file.
            let Some(mesh) = self.meshes.get(object.mesh as usize) else {
                continue;
            };
            let mesh = mesh.as_mesh_data().bounds();
            let sphere = unbound::scene::world_sphere(&object.world_from_object, &mesh);
            let (centre, radius) = (Vec3::new(sphere[0], sphere[1], sphere[2]), sphere[3]);
            bounds = (bounds.0.min(centre - radius), bounds.1.max(centre + radius));
        }
        bounds
    }
}

/// Any benchmark scene by kind.
pub fn build(scene: BenchScene, instances: u32, textures_count: u32) -> SceneSpec {
    build_sampling(scene, instances, (textures_count, textures_count))
}

/// [`build`] with `textures_count` textures of which the objects sample
/// `sampled` (draw-bound and raster-bound: [`scattered_sampling`]; the
/// other scenes have textures of their own and ignore both).
pub fn build_sampling(
    scene: BenchScene,
    instances: u32,
    (textures_count, sampled): (u32, u32),
) -> SceneSpec {
    match scene {
        BenchScene::CubeGrid => cube_grid(instances, 0.0),
        BenchScene::Dense => dense(instances),
        BenchScene::City => crate::city::city(instances),
        BenchScene::Crowd | BenchScene::CrowdStatic => crate::crowd::crowd(scene, instances),
        other => scattered_sampling(other, instances, (textures_count, sampled), 42),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_have_the_documented_shape() {
        let draw = scattered(BenchScene::DrawBound, 2000, 1024, 1);
        assert!(
            draw.meshes
                .iter()
                .all(|m| (12..=120).contains(&m.triangle_count()))
        );
        let raster = scattered(BenchScene::RasterBound, 10, 1024, 1);
        assert!(
            raster
                .meshes
                .iter()
                .all(|m| (800..=5200).contains(&m.triangle_count())),
            "{:?}",
            raster
                .meshes
                .iter()
                .map(Mesh::triangle_count)
                .collect::<Vec<_>>()
        );
        let dense = dense(4);
        assert_eq!(dense.objects.len(), 4);
        assert_eq!(dense.meshes[0].triangle_count(), 1_009_200);
        // Sampling fewer textures keeps the heap and the places.
        let few = scattered_sampling(BenchScene::DrawBound, 500, (256, 4), 1);
        let all = scattered_sampling(BenchScene::DrawBound, 500, (256, 256), 1);
        assert_eq!((few.textures.len(), few.materials.len()), (256, 256));
        assert!(few.objects.iter().all(|o| o.material < 4));
        assert!(all.objects.iter().any(|o| o.material >= 4));
        let places = |s: &SceneSpec| {
            s.objects
                .iter()
                .map(|o| o.world_from_object)
                .collect::<Vec<_>>()
        };
        assert_eq!(places(&few), places(&all));
        let grid = cube_grid(1000, 0.0);
        assert_eq!(grid.objects.len(), 1000);
        assert_eq!(grid.total_triangles(), 12_000);
    }
}
