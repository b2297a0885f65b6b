//! Keyframe sampling, the CPU twin of the GPU's: STEP, LINEAR (rotations
//! by slerp) and CUBICSPLINE (glTF's Hermite form), each exactly as the
//! glTF 2.0 specification's appendix on interpolation writes it.
//!
//! The key of time `t` is the last key whose time is `<= t` (a binary
//! search); before the first key the first value holds, after the last the
//! last value.

use glam::Quat;

use super::error::SamplerError;

/// How values between keys are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// The previous key's value.
    Step,
    /// Linear between the two keys (rotations: spherical, shortest path).
    #[default]
    Linear,
    /// Cubic Hermite spline: each key holds an in-tangent, a value and an
    /// out-tangent.
    CubicSpline,
}

/// A keyframe curve: key times and their values.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f32>,
    /// Output values, flat: `components` per key (× 3 for CUBICSPLINE:
    /// in-tangent, value, out-tangent, in that order per key).
    pub values: Vec<f32>,
    /// Values per key: 3 (translation, scale), 4 (rotation) or the morph
    /// target count (weights).
    pub components: usize,
    /// How values between keys are found.
    pub interpolation: Interpolation,
}

impl Sampler {
    /// Checks the keys: at least one, times finite, non-negative and
    /// strictly increasing, values finite, and as many as the keys need.
    pub fn validate(&self) -> Result<(), SamplerError> {
        if self.times.is_empty() {
            return Err(SamplerError::NoKeys);
        }
        let mut previous = None;
        for (key, &time) in self.times.iter().enumerate() {
            // NaN fails every comparison, so it is refused here too.
            let increasing = previous.is_none_or(|p| time > p);
            if !(time.is_finite() && time >= 0.0 && increasing) {
                return Err(SamplerError::TimesNotIncreasing { key, time });
            }
            previous = Some(time);
        }
        let per_key = match self.interpolation {
            Interpolation::CubicSpline => 3 * self.components,
            _ => self.components,
        };
        let expected = self.times.len() * per_key;
        if self.values.len() != expected {
            return Err(SamplerError::OutputCount {
                keys: self.times.len(),
                values: self.values.len(),
                expected,
            });
        }
        if let Some(index) = self.values.iter().position(|v| !v.is_finite()) {
            return Err(SamplerError::NonFiniteValue {
                index,
                value: self.values[index],
            });
        }
        Ok(())
    }

