//! The render paths the measurement loop drives (`FramePath`, what it
//! reads back from each), and two of them: unbound's `Renderer`
//! (the whole frame, or the cull pass alone) and the bind-per-draw
//! baseline. The crowd's path is `crate::crowd`.

use glam::Mat4;
use unbound::{
    Camera, Capacities, ClusterGrid, FrameTarget, GpuFrameStats, LightListStats, ObjectHandle,
    Renderer, RendererConfig,
};
use unbound_baseline::{BaselineRenderer, BaselineStats};
use unbound_harness::{Gpu, RenderTargets};
use unbound_scenes::bench::SceneSpec;

use crate::counts::{ClusterCounts, OcclusionCounts};
use crate::fragments::FragmentLights;
use crate::gpu::COLOR_FORMAT;
use crate::runs::Run;

/// A render path as the measurement loop drives it.
pub(crate) trait FramePath {
    /// Gives object `index` (scene order) a new transform.
    fn move_object(&mut self, index: usize, world_from_object: Mat4) -> Result<(), String>;
    fn set_camera(&mut self, camera: &Camera) -> Result<(), String>;
    /// Hands over what plays at frame `frame` (paths with an animation).
    fn animate(&mut self, _frame: u32) -> Result<(), String> {
        Ok(())
    }
    /// Records one frame.
    fn record_frame(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), String>;
    /// After a frame completed: GPU pass times, as far as known.
    fn pass_times(&mut self) -> PassTimes;
    /// After the last frame: what it drew, and the GPU memory the path holds.
    fn counters(&self) -> Result<Counters, String>;
    /// After the last frame: the objects (scene order) the camera drew, if
    /// the path can tell.
    fn drawn_objects(&self, gpu: &Gpu) -> Result<Option<Vec<usize>>, String>;
    /// After the last frame of a run with lights: its fragments' light
    /// loops, sampled, if the path can tell.
    fn fragment_lights(&self, _gpu: &Gpu) -> Result<Option<FragmentLights>, String> {
        Ok(None)
    }
    /// Draws `view` from now on (`--debug-view`, unbound's frames); paths
    /// without debug views (the baseline) draw lit, and their results
    /// record none (`RunId::with_debug_view`).
    fn set_debug_view(&mut self, _gpu: &Gpu, _view: unbound::DebugView) -> Result<(), String> {
        Ok(())
    }
}

/// Makes `renderer` draw `view` (`--debug-view`), into `targets` made again
/// in [`unbound::ID_TARGET_FORMAT`] for an id view.
pub(crate) fn set_unbound_debug_view(
    gpu: &Gpu,
    (renderer, targets): (&mut Renderer, &mut RenderTargets),
    view: unbound::DebugView,
) -> Result<(), String> {
    let options = unbound::DebugOptions {
        view,
        ..*renderer.debug()
    };
    renderer.set_debug(&options).map_err(|e| e.to_string())?;
    if view.is_id_view() {
        let size = targets.color.size();
        *targets = RenderTargets::new(
            &gpu.device,
            size.width,
            size.height,
            unbound::ID_TARGET_FORMAT,
        );
    }
    Ok(())
}

/// GPU time of the passes of one frame (timestamp queries).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PassTimes {
    pub(crate) cull_ms: Option<f64>,
    pub(crate) draw_ms: Option<f64>,
    /// The depth pre-pass (both occlusion phases), while on.
    pub(crate) prepass_ms: Option<f64>,
    /// The output pass (resolve, exposure, tone mapping).
    pub(crate) output_ms: Option<f64>,
    pub(crate) lights_ms: Option<f64>,
    /// Occlusion culling's depth pyramid and late cull.
    pub(crate) pyramid_ms: Option<f64>,
    pub(crate) late_cull_ms: Option<f64>,
    /// unbound with lights: the frame's cluster lists.
    pub(crate) light_lists: Option<LightListStats>,
    /// unbound with an animation: the playback pass.
    pub(crate) animation_ms: Option<f64>,
    /// unbound with shadows: every shadow view's passes.
    pub(crate) shadows_ms: Option<f64>,
    /// unbound: from the first timed pass's beginning to the last one's end.
    pub(crate) span_ms: Option<f64>,
    /// unbound: from the frame's start on the GPU to its first timed pass.
    pub(crate) lead_ms: Option<f64>,
}

