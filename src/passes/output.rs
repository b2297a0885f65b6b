//! The HDR target the draw pass shades into, and the output pass that
//! resolves it, exposes and tone maps it into the application's colour
//! target (`wgsl/output.wgsl`; the curves and settings are in
//! [`crate::output`]).
//!
//! Public so that another renderer drawing the same scenes (a comparison
//! path, say) shades into the same kind of target and writes its colour
//! target through the same pass, and so renders alike.
//!
//! How the frame's colour load reaches the two passes:
//!
//! - [`TargetLoad::Clear`]`(c)`: the HDR target is cleared to `c`, a
//!   radiance tone mapped like everything else; the output pass overwrites
//!   the colour target.
//! - [`TargetLoad::Load`]: the HDR target is cleared to transparent black,
//!   so its alpha is what unbound covered (premultiplied: 1 for opaque and
//!   masked surfaces, accumulated by the blend states for blended ones);
//!   the output pass composites that over the colour target (`One`,
//!   `OneMinusSrcAlpha`), so pixels unbound did not touch keep the
//!   application's colour.
//!
//! The output pass is one fullscreen triangle that reads the HDR target with
//! `textureLoad` (`texture_multisampled_2d` at 4×, a variant of the shader).
//! For the lit view it takes the samples' average (the resolve),
//! un-premultiplies it, scales it by `2^exposure_ev` (or, with automatic
//! exposure, by the scale the exposure pass metered, copied into the
//! uniforms first: [`OutputInputs::metered_exposure`]), applies the tone-mapping
//! curve and premultiplies again. A sample past the largest half float
//! (stored as infinity, or NaN from a blend over infinity) counts as 65504,
//! and exposed radiance stops at [`crate::output::EXPOSED_MAX`], where every
//! curve is at its brightest: no NaN reaches the colour target
//! (`tests/derived.rs`). Other debug views are averaged as they are;
//! id views copy sample 0, never averaged, so ids stay exact (a byte `k/255` is
//! within 2^-12 of itself as a half float). Pipelines are made per colour
//! format, two each (overwriting and compositing); the id format's on first
//! use. 1 pass, 3 commands, 1 bind group (rebuilt with the HDR target).
//! `tests/output.rs` compares every curve on a ramp of HDR values with its CPU
//! twin and checks id bytes, clear and load, and 4× against 1×.
//!
//! wgpu's GL backend cannot read a multisampled texture in a shader (wgpu
//! issues 2117 and 6084), so [`crate::Renderer::new`] refuses 4× there
//! ([`crate::CapabilityError::MsaaBackend`]); tier C itself, forced on Vulkan,
//! multisamples.

use crate::debug::DebugView;
use std::mem::offset_of;

use crate::gpu_types::{GpuExposureState, GpuOutputUniforms, uniform_bytes};
use crate::output::{HDR_FORMAT, Msaa, Output};
use crate::passes::{PassStats, PerFormat, buffer_entry, layout_entry, texture_binding};
use crate::shaders;
use crate::target::{FrameTarget, TargetLoad};
use crate::upload::UploadBatch;

/// The renderer-owned HDR target: [`HDR_FORMAT`], [`Msaa`] samples per
/// pixel, the size of the colour target, (re)created when that size
/// changes. Usage `RENDER_ATTACHMENT | TEXTURE_BINDING | COPY_SRC` (a
/// one-sample target can be copied out, to read radiance before exposure
/// and tone mapping).
#[derive(Debug)]
pub struct HdrTarget {
    msaa: Msaa,
    /// Made with `STORAGE_BINDING` too: the compute material pass
    /// (`src/passes/visibility.rs`) stores into it (one sample only).
    storage: bool,
    texture: Option<(wgpu::Texture, wgpu::TextureView)>,
    /// Counts the textures made (the compute material pass's bind group
    /// key).
    generation: u64,
}

impl HdrTarget {
    /// No texture yet: the first frame creates it.
    pub fn new(msaa: Msaa) -> Self {
        Self {
            msaa,
            storage: false,
            texture: None,
            generation: 0,
        }
    }

    /// `storage`: made with storage usage too, for the compute material
    /// pass (ignored at 4× MSAA).
    pub(crate) fn with_storage(mut self, storage: bool) -> Self {
        self.storage = storage && self.msaa == Msaa::X1;
        self
    }

    /// Whether the compute material pass can store into the target.
    pub fn storage(&self) -> bool {
        self.storage
    }

    /// The view and its generation (a new texture, a new bind group),
    /// once prepared.
    pub(crate) fn view(&self) -> Option<(&wgpu::TextureView, u64)> {
        self.texture
            .as_ref()
            .map(|(_, view)| (view, self.generation))
    }

    /// Samples per pixel.
    pub fn msaa(&self) -> Msaa {
        self.msaa
    }

    /// The texture, once a frame has been drawn.
    pub fn texture(&self) -> Option<&wgpu::Texture> {
        self.texture.as_ref().map(|(texture, _)| texture)
    }

