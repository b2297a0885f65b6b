//! A 2D texture array of one size class and format whose layers hold one
//! heap texture each: tier C's six arrays (`texture_arrays.rs`) and tiers A
//! and B's pages (`pages.rs`) are made of these, so both resample, build
//! mips, grow and reuse layers the same way.
//!
//! - **Size classes:** a texture goes to the smallest class of
//!   `gpu_types::TEXTURE_ARRAY_SIZES` that holds its larger side (the
//!   largest class past that) and is resampled there (bilinear; nearest for
//!   sources of at most 16 texels) and stretched to a square; UVs are
//!   unchanged, so it maps the same.
//! - **Mips:** every layer has the class's full chain, generated from the
//!   resampled level 0, whatever the texture asked for (`Mips::None` too).
//! - **Formats:** sRGB and linear RGBA8 arrays are separate, so a texture
//!   decodes as it would in its own texture.
//! - **Growth:** an array starts with 4 layers and doubles (never a
//!   multiple of 6, which wgpu's GL backend would take for a cube), copying
//!   every layer and mip, up to its `max_layers`.
//! - **Locations:** the slot-to-layer map both keep names a layer as
//!   `array << TEXTURE_LOCATION_ARRAY_SHIFT | layer` (tier C's array
//!   number, or a page's), `encode_location`.
//! - **Reuse:** a freed layer is reused only once every frame recorded
//!   before the free has finished on the GPU: the array is shared by every
//!   frame, so writing a new texture into a layer an in-flight frame still
//!   samples would change that frame.

use crate::gpu_types::{
    TEXTURE_ARRAY_FORMATS, TEXTURE_ARRAY_SIZES, TEXTURE_LOCATION_ARRAY_SHIFT,
    TEXTURE_LOCATION_LAYER_MASK,
};
use crate::mipmaps::{MipGenerator, full_mip_count};

/// Layers an array starts with (it doubles when full).
const INITIAL_LAYERS: u32 = 4;

/// The size class (index into `TEXTURE_ARRAY_SIZES`) and format (index into
/// `TEXTURE_ARRAY_FORMATS`) a texture of `width` x `height` in `format`
/// goes to. `None` for a format the arrays do not hold.
pub(super) fn size_class(
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
) -> Option<(usize, usize)> {
    let largest = width.max(height);
    let class = TEXTURE_ARRAY_SIZES
        .iter()
        .position(|&size| size >= largest)
        .unwrap_or(TEXTURE_ARRAY_SIZES.len() - 1);
    let format = TEXTURE_ARRAY_FORMATS.iter().position(|&f| f == format)?;
    Some((class, format))
}

/// Where a texture lives: `array << TEXTURE_LOCATION_ARRAY_SHIFT | layer`
/// (WGSL `texture_locations`); tiers A and B's pages use the same encoding
/// with a page number in place of the array's.
pub(super) fn encode_location(array: u32, layer: u32) -> u32 {
    debug_assert!(layer <= TEXTURE_LOCATION_LAYER_MASK);
    (array << TEXTURE_LOCATION_ARRAY_SHIFT) | layer
}

/// The array (or page) and layer of an encoded location.
pub(super) fn decode_location(location: u32) -> (u32, u32) {
    (
        location >> TEXTURE_LOCATION_ARRAY_SHIFT,
        location & TEXTURE_LOCATION_LAYER_MASK,
    )
}

/// One array. See the module docs.
#[derive(Debug)]
pub(super) struct LayerArray {
    size: u32,
    format: wgpu::TextureFormat,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// Layers ever used (high-water mark).
    used: u32,
    /// The most layers it may grow to.
    max_layers: u32,
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
            | wgpu::TextureUsages::COPY_SRC
            | wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    (texture, view)
}

