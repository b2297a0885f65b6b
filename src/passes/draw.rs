//! The draw pass: one `multi_draw_indexed_indirect_count` over the cull
//! pass's draws, vertices pulled from the arena, textures from the heap.
//! See `wgsl/draw.wgsl` for the draw-identity rule.

use wgpu::util::DeviceExt;

use crate::gpu_types::{BLEND_SORT_CAP, BUCKET_BLEND, BUCKETS};
use crate::passes::cull::DRAW_ARGS_SIZE;
use crate::passes::{BufferBindGroup, PerFormat, buffer_entry, storage};
use crate::shaders;

/// Depth format of the draw pass.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The buffers the draw pass reads (bind group 1).
#[derive(Debug)]
pub(crate) struct DrawInputs<'a> {
    /// The resource heap's bind group (group 0).
    pub heap: &'a wgpu::BindGroup,
    pub frame: &'a wgpu::Buffer,
    pub counts: &'a wgpu::Buffer,
    pub vertices: &'a wgpu::Buffer,
    pub objects: &'a wgpu::Buffer,
    pub materials: &'a wgpu::Buffer,
    pub visible_instances: &'a wgpu::Buffer,
    /// The cull pass's draws and counters (read by the draw-index view).
    pub draws: &'a wgpu::Buffer,
    pub cull_counters: &'a wgpu::Buffer,
    /// Changes whenever one of them is replaced.
    pub version: [u64; 4],
}

/// Where the frame is drawn.
#[derive(Debug)]
pub struct FrameTarget<'a> {
    /// Colour target, of the renderer's colour format.
    pub color: &'a wgpu::TextureView,
    /// Depth target, [`DEPTH_FORMAT`], same size.
    pub depth: &'a wgpu::TextureView,
    /// Clear colour; `None` keeps the target's contents (depth is always cleared).
    pub clear_color: Option<wgpu::Color>,
}

impl FrameTarget<'_> {
    /// Begins a render pass on the target: colour cleared (or kept), depth
    /// cleared to 1.
    pub fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        label: &str,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: self.color,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: self
                        .clear_color
                        .map_or(wgpu::LoadOp::Load, wgpu::LoadOp::Clear),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: self.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }
}

#[derive(Debug)]
pub(crate) struct DrawPass {
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    /// Per colour format (the configured one first, others such as the id
    /// views' built when first drawn into), per pipeline bucket
    /// (`gpu_types::BUCKET_*`).
    pipelines: PerFormat<[wgpu::RenderPipeline; 3]>,
    bind_group: BufferBindGroup<[u64; 4]>,
    /// 0, 1, 2, ...: the instance-rate draw identity.
    instance_ids: wgpu::Buffer,
    instance_id_capacity: u32,
}

/// One indirect draw's arguments and its count, as the cull pass left them.
#[derive(Debug)]
pub(crate) struct IndirectDraws<'a> {
    pub draws: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    /// Draws per bucket region (the mesh slots in use).
    pub max_count: u32,
    /// Entries per bucket region of `draws`.
    pub region: u32,
    /// Live objects per bucket: empty buckets are skipped.
    pub bucket_objects: [u32; 3],
    pub index_buffer: &'a wgpu::Buffer,
    /// Use the GPU-written count (else draw `max_count` entries, some empty).
    pub count_in_buffer: bool,
}

fn instance_ids(device: &wgpu::Device, capacity: u32) -> wgpu::Buffer {
    let ids: Vec<u32> = (0..capacity.max(1)).collect();
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("unbound instance ids"),
        contents: bytemuck::cast_slice(&ids),
        usage: wgpu::BufferUsages::VERTEX,
    })
}

/// How each pipeline bucket draws, in `gpu_types::BUCKET_*` order: its
/// name, the faces it culls and whether it alpha-blends (drawn last, no
/// depth writes). The draw pass and the bind-per-draw baseline both build
/// their pipelines from these, so the two paths render alike.
pub const BUCKET_RENDER_STATES: [(&str, Option<wgpu::Face>, bool); 3] = [
    ("opaque", Some(wgpu::Face::Back), false),
    ("double-sided", None, false),
    ("blended", Some(wgpu::Face::Back), true),
];

/// The colour target of a bucket pipeline.
pub fn bucket_color_target(format: wgpu::TextureFormat, blend: bool) -> wgpu::ColorTargetState {
    wgpu::ColorTargetState {
        format,
        blend: blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
        write_mask: wgpu::ColorWrites::ALL,
    }
}

/// The depth test of a bucket pipeline (blended buckets do not write depth).
pub fn bucket_depth_stencil(blend: bool) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(!blend),
        depth_compare: Some(wgpu::CompareFunction::Less),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// The three bucket pipelines for one colour format.
fn bucket_pipelines(
    device: &wgpu::Device,
    pipeline_layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> [wgpu::RenderPipeline; 3] {
    BUCKET_RENDER_STATES.map(|(name, cull_mode, blend)| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(&format!("unbound draw {name}")),
            layout: Some(pipeline_layout),
            vertex: wgpu::VertexState {
                module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 4,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &[wgpu::VertexAttribute {
                        format: wgpu::VertexFormat::Uint32,
                        offset: 0,
                        shader_location: 0,
                    }],
                })],
            },
            fragment: Some(wgpu::FragmentState {
                module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(bucket_color_target(color_format, blend))],
            }),
            primitive: wgpu::PrimitiveState {
                cull_mode,
                ..Default::default()
            },
            depth_stencil: Some(bucket_depth_stencil(blend)),
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
    })
}

