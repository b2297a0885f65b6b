//! Two-phase occlusion culling: the image is the one frustum culling alone
//! draws, frame after frame, while the camera uncovers objects (tiers A, B
//! and C on Vulkan, and 4x MSAA); what it culls is exactly what the CPU
//! twin of the depth pyramid and its test (`unbound::occlusion`) hides; a
//! depth target it cannot read is a typed error. Tier C on GL:
//! `tests/occlusion_gl.rs`.

mod common;

use common::occlusion_scene::*;
use common::*;
use glam::{UVec2, Vec3};
use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
use unbound::occlusion::DepthPyramid;
use unbound::output::Msaa;
use unbound::{Camera, Error, FrameTarget, RenderError, TargetView, Tier};

#[test]
fn the_image_is_the_same_with_occlusion_culling_on_and_off_along_a_path() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (late, occluded) = compare_path(&gpu, None, false, Msaa::X1);
    // The path hides objects and uncovers them (drawn by the late phase
    // on a frame after the first).
    assert!(occluded > 0, "nothing was occluded");
    assert!(late > 0, "nothing was uncovered");
}

#[test]
fn the_image_is_the_same_on_tiers_b_and_c_and_with_msaa() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    for (tier, plain, msaa) in [
        (Some(Tier::B), true, Msaa::X1),
        (Some(Tier::C), true, Msaa::X1),
        (None, true, Msaa::X1),
        (None, false, Msaa::X4),
    ] {
        let (late, occluded) = compare_path(&gpu, tier, plain, msaa);
        assert!(occluded > 0 && late > 0, "{tier:?} {plain} {msaa:?}");
    }
}

/// Copies mip level `level` of a 4-byte-per-texel texture (`aspect`) into
/// `f32`s, row-major.
fn read_texture_f32(
    gpu: &Gpu,
    texture: &wgpu::Texture,
    level: u32,
    aspect: wgpu::TextureAspect,
) -> (UVec2, Vec<f32>) {
    let size = texture.size().mip_level_size(level, texture.dimension());
    let row = (4 * size.width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(row * size.height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: level,
            origin: wgpu::Origin3d::ZERO,
            aspect,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            depth_or_array_layers: 1,
            ..size
        },
    );
    gpu.queue.submit([encoder.finish()]);
    let bytes = gpu.read_buffer(&buffer, 0, buffer.size());
    let texels = bytes
        .chunks_exact(row as usize)
        .flat_map(|line| bytemuck::cast_slice::<u8, f32>(&line[..4 * size.width as usize]).to_vec())
        .collect();
    (UVec2::new(size.width, size.height), texels)
}

#[test]
fn it_culls_exactly_what_the_cpu_pyramid_hides() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer_for(&gpu, true, None, false, Msaa::X1);
    let objects = wall_scene(&mut renderer);
    let camera = Camera {
        position: Vec3::new(0.3, 0.2, 8.0),
        target: Vec3::new(0.0, 0.0, 0.0),
        aspect: WIDTH as f32 / HEIGHT as f32,
        ..Default::default()
    };
    renderer.set_camera(&camera).unwrap();
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    // Frame 0 draws everything late (no bits yet); frame 1 early draws it
    // all and the late phase hides what the wall covers; from frame 2 on,
    // nothing is new: the early depth is the frame's depth.
    let mut stats = None;
    for _ in 0..4 {
        target.render(&gpu, &mut renderer);
        stats = renderer.latest_gpu_stats();
    }
    let stats = stats.expect("stats arrive");
    assert_eq!(stats.frame_index, 3, "the last frame's statistics");

    // The GPU's pyramid is the CPU's over the read-back depth, texel for texel.
    let depth_texture = target.depth_view().texture();
    let (size, depth) = read_texture_f32(&gpu, depth_texture, 0, wgpu::TextureAspect::DepthOnly);
    let cpu = DepthPyramid::from_depth(size, &depth);
    let pyramid = renderer.depth_pyramid_texture().expect("built");
    assert_eq!(pyramid.mip_level_count(), cpu.level_count());
    let levels = (0..pyramid.mip_level_count())
        .map(|level| read_texture_f32(&gpu, pyramid, level, wgpu::TextureAspect::All).1)
        .collect();
    let gpu_pyramid = DepthPyramid::from_levels(size, levels).expect("a full chain");
    assert_eq!(gpu_pyramid, cpu, "pyramid differs from the CPU reduction");

    // Each object's bit is "in the frustum and not hidden" by the CPU test.
    let bits = gpu.read_u32s(
        renderer.visibility_buffer(),
        0,
        objects.len().div_ceil(32) as u64,
    );
    let clip_from_world = camera.clip_from_world();
    let planes = frustum_planes(&clip_from_world);
    let (mut occluded, mut borderline, mut checked, mut blended_seen) = (0, 0, 0, 0);
    // The last two objects are blended: always left to the late phase.
    let blended = objects.len() - 2;
    for (index, (object, sphere)) in objects.iter().enumerate() {
        let slot = object.slot();
        let bit = (bits[slot as usize / 32] >> (slot % 32)) & 1 == 1;
        let margin = sphere_plane_margin(&planes, *sphere);
        let test = cpu.test_sphere(&clip_from_world, *sphere);
        let inside = sphere_in_frustum(&planes, *sphere);
        if margin < 1e-3 || test.depth_margin.abs() < 1e-5 || test.edge_margin < 1e-3 {
            borderline += 1;
            continue;
        }
        let expected = inside && !test.occluded;
        assert_eq!(
            bit, expected,
            "object slot {slot}: {test:?}, frustum margin {margin}"
        );
        checked += 1;
        if inside && test.occluded {
            occluded += 1;
        }
        if expected && index >= blended {
            blended_seen += 1;
        }
    }
    assert!(borderline <= 2, "{borderline} borderline objects");
    assert!(checked >= objects.len() - 2);
    assert!(
        occluded >= 10,
        "only {occluded} objects hidden behind the wall"
    );
    // What was hidden was not drawn early either (its bit was clear): the
    // late phase counted every one.
    assert_eq!(stats.occluded_instances, occluded);
    // A still camera uncovers nothing: the late phase draws the blended
    // objects alone.
    assert_eq!(stats.late_instances, blended_seen);
    assert_eq!(
        stats.early_instances,
        stats.visible_instances - occluded - blended_seen
    );
    gpu.finish();
}

#[test]
fn a_depth_target_without_texture_binding_is_refused_while_occlusion_culling_is_on() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    assert!(renderer.occlusion(), "on by default");
    wall_scene(&mut renderer);
    let target = Target::new(&gpu, 16, 16);
    let depth = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 16,
            height: 16,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: unbound::DEPTH_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let depth = TargetView::new(&depth);
    let frame = FrameTarget::new(target.color_view(), &depth);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    match renderer.render(&mut encoder, &frame) {
        Err(Error::Render(RenderError::DepthNotSampleable { usage })) => {
            assert_eq!(usage, wgpu::TextureUsages::RENDER_ATTACHMENT);
        }
        other => panic!("{other:?}"),
    }
    // Usable: off, the same target renders; on, a readable depth does.
    renderer.set_occlusion(false);
    renderer.render(&mut encoder, &frame).unwrap();
    renderer.set_occlusion(true);
    renderer.render(&mut encoder, &target.frame()).unwrap();
    gpu.queue.submit([encoder.finish()]);
    gpu.finish();
}
