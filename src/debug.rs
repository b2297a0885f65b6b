//! Debug views: what the GPU decided, drawn by the same GPU-driven path.
//!
//! With bindless resources a wrong index is not a validation error, it is a
//! wrong pixel. These views make the indices visible: each is the normal
//! frame (same cull pass, same indirect draws, same shader) with a different
//! last step in the fragment shader.
//!
//! - Shading views ([`DebugView::Lit`], [`Unlit`](DebugView::Unlit),
//!   [`Normals`](DebugView::Normals), [`Uvs`](DebugView::Uvs),
//!   [`Metallic`](DebugView::Metallic), [`Roughness`](DebugView::Roughness),
//!   [`Occlusion`](DebugView::Occlusion), [`Emissive`](DebugView::Emissive),
//!   [`Tangents`](DebugView::Tangents), [`LightCount`](DebugView::LightCount),
//!   [`Cascades`](DebugView::Cascades), [`LodLevel`](DebugView::LodLevel),
//!   [`Raster`](DebugView::Raster))
//!   draw into the renderer's colour
//!   format. Scalar views write their value into every colour channel;
//!   the light count is a heat map ([`light_count_color`]). Only the lit
//!   view is exposed and tone mapped
//!   ([`crate::output`]); the others are written as they are (their samples
//!   averaged at 4×).
//! - Id views ([`MaterialIndex`](DebugView::MaterialIndex),
//!   [`ObjectIndex`](DebugView::ObjectIndex), [`DrawIndex`](DebugView::DrawIndex),
//!   [`TextureSlot`](DebugView::TextureSlot), and with ray queries
//!   [`HitMaterial`](DebugView::HitMaterial), traced instead of drawn)
//!   write `id + 1` as 24-bit
//!   little-endian RGB (alpha 255) into a target of [`ID_TARGET_FORMAT`]: a
//!   linear format, because an sRGB target would not round-trip the bytes.
//!   [`decode_id`] reads a pixel back; 0 means nothing was drawn there (id
//!   views clear to 0 whatever the target's clear colour). They go through
//!   the half-float HDR target exactly and, at 4×, show the first sample
//!   of each pixel, never an average.
//!
//! Independent of the view: [`DebugOptions::highlight_missing`] paints every
//! pixel magenta that sampled slot 0 (the missing texture: an invalid or
//! out-of-range index lands there; a radiance of (1, 0, 1), tone mapped in
//! the lit view), [`DebugOptions::cull_camera`] freezes the
//! frustum the cull pass tests against while the view camera moves on, and
//! [`DebugOptions::culled_bounds`] draws every object's bounding box, red
//! where the cull pass rejected it, orange where occlusion culling hid it
//! and green where it kept it.
//!
//! How they are drawn: the last step lives in the draw shader's debug variant
//! (`DEBUG_VIEWS`), built on the first frame that uses a view other than lit
//! or the highlight, since even untaken its code and the ids it passes from
//! vertex to fragment cost the H200's draw pass a quarter of its time. The
//! vertex shader passes the object slot on; for the draw view it
//! binary-searches the instance slot among the draws of each bucket region
//! (the cull pass writes them in increasing `first_instance`), reading the
//! cull pass's draws and header, bound read-only for that view alone. The LOD
//! view finds the level the same way: the level whose index range the draw
//! reads, so it shows what was drawn on every tier and in both occlusion
//! phases. A frozen cull camera gives the frame uniforms its frustum planes
//! and depth buckets, and the view camera its `clip_from_world`; the bounding
//! boxes' orange then means "inside the frozen frustum, hidden from where the
//! view camera stands" (`src/passes/bounds.rs`).
//!
//! **Through the visibility buffer** ([`crate::Geometry::Visibility`],
//! `src/passes/visibility.rs`) the views are shaded by the material pass's
//! own `DEBUG_VIEWS` variant (a compute pipeline with the default
//! [`crate::MaterialPass::Compute`], a fragment one with
//! [`crate::MaterialPass::Fragment`]: both tested), built on the same
//! terms, from the surface it reconstructs per pixel, ending in the draw
//! pass's last step (`debug_color` in `wgsl/draw.wgsl`), so every view
//! but two gives the forward image (ids exact away from triangle edges, colours within
//! 2/255 on 99% of pixels: `tests/visibility_debug.rs`). The object slot
//! comes from the id, the LOD level from the mesh entry whose index range
//! holds the id's triangle, and [`DebugView::Raster`] reads the id's
//! [`crate::gpu_types::VISIBILITY_COMPUTE`] bit (forward, every pixel is
//! hardware). Two views draw forward even there
//! ([`crate::Renderer::geometry`] says so):
//! - [`DebugView::DrawIndex`]: the id names an object and an arena
//!   triangle, not the indirect draw (several instances of one mesh share
//!   a draw, and finding it would need the visible-list slot);
//! - the traced views ([`DebugView::PathTraced`],
//!   [`DebugView::HitMaterial`]), which are not raster views at all.
//!
//! `tests/debug_views.rs` decodes every id view at known pixels back to the
//! slots the CPU handed out, follows the draw view to the read-back draw
//! whose range of the visible list holds the object at that pixel, and checks
//! the shading views, the highlight, the frozen camera's visible count and
//! the boxes' colours; `tests/lights.rs` checks the light-count view against
//! the read-back cluster lists.

