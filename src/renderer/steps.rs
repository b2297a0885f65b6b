//! The recipe's steps (`frame.rs`): each gathers from the renderer's parts
//! what one pass reads besides the frame's inputs, and runs the pass. They
//! take the parts they need as arguments, so the recipe can hold the
//! outputs of earlier passes while it calls them.

use crate::debug::{DebugOptions, DebugView};
use crate::exposure::AutoExposure;
use crate::output::Output;
use crate::passes::PassStats;
use crate::passes::bounds::BoundsPass;
use crate::passes::cull::{CullInputs, CullOutput, CullPass};
use crate::passes::draw::{DrawInputs, DrawPass, SunShadows};
use crate::passes::exposure::{ExposureInputs, ExposureOutput, ExposurePass};
use crate::passes::inputs::{DrawOutput, FrameInputs};
use crate::passes::lights::{LightClusters, LightPass};
use crate::passes::occlusion::Occlusion;
use crate::passes::output::{HdrTarget, OutputInputs, OutputPass};
use crate::passes::prepass::{DepthPrepass, DepthPrepassInputs, DepthPrepassOutput};
use crate::passes::rays::{RayPasses, RayViewInputs};
use crate::passes::scene::DrawPhase;
use crate::passes::scene::SceneInputs;
use crate::passes::shadow::{ShadowInputs, ShadowPass, timestamps_part};
use crate::rays::RayTracing;
use crate::readback::{CascadeCounters, Readback};
use crate::renderer::shadows::ShadowState;
use crate::renderer::{FrameStats, Passes, Renderer};
use crate::shaders::DrawShading;
use crate::target::FrameTarget;

/// The renderer's parts one frame works with, borrowed apart, so that the
/// recipe can hold one pass's output while it runs the next.
pub(super) struct FrameParts<'a> {
    /// What every pass reads.
    pub frame: FrameInputs<'a>,
    pub cull: &'a mut CullPass,
    pub lights: &'a mut LightPass,
    pub draw: &'a mut DrawPass,
    pub output: &'a mut OutputPass,
    /// Built when the bounds view is first drawn.
    pub bounds: &'a mut Option<BoundsPass>,
    /// The ray tables and the traced views, with ray queries.
    pub rays: &'a mut Option<RayPasses>,
    /// The acceleration structures, with ray queries.
    pub tracing: Option<&'a RayTracing>,
    pub occlusion: &'a mut Occlusion,
    pub shadows: &'a mut ShadowState,
    pub readback: &'a mut Readback,
    /// Exposure and tone mapping.
    pub exposure: &'a Output,
    /// The depth pre-pass, while it is on.
    pub prepass: Option<&'a mut DepthPrepass>,
    /// Automatic exposure.
    pub metering: Metering<'a>,
}

/// Automatic exposure's part of a frame: the pass (built when first on),
/// the settings while on, and whether this frame jumps.
pub(super) struct Metering<'a> {
    pub pass: &'a mut Option<ExposurePass>,
    pub settings: Option<AutoExposure>,
    pub jump: &'a mut bool,
}

impl Metering<'_> {
    /// The exposure pass over the frame's HDR target, while automatic
    /// exposure is on and the output pass exposes (`view`, the lit view);
    /// else nothing. A recorded frame no longer jumps.
    pub fn record(
        &mut self,
        frame: &FrameInputs<'_>,
        encoder: &mut wgpu::CommandEncoder,
        view: DebugView,
    ) -> ExposureOutput<'_> {
        let Some(settings) = self
            .settings
            .filter(|_| output_view(view) == DebugView::Lit)
        else {
            return ExposureOutput {
                metered: None,
                stats: PassStats::default(),
            };
        };
        let (device, hdr) = (frame.device, frame.hdr);
        let pass = self
            .pass
            .get_or_insert_with(|| ExposurePass::new(device, hdr.msaa()));
        let inputs = ExposureInputs {
            hdr,
            depth: frame.target.depth,
            settings: &settings,
            jump: std::mem::take(self.jump),
        };
        pass.record(device, encoder, &inputs)
    }
}