impl PassTimes {
    /// unbound's, from its latest statistics.
    pub(crate) fn of(stats: Option<&GpuFrameStats>) -> Self {
        stats.map_or(Self::default(), |stats| Self {
            cull_ms: stats.cull_ms,
            draw_ms: stats.draw_ms,
            prepass_ms: stats.prepass_ms,
            lights_ms: stats.lights_ms,
            output_ms: stats.output_ms,
            pyramid_ms: stats.pyramid_ms,
            late_cull_ms: stats.late_cull_ms,
            light_lists: stats.light_lists,
            animation_ms: stats.animation_ms,
            shadows_ms: stats.shadows_ms,
            span_ms: stats.span_ms,
            lead_ms: stats.lead_ms,
        })
    }
}

/// What the last frame drew.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Counters {
    pub(crate) visible_instances: u32,
    pub(crate) draws: u32,
    pub(crate) triangles: u64,
    pub(crate) gpu_memory_bytes: u64,
    /// unbound's: whether its cull pass ran the subgroup variant.
    pub(crate) cull_subgroups: Option<bool>,
    /// unbound's frames: what each occlusion phase did.
    pub(crate) occlusion: Option<OcclusionCounts>,
    /// unbound with lights: the grid, and the frames (warm-up included)
    /// whose light index list grew because an earlier frame overflowed.
    pub(crate) light_grid: Option<(ClusterGrid, u32)>,
    /// unbound with cluster culling: what it did in the last frame.
    pub(crate) clusters: Option<ClusterCounts>,
    /// unbound's: what its frames ran (`geometry_name`).
    pub(crate) geometry: Option<&'static str>,
}

impl Counters {
    /// unbound's frame, from its statistics (`light_grid`: the cluster
    /// grid and its grown frames, where the run reports them).
    pub(crate) fn of_unbound(
        stats: &GpuFrameStats,
        renderer: &Renderer,
        light_grid: Option<(ClusterGrid, u32)>,
    ) -> Self {
        Self {
            visible_instances: stats.visible_instances,
            draws: stats.draws,
            triangles: stats.triangles,
            gpu_memory_bytes: renderer.memory().total_bytes(),
            cull_subgroups: Some(renderer.cull_uses_subgroups()),
            occlusion: Some(OcclusionCounts {
                early_instances: stats.early_instances,
                late_instances: stats.late_instances,
                occluded_instances: stats.occluded_instances,
                cascade_casters: stats.cascade_casters.map(|c| [c.drawn, c.late, c.occluded]),
            }),
            light_grid,
            clusters: stats.clusters.map(ClusterCounts::of),
            geometry: Some(geometry_name(renderer)),
        }
    }
}

/// What unbound's frames ran, as JSON `geometry` names it: `forward`, or
/// `visibility` with `+compute-buffer` or `+compute-texture` (the compute
/// rasteriser) and `+compute-shading` (the compute material pass).
fn geometry_name(renderer: &unbound::Renderer) -> &'static str {
    use unbound::{ComputeRaster, MaterialPass};
    if renderer.geometry() == unbound::Geometry::Forward {
        return "forward";
    }
    let compute = renderer.material_pass() == MaterialPass::Compute;
    match (renderer.compute_raster(), compute) {
        (ComputeRaster::Buffer, false) => "visibility+compute-buffer",
        (ComputeRaster::Buffer, true) => "visibility+compute-buffer+compute-shading",
        (ComputeRaster::Texture, false) => "visibility+compute-texture",
        (ComputeRaster::Texture, true) => "visibility+compute-texture+compute-shading",
        (_, false) => "visibility",
        (_, true) => "visibility+compute-shading",
    }
}

/// The frame target of a timed frame: colour and depth cleared (to black).
pub(crate) fn frame(targets: &RenderTargets) -> FrameTarget<'_> {
    FrameTarget::new(&targets.color_view, &targets.depth_view)
}

/// unbound's `Renderer`: the whole frame, or the cull pass alone.
pub(crate) struct UnboundPath {
    renderer: Renderer,
    objects: Vec<ObjectHandle>,
    targets: RenderTargets,
    cull_only: bool,
    latest: Option<GpuFrameStats>,
    /// Frames whose light index list grew (an earlier frame overflowed).
    grown_frames: u32,
}