use crate::camera::Camera;

/// Format of the target an id view draws into.
pub const ID_TARGET_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// What the draw pass writes per pixel (WGSL `DEBUG_VIEW_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum DebugView {
    /// The normal shaded image.
    #[default]
    Lit = 0,
    /// Base colour (factor times texture), no lighting.
    Unlit = 1,
    /// World-space shading normal (normal maps applied), as `n * 0.5 + 0.5`.
    Normals = 2,
    /// First UV set: fractional part in red and green.
    Uvs = 3,
    /// Metallic (factor times the texture's blue channel), in every channel.
    Metallic = 4,
    /// Perceptual roughness (factor times the texture's green channel), in
    /// every channel.
    Roughness = 5,
    /// Ambient occlusion (the texture's red channel scaled by the
    /// strength: `1 + strength (r - 1)`), in every channel.
    Occlusion = 6,
    /// Emitted radiance (factor times strength times texture).
    Emissive = 7,
    /// World-space tangent (orthogonal to the interpolated normal), as
    /// `t * 0.5 + 0.5`.
    Tangents = 8,
    /// The number of punctual lights in the pixel's cluster (the lights its
    /// shading loops over), as a heat map: [`light_count_color`].
    LightCount = 9,
    /// The sun's shadow cascade that shades each pixel: red, green, blue,
    /// yellow for cascades 0 to 3, white beyond the last (and with shadows
    /// off); half as bright where the sun does not reach (shadowed, or
    /// facing away).
    Cascades = 10,
    /// The scene path traced with ray queries instead of drawn
    /// (`wgsl/path_trace.wgsl`): radiance from the same tables, environment
    /// and lights, accumulated over frames while nothing changes
    /// ([`crate::Renderer::path_traced_samples`]); exposed and tone mapped
    /// like the lit view. Needs
    /// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries).
    PathTraced = 11,
    /// The level of detail each pixel's instance was drawn with
    /// ([`crate::lod`]): level 0 (the mesh itself) blue, 1 green, 2
    /// yellow, 3 red, 4 cyan ([`crate::lod::lod_level_color`]), shaded
    /// a little by the normal so the shape stays readable. Read from the
    /// draw that drew the pixel, so it shows what was drawn.
    LodLevel = 12,
    /// Id: the material slot.
    MaterialIndex = 13,
    /// Id: the object slot.
    ObjectIndex = 14,
    /// Id: the index of the indirect draw (an entry of
    /// [`crate::Renderer::indirect_draws_buffer`]) that drew the pixel.
    /// Frames of this view cull without occlusion (one phase, so every
    /// draw is in that buffer).
    DrawIndex = 15,
    /// Id: the 2D texture heap slot the base colour was sampled from, after
    /// the bounds check (1, the white slot, where the material has no base
    /// colour texture).
    TextureSlot = 16,
    /// Id: the material slot of the surface the camera ray through the
    /// pixel's centre hits, traced with ray queries through the TLAS
    /// instead of drawn (`wgsl/ray_view.wgsl`): equal to
    /// [`MaterialIndex`](Self::MaterialIndex) away from silhouettes. Needs
    /// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries)
    /// ([`crate::RenderError::RayQueriesOff`] otherwise).
    HitMaterial = 17,
    /// Which rasteriser drew each pixel: the compute rasteriser
    /// ([`crate::ComputeRaster`]) orange, the hardware one blue
    /// ([`raster_view_color`]), shaded a little by the normal so the shape
    /// stays readable. Known through the visibility id's
    /// [`crate::gpu_types::VISIBILITY_COMPUTE`] bit; in forward geometry
    /// (no visibility buffer) every pixel is hardware.
    Raster = 18,
}

impl DebugView {
    /// Every view, in overlay order (the demo's keys 1 to 8 select the
    /// first eight).
    pub const ALL: [DebugView; 19] = [
        DebugView::Lit,
        DebugView::Unlit,
        DebugView::Normals,
        DebugView::Uvs,
        DebugView::MaterialIndex,
        DebugView::ObjectIndex,
        DebugView::DrawIndex,
        DebugView::TextureSlot,
        DebugView::Metallic,
        DebugView::Roughness,
        DebugView::Occlusion,
        DebugView::Emissive,
        DebugView::Tangents,
        DebugView::LightCount,
        DebugView::Cascades,
        DebugView::LodLevel,
        DebugView::HitMaterial,
        DebugView::PathTraced,
        DebugView::Raster,
    ];

