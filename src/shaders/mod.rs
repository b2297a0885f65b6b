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

mod feedback;
mod raster;
mod variants;

pub use feedback::{
    CameraFeedback, EARLY_DEPTH_VARIANTS, FEEDBACK_VARIANTS, with_texture_feedback,
};
pub use raster::{COMPUTE_RASTER_BUFFER, COMPUTE_RASTER_TEXTURE, compute_raster_variants};
pub use variants::*;

/// Every WGSL file, by name.
pub const SOURCES: &[(&str, &str)] = &[
    ("types.wgsl", include_str!("../../wgsl/types.wgsl")),
    ("heap.wgsl", include_str!("../../wgsl/heap.wgsl")),
    (
        "heap_arrays.wgsl",
        include_str!("../../wgsl/heap_arrays.wgsl"),
    ),
    (
        "heap_locations.wgsl",
        include_str!("../../wgsl/heap_locations.wgsl"),
    ),
    ("scene.wgsl", include_str!("../../wgsl/scene.wgsl")),
    ("frustum.wgsl", include_str!("../../wgsl/frustum.wgsl")),
    (
        "projection.wgsl",
        include_str!("../../wgsl/projection.wgsl"),
    ),
    ("occlusion.wgsl", include_str!("../../wgsl/occlusion.wgsl")),
    (
        "small_objects.wgsl",
        include_str!("../../wgsl/small_objects.wgsl"),
    ),
    ("lod.wgsl", include_str!("../../wgsl/lod.wgsl")),
    (
        "cull_raster.wgsl",
        include_str!("../../wgsl/cull_raster.wgsl"),
    ),
    (
        "blend_sort.wgsl",
        include_str!("../../wgsl/blend_sort.wgsl"),
    ),
    ("scatter.wgsl", include_str!("../../wgsl/scatter.wgsl")),
    ("pyramid.wgsl", include_str!("../../wgsl/pyramid.wgsl")),
    ("cull.wgsl", include_str!("../../wgsl/cull.wgsl")),
    (
        "cluster_lod.wgsl",
        include_str!("../../wgsl/cluster_lod.wgsl"),
    ),
    (
        "cluster_cull.wgsl",
        include_str!("../../wgsl/cluster_cull.wgsl"),
    ),
    (
        "triangle_filter.wgsl",
        include_str!("../../wgsl/triangle_filter.wgsl"),
    ),
    ("bounds.wgsl", include_str!("../../wgsl/bounds.wgsl")),
    ("brdf.wgsl", include_str!("../../wgsl/brdf.wgsl")),
    ("surface.wgsl", include_str!("../../wgsl/surface.wgsl")),
    (
        "octahedral.wgsl",
        include_str!("../../wgsl/octahedral.wgsl"),
    ),
    ("skinning.wgsl", include_str!("../../wgsl/skinning.wgsl")),
    ("morph.wgsl", include_str!("../../wgsl/morph.wgsl")),
    ("pull.wgsl", include_str!("../../wgsl/pull.wgsl")),
    ("shadows.wgsl", include_str!("../../wgsl/shadows.wgsl")),
    ("shade.wgsl", include_str!("../../wgsl/shade.wgsl")),
    ("draw.wgsl", include_str!("../../wgsl/draw.wgsl")),
    (
        "visibility.wgsl",
        include_str!("../../wgsl/visibility.wgsl"),
    ),
    (
        "compute_raster.wgsl",
        include_str!("../../wgsl/compute_raster.wgsl"),
    ),
    ("shadow.wgsl", include_str!("../../wgsl/shadow.wgsl")),
    ("mipmap.wgsl", include_str!("../../wgsl/mipmap.wgsl")),
    ("ibl.wgsl", include_str!("../../wgsl/ibl.wgsl")),
    ("prefilter.wgsl", include_str!("../../wgsl/prefilter.wgsl")),
    (
        "environment.wgsl",
        include_str!("../../wgsl/environment.wgsl"),
    ),
    ("punctual.wgsl", include_str!("../../wgsl/punctual.wgsl")),
    ("clusters.wgsl", include_str!("../../wgsl/clusters.wgsl")),
    ("lights.wgsl", include_str!("../../wgsl/lights.wgsl")),
    ("hdr.wgsl", include_str!("../../wgsl/hdr.wgsl")),
    ("output.wgsl", include_str!("../../wgsl/output.wgsl")),
    ("exposure.wgsl", include_str!("../../wgsl/exposure.wgsl")),
    ("ray_hit.wgsl", include_str!("../../wgsl/ray_hit.wgsl")),
    ("ray_view.wgsl", include_str!("../../wgsl/ray_view.wgsl")),
    (
        "path_trace.wgsl",
        include_str!("../../wgsl/path_trace.wgsl"),
    ),
    ("animation.wgsl", include_str!("../../wgsl/animation.wgsl")),
    (
        "ray_deform.wgsl",
        include_str!("../../wgsl/ray_deform.wgsl"),
    ),
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
