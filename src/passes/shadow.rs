//! The shadow pass: each shadow cascade's and each shadowed spot light's
//! casters, depth only, into its layer of the shadow map (one
//! `Depth32Float` texture array: the cascades' layers, then the spots'),
//! through the same GPU-driven path as the camera: the cull pass has
//! written each view's visible list and indirect draws (its region of the
//! cull buffers), and each view is one render pass with one multi-draw per
//! pipeline bucket in use (opaque and double-sided: blended objects cast no
//! shadows), with a GPU count on tier A and over one draw per mesh slot on
//! tiers B and C, exactly as the draw pass issues them. See
//! `wgsl/shadow.wgsl` and [`crate::shadows`].
//!
//! The shading reads the map through bind group
//! [`SHADOW_GROUP`](crate::passes::draw::SHADOW_GROUP) (uniforms, the
//! array, a comparison sampler: one more texture unit on tier C's GL, 15
//! of 16 with the heap's 12 and the environment's 2).
//!
//! The pass pulls vertices as the draw pass does (`wgsl/pull.wgsl`, shared)
//! and has no fragment shader while no material is alpha-masked; with one,
//! `fs_mask` samples the base colour's alpha through the heap (binding arrays,
//! or tier C's texture arrays) and discards below the cutoff, so masked
//! materials cast their holes. Casters nearer than a view's near plane are
//! pancaked onto it in the vertex shader. Spot shadows are drawn only while
//! shadows are on and not replaced by ray-query shadows; point lights cast
//! none.
//!
//! With the cascades culled by occlusion (`src/passes/occlusion.rs`), each
//! cascade's layer gets a second, late pass (`ShadowPass::record_late`,
//! loaded) with the casters its late cull found. The pass is timed from the
//! first view's pass to the last late one (`GpuFrameStats::shadows_ms`).
//!
//! Frames without shadows draw with shader variants without any of this code,
//! so they cost nothing more. Tests: `tests/shadows.rs` and
//! `tests/spot_shadows.rs` (shadows where a CPU ray test towards the light
//! predicts them, for a box and a masked quad's holes; reference images, tier
//! B identical; texel snapping; the choice of spots; bad settings),
//! `tests/view_culling.rs` (every shadow view's visible set against the CPU
//! reference), `tests/tiers.rs` (tier C), `tests/cascade_occlusion.rs`
//! (the map and image with the cascades culled by occlusion). [`crate::DebugView::Cascades`]
//! colours each pixel by its cascade.

use crate::capabilities::tier::HeapLayout;
use crate::gpu_types::{BUCKET_DOUBLE_SIDED, BUCKET_OPAQUE};
use crate::passes::cull::{CullOutput, CulledView};
use crate::passes::inputs::FrameInputs;
use crate::passes::lights::LightClusters;
use crate::passes::scene::{BucketDraws, DepthOnlyPipelines, SceneBindGroup, SceneInputs};
use crate::passes::{
    BufferBindGroup, PassStats, View, buffer_entry, layout_entry, texture_binding,
};
use crate::shaders;
use crate::shadows::{SHADOW_FORMAT, ShadowSettings};

/// The layout of the shading's shadow group
/// ([`SHADOW_GROUP`](crate::passes::draw::SHADOW_GROUP), fragment stage and
/// the compute material pass):
/// the `ShadowUniforms`, the shadow map array and its comparison sampler,
/// in `wgsl/shadows.wgsl`'s binding order.
pub fn shading_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let fragment = wgpu::ShaderStages::FRAGMENT | wgpu::ShaderStages::COMPUTE;
    let (depth, layers) = (
        wgpu::TextureSampleType::Depth,
        wgpu::TextureViewDimension::D2Array,
    );
    let comparison = wgpu::SamplerBindingType::Comparison;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("unbound shadows"),
        entries: &[
            buffer_entry(0, fragment, wgpu::BufferBindingType::Uniform),
            layout_entry(1, fragment, texture_binding(depth, layers, false)),
            layout_entry(2, fragment, wgpu::BindingType::Sampler(comparison)),
        ],
    })
}

/// The shadow map of the settings in use and the shading's bind group
/// over it.
#[derive(Debug)]
struct ShadowMap {
    resolution: u32,
    /// [`ShadowSettings::map_layers`].
    map_layers: u32,
    /// Layers drawn: cascades and spots.
    views: u32,
    texture: wgpu::Texture,
    /// One depth attachment per cascade, then per spot.
    layers: Vec<wgpu::TextureView>,
    shading: wgpu::BindGroup,
}

