//! The resource heap: every texture and sampler in global binding arrays,
//! bound once per frame (bind group 0 of the draw pass).
//!
//! Three arrays: 2D float textures, cube textures, samplers. Each slot is
//! named by a typed handle (slot + generation). Slot 0 of each array holds a
//! visible fallback ("missing": a magenta/black checker); slot 1 of the 2D
//! array is plain white, used for "no texture" in materials. Every free slot
//! below the highest live one is bound to the fallback, and nothing past the
//! highest live slot is bound (partially bound arrays), so shaders check
//! every index against the live count first.
//!
//! wgpu bind groups are immutable and keep their views alive, so the group is
//! rebuilt (at most once per frame, only when something changed) and a frame
//! already recorded keeps sampling what it was recorded with, even if a slot
//! it used is freed and reused afterwards.

use crate::gpu_table::GpuTable;
use crate::handles::{
    CapacityError, CubeTextureHandle, HandleError, SamplerHandle, SamplerSlot, SlotAllocator,
    Texture2dSlot, TextureCubeSlot, TextureHandle, new_owner_id,
};
use crate::mipmaps::{MipGenerator, full_mip_count};
mod texture_arrays;

use crate::upload::UploadBatch;
use texture_arrays::TextureArrays;

/// Reserved 2D slot: the visible "missing" texture.
pub const TEXTURE_MISSING: u32 = 0;
/// Reserved 2D slot: opaque white, for "no texture".
pub const TEXTURE_WHITE: u32 = 1;
/// Reserved sampler slot: linear filtering, repeat addressing.
pub const SAMPLER_DEFAULT: u32 = 0;

/// The colour of the "missing" texture's light squares (sRGB bytes).
pub const MISSING_COLOR: [u8; 4] = [255, 0, 255, 255];

/// Formats the heap accepts for sampled textures.
pub const SUPPORTED_FORMATS: &[wgpu::TextureFormat] = &[
    wgpu::TextureFormat::Rgba8UnormSrgb,
    wgpu::TextureFormat::Rgba8Unorm,
];

/// Mip levels of an uploaded texture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mips {
    /// Generate the full chain on the GPU.
    #[default]
    Generate,
    /// Level 0 only.
    None,
}

/// A 2D texture to upload: tightly packed RGBA8 rows of level 0.
#[derive(Clone, Copy, Debug)]
pub struct TextureDesc<'a> {
    /// Debug label.
    pub label: Option<&'a str>,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// One of [`SUPPORTED_FORMATS`].
    pub format: wgpu::TextureFormat,
    /// `width * height * 4` bytes.
    pub data: &'a [u8],
    /// Mip levels.
    pub mips: Mips,
}

/// A block-compressed (BC1-BC7) 2D texture uploaded as it is: every mip
/// level given (none are generated), each as rows of 4x4 blocks.
#[derive(Clone, Copy, Debug)]
pub struct CompressedTextureDesc<'a> {
    /// Debug label.
    pub label: Option<&'a str>,
    /// Width in texels (a multiple of 4).
    pub width: u32,
    /// Height in texels (a multiple of 4).
    pub height: u32,
    /// A BC format (needs `TEXTURE_COMPRESSION_BC`).
    pub format: wgpu::TextureFormat,
    /// Level 0 first; at most the full chain.
    pub levels: &'a [&'a [u8]],
}

/// Bytes of mip level `level` of a block-compressed texture.
pub fn compressed_level_bytes(
    format: wgpu::TextureFormat,
    width: u32,
    height: u32,
    level: u32,
) -> u64 {
    let (bw, bh) = format.block_dimensions();
    let w = (width >> level).max(1);
    let h = (height >> level).max(1);
    let block_bytes = format.block_copy_size(None).unwrap_or(0);
    u64::from(w.div_ceil(bw)) * u64::from(h.div_ceil(bh)) * u64::from(block_bytes)
}

