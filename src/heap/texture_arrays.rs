//! Tier C's texture storage: without binding arrays, every 2D texture is a
//! layer of one of six 2D texture arrays, one per size class (64, 256, 1024
//! texels square) and format (sRGB, linear), all bound once per frame with
//! two fixed samplers (repeat, clamp-to-edge; both trilinear). A storage
//! buffer maps each heap slot to (array, layer), so materials, handles and
//! the material table are the same as in tiers A and B.
//!
//! Quality cost: a texture is resampled (bilinear; nearest for tiny ones) to
//! the smallest class that holds its larger side (capped at 1024) and
//! stretched to a square; UVs are unchanged, so it maps the same, but
//! textures between classes lose or gain texels, non-square ones are
//! resampled anisotropically, and every sampler becomes trilinear repeat or
//! clamp. GL pairs each texture binding with exactly one sampler, so each
//! array is bound twice (repeat, clamp): 12 texture units of the 16 a stage
//! has.
//!
//! Arrays start with 4 layers and double (never a multiple of 6, which
//! wgpu's GL backend would take for a cube) up to the device's
//! `max_texture_array_layers` (unbound requests the adapter's maximum in
//! tier C; 2048 on Mesa's GL): past that, adding a texture of that size class
//! and format is a typed capacity error. Layers are reused only once every frame recorded before the free has
//! finished on the GPU: unlike a binding array, the array itself is shared
//! by every frame, so writing a new texture into a layer an in-flight frame
//! still samples would change that frame.

use crate::mipmaps::{MipGenerator, full_mip_count};

/// Edge lengths of the size classes.
pub const SIZE_CLASSES: [u32; 3] = [64, 256, 1024];
/// Formats, in array order within a class.
pub const FORMATS: [wgpu::TextureFormat; 2] = [
    wgpu::TextureFormat::Rgba8UnormSrgb,
    wgpu::TextureFormat::Rgba8Unorm,
];
/// Layers an array starts with (it doubles when full).
const INITIAL_LAYERS: u32 = 4;

/// Where a texture lives: `array << 24 | layer` (WGSL `texture_locations`).
pub(crate) fn encode_location(array: u32, layer: u32) -> u32 {
    (array << 24) | layer
}

#[derive(Debug)]
struct LayerArray {
    size: u32,
    format: wgpu::TextureFormat,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// Layers ever used (high-water mark).
    used: u32,
    free: Vec<u32>,
    /// Freed layers and the number of frames that must have finished first.
    quarantine: Vec<(u32, u64)>,
}

fn create_array(
    device: &wgpu::Device,
    size: u32,
    format: wgpu::TextureFormat,
    layers: u32,
) -> (wgpu::Texture, wgpu::TextureView) {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("unbound texture array"),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: layers,
        },
        mip_level_count: full_mip_count(size, size),
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    (texture, view)
}

impl LayerArray {
    fn new(device: &wgpu::Device, size: u32, format: wgpu::TextureFormat) -> Self {
        let (texture, view) = create_array(device, size, format, INITIAL_LAYERS);
        Self {
            size,
            format,
            texture,
            view,
            used: 0,
            free: Vec::new(),
            quarantine: Vec::new(),
        }
    }

    /// A free layer, growing the array (copying every layer and mip) if
    /// full; `None` when the array already has the device's maximum layers.
    fn alloc(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder) -> Option<u32> {
        if let Some(layer) = self.free.pop() {
            return Some(layer);
        }
        let capacity = self.texture.depth_or_array_layers();
        if self.used == capacity {
            let max = device.limits().max_texture_array_layers;
            if capacity >= max {
                return None;
            }
            let (texture, view) =
                create_array(device, self.size, self.format, (capacity * 2).min(max));
            for level in 0..self.texture.mip_level_count() {
                let extent = (self.size >> level).max(1);
                encoder.copy_texture_to_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &self.texture,
                        mip_level: level,
                        origin: wgpu::Origin3d::ZERO,
                        aspect: wgpu::TextureAspect::All,
                    },
                    wgpu::TexelCopyTextureInfo {
                        texture: &texture,
                        mip_level: level,
                        origin: wgpu::Origin3d::ZERO,
                        aspect: wgpu::TextureAspect::All,
                    },
                    wgpu::Extent3d {
                        width: extent,
                        height: extent,
                        depth_or_array_layers: capacity,
                    },
                );
            }
            self.texture = texture;
            self.view = view;
        }
        self.used += 1;
        Some(self.used - 1)
    }
}

