//! Reading the visibility buffer's id target back.

use unbound::Renderer;

use super::*;

/// The visibility ids of the last frame, per pixel (object slot + 1,
/// arena triangle with the late bit), read back
/// (`Renderer::visibility_ids_texture`): shared by `tests/visibility.rs`
/// and `tests/compute_raster.rs`.
pub fn read_visibility_ids(gpu: &Gpu, renderer: &Renderer) -> Vec<[u32; 2]> {
    let texture = renderer
        .visibility_ids_texture()
        .expect("the visibility pass ran");
    let (width, height) = (texture.width(), texture.height());
    let row = (width * 8).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("ids readback"),
        size: u64::from(row * height),
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: None,
            },
        },
        texture.size(),
    );
    gpu.queue.submit([encoder.finish()]);
    let bytes = gpu.read_buffer(&buffer, 0, u64::from(row * height));
    let mut ids = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let at = (y * row + x * 8) as usize;
            let word = |i: usize| u32::from_le_bytes(bytes[at + i..at + i + 4].try_into().unwrap());
            ids.push([word(0), word(4)]);
        }
    }
    ids
}
