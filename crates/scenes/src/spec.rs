//! Scenes as plain data, loadable into both the bindless [`Renderer`] and
//! the bind-per-draw baseline (crate `unbound-baseline`): the types every
//! benchmark scene builder (`bench.rs`, `city.rs`, `crowd.rs`) fills.

use glam::{Mat4, Vec3};

use unbound::shapes::Mesh;
use unbound::{
    Camera, Error, Light, Lighting, Material, Mips, ObjectDesc, ObjectHandle, Renderer,
    SamplerDesc, TextureDesc, TextureRef,
};

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
    /// `count` untinted materials, material `i` sampling texture `i` as its
    /// base colour (no normal map): the benchmark scenes' materials.
    pub(crate) fn one_per_texture(count: usize) -> Vec<SceneMaterial> {
        (0..count)
            .map(|i| SceneMaterial {
                base_color: i,
                normal: None,
            })
            .collect()
    }

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

/// The 16:9 benchmark scenes' target size (`streaming.rs`, `city.rs`,
/// `crowd.rs` and the scattered scenes of `bench.rs`).
pub(crate) const WIDE_SIZE: (u32, u32) = (1280, 720);

/// A camera at `position` looking at `target` (up +Y) with the benchmark
/// scenes' 60° vertical field of view, for a [`WIDE_SIZE`] target.
pub(crate) fn wide_camera(position: Vec3, target: Vec3, z_near: f32, z_far: f32) -> Camera {
    Camera {
        position,
        target,
        up: Vec3::Y,
        fov_y_radians: 60f32.to_radians(),
        aspect: WIDE_SIZE.0 as f32 / WIDE_SIZE.1 as f32,
        z_near,
        z_far,
    }
}

impl SceneSpec {
    /// A [`WIDE_SIZE`] scene named `name` seen by `camera`, under default
    /// lighting with no punctual lights and nothing in it yet: the scene
    /// builders fill in the rest with struct update syntax.
    pub(crate) fn wide(name: impl Into<String>, camera: Camera) -> Self {
        SceneSpec {
            name: name.into(),
            meshes: Vec::new(),
            textures: Vec::new(),
            materials: Vec::new(),
            objects: Vec::new(),
            camera,
            lighting: Lighting::default(),
            lights: Vec::new(),
            width: WIDE_SIZE.0,
            height: WIDE_SIZE.1,
        }
    }

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
    /// One generated mesh of about 1M triangles instanced N times (1,000:
    /// a billion triangles), 1920x1080, drawn with cluster LOD under
    /// `--lod on` ([`crate::bench::dense`]). Not in [`Self::ALL`]: asked
    /// for by name (`--scenes dense`).
    Dense,
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
            Self::Dense => "dense",
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

    /// Parses [`Self::name`] (any scene, [`Self::Dense`] included).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .chain([Self::Dense])
            .find(|s| s.name() == name)
    }

    /// Whether the scene's meshes are added with a cluster-LOD hierarchy
    /// (rather than per-instance levels) when level of detail is on.
    pub fn cluster_lod(self) -> bool {
        self == Self::Dense
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
