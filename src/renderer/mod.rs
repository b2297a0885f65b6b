//! The renderer: owns the heap, the tables, the views, the HDR target and
//! the passes, and records one frame as upload -> cull -> lights -> shadows
//! -> draw (or trace) -> late occlusion phase -> output -> bounds ->
//! readback into the application's encoder.
//!
//! - `frame.rs`: the frame's recipe (`render`) and the upload step;
//! - `steps.rs`: the recipe's steps, which gather each pass's inputs from
//!   the renderer's parts (`FrameParts`);
//! - `resources.rs`: adding and removing textures, meshes, materials,
//!   objects and lights;
//! - `rays.rs`: keeping the acceleration structures in step with them;
//! - `descriptors.rs`: the colour and depth target descriptors `render` accepts;
//! - `shadows.rs`, `occlusion.rs`, `lod.rs`: the switches that change at
//!   run time (shadows, occlusion and small-object culling, level of
//!   detail);
//! - `introspection.rs`: what tools and tests read (memory, statistics,
//!   the cull and light buffers);
//! - `config.rs`, `stats.rs`: how a renderer is built, and what a frame
//!   did.
//!
//! Where a frame is drawn (`src/target.rs`) and the errors (`src/errors.rs`)
//! sit below the renderer, so that the passes can use them.

mod animation;
mod checks;
mod config;
mod descriptors;
mod exposure;
mod frame;
mod geometry;
mod introspection;
mod lod;
mod occlusion;
mod rays;
mod resources;
mod shadows;
mod stats;
mod steps;

pub use crate::errors::{Error, RenderError, TargetKind};
pub use crate::passes::draw::IndirectMode;
pub use crate::target::{FAR_DEPTH, FrameTarget, TargetLoad, TargetView};
pub use config::{
    BUFFER_RASTER_FEATURES, ComputeRaster, Geometry, RendererConfig, TEXTURE_RASTER_FEATURES,
};
pub use stats::{FrameStats, MemoryStats};

use crate::camera::{Camera, Lighting};
use crate::capabilities::adapter::{AdapterSupport, check_adapter};
use crate::capabilities::device::check_device;
use crate::capabilities::ray_queries::{check_device_ray_queries, check_ray_query_objects};
use crate::capabilities::tier::Tier;
use crate::capacities::Capacities;
use crate::debug::DebugOptions;
use crate::geometry::GeometryArena;
use crate::gpu_types::GpuTableCounts;
use crate::heap::ResourceHeap;
use crate::lighting::{ClusterGrid, Environment};
use crate::lights::LightTable;
use crate::materials::MaterialTable;
use crate::output::Output;
use crate::passes::bounds::BoundsPass;
use crate::passes::cull::CullPass;
use crate::passes::draw::{DrawLayouts, DrawPass};
use crate::passes::lights::{LightInputs, LightPass};
use crate::passes::occlusion::Occlusion;
use crate::passes::output::{HdrTarget, OutputPass};
use crate::passes::prefilter::{EnvironmentMaps, Prefilter};
use crate::passes::prepass::DepthPrepass;
use crate::passes::rays::{RayPasses, RayTables};
use crate::passes::{GpuTables, Views};
use crate::rays::{PathTracing, RayTracing};
use crate::readback::Readback;
use crate::scene::ObjectTable;

use crate::upload::{UploadBatch, UploadLog};
use rays::PathKey;
use shadows::ShadowState;

