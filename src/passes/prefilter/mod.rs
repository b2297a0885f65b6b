//! The environment prefilter: compute passes that turn an [`Environment`]
//! into what the shading samples (run once per environment, not per frame),
//! and the BRDF lookup table (made once, when the [`Prefilter`] is built).
//! The shaders are `wgsl/prefilter.wgsl`; the maps are read through
//! `wgsl/environment.wgsl` (bind group [`ENVIRONMENT_GROUP`]).
//!
//! 1. The equirectangular source is projected onto a radiance cube (six
//!    layers of [`PrefilterSettings::specular_size`]², each texel the mean
//!    of a box of source texels) and downsampled to a full mip chain.
//! 2. The specular cube: mip `m` of [`PrefilterSettings::specular_mips`]
//!    holds the radiance filtered by GGX at roughness `m / (mips - 1)`
//!    (view along the normal, the split sum's assumption), each sample read
//!    from the radiance mip that matches its solid angle.
//! 3. Diffuse light: 9 spherical-harmonics coefficients (bands 0 to 2) of
//!    the radiance convolved with the clamped cosine and divided by π, in a
//!    uniform buffer: a white Lambert surface of normal `n` reflects
//!    `Σ c_k Y_k(n)`. A buffer, not a texture: tier C's GL has 16 texture
//!    units per stage and the draw pass uses 12 of them.
//! 4. The BRDF table ([`BRDF_LUT_SIZE`]², `Rgba16Float`): at
//!    `(n·v, roughness)` (texel centres), the split sum's scale `A` and
//!    bias `B` (the specular lobe of Fresnel reflectance `f0` reflects
//!    `f0 A + B` of a uniform environment) and the diffuse lobe's albedo
//!    per unit diffuse colour. CPU twin: [`crate::lighting::split_sum`].
//!
//! The passes are submitted at once when an environment is set
//! ([`crate::Renderer::set_environment`]), never per frame. Two wgpu GL
//! behaviours shape them: a square texture of six layers is always a GL cube
//! map, which cannot be bound as layers nor copied from, so the textures the
//! passes write have a seventh, unused layer and the final cube is a copy;
//! and a sampled view sets its texture's mip range, outside which storage
//! writes are dropped, so each downsampled mip is written to a staging
//! texture and copied. On tier C the shading adds two texture units (the
//! specular cube and the table) to the heap's 12.
//!
//! A renderer (and the bind-per-draw baseline) starts with a uniform white
//! environment, prefiltered at the smallest size since its maps are uniform,
//! so that `Lighting::ambient_color` alone is a uniform ambient light.
//! Tests: `tests/environment.rs` (the table against the CPU, uniform and
//! directional environments, bad input), `tests/furnace.rs` and
//! `tests/tiers.rs` (the white furnace on lavapipe and GL).

mod gpu;

use crate::lighting::{Environment, EnvironmentError, PrefilterSettings};
use crate::shaders;
use gpu::{
    Dispatch, WRITTEN_LAYERS, bind_group_layout, buffer_type, copy_faces, cube_texture, groups,
    layers_view, stage, storage_texture_entry, texture_entry,
};

/// Side of the BRDF lookup table, in texels.
pub const BRDF_LUT_SIZE: u32 = 64;
/// Samples per texel of the BRDF lookup table.
pub const BRDF_LUT_SAMPLES: u32 = 512;
/// The bind group the shading reads the environment from
/// (`wgsl/environment.wgsl`): the draw pass's and the baseline's.
pub const ENVIRONMENT_GROUP: u32 = 3;
/// Format of the radiance and specular cubes and the BRDF table.
pub const ENVIRONMENT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// Twin of `EnvironmentUniforms` in `wgsl/environment.wgsl`: the diffuse
/// coefficients (written by the irradiance pass) and the specular cube's
/// last mip (written by the host).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuEnvironmentUniforms {
    /// `Σ sh[k] Y_k(n)`: what a white Lambert surface of normal `n`
    /// reflects (RGB, `w` unused).
    pub sh: [[f32; 4]; 9],
    /// `x`: the specular cube's last mip (roughness 1).
    pub specular_lod: [f32; 4],
}

