//! The depth pre-pass (opt-in, [`crate::Renderer::set_depth_prepass`]): the
//! camera's opaque and double-sided draws, depth only, before the draw pass
//! shades them, so that each pixel is shaded once however many surfaces
//! cover it. Without it every fragment nearer than what was drawn before it
//! runs the whole shading, the light loop included; with it the draw pass
//! tests depth for equality with what the pre-pass wrote, without writing
//! depth, and shades only the nearest surface of each sample.
//!
//! **Same depth, same fragments.** The pre-pass issues exactly the draw
//! pass's multi-draws (the same culled indirect draws, instance ids and
//! index buffer) through the draw shader's own vertex stage (`vs_main` of
//! `wgsl/draw.wgsl`, whose position is `@invariant`), so the shaded pass
//! computes the very depth the pre-pass stored. Alpha-masked materials need
//! the alpha test in the pre-pass too: while one exists, the pre-pass runs
//! `fs_depth`, the draw shader's alpha test alone (`fs_main` computes the
//! same alpha from the same texel), else no fragment shader at all. Blended
//! objects are not pre-passed: they test against the final depth and blend
//! as before.
//!
//! **With occlusion culling** both phases have a pre-pass: the early draws'
//! depth before the early shading (the depth pyramid is built from the same
//! depth as without it), the late draws' over it before the late shading.
//!
//! **Images** are those without the pre-pass: the same depth per sample and
//! the same nearest surface, so ids are exact and colours equal, except
//! where two surfaces have exactly the same depth at a sample (coplanar
//! geometry), where the last drawn wins instead of the first.
//! `tests/prepass.rs` compares them (tiers A and B, with lights, occlusion,
//! masks and MSAA); tier C draws through the same pass (`tests/tiers.rs`).
//!
//! **The visibility pass** is this pass with an id target
//! (`src/passes/visibility.rs`): built with `visibility` on, it writes
//! each sample's object and triangle beside its depth, and the draw pass
//! then shades the ids in one material pass (a compute pass by default,
//! `src/passes/visibility.rs`).

use crate::capabilities::tier::HeapLayout;
use crate::gpu_types::{BUCKET_DOUBLE_SIDED, BUCKET_OPAQUE};
use crate::output::{DEPTH_FORMAT, Msaa};
use crate::passes::compute_raster::ComputeRasterPass;
use crate::passes::inputs::FrameInputs;
use crate::passes::scene::DrawPhase;
use crate::passes::scene::{BucketDraws, DepthOnlyPipelines, SceneBindGroup, SceneInputs};
use crate::passes::visibility::{IdTarget, VisibilityIds, visibility_pipelines};
use crate::passes::{BufferBindGroup, PassStats};
use crate::shaders::{self, DrawShading, ShadowSource};

/// What the pre-pass hands the draw pass: that the camera's depth already
/// holds the nearest opaque surface of each sample (the draw pass then
/// loads it and tests for equality), and what it recorded.
#[derive(Debug)]
pub(crate) struct DepthPrepassOutput {
    pub stats: PassStats,
    /// The visibility pass's ids: the draw pass then runs the material
    /// pass in place of its opaque and double-sided buckets.
    pub ids: Option<VisibilityIds>,
}

/// What the pre-pass reads besides the frame's inputs (whose heap it binds
/// for alpha masks).
pub(crate) struct DepthPrepassInputs<'a> {
    /// The camera's scene group inputs, as the draw pass binds them.
    pub scene: &'a SceneInputs<'a>,
    /// The draw pass's scene layout (group 1).
    pub scene_layout: &'a wgpu::BindGroupLayout,
    /// 0, 1, 2, ...: the instance-rate draw identity.
    pub instance_ids: &'a wgpu::Buffer,
}

/// The depth pre-pass's pipelines (opaque and double-sided buckets) and
/// the camera's scene groups.
#[derive(Debug)]
pub(crate) struct DepthPrepass {
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    msaa: Msaa,
    /// No fragment shader: while no material is alpha-masked.
    depth_only: [wgpu::RenderPipeline; 2],
    /// With `fs_depth`: built when a masked material first exists.
    masked: Option<[wgpu::RenderPipeline; 2]>,
    /// The scene group of the first phase and of the late occlusion phase
    /// (its own cull buffers).
    bind_group: SceneBindGroup,
    late_bind_group: SceneBindGroup,
    count_in_buffer: bool,
    /// The visibility pass's pipelines (first phase, late phase; each
    /// opaque and double-sided), and its id target.
    visibility: Option<[[wgpu::RenderPipeline; 2]; 2]>,
    ids: IdTarget,
    /// The visibility pass's compute rasteriser, while it runs
    /// (`src/passes/compute_raster/`).
    raster: Option<ComputeRasterPass>,
}

