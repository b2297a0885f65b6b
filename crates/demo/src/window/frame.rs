//! One window frame: time it, move the camera, record unbound's frame into
//! the offscreen target, present it with the overlay over it, save a
//! screenshot if one is due, and end a scripted run (`--frames`) with its
//! summary.

use std::path::PathBuf;
use std::time::Instant;

use unbound::{DebugOptions, DebugView};
use unbound_harness::TextureReadback;
use winit::event_loop::ActiveEventLoop;

use super::{State, present_mode};
use crate::args::Args;
use crate::capture::save_png;
use crate::overlay::Requests;
use crate::present::color_pass;

/// A screenshot due this frame.
struct Screenshot {
    path: PathBuf,
    /// The window's image with the overlay, rather than the render target.
    with_ui: bool,
}

impl State {
    /// The frame as a recipe; each step is a method below.
    pub(super) fn redraw(
        &mut self,
        event_loop: &ActiveEventLoop,
        args: &Args,
    ) -> Result<(), String> {
        let dt = self.tick();
        if self.minimized {
            return Ok(());
        }
        self.apply_requests();
        self.update_camera(dt)?;
        let view = self.apply_settings()?;
        self.animate(dt)?;

        // unbound records its frame into our encoder, into our target.
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.record_scene(&mut encoder, view)?;
        let last = args.frames.is_some_and(|n| self.frame + 1 >= n);
        let screenshot = self.screenshot_due(args, last);
        let mut readback = match &screenshot {
            Some(shot) if !shot.with_ui => Some(
                TextureReadback::record(&self.device, &mut encoder, self.targets.texture(view))
                    .map_err(|e| e.to_string())?,
            ),
            _ => None,
        };

        let surface_texture = self.acquire_surface_texture()?;
        let mut extra = Vec::new();
        if let Some(surface_texture) = &surface_texture {
            let output = surface_texture.texture.create_view(&Default::default());
            self.present
                .record(&mut encoder, &output, view.is_id_view());
            if self.settings.show_ui {
                extra = self.draw_overlay(&mut encoder, &output);
            }
            if screenshot.as_ref().is_some_and(|shot| shot.with_ui) {
                readback = Some(
                    TextureReadback::record(&self.device, &mut encoder, &surface_texture.texture)
                        .map_err(|e| e.to_string())?,
                );
            }
        }
        self.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        if let Some(surface_texture) = surface_texture {
            self.window.pre_present_notify();
            self.queue.present(surface_texture);
        }
        if let (Some(shot), Some(readback)) = (screenshot, readback) {
            save_png(&readback, &self.device, &shot.path)?;
            self.numbers.status = format!("wrote {}", shot.path.display());
            println!("{}", self.numbers.status);
        }
        self.frame += 1;
        if last {
            self.print_run_summary();
            event_loop.exit();
        }
        Ok(())
    }

