//! Light helpers: the many-lights scene (tiers, parity, reference image,
//! determinism) and the light pass's cluster lists read back.

use glam::Vec3;
use unbound::{Light, Renderer};
use unbound_scenes::bench::{self as bench_scenes, BenchScene, SceneSpec};

use super::Gpu;

/// The draw-bound benchmark scene at 400 instances and 160 × 90 under a
/// dim sun and ambient, lit by 300 scattered point lights (a point is in
/// the range of about 6), 24 spot lights aimed at the scene's centre (half
/// of them without a range) and a directional light: every light kind the
/// shading loop meets.
pub fn many_lights_scene() -> SceneSpec {
    let mut scene = bench_scenes::scattered(BenchScene::DrawBound, 400, 16, 11);
    scene.width = 160;
    scene.height = 90;
    scene.camera.aspect = 160.0 / 90.0;
    scene.lighting = unbound::Lighting {
        light_color: Vec3::splat(0.3),
        ambient_color: Vec3::splat(0.05),
        ..unbound::Lighting::default()
    };
    let bounds = scene.bounds();
    scene.lights = unbound_scenes::scatter_point_lights(300, bounds, 6.0, 5);
    let centre = (bounds.0 + bounds.1) * 0.5;
    let extent = bounds.1 - bounds.0;
    let mut rng = unbound_scenes::Rng::new(9);
    for i in 0..24 {
        let position = bounds.0 + extent * Vec3::new(rng.unit(), rng.unit(), rng.unit());
        let color = Vec3::new(
            rng.range(0.3, 1.0),
            rng.range(0.3, 1.0),
            rng.range(0.3, 1.0),
        );
        let outer = rng.range(0.2, 0.8);
        let range = (i % 2 == 0).then(|| extent.length() * 0.4);
        scene.lights.push(Light::spot(
            position,
            centre - position,
            color,
            if range.is_some() { 40.0 } else { 0.02 },
            range,
            (outer * rng.unit(), outer),
        ));
    }
    scene.lights.push(Light::directional(
        Vec3::new(0.3, -1.0, -0.4),
        Vec3::new(0.4, 0.5, 0.9),
        0.4,
    ));
    scene
}

/// The cluster lists the last frame's light pass wrote: per cluster the
/// light slots of its range, and the frame's statistics (references needed
/// and written, clusters with a light, longest list).
pub struct ClusterLists {
    pub clusters: Vec<Vec<u32>>,
    /// Each cluster's first entry in the index list.
    pub firsts: Vec<u32>,
    pub needed: u32,
    pub written: u32,
    pub lit_clusters: u32,
    pub longest: u32,
}

/// Reads back `renderer`'s cluster lists (after its frame was submitted).
pub fn read_cluster_lists(gpu: &Gpu, renderer: &Renderer) -> ClusterLists {
    let clusters = renderer.config().clusters.clusters();
    let ranges = gpu.read_u32s(
        renderer.cluster_ranges_buffer(),
        0,
        2 * (u64::from(clusters) + 3),
    );
    let capacity = renderer.light_indices_buffer().size() / 4;
    let indices = gpu.read_u32s(renderer.light_indices_buffer(), 0, capacity);
    let range = |c: usize| (ranges[2 * c] as usize, ranges[2 * c + 1] as usize);
    ClusterLists {
        clusters: (0..clusters as usize)
            .map(|c| {
                let (first, count) = range(c);
                indices[first..first + count].to_vec()
            })
            .collect(),
        firsts: (0..clusters as usize).map(|c| range(c).0 as u32).collect(),
        needed: ranges[2 * clusters as usize],
        written: ranges[2 * clusters as usize + 1],
        lit_clusters: ranges[2 * clusters as usize + 2],
        longest: ranges[2 * clusters as usize + 3],
    }
}
