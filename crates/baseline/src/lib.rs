//! The classic bind-per-draw renderer, for comparison: what a good wgpu user
//! writes without unbound. Not part of the bindless path.
//!
//! Per material a bind group with its textures; per mesh its own vertex and
//! index buffers; per object a transform at a dynamic uniform offset; CPU
//! frustum culling every frame; one `draw_indexed` per visible object, in an
//! order sorted by material then mesh so nothing is rebound needlessly.
//! Like the bindless path it has three pipelines: opaque and masked (back
//! faces culled), double-sided, and alpha-blended (drawn last, without depth
//! writes, far to near by the distance of each object's bounding-sphere
//! centre from the near plane, sorted on the CPU every frame).
//! Materials are the library's [`unbound::Material`], encoded by its one
//! encoder ([`unbound::Material::encode`]) with the baseline's own texture
//! numbering.
//! Punctual lights are the library's ([`unbound::Light`], encoded by
//! [`unbound::Light::to_gpu`]) in one storage buffer; the baseline does not
//! cluster them: every fragment loops over every light in slot order (a
//! light that does not reach it adds exactly zero, so the sums equal the
//! bindless path's over its cluster's list).
//! Shading is the same WGSL as the bindless path (`wgsl/surface.wgsl`), into
//! the same kind of HDR target (one sample per pixel), written to the
//! colour target by the same output pass (`unbound::passes::output`:
//! exposure and tone mapping at their defaults), so the two render matching
//! images (checked by `tests/parity.rs`, for the procedural benchmark
//! scenes and for glTF files via [`BaselineRenderer::from_gltf`]).

mod frame;
mod gltf;
mod pipelines;
mod resources;
mod scene;
mod textures;

use glam::Mat4;

use unbound::camera::{Camera, Lighting, LightingError};
use unbound::lighting::{Environment, EnvironmentError, PrefilterSettings};
use unbound::loaders::gltf::DocumentError;
use unbound::materials::MaterialError;
use unbound::output::Msaa;
use unbound::passes::output::{HdrTarget, OutputPass};
use unbound::passes::prefilter::{EnvironmentMaps, Prefilter};
use unbound::shaders::ShaderVariant;
use unbound_scenes::bench::SceneSpec;

use frame::Timestamps;
use pipelines::Layouts;
pub use resources::GpuObjectUniforms;
use resources::{BaselineMesh, FrameBinding, Objects};
use scene::SceneInput;
use textures::BoundTextures;

/// The baseline's shader: `wgsl/baseline.wgsl` of this crate, which
/// includes the library's `types.wgsl` and `surface.wgsl`; for scenes
/// without punctual lights, as the bindless path's lit variant has none.
pub const SHADER: ShaderVariant = ShaderVariant {
    file: "baseline.wgsl",
    defines: &[],
    extra: &[("baseline.wgsl", include_str!("../wgsl/baseline.wgsl"))],
};

/// [`SHADER`] shading punctual lights: for scenes with any.
pub const SHADER_LIGHTS: ShaderVariant = ShaderVariant {
    defines: &["PUNCTUAL_LIGHTS"],
    ..SHADER
};

/// What one baseline frame recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BaselineStats {
    /// Objects that passed CPU culling (= draws).
    pub visible_instances: u32,
    /// `draw_indexed` calls.
    pub draws: u32,
    /// Triangles submitted.
    pub triangles: u64,
    /// `set_bind_group` calls.
    pub bind_groups_set: u32,
    /// Commands recorded (binds, buffer sets, draws).
    pub commands_recorded: u32,
}

/// Why [`BaselineRenderer::from_gltf`] could not build a scene.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BaselineError {
    /// The document is inconsistent
    /// ([`unbound::loaders::gltf::GltfDocument::validate`]).
    #[error("{0}")]
    Document(#[from] DocumentError),
    /// A texture is larger than the device's `max_texture_dimension_2d`.
    #[error("texture {texture} is {width}x{height}; the device allows {max} texels a side")]
    TextureSize {
        /// Index of the texture in the document.
        texture: usize,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
        /// The device's limit.
        max: u32,
    },
    /// A texture's format needs a device feature the device lacks (BC
    /// textures without `TEXTURE_COMPRESSION_BC`).
    #[error("texture {texture} is {format:?}, which needs {missing:?}: not enabled on this device")]
    MissingFeature {
        /// Index of the texture in the document.
        texture: usize,
        /// Its format.
        format: wgpu::TextureFormat,
        /// The features it needs that the device lacks.
        missing: wgpu::Features,
    },
    /// A light the library refuses (as the bindless renderer would).
    #[error("light {light}: {source}")]
    Light {
        /// Index of the light in the scene.
        light: usize,
        /// What is wrong with it.
        source: unbound::LightError,
    },
    /// A material the library's encoder refuses (as the bindless renderer
    /// would).
    #[error("material {material}: {source}")]
    Material {
        /// Index of the material in the document.
        material: usize,
        /// What is wrong with it.
        source: MaterialError,
    },
}

