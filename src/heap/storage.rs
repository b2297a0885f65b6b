//! Where the heap's 2D textures live, chosen once by the [`HeapLayout`]:
//! binding arrays (tiers A and B, bindless), pages of texture arrays (tiers
//! A and B, paged) or tier C's texture arrays. Slot bookkeeping,
//! cube textures and samplers stay in the heap; everything that differs by
//! tier is a method here.

use crate::capabilities::tier::HeapLayout;
use crate::handles::{SamplerSlot, TextureCubeSlot, TextureHandle};
use crate::upload::UploadBatch;

use super::binding_arrays::BindingArrays;
use super::pages::Pages;
use super::residency::ResidencyStats;
use super::slots::{SlotArray, Slots2d};
use super::texture_arrays::TextureArrays;
use super::textures::Uploader;
use super::{CompressedTextureDesc, HeapError, SamplerDesc, TextureDesc};

/// The heap's 2D texture storage. See the module docs.
#[derive(Debug)]
pub(super) enum TextureStorage {
    /// Tiers A and B: one view per slot in a binding array.
    BindingArrays(BindingArrays),
    /// Tiers A and B, paged: a layer of a page per slot, found through a map.
    Pages(Box<Pages>),
    /// Tier C: a layer of a texture array per slot, found through a map.
    TextureArrays(Box<TextureArrays>),
}

impl TextureStorage {
    /// The storage of `layout`, with room for the given number of slots.
    pub fn new(
        device: &wgpu::Device,
        layout: HeapLayout,
        textures_2d: u32,
        textures_cube: u32,
        samplers: u32,
    ) -> Self {
        match layout {
            HeapLayout::BindingArrays => Self::BindingArrays(BindingArrays::new(
                device,
                textures_2d,
                textures_cube,
                samplers,
            )),
            HeapLayout::Pages => Self::Pages(Box::new(Pages::new(
                device,
                textures_2d,
                textures_cube,
                samplers,
            ))),
            HeapLayout::TextureArrays => {
                Self::TextureArrays(Box::new(TextureArrays::new(device, textures_2d, samplers)))
            }
        }
    }

    /// Whether the bind group holds each 2D texture (so adding or removing
    /// one rebuilds it); the other storages bind pages or arrays, and their
    /// own versions say when the group must follow ([`Self::outdated`]).
    pub fn binds_each_texture(&self) -> bool {
        matches!(self, Self::BindingArrays(_))
    }

    /// Pages of texture arrays created so far (0 unless paged).
    pub fn page_count(&self) -> u32 {
        match self {
            Self::Pages(pages) => pages.page_count(),
            Self::BindingArrays(_) | Self::TextureArrays(_) => 0,
        }
    }