    /// Command-line name.
    pub fn name(self) -> &'static str {
        match self {
            DebugView::Lit => "lit",
            DebugView::Unlit => "unlit",
            DebugView::Normals => "normals",
            DebugView::Uvs => "uvs",
            DebugView::Metallic => "metallic",
            DebugView::Roughness => "roughness",
            DebugView::Occlusion => "occlusion",
            DebugView::Emissive => "emissive",
            DebugView::Tangents => "tangents",
            DebugView::LightCount => "light-count",
            DebugView::Cascades => "cascades",
            DebugView::LodLevel => "lod",
            DebugView::MaterialIndex => "material",
            DebugView::ObjectIndex => "object",
            DebugView::DrawIndex => "draw",
            DebugView::TextureSlot => "texture-slot",
            DebugView::HitMaterial => "hit-material",
            DebugView::PathTraced => "path-traced",
            DebugView::Raster => "raster",
        }
    }

    /// The view called `name` (see [`Self::name`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether the view is traced with ray queries rather than drawn (it
    /// needs [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries)).
    pub fn traces_rays(self) -> bool {
        matches!(self, DebugView::HitMaterial | DebugView::PathTraced)
    }

    /// Whether the view writes ids (into an [`ID_TARGET_FORMAT`] target):
    /// [`MaterialIndex`](Self::MaterialIndex) to
    /// [`HitMaterial`](Self::HitMaterial) (WGSL `DEBUG_VIEW_FIRST_ID` to
    /// `DEBUG_VIEW_LAST_ID`).
    pub fn is_id_view(self) -> bool {
        (DebugView::MaterialIndex as u32..=DebugView::HitMaterial as u32).contains(&(self as u32))
    }
}

/// Debug settings of a [`crate::Renderer`] (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DebugOptions {
    /// What the draw pass writes.
    pub view: DebugView,
    /// Paint pixels that sampled the missing texture (slot 0) magenta.
    pub highlight_missing: bool,
    /// Cull against this camera instead of the view camera (a frozen cull
    /// camera: fly away and look at what was culled).
    pub cull_camera: Option<Camera>,
    /// Draw every object's bounding box after the frame: red where the cull
    /// pass's frustum test rejected it, orange where it was in the frustum
    /// but occlusion culling hid it (frames that cull occlusion), green
    /// where it kept it. Not drawn in id views. Occlusion is tested from
    /// the view camera's depth even while [`Self::cull_camera`] is frozen:
    /// orange is "in the frozen frustum, hidden from the view camera".
    pub culled_bounds: bool,
}

/// The id an id view wrote at a pixel (RGBA8 bytes), `None` where nothing
/// was drawn (or the alpha byte is not 255).
pub fn decode_id(pixel: [u8; 4]) -> Option<u32> {
    let encoded = u32::from(pixel[0]) | u32::from(pixel[1]) << 8 | u32::from(pixel[2]) << 16;
    (pixel[3] == 255 && encoded != 0).then(|| encoded - 1)
}

/// The bytes an id view writes for `id` (the inverse of [`decode_id`]; ids
/// up to 2^24 - 2).
pub fn encode_id(id: u32) -> [u8; 4] {
    let e = id.wrapping_add(1);
    [e as u8, (e >> 8) as u8, (e >> 16) as u8, 255]
}

/// The colour the [`DebugView::LightCount`] view shows for a cluster of
/// `count` lights (linear RGB): black for none, then on a log2 scale blue
/// (1 light), cyan (about 3), green (8), yellow (about 23) and red (64 and
/// more). The twin of `light_count_color` in `wgsl/draw.wgsl`.
pub fn light_count_color(count: u32) -> [f32; 3] {
    if count == 0 {
        return [0.0; 3];
    }
    let t = ((count as f32).log2() / 6.0).min(1.0);
    let ramp = [
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
    ];
    let x = t * 4.0;
    let i = (x as usize).min(3);
    let f = x - i as f32;
    std::array::from_fn(|c| ramp[i][c] + (ramp[i + 1][c] - ramp[i][c]) * f)
}

/// The colour [`DebugView::Raster`] shows for a pixel the compute
/// rasteriser (`compute`) or the hardware one drew, before the shading by
/// the normal (linear RGB): orange and blue. The twin of
/// `raster_view_color` in `wgsl/draw.wgsl`.
pub fn raster_view_color(compute: bool) -> [f32; 3] {
    if compute {
        [1.0, 0.5, 0.0]
    } else {
        [0.0, 0.5, 1.0]
    }
}