/// The bind-per-draw renderer. See the module docs.
#[derive(Debug)]
pub struct BaselineRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// Opaque, double-sided, blended (`gpu_types::BUCKET_*` order).
    pipelines: [wgpu::RenderPipeline; 3],
    /// What the draw pass shades into, and the pass that writes it to the
    /// colour target.
    hdr: HdrTarget,
    output: OutputPass,
    frame: FrameBinding,
    material_groups: Vec<wgpu::BindGroup>,
    meshes: Vec<BaselineMesh>,
    objects: Objects,
    /// Object indices sorted by (bucket, material, mesh); the blended tail
    /// is re-sorted far to near every frame.
    draw_order: Vec<u32>,
    camera: Camera,
    lighting: Lighting,
    /// Image-based light, as the bindless renderer makes it.
    prefilter: Prefilter,
    environment: EnvironmentMaps,
    timestamps: Option<Timestamps>,
}

impl BaselineRenderer {
    /// Uploads `scene` the classic way. `color_format` is the colour
    /// target's format (the output pass's pipelines for it are built now).
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &SceneSpec,
        color_format: wgpu::TextureFormat,
    ) -> Self {
        Self::build(device, queue, &SceneInput::from_spec(scene), color_format)
            .expect("scene materials have finite factors and UV sets 0 or 1, lights are valid")
    }

    /// Encodes every material first (so an invalid one creates nothing),
    /// then creates the pipelines and uploads everything.
    fn build(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &SceneInput<'_>,
        color_format: wgpu::TextureFormat,
    ) -> Result<Self, BaselineError> {
        let material_uniforms = resources::material_uniforms(&scene.materials)?;
        let lights = scene
            .lights
            .iter()
            .enumerate()
            .map(|(light, l)| {
                l.to_gpu()
                    .map_err(|source| BaselineError::Light { light, source })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let layouts = Layouts::new(device);
        let prefilter = Prefilter::new(device, queue);
        let white = Environment::Uniform(glam::Vec3::ONE);
        let settings = PrefilterSettings::default().for_environment(&white);
        let environment = prefilter
            .prefilter(device, queue, &white, &settings)
            .expect("a uniform white environment and default settings are valid");
        let shader = if lights.is_empty() {
            SHADER
        } else {
            SHADER_LIGHTS
        };
        let pipelines =
            pipelines::create_pipelines(device, &layouts, prefilter.environment_layout(), &shader);
        let textures = BoundTextures::new(device, queue, &scene.textures, &scene.samplers);
        let material_groups = resources::material_groups(
            device,
            &layouts.material,
            &textures,
            &scene.materials,
            &material_uniforms,
        );
        let meshes = resources::upload_meshes(device, &scene.meshes);
        let objects = Objects::new(
            device,
            &layouts.object,
            &scene.objects,
            &meshes,
            &material_uniforms,
        );
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            pipelines,
            hdr: HdrTarget::new(Msaa::X1),
            output: OutputPass::new(device, Msaa::X1, color_format),
            frame: FrameBinding::new(device, &layouts.frame, &lights),
            material_groups,
            draw_order: frame::initial_draw_order(&objects.list),
            meshes,
            objects,
            camera: scene.camera,
            lighting: scene.lighting,
            prefilter,
            environment,
            timestamps: Timestamps::new(device),
        })
    }

    /// Sets the light and ambient term; refuses what
    /// [`Lighting::validate`] refuses (as the bindless renderer does) and
    /// keeps the lighting in use.
    pub fn set_lighting(&mut self, lighting: &Lighting) -> Result<(), LightingError> {
        lighting.validate()?;
        self.lighting = *lighting;
        Ok(())
    }

    /// Replaces the environment (image-based light), prefiltered with the
    /// default settings as [`unbound::Renderer::set_environment`] does;
    /// refuses what it refuses, keeping the environment in use. The
    /// baseline starts with a uniform white one, as the renderer does.
    pub fn set_environment(&mut self, environment: &Environment) -> Result<(), EnvironmentError> {
        let settings = PrefilterSettings::default().for_environment(environment);
        self.environment =
            self.prefilter
                .prefilter(&self.device, &self.queue, environment, &settings)?;
        Ok(())
    }

    /// Sets the camera.
    pub fn set_camera(&mut self, camera: &Camera) {
        self.camera = *camera;
    }

    /// Moves object `index` (scene order): CPU bounds plus one queued uniform write.
    pub fn set_transform(&mut self, index: usize, world_from_object: Mat4) {
        self.objects
            .set_transform(&self.queue, &self.meshes, index, world_from_object);
    }

    /// Bytes of GPU memory in the baseline's buffers (textures excluded).
    pub fn buffer_bytes(&self) -> u64 {
        self.objects.uniforms.size()
            + self
                .meshes
                .iter()
                .map(|m| m.vertices.size() + m.indices.size())
                .sum::<u64>()
    }
}
