//! The camera's texture feedback: which streamed textures the shading
//! sampled, and how finely (issue 30, stage 3; the paged heap under a
//! budget only, `residency.rs`).
//!
//! - **On the GPU.** Group 0 binds one `u32` per 2D slot
//!   (`wgsl/heap.wgsl` with `TEXTURE_FEEDBACK`, binding
//!   [`super::pages`]'s `BINDING_FEEDBACK`). The shading of the camera's
//!   surfaces (the draw pass and the visibility buffer's material pass:
//!   `sample_material`, `wgsl/shade.wgsl`) writes, for each texture it
//!   samples, `atomicMax(feedback[slot], code)` (only once an `atomicLoad`
//!   shows the slot holds less: once a frame's first fragments have
//!   written their texture's code, most fragments only load, so the
//!   atomics contend only while a code grows, not on every sample of a
//!   texture many pixels share) with
//!   `code = clamp(ceil(log2(1 / rho)) + 1, 1, MAX_LEVEL_CODE)`, `rho` the
//!   larger length of the UV's screen derivatives (UVs normalised, so
//!   `1 / rho` is the texels across the texture the pixel's footprint
//!   asks for, whatever the texture's size): code `c` asks for a
//!   resolution of `2^(c - 1)`; 0 (cleared) is "not seen". Sampled, not per
//!   pixel: only fragments with `((x ^ y) + frame) & 7 == 0` write, the
//!   rotation (`frame % 8`, in the frame flags,
//!   `FRAME_FLAG_FEEDBACK_SHIFT`) moving the pattern so that every pixel
//!   writes once in 8 frames: a texture that covers a pixel is seen within
//!   8 frames. The variants without the define carry none of it, so only
//!   a renderer that streams pays.
//! - **Early depth tests.** A fragment shader that stores and does not
//!   force early tests runs for every rasterised fragment, those the depth
//!   test then rejects included (Vulkan's rule): the draw pass would shade
//!   all its overdraw, after a depth pre-pass too (the H200 measured +1.34
//!   ms of draw pass at 100k draw-bound, +1.96 ms with the pre-pass:
//!   `docs/PERFORMANCE.md`). So the draw pass forces them
//!   (`@early_depth_test(force)` on `fs_main`, the `EARLY_DEPTH` variants)
//!   wherever that cannot change the image, which
//!   `CameraFeedback::choose` (`src/shaders/feedback.rs`) alone decides: a
//!   forced test writes depth before the shader runs, so a fragment
//!   `fs_main` then discards (an alpha-masked material's hole) would keep
//!   its depth. After a depth pre-pass (the late occlusion phase's too)
//!   the opaque and double-sided buckets test for equality and write no
//!   depth, and the blended bucket never writes depth: forced. Without
//!   one, the opaque and double-sided buckets write depth and hold the
//!   masked materials: forced only while no masked material lives (the
//!   renderer builds the other variant when one appears). It needs
//!   `Features::SHADER_EARLY_DEPTH_TEST` (requested where the adapter has
//!   it: Vulkan and GL; DX12 and Metal lack it and shade as before). With
//!   forced tests a hidden surface's texture is not asked for at all (a
//!   fragment rejected early never runs). The visibility buffer's material
//!   pass shades each pixel's nearest surface once, its fragment pass and
//!   its compute pass alike, and needs none of this.
//! - **Back to the CPU.** Each frame, before its passes, copies the
//!   buffer (what the frames before it wrote, the live prefix of slots) to
//!   a free buffer of a small ring ([`RING`]) and clears it; the copy is
//!   mapped once that frame's work is done (`map_buffer_on_submit`,
//!   `submission::MapState`, as `src/readback.rs` does). A later frame
//!   reads whatever has arrived, never waiting; with every ring buffer in
//!   flight the copy and the clear wait a frame (the writes accumulate:
//!   `atomicMax`). So the streamer hears of a frame's needs two frames
//!   later at the earliest (the next frame copies, the one after reads).
//! - **What the streamer makes of it.** A slot seen with a code above
//!   [`BASE_LEVEL_CODE`] (the base layer, 64², gives less than asked) is
//!   wanted in the frame that reads it (`residency.rs`); a slot seen at or
//!   below it is not (its base layer is enough).

use crate::submission::MapState;

/// Ring buffers the feedback is copied into.
pub const RING: usize = 3;

/// The finest level code the shading writes (a resolution of 2^15).
pub const MAX_LEVEL_CODE: u32 = 16;

/// The code of the base layer's resolution (64 = 2^6: code 7); a texture
/// seen with a larger code needs its full layer.
pub const BASE_LEVEL_CODE: u32 = 7;