/// A cube texture to upload: six square faces (+X, -X, +Y, -Y, +Z, -Z) of
/// tightly packed RGBA8, one after another.
#[derive(Clone, Copy, Debug)]
pub struct CubeTextureDesc<'a> {
    /// Debug label.
    pub label: Option<&'a str>,
    /// Edge length of each face in texels.
    pub size: u32,
    /// One of [`SUPPORTED_FORMATS`].
    pub format: wgpu::TextureFormat,
    /// `6 * size * size * 4` bytes.
    pub data: &'a [u8],
    /// Mip levels.
    pub mips: Mips,
}

/// Addressing and filtering of a sampler in the heap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    /// Addressing in u.
    pub address_u: wgpu::AddressMode,
    /// Addressing in v.
    pub address_v: wgpu::AddressMode,
    /// Magnification filter.
    pub mag_filter: wgpu::FilterMode,
    /// Minification filter.
    pub min_filter: wgpu::FilterMode,
    /// Filter between mip levels.
    pub mipmap_filter: wgpu::MipmapFilterMode,
}

impl Default for SamplerDesc {
    fn default() -> Self {
        Self {
            address_u: wgpu::AddressMode::Repeat,
            address_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
        }
    }
}

/// Why a heap operation failed. The heap is unchanged after any error.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HeapError {
    /// Stale, foreign or reserved handle.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// The array is full.
    #[error(transparent)]
    Capacity(#[from] CapacityError),
    /// The format is not one of [`SUPPORTED_FORMATS`].
    #[error("unsupported texture format {format:?}; supported: {SUPPORTED_FORMATS:?}")]
    UnsupportedFormat {
        /// The rejected format.
        format: wgpu::TextureFormat,
    },
    /// The format needs a device feature the device was created without.
    #[error("texture format {format:?} needs {feature:?}, which the device does not have")]
    MissingFeature {
        /// The format.
        format: wgpu::TextureFormat,
        /// The feature it needs.
        feature: wgpu::Features,
    },
    /// A compressed texture's size is not a whole number of blocks, or its
    /// level count is outside 1..=the full chain.
    #[error("compressed texture {width}x{height} with {levels} level(s): {problem}")]
    CompressedShape {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Levels given.
        levels: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// Zero or too large.
    #[error("texture size {width}x{height} outside 1..={max}")]
    InvalidSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The device's `max_texture_dimension_2d`.
        max: u32,
    },
    /// The data does not hold exactly one level 0.
    #[error("texture data is {actual} bytes, expected {expected}")]
    DataLength {
        /// Bytes needed.
        expected: u64,
        /// Bytes given.
        actual: u64,
    },
    /// Materials still reference the texture or sampler: remove or update
    /// them first (nothing is freed while something live points at it).
    #[error("{kind} slot {slot} is still referenced {references} time(s) by live materials")]
    InUse {
        /// "2D texture" or "sampler".
        kind: &'static str,
        /// The slot.
        slot: u32,
        /// References from live materials (one material may count several times).
        references: u32,
    },
}

/// One binding array: slot bookkeeping, the bound objects and how many
/// materials reference each slot.
#[derive(Debug)]
struct SlotArray<K, T> {
    slots: SlotAllocator<K>,
    /// Slots below this hold built-in fallbacks and are never freed.
    reserved: u32,
    items: Vec<Option<T>>,
    references: Vec<u32>,
    bytes: Vec<u64>,
}

impl<K: crate::handles::SlotKind, T> SlotArray<K, T> {
    fn new(owner: u32, capacity: u32) -> Self {
        Self {
            slots: SlotAllocator::new(owner, capacity, 0),
            reserved: 0,
            items: Vec::new(),
            references: Vec::new(),
            bytes: Vec::new(),
        }
    }

    fn insert(&mut self, item: T, bytes: u64) -> Result<crate::handles::Handle<K>, CapacityError> {
        let handle = self.slots.alloc()?;
        let slot = handle.slot() as usize;
        if slot >= self.items.len() {
            self.items.resize_with(slot + 1, || None);
            self.references.resize(slot + 1, 0);
            self.bytes.resize(slot + 1, 0);
        }
        self.items[slot] = Some(item);
        self.bytes[slot] = bytes;
        Ok(handle)
    }

