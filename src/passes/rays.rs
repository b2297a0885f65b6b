//! What a frame traces rays with (with
//! [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries)):
//! the bind group every tracing shader reads besides the heap and the
//! scene tables (`RayTables`, group `RAY_GROUP`: the TLAS, the arena's
//! index buffer, the mesh table, the ray uniforms and the path tracer's
//! accumulation; `wgsl/ray_hit.wgsl`), and the views traced instead of
//! drawn (`RayPasses`): the hit-material view
//! ([`DebugView::HitMaterial`](crate::DebugView::HitMaterial),
//! `wgsl/ray_view.wgsl`) and the path-traced view
//! ([`DebugView::PathTraced`](crate::DebugView::PathTraced),
//! `wgsl/path_trace.wgsl`), each one fullscreen triangle into the HDR
//! target in place of the draw pass.
//!
//! What traces:
//!
//! - **Ray-query shadows** ([`crate::Renderer::set_ray_query_shadows`]): the
//!   draw pass's `RAY_QUERY_SHADOWS` variant multiplies the sun's term by a
//!   shadow ray's verdict (origin offset along the normal, first hit ends it;
//!   opaque and masked instances occlude, blended ones do not; image-based
//!   light is not shadowed). Spot lights are then unshadowed.
//! - **The hit-material view**: each fragment traces the camera ray through its
//!   pixel's centre, from the near to the far plane, and writes the hit
//!   material's id as the id views do. It sees what the draw pass draws:
//!   through alpha-masked holes and through back faces of single-sided
//!   materials (found from the triangle's winding in world space, mirroring
//!   included, up to `RAY_CULLED_FACES` of them).
//! - **The path-traced view**, the reference the raster image is compared
//!   with: each fragment traces
//!   [`PathTracing::samples_per_frame`](crate::PathTracing::samples_per_frame)
//!   jittered paths through its pixel. At each surface a path adds the
//!   emission, the sun and every punctual light through a shadow ray each,
//!   then (up to [`PathTracing::bounces`](crate::PathTracing::bounces) times)
//!   continues in a direction drawn from a mixture of the cosine and the GGX
//!   lobe of `wgsl/brdf.wgsl`, weighted by `brdf × n·l / density`, to another
//!   surface or the environment (its radiance cube at level 0, times
//!   `Lighting::ambient_color`). Blended objects are not traced; occlusion
//!   textures are not used. Progressive: an accumulation buffer (16 bytes a
//!   pixel, made at the target's size) holds each pixel's sums, each frame
//!   adds its samples and writes the mean, premultiplied by the fraction of
//!   camera rays that hit. It starts again when the camera, the lighting, the
//!   target's size, the settings or the scene change (a counter every resource
//!   call that changes what a path reaches bumps). The output pass exposes and
//!   tone maps it like the lit view. `tests/ray_queries.rs`: the white furnace
//!   converges to the environment times the BRDF's directional albedo within
//!   0.01, and a diffuse sphere under the sky matches the raster image-based
//!   light (mean within 3%).
//!
//! The ray tables are visible to fragment stages (every tracing pass is a
//! fragment pass): with the scene tables' storage buffers, the index buffer,
//! the mesh table, the accumulation and the deform buffer (hits on skinned
//! objects are shaded posed) make eleven, twelve with the paged heap's
//! slot-to-layer map, hence `RAY_QUERY_STORAGE_BUFFERS_PER_STAGE` among
//! the ray-query limits. lavapipe
//! (Mesa 25.0) needs two things of the traversal loops: a candidate's kind is
//! read on its own and the rest of the candidate only for a triangle, and a
//! query stays in the function that declares it.

use crate::capabilities::tier::HeapLayout;
use crate::gpu_types::{GpuRayUniforms, uniform_bytes};
use crate::output::{DEPTH_FORMAT, HDR_FORMAT, Msaa};
use crate::passes::inputs::{DrawOutput, FrameInputs};
use crate::passes::output::Kept;
use crate::passes::prefilter::ENVIRONMENT_GROUP;
use crate::passes::{GpuTables, PassStats, buffer_entry, layout_entry, storage};
use crate::rays::RayTracing;
use crate::shaders::{self, ShaderVariant};
use crate::upload::UploadBatch;

/// The bind group the tracing shaders read the TLAS and the tables hits
/// need from (`wgsl/ray_hit.wgsl`): 2, which the draw pass leaves unused
/// without ray-query shadows.
pub const RAY_GROUP: u32 = 2;

// A traced view binds [heap, scene tables, ray tables, environment] in
// order.
const _: () = assert!(RAY_GROUP == 2 && ENVIRONMENT_GROUP == 3);

