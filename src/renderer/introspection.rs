//! What applications, tools and tests read of a renderer besides its
//! settings: the GPU memory it holds, the GPU statistics of finished
//! frames, the buffers the last frame's cull and light passes wrote, what
//! the acceleration structures hold, and the texture feedback read back.

use crate::errors::Error;
use crate::handles::TextureHandle;
use crate::heap::HeapError;
use crate::passes::cull::CullRegion;
use crate::passes::shadow::ShadowPass;
use crate::rays::{AccelerationStructureStats, RayTracing};
use crate::readback::GpuFrameStats;
use crate::renderer::{MemoryStats, Renderer};

impl Renderer {
    /// The level code the newest texture feedback read back holds for a
    /// live 2D texture: 0 when no sampled fragment of that frame shaded
    /// it, else code `c` when the finest footprint asked for `2^(c - 1)`
    /// texels across the texture (`src/heap/feedback.rs`,
    /// [`crate::heap::level_code`]). `None` unless the renderer streams
    /// under [`crate::RendererConfig::texture_budget`] on the paged heap.
    /// A stale handle is [`HeapError::Handle`].
    pub fn texture_feedback(&self, handle: TextureHandle) -> Result<Option<u32>, Error> {
        Ok(self
            .heap
            .texture_feedback(handle)
            .map_err(HeapError::from)?)
    }

    /// GPU memory held by unbound.
    pub fn memory(&self) -> MemoryStats {
        MemoryStats {
            textures_bytes: self.heap.texture_bytes(),
            geometry_bytes: self.tables.arena.size_bytes(),
            objects_bytes: self.tables.objects.size_bytes(),
            materials_bytes: self.tables.materials.size_bytes(),
            frame_bytes: self.views.cull.size_bytes()
                + self.occlusion.size_bytes()
                + self.passes.draw.size_bytes()
                + self
                    .passes
                    .rays
                    .as_ref()
                    .map_or(0, |r| r.tables.size_bytes())
                + self.readback.size_bytes(),
            shadow_bytes: self.shadows.pass.as_ref().map_or(0, ShadowPass::size_bytes),
            environment_bytes: self.environment.maps.size_bytes()
                + self.environment.prefilter.size_bytes(),
            lights_bytes: self.tables.lights.size_bytes() + self.views.clusters.size_bytes(),
            output_bytes: self.hdr.size_bytes()
                + self
                    .passes
                    .prepass
                    .as_ref()
                    .map_or(0, |p| p.ids_size_bytes())
                + self.passes.output.size_bytes()
                + self.passes.exposure.as_ref().map_or(0, |e| e.size_bytes()),
            animation_bytes: self
                .tables
                .animation
                .as_ref()
                .map_or(0, |a| a.pass.size_bytes() + a.bounds.size_bytes())
                + self.rays.as_ref().map_or(0, |r| r.stats().deformed_bytes),
        }
    }

    /// Every buffer the renderer sized from its capacities or its cluster
    /// grid, by label, at its size now (a label may repeat: the late
    /// occlusion phase has cull buffers of its own). Each is at most its
    /// entry of [`Capacities::buffers`](crate::Capacities::buffers) or
    /// [`Capacities::cluster_buffers`](crate::Capacities::cluster_buffers),
    /// the sizes the device was checked against (`tests/device_limits.rs`).
    /// Tier C's texture maps are not listed.
    pub fn sized_buffers(&self) -> Vec<(&'static str, u64)> {
        let (tables, views) = (&self.tables, &self.views);
        let mut cull = vec![&views.cull];
        cull.extend(self.occlusion.late.as_ref());
        let mut buffers = vec![
            ("unbound arena vertices", tables.arena.vertex_buffer()),
            ("unbound arena indices", tables.arena.index_buffer()),
            ("unbound mesh table", tables.arena.mesh_buffer()),
            ("unbound material table", tables.materials.buffer()),
            ("unbound object table", tables.objects.object_buffer()),
            ("unbound instance bounds", tables.objects.bounds_buffer()),
            ("unbound instance batch", tables.objects.batch_buffer()),
            (
                "unbound visibility bits",
                self.occlusion.visibility_bits().0,
            ),
            ("unbound instance ids", self.passes.draw.instance_ids()),
            ("unbound light table", tables.lights.buffer()),
            ("unbound view lights", &views.clusters.view_lights),
            ("unbound light columns", &views.clusters.column_lists),
            ("unbound cluster ranges", &views.clusters.ranges),
            ("unbound light indices", &views.clusters.light_indices),
            ("unbound table counts", &tables.counts),
            ("unbound frame uniforms", &views.main.uniforms),
        ];
        for c in cull {
            buffers.extend([
                ("unbound cull counters", &c.counters),
                ("unbound instance rank", &c.instance_rank),
                ("unbound visible instances", &c.visible_instances),
                ("unbound indirect draws", &c.draws),
            ]);
        }
        buffers
            .into_iter()
            .map(|(label, buffer)| (label, buffer.size()))
            .collect()
    }