    /// Bytes the texture holds (0 before the first frame).
    pub fn size_bytes(&self) -> u64 {
        self.texture().map_or(0, |t| {
            let texel = HDR_FORMAT.block_copy_size(None).expect("a colour format");
            u64::from(t.width())
                * u64::from(t.height())
                * u64::from(texel)
                * u64::from(self.msaa.sample_count())
        })
    }

    /// Makes the texture `size` (width, height); returns whether it was
    /// (re)created.
    pub fn prepare(&mut self, device: &wgpu::Device, size: (u32, u32)) -> bool {
        if self
            .texture()
            .is_some_and(|t| (t.width(), t.height()) == size)
        {
            return false;
        }
        let storage = match self.storage {
            true => wgpu::TextureUsages::STORAGE_BINDING,
            false => wgpu::TextureUsages::empty(),
        };
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("unbound HDR target"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: self.msaa.sample_count(),
            dimension: wgpu::TextureDimension::D2,
            format: HDR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC
                | storage,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        self.texture = Some((texture, view));
        self.generation += 1;
        true
    }

    /// Begins a draw pass into the HDR target, made the size of `target`'s
    /// colour first (the returned flag says whether it was (re)created),
    /// with `target`'s depth: colour cleared to `target`'s clear colour, or
    /// to transparent black when it loads (see the module docs); depth
    /// cleared or loaded as `target` says. `loaded`: both kept instead, for
    /// a later pass of the same frame.
    pub fn begin_draw_pass<'e>(
        &mut self,
        device: &wgpu::Device,
        encoder: &'e mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
        label: &str,
        loaded: bool,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> (wgpu::RenderPass<'e>, bool) {
        let created = self.prepare(device, target.color.size());
        let kept = if loaded { Kept::Both } else { Kept::Nothing };
        let pass = self.begin_pass(encoder, target, label, kept, timestamps);
        (pass, created)
    }

    /// [`Self::begin_draw_pass`] into a target already prepared for this
    /// frame, keeping what `kept` says.
    pub(crate) fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
        label: &str,
        kept: Kept,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> wgpu::RenderPass<'e> {
        let (_, view) = self.texture.as_ref().expect("prepared for the frame");
        let clear = match target.color_load {
            TargetLoad::Clear(color) => color,
            TargetLoad::Load => wgpu::Color::TRANSPARENT,
        };
        // A later pass of the same frame (occlusion's late draws) keeps
        // what the first drew.
        // A depth pre-pass leaves the depth for the first shaded pass.
        let (color_load, depth_load) = match kept {
            Kept::Both => (wgpu::LoadOp::Load, wgpu::LoadOp::Load),
            Kept::Depth => (wgpu::LoadOp::Clear(clear), wgpu::LoadOp::Load),
            Kept::Nothing => (wgpu::LoadOp::Clear(clear), target.depth_load.into()),
        };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: color_load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: target.depth.view(),
                depth_ops: Some(wgpu::Operations {
                    load: depth_load,
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

/// What a pass into the HDR target keeps of what the frame's passes before
/// it left there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kept {
    /// Nothing: colour cleared, depth cleared or loaded as the frame target
    /// says (the frame's first pass).
    Nothing,
    /// The depth a depth pre-pass wrote; colour cleared.
    Depth,
    /// Colour and depth (a later pass of the same frame).
    Both,
}

/// A render pass's timestamps split in two: the beginning's for the first
/// of two passes, the end's for the second.
pub(crate) fn split_timestamps(
    timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> [Option<wgpu::RenderPassTimestampWrites<'_>>; 2] {
    let Some(t) = timestamps else {
        return [None, None];
    };
    let only = |begin, end| wgpu::RenderPassTimestampWrites {
        query_set: t.query_set,
        beginning_of_pass_write_index: begin,
        end_of_pass_write_index: end,
    };
    [
        Some(only(t.beginning_of_pass_write_index, None)),
        Some(only(None, t.end_of_pass_write_index)),
    ]
}

/// What the output pass reads: the HDR target drawn this frame (with the
/// pass's [`Msaa`]), and how to write it.
#[derive(Clone, Copy, Debug)]
pub struct OutputInputs<'a> {
    /// The HDR target.
    pub hdr: &'a HdrTarget,
    /// Exposure and tone mapping, for the lit view.
    pub output: &'a Output,
    /// The frame's view: lit (tone mapped), another debug view (averaged
    /// only) or an id view (the first sample).
    pub view: DebugView,
    /// The exposure metered this frame (`passes::exposure`'s
    /// `ExposureOutput::metered`: a `GpuExposureState`), which replaces
    /// `output`'s exposure; `None`: `output`'s.
    pub metered_exposure: Option<&'a wgpu::Buffer>,
}

/// The output pass: one fullscreen triangle from an [`HdrTarget`] into a
/// colour target. Pipelines per colour format, built when first drawn
/// into (the configured format first).
#[derive(Debug)]
pub struct OutputPass {
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    /// Per colour format: overwriting (a cleared frame), compositing over
    /// (a loaded one).
    pipelines: PerFormat<[wgpu::RenderPipeline; 2]>,
    /// `OutputUniforms`.
    uniforms: wgpu::Buffer,
    /// What `uniforms` holds (or will, once the upload queued runs).
    last_uniforms: Option<GpuOutputUniforms>,
    /// Over the HDR texture it was built for.
    bind_group: Option<(wgpu::Texture, wgpu::BindGroup)>,
}

impl OutputPass {
    /// The pass over HDR targets of `msaa`, with pipelines for
    /// `color_format` built now.
    pub fn new(device: &wgpu::Device, msaa: Msaa, color_format: wgpu::TextureFormat) -> Self {
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let unfiltered = wgpu::TextureSampleType::Float { filterable: false };
        let hdr = texture_binding(unfiltered, wgpu::TextureViewDimension::D2, msaa != Msaa::X1);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound output"),
            entries: &[
                buffer_entry(0, fragment, wgpu::BufferBindingType::Uniform),
                layout_entry(1, fragment, hdr),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound output"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::output_variant(msaa).create(device);
        let mut pipelines = PerFormat::new();
        pipelines.get_or_build(color_format, || {
            output_pipelines(device, &pipeline_layout, &module, color_format)
        });
        Self {
            layout,
            pipeline_layout,
            module,
            pipelines,
            uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound output uniforms"),
                size: GpuOutputUniforms::SIZE_BYTES,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_uniforms: None,
            bind_group: None,
        }
    }

    /// Bytes of the pass's buffers (its uniforms).
    pub fn size_bytes(&self) -> u64 {
        self.uniforms.size()
    }

    /// Queues the parameters of a frame of `view` with `output` into an
    /// upload if they changed.
    pub(crate) fn write_uniforms(
        &mut self,
        batch: &mut UploadBatch,
        output: &Output,
        view: DebugView,
    ) {
        let uniforms = GpuOutputUniforms {
            exposure_scale: output.exposure_scale(),
            tone_mapping: output.tone_mapping as u32,
            debug_view: view as u32,
        };
        if self.last_uniforms != Some(uniforms) {
            batch.write(&self.uniforms, 0, &uniform_bytes(&uniforms));
            self.last_uniforms = Some(uniforms);
        }
    }

    /// Records the pass: the HDR target resolved, and for the lit view
    /// exposed and tone mapped, into `target`'s colour, which it
    /// overwrites or, when `target` loads colour, composites over. The
    /// parameters are uploaded first if they changed. Before the HDR
    /// target's first draw pass there is nothing to resolve, and only that
    /// upload is recorded.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &OutputInputs<'_>,
        target: &FrameTarget<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> PassStats {
        let OutputInputs {
            hdr,
            output,
            view,
            metered_exposure,
        } = *inputs;
        let mut batch = UploadBatch::default();
        self.write_uniforms(&mut batch, output, view);
        let mut stats = PassStats {
            commands_recorded: batch.record(device, encoder).commands_recorded + 1,
            ..Default::default()
        };
        if let Some(state) = metered_exposure {
            // The metered scale over the uniforms' (written again next frame).
            let from = offset_of!(GpuExposureState, exposure_scale) as u64;
            let to = offset_of!(GpuOutputUniforms, exposure_scale) as u64;
            encoder.copy_buffer_to_buffer(state, from, &self.uniforms, to, 4);
            self.last_uniforms = None;
            stats.commands_recorded += 1;
        }
        let Some(texture) = hdr.texture() else {
            return stats;
        };
        if self.bind_group.as_ref().is_none_or(|(t, _)| t != texture) {
            let view = texture.create_view(&Default::default());
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("unbound output"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.uniforms.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                ],
            });
            self.bind_group = Some((texture.clone(), group));
            stats.bind_group_rebuilds += 1;
        }
        let format = target.color.format();
        let (layout, module) = (&self.pipeline_layout, &self.module);
        let [overwrite, over] = self
            .pipelines
            .get_or_build(format, || output_pipelines(device, layout, module, format));
        let (pipeline, load) = match target.color_load {
            TargetLoad::Clear(_) => (overwrite, wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)),
            TargetLoad::Load => (over, wgpu::LoadOp::Load),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("unbound output"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target.color.view(),
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &self.bind_group.as_ref().expect("built above").1, &[]);
        pass.draw(0..3, 0..1);
        stats.bind_groups_set += 1;
        stats.commands_recorded += 3;
        stats
    }
}

/// The output pass's two pipelines for `format`: overwriting, and
/// compositing premultiplied colour over what the target holds.
fn output_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
) -> [wgpu::RenderPipeline; 2] {
    [None, Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING)].map(|blend| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(if blend.is_some() {
                "unbound output over"
            } else {
                "unbound output"
            }),
            layout: Some(layout),
            vertex: wgpu::VertexState {
                module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        })
    })
}
