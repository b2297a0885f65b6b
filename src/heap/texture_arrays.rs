//! Tier C's texture storage: without binding arrays, every 2D texture is a
//! layer of one of six 2D texture arrays (`layers.rs`), one per size class
//! (64, 256, 1024 texels square) and format (sRGB, linear), all bound once
//! per frame with two fixed samplers (repeat, clamp-to-edge; both
//! trilinear). A storage buffer maps each heap slot to (array, layer), so
//! materials, handles and the material table are the same as in tiers A and
//! B.
//!
//! Quality cost: resampling to a size class and a full mip chain
//! (`layers.rs`), and every sampler becomes trilinear repeat or clamp. GL
//! pairs each texture binding with exactly one sampler, so each array is
//! bound twice (repeat, clamp): 12 texture units of the 16 a stage has.
//!
//! Each array grows up to the device's `max_texture_array_layers` (unbound
//! requests the adapter's maximum in tier C; 2048 on Mesa's GL): past that,
//! adding a texture of that size class and format is a typed capacity
//! error.

use crate::gpu_table::GpuTable;
use crate::gpu_types::{
    BINDING_CLAMP_ARRAYS, BINDING_REPEAT_ARRAYS, BINDING_SAMPLER_CLAMP, BINDING_SAMPLER_MODES,
    BINDING_SAMPLER_REPEAT, BINDING_TEXTURE_LOCATIONS, SAMPLER_MODE_CLAMP, SAMPLER_MODE_REPEAT,
    TEXTURE_ARRAY_FORMATS, TEXTURE_ARRAY_SIZES, TEXTURE_ARRAYS, TEXTURE_LOCATION_LAYER_MASK,
    texture_array,
};
use crate::handles::{CapacityError, TextureHandle};
use crate::upload::UploadBatch;

use super::layers::{
    LayerArray, LayerWrites, Texels, decode_location, encode_location, size_class,
};
use super::layout::{filterable_texture, fragment_entry};
use super::slots::Slots2d;
use super::textures::Uploader;
use super::{HeapError, SamplerDesc, TEXTURE_MISSING, TextureDesc};

/// The six arrays and the two samplers. See the module docs.
#[derive(Debug)]
struct ClassArrays {
    arrays: Vec<LayerArray>,
    repeat: wgpu::Sampler,
    clamp: wgpu::Sampler,
    /// Bumped whenever an array is replaced (the bind group must follow).
    version: u64,
    /// Layer writes and array growths not yet recorded by a frame.
    writes: LayerWrites,
}

impl ClassArrays {
    fn new(device: &wgpu::Device) -> Self {
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
        let max_layers = device
            .limits()
            .max_texture_array_layers
            .min(TEXTURE_LOCATION_LAYER_MASK + 1);
        let arrays: Vec<LayerArray> = TEXTURE_ARRAY_SIZES
            .iter()
            .flat_map(|&size| {
                TEXTURE_ARRAY_FORMATS
                    .iter()
                    .map(move |&format| (size, format))
            })
            .map(|(size, format)| LayerArray::new(device, size, format, max_layers))
            .collect();
        debug_assert_eq!(arrays.len(), TEXTURE_ARRAYS as usize);
        Self {
            arrays,
            repeat: sampler(wgpu::AddressMode::Repeat),
            clamp: sampler(wgpu::AddressMode::ClampToEdge),
            version: 0,
            writes: LayerWrites::new(false),
        }
    }

    /// The array views, in binding order.
    fn views(&self) -> Vec<&wgpu::TextureView> {
        self.arrays.iter().map(LayerArray::view).collect()
    }

    /// Queues `texels` (any size) into a free layer of the fitting array
    /// (resampled, mips generated: recorded by the next frame,
    /// `layers.rs`); returns the encoded location, `None` if that array is
    /// at the device's layer limit.
    fn insert(&mut self, device: &wgpu::Device, texels: Texels) -> Option<u32> {
        let (class, format) = size_class(texels.width, texels.height, texels.format)?;
        let index = texture_array(class, format) as usize;
        let array = &mut self.arrays[index];
        let before = array.layers();
        let layer = array.alloc(device, &mut self.writes)?;
        if array.layers() != before {
            self.version += 1;
        }
        array.queue_write(&mut self.writes, layer, texels.into());
        Some(encode_location(index as u32, layer))
    }

    /// Frees a layer once `frames` frames have finished.
    fn remove(&mut self, location: u32, frames: u64) {
        let (array, layer) = decode_location(location);
        let array = &mut self.arrays[array as usize];
        array.free(&mut self.writes, layer, frames);
    }

    /// Makes layers whose frames have finished reusable.
    fn recycle(&mut self, frames_finished: u64) {
        for array in &mut self.arrays {
            array.recycle(frames_finished);
        }
    }

    /// Bytes of the arrays (mips included).
    fn size_bytes(&self) -> u64 {
        self.arrays.iter().map(LayerArray::size_bytes).sum()
    }
}

/// Tier C's storage: the six arrays plus the slot-to-layer and
/// sampler-slot-to-address-mode maps the shader reads.
#[derive(Debug)]
pub(super) struct TextureArrays {
    layout: wgpu::BindGroupLayout,
    classes: ClassArrays,
    /// Each 2D slot's location (`array << TEXTURE_LOCATION_ARRAY_SHIFT | layer`).
    locations: GpuTable<u32>,
    /// Each sampler slot's mode: `SAMPLER_MODE_REPEAT` or `SAMPLER_MODE_CLAMP`.
    sampler_modes: GpuTable<u32>,
    /// Frames recorded so far, the one being recorded included: the layers'
    /// reuse rule.
    frames_recorded: u64,
    /// The versions the bind group was last built from.
    built: [u64; 3],
}

