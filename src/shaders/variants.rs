//! Every shader variant the renderer builds, and which one each pass uses
//! for a tier, a heap layout and its settings.

use super::ShaderVariant;
use super::feedback::{CameraFeedback, EARLY_DEPTH_VARIANTS, FEEDBACK_VARIANTS, feedback_twins};
use crate::capabilities::tier::{HeapLayout, Tier};
use crate::output::Msaa;

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
/// (`src/passes/cluster_cull.rs`; every tier, built when first used):
/// occlusion's pyramid test alone.
pub const CLUSTER_CULL: ShaderVariant = ShaderVariant {
    defines: &["PYRAMID_TEST_ONLY"],
    ..ShaderVariant::of("cluster_cull.wgsl")
};
/// Triangle filtering after cluster culling
/// (`src/passes/triangle_filter.rs`; every tier).
pub const TRIANGLE_FILTER: ShaderVariant = ShaderVariant::of("triangle_filter.wgsl");
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
/// The draw and shadow passes' variants with tiers A and B's pages
/// (`TEXTURE_PAGES`, [`HeapLayout::Pages`]): each is its bindless twin with
/// 2D textures sampled through `texture_locations`.
pub const DRAW_PAGES: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES"],
    ..DRAW
};
/// [`DRAW_LIGHTS`] with pages.
pub const DRAW_PAGES_LIGHTS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS"],
    ..DRAW
};
/// [`DRAW_DEBUG`] with pages.
pub const DRAW_PAGES_DEBUG: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES", "DEBUG_VIEWS", "PUNCTUAL_LIGHTS"],
    ..DRAW
};
/// [`DRAW_SHADOWS`] with pages.
pub const DRAW_PAGES_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES", "SHADOWS"],
    ..DRAW
};
/// [`DRAW_LIGHTS_SHADOWS`] with pages.
pub const DRAW_PAGES_LIGHTS_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS", "SHADOWS"],
    ..DRAW
};
/// [`DRAW_DEBUG_SHADOWS`] with pages.
pub const DRAW_PAGES_DEBUG_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES", "DEBUG_VIEWS", "PUNCTUAL_LIGHTS", "SHADOWS"],
    ..DRAW
};
/// [`SHADOW`] with pages.
pub const SHADOW_PAGES: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES"],
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

/// [`RAY_VIEW`] with pages.
pub const RAY_VIEW_PAGES: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES"],
    ..RAY_VIEW
};
/// [`PATH_TRACE`] with pages.
pub const PATH_TRACE_PAGES: ShaderVariant = ShaderVariant {
    defines: &["PUNCTUAL_LIGHTS", "TEXTURE_PAGES"],
    ..PATH_TRACE
};
/// [`DRAW_RAY_SHADOWS`] with pages.
pub const DRAW_PAGES_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES", "RAY_QUERY_SHADOWS"],
    ..DRAW
};
/// [`DRAW_LIGHTS_RAY_SHADOWS`] with pages.
pub const DRAW_PAGES_LIGHTS_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &["TEXTURE_PAGES", "PUNCTUAL_LIGHTS", "RAY_QUERY_SHADOWS"],
    ..DRAW
};
/// [`DRAW_DEBUG_RAY_SHADOWS`] with pages.
pub const DRAW_PAGES_DEBUG_RAY_SHADOWS: ShaderVariant = ShaderVariant {
    defines: &[
        "TEXTURE_PAGES",
        "DEBUG_VIEWS",
        "PUNCTUAL_LIGHTS",
        "RAY_QUERY_SHADOWS",
    ],
    ..DRAW
};