/// Twin of `PrefilterParams` in `wgsl/prefilter.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuPrefilterParams {
    /// Output face (or table) side.
    pub size: u32,
    /// Samples per output texel.
    pub samples: u32,
    /// Perceptual roughness of the output mip.
    pub roughness: f32,
    /// Side of the source's mip 0.
    pub source_size: u32,
    /// Mips of the source.
    pub source_mips: u32,
    /// Sub-samples per side of each output texel.
    pub box_side: u32,
    /// The source mip read (downsample, irradiance): views start at mip 0,
    /// since `textureLoad` on a view of later mips reads the wrong level
    /// on wgpu's GL backend.
    pub source_level: u32,
    /// Padding to 16 bytes.
    pub _pad: u32,
}

/// The prefilter's pipelines and the BRDF lookup table.
#[derive(Debug)]
pub struct Prefilter {
    project: Stage,
    downsample: Stage,
    specular: Stage,
    irradiance: Stage,
    sampler: wgpu::Sampler,
    environment_layout: wgpu::BindGroupLayout,
    brdf_lut: wgpu::Texture,
}

/// One entry point of `wgsl/prefilter.wgsl` and its bind group layout.
#[derive(Debug)]
struct Stage {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// What the shading samples, made by [`Prefilter::prefilter`].
#[derive(Debug)]
pub struct EnvironmentMaps {
    specular: wgpu::Texture,
    sh: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl EnvironmentMaps {
    /// The specular cube (mip `m` at roughness `m / (mips - 1)`).
    pub fn specular(&self) -> &wgpu::Texture {
        &self.specular
    }

    /// The 9 diffuse spherical-harmonics coefficients (`vec4` each, RGB).
    pub fn sh_buffer(&self) -> &wgpu::Buffer {
        &self.sh
    }

    /// Bytes of GPU memory held: the specular cube with its mips and the
    /// coefficients.
    pub fn size_bytes(&self) -> u64 {
        let side = u64::from(self.specular.width());
        let texels: u64 = (0..self.specular.mip_level_count())
            .map(|mip| (side >> mip).max(1).pow(2) * 6)
            .sum();
        // Rgba16Float: 8 bytes a texel.
        texels * 8 + self.sh.size()
    }

    /// Bind group [`ENVIRONMENT_GROUP`] of the shading pipelines.
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }
}

/// The layout of bind group [`ENVIRONMENT_GROUP`] (fragment stage, and
/// compute for the compute material pass): the
/// diffuse coefficients (uniform), the specular cube, the BRDF table and
/// their sampler, in `wgsl/environment.wgsl`'s binding order.
pub fn environment_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    use wgpu::TextureViewDimension as Dim;
    let float = wgpu::TextureSampleType::Float { filterable: true };
    bind_group_layout(
        device,
        "unbound environment",
        wgpu::ShaderStages::FRAGMENT | wgpu::ShaderStages::COMPUTE,
        &[
            (0, buffer_type(wgpu::BufferBindingType::Uniform)),
            texture_entry(1, float, Dim::Cube),
            texture_entry(2, float, Dim::D2),
            (
                3,
                wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            ),
        ],
    )
}

/// The radiance mip the diffuse coefficients are summed over: the first
/// of at most 32² texels per face.
const IRRADIANCE_SIZE: u32 = 32;