    /// The layout of group 0 of the draw pass.
    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        match self {
            Self::BindingArrays(arrays) => arrays.layout(),
            Self::Pages(pages) => pages.layout(),
            Self::TextureArrays(arrays) => arrays.layout(),
        }
    }

    /// Uploads a checked RGBA8 texture into the lowest free slot (room
    /// checked by the caller).
    pub fn add_2d(
        &mut self,
        uploader: &mut Uploader,
        slots: &mut Slots2d,
        desc: &TextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        match self {
            Self::BindingArrays(arrays) => arrays.add_2d(uploader, slots, desc),
            Self::Pages(pages) => pages.add_2d(uploader, slots, desc),
            Self::TextureArrays(arrays) => arrays.add_2d(uploader, slots, desc),
        }
    }

    /// Uploads a checked block-compressed texture into the lowest free
    /// slot. Pages and tier C's arrays hold RGBA8 only: refused there.
    pub fn add_compressed_2d(
        &mut self,
        uploader: &Uploader,
        slots: &mut Slots2d,
        desc: &CompressedTextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        match self {
            Self::BindingArrays(arrays) => arrays.add_compressed_2d(uploader, slots, desc),
            Self::Pages(_) | Self::TextureArrays(_) => Err(HeapError::UnsupportedFormat {
                format: desc.format,
            }),
        }
    }

    /// Lets go of a freed 2D slot's texture.
    pub fn remove_2d(&mut self, slot: u32) {
        match self {
            Self::BindingArrays(arrays) => arrays.remove_2d(slot),
            Self::Pages(pages) => pages.remove_2d(slot),
            Self::TextureArrays(arrays) => arrays.remove_2d(slot),
        }
    }

    /// Streams 2D textures under `budget` bytes (pages only; the other
    /// storages keep every texture fully resident). Whether it streams.
    pub fn set_budget(&mut self, device: &wgpu::Device, budget: u64) -> bool {
        match self {
            Self::Pages(pages) => {
                pages.set_budget(device, budget);
                true
            }
            Self::BindingArrays(_) | Self::TextureArrays(_) => false,
        }
    }

    /// Marks a 2D slot's texture as wanted by the next frame (pages under
    /// a budget).
    pub fn want_2d(&mut self, slot: u32) {
        if let Self::Pages(pages) = self {
            pages.want(slot);
        }
    }

    /// Whether group 0 binds the camera's texture feedback (pages under a
    /// budget).
    pub fn has_feedback(&self) -> bool {
        matches!(self, Self::Pages(pages) if pages.has_feedback())
    }

    /// The newest read feedback's level code of a 2D slot (pages under a
    /// budget).
    pub fn feedback(&self, slot: u32) -> Option<u32> {
        match self {
            Self::Pages(pages) => pages.feedback(slot),
            Self::BindingArrays(_) | Self::TextureArrays(_) => None,
        }
    }

    /// The residency counters (pages under a budget).
    pub fn residency(&self) -> Option<ResidencyStats> {
        match self {
            Self::Pages(pages) => pages.residency(),
            Self::BindingArrays(_) | Self::TextureArrays(_) => None,
        }
    }

    /// Records a new sampler (tier C maps it to repeat or clamp).
    pub fn set_sampler(&mut self, slot: u32, desc: &SamplerDesc) {
        if let Self::TextureArrays(arrays) = self {
            arrays.set_sampler(slot, desc);
        }
    }

    /// Bytes held outside the slots' own accounts (pages, tier C's arrays).
    pub fn shared_bytes(&self) -> u64 {
        match self {
            Self::BindingArrays(_) => 0,
            Self::Pages(pages) => pages.size_bytes(),
            Self::TextureArrays(arrays) => arrays.size_bytes(),
        }
    }

    /// Queues map changes into the frame's upload (pages, tier C).
    pub fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        match self {
            Self::BindingArrays(_) => {}
            Self::Pages(pages) => pages.flush(device, batch),
            Self::TextureArrays(arrays) => arrays.flush(device, batch),
        }
    }

    /// Records the layer writes queued since the last frame into its
    /// encoder (pages, tier C; binding arrays upload at the add); pages
    /// under a budget then copy the feedback of the first `slots` 2D slots.
    pub fn record_layers(
        &mut self,
        uploader: &mut Uploader,
        encoder: &mut wgpu::CommandEncoder,
        slots: u32,
    ) {
        match self {
            Self::BindingArrays(_) => {}
            Self::Pages(pages) => pages.record_layers(uploader, encoder, slots),
            Self::TextureArrays(arrays) => arrays.record_layers(uploader, encoder),
        }
    }

    /// Frames recorded and finished, for the layers' reuse (pages, tier C).
    pub fn set_frames(&mut self, device: &wgpu::Device, recorded: u64, finished: u64) {
        match self {
            Self::BindingArrays(_) => {}
            Self::Pages(pages) => pages.set_frames(device, recorded, finished),
            Self::TextureArrays(arrays) => arrays.set_frames(recorded, finished),
        }
    }

    /// Whether the bind group must be rebuilt for changes the heap does not
    /// see (pages, tier C's arrays or maps reallocated).
    pub fn outdated(&self) -> bool {
        match self {
            Self::BindingArrays(_) => false,
            Self::Pages(pages) => pages.outdated(),
            Self::TextureArrays(arrays) => arrays.outdated(),
        }
    }

    /// Group 0 over the current contents.
    pub fn bind_group(
        &mut self,
        device: &wgpu::Device,
        textures_2d: &Slots2d,
        textures_cube: &SlotArray<TextureCubeSlot, wgpu::TextureView>,
        samplers: &SlotArray<SamplerSlot, wgpu::Sampler>,
    ) -> wgpu::BindGroup {
        match self {
            Self::BindingArrays(arrays) => {
                arrays.bind_group(device, textures_2d, textures_cube, samplers)
            }
            Self::Pages(pages) => pages.bind_group(device, textures_cube, samplers),
            Self::TextureArrays(arrays) => arrays.bind_group(device),
        }
    }
}