/// Bytes of the path tracer's accumulation per pixel: a sum of radiance
/// and a sample count (`vec4<f32>`).
const ACCUMULATION_BYTES_PER_PIXEL: u64 = 16;

/// The ray tables' bind group, the ray uniforms and the path tracer's
/// accumulation buffer.
#[derive(Debug)]
pub(crate) struct RayTables {
    layout: wgpu::BindGroupLayout,
    /// `RayUniforms`.
    uniforms: wgpu::Buffer,
    /// What `uniforms` holds (or will, once the upload queued runs).
    last_uniforms: Option<GpuRayUniforms>,
    /// Each pixel's running sum of path-traced samples: a placeholder of
    /// one pixel until the path-traced view is first drawn.
    accumulation: wgpu::Buffer,
    accumulation_version: u64,
    /// Built over the arena's buffers, the TLAS and the accumulation of
    /// these versions.
    bind_group: Option<([u64; 3], wgpu::BindGroup)>,
}

/// Bytes of the path tracer's accumulation over `pixels` pixels (at least
/// one), checked against the device before each frame that traces it
/// (`src/renderer/checks.rs`).
pub(crate) fn accumulation_size_bytes(pixels: u64) -> u64 {
    pixels.max(1) * ACCUMULATION_BYTES_PER_PIXEL
}

fn accumulation_buffer(device: &wgpu::Device, pixels: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("unbound path-traced accumulation"),
        size: accumulation_size_bytes(pixels),
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })
}

impl RayTables {
    pub fn new(device: &wgpu::Device) -> Self {
        let stages = wgpu::ShaderStages::FRAGMENT;
        let tlas = wgpu::BindingType::AccelerationStructure {
            vertex_return: false,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound ray tables"),
            entries: &[
                layout_entry(0, stages, tlas),
                buffer_entry(1, stages, storage(true)),
                buffer_entry(2, stages, storage(true)),
                buffer_entry(3, stages, wgpu::BufferBindingType::Uniform),
                buffer_entry(4, stages, storage(false)),
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
            accumulation: accumulation_buffer(device, 1),
            accumulation_version: 0,
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

    /// Makes the accumulation hold `pixels` pixels (a new buffer starts
    /// from sample 0: the caller resets its count when this returns true).
    pub fn ensure_accumulation(&mut self, device: &wgpu::Device, pixels: u64) -> bool {
        if self.accumulation.size() == accumulation_size_bytes(pixels) {
            return false;
        }
        self.accumulation = accumulation_buffer(device, pixels);
        self.accumulation_version += 1;
        true
    }

    /// The bind group over `tables` and `tlas` (of `tlas_version`), rebuilt
    /// when either, or the accumulation, was replaced. Returns whether it
    /// was rebuilt.
    pub fn bind_group(
        &mut self,
        device: &wgpu::Device,
        tables: &GpuTables<'_>,
        tlas: &wgpu::Tlas,
        tlas_version: u64,
    ) -> (&wgpu::BindGroup, bool) {
        let key = [
            tables.arena_version,
            tlas_version,
            self.accumulation_version,
        ];
        let rebuilt = self.bind_group.as_ref().is_none_or(|(k, _)| *k != key);
        if rebuilt {
            let buffers = [
                tables.indices,
                tables.meshes,
                &self.uniforms,
                &self.accumulation,
            ];
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: tlas.as_binding(),
            }];
            entries.extend(
                (1..)
                    .zip(buffers)
                    .map(|(binding, buffer)| wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    }),
            );
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("unbound ray tables"),
                layout: &self.layout,
                entries: &entries,
            });
            self.bind_group = Some((key, group));
        }
        (&self.bind_group.as_ref().expect("just built").1, rebuilt)
    }

    pub fn size_bytes(&self) -> u64 {
        self.uniforms.size() + self.accumulation.size()
    }
}

/// What a traced view reads: the heap (group 0), the scene tables (group 1,
/// as the draw pass binds them), the tables the ray tables' bind group is
/// built over, the acceleration structures and the environment's maps
/// (group [`ENVIRONMENT_GROUP`], for the path tracer).
#[derive(Debug)]
pub(crate) struct RayViewInputs<'a> {
    /// The scene tables' group, as the draw pass binds it.
    pub scene: &'a wgpu::BindGroup,
    pub tracing: &'a RayTracing,
    /// The path-traced view, else the hit-material view.
    pub path_traced: bool,
}

