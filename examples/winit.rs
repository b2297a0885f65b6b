//! The smallest windowed application: it owns its window, surface and
//! device, draws its own geometry, and lets unbound draw its objects over
//! it into the surface texture.
//!
//! ```text
//! cargo run --example winit                 (until the window is closed)
//! cargo run --example winit -- --frames 3   (exits after 3 frames)
//! ```
//!
//! Each frame the application records its own pass first: a full-screen
//! triangle with a vertical gradient, into the surface texture. unbound's
//! frame then loads that colour ([`TargetLoad::Load`]) rather than clearing
//! it, so the gradient stays wherever unbound draws nothing. The window,
//! the surface (the renderer is built for the surface's colour format) and the depth
//! target from [`Renderer::depth_target_descriptor`](unbound::Renderer::depth_target_descriptor)
//! are set up in `shared/window.rs`, which the glTF viewer uses too.

use std::error::Error;

use glam::{EulerRot, Mat4, Quat, Vec3, Vec4};
use unbound::{Camera, FAR_DEPTH, FrameTarget, Material, ObjectDesc, ObjectHandle, TargetLoad};
use unbound::{TargetView, shapes};

#[path = "shared/window.rs"]
mod window;
use window::WindowGpu;

/// The application's own geometry: one triangle covering the screen,
/// orange at the bottom to deep blue at the top.
const BACKDROP_WGSL: &str = "
struct Varyings { @builtin(position) position: vec4f, @location(0) height: f32 }
@vertex fn vs(@builtin(vertex_index) i: u32) -> Varyings {
    let corner = vec2f(f32((i << 1u) & 2u), f32(i & 2u)) * 2.0 - 1.0;
    return Varyings(vec4f(corner, 0.0, 1.0), corner.y * 0.5 + 0.5);
}
@fragment fn fs(in: Varyings) -> @location(0) vec4f {
    return vec4f(mix(vec3f(0.8, 0.35, 0.1), vec3f(0.02, 0.03, 0.15), in.height), 1.0);
}";

fn main() {
    if let Err(error) = run() {
        eprintln!("winit: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let frames = match args.iter().position(|a| a == "--frames") {
        Some(i) => Some(args.get(i + 1).ok_or("--frames needs a count")?.parse()?),
        None => None,
    };
    window::run("unbound", frames, Composited::new)
}

/// A spinning cube over the application's backdrop.
struct Composited {
    backdrop: wgpu::RenderPipeline,
    cube: ObjectHandle,
    frame: u32,
}

impl Composited {
    fn new(gpu: &mut WindowGpu) -> Result<Self, Box<dyn Error>> {
        let renderer = &mut gpu.renderer;
        let mesh = renderer.add_mesh(&shapes::cube().as_mesh_data())?;
        let teal = renderer.add_material(&Material::dielectric(Vec4::new(0.1, 0.6, 0.55, 1.0)))?;
        let cube = renderer.add_object(&ObjectDesc {
            mesh,
            material: teal,
            world_from_object: Mat4::IDENTITY,
        })?;
        let shader = gpu
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("backdrop"),
                source: wgpu::ShaderSource::Wgsl(BACKDROP_WGSL.into()),
            });
        let backdrop = gpu
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("backdrop"),
                layout: None,
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[Some(gpu.config.format.into())],
                }),
                primitive: Default::default(),
                depth_stencil: None,
                multisample: Default::default(),
                multiview_mask: None,
                cache: None,
            });
        Ok(Self {
            backdrop,
            cube,
            frame: 0,
        })
    }
}

impl window::Example for Composited {
    fn draw(
        &mut self,
        gpu: &mut WindowGpu,
        encoder: &mut wgpu::CommandEncoder,
        color: &TargetView,
    ) -> Result<(), Box<dyn Error>> {
        self.frame += 1;
        let turn = Quat::from_euler(EulerRot::YXZ, self.frame as f32 * 0.03, 0.5, 0.0);
        gpu.renderer
            .set_transform(self.cube, Mat4::from_quat(turn))?;
        // The camera's aspect is the surface's: `render` refuses one that
        // does not fit rather than stretch the image.
        gpu.renderer.set_camera(&Camera {
            position: Vec3::new(0.0, 1.0, 3.0),
            aspect: gpu.config.width as f32 / gpu.config.height as f32,
            ..Camera::default()
        })?;

        // The application's pass: the backdrop into the surface texture.
        let attachment = wgpu::RenderPassColorAttachment {
            view: color.view(),
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations::default(),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("backdrop"),
            color_attachments: &[Some(attachment)],
            ..Default::default()
        });
        pass.set_pipeline(&self.backdrop);
        pass.draw(0..3, 0..1);
        drop(pass);

        // unbound's frame over it: keep the colour, clear the depth (the
        // backdrop wrote none).
        let target = FrameTarget {
            color_load: TargetLoad::Load,
            depth_load: TargetLoad::Clear(FAR_DEPTH),
            ..FrameTarget::new(color, &gpu.depth)
        };
        gpu.renderer.render(encoder, &target)?;
        Ok(())
    }
}
