//! Tiers A and B's paged texture storage
//! ([`TextureHeap::Paged`](crate::TextureHeap::Paged)): every 2D texture
//! is a layer of a page, a 2D texture array of one size class and format
//! (`layers.rs`, shared with tier C: the same resampling, mip chain and
//! layer reuse), and group 0 binds a binding array of pages
//! (`wgsl/heap.wgsl` with `TEXTURE_PAGES`). A storage buffer maps each heap
//! slot to `page << TEXTURE_LOCATION_ARRAY_SHIFT | layer`, so slots, handles
//! and the material table stay 32-bit and stable, as in tier C.
//!
//! What this buys: wgpu tracks one resource per page at each submission,
//! not one per texture, and adding or removing a texture that fits a page
//! queues a layer write (recorded by the next frame, no submission of its
//! own: `layers.rs`) and one map entry, without rebuilding the bind group.
//! The group is rebuilt only when a page is created or grows, or when a
//! cube texture or sampler changes (they stay in binding arrays of their
//! own, so sampler choice is exact, unlike tier C's two fixed samplers).
//!
//! Page policy: a page holds at most [`PAGE_LEVEL0_BYTES`] of level 0
//! (2048 layers of 64², 128 of 256², 8 of 1024²; fewer where the device's
//! `max_texture_array_layers` is lower). It starts with 4 layers and
//! doubles up to that, then the next texture of its class and format
//! starts a new page: a rebuild per doubling and per page, amortised over
//! the textures that fill it. Memory: at most one partly used page per
//! class and format, which is at most twice what it holds (under 6 x 43
//! MiB with mips in the worst case). Pages are never released.
//!
//! Quality cost, as tier C's: textures are resampled to their size class
//! and get a full mip chain (`layers.rs`); block-compressed textures are
//! refused (`HeapError::UnsupportedFormat`).
//!
//! Under [`crate::RendererConfig::texture_budget`], a texture larger than
//! 64² holds a 64² base layer and, while resident, a full layer; the map
//! points at the best resident one (`residency.rs`), and group 0 binds
//! the camera's texture feedback too (`feedback.rs`, binding 4).

use std::num::NonZeroU32;
use std::sync::Arc;

use wgpu::TextureViewDimension::{Cube, D2Array};

use crate::gpu_table::GpuTable;
use crate::gpu_types::{
    TEXTURE_ARRAY_FORMATS, TEXTURE_ARRAY_SIZES, TEXTURE_ARRAYS, TEXTURE_LOCATION_ARRAY_SHIFT,
    TEXTURE_LOCATION_LAYER_MASK, texture_array,
};
use crate::handles::{CapacityError, SamplerSlot, TextureCubeSlot, TextureHandle};
use crate::upload::UploadBatch;

use super::feedback::{BASE_LEVEL_CODE, Feedback};
use super::layers::{
    LayerArray, LayerWrites, Texels, decode_location, encode_location, size_class,
};
use super::layout::{filterable_texture, fragment_entry};
use super::residency::{Residency, ResidencyStats, Streamed, layer_bytes};
use super::slots::{SlotArray, Slots2d};
use super::textures::Uploader;
use super::{HeapError, TEXTURE_MISSING, TextureDesc};

/// The most level-0 bytes a page holds (see the module docs).
pub const PAGE_LEVEL0_BYTES: u64 = 32 << 20;

/// Group 0's bindings with pages: the pages, the cube textures, the
/// samplers (both as in the bindless heap) and the slot-to-location map.
const BINDING_PAGES: u32 = 0;
const BINDING_CUBES: u32 = 1;
const BINDING_SAMPLERS: u32 = 2;
const BINDING_LOCATIONS: u32 = 3;
/// Under a budget: the camera's texture feedback (`feedback.rs`).
const BINDING_FEEDBACK: u32 = 4;

/// The most layers a page of `size`² texels holds on a device allowing
/// `max_array_layers`.
pub fn page_layers(size: u32, max_array_layers: u32) -> u32 {
    let layers = PAGE_LEVEL0_BYTES / (u64::from(size) * u64::from(size) * 4);
    (layers as u32)
        .clamp(1, max_array_layers.max(1))
        .min(TEXTURE_LOCATION_LAYER_MASK + 1)
}

