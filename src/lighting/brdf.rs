//! The BRDF of glTF 2.0's Appendix B on the CPU, the twin of
//! `wgsl/brdf.wgsl` (same formulas, same order, `f32`).
//!
//! With `α = roughness²` (roughness clamped to [`MIN_ROUGHNESS`]..1), `h`
//! the half vector and `s = (1 - v·h)^5`:
//!
//! - GGX distribution `D = α² / (π ((n·h)² (α² - 1) + 1)²)`;
//! - height-correlated Smith visibility
//!   `V = 0.5 / (n·l √((n·v)² (1 - α²) + α²) + n·v √((n·l)² (1 - α²) + α²))`;
//! - Schlick Fresnel `F(f0) = f0 + (1 - f0) s`;
//! - the specification's mix: a dielectric is
//!   `mix(c / π, D V, F(0.04))` (the Lambert term weighted by `1 - F`), a
//!   metal `F(c) D V`, and the material `mix(dielectric, metal, metallic)`.
//!
//! [`Brdf::directional_albedo`] integrates `f cos θ` over the hemisphere:
//! what a surface reflects under a uniform white environment (the white
//! furnace).
//!
//! [`split_sum`] is the same integration split as image-based light
//! uses it (the twin of the BRDF lookup table of
//! [`crate::passes::prefilter`]): the specular lobe of Fresnel reflectance
//! `f0` reflects `f0 A + B` of a uniform environment, the diffuse lobe
//! `D` per unit diffuse colour; [`Brdf::ambient_albedo`] combines them.

use glam::{Vec2, Vec3};
use std::f32::consts::PI;

/// Fresnel reflectance at normal incidence of glTF's dielectrics (index of
/// refraction 1.5).
pub const DIELECTRIC_F0: f32 = 0.04;

/// The least perceptual roughness shaded: below it GGX's peak overflows
/// `f32` under a directional light (roughness 0 is a mirror).
pub const MIN_ROUGHNESS: f32 = 0.045;

/// One surface point's metallic-roughness material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Brdf {
    /// Linear base colour.
    pub base_color: Vec3,
    /// Metallic, 0 (dielectric) to 1 (metal).
    pub metallic: f32,
    /// Perceptual roughness, 0 to 1.
    pub roughness: f32,
}

/// `α = roughness²`, roughness clamped to [`MIN_ROUGHNESS`]..1.
pub fn alpha(roughness: f32) -> f32 {
    let r = roughness.clamp(MIN_ROUGHNESS, 1.0);
    r * r
}

/// GGX normal distribution `D`.
pub fn ggx_distribution(alpha: f32, n_dot_h: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    a2 / (PI * d * d)
}

/// Height-correlated Smith visibility `V = G / (4 n·l n·v)`.
pub fn smith_visibility(alpha: f32, n_dot_l: f32, n_dot_v: f32) -> f32 {
    let a2 = alpha * alpha;
    let gv = n_dot_l * (n_dot_v * n_dot_v * (1.0 - a2) + a2).sqrt();
    let gl = n_dot_v * (n_dot_l * n_dot_l * (1.0 - a2) + a2).sqrt();
    0.5 / (gv + gl)
}

/// Schlick's weight `(1 - v·h)^5`.
pub fn schlick_weight(v_dot_h: f32) -> f32 {
    let m = (1.0 - v_dot_h).clamp(0.0, 1.0);
    let m2 = m * m;
    m2 * m2 * m
}

/// The least `n·v` shaded: grazing views of normal-mapped surfaces can
/// face away; they are shaded as if at this angle.
const MIN_N_DOT_V: f32 = 1e-4;

impl Brdf {
    /// The BRDF's two lobes for unit normal `n`, view `v` and light `l`
    /// (both pointing away from the surface): (diffuse, specular), 0 where
    /// the light is below the surface. Their sum is [`Self::evaluate`].
    pub fn lobes(&self, n: Vec3, v: Vec3, l: Vec3) -> (Vec3, Vec3) {
        let n_dot_l = n.dot(l);
        if n_dot_l <= 0.0 {
            return (Vec3::ZERO, Vec3::ZERO);
        }
        let n_dot_v = n.dot(v).max(MIN_N_DOT_V);
        let h = (v + l).normalize();
        let a = alpha(self.roughness);
        let specular =
            ggx_distribution(a, n.dot(h).max(0.0)) * smith_visibility(a, n_dot_l, n_dot_v);
        let v_dot_h = v.dot(h);
        (self.diffuse(v_dot_h), self.fresnel(v_dot_h) * specular)
    }

