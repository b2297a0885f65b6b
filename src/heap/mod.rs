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
//!
//! By concern: what is accepted and the errors (`desc.rs`), slot
//! bookkeeping (`slots.rs`), texture creation and upload, public for
//! renderers outside the heap (`textures.rs`), and where 2D textures live,
//! chosen by the [`HeapLayout`] (`storage.rs`): binding arrays in tiers A
//! and B (`binding_arrays.rs`, [`crate::TextureHeap::Bindless`]), pages of
//! texture arrays in tiers A and B (`pages.rs`,
//! [`crate::TextureHeap::Paged`]), tier C's six texture arrays
//! (`texture_arrays.rs`); pages and tier C's arrays share their layers'
//! bookkeeping (`layers.rs`); the layout entries all use (`layout.rs`);
//! streaming under a memory budget, pages only (`residency.rs`), driven by
//! the camera's texture feedback (`feedback.rs`).
//!
//! With binding arrays, wgpu tracks every bound texture at each
//! submission, and adding or removing one rebuilds the group; with pages
//! or tier C's arrays, it tracks the arrays, and adding or removing a
//! texture queues a layer write, recorded into the next frame's encoder
//! (no submission, wait or rebuild of its own: `layers.rs`), and an entry
//! of the slot-to-layer map.
//!
//! The group is built lazily, over the live prefix only, by the first frame
//! after a change. The growable storage buffers (tables, arena) live in
//! another group (group 1), so growing a table never rebuilds the heap's.
//! Cube slot 0 and sampler slot 0 are fallbacks as 2D slot 0 is.

mod binding_arrays;
mod desc;
mod feedback;
mod layers;
mod layout;
mod pages;
mod residency;
mod slots;
mod storage;
mod texture_arrays;
mod textures;

pub use desc::{
    CompressedTextureDesc, CubeTextureDesc, HeapError, Mips, SUPPORTED_FORMATS, SamplerDesc,
    TextureDesc, compressed_level_bytes,
};
pub use feedback::{BASE_LEVEL_CODE, MAX_LEVEL_CODE, level_code};
pub use pages::{PAGE_LEVEL0_BYTES, page_layers};
pub use residency::{ResidencyStats, STREAM_BYTES_PER_FRAME, WANTED_FRAMES};
pub use textures::{create_compressed_texture_2d, create_sampler, create_texture_2d};

use crate::capabilities::tier::HeapLayout;
use crate::capacities::Capacities;
use crate::handles::{
    CubeTextureHandle, HandleError, SamplerHandle, SamplerSlot, TextureCubeSlot, TextureHandle,
    new_owner_id,
};
use crate::mipmaps::MipGenerator;
use crate::upload::UploadBatch;
use slots::{SlotArray, Slots2d};
use storage::TextureStorage;
use textures::{Rgba8, Uploader, texture_bytes};

pub use crate::gpu_types::{SAMPLER_DEFAULT, TEXTURE_MISSING, TEXTURE_WHITE};

/// The colour of the "missing" texture's light squares (sRGB bytes).
pub const MISSING_COLOR: [u8; 4] = [255, 0, 255, 255];

/// The "missing" texture as the heap uploads it into slot
/// [`TEXTURE_MISSING`]: an 8x8 checker of [`MISSING_COLOR`] (the texel at
/// (0, 0) and every other one) and black, sRGB, without mips. A renderer
/// outside the heap (the bind-per-draw baseline) uploads the same for a
/// missing glTF image.
pub const MISSING_TEXTURE: TextureDesc<'static> = TextureDesc {
    label: Some("unbound missing"),
    width: 8,
    height: 8,
    format: wgpu::TextureFormat::Rgba8UnormSrgb,
    data: &MISSING_TEXELS,
    mips: Mips::None,
};

/// [`MISSING_TEXTURE`]'s texels.
const MISSING_TEXELS: [u8; 8 * 8 * 4] = {
    let mut texels = [0; 8 * 8 * 4];
    let mut i = 0;
    while i < 64 {
        let texel = if (i % 8 + i / 8) % 2 == 0 {
            MISSING_COLOR
        } else {
            [0, 0, 0, 255]
        };
        let mut c = 0;
        while c < 4 {
            texels[i * 4 + c] = texel[c];
            c += 1;
        }
        i += 1;
    }
    texels
};

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
    uploader: Uploader,
    textures_2d: Slots2d,
    textures_cube: SlotArray<TextureCubeSlot, wgpu::TextureView>,
    samplers: SlotArray<SamplerSlot, wgpu::Sampler>,
    sampler_descs: Vec<Option<SamplerDesc>>,
    storage: TextureStorage,
    bind_group: Option<wgpu::BindGroup>,
    layout: HeapLayout,
    rebuilds: u64,
    max_dimension_2d: u32,
    max_dimension_cube: u32,
}