impl Prefilter {
    /// Builds the pipelines and makes the BRDF table (submitted before
    /// this returns).
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        use wgpu::TextureViewDimension as Dim;
        let module = shaders::PREFILTER.create(device);
        let float = wgpu::TextureSampleType::Float { filterable: true };
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let source = texture_entry(2, float, Dim::D2Array);
        let out_layers = storage_texture_entry(4, Dim::D2Array);
        let sampler_entry = (
            3,
            wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        );
        let sh_out = (
            5,
            buffer_type(wgpu::BufferBindingType::Storage { read_only: false }),
        );
        let stage = |entry, entries: &[_]| stage(device, &module, entry, entries);
        let brdf_lut_stage = stage("brdf_lut", &[storage_texture_entry(6, Dim::D2)]);
        let prefilter = Self {
            project: stage(
                "project",
                &[texture_entry(1, unfilterable, Dim::D2), out_layers],
            ),
            downsample: stage("downsample", &[source, out_layers]),
            specular: stage("specular", &[source, sampler_entry, out_layers]),
            irradiance: stage("irradiance", &[source, sh_out]),
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("unbound environment"),
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                mipmap_filter: wgpu::MipmapFilterMode::Linear,
                ..Default::default()
            }),
            environment_layout: environment_layout(device),
            brdf_lut: device.create_texture(&wgpu::TextureDescriptor {
                label: Some("unbound brdf lut"),
                size: wgpu::Extent3d {
                    width: BRDF_LUT_SIZE,
                    height: BRDF_LUT_SIZE,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: ENVIRONMENT_FORMAT,
                usage: wgpu::TextureUsages::STORAGE_BINDING
                    | wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            }),
        };
        let mut encoder = device.create_command_encoder(&Default::default());
        let table = prefilter.brdf_lut.create_view(&Default::default());
        Dispatch {
            stage: &brdf_lut_stage,
            params: GpuPrefilterParams {
                size: BRDF_LUT_SIZE,
                samples: BRDF_LUT_SAMPLES,
                ..Default::default()
            },
            bindings: vec![(6, wgpu::BindingResource::TextureView(&table))],
            groups: [groups(BRDF_LUT_SIZE), groups(BRDF_LUT_SIZE), 1],
        }
        .record(device, &mut encoder);
        queue.submit([encoder.finish()]);
        prefilter
    }

    /// Bytes of GPU memory held: the BRDF table.
    pub fn size_bytes(&self) -> u64 {
        u64::from(BRDF_LUT_SIZE * BRDF_LUT_SIZE) * 8
    }

    /// The BRDF lookup table.
    pub fn brdf_lut(&self) -> &wgpu::Texture {
        &self.brdf_lut
    }

    /// The layout of bind group [`ENVIRONMENT_GROUP`].
    pub fn environment_layout(&self) -> &wgpu::BindGroupLayout {
        &self.environment_layout
    }

    /// Prefilters `environment` (submitted before this returns; the GPU
    /// work completes in queue order). Refuses bad radiance, bad settings
    /// and an image wider or taller than the device's
    /// `max_texture_dimension_2d`.
    pub fn prefilter(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        environment: &Environment,
        settings: &PrefilterSettings,
    ) -> Result<EnvironmentMaps, EnvironmentError> {
        settings.validate(device)?;
        let image = environment.to_equirect()?;
        let max = device.limits().max_texture_dimension_2d;
        let (width, height) = (image.width(), image.height());
        if width.max(height) > max {
            return Err(EnvironmentError::TooLarge { width, height, max });
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let equirect = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("unbound environment source"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let texels: Vec<[f32; 4]> = image
            .texels()
            .iter()
            .map(|t| t.extend(1.0).into())
            .collect();
        queue.write_texture(
            equirect.as_image_copy(),
            bytemuck::cast_slice(&texels),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(width * 16),
                rows_per_image: Some(height),
            },
            size,
        );
        let mut encoder = device.create_command_encoder(&Default::default());
        let radiance = self.radiance(device, &mut encoder, &equirect, settings.specular_size);
        let sh = self.irradiance(device, &mut encoder, &radiance);
        let last_mip = [(settings.specular_mips - 1) as f32, 0.0, 0.0, 0.0];
        let lod_offset = std::mem::offset_of!(GpuEnvironmentUniforms, specular_lod) as u64;
        queue.write_buffer(&sh, lod_offset, bytemuck::cast_slice(&last_mip));
        let specular = self.specular(device, &mut encoder, &radiance, settings);
        queue.submit([encoder.finish()]);
        let specular_view = specular.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::Cube),
            ..Default::default()
        });
        let table = self.brdf_lut.create_view(&Default::default());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound environment"),
            layout: &self.environment_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: sh.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&specular_view),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(&table),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        });
        Ok(EnvironmentMaps {
            specular,
            sh,
            bind_group,
        })
    }

    /// The radiance cube with a full mip chain: projected, then
    /// downsampled.
    fn radiance(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        equirect: &wgpu::Texture,
        size: u32,
    ) -> wgpu::Texture {
        let mips = size.ilog2() + 1;
        let usage = wgpu::TextureUsages::STORAGE_BINDING
            | wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST;
        let radiance = cube_texture(
            device,
            "unbound environment radiance",
            (size, WRITTEN_LAYERS),
            mips,
            usage,
        );
        let source = equirect.create_view(&Default::default());
        let out = layers_view(&radiance, 0, Some(1));
        Dispatch {
            stage: &self.project,
            params: GpuPrefilterParams {
                size,
                box_side: equirect.width().div_ceil(4 * size).clamp(1, 8),
                ..Default::default()
            },
            bindings: vec![
                (1, wgpu::BindingResource::TextureView(&source)),
                (4, wgpu::BindingResource::TextureView(&out)),
            ],
            groups: [groups(size), groups(size), 6],
        }
        .record(device, encoder);
        // Each mip is written into `staging`, then copied: on wgpu's GL
        // backend a texture's sampled view sets its mip range, outside
        // which its storage writes are dropped.
        let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC;
        let staging = cube_texture(
            device,
            "unbound environment staging",
            (size, WRITTEN_LAYERS),
            mips,
            usage,
        );
        for mip in 1..mips {
            let side = size >> mip;
            let above = layers_view(&radiance, 0, Some(mip));
            let out = layers_view(&staging, mip, Some(1));
            Dispatch {
                stage: &self.downsample,
                params: GpuPrefilterParams {
                    size: side,
                    source_level: mip - 1,
                    ..Default::default()
                },
                bindings: vec![
                    (2, wgpu::BindingResource::TextureView(&above)),
                    (4, wgpu::BindingResource::TextureView(&out)),
                ],
                groups: [groups(side), groups(side), 6],
            }
            .record(device, encoder);
            copy_faces(encoder, &staging, &radiance, mip);
        }
        radiance
    }

    /// The diffuse coefficients, summed over the radiance's first mip of
    /// at most [`IRRADIANCE_SIZE`]² texels per face.
    fn irradiance(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        radiance: &wgpu::Texture,
    ) -> wgpu::Buffer {
        let size = radiance.width();
        let mip = size.ilog2().saturating_sub(IRRADIANCE_SIZE.ilog2());
        let sh = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("unbound environment sh"),
            size: size_of::<GpuEnvironmentUniforms>() as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::UNIFORM
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let source = layers_view(radiance, 0, None);
        Dispatch {
            stage: &self.irradiance,
            params: GpuPrefilterParams {
                size: size >> mip,
                source_level: mip,
                ..Default::default()
            },
            bindings: vec![
                (2, wgpu::BindingResource::TextureView(&source)),
                (5, sh.as_entire_binding()),
            ],
            groups: [1, 1, 1],
        }
        .record(device, encoder);
        sh
    }

    /// The specular cube: each mip filtered into a six-layer texture,
    /// then copied into a cube (a cube texture cannot be written as
    /// storage on every backend).
    fn specular(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        radiance: &wgpu::Texture,
        settings: &PrefilterSettings,
    ) -> wgpu::Texture {
        let (size, mips) = (settings.specular_size, settings.specular_mips);
        let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC;
        let layers = cube_texture(
            device,
            "unbound specular layers",
            (size, WRITTEN_LAYERS),
            mips,
            usage,
        );
        let usage = wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC;
        let specular = cube_texture(device, "unbound specular", (size, 6), mips, usage);
        let source = layers_view(radiance, 0, None);
        for mip in 0..mips {
            let side = size >> mip;
            let out = layers_view(&layers, mip, Some(1));
            Dispatch {
                stage: &self.specular,
                params: GpuPrefilterParams {
                    size: side,
                    samples: settings.samples,
                    roughness: mip as f32 / (mips - 1) as f32,
                    source_size: radiance.width(),
                    source_mips: radiance.mip_level_count(),
                    ..Default::default()
                },
                bindings: vec![
                    (2, wgpu::BindingResource::TextureView(&source)),
                    (3, wgpu::BindingResource::Sampler(&self.sampler)),
                    (4, wgpu::BindingResource::TextureView(&out)),
                ],
                groups: [groups(side), groups(side), 6],
            }
            .record(device, encoder);
            copy_faces(encoder, &layers, &specular, mip);
        }
        specular
    }
}