/// A GPU-driven, bindless renderer. See the crate docs.
#[derive(Debug)]
pub struct Renderer {
    device: wgpu::Device,
    support: AdapterSupport,
    tier: Tier,
    config: RendererConfig,
    /// Textures and samplers: the draw pass's bind group 0.
    heap: ResourceHeap,
    /// Meshes, materials, objects and the live count of every table.
    tables: Tables,
    /// The main camera's view and the shadow cascades': their uniforms
    /// and what the cull pass writes for them.
    views: Views,
    /// What the draw pass shades into and the output pass resolves.
    hdr: HdrTarget,
    passes: Passes,
    readback: Readback,
    /// Each recorded frame's uploads, until it is known to have run.
    uploads: UploadLog,
    camera: Camera,
    debug: DebugOptions,
    lighting: Lighting,
    /// Image-based light: the prefilter (and its BRDF table) and the maps
    /// of the environment in use.
    environment: EnvironmentState,
    /// Exposure and tone mapping.
    output: Output,
    /// Automatic exposure, while on; whether its next frame jumps.
    auto_exposure: Option<crate::AutoExposure>,
    exposure_jump: bool,
    /// The sun's and the spot lights' shadows: settings, the cascades and
    /// spots of the last frame, the
    /// shadow pass.
    shadows: ShadowState,
    /// Occlusion culling's state: visibility bits, late cull buffers,
    /// depth pyramid.
    occlusion: Occlusion,
    /// Whether occlusion culling is on.
    occlusion_culling: bool,
    /// Cull the shadow cascades by occlusion too (with `occlusion_culling`).
    cascade_occlusion: bool,
    /// Small-object culling of the camera view (see `src/small_objects.rs`).
    small_object_culling: bool,
    /// The camera's depth pre-pass (see `src/passes/prepass.rs`).
    depth_prepass: bool,
    /// The geometry setting, and whether the device can run the
    /// visibility buffer (`src/renderer/geometry.rs`).
    geometry: (Geometry, bool),
    /// Level-of-detail selection.
    lod: crate::lod::LodSettings,
    /// The acceleration structures, with [`RendererConfig::ray_queries`].
    rays: Option<RayTracing>,
    /// Sun shadows by shadow rays (ray queries).
    ray_query_shadows: bool,
    /// The path-traced view: its settings, the samples per pixel
    /// accumulated and what they were traced from.
    path_tracing: PathTracing,
    path_samples: u32,
    path_key: Option<PathKey>,
    /// Bumped by every change to what a path can reach (meshes, objects,
    /// materials, lights, the environment, normal mapping).
    scene_changes: u64,
    normal_maps: bool,
    frame_index: u64,
}

/// The environment in use and what lights with it.
#[derive(Debug)]
struct EnvironmentState {
    prefilter: Prefilter,
    maps: EnvironmentMaps,
}

/// The tables besides the heap, and `TableCounts` on the GPU.
#[derive(Debug)]
struct Tables {
    arena: GeometryArena,
    materials: MaterialTable,
    objects: ObjectTable,
    lights: LightTable,
    /// `TableCounts`: live slots of every table, heap included.
    counts: wgpu::Buffer,
    /// What `counts` holds (or will, once this frame's upload runs).
    last_counts: Option<GpuTableCounts>,
    /// Animation playback and the deform buffer, once an animation is
    /// given (`src/renderer/animation.rs`).
    animation: Option<animation::RendererAnimation>,
    /// The deform buffer the raster passes bind without an animation (one
    /// entry: no object is skinned).
    no_deform: wgpu::Buffer,
}

impl Tables {
    fn new(
        device: &wgpu::Device,
        heap: &mut ResourceHeap,
        c: &Capacities,
        (ray_queries, storage_indices): (bool, bool),
    ) -> Self {
        let sizes = (c.vertices, c.indices, c.meshes);
        Self {
            arena: GeometryArena::new(device, sizes, ray_queries, storage_indices),
            materials: MaterialTable::new(device, heap, c.materials),
            objects: ObjectTable::new(device, c.objects),
            lights: LightTable::new(device, c.lights),
            counts: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound table counts"),
                size: size_of::<GpuTableCounts>() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_counts: None,
            animation: None,
            no_deform: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound no deform"),
                size: 64,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
        }
    }

    /// Queues the live counts into this frame's upload if they changed.
    fn write_counts(&mut self, batch: &mut UploadBatch, heap: &ResourceHeap) -> GpuTableCounts {
        let bound = heap.counts();
        let counts = GpuTableCounts {
            textures_2d: bound.textures_2d,
            textures_cube: bound.textures_cube,
            samplers: bound.samplers,
            materials: self.materials.slots_in_use(),
            meshes: self.arena.mesh_slots(),
            objects: self.objects.slots_in_use(),
            vertices: self.arena.vertex_capacity(),
            _pad: 0,
        };
        if self.last_counts != Some(counts) {
            batch.write(&self.counts, 0, bytemuck::bytes_of(&counts));
            self.last_counts = Some(counts);
        }
        counts
    }

