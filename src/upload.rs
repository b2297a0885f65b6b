//! Uploads recorded into the frame's command encoder.
//!
//! Every table change of a frame is packed into one staging buffer and
//! copied with `copy_buffer_to_buffer` inside the frame's encoder. So a frame
//! sees exactly the table contents of the moment it was recorded: changes
//! made afterwards go into the next frame's encoder, never into a frame
//! already recorded but not yet submitted (which `Queue::write_buffer` would
//! do, since its writes run before the next submission's command buffers).

use wgpu::util::DeviceExt;

#[derive(Debug)]
struct Copy {
    target: wgpu::Buffer,
    target_offset: u64,
    source_offset: u64,
    size: u64,
}

/// What an upload recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct UploadStats {
    /// Bytes copied from the CPU.
    pub bytes_uploaded: u64,
    /// Commands recorded into the encoder (copies).
    pub commands_recorded: u32,
}

/// The copies one frame records.
#[derive(Debug, Default)]
pub(crate) struct UploadBatch {
    data: Vec<u8>,
    copies: Vec<Copy>,
}

impl UploadBatch {
    /// Queues `bytes` to be written at `offset` of `target`.
    pub fn write(&mut self, target: &wgpu::Buffer, offset: u64, bytes: &[u8]) {
        debug_assert!(offset.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT));
        if bytes.is_empty() {
            return;
        }
        let source_offset = self.data.len() as u64;
        self.data.extend_from_slice(bytes);
        // Copy sizes must be multiples of 4; our structs always are, but pad
        // defensively (the pad bytes land past the written range only if the
        // caller passed an unaligned slice, which tables never do).
        let size = (bytes.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        self.data.resize((source_offset + size) as usize, 0);
        self.copies.push(Copy {
            target: target.clone(),
            target_offset: offset,
            source_offset,
            size,
        });
    }

    /// Records all copies into `encoder`.
    pub fn record(self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder) -> UploadStats {
        if self.copies.is_empty() {
            return UploadStats::default();
        }
        let staging = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("unbound upload staging"),
            contents: &self.data,
            usage: wgpu::BufferUsages::COPY_SRC,
        });
        for copy in &self.copies {
            encoder.copy_buffer_to_buffer(
                &staging,
                copy.source_offset,
                &copy.target,
                copy.target_offset,
                copy.size,
            );
        }
        UploadStats {
            bytes_uploaded: self.data.len() as u64,
            commands_recorded: self.copies.len() as u32,
        }
    }
}
