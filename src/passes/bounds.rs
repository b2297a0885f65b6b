//! Debug view: every object's bounding box as lines over the finished frame,
//! red where the cull pass's frustum test rejects it, orange where it is in
//! the frustum but occlusion culling's late phase found it hidden (its
//! visibility bit clear, in frames that cull occlusion), green where it is
//! kept (`wgsl/bounds.wgsl`). One plain draw of 24 vertices per object
//! slot, so its CPU cost does not grow with the object count either.

use crate::passes::{
    BufferBindGroup, GpuTables, PassStats, PerFormat, View, buffer_entry, storage,
};
use crate::shaders;

#[derive(Debug)]
pub(crate) struct BoundsPass {
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    /// Per colour format, built when first drawn into.
    pipelines: PerFormat<wgpu::RenderPipeline>,
    /// Keyed by the object tables' and the visibility bits' versions.
    bind_group: BufferBindGroup<(u64, u64)>,
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
                buffer_entry(3, vertex, storage(true)),
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

    /// Draws the boxes of every object slot over `color` (kept, no depth
    /// test), each tested against `view`'s cull frustum and, where the
    /// frame culls occlusion, its bit in `visibility` (the camera's bits
    /// and their version).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        tables: &GpuTables<'_>,
        view: &View,
        (visibility, visibility_version): (&wgpu::Buffer, u64),
    ) -> PassStats {
        let buffers = [&view.uniforms, tables.bounds, tables.batch, visibility];
        let format = color.texture().format();
        let pipeline = self.pipelines.get_or_build(format, || {
            Self::build_pipeline(device, &self.pipeline_layout, &self.module, format)
        });
        let key = (tables.objects_version, visibility_version);
        let (group, rebuilt) = self.bind_group.get(device, &self.layout, key, &buffers);
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
        pass.draw(0..24, 0..tables.object_slots);
        // pass, pipeline, bind group, draw
        PassStats {
            commands_recorded: 4,
            bind_groups_set: 1,
            bind_group_rebuilds: u32::from(rebuilt),
        }
    }
}
