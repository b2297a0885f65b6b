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
//! - **Writes cost the add nothing:** adding a texture allocates a layer,
//!   keeps a copy of its texels and queues the write ([`LayerWrites`]);
//!   growing an array queues the copy of its layers. The next frame
//!   records them all, in order, into its own encoder before its passes
//!   (`ResourceHeap::record_layers`): level 0 through `Queue::write_texture`
//!   (it runs before the frame's commands), the resampling and the mip
//!   chain as render passes. No submission, no wait and no bind-group
//!   rebuild per add; the slot's map entry is written by the same frame,
//!   so no frame shows a layer before its write. A layer freed before any
//!   frame recorded its write drops the write and is reusable at once (no
//!   frame names it). A frame dropped unsubmitted
//!   loses nothing: the next frame records its writes again (the texels
//!   are kept until the frame is known to have run), as the table
//!   uploads do (`src/upload.rs`). Between two frames the queued writes
//!   are bounded: past 64 layers or 64 MiB the heap submits them itself,
//!   amortised over the textures written, with at most four such
//!   submissions in flight (a bulk load waits for the oldest). Small
//!   submissions matter: wgpu reuses command encoders for later frames,
//!   and one that recorded thousands of mip passes slows every frame that
//!   reuses it (`LayerWrites::submit_if_full`).

use crate::gpu_types::{
    TEXTURE_ARRAY_FORMATS, TEXTURE_ARRAY_SIZES, TEXTURE_LOCATION_ARRAY_SHIFT,
    TEXTURE_LOCATION_LAYER_MASK,
};
use std::collections::VecDeque;
use std::sync::Arc;

use crate::mipmaps::full_mip_count;
use crate::submission::{MAX_FRAMES_KEPT, Submission, SubmissionState};

use super::textures::{Rgba8, Uploader};
use super::{Mips, TextureDesc};

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

    /// A free layer, growing the array if full (the copy of every layer
    /// and mip is queued in `writes`, before any later write); `None` at
    /// `max_layers`.
    pub fn alloc(&mut self, device: &wgpu::Device, writes: &mut LayerWrites) -> Option<u32> {
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
            writes.queued.push(LayerOp::Grow {
                from: self.texture.clone(),
                to: texture.clone(),
                layers: capacity,
            });
            self.texture = texture;
            self.view = view;
        }
        self.used += 1;
        Some(self.used - 1)
    }

    /// Queues `texels` to be written into `layer` (resampled to the class,
    /// mips generated) by the next frame's [`LayerWrites::record`].
    /// (`texels` may be shared: a streamed texture's decoded image writes
    /// both its layers, `residency.rs`.)
    pub fn queue_write(&self, writes: &mut LayerWrites, layer: u32, texels: Arc<Texels>) {
        writes.queued_bytes += texels.data.len() as u64;
        writes.queued.push(LayerOp::Write {
            target: self.texture.clone(),
            layer,
            texels,
        });
    }

    /// Frees `layer`: at once if no frame has recorded its write yet (then
    /// no frame names it either: the frame that records a write also
    /// uploads the map entry; the write is dropped), otherwise once every
    /// frame recorded so far (`frames`) has finished.
    pub fn free(&mut self, writes: &mut LayerWrites, layer: u32, frames: u64) {
        if self.cancel_write(writes, layer) {
            self.free.push(layer);
        } else {
            self.free_after(layer, frames);
        }
    }

    /// Drops `layer`'s write if no frame has recorded it yet; whether it
    /// did.
    fn cancel_write(&self, writes: &mut LayerWrites, layer: u32) -> bool {
        let queued = writes.queued.iter().rposition(|op| {
            matches!(op, LayerOp::Write { target, layer: l, .. } if *l == layer && *target == self.texture)
        });
        let Some(index) = queued else {
            return false;
        };
        if let LayerOp::Write { texels, .. } = writes.queued.remove(index) {
            writes.queued_bytes -= texels.data.len() as u64;
        }
        true
    }

    /// Frees `layer` once `frames` frames have finished.
    fn free_after(&mut self, layer: u32, frames: u64) {
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

/// A texture's level 0 as the application gave it (tightly packed RGBA8
/// rows), kept until a frame records its write.
#[derive(Debug)]
pub(super) struct Texels {
    pub width: u32,
    pub height: u32,
    pub format: wgpu::TextureFormat,
    pub data: Box<[u8]>,
}

impl From<&TextureDesc<'_>> for Texels {
    fn from(desc: &TextureDesc<'_>) -> Self {
        Self {
            width: desc.width,
            height: desc.height,
            format: desc.format,
            data: desc.data.into(),
        }
    }
}

