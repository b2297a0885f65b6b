//! Uploads recorded into the frame's command encoder.
//!
//! Every table change of a frame is packed into one staging buffer (several
//! when the frame uploads more than the device's `max_buffer_size`: each
//! table fits that limit, their sum need not) and copied with
//! `copy_buffer_to_buffer` inside the frame's encoder. So a frame
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

    /// Records all copies into `encoder`, from staging buffers of at most
    /// the device's `max_buffer_size` each (a copy that straddles two is
    /// split).
    pub fn record(self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder) -> UploadStats {
        if self.copies.is_empty() {
            return UploadStats::default();
        }
        let chunk_bytes = staging_chunk_bytes(device.limits().max_buffer_size);
        let staging: Vec<wgpu::Buffer> = self
            .data
            .chunks(usize::try_from(chunk_bytes).unwrap_or(usize::MAX))
            .map(|contents| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("unbound upload staging"),
                    contents,
                    usage: wgpu::BufferUsages::COPY_SRC,
                })
            })
            .collect();
        let mut commands_recorded = 0;
        for copy in &self.copies {
            let mut done = 0;
            while done < copy.size {
                let source = copy.source_offset + done;
                let (chunk, offset) = (source / chunk_bytes, source % chunk_bytes);
                let size = (copy.size - done).min(chunk_bytes - offset);
                encoder.copy_buffer_to_buffer(
                    &staging[chunk as usize],
                    offset,
                    &copy.target,
                    copy.target_offset + done,
                    size,
                );
                done += size;
                commands_recorded += 1;
            }
        }
        UploadStats {
            bytes_uploaded: self.data.len() as u64,
            commands_recorded,
        }
    }
}

/// The size of one staging buffer: the device's largest buffer, rounded
/// down to the copy alignment so that every copy's offsets stay aligned.
fn staging_chunk_bytes(max_buffer_size: u64) -> u64 {
    (max_buffer_size & !(wgpu::COPY_BUFFER_ALIGNMENT - 1)).max(wgpu::COPY_BUFFER_ALIGNMENT)
}
