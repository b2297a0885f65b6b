//! Animation clips of a glTF file: each channel on a node of the scene,
//! its sampler read once per value count and checked (see the docs of
//! `animation.rs`, beside this file).

use std::collections::HashMap;

use gltf::accessor::{DataType, Dimensions};

use super::GltfError;
use super::accessors::read_floats;
use super::buffers::Buffers;
use super::checks::check_accessor;
use super::stage::Parser;
use crate::animation::{
    AnimationData, AnimationError, Channel, ChannelPath, Clip, Interpolation, Sampler,
};

impl Parser<'_, '_, '_> {
    /// Every animation of `document` as a [`Clip`] (channels outside the
    /// scene or on weights without targets dropped, counted in warnings).
    pub(super) fn read_clips(
        &mut self,
        document: &gltf::Document,
        buffers: &Buffers,
        index_of: &[Option<usize>],
        data: &AnimationData,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Clip>, GltfError> {
        let (mut outside, mut without_targets) = (0, 0);
        let mut clips = Vec::new();
        for animation in document.animations() {
            let mut clip = Clip {
                name: animation.name().map(str::to_owned),
                duration: 0.0,
                samplers: Vec::new(),
                channels: Vec::new(),
            };
            let mut sampler_of: HashMap<(usize, usize), usize> = HashMap::new();
            for channel in animation.channels() {
                let target = channel.target();
                let Some(node) = index_of[target.node().index()] else {
                    outside += 1;
                    continue;
                };
                let (path, components) = match target.property() {
                    gltf::animation::Property::Translation => (ChannelPath::Translation, 3),
                    gltf::animation::Property::Rotation => (ChannelPath::Rotation, 4),
                    gltf::animation::Property::Scale => (ChannelPath::Scale, 3),
                    gltf::animation::Property::MorphTargetWeights => {
                        (ChannelPath::Weights, data.nodes[node].weights.len())
                    }
                };
                if components == 0 {
                    without_targets += 1;
                    continue;
                }
                let gltf_sampler = channel.sampler();
                let key = (gltf_sampler.index(), components);
                let sampler = match sampler_of.get(&key) {
                    Some(&s) => s,
                    None => {
                        let read = self.read_sampler(
                            &animation,
                            &gltf_sampler,
                            path,
                            components,
                            buffers,
                        )?;
                        clip.duration = clip.duration.max(read.end());
                        clip.samplers.push(read);
                        sampler_of.insert(key, clip.samplers.len() - 1);
                        clip.samplers.len() - 1
                    }
                };
                clip.channels.push(Channel {
                    node,
                    path,
                    sampler,
                });
            }
            clips.push(clip);
        }
        if outside > 0 {
            warnings.push(format!(
                "{outside} animation channel(s) on nodes outside the scene ignored (nothing they move is drawn)"
            ));
        }
        if without_targets > 0 {
            warnings.push(format!(
                "{without_targets} morph weight channel(s) on nodes without morph targets ignored"
            ));
        }
        Ok(clips)
    }

    fn read_sampler(
        &mut self,
        animation: &gltf::Animation<'_>,
        sampler: &gltf::animation::Sampler<'_>,
        path: ChannelPath,
        components: usize,
        buffers: &Buffers,
    ) -> Result<Sampler, GltfError> {
        use DataType::{F32, I8, I16, U8, U16};
        let at = format!(
            "animation {} sampler {}",
            animation.index(),
            sampler.index()
        );
        let (input, output) = (sampler.input(), sampler.output());
        let dimensions = match path {
            ChannelPath::Translation | ChannelPath::Scale => Dimensions::Vec3,
            ChannelPath::Rotation => Dimensions::Vec4,
            ChannelPath::Weights => Dimensions::Scalar,
        };
        let mut allowed = vec![(F32, dimensions)];
        if matches!(path, ChannelPath::Rotation | ChannelPath::Weights) {
            allowed.extend([I8, U8, I16, U16].map(|t| (t, dimensions)));
        }
        check_accessor(&input, "animation input", &[(F32, Dimensions::Scalar)])
            .and_then(|()| check_accessor(&output, "animation output", &allowed))
            .map_err(|e| self.invalid(format!("{at}: {e}")))?;
        if output.data_type() != F32 && !output.normalized() {
            return Err(self.invalid(format!(
                "{at}: output accessor {} is not normalized",
                output.index()
            )));
        }
        self.charge_accessor(&input, 1)?;
        self.charge_accessor(&output, dimensions.multiplicity())?;
        let error = |e: String| self.invalid(format!("{at}: {e}"));
        let times: Vec<f32> = read_floats::<1>(buffers, &input)
            .map_err(error)?
            .into_iter()
            .map(|[t]| t)
            .collect();
        let values: Vec<f32> = match dimensions {
            Dimensions::Vec3 => read_floats::<3>(buffers, &output).map_err(error)?.concat(),
            Dimensions::Vec4 => read_floats::<4>(buffers, &output).map_err(error)?.concat(),
            _ => read_floats::<1>(buffers, &output).map_err(error)?.concat(),
        };
        let read = Sampler {
            times,
            values,
            components,
            interpolation: match sampler.interpolation() {
                gltf::animation::Interpolation::Step => Interpolation::Step,
                gltf::animation::Interpolation::Linear => Interpolation::Linear,
                gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            },
        };
        read.validate().map_err(|reason| {
            self.animation_error(AnimationError::Sampler {
                clip: animation.index(),
                sampler: sampler.index(),
                reason,
            })
        })?;
        Ok(read)
    }
}
