//! The draw pass: one `multi_draw_indexed_indirect_count` over the cull
//! pass's draws, vertices pulled from the arena, textures from the heap,
//! shaded into the renderer's HDR target (`passes::output`).
//! See `wgsl/draw.wgsl` for the draw-identity rule.

use wgpu::util::DeviceExt;

use crate::capabilities::Tier;
use crate::gpu_types::{BLEND_SORT_CAP, BUCKET_BLEND, BUCKETS, GpuCullHeader};
use crate::output::{HDR_FORMAT, Msaa};
use crate::passes::cull::{CullOutput, DRAW_ARGS_SIZE};
use crate::passes::lights::{LightClusters, LightInputs};
use crate::passes::output::HdrTarget;
use crate::passes::prefilter::ENVIRONMENT_GROUP;
use crate::passes::rays::RAY_GROUP;
use crate::passes::{BufferBindGroup, GpuTables, PassStats, View, buffer_entry, storage};
use crate::renderer::{FrameTarget, IndirectMode};
use crate::shaders::{self, DrawShading};

/// Depth format of the draw pass.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// What the draw pass reads: the resource heap (bind group 0); the scene's
/// tables, the view's uniforms, what the cull pass wrote for that view, the
/// light table and the light pass's cluster lists (bind group 1); the
/// environment's maps (bind group 3, `passes::prefilter::ENVIRONMENT_GROUP`).
#[derive(Debug)]
pub(crate) struct DrawInputs<'a> {
    pub heap: &'a wgpu::BindGroup,
    pub tables: &'a GpuTables<'a>,
    pub view: &'a View,
    /// Visible list and draws; the draw-index view reads the draws and
    /// counters too.
    pub culled: &'a CullOutput<'a>,
    /// The light table.
    pub lights: &'a LightInputs<'a>,
    /// The view's cluster lists.
    pub clusters: &'a LightClusters<'a>,
    pub environment: &'a wgpu::BindGroup,
    /// Which variant draws: the debug one (`shaders::DRAW_DEBUG`) while a
    /// debug view or the missing-texture highlight is on, else the lit one
    /// with punctual lights while any light is live.
    pub shading: DrawShading,
    /// The ray tables (`passes::rays::RayTables`, group
    /// [`RAY_GROUP`]): shade with that variant's ray-query shadows twin
    /// (`shaders::ray_shadows_draw_variant`). `None`: the variants without
    /// them.
    pub ray_shadows: Option<&'a wgpu::BindGroup>,
}

/// Which draw shader variant: what it shades, with ray-query shadows or
/// not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ShadingKey {
    shading: DrawShading,
    ray_shadows: bool,
}

/// One variant of the draw shader and its pipelines into the HDR target,
/// per pipeline bucket (`gpu_types::BUCKET_*`).
#[derive(Debug)]
struct Shading {
    key: ShadingKey,
    pipelines: [wgpu::RenderPipeline; 3],
}

impl Shading {
    fn new(
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        tier: Tier,
        key: ShadingKey,
        msaa: Msaa,
    ) -> Self {
        let variant = if key.ray_shadows {
            shaders::ray_shadows_draw_variant(key.shading)
        } else {
            shaders::draw_variant(tier, key.shading)
        };
        let module = variant.create(device);
        Self {
            key,
            pipelines: draw_pipelines(device, layout, &module, msaa),
        }
    }
}

#[derive(Debug)]
pub(crate) struct DrawPass {
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    /// With the ray tables at [`RAY_GROUP`] (a renderer with ray queries).
    ray_pipeline_layout: Option<wgpu::PipelineLayout>,
    tier: Tier,
    msaa: Msaa,
    /// The shader variants built so far: the lit frame's without punctual
    /// lights or ray-query shadows with the pass, the others when first
    /// used.
    shadings: Vec<Shading>,
    bind_group: BufferBindGroup<[u64; 6]>,
    /// 0, 1, 2, ...: the instance-rate draw identity.
    instance_ids: wgpu::Buffer,
    instance_id_capacity: u32,
    /// Draw counts come from the cull header
    /// (`multi_draw_indexed_indirect_count`), else every mesh slot is drawn.
    count_in_buffer: bool,
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
/// depth writes).
const BUCKET_RENDER_STATES: [(&str, Option<wgpu::Face>, bool); 3] = [
    ("opaque", Some(wgpu::Face::Back), false),
    ("double-sided", None, false),
    ("blended", Some(wgpu::Face::Back), true),
];

/// The three bucket pipelines (`gpu_types::BUCKET_*` order: opaque and
/// masked, double-sided, blended) into an HDR target of `msaa`
/// ([`crate::passes::output::HdrTarget`]), labelled `"{label} {bucket}"`:
/// `vertex` feeds them and `fs_main` in `vertex.module` shades them. The
/// shader writes alpha = coverage (1 for opaque and masked materials); the
/// blended bucket blends colour by source alpha and alpha as
/// `src + dst (1 - src)`, so the target holds premultiplied colour over
/// what it was cleared to. Public so that another renderer drawing the
/// same scenes (a comparison path, say) builds its pipelines here and
/// renders alike.
pub fn bucket_pipelines(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    vertex: &wgpu::VertexState<'_>,
    msaa: Msaa,
) -> [wgpu::RenderPipeline; 3] {
    BUCKET_RENDER_STATES.map(|(name, cull_mode, blend)| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(&format!("{label} {name}")),
            layout: Some(layout),
            vertex: vertex.clone(),
            fragment: Some(wgpu::FragmentState {
                module: vertex.module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: HDR_FORMAT,
                    blend: blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: wgpu::PrimitiveState {
                cull_mode,
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(!blend),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: msaa.sample_count(),
                ..Default::default()
            },
            multiview_mask: None,
            cache: None,
        })
    })
}

