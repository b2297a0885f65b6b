//! `--animation INDEX|NAME` and `--time SECONDS`: a glTF file's clip posed
//! at one time, on the CPU (unbound's interim path, see
//! `unbound::animation`): rigid parts moved by
//! [`AnimatedScene::pose_at`], skinned and morphed meshes replaced by their
//! CPU-posed copies ([`AnimatedScene::posed_mesh`]). The window shows that
//! pose still; playing clips there comes with the GPU playback.

use std::collections::HashMap;

use unbound::animation::{AnimatedScene, Playback};
use unbound::loaders::gltf::GltfScene;
use unbound::{MeshHandle, Renderer};

/// The clip `text` names: an index, else a name.
fn clip_index(animated: &AnimatedScene, text: &str) -> Result<usize, String> {
    let data = animated.data();
    text.parse::<usize>()
        .ok()
        .filter(|&i| i < data.clips.len())
        .or_else(|| data.clip_named(text))
        .ok_or_else(|| {
            let names: Vec<String> = data
                .clips
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{i} {}", c.name.as_deref().unwrap_or("(unnamed)")))
                .collect();
            format!(
                "--animation {text}: no such clip (the file has: {})",
                names.join(", ")
            )
        })
}

/// Poses `scene` (loaded with the identity placement) with clip
/// `animation` (default: the first) at `time` seconds (default 0):
/// returns a line for the description, or a warning when the file does
/// not animate. `scene.placements` follow, so grid copies show the pose.
pub fn pose(
    renderer: &mut Renderer,
    scene: &mut GltfScene,
    (animation, time): (Option<&str>, Option<f32>),
    meshes: &unbound::MeshOptions,
) -> Result<String, String> {
    let Some(mut animated) = scene.animation.take() else {
        return Ok("posed: the file has no animation, shown as it is".into());
    };
    let clip = match animation {
        Some(text) => Some(clip_index(&animated, text)?),
        None if animated.data().clips.is_empty() => None,
        None => Some(0),
    };
    let time = time.unwrap_or(0.0);
    if let Some(clip) = clip {
        animated.play(Playback {
            clip,
            start: 0.0,
            speed: 1.0,
            looping: true,
        });
    }
    animated
        .pose_at(renderer, time)
        .map_err(|e| e.to_string())?;
    let world = animated.world_from_objects(time);
    let mut posed: HashMap<(usize, Option<usize>), MeshHandle> = HashMap::new();
    let mut deformed = 0;
    for (i, driver) in animated.data().objects.iter().enumerate() {
        let stream = &animated.data().meshes[driver.mesh];
        let mut desc = unbound::ObjectDesc {
            world_from_object: world[i],
            ..scene.placements[i]
        };
        if driver.skin.is_some() || stream.morph.is_some() {
            let key = (driver.mesh, driver.skin);
            let mesh = match posed.get(&key) {
                Some(&mesh) => mesh,
                None => {
                    let mesh = animated
                        .posed_mesh(driver.mesh, driver.skin, time)
                        .ok_or_else(|| format!("mesh {} cannot be posed", driver.mesh))?;
                    let handle = renderer
                        .add_mesh_with(&mesh.as_mesh_data(), meshes)
                        .map_err(|e| e.to_string())?;
                    posed.insert(key, handle);
                    handle
                }
            };
            desc.mesh = mesh;
            renderer
                .update_object(scene.objects[i], &desc)
                .map_err(|e| e.to_string())?;
            deformed += 1;
        }
        scene.placements[i] = desc;
    }
    let name = clip.map_or_else(
        || "no clip (rest pose)".to_owned(),
        |c| {
            let clip = &animated.data().clips[c];
            format!(
                "clip {c} {:?} of {:.3} s",
                clip.name.as_deref().unwrap_or(""),
                clip.duration
            )
        },
    );
    scene.animation = Some(animated);
    Ok(format!(
        "posed: {name} at {time} s ({deformed} objects deformed on the CPU)"
    ))
}