    /// The specular lobe's Fresnel factor: `mix(F(0.04), F(c), metallic)`.
    fn fresnel(&self, v_dot_h: f32) -> Vec3 {
        let s = schlick_weight(v_dot_h);
        let dielectric = DIELECTRIC_F0 + (1.0 - DIELECTRIC_F0) * s;
        let metal = self.base_color + (Vec3::ONE - self.base_color) * s;
        (1.0 - self.metallic) * Vec3::splat(dielectric) + self.metallic * metal
    }

    /// The diffuse lobe: Lambert weighted by `1 - F(0.04)` and by
    /// `1 - metallic`.
    fn diffuse(&self, v_dot_h: f32) -> Vec3 {
        let dielectric = DIELECTRIC_F0 + (1.0 - DIELECTRIC_F0) * schlick_weight(v_dot_h);
        (1.0 - self.metallic) * (1.0 - dielectric) * self.base_color / PI
    }

    /// `f(l, v)` (without the cosine).
    pub fn evaluate(&self, n: Vec3, v: Vec3, l: Vec3) -> Vec3 {
        let (diffuse, specular) = self.lobes(n, v, l);
        diffuse + specular
    }

    /// Radiance reflected towards `v` from a directional light of
    /// illuminance `light` (on a surface facing it) from direction `l`:
    /// `f(l, v) light max(n·l, 0)`, the sun term of `wgsl/surface.wgsl`.
    pub fn reflect_directional(&self, n: Vec3, v: Vec3, l: Vec3, light: Vec3) -> Vec3 {
        self.evaluate(n, v, l) * light * n.dot(l).max(0.0)
    }

    /// What the surface reflects towards a view at `n_dot_v` from the
    /// normal under a uniform white environment of radiance 1, as the
    /// image-based light computes it: `(1 - metallic) c D + f0 A + B`
    /// with [`split_sum`]'s terms and `f0 = mix(0.04, c, metallic)`. Equal
    /// to [`Self::directional_albedo`] up to sampling.
    pub fn ambient_albedo(&self, n_dot_v: f32) -> Vec3 {
        let s = split_sum(self.roughness, n_dot_v, SPLIT_SUM_SAMPLES);
        let diffuse = (1.0 - self.metallic) * self.base_color * s.diffuse;
        let f0 = Vec3::splat(DIELECTRIC_F0).lerp(self.base_color, self.metallic);
        diffuse + f0 * s.scale + Vec3::splat(s.bias)
    }

    /// Directional albedo: `∫ f(l, v) (n·l) dl` over the hemisphere, for a
    /// view at `n_dot_v` from the normal, by `samples²` stratified samples
    /// of each lobe (the specular lobe importance sampled by GGX's `D`,
    /// the diffuse lobe by the cosine). This is what the surface reflects
    /// under a uniform white environment of radiance 1.
    pub fn directional_albedo(&self, n_dot_v: f32, samples: u32) -> Vec3 {
        // The normal is +Z.
        let v = Vec3::new((1.0 - n_dot_v * n_dot_v).max(0.0).sqrt(), 0.0, n_dot_v);
        let a = alpha(self.roughness);
        let mut total = Vec3::ZERO;
        for (u1, u2) in stratified(samples) {
            // Specular: h from D(h) n·h, l = reflect(-v, h); pdf(l) = D n·h / (4 v·h).
            let cos_h = ((1.0 - u1) / (1.0 + (a * a - 1.0) * u1)).sqrt();
            let h = spherical(cos_h, 2.0 * PI * u2);
            let v_dot_h = v.dot(h);
            let l = 2.0 * v_dot_h * h - v;
            if l.z > 0.0 && v_dot_h > 0.0 {
                // F D V (n·l) / pdf, with D cancelled analytically (it
                // peaks beyond f32's precision when smooth).
                let weight =
                    smith_visibility(a, l.z, v.z.max(MIN_N_DOT_V)) * l.z * 4.0 * v_dot_h / cos_h;
                total += self.fresnel(v_dot_h) * weight;
            }
            // Diffuse: l from the cosine; f cos / pdf = f π.
            let l = spherical((1.0 - u1).sqrt(), 2.0 * PI * u2);
            if let Some(v_dot_h) = (v + l).try_normalize().map(|h| v.dot(h)) {
                total += self.diffuse(v_dot_h) * PI;
            }
        }
        total / (samples * samples) as f32
    }
}

