//! WGSL sources (embedded from `wgsl/`) and the small preprocessor that
//! composes them.
//!
//! Directives, each alone on its line:
//! - `#include "file.wgsl"` pastes another file from `wgsl/` (once per module);
//! - `#if NAME` / `#if !NAME` / `#else` / `#endif` keep or drop lines depending
//!   on whether `NAME` is among the variant's defines (nesting allowed).
//!
//! Every variant the renderer builds is listed in [`VARIANTS`], and those of
//! each tier in [`tier_variants`] (with ray queries also
//! [`ray_query_variants`]); `tests/shaders.rs` validates each with
//! naga under the capabilities of every tier that builds it and translates
//! it to SPIR-V, HLSL, MSL and (without binding arrays) GLSL.

use std::collections::HashSet;

use crate::capabilities::tier::Tier;
use crate::output::Msaa;

/// Every WGSL file, by name.
pub const SOURCES: &[(&str, &str)] = &[
    ("types.wgsl", include_str!("../wgsl/types.wgsl")),
    ("heap.wgsl", include_str!("../wgsl/heap.wgsl")),
    ("heap_arrays.wgsl", include_str!("../wgsl/heap_arrays.wgsl")),
    ("scene.wgsl", include_str!("../wgsl/scene.wgsl")),
    ("frustum.wgsl", include_str!("../wgsl/frustum.wgsl")),
    ("projection.wgsl", include_str!("../wgsl/projection.wgsl")),
    ("occlusion.wgsl", include_str!("../wgsl/occlusion.wgsl")),
    (
        "small_objects.wgsl",
        include_str!("../wgsl/small_objects.wgsl"),
    ),
    ("lod.wgsl", include_str!("../wgsl/lod.wgsl")),
    ("blend_sort.wgsl", include_str!("../wgsl/blend_sort.wgsl")),
    ("scatter.wgsl", include_str!("../wgsl/scatter.wgsl")),
    ("pyramid.wgsl", include_str!("../wgsl/pyramid.wgsl")),
    ("cull.wgsl", include_str!("../wgsl/cull.wgsl")),
    (
        "cluster_cull.wgsl",
        include_str!("../wgsl/cluster_cull.wgsl"),
    ),
    ("bounds.wgsl", include_str!("../wgsl/bounds.wgsl")),
    ("brdf.wgsl", include_str!("../wgsl/brdf.wgsl")),
    ("surface.wgsl", include_str!("../wgsl/surface.wgsl")),
    ("skinning.wgsl", include_str!("../wgsl/skinning.wgsl")),
    ("pull.wgsl", include_str!("../wgsl/pull.wgsl")),
    ("shadows.wgsl", include_str!("../wgsl/shadows.wgsl")),
    ("draw.wgsl", include_str!("../wgsl/draw.wgsl")),
    ("shadow.wgsl", include_str!("../wgsl/shadow.wgsl")),
    ("mipmap.wgsl", include_str!("../wgsl/mipmap.wgsl")),
    ("ibl.wgsl", include_str!("../wgsl/ibl.wgsl")),
    ("prefilter.wgsl", include_str!("../wgsl/prefilter.wgsl")),
    ("environment.wgsl", include_str!("../wgsl/environment.wgsl")),
    ("punctual.wgsl", include_str!("../wgsl/punctual.wgsl")),
    ("clusters.wgsl", include_str!("../wgsl/clusters.wgsl")),
    ("lights.wgsl", include_str!("../wgsl/lights.wgsl")),
    ("hdr.wgsl", include_str!("../wgsl/hdr.wgsl")),
    ("output.wgsl", include_str!("../wgsl/output.wgsl")),
    ("exposure.wgsl", include_str!("../wgsl/exposure.wgsl")),
    ("ray_hit.wgsl", include_str!("../wgsl/ray_hit.wgsl")),
    ("ray_view.wgsl", include_str!("../wgsl/ray_view.wgsl")),
    ("path_trace.wgsl", include_str!("../wgsl/path_trace.wgsl")),
    ("animation.wgsl", include_str!("../wgsl/animation.wgsl")),
    ("ray_deform.wgsl", include_str!("../wgsl/ray_deform.wgsl")),
];

