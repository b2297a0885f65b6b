//! Scenes as plain data, loadable into both the bindless [`Renderer`] and
//! the bind-per-draw baseline (crate `unbound-baseline`), and the fixed
//! benchmark scenes (see `docs/PERFORMANCE.md`).

use glam::{Mat4, Quat, Vec3};

use unbound::shapes::{self, Mesh};
use unbound::{
    Camera, Error, Light, Lighting, Material, Mips, ObjectDesc, ObjectHandle, Renderer,
    SamplerDesc, TextureDesc, TextureRef,
};

use crate::{Rng, ScatterBox};

/// An RGBA8 sRGB or linear texture with generated mips.
#[derive(Clone, Debug)]
pub struct SceneTexture {
    /// Edge length.
    pub size: u32,
    /// Level 0, RGBA8.
    pub data: Vec<u8>,
    /// sRGB (colour) or linear (normal maps).
    pub srgb: bool,
}

impl SceneTexture {
    /// `Rgba8UnormSrgb` or `Rgba8Unorm`, as [`Self::srgb`] says.
    pub fn format(&self) -> wgpu::TextureFormat {
        if self.srgb {
            wgpu::TextureFormat::Rgba8UnormSrgb
        } else {
            wgpu::TextureFormat::Rgba8Unorm
        }
    }
}

/// A material: base colour texture and optional normal map (indices into
/// [`SceneSpec::textures`]).
#[derive(Clone, Copy, Debug)]
pub struct SceneMaterial {
    /// Base colour texture.
    pub base_color: usize,
    /// Normal map.
    pub normal: Option<usize>,
}

impl SceneMaterial {
    /// The material both renderers draw, textures named by index into
    /// [`SceneSpec::textures`] (every scene texture is sampled with
    /// [`SamplerDesc::default`]).
    pub fn material(&self) -> Material<usize> {
        Material {
            base_color: Some(self.base_color),
            normal: self.normal,
            metallic_factor: 0.0,
            roughness_factor: 0.6,
            ..Material::untextured()
        }
    }
}

/// One instance.
#[derive(Clone, Copy, Debug)]
pub struct SceneObject {
    /// Index into [`SceneSpec::meshes`].
    pub mesh: u32,
    /// Index into [`SceneSpec::materials`].
    pub material: u32,
    /// Placement.
    pub world_from_object: Mat4,
}

/// A whole scene as data.
#[derive(Clone, Debug)]
pub struct SceneSpec {
    /// Short name.
    pub name: String,
    /// Meshes.
    pub meshes: Vec<Mesh>,
    /// Textures.
    pub textures: Vec<SceneTexture>,
    /// Materials.
    pub materials: Vec<SceneMaterial>,
    /// Objects.
    pub objects: Vec<SceneObject>,
    /// Camera (its aspect matches `width / height`).
    pub camera: Camera,
    /// Lighting (the sun and the environment's scale).
    pub lighting: Lighting,
    /// Punctual lights (none in the benchmark scenes until added, e.g. by
    /// [`crate::scatter_point_lights`]).
    pub lights: Vec<Light>,
    /// Target width.
    pub width: u32,
    /// Target height.
    pub height: u32,
}

impl SceneSpec {
    /// Loads the scene into an unbound renderer (its lights too, in order,
    /// so a fresh renderer gives light `i` slot `i`); returns the object
    /// handles in scene order.
    pub fn load_into(&self, renderer: &mut Renderer) -> Result<Vec<ObjectHandle>, Error> {
        self.load_into_with(renderer, &unbound::MeshOptions::default())
    }

