//! Texture creation and upload, and sampler creation: the heap's own path,
//! public so that a renderer outside the heap creates textures and samplers
//! exactly as the heap does.
//!
//! RGBA8 textures get level 0 written with `Queue::write_texture` and their
//! mip chain generated on the GPU in a command buffer submitted at once;
//! block-compressed textures get every given level written as it is.

use crate::mipmaps::{MipGenerator, full_mip_count};

use super::{CompressedTextureDesc, HeapError, Mips, SamplerDesc, TextureDesc};

/// Creates a 2D RGBA8 texture from `desc` (one of
/// [`SUPPORTED_FORMATS`](super::SUPPORTED_FORMATS)), writes level 0 and,
/// with [`Mips::Generate`], generates the full chain on the GPU (submitted
/// before this returns). The texture can be sampled, copied into and
/// rendered to.
pub fn create_texture_2d(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mipmaps: &mut MipGenerator,
    desc: &TextureDesc<'_>,
) -> Result<wgpu::Texture, HeapError> {
    desc.check(device.limits().max_texture_dimension_2d)?;
    Ok(upload_rgba8(device, queue, mipmaps, &Rgba8::from(desc)))
}

/// Creates a block-compressed 2D texture from `desc` and writes every level
/// as it is (the device needs `TEXTURE_COMPRESSION_BC`). The texture can be
/// sampled and copied into.
pub fn create_compressed_texture_2d(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    desc: &CompressedTextureDesc<'_>,
) -> Result<wgpu::Texture, HeapError> {
    desc.check_format(device.features())?;
    desc.check_shape(device.limits().max_texture_dimension_2d)?;
    Ok(upload_compressed(device, queue, desc))
}

/// Creates the sampler `desc` describes ([`SamplerDesc::to_wgpu`]).
pub fn create_sampler(device: &wgpu::Device, desc: &SamplerDesc) -> wgpu::Sampler {
    device.create_sampler(&desc.to_wgpu())
}

/// Bytes a heap texture accounts for (an estimate for RGBA8 chains: level 0
/// plus a third; exact for compressed levels).
pub(super) fn texture_bytes(texture: &wgpu::Texture) -> u64 {
    let format = texture.format();
    let levels = texture.mip_level_count();
    if format.is_compressed() {
        return (0..levels)
            .map(|level| {
                super::compressed_level_bytes(format, texture.width(), texture.height(), level)
            })
            .sum();
    }
    let level0 = u64::from(texture.width())
        * u64::from(texture.height())
        * 4
        * u64::from(texture.depth_or_array_layers());
    if levels > 1 { level0 * 4 / 3 } else { level0 }
}

/// An RGBA8 upload, already checked: 2D (one layer) or cube (six).
pub(super) struct Rgba8<'a> {
    pub label: Option<&'a str>,
    pub size: wgpu::Extent3d,
    pub format: wgpu::TextureFormat,
    pub data: &'a [u8],
    pub mips: Mips,
}

impl<'a> From<&TextureDesc<'a>> for Rgba8<'a> {
    fn from(desc: &TextureDesc<'a>) -> Self {
        Self {
            label: desc.label,
            size: wgpu::Extent3d {
                width: desc.width,
                height: desc.height,
                depth_or_array_layers: 1,
            },
            format: desc.format,
            data: desc.data,
            mips: desc.mips,
        }
    }
}

/// Creates the texture, writes level 0 of every layer and generates the
/// chain if asked.
pub(super) fn upload_rgba8(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mipmaps: &mut MipGenerator,
    upload: &Rgba8<'_>,
) -> wgpu::Texture {
    let size = upload.size;
    let mip_level_count = match upload.mips {
        Mips::Generate => full_mip_count(size.width, size.height),
        Mips::None => 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: upload.label,
        size,
        mip_level_count,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: upload.format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    queue.write_texture(
        texture.as_image_copy(),
        upload.data,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(size.width * 4),
            rows_per_image: Some(size.height),
        },
        size,
    );
    if mip_level_count > 1 {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("unbound mipmaps"),
        });
        mipmaps.generate(device, &mut encoder, &texture);
        queue.submit([encoder.finish()]);
    }
    texture
}

/// Creates the texture and writes every level, already checked.
pub(super) fn upload_compressed(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    desc: &CompressedTextureDesc<'_>,
) -> wgpu::Texture {
    let format = desc.format;
    let size = wgpu::Extent3d {
        width: desc.width,
        height: desc.height,
        depth_or_array_layers: 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: desc.label,
        size,
        mip_level_count: desc.levels.len() as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let (bw, bh) = format.block_dimensions();
    let block_bytes = format.block_copy_size(None).unwrap_or(0);
    for (level, data) in desc.levels.iter().enumerate() {
        let level_size = size.mip_level_size(level as u32, wgpu::TextureDimension::D2);
        let physical = level_size.physical_size(format);
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
                rows_per_image: Some(physical.height / bh),
            },
            physical,
        );
    }
    texture
}

/// What the heap's uploads need: the device, its queue and the mip
/// generator.
#[derive(Debug)]
pub(super) struct Uploader {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub mipmaps: MipGenerator,
}

impl Uploader {
    pub fn rgba8(&mut self, upload: &Rgba8<'_>) -> wgpu::Texture {
        upload_rgba8(&self.device, &self.queue, &mut self.mipmaps, upload)
    }

    pub fn compressed(&self, desc: &CompressedTextureDesc<'_>) -> wgpu::Texture {
        upload_compressed(&self.device, &self.queue, desc)
    }
}