/// One shader module the renderer builds: a top-level file and its defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderVariant {
    /// Top-level file: in `wgsl/`, or among `extra`.
    pub file: &'static str,
    /// Names `#if` tests for.
    pub defines: &'static [&'static str],
    /// Files from outside the library, by name, searched before [`SOURCES`]:
    /// a shader of another crate (the comparison path, the demo) can
    /// `#include` the library's modules, e.g. `#include "types.wgsl"`.
    pub extra: &'static [(&'static str, &'static str)],
}

/// The cull and draw-building compute passes.
pub const CULL: ShaderVariant = ShaderVariant::of("cull.wgsl");
/// [`CULL`] for tier C: the scatter reads its range starts from the
/// counters without a shared-memory copy, so it has no barrier (llvmpipe's
/// GL compile of it with one took over 15 minutes cold).
pub const CULL_NO_SHARED_STARTS: ShaderVariant = ShaderVariant {
    defines: &["NO_SHARED_STARTS"],
    ..CULL
};
/// [`CULL`] with subgroup operations (`Features::SUBGROUP`): lanes that
/// count an instance in the same key share one atomic.
pub const CULL_SUBGROUPS: ShaderVariant = ShaderVariant {
    defines: &["SUBGROUPS"],
    ..CULL
};
/// Cluster culling after the camera's cull dispatches
/// (`src/passes/cluster_cull.rs`; built on tier A, whose draws take their
/// count from the GPU): occlusion's pyramid test alone.
pub const CLUSTER_CULL: ShaderVariant = ShaderVariant {
    defines: &["PYRAMID_TEST_ONLY"],
    ..ShaderVariant::of("cluster_cull.wgsl")
};
/// The bindless, vertex-pulling draw pass.
pub const DRAW: ShaderVariant = ShaderVariant::of("draw.wgsl");
/// The draw pass of tier C: textures in texture arrays, no binding arrays.
pub const DRAW_TEXTURE_ARRAYS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS"],
    ..DRAW
};
/// The draw pass shading punctual lights too (their clusters' lists): the
/// lit frame's variant while any light is live. [`DRAW`] leaves them out,
/// so a scene without lights runs the shader it ran before lights existed
/// (the H200's draw pass is sensitive to every register the loop could
/// take, `docs/PERFORMANCE.md`).
pub const DRAW_LIGHTS: ShaderVariant = ShaderVariant {
    defines: &["PUNCTUAL_LIGHTS"],
    ..DRAW
};
/// [`DRAW_LIGHTS`] on tier C.
pub const DRAW_TEXTURE_ARRAYS_LIGHTS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS", "PUNCTUAL_LIGHTS"],
    ..DRAW
};
/// The draw pass with the debug views (`src/debug.rs`) and the
/// missing-texture highlight, punctual lights included (the light-count
/// view reads their lists). The lit frame's variants ([`DRAW`],
/// [`DRAW_LIGHTS`]) leave the views out: their code and the ids they pass
/// from vertex to fragment slow the H200's draw pass by a quarter even when
/// not taken (`docs/PERFORMANCE.md`).
pub const DRAW_DEBUG: ShaderVariant = ShaderVariant {
    defines: &["DEBUG_VIEWS", "PUNCTUAL_LIGHTS"],
    ..DRAW
};
/// [`DRAW_DEBUG`] on tier C.
pub const DRAW_TEXTURE_ARRAYS_DEBUG: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS", "DEBUG_VIEWS", "PUNCTUAL_LIGHTS"],
    ..DRAW
};
/// The draw pass with the sun's shadows (`wgsl/shadows.wgsl`): the lit
/// frame's variant while shadows are on. The variants without them carry
/// none of their code, so frames without shadows cost nothing more.
pub const DRAW_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["SHADOWS"],
    ..DRAW
};
/// [`DRAW_SHADOWS`] on tier C.
pub const DRAW_TEXTURE_ARRAYS_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS", "SHADOWS"],
    ..DRAW
};
/// [`DRAW_LIGHTS`] with the sun's shadows.
pub const DRAW_LIGHTS_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["PUNCTUAL_LIGHTS", "SHADOWS"],
    ..DRAW
};
/// [`DRAW_LIGHTS_SHADOWS`] on tier C.
pub const DRAW_TEXTURE_ARRAYS_LIGHTS_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS", "PUNCTUAL_LIGHTS", "SHADOWS"],
    ..DRAW
};
/// [`DRAW_DEBUG`] with shadows (the cascades view among the debug views).
pub const DRAW_DEBUG_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["DEBUG_VIEWS", "PUNCTUAL_LIGHTS", "SHADOWS"],
    ..DRAW
};
/// [`DRAW_DEBUG_SHADOWS`] on tier C.
pub const DRAW_TEXTURE_ARRAYS_DEBUG_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &[
        "TEXTURE_ARRAYS",
        "DEBUG_VIEWS",
        "PUNCTUAL_LIGHTS",
        "SHADOWS",
    ],
    ..DRAW
};
/// The shadow pass: shadow casters into one cascade, depth only (alpha
/// masks through the heap's binding arrays).
pub const SHADOW: ShaderVariant = ShaderVariant::of("shadow.wgsl");
/// The shadow pass of tier C: alpha masks through the texture arrays.
pub const SHADOW_TEXTURE_ARRAYS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS"],
    ..SHADOW
};
/// Debug view: object bounding boxes, culled ones red.
pub const BOUNDS: ShaderVariant = ShaderVariant::of("bounds.wgsl");
/// Mip generation by repeated 2x downsampling.
pub const MIPMAP: ShaderVariant = ShaderVariant::of("mipmap.wgsl");
/// The environment prefilter and the BRDF table (compute).
pub const PREFILTER: ShaderVariant = ShaderVariant::of("prefilter.wgsl");
/// The depth pyramid of occlusion culling (compute) over a one-sample
/// depth target.
pub const PYRAMID: ShaderVariant = ShaderVariant::of("pyramid.wgsl");
/// The depth pyramid over a multisampled depth target.
pub const PYRAMID_MULTISAMPLED: ShaderVariant = ShaderVariant {
    defines: &["MULTISAMPLED"],
    ..PYRAMID
};
/// The animation playback pass (compute): clips sampled, hierarchies
/// composed, palettes written (`src/passes/animation.rs`).
pub const ANIMATION: ShaderVariant = ShaderVariant::of("animation.wgsl");
/// The light pass: lights into clusters (compute).
pub const LIGHTS: ShaderVariant = ShaderVariant::of("lights.wgsl");

