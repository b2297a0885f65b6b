//! Reading a rendered texture back to the CPU (headless renders, tests,
//! screenshots).

/// Why [`TextureReadback::read`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadbackError {
    /// Waiting for the device failed.
    #[error("waiting for the copy: {0}")]
    Poll(#[from] wgpu::PollError),
    /// The buffer could not be mapped.
    #[error("mapping the copy: {0}")]
    Map(String),
}

/// A texture's contents (4 bytes per texel) on their way to the CPU, for
/// headless rendering and tests: [`Self::record`] a copy into the frame's
/// encoder, submit it, then [`Self::read`] waits and returns the rows packed
/// tightly (`width * 4` bytes each).
#[derive(Debug)]
pub struct TextureReadback {
    buffer: wgpu::Buffer,
    padded_row: u32,
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The texture's format (e.g. BGRA byte order for a window's surface).
    pub format: wgpu::TextureFormat,
}

impl TextureReadback {
    /// Records a copy of mip level 0 of `texture` into a new buffer.
    pub fn record(
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Self {
        let padded_row = (texture.width() * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("unbound readback"),
            size: u64::from(padded_row * texture.height()),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                depth_or_array_layers: 1,
                ..texture.size()
            },
        );
        Self {
            buffer,
            padded_row,
            width: texture.width(),
            height: texture.height(),
            format: texture.format(),
        }
    }

    /// Waits for the copy (submitted earlier) and returns the texels.
    pub fn read(&self, device: &wgpu::Device) -> Result<Vec<u8>, ReadbackError> {
        self.buffer.map_async(wgpu::MapMode::Read, .., |_| {});
        device.poll(wgpu::PollType::wait_indefinitely())?;
        let data = self
            .buffer
            .get_mapped_range(..)
            .map_err(|e| ReadbackError::Map(e.to_string()))?;
        let row = (self.width * 4) as usize;
        let mut texels = Vec::with_capacity(row * self.height as usize);
        for y in 0..self.height as usize {
            let start = y * self.padded_row as usize;
            texels.extend_from_slice(&data[start..start + row]);
        }
        drop(data);
        self.buffer.unmap();
        Ok(texels)
    }
}
