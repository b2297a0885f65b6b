//! GPU mip generation at upload: each level is rendered from the one above
//! with a linear sampler at texel centres (a 2x2 box filter), in one command
//! buffer per texture.

use std::collections::HashMap;

use crate::shaders;

/// Number of mip levels of a full chain for `width` x `height`.
pub fn full_mip_count(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// Generates mip levels on the GPU: one render pipeline per texture
/// format, made on first use, sharing one shader, layout and two samplers
/// (linear, and nearest for tiny sources).
#[derive(Debug)]
pub struct MipGenerator {
    shader: wgpu::ShaderModule,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    sampler: wgpu::Sampler,
    nearest: wgpu::Sampler,
    pipelines: HashMap<wgpu::TextureFormat, wgpu::RenderPipeline>,
}

impl MipGenerator {
    /// The shader, layouts and samplers; pipelines come per format later.
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound mipmap source"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound mipmap"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("unbound mipmap"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let nearest = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("unbound blit nearest"),
            ..Default::default()
        });
        Self {
            nearest,
            shader: shaders::MIPMAP.create(device),
            layout,
            pipeline_layout,
            sampler,
            pipelines: HashMap::new(),
        }
    }

    fn pipeline(
        &mut self,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
    ) -> &wgpu::RenderPipeline {
        self.pipelines.entry(format).or_insert_with(|| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("unbound mipmap"),
                layout: Some(&self.pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &self.shader,
                    entry_point: Some("vs_fullscreen"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                fragment: Some(wgpu::FragmentState {
                    module: &self.shader,
                    entry_point: Some("fs_downsample"),
                    compilation_options: Default::default(),
                    targets: &[Some(format.into())],
                }),
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                multiview_mask: None,
                cache: None,
            })
        })
    }

    /// Records the downsampling of levels 1.. of every layer of `texture`
    /// from level 0.
    pub fn generate(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) {
        for layer in 0..texture.depth_or_array_layers() {
            self.generate_layer(device, encoder, texture, layer);
        }
    }

    /// Renders `source` (any size) into level 0 of `layer` of `target`,
    /// resampling with a linear filter (nearest for sources of at most 16
    /// texels, so tiny patterns stay crisp).
    pub fn blit(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        source: &wgpu::Texture,
        target: &wgpu::Texture,
        layer: u32,
    ) {
        // Tiny patterns (the 8x8 "missing" checker) stay crisp; everything
        // else is filtered.
        let tiny = source.width().max(source.height()) <= 16;
        let sampler = if tiny {
            self.nearest.clone()
        } else {
            self.sampler.clone()
        };
        let source_view = source.create_view(&wgpu::TextureViewDescriptor {
            base_mip_level: 0,
            mip_level_count: Some(1),
            ..Default::default()
        });
        let target_view = layer_view(target, 0, layer);
        let pipeline = self.pipeline(device, target.format()).clone();
        self.draw(
            device,
            encoder,
            &pipeline,
            &source_view,
            &sampler,
            &target_view,
        );
    }

    /// Levels 1.. of one layer from its level 0.
    pub fn generate_layer(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
        layer: u32,
    ) {
        let pipeline = self.pipeline(device, texture.format()).clone();
        for level in 1..texture.mip_level_count() {
            let source = layer_view(texture, level - 1, layer);
            let target = layer_view(texture, level, layer);
            let sampler = self.sampler.clone();
            self.draw(device, encoder, &pipeline, &source, &sampler, &target);
        }
    }

    fn draw(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        pipeline: &wgpu::RenderPipeline,
        source: &wgpu::TextureView,
        sampler: &wgpu::Sampler,
        target: &wgpu::TextureView,
    ) {
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound mipmap source"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(source),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(sampler),
                },
            ],
        });
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("unbound mipmap"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}

/// A 2D view of one mip level of one layer.
fn layer_view(texture: &wgpu::Texture, level: u32, layer: u32) -> wgpu::TextureView {
    texture.create_view(&wgpu::TextureViewDescriptor {
        label: Some("unbound mip level"),
        dimension: Some(wgpu::TextureViewDimension::D2),
        base_mip_level: level,
        mip_level_count: Some(1),
        base_array_layer: layer,
        array_layer_count: Some(1),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn full_mip_count_matches_definition() {
        assert_eq!(super::full_mip_count(1, 1), 1);
        assert_eq!(super::full_mip_count(2, 1), 2);
        assert_eq!(super::full_mip_count(64, 64), 7);
        assert_eq!(super::full_mip_count(65, 3), 7);
    }
}