/// The output pass (resolve, exposure, tone mapping) over a one-sample
/// HDR target.
pub const OUTPUT: ShaderVariant = ShaderVariant::of("output.wgsl");
/// The output pass over a multisampled HDR target.
pub const OUTPUT_MULTISAMPLED: ShaderVariant = ShaderVariant {
    defines: &["MULTISAMPLED"],
    ..OUTPUT
};
/// Automatic exposure: the HDR target's luminance histogram and the
/// exposure it meters (compute), over a one-sample HDR target.
pub const EXPOSURE: ShaderVariant = ShaderVariant::of("exposure.wgsl");
/// Automatic exposure over a multisampled HDR target.
pub const EXPOSURE_MULTISAMPLED: ShaderVariant = ShaderVariant {
    defines: &["MULTISAMPLED"],
    ..EXPOSURE
};

/// The hit-material view: primary rays through ray queries
/// (`wgsl/ray_view.wgsl`; built with ray queries only).
pub const RAY_VIEW: ShaderVariant = ShaderVariant::of("ray_view.wgsl");
/// The path-traced view (`wgsl/path_trace.wgsl`; built with ray queries
/// only): paths reach the punctual lights too.
pub const PATH_TRACE: ShaderVariant = ShaderVariant {
    defines: &["PUNCTUAL_LIGHTS"],
    ..ShaderVariant::of("path_trace.wgsl")
};
/// The ray paths' deformation (compute; built with ray queries only):
/// the deformed positions traced skinned objects' BLASes are built from
/// (`src/rays/deform.rs`).
pub const RAY_DEFORM: ShaderVariant = ShaderVariant::of("ray_deform.wgsl");
/// The draw pass with ray-query sun shadows (`wgsl/ray_hit.wgsl`): each lit
/// fragment facing the sun traces a shadow ray. The variants without them
/// carry none of their code (the H200's draw pass slows with any added
/// shader code: `docs/PERFORMANCE.md`).
pub const DRAW_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["RAY_QUERY_SHADOWS"],
    ..DRAW
};
/// [`DRAW_LIGHTS`] with ray-query sun shadows.
pub const DRAW_LIGHTS_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["PUNCTUAL_LIGHTS", "RAY_QUERY_SHADOWS"],
    ..DRAW
};
/// [`DRAW_DEBUG`] with ray-query sun shadows.
pub const DRAW_DEBUG_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["DEBUG_VIEWS", "PUNCTUAL_LIGHTS", "RAY_QUERY_SHADOWS"],
    ..DRAW
};

