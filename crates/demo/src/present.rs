//! Copies the frame unbound drew into the window's surface texture, false-
//! colouring id views (`wgsl/present.wgsl`).

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::capture::SceneTargets;

const SHADER_SOURCE: &str = include_str!("../wgsl/present.wgsl");

/// Present mode: copy the colour target (WGSL `PRESENT_MODE_COPY`).
const PRESENT_MODE_COPY: u32 = 0;
/// Present mode: false-colour the id target (WGSL `PRESENT_MODE_IDS`).
const PRESENT_MODE_IDS: u32 = 1;

/// The present pass's uniform (WGSL `PresentParams`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct GpuPresentParams {
    /// `PRESENT_MODE_*`.
    mode: u32,
    /// 1 when the surface format is linear (the shader encodes sRGB).
    encode_srgb: u32,
    _pad0: u32,
    _pad1: u32,
}

#[derive(Debug)]
pub struct Present {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
    /// Copy and id modes, each with the surface's sRGB flag.
    params: [wgpu::Buffer; 2],
    /// For the colour and the id target (rebuilt with the targets).
    groups: Option<[wgpu::BindGroup; 2]>,
}

impl Present {
    pub fn new(device: &wgpu::Device, surface_format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("demo present"),
            source: wgpu::ShaderSource::Wgsl(SHADER_SOURCE.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("demo present"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("demo present"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("demo present"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_fullscreen"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_present"),
                compilation_options: Default::default(),
                targets: &[Some(surface_format.into())],
            }),
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        });
        let encode_srgb = u32::from(!surface_format.is_srgb());
        let params = [PRESENT_MODE_COPY, PRESENT_MODE_IDS].map(|mode| {
            let params = GpuPresentParams {
                mode,
                encode_srgb,
                _pad0: 0,
                _pad1: 0,
            };
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("demo present params"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        });
        Self {
            layout,
            pipeline,
            params,
            groups: None,
        }
    }

    /// Call after (re)creating the scene targets.
    pub fn set_targets(&mut self, device: &wgpu::Device, targets: &SceneTargets) {
        let group = |view: &wgpu::TextureView, params: &wgpu::Buffer| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("demo present"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: params.as_entire_binding(),
                    },
                ],
            })
        };
        self.groups = Some([
            group(targets.color_view.view(), &self.params[0]),
            group(targets.ids_view.view(), &self.params[1]),
        ]);
    }

    /// Draws the colour (or false-coloured id) target over `output`.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        output: &wgpu::TextureView,
        ids: bool,
    ) {
        let groups = self.groups.as_ref().expect("targets set");
        let mut pass = color_pass(
            encoder,
            output,
            wgpu::LoadOp::Clear(wgpu::Color::BLACK),
            "demo present",
        );
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &groups[usize::from(ids)], &[]);
        pass.draw(0..3, 0..1);
    }
}

/// A render pass over `view` alone (no depth): the present pass and the
/// overlay's.
pub fn color_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    load: wgpu::LoadOp<wgpu::Color>,
    label: &str,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::mem::{offset_of, size_of};

    use unbound_harness::wgsl::WgslModule;

    use super::*;

    #[test]
    fn params_and_modes_match_the_shader() {
        let wgsl = WgslModule::parse("present.wgsl", SHADER_SOURCE);
        let layout = wgsl.struct_layout("PresentParams");
        assert_eq!(layout.size as usize, size_of::<GpuPresentParams>());
        assert_eq!(
            layout.offsets(),
            [
                ("mode", offset_of!(GpuPresentParams, mode)),
                ("encode_srgb", offset_of!(GpuPresentParams, encode_srgb)),
                ("_pad0", offset_of!(GpuPresentParams, _pad0)),
                ("_pad1", offset_of!(GpuPresentParams, _pad1)),
            ]
        );
        // Every constant of the file, each equal to its twin.
        assert_eq!(
            wgsl.constants(),
            BTreeMap::from([
                ("PRESENT_MODE_COPY".to_owned(), i64::from(PRESENT_MODE_COPY)),
                ("PRESENT_MODE_IDS".to_owned(), i64::from(PRESENT_MODE_IDS)),
            ])
        );
    }
}