/// The layouts a traced view's pipeline is built over.
#[derive(Debug)]
struct RayLayouts {
    heap: wgpu::BindGroupLayout,
    /// What the heap binds (the tracing shaders' variant).
    heap_layout: HeapLayout,
    scene: wgpu::BindGroupLayout,
    environment: wgpu::BindGroupLayout,
    msaa: Msaa,
}

/// The ray tables and the views traced instead of drawn, each built when
/// first drawn.
#[derive(Debug)]
pub(crate) struct RayPasses {
    pub tables: RayTables,
    layouts: RayLayouts,
    hit_material: Option<TracedView>,
    path_traced: Option<TracedView>,
}

impl RayPasses {
    /// The passes over `tables` and the heap's, the scene tables' and the
    /// environment's layouts, into HDR targets of `msaa`.
    pub fn new(
        tables: RayTables,
        (heap, heap_layout): (&wgpu::BindGroupLayout, HeapLayout),
        scene: &wgpu::BindGroupLayout,
        environment: &wgpu::BindGroupLayout,
        msaa: Msaa,
    ) -> Self {
        Self {
            tables,
            layouts: RayLayouts {
                heap: heap.clone(),
                heap_layout,
                scene: scene.clone(),
                environment: environment.clone(),
                msaa,
            },
            hit_material: None,
            path_traced: None,
        }
    }

    /// Records the hit-material view or the path-traced view
    /// (`inputs.path_traced`) into the frame's HDR target in place of the
    /// draw pass.
    pub fn record<'a>(
        &mut self,
        frame: &FrameInputs<'a>,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &RayViewInputs<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> DrawOutput<'a> {
        let (device, path_traced) = (frame.device, inputs.path_traced);
        let (tables, layouts) = (&self.tables, &self.layouts);
        // The path tracer's coverage blends its edges over the cleared
        // target; ids are written as they are.
        let variants = shaders::ray_query_layout_variants(layouts.heap_layout);
        let (view, path) = (variants[0], variants[1]);
        let (slot, variant, label, blend) = if path_traced {
            let premultiplied = wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING;
            let label = "unbound path-traced view";
            (&mut self.path_traced, path, label, Some(premultiplied))
        } else {
            let label = "unbound hit-material view";
            (&mut self.hit_material, view, label, None)
        };
        let pass = slot.get_or_insert_with(|| {
            TracedView::new(device, layouts, tables.layout(), (variant, blend), label)
        });
        let tracing = inputs.tracing;
        let (rays, rebuilt) =
            self.tables
                .bind_group(device, &frame.tables, tracing.tlas(), tracing.version());
        let groups = [frame.heap, inputs.scene, rays, frame.environment];
        let mut stats = pass.record(frame, encoder, groups, timestamps);
        stats.bind_group_rebuilds += u32::from(rebuilt);
        DrawOutput::new(frame, stats)
    }
}

/// A view traced instead of drawn: one fullscreen triangle into the HDR
/// target whose fragments trace (a variant among
/// [`shaders::ray_query_variants`]).
#[derive(Debug)]
struct TracedView {
    pipeline: wgpu::RenderPipeline,
    label: &'static str,
}

impl TracedView {
    fn new(
        device: &wgpu::Device,
        layouts: &RayLayouts,
        ray_layout: &wgpu::BindGroupLayout,
        (variant, blend): (ShaderVariant, Option<wgpu::BlendState>),
        label: &'static str,
    ) -> Self {
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[
                Some(&layouts.heap),
                Some(&layouts.scene),
                Some(ray_layout),
                Some(&layouts.environment),
            ],
            immediate_size: 0,
        });
        let module = variant.create(device);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
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
                    blend,
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
                count: layouts.msaa.sample_count(),
                ..Default::default()
            },
            multiview_mask: None,
            cache: None,
        });
        Self { pipeline, label }
    }

    /// Records the view into the frame's HDR target, with the target's depth
    /// attached as the draw pass attaches it.
    /// `groups`: the heap, the scene tables, the ray tables, the
    /// environment.
    fn record(
        &self,
        frame: &FrameInputs<'_>,
        encoder: &mut wgpu::CommandEncoder,
        groups: [&wgpu::BindGroup; 4],
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> PassStats {
        let mut pass =
            frame
                .hdr
                .begin_pass(encoder, frame.target, self.label, Kept::Nothing, timestamps);
        pass.set_pipeline(&self.pipeline);
        for (index, group) in (0..).zip(groups) {
            pass.set_bind_group(index, group, &[]);
        }
        pass.draw(0..3, 0..1);
        PassStats {
            // The pass, its pipeline, four bind groups and the draw.
            commands_recorded: 7,
            bind_groups_set: 4,
            bind_group_rebuilds: 0,
        }
    }
}