/// A change to the arrays' contents, in the order the heap made them.
#[derive(Clone, Debug)]
enum LayerOp {
    /// An array replaced by a larger one: its first `layers` layers copied.
    Grow {
        from: wgpu::Texture,
        to: wgpu::Texture,
        layers: u32,
    },
    /// A texture written into a layer of `target`, then its mips.
    Write {
        target: wgpu::Texture,
        layer: u32,
        texels: Arc<Texels>,
    },
}

/// The writes and growths queued since the last frame, and those of the
/// frames not yet known to have run (repeated if one is dropped
/// unsubmitted, as the table uploads are: `src/upload.rs`). See the module
/// docs.
#[derive(Debug)]
pub(super) struct LayerWrites {
    queued: Vec<LayerOp>,
    queued_bytes: u64,
    recorded: VecDeque<(Submission, Arc<[LayerOp]>)>,
    /// The heap's own submissions not yet waited for, oldest first.
    own_in_flight: VecDeque<wgpu::SubmissionIndex>,
    /// Mips rendered into the layer itself (pages); otherwise through a 2D
    /// staging texture copied in (tier C: GL cannot render into one layer
    /// through a 2D view).
    in_place: bool,
}

impl LayerWrites {
    pub fn new(in_place: bool) -> Self {
        Self {
            queued: Vec::new(),
            queued_bytes: 0,
            recorded: VecDeque::new(),
            own_in_flight: VecDeque::new(),
            in_place,
        }
    }

    /// Submits the queued writes at once (an own submission) when they
    /// pass [`QUEUED_LAYERS_LIMIT`] layers or [`QUEUED_BYTES_LIMIT`] of
    /// texels, and waits for the oldest of its own submissions while more
    /// than [`OWN_IN_FLIGHT`] are in flight. Many adds between two frames
    /// (a scene loaded before the first) so hold a bounded amount of texels
    /// and staging memory, and no command buffer grows large: wgpu keeps
    /// every command encoder it has made and reuses them for later frames,
    /// and one that once recorded thousands of mip passes costs every
    /// frame that reuses it milliseconds (`docs/PERFORMANCE.md`, "The heap's
    /// frame growth, found").
    pub fn submit_if_full(&mut self, uploader: &mut Uploader) {
        if self.queued.len() < QUEUED_LAYERS_LIMIT && self.queued_bytes < QUEUED_BYTES_LIMIT {
            return;
        }
        let device = uploader.device.clone();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("unbound texture layers"),
        });
        // An own submission is never lost: nothing to repeat later.
        let _ops = self.record_ops(uploader, &mut encoder);
        let index = uploader.queue.submit([encoder.finish()]);
        self.own_in_flight.push_back(index);
        while self.own_in_flight.len() > OWN_IN_FLIGHT {
            let oldest = self.own_in_flight.pop_front();
            // A lost device fails the next frame, which reports it.
            let _ = device.poll(wgpu::PollType::Wait {
                submission_index: oldest,
                timeout: None,
            });
        }
    }

    /// Records into `encoder` (the frame's, before its passes) the writes
    /// of any frame dropped unsubmitted and of the frames after it, then
    /// those queued since: each texture's level 0 (`Queue::write_texture`,
    /// which runs before the encoder's commands), resampled to its class
    /// unless it has exactly the class's size on pages, and its mips.
    pub fn record(&mut self, uploader: &mut Uploader, encoder: &mut wgpu::CommandEncoder) {
        let ops = self.record_ops(uploader, encoder);
        if ops.is_empty() {
            return;
        }
        if self.recorded.len() == MAX_FRAMES_KEPT {
            self.recorded.pop_front();
        }
        let submission = Submission::watch(encoder);
        self.recorded.push_back((submission, ops.into()));
    }

    /// [`Self::record`] without watching the encoder: the ops recorded.
    fn record_ops(
        &mut self,
        uploader: &mut Uploader,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Vec<LayerOp> {
        let mut ops = self.repeat_lost();
        ops.append(&mut self.queued);
        self.queued_bytes = 0;
        for op in &ops {
            match op {
                LayerOp::Grow { from, to, layers } => copy_layers(encoder, from, to, 0, *layers),
                LayerOp::Write {
                    target,
                    layer,
                    texels,
                } => write_layer(uploader, encoder, (target, *layer), texels, self.in_place),
            }
        }
        ops
    }

    /// Lets go of the frames that ran; returns the ops of the earliest
    /// lost frame and of every frame after it, in the order recorded.
    fn repeat_lost(&mut self) -> Vec<LayerOp> {
        use SubmissionState::{Done, Lost, Repeated};
        while self
            .recorded
            .front()
            .is_some_and(|(s, _)| matches!(s.state(), Done | Repeated))
        {
            self.recorded.pop_front();
        }
        let Some(first_lost) = self.recorded.iter().position(|(s, _)| s.state() == Lost) else {
            return Vec::new();
        };
        let mut repeated = Vec::new();
        for (submission, ops) in self.recorded.iter().skip(first_lost) {
            if submission.state() != Repeated {
                repeated.extend(ops.iter().cloned());
            }
            submission.mark_repeated();
        }
        repeated
    }
}

