//! One frame: the recipe (`Renderer::render`) and the upload step before
//! the passes. Each pass takes what it reads as arguments and returns what
//! it wrote and recorded; see `docs/ARCHITECTURE.md`, "One frame".

use crate::debug::{DebugOptions, DebugView};
use crate::gpu_types::{
    FRAME_FLAG_BUCKET_SHIFT, FRAME_FLAG_HIGHLIGHT_MISSING, FRAME_FLAG_LOD, FRAME_FLAG_NORMAL_MAPS,
    FRAME_FLAG_OCCLUSION, FRAME_FLAG_UNCOMPACTED_DRAWS, GpuFrameUniforms, GpuShadowUniforms,
    GpuTableCounts,
};
use crate::lighting::ClusterView;
use crate::passes::bounds::BoundsPass;
use crate::passes::draw::{DrawInputs, DrawPhase, SceneInputs, SunShadows};
use crate::passes::occlusion::{CullPhase, LatePhase};
use crate::passes::output::OutputInputs;
use crate::passes::rays::RayViewInputs;
use crate::passes::shadow::{ShadowInputs, ShadowPass};
use crate::renderer::rays::ray_shadow_group;
use crate::renderer::{Error, FrameStats, FrameTarget, IndirectMode, Passes, Renderer, TargetLoad};
use crate::shaders::DrawShading;
use crate::shadows::spots::SpotShadow;
use crate::upload::{UploadBatch, UploadStats};