/// Every variant the renderer can build.
pub const VARIANTS: &[ShaderVariant] = &[
    CULL,
    CLUSTER_CULL,
    TRIANGLE_FILTER,
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
    DRAW_PAGES,
    DRAW_PAGES_LIGHTS,
    DRAW_PAGES_DEBUG,
    DRAW_PAGES_SHADOWS,
    DRAW_PAGES_LIGHTS_SHADOWS,
    DRAW_PAGES_DEBUG_SHADOWS,
    SHADOW_PAGES,
    RAY_VIEW_PAGES,
    PATH_TRACE_PAGES,
    DRAW_PAGES_RAY_SHADOWS,
    DRAW_PAGES_LIGHTS_RAY_SHADOWS,
    DRAW_PAGES_DEBUG_RAY_SHADOWS,
    super::raster::COMPUTE_RASTER_BUFFER,
    super::raster::COMPUTE_RASTER_TEXTURE,
    FEEDBACK_VARIANTS[0],
    FEEDBACK_VARIANTS[1],
    FEEDBACK_VARIANTS[2],
    FEEDBACK_VARIANTS[3],
    FEEDBACK_VARIANTS[4],
    FEEDBACK_VARIANTS[5],
    FEEDBACK_VARIANTS[6],
    FEEDBACK_VARIANTS[7],
    FEEDBACK_VARIANTS[8],
    EARLY_DEPTH_VARIANTS[0],
    EARLY_DEPTH_VARIANTS[1],
    EARLY_DEPTH_VARIANTS[2],
    EARLY_DEPTH_VARIANTS[3],
    EARLY_DEPTH_VARIANTS[4],
    EARLY_DEPTH_VARIANTS[5],
    EARLY_DEPTH_VARIANTS[6],
    EARLY_DEPTH_VARIANTS[7],
    EARLY_DEPTH_VARIANTS[8],
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

/// The draw pass's variant over the heap's `layout` for `shading`, with
/// the sun's shadows from `shadows` (ray queries: not with tier C's arrays).
pub fn draw_variant(
    layout: HeapLayout,
    shading: DrawShading,
    shadows: ShadowSource,
) -> ShaderVariant {
    use DrawShading::{Debug, Lit, LitWithLights};
    use HeapLayout::{BindingArrays, Pages, TextureArrays};
    use ShadowSource::{Maps, Off, RayQuery};
    match (layout, shading, shadows) {
        (layout, shading, RayQuery) => ray_shadows_draw_variant(layout, shading),
        (BindingArrays, Lit, Off) => DRAW,
        (BindingArrays, LitWithLights, Off) => DRAW_LIGHTS,
        (BindingArrays, Debug, Off) => DRAW_DEBUG,
        (BindingArrays, Lit, Maps) => DRAW_SHADOWS,
        (BindingArrays, LitWithLights, Maps) => DRAW_LIGHTS_SHADOWS,
        (BindingArrays, Debug, Maps) => DRAW_DEBUG_SHADOWS,
        (Pages, Lit, Off) => DRAW_PAGES,
        (Pages, LitWithLights, Off) => DRAW_PAGES_LIGHTS,
        (Pages, Debug, Off) => DRAW_PAGES_DEBUG,
        (Pages, Lit, Maps) => DRAW_PAGES_SHADOWS,
        (Pages, LitWithLights, Maps) => DRAW_PAGES_LIGHTS_SHADOWS,
        (Pages, Debug, Maps) => DRAW_PAGES_DEBUG_SHADOWS,
        (TextureArrays, Lit, Off) => DRAW_TEXTURE_ARRAYS,
        (TextureArrays, LitWithLights, Off) => DRAW_TEXTURE_ARRAYS_LIGHTS,
        (TextureArrays, Debug, Off) => DRAW_TEXTURE_ARRAYS_DEBUG,
        (TextureArrays, Lit, Maps) => DRAW_TEXTURE_ARRAYS_SHADOWS,
        (TextureArrays, LitWithLights, Maps) => DRAW_TEXTURE_ARRAYS_LIGHTS_SHADOWS,
        (TextureArrays, Debug, Maps) => DRAW_TEXTURE_ARRAYS_DEBUG_SHADOWS,
    }
}

/// The visibility buffer's module (`wgsl/visibility.wgsl`, which needs
/// `Features::PRIMITIVE_INDEX`): the draw pass's variant for `layout`,
/// `shading` and `shadows`, plus the visibility and material passes
/// (`src/passes/visibility.rs`). Its defines are the draw variant's.
pub fn visibility_variant(
    layout: HeapLayout,
    shading: DrawShading,
    shadows: ShadowSource,
) -> ShaderVariant {
    ShaderVariant {
        file: "visibility.wgsl",
        ..draw_variant(layout, shading, shadows)
    }
}

/// The camera's shading variant over the heap's `layout`, with `feedback`
/// (`src/heap/feedback.rs`): the visibility buffer's where `visibility`,
/// else the draw pass's.
pub fn camera_variant(
    (layout, feedback): (HeapLayout, CameraFeedback),
    visibility: bool,
    shading: DrawShading,
    shadows: ShadowSource,
) -> ShaderVariant {
    let variant = match visibility {
        true => visibility_variant(layout, shading, shadows),
        false => draw_variant(layout, shading, shadows),
    };
    feedback.of(variant)
}

/// The visibility buffer's variants a renderer of `tier` can build on a
/// device with `Features::PRIMITIVE_INDEX` (tier A only): the lit ones
/// without and with punctual lights, and the debug views', without and
/// with the shadow map, per heap layout (with pages, and their feedback
/// twins, as [`tier_variants`]).
pub fn visibility_variants(tier: Tier) -> Vec<ShaderVariant> {
    if tier != Tier::A {
        return Vec::new();
    }
    let mut variants = Vec::new();
    for layout in heap_layouts(tier) {
        for shadows in [ShadowSource::Off, ShadowSource::Maps] {
            for shading in DrawShading::ALL {
                let variant = visibility_variant(layout, shading, shadows);
                variants.push(variant);
                variants.extend(feedback_twins(variant));
            }
        }
    }
    variants
}

/// The shadow pass's variant over the heap's `layout`.
pub fn shadow_variant(layout: HeapLayout) -> ShaderVariant {
    match layout {
        HeapLayout::BindingArrays => SHADOW,
        HeapLayout::Pages => SHADOW_PAGES,
        HeapLayout::TextureArrays => SHADOW_TEXTURE_ARRAYS,
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

/// The heap layouts a renderer of `tier` can run: binding arrays or pages
/// on tiers A and B, tier C's texture arrays.
pub fn heap_layouts(tier: Tier) -> Vec<HeapLayout> {
    if tier.has_binding_arrays() {
        vec![HeapLayout::BindingArrays, HeapLayout::Pages]
    } else {
        vec![HeapLayout::TextureArrays]
    }
}

/// The variants a renderer of `tier` can build (each of [`VARIANTS`] is
/// built by at least one tier): for each of its [`heap_layouts`], the draw
/// pass's without and with punctual lights and with the debug views, each
/// without and with the sun's shadows (with pages, each with the texture
/// feedback too, and with it and early depth tests, which need
/// `Features::SHADER_EARLY_DEPTH_TEST`: `feedback.rs`), and the shadow pass's; the light
/// pass's, and one of the output pass's two, the exposure pass's two and
/// the depth pyramid's two, by its [`Msaa`] setting, and the animation
/// playback pass's.
pub fn tier_variants(tier: Tier) -> Vec<ShaderVariant> {
    let mut variants = vec![cull_variant(tier, false), CLUSTER_CULL, TRIANGLE_FILTER];
    for layout in heap_layouts(tier) {
        for shadows in [ShadowSource::Off, ShadowSource::Maps] {
            let draws = DrawShading::ALL.map(|shading| draw_variant(layout, shading, shadows));
            variants.extend(draws);
            variants.extend(draws.into_iter().flat_map(feedback_twins));
        }
        variants.push(shadow_variant(layout));
    }
    variants.extend([
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
    ]);
    variants
}

/// The variants a renderer over the heap's `layout` builds with
/// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries),
/// besides [`tier_variants`]: they need [`crate::RAY_QUERY_FEATURES`] too.
/// None with tier C's texture arrays: tier C has no ray queries.
pub fn ray_query_layout_variants(layout: HeapLayout) -> Vec<ShaderVariant> {
    let (view, path) = match layout {
        HeapLayout::BindingArrays => (RAY_VIEW, PATH_TRACE),
        HeapLayout::Pages => (RAY_VIEW_PAGES, PATH_TRACE_PAGES),
        HeapLayout::TextureArrays => return Vec::new(),
    };
    let mut variants = vec![view, path, RAY_DEFORM];
    let draws = DrawShading::ALL.map(|shading| ray_shadows_draw_variant(layout, shading));
    variants.extend(draws);
    variants.extend(draws.into_iter().flat_map(feedback_twins));
    variants
}

/// [`ray_query_layout_variants`] of every heap layout `tier` can run.
pub fn ray_query_variants(tier: Tier) -> Vec<ShaderVariant> {
    let mut variants: Vec<ShaderVariant> = Vec::new();
    for variant in heap_layouts(tier)
        .into_iter()
        .flat_map(ray_query_layout_variants)
    {
        if !variants.contains(&variant) {
            variants.push(variant);
        }
    }
    variants
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

/// The draw pass's variant over the heap's `layout` for `shading` with
/// ray-query shadows (binding arrays or pages: tiers A and B).
pub fn ray_shadows_draw_variant(layout: HeapLayout, shading: DrawShading) -> ShaderVariant {
    match (layout == HeapLayout::Pages, shading) {
        (false, DrawShading::Lit) => DRAW_RAY_SHADOWS,
        (false, DrawShading::LitWithLights) => DRAW_LIGHTS_RAY_SHADOWS,
        (false, DrawShading::Debug) => DRAW_DEBUG_RAY_SHADOWS,
        (true, DrawShading::Lit) => DRAW_PAGES_RAY_SHADOWS,
        (true, DrawShading::LitWithLights) => DRAW_PAGES_LIGHTS_RAY_SHADOWS,
        (true, DrawShading::Debug) => DRAW_PAGES_DEBUG_RAY_SHADOWS,
    }
}