/// Texels queued between two frames past which the heap submits them
/// itself ([`LayerWrites::submit_if_full`]).
const QUEUED_BYTES_LIMIT: u64 = 64 << 20;
/// Layer writes and growths queued between two frames past which the heap
/// submits them itself: at most a few hundred passes per command buffer
/// (a write of a 64² layer is six mip passes).
const QUEUED_LAYERS_LIMIT: usize = 64;
/// The heap's own submissions in flight past which it waits for the
/// oldest: its staging memory and command encoders stay bounded.
const OWN_IN_FLIGHT: usize = 4;

/// Writes `texels` into `layer` of `target` and generates the layer's
/// mips: directly when they have exactly the layer's size on pages,
/// otherwise resampled from a texture of their own (see
/// [`LayerWrites::record`]).
fn write_layer(
    uploader: &mut Uploader,
    encoder: &mut wgpu::CommandEncoder,
    (target, layer): (&wgpu::Texture, u32),
    texels: &Texels,
    in_place: bool,
) {
    let size = target.width();
    let (device, queue) = (&uploader.device, &uploader.queue);
    if in_place && texels.width == size && texels.height == size {
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: target,
                mip_level: 0,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: 0,
                    z: layer,
                },
                aspect: wgpu::TextureAspect::All,
            },
            &texels.data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(size * 4),
                rows_per_image: Some(size),
            },
            wgpu::Extent3d {
                width: size,
                height: size,
                depth_or_array_layers: 1,
            },
        );
        uploader
            .mipmaps
            .generate_layer(device, encoder, target, layer);
        return;
    }
    let source = uploader.rgba8(&Rgba8 {
        label: Some("unbound texture layer source"),
        size: wgpu::Extent3d {
            width: texels.width,
            height: texels.height,
            depth_or_array_layers: 1,
        },
        format: texels.format,
        data: &texels.data,
        mips: Mips::None,
    });
    let (device, mipmaps) = (&uploader.device, &mut uploader.mipmaps);
    if in_place {
        mipmaps.blit(device, encoder, &source, target, layer);
        mipmaps.generate_layer(device, encoder, target, layer);
        return;
    }
    let staging = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("unbound texture array staging"),
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
        mip_level_count: target.mip_level_count(),
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: target.format(),
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    mipmaps.blit(device, encoder, &source, &staging, 0);
    mipmaps.generate(device, encoder, &staging);
    copy_layers(encoder, &staging, target, layer, 1);
}
