//! The draw pass's variants with the camera's texture feedback
//! (`TEXTURE_FEEDBACK`, `src/heap/feedback.rs`): a renderer streaming under
//! a texture budget on the paged heap shades with these (the draw pass
//! and the visibility buffer's material pass, which share their defines),
//! every other one with their twins without it, which carry none of its
//! code (a store in a fragment shader can turn early depth testing off).
//!
//! Each has an early-depth twin (`EARLY_DEPTH`: `fs_main` of
//! `wgsl/draw.wgsl` with `@early_depth_test(force)`, which needs
//! `Features::SHADER_EARLY_DEPTH_TEST`): the draw pass shades with it
//! where forcing the depth test before the shader cannot change the image
//! ([`CameraFeedback::choose`] decides, nothing else does).

use super::ShaderVariant;

/// The pages' draw variants' defines (`variants.rs`: `DRAW_PAGES` and
/// its lit, debug and shadowed siblings), each with its feedback twin's
/// and its early-depth twin's ([`CameraFeedback`]).
const TWINS: [[&[&str]; 3]; 9] = [
    [
        &["TEXTURE_PAGES"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK", "EARLY_DEPTH"],
    ],
    [
        &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK", "PUNCTUAL_LIGHTS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "PUNCTUAL_LIGHTS",
        ],
    ],
    [
        &["TEXTURE_PAGES", "DEBUG_VIEWS", "PUNCTUAL_LIGHTS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
        ],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
        ],
    ],
    [
        &["TEXTURE_PAGES", "SHADOWS"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK", "SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "SHADOWS",
        ],
    ],
    [
        &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS", "SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "PUNCTUAL_LIGHTS",
            "SHADOWS",
        ],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "PUNCTUAL_LIGHTS",
            "SHADOWS",
        ],
    ],
    [
        &["TEXTURE_PAGES", "DEBUG_VIEWS", "PUNCTUAL_LIGHTS", "SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
            "SHADOWS",
        ],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
            "SHADOWS",
        ],
    ],
    [
        &["TEXTURE_PAGES", "RAY_QUERY_SHADOWS"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK", "RAY_QUERY_SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "RAY_QUERY_SHADOWS",
        ],
    ],
    [
        &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS", "RAY_QUERY_SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "PUNCTUAL_LIGHTS",
            "RAY_QUERY_SHADOWS",
        ],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "PUNCTUAL_LIGHTS",
            "RAY_QUERY_SHADOWS",
        ],
    ],
    [
        &[
            "TEXTURE_PAGES",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
            "RAY_QUERY_SHADOWS",
        ],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
            "RAY_QUERY_SHADOWS",
        ],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "EARLY_DEPTH",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
            "RAY_QUERY_SHADOWS",
        ],
    ],
];

/// The twins of `TWINS`' column `column`, files `draw.wgsl`.
const fn twins(column: usize) -> [ShaderVariant; 9] {
    let mut variants = [ShaderVariant::of("draw.wgsl"); 9];
    let mut i = 0;
    while i < TWINS.len() {
        variants[i].defines = TWINS[i][column];
        i += 1;
    }
    variants
}

/// The draw pass's variants with the texture feedback, in `TWINS`' order.
pub const FEEDBACK_VARIANTS: [ShaderVariant; 9] = twins(1);

/// [`FEEDBACK_VARIANTS`] with early depth tests forced (`EARLY_DEPTH`).
pub const EARLY_DEPTH_VARIANTS: [ShaderVariant; 9] = twins(2);

/// Whether the camera's shading writes the texture feedback, and where
/// its depth test runs while it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CameraFeedback {
    /// No feedback: the variants without it.
    Off,
    /// The feedback, depth tested as the device chooses: a fragment
    /// shader that stores and does not force early tests runs for every
    /// rasterised fragment, those the depth test then rejects included
    /// (Vulkan's rule), so overdraw is shaded in full.
    Sampled,
    /// The feedback with early depth tests forced (`EARLY_DEPTH`): only
    /// fragments that pass the depth test are shaded (and write the
    /// feedback: hidden surfaces ask for nothing).
    EarlyDepth,
}

impl CameraFeedback {
    /// The camera's shading for a renderer writing the feedback where
    /// `feedback`, on a device with `Features::SHADER_EARLY_DEPTH_TEST`
    /// where `early_depth_test`, for draws after a depth pre-pass where
    /// `prepassed`, while `masked_materials` alpha-masked materials live.
    ///
    /// A forced early test writes depth before the shader runs, so a
    /// fragment `fs_main` then discards (an alpha-masked material's hole)
    /// would keep its depth: forced only where no pipeline the variant
    /// builds both writes depth and can discard. After a pre-pass the
    /// opaque and double-sided buckets test for equality and write
    /// nothing; the blended bucket never writes depth; without one, the
    /// opaque and double-sided buckets (which hold the masked materials)
    /// write depth, so only while no material is masked.
    pub fn choose(
        (feedback, early_depth_test): (bool, bool),
        prepassed: bool,
        masked_materials: u32,
    ) -> Self {
        match feedback {
            false => Self::Off,
            true if early_depth_test && (prepassed || masked_materials == 0) => Self::EarlyDepth,
            true => Self::Sampled,
        }
    }

    /// `variant` (a draw or visibility variant, its file kept) with this
    /// feedback; a variant without pages has no feedback twins and is
    /// returned as it is.
    pub fn of(self, variant: ShaderVariant) -> ShaderVariant {
        let column = match self {
            Self::Off => return variant,
            Self::Sampled => 1,
            Self::EarlyDepth => 2,
        };
        TWINS
            .iter()
            .find(|twins| twins[0] == variant.defines)
            .map_or(variant, |twins| ShaderVariant {
                defines: twins[column],
                ..variant
            })
    }
}

/// `variant`'s twin with the texture feedback ([`CameraFeedback::Sampled`]).
pub fn with_texture_feedback(variant: ShaderVariant) -> ShaderVariant {
    CameraFeedback::Sampled.of(variant)
}

/// `variant`'s twins with the texture feedback, without and with early
/// depth tests (none without pages).
pub(super) fn feedback_twins(variant: ShaderVariant) -> Vec<ShaderVariant> {
    [CameraFeedback::Sampled, CameraFeedback::EarlyDepth]
        .map(|feedback| feedback.of(variant))
        .into_iter()
        .filter(|twin| *twin != variant)
        .collect()
}
