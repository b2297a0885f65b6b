//! The streaming scene (`unbound-bench --streaming`, issue 30): more
//! texture than the budget holds, seen by a still camera, to measure the
//! streamer (`src/heap/residency.rs`) as it fills the budget and once it
//! has settled.
//!
//! A wall of `textures` unit tiles (a quad each, its own material and its
//! own `size`² texture with a full mip chain: 512 of 1024² are 2.7 GiB of
//! layers) on a grid about twice as wide as tall, facing a camera
//! [`STREAMING_DISTANCE`] in front of its centre. The camera sees 8 x 4
//! tiles (some in part), each about 200 pixels across: more than a 64²
//! base layer resolves, so those (32 full 1024² layers, 171 MiB) are
//! wanted and promoted, and the rest never are. The texels are cheap
//! procedural patterns (a checker with one-texel lines every 8 texels, so
//! the full resolution differs from the base), generated on every core.

use glam::{Mat4, Vec3};

use unbound::shapes;

use crate::spec::{SceneMaterial, SceneObject, SceneSpec, SceneTexture, wide_camera};

/// The camera's distance from the wall, in tile widths.
pub const STREAMING_DISTANCE: f32 = 3.0;

/// Texture `index` of the wall: a checker of 16 x 16 cells in the
/// texture's two colours, crossed by white one-texel lines every 8
/// texels (RGBA8 sRGB).
pub fn streaming_texture(index: u32, size: u32) -> Vec<u8> {
    let hue = (index as f32 * 0.618_034).fract();
    let a = crate::hsv_to_rgba8(hue, 0.65, 0.95);
    let b = crate::hsv_to_rgba8(hue + 0.5, 0.5, 0.35);
    let cell = (size / 16).max(1);
    let mut data = vec![0; (size * size * 4) as usize];
    for (row, texels) in data.chunks_exact_mut(size as usize * 4).enumerate() {
        let y = row as u32;
        for (x, texel) in (0..size).zip(texels.chunks_exact_mut(4)) {
            let colour = if x.is_multiple_of(8) || y.is_multiple_of(8) {
                [255; 4]
            } else if (x / cell + y / cell).is_multiple_of(2) {
                a
            } else {
                b
            };
            texel.copy_from_slice(&colour);
        }
    }
    data
}

/// [`streaming_texture`] `0..count`, generated on every available core.
fn textures(count: u32, size: u32) -> Vec<SceneTexture> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let per_thread = count.div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..count)
            .step_by(per_thread as usize)
            .map(|first| {
                scope.spawn(move || {
                    (first..(first + per_thread).min(count))
                        .map(|i| SceneTexture {
                            size,
                            data: streaming_texture(i, size),
                            srgb: true,
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("texture generation does not panic"))
            .collect()
    })
}

/// The wall's columns and rows for `textures` tiles: about twice as wide
/// as tall.
pub fn wall_grid(textures: u32) -> (u32, u32) {
    let columns = ((2.0 * textures as f32).sqrt().ceil() as u32).max(1);
    (columns, textures.div_ceil(columns))
}

/// The streaming scene: `textures` tiles of `size`² textures (see the
/// module docs), 1280x720.
pub fn streaming(textures_count: u32, size: u32) -> SceneSpec {
    let (columns, rows) = wall_grid(textures_count);
    let centre = Vec3::new((columns as f32 - 1.0) / 2.0, (rows as f32 - 1.0) / 2.0, 0.0);
    let objects = (0..textures_count)
        .map(|i| SceneObject {
            mesh: 0,
            material: i,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::new(0.96, 0.96, 1.0),
                glam::Quat::IDENTITY,
                Vec3::new((i % columns) as f32, (i / columns) as f32, 0.0) - centre,
            ),
        })
        .collect();
    let camera = wide_camera(
        Vec3::new(0.0, 0.0, STREAMING_DISTANCE),
        Vec3::ZERO,
        0.1,
        10.0 * STREAMING_DISTANCE,
    );
    SceneSpec {
        meshes: vec![shapes::quad()],
        textures: textures(textures_count, size),
        materials: SceneMaterial::one_per_texture(textures_count as usize),
        objects,
        ..SceneSpec::wide("streaming", camera)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wall_has_a_tile_and_a_texture_each() {
        assert_eq!(wall_grid(512), (32, 16));
        assert_eq!(wall_grid(8), (4, 2));
        let scene = streaming(9, 32);
        assert_eq!(scene.textures.len(), 9);
        assert_eq!(scene.objects.len(), 9);
        let materials: Vec<u32> = scene.objects.iter().map(|o| o.material).collect();
        assert_eq!(materials, (0..9).collect::<Vec<_>>());
        // Generated in parallel, each texture is still its own.
        for (i, texture) in scene.textures.iter().enumerate() {
            assert_eq!(texture.data, streaming_texture(i as u32, 32));
        }
        assert_ne!(scene.textures[1].data, scene.textures[2].data);
        // Lines every 8 texels, white.
        let texture = streaming_texture(3, 64);
        assert_eq!(texture[..4], [255u8; 4]);
        assert_ne!(texture[4 * 65..4 * 66], [255u8; 4]);
    }
}
