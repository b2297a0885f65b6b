//! The crowd benchmark scene's layout: N copies of one animated model (the
//! bench loads the Khronos sample Fox, `assets/gltfpack/Fox.glb`) on a
//! square grid, each playing one of the model's clips at its own phase,
//! seen from above one edge of the grid.
//!
//! The model itself is a file, not generated: this module places the
//! copies and says what each plays; the bench (crate `unbound-bench`)
//! loads the file, skins every copy with its own palette and plays the
//! records this module gives. Everything here follows from the instance
//! index alone, so every run and every machine plays the same crowd.

use glam::{Mat4, Vec3};
use unbound::Camera;
use unbound::animation::Playback;

use crate::spec::{BenchScene, SceneObject, SceneSpec, wide_camera};

/// Metres between neighbouring copies.
pub const CROWD_SPACING: f32 = 2.0;
/// The model's scale: the Fox is authored in centimetres (about 1.5 m
/// nose to tail once scaled).
pub const CROWD_MODEL_SCALE: f32 = 0.01;

/// Copies per grid row for `instances` copies (a square grid).
pub fn crowd_columns(instances: u32) -> u32 {
    (f64::from(instances.max(1)).sqrt().ceil() as u32).max(1)
}

/// Half the grid's side in metres.
pub fn crowd_half_extent(instances: u32) -> f32 {
    crowd_columns(instances) as f32 * CROWD_SPACING * 0.5
}

/// Copy `index`'s placement: its grid cell, turned by a multiple of 45°
/// that depends on the index, at [`CROWD_MODEL_SCALE`].
pub fn crowd_placement(index: u32, instances: u32) -> Mat4 {
    let columns = crowd_columns(instances);
    let half = crowd_half_extent(instances);
    let (column, row) = (index % columns, index / columns);
    let position = Vec3::new(
        (column as f32 + 0.5) * CROWD_SPACING - half,
        0.0,
        (row as f32 + 0.5) * CROWD_SPACING - half,
    );
    let turn = (index.wrapping_mul(7) % 8) as f32 * std::f32::consts::FRAC_PI_4;
    Mat4::from_translation(position)
        * Mat4::from_rotation_y(turn)
        * Mat4::from_scale(Vec3::splat(CROWD_MODEL_SCALE))
}

/// A fraction in `[0, 1)` from the index (a 32-bit integer hash), so that
/// neighbours play out of step.
fn phase_fraction(index: u32) -> f32 {
    let mut x = index.wrapping_add(0x9e37_79b9);
    x = (x ^ (x >> 16)).wrapping_mul(0x21f0_aaad);
    x = (x ^ (x >> 15)).wrapping_mul(0x735a_2d97);
    x ^= x >> 15;
    (x >> 8) as f32 / (1u32 << 24) as f32
}

/// What copy `index` plays, for a model whose clips last
/// `clip_durations` seconds: clip `index % clips`, looping at speed 1,
/// started so that at scene time 0 it is a hashed fraction of the way
/// through. `None` when the model has no clip.
pub fn crowd_playback(index: u32, clip_durations: &[f32]) -> Option<Playback> {
    if clip_durations.is_empty() {
        return None;
    }
    let clip = index as usize % clip_durations.len();
    Some(Playback {
        start: -phase_fraction(index) * clip_durations[clip],
        ..Playback::looping(clip)
    })
}

/// The crowd's camera: above the middle of the grid's near edge, looking
/// at its centre, so near copies are large and far ones a few pixels.
pub fn crowd_camera(instances: u32) -> Camera {
    let half = crowd_half_extent(instances);
    wide_camera(
        Vec3::new(0.0, (0.35 * half).max(3.0), -1.1 * half - 2.0),
        Vec3::ZERO,
        0.1,
        half * 4.0 + 10.0,
    )
}

/// The crowd as a [`SceneSpec`] for the bench's loop: the camera, the
/// target size and one object per copy (mesh 0, material 0, its
/// placement). It has no meshes, textures or materials: the model is the
/// file the bench loads, and only unbound's path draws it.
pub fn crowd(scene: BenchScene, instances: u32) -> SceneSpec {
    SceneSpec {
        objects: (0..instances)
            .map(|index| SceneObject {
                mesh: 0,
                material: 0,
                world_from_object: crowd_placement(index, instances),
            })
            .collect(),
        ..SceneSpec::wide(scene.name(), crowd_camera(instances))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_fill_a_square_grid_and_play_every_clip_out_of_step() {
        let n = 1000;
        let positions: Vec<Vec3> = (0..n)
            .map(|i| crowd_placement(i, n).transform_point3(Vec3::ZERO))
            .collect();
        let half = crowd_half_extent(n);
        assert!(
            positions
                .iter()
                .all(|p| p.x.abs() < half && p.z.abs() < half)
        );
        for (i, a) in positions.iter().enumerate() {
            let nearest = positions
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, b)| a.distance(*b))
                .fold(f32::INFINITY, f32::min);
            assert!(
                (nearest - CROWD_SPACING).abs() < 1e-3,
                "copy {i}: {nearest}"
            );
        }
        let durations = [3.4, 0.7, 1.1];
        let plays: Vec<Playback> = (0..n)
            .map(|i| crowd_playback(i, &durations).unwrap())
            .collect();
        for clip in 0..3 {
            assert!(plays.iter().filter(|p| p.clip == clip).count() >= 333);
        }
        // Phases spread over the clip: no two neighbours of one clip start
        // together, and every start is within one duration.
        assert!(plays.windows(4).all(|w| w[0].start != w[3].start));
        assert!(
            plays
                .iter()
                .all(|p| (-durations[p.clip]..=0.0).contains(&p.start))
        );
        assert_eq!(crowd_playback(5, &[]), None);
        assert_eq!(crowd(BenchScene::Crowd, 10).objects.len(), 10);
    }
}
