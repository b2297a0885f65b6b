//! The draw pass's variants with the camera's texture feedback
//! (`TEXTURE_FEEDBACK`, `src/heap/feedback.rs`): a renderer streaming under
//! a texture budget on the paged heap shades with these (the draw pass
//! and the visibility buffer's material pass, which share their defines),
//! every other one with their twins without it, which carry none of its
//! code (a store in a fragment shader can turn early depth testing off).

use super::ShaderVariant;

/// The pages' draw variants' defines (`variants.rs`: `DRAW_PAGES` and
/// its lit, debug and shadowed siblings), each with its twin's.
const TWINS: [(&[&str], &[&str]); 9] = [
    (&["TEXTURE_PAGES"], &["TEXTURE_PAGES", "TEXTURE_FEEDBACK"]),
    (
        &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK", "PUNCTUAL_LIGHTS"],
    ),
    (
        &["TEXTURE_PAGES", "DEBUG_VIEWS", "PUNCTUAL_LIGHTS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
        ],
    ),
    (
        &["TEXTURE_PAGES", "SHADOWS"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK", "SHADOWS"],
    ),
    (
        &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS", "SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "PUNCTUAL_LIGHTS",
            "SHADOWS",
        ],
    ),
    (
        &["TEXTURE_PAGES", "DEBUG_VIEWS", "PUNCTUAL_LIGHTS", "SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "DEBUG_VIEWS",
            "PUNCTUAL_LIGHTS",
            "SHADOWS",
        ],
    ),
    (
        &["TEXTURE_PAGES", "RAY_QUERY_SHADOWS"],
        &["TEXTURE_PAGES", "TEXTURE_FEEDBACK", "RAY_QUERY_SHADOWS"],
    ),
    (
        &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS", "RAY_QUERY_SHADOWS"],
        &[
            "TEXTURE_PAGES",
            "TEXTURE_FEEDBACK",
            "PUNCTUAL_LIGHTS",
            "RAY_QUERY_SHADOWS",
        ],
    ),
    (
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
    ),
];

/// The draw pass's variants with the texture feedback, in `TWINS`' order.
pub const FEEDBACK_VARIANTS: [ShaderVariant; 9] = {
    let mut variants = [ShaderVariant::of("draw.wgsl"); 9];
    let mut i = 0;
    while i < TWINS.len() {
        variants[i].defines = TWINS[i].1;
        i += 1;
    }
    variants
};

/// `variant`'s twin with the texture feedback (its file kept: the draw
/// pass's or the visibility buffer's); a variant without pages has none
/// and is returned as it is.
pub fn with_texture_feedback(variant: ShaderVariant) -> ShaderVariant {
    TWINS
        .iter()
        .find(|(plain, _)| *plain == variant.defines)
        .map_or(variant, |&(_, defines)| ShaderVariant {
            defines,
            ..variant
        })
}
