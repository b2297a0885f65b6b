//! The draw pass (`wgsl/draw.wgsl`): one indirect multi-draw (with the count
//! read on the GPU on tier A, [`IndirectMode`]) per pipeline bucket in use over the cull pass's draws, vertices pulled from
//! the arena, textures from the heap, shaded into the renderer's HDR target
//! ([`crate::passes::output::HdrTarget`]).
//!
//! Three pipelines, one per bucket (opaque, double-sided, blended without
//! depth writes). Bind groups: 0 the heap, 1 the scene tables (light table
//! and cluster lists read-only in the fragment stage), 2 the shadow map
//! (shadow variants), 3 the environment. Draw counts come from the cull header.
//! Per frame the CPU work is constant: 6 commands plus 2 per bucket in use (3
//! for the blended one), 3 bind groups (one more of each with shadows).
//!
//! What each fragment computes: [`crate::lighting`], beside its CPU twins.
//!
//! **After a depth pre-pass** (`src/passes/prepass.rs`, opt-in) the opaque
//! and double-sided buckets test depth for equality with what the pre-pass
//! wrote and write none, so each sample is shaded once; their pipelines are
//! a variant of their own (`DrawInputs::prepassed`). The blended bucket
//! is unchanged. The vertex stage's position is `@invariant`
//! (`wgsl/surface.wgsl`), so both passes compute the same depth.
//!
//! **Visibility buffer** (`src/passes/visibility.rs`): the pre-pass hands
//! over ids, and one material pass (`wgsl/visibility.wgsl`) replaces the
//! opaque and double-sided buckets; blended ones follow. By default it is
//! a compute pass between the draw pass's clear and its blended draws,
//! once a frame: with occlusion culling the early phase's draw pass only
//! clears, and the late phase's shades every id. The fragment material
//! pass (the fallback, and [`crate::MaterialPass::Fragment`]) is a
//! full-screen triangle inside the draw pass, in each phase.
//!
//! **Variants** ([`crate::shaders`]): punctual lights (`PUNCTUAL_LIGHTS`),
//! built on the first frame with a live light, shadows (`SHADOWS`), debug views
//! (`DEBUG_VIEWS`) and tier C's texture arrays are variants of their own, so a
//! frame pays only for what it uses: the H200's draw pass is sensitive to every
//! register a loop could take, and untaken debug code cost it a quarter of its
//! time. Under a texture budget the shading writes the texture feedback, with
//! early depth tests forced where that is correct
//! ([`CameraFeedback::choose`], part of the variant's key).
//!
//! **Output.** The pipelines write alpha = coverage (1 for opaque and masked
//! materials, the base colour's alpha for blended ones) and the blended
//! bucket's blend state adds alpha as `src + dst (1 - src)`, so the HDR target
//! holds colour premultiplied by coverage for the output pass to composite.
//!
//! **Draw identity on every backend.** The vertex shader finds its object
//! through `visible_instances[instance_slot]`, where `instance_slot` comes
//! from an instance-rate vertex attribute backed by a buffer holding 0, 1,
//! 2, … (4 bytes per object slot, bound once per frame). Every backend honours
//! an indirect draw's `first_instance` for instance-rate attributes, whereas
//! `@builtin(instance_index)` ignores it on DX12 under
//! multi-draw-indirect-count (wgpu issue 7974). With indices stored already
//! offset by their mesh's first vertex (base vertex always 0), no shader relies
//! on draw parameters the backends disagree about.
//!
//! **Bounds checks.** Every index read from a table (texture and sampler
//! slot, material, object, vertex) is checked against the live counts
//! (`TableCounts`, a storage buffer: a layout with binding arrays cannot also
//! hold a uniform buffer); out of range selects slot 0 (`tests/frame.rs`).

use wgpu::util::DeviceExt;

use crate::capabilities::tier::HeapLayout;
use crate::gpu_types::BUCKET_BLEND;
use crate::output::{DEPTH_FORMAT, HDR_FORMAT, Msaa};
pub(crate) use crate::passes::inputs::SunShadows;
use crate::passes::inputs::{DrawOutput, FrameInputs};
use crate::passes::output::{Kept, split_timestamps};
use crate::passes::prefilter::ENVIRONMENT_GROUP;
use crate::passes::prepass::DepthPrepassOutput;
use crate::passes::rays::RAY_GROUP;
use crate::passes::scene::{
    BucketDraws, DrawPhase, INSTANCE_ID_LAYOUT, SceneBindGroup, SceneInputs,
};
use crate::passes::visibility::{MaterialLayouts, MaterialPipelines, MaterialShading};
use crate::passes::{BufferBindGroup, PassStats, buffer_entry, storage};
use crate::shaders::{self, CameraFeedback, DrawShading, ShadowSource};