    /// Seconds since the previous frame (0 for the first), recorded for the
    /// overlay's graph and the run summary.
    fn tick(&mut self) -> f32 {
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| now.duration_since(t).as_secs_f32());
        if self.last_frame.is_some() {
            self.overlay.push_frame_time(dt * 1e3);
            self.numbers.frame_ms = dt * 1e3;
            self.frame_ms.push(dt * 1e3);
        }
        self.last_frame = Some(now);
        dt
    }

    /// The file's animation: the overlay's clip and pause, then the time
    /// moved on by `dt` (the renderer plays it on the GPU).
    fn animate(&mut self, dt: f32) -> Result<(), String> {
        let Some(player) = &mut self.scene.player else {
            return Ok(());
        };
        if player.clip() != self.settings.clip {
            player.set_clip(&mut self.renderer, self.settings.clip)?;
        }
        player.paused = self.settings.paused;
        player.advance(&mut self.renderer, dt)?;
        self.numbers.animation_time = player.time();
        Ok(())
    }

    /// Camera: a replayed path, else the controller; recorded when a path
    /// is being recorded.
    fn update_camera(&mut self, dt: f32) -> Result<(), String> {
        let aspect = self.config.width as f32 / self.config.height as f32;
        let pose = match &self.path {
            Some(path) => path.pose(self.frame),
            None => {
                self.controller.update(dt.min(0.1));
                self.controller.pose()
            }
        };
        if let Some(recording) = &mut self.recording {
            recording.poses.push(pose);
        }
        self.renderer
            .set_camera(&self.scene.camera(&pose, aspect))
            .map_err(|e| e.to_string())
    }

    /// The overlay's settings into the renderer's debug options, its
    /// shadows and the surface's present mode. Returns the debug view this frame draws.
    fn apply_settings(&mut self) -> Result<DebugView, String> {
        match (self.settings.freeze_cull, self.frozen) {
            (true, None) => self.frozen = Some(*self.renderer.camera()),
            (false, Some(_)) => self.frozen = None,
            _ => {}
        }
        let view = self.settings.view;
        self.renderer
            .set_debug(&DebugOptions {
                view,
                highlight_missing: self.settings.highlight_missing,
                cull_camera: self.frozen,
                culled_bounds: self.settings.bounds,
            })
            .map_err(|e| e.to_string())?;
        let on = self.settings.shadows;
        let (maps, rays) = (
            on && !self.settings.ray_query_shadows,
            on && self.settings.ray_query_shadows,
        );
        if self.renderer.shadows().enabled != maps {
            let shadows = unbound::ShadowSettings {
                enabled: maps,
                ..*self.renderer.shadows()
            };
            self.renderer
                .set_shadows(&shadows)
                .map_err(|e| e.to_string())?;
        }
        if self.renderer.ray_query_shadows() != rays {
            self.renderer
                .set_ray_query_shadows(rays)
                .map_err(|e| e.to_string())?;
        }
        if self.config.present_mode != present_mode(self.settings.vsync) {
            self.config.present_mode = present_mode(self.settings.vsync);
            self.surface.configure(&self.device, &self.config);
        }
        Ok(view)
    }

    /// unbound's frame into the offscreen target; its statistics into the
    /// overlay's numbers.
    fn record_scene(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        view: DebugView,
    ) -> Result<(), String> {
        let record_start = Instant::now();
        let stats = self
            .renderer
            .render(encoder, &self.targets.frame(view))
            .map_err(|e| e.to_string())?;
        self.numbers.record_ms = record_start.elapsed().as_secs_f32() * 1e3;
        self.record_ms.push(self.numbers.record_ms);
        self.numbers.instances = stats.instances;
        if stats.gpu.is_some() {
            self.numbers.gpu = stats.gpu;
        }
        self.numbers.mode = self.path.is_none().then_some(self.controller.mode);
        self.numbers.speed = self.controller.speed;
        self.numbers.recording = self.recording.as_ref().map(|r| r.poses.len());
        Ok(())
    }

    /// `--screenshot` on the last frame of a scripted run, else a requested
    /// one (F12 or the overlay's button) to `unbound-NNN.png`.
    fn screenshot_due(&mut self, args: &Args, last: bool) -> Option<Screenshot> {
        let path = if last && args.screenshot.is_some() {
            args.screenshot.clone()
        } else if std::mem::take(&mut self.pending.screenshot) {
            self.screenshots += 1;
            Some(PathBuf::from(format!(
                "unbound-{:03}.png",
                self.screenshots
            )))
        } else {
            None
        }?;
        let with_ui = args.screenshot_ui && self.settings.show_ui && self.surface_can_copy;
        if args.screenshot_ui && !with_ui {
            eprintln!(
                "note: saving the render target without the overlay ({})",
                if self.surface_can_copy {
                    "the overlay is hidden"
                } else {
                    "this surface cannot be copied from"
                }
            );
        }
        Some(Screenshot { path, with_ui })
    }

    /// The surface's next texture; `None` for a frame that cannot be shown
    /// (timed out, occluded, or the surface was just reconfigured).
    fn acquire_surface_texture(&mut self) -> Result<Option<wgpu::SurfaceTexture>, String> {
        Ok(match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => Some(t),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => None,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                None
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err("acquiring the surface texture failed validation".into());
            }
        })
    }

    /// Runs the overlay's UI and records it over `output`. Returns egui's
    /// own command buffers (submitted before ours).
    fn draw_overlay(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        output: &wgpu::TextureView,
    ) -> Vec<wgpu::CommandBuffer> {
        let raw = self.egui.input.take_egui_input(&self.window);
        let mut requests = Requests::default();
        let mut full = self.egui.ctx.run_pass(raw, |ctx| {
            requests = self
                .overlay
                .ui(ctx, &self.numbers, &self.renderer, &mut self.settings);
        });
        self.pending.screenshot |= requests.screenshot;
        self.pending.frame_scene |= requests.frame_scene;
        self.pending.toggle_mode |= requests.toggle_mode;
        self.egui
            .input
            .handle_platform_output(&self.window, full.platform_output);
        let primitives = self.egui.ctx.tessellate(full.shapes, full.pixels_per_point);
        // egui checks that every texture delta is applied (drained).
        for (id, deltas) in full.textures_delta.set.drain() {
            for delta in deltas {
                self.egui
                    .painter
                    .update_texture(&self.device, &self.queue, id, &delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: full.pixels_per_point,
        };
        let extra = self.egui.painter.update_buffers(
            &self.device,
            &self.queue,
            encoder,
            &primitives,
            &screen,
        );
        {
            let pass = color_pass(encoder, output, wgpu::LoadOp::Load, "demo overlay");
            self.egui
                .painter
                .render(&mut pass.forget_lifetime(), &primitives, &screen);
        }
        for id in full.textures_delta.free.drain() {
            self.egui.painter.free_texture(&id);
        }
        extra
    }

    /// The end of a scripted run (`--frames`); with `--camera-path` and
    /// `--no-vsync` it doubles as a benchmark.
    fn print_run_summary(&mut self) {
        let gpu = self.renderer.latest_gpu_stats().or(self.numbers.gpu);
        println!("frames: {}", self.frame);
        println!(
            "frame time: {}; CPU record: {}",
            summary(&self.frame_ms),
            summary(&self.record_ms)
        );
        if let Some(gpu) = gpu {
            let ms = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3} ms"));
            println!(
                "visible instances: {}, draws: {}, triangles: {}, GPU cull {}, lights {}, draw {}, output {}",
                gpu.visible_instances,
                gpu.draws,
                gpu.triangles,
                ms(gpu.cull_ms),
                ms(gpu.lights_ms),
                ms(gpu.draw_ms),
                ms(gpu.output_ms)
            );
        }
    }
}

/// Median and 10th-90th percentile of `samples` (ms).
fn summary(samples: &[f32]) -> String {
    if samples.is_empty() {
        return "n/a".into();
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f32::total_cmp);
    let at = |q: f32| sorted[((sorted.len() - 1) as f32 * q).round() as usize];
    format!("median {:.3} ms ({:.3}-{:.3})", at(0.5), at(0.1), at(0.9))
}