    /// GPU statistics of the newest frame that has finished, collecting any
    /// that arrived since the last call (never waits).
    pub fn latest_gpu_stats(&mut self) -> Option<GpuFrameStats> {
        self.readback.collect()
    }

    /// The visible-instance lists the last recorded cull pass writes (object
    /// slots, grouped by mesh), for applications and tests that read them:
    /// the camera's first, at offset 0; each shadow cascade's and shadowed
    /// spot's at [`Self::cull_region`]'s offset.
    pub fn visible_instances_buffer(&self) -> &wgpu::Buffer {
        &self.views.cull.visible_instances
    }

    /// The cull counters (per view a `GpuCullHeader` first; the camera's at
    /// offset 0).
    pub fn cull_counters_buffer(&self) -> &wgpu::Buffer {
        &self.views.cull.counters
    }

    /// The camera's cluster draws of the last recorded frame's first cull
    /// phase (`None` while cluster culling is off or before a frame): a
    /// [`crate::gpu_types::GpuClusterStats`], then per cluster bucket
    /// (opaque, double-sided) a region of that many
    /// `DrawIndexedIndirectArgs` (`src/passes/cluster_cull.rs`).
    pub fn cluster_draws_buffer(&self) -> Option<(&wgpu::Buffer, u32)> {
        let draws = self.views.cull.clusters.as_ref()?;
        Some((&draws.buffer, draws.draws_per_bucket))
    }

    /// The triangle filter's output of the last recorded frame's first
    /// cull phase (`None` while it is off or before a frame:
    /// `src/passes/triangle_filter.rs`).
    pub fn filtered_triangle_buffers(
        &self,
    ) -> Option<crate::passes::triangle_filter::FilteredTriangleBuffers<'_>> {
        let draws = self.views.cull.clusters.as_ref()?;
        draws.filtered.as_ref().map(|f| f.view())
    }

    /// What the acceleration structures hold (`None` without
    /// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries)).
    pub fn acceleration_structures(&self) -> Option<AccelerationStructureStats> {
        self.rays.as_ref().map(RayTracing::stats)
    }

    /// The indirect draws buffer (`DrawIndexedIndirectArgs` per draw; the
    /// camera's at offset 0).
    pub fn indirect_draws_buffer(&self) -> &wgpu::Buffer {
        &self.views.cull.draws
    }

    /// Where view `view`'s outputs lie in the three cull buffers: 0 is the
    /// camera, `1 + c` shadow cascade `c` of the last recorded frame, then
    /// its shadowed spot lights in shadow order (`None` beyond the views it
    /// culled).
    pub fn cull_region(&self, view: u32) -> Option<CullRegion> {
        self.views.cull.region(view)
    }

    /// The cluster ranges the last recorded light pass writes: per cluster
    /// (first, count) into [`Self::light_indices_buffer`] as two `u32`,
    /// then three pairs of statistics: (light references the frame needed,
    /// references written), (clusters with a light, longest list), (screen
    /// tiles whose column list overflowed, longest column list); the frame
    /// statistics report them ([`crate::GpuFrameStats::light_lists`]).
    /// Cluster `c = (slice · tiles_y + tile_y) · tiles_x + tile_x`
    /// ([`crate::lighting::clusters`]).
    pub fn cluster_ranges_buffer(&self) -> &wgpu::Buffer {
        &self.views.clusters.ranges
    }

    /// The light index list (light slots, `u32`), one range per cluster,
    /// each in ascending slot order.
    pub fn light_indices_buffer(&self) -> &wgpu::Buffer {
        &self.views.clusters.light_indices
    }
}