/// unbound's settings past occlusion, LOD and subgroups: the light grid
/// (`None`: the renderer's default), the depth pre-pass, cluster culling
/// and triangle filtering, the texture heap and budget (bytes), and the
/// geometry.
pub(crate) type UnboundViews = (
    Option<crate::runs::LightGrid>,
    bool,
    (bool, bool),
    (
        (unbound::TextureHeap, Option<u64>),
        crate::runs::GeometryChoice,
    ),
);

impl UnboundPath {
    /// Unbound on `scene` for `run`, with occlusion culling and level of
    /// detail (every mesh with simplified levels) as asked.
    pub(crate) fn new(
        gpu: &Gpu,
        scene: &SceneSpec,
        run: Run,
        (occlusion, lod, subgroups): (bool, bool, bool),
        views: UnboundViews,
    ) -> Result<Self, String> {
        let config = unbound_config(gpu, scene, run, (occlusion, lod, subgroups), views);
        let mut renderer = Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config)
            .map_err(|e| e.to_string())?;
        // With LOD on, per-instance levels, or a cluster-LOD hierarchy
        // where the scene asks for one (the dense scene).
        let mesh_options = unbound::MeshOptions {
            lod_levels: if lod && !run.scene().cluster_lod() {
                unbound::lod::MAX_LOD_LEVELS
            } else {
                0
            },
            cluster_lod: lod && run.scene().cluster_lod(),
        };
        let started = std::time::Instant::now();
        let objects = scene
            .load_into_with(&mut renderer, &mesh_options)
            .map_err(|e| e.to_string())?;
        if mesh_options.cluster_lod {
            eprintln!(
                "{}: meshes added with cluster LOD in {:.2} s",
                scene.name,
                started.elapsed().as_secs_f64()
            );
        }
        Ok(Self {
            renderer,
            objects,
            targets: RenderTargets::new(&gpu.device, scene.width, scene.height, COLOR_FORMAT),
            cull_only: run.kind == crate::runs::RunKind::CullOnly,
            latest: None,
            grown_frames: 0,
        })
    }
}

/// unbound's configuration for `run` on `scene`, with occlusion culling,
/// level of detail and subgroups as asked, the light grid (default when
/// `None`), the depth pre-pass, cluster culling and the texture heap.
pub(crate) fn unbound_config(
    gpu: &Gpu,
    scene: &SceneSpec,
    run: Run,
    (occlusion, lod, subgroups): (bool, bool, bool),
    (light_grid, depth_prepass, cluster_culling, ((texture_heap, texture_budget), geometry)): UnboundViews,
) -> RendererConfig {
    let limits = gpu.adapter.limits();
    // The lists may grow as far as the device binds.
    let references = (limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
        / 4)
    .min(u64::from(unbound::lighting::clusters::MAX_LIGHT_REFERENCES)) as u32;
    let clusters = light_grid.map_or_else(ClusterGrid::default, |[x, y, z]| ClusterGrid {
        tiles_x: x,
        tiles_y: y,
        depth_slices: z,
        ..ClusterGrid::default()
    });
    let clusters = ClusterGrid {
        max_light_references: references.max(clusters.max_light_references),
        ..clusters
    };
    let capacities = Capacities {
        objects: run.instances.max(1024),
        textures_2d: (run.textures() + 16).max(64),
        // A material per texture (`--textures 65536`).
        materials: (run.textures() + 16).max(Capacities::default().materials),
        lights: (scene.lights.len() as u32).max(Capacities::default().lights),
        ..Capacities::default()
    }
    .clamped_to(&gpu.adapter.limits());
    RendererConfig {
        capacities,
        indirect: run.indirect(),
        tier: Some(run.tier()),
        shadows: unbound::ShadowSettings {
            enabled: run.shadows,
            ..Default::default()
        },
        occlusion,
        depth_prepass,
        cluster_culling: cluster_culling.0,
        triangle_filtering: cluster_culling.1,
        subgroups,
        lod: unbound::LodSettings {
            enabled: lod,
            ..Default::default()
        },
        clusters,
        texture_heap,
        texture_budget,
        geometry: geometry.0,
        compute_raster: geometry.1,
        raster_threshold: geometry.2,
        material_pass: geometry.3,
        ..RendererConfig::default()
    }
}

impl FramePath for UnboundPath {
    fn move_object(&mut self, index: usize, world_from_object: Mat4) -> Result<(), String> {
        self.renderer
            .set_transform(self.objects[index], world_from_object)
            .map_err(|e| e.to_string())
    }