/// Samples per side [`Brdf::ambient_albedo`] integrates with
/// ([`Brdf::directional_albedo`]'s `samples`).
pub const SPLIT_SUM_SAMPLES: u32 = 64;

/// The split sum's environment BRDF at one `(roughness, n·v)`: the BRDF
/// lookup table's texel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitSum {
    /// `A`: the specular lobe reflects `f0 A + B`.
    pub scale: f32,
    /// `B`.
    pub bias: f32,
    /// The diffuse lobe's albedo per unit diffuse colour (Lambert weighted
    /// by `1 - F(0.04)`).
    pub diffuse: f32,
}

/// Integrates [`SplitSum`] by `samples²` stratified samples of each lobe,
/// as [`Brdf::directional_albedo`] does. Twin: `brdf_lut` in
/// `wgsl/prefilter.wgsl`.
pub fn split_sum(roughness: f32, n_dot_v: f32, samples: u32) -> SplitSum {
    // The albedo is linear in the base colour: a white metal reflects
    // A + B, a black one B.
    let white = Brdf {
        base_color: Vec3::ONE,
        metallic: 1.0,
        roughness,
    };
    let black = Brdf {
        base_color: Vec3::ZERO,
        ..white
    };
    let dielectric = Brdf {
        base_color: Vec3::ONE,
        metallic: 0.0,
        roughness,
    };
    let n_dot_v = n_dot_v.clamp(MIN_N_DOT_V, 1.0);
    let bias = black.directional_albedo(n_dot_v, samples).x;
    let scale = white.directional_albedo(n_dot_v, samples).x - bias;
    // The dielectric's specular lobe is 0.04 A + B.
    let diffuse = dielectric.directional_albedo(n_dot_v, samples).x - DIELECTRIC_F0 * scale - bias;
    SplitSum {
        scale,
        bias,
        diffuse,
    }
}

/// `samples²` points at the centres of a square grid over [0, 1)².
fn stratified(samples: u32) -> impl Iterator<Item = (f32, f32)> {
    let step = 1.0 / samples as f32;
    (0..samples * samples).map(move |i| {
        let cell = Vec2::new((i % samples) as f32, (i / samples) as f32);
        let u = (cell + 0.5) * step;
        (u.x, u.y)
    })
}

