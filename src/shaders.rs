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

use crate::capabilities::Tier;
use crate::output::Msaa;

/// Every WGSL file, by name.
pub const SOURCES: &[(&str, &str)] = &[
    ("types.wgsl", include_str!("../wgsl/types.wgsl")),
    ("heap.wgsl", include_str!("../wgsl/heap.wgsl")),
    ("heap_arrays.wgsl", include_str!("../wgsl/heap_arrays.wgsl")),
    ("scene.wgsl", include_str!("../wgsl/scene.wgsl")),
    ("frustum.wgsl", include_str!("../wgsl/frustum.wgsl")),
    ("cull.wgsl", include_str!("../wgsl/cull.wgsl")),
    ("bounds.wgsl", include_str!("../wgsl/bounds.wgsl")),
    ("brdf.wgsl", include_str!("../wgsl/brdf.wgsl")),
    ("surface.wgsl", include_str!("../wgsl/surface.wgsl")),
    ("draw.wgsl", include_str!("../wgsl/draw.wgsl")),
    ("mipmap.wgsl", include_str!("../wgsl/mipmap.wgsl")),
    ("ibl.wgsl", include_str!("../wgsl/ibl.wgsl")),
    ("prefilter.wgsl", include_str!("../wgsl/prefilter.wgsl")),
    ("environment.wgsl", include_str!("../wgsl/environment.wgsl")),
    ("output.wgsl", include_str!("../wgsl/output.wgsl")),
    ("ray_hit.wgsl", include_str!("../wgsl/ray_hit.wgsl")),
    ("ray_view.wgsl", include_str!("../wgsl/ray_view.wgsl")),
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
    /// `#include` the library's modules, e.g. `types.wgsl`.
    pub extra: &'static [(&'static str, &'static str)],
}

/// The cull and draw-building compute passes.
pub const CULL: ShaderVariant = ShaderVariant::of("cull.wgsl");
/// The bindless, vertex-pulling draw pass.
pub const DRAW: ShaderVariant = ShaderVariant::of("draw.wgsl");
/// The draw pass of tier C: textures in texture arrays, no binding arrays.
pub const DRAW_TEXTURE_ARRAYS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS"],
    ..DRAW
};
/// The draw pass with the debug views (`src/debug.rs`) and the
/// missing-texture highlight. The lit frame's variant ([`DRAW`]) leaves them
/// out: their code and the ids they pass from vertex to fragment slow the
/// H200's draw pass by a quarter even when not taken
/// (`docs/PERFORMANCE.md`).
pub const DRAW_DEBUG: ShaderVariant = ShaderVariant {
    defines: &["DEBUG_VIEWS"],
    ..DRAW
};
/// [`DRAW_DEBUG`] on tier C.
pub const DRAW_TEXTURE_ARRAYS_DEBUG: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_ARRAYS", "DEBUG_VIEWS"],
    ..DRAW
};
/// Debug view: object bounding boxes, culled ones red.
pub const BOUNDS: ShaderVariant = ShaderVariant::of("bounds.wgsl");
/// Mip generation by repeated 2x downsampling.
pub const MIPMAP: ShaderVariant = ShaderVariant::of("mipmap.wgsl");
/// The environment prefilter and the BRDF table (compute).
pub const PREFILTER: ShaderVariant = ShaderVariant::of("prefilter.wgsl");

/// The output pass (resolve, exposure, tone mapping) over a one-sample
/// HDR target.
pub const OUTPUT: ShaderVariant = ShaderVariant::of("output.wgsl");
/// The output pass over a multisampled HDR target.
pub const OUTPUT_MULTISAMPLED: ShaderVariant = ShaderVariant {
    defines: &["MULTISAMPLED"],
    ..OUTPUT
};

/// The hit-material view: primary rays through ray queries
/// (`wgsl/ray_view.wgsl`; built with ray queries only).
pub const RAY_VIEW: ShaderVariant = ShaderVariant::of("ray_view.wgsl");
/// The draw pass with ray-query sun shadows (`wgsl/ray_hit.wgsl`): each lit
/// fragment facing the sun traces a shadow ray. The variants without them
/// carry none of their code (the H200's draw pass slows with any added
/// shader code: `docs/PERFORMANCE.md`).
pub const DRAW_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["RAY_QUERY_SHADOWS"],
    ..DRAW
};
/// [`DRAW_RAY_SHADOWS`] with the debug views.
pub const DRAW_DEBUG_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["DEBUG_VIEWS", "RAY_QUERY_SHADOWS"],
    ..DRAW
};

/// Every variant the renderer can build.
pub const VARIANTS: &[ShaderVariant] = &[
    CULL,
    DRAW,
    DRAW_TEXTURE_ARRAYS,
    DRAW_DEBUG,
    DRAW_TEXTURE_ARRAYS_DEBUG,
    BOUNDS,
    MIPMAP,
    PREFILTER,
    OUTPUT,
    OUTPUT_MULTISAMPLED,
    RAY_VIEW,
    DRAW_RAY_SHADOWS,
    DRAW_DEBUG_RAY_SHADOWS,
];

/// The draw pass's variant on `tier` (binding arrays, or tier C's texture
/// arrays), with or without the debug views.
pub fn draw_variant(tier: Tier, debug_views: bool) -> ShaderVariant {
    match (tier.has_binding_arrays(), debug_views) {
        (true, false) => DRAW,
        (true, true) => DRAW_DEBUG,
        (false, false) => DRAW_TEXTURE_ARRAYS,
        (false, true) => DRAW_TEXTURE_ARRAYS_DEBUG,
    }
}

/// The output pass's variant for `msaa`.
pub fn output_variant(msaa: Msaa) -> ShaderVariant {
    match msaa {
        Msaa::X1 => OUTPUT,
        Msaa::X4 => OUTPUT_MULTISAMPLED,
    }
}

/// The variants a renderer of `tier` can build (each of [`VARIANTS`] is
/// built by at least one tier): the draw pass's with and without the debug
/// views, and one of the output pass's two, by its [`Msaa`] setting.
pub fn tier_variants(tier: Tier) -> [ShaderVariant; 8] {
    [
        CULL,
        draw_variant(tier, false),
        draw_variant(tier, true),
        BOUNDS,
        MIPMAP,
        PREFILTER,
        OUTPUT,
        OUTPUT_MULTISAMPLED,
    ]
}

/// The variants a renderer of `tier` builds with
/// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries),
/// besides [`tier_variants`]: they need [`crate::RAY_QUERY_FEATURES`] too.
/// None on tier C, which has no ray queries.
pub fn ray_query_variants(tier: Tier) -> Vec<ShaderVariant> {
    if tier.has_binding_arrays() {
        vec![
            RAY_VIEW,
            ray_shadows_draw_variant(false),
            ray_shadows_draw_variant(true),
        ]
    } else {
        Vec::new()
    }
}

/// The draw pass's variant with ray-query shadows (binding arrays: tiers A
/// and B), with or without the debug views.
pub fn ray_shadows_draw_variant(debug_views: bool) -> ShaderVariant {
    if debug_views {
        DRAW_DEBUG_RAY_SHADOWS
    } else {
        DRAW_RAY_SHADOWS
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