/// How the draw pass issues the cull pass's draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndirectMode {
    /// `multi_draw_indexed_indirect_count`: a compacted list, count read on
    /// the GPU (not validated by wgpu).
    #[default]
    Count,
    /// `multi_draw_indexed_indirect` over one draw per mesh slot, culled
    /// meshes with zero instances. With wgpu's indirect-call validation on
    /// (`InstanceFlags::VALIDATION_INDIRECT_CALL`, the default) every draw is
    /// validated; the lower tier without indirect count uses this.
    Plain,
}

/// What the draw pass reads: the resource heap (bind group 0); the scene's
/// tables, the view's uniforms, what the cull pass wrote for that view, the
/// light table and the light pass's cluster lists (bind group 1); with
/// shadows on, the shadow map and the cascades' uniforms (bind group
/// [`SHADOW_GROUP`]); the environment's maps (bind group 3,
/// `passes::prefilter::ENVIRONMENT_GROUP`).
pub(crate) struct DrawInputs<'a> {
    /// The tables, the view, what the cull pass wrote for it (the
    /// draw-index view reads the draws and counters too), the light table
    /// and the view's cluster lists.
    pub scene: SceneInputs<'a>,
    /// Which variant draws: the debug one (`shaders::DRAW_DEBUG`) while a
    /// debug view or the missing-texture highlight is on, else the lit one
    /// with punctual lights while any light is live.
    pub shading: DrawShading,
    /// The sun's shadows and the bind group (group [`SHADOW_GROUP`]) they
    /// read: the shadow map and cascades (`passes::shadow`), or the ray
    /// tables (`passes::rays::RayTables`) for ray-query shadows.
    pub sun_shadows: SunShadows<'a>,
    /// The depth pre-pass of the same draws, if it ran
    /// (`passes::prepass`): the opaque and double-sided buckets then test
    /// depth for equality with what it wrote and do not write depth.
    pub prepassed: Option<&'a DepthPrepassOutput>,
}

/// The bind group the shadowed variants read the shadow map and the
/// cascades (`wgsl/shadows.wgsl`) or the ray tables (`wgsl/ray_hit.wgsl`)
/// from: the draw pass's group 2, unused without shadows.
pub const SHADOW_GROUP: u32 = 2;
const _: () = assert!(SHADOW_GROUP == RAY_GROUP);

/// Which draw shader variant: what it shades, and how it shadows the sun
/// (`shaders::draw_variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ShadingKey {
    shading: DrawShading,
    shadows: ShadowSource,
    /// After a depth pre-pass: depth tested for equality, not written.
    prepassed: bool,
    /// After the visibility pass: the visibility module, with the material
    /// pass's pipelines.
    visibility: bool,
    /// The texture feedback, and whether early depth tests are forced
    /// ([`CameraFeedback::choose`]).
    feedback: CameraFeedback,
}

/// One variant of the draw shader and its pipelines into the HDR target,
/// per pipeline bucket (`gpu_types::BUCKET_*`).
#[derive(Debug)]
struct Shading {
    key: ShadingKey,
    pipelines: [wgpu::RenderPipeline; 3],
    /// The material pass's, after the visibility pass.
    material: Option<MaterialPipelines>,
}

impl Shading {
    fn new(
        device: &wgpu::Device,
        (layout, material): (&wgpu::PipelineLayout, Option<&MaterialShading>),
        heap: HeapLayout,
        key: ShadingKey,
        msaa: Msaa,
    ) -> Self {
        let visibility = material.is_some();
        let heap = (heap, key.feedback);
        let variant = shaders::camera_variant(heap, visibility, key.shading, key.shadows);
        let module = variant.create(device);
        let shadows = key.shadows == ShadowSource::Maps;
        Self {
            key,
            pipelines: draw_pipelines(device, layout, &module, msaa, key.prepassed),
            material: material.map(|pass| pass.pipelines(device, &module, shadows)),
        }
    }
}

