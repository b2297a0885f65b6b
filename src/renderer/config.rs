//! How a renderer is built.

use crate::capabilities::tier::{TextureHeap, Tier};
use crate::capacities::Capacities;
use crate::lighting::{ClusterGrid, PrefilterSettings};
use crate::lod::LodSettings;
use crate::output::Msaa;
pub use crate::passes::compute_raster::{
    BUFFER_RASTER_FEATURES, ComputeRaster, TEXTURE_RASTER_FEATURES,
};
use crate::passes::draw::IndirectMode;
pub use crate::passes::visibility::MaterialPass;
use crate::shadows::ShadowSettings;

/// How to build a [`Renderer`](crate::Renderer).
///
/// The default: [`Capacities::default`], colour format `Rgba8UnormSrgb`,
/// one sample per pixel, [`IndirectMode::Count`], the best tier the adapter
/// supports, the default cluster grid and prefilter sizes, occlusion and
/// small-object culling on; shadows, level of detail, ray queries and
/// subgroups off. The switches that can change at run time have setters on
/// the renderer (`set_shadows`, `set_occlusion`, `set_lod`, …).
#[derive(Clone, Copy, Debug)]
pub struct RendererConfig {
    /// Table and array capacities (device limits are derived from them).
    pub capacities: Capacities,
    /// Format of the colour targets `render` writes (through the output
    /// pass: shading itself goes to the renderer's HDR target); default
    /// `Rgba8UnormSrgb`.
    pub color_format: wgpu::TextureFormat,
    /// Samples per pixel of the HDR target, and so of the depth targets
    /// `render` is given (colour targets always have one); default
    /// [`Msaa::X1`]. [`Msaa::X4`] is checked against the device by
    /// [`Renderer::new`](crate::Renderer::new).
    pub msaa: Msaa,
    /// How indirect draws are issued (tiers B and C always use
    /// [`IndirectMode::Plain`]).
    pub indirect: IndirectMode,
    /// Run at most this tier even if the adapter supports a better one
    /// (`None`: the best available).
    pub tier: Option<Tier>,
    /// Sizes of the environment's prefiltered maps (image-based light;
    /// 128² and 6 mips by default).
    pub prefilter: PrefilterSettings,
    /// How the light pass cuts the view into clusters (32 × 18 tiles × 48
    /// depth slices by default) and how many light references their lists
    /// may grow to.
    pub clusters: ClusterGrid,
    /// The sun's cascaded shadows and the spot lights' shadows (off by
    /// default; [`crate::Renderer::set_shadows`] changes them at run time).
    pub shadows: ShadowSettings,
    /// Inline ray tracing (off by default): acceleration structures over
    /// the arena and the object table, kept up to date every frame, for
    /// ray-query shadows and the hit-material view (`src/rays/`). Needs an
    /// adapter with ray queries
    /// ([`AdapterSupport::ray_queries`](crate::AdapterSupport::ray_queries)),
    /// a device requested with wgpu's `ExperimentalFeatures` token
    /// ([`crate::DeviceOptions`]), tier A or B and at most
    /// [`crate::MAX_RAY_QUERY_OBJECTS`] objects: otherwise
    /// [`Renderer::new`](crate::Renderer::new) returns a typed
    /// [`crate::CapabilityError`].
    pub ray_queries: bool,
    /// With ray queries: the most bytes of deformed positions the skinned
    /// objects' own BLASes are built from (12 bytes a triangle corner;
    /// default [`crate::rays::DEFORMED_POSITIONS_BUDGET_BYTES`], 64 MiB,
    /// and never more than the device's storage binding allows). A skinned
    /// object beyond it is traced in its bind pose (`src/rays/deform.rs`).
    pub deformed_ray_bytes: u64,
    /// With ray queries: how often rays see a skinned or morphed object's
    /// pose unless [`crate::Renderer::set_object_ray_deformation`] says
    /// otherwise for it ([`crate::RayDeformation::EveryFrame`] by
    /// default; `src/rays/deform.rs` states the cost).
    pub ray_deformation: crate::RayDeformation,
    /// Two-phase occlusion culling for the camera (on by default;
    /// [`crate::Renderer::set_occlusion`] changes it at run time): the
    /// depth target then needs `TEXTURE_BINDING` (see
    /// [`crate::FrameTarget::depth`]).
    pub occlusion: bool,
    /// Small-object culling for the camera (on by default;
    /// [`crate::Renderer::set_small_object_culling`] changes it at run
    /// time): an instance whose projected bounds hold no pixel centre is
    /// not drawn, so the image is the same either way. Off at 4× MSAA.
    pub small_object_culling: bool,
    /// A depth pre-pass for the camera (off by default;
    /// [`crate::Renderer::set_depth_prepass`] changes it at run time): the
    /// opaque and alpha-masked draws' depth first, so that the draw pass
    /// shades each pixel once (`src/passes/prepass.rs`). The image is the
    /// same either way.
    pub depth_prepass: bool,
    /// Level-of-detail selection (off by default;
    /// [`crate::Renderer::set_lod`] changes it at run time): meshes added
    /// with simplified levels ([`crate::MeshOptions`]) draw the coarsest
    /// whose error stays under the threshold in pixels.
    pub lod: LodSettings,
    /// Subgroup operations in the cull pass where the device has
    /// `Features::SUBGROUP` (tiers A and B): the lanes of a subgroup that
    /// count instances in the same key share one shared-memory atomic.
    /// Both variants find the same visible sets
    /// ([`crate::Renderer::cull_uses_subgroups`] says which runs). Off by
    /// default: on an NVIDIA H200 the subgroup variant culled 4M instances
    /// in 0.179 ms against 0.166 ms without (its compiler already combines
    /// a subgroup's atomics on one shared address); GPUs that don't may
    /// gain (see docs/PERFORMANCE.md).
    pub subgroups: bool,
    /// Cluster culling for the camera (issue 28; off by default,
    /// [`crate::Renderer::set_cluster_culling`] changes it at run time):
    /// each opaque or double-sided instance the camera keeps is drawn
    /// cluster by cluster, clusters outside the frustum, facing away or
    /// (late occlusion phase) behind the depth pyramid dropped
    /// (`src/passes/cluster_cull.rs`). Every tier: with
    /// [`IndirectMode::Plain`] (tiers B and C) the survivors are drawn
    /// through the triangle filter's packed draws, which then always run
    /// (`src/passes/triangle_filter.rs`). The image is the same either way.
    pub cluster_culling: bool,
    /// Triangle filtering after cluster culling (issue 28, stage 3; off by
    /// default: on the H200 it paid only at the 1M cube grid,
    /// docs/PERFORMANCE.md; [`crate::Renderer::set_triangle_filtering`]
    /// changes it at run time): the triangles of surviving clusters that lie outside
    /// the frustum, face away or cover no pixel centre are dropped in a
    /// compute pass, the rest drawn from a compacted index buffer
    /// (`src/passes/triangle_filter.rs`). Only with
    /// [`Self::cluster_culling`] active; always then with
    /// [`IndirectMode::Plain`] (tiers B and C). The image is the same
    /// either way.
    pub triangle_filtering: bool,
    /// How 2D textures are bound on tiers A and B (tier C always uses its
    /// texture arrays): [`TextureHeap::Bindless`] (default), one
    /// binding-array element per texture, or [`TextureHeap::Paged`],
    /// texture-array pages by size class and format whose per-frame and
    /// add cost does not grow with the number of textures, at tier C's
    /// quality cost (resampled to a size class, a full mip chain, no
    /// block-compressed textures: `src/heap/pages.rs`).
    pub texture_heap: TextureHeap,
    /// Bytes of page memory for textures at their full size class
    /// (`None`, the default: every texture fully resident). With a budget,
    /// the paged heap ([`TextureHeap::Paged`], tiers A and B) keeps each
    /// 2D texture larger than 64² at 64² (its base, never evicted) and
    /// streams the full size in for textures wanted within the budget,
    /// evicting the least recently wanted (`src/heap/residency.rs`): those
    /// the camera's shading sampled needing more than 64² (its texture
    /// feedback, read back a few frames later: `src/heap/feedback.rs`),
    /// and those the application asks for
    /// ([`crate::Renderer::want_texture`]). Tier C and the bindless heap
    /// are not streamed: the budget is ignored there.
    pub texture_budget: Option<u64>,
    /// How the camera's opaque and alpha-masked surfaces are shaded
    /// ([`Geometry::Forward`] by default; [`crate::Renderer::set_geometry`]
    /// changes it at run time). The image is the same either way (within
    /// the rounding of the reconstructed surface). Forward stays the
    /// default: the first visibility slice is slower on the H200
    /// (`docs/PERFORMANCE.md`, issue 29).
    pub geometry: Geometry,
    /// Whether the visibility buffer rasterises small instances by compute
    /// (`src/passes/compute_raster/`), and into what
    /// ([`ComputeRaster::Off`] by default; [`crate::Renderer::set_compute_raster`]).
    pub compute_raster: ComputeRaster,
    /// Instances whose projected bounding sphere spans fewer pixels than
    /// this go to the compute rasteriser (`f32::INFINITY`: every instance
    /// it can take; 0: none). 32 by default; NaN and negative sizes are
    /// refused ([`crate::RenderError::RasterThreshold`]);
    /// [`crate::Renderer::set_raster_threshold`].
    pub raster_threshold: f32,
    /// How the visibility buffer's material pass runs
    /// ([`MaterialPass::Compute`] by default, falling back to
    /// [`MaterialPass::Fragment`] where compute cannot store into the HDR
    /// target: [`crate::Renderer::material_pass`]; fixed for the
    /// renderer's life: the HDR target's usage depends on it).
    pub material_pass: MaterialPass,
}