/// The pages and the map. See the module docs.
#[derive(Debug)]
pub(super) struct Pages {
    layout: wgpu::BindGroupLayout,
    pages: Vec<LayerArray>,
    /// The pages of each class and format (`texture_array` numbering).
    by_kind: Vec<Vec<u32>>,
    /// The most pages the layout's binding array holds.
    max_pages: u32,
    /// Each 2D slot's location (`page << TEXTURE_LOCATION_ARRAY_SHIFT | layer`).
    locations: GpuTable<u32>,
    /// Layer writes and page growths not yet recorded by a frame.
    writes: LayerWrites,
    /// Frames recorded so far, the one being recorded included: the layers'
    /// reuse rule.
    frames_recorded: u64,
    /// Streaming under a budget (`residency.rs`) and the feedback that
    /// drives it (`feedback.rs`), if one was set.
    residency: Option<Residency>,
    feedback: Option<Feedback>,
    /// The 2D slots (the feedback's length), and the cube and sampler
    /// slots the layout binds.
    slots_2d: u32,
    bound: (u32, u32),
    /// Bumped whenever a page is created or replaced by a larger one.
    version: u64,
    /// The versions the bind group was last built from.
    built: [u64; 2],
}

impl Pages {
    /// Room for the given number of 2D slots (and as many pages at most),
    /// cube slots and samplers.
    pub fn new(device: &wgpu::Device, textures_2d: u32, textures_cube: u32, samplers: u32) -> Self {
        let max_pages = textures_2d.min(u32::MAX >> TEXTURE_LOCATION_ARRAY_SHIFT);
        Self {
            layout: layout(device, max_pages, (textures_cube, samplers), false),
            pages: Vec::new(),
            by_kind: vec![Vec::new(); TEXTURE_ARRAYS as usize],
            max_pages,
            locations: GpuTable::new(
                device,
                "unbound texture locations",
                wgpu::BufferUsages::STORAGE,
                textures_2d,
            ),
            writes: LayerWrites::new(true),
            frames_recorded: 0,
            residency: None,
            feedback: None,
            slots_2d: textures_2d,
            bound: (textures_cube, samplers),
            version: 0,
            built: [u64::MAX; 2],
        }
    }

    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Pages created so far.
    pub fn page_count(&self) -> u32 {
        self.pages.len() as u32
    }

    /// A page of `kind` with a free layer, created if none has one.
    fn page_with_room(&mut self, device: &wgpu::Device, kind: usize) -> Result<u32, CapacityError> {
        let open = self.by_kind[kind]
            .iter()
            .copied()
            .find(|&page| self.pages[page as usize].has_room());
        if let Some(page) = open {
            return Ok(page);
        }
        if self.page_count() >= self.max_pages {
            return Err(CapacityError {
                kind: "texture page",
                capacity: self.max_pages,
            });
        }
        let size = TEXTURE_ARRAY_SIZES[kind / TEXTURE_ARRAY_FORMATS.len()];
        let format = TEXTURE_ARRAY_FORMATS[kind % TEXTURE_ARRAY_FORMATS.len()];
        let max_layers = page_layers(size, device.limits().max_texture_array_layers);
        let page = self.page_count();
        self.pages
            .push(LayerArray::new(device, size, format, max_layers));
        self.by_kind[kind].push(page);
        self.version += 1;
        Ok(page)
    }

    /// A free layer of a page of `kind` (a page created or grown if none
    /// has one), as an encoded location.
    fn alloc_layer(&mut self, device: &wgpu::Device, kind: usize) -> Result<u32, CapacityError> {
        let page = self.page_with_room(device, kind)?;
        let array = &mut self.pages[page as usize];
        let before = array.layers();
        let layer = array
            .alloc(device, &mut self.writes)
            .expect("page_with_room found room");
        if array.layers() != before {
            self.version += 1;
        }
        Ok(encode_location(page, layer))
    }

    /// Queues `texels`' write into the layer at `location`.
    fn queue_write(&mut self, location: u32, texels: Arc<Texels>) {
        let (page, layer) = decode_location(location);
        self.pages[page as usize].queue_write(&mut self.writes, layer, texels);
    }

    /// Frees the layer at `location` (see [`Self::remove_2d`]).
    fn free_layer(&mut self, location: u32) {
        let (page, layer) = decode_location(location);
        self.pages[page as usize].free(&mut self.writes, layer, self.frames_recorded);
    }

    /// Streams 2D textures under `budget` bytes of full layers from now on
    /// (`residency.rs`), driven by the camera's feedback (`feedback.rs`:
    /// the layout gains its binding); set before any texture is added and
    /// before any pipeline is built over the layout.
    pub fn set_budget(&mut self, device: &wgpu::Device, budget: u64) {
        self.residency = Some(Residency::new(budget));
        self.feedback = Some(Feedback::new(device, self.slots_2d));
        self.layout = layout(device, self.max_pages, self.bound, true);
        self.version += 1;
    }

