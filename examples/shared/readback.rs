//! Reading a colour texture back to the CPU with plain wgpu, for the
//! examples that write PNGs (`headless.rs`, `gltf_viewer.rs --png`).

use std::error::Error;

/// A copy of a 4-byte-per-texel texture into a buffer the CPU can map.
/// Rows of a texture-to-buffer copy start at multiples of
/// `COPY_BYTES_PER_ROW_ALIGNMENT` (256 bytes), so each row is padded.
pub struct Readback {
    buffer: wgpu::Buffer,
    row_bytes: usize,
    padded_row_bytes: usize,
}

impl Readback {
    pub fn record(
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Self {
        let row_bytes = texture.width() * 4;
        let padded_row_bytes = row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: u64::from(padded_row_bytes) * u64::from(texture.height()),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let layout = wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(padded_row_bytes),
            rows_per_image: None,
        };
        let destination = wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout,
        };
        encoder.copy_texture_to_buffer(texture.as_image_copy(), destination, texture.size());
        Self {
            buffer,
            row_bytes: row_bytes as usize,
            padded_row_bytes: padded_row_bytes as usize,
        }
    }

    /// Waits for the copy (submitted already) and returns the texels with
    /// the padding stripped.
    pub fn read(self, device: &wgpu::Device) -> Result<Vec<u8>, Box<dyn Error>> {
        let (sender, receiver) = std::sync::mpsc::channel();
        let slice = self.buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, move |result| {
            sender.send(result).unwrap();
        });
        device.poll(wgpu::PollType::wait_indefinitely())?;
        receiver.recv()??;
        let padded = slice.get_mapped_range()?;
        let rows = padded.chunks(self.padded_row_bytes);
        Ok(rows
            .flat_map(|row| &row[..self.row_bytes])
            .copied()
            .collect())
    }
}
