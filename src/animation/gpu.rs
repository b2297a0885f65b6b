//! The GPU tables of one [`AnimationData`]: built once, at load, and read
//! by the playback pass (`src/passes/animation.rs`, `wgsl/animation.wgsl`).
//!
//! - `keys` (`f32`): every sampler's key times and output values, and
//!   every node's rest morph weights, one after the other;
//! - `nodes` ([`GpuAnimNode`]): parent before child, rest transform, where
//!   the node's weights live in an instance's weights;
//! - `clips` ([`GpuAnimClip`]) and `channels` ([`GpuAnimChannel`]): each
//!   channel carries its sampler's record (a sampler read by two channels
//!   is described twice, its keys stored once);
//! - `joints` ([`GpuAnimJoint`]): every skin's joints in one flat table,
//!   skin `s` from [`AnimationTables::skin_first_joint`]; entry `j` of an
//!   instance's palette is joint `j`'s.
//!
//! Per instance the CPU writes one [`GpuAnimInstance`]
//! ([`AnimationTables::instance`]) and per frame the time: nothing else.

use crate::gpu_types::{
    ANIM_BLEND, ANIM_CUBIC_SPLINE, ANIM_LINEAR, ANIM_LOOP_A, ANIM_LOOP_B, ANIM_NO_CLIP,
    ANIM_NO_PARENT, ANIM_PATH_ROTATION, ANIM_PATH_SCALE, ANIM_PATH_TRANSLATION, ANIM_PATH_WEIGHTS,
    ANIM_STEP, GpuAnimChannel, GpuAnimClip, GpuAnimInstance, GpuAnimJoint, GpuAnimNode,
};

use super::{
    AnimationData, AnimationError, ChannelPath, Interpolation, MorphTargets, Playback, Playing,
    SkinInfluences,
};

/// One [`AnimationData`] as the playback pass reads it (see the module
/// docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnimationTables {
    /// Key times, values and rest weights.
    pub keys: Vec<f32>,
    /// The hierarchy.
    pub nodes: Vec<GpuAnimNode>,
    /// Clips.
    pub clips: Vec<GpuAnimClip>,
    /// Channels of every clip, clip by clip.
    pub channels: Vec<GpuAnimChannel>,
    /// Joints of every skin, skin by skin.
    pub joints: Vec<GpuAnimJoint>,
    /// Per skin, its first joint in [`AnimationTables::joints`] (its
    /// palette's start within an instance's palette).
    pub skin_first_joint: Vec<u32>,
    /// Morph weights per instance (every node's together).
    pub weight_count: u32,
}

fn index(value: usize, what: &'static str) -> Result<u32, AnimationError> {
    u32::try_from(value).map_err(|_| AnimationError::TableTooLarge { what })
}

impl AnimationTables {
    /// The tables of `data`, which is checked first
    /// ([`AnimationData::validate`]).
    pub fn new(data: &AnimationData) -> Result<Self, AnimationError> {
        data.validate()?;
        let mut tables = Self::default();
        let mut weight_offset = 0usize;
        for node in &data.nodes {
            let rest_weights = index(tables.keys.len(), "keys")?;
            tables.keys.extend_from_slice(&node.weights);
            let rest = node.rest;
            tables.nodes.push(GpuAnimNode {
                translation: rest.translation.to_array(),
                parent: match node.parent {
                    Some(p) => index(p, "nodes")?,
                    None => ANIM_NO_PARENT,
                },
                rotation: rest.rotation.to_array(),
                scale: rest.scale.to_array(),
                weight_count: index(node.weights.len(), "weights")?,
                weight_offset: index(weight_offset, "weights")?,
                rest_weights,
                _pad: [0; 2],
            });
            weight_offset += node.weights.len();
        }
        tables.weight_count = index(weight_offset, "weights")?;
        for clip in &data.clips {
            // Each sampler's keys once.
            let mut placed = Vec::with_capacity(clip.samplers.len());
            for sampler in &clip.samplers {
                let times = index(tables.keys.len(), "keys")?;
                tables.keys.extend_from_slice(&sampler.times);
                let values = index(tables.keys.len(), "keys")?;
                tables.keys.extend_from_slice(&sampler.values);
                placed.push((times, values));
            }
            tables.clips.push(GpuAnimClip {
                duration: clip.duration,
                first_channel: index(tables.channels.len(), "channels")?,
                channel_count: index(clip.channels.len(), "channels")?,
                _pad: 0,
            });
            for channel in &clip.channels {
                let sampler = &clip.samplers[channel.sampler];
                let (times, values) = placed[channel.sampler];
                tables.channels.push(GpuAnimChannel {
                    node: index(channel.node, "nodes")?,
                    path: match channel.path {
                        ChannelPath::Translation => ANIM_PATH_TRANSLATION,
                        ChannelPath::Rotation => ANIM_PATH_ROTATION,
                        ChannelPath::Scale => ANIM_PATH_SCALE,
                        ChannelPath::Weights => ANIM_PATH_WEIGHTS,
                    },
                    interpolation: match sampler.interpolation {
                        Interpolation::Step => ANIM_STEP,
                        Interpolation::Linear => ANIM_LINEAR,
                        Interpolation::CubicSpline => ANIM_CUBIC_SPLINE,
                    },
                    components: index(sampler.components, "components")?,
                    times,
                    key_count: index(sampler.times.len(), "keys")?,
                    values,
                    _pad: 0,
                });
            }
        }
        index(tables.keys.len(), "keys")?;
        for skin in &data.skins {
            tables
                .skin_first_joint
                .push(index(tables.joints.len(), "joints")?);
            for (&node, inverse_bind) in skin.joints.iter().zip(&skin.inverse_bind) {
                tables.joints.push(GpuAnimJoint {
                    inverse_bind: inverse_bind.to_cols_array_2d(),
                    node: index(node, "nodes")?,
                    _pad: [0; 3],
                });
            }
        }
        index(tables.joints.len(), "joints")?;
        Ok(tables)
    }