impl TextureArrays {
    /// The arrays and maps for the given number of 2D and sampler slots.
    pub fn new(device: &wgpu::Device, textures_2d: u32, samplers: u32) -> Self {
        Self {
            layout: layout(device),
            classes: ClassArrays::new(device),
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
        }
    }

    pub fn layout(&self) -> &wgpu::BindGroupLayout {
        &self.layout
    }

    /// Queues level 0 into a layer of the fitting array (resampled, with
    /// its own mip chain, by the next frame) and maps the lowest free slot
    /// to it.
    pub fn add_2d(
        &mut self,
        uploader: &mut Uploader,
        slots: &mut Slots2d,
        desc: &TextureDesc<'_>,
    ) -> Result<TextureHandle, HeapError> {
        let Some(location) = self.classes.insert(&uploader.device, Texels::from(desc)) else {
            if size_class(desc.width, desc.height, desc.format).is_none() {
                return Err(HeapError::UnsupportedFormat {
                    format: desc.format,
                });
            }
            return Err(CapacityError {
                kind: "texture array layer",
                capacity: uploader.device.limits().max_texture_array_layers,
            }
            .into());
        };
        self.classes.writes.submit_if_full(uploader);
        let handle = slots.insert((), 0)?;
        self.locations.set(handle.slot(), location);
        Ok(handle)
    }

    /// Records the queued layer writes into the frame's encoder.
    pub fn record_layers(&mut self, uploader: &mut Uploader, encoder: &mut wgpu::CommandEncoder) {
        self.classes.writes.record(uploader, encoder);
    }

    /// Frees a slot's layer (reused once every frame recorded so far has
    /// finished) and maps the slot to the "missing" texture.
    pub fn remove_2d(&mut self, slot: u32) {
        let location = *self.locations.get(slot).expect("a live slot");
        self.classes.remove(location, self.frames_recorded);
        let missing = *self.locations.get(TEXTURE_MISSING).expect("reserved slot");
        self.locations.set(slot, missing);
    }

    /// Maps a sampler slot to the repeating or the clamping sampler.
    pub fn set_sampler(&mut self, slot: u32, desc: &SamplerDesc) {
        let mode = if desc.clamps() {
            SAMPLER_MODE_CLAMP
        } else {
            SAMPLER_MODE_REPEAT
        };
        self.sampler_modes.set(slot, mode);
    }

    /// Bytes of the arrays (mips included).
    pub fn size_bytes(&self) -> u64 {
        self.classes.size_bytes()
    }

    /// Queues the maps' changes into the frame's upload.
    pub fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        self.locations.flush(device, batch);
        self.sampler_modes.flush(device, batch);
    }

    /// Records how many frames have been recorded and finished; layers
    /// whose frames have all finished become reusable.
    pub fn set_frames(&mut self, recorded: u64, finished: u64) {
        self.frames_recorded = recorded;
        self.classes.recycle(finished);
    }

    fn versions(&self) -> [u64; 3] {
        [
            self.classes.version,
            self.locations.version(),
            self.sampler_modes.version(),
        ]
    }

    /// Whether an array or a map's buffer was replaced since the bind group
    /// was built.
    pub fn outdated(&self) -> bool {
        self.built != self.versions()
    }

    /// Group 0: each array twice (GL pairs a texture with one sampler:
    /// repeat, clamp), the two samplers and the two maps.
    pub fn bind_group(&mut self, device: &wgpu::Device) -> wgpu::BindGroup {
        let views = self.classes.views();
        let arrays = |first: u32| {
            views
                .iter()
                .zip(first..)
                .map(|(view, binding)| wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::TextureView(view),
                })
        };
        let mut entries: Vec<wgpu::BindGroupEntry<'_>> = arrays(BINDING_REPEAT_ARRAYS)
            .chain(arrays(BINDING_CLAMP_ARRAYS))
            .collect();
        entries.extend([
            wgpu::BindGroupEntry {
                binding: BINDING_SAMPLER_REPEAT,
                resource: wgpu::BindingResource::Sampler(&self.classes.repeat),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_SAMPLER_CLAMP,
                resource: wgpu::BindingResource::Sampler(&self.classes.clamp),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_TEXTURE_LOCATIONS,
                resource: self.locations.buffer().as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_SAMPLER_MODES,
                resource: self.sampler_modes.buffer().as_entire_binding(),
            },
        ]);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("unbound texture arrays"),
            layout: &self.layout,
            entries: &entries,
        });
        self.built = self.versions();
        group
    }
}

/// Tier C's group 0: six texture arrays bound once per sampler, two
/// samplers, the slot-to-layer map and the sampler modes
/// (`wgsl/heap_arrays.wgsl`; the bindings are `gpu_types`' `BINDING_*`).
fn layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let entry = |binding, ty| fragment_entry(binding, ty, None);
    let array = filterable_texture(wgpu::TextureViewDimension::D2Array);
    let sampler = wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering);
    let map = wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only: true },
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let arrays = [BINDING_REPEAT_ARRAYS, BINDING_CLAMP_ARRAYS]
        .into_iter()
        .flat_map(|first| first..first + TEXTURE_ARRAYS);
    let mut entries: Vec<wgpu::BindGroupLayoutEntry> =
        arrays.map(|binding| entry(binding, array)).collect();
    entries.extend([
        entry(BINDING_SAMPLER_REPEAT, sampler),
        entry(BINDING_SAMPLER_CLAMP, sampler),
        entry(BINDING_TEXTURE_LOCATIONS, map),
        entry(BINDING_SAMPLER_MODES, map),
    ]);
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("unbound texture arrays"),
        entries: &entries,
    })
}