impl DepthPrepass {
    pub fn new(
        device: &wgpu::Device,
        heap: HeapLayout,
        (heap_layout, scene_layout): (&wgpu::BindGroupLayout, &wgpu::BindGroupLayout),
        (msaa, visibility): (Msaa, bool),
        count_in_buffer: bool,
    ) -> Self {
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound depth pre-pass"),
            bind_group_layouts: &[Some(heap_layout), Some(scene_layout)],
            immediate_size: 0,
        });
        // The lit variant's vertex stage is every variant's (the debug one
        // only adds outputs).
        let variant = shaders::draw_variant(heap, DrawShading::Lit, ShadowSource::Off);
        let module = variant.create(device);
        let depth_only = prepass_pipelines(device, &pipeline_layout, &module, msaa, false);
        let visibility = visibility.then(|| {
            let variant = shaders::visibility_variant(heap, DrawShading::Lit, ShadowSource::Off);
            let module = variant.create(device);
            [false, true].map(|late| visibility_pipelines(device, &pipeline_layout, &module, late))
        });
        Self {
            visibility,
            ids: IdTarget::default(),
            raster: None,
            pipeline_layout,
            module,
            msaa,
            depth_only,
            masked: None,
            bind_group: BufferBindGroup::new("unbound depth pre-pass scene"),
            late_bind_group: BufferBindGroup::new("unbound late depth pre-pass scene"),
            count_in_buffer,
        }
    }

    /// The id target's bytes, and the compute rasteriser's (none without
    /// the visibility pass).
    pub fn ids_size_bytes(&self) -> u64 {
        let raster = self
            .raster
            .as_ref()
            .map_or(0, ComputeRasterPass::size_bytes);
        self.ids.size_bytes() + raster
    }

    /// Runs the compute rasteriser of `path` (the visibility pass only;
    /// [`crate::ComputeRaster::Off`]: none), built again when the path
    /// changes. Which instances it takes is the cull pass's decision (the
    /// frame uniforms' `raster`).
    pub fn set_compute_raster(&mut self, device: &wgpu::Device, path: crate::ComputeRaster) {
        let path = if self.visibility() {
            path
        } else {
            crate::ComputeRaster::Off
        };
        if path == crate::ComputeRaster::Off {
            self.raster = None;
        } else if self.raster.as_ref().is_none_or(|r| r.path() != path) {
            self.raster = Some(ComputeRasterPass::new(device, path));
        }
    }

    /// The compute rasteriser, while it runs.
    pub fn compute_raster(&self) -> Option<&ComputeRasterPass> {
        self.raster.as_ref()
    }

    /// Whether this is the visibility pass.
    pub fn visibility(&self) -> bool {
        self.visibility.is_some()
    }

    /// The visibility pass's id target, once a frame made it.
    pub fn ids_texture(&self) -> Option<&wgpu::Texture> {
        self.visibility.as_ref().and(self.ids.texture())
    }

    /// Records the pre-pass of `phase`'s draws into the frame target's
    /// depth: cleared or loaded as the target says for the frame's first
    /// draws, loaded for the late occlusion phase's.
    pub fn record(
        &mut self,
        frame: &FrameInputs<'_>,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &DepthPrepassInputs<'_>,
        phase: DrawPhase,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> DepthPrepassOutput {
        let (device, tables) = (frame.device, &frame.tables);
        let late = phase == DrawPhase::Late;
        let pipelines = if let Some(phases) = &self.visibility {
            &phases[usize::from(late)]
        } else if tables.masked_materials > 0 {
            let (layout, module, msaa) = (&self.pipeline_layout, &self.module, self.msaa);
            self.masked
                .get_or_insert_with(|| prepass_pipelines(device, layout, module, msaa, true))
        } else {
            &self.depth_only
        };
        let (cache, load, label) = match phase {
            DrawPhase::All | DrawPhase::Early => (
                &mut self.bind_group,
                frame.target.depth_load.into(),
                "unbound depth pre-pass",
            ),
            DrawPhase::Late => (
                &mut self.late_bind_group,
                wgpu::LoadOp::Load,
                "unbound late depth pre-pass",
            ),
        };
        let (scene, rebuilt) = inputs.scene.bind_group(cache, device, inputs.scene_layout);
        let mut stats = PassStats {
            commands_recorded: 1,
            bind_groups_set: 0,
            bind_group_rebuilds: u32::from(rebuilt),
        };
        // The visibility pass's ids (`id_attachment`).
        let id_view = self.visibility.as_ref().map(|_| {
            let size = frame.target.color.size();
            self.ids.prepare(device, size).clone()
        });
        let ids = id_view.as_ref().and_then(|_| self.ids.ids());
        let id_attachment = id_view.as_ref().map(|view| id_attachment(view, late));
        // The compute rasteriser's passes first; they open the timestamp
        // range the render pass closes.
        let mut timestamps = timestamps;
        let mut rasterised = false;
        if let (Some(raster), Some(_)) = (self.raster.as_mut(), &ids) {
            let size = frame.target.color.size();
            let opening = timestamps
                .as_ref()
                .map(|t| (t.query_set, t.beginning_of_pass_write_index));
            let (raster_stats, ran) = raster.record(device, encoder, inputs.scene, size, opening);
            stats += raster_stats;
            rasterised = ran;
            if ran {
                timestamps = timestamps.map(|t| wgpu::RenderPassTimestampWrites {
                    beginning_of_pass_write_index: None,
                    ..t
                });
            }
        }
        let label = match ids {
            Some(_) => label.replace("depth pre-pass", "visibility pass"),
            None => label.to_owned(),
        };
        // The depth pre-pass has no colour attachment at all.
        let attachments = [id_attachment];
        let color_attachments = match attachments[0] {
            Some(_) => &attachments[..],
            None => &[],
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(&label),
            color_attachments,
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: frame.target.depth.view(),
                depth_ops: Some(wgpu::Operations {
                    load,
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let culled = &inputs.scene.culled;
        let draws_per_bucket = tables.mesh_slots.min(culled.draws_per_bucket);
        if draws_per_bucket == 0 {
            return DepthPrepassOutput { stats, ids };
        }
        pass.set_bind_group(0, frame.heap, &[]);
        pass.set_bind_group(1, scene, &[]);
        pass.set_vertex_buffer(0, inputs.instance_ids.slice(..));
        pass.set_index_buffer(tables.indices.slice(..), wgpu::IndexFormat::Uint32);
        stats.bind_groups_set += 2;
        stats.commands_recorded += 4;
        for (pipeline, bucket) in pipelines.iter().zip([BUCKET_OPAQUE, BUCKET_DOUBLE_SIDED]) {
            let objects = tables.bucket_objects[bucket as usize];
            if objects == 0 {
                continue;
            }
            pass.set_pipeline(pipeline);
            let draws = BucketDraws {
                culled,
                bucket,
                objects,
                draws_per_bucket,
                count_in_buffer: self.count_in_buffer,
                bound: (tables.indices, inputs.instance_ids),
            };
            stats.commands_recorded += 1 + draws.record(&mut pass);
        }
        if let Some(raster) = self.raster.as_ref().filter(|_| rasterised) {
            stats += raster.record_resolve(&mut pass, late);
        }
        DepthPrepassOutput { stats, ids }
    }
}

/// The visibility pass's id attachment: cleared to 0 (nothing drawn) by
/// the first phase, loaded by the late one.
fn id_attachment(view: &wgpu::TextureView, late: bool) -> wgpu::RenderPassColorAttachment<'_> {
    let load = if late {
        wgpu::LoadOp::Load
    } else {
        wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
    };
    wgpu::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load,
            store: wgpu::StoreOp::Store,
        },
    }
}

/// The pre-pass's pipelines for the opaque and double-sided buckets, as
/// the draw pass's bucket pipelines rasterize them: `fs_depth` (the alpha
/// test alone) with `masked`.
fn prepass_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    msaa: Msaa,
    masked: bool,
) -> [wgpu::RenderPipeline; 2] {
    DepthOnlyPipelines {
        label: "unbound depth pre-pass",
        vertex: "vs_main",
        fragment: masked.then_some("fs_depth"),
        format: DEPTH_FORMAT,
        sample_count: msaa.sample_count(),
    }
    .build(device, layout, module)
}