/// The unit vector at `cos_theta` from +Z and azimuth `phi`.
fn spherical(cos_theta: f32, phi: f32) -> Vec3 {
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    Vec3::new(sin_theta * phi.cos(), sin_theta * phi.sin(), cos_theta)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `∫ f cos` by a plain midpoint rule over (θ, φ): no importance
    /// sampling, only for rough surfaces.
    fn brute_force_albedo(brdf: &Brdf, n_dot_v: f32) -> Vec3 {
        let (n_theta, n_phi) = (512, 256);
        let v = Vec3::new((1.0 - n_dot_v * n_dot_v).sqrt(), 0.0, n_dot_v);
        let mut total = Vec3::ZERO;
        for i in 0..n_theta {
            let theta = (i as f32 + 0.5) / n_theta as f32 * PI / 2.0;
            for j in 0..n_phi {
                let phi = (j as f32 + 0.5) / n_phi as f32 * 2.0 * PI;
                let l = spherical(theta.cos(), phi);
                let d_omega = theta.sin() * (PI / 2.0 / n_theta as f32) * (2.0 * PI / n_phi as f32);
                total += brdf.evaluate(Vec3::Z, v, l) * l.z * d_omega;
            }
        }
        total
    }

    #[test]
    fn importance_sampled_albedo_matches_brute_force() {
        for (metallic, roughness, n_dot_v) in [(0.0, 0.6, 0.8), (1.0, 0.5, 0.5), (0.5, 0.9, 0.3)] {
            let brdf = Brdf {
                base_color: Vec3::new(0.9, 0.5, 0.2),
                metallic,
                roughness,
            };
            let sampled = brdf.directional_albedo(n_dot_v, 128);
            let brute = brute_force_albedo(&brdf, n_dot_v);
            assert!(
                (sampled - brute).abs().max_element() < 0.01,
                "m {metallic} r {roughness}: {sampled} vs {brute}"
            );
        }
    }

    #[test]
    fn a_smooth_white_metal_reflects_everything_and_roughness_loses_energy() {
        let metal = |roughness| Brdf {
            base_color: Vec3::ONE,
            metallic: 1.0,
            roughness,
        };
        let smooth = metal(0.0).directional_albedo(1.0, 64);
        assert!((smooth - Vec3::ONE).abs().max_element() < 1e-3, "{smooth}");
        let mut previous = smooth.x;
        for roughness in [0.25, 0.5, 0.75, 1.0] {
            let albedo = metal(roughness).directional_albedo(0.7, 64).x;
            assert!(albedo < previous && albedo > 0.3, "{roughness}: {albedo}");
            previous = albedo;
        }
    }

    #[test]
    fn a_white_dielectric_reflects_almost_everything() {
        // Lambert weighted by 1 - F plus the F-weighted specular lobe:
        // between the specular lobe's loss and 1.
        for roughness in [0.0, 0.5, 1.0] {
            let brdf = Brdf {
                base_color: Vec3::ONE,
                metallic: 0.0,
                roughness,
            };
            let albedo = brdf.directional_albedo(0.9, 64).x;
            assert!((0.9..=1.0).contains(&albedo), "{roughness}: {albedo}");
        }
    }

    #[test]
    fn the_split_sum_recombines_to_the_integrated_albedo() {
        // Metals (white and coloured), a dielectric and a half mix, over
        // roughness × n·v: the split sum's three terms recombine to the
        // whole BRDF's integration (the same samples: only rounding
        // differs), since the albedo is linear in base colour and metallic.
        let materials = [
            (Vec3::ONE, 1.0),
            (Vec3::new(0.95, 0.64, 0.54), 1.0),
            (Vec3::new(0.8, 0.3, 0.1), 0.0),
            (Vec3::splat(0.5), 0.5),
        ];
        let mut worst = (0.0_f32, 0.0, 0.0);
        for (base_color, metallic) in materials {
            for i in 0..=10 {
                let roughness = i as f32 / 10.0;
                for n_dot_v in [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0] {
                    let brdf = Brdf {
                        base_color,
                        metallic,
                        roughness,
                    };
                    let integrated = brdf.directional_albedo(n_dot_v, 64);
                    let error = (brdf.ambient_albedo(n_dot_v) - integrated)
                        .abs()
                        .max_element();
                    let at = (error, roughness, n_dot_v);
                    if error > worst.0 {
                        worst = at;
                    }
                }
            }
        }
        println!("worst |split sum - integration| (error, roughness, n·v): {worst:?}");
        assert!(worst.0 < 1e-4, "{worst:?}");
    }

    #[test]
    fn brdf_is_reciprocal() {
        let brdf = Brdf {
            base_color: Vec3::new(0.8, 0.3, 0.1),
            metallic: 0.4,
            roughness: 0.35,
        };
        let n = Vec3::Z;
        let a = Vec3::new(0.3, -0.2, 0.9).normalize();
        let b = Vec3::new(-0.6, 0.5, 0.4).normalize();
        let (ab, ba) = (brdf.evaluate(n, a, b), brdf.evaluate(n, b, a));
        assert!(
            (ab - ba).abs().max_element() < 1e-5 * ab.max_element(),
            "{ab} {ba}"
        );
    }
}
