//! One frame: the recipe (`Renderer::render`) and the upload step before
//! the passes. Each pass takes what it reads as arguments and returns what
//! it wrote and recorded; see `docs/ARCHITECTURE.md`, "One frame".

use super::steps::{
    CameraShading, FrameSettings, camera_scene, cascade_counters, output_view, record_bounds,
    record_cull, record_depth_prepass, record_lights, record_shadows, trace_camera,
};
use crate::capabilities::checked::scoped;
use crate::errors::Error;
use crate::gpu_types::{
    FRAME_FLAG_BUCKET_SHIFT, FRAME_FLAG_CASCADE_OCCLUSION, FRAME_FLAG_FEEDBACK_SHIFT,
    FRAME_FLAG_HIGHLIGHT_MISSING, FRAME_FLAG_LOD, FRAME_FLAG_NORMAL_MAPS, FRAME_FLAG_OCCLUSION,
    FRAME_FLAG_UNCOMPACTED_DRAWS, GpuFrameUniforms, GpuShadowUniforms, GpuTableCounts,
};
use crate::lighting::ClusterView;
use crate::passes::cull::CullPhase;
use crate::passes::draw::IndirectMode;
use crate::passes::scene::DrawPhase;
use crate::passes::shadow::ShadowPass;
use crate::passes::triangle_filter::LOCAL_VERTEX_BITS;
use crate::readback::{LightListStats, RecordedPasses};
use crate::renderer::{FrameStats, Renderer};
use crate::shadows::spots::SpotShadow;
use crate::target::{FrameTarget, TargetLoad};
use crate::timestamps::TimedPass::{
    self, Cull, Draw, LateCull, LateDraw, LatePrepass, Lights, Output, Prepass, Pyramid, Shadows,
};
use crate::upload::{UploadBatch, UploadStats};

