//! Posing: a clip sampled at a time ([`Playback`]), two clips blended,
//! local transforms composed into world matrices in one forward loop, and
//! joint palettes. CPU twins of the GPU passes to come (see the module
//! docs of [`crate::animation`]).

use glam::{Mat4, Quat, Vec3};

use super::{AnimationData, ChannelPath, Clip, NodeTransform, Skin, slerp};

/// How one clip plays: which, from when, how fast, looping or not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playback {
    /// Index into [`AnimationData::clips`].
    pub clip: usize,
    /// The scene time (seconds) at which the clip's time 0 plays.
    pub start: f32,
    /// Clip seconds per scene second (1: as authored; negative: backwards).
    pub speed: f32,
    /// Whether the clip wraps around at its end; otherwise it holds its
    /// first or last pose outside its range.
    pub looping: bool,
}

impl Playback {
    /// `clip` from scene time 0, at speed 1, looping.
    pub fn looping(clip: usize) -> Self {
        Self {
            clip,
            start: 0.0,
            speed: 1.0,
            looping: true,
        }
    }

    /// The clip's local time at scene time `time`, for a clip of
    /// `duration` seconds: wrapped into `[0, duration)` when looping,
    /// clamped to `[0, duration]` otherwise (a non-finite result is 0).
    pub fn clip_time(&self, time: f32, duration: f32) -> f32 {
        let local = (time - self.start) * self.speed;
        let local = if !local.is_finite() {
            0.0
        } else if self.looping && duration > 0.0 {
            local.rem_euclid(duration)
        } else {
            local.clamp(0.0, duration.max(0.0))
        };
        if local.is_finite() { local } else { 0.0 }
    }
}

/// What one animated instance plays.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Playing {
    /// Nothing: the rest pose.
    #[default]
    Nothing,
    /// One clip.
    One(Playback),
    /// Two clips blended: weight 0 shows the first, 1 the second.
    Blend(Playback, Playback, f32),
}

/// Every node's local transform and morph weights at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Per node of [`AnimationData::nodes`].
    pub locals: Vec<NodeTransform>,
    /// Per node, its morph weights.
    pub weights: Vec<Vec<f32>>,
}

impl Pose {
    /// The rest pose of `data`.
    pub fn rest(data: &AnimationData) -> Self {
        Self {
            locals: data.nodes.iter().map(|n| n.rest).collect(),
            weights: data.nodes.iter().map(|n| n.weights.clone()).collect(),
        }
    }

    /// The rest pose with `clip` applied at clip time `clip_time` (seconds
    /// from the clip's start). `data` must be valid
    /// ([`AnimationData::validate`]); a weights channel whose sampler has
    /// another count than the node's weights is skipped.
    pub fn at_clip_time(data: &AnimationData, clip: &Clip, clip_time: f32) -> Self {
        let mut pose = Self::rest(data);
        let mut scratch = Vec::new();
        for channel in &clip.channels {
            let sampler = &clip.samplers[channel.sampler];
            scratch.resize(sampler.components, 0.0);
            let rotation = channel.path == ChannelPath::Rotation;
            sampler.sample(clip_time, rotation, &mut scratch);
            let local = &mut pose.locals[channel.node];
            match channel.path {
                ChannelPath::Translation if scratch.len() == 3 => {
                    local.translation = Vec3::from_slice(&scratch);
                }
                ChannelPath::Scale if scratch.len() == 3 => {
                    local.scale = Vec3::from_slice(&scratch);
                }
                ChannelPath::Rotation if scratch.len() == 4 => {
                    local.rotation = Quat::from_slice(&scratch).normalize();
                }
                ChannelPath::Weights if scratch.len() == pose.weights[channel.node].len() => {
                    pose.weights[channel.node].copy_from_slice(&scratch);
                }
                _ => {}
            }
        }
        pose
    }

    /// `playback`'s clip at scene time `time` (the rest pose if the clip
    /// does not exist).
    pub fn at(data: &AnimationData, playback: &Playback, time: f32) -> Self {
        match data.clips.get(playback.clip) {
            Some(clip) => Self::at_clip_time(data, clip, playback.clip_time(time, clip.duration)),
            None => Self::rest(data),
        }
    }

    /// What `playing` shows at scene time `time`.
    pub fn playing(data: &AnimationData, playing: &Playing, time: f32) -> Self {
        match playing {
            Playing::Nothing => Self::rest(data),
            Playing::One(playback) => Self::at(data, playback, time),
            Playing::Blend(a, b, weight) => {
                Self::at(data, a, time).blend(&Self::at(data, b, time), *weight)
            }
        }
    }

    /// `self` blended towards `other` by `weight` (0: `self`, 1: `other`):
    /// translation and scale lerp, rotation slerp (shortest path), weights
    /// lerp.
    pub fn blend(&self, other: &Self, weight: f32) -> Self {
        let locals = self
            .locals
            .iter()
            .zip(&other.locals)
            .map(|(a, b)| NodeTransform {
                translation: a.translation.lerp(b.translation, weight),
                rotation: slerp(a.rotation, b.rotation, weight),
                scale: a.scale.lerp(b.scale, weight),
            })
            .collect();
        let weights = self
            .weights
            .iter()
            .zip(&other.weights)
            .map(|(a, b)| a.iter().zip(b).map(|(a, b)| a + (b - a) * weight).collect())
            .collect();
        Self { locals, weights }
    }

    /// `scene_from_node` of every node: its parent's times its local
    /// transform, one forward loop (parents come first).
    pub fn world_from_nodes(&self, data: &AnimationData) -> Vec<Mat4> {
        let mut world: Vec<Mat4> = Vec::with_capacity(self.locals.len());
        for (node, local) in data.nodes.iter().zip(&self.locals) {
            let parent = node.parent.map_or(Mat4::IDENTITY, |p| world[p]);
            world.push(parent * local.matrix());
        }
        world
    }
}

/// A skin's joint palette: `scene_from_node(joint) * inverse_bind(joint)`
/// per joint, which takes a bind-pose vertex to the scene.
pub fn joint_palette(skin: &Skin, scene_from_nodes: &[Mat4]) -> Vec<Mat4> {
    skin.joints
        .iter()
        .zip(&skin.inverse_bind)
        .map(|(&joint, inverse_bind)| scene_from_nodes[joint] * *inverse_bind)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_time_loops_clamps_and_scales() {
        let mut playback = Playback {
            clip: 0,
            start: 1.0,
            speed: 2.0,
            looping: true,
        };
        assert_eq!(playback.clip_time(2.0, 1.5), 0.5);
        assert_eq!(playback.clip_time(0.5, 1.5), 0.5);
        playback.looping = false;
        assert_eq!(playback.clip_time(2.0, 1.5), 1.5);
        assert_eq!(playback.clip_time(0.0, 1.5), 0.0);
        assert_eq!(playback.clip_time(f32::NAN, 1.5), 0.0);
    }
}