impl ResourceHeap {
    /// A heap with room for `capacities`' texture and sampler slots (at
    /// least [`Capacities::MIN`]'s), its reserved slots filled, in
    /// the storage of `layout` (binding arrays, pages, tier C's texture
    /// arrays).
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        capacities: &Capacities,
        layout: HeapLayout,
    ) -> Self {
        let textures_2d = capacities.textures_2d.max(Capacities::MIN.textures_2d);
        let textures_cube = capacities.textures_cube.max(Capacities::MIN.textures_cube);
        let samplers = capacities.samplers.max(Capacities::MIN.samplers);
        let owner = new_owner_id();
        let limits = device.limits();
        let mut heap = Self {
            uploader: Uploader {
                device: device.clone(),
                queue: queue.clone(),
                mipmaps: MipGenerator::new(device),
            },
            textures_2d: SlotArray::new(owner, textures_2d),
            textures_cube: SlotArray::new(owner, textures_cube),
            samplers: SlotArray::new(owner, samplers),
            sampler_descs: Vec::new(),
            storage: TextureStorage::new(device, layout, textures_2d, textures_cube, samplers),
            layout,
            bind_group: None,
            rebuilds: 0,
            max_dimension_2d: limits.max_texture_dimension_2d,
            max_dimension_cube: limits.max_texture_dimension_2d,
        };
        heap.fill_reserved_slots();
        heap
    }

    fn fill_reserved_slots(&mut self) {
        let missing = self
            .add_texture_2d(&MISSING_TEXTURE)
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

    /// Uploads a 2D texture (mips generated on the GPU) into the lowest free slot.
    pub fn add_texture_2d(&mut self, desc: &TextureDesc<'_>) -> Result<TextureHandle, HeapError> {
        desc.check(self.max_dimension_2d)?;
        self.textures_2d.check_room()?;
        let handle = self
            .storage
            .add_2d(&mut self.uploader, &mut self.textures_2d, desc)?;
        self.texture_2d_changed();
        Ok(handle)
    }

    /// Uploads a block-compressed texture as it is into the lowest free slot.
    /// Needs `TEXTURE_COMPRESSION_BC` on the device and binding arrays (tier
    /// C's texture arrays hold RGBA8 only).
    pub fn add_compressed_texture_2d(
        &mut self,
        desc: &CompressedTextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        desc.check_format(self.uploader.device.features())?;
        desc.check_shape(self.max_dimension_2d)?;
        self.textures_2d.check_room()?;
        let handle = self
            .storage
            .add_compressed_2d(&self.uploader, &mut self.textures_2d, desc)?;
        self.texture_2d_changed();
        Ok(handle)
    }

    /// Uploads a cube texture into the lowest free slot.
    pub fn add_texture_cube(
        &mut self,
        desc: &CubeTextureDesc<'_>,
    ) -> Result<CubeTextureHandle, HeapError> {
        desc.check(self.max_dimension_cube)?;
        self.textures_cube.check_room()?;
        let texture = self.uploader.rgba8(&Rgba8 {
            label: desc.label,
            size: wgpu::Extent3d {
                width: desc.size,
                height: desc.size,
                depth_or_array_layers: 6,
            },
            format: desc.format,
            data: desc.data,
            mips: desc.mips,
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::Cube),
            ..Default::default()
        });
        let handle = self.textures_cube.insert(view, texture_bytes(&texture))?;
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
        let sampler = create_sampler(&self.uploader.device, desc);
        let handle = self.samplers.insert(sampler, 0)?;
        self.storage.set_sampler(handle.slot(), desc);
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
        let slot = self.textures_2d.remove(handle)?;
        self.storage.remove_2d(slot);
        self.texture_2d_changed();
        Ok(())
    }

    /// Drops the bind group if it holds each 2D texture; pages and tier C's
    /// arrays only rebuild it when an array is created or replaced.
    fn texture_2d_changed(&mut self) {
        if self.storage.binds_each_texture() {
            self.bind_group = None;
        }
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

    /// Streams 2D textures under `budget` bytes of full-size layers from
    /// now on (`residency.rs`); call before adding any 2D texture past the
    /// reserved ones. Only the paged heap streams (tiers A and B with
    /// [`crate::TextureHeap::Paged`]); tier C's arrays and the bindless
    /// heap keep every texture fully resident. Whether it streams.
    pub fn set_texture_budget(&mut self, budget: u64) -> bool {
        let device = self.uploader.device.clone();
        self.storage.set_budget(&device, budget)
    }

    /// Storage buffers group 0 adds to the fragment stage on tiers A and
    /// B (the visibility buffer's material pass counts them): the paged
    /// heap's slot-to-layer map and, under a budget, the texture feedback;
    /// none with binding arrays (tier C's arrays run no visibility buffer).
    pub fn fragment_storage_buffers(&self) -> u32 {
        match self.layout {
            HeapLayout::Pages => 1 + u32::from(self.has_texture_feedback()),
            HeapLayout::BindingArrays | HeapLayout::TextureArrays => 0,
        }
    }

    /// Whether group 0 binds the camera's texture feedback, so the draw
    /// pass's shading must write it (`feedback.rs`; the paged heap under a
    /// budget).
    pub fn has_texture_feedback(&self) -> bool {
        self.storage.has_feedback()
    }

    /// The level code the newest read feedback holds for a live 2D
    /// texture (`feedback.rs`: 0 not seen, else code `c` asks for
    /// `2^(c - 1)` texels across); `None` without feedback.
    pub fn texture_feedback(&self, handle: TextureHandle) -> Result<Option<u32>, HandleError> {
        let slot = self.textures_2d.slots.resolve(handle)?;
        Ok(self.storage.feedback(slot))
    }

    /// Marks a live 2D texture as wanted by the next frame: under a
    /// budget, the streamer promotes it to its full size class when the
    /// budget allows (`residency.rs`).
    pub fn want_texture_2d(&mut self, handle: TextureHandle) -> Result<(), HandleError> {
        let slot = self.textures_2d.slots.resolve(handle)?;
        self.storage.want_2d(slot);
        Ok(())
    }

    /// Resident, requested and evicted bytes of the streamed textures
    /// (`None` unless the heap streams under a budget).
    pub fn residency(&self) -> Option<ResidencyStats> {
        self.storage.residency()
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
        self.storage.layout()
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
        self.storage.shared_bytes()
            + self
                .textures_2d
                .bytes
                .iter()
                .chain(&self.textures_cube.bytes)
                .sum::<u64>()
    }

    /// What group 0 binds for 2D textures.
    pub fn heap_layout(&self) -> HeapLayout {
        self.layout
    }

    /// Pages of texture arrays created so far
    /// ([`HeapLayout::Pages`]; 0 otherwise).
    pub fn page_count(&self) -> u32 {
        self.storage.page_count()
    }

    /// How many times the bind group has been built.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// The bind group over the current contents, rebuilt only if something
    /// changed since the last call. Returns whether it was rebuilt.
    pub fn bind_group(&mut self) -> (&wgpu::BindGroup, bool) {
        if self.storage.outdated() {
            self.bind_group = None;
        }
        let rebuilt = self.bind_group.is_none();
        if rebuilt {
            self.rebuilds += 1;
            let group = self.storage.bind_group(
                &self.uploader.device,
                &self.textures_2d,
                &self.textures_cube,
                &self.samplers,
            );
            self.bind_group = Some(group);
        }
        (self.bind_group.as_ref().expect("just built"), rebuilt)
    }

    /// Queues the slot-to-layer map's changes (pages, tier C) into the
    /// frame's upload.
    pub(crate) fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        self.storage.flush(device, batch);
    }

    /// Records the 2D texture writes queued since the last frame (pages,
    /// tier C: level 0, resampling, mips) into the frame's encoder, before
    /// its passes; under a budget, the copy of the texture feedback the
    /// frames before wrote (`feedback.rs`).
    pub(crate) fn record_layers(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let slots = self.textures_2d.bound_len();
        self.storage
            .record_layers(&mut self.uploader, encoder, slots);
    }

    /// Tells the heap how many frames have been recorded (the one being
    /// recorded included) and finished, so pages and tier C reuse only layers no
    /// frame in flight can still sample; under a budget, the streamer runs
    /// for the frame being recorded (`residency.rs`).
    pub(crate) fn set_frames(&mut self, recorded: u64, finished: u64) {
        let device = self.uploader.device.clone();
        self.storage.set_frames(&device, recorded, finished);
    }
}
