//! Debug view: every object's bounding box as lines over the finished frame,
//! red where the cull pass's frustum test rejects it, green where it keeps
//! it (`wgsl/bounds.wgsl`). One plain draw of 24 vertices per object slot, so
//! its CPU cost does not grow with the object count either.

use crate::passes::{BufferBindGroup, PerFormat, buffer_entry, storage};
use crate::shaders;

/// The buffers the bounds view reads.
#[derive(Debug)]
pub(crate) struct BoundsInputs<'a> {
    pub frame: &'a wgpu::Buffer,
    pub bounds: &'a wgpu::Buffer,
    pub batch: &'a wgpu::Buffer,
    pub instance_count: u32,
    /// Changes whenever one of them is replaced.
    pub version: u64,
}

#[derive(Debug)]
pub(crate) struct BoundsPass {
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    /// Per colour format, built when first drawn into.
    pipelines: PerFormat<wgpu::RenderPipeline>,
    bind_group: BufferBindGroup<u64>,
}

impl BoundsPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let vertex = wgpu::ShaderStages::VERTEX;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound bounds view"),
            entries: &[
                buffer_entry(0, vertex, wgpu::BufferBindingType::Uniform),
                buffer_entry(1, vertex, storage(true)),
                buffer_entry(2, vertex, storage(true)),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound bounds view"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        Self {
            layout,
            pipeline_layout,
            module: shaders::BOUNDS.create(device),
            pipelines: PerFormat::new(),
            bind_group: BufferBindGroup::new("unbound bounds view"),
        }
    }

    fn build_pipeline(
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        module: &wgpu::ShaderModule,
        format: wgpu::TextureFormat,
    ) -> wgpu::RenderPipeline {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("unbound bounds view"),
            layout: Some(layout),
            vertex: wgpu::VertexState {
                module,
                entry_point: Some("vs_bounds"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module,
                entry_point: Some("fs_bounds"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::LineList,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
    }

    /// Draws the boxes over `color` (kept, no depth test). Returns
    /// (commands, bind groups set, rebuilds).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        inputs: &BoundsInputs<'_>,
    ) -> (u32, u32, u32) {
        let buffers = [inputs.frame, inputs.bounds, inputs.batch];
        let format = color.texture().format();
        let pipeline = self.pipelines.get_or_build(format, || {
            Self::build_pipeline(device, &self.pipeline_layout, &self.module, format)
        });
        let (group, rebuilt) = self
            .bind_group
            .get(device, &self.layout, inputs.version, &buffers);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("unbound bounds view"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: color,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.draw(0..24, 0..inputs.instance_count);
        (4, 1, u32::from(rebuilt))
    }
}