/// Copies every level of `layers` layers from `source` (from layer 0) to
/// `target` (from layer `target_layer`).
fn copy_layers(
    encoder: &mut wgpu::CommandEncoder,
    source: &wgpu::Texture,
    target: &wgpu::Texture,
    target_layer: u32,
    layers: u32,
) {
    for level in 0..source.mip_level_count() {
        let extent = (source.width() >> level).max(1);
        encoder.copy_texture_to_texture(
            wgpu::TexelCopyTextureInfo {
                texture: source,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyTextureInfo {
                texture: target,
                mip_level: level,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: 0,
                    z: target_layer,
                },
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::Extent3d {
                width: extent,
                height: extent,
                depth_or_array_layers: layers,
            },
        );
    }
}

impl LayerArray {
    /// An array of `size`² texels in `format`, growing to at most
    /// `max_layers` (at least 1).
    pub fn new(
        device: &wgpu::Device,
        size: u32,
        format: wgpu::TextureFormat,
        max_layers: u32,
    ) -> Self {
        let max_layers = max_layers.max(1);
        let (texture, view) = create_array(device, size, format, INITIAL_LAYERS.min(max_layers));
        Self {
            size,
            format,
            texture,
            view,
            used: 0,
            max_layers,
            free: Vec::new(),
            quarantine: Vec::new(),
        }
    }

    /// Edge length of a layer, in texels.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The texture, as the bind group binds it (whole, as a 2D array).
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Whether a layer can be had without passing `max_layers`.
    pub fn has_room(&self) -> bool {
        !self.free.is_empty() || self.used < self.max_layers
    }

    /// Layers allocated on the GPU (what the array grew to).
    pub fn layers(&self) -> u32 {
        self.texture.depth_or_array_layers()
    }

    /// A free layer, growing the array (copying every layer and mip) if
    /// full; `None` at `max_layers`.
    pub fn alloc(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Option<u32> {
        if let Some(layer) = self.free.pop() {
            return Some(layer);
        }
        let capacity = self.texture.depth_or_array_layers();
        if self.used == capacity {
            if capacity >= self.max_layers {
                return None;
            }
            let grown = (capacity * 2).min(self.max_layers);
            let (texture, view) = create_array(device, self.size, self.format, grown);
            copy_layers(encoder, &self.texture, &texture, 0, capacity);
            self.texture = texture;
            self.view = view;
        }
        self.used += 1;
        Some(self.used - 1)
    }

    /// Resamples `source` (level 0, any size) into `layer` and generates
    /// the layer's mips. `in_place` renders into the layer itself (a 2D view
    /// of one layer: Vulkan, DX12, Metal); otherwise through a plain 2D
    /// staging texture copied into the layer, as GL cannot sample one layer
    /// of an array through a 2D view.
    pub fn write(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        mipmaps: &mut MipGenerator,
        (source, layer): (&wgpu::Texture, u32),
        in_place: bool,
    ) {
        if in_place {
            mipmaps.blit(device, encoder, source, &self.texture, layer);
            mipmaps.generate_layer(device, encoder, &self.texture, layer);
            return;
        }
        let staging = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("unbound texture array staging"),
            size: wgpu::Extent3d {
                width: self.size,
                height: self.size,
                depth_or_array_layers: 1,
            },
            mip_level_count: self.texture.mip_level_count(),
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: self.format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        mipmaps.blit(device, encoder, source, &staging, 0);
        mipmaps.generate(device, encoder, &staging);
        copy_layers(encoder, &staging, &self.texture, layer, 1);
    }

    /// Writes level 0 of `layer` from tightly packed RGBA8 rows of exactly
    /// the class's size (no resampling) and generates its mips in place.
    pub fn write_exact(
        &self,
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        encoder: &mut wgpu::CommandEncoder,
        mipmaps: &mut MipGenerator,
        (data, layer): (&[u8], u32),
    ) {
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: 0,
                    z: layer,
                },
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(self.size * 4),
                rows_per_image: Some(self.size),
            },
            wgpu::Extent3d {
                width: self.size,
                height: self.size,
                depth_or_array_layers: 1,
            },
        );
        mipmaps.generate_layer(device, encoder, &self.texture, layer);
    }

    /// Frees `layer` once `frames` frames have finished.
    pub fn free_after(&mut self, layer: u32, frames: u64) {
        self.quarantine.push((layer, frames));
    }

    /// Makes layers whose frames have finished reusable.
    pub fn recycle(&mut self, frames_finished: u64) {
        let (ready, waiting): (Vec<_>, Vec<_>) = self
            .quarantine
            .iter()
            .partition(|(_, frames)| *frames <= frames_finished);
        self.free.extend(ready.into_iter().map(|(layer, _)| layer));
        self.quarantine = waiting;
    }

    /// Bytes of the array (mips included).
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.size) * u64::from(self.size) * 4 * u64::from(self.layers()) * 4 / 3
    }
}