#[derive(Debug)]
pub(crate) struct DrawPass {
    layout: wgpu::BindGroupLayout,
    /// Without and with the shadow group.
    pipeline_layout: wgpu::PipelineLayout,
    /// With the shadow group: the shadow map's, and the ray tables' (a
    /// renderer with ray queries).
    shadow_pipeline_layout: wgpu::PipelineLayout,
    ray_pipeline_layout: Option<wgpu::PipelineLayout>,
    /// What the heap binds, whether it binds the texture feedback, and
    /// whether the device can force early depth tests
    /// (`Features::SHADER_EARLY_DEPTH_TEST`).
    heap: (HeapLayout, bool, bool),
    msaa: Msaa,
    /// The shader variants built so far: the lit frame's without punctual
    /// lights or shadows with the pass, the others when first used.
    shadings: Vec<Shading>,
    bind_group: SceneBindGroup,
    /// The late occlusion phase's scene group (its own cull buffers).
    late_bind_group: SceneBindGroup,
    /// 0, 1, 2, ...: the instance-rate draw identity.
    instance_ids: wgpu::Buffer,
    instance_id_capacity: u32,
    /// Draw counts come from the cull header
    /// (`multi_draw_indexed_indirect_count`), else every mesh slot is drawn.
    count_in_buffer: bool,
    /// The material pass, built when the visibility buffer first runs, and
    /// the layouts it is built over.
    material: (Option<MaterialShading>, MaterialLayouts),
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
    depth_tested_pipelines(device, (label, layout), vertex, msaa, false)
}