    /// Matrices per instance in the pass's output: node world matrices,
    /// then the palette.
    pub fn pose_stride(&self) -> usize {
        self.nodes.len() + self.joints.len()
    }

    /// The record of an instance that plays `playing` (clip indices beyond
    /// the clips show the rest pose, as on the CPU).
    pub fn instance(playing: &Playing) -> GpuAnimInstance {
        let clip = |p: &Playback| u32::try_from(p.clip).unwrap_or(ANIM_NO_CLIP);
        let looping = |p: &Playback, bit| if p.looping { bit } else { 0 };
        match playing {
            Playing::Nothing => GpuAnimInstance {
                clip_a: ANIM_NO_CLIP,
                clip_b: ANIM_NO_CLIP,
                ..GpuAnimInstance::default()
            },
            Playing::One(a) => GpuAnimInstance {
                start_a: a.start,
                speed_a: a.speed,
                clip_a: clip(a),
                clip_b: ANIM_NO_CLIP,
                flags: looping(a, ANIM_LOOP_A),
                ..GpuAnimInstance::default()
            },
            Playing::Blend(a, b, weight) => GpuAnimInstance {
                start_a: a.start,
                speed_a: a.speed,
                start_b: b.start,
                speed_b: b.speed,
                clip_a: clip(a),
                clip_b: clip(b),
                blend: *weight,
                flags: looping(a, ANIM_LOOP_A) | looping(b, ANIM_LOOP_B) | ANIM_BLEND,
            },
        }
    }
}

/// The skin stream entries of `influences` (one `[u32; 4]` per vertex, the
/// deform buffer's layout, `src/passes/animation.rs`): joints 0 and 1 as
/// the low and high 16 bits of word 0, joints 2 and 3 of word 1, weights
/// as `unorm16` pairs in words 2 and 3 (`pack2x16unorm`). With 8
/// influences per vertex the 4 heaviest are kept and their weights
/// rescaled to sum to 1 (the shader divides by the sum of the 4 anyway,
/// which also absorbs the 16-bit rounding).
pub fn pack_influences(influences: &SkinInfluences) -> Vec<[u32; 4]> {
    let unorm = |w: f32| (w.clamp(0.0, 1.0) * 65535.0).round() as u32;
    (0..influences.len())
        .map(|v| {
            let mut pairs: Vec<(usize, f32)> = influences.of(v).collect();
            pairs.sort_by(|a, b| b.1.total_cmp(&a.1));
            pairs.resize(4, (0, 0.0));
            pairs.truncate(4);
            let sum: f32 = pairs.iter().map(|p| p.1).sum();
            let scale = if sum > 0.0 { 1.0 / sum } else { 0.0 };
            let joint = |i: usize| (pairs[i].0 as u32) & 0xffff;
            let weight = |i: usize| unorm(pairs[i].1 * scale);
            [
                joint(0) | joint(1) << 16,
                joint(2) | joint(3) << 16,
                weight(0) | weight(1) << 16,
                weight(2) | weight(3) << 16,
            ]
        })
        .collect()
}

/// `vec4<u32>` entries of the deform buffer per vertex and morph target.
pub const MORPH_ENTRIES_PER_DELTA: usize = 2;

/// Packs the morph deltas of a mesh of `vertices` vertices for the deform
/// buffer (`wgsl/morph.wgsl`'s `morph_vertex`): per vertex, per target, two
/// `vec4<u32>`: the position delta's x, y, z and the normal delta's x as
/// `f32` bits, then the normal delta's y and z as `f32` bits and the
/// tangent delta as `snorm16` of `xyz /`
/// [`MORPH_TANGENT_RANGE`](crate::gpu_types::MORPH_TANGENT_RANGE),
/// clamped (x and y in word 2, z in word 3's low half). A target without some deltas, or a
/// vertex beyond them, packs zeros.
pub fn pack_morph_deltas(targets: &MorphTargets, vertices: usize) -> Vec<[u32; 4]> {
    let snorm = |v: f32| {
        let range = crate::gpu_types::MORPH_TANGENT_RANGE as f32;
        let scaled = (v / range).clamp(-1.0, 1.0) * 32767.0;
        u32::from(scaled.round() as i16 as u16)
    };
    let mut entries =
        Vec::with_capacity(vertices * targets.targets.len() * MORPH_ENTRIES_PER_DELTA);
    for v in 0..vertices {
        for target in &targets.targets {
            let of = |d: &Option<Vec<[f32; 3]>>| {
                d.as_ref()
                    .and_then(|d| d.get(v))
                    .copied()
                    .unwrap_or([0.0; 3])
            };
            let (p, n, t) = (
                of(&target.positions),
                of(&target.normals),
                of(&target.tangents),
            );
            entries.push([
                p[0].to_bits(),
                p[1].to_bits(),
                p[2].to_bits(),
                n[0].to_bits(),
            ]);
            entries.push([
                n[1].to_bits(),
                n[2].to_bits(),
                snorm(t[0]) | snorm(t[1]) << 16,
                snorm(t[2]),
            ]);
        }
    }
    entries
}
