//! The scene tables' bind group (group 1) as the raster passes bind it for
//! one view, and one pipeline bucket's indirect draws: what the draw pass
//! and the shadow pass share.

use crate::gpu_types::{
    BLEND_SORT_CAP, BUCKET_BLEND, BUCKETS, CLUSTER_BUCKETS, GpuClusterStats, GpuCullHeader,
    GpuTriangleFilterHead,
};
use crate::passes::cull::{CulledView, DRAW_ARGS_SIZE};
use crate::passes::lights::LightClusters;
use crate::passes::lights::LightInputs;
use crate::passes::{BufferBindGroup, GpuTables, View};

/// The instance-rate draw identity's vertex buffer (one `u32` per instance
/// at location 0): the draw pass's and the shadow pass's.
pub(crate) const INSTANCE_ID_LAYOUT: wgpu::VertexBufferLayout<'static> = wgpu::VertexBufferLayout {
    array_stride: size_of::<u32>() as u64,
    step_mode: wgpu::VertexStepMode::Instance,
    attributes: &[wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Uint32,
        offset: 0,
        shader_location: 0,
    }],
};

/// Which of a frame's draws a draw pass (and the depth pre-pass
/// before it) records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DrawPhase {
    /// Every bucket, into targets cleared (or loaded) as the frame target
    /// says: occlusion culling off.
    All,
    /// The early occlusion phase: the opaque and double-sided buckets
    /// (blended objects wait for the late phase), targets as the frame
    /// target says.
    Early,
    /// The late occlusion phase: every bucket, over what the early phase
    /// drew (load operations).
    Late,
}

impl DrawPhase {
    /// The frame's first draw: early with occlusion culling, else all.
    pub fn first(occlusion: bool) -> Self {
        if occlusion { Self::Early } else { Self::All }
    }
}

/// The cache of one view's scene bind group (group 1), keyed by the
/// versions of the buffers it binds: the draw, shadow and pre-pass passes
/// each keep one per view or phase.
pub type SceneBindGroup = BufferBindGroup<[u64; 7]>;

/// What the scene tables' bind group (group 1) holds for one view: the
/// tables, the view's uniforms and its region of the cull pass's outputs,
/// the light table and the camera's cluster lists (the shadow pass binds
/// them too, for its layout is the draw pass's).
pub(crate) struct SceneInputs<'a> {
    pub tables: &'a GpuTables<'a>,
    pub view: &'a View,
    pub culled: CulledView<'a>,
    pub lights: &'a LightInputs<'a>,
    pub clusters: &'a LightClusters<'a>,
}

impl SceneInputs<'_> {
    /// The group from `cache`, rebuilt if a buffer changed; returns whether
    /// it was rebuilt.
    pub fn bind_group<'g>(
        &self,
        cache: &'g mut SceneBindGroup,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
    ) -> (&'g wgpu::BindGroup, bool) {
        let Self {
            tables,
            view,
            culled,
            lights,
            clusters,
        } = self;
        let key = [
            tables.arena_version,
            tables.objects_version,
            tables.materials_version,
            culled.version,
            lights.version,
            clusters.version,
            tables.deform_version,
        ];
        let buffers = [
            view.uniforms.as_entire_buffer_binding(),
            tables.counts.as_entire_buffer_binding(),
            tables.vertices.as_entire_buffer_binding(),
            tables.objects.as_entire_buffer_binding(),
            tables.materials.as_entire_buffer_binding(),
            culled.visible_instances.clone(),
            // The triangle filter's records while it ran (pull.wgsl reads
            // the packed draws' identity there), else the cull's draws.
            culled
                .clusters
                .and_then(|c| c.buffer.filtered.as_ref())
                .map_or_else(|| culled.draws.clone(), |f| f.records()),
            culled.counters.clone(),
            lights.lights.as_entire_buffer_binding(),
            clusters.ranges.as_entire_buffer_binding(),
            clusters.light_indices.as_entire_buffer_binding(),
            tables.meshes.as_entire_buffer_binding(),
            tables.deform.as_entire_buffer_binding(),
        ];
        cache.get_ranges(device, layout, key, &buffers)
    }
}

/// One pipeline bucket's draws in the cull pass's output for one view.
pub(crate) struct BucketDraws<'a> {
    pub culled: &'a CulledView<'a>,
    pub bucket: u32,
    /// Live objects in the bucket.
    pub objects: u32,
    /// Draws to issue from the bucket's region (the mesh slots in use).
    pub draws_per_bucket: u32,
    /// Use the GPU-written counts (else issue `draws_per_bucket` draws,
    /// culled meshes with zero instances).
    pub count_in_buffer: bool,
    /// The arena's index buffer and the instance ids, bound again after
    /// the triangle filter's packed draw.
    pub bound: (&'a wgpu::Buffer, &'a wgpu::Buffer),
}