impl Renderer {
    /// Records one frame into `encoder`: upload, cull (the camera and every
    /// shadow cascade), lights (while any is live), shadows (while on), draw
    /// (into the HDR target), output (resolve, exposure, tone mapping into
    /// `target`), readback. No per-object CPU work happens here; GPU
    /// statistics come back later without blocking.
    ///
    /// Submit every frame recorded, in the order recorded: each frame
    /// carries the uploads made since the one before (new meshes, table
    /// changes) and nothing is uploaded twice, so a dropped encoder or a
    /// frame submitted after a later one loses them. Where the GPU
    /// statistics show it (they come back a frame or more later), the next
    /// `render` returns
    /// [`RenderError::FrameSequence`](crate::RenderError::FrameSequence)
    /// once and records nothing. A wrong target is a typed error too, and nothing is recorded.
    pub fn render(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
    ) -> Result<FrameStats, Error> {
        let occlusion = self.occlusion_active();
        target.check(self.config.color_format, self.debug.view, self.config.msaa)?;
        target.check_occlusion(occlusion)?;
        self.check_camera_aspect(target)?;
        if let Some(error) = self.readback.take_sequence_error() {
            return Err(error.into());
        }
        let target = self.target_for_view(target);
        let mut stats = self.begin_frame();
        // Upload: CPU tables -> GPU tables, changed ranges only.
        stats += self.upload(encoder, Some(target.color.size()));
        // With ray queries: BLASes of new meshes (from the arena just
        // written), the TLAS if an object changed.
        stats += self.build_acceleration_structures(encoder);
        let (device, tables, views) = (&self.device, self.tables.gpu(), &self.views);
        let environment = &self.environment;
        let occlusion_state = &mut self.occlusion;
        let Passes {
            cull,
            lights,
            draw,
            output,
            bounds,
            rays,
        } = &mut self.passes;
        // Cull (compute), one dispatch for every view: each view's visible
        // list and indirect draws (with occlusion culling, the camera's
        // early phase: what it saw last frame).
        let inputs = occlusion_state.cull_inputs(CullPhase::first(occlusion), &views.cull);
        let timestamps = self.readback.cull_timestamps();
        stats += cull.record(device, encoder, &tables, views, &inputs, timestamps);
        // Lights (compute, while any is live): the camera's cluster lists.
        let light_inputs = self.tables.light_inputs(self.config.clusters);
        let timestamps = self.readback.lights_timestamps();
        let clusters = lights.record(device, encoder, &light_inputs, views, timestamps);
        let lit = light_inputs.slots > 0;
        stats += clusters.stats;
        let (heap, heap_rebuilt) = self.heap.bind_group();
        stats.bind_group_rebuilds += u32::from(heap_rebuilt);
        // Shadows (while on): each cascade's and each shadowed spot's
        // casters into its layer of the shadow map.
        let shadow_maps = self.shadows.pass.as_mut();
        if let Some(pass) = shadow_maps.filter(|_| !views.cascades.is_empty()) {
            let (scene_layout, instance_ids) = (draw.scene_layout(), draw.instance_ids());
            let (lights, clusters) = (&light_inputs, &clusters);
            let inputs = ShadowInputs {
                tables: &tables,
                views,
                heap,
                scene_layout,
                lights,
                clusters,
                instance_ids,
            };
            stats += pass.record(device, encoder, &inputs);
        }
        // Draw: one multi-draw-indirect(-count) per pipeline bucket in use,
        // into the HDR target (the colour target's size) and the
        // application's depth. The traced views trace primary rays instead.
        let culled = views.output(&views.main);
        let scene = SceneInputs {
            tables: &tables,
            view: &views.main,
            culled: &culled,
            lights: &light_inputs,
            clusters: &clusters,
        };
        let hdr = &mut self.hdr;
        stats.hdr_targets_created = u32::from(hdr.prepare(device, target.color.size()));
        let timestamps = self.readback.draw_timestamps();
        match (rays.as_mut(), &self.rays) {
            // Primary rays instead of the draw pass (set_debug refuses the
            // view without ray queries).
            (Some(rays), Some(tracing)) if self.debug.view.traces_rays() => {
                let (scene, rebuilt) = draw.scene_group(device, &scene);
                stats.bind_group_rebuilds += u32::from(rebuilt);
                let inputs = RayViewInputs {
                    heap,
                    scene,
                    tables: &tables,
                    tracing,
                    environment: environment.maps.bind_group(),
                };
                let traced = (&inputs, self.debug.view == DebugView::PathTraced);
                stats += rays.record(device, encoder, traced, hdr, &target, timestamps);
            }
            (rays, tracing) => {
                // The sun's shadows: from the TLAS with ray-query shadows,
                // else from the shadow map while on.
                let (ray_group, rebuilt) =
                    ray_shadow_group(self.ray_query_shadows, rays, tracing, device, &tables);
                stats.bind_group_rebuilds += u32::from(rebuilt);
                let maps = self.shadows.pass.as_ref();
                let maps = maps.filter(|_| !views.cascades.is_empty());
                let sun_shadows =
                    SunShadows::choose(ray_group, maps.and_then(ShadowPass::shading_group));
                let inputs = DrawInputs {
                    heap,
                    scene,
                    environment: environment.maps.bind_group(),
                    shading: draw_shading(&self.debug, lit),
                    sun_shadows,
                };
                let phase = DrawPhase::first(occlusion);
                stats += draw.record(device, encoder, hdr, &target, &inputs, phase, timestamps);
                // Occlusion culling's late phase: the depth pyramid of the
                // early depth, the late cull against it, the late draws.
                if occlusion {
                    let late = LatePhase {
                        cull,
                        draw,
                        tables: &tables,
                        views,
                        hdr,
                        target: &target,
                        inputs: &inputs,
                        readback: &self.readback,
                    };
                    stats += occlusion_state.record_late(device, encoder, late);
                }
            }
        }
        // Output: the HDR target resolved, exposed and tone mapped into the
        // application's colour target (debug and id views: as they are).
        let timestamps = self.readback.output_timestamps();
        let debug_view = self.debug.view;
        let inputs = OutputInputs {
            hdr,
            output: &self.output,
            view: output_view(debug_view),
        };
        stats += output.record(device, encoder, &inputs, &target, timestamps);
        // Debug: every object's bounds over the frame, culled ones red,
        // occluded ones orange.
        if self.debug.culled_bounds && !debug_view.is_id_view() {
            let bounds = bounds.get_or_insert_with(|| BoundsPass::new(device));
            let visibility = (
                &self.occlusion.visibility,
                self.occlusion.visibility_version,
            );
            let color = target.color.view();
            stats += bounds.record(device, encoder, color, &tables, &views.main, visibility);
        }
        // Statistics: the camera's cull counters and pass timestamps, mapped
        // later.
        let frame = stats.frame_index;
        let late = self.occlusion.late.as_ref().filter(|_| occlusion);
        let counters = (&views.cull.counters, late.map(|late| &late.counters));
        stats.commands_recorded += self.readback.record(encoder, counters, frame, (true, lit));
        Ok(stats)
    }

