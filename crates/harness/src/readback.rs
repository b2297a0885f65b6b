//! Reading a rendered texture back to the CPU (headless renders, tests,
//! screenshots).
//!
//! Sizes are computed in `u64` with checked arithmetic ([`ReadbackLayout`]):
//! a 32768 x 32768 texture needs exactly 4 GiB, one byte more than `u32`
//! holds. A copy larger than the device's `max_buffer_size`, or than this
//! machine's address space, is a typed error, never a wrapped size.

/// Bytes per texel that [`TextureReadback`] copies (RGBA or BGRA, 8 bits).
const TEXEL_BYTES: u64 = 4;

/// Why a [`TextureReadback`] could not be recorded or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadbackError {
    /// Waiting for the device failed.
    #[error("waiting for the copy: {0}")]
    Poll(#[from] wgpu::PollError),
    /// The buffer could not be mapped.
    #[error("mapping the copy: {0}")]
    Map(String),
    /// One padded row does not fit the `u32` wgpu takes for `bytes_per_row`.
    #[error("a row of {width} texels is too long to copy")]
    RowTooLong {
        /// Texels per row.
        width: u32,
    },
    /// The copy needs a buffer larger than the device allows.
    #[error(
        "reading back {width}x{height} needs {size_bytes} bytes; max_buffer_size is {max_buffer_size}"
    )]
    TooLarge {
        /// Texels per row.
        width: u32,
        /// Rows.
        height: u32,
        /// Bytes the copy needs.
        size_bytes: u64,
        /// The device's limit.
        max_buffer_size: u64,
    },
    /// The texels do not fit this machine's address space.
    #[error("{size_bytes} bytes of texels do not fit this machine's address space")]
    AddressSpace {
        /// Bytes of texels.
        size_bytes: u64,
    },
}

/// Where a `width` x `height` texture's texels lie in a readback buffer:
/// rows padded to `COPY_BYTES_PER_ROW_ALIGNMENT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadbackLayout {
    /// Bytes of one row in the buffer (padded).
    pub padded_row_bytes: u32,
    /// Bytes of one row of texels (unpadded).
    pub row_bytes: u64,
    /// Bytes of the buffer.
    pub size_bytes: u64,
}

impl ReadbackLayout {
    /// The layout for `width` x `height` texels, refused if a row is too
    /// long for wgpu or the buffer larger than `max_buffer_size`.
    pub fn new(width: u32, height: u32, max_buffer_size: u64) -> Result<Self, ReadbackError> {
        let row_bytes = u64::from(width) * TEXEL_BYTES;
        let padded_row_bytes = row_bytes
            .checked_next_multiple_of(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT))
            .and_then(|bytes| u32::try_from(bytes).ok())
            .ok_or(ReadbackError::RowTooLong { width })?;
        // At most (2^32 - 1) * (2^32 - 1): no u64 overflow.
        let size_bytes = u64::from(padded_row_bytes) * u64::from(height);
        if size_bytes > max_buffer_size {
            return Err(ReadbackError::TooLarge {
                width,
                height,
                size_bytes,
                max_buffer_size,
            });
        }
        Ok(Self {
            padded_row_bytes,
            row_bytes,
            size_bytes,
        })
    }
}

/// A texture's contents (4 bytes per texel) on their way to the CPU, for
/// headless rendering and tests: [`Self::record`] a copy into the frame's
/// encoder, submit it, then [`Self::read`] waits and returns the rows packed
/// tightly (`width * 4` bytes each).
#[derive(Debug)]
pub struct TextureReadback {
    buffer: wgpu::Buffer,
    layout: ReadbackLayout,
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// The texture's format (e.g. BGRA byte order for a window's surface).
    pub format: wgpu::TextureFormat,
}

impl TextureReadback {
    /// Records a copy of mip level 0 of `texture` into a new buffer;
    /// refused (nothing recorded) if the buffer would exceed the device's
    /// `max_buffer_size`.
    pub fn record(
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Result<Self, ReadbackError> {
        let layout = ReadbackLayout::new(
            texture.width(),
            texture.height(),
            device.limits().max_buffer_size,
        )?;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("unbound readback"),
            size: layout.size_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(layout.padded_row_bytes),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                depth_or_array_layers: 1,
                ..texture.size()
            },
        );
        Ok(Self {
            buffer,
            layout,
            width: texture.width(),
            height: texture.height(),
            format: texture.format(),
        })
    }

    /// Waits for the copy (submitted earlier) and returns the texels.
    pub fn read(&self, device: &wgpu::Device) -> Result<Vec<u8>, ReadbackError> {
        let in_memory = |size_bytes: u64| {
            usize::try_from(size_bytes).map_err(|_| ReadbackError::AddressSpace { size_bytes })
        };
        let row = in_memory(self.layout.row_bytes)?;
        let padded_row = in_memory(u64::from(self.layout.padded_row_bytes))?;
        in_memory(self.layout.size_bytes)?;
        // `row_bytes` fits `u32` (see `ReadbackLayout::new`): no overflow.
        let texels_len = in_memory(self.layout.row_bytes * u64::from(self.height))?;
        self.buffer.map_async(wgpu::MapMode::Read, .., |_| {});
        device.poll(wgpu::PollType::wait_indefinitely())?;
        let data = self
            .buffer
            .get_mapped_range(..)
            .map_err(|e| ReadbackError::Map(e.to_string()))?;
        let mut texels = Vec::with_capacity(texels_len);
        // wgpu textures are at least one texel wide; `max(1)` only keeps
        // `chunks` from panicking on a layout that is not.
        for padded in data.chunks(padded_row.max(1)) {
            texels.extend_from_slice(&padded[..row]);
        }
        drop(data);
        self.buffer.unmap();
        Ok(texels)
    }
}

/// Copies `size` bytes of `buffer` (it needs `COPY_SRC`) from byte
/// `offset` to the CPU, submitting the copy and waiting for the device.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, ReadbackError> {
    if size == 0 {
        return Ok(Vec::new());
    }
    usize::try_from(size).map_err(|_| ReadbackError::AddressSpace { size_bytes: size })?;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("unbound buffer readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
    queue.submit([encoder.finish()]);
    staging.map_async(wgpu::MapMode::Read, .., |_| {});
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let bytes = staging
        .get_mapped_range(..)
        .map_err(|e| ReadbackError::Map(e.to_string()))?
        .to_vec();
    staging.unmap();
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 32768 x 32768 texels take 4 GiB, one byte more than `u32` holds: the
    /// size is exact, and refused only by a limit below it.
    #[test]
    fn sizes_past_u32_are_exact_and_checked() {
        let side = 32_768;
        let layout = ReadbackLayout::new(side, side, u64::MAX).unwrap();
        assert_eq!(layout.padded_row_bytes, side * 4);
        assert_eq!(layout.size_bytes, 1 << 32);
        assert!(matches!(
            ReadbackLayout::new(side, side, u64::from(u32::MAX)),
            Err(ReadbackError::TooLarge {
                size_bytes: 0x1_0000_0000,
                ..
            })
        ));
        // Rows are padded to 256 bytes; the padding counts.
        let odd = ReadbackLayout::new(65, 3, u64::MAX).unwrap();
        assert_eq!((odd.row_bytes, odd.padded_row_bytes), (260, 512));
        assert_eq!(odd.size_bytes, 1536);
        // A row wgpu cannot describe.
        assert!(matches!(
            ReadbackLayout::new(u32::MAX, 1, u64::MAX),
            Err(ReadbackError::RowTooLong { width: u32::MAX })
        ));
    }
}
