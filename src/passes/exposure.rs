//! The automatic exposure pass (compute, `wgsl/exposure.wgsl`): the HDR
//! target's luminance histogram, then the exposure it meters, left in a
//! small buffer ([`ExposureOutput::metered`]) that the output pass copies into its
//! uniforms. What is metered and how: [`crate::exposure`]. It reads the
//! frame's depth target too (unfilterable float, as the depth pyramid
//! does): pixels at the far plane are not metered, so the target must be
//! sampleable while it runs (`RenderError::DepthNotSampleable` otherwise).
//!
//! 1 compute pass, 2 dispatches (`ceil(width / 16) × ceil(height / 16)`
//! workgroups, then 1), 1 bind group (rebuilt with the HDR target). The
//! histogram (256 `u32`) is cleared by the reduce dispatch that reads it,
//! so a frame never sees another's counts; the state (16 bytes) is kept
//! across frames, starting at 0 EV. The dispatch follows the target, which
//! the device's `max_texture_dimension_2d` bounds: at most 16384 / 16 =
//! 1024 workgroups a side, within every device's 65535.

use crate::exposure::{AutoExposure, EXPOSURE_BINS};
use crate::gpu_types::{GpuExposureParams, GpuExposureState, uniform_bytes};
use crate::output::{HDR_FORMAT, Msaa};
use crate::passes::output::HdrTarget;
use crate::passes::{PassStats, buffer_entry, layout_entry, storage, texture_binding};
use crate::shaders;
use crate::target::TargetView;
use crate::upload::UploadBatch;
use wgpu::util::DeviceExt;

/// What the bind group was built over: the HDR texture, and the depth
/// texture with its level and layer.
type BindKey = (wgpu::Texture, wgpu::Texture, u32, u32);

/// Workgroup side of the histogram dispatch (WGSL `@workgroup_size(16, 16)`).
const TILE: u32 = 16;

/// What the exposure pass reads.
#[derive(Clone, Copy, Debug)]
pub struct ExposureInputs<'a> {
    /// The HDR target the camera's passes drew this frame.
    pub hdr: &'a HdrTarget,
    /// The frame's depth target (as many samples as the HDR target): what
    /// the scene covers.
    pub depth: &'a TargetView,
    /// How to meter and adapt.
    pub settings: &'a AutoExposure,
    /// Go straight to the metered exposure (the first frame after the
    /// settings changed).
    pub jump: bool,
}

/// What the exposure pass recorded.
#[derive(Clone, Copy, Debug)]
pub struct ExposureOutput<'a> {
    /// The exposure metered this frame: one [`GpuExposureState`] on the
    /// GPU, which the output pass copies from; `None` before the HDR
    /// target's first draw.
    pub metered: Option<&'a wgpu::Buffer>,
    /// What was recorded.
    pub stats: PassStats,
}

/// The pass: its pipelines, parameters, histogram and state.
#[derive(Debug)]
pub struct ExposurePass {
    layout: wgpu::BindGroupLayout,
    histogram_pipeline: wgpu::ComputePipeline,
    reduce_pipeline: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    last_params: Option<GpuExposureParams>,
    histogram: wgpu::Buffer,
    state: wgpu::Buffer,
    /// Over the HDR texture and the depth (level, layer) it was built for.
    bind_group: Option<(BindKey, wgpu::BindGroup)>,
}