    fn remove(&mut self, handle: crate::handles::Handle<K>) -> Result<(), HeapError> {
        let slot = self.slots.resolve(handle)?;
        if slot < self.reserved {
            return Err(HandleError::Reserved {
                kind: K::NAME,
                slot,
            }
            .into());
        }
        let references = self.references[slot as usize];
        if references > 0 {
            return Err(HeapError::InUse {
                kind: K::NAME,
                slot,
                references,
            });
        }
        self.slots.free(handle)?;
        self.items[slot as usize] = None;
        self.bytes[slot as usize] = 0;
        Ok(())
    }

    fn bound_len(&self) -> u32 {
        self.slots.live_end().max(1)
    }
}

/// What a 2D slot holds: a view bound in the binding array (tiers A, B) or
/// a layer of a texture array (tier C, `array << 24 | layer`).
#[derive(Debug)]
enum HeapTexture {
    View(wgpu::TextureView),
    Layer(u32),
}

/// Tier C's storage: texture arrays plus the slot-to-layer and
/// sampler-slot-to-address-mode maps the shader reads.
#[derive(Debug)]
struct Layered {
    arrays: TextureArrays,
    locations: GpuTable<u32>,
    sampler_modes: GpuTable<u32>,
    /// Frames recorded so far, for the layers' reuse rule.
    frames_recorded: u64,
    built: [u64; 3],
}

impl Layered {
    fn versions(&self) -> [u64; 3] {
        [
            self.arrays.version,
            self.locations.version(),
            self.sampler_modes.version(),
        ]
    }
}

/// Live sizes of the heap's arrays, as shaders check indices against them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapCounts {
    /// 2D texture slots bound.
    pub textures_2d: u32,
    /// Cube texture slots bound.
    pub textures_cube: u32,
    /// Sampler slots bound.
    pub samplers: u32,
}

/// Every texture and sampler, in global binding arrays. See the module docs.
#[derive(Debug)]
pub struct ResourceHeap {
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout: wgpu::BindGroupLayout,
    textures_2d: SlotArray<Texture2dSlot, HeapTexture>,
    textures_cube: SlotArray<TextureCubeSlot, wgpu::TextureView>,
    samplers: SlotArray<SamplerSlot, wgpu::Sampler>,
    sampler_descs: Vec<Option<SamplerDesc>>,
    bind_group: Option<wgpu::BindGroup>,
    rebuilds: u64,
    mipmaps: MipGenerator,
    max_dimension_2d: u32,
    max_dimension_cube: u32,
    layered: Option<Layered>,
}

fn check_format(format: wgpu::TextureFormat) -> Result<(), HeapError> {
    if SUPPORTED_FORMATS.contains(&format) {
        Ok(())
    } else {
        Err(HeapError::UnsupportedFormat { format })
    }
}

fn check_size(width: u32, height: u32, max: u32) -> Result<(), HeapError> {
    if width == 0 || height == 0 || width > max || height > max {
        return Err(HeapError::InvalidSize { width, height, max });
    }
    Ok(())
}

fn check_length(expected: u64, data: &[u8]) -> Result<(), HeapError> {
    if data.len() as u64 != expected {
        return Err(HeapError::DataLength {
            expected,
            actual: data.len() as u64,
        });
    }
    Ok(())
}