impl Renderer {
    /// Records one frame into `encoder`: upload, cull (the camera, every
    /// shadow cascade and every shadowed spot light), lights (while any is
    /// live), shadows (while on), draw (into the HDR target, after the
    /// depth pre-pass while it is on; the traced views trace instead), the
    /// late occlusion phase (while on; pre-passed too), output
    /// (resolve, exposure, tone mapping into `target`), bounds (debug),
    /// readback. No per-object CPU work happens here; GPU
    /// statistics come back later without blocking.
    ///
    /// Submit every frame recorded, in the order recorded: each frame
    /// carries the uploads made since the one before (new meshes, table
    /// changes). An encoder dropped unsubmitted loses none of them: the
    /// first frame recorded after the drop makes them again (frames
    /// recorded before the drop show the tables without them; see
    /// `src/upload.rs`). A frame submitted after a later one applies its
    /// uploads late. Where the GPU
    /// statistics show either (they come back a frame or more later), the next
    /// `render` returns
    /// [`RenderError::FrameSequence`](crate::RenderError::FrameSequence)
    /// once and records nothing. A wrong target, a camera whose aspect
    /// does not fit it, or a target whose size needs more than the device
    /// allows (the HDR target, the depth pyramid, the path tracer's
    /// accumulation: [`CapabilityError::DeviceLimit`](crate::CapabilityError::DeviceLimit))
    /// is a typed error too, and nothing is recorded; so are shadow
    /// cascades that the camera in use makes too large for `f32`
    /// ([`ShadowError::Derived`](crate::ShadowError::Derived)). A buffer the upload
    /// grows that wgpu still refuses (memory ran out) is
    /// [`CapabilityError::Creation`](crate::CapabilityError::Creation).
    pub fn render(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
    ) -> Result<FrameStats, Error> {
        let target = self.frame_target(target)?;
        self.ensure_depth_prepass();
        // Every size the target or the settings decide, against the device;
        // the shadow cascades the camera gives, against f32.
        self.check_frame_limits(target.color.size())?;
        self.check_cascades(&self.shadows.settings)?;
        let settings = self.frame_settings();
        let mut stats = self.begin_frame(encoder);
        // Upload: CPU tables -> GPU tables, changed ranges only.
        // What grows is created in an error scope (memory may run out).
        let device = self.device.clone();
        let size = Some(target.color.size());
        stats += scoped(&device, "the frame's buffers", || {
            self.upload(encoder, size)
        })?;
        // A finished frame's cluster lists were cut: this one's get room.
        self.grow_light_lists(&mut stats)?;
        // Animation (compute, with an animation): clips sampled, palettes
        // written into the deform buffer the raster passes skin with.
        let (animation_stats, animated) = self.record_animation(encoder)?;
        stats += animation_stats;
        // With ray queries: the BLASes of new meshes and of skinned objects
        // that moved (deformed first), the TLAS if anything changed.
        stats += self.build_acceleration_structures(encoder);
        let mut parts = self.frame_parts(&target, &mut stats);
        let (frame, time) = (&parts.frame, parts.readback.timestamps());
        // Cull (compute), every view at once: each view's visible list and
        // indirect draws; with occlusion culling the camera's early phase
        // (what it saw last frame).
        let first_phase = CullPhase::first(settings.occlusion);
        let cull_inputs = parts.occlusion.cull_inputs(first_phase, &frame.views.cull);
        let culled = record_cull(parts.cull, frame, encoder, &cull_inputs, time.compute(Cull));
        // Lights (compute, while any is live): the camera's cluster lists.
        let clusters = record_lights(parts.lights, frame, encoder, time.compute(Lights));
        // Shadows (while on): each cascade's and shadowed spot's casters.
        let culling =
            (settings.cascade_occlusion).then_some((&mut *parts.cull, &mut *parts.occlusion));
        let shadow_parts = (parts.shadows.pass.as_mut(), &*parts.draw, culling);
        let (lists, shadow_time) = ((&culled, &clusters), time.render(Shadows));
        let shadows = record_shadows(shadow_parts, frame, encoder, lists, shadow_time.as_ref());
        // The camera: traced in place of the draw pass (the ray views), or
        // drawn into the HDR target and the depth target, after the depth
        // pre-pass of the same draws while it is on.
        let shading = CameraShading::new(frame, settings, parts.rays, parts.tracing, parts.shadows);
        let scene = camera_scene(frame, &culled, &clusters);
        let mut prepassed = false;
        let drawn = match (parts.rays.as_mut(), parts.tracing) {
            (Some(rays), Some(tracing)) if settings.traced() => {
                let tracer = (rays, tracing, &mut *parts.draw);
                trace_camera(frame, encoder, tracer, &scene, settings, time.render(Draw))
            }
            _ => {
                let (phase, prepass) = (settings.first_draw(), parts.prepass.as_deref_mut());
                let scene_draw = (&scene, &*parts.draw);
                let prepass_time = time.render(Prepass);
                let prepass =
                    record_depth_prepass(prepass, frame, encoder, scene_draw, phase, prepass_time);
                prepassed = prepass.is_some();
                stats += prepass.as_ref().map(|p| p.stats).unwrap_or_default();
                let draw_inputs = shading.inputs(scene, prepass.as_ref());
                let draw = &mut parts.draw;
                draw.record(frame, encoder, &draw_inputs, phase, time.render(Draw))
            }
        };
        stats += culled.stats + clusters.stats + shadows + shading.stats + drawn.stats;
        // Occlusion culling's late phase: the early depth's pyramid, the late
        // cull, the newly seen objects drawn (compute material pass: all).
        let mut late_counters = None;
        if settings.occlusion {
            let occlusion = &mut parts.occlusion;
            let pyramid =
                occlusion.record_pyramid(frame, encoder, drawn.depth, time.compute(Pyramid));
            let cull_time = time.compute(LateCull);
            let late = record_cull(parts.cull, frame, encoder, &pyramid.late_cull, cull_time);
            let late_scene = camera_scene(frame, &late, &clusters);
            let (prepass, scene_draw) = (parts.prepass.as_deref_mut(), (&late_scene, &*parts.draw));
            let (phase, prepass_time) = (DrawPhase::Late, time.render(LatePrepass));
            let late_prepass =
                record_depth_prepass(prepass, frame, encoder, scene_draw, phase, prepass_time);
            stats += late_prepass.as_ref().map(|p| p.stats).unwrap_or_default();
            let late_inputs = shading.inputs(late_scene, late_prepass.as_ref());
            let (draw, late_time) = (&mut parts.draw, time.render(LateDraw));
            let late_drawn = draw.record(frame, encoder, &late_inputs, DrawPhase::Late, late_time);
            stats += pyramid.stats + late.stats + late_drawn.stats;
            late_counters = Some((late.buffers.counters.clone(), late.cluster_head().cloned()));
        }
        // Exposure (automatic, lit view): the HDR target's luminance metered.
        let metered = parts.metering.record(frame, encoder, settings.debug.view);
        stats += metered.stats;
        // Output: the HDR target resolved, exposed and tone mapped into the
        // application's colour target (debug and id views: as they are).
        let output_inputs = settings.output_inputs(drawn.hdr, parts.exposure, &metered);
        let (output, output_time) = (&mut parts.output, time.render(Output));
        stats += output.record(frame.device, encoder, &output_inputs, &target, output_time);
        // Debug: every object's bounds (culled ones red, occluded orange).
        if settings.draws_bounds() {
            let visibility = parts.occlusion.visibility_bits();
            stats += record_bounds(parts.bounds, frame, encoder, visibility);
        }
        // Statistics: the camera's cull counters (and the late phase's) and
        // the pass timestamps, mapped later.
        let (late, late_clusters) = late_counters.as_ref().map(|(c, h)| (c, h.as_ref())).unzip();
        let counters = (&culled.buffers.counters, late);
        let passes = RecordedPasses {
            clusters: [culled.cluster_head(), late_clusters.flatten()],
            animated,
            drew: true,
            lit: (frame.lights.slots > 0).then(|| frame.views.clusters.statistics()),
            prepassed,
            cascades: &cascade_counters(frame, parts.occlusion, settings.cascade_occlusion),
        };
        let readback = &mut parts.readback;
        stats.commands_recorded += readback.record(encoder, counters, stats.frame_index, passes);
        Ok(stats)
    }