impl ExposurePass {
    /// The pass over HDR targets of `msaa`.
    pub fn new(device: &wgpu::Device, msaa: Msaa) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let unfiltered = wgpu::TextureSampleType::Float { filterable: false };
        let hdr = texture_binding(unfiltered, wgpu::TextureViewDimension::D2, msaa != Msaa::X1);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound exposure"),
            entries: &[
                buffer_entry(0, compute, wgpu::BufferBindingType::Uniform),
                layout_entry(1, compute, hdr),
                buffer_entry(2, compute, storage(false)),
                buffer_entry(3, compute, storage(false)),
                // Unfilterable float: GLSL cannot `textureLoad` a depth texture.
                layout_entry(4, compute, hdr),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound exposure"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::exposure_variant(msaa).create(device);
        let pipeline = |entry_point| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        // 0 EV until the first frame is metered.
        let start = GpuExposureState {
            exposure_scale: 1.0,
            ..Default::default()
        };
        Self {
            histogram_pipeline: pipeline("histogram_main"),
            reduce_pipeline: pipeline("reduce_main"),
            layout,
            params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound exposure parameters"),
                size: GpuExposureParams::SIZE_BYTES,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_params: None,
            histogram: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound exposure histogram"),
                size: histogram_size_bytes(),
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            state: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unbound exposure state"),
                contents: bytemuck::bytes_of(&start),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            }),
            bind_group: None,
        }
    }

    /// Bytes of the pass's buffers.
    pub fn size_bytes(&self) -> u64 {
        self.params.size() + self.histogram.size() + self.state.size()
    }

    /// The state buffer (one [`GpuExposureState`]), for tests and tools.
    pub fn state_buffer(&self) -> &wgpu::Buffer {
        &self.state
    }

    /// Records the histogram and the reduce dispatches over `inputs.hdr`
    /// (nothing before its first draw pass) and returns where the
    /// exposure is.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &ExposureInputs<'_>,
    ) -> ExposureOutput<'_> {
        let ExposureInputs {
            hdr,
            depth,
            settings,
            jump,
        } = *inputs;
        let params = GpuExposureParams {
            min_ev: settings.min_ev,
            max_ev: settings.max_ev,
            key_log2: settings.key_log2(),
            adaptation: settings.adaptation,
            low_fraction: settings.low_fraction,
            high_fraction: settings.high_fraction,
            jump: u32::from(jump),
        };
        let mut stats = PassStats::default();
        if self.last_params != Some(params) {
            let mut batch = UploadBatch::default();
            batch.write(&self.params, 0, &uniform_bytes(&params));
            stats.commands_recorded += batch.record(device, encoder).commands_recorded;
            self.last_params = Some(params);
        }
        let Some(texture) = hdr.texture() else {
            return ExposureOutput {
                metered: None,
                stats,
            };
        };
        debug_assert_eq!(texture.format(), HDR_FORMAT);
        let key = (
            texture.clone(),
            depth.texture().clone(),
            depth.mip_level(),
            depth.array_layer(),
        );
        if self.bind_group.as_ref().is_none_or(|(k, _)| *k != key) {
            let view = texture.create_view(&Default::default());
            let depth_view = depth.texture().create_view(&wgpu::TextureViewDescriptor {
                label: Some("unbound exposure depth"),
                dimension: Some(wgpu::TextureViewDimension::D2),
                aspect: wgpu::TextureAspect::DepthOnly,
                base_mip_level: depth.mip_level(),
                mip_level_count: Some(1),
                base_array_layer: depth.array_layer(),
                array_layer_count: Some(1),
                ..Default::default()
            });
            let entries = [
                self.params.as_entire_binding(),
                wgpu::BindingResource::TextureView(&view),
                self.histogram.as_entire_binding(),
                self.state.as_entire_binding(),
                wgpu::BindingResource::TextureView(&depth_view),
            ];
            let entries: Vec<_> = (0..)
                .zip(entries)
                .map(|(binding, resource)| wgpu::BindGroupEntry { binding, resource })
                .collect();
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("unbound exposure"),
                layout: &self.layout,
                entries: &entries,
            });
            self.bind_group = Some((key, group));
            stats.bind_group_rebuilds += 1;
        }
        let group = &self.bind_group.as_ref().expect("built above").1;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound exposure"),
            timestamp_writes: None,
        });
        pass.set_bind_group(0, group, &[]);
        pass.set_pipeline(&self.histogram_pipeline);
        pass.dispatch_workgroups(
            texture.width().div_ceil(TILE),
            texture.height().div_ceil(TILE),
            1,
        );
        pass.set_pipeline(&self.reduce_pipeline);
        pass.dispatch_workgroups(1, 1, 1);
        drop(pass);
        stats.bind_groups_set += 1;
        stats.commands_recorded += 6;
        ExposureOutput {
            metered: Some(&self.state),
            stats,
        }
    }
}

/// Bytes of the histogram buffer.
fn histogram_size_bytes() -> u64 {
    (EXPOSURE_BINS * size_of::<u32>()) as u64
}
