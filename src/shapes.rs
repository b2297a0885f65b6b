//! Basic shapes as triangle meshes: cube, quad (a plane), UV sphere, a
//! closed (welded) cube sphere, torus, cylinder and cone, all centred on the origin with counter-clockwise front
//! faces, unit normals and one UV set, ready for [`Renderer::add_mesh`]
//! (tangents are generated from the UVs when the mesh is added).
//!
//! ```no_run
//! # fn example(renderer: &mut unbound::Renderer) -> Result<(), unbound::Error> {
//! let sphere = unbound::shapes::sphere(32, 16);
//! let mesh = renderer.add_mesh(&sphere.as_mesh_data())?;
//! # Ok(()) }
//! ```
//!
//! [`Renderer::add_mesh`]: crate::Renderer::add_mesh

use glam::Vec3;

use crate::geometry::MeshData;

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
    /// Borrowed view for [`crate::Renderer::add_mesh`] (tangents are
    /// generated from the UVs).
    pub fn as_mesh_data(&self) -> MeshData<'_> {
        MeshData {
            positions: &self.positions,
            normals: Some(&self.normals),
            tangents: None,
            uv0: Some(&self.uvs),
            uv1: None,
            colors: None,
            indices: &self.indices,
            tangent_uv_set: Some(0),
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

/// A surface of `rows` x `columns` cells: `vertex(row, column)` gives the
/// position, normal and UV of each of the (`rows` + 1) x (`columns` + 1)
/// vertices, stored row by row; two triangles per cell.
fn grid(rows: u32, columns: u32, vertex: impl Fn(u32, u32) -> (Vec3, Vec3, [f32; 2])) -> Mesh {
    let mut mesh = Mesh::default();
    for r in 0..=rows {
        for c in 0..=columns {
            let (position, normal, uv) = vertex(r, c);
            mesh.push(position, normal, uv);
        }
    }
    let row = columns + 1;
    for r in 0..rows {
        for c in 0..columns {
            let (a, b) = (r * row + c, (r + 1) * row + c);
            mesh.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    mesh
}

/// A UV sphere of radius 0.5.
pub fn sphere(segments: u32, rings: u32) -> Mesh {
    let (segments, rings) = (segments.max(3), rings.max(2));
    grid(rings, segments, |r, s| {
        let v = r as f32 / rings as f32;
        let theta = v * std::f32::consts::PI;
        let u = s as f32 / segments as f32;
        let phi = u * std::f32::consts::TAU;
        let n = Vec3::new(
            theta.sin() * phi.cos(),
            theta.cos(),
            -theta.sin() * phi.sin(),
        );
        (n * 0.5, n, [u, v])
    })
}

/// A closed sphere of radius 0.5: a cube whose faces are `n` × `n`
/// grids, projected onto the sphere, every vertex shared by all the
/// triangles around it (no seam, no pole: each edge has exactly two
/// triangles), so `12 n²` triangles and `6 n² + 2` vertices. UVs are the
/// cube point's x and y mapped to 0..1 (continuous, for tangents).
pub fn cube_sphere(n: u32) -> Mesh {
    let n = n.max(1);
    let mut mesh = Mesh::default();
    let mut lattice = std::collections::HashMap::new();
    let mut vertex = |mesh: &mut Mesh, p: [u32; 3]| {
        *lattice.entry(p).or_insert_with(|| {
            let cube = Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) * (2.0 / n as f32) - 1.0;
            let normal = cube.normalize();
            let uv = [cube.x * 0.5 + 0.5, cube.y * 0.5 + 0.5];
            mesh.push(normal * 0.5, normal, uv)
        })
    };
    // Each face: the axis it is normal to, its side (0 or n), and two
    // in-face axes ordered so that (u × v) points outwards.
    for (axis, side) in [(0, n), (0, 0), (1, n), (1, 0), (2, n), (2, 0)] {
        let (mut u, mut v) = ((axis + 1) % 3, (axis + 2) % 3);
        if side == 0 {
            std::mem::swap(&mut u, &mut v);
        }
        let at = |i: u32, j: u32| {
            let mut p = [0; 3];
            p[axis] = side;
            p[u] = i;
            p[v] = j;
            p
        };
        for i in 0..n {
            for j in 0..n {
                let a = vertex(&mut mesh, at(i, j));
                let b = vertex(&mut mesh, at(i + 1, j));
                let c = vertex(&mut mesh, at(i + 1, j + 1));
                let d = vertex(&mut mesh, at(i, j + 1));
                mesh.indices.extend([a, b, c, a, c, d]);
            }
        }
    }
    mesh
}

/// A torus around Y with outer radius 0.5.
pub fn torus(thickness: f32, segments: u32, sides: u32) -> Mesh {
    let (segments, sides) = (segments.max(3), sides.max(3));
    let minor = thickness.clamp(0.02, 0.24);
    let major = 0.5 - minor;
    grid(segments, sides, |i, j| {
        let u = i as f32 / segments as f32;
        let a = u * std::f32::consts::TAU;
        let center = Vec3::new(a.cos(), 0.0, -a.sin()) * major;
        let v = j as f32 / sides as f32;
        let b = v * std::f32::consts::TAU;
        let n = Vec3::new(a.cos() * b.cos(), b.sin(), -a.sin() * b.cos());
        (center + n * minor, n, [u * 2.0, v])
    })
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
