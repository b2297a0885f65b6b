//! What a frame traces rays with (with
//! [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries)):
//! the bind group every tracing shader reads besides the heap and the
//! scene tables ([`RayTables`], group [`RAY_GROUP`]: the TLAS, the arena's
//! index buffer, the mesh table and the ray uniforms; `wgsl/ray_hit.wgsl`),
//! and the hit-material view ([`HitMaterialPass`]), which replaces the draw
//! pass when [`DebugView::HitMaterial`](crate::DebugView::HitMaterial) is
//! on.

use crate::gpu_types::{GpuRayUniforms, uniform_bytes};
use crate::output::{HDR_FORMAT, Msaa};
use crate::passes::draw::DEPTH_FORMAT;
use crate::passes::output::HdrTarget;
use crate::passes::{GpuTables, PassStats, buffer_entry, storage};
use crate::rays::RayTracing;
use crate::renderer::FrameTarget;
use crate::shaders;
use crate::upload::UploadBatch;

/// The bind group the tracing shaders read the TLAS and the tables hits
/// need from (`wgsl/ray_hit.wgsl`): 2, which the draw pass leaves unused
/// without ray-query shadows.
pub const RAY_GROUP: u32 = 2;

/// The ray tables' bind group and the ray uniforms.
#[derive(Debug)]
pub(crate) struct RayTables {
    layout: wgpu::BindGroupLayout,
    /// `RayUniforms`.
    uniforms: wgpu::Buffer,
    /// What `uniforms` holds (or will, once the upload queued runs).
    last_uniforms: Option<GpuRayUniforms>,
    /// Built over the arena's buffers and the TLAS of these versions.
    bind_group: Option<((u64, u64), wgpu::BindGroup)>,
}

impl RayTables {
    pub fn new(device: &wgpu::Device) -> Self {
        let stages = wgpu::ShaderStages::FRAGMENT | wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound ray tables"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: stages,
                    ty: wgpu::BindingType::AccelerationStructure {
                        vertex_return: false,
                    },
                    count: None,
                },
                buffer_entry(1, stages, storage(true)),
                buffer_entry(2, stages, storage(true)),
                buffer_entry(3, stages, wgpu::BufferBindingType::Uniform),
            ],
        });
        Self {
            layout,
            uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound ray uniforms"),
                size: GpuRayUniforms::SIZE_BYTES,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_uniforms: None,
            bind_group: None,
        }
    }

    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Queues `uniforms` into this frame's upload if they changed.
    pub fn write_uniforms(&mut self, batch: &mut UploadBatch, uniforms: GpuRayUniforms) {
        if self.last_uniforms != Some(uniforms) {
            batch.write(&self.uniforms, 0, &uniform_bytes(&uniforms));
            self.last_uniforms = Some(uniforms);
        }
    }

    /// The bind group over `tables` and `tlas` (of `tlas_version`), rebuilt
    /// when either was replaced. Returns whether it was rebuilt.
    pub fn bind_group(
        &mut self,
        device: &wgpu::Device,
        tables: &GpuTables<'_>,
        tlas: &wgpu::Tlas,
        tlas_version: u64,
    ) -> (&wgpu::BindGroup, bool) {
        let key = (tables.arena_version, tlas_version);
        let rebuilt = self.bind_group.as_ref().is_none_or(|(k, _)| *k != key);
        if rebuilt {
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("unbound ray tables"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: tlas.as_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: tables.indices.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: tables.meshes.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: self.uniforms.as_entire_binding(),
                    },
                ],
            });
            self.bind_group = Some((key, group));
        }
        (&self.bind_group.as_ref().expect("just built").1, rebuilt)
    }

    pub fn size_bytes(&self) -> u64 {
        self.uniforms.size()
    }
}

/// What the hit-material view reads: the heap (group 0), the scene tables
/// (group 1, as the draw pass binds them), the tables the ray tables' bind
/// group is built over and the acceleration structures.
#[derive(Debug)]
pub(crate) struct RayViewInputs<'a> {
    pub heap: &'a wgpu::BindGroup,
    pub scene: &'a wgpu::BindGroup,
    pub tables: &'a GpuTables<'a>,
    pub tracing: &'a RayTracing,
}