impl Renderer {
    /// The frame's parts, once the upload ran: the HDR target made the size
    /// of `target`'s colour, the heap's bind group rebuilt if a slot
    /// changed (both counted in `stats`).
    pub(super) fn frame_parts<'a>(
        &'a mut self,
        target: &'a FrameTarget<'a>,
        stats: &mut FrameStats,
    ) -> FrameParts<'a> {
        let prepass_runs = self.prepass_runs();
        let created = self.hdr.prepare(&self.device, target.color.size());
        stats.hdr_targets_created = u32::from(created);
        let (heap, rebuilt) = self.heap.bind_group();
        stats.bind_group_rebuilds += u32::from(rebuilt);
        let Passes {
            cull,
            lights,
            draw,
            output,
            bounds,
            exposure,
            rays,
            prepass,
        } = &mut self.passes;
        let prepass = prepass.as_mut().filter(|_| prepass_runs);
        FrameParts {
            frame: FrameInputs {
                device: &self.device,
                tables: self.tables.gpu(),
                views: &self.views,
                heap,
                environment: self.environment.maps.bind_group(),
                lights: self.tables.light_inputs(self.config.clusters),
                target,
                hdr: &self.hdr,
            },
            cull,
            lights,
            draw,
            output,
            bounds,
            rays,
            tracing: self.rays.as_ref(),
            occlusion: &mut self.occlusion,
            shadows: &mut self.shadows,
            readback: &mut self.readback,
            exposure: &self.output,
            prepass,
            metering: Metering {
                pass: exposure,
                settings: self.auto_exposure,
                jump: &mut self.exposure_jump,
            },
        }
    }
}

/// What the recipe decides before the passes run, from the renderer's
/// switches.
#[derive(Clone, Copy, Debug)]
pub(super) struct FrameSettings {
    /// Occlusion culling's two phases run ([`crate::Renderer::occlusion`],
    /// when the frame draws).
    pub occlusion: bool,
    /// The shadow cascades' too
    /// ([`crate::Renderer::cascade_occlusion`]).
    pub cascade_occlusion: bool,
    pub debug: DebugOptions,
    /// The sun's shadows come from ray queries instead of the shadow map.
    pub ray_query_shadows: bool,
}

/// The depth pre-pass of `scene`'s draws of `phase` (the first draws, or
/// the late occlusion phase's), while it is on, with the draw pass's scene
/// layout and instance ids: what the draw pass of the same draws takes.
pub(super) fn record_depth_prepass(
    prepass: Option<&mut DepthPrepass>,
    frame: &FrameInputs<'_>,
    encoder: &mut wgpu::CommandEncoder,
    (scene, draw): (&SceneInputs<'_>, &DrawPass),
    phase: DrawPhase,
    timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> Option<DepthPrepassOutput> {
    let inputs = DepthPrepassInputs {
        scene,
        scene_layout: draw.scene_layout(),
        instance_ids: draw.instance_ids(),
    };
    prepass.map(|prepass| prepass.record(frame, encoder, &inputs, phase, timestamps))
}

impl FrameSettings {
    /// Whether the camera is traced (the ray views) instead of drawn.
    pub fn traced(&self) -> bool {
        self.debug.view.traces_rays()
    }

    /// Whether the bounds view is drawn over the frame (not over ids).
    pub fn draws_bounds(&self) -> bool {
        self.debug.culled_bounds && !self.debug.view.is_id_view()
    }

    /// What the output pass reads: `hdr` as the camera's pass left it,
    /// written as [`output_view`] says, exposed as `exposure` says unless
    /// the exposure pass `metered` one.
    pub fn output_inputs<'a>(
        &self,
        hdr: &'a HdrTarget,
        exposure: &'a Output,
        metered: &ExposureOutput<'a>,
    ) -> OutputInputs<'a> {
        OutputInputs {
            hdr,
            output: exposure,
            view: output_view(self.debug.view),
            metered_exposure: metered.metered,
        }
    }

    /// The camera's first draw: the early phase with occlusion culling,
    /// else every bucket.
    pub fn first_draw(&self) -> DrawPhase {
        DrawPhase::first(self.occlusion)
    }

    /// The draw shader variant: the debug one while a debug view or the
    /// missing-texture highlight is on, else the lit one, with punctual
    /// lights while any is live (`lit`).
    fn shading(&self, lit: bool) -> DrawShading {
        if self.debug.view != DebugView::Lit || self.debug.highlight_missing {
            DrawShading::Debug
        } else if lit {
            DrawShading::LitWithLights
        } else {
            DrawShading::Lit
        }
    }
}

