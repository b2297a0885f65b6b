//! The baseline's textures and samplers: every texture of the scene with
//! its mip chain, one sampler per description, and the white texture and
//! default sampler bound where a material has no texture. Textures and
//! samplers are created by the library's heap functions, exactly as the
//! bindless path creates them.

use wgpu::util::DeviceExt;

use unbound::heap::{
    CompressedTextureDesc, Mips, SamplerDesc, TextureDesc, create_compressed_texture_2d,
    create_sampler, create_texture_2d,
};
use unbound::loaders::gltf::GltfTextureRef;
use unbound::mipmaps::MipGenerator;

/// A texture to upload: level 0 as RGBA8 (with `mips`), or every level of
/// a block-compressed format.
#[derive(Debug)]
pub(crate) struct TextureInput<'a> {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) format: wgpu::TextureFormat,
    pub(crate) levels: Vec<&'a [u8]>,
    /// For RGBA8: generated, or level 0 alone (the missing texture).
    pub(crate) mips: Mips,
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
    /// Uploads `textures` (each texture's mip generation submitted at once)
    /// and creates `samplers`.
    pub(crate) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        textures: &[TextureInput<'_>],
        samplers: &[SamplerDesc],
    ) -> Self {
        let mut mipmaps = MipGenerator::new(device);
        let views = textures
            .iter()
            .map(|t| upload_texture(device, queue, &mut mipmaps, t))
            .collect();
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

/// Creates one texture and writes its levels with the heap's functions:
/// block-compressed levels as they are, RGBA8 level 0 with its mips.
fn upload_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    mipmaps: &mut MipGenerator,
    t: &TextureInput<'_>,
) -> wgpu::TextureView {
    let label = Some("baseline texture");
    let texture = if t.format.is_compressed() {
        let desc = CompressedTextureDesc {
            label,
            width: t.width,
            height: t.height,
            format: t.format,
            levels: &t.levels,
        };
        create_compressed_texture_2d(device, queue, &desc)
    } else {
        let desc = TextureDesc {
            label,
            width: t.width,
            height: t.height,
            format: t.format,
            data: t.levels[0],
            mips: t.mips,
        };
        create_texture_2d(device, queue, mipmaps, &desc)
    };
    texture
        .expect("scene and glTF textures are valid (BC support is checked up front)")
        .create_view(&Default::default())
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