/// Every variant the renderer can build.
pub const VARIANTS: &[ShaderVariant] = &[
    CULL,
    CLUSTER_CULL,
    CULL_NO_SHARED_STARTS,
    CULL_SUBGROUPS,
    DRAW,
    DRAW_TEXTURE_ARRAYS,
    DRAW_LIGHTS,
    DRAW_TEXTURE_ARRAYS_LIGHTS,
    DRAW_DEBUG,
    DRAW_TEXTURE_ARRAYS_DEBUG,
    DRAW_SHADOWS,
    DRAW_TEXTURE_ARRAYS_SHADOWS,
    DRAW_LIGHTS_SHADOWS,
    DRAW_TEXTURE_ARRAYS_LIGHTS_SHADOWS,
    DRAW_DEBUG_SHADOWS,
    DRAW_TEXTURE_ARRAYS_DEBUG_SHADOWS,
    SHADOW,
    SHADOW_TEXTURE_ARRAYS,
    BOUNDS,
    MIPMAP,
    PREFILTER,
    LIGHTS,
    OUTPUT,
    OUTPUT_MULTISAMPLED,
    EXPOSURE,
    EXPOSURE_MULTISAMPLED,
    PYRAMID,
    PYRAMID_MULTISAMPLED,
    RAY_VIEW,
    PATH_TRACE,
    DRAW_RAY_SHADOWS,
    DRAW_LIGHTS_RAY_SHADOWS,
    DRAW_DEBUG_RAY_SHADOWS,
    ANIMATION,
    RAY_DEFORM,
];

/// What a draw-pass variant shades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawShading {
    /// The lit frame without punctual lights (none is live).
    Lit,
    /// The lit frame with punctual lights.
    LitWithLights,
    /// Every debug view (punctual lights included).
    Debug,
}

impl DrawShading {
    /// Every kind of shading.
    pub const ALL: [Self; 3] = [Self::Lit, Self::LitWithLights, Self::Debug];
}

/// How the draw shader shades the sun's shadows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShadowSource {
    /// Not at all: the variants without shadow code.
    Off,
    /// From the cascaded shadow map (`wgsl/shadows.wgsl`).
    Maps,
    /// From a shadow ray through the TLAS (`wgsl/ray_hit.wgsl`; tiers with
    /// binding arrays only).
    RayQuery,
}

/// The draw pass's variant on `tier` for `shading`, with the sun's shadows
/// from `shadows`.
pub fn draw_variant(tier: Tier, shading: DrawShading, shadows: ShadowSource) -> ShaderVariant {
    let arrays = !tier.has_binding_arrays();
    match (arrays, shading, shadows) {
        (_, shading, ShadowSource::RayQuery) => ray_shadows_draw_variant(shading),
        (false, DrawShading::Lit, ShadowSource::Off) => DRAW,
        (false, DrawShading::LitWithLights, ShadowSource::Off) => DRAW_LIGHTS,
        (false, DrawShading::Debug, ShadowSource::Off) => DRAW_DEBUG,
        (true, DrawShading::Lit, ShadowSource::Off) => DRAW_TEXTURE_ARRAYS,
        (true, DrawShading::LitWithLights, ShadowSource::Off) => DRAW_TEXTURE_ARRAYS_LIGHTS,
        (true, DrawShading::Debug, ShadowSource::Off) => DRAW_TEXTURE_ARRAYS_DEBUG,
        (false, DrawShading::Lit, ShadowSource::Maps) => DRAW_SHADOWS,
        (false, DrawShading::LitWithLights, ShadowSource::Maps) => DRAW_LIGHTS_SHADOWS,
        (false, DrawShading::Debug, ShadowSource::Maps) => DRAW_DEBUG_SHADOWS,
        (true, DrawShading::Lit, ShadowSource::Maps) => DRAW_TEXTURE_ARRAYS_SHADOWS,
        (true, DrawShading::LitWithLights, ShadowSource::Maps) => {
            DRAW_TEXTURE_ARRAYS_LIGHTS_SHADOWS
        }
        (true, DrawShading::Debug, ShadowSource::Maps) => DRAW_TEXTURE_ARRAYS_DEBUG_SHADOWS,
    }
}