/// The cull pass over the frame's tables and views, into `inputs.out`.
pub(super) fn record_cull<'o>(
    cull: &mut CullPass,
    frame: &FrameInputs<'_>,
    encoder: &mut wgpu::CommandEncoder,
    inputs: &CullInputs<'o, '_>,
    timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
) -> CullOutput<'o> {
    let (device, tables, views) = (frame.device, &frame.tables, frame.views);
    cull.record(device, encoder, tables, views, inputs, timestamps)
}

/// The light pass over the frame's light table, for the main view.
pub(super) fn record_lights<'a>(
    lights: &mut LightPass,
    frame: &FrameInputs<'a>,
    encoder: &mut wgpu::CommandEncoder,
    timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
) -> LightClusters<'a> {
    let (device, views) = (frame.device, frame.views);
    lights.record(device, encoder, &frame.lights, views, timestamps)
}

/// What the shadow step runs: the shadow pass (once built), the draw pass
/// (its scene layout and instance ids) and, while the cascades are culled
/// by occlusion, the cull pass and the occlusion state.
pub(super) type ShadowParts<'a> = (
    Option<&'a mut ShadowPass>,
    &'a DrawPass,
    Option<(&'a mut CullPass, &'a mut Occlusion)>,
);

/// The shadow pass, while shadows are on and the frame has cascades: the
/// casters the cull pass kept for each shadow view, drawn with the draw
/// pass's scene layout and instance ids. With `cascade_culling` (the
/// cascades culled by occlusion), then per cascade the pyramid of its
/// early depth, its late cull and its late casters.
pub(super) fn record_shadows(
    (pass, draw, cascade_culling): ShadowParts<'_>,
    frame: &FrameInputs<'_>,
    encoder: &mut wgpu::CommandEncoder,
    (culled, clusters): (&CullOutput<'_>, &LightClusters<'_>),
    timestamps: Option<&wgpu::RenderPassTimestampWrites<'_>>,
) -> PassStats {
    let Some(pass) = pass.filter(|_| !frame.views.cascades.is_empty()) else {
        return PassStats::default();
    };
    let inputs = ShadowInputs {
        culled,
        scene_layout: draw.scene_layout(),
        clusters,
        instance_ids: draw.instance_ids(),
    };
    let map = pass.texture().cloned();
    let late = cascade_culling.zip(map);
    let cascades = late.as_ref().map_or(0, |((_, occlusion), _)| {
        frame.views.cascades.len().min(occlusion.cascades.len())
    });
    // The end timestamp goes to the last late pass, if any.
    let early_time = timestamps_part(timestamps, true, cascades == 0);
    let mut stats = pass.record(frame, encoder, &inputs, early_time.as_ref());
    let Some(((cull, occlusion), map)) = late else {
        return stats;
    };
    for cascade in 0..cascades {
        let pyramid = occlusion.record_cascade_pyramid(frame.device, encoder, &map, cascade);
        let late = record_cull(cull, frame, encoder, &pyramid.late_cull, None);
        stats += pyramid.stats + late.stats;
        let time = timestamps_part(timestamps, false, cascade + 1 == cascades);
        stats += pass.record_late(frame, encoder, &inputs, cascade, &late, time);
    }
    stats
}

/// Where each of the frame's cascades' cull headers lie, for the
/// statistics: the views' counters at its region and, with `late` (the
/// cascades culled by occlusion), its late phase's.
pub(super) fn cascade_counters<'a>(
    frame: &FrameInputs<'a>,
    occlusion: &'a Occlusion,
    late: bool,
) -> Vec<CascadeCounters<'a>> {
    let cull = &frame.views.cull;
    (0..frame.views.cascades.len())
        .filter_map(|c| {
            let region = cull.region(1 + c as u32)?;
            let late = occlusion.cascades.get(c).filter(|_| late);
            Some(CascadeCounters {
                early: (&cull.counters, region.counters_offset),
                late: late.map(|l| &l.late.counters),
            })
        })
        .collect()
}

