//! The baseline's textures and samplers: every texture of the scene with
//! its mip chain, one sampler per description, and the white texture and
//! default sampler bound where a material has no texture. Texture creation
//! and upload, and sampler creation, are all in this file.

use wgpu::util::DeviceExt;

use unbound::heap::SamplerDesc;
use unbound::loaders::gltf::GltfTextureRef;
use unbound::mipmaps::{MipGenerator, full_mip_count};

/// A texture to upload: level 0 as RGBA8 (mips generated), or every level
/// of a block-compressed format.
#[derive(Debug)]
pub(crate) struct TextureInput<'a> {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) format: wgpu::TextureFormat,
    pub(crate) levels: Vec<&'a [u8]>,
}

/// Every texture and sampler the scene's materials bind.
#[derive(Debug)]
pub(crate) struct BoundTextures {
    /// One per [`TextureInput`], in scene order.
    views: Vec<wgpu::TextureView>,
    /// One per [`SamplerDesc`], in scene order.
    samplers: Vec<wgpu::Sampler>,
    /// Bound where a material has no texture.
    white: wgpu::TextureView,
    /// Bound with the white texture.
    default_sampler: wgpu::Sampler,
}

impl BoundTextures {
    /// Uploads `textures` (submitting their uploads and mip generation at
    /// once) and creates `samplers`.
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        textures: &[TextureInput<'_>],
        samplers: &[SamplerDesc],
    ) -> Self {
        let mut mipmaps = MipGenerator::new(device);
        let mut encoder = device.create_command_encoder(&Default::default());
        let views = textures
            .iter()
            .map(|t| upload_texture(device, queue, &mut mipmaps, &mut encoder, t))
            .collect();
        queue.submit([encoder.finish()]);
        Self {
            views,
            samplers: samplers.iter().map(|s| create_sampler(device, s)).collect(),
            white: white_texture(device, queue),
            default_sampler: create_sampler(device, &SamplerDesc::default()),
        }
    }

    /// The view and sampler bound for a material's texture (`None`: white
    /// with the default sampler).
    pub(crate) fn binding(
        &self,
        texture: Option<&GltfTextureRef>,
    ) -> (&wgpu::TextureView, &wgpu::Sampler) {
        match texture {
            Some(t) => (&self.views[t.texture], &self.samplers[t.sampler]),
            None => (&self.white, &self.default_sampler),
        }
    }
}

/// Creates one texture and writes its levels: block-compressed levels as
/// they are, RGBA8 level 0 with a generated chain (recorded into `encoder`).
fn upload_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mipmaps: &mut MipGenerator,
    encoder: &mut wgpu::CommandEncoder,
    t: &TextureInput<'_>,
) -> wgpu::TextureView {
    let size = wgpu::Extent3d {
        width: t.width,
        height: t.height,
        depth_or_array_layers: 1,
    };
    let compressed = t.format.is_compressed();
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("baseline texture"),
        size,
        mip_level_count: if compressed {
            t.levels.len() as u32
        } else {
            full_mip_count(t.width, t.height)
        },
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: t.format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | if compressed {
                wgpu::TextureUsages::empty()
            } else {
                wgpu::TextureUsages::RENDER_ATTACHMENT
            },
        view_formats: &[],
    });
    let bw = t.format.block_dimensions().0;
    let block_bytes = t.format.block_copy_size(None).unwrap_or(4);
    for (level, data) in t.levels.iter().enumerate() {
        let physical = size
            .mip_level_size(level as u32, wgpu::TextureDimension::D2)
            .physical_size(t.format);
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level as u32,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(physical.width / bw * block_bytes),
                rows_per_image: None,
            },
            physical,
        );
    }
    if !compressed {
        mipmaps.generate(device, encoder, &texture);
    }
    texture.create_view(&Default::default())
}

/// A 1x1 white texture.
fn white_texture(device: &wgpu::Device, queue: &wgpu::Queue) -> wgpu::TextureView {
    let white = device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some("baseline white"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &[255; 4],
    );
    white.create_view(&Default::default())
}

fn create_sampler(device: &wgpu::Device, desc: &SamplerDesc) -> wgpu::Sampler {
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("baseline sampler"),
        address_mode_u: desc.address_u,
        address_mode_v: desc.address_v,
        address_mode_w: desc.address_u,
        mag_filter: desc.mag_filter,
        min_filter: desc.min_filter,
        mipmap_filter: desc.mipmap_filter,
        ..Default::default()
    })
}