    /// Whether group 0 binds the texture feedback (under a budget).
    pub fn has_feedback(&self) -> bool {
        self.feedback.is_some()
    }

    /// The newest read feedback's level code of `slot` (`feedback.rs`;
    /// `None` without a budget).
    pub fn feedback(&self, slot: u32) -> Option<u32> {
        self.feedback.as_ref().map(|f| f.latest(slot))
    }

    /// Allocates a free layer of a page of the texture's class and format,
    /// queues its write (resampled unless it is exactly the class's size,
    /// mips generated in place: recorded by the next frame, `layers.rs`)
    /// and maps the lowest free slot to it. Under a budget, a texture
    /// larger than the smallest class gets a layer of that class instead
    /// (its base) and is streamed (`residency.rs`).
    pub fn add_2d(
        &mut self,
        uploader: &mut Uploader,
        slots: &mut Slots2d,
        desc: &TextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        let (class, format) = size_class(desc.width, desc.height, desc.format).ok_or(
            HeapError::UnsupportedFormat {
                format: desc.format,
            },
        )?;
        let streamed = class > 0 && self.residency.is_some();
        let texels = Arc::new(Texels::from(desc));
        let stored_class = if streamed { 0 } else { class };
        let location = self.alloc_layer(
            &uploader.device,
            texture_array(stored_class, format) as usize,
        )?;
        let handle = slots.insert((), 0)?;
        self.queue_write(location, texels.clone());
        self.writes.submit_if_full(uploader);
        self.locations.set(handle.slot(), location);
        if let (true, Some(residency)) = (streamed, &mut self.residency) {
            residency.insert(
                handle.slot(),
                Streamed {
                    base: location,
                    full: None,
                    kind: texture_array(class, format) as usize,
                    bytes: layer_bytes(TEXTURE_ARRAY_SIZES[class]),
                    texels,
                    wanted: 0,
                },
            );
        }
        Ok(handle)
    }

    /// Frees a slot's layer (reused once every frame recorded so far has
    /// finished; at once, its write dropped, if no frame recorded it yet)
    /// and maps the slot to the "missing" texture. A streamed texture frees
    /// its base layer and its full layer if resident.
    pub fn remove_2d(&mut self, slot: u32) {
        let streamed = self.residency.as_mut().and_then(|r| r.take(slot));
        if let Some(streamed) = streamed {
            self.free_layer(streamed.base);
            if let Some(full) = streamed.full {
                self.free_layer(full);
            }
        } else {
            let location = *self.locations.get(slot).expect("a live slot");
            self.free_layer(location);
        }
        let missing = *self.locations.get(TEXTURE_MISSING).expect("reserved slot");
        self.locations.set(slot, missing);
    }

    /// Marks a streamed texture as wanted by the frame being recorded next
    /// (no effect without a budget or for a texture of the base class).
    pub fn want(&mut self, slot: u32) {
        let frame = self.frames_recorded + 1;
        if let Some(residency) = &mut self.residency {
            residency.want(slot, frame, false);
        }
    }

    /// The residency counters (with a budget).
    pub fn residency(&self) -> Option<ResidencyStats> {
        self.residency.as_ref().map(Residency::stats)
    }

    /// Runs the streamer for the frame being recorded: evictions point
    /// their slots back to the base layer and free the full one;
    /// promotions allocate and write a full layer and map their slots to
    /// it (`residency.rs`).
    fn stream(&mut self, device: &wgpu::Device) {
        let Some(residency) = &mut self.residency else {
            return;
        };
        let plan = residency.plan(self.frames_recorded);
        for slot in plan.evict {
            let residency = self.residency.as_mut().expect("streaming");
            let streamed = residency.get_mut(slot).expect("planned");
            let (base, full) = (streamed.base, streamed.full.take().expect("resident"));
            self.locations.set(slot, base);
            self.free_layer(full);
        }
        for slot in plan.promote {
            let residency = self.residency.as_ref().expect("streaming");
            let streamed = residency.get(slot).expect("planned");
            let (kind, texels, bytes) = (streamed.kind, streamed.texels.clone(), streamed.bytes);
            let Ok(location) = self.alloc_layer(device, kind) else {
                // No page left: the texture stays at its base layer.
                let residency = self.residency.as_mut().expect("streaming");
                residency.resident_bytes -= bytes;
                residency.requested_bytes -= bytes;
                continue;
            };
            self.queue_write(location, texels);
            self.locations.set(slot, location);
            let residency = self.residency.as_mut().expect("streaming");
            residency.get_mut(slot).expect("planned").full = Some(location);
        }
    }