    /// Light slots the frame shades: the table's high-water mark, or 0
    /// without live lights (the light pass is then not recorded).
    fn light_slots(&self) -> u32 {
        if self.lights.is_empty() {
            0
        } else {
            self.lights.slots_in_use()
        }
    }

    /// The light table as the light pass reads it.
    pub(super) fn light_inputs(&self, grid: ClusterGrid) -> LightInputs<'_> {
        LightInputs {
            lights: self.lights.buffer(),
            version: self.lights.version(),
            slots: self.light_slots(),
            grid,
        }
    }

    /// The tables on the GPU, as the passes read them.
    pub(super) fn gpu(&self) -> GpuTables<'_> {
        GpuTables {
            counts: &self.counts,
            vertices: self.arena.vertex_buffer(),
            indices: self.arena.index_buffer(),
            meshes: self.arena.mesh_buffer(),
            clusters: self.arena.cluster_buffer(),
            cluster_lods: self.arena.cluster_lod_buffer(),
            cluster_lod_clusters: self.arena.largest_cluster_lod_mesh(),
            objects: self.objects.object_buffer(),
            bounds: self.objects.bounds_buffer(),
            batch: self.objects.batch_buffer(),
            materials: self.materials.buffer(),
            object_slots: self.objects.slots_in_use(),
            mesh_slots: self.arena.mesh_slots(),
            bucket_objects: self.objects.bucket_counts(),
            masked_materials: self.materials.masked_count(),
            arena_version: self.arena.version(),
            objects_version: self.objects.version(),
            materials_version: self.materials.version(),
            deform: self
                .animation
                .as_ref()
                .map_or(&self.no_deform, |a| a.pass.poses()),
            deform_version: self.animation.as_ref().map_or(0, |a| a.version),
        }
    }
}

/// The frame's passes: pipelines, layouts and cached bind groups.
#[derive(Debug)]
struct Passes {
    cull: CullPass,
    lights: LightPass,
    draw: DrawPass,
    output: OutputPass,
    /// Built when the bounds view is first drawn.
    bounds: Option<BoundsPass>,
    /// Built when automatic exposure first runs.
    exposure: Option<crate::passes::exposure::ExposurePass>,
    /// The ray tables and the hit-material view, with ray queries.
    rays: Option<RayPasses>,
    /// Built when the depth pre-pass is first on.
    prepass: Option<DepthPrepass>,
}

impl Renderer {
    /// Builds a renderer on a device created from `adapter` with at least
    /// unbound's requirements (see [`crate::request_device`]).
    pub fn new(
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        config: RendererConfig,
    ) -> Result<Self, Error> {
        let (support, tier) = validate(adapter, device, &config)?;
        let config = config.for_tier(tier);
        let c = &config.capacities;
        let prefilter = Prefilter::new(device, queue);
        let default = Environment::uniform_white();
        let settings = config.prefilter.for_environment(&default);
        let maps = prefilter.prefilter(device, queue, &default, &settings)?;
        let mut heap = resources::resource_heap(device, queue, &config, tier);
        let heap_shading = (heap.heap_layout(), heap.has_texture_feedback());
        let heap_buffers = heap.fragment_storage_buffers();
        let visibility = geometry::visibility_capable(device, (tier, config.msaa), heap_buffers);
        let compute_material = geometry::compute_material(adapter, &config, visibility);
        // Indices as storage: the triangle filter and the material pass read them.
        let mut tables = Tables::new(device, &mut heap, c, (config.ray_queries, true));
        tables.lights.set_shadowed_spots(config.shadows.spot_lights);
        let shadow_layout = crate::passes::shadow::shading_layout(device);
        let rays = config.ray_queries.then(|| {
            let deformed = (config.deformed_ray_bytes, config.ray_deformation);
            RayTracing::new(device, c.objects, deformed)
        });
        let ray_tables = config.ray_queries.then(|| RayTables::new(device));
        let layouts = DrawLayouts {
            heap: heap.layout(),
            shadow: &shadow_layout,
            environment: prefilter.environment_layout(),
            rays: ray_tables.as_ref().map(RayTables::layout),
        };
        let draw = DrawPass::new(device, &layouts, config.msaa, heap_shading, config.indirect);
        let ray_passes = ray_tables.map(|tables| {
            let layouts = (heap.layout(), draw.scene_layout());
            let environment = prefilter.environment_layout();
            RayPasses::new(
                tables,
                (layouts.0, heap_shading.0),
                layouts.1,
                environment,
                config.msaa,
            )
        });
        let occlusion = Occlusion::new(device, config.msaa);
        let cull_subgroups =
            config.subgroups && device.features().contains(wgpu::Features::SUBGROUP);
        let passes = Passes {
            cull: CullPass::new(
                device,
                &occlusion.phase_layout,
                crate::shaders::cull_variant(tier, cull_subgroups),
                config.cluster_culling,
            ),
            lights: LightPass::new(device),
            draw,
            output: OutputPass::new(device, config.msaa, config.color_format),
            bounds: None,
            exposure: None,
            rays: ray_passes,
            prepass: None,
        };
        Ok(Self {
            views: Views::new(device, &config.clusters),
            hdr: HdrTarget::new(config.msaa).with_storage(compute_material),
            shadows: ShadowState {
                settings: config.shadows,
                cascades: Vec::new(),
                spots: Vec::new(),
                layout: shadow_layout,
                pass: None,
            },
            readback: Readback::new(device, queue),
            uploads: UploadLog::default(),
            occlusion_culling: config.occlusion,
            cascade_occlusion: true,
            small_object_culling: config.small_object_culling,
            depth_prepass: config.depth_prepass,
            geometry: (config.geometry, visibility),
            lod: config.lod,
            occlusion,
            heap,
            tables,
            passes,
            device: device.clone(),
            support,
            tier,
            config,
            camera: Camera::default(),
            debug: DebugOptions::default(),
            lighting: Lighting::default(),
            environment: EnvironmentState { prefilter, maps },
            output: Output::default(),
            auto_exposure: None,
            exposure_jump: false,
            rays,
            ray_query_shadows: false,
            path_tracing: PathTracing::default(),
            path_samples: 0,
            path_key: None,
            scene_changes: 0,
            normal_maps: true,
            frame_index: 0,
        })
    }

