//! The built-in demo scene: objects scattered in a cube, each with one of
//! many generated materials (some with normal maps).

use glam::{Vec3, Vec4};
use unbound::{
    Camera, Error, Material, MaterialHandle, MeshHandle, Mips, ObjectDesc, ObjectHandle, Renderer,
    SamplerDesc, TextureDesc, TextureRef,
};

use crate::{Rng, ScatterBox, bump_normal_map, demo_texture, mesh_family};
use unbound::shapes::Mesh;

/// Sizes of the built-in demo scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DemoSceneConfig {
    /// Object instances.
    pub instances: u32,
    /// Distinct meshes.
    pub meshes: u32,
    /// Distinct textures (and materials).
    pub textures: u32,
    /// Edge length of each texture.
    pub texture_size: u32,
    /// Random seed.
    pub seed: u64,
    /// How each mesh is added (simplified levels for level of detail:
    /// none by default).
    pub mesh_options: unbound::MeshOptions,
}

impl Default for DemoSceneConfig {
    fn default() -> Self {
        Self {
            instances: 10_000,
            meshes: 40,
            textures: 256,
            texture_size: 64,
            seed: 7,
            mesh_options: unbound::MeshOptions::default(),
        }
    }
}

/// What [`build_demo_scene`] created.
#[derive(Debug)]
pub struct DemoScene {
    /// A camera that sees part of the scene and leaves part outside.
    pub camera: Camera,
    /// The meshes.
    pub meshes: Vec<MeshHandle>,
    /// The materials.
    pub materials: Vec<MaterialHandle>,
    /// The objects.
    pub objects: Vec<ObjectHandle>,
    /// Half the edge of the cube the objects fill.
    pub half_extent: f32,
    /// Triangles per mesh.
    pub mesh_triangles: Vec<usize>,
}

/// Fills `renderer` with the built-in demo scene: objects scattered in a
/// cube, each with one of `textures` materials (some with normal maps).
pub fn build_demo_scene(
    renderer: &mut Renderer,
    config: &DemoSceneConfig,
    aspect: f32,
) -> Result<DemoScene, Error> {
    let mut rng = Rng::new(config.seed);
    let family = mesh_family(config.meshes);
    let meshes = family
        .iter()
        .map(|m| renderer.add_mesh_with(&m.as_mesh_data(), &config.mesh_options))
        .collect::<Result<Vec<_>, _>>()?;
    let sampler = renderer.add_sampler(&SamplerDesc::default())?;
    let normal_data = bump_normal_map(64, 4);
    let normal_map = renderer.add_texture(&TextureDesc {
        label: Some("demo bumps"),
        width: 64,
        height: 64,
        format: wgpu::TextureFormat::Rgba8Unorm,
        data: &normal_data,
        mips: Mips::Generate,
    })?;
    let mut materials = Vec::with_capacity(config.textures as usize);
    for i in 0..config.textures {
        let data = demo_texture(i, config.texture_size);
        let texture = renderer.add_texture(&TextureDesc {
            label: None,
            width: config.texture_size,
            height: config.texture_size,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            data: &data,
            mips: Mips::Generate,
        })?;
        materials.push(renderer.add_material(&Material {
            base_color: Some(TextureRef::new(texture, sampler)),
            normal: (i % 3 == 0).then(|| TextureRef::new(normal_map, sampler)),
            metallic_factor: 0.0,
            roughness_factor: 0.6,
            ..Material::default()
        })?);
    }
    let scatter = ScatterBox::for_count(config.instances, 1.5, (0.6, 1.4));
    let half_extent = scatter.half_extent;
    let mut objects = Vec::with_capacity(config.instances as usize);
    for _ in 0..config.instances {
        let placed = scatter.next(&mut rng, meshes.len() as u32, materials.len() as u32);
        objects.push(renderer.add_object(&ObjectDesc {
            mesh: meshes[placed.mesh as usize],
            material: materials[placed.material as usize],
            world_from_object: placed.world_from_object,
        })?);
    }
    // From just inside a corner, looking past the centre: roughly half the
    // objects fall outside the frustum.
    let camera = Camera {
        position: Vec3::new(0.75, 0.35, 0.95) * half_extent,
        target: Vec3::new(-0.4, -0.1, -0.2) * half_extent,
        up: Vec3::Y,
        fov_y_radians: 50f32.to_radians(),
        aspect,
        z_near: 0.1,
        z_far: half_extent * 8.0,
    };
    renderer.set_camera(&camera)?;
    Ok(DemoScene {
        camera,
        meshes,
        materials,
        objects,
        half_extent,
        mesh_triangles: family.iter().map(Mesh::triangle_count).collect(),
    })
}

/// A sphere in the demo scene's bounds stream, for CPU reference culling.
pub fn sphere_of(renderer: &Renderer, object: ObjectHandle) -> Option<Vec4> {
    let slot = renderer.objects().resolve(object).ok()?;
    renderer
        .objects()
        .world_sphere_of_slot(slot)
        .map(Vec4::from_array)
}