impl ShadowMap {
    fn new(
        device: &wgpu::Device,
        settings: &ShadowSettings,
        layout: &wgpu::BindGroupLayout,
        sampler: &wgpu::Sampler,
        uniforms: &wgpu::Buffer,
    ) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("unbound shadow map"),
            size: wgpu::Extent3d {
                width: settings.resolution,
                height: settings.resolution,
                depth_or_array_layers: settings.map_layers(),
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: SHADOW_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let layers = (0..settings.cascades + settings.spot_lights)
            .map(|layer| {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("unbound shadow map layer"),
                    dimension: Some(wgpu::TextureViewDimension::D2),
                    base_array_layer: layer,
                    array_layer_count: Some(1),
                    ..Default::default()
                })
            })
            .collect();
        let array = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("unbound shadow map"),
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let shading = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound shadows"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&array),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Sampler(sampler),
                },
            ],
        });
        Self {
            resolution: settings.resolution,
            map_layers: settings.map_layers(),
            views: settings.cascades + settings.spot_lights,
            texture,
            layers,
            shading,
        }
    }
}

/// The shadow pass's pipelines (per pipeline bucket that casts: opaque and
/// double-sided), the shadow map and the shadow views' bind groups.
#[derive(Debug)]
pub(crate) struct ShadowPass {
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    /// Depth only, no fragment shader: while no material is alpha-masked.
    depth_only: [wgpu::RenderPipeline; 2],
    /// With `fs_mask` (alpha tested through the heap): built when a masked
    /// material first exists.
    masked: Option<[wgpu::RenderPipeline; 2]>,
    shading_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    map: Option<ShadowMap>,
    /// Group 1 of each shadow view: the scene tables and its cull region.
    bind_groups: Vec<SceneBindGroup>,
    /// Group 1 of each cascade's late phase (its late buffers).
    late_bind_groups: Vec<SceneBindGroup>,
    /// The cascades and spots `bind_groups` were made for: a view's region
    /// (and which view the i-th group serves) moves when either changes.
    bound_views: (usize, usize),
    count_in_buffer: bool,
}

/// What the shadow pass reads besides the frame's inputs (whose heap it
/// binds for alpha masks).
pub(crate) struct ShadowInputs<'a> {
    /// What the cull pass wrote for every shadow view.
    pub culled: &'a CullOutput<'a>,
    /// The draw pass's scene layout (group 1), whose light table and
    /// cluster lists are bound too (the shadow pass reads neither).
    pub scene_layout: &'a wgpu::BindGroupLayout,
    pub clusters: &'a LightClusters<'a>,
    /// 0, 1, 2, ...: the instance-rate draw identity.
    pub instance_ids: &'a wgpu::Buffer,
}