/// The draw pass's bucket pipelines: one instance id per instance (vertices
/// are pulled from the arena).
fn draw_pipelines(
    device: &wgpu::Device,
    pipeline_layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    msaa: Msaa,
) -> [wgpu::RenderPipeline; 3] {
    let vertex = wgpu::VertexState {
        module,
        entry_point: Some("vs_main"),
        compilation_options: Default::default(),
        buffers: &[Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<u32>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &[wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Uint32,
                offset: 0,
                shader_location: 0,
            }],
        })],
    };
    bucket_pipelines(device, "unbound draw", pipeline_layout, &vertex, msaa)
}

impl DrawPass {
    /// The pass over the heap's, the environment's and (with ray queries)
    /// the ray tables' layouts.
    pub fn new(
        device: &wgpu::Device,
        heap_layout: &wgpu::BindGroupLayout,
        environment_layout: &wgpu::BindGroupLayout,
        ray_layout: Option<&wgpu::BindGroupLayout>,
        msaa: Msaa,
        tier: Tier,
        indirect: IndirectMode,
    ) -> Self {
        let vertex = wgpu::ShaderStages::VERTEX;
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let entry = buffer_entry;
        let storage = storage(true);
        let uniform = wgpu::BufferBindingType::Uniform;
        let traced = match ray_layout {
            Some(_) => fragment,
            None => wgpu::ShaderStages::empty(),
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound scene tables"),
            entries: &[
                entry(0, vertex | fragment, uniform),
                entry(1, vertex | fragment, storage),
                // Vertices and objects: with ray queries, fragments that
                // trace read them too (`wgsl/ray_hit.wgsl`); only then
                // (wgpu's GL backend draws nothing with them visible to
                // fragments its shaders do not declare them in).
                entry(2, vertex | traced, storage),
                entry(3, vertex | traced, storage),
                entry(4, fragment, storage),
                entry(5, vertex, storage),
                entry(6, vertex, storage),
                entry(7, vertex, storage),
                entry(8, fragment, storage),
                entry(9, fragment, storage),
                entry(10, fragment, storage),
            ],
        });
        let pipeline_layout = |label, rays| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[
                    Some(heap_layout),
                    Some(&layout),
                    rays,
                    Some(environment_layout),
                ],
                immediate_size: 0,
            })
        };
        let ray_pipeline_layout =
            ray_layout.map(|rays| pipeline_layout("unbound draw with ray queries", Some(rays)));
        let pipeline_layout = pipeline_layout("unbound draw", None);
        let lit_key = ShadingKey {
            shading: DrawShading::Lit,
            ray_shadows: false,
        };
        let lit = Shading::new(device, &pipeline_layout, tier, lit_key, msaa);
        Self {
            layout,
            pipeline_layout,
            ray_pipeline_layout,
            tier,
            msaa,
            shadings: vec![lit],
            bind_group: BufferBindGroup::new("unbound scene tables"),
            instance_ids: instance_ids(device, 64),
            instance_id_capacity: 64,
            count_in_buffer: indirect == IndirectMode::Count,
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

    /// The scene tables' layout (group 1), which the passes that trace rays
    /// bind too.
    pub fn scene_layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// The scene tables' bind group (group 1) of `inputs`, as the draw pass
    /// binds it. Returns whether it was rebuilt.
    pub fn scene_group(
        &mut self,
        device: &wgpu::Device,
        inputs: &DrawInputs<'_>,
    ) -> (&wgpu::BindGroup, bool) {
        scene_bind_group(&mut self.bind_group, device, &self.layout, inputs)
    }

    /// Records the draw pass into `hdr` (made the size of `target`'s
    /// colour), depth-tested in `target`'s depth: the cull pass's draws for
    /// the view, per pipeline bucket in use.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        hdr: &mut HdrTarget,
        target: &FrameTarget<'_>,
        inputs: &DrawInputs<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> PassStats {
        let DrawInputs {
            heap,
            tables,
            culled,
            environment,
            shading,
            ray_shadows,
            ..
        } = inputs;
        let key = ShadingKey {
            shading: *shading,
            ray_shadows: ray_shadows.is_some(),
        };
        let index = match self.shadings.iter().position(|s| s.key == key) {
            Some(index) => index,
            None => {
                let layout = match key.ray_shadows {
                    true => self.ray_pipeline_layout.as_ref().expect("ray queries on"),
                    false => &self.pipeline_layout,
                };
                let shading = Shading::new(device, layout, self.tier, key, self.msaa);
                self.shadings.push(shading);
                self.shadings.len() - 1
            }
        };
        let pipelines = &self.shadings[index].pipelines;
        let (scene, rebuilt) = scene_bind_group(&mut self.bind_group, device, &self.layout, inputs);
        let mut stats = PassStats {
            commands_recorded: 1,
            bind_groups_set: 0,
            bind_group_rebuilds: u32::from(rebuilt),
        };
        let (mut pass, _) =
            hdr.begin_draw_pass(device, encoder, target, "unbound draw", timestamps);
        let draws_per_bucket = tables.mesh_slots.min(culled.draws_per_bucket);
        if draws_per_bucket == 0 {
            return stats;
        }
        pass.set_bind_group(0, *heap, &[]);
        pass.set_bind_group(1, scene, &[]);
        if let Some(rays) = ray_shadows {
            pass.set_bind_group(RAY_GROUP, *rays, &[]);
            stats.bind_groups_set += 1;
            stats.commands_recorded += 1;
        }
        pass.set_bind_group(ENVIRONMENT_GROUP, *environment, &[]);
        pass.set_vertex_buffer(0, self.instance_ids.slice(..));
        pass.set_index_buffer(tables.indices.slice(..), wgpu::IndexFormat::Uint32);
        stats.bind_groups_set += 3;
        // 3 bind groups, vertex buffer, index buffer
        stats.commands_recorded += 5;
        for (bucket, pipeline) in pipelines.iter().enumerate() {
            let objects = tables.bucket_objects[bucket];
            if objects == 0 {
                continue;
            }
            pass.set_pipeline(pipeline);
            let draws = BucketDraws {
                culled,
                bucket: bucket as u32,
                objects,
                draws_per_bucket,
                count_in_buffer: self.count_in_buffer,
            };
            stats.commands_recorded += 1 + draws.record(&mut pass);
        }
        stats
    }
}