    /// Records upload and cull only, without drawing: the visible lists and
    /// indirect draws (the camera's, and with shadows on each cascade's) are
    /// left in [`Self::visible_instances_buffer`] and
    /// [`Self::indirect_draws_buffer`] for applications that draw themselves,
    /// and for benchmarking the cull pass alone. The rule of [`Self::render`]
    /// holds: submit every frame recorded, in order (a break in the
    /// sequence is reported by the next `render`).
    pub fn render_cull_only(&mut self, encoder: &mut wgpu::CommandEncoder) -> FrameStats {
        let mut stats = self.begin_frame();
        stats += self.upload(encoder, None);
        let (device, tables, views) = (&self.device, self.tables.gpu(), &self.views);
        let timestamps = self.readback.cull_timestamps();
        let inputs = self.occlusion.cull_inputs(CullPhase::Frustum, &views.cull);
        stats += self
            .passes
            .cull
            .record(device, encoder, &tables, views, &inputs, timestamps);
        let frame = stats.frame_index;
        let counters = (&views.cull.counters, None);
        stats.commands_recorded += self
            .readback
            .record(encoder, counters, frame, (false, false));
        stats
    }

    /// Collects GPU statistics that have arrived (never waits) and starts
    /// the frame's statistics.
    fn begin_frame(&mut self) -> FrameStats {
        let gpu = self.readback.collect();
        let stats = FrameStats {
            frame_index: self.frame_index,
            instances: self.tables.objects.len(),
            gpu,
            ..Default::default()
        };
        self.frame_index += 1;
        // This frame counts as recorded: a layer freed from now on may still
        // be sampled by it.
        self.heap
            .set_frames(self.frame_index, self.readback.frames_finished());
        stats
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
        let growth_copies = self.tables.arena.flush(device, encoder, &mut batch);
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
        let mut stats = batch.record(device, encoder);
        stats.commands_recorded += growth_copies;

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
            let sun = self.lighting.direction_to_light;
            self.shadows.cascades = crate::shadows::cascades(&self.camera, sun, &settings);
            let spots = self.tables.lights.shadowed_spots();
            self.shadows.spots = spots
                .map(|(slot, light)| SpotShadow::new(slot, &light, &settings))
                .collect();
            let (device, tier) = (&self.device, self.tier);
            let count_in_buffer = self.config.indirect == IndirectMode::Count;
            let draw = &self.passes.draw;
            let (heap_layout, shading_layout) = (self.heap.layout(), &self.shadows.layout);
            let pass = self.shadows.pass.get_or_insert_with(|| {
                ShadowPass::new(
                    device,
                    tier,
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
            &self.lighting,
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
            uniforms = uniforms.with_lights(&clusters, self.tables.light_slots());
            uniforms.pixel_grid = self.pixel_grid((width, height));
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
        for (bucket, &objects) in self.tables.objects.bucket_counts().iter().enumerate() {
            if objects > 0 {
                flags |= 1 << (FRAME_FLAG_BUCKET_SHIFT + bucket as u32);
            }
        }
        flags
    }

    /// The target the frame draws into: id views clear to "nothing drawn"
    /// (id bytes 0), whatever the application's clear colour.
    fn target_for_view<'t>(&self, target: &FrameTarget<'t>) -> FrameTarget<'t> {
        match target.color_load {
            TargetLoad::Clear(_) if self.debug.view.is_id_view() => FrameTarget {
                color_load: TargetLoad::Clear(wgpu::Color::TRANSPARENT),
                ..*target
            },
            _ => *target,
        }
    }
}

/// The draw shader variant: the debug one while a debug view or the
/// missing-texture highlight is on, else the lit one, with punctual lights
/// while any is live (`lit`).
fn draw_shading(debug: &DebugOptions, lit: bool) -> DrawShading {
    if debug.view != DebugView::Lit || debug.highlight_missing {
        DrawShading::Debug
    } else if lit {
        DrawShading::LitWithLights
    } else {
        DrawShading::Lit
    }
}

/// What the output pass writes a frame of `view` as: the path-traced view
/// is radiance, exposed and tone mapped like the lit view.
fn output_view(view: DebugView) -> DebugView {
    match view {
        DebugView::PathTraced => DebugView::Lit,
        view => view,
    }
}