/// The passes that trace rays: the ray tables, and the hit-material view
/// once drawn.
#[derive(Debug)]
pub(crate) struct RayPasses {
    pub tables: RayTables,
    heap_layout: wgpu::BindGroupLayout,
    scene_layout: wgpu::BindGroupLayout,
    msaa: Msaa,
    /// Built when the view is first drawn.
    hit_material: Option<HitMaterialPass>,
}

impl RayPasses {
    /// The passes over `tables` and the heap's and the scene tables'
    /// layouts, into HDR targets of `msaa`.
    pub fn new(
        tables: RayTables,
        heap_layout: &wgpu::BindGroupLayout,
        scene_layout: &wgpu::BindGroupLayout,
        msaa: Msaa,
    ) -> Self {
        Self {
            tables,
            heap_layout: heap_layout.clone(),
            scene_layout: scene_layout.clone(),
            msaa,
            hit_material: None,
        }
    }

    /// Records the hit-material view into `hdr` in place of the draw pass.
    pub fn record_hit_material(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &RayViewInputs<'_>,
        hdr: &mut HdrTarget,
        target: &FrameTarget<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> PassStats {
        let (tables, msaa) = (&self.tables, self.msaa);
        let (heap_layout, scene_layout) = (&self.heap_layout, &self.scene_layout);
        let pass = self.hit_material.get_or_insert_with(|| {
            HitMaterialPass::new(device, heap_layout, scene_layout, tables.layout(), msaa)
        });
        let tracing = inputs.tracing;
        let (rays, rebuilt) =
            self.tables
                .bind_group(device, inputs.tables, tracing.tlas(), tracing.version());
        let mut stats = pass.record(
            device,
            encoder,
            hdr,
            target,
            [inputs.heap, inputs.scene, rays],
            timestamps,
        );
        stats.bind_group_rebuilds += u32::from(rebuilt);
        stats
    }
}

/// The hit-material view: one fullscreen triangle into the HDR target
/// whose fragments trace their camera ray and write the hit material's id
/// (`wgsl/ray_view.wgsl`). Built when the view is first drawn.
#[derive(Debug)]
pub(crate) struct HitMaterialPass {
    pipeline: wgpu::RenderPipeline,
}

impl HitMaterialPass {
    pub fn new(
        device: &wgpu::Device,
        heap_layout: &wgpu::BindGroupLayout,
        scene_layout: &wgpu::BindGroupLayout,
        ray_layout: &wgpu::BindGroupLayout,
        msaa: Msaa,
    ) -> Self {
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound hit-material view"),
            bind_group_layouts: &[Some(heap_layout), Some(scene_layout), Some(ray_layout)],
            immediate_size: 0,
        });
        let module = shaders::RAY_VIEW.create(device);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("unbound hit-material view"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: HDR_FORMAT,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: wgpu::PrimitiveState::default(),
            // The draw pass's depth attachment, untouched: rays find their
            // own closest surface.
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(false),
                depth_compare: Some(wgpu::CompareFunction::Always),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: msaa.sample_count(),
                ..Default::default()
            },
            multiview_mask: None,
            cache: None,
        });
        Self { pipeline }
    }

    /// Records the view into `hdr` (made the size of `target`'s colour),
    /// with `target`'s depth attached as the draw pass attaches it.
    /// `groups`: the heap, the scene tables, the ray tables.
    fn record(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        hdr: &mut HdrTarget,
        target: &FrameTarget<'_>,
        groups: [&wgpu::BindGroup; 3],
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> PassStats {
        let (mut pass, _) = hdr.begin_draw_pass(
            device,
            encoder,
            target,
            "unbound hit-material view",
            timestamps,
        );
        pass.set_pipeline(&self.pipeline);
        for (index, group) in (0..).zip(groups) {
            pass.set_bind_group(index, group, &[]);
        }
        pass.draw(0..3, 0..1);
        PassStats {
            // The pass, its pipeline, three bind groups and the draw.
            commands_recorded: 6,
            bind_groups_set: 3,
            bind_group_rebuilds: 0,
        }
    }
}