impl ResourceHeap {
    /// A heap with room for the given number of slots per array (each at
    /// least 2), with its reserved slots filled. `texture_arrays` selects
    /// tier C's storage (texture arrays instead of binding arrays).
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        textures_2d: u32,
        textures_cube: u32,
        samplers: u32,
        texture_arrays: bool,
    ) -> Self {
        let textures_2d = textures_2d.max(2);
        let textures_cube = textures_cube.max(1);
        let samplers = samplers.max(1);
        let array = |binding, ty, count: u32| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty,
            count: std::num::NonZeroU32::new(count),
        };
        let float = wgpu::TextureSampleType::Float { filterable: true };
        let layout = if texture_arrays {
            layered_layout(device)
        } else {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("unbound resource heap"),
                entries: &[
                    array(
                        0,
                        wgpu::BindingType::Texture {
                            sample_type: float,
                            view_dimension: wgpu::TextureViewDimension::D2,
                            multisampled: false,
                        },
                        textures_2d,
                    ),
                    array(
                        1,
                        wgpu::BindingType::Texture {
                            sample_type: float,
                            view_dimension: wgpu::TextureViewDimension::Cube,
                            multisampled: false,
                        },
                        textures_cube,
                    ),
                    array(
                        2,
                        wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                        samplers,
                    ),
                ],
            })
        };
        let owner = new_owner_id();
        let limits = device.limits();
        let mut heap = Self {
            device: device.clone(),
            queue: queue.clone(),
            layout,
            textures_2d: SlotArray::new(owner, textures_2d),
            textures_cube: SlotArray::new(owner, textures_cube),
            samplers: SlotArray::new(owner, samplers),
            sampler_descs: Vec::new(),
            bind_group: None,
            rebuilds: 0,
            mipmaps: MipGenerator::new(device),
            max_dimension_2d: limits.max_texture_dimension_2d,
            max_dimension_cube: limits.max_texture_dimension_2d,
            layered: texture_arrays.then(|| Layered {
                arrays: TextureArrays::new(device),
                locations: GpuTable::new(
                    device,
                    "unbound texture locations",
                    wgpu::BufferUsages::STORAGE,
                    textures_2d,
                ),
                sampler_modes: GpuTable::new(
                    device,
                    "unbound sampler modes",
                    wgpu::BufferUsages::STORAGE,
                    samplers,
                ),
                frames_recorded: 0,
                built: [u64::MAX; 3],
            }),
        };
        heap.fill_reserved_slots();
        heap
    }

    fn fill_reserved_slots(&mut self) {
        let (dark, light) = ([0, 0, 0, 255], MISSING_COLOR);
        let checker: Vec<u8> = (0..64)
            .flat_map(|i| {
                if (i % 8 + i / 8) % 2 == 0 {
                    light
                } else {
                    dark
                }
            })
            .collect();
        let missing = self
            .add_texture_2d(&TextureDesc {
                label: Some("unbound missing"),
                width: 8,
                height: 8,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                data: &checker,
                mips: Mips::None,
            })
            .expect("reserved slot");
        let white = self
            .add_texture_2d(&TextureDesc {
                label: Some("unbound white"),
                width: 1,
                height: 1,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                data: &[255; 4],
                mips: Mips::None,
            })
            .expect("reserved slot");
        debug_assert_eq!(
            (missing.slot(), white.slot()),
            (TEXTURE_MISSING, TEXTURE_WHITE)
        );
        let cube: Vec<u8> = std::iter::repeat_n(MISSING_COLOR, 6).flatten().collect();
        self.add_texture_cube(&CubeTextureDesc {
            label: Some("unbound missing cube"),
            size: 1,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            data: &cube,
            mips: Mips::None,
        })
        .expect("reserved slot");
        self.add_sampler(&SamplerDesc::default())
            .expect("reserved slot");
        self.textures_2d.reserved = 2;
        self.textures_cube.reserved = 1;
        self.samplers.reserved = 1;
    }

    fn upload(
        &mut self,
        label: Option<&str>,
        size: wgpu::Extent3d,
        format: wgpu::TextureFormat,
        data: &[u8],
        mips: Mips,
    ) -> (wgpu::Texture, u64) {
        let mip_level_count = match mips {
            Mips::Generate => full_mip_count(size.width, size.height),
            Mips::None => 1,
        };
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label,
            size,
            mip_level_count,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        self.queue.write_texture(
            texture.as_image_copy(),
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(size.width * 4),
                rows_per_image: Some(size.height),
            },
            size,
        );
        if mip_level_count > 1 {
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("unbound mipmaps"),
                });
            self.mipmaps.generate(&self.device, &mut encoder, &texture);
            self.queue.submit([encoder.finish()]);
        }
        // Level 0 plus a third for the chain.
        let level0 = u64::from(size.width)
            * u64::from(size.height)
            * 4
            * u64::from(size.depth_or_array_layers);
        let bytes = if mip_level_count > 1 {
            level0 * 4 / 3
        } else {
            level0
        };
        (texture, bytes)
    }

    /// Fails before any upload when every 2D slot is taken.
    fn check_room_2d(&self) -> Result<(), HeapError> {
        if self.textures_2d.slots.live_count() >= self.textures_2d.slots.capacity() {
            return Err(CapacityError {
                kind: "2D texture",
                capacity: self.textures_2d.slots.capacity(),
            }
            .into());
        }
        Ok(())
    }

    /// Puts an uploaded 2D texture into the lowest free slot (the bind group
    /// is rebuilt with the next frame).
    fn insert_2d(
        &mut self,
        texture: &wgpu::Texture,
        bytes: u64,
    ) -> Result<TextureHandle, HeapError> {
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let handle = self.textures_2d.insert(HeapTexture::View(view), bytes)?;
        self.bind_group = None;
        Ok(handle)
    }

    /// Uploads a 2D texture (mips generated on the GPU) into the lowest free slot.
    pub fn add_texture_2d(&mut self, desc: &TextureDesc<'_>) -> Result<TextureHandle, HeapError> {
        check_format(desc.format)?;
        check_size(desc.width, desc.height, self.max_dimension_2d)?;
        check_length(
            u64::from(desc.width) * u64::from(desc.height) * 4,
            desc.data,
        )?;
        self.check_room_2d()?;
        let size = wgpu::Extent3d {
            width: desc.width,
            height: desc.height,
            depth_or_array_layers: 1,
        };
        if self.layered.is_some() {
            return self.add_layer(desc, size);
        }
        let (texture, bytes) = self.upload(desc.label, size, desc.format, desc.data, desc.mips);
        self.insert_2d(&texture, bytes)
    }

    /// Uploads a block-compressed texture as it is into the lowest free slot.
    /// Needs `TEXTURE_COMPRESSION_BC` on the device and binding arrays (tier
    /// C's texture arrays hold RGBA8 only).
    pub fn add_compressed_texture_2d(
        &mut self,
        desc: &CompressedTextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        let format = desc.format;
        let feature = format.required_features();
        if !format.is_compressed() || feature != wgpu::Features::TEXTURE_COMPRESSION_BC {
            return Err(HeapError::UnsupportedFormat { format });
        }
        if !self.device.features().contains(feature) {
            return Err(HeapError::MissingFeature { format, feature });
        }
        if self.layered.is_some() {
            return Err(HeapError::UnsupportedFormat { format });
        }
        check_size(desc.width, desc.height, self.max_dimension_2d)?;
        let shape = |problem| HeapError::CompressedShape {
            width: desc.width,
            height: desc.height,
            levels: desc.levels.len(),
            problem,
        };
        let (bw, bh) = format.block_dimensions();
        if !desc.width.is_multiple_of(bw) || !desc.height.is_multiple_of(bh) {
            return Err(shape("the size is not a whole number of blocks"));
        }
        let level_count = desc.levels.len() as u32;
        if level_count == 0 || level_count > full_mip_count(desc.width, desc.height) {
            return Err(shape("level count outside 1..=the full chain"));
        }
        for (level, data) in desc.levels.iter().enumerate() {
            check_length(
                compressed_level_bytes(format, desc.width, desc.height, level as u32),
                data,
            )?;
        }
        self.check_room_2d()?;
        let size = wgpu::Extent3d {
            width: desc.width,
            height: desc.height,
            depth_or_array_layers: 1,
        };
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: desc.label,
            size,
            mip_level_count: level_count,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let block_bytes = format.block_copy_size(None).unwrap_or(0);
        for (level, data) in desc.levels.iter().enumerate() {
            let level_size = size.mip_level_size(level as u32, wgpu::TextureDimension::D2);
            let physical = level_size.physical_size(format);
            self.queue.write_texture(
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
        let bytes = desc.levels.iter().map(|l| l.len() as u64).sum();
        self.insert_2d(&texture, bytes)
    }

    /// Tier C: resamples level 0 into a layer of the fitting texture array.
    fn add_layer(
        &mut self,
        desc: &TextureDesc<'_>,
        size: wgpu::Extent3d,
    ) -> Result<TextureHandle, HeapError> {
        let (source, _) = self.upload(desc.label, size, desc.format, desc.data, Mips::None);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("unbound texture array upload"),
            });
        let layered = self.layered.as_mut().expect("tier C");
        let inserted =
            layered
                .arrays
                .insert(&self.device, &mut encoder, &mut self.mipmaps, &source);
        let Some(location) = inserted else {
            return Err(CapacityError {
                kind: "texture array layer",
                capacity: self.device.limits().max_texture_array_layers,
            }
            .into());
        };
        self.queue.submit([encoder.finish()]);
        let handle = self.textures_2d.insert(HeapTexture::Layer(location), 0)?;
        layered.locations.set(handle.slot(), location);
        self.bind_group = None;
        Ok(handle)
    }

    /// Uploads a cube texture into the lowest free slot.
    pub fn add_texture_cube(
        &mut self,
        desc: &CubeTextureDesc<'_>,
    ) -> Result<CubeTextureHandle, HeapError> {
        check_format(desc.format)?;
        check_size(desc.size, desc.size, self.max_dimension_cube)?;
        check_length(
            6 * u64::from(desc.size) * u64::from(desc.size) * 4,
            desc.data,
        )?;
        if self.textures_cube.slots.live_count() >= self.textures_cube.slots.capacity() {
            return Err(CapacityError {
                kind: "cube texture",
                capacity: self.textures_cube.slots.capacity(),
            }
            .into());
        }
        let size = wgpu::Extent3d {
            width: desc.size,
            height: desc.size,
            depth_or_array_layers: 6,
        };
        let (texture, bytes) = self.upload(desc.label, size, desc.format, desc.data, desc.mips);
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::Cube),
            ..Default::default()
        });
        let handle = self.textures_cube.insert(view, bytes)?;
        self.bind_group = None;
        Ok(handle)
    }

    /// Adds a sampler; an identical live sampler is shared (same handle).
    pub fn add_sampler(&mut self, desc: &SamplerDesc) -> Result<SamplerHandle, HeapError> {
        let existing = self
            .sampler_descs
            .iter()
            .position(|d| d.as_ref() == Some(desc));
        if let Some(slot) = existing {
            return Ok(self.samplers.slots.handle_of(slot as u32));
        }
        let sampler = self.device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("unbound sampler"),
            address_mode_u: desc.address_u,
            address_mode_v: desc.address_v,
            address_mode_w: desc.address_u,
            mag_filter: desc.mag_filter,
            min_filter: desc.min_filter,
            mipmap_filter: desc.mipmap_filter,
            ..Default::default()
        });
        let handle = self.samplers.insert(sampler, 0)?;
        if let Some(layered) = self.layered.as_mut() {
            let clamp = !matches!(
                desc.address_u,
                wgpu::AddressMode::Repeat | wgpu::AddressMode::MirrorRepeat
            );
            layered.sampler_modes.set(handle.slot(), u32::from(clamp));
        }
        let slot = handle.slot() as usize;
        if slot >= self.sampler_descs.len() {
            self.sampler_descs.resize(slot + 1, None);
        }
        self.sampler_descs[slot] = Some(*desc);
        self.bind_group = None;
        Ok(handle)
    }

    /// Frees a 2D texture's slot. Refused while a live material uses it.
    pub fn remove_texture_2d(&mut self, handle: TextureHandle) -> Result<(), HeapError> {
        let slot = self.textures_2d.slots.resolve(handle)?;
        let layer = match self.textures_2d.items.get(slot as usize) {
            Some(Some(HeapTexture::Layer(location))) => Some(*location),
            _ => None,
        };
        self.textures_2d.remove(handle)?;
        if let (Some(layered), Some(location)) = (self.layered.as_mut(), layer) {
            // Reused once every frame recorded so far has finished.
            layered.arrays.remove(location, layered.frames_recorded);
            let missing = *layered
                .locations
                .get(TEXTURE_MISSING)
                .expect("reserved slot");
            layered.locations.set(slot, missing);
        }
        self.bind_group = None;
        Ok(())
    }

    /// Frees a cube texture's slot.
    pub fn remove_texture_cube(&mut self, handle: CubeTextureHandle) -> Result<(), HeapError> {
        self.textures_cube.remove(handle)?;
        self.bind_group = None;
        Ok(())
    }

    /// Frees a sampler's slot. Refused while a live material uses it.
    pub fn remove_sampler(&mut self, handle: SamplerHandle) -> Result<(), HeapError> {
        self.samplers.remove(handle)?;
        self.sampler_descs[handle.slot() as usize] = None;
        self.bind_group = None;
        Ok(())
    }

    /// The slot of a live 2D texture.
    pub fn texture_2d_slot(&self, handle: TextureHandle) -> Result<u32, HandleError> {
        self.textures_2d.slots.resolve(handle)
    }

    /// The slot of a live cube texture.
    pub fn texture_cube_slot(&self, handle: CubeTextureHandle) -> Result<u32, HandleError> {
        self.textures_cube.slots.resolve(handle)
    }

    /// The slot of a live sampler.
    pub fn sampler_slot(&self, handle: SamplerHandle) -> Result<u32, HandleError> {
        self.samplers.slots.resolve(handle)
    }

    /// Handle of the reserved white texture (slot [`TEXTURE_WHITE`]).
    pub fn white_texture(&self) -> TextureHandle {
        self.textures_2d.slots.handle_of(TEXTURE_WHITE)
    }

    /// Handle of the reserved "missing" texture (slot [`TEXTURE_MISSING`]).
    pub fn missing_texture(&self) -> TextureHandle {
        self.textures_2d.slots.handle_of(TEXTURE_MISSING)
    }

    /// Handle of the default sampler (slot [`SAMPLER_DEFAULT`]).
    pub fn default_sampler(&self) -> SamplerHandle {
        self.samplers.slots.handle_of(SAMPLER_DEFAULT)
    }

    pub(crate) fn retain(&mut self, texture_slot: u32, sampler_slot: u32) {
        self.textures_2d.references[texture_slot as usize] += 1;
        self.samplers.references[sampler_slot as usize] += 1;
    }

    pub(crate) fn release(&mut self, texture_slot: u32, sampler_slot: u32) {
        self.textures_2d.references[texture_slot as usize] -= 1;
        self.samplers.references[sampler_slot as usize] -= 1;
    }

    /// The bind group layout (group 0 of the draw pass).
    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// How many slots of each array are bound.
    pub fn counts(&self) -> HeapCounts {
        HeapCounts {
            textures_2d: self.textures_2d.bound_len(),
            textures_cube: self.textures_cube.bound_len(),
            samplers: self.samplers.bound_len(),
        }
    }

    /// Live textures and samplers (reserved slots included).
    pub fn live_counts(&self) -> HeapCounts {
        HeapCounts {
            textures_2d: self.textures_2d.slots.live_count(),
            textures_cube: self.textures_cube.slots.live_count(),
            samplers: self.samplers.slots.live_count(),
        }
    }

    /// Bytes of texture memory the heap holds (estimate, mips included).
    pub fn texture_bytes(&self) -> u64 {
        let arrays = self.layered.as_ref().map_or(0, |l| l.arrays.size_bytes());
        arrays
            + self
                .textures_2d
                .bytes
                .iter()
                .chain(&self.textures_cube.bytes)
                .sum::<u64>()
    }

    /// How many times the bind group has been built.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// The bind group over the current contents, rebuilt only if something
    /// changed since the last call. Returns whether it was rebuilt.
    pub fn bind_group(&mut self) -> (&wgpu::BindGroup, bool) {
        if let Some(layered) = &self.layered
            && layered.built != layered.versions()
        {
            self.bind_group = None;
        }
        let rebuilt = self.bind_group.is_none();
        if rebuilt {
            self.rebuilds += 1;
            let group = self.build_bind_group();
            self.bind_group = Some(group);
        }
        (self.bind_group.as_ref().expect("just built"), rebuilt)
    }

    /// Queues tier C's map changes into the frame's upload.
    pub(crate) fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        if let Some(layered) = self.layered.as_mut() {
            layered.locations.flush(device, batch);
            layered.sampler_modes.flush(device, batch);
        }
    }

    /// Tells the heap how many frames have been recorded and finished, so
    /// tier C reuses only layers no frame in flight can still sample.
    pub(crate) fn set_frames(&mut self, recorded: u64, finished: u64) {
        if let Some(layered) = self.layered.as_mut() {
            layered.frames_recorded = recorded;
            layered.arrays.recycle(finished);
        }
    }

    /// Whether textures live in texture arrays (tier C).
    pub fn uses_texture_arrays(&self) -> bool {
        self.layered.is_some()
    }

    fn build_layered_bind_group(&self, layered: &Layered) -> wgpu::BindGroup {
        // Each array twice (GL pairs a texture with one sampler): repeat, clamp.
        let views = layered.arrays.views();
        let mut entries: Vec<wgpu::BindGroupEntry<'_>> = views
            .iter()
            .chain(views.iter())
            .enumerate()
            .map(|(i, view)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: wgpu::BindingResource::TextureView(view),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: 12,
            resource: wgpu::BindingResource::Sampler(&layered.arrays.repeat),
        });
        entries.push(wgpu::BindGroupEntry {
            binding: 13,
            resource: wgpu::BindingResource::Sampler(&layered.arrays.clamp),
        });
        entries.push(wgpu::BindGroupEntry {
            binding: 14,
            resource: layered.locations.buffer().as_entire_binding(),
        });
        entries.push(wgpu::BindGroupEntry {
            binding: 15,
            resource: layered.sampler_modes.buffer().as_entire_binding(),
        });
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound texture arrays"),
            layout: &self.layout,
            entries: &entries,
        })
    }

    fn build_bind_group(&mut self) -> wgpu::BindGroup {
        if let Some(layered) = &self.layered {
            let group = self.build_layered_bind_group(layered);
            let versions = layered.versions();
            self.layered.as_mut().expect("checked").built = versions;
            return group;
        }
        fn bound<K: crate::handles::SlotKind, T>(array: &SlotArray<K, T>) -> Vec<&T> {
            let fallback = array.items[0].as_ref().expect("slot 0 is reserved");
            array.items[..array.bound_len() as usize]
                .iter()
                .map(|item| item.as_ref().unwrap_or(fallback))
                .collect()
        }
        let Some(HeapTexture::View(fallback)) = self.textures_2d.items[0].as_ref() else {
            unreachable!("tiers A and B hold views")
        };
        let views_2d: Vec<&wgpu::TextureView> = self.textures_2d.items
            [..self.textures_2d.bound_len() as usize]
            .iter()
            .map(|item| match item {
                Some(HeapTexture::View(view)) => view,
                _ => fallback,
            })
            .collect();
        let views_cube = bound(&self.textures_cube);
        let samplers = bound(&self.samplers);
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound resource heap"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureViewArray(&views_2d),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureViewArray(&views_cube),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::SamplerArray(&samplers),
                },
            ],
        })
    }
}

/// Tier C's group 0: six texture arrays bound once per sampler (12
/// bindings), two samplers, the slot-to-layer map and the sampler modes
/// (`wgsl/heap_arrays.wgsl`).
fn layered_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let fragment = wgpu::ShaderStages::FRAGMENT;
    let mut entries: Vec<wgpu::BindGroupLayoutEntry> = (0..12)
        .map(|binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: fragment,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        })
        .collect();
    for binding in [12, 13] {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding,
            visibility: fragment,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        });
    }
    for binding in [14, 15] {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding,
            visibility: fragment,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("unbound texture arrays"),
        entries: &entries,
    })
}
