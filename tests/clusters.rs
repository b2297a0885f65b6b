//! Clusters at mesh add (issue 28, stage 1), on the CPU: the clusters of a
//! generated mesh and of glTF meshes cover every triangle exactly once,
//! each within meshoptimizer's size limits; their spheres contain their
//! vertices; their normal cones are conservative (a camera the cone test
//! culls for sees every triangle of the cluster from behind).

mod common;

use std::collections::BTreeMap;

use glam::Vec3;
use unbound::geometry::clusters::{
    CLUSTER_MAX_TRIANGLES, CLUSTER_MAX_VERTICES, ClusteredIndices, build_clusters,
};
use unbound::loaders::gltf::parse_gltf;
use unbound::shapes;

use common::asset;

/// A triangle with its corners rotated so the smallest index is first:
/// the same triangle with the same winding compares equal.
fn canonical(t: &[u32]) -> [u32; 3] {
    let m = (0..3).min_by_key(|&i| t[i]).unwrap();
    [t[m], t[(m + 1) % 3], t[(m + 2) % 3]]
}

fn triangle_counts(indices: &[u32]) -> BTreeMap<[u32; 3], usize> {
    let mut counts = BTreeMap::new();
    for t in indices.chunks_exact(3) {
        *counts.entry(canonical(t)).or_insert(0) += 1;
    }
    counts
}

/// The meshes checked: generated shapes and every primitive of two glTF
/// files (FlightHelmet, the Fox).
fn meshes() -> Vec<(String, Vec<[f32; 3]>, Vec<u32>)> {
    let mut meshes = vec![];
    for (name, mesh) in [
        ("cube", shapes::cube()),
        ("sphere", shapes::sphere(48, 24)),
        ("torus", shapes::torus(0.3, 40, 16)),
        ("cylinder", shapes::cylinder(1.0, 0.5, 32)),
    ] {
        meshes.push((name.to_string(), mesh.positions, mesh.indices));
    }
    for file in ["FlightHelmet/FlightHelmet.gltf", "gltfpack/Fox.glb"] {
        let document = parse_gltf(&asset(file)).expect("asset parses");
        for mesh in document.meshes {
            let name = format!("{file} mesh {} primitive {}", mesh.mesh, mesh.primitive);
            meshes.push((name, mesh.positions, mesh.indices));
        }
    }
    meshes
}

fn cluster_indices<'a>(
    clustered: &'a ClusteredIndices,
    c: &unbound::geometry::clusters::Cluster,
) -> &'a [u32] {
    let first = 3 * c.first_triangle as usize;
    &clustered.indices[first..first + 3 * c.triangle_count as usize]
}

#[test]
fn clusters_cover_every_triangle_exactly_once() {
    let meshes = meshes();
    assert!(meshes.len() > 6, "the glTF files hold meshes");
    for (name, positions, indices) in &meshes {
        let clustered = build_clusters(positions, indices);
        // The same triangles, each as often, windings kept.
        assert_eq!(
            triangle_counts(&clustered.indices),
            triangle_counts(indices),
            "{name}: triangles"
        );
        // The clusters tile the list in order, none empty or too large.
        let mut next = 0;
        for (i, c) in clustered.clusters.iter().enumerate() {
            assert_eq!(c.first_triangle, next, "{name}: cluster {i} starts");
            assert!(
                (1..=CLUSTER_MAX_TRIANGLES as u32).contains(&c.triangle_count),
                "{name}: cluster {i} has {} triangles",
                c.triangle_count
            );
            let mut vertices: Vec<u32> = cluster_indices(&clustered, c).to_vec();
            vertices.sort_unstable();
            vertices.dedup();
            assert!(
                vertices.len() <= CLUSTER_MAX_VERTICES,
                "{name}: cluster {i}"
            );
            next += c.triangle_count;
        }
        assert_eq!(next as usize * 3, indices.len(), "{name}: covered");
        // Clusters are mostly full: about a hundred triangles or the
        // vertex limit, not a handful.
        let triangles = indices.len() / 3;
        if triangles >= 10 * CLUSTER_MAX_TRIANGLES {
            let mean = triangles as f32 / clustered.clusters.len() as f32;
            assert!(mean > 40.0, "{name}: {mean} triangles per cluster");
        }
    }
}

#[test]
fn cluster_spheres_contain_their_vertices() {
    for (name, positions, indices) in meshes() {
        let clustered = build_clusters(&positions, &indices);
        for (i, c) in clustered.clusters.iter().enumerate() {
            for &v in cluster_indices(&clustered, c) {
                let d = Vec3::from(positions[v as usize]).distance(c.center);
                let slack = 1e-5 * c.radius.max(1.0);
                assert!(
                    d <= c.radius + slack,
                    "{name}: cluster {i}: vertex {v} at {d}, radius {}",
                    c.radius
                );
            }
        }
    }
}

/// A small deterministic generator (xorshift), for camera positions.
struct Xorshift(u64);

impl Xorshift {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn direction(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(self.unit(), self.unit(), self.unit()) * 2.0 - 1.0;
            if (0.01..=1.0).contains(&v.length_squared()) {
                return v.normalize();
            }
        }
    }
}

#[test]
fn normal_cones_are_conservative() {
    let mut random = Xorshift(0x9e37_79b9_7f4a_7c15);
    let (mut culling_views, mut clusters_with_cones) = (0usize, 0usize);
    for (name, positions, indices) in meshes() {
        let clustered = build_clusters(&positions, &indices);
        for (i, c) in clustered.clusters.iter().enumerate() {
            if !c.has_cone() {
                continue;
            }
            clusters_with_cones += 1;
            let corner = |v: u32| Vec3::from(positions[v as usize]);
            // Cameras all around and near the cluster, and behind its
            // cone (along minus its axis from the apex), where it culls.
            let scale = c.radius.max(1e-3);
            let mut cameras: Vec<Vec3> = (0..48)
                .map(|k| c.center + random.direction() * scale * (0.5 + k as f32 * 0.5))
                .collect();
            cameras.extend((1..16).map(|k| {
                c.cone_apex - c.cone_axis * scale * k as f32 * 0.7
                    + random.direction() * scale * 0.3
            }));
            for camera in cameras {
                if !c.cone_culls(camera) {
                    continue;
                }
                culling_views += 1;
                for t in cluster_indices(&clustered, c).chunks_exact(3) {
                    let (a, b, d) = (corner(t[0]), corner(t[1]), corner(t[2]));
                    let normal = (b - a).cross(d - a);
                    // Back-facing (or edge-on, within rounding) from the
                    // camera.
                    let facing = normal.dot(camera - a);
                    let tolerance = 1e-4 * normal.length() * (camera - a).length();
                    assert!(
                        facing <= tolerance,
                        "{name}: cluster {i} culled from {camera} but triangle {t:?} faces it ({facing})"
                    );
                }
            }
        }
    }
    assert!(clusters_with_cones > 100, "{clusters_with_cones} cones");
    assert!(culling_views > 100, "{culling_views} culling views tested");
}