/// The shadow pass's variant on `tier`.
pub fn shadow_variant(tier: Tier) -> ShaderVariant {
    if tier.has_binding_arrays() {
        SHADOW
    } else {
        SHADOW_TEXTURE_ARRAYS
    }
}

/// The exposure pass's variant for `msaa`.
pub fn exposure_variant(msaa: Msaa) -> ShaderVariant {
    match msaa {
        Msaa::X1 => EXPOSURE,
        Msaa::X4 => EXPOSURE_MULTISAMPLED,
    }
}

/// The output pass's variant for `msaa`.
pub fn output_variant(msaa: Msaa) -> ShaderVariant {
    match msaa {
        Msaa::X1 => OUTPUT,
        Msaa::X4 => OUTPUT_MULTISAMPLED,
    }
}

/// The depth pyramid's variant for `msaa`.
pub fn pyramid_variant(msaa: Msaa) -> ShaderVariant {
    match msaa {
        Msaa::X1 => PYRAMID,
        Msaa::X4 => PYRAMID_MULTISAMPLED,
    }
}

/// The cull pass's variant on `tier`, with subgroup operations where
/// `subgroups` (the device has `Features::SUBGROUP` and
/// [`RendererConfig::subgroups`](crate::RendererConfig::subgroups) is on;
/// never on tier C: wgpu's GL backend has none).
pub fn cull_variant(tier: Tier, subgroups: bool) -> ShaderVariant {
    if tier == Tier::C {
        CULL_NO_SHARED_STARTS
    } else if subgroups {
        CULL_SUBGROUPS
    } else {
        CULL
    }
}

/// The variants a renderer of `tier` can build (each of [`VARIANTS`] is
/// built by at least one tier): the draw pass's without and with punctual
/// lights and with the debug views, each without and with the sun's
/// shadows, the shadow pass's, the light pass's, and one of the output
/// pass's two, the exposure pass's two and the depth pyramid's two, by
/// its [`Msaa`] setting, and the animation playback pass's.
pub fn tier_variants(tier: Tier) -> [ShaderVariant; 20] {
    [
        cull_variant(tier, false),
        CLUSTER_CULL,
        draw_variant(tier, DrawShading::Lit, ShadowSource::Off),
        draw_variant(tier, DrawShading::LitWithLights, ShadowSource::Off),
        draw_variant(tier, DrawShading::Debug, ShadowSource::Off),
        draw_variant(tier, DrawShading::Lit, ShadowSource::Maps),
        draw_variant(tier, DrawShading::LitWithLights, ShadowSource::Maps),
        draw_variant(tier, DrawShading::Debug, ShadowSource::Maps),
        shadow_variant(tier),
        BOUNDS,
        MIPMAP,
        PREFILTER,
        LIGHTS,
        OUTPUT,
        OUTPUT_MULTISAMPLED,
        EXPOSURE,
        EXPOSURE_MULTISAMPLED,
        PYRAMID,
        PYRAMID_MULTISAMPLED,
        ANIMATION,
    ]
}

/// The variants a renderer of `tier` builds with
/// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries),
/// besides [`tier_variants`]: they need [`crate::RAY_QUERY_FEATURES`] too.
/// None on tier C, which has no ray queries.
pub fn ray_query_variants(tier: Tier) -> Vec<ShaderVariant> {
    if tier.has_binding_arrays() {
        let mut variants = vec![RAY_VIEW, PATH_TRACE, RAY_DEFORM];
        variants.extend(DrawShading::ALL.map(ray_shadows_draw_variant));
        variants
    } else {
        Vec::new()
    }
}

/// The variants a renderer of `tier` builds on a device with
/// [`wgpu::Features::SUBGROUP`] (unless
/// [`RendererConfig::subgroups`](crate::RendererConfig::subgroups) is off),
/// in place of their plain twins. None on tier C: wgpu's GL backend has no
/// subgroups.
pub fn subgroup_variants(tier: Tier) -> Vec<ShaderVariant> {
    let cull = cull_variant(tier, true);
    if cull == cull_variant(tier, false) {
        Vec::new()
    } else {
        vec![cull]
    }
}