/// The level code the shading writes for a footprint of `rho` (the larger
/// length of the UV's screen derivatives), the CPU twin of
/// `wgsl/heap.wgsl`'s `feedback_code`.
pub fn level_code(rho: f32) -> u32 {
    let needed = (1.0 / rho.max(1e-9)).log2().ceil() + 1.0;
    needed.clamp(1.0, MAX_LEVEL_CODE as f32) as u32
}

#[derive(Debug)]
struct Staging {
    buffer: wgpu::Buffer,
    state: MapState,
    /// Slots copied.
    slots: u32,
    /// The frame that copied it.
    frame: u64,
}

/// The feedback buffer and its readback ring. See the module docs.
#[derive(Debug)]
pub(super) struct Feedback {
    buffer: wgpu::Buffer,
    ring: Vec<Staging>,
    /// The newest read frame's codes, by slot, and its frame.
    latest: (Vec<u32>, u64),
}

impl Feedback {
    /// Room for `slots` 2D slots.
    pub fn new(device: &wgpu::Device, slots: u32) -> Self {
        let size = u64::from(slots.max(1)) * 4;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("unbound texture feedback"),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let ring = (0..RING)
            .map(|_| Staging {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("unbound texture feedback readback"),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                state: MapState::default(),
                slots: 0,
                frame: 0,
            })
            .collect();
        Self {
            buffer,
            ring,
            latest: (Vec::new(), 0),
        }
    }

    /// The buffer group 0 binds.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Copies the first `slots` entries into a free ring buffer, mapped
    /// once `frame`'s work is done, and clears the buffer for this frame's
    /// passes; nothing while every ring buffer is in flight.
    pub fn record(&mut self, encoder: &mut wgpu::CommandEncoder, slots: u32, frame: u64) {
        let capacity = (self.buffer.size() / 4) as u32;
        let slots = slots.clamp(1, capacity);
        let Some(staging) = self.ring.iter_mut().find(|s| s.state.is_free()) else {
            return;
        };
        let bytes = u64::from(slots) * 4;
        encoder.copy_buffer_to_buffer(&self.buffer, 0, &staging.buffer, 0, bytes);
        encoder.clear_buffer(&self.buffer, 0, Some(bytes));
        staging.slots = slots;
        staging.frame = frame;
        let guard = staging.state.in_flight();
        encoder.map_buffer_on_submit(&staging.buffer, wgpu::MapMode::Read, ..bytes, move |r| {
            guard.settle(r.is_ok());
        });
    }

    /// Reads every ring buffer that has arrived, oldest first, calling
    /// `seen(slot, code)` for each slot seen; keeps the newest for
    /// [`Self::latest`]. Never waits.
    pub fn collect(&mut self, mut seen: impl FnMut(u32, u32)) {
        let mut arrived: Vec<usize> = (0..self.ring.len())
            .filter(|&i| self.ring[i].state.is_ready())
            .collect();
        arrived.sort_by_key(|&i| self.ring[i].frame);
        for i in arrived {
            let staging = &self.ring[i];
            let bytes = u64::from(staging.slots) * 4;
            let codes: Vec<u32> = {
                let mapped = staging
                    .buffer
                    .get_mapped_range(..bytes)
                    .expect("mapped by callback");
                bytemuck::pod_collect_to_vec(&mapped)
            };
            staging.buffer.unmap();
            staging.state.free();
            for (slot, &code) in codes.iter().enumerate() {
                if code > 0 {
                    seen(slot as u32, code);
                }
            }
            if staging.frame >= self.latest.1 {
                self.latest = (codes, staging.frame);
            }
        }
    }

    /// Bytes of the buffer and its ring.
    pub fn size_bytes(&self) -> u64 {
        self.buffer.size() * (1 + RING as u64)
    }

    /// The newest read feedback's level code of `slot` (0: not seen).
    pub fn latest(&self, slot: u32) -> u32 {
        self.latest.0.get(slot as usize).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Code `c` asks for a resolution of `2^(c - 1)`: 64 texels across the
    /// texture is the base layer's code, 65 one more.
    #[test]
    fn level_codes() {
        assert_eq!(level_code(1.0 / 64.0), BASE_LEVEL_CODE);
        assert_eq!(level_code(1.0 / 65.0), BASE_LEVEL_CODE + 1);
        assert_eq!(level_code(1.0 / 33.0), BASE_LEVEL_CODE);
        assert_eq!(level_code(1.0 / 32.0), BASE_LEVEL_CODE - 1);
        assert_eq!(level_code(4.0), 1);
        assert_eq!(level_code(0.0), MAX_LEVEL_CODE);
    }
}
