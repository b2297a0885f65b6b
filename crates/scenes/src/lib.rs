//! Generated content: meshes, textures and the built-in demo scene (no
//! downloads), shared by the demo, tests and benchmarks.

use glam::{Mat4, Quat, Vec3, Vec4};

use crate::camera::Camera;
use crate::geometry::MeshData;
use crate::handles::{MaterialHandle, MeshHandle, ObjectHandle};
use crate::heap::{Mips, SamplerDesc, TextureDesc};
use crate::materials::{Material, TextureRef};
use crate::renderer::{Error, Renderer};
use crate::scene::ObjectDesc;

/// A small deterministic random number generator (PCG32).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        let mut rng = Self(
            seed.wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407),
        );
        rng.next_u32();
        rng
    }

    /// Next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        let old = self.0;
        self.0 = old
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in `[low, high)`.
    pub fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    /// Uniform integer in `0..n`.
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }
}

/// A generated triangle mesh.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates.
    pub uvs: Vec<[f32; 2]>,
    /// Triangle list (counter-clockwise front faces).
    pub indices: Vec<u32>,
}

impl Mesh {
    /// Borrowed view for [`Renderer::add_mesh`] (tangents are derived).
    pub fn as_mesh_data(&self) -> MeshData<'_> {
        MeshData {
            positions: &self.positions,
            normals: Some(&self.normals),
            tangents: None,
            uv0: Some(&self.uvs),
            uv1: None,
            indices: &self.indices,
        }
    }

    /// Triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    fn push(&mut self, position: Vec3, normal: Vec3, uv: [f32; 2]) -> u32 {
        self.positions.push(position.to_array());
        self.normals.push(normal.to_array());
        self.uvs.push(uv);
        self.positions.len() as u32 - 1
    }
}

/// A unit cube centred on the origin (side 1), 24 vertices, 12 triangles.
pub fn cube() -> Mesh {
    let mut mesh = Mesh::default();
    for (normal, up) in [
        (Vec3::X, Vec3::Y),
        (-Vec3::X, Vec3::Y),
        (Vec3::Y, -Vec3::Z),
        (-Vec3::Y, Vec3::Z),
        (Vec3::Z, Vec3::Y),
        (-Vec3::Z, Vec3::Y),
    ] {
        let right = up.cross(normal);
        let base = mesh.positions.len() as u32;
        for (u, v) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            let p = normal * 0.5 + right * (u - 0.5) + up * (v - 0.5);
            mesh.push(p, normal, [u, 1.0 - v]);
        }
        mesh.indices
            .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    mesh
}

/// A square in the XY plane facing +Z, side 1, UVs 0..1 (v down).
pub fn quad() -> Mesh {
    let mut mesh = Mesh::default();
    for (x, y) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
        mesh.push(Vec3::new(x, y, 0.0), Vec3::Z, [x + 0.5, 0.5 - y]);
    }
    mesh.indices = vec![0, 1, 2, 0, 2, 3];
    mesh
}

/// A UV sphere of radius 0.5.
pub fn sphere(segments: u32, rings: u32) -> Mesh {
    let (segments, rings) = (segments.max(3), rings.max(2));
    let mut mesh = Mesh::default();
    for r in 0..=rings {
        let v = r as f32 / rings as f32;
        let theta = v * std::f32::consts::PI;
        for s in 0..=segments {
            let u = s as f32 / segments as f32;
            let phi = u * std::f32::consts::TAU;
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            );
            mesh.push(n * 0.5, n, [u, v]);
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * row + s, (r + 1) * row + s);
            mesh.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    mesh
}