/// The draw pass's variant for `shading` with ray-query shadows (binding
/// arrays: tiers A and B).
pub fn ray_shadows_draw_variant(shading: DrawShading) -> ShaderVariant {
    match shading {
        DrawShading::Lit => DRAW_RAY_SHADOWS,
        DrawShading::LitWithLights => DRAW_LIGHTS_RAY_SHADOWS,
        DrawShading::Debug => DRAW_DEBUG_RAY_SHADOWS,
    }
}

/// A preprocessing failure (a bug in `wgsl/`, caught by the shader tests).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShaderError {
    /// `#include` of a file that is not in [`SOURCES`].
    #[error("{file}:{line}: unknown include {name:?}")]
    UnknownInclude {
        /// Including file.
        file: String,
        /// Line number.
        line: usize,
        /// Included name.
        name: String,
    },
    /// Unbalanced `#if` / `#else` / `#endif`.
    #[error("{file}:{line}: unbalanced conditional")]
    Unbalanced {
        /// File.
        file: String,
        /// Line number.
        line: usize,
    },
}

fn find(extra: &[(&str, &'static str)], name: &str) -> Option<&'static str> {
    extra
        .iter()
        .chain(SOURCES)
        .find(|(n, _)| *n == name)
        .map(|(_, s)| *s)
}

impl ShaderVariant {
    /// `file` of `wgsl/` with no defines.
    pub const fn of(file: &'static str) -> Self {
        Self {
            file,
            defines: &[],
            extra: &[],
        }
    }

    /// The variant's full WGSL source.
    pub fn source(&self) -> Result<String, ShaderError> {
        Ok(self.expand()?.0)
    }

    /// The files the variant's source is made of: its top-level file and
    /// every file it includes under its defines.
    pub fn files(&self) -> Result<HashSet<String>, ShaderError> {
        Ok(self.expand()?.1)
    }

    fn expand(&self) -> Result<(String, HashSet<String>), ShaderError> {
        let defines: HashSet<&str> = self.defines.iter().copied().collect();
        let mut included = HashSet::new();
        let mut out = String::new();
        expand(self.extra, self.file, &defines, &mut included, &mut out)?;
        Ok((out, included))
    }

    /// A readable label, e.g. `draw.wgsl[TIER_B]`.
    pub fn label(&self) -> String {
        format!("{}{:?}", self.file, self.defines)
    }

    /// Creates the wgpu shader module.
    pub fn create(&self, device: &wgpu::Device) -> wgpu::ShaderModule {
        let source = self
            .source()
            .expect("embedded shaders preprocess (checked by tests/shaders.rs)");
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&self.label()),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        })
    }
}

fn expand(
    extra: &[(&str, &'static str)],
    file: &str,
    defines: &HashSet<&str>,
    included: &mut HashSet<String>,
    out: &mut String,
) -> Result<(), ShaderError> {
    if !included.insert(file.to_owned()) {
        return Ok(());
    }
    let text = find(extra, file).ok_or_else(|| ShaderError::UnknownInclude {
        file: "<variant>".into(),
        line: 0,
        name: file.into(),
    })?;
    // Each entry: (this branch active, some branch of this #if was taken).
    let mut stack: Vec<(bool, bool)> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line_no = number + 1;
        let trimmed = line.trim();
        let active = stack.iter().all(|(on, _)| *on);
        let unbalanced = || ShaderError::Unbalanced {
            file: file.into(),
            line: line_no,
        };
        if let Some(condition) = trimmed.strip_prefix("#if ") {
            let condition = condition.trim();
            let value = match condition.strip_prefix('!') {
                Some(name) => !defines.contains(name.trim()),
                None => defines.contains(condition),
            };
            stack.push((value, value));
        } else if trimmed == "#else" {
            let top = stack.last_mut().ok_or_else(unbalanced)?;
            *top = (!top.1, true);
        } else if trimmed == "#endif" {
            stack.pop().ok_or_else(unbalanced)?;
        } else if let Some(rest) = trimmed.strip_prefix("#include ") {
            if active {
                let name = rest.trim().trim_matches('"');
                if find(extra, name).is_none() {
                    return Err(ShaderError::UnknownInclude {
                        file: file.into(),
                        line: line_no,
                        name: name.into(),
                    });
                }
                expand(extra, name, defines, included, out)?;
            }
        } else if active {
            out.push_str(line);
            out.push('\n');
        }
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(ShaderError::Unbalanced {
            file: file.into(),
            line: text.lines().count(),
        })
    }
}