/// The scene tables' bind group (group 1) of `inputs`: the view's
/// uniforms, the tables, what the cull pass wrote for the view, the light
/// table and the view's clusters. Returns whether it was rebuilt.
fn scene_bind_group<'g>(
    cache: &'g mut BufferBindGroup<[u64; 6]>,
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    inputs: &DrawInputs<'_>,
) -> (&'g wgpu::BindGroup, bool) {
    let DrawInputs {
        tables,
        view,
        culled,
        lights,
        clusters,
        ..
    } = inputs;
    let key = [
        tables.arena_version,
        tables.objects_version,
        tables.materials_version,
        culled.version,
        lights.version,
        clusters.version,
    ];
    let buffers = [
        &view.uniforms,
        tables.counts,
        tables.vertices,
        tables.objects,
        tables.materials,
        culled.visible_instances,
        culled.draws,
        culled.counters,
        lights.lights,
        clusters.ranges,
        clusters.light_indices,
    ];
    cache.get(device, layout, key, &buffers)
}

/// One pipeline bucket's draws in the cull pass's output.
struct BucketDraws<'a> {
    culled: &'a CullOutput<'a>,
    bucket: u32,
    /// Live objects in the bucket.
    objects: u32,
    /// Draws to issue from the bucket's region (the mesh slots in use).
    draws_per_bucket: u32,
    /// Use the GPU-written counts (else issue `draws_per_bucket` draws,
    /// culled meshes with zero instances).
    count_in_buffer: bool,
}

impl BucketDraws<'_> {
    /// Issues the bucket's multi-draws; returns how many.
    fn record(&self, pass: &mut wgpu::RenderPass<'_>) -> u32 {
        let (draws, counters) = (self.culled.draws, self.culled.counters);
        let region = u64::from(self.culled.draws_per_bucket);
        let mut commands = 0;
        if self.bucket == BUCKET_BLEND {
            // Exactly sorted blended draws after the bucket regions (none
            // when more than BLEND_SORT_CAP were visible; the region's
            // per-mesh draws are used then, and are empty otherwise).
            // At most one per live blended object.
            let sorted = region * u64::from(BUCKETS) * DRAW_ARGS_SIZE;
            let most = self.objects.min(BLEND_SORT_CAP);
            if self.count_in_buffer {
                pass.multi_draw_indexed_indirect_count(
                    draws,
                    sorted,
                    counters,
                    GpuCullHeader::SORTED_BLEND_DRAWS_OFFSET,
                    most,
                );
            } else {
                pass.multi_draw_indexed_indirect(draws, sorted, most);
            }
            commands += 1;
        }
        let offset = region * u64::from(self.bucket) * DRAW_ARGS_SIZE;
        if self.count_in_buffer {
            pass.multi_draw_indexed_indirect_count(
                draws,
                offset,
                counters,
                GpuCullHeader::bucket_draws_offset(self.bucket),
                self.draws_per_bucket,
            );
        } else {
            pass.multi_draw_indexed_indirect(draws, offset, self.draws_per_bucket);
        }
        commands + 1
    }
}