impl DrawPass {
    pub fn new(
        device: &wgpu::Device,
        heap_layout: &wgpu::BindGroupLayout,
        color_format: wgpu::TextureFormat,
        tier: crate::capabilities::Tier,
    ) -> Self {
        let vertex = wgpu::ShaderStages::VERTEX;
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let entry = buffer_entry;
        let storage = storage(true);
        let uniform = wgpu::BufferBindingType::Uniform;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound scene tables"),
            entries: &[
                entry(0, vertex | fragment, uniform),
                entry(1, vertex | fragment, storage),
                entry(2, vertex, storage),
                entry(3, vertex, storage),
                entry(4, fragment, storage),
                entry(5, vertex, storage),
                entry(6, vertex, storage),
                entry(7, vertex, storage),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound draw"),
            bind_group_layouts: &[Some(heap_layout), Some(&layout)],
            immediate_size: 0,
        });
        let variant = if tier.has_binding_arrays() {
            shaders::DRAW
        } else {
            shaders::DRAW_TEXTURE_ARRAYS
        };
        let module = variant.create(device);
        let mut pipelines = PerFormat::new();
        pipelines.get_or_build(color_format, || {
            bucket_pipelines(device, &pipeline_layout, &module, color_format)
        });
        Self {
            layout,
            pipeline_layout,
            module,
            pipelines,
            bind_group: BufferBindGroup::new("unbound scene tables"),
            instance_ids: instance_ids(device, 64),
            instance_id_capacity: 64,
        }
    }

    /// Makes the instance-id buffer cover `capacity` visible instances.
    pub fn ensure_capacity(&mut self, device: &wgpu::Device, capacity: u32) {
        if capacity > self.instance_id_capacity {
            self.instance_ids = instance_ids(device, capacity);
            self.instance_id_capacity = capacity;
        }
    }

    pub fn size_bytes(&self) -> u64 {
        self.instance_ids.size()
    }

    /// Records the draw pass. Returns (commands, bind groups set, rebuilds).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
        inputs: &DrawInputs<'_>,
        draws: &IndirectDraws<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> (u32, u32, u32) {
        let format = target.color.texture().format();
        let pipelines = self.pipelines.get_or_build(format, || {
            bucket_pipelines(device, &self.pipeline_layout, &self.module, format)
        });
        let buffers = [
            inputs.frame,
            inputs.counts,
            inputs.vertices,
            inputs.objects,
            inputs.materials,
            inputs.visible_instances,
            inputs.draws,
            inputs.cull_counters,
        ];
        let (scene, rebuilt) = self
            .bind_group
            .get(device, &self.layout, inputs.version, &buffers);
        let rebuilt = u32::from(rebuilt);
        let mut pass = target.begin_pass(encoder, "unbound draw", timestamps);
        if draws.max_count == 0 {
            return (1, 0, rebuilt);
        }
        pass.set_bind_group(0, inputs.heap, &[]);
        pass.set_bind_group(1, scene, &[]);
        pass.set_vertex_buffer(0, self.instance_ids.slice(..));
        pass.set_index_buffer(draws.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        // pass, 2 bind groups, vertex buffer, index buffer
        let mut commands = 5;
        for (bucket, pipeline) in pipelines.iter().enumerate() {
            if draws.bucket_objects[bucket] == 0 {
                continue;
            }
            let offset = u64::from(draws.region) * bucket as u64 * DRAW_ARGS_SIZE;
            pass.set_pipeline(pipeline);
            if bucket == BUCKET_BLEND as usize {
                // Exactly sorted blended draws after the bucket regions (none
                // when more than BLEND_SORT_CAP were visible; the region's
                // per-mesh draws are used then, and are empty otherwise).
                // At most one per live blended object.
                let sorted = u64::from(draws.region) * u64::from(BUCKETS) * DRAW_ARGS_SIZE;
                let most = draws.bucket_objects[bucket].min(BLEND_SORT_CAP);
                if draws.count_in_buffer {
                    // GpuCullHeader::sorted_blend_draws
                    pass.multi_draw_indexed_indirect_count(
                        draws.draws,
                        sorted,
                        draws.count,
                        28,
                        most,
                    );
                } else {
                    pass.multi_draw_indexed_indirect(draws.draws, sorted, most);
                }
                commands += 1;
            }
            if draws.count_in_buffer {
                // GpuCullHeader::bucket_draws[bucket]
                let count_offset = 16 + 4 * bucket as u64;
                pass.multi_draw_indexed_indirect_count(
                    draws.draws,
                    offset,
                    draws.count,
                    count_offset,
                    draws.max_count,
                );
            } else {
                pass.multi_draw_indexed_indirect(draws.draws, offset, draws.max_count);
            }
            commands += 2;
        }
        (commands, 2, rebuilt)
    }
}