    /// The last key time (0 without keys).
    pub fn end(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// The value of key `key`: `components` values (the value, not a
    /// tangent, for CUBICSPLINE).
    fn value(&self, key: usize) -> &[f32] {
        let n = self.components;
        match self.interpolation {
            Interpolation::CubicSpline => &self.values[(3 * key + 1) * n..(3 * key + 2) * n],
            _ => &self.values[key * n..(key + 1) * n],
        }
    }

    /// Samples the curve at `time` into `out` (`components` values). A
    /// `rotation` curve (4 components) is slerped when LINEAR and
    /// normalised after any interpolation. The sampler must be valid
    /// ([`Sampler::validate`]).
    pub fn sample(&self, time: f32, rotation: bool, out: &mut [f32]) {
        let n = self.components;
        let last = self.times.len() - 1;
        // Keys before or at `time`.
        let after = self.times.partition_point(|&t| t <= time);
        if after == 0 || after > last {
            out.copy_from_slice(self.value(if after == 0 { 0 } else { last }));
            return;
        }
        let k = after - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let interval = t1 - t0;
        let s = (time - t0) / interval;
        match self.interpolation {
            Interpolation::Step => out.copy_from_slice(self.value(k)),
            Interpolation::Linear if rotation => {
                let q = slerp(quat(self.value(k)), quat(self.value(k + 1)), s);
                out.copy_from_slice(&q.to_array());
            }
            Interpolation::Linear => {
                let (a, b) = (self.value(k), self.value(k + 1));
                for c in 0..n {
                    out[c] = a[c] + (b[c] - a[c]) * s;
                }
            }
            Interpolation::CubicSpline => {
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = interval * (s3 - 2.0 * s2 + s);
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = interval * (s3 - s2);
                let v0 = &self.values[(3 * k + 1) * n..];
                let out_tangent0 = &self.values[(3 * k + 2) * n..];
                let in_tangent1 = &self.values[(3 * (k + 1)) * n..];
                let v1 = &self.values[(3 * (k + 1) + 1) * n..];
                for c in 0..n {
                    out[c] =
                        h00 * v0[c] + h10 * out_tangent0[c] + h01 * v1[c] + h11 * in_tangent1[c];
                }
                if rotation {
                    let q = quat(out).normalize();
                    out.copy_from_slice(&q.to_array());
                }
            }
        }
    }
}

fn quat(v: &[f32]) -> Quat {
    Quat::from_xyzw(v[0], v[1], v[2], v[3])
}

/// Spherical linear interpolation from `a` to `b` along the shorter arc
/// (`b` is negated when `a · b < 0`), normalised; nearly parallel
/// rotations are interpolated linearly, then normalised.
pub fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    let mut dot = a.dot(b);
    let b = if dot < 0.0 {
        dot = -dot;
        -b
    } else {
        b
    };
    if dot > 0.9995 {
        return (a + (b - a) * s).normalize();
    }
    let theta = dot.clamp(-1.0, 1.0).acos();
    let sin = theta.sin();
    let wa = ((1.0 - s) * theta).sin() / sin;
    let wb = (s * theta).sin() / sin;
    (a * wa + b * wb).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear(times: &[f32], values: &[f32], components: usize) -> Sampler {
        Sampler {
            times: times.to_vec(),
            values: values.to_vec(),
            components,
            interpolation: Interpolation::Linear,
        }
    }

    #[test]
    fn linear_step_and_clamping() {
        let mut sampler = linear(&[1.0, 3.0], &[0.0, 10.0], 1);
        let mut out = [0.0];
        for (t, expected) in [(0.0, 0.0), (1.0, 0.0), (1.5, 2.5), (3.0, 10.0), (9.0, 10.0)] {
            sampler.sample(t, false, &mut out);
            assert_eq!(out[0], expected, "t = {t}");
        }
        sampler.interpolation = Interpolation::Step;
        sampler.sample(2.9, false, &mut out);
        assert_eq!(out[0], 0.0);
        sampler.sample(3.0, false, &mut out);
        assert_eq!(out[0], 10.0);
    }

    #[test]
    fn bad_keys_are_refused() {
        let backwards = linear(&[0.0, 2.0, 1.0], &[0.0; 3], 1);
        assert!(matches!(
            backwards.validate(),
            Err(SamplerError::TimesNotIncreasing { key: 2, .. })
        ));
        let nan = linear(&[0.0, f32::NAN], &[0.0; 2], 1);
        assert!(matches!(
            nan.validate(),
            Err(SamplerError::TimesNotIncreasing { key: 1, .. })
        ));
        let count = linear(&[0.0, 1.0], &[0.0; 3], 1);
        assert!(matches!(
            count.validate(),
            Err(SamplerError::OutputCount { expected: 2, .. })
        ));
        let value = linear(&[0.0], &[f32::INFINITY], 1);
        assert!(matches!(
            value.validate(),
            Err(SamplerError::NonFiniteValue { index: 0, .. })
        ));
    }

    #[test]
    fn slerp_takes_the_shorter_arc() {
        let a = Quat::from_rotation_z(0.0);
        // 350° about z is -10°: the negated quaternion is the short way.
        let b = Quat::from_rotation_z(350f32.to_radians());
        assert!(a.dot(b) < 0.0);
        let half = slerp(a, b, 0.5);
        let expected = Quat::from_rotation_z((-5f32).to_radians());
        assert!(half.dot(expected).abs() > 1.0 - 1e-6, "{half:?}");
    }
}