/// The six arrays, the samplers and the slot-to-layer map. See the module docs.
#[derive(Debug)]
pub(crate) struct TextureArrays {
    arrays: Vec<LayerArray>,
    pub repeat: wgpu::Sampler,
    pub clamp: wgpu::Sampler,
    /// Bumped whenever an array is replaced (the bind group must follow).
    pub version: u64,
}

impl TextureArrays {
    pub fn new(device: &wgpu::Device) -> Self {
        let sampler = |address| {
            device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("unbound tier C sampler"),
                address_mode_u: address,
                address_mode_v: address,
                address_mode_w: address,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                mipmap_filter: wgpu::MipmapFilterMode::Linear,
                ..Default::default()
            })
        };
        Self {
            arrays: SIZE_CLASSES
                .iter()
                .flat_map(|&size| FORMATS.iter().map(move |&format| (size, format)))
                .map(|(size, format)| LayerArray::new(device, size, format))
                .collect(),
            repeat: sampler(wgpu::AddressMode::Repeat),
            clamp: sampler(wgpu::AddressMode::ClampToEdge),
            version: 0,
        }
    }

    /// The array views, in binding order.
    pub fn views(&self) -> Vec<&wgpu::TextureView> {
        self.arrays.iter().map(|a| &a.view).collect()
    }

    /// Resamples `source` (level 0, any size) into a free layer of the
    /// fitting array and generates its mips; returns the encoded location,
    /// or `None` if that array is at the device's layer limit.
    pub fn insert(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        mipmaps: &mut MipGenerator,
        source: &wgpu::Texture,
    ) -> Option<u32> {
        let largest = source.width().max(source.height());
        let class = SIZE_CLASSES
            .iter()
            .position(|&size| size >= largest)
            .unwrap_or(SIZE_CLASSES.len() - 1);
        let format = FORMATS
            .iter()
            .position(|&f| f == source.format())
            .expect("the heap accepts only these formats");
        let index = class * FORMATS.len() + format;
        let array = &mut self.arrays[index];
        let before = array.texture.depth_or_array_layers();
        let layer = array.alloc(device, encoder)?;
        if array.texture.depth_or_array_layers() != before {
            self.version += 1;
        }
        // Resample and build the mip chain in a plain 2D texture, then copy
        // every level into the layer: GL cannot sample one layer of an
        // array through a 2D view, which generating in place would need.
        let array = &self.arrays[index];
        let staging = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("unbound texture array staging"),
            size: wgpu::Extent3d {
                width: array.size,
                height: array.size,
                depth_or_array_layers: 1,
            },
            mip_level_count: array.texture.mip_level_count(),
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: array.format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        mipmaps.blit(device, encoder, source, &staging, 0);
        mipmaps.generate(device, encoder, &staging);
        for level in 0..staging.mip_level_count() {
            let extent = (array.size >> level).max(1);
            encoder.copy_texture_to_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &staging,
                    mip_level: level,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::TexelCopyTextureInfo {
                    texture: &array.texture,
                    mip_level: level,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: 0,
                        z: layer,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::Extent3d {
                    width: extent,
                    height: extent,
                    depth_or_array_layers: 1,
                },
            );
        }
        Some(encode_location(index as u32, layer))
    }

    /// Frees a layer once `frames` frames have finished.
    pub fn remove(&mut self, location: u32, frames: u64) {
        let array = &mut self.arrays[(location >> 24) as usize];
        array.quarantine.push((location & 0x00ff_ffff, frames));
    }

    /// Makes layers whose frames have finished reusable.
    pub fn recycle(&mut self, frames_finished: u64) {
        for array in &mut self.arrays {
            let (ready, waiting): (Vec<_>, Vec<_>) = array
                .quarantine
                .iter()
                .partition(|(_, frames)| *frames <= frames_finished);
            array.free.extend(ready.into_iter().map(|(layer, _)| layer));
            array.quarantine = waiting;
        }
    }

    /// Bytes of the arrays (mips included).
    pub fn size_bytes(&self) -> u64 {
        self.arrays
            .iter()
            .map(|a| {
                u64::from(a.size)
                    * u64::from(a.size)
                    * 4
                    * u64::from(a.texture.depth_or_array_layers())
                    * 4
                    / 3
            })
            .sum()
    }
}