    /// The adapter's description, its best tier and why better tiers were
    /// not possible.
    pub fn adapter_support(&self) -> &AdapterSupport {
        &self.support
    }

    /// The tier this renderer runs.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// Whether the cull pass runs its subgroup variant
    /// ([`RendererConfig::subgroups`] on, a device with
    /// `Features::SUBGROUP`, tier A or B).
    pub fn cull_uses_subgroups(&self) -> bool {
        self.passes.cull.uses_subgroups()
    }

    /// The configuration the renderer was built with.
    pub fn config(&self) -> &RendererConfig {
        &self.config
    }

    /// The resource heap (textures and samplers).
    pub fn heap(&self) -> &ResourceHeap {
        &self.heap
    }

    /// The geometry arena.
    pub fn arena(&self) -> &GeometryArena {
        &self.tables.arena
    }

    /// The material table.
    pub fn materials(&self) -> &MaterialTable {
        &self.tables.materials
    }

    /// The object table.
    pub fn objects(&self) -> &ObjectTable {
        &self.tables.objects
    }

    /// The light table.
    pub fn lights(&self) -> &LightTable {
        &self.tables.lights
    }

    /// Sets the camera for the next frames.
    pub fn set_camera(&mut self, camera: &Camera) -> Result<(), Error> {
        if !camera.is_valid() {
            return Err(RenderError::InvalidCamera(Box::new(*camera)).into());
        }
        self.camera = *camera;
        Ok(())
    }

    /// The camera in use.
    pub fn camera(&self) -> &Camera {
        &self.camera
    }

    /// Sets the debug view and options for the next frames (see
    /// [`crate::debug`]). A frozen cull camera must be valid.
    pub fn set_debug(&mut self, options: &DebugOptions) -> Result<(), Error> {
        if let Some(camera) = &options.cull_camera
            && !camera.is_valid()
        {
            return Err(RenderError::InvalidCamera(Box::new(*camera)).into());
        }
        if options.view.traces_rays() && self.rays.is_none() {
            return Err(RenderError::RayQueriesOff {
                what: options.view.name(),
            }
            .into());
        }
        self.debug = *options;
        Ok(())
    }

    /// The debug settings in use.
    pub fn debug(&self) -> &DebugOptions {
        &self.debug
    }