    /// Grows the light index list when a finished frame (its statistics in
    /// `stats.gpu`) needed more references than it held, within an error
    /// scope; records the list's size in `stats`.
    fn grow_light_lists(&mut self, stats: &mut FrameStats) -> Result<(), Error> {
        let overflow = stats.gpu.and_then(|gpu| gpu.light_lists);
        if let Some(lists) = overflow.filter(LightListStats::overflowed) {
            let (device, clusters) = (&self.device, &mut self.views.clusters);
            let needed = lists.references_needed;
            stats.light_references_grown = scoped(device, "the light index list", || {
                clusters.grow_light_references(device, needed)
            })?;
        }
        stats.light_references = self.views.clusters.light_references();
        Ok(())
    }

    /// Records upload and cull only, without drawing: the visible lists and
    /// indirect draws (the camera's, and with shadows on each cascade's and
    /// shadowed spot's) are
    /// left in [`Self::visible_instances_buffer`] and
    /// [`Self::indirect_draws_buffer`] for applications that draw themselves,
    /// and for benchmarking the cull pass alone. The rule of [`Self::render`]
    /// holds: submit every frame recorded, in order (a break in the
    /// sequence is reported by the next `render`). With an animation, its
    /// step is recorded first, as `render` records it (playback, then the
    /// skinned objects' bounds), so the cull sees this frame's pose; its
    /// errors are `render`'s (a dispatch or a bounds buffer beyond the
    /// device's limits: [`CapabilityError::DeviceLimit`](crate::CapabilityError::DeviceLimit)).
    pub fn render_cull_only(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<FrameStats, Error> {
        let mut stats = self.begin_frame(encoder);
        stats += self.upload(encoder, None);
        let (animation_stats, animated) = self.record_animation(encoder)?;
        stats += animation_stats;
        let (device, tables, views) = (&self.device, self.tables.gpu(), &self.views);
        let timestamps = self.readback.timestamps().compute(TimedPass::Cull);
        let inputs = self.occlusion.cull_inputs(CullPhase::Frustum, &views.cull);
        let cull = &mut self.passes.cull;
        stats += cull
            .record(device, encoder, &tables, views, &inputs, timestamps)
            .stats;
        let frame = stats.frame_index;
        let counters = (&views.cull.counters, None);
        let passes = RecordedPasses {
            drew: false,
            lit: None,
            prepassed: false,
            animated,
            cascades: &[],
            clusters: [None; 2],
        };
        stats.commands_recorded += self.readback.record(encoder, counters, frame, passes);
        Ok(stats)
    }

    /// Collects GPU statistics that have arrived (never waits), starts the
    /// frame's statistics and records the frame's start, first in `encoder`
    /// (`Readback::record_start`).
    fn begin_frame(&mut self, encoder: &mut wgpu::CommandEncoder) -> FrameStats {
        let gpu = self.readback.collect();
        let stats = FrameStats {
            frame_index: self.frame_index,
            instances: self.tables.objects.len(),
            gpu,
            commands_recorded: self.readback.record_start(encoder),
            ..Default::default()
        };
        self.frame_index += 1;
        // This frame counts as recorded: a layer freed from now on may still
        // be sampled by it.
        self.heap
            .set_frames(self.frame_index, self.readback.frames_finished());
        FrameStats {
            textures: self.heap.residency(),
            ..stats
        }
    }

    /// CPU tables -> GPU tables: only what changed since the last frame.
    /// Then makes the per-frame buffers cover the tables' capacities.
    /// `viewport`: the target's size (`None`: nothing is drawn, so no light
    /// is clustered and no ray traced; rays turn pixels into directions
    /// with it).
    fn upload(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        viewport: Option<(u32, u32)>,
    ) -> UploadStats {
        // The ray uniforms (and the path-traced view's accumulation) first:
        // they may replace a buffer.
        let ray_uniforms = viewport
            .filter(|_| self.passes.rays.is_some())
            .map(|size| self.ray_uniforms(size));
        let device = &self.device;
        let mut batch = UploadBatch::default();
        self.tables.arena.flush(device, &mut batch);
        self.tables.materials.flush(device, &mut batch);
        self.heap.flush(device, &mut batch);
        self.tables.objects.flush(device, &mut batch);
        self.tables.lights.flush(device, &mut batch);
        let counts = self.tables.write_counts(&mut batch, &self.heap);
        let uniforms = self.frame_uniforms(&counts, viewport);
        self.views.main.write_uniforms(&mut batch, uniforms);
        self.passes
            .output
            .write_uniforms(&mut batch, &self.output, output_view(self.debug.view));
        if let (Some(uniforms), Some(rays)) = (ray_uniforms, &mut self.passes.rays) {
            rays.tables.write_uniforms(&mut batch, uniforms);
        }
        let shadow_uniforms = self.shadow_uniforms();
        let device = &self.device;
        self.views
            .write_shadow_uniforms(device, &mut batch, &uniforms, shadow_uniforms);
        // Recorded after the copies of any frame dropped unsubmitted.
        let stats = self.uploads.record(device, encoder, batch);
        // The textures added since (pages, tier C): their layers and mips.
        self.heap.record_layers(encoder);

        let instance_capacity = self.tables.objects.gpu_capacity();
        let meshes = self.tables.arena.mesh_buffer();
        let views = self.views.count();
        self.views
            .cull
            .ensure_capacity(device, meshes, instance_capacity, views);
        self.passes.draw.ensure_capacity(device, instance_capacity);
        let enabled = self.occlusion_active();
        self.occlusion
            .ensure_capacity(device, meshes, instance_capacity, enabled);
        let cascades = if self.cascade_occlusion_active() {
            self.views.cascades.len() as u32
        } else {
            0
        };
        self.occlusion
            .ensure_cascades(device, meshes, instance_capacity, cascades);
        // Not for the cull-only frames (no target: the limits of the
        // cluster draws are checked with a frame's).
        let clusters = (self.cluster_culling_active() && viewport.is_some())
            .then(|| self.tables.arena.instance_clusters());
        let one_sample = self.config.msaa == crate::output::Msaa::X1;
        let filter = viewport
            .filter(|_| self.triangle_filtering_active())
            .map(|size| (size, one_sample));
        // Tiers B and C issue the filter's pass-through draws without a
        // count: as many as the live objects can need.
        let plain = (self.config.indirect == IndirectMode::Plain && filter.is_some())
            .then(|| self.tables.arena.packing_bounds(1 << LOCAL_VERTEX_BITS));
        self.views.cull.ensure_clusters(device, clusters, filter);
        self.views.cull.set_plain_pass_through(plain);
        if let Some(late) = self.occlusion.late.as_mut() {
            late.ensure_clusters(device, clusters, filter);
            late.set_plain_pass_through(plain);
        }
        let light_capacity = self.tables.lights.gpu_capacity();
        self.views.clusters.ensure_capacity(device, light_capacity);
        stats
    }

    /// This frame's shadow cascades and spot shadows (none with shadows
    /// off), kept for [`Self::shadow_cascades`] and [`Self::spot_shadows`],
    /// as the uniforms the cull pass and the shading read; builds the
    /// shadow pass and map as the settings need.
    fn shadow_uniforms(&mut self) -> GpuShadowUniforms {
        let settings = self.shadows.settings;
        let forward = (self.camera.target - self.camera.position).normalize_or_zero();
        self.shadows.cascades.clear();
        self.shadows.spots.clear();
        // Ray-query shadows replace the shadow map while on.
        if settings.enabled && !self.ray_query_shadows {
            let sun = self.sun().direction_to_light;
            self.shadows.cascades = crate::shadows::cascades(&self.camera, sun, &settings);
            let spots = self.tables.lights.shadowed_spots();
            self.shadows.spots = spots
                .map(|(slot, light)| SpotShadow::new(slot, &light, &settings))
                .collect();
            let (device, heap) = (&self.device, self.heap.heap_layout());
            let count_in_buffer = self.config.indirect == IndirectMode::Count;
            let draw = &self.passes.draw;
            let (heap_layout, shading_layout) = (self.heap.layout(), &self.shadows.layout);
            let pass = self.shadows.pass.get_or_insert_with(|| {
                ShadowPass::new(
                    device,
                    heap,
                    heap_layout,
                    draw.scene_layout(),
                    shading_layout,
                    count_in_buffer,
                )
            });
            pass.ensure_map(device, &settings, &self.views.shadow_uniforms);
        }
        let (cascades, spots) = (&self.shadows.cascades, &self.shadows.spots);
        GpuShadowUniforms::new(cascades, spots, forward, &settings)
    }

    /// The main view's uniforms: camera, sun, counts, flags, debug view,
    /// and the light clusters and level of detail over a `viewport` of
    /// that size (no light and no LOD without one, or without live
    /// lights).
    fn frame_uniforms(
        &self,
        counts: &GpuTableCounts,
        viewport: Option<(u32, u32)>,
    ) -> GpuFrameUniforms {
        let mut uniforms = GpuFrameUniforms::new(
            &self.camera,
            &self.sun(),
            counts.objects,
            counts.meshes,
            self.frame_flags(),
        );
        if let Some((width, height)) = viewport {
            let clusters = ClusterView {
                grid: self.config.clusters,
                camera: self.camera,
                viewport: glam::UVec2::new(width, height),
            };
            clusters.write_uniforms(&mut uniforms, self.tables.light_slots());
            uniforms.pixel_grid = self.pixel_grid((width, height));
            uniforms.raster = self.raster_uniform((width, height), counts.objects);
            if let Some(lod) = self.lod_uniform(height) {
                uniforms.lod = lod;
                uniforms.flags |= FRAME_FLAG_LOD;
            }
        }
        uniforms.debug_view = self.debug.view as u32;
        if let Some(cull_camera) = &self.debug.cull_camera {
            uniforms.frustum_planes = crate::camera::frustum_planes(&cull_camera.clip_from_world());
        }
        uniforms
    }

    fn frame_flags(&self) -> u32 {
        let mut flags = 0;
        if self.normal_maps {
            flags |= FRAME_FLAG_NORMAL_MAPS;
        }
        if self.config.indirect == IndirectMode::Plain {
            flags |= FRAME_FLAG_UNCOMPACTED_DRAWS;
        }
        if self.debug.highlight_missing {
            flags |= FRAME_FLAG_HIGHLIGHT_MISSING;
        }
        if self.occlusion_active() {
            flags |= FRAME_FLAG_OCCLUSION;
        }
        if self.cascade_occlusion_active() {
            flags |= FRAME_FLAG_CASCADE_OCCLUSION;
        }
        // The texture feedback's sampling phase changes every frame: only
        // where there is feedback, so unchanged uniforms skip their upload.
        if self.heap.has_texture_feedback() {
            flags |= ((self.frame_index % 8) as u32) << FRAME_FLAG_FEEDBACK_SHIFT;
        }
        for (bucket, &objects) in self.tables.objects.bucket_counts().iter().enumerate() {
            if objects > 0 {
                flags |= 1 << (FRAME_FLAG_BUCKET_SHIFT + bucket as u32);
            }
        }
        flags
    }

    /// Checks `target` (refused before anything is recorded) and reports a
    /// break in the frame sequence found since the last frame; returns the
    /// target the frame draws into: id views clear to "nothing drawn" (id
    /// bytes 0), whatever the application's clear colour.
    fn frame_target<'t>(&mut self, target: &FrameTarget<'t>) -> Result<FrameTarget<'t>, Error> {
        let (config, view) = (&self.config, self.debug.view);
        target.check(config.color_format, view, config.msaa)?;
        // Occlusion culling and automatic exposure read the depth.
        target.check_occlusion(self.occlusion_active() || self.auto_exposure.is_some())?;
        self.check_camera_aspect(target)?;
        if let Some(error) = self.readback.take_sequence_error() {
            return Err(error.into());
        }
        Ok(match target.color_load {
            TargetLoad::Clear(_) if view.is_id_view() => FrameTarget {
                color_load: TargetLoad::Clear(wgpu::Color::TRANSPARENT),
                ..*target
            },
            _ => *target,
        })
    }

    /// The switches the frame's passes follow.
    fn frame_settings(&self) -> FrameSettings {
        FrameSettings {
            occlusion: self.occlusion_active(),
            cascade_occlusion: self.cascade_occlusion_active(),
            debug: self.debug,
            ray_query_shadows: self.ray_query_shadows,
        }
    }
}