    fn set_camera(&mut self, camera: &Camera) -> Result<(), String> {
        self.renderer.set_camera(camera).map_err(|e| e.to_string())
    }

    fn record_frame(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), String> {
        if self.cull_only {
            self.renderer
                .render_cull_only(encoder)
                .map_err(|e| e.to_string())?;
            Ok(())
        } else {
            let stats = self
                .renderer
                .render(encoder, &frame(&self.targets))
                .map_err(|e| e.to_string())?;
            self.grown_frames += u32::from(stats.light_references_grown);
            Ok(())
        }
    }

    fn pass_times(&mut self) -> PassTimes {
        self.latest = self.renderer.latest_gpu_stats();
        PassTimes::of(self.latest.as_ref())
    }

    fn counters(&self) -> Result<Counters, String> {
        let stats = self.latest.ok_or("no GPU statistics came back")?;
        let grid = Some((self.renderer.config().clusters, self.grown_frames));
        let counters = Counters::of_unbound(&stats, &self.renderer, grid);
        Ok(Counters {
            occlusion: counters.occlusion.filter(|_| !self.cull_only),
            ..counters
        })
    }

    fn drawn_objects(&self, gpu: &Gpu) -> Result<Option<Vec<usize>>, String> {
        if self.cull_only {
            return Ok(None);
        }
        crate::drawn::drawn_objects(gpu, &self.renderer, &self.objects).map(Some)
    }

    fn fragment_lights(&self, gpu: &Gpu) -> Result<Option<FragmentLights>, String> {
        if self.cull_only || self.renderer.lights().is_empty() {
            return Ok(None);
        }
        crate::fragments::sample(gpu, &self.renderer, &self.targets).map(Some)
    }

    fn set_debug_view(&mut self, gpu: &Gpu, view: unbound::DebugView) -> Result<(), String> {
        set_unbound_debug_view(gpu, (&mut self.renderer, &mut self.targets), view)
    }
}

/// The bind-per-draw baseline.
pub(crate) struct BaselinePath {
    baseline: BaselineRenderer,
    targets: RenderTargets,
    last: BaselineStats,
    /// Its textures with full mip chains (the baseline does not count them).
    texture_bytes: u64,
}

impl BaselinePath {
    pub(crate) fn new(gpu: &Gpu, scene: &SceneSpec) -> Self {
        Self {
            baseline: BaselineRenderer::new(&gpu.device, &gpu.queue, scene, COLOR_FORMAT),
            targets: RenderTargets::new(&gpu.device, scene.width, scene.height, COLOR_FORMAT),
            last: BaselineStats::default(),
            texture_bytes: scene
                .textures
                .iter()
                .map(|t| u64::from(t.size * t.size) * 4 * 4 / 3)
                .sum(),
        }
    }
}

impl FramePath for BaselinePath {
    fn move_object(&mut self, index: usize, world_from_object: Mat4) -> Result<(), String> {
        self.baseline.set_transform(index, world_from_object);
        Ok(())
    }

    fn set_camera(&mut self, camera: &Camera) -> Result<(), String> {
        self.baseline.set_camera(camera);
        Ok(())
    }

    fn record_frame(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), String> {
        self.last = self.baseline.render(encoder, &frame(&self.targets));
        Ok(())
    }

    fn pass_times(&mut self) -> PassTimes {
        PassTimes {
            cull_ms: None,
            draw_ms: self.baseline.last_draw_ms(),
            prepass_ms: None,
            lights_ms: None,
            output_ms: None,
            pyramid_ms: None,
            late_cull_ms: None,
            light_lists: None,
            animation_ms: None,
            shadows_ms: None,
            span_ms: None,
            lead_ms: None,
        }
    }

    fn counters(&self) -> Result<Counters, String> {
        Ok(Counters {
            visible_instances: self.last.visible_instances,
            draws: self.last.draws,
            triangles: self.last.triangles,
            gpu_memory_bytes: self.baseline.buffer_bytes() + self.texture_bytes,
            cull_subgroups: None,
            occlusion: None,
            light_grid: None,
            clusters: None,
            geometry: None,
        })
    }

    fn drawn_objects(&self, _gpu: &Gpu) -> Result<Option<Vec<usize>>, String> {
        Ok(None)
    }
}