/// The scene group's inputs for the camera: the tables, the main view and
/// what `culled` holds for it, the lights and their clusters.
pub(super) fn camera_scene<'a>(
    frame: &'a FrameInputs<'a>,
    culled: &CullOutput<'a>,
    clusters: &'a LightClusters<'a>,
) -> SceneInputs<'a> {
    let view = &frame.views.main;
    SceneInputs {
        tables: &frame.tables,
        view,
        culled: culled.view(view),
        lights: &frame.lights,
        clusters,
    }
}

/// How the draw pass shades the camera this frame: the shader variant, and
/// the group the sun's shadows read (the ray tables for ray-query shadows,
/// else the shadow map while it has cascades).
pub(super) struct CameraShading {
    shading: DrawShading,
    ray_tables: Option<wgpu::BindGroup>,
    shadow_map: Option<wgpu::BindGroup>,
    /// The ray tables' group rebuilt for it, if it was.
    pub stats: PassStats,
}

impl CameraShading {
    pub fn new(
        frame: &FrameInputs<'_>,
        settings: FrameSettings,
        rays: &mut Option<RayPasses>,
        tracing: Option<&RayTracing>,
        shadows: &ShadowState,
    ) -> Self {
        let (ray_tables, rebuilt) = match (settings.ray_query_shadows, rays, tracing) {
            (true, Some(rays), Some(tracing)) => {
                let (tlas, version) = (tracing.tlas(), tracing.version());
                let (group, rebuilt) =
                    rays.tables
                        .bind_group(frame.device, &frame.tables, tlas, version);
                (Some(group.clone()), rebuilt)
            }
            _ => (None, false),
        };
        let maps = shadows.pass.as_ref();
        let maps = maps.filter(|_| !frame.views.cascades.is_empty());
        Self {
            shading: settings.shading(frame.lights.slots > 0),
            ray_tables,
            shadow_map: maps.and_then(ShadowPass::shading_group).cloned(),
            stats: PassStats {
                bind_group_rebuilds: u32::from(rebuilt),
                ..PassStats::default()
            },
        }
    }

    /// The draw pass's inputs for the camera's `scene`, after the depth
    /// pre-pass of the same draws if one ran (`prepassed`).
    pub fn inputs<'a>(
        &'a self,
        scene: SceneInputs<'a>,
        prepassed: Option<&'a DepthPrepassOutput>,
    ) -> DrawInputs<'a> {
        DrawInputs {
            scene,
            shading: self.shading,
            sun_shadows: SunShadows::choose(self.ray_tables.as_ref(), self.shadow_map.as_ref()),
            prepassed,
        }
    }
}

/// The traced views in place of the draw pass: primary rays through the
/// draw pass's scene group (`set_debug` refuses them without ray queries).
pub(super) fn trace_camera<'a>(
    frame: &FrameInputs<'a>,
    encoder: &mut wgpu::CommandEncoder,
    (rays, tracing, draw): (&mut RayPasses, &RayTracing, &mut DrawPass),
    scene: &SceneInputs<'_>,
    settings: FrameSettings,
    timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> DrawOutput<'a> {
    let (scene, rebuilt) = draw.scene_group(frame.device, scene);
    let path_traced = settings.debug.view == DebugView::PathTraced;
    let inputs = RayViewInputs {
        scene,
        tracing,
        path_traced,
    };
    let mut drawn = rays.record(frame, encoder, &inputs, timestamps);
    drawn.stats.bind_group_rebuilds += u32::from(rebuilt);
    drawn
}

/// The bounds view over the frame's colour target: every object's bounds,
/// culled ones red, occluded ones orange (`visibility`: the camera's bits
/// and their version). Built when first drawn.
pub(super) fn record_bounds(
    bounds: &mut Option<BoundsPass>,
    frame: &FrameInputs<'_>,
    encoder: &mut wgpu::CommandEncoder,
    visibility: (&wgpu::Buffer, u64),
) -> PassStats {
    let device = frame.device;
    let bounds = bounds.get_or_insert_with(|| BoundsPass::new(device));
    let (color, tables, view) = (frame.target.color.view(), &frame.tables, &frame.views.main);
    bounds.record(device, encoder, color, tables, view, visibility)
}

/// What the output pass writes a frame of `view` as: the path-traced view
/// is radiance, exposed and tone mapped like the lit view.
pub(super) fn output_view(view: DebugView) -> DebugView {
    match view {
        DebugView::PathTraced => DebugView::Lit,
        view => view,
    }
}
