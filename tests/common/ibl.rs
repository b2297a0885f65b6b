//! Reading back the environment maps (`passes::prefilter`): half-float
//! textures and the diffuse spherical-harmonics coefficients.

use std::time::Instant;

use glam::{Vec3, Vec4};
use unbound::lighting::{Environment, PrefilterSettings};
use unbound::passes::prefilter::Prefilter;

use super::Gpu;

/// A half float's value.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 => f32::INFINITY,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Texels of one mip and layer of an `Rgba16Float` texture.
pub fn read_rgba16f(gpu: &Gpu, texture: &wgpu::Texture, mip: u32, layer: u32) -> Vec<Vec4> {
    let side = (texture.width() >> mip).max(1);
    let row = side * 8;
    let padded = row.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: u64::from(padded * side),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: mip,
            origin: wgpu::Origin3d {
                x: 0,
                y: 0,
                z: layer,
            },
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            width: side,
            height: side,
            depth_or_array_layers: 1,
        },
    );
    gpu.queue.submit([encoder.finish()]);
    let bytes = gpu.read_buffer(&buffer, 0, buffer.size());
    bytes
        .chunks(padded as usize)
        .flat_map(|r| r[..row as usize].chunks(8))
        .map(|t| {
            let h: Vec<f32> = t
                .chunks(2)
                .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect();
            Vec4::from_slice(&h)
        })
        .collect()
}

/// `Σ c_k Y_k(n)`: what a white Lambert surface of normal `n` reflects.
pub fn sh_irradiance(coefficients: &[Vec4], n: Vec3) -> Vec3 {
    let basis = [
        0.282095,
        0.488603 * n.y,
        0.488603 * n.z,
        0.488603 * n.x,
        1.092548 * n.x * n.y,
        1.092548 * n.y * n.z,
        0.315392 * (3.0 * n.z * n.z - 1.0),
        1.092548 * n.x * n.z,
        0.546274 * (n.x * n.x - n.y * n.y),
    ];
    coefficients
        .iter()
        .zip(basis)
        .map(|(c, y)| c.truncate() * y)
        .sum()
}

pub fn read_sh(gpu: &Gpu, buffer: &wgpu::Buffer) -> Vec<Vec4> {
    bytemuck::cast_slice::<u8, f32>(&gpu.read_buffer(buffer, 0, 9 * 16))
        .chunks(4)
        .map(Vec4::from_slice)
        .collect()
}

/// Prefilters the default sky at the default settings and checks the maps
/// are plausible (the sky is brighter above than below); returns the
/// milliseconds it took, the BRDF table excluded.
pub fn time_default_prefilter(gpu: &Gpu) -> f64 {
    let prefilter = Prefilter::new(&gpu.device, &gpu.queue);
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let start = Instant::now();
    let maps = prefilter
        .prefilter(
            &gpu.device,
            &gpu.queue,
            &Environment::default(),
            &PrefilterSettings::default(),
        )
        .unwrap();
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let sh = read_sh(gpu, maps.sh_buffer());
    let (up, down) = (sh_irradiance(&sh, Vec3::Y), sh_irradiance(&sh, -Vec3::Y));
    assert!(up.z > down.z && down.min_element() > 0.0, "{up} {down}");
    ms
}