    /// Records the queued layer writes into the frame's encoder; under a
    /// budget, then the copy of the feedback the frames before wrote to
    /// its readback ring, and its clear, for the first `slots` 2D slots
    /// (`feedback.rs`).
    pub fn record_layers(
        &mut self,
        uploader: &mut Uploader,
        encoder: &mut wgpu::CommandEncoder,
        slots: u32,
    ) {
        self.writes.record(uploader, encoder);
        if let Some(feedback) = &mut self.feedback {
            feedback.record(encoder, slots, self.frames_recorded);
        }
    }

    /// Bytes of the pages (mips included) and of the feedback.
    pub fn size_bytes(&self) -> u64 {
        let feedback = self.feedback.as_ref().map_or(0, Feedback::size_bytes);
        self.pages.iter().map(LayerArray::size_bytes).sum::<u64>() + feedback
    }

    /// Queues the map's changes into the frame's upload.
    pub fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        self.locations.flush(device, batch);
    }

    /// Records how many frames have been recorded and finished; layers
    /// whose frames have all finished become reusable. Then, with a
    /// budget, reads the feedback that arrived (a texture seen needing more
    /// than its base layer is wanted by the frame being recorded) and runs
    /// the streamer for that frame.
    pub fn set_frames(&mut self, device: &wgpu::Device, recorded: u64, finished: u64) {
        self.frames_recorded = recorded;
        for page in &mut self.pages {
            page.recycle(finished);
        }
        if let (Some(feedback), Some(residency)) = (&mut self.feedback, &mut self.residency) {
            residency.wanted_by_feedback = 0;
            feedback.collect(|slot, code| {
                if code > BASE_LEVEL_CODE {
                    residency.want(slot, recorded, true);
                }
            });
        }
        self.stream(device);
    }

    fn versions(&self) -> [u64; 2] {
        [self.version, self.locations.version()]
    }

    /// Whether a page or the map's buffer was replaced since the bind group
    /// was built.
    pub fn outdated(&self) -> bool {
        self.built != self.versions()
    }

    /// Group 0 over the pages, the bound cube textures and samplers, and
    /// the map.
    pub fn bind_group(
        &mut self,
        device: &wgpu::Device,
        textures_cube: &SlotArray<TextureCubeSlot, wgpu::TextureView>,
        samplers: &SlotArray<SamplerSlot, wgpu::Sampler>,
    ) -> wgpu::BindGroup {
        let pages: Vec<&wgpu::TextureView> = self.pages.iter().map(LayerArray::view).collect();
        let cubes = textures_cube.bound();
        let samplers = samplers.bound();
        let entries = [
            wgpu::BindGroupEntry {
                binding: BINDING_PAGES,
                resource: wgpu::BindingResource::TextureViewArray(&pages),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_CUBES,
                resource: wgpu::BindingResource::TextureViewArray(&cubes),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_SAMPLERS,
                resource: wgpu::BindingResource::SamplerArray(&samplers),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_LOCATIONS,
                resource: self.locations.buffer().as_entire_binding(),
            },
        ];
        let mut entries = entries.to_vec();
        if let Some(feedback) = &self.feedback {
            entries.push(wgpu::BindGroupEntry {
                binding: BINDING_FEEDBACK,
                resource: feedback.buffer().as_entire_binding(),
            });
        }
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound texture pages"),
            layout: &self.layout,
            entries: &entries,
        });
        self.built = self.versions();
        group
    }
}

/// Group 0 with pages (`wgsl/heap.wgsl` under `TEXTURE_PAGES`), with the
/// texture feedback (`TEXTURE_FEEDBACK`) where `feedback`.
fn layout(
    device: &wgpu::Device,
    pages: u32,
    (textures_cube, samplers): (u32, u32),
    feedback: bool,
) -> wgpu::BindGroupLayout {
    let array = |binding, ty, count| fragment_entry(binding, ty, NonZeroU32::new(count));
    let storage = |binding, read_only| {
        fragment_entry(
            binding,
            wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            None,
        )
    };
    let mut entries = vec![
        array(BINDING_PAGES, filterable_texture(D2Array), pages),
        array(BINDING_CUBES, filterable_texture(Cube), textures_cube),
        array(
            BINDING_SAMPLERS,
            wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            samplers,
        ),
        storage(BINDING_LOCATIONS, true),
    ];
    if feedback {
        entries.push(storage(BINDING_FEEDBACK, false));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("unbound texture pages"),
        entries: &entries,
    })
}