    /// [`Self::load_into`], adding every mesh with `mesh_options` (e.g.
    /// simplified levels for level of detail).
    pub fn load_into_with(
        &self,
        renderer: &mut Renderer,
        mesh_options: &unbound::MeshOptions,
    ) -> Result<Vec<ObjectHandle>, Error> {
        let sampler = renderer.add_sampler(&SamplerDesc::default())?;
        let textures = self
            .textures
            .iter()
            .map(|t| {
                renderer.add_texture(&TextureDesc {
                    label: None,
                    width: t.size,
                    height: t.size,
                    format: t.format(),
                    data: &t.data,
                    mips: Mips::Generate,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let materials = self
            .materials
            .iter()
            .map(|m| {
                renderer.add_material(
                    &m.material()
                        .map_textures(|&t| TextureRef::new(textures[t], sampler)),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let meshes = self
            .meshes
            .iter()
            .map(|m| renderer.add_mesh_with(&m.as_mesh_data(), mesh_options))
            .collect::<Result<Vec<_>, _>>()?;
        renderer.set_camera(&self.camera)?;
        renderer.set_lighting(&self.lighting)?;
        for light in &self.lights {
            renderer.add_light(light)?;
        }
        self.objects
            .iter()
            .map(|o| {
                renderer.add_object(&ObjectDesc {
                    mesh: meshes[o.mesh as usize],
                    material: materials[o.material as usize],
                    world_from_object: o.world_from_object,
                })
            })
            .collect()
    }

    /// Triangles if every object were drawn.
    pub fn total_triangles(&self) -> u64 {
        self.objects
            .iter()
            .map(|o| self.meshes[o.mesh as usize].triangle_count() as u64)
            .sum()
    }
}

/// Which benchmark scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchScene {
    /// Small meshes (12-100 triangles), about half the instances visible.
    DrawBound,
    /// Meshes of 1-5k triangles, otherwise as `DrawBound`.
    RasterBound,
    /// N unit cubes on a grid, 64 textures, orbiting camera.
    CubeGrid,
    /// Buildings (stacks of storeys) and props on a street grid, seen from
    /// street level: most instances hidden ([`crate::city`]).
    City,
    /// N animated Foxes on a grid, each playing one of its clips at its
    /// own phase (`crowd.rs`); unbound only.
    Crowd,
    /// The same crowd static: every Fox in its bind pose, no animation.
    CrowdStatic,
}

impl BenchScene {
    /// Name used on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Self::DrawBound => "draw-bound",
            Self::RasterBound => "raster-bound",
            Self::CubeGrid => "cube-grid",
            Self::City => "city",
            Self::Crowd => "crowd",
            Self::CrowdStatic => "crowd-static",
        }
    }

    /// Whether the scene is the animated model's crowd (a file the bench
    /// loads: see `crowd.rs`).
    pub fn is_crowd(self) -> bool {
        matches!(self, Self::Crowd | Self::CrowdStatic)
    }

    /// Every scene, in the order they run.
    pub const ALL: [Self; 6] = [
        Self::DrawBound,
        Self::RasterBound,
        Self::CubeGrid,
        Self::City,
        Self::Crowd,
        Self::CrowdStatic,
    ];

    /// Parses [`Self::name`].
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

pub(crate) fn textures(count: u32, size: u32) -> Vec<SceneTexture> {
    (0..count)
        .map(|i| SceneTexture {
            size,
            data: crate::demo_texture(i, size),
            srgb: true,
        })
        .collect()
}

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
    let meshes = match scene {
        BenchScene::RasterBound => meshes_between(16, 1000, 5000),
        _ => meshes_between(24, 12, 100),
    };
    let mut rng = Rng::new(seed);
    let scatter = ScatterBox::for_count(instances, 1.6, (0.7, 1.3));
    let half = scatter.half_extent;
    let objects = (0..instances)
        .map(|_| {
            let placed = scatter.next(&mut rng, meshes.len() as u32, textures_count);
            SceneObject {
                mesh: placed.mesh,
                material: placed.material,
                world_from_object: placed.world_from_object,
            }
        })
        .collect();
    let (width, height) = (1280, 720);
    SceneSpec {
        name: scene.name().into(),
        meshes,
        textures: textures(textures_count, 64),
        materials: (0..textures_count as usize)
            .map(|i| SceneMaterial {
                base_color: i,
                normal: None,
            })
            .collect(),
        objects,
        // On the cube's face plane looking at its centre with a 60° vertical
        // field of view: about half the objects are in front and inside.
        camera: Camera {
            position: Vec3::new(0.0, 0.0, half),
            target: Vec3::ZERO,
            up: Vec3::Y,
            fov_y_radians: 60f32.to_radians(),
            aspect: width as f32 / height as f32,
            z_near: 0.1,
            z_far: half * 4.0,
        },
        lighting: Lighting::default(),
        lights: Vec::new(),
        width,
        height,
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
        materials: (0..64)
            .map(|i| SceneMaterial {
                base_color: i,
                normal: None,
            })
            .collect(),
        objects,
        camera: cube_grid_camera(h, orbit_radians),
        lighting: Lighting::default(),
        lights: Vec::new(),
        width: 1024,
        height: 1024,
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
    match scene {
        BenchScene::CubeGrid => cube_grid(instances, 0.0),
        BenchScene::City => crate::city::city(instances),
        BenchScene::Crowd | BenchScene::CrowdStatic => crate::crowd::crowd(scene, instances),
        other => scattered(other, instances, textures_count, 42),
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
        let grid = cube_grid(1000, 0.0);
        assert_eq!(grid.objects.len(), 1000);
        assert_eq!(grid.total_triangles(), 12_000);
    }
}