impl ShadowPass {
    pub fn new(
        device: &wgpu::Device,
        heap: HeapLayout,
        heap_layout: &wgpu::BindGroupLayout,
        scene_layout: &wgpu::BindGroupLayout,
        shading_layout: &wgpu::BindGroupLayout,
        count_in_buffer: bool,
    ) -> Self {
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound shadow"),
            bind_group_layouts: &[Some(heap_layout), Some(scene_layout)],
            immediate_size: 0,
        });
        let module = shaders::shadow_variant(heap).create(device);
        let depth_only = shadow_pipelines(device, &pipeline_layout, &module, false);
        Self {
            pipeline_layout,
            module,
            depth_only,
            masked: None,
            shading_layout: shading_layout.clone(),
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("unbound shadow comparison"),
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                compare: Some(wgpu::CompareFunction::LessEqual),
                ..Default::default()
            }),
            map: None,
            bind_groups: Vec::new(),
            late_bind_groups: Vec::new(),
            bound_views: (0, 0),
            count_in_buffer,
        }
    }

    /// Makes the shadow map match `settings` (a new one when the resolution
    /// or the layer count changed). `uniforms` is the views'
    /// `ShadowUniforms` buffer, which the shading's group binds.
    pub fn ensure_map(
        &mut self,
        device: &wgpu::Device,
        settings: &ShadowSettings,
        uniforms: &wgpu::Buffer,
    ) {
        let current = self.map.as_ref().is_some_and(|m| {
            m.resolution == settings.resolution
                && m.views == settings.cascades + settings.spot_lights
        });
        if !current {
            self.map = Some(ShadowMap::new(
                device,
                settings,
                &self.shading_layout,
                &self.sampler,
                uniforms,
            ));
        }
    }

    /// The shading's shadow group, once a map exists.
    pub fn shading_group(&self) -> Option<&wgpu::BindGroup> {
        self.map.as_ref().map(|m| &m.shading)
    }

    /// The shadow map (one layer per cascade, then one per spot shadow),
    /// once one exists.
    pub fn texture(&self) -> Option<&wgpu::Texture> {
        self.map.as_ref().map(|m| &m.texture)
    }

    /// Bytes of the shadow map.
    pub fn size_bytes(&self) -> u64 {
        self.map.as_ref().map_or(0, |m| {
            u64::from(m.resolution).pow(2) * u64::from(m.map_layers) * 4
        })
    }

    /// Records one depth-only render pass per shadow view of the frame
    /// (the cascades, then the spots): its layer cleared to the far plane,
    /// then its casters (with the cascades culled by occlusion, a
    /// cascade's early casters: [`Self::record_late`] adds the rest).
    ///
    /// `timestamps`: the begin query goes to the first pass, the end query
    /// (if any: else the last late pass takes it) to the last.
    pub fn record(
        &mut self,
        frame: &FrameInputs<'_>,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &ShadowInputs<'_>,
        timestamps: Option<&wgpu::RenderPassTimestampWrites<'_>>,
    ) -> PassStats {
        let mut stats = PassStats::default();
        if self.map.is_none() {
            return stats;
        }
        let split = (frame.views.cascades.len(), frame.views.spots.len());
        if split != self.bound_views {
            self.bind_groups.clear();
            self.late_bind_groups.clear();
            self.bound_views = split;
        }
        self.bind_groups.resize_with(split.0 + split.1, || {
            BufferBindGroup::new("unbound shadow view")
        });
        let views = frame.views.shadow_views();
        let last = split.0 + split.1 - 1;
        for (layer, view) in views.enumerate() {
            let culled = inputs.culled.view(view);
            let load = wgpu::LoadOp::Clear(1.0);
            let time = timestamps_part(timestamps, layer == 0, layer == last);
            stats +=
                self.record_layer(frame, encoder, inputs, (view, layer), &culled, (load, time));
        }
        stats
    }

    /// Records cascade `cascade`'s late casters (`late`: what its late cull
    /// wrote, in region 0) into its layer, loaded.
    pub fn record_late(
        &mut self,
        frame: &FrameInputs<'_>,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &ShadowInputs<'_>,
        cascade: usize,
        late: &CullOutput<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> PassStats {
        let view = &frame.views.cascades[cascade];
        if self.late_bind_groups.len() <= cascade {
            self.late_bind_groups.resize_with(cascade + 1, || {
                BufferBindGroup::new("unbound shadow late view")
            });
        }
        let layer = (view, self.bind_groups.len() + cascade);
        let load = (wgpu::LoadOp::Load, timestamps);
        self.record_layer(frame, encoder, inputs, layer, &late.buffers.output(0), load)
    }

    /// One depth-only render pass into `view`'s layer: `load`, then the
    /// casters of `culled`. `index` picks the view's cached scene group
    /// (the shadow views' in order, then each cascade's late one) and, below
    /// the shadow views' count, its layer.
    fn record_layer(
        &mut self,
        frame: &FrameInputs<'_>,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &ShadowInputs<'_>,
        (view, index): (&View, usize),
        culled: &CulledView<'_>,
        (load, timestamp_writes): (
            wgpu::LoadOp<f32>,
            Option<wgpu::RenderPassTimestampWrites<'_>>,
        ),
    ) -> PassStats {
        let device = frame.device;
        let mut stats = PassStats::default();
        let Some(map) = &self.map else {
            return stats;
        };
        let tables = &frame.tables;
        let pipelines = if tables.masked_materials > 0 {
            let (layout, module) = (&self.pipeline_layout, &self.module);
            self.masked
                .get_or_insert_with(|| shadow_pipelines(device, layout, module, true))
        } else {
            &self.depth_only
        };
        let views = self.bind_groups.len();
        let (cache, layer) = if index < views {
            (&mut self.bind_groups[index], &map.layers[index])
        } else {
            let cascade = index - views;
            (&mut self.late_bind_groups[cascade], &map.layers[cascade])
        };
        let scene = SceneInputs {
            tables,
            view,
            culled: culled.clone(),
            lights: &frame.lights,
            clusters: inputs.clusters,
        };
        let (scene, rebuilt) = scene.bind_group(cache, device, inputs.scene_layout);
        stats.bind_group_rebuilds += u32::from(rebuilt);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("unbound shadow view"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: layer,
                depth_ops: Some(wgpu::Operations {
                    load,
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        stats.commands_recorded += 1;
        let draws_per_bucket = tables.mesh_slots.min(culled.draws_per_bucket);
        if draws_per_bucket == 0 {
            return stats;
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
        stats
    }
}

/// The part of `timestamps` one of several passes writes: the begin query
/// if `first`, the end query if `last` (`None` if neither is left).
pub(crate) fn timestamps_part<'a>(
    timestamps: Option<&wgpu::RenderPassTimestampWrites<'a>>,
    first: bool,
    last: bool,
) -> Option<wgpu::RenderPassTimestampWrites<'a>> {
    let t = timestamps?;
    let begin = t.beginning_of_pass_write_index.filter(|_| first);
    let end = t.end_of_pass_write_index.filter(|_| last);
    // wgpu refuses timestamp writes without either index.
    (begin.is_some() || end.is_some()).then_some(wgpu::RenderPassTimestampWrites {
        query_set: t.query_set,
        beginning_of_pass_write_index: begin,
        end_of_pass_write_index: end,
    })
}

/// The shadow pipelines of the casting buckets (opaque and masked with back
/// faces culled, double-sided with none), depth only or with `fs_mask`.
fn shadow_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    masked: bool,
) -> [wgpu::RenderPipeline; 2] {
    DepthOnlyPipelines {
        label: "unbound shadow",
        vertex: "vs_shadow",
        fragment: masked.then_some("fs_mask"),
        format: SHADOW_FORMAT,
        sample_count: 1,
    }
    .build(device, layout, module)
}
