//! The file's animation: played on the GPU by default ([`Player`]: the
//! renderer's playback pass samples the clip and skins every copy, the CPU
//! hands over the time each frame), or posed once on the CPU with
//! `--animation-on-cpu` ([`pose_on_cpu`], the reference: rigid parts moved
//! by [`AnimatedScene::pose_at`], skinned and morphed meshes replaced by
//! their CPU-posed copies, [`AnimatedScene::posed_mesh`]).
//!
//! `--animation INDEX|NAME` picks the clip (default: the first);
//! `--time SECONDS` poses every copy at that time, paused; without it,
//! each `--instances-grid` copy plays with its own phase. Morph targets are
//! not applied on the GPU yet (`--animation-on-cpu` shows them).

use std::collections::HashMap;

use glam::Mat4;
use unbound::animation::{AnimatedScene, Playback, Playing};
use unbound::loaders::gltf::GltfScene;
use unbound::{MeshHandle, ObjectHandle, Renderer};

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

/// Poses `scene` (loaded with the identity placement) on the CPU with clip
/// `animation` (default: the first) at `time` seconds (default 0):
/// returns a line for the description, or a warning when the file does
/// not animate. `scene.placements` follow, so grid copies show the pose.
pub fn pose_on_cpu(
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

/// The clip a [`Player`] starts with: `--animation`'s, else the first
/// (none if the file has no clips).
fn chosen_clip(animated: &AnimatedScene, animation: Option<&str>) -> Result<Option<usize>, String> {
    match animation {
        Some(text) => clip_index(animated, text).map(Some),
        None if animated.data().clips.is_empty() => Ok(None),
        None => Ok(Some(0)),
    }
}

/// The animation of a scene and its grid copies, played on the GPU (see
/// the module docs): one animation instance per copy.
#[derive(Debug)]
pub struct Player {
    animated: AnimatedScene,
    clip: Option<usize>,
    /// Each copy's placement (the first: the identity).
    copies: Vec<Mat4>,
    /// Every copy's objects, copy after copy, each in
    /// `AnimationData::objects` order (`stride` a copy).
    objects: Vec<ObjectHandle>,
    stride: usize,
    /// The objects (within a copy) moved on the CPU: not skinned.
    rigid: Vec<usize>,
    /// Every copy at the same time (`--time`), or each at its own phase.
    in_step: bool,
    /// Paused: the time stands.
    pub paused: bool,
    time: f32,
}

impl Player {
    /// Hands `scene`'s animation to the renderer for `copies` copies
    /// (`scene.objects` holds them copy after copy) and starts the clip
    /// `animation` picks at `time` (paused at it when given). `None` when
    /// the file does not animate.
    pub fn start(
        renderer: &mut Renderer,
        scene: &mut GltfScene,
        copies: Vec<Mat4>,
        (animation, time): (Option<&str>, Option<f32>),
    ) -> Result<Option<(Self, String)>, String> {
        let Some(animated) = scene.animation.take() else {
            return Ok(None);
        };
        let clip = chosen_clip(&animated, animation)?;
        let data = animated.data();
        let count = u32::try_from(copies.len()).map_err(|e| e.to_string())?;
        renderer
            .set_animation(data, count)
            .map_err(|e| e.to_string())?;
        // Each copy holds the scene's placements, in the order of the
        // animation's objects.
        let stride = scene.placements.len();
        let mut rigid = Vec::new();
        for (i, driver) in data.objects.iter().enumerate() {
            let Some(skin) = driver.skin else {
                rigid.push(i);
                continue;
            };
            let skinned = animated.skinned_mesh(driver.mesh, skin);
            for copy in 0..count {
                let object = scene.objects[copy as usize * stride + i];
                renderer
                    .set_object_skin(object, skinned.as_ref(), copy, skin)
                    .map_err(|e| e.to_string())?;
            }
        }
        let skinned = data.objects.len() - rigid.len();
        let mut player = Self {
            objects: scene.objects.clone(),
            stride,
            animated,
            clip,
            copies,
            rigid,
            in_step: time.is_some(),
            paused: time.is_some(),
            time: time.unwrap_or(0.0),
        };
        player.set_clip(renderer, clip)?;
        let line = format!(
            "playing on the GPU: {} at {} s ({skinned} objects skinned, {} copies{})",
            player.clip_line(),
            player.time,
            player.copies.len(),
            if player.in_step {
                ", paused"
            } else {
                ", each at its own phase"
            }
        );
        Ok(Some((player, line)))
    }

    fn clip_line(&self) -> String {
        self.clip.map_or_else(
            || "no clip (rest pose)".to_owned(),
            |c| {
                let clip = &self.animated.data().clips[c];
                format!(
                    "clip {c} {:?} of {:.3} s",
                    clip.name.as_deref().unwrap_or(""),
                    clip.duration
                )
            },
        )
    }

    /// The file's clips, by index.
    pub fn clip_names(&self) -> Vec<String> {
        let clips = &self.animated.data().clips;
        (0..clips.len())
            .map(|i| format!("{i} {}", clips[i].name.as_deref().unwrap_or("(unnamed)")))
            .collect()
    }

    /// The clip that plays.
    pub fn clip(&self) -> Option<usize> {
        self.clip
    }

    /// The scene time shown, in seconds.
    pub fn time(&self) -> f32 {
        self.time
    }

    /// What copy `copy` plays: the clip, looping, from its phase.
    fn playing(&self, copy: usize) -> Playing {
        let Some(clip) = self.clip else {
            return Playing::Nothing;
        };
        let duration = self.animated.data().clips[clip].duration;
        // Phases spread by the golden ratio: no two copies in step.
        let phase = if self.in_step {
            0.0
        } else {
            (copy as f32 * 0.618_034).fract() * duration
        };
        Playing::One(Playback {
            clip,
            start: -phase,
            speed: 1.0,
            looping: true,
        })
    }

    /// Plays `clip` (`None`: the rest pose) on every copy from now.
    pub fn set_clip(&mut self, renderer: &mut Renderer, clip: Option<usize>) -> Result<(), String> {
        self.clip = clip.filter(|&c| c < self.animated.data().clips.len());
        let playing: Vec<Playing> = (0..self.copies.len()).map(|c| self.playing(c)).collect();
        renderer
            .play_animation(&playing, self.time)
            .map_err(|e| e.to_string())?;
        self.move_rigid(renderer)
    }

    /// Moves the time on by `dt` seconds unless paused: the renderer's
    /// next frame plays it (nothing per copy on the CPU but the rigid
    /// parts' transforms).
    pub fn advance(&mut self, renderer: &mut Renderer, dt: f32) -> Result<(), String> {
        if self.paused || dt <= 0.0 {
            return Ok(());
        }
        self.time += dt;
        renderer
            .set_animation_time(self.time)
            .map_err(|e| e.to_string())?;
        self.move_rigid(renderer)
    }

    /// Node-animated objects that are not skinned: placed on the CPU, per
    /// copy at its own phase.
    fn move_rigid(&mut self, renderer: &mut Renderer) -> Result<(), String> {
        if self.rigid.is_empty() {
            return Ok(());
        }
        for copy in 0..self.copies.len() {
            let playing = self.playing(copy);
            self.animated.set_playing(playing);
            let world = self.animated.world_from_objects(self.time);
            for &i in &self.rigid {
                renderer
                    .set_transform(
                        self.objects[copy * self.stride + i],
                        self.copies[copy] * world[i],
                    )
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }
}