    /// Sets the light and ambient term; refuses non-finite values and a
    /// direction that cannot be normalised ([`Lighting::validate`]),
    /// keeping the lighting in use. While a light is named the sun
    /// ([`Self::set_sun_light`]) it replaces this sun; [`Self::sun`] is
    /// what frames shade with.
    pub fn set_lighting(&mut self, lighting: &Lighting) -> Result<(), Error> {
        lighting.validate()?;
        self.lighting = *lighting;
        Ok(())
    }

    /// Sets how the path-traced view traces for the next frames; refuses
    /// settings out of range ([`PathTracing::validate`]), keeping those in
    /// use. Changed settings start the accumulation again.
    pub fn set_path_tracing(&mut self, settings: &PathTracing) -> Result<(), Error> {
        settings.validate()?;
        self.path_tracing = *settings;
        Ok(())
    }

    /// The path-tracing settings in use.
    pub fn path_tracing(&self) -> &PathTracing {
        &self.path_tracing
    }

    /// Samples per pixel the path-traced view holds after the last
    /// recorded frame (0 before one was recorded, or after anything it
    /// traced changed and before the next frame).
    pub fn path_traced_samples(&self) -> u32 {
        self.path_samples
    }

    /// The lighting in use.
    pub fn lighting(&self) -> &Lighting {
        &self.lighting
    }

    /// Replaces the environment that lights the scene (image-based light):
    /// prefilters it on the GPU now (submitted to `queue` before this
    /// returns), once, not per frame. Its radiance is scaled by
    /// [`Lighting::ambient_color`]. A new renderer starts with a uniform
    /// white environment (so `ambient_color` alone is a uniform ambient
    /// light, [`Environment::uniform_white`]); [`Environment::sky`] is a
    /// procedural sky. Refuses bad
    /// radiance, bad [`RendererConfig::prefilter`] settings and an image
    /// larger than the device allows, keeping the environment in use.
    pub fn set_environment(
        &mut self,
        queue: &wgpu::Queue,
        environment: &Environment,
    ) -> Result<(), Error> {
        let settings = self.config.prefilter.for_environment(environment);
        let state = &mut self.environment;
        state.maps = state
            .prefilter
            .prefilter(&self.device, queue, environment, &settings)?;
        self.scene_changes += 1;
        Ok(())
    }

    /// Sets exposure and tone mapping for the next frames (lit view only:
    /// debug and id views bypass both). Refuses a NaN, infinite or
    /// out-of-range exposure ([`Output::validate`]), keeping the output in
    /// use.
    pub fn set_output(&mut self, output: &Output) -> Result<(), Error> {
        output.validate()?;
        self.output = *output;
        Ok(())
    }

    /// Exposure and tone mapping in use.
    pub fn output(&self) -> &Output {
        &self.output
    }

    /// The HDR target the last frame shaded into, read-only: radiance
    /// before exposure and tone mapping (premultiplied by coverage in its
    /// alpha; copyable with one sample per pixel). `None` before the first
    /// frame; replaced when the colour target's size changes.
    pub fn hdr_target(&self) -> Option<&wgpu::Texture> {
        self.hdr.texture()
    }

    /// Turns normal mapping on or off (for comparisons).
    pub fn set_normal_maps(&mut self, enabled: bool) {
        self.normal_maps = enabled;
        self.scene_changes += 1;
    }
}

/// Checks `config` against the adapter and the device before anything is
/// created: the adapter's support and the tier chosen from it.
fn validate(
    adapter: &wgpu::Adapter,
    device: &wgpu::Device,
    config: &RendererConfig,
) -> Result<(AdapterSupport, Tier), Error> {
    if config.ray_queries {
        // Before the adapter's limits: a capacity no TLAS can name.
        check_ray_query_objects(&config.capacities)?;
    }
    let support = check_adapter(adapter, &config.capacities)?;
    let tier = support.choose(config.tier)?;
    check_device(device, &config.capacities, tier)?;
    config.clusters.validate()?;
    checks::check_grid(&device.limits(), &config.clusters)?;
    if config.ray_queries {
        support.ray_queries.clone()?;
        check_device_ray_queries(device, &config.capacities, tier)?;
    }
    config.msaa.check(adapter, device)?;
    config.shadows.validate(&device.limits())?;
    config.lod.validate()?;
    geometry::check_raster_threshold(config.raster_threshold)?;
    Ok((support, tier))
}
