//! Skin weights repaired while a file is read: renormalised to sum to 1,
//! or bound to the first joint when none is usable, counted per file and
//! named once each in the warnings (see `animation.rs`).

/// Weights repaired in one file (named once each in the warnings).
#[derive(Default)]
pub(super) struct WeightRepairs {
    renormalised: usize,
    unbound: usize,
}

impl WeightRepairs {
    pub(super) fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.renormalised > 0 {
            warnings.push(format!(
                "skin weights of {} vertices did not sum to 1: renormalised",
                self.renormalised
            ));
        }
        if self.unbound > 0 {
            warnings.push(format!(
                "{} vertices had no usable skin weight: bound to their first joint alone",
                self.unbound
            ));
        }
        warnings
    }
}

/// Renormalises one vertex's weights (see the module docs).
pub(super) fn renormalise(weights: &mut [f32], repairs: &mut WeightRepairs) {
    for w in weights.iter_mut() {
        if !(w.is_finite() && *w >= 0.0) {
            *w = 0.0;
        }
    }
    let sum: f32 = weights.iter().sum();
    if sum <= 0.0 || !sum.is_finite() {
        weights.fill(0.0);
        weights[0] = 1.0;
        repairs.unbound += 1;
        return;
    }
    if (sum - 1.0).abs() > 0.01 {
        repairs.renormalised += 1;
    }
    weights.iter_mut().for_each(|w| *w /= sum);
}