/// A torus around Y with outer radius 0.5.
pub fn torus(thickness: f32, segments: u32, sides: u32) -> Mesh {
    let (segments, sides) = (segments.max(3), sides.max(3));
    let minor = thickness.clamp(0.02, 0.24);
    let major = 0.5 - minor;
    let mut mesh = Mesh::default();
    for i in 0..=segments {
        let u = i as f32 / segments as f32;
        let a = u * std::f32::consts::TAU;
        let center = Vec3::new(a.cos(), 0.0, -a.sin()) * major;
        for j in 0..=sides {
            let v = j as f32 / sides as f32;
            let b = v * std::f32::consts::TAU;
            let n = Vec3::new(a.cos() * b.cos(), b.sin(), -a.sin() * b.cos());
            mesh.push(center + n * minor, n, [u * 2.0, v]);
        }
    }
    let row = sides + 1;
    for i in 0..segments {
        for j in 0..sides {
            let (a, b) = (i * row + j, (i + 1) * row + j);
            mesh.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    mesh
}

/// A closed cylinder (or cone, with `top_radius` 0) along Y, height 1.
pub fn cylinder(bottom_radius: f32, top_radius: f32, segments: u32) -> Mesh {
    let segments = segments.max(3);
    let mut mesh = Mesh::default();
    let slope = bottom_radius - top_radius;
    for i in 0..=segments {
        let u = i as f32 / segments as f32;
        let a = u * std::f32::consts::TAU;
        let dir = Vec3::new(a.cos(), 0.0, -a.sin());
        let n = (dir + Vec3::Y * slope).normalize();
        mesh.push(dir * bottom_radius - Vec3::Y * 0.5, n, [u, 1.0]);
        mesh.push(dir * top_radius + Vec3::Y * 0.5, n, [u, 0.0]);
    }
    for i in 0..segments {
        let a = 2 * i;
        mesh.indices.extend([a, a + 2, a + 1, a + 1, a + 2, a + 3]);
    }
    for (y, radius, normal) in [
        (-0.5f32, bottom_radius, -Vec3::Y),
        (0.5, top_radius, Vec3::Y),
    ] {
        if radius <= 0.0 {
            continue;
        }
        let center = mesh.push(Vec3::Y * y, normal, [0.5, 0.5]);
        for i in 0..=segments {
            let a = i as f32 / segments as f32 * std::f32::consts::TAU;
            let dir = Vec3::new(a.cos(), 0.0, -a.sin());
            mesh.push(
                dir * radius + Vec3::Y * y,
                normal,
                [0.5 + dir.x * 0.5, 0.5 + dir.z * 0.5],
            );
        }
        for i in 0..segments {
            let (a, b) = (center + 1 + i, center + 2 + i);
            if normal.y > 0.0 {
                mesh.indices.extend([center, a, b]);
            } else {
                mesh.indices.extend([center, b, a]);
            }
        }
    }
    mesh
}

/// `count` distinct meshes: spheres, tori, cylinders, cones and cubes of
/// varying tessellation.
pub fn mesh_family(count: u32) -> Vec<Mesh> {
    (0..count)
        .map(|i| {
            let detail = 6 + (i / 5) % 12;
            match i % 5 {
                0 => cube(),
                1 => sphere(detail + 2, detail / 2 + 2),
                2 => torus(0.08 + 0.02 * (i % 7) as f32, detail + 4, detail / 2 + 3),
                3 => cylinder(0.4, 0.25 + 0.02 * (i % 6) as f32, detail + 2),
                _ => cylinder(0.45, 0.0, detail + 2),
            }
        })
        .collect()
}

/// HSV (all in 0..1) to sRGB bytes.
pub fn hsv_to_rgba8(h: f32, s: f32, v: f32) -> [u8; 4] {
    let h6 = (h.fract() + 1.0).fract() * 6.0;
    let c = v * s;
    let x = c * (1.0 - ((h6 % 2.0) - 1.0).abs());
    let (r, g, b) = match h6 as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b]
        .map(|ch| ((ch + m) * 255.0).round() as u8)
        .into_iter()
        .chain([255])
        .collect::<Vec<_>>()
        .try_into()
        .unwrap()
}

/// An RGBA8 checkerboard of `cells` x `cells` squares.
pub fn checker(size: u32, cells: u32, a: [u8; 4], b: [u8; 4]) -> Vec<u8> {
    let cell = (size / cells.max(1)).max(1);
    (0..size * size)
        .flat_map(|i| {
            let (x, y) = (i % size / cell, i / size / cell);
            if (x + y) % 2 == 0 { a } else { b }
        })
        .collect()
}

/// An RGBA8 texture filled with one colour.
pub fn solid(size: u32, color: [u8; 4]) -> Vec<u8> {
    std::iter::repeat_n(color, (size * size) as usize)
        .flatten()
        .collect()
}

/// The `index`-th distinct demo texture: a two-colour pattern whose hue and
/// layout depend on the index.
pub fn demo_texture(index: u32, size: u32) -> Vec<u8> {
    let hue = (index as f32 * 0.618_034).fract();
    let a = hsv_to_rgba8(hue, 0.65, 0.95);
    let b = hsv_to_rgba8(hue + 0.5, 0.5, 0.35);
    let cells = 2 + index % 7;
    match (index / 7) % 3 {
        0 => checker(size, cells, a, b),
        1 => (0..size * size)
            .flat_map(|i| {
                if (i % size * cells / size).is_multiple_of(2) {
                    a
                } else {
                    b
                }
            })
            .collect(),
        _ => (0..size * size)
            .flat_map(|i| {
                let (x, y) = (
                    (i % size) as f32 / size as f32 - 0.5,
                    (i / size) as f32 / size as f32 - 0.5,
                );
                let ring = ((x * x + y * y).sqrt() * cells as f32 * 2.0) as u32;
                if ring.is_multiple_of(2) { a } else { b }
            })
            .collect(),
    }
}

/// A tangent-space normal map of hemispherical bumps (RGBA8, linear).
pub fn bump_normal_map(size: u32, bumps: u32) -> Vec<u8> {
    let cell = size as f32 / bumps.max(1) as f32;
    (0..size * size)
        .flat_map(|i| {
            let x = ((i % size) as f32 % cell) / cell * 2.0 - 1.0;
            let y = ((i / size) as f32 % cell) / cell * 2.0 - 1.0;
            let r2 = x * x + y * y;
            let n = if r2 < 0.8 {
                Vec3::new(x, -y, (1.0 - r2).max(0.05).sqrt()).normalize()
            } else {
                Vec3::Z
            };
            let e = (n * 0.5 + 0.5) * 255.0;
            [e.x.round() as u8, e.y.round() as u8, e.z.round() as u8, 255]
        })
        .collect()
}

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
}

impl Default for DemoSceneConfig {
    fn default() -> Self {
        Self {
            instances: 10_000,
            meshes: 40,
            textures: 256,
            texture_size: 64,
            seed: 7,
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
        .map(|m| renderer.add_mesh(&m.as_mesh_data()))
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
    let half_extent = (config.instances as f32).cbrt() * 1.5;
    let mut objects = Vec::with_capacity(config.instances as usize);
    for _ in 0..config.instances {
        let position = Vec3::new(
            rng.range(-half_extent, half_extent),
            rng.range(-half_extent, half_extent),
            rng.range(-half_extent, half_extent),
        );
        let rotation = Quat::from_euler(
            glam::EulerRot::YXZ,
            rng.range(0.0, 6.3),
            rng.range(0.0, 6.3),
            0.0,
        );
        let scale = rng.range(0.6, 1.4);
        objects.push(renderer.add_object(&ObjectDesc {
            mesh: meshes[rng.below(meshes.len() as u32) as usize],
            material: materials[rng.below(materials.len() as u32) as usize],
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::splat(scale),
                rotation,
                position,
            ),
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