/// How the camera's opaque and alpha-masked surfaces are shaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Geometry {
    /// The draw pass shades every fragment it rasterizes (after the depth
    /// pre-pass, only the nearest).
    #[default]
    Forward,
    /// A visibility buffer: depth and a triangle id per pixel, then one
    /// material pass shading each pixel once (a compute pass by default,
    /// [`RendererConfig::material_pass`]; `src/passes/visibility.rs`).
    /// Tier A at 1× MSAA with
    /// `Features::PRIMITIVE_INDEX`, the lit view, cluster culling off; the
    /// frame draws forward elsewhere ([`crate::Renderer::geometry`] says
    /// which runs).
    Visibility,
}

impl Default for RendererConfig {
    fn default() -> Self {
        Self {
            capacities: Capacities::default(),
            color_format: wgpu::TextureFormat::Rgba8UnormSrgb,
            msaa: Msaa::X1,
            indirect: IndirectMode::Count,
            tier: None,
            prefilter: PrefilterSettings::default(),
            clusters: ClusterGrid::default(),
            shadows: ShadowSettings::default(),
            ray_queries: false,
            deformed_ray_bytes: crate::rays::DEFORMED_POSITIONS_BUDGET_BYTES,
            ray_deformation: crate::RayDeformation::EveryFrame,
            occlusion: true,
            small_object_culling: true,
            depth_prepass: false,
            subgroups: false,
            lod: LodSettings::default(),
            cluster_culling: false,
            triangle_filtering: false,
            texture_heap: TextureHeap::Bindless,
            texture_budget: None,
            geometry: Geometry::Forward,
            compute_raster: ComputeRaster::Off,
            raster_threshold: 32.0,
            material_pass: MaterialPass::Compute,
        }
    }
}

impl RendererConfig {
    /// The configuration a renderer of `tier` runs: tiers without indirect
    /// count issue plain multi-draws.
    pub(crate) fn for_tier(mut self, tier: Tier) -> Self {
        if !tier.has_indirect_count() {
            self.indirect = IndirectMode::Plain;
        }
        self
    }
}