impl BucketDraws<'_> {
    /// Issues the bucket's multi-draws; returns how many.
    pub(crate) fn record(&self, pass: &mut wgpu::RenderPass<'_>) -> u32 {
        let (draws, counters) = (self.culled.draws.buffer, self.culled.counters.buffer);
        let (draws_offset, counters_offset) =
            (self.culled.draws.offset, self.culled.counters.offset);
        let region = u64::from(self.culled.draws_per_bucket);
        let mut commands = 0;
        // Cluster culling ran: on tier A (counts on the GPU) one draw per
        // surviving cluster, or the filter's packed draw and pass-through
        // draws; tiers B and C always filter (`triangle_filter.rs`).
        if let Some(clusters) = self
            .culled
            .clusters
            .filter(|_| self.bucket < CLUSTER_BUCKETS)
        {
            let buffer = &clusters.buffer.buffer;
            let Some(filtered) = clusters.buffer.filtered.as_ref() else {
                if !self.count_in_buffer {
                    // Never: tiers B and C make the filter's buffers
                    // whenever they make cluster draws (`src/renderer/frame.rs`).
                    return 0;
                }
                pass.multi_draw_indexed_indirect_count(
                    buffer,
                    clusters.buffer.draws_offset(self.bucket),
                    buffer,
                    GpuClusterStats::bucket_draws_offset(self.bucket),
                    clusters.buffer.draws_per_bucket,
                );
                return 1;
            };
            // Filtered (`triangle_filter.rs`): the bucket's compacted
            // indices in one draw, then the unfiltered clusters' draws.
            let (head, draws) = (filtered.head_offset(), &filtered.draws);
            pass.set_index_buffer(filtered.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.set_vertex_buffer(0, filtered.marker.slice(..));
            let packed = head + GpuTriangleFilterHead::packed_draw_offset(self.bucket);
            if self.count_in_buffer {
                let one = head + GpuTriangleFilterHead::ONE_OFFSET;
                pass.multi_draw_indexed_indirect_count(draws, packed, draws, one, 1);
            } else {
                pass.draw_indexed_indirect(draws, packed);
            }
            let (indices, instance_ids) = self.bound;
            pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.set_vertex_buffer(0, instance_ids.slice(..));
            let pass_draws = filtered.pass_draws_offset(self.bucket);
            if self.count_in_buffer {
                pass.multi_draw_indexed_indirect_count(
                    draws,
                    pass_draws,
                    draws,
                    head + GpuTriangleFilterHead::pass_draws_offset(self.bucket),
                    filtered.draws_per_bucket,
                );
            } else if filtered.plain_pass_through > 0 {
                // Tiers B and C: a CPU-known bound, zero-padded (the cull
                // pass cleared them).
                pass.multi_draw_indexed_indirect(draws, pass_draws, filtered.plain_pass_through);
            } else {
                return 5;
            }
            return 6;
        }
        if self.bucket == BUCKET_BLEND {
            // Exactly sorted blended draws after the bucket regions (none
            // when more than BLEND_SORT_CAP were visible; the region's
            // per-mesh draws are used then, and are empty otherwise).
            // At most one per live blended object.
            let sorted = draws_offset + region * u64::from(BUCKETS) * DRAW_ARGS_SIZE;
            let most = self.objects.min(BLEND_SORT_CAP);
            if self.count_in_buffer {
                pass.multi_draw_indexed_indirect_count(
                    draws,
                    sorted,
                    counters,
                    counters_offset + GpuCullHeader::SORTED_BLEND_DRAWS_OFFSET,
                    most,
                );
            } else {
                pass.multi_draw_indexed_indirect(draws, sorted, most);
            }
            commands += 1;
        }
        let offset = draws_offset + region * u64::from(self.bucket) * DRAW_ARGS_SIZE;
        if self.count_in_buffer {
            pass.multi_draw_indexed_indirect_count(
                draws,
                offset,
                counters,
                counters_offset + GpuCullHeader::bucket_draws_offset(self.bucket),
                self.draws_per_bucket,
            );
        } else {
            pass.multi_draw_indexed_indirect(draws, offset, self.draws_per_bucket);
        }
        commands + 1
    }
}

/// A depth-only pipeline pair over the scene layout: the shadow pass's and
/// the depth pre-pass's.
pub(crate) struct DepthOnlyPipelines<'a> {
    /// Label prefix (each pipeline appends its bucket).
    pub label: &'a str,
    /// The vertex stage's entry point.
    pub vertex: &'a str,
    /// The alpha test's fragment entry point, for masked materials; none
    /// for opaque ones (depth only).
    pub fragment: Option<&'a str>,
    pub format: wgpu::TextureFormat,
    pub sample_count: u32,
}

impl DepthOnlyPipelines<'_> {
    /// The pipelines of the opaque and masked buckets (back faces culled)
    /// and of the double-sided one (none culled): depth written where less,
    /// no colour.
    pub fn build(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        module: &wgpu::ShaderModule,
    ) -> [wgpu::RenderPipeline; 2] {
        [("opaque", Some(wgpu::Face::Back)), ("double-sided", None)].map(|(name, cull_mode)| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(&format!("{} {name}", self.label)),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some(self.vertex),
                    compilation_options: Default::default(),
                    buffers: &[Some(INSTANCE_ID_LAYOUT)],
                },
                fragment: self.fragment.map(|entry| wgpu::FragmentState {
                    module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    targets: &[],
                }),
                primitive: wgpu::PrimitiveState {
                    cull_mode,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: self.format,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: self.sample_count,
                    ..Default::default()
                },
                multiview_mask: None,
                cache: None,
            })
        })
    }
}