/// [`bucket_pipelines`]; `prepassed`: after a depth pre-pass, whose depth
/// the opaque and double-sided buckets test for equality without writing
/// (the blended bucket tests and blends as always).
fn depth_tested_pipelines(
    device: &wgpu::Device,
    (label, layout): (&str, &wgpu::PipelineLayout),
    vertex: &wgpu::VertexState<'_>,
    msaa: Msaa,
    prepassed: bool,
) -> [wgpu::RenderPipeline; 3] {
    BUCKET_RENDER_STATES.map(|(name, cull_mode, blend)| {
        let (depth_write, depth_compare) = match (blend, prepassed) {
            (true, _) => (false, wgpu::CompareFunction::Less),
            (false, true) => (false, wgpu::CompareFunction::Equal),
            (false, false) => (true, wgpu::CompareFunction::Less),
        };
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
                depth_write_enabled: Some(depth_write),
                depth_compare: Some(depth_compare),
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
    prepassed: bool,
) -> [wgpu::RenderPipeline; 3] {
    let vertex = wgpu::VertexState {
        module,
        entry_point: Some("vs_main"),
        compilation_options: Default::default(),
        buffers: &[Some(INSTANCE_ID_LAYOUT)],
    };
    let (label, layout) = ("unbound draw", pipeline_layout);
    depth_tested_pipelines(device, (label, layout), &vertex, msaa, prepassed)
}

/// The layouts of the bind groups the draw pass binds besides its own
/// scene group.
pub(crate) struct DrawLayouts<'a> {
    /// The resource heap's (group 0).
    pub heap: &'a wgpu::BindGroupLayout,
    /// The shadow map's (group [`SHADOW_GROUP`], `passes::shadow`).
    pub shadow: &'a wgpu::BindGroupLayout,
    /// The environment's (group [`ENVIRONMENT_GROUP`]).
    pub environment: &'a wgpu::BindGroupLayout,
    /// The ray tables' (group [`RAY_GROUP`]), with ray queries.
    pub rays: Option<&'a wgpu::BindGroupLayout>,
}

impl DrawPass {
    /// The pass over `layouts`, shading with the variants of the heap's
    /// layout (with the texture feedback where `heap.1`).
    pub fn new(
        device: &wgpu::Device,
        layouts: &DrawLayouts<'_>,
        msaa: Msaa,
        heap: (HeapLayout, bool),
        indirect: IndirectMode,
    ) -> Self {
        let DrawLayouts {
            heap: heap_layout,
            shadow: shadow_layout,
            environment: environment_layout,
            rays: ray_layout,
        } = *layouts;
        let material_layouts = MaterialLayouts {
            heap: heap_layout.clone(),
            shadow: shadow_layout.clone(),
            environment: environment_layout.clone(),
        };
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
                // The mesh table: the LOD view's vertices (draw.wgsl).
                entry(11, vertex, storage),
                // The deform buffer: skin stream and palettes (pull.wgsl;
                // with ray queries, hits on skinned objects too).
                entry(12, vertex | traced, storage),
            ],
        });
        let pipeline_layout = |label, shadows| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[
                    Some(heap_layout),
                    Some(&layout),
                    shadows,
                    Some(environment_layout),
                ],
                immediate_size: 0,
            })
        };
        let shadow_pipeline_layout =
            pipeline_layout("unbound draw with shadows", Some(shadow_layout));
        let ray_pipeline_layout =
            ray_layout.map(|rays| pipeline_layout("unbound draw with ray queries", Some(rays)));
        let pipeline_layout = pipeline_layout("unbound draw", None);
        let early_depth_test =
            (device.features()).contains(wgpu::Features::SHADER_EARLY_DEPTH_TEST);
        let lit_key = ShadingKey {
            shading: DrawShading::Lit,
            shadows: ShadowSource::Off,
            prepassed: false,
            visibility: false,
            feedback: CameraFeedback::choose((heap.1, early_depth_test), false, 0),
        };
        let lit = Shading::new(device, (&pipeline_layout, None), heap.0, lit_key, msaa);
        let heap = (heap.0, heap.1, early_depth_test);
        Self {
            layout,
            pipeline_layout,
            shadow_pipeline_layout,
            ray_pipeline_layout,
            heap,
            msaa,
            shadings: vec![lit],
            bind_group: BufferBindGroup::new("unbound scene tables"),
            late_bind_group: BufferBindGroup::new("unbound late scene tables"),
            instance_ids: instance_ids(device, 64),
            instance_id_capacity: 64,
            count_in_buffer: indirect == IndirectMode::Count,
            material: (None, material_layouts),
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

    /// The scene tables' layout (group 1), which the shadow pass and the
    /// passes that trace rays bind too.
    pub fn scene_layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// 0, 1, 2, ...: the instance-rate draw identity, which the shadow pass
    /// uses too.
    pub fn instance_ids(&self) -> &wgpu::Buffer {
        &self.instance_ids
    }

    /// The scene tables' bind group (group 1) of `scene`, as the draw pass
    /// binds it. Returns whether it was rebuilt.
    pub fn scene_group(
        &mut self,
        device: &wgpu::Device,
        scene: &SceneInputs<'_>,
    ) -> (&wgpu::BindGroup, bool) {
        scene.bind_group(&mut self.bind_group, device, &self.layout)
    }

    /// The index of the shader variant of `key` in `self.shadings`,
    /// built on first use.
    fn shading_index(&mut self, device: &wgpu::Device, key: ShadingKey) -> usize {
        if let Some(index) = self.shadings.iter().position(|s| s.key == key) {
            return index;
        }
        let layout = match key.shadows {
            ShadowSource::Off => &self.pipeline_layout,
            ShadowSource::Maps => &self.shadow_pipeline_layout,
            ShadowSource::RayQuery => self.ray_pipeline_layout.as_ref().expect("ray queries on"),
        };
        let material = self.material.0.as_ref().filter(|_| key.visibility);
        let shading = Shading::new(device, (layout, material), self.heap.0, key, self.msaa);
        self.shadings.push(shading);
        self.shadings.len() - 1
    }

    /// The shading variant a draw of `inputs` takes.
    fn shading_key(&self, frame: &FrameInputs<'_>, inputs: &DrawInputs<'_>) -> ShadingKey {
        let (_, feedback, early_depth_test) = self.heap;
        let prepassed = inputs.prepassed.is_some();
        let masked = frame.tables.masked_materials;
        ShadingKey {
            shading: inputs.shading,
            shadows: inputs.sun_shadows.source(),
            prepassed,
            visibility: inputs.prepassed.is_some_and(|p| p.ids.is_some()),
            feedback: CameraFeedback::choose((feedback, early_depth_test), prepassed, masked),
        }
    }

    /// Records the draw pass into `hdr` (made the size of `target`'s
    /// colour), depth-tested in `target`'s depth: the cull pass's draws for
    /// the view, per pipeline bucket in use (those of `phase`).
    pub fn record<'a>(
        &mut self,
        frame: &FrameInputs<'a>,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &DrawInputs<'_>,
        phase: DrawPhase,
        mut timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> DrawOutput<'a> {
        let DrawInputs {
            scene,
            sun_shadows,
            prepassed,
            ..
        } = inputs;
        let device = frame.device;
        let (tables, culled) = (scene.tables, &scene.culled);
        let ids = prepassed.and_then(|p| p.ids.as_ref());
        let key = self.shading_key(frame, inputs);
        if ids.is_some() && self.material.0.is_none() {
            let compute = frame.hdr.storage();
            self.material.0 = Some(MaterialShading::new(device, &self.material.1, compute));
        }
        let index = self.shading_index(device, key);
        let chosen = &self.shadings[index];
        let (pipelines, material) = (&chosen.pipelines, &chosen.material);
        // After a pre-pass the first draw keeps its depth.
        let (label, mut kept) = match (phase, prepassed) {
            (DrawPhase::All | DrawPhase::Early, None) => ("unbound draw", Kept::Nothing),
            (DrawPhase::All | DrawPhase::Early, Some(_)) => ("unbound draw", Kept::Depth),
            (DrawPhase::Late, _) => ("unbound late draw", Kept::Both),
        };
        // The compute material pass shades once a frame, every id, after
        // the last visibility pass: the early phase's draw pass only clears
        // (its blended draws wait for the late phase in any case).
        let hdr = frame.hdr;
        if phase == DrawPhase::Early && matches!(material, Some(MaterialPipelines::Compute(_))) {
            drop(hdr.begin_pass(encoder, frame.target, label, kept, timestamps));
            return DrawOutput::new(frame, PassStats::commands(1));
        }
        let cache = match phase {
            DrawPhase::Late => &mut self.late_bind_group,
            DrawPhase::All | DrawPhase::Early => &mut self.bind_group,
        };
        let scene_inputs = scene;
        let (scene, rebuilt) = scene.bind_group(cache, device, &self.layout);
        let mut stats = PassStats {
            commands_recorded: 1,
            bind_groups_set: 0,
            bind_group_rebuilds: u32::from(rebuilt),
        };
        let draws_per_bucket = tables.mesh_slots.min(culled.draws_per_bucket);
        let mut material = self.material.0.as_mut().zip(ids).zip(material.as_ref());
        // The compute material pass (occlusion off, or its late phase):
        // the draw pass's clear or load (and its beginning timestamp), the
        // compute pass over every id, then the draw pass again for the
        // blended draws (and its end timestamp).
        if let (Some(((shading, ids), MaterialPipelines::Compute(pipeline))), true) =
            (material.as_mut(), draws_per_bucket > 0)
        {
            let [begin, end] = split_timestamps(timestamps);
            drop(hdr.begin_pass(encoder, frame.target, label, kept, begin));
            let shadow = sun_shadows.bind_group();
            stats += shading.dispatch((frame, encoder), (scene_inputs, shadow), ids, pipeline);
            (kept, timestamps) = (Kept::Both, end);
        }
        let mut pass = hdr.begin_pass(encoder, frame.target, label, kept, timestamps);
        if draws_per_bucket == 0 {
            return DrawOutput::new(frame, stats);
        }
        pass.set_bind_group(0, frame.heap, &[]);
        pass.set_bind_group(1, scene, &[]);
        if let Some(group) = sun_shadows.bind_group() {
            pass.set_bind_group(SHADOW_GROUP, group, &[]);
            stats.bind_groups_set += 1;
            stats.commands_recorded += 1;
        }
        pass.set_bind_group(ENVIRONMENT_GROUP, frame.environment, &[]);
        pass.set_vertex_buffer(0, self.instance_ids.slice(..));
        pass.set_index_buffer(tables.indices.slice(..), wgpu::IndexFormat::Uint32);
        stats.bind_groups_set += 3;
        // 3 bind groups, vertex buffer, index buffer
        stats.commands_recorded += 5;
        // After the visibility pass: the material pass shades its ids in
        // place of the opaque and double-sided buckets.
        if let Some(((shading, ids), MaterialPipelines::Fragment(shade))) = material {
            let pipeline = &shade[usize::from(phase == DrawPhase::Late)];
            stats += shading.record(&mut pass, device, (scene_inputs, scene), ids, pipeline);
        }
        for (bucket, pipeline) in pipelines.iter().enumerate() {
            let objects = tables.bucket_objects[bucket];
            let shaded = ids.is_some() && bucket != BUCKET_BLEND as usize;
            if objects == 0
                || shaded
                || (phase == DrawPhase::Early && bucket == BUCKET_BLEND as usize)
            {
                continue;
            }
            pass.set_pipeline(pipeline);
            let draws = BucketDraws {
                culled,
                bucket: bucket as u32,
                objects,
                draws_per_bucket,
                count_in_buffer: self.count_in_buffer,
                bound: (tables.indices, &self.instance_ids),
            };
            stats.commands_recorded += 1 + draws.record(&mut pass);
        }
        DrawOutput::new(frame, stats)
    }
}
