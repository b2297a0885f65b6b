//! The GPU-driven frame against known answers: non-uniform texture indexing
//! per pixel, fallback on bad indices, the reference scene, normal mapping,
//! pipeline buckets, and targets loaded or cleared around the application's
//! own pass.

mod common;

use common::*;
use glam::{Mat4, Vec3};
use unbound::shapes;
use unbound::{Error, Material, ObjectDesc, RenderError, TextureRef};
use unbound_scenes::hsv_to_rgba8;

/// 64x64 objects, each a quad covering exactly one pixel, each sampling one
/// of 256 one-texel textures; neighbouring pixels (and the four pixels of
/// every 2x2 fragment quad) sample different textures within one draw.
#[test]
fn neighbouring_pixels_sample_different_textures() {
    const N: u32 = 64;
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, N as f32 / 2.0);
    let colors: Vec<[u8; 4]> = (0..256)
        .map(|i| {
            hsv_to_rgba8(
                i as f32 / 256.0 * 7.0,
                0.9,
                0.3 + 0.7 * ((i * 37) % 256) as f32 / 255.0,
            )
        })
        .collect();
    let materials: Vec<_> = colors
        .iter()
        .map(|&c| {
            let t = solid_texture(&mut renderer, c);
            textured_material(&mut renderer, t)
        })
        .collect();
    let texture_of = |x: u32, y: u32| ((x * 7 + y * 13 + (x ^ y) * 29) % 256) as usize;
    for y in 0..N {
        for x in 0..N {
            let center = Vec3::new(
                x as f32 + 0.5 - N as f32 / 2.0,
                N as f32 / 2.0 - y as f32 - 0.5,
                0.0,
            );
            renderer
                .add_object(&ObjectDesc {
                    mesh: quad,
                    material: materials[texture_of(x, y)],
                    world_from_object: quad_at(center, 1.0, 1.0),
                })
                .unwrap();
        }
    }
    let target = Target::new(&gpu, N, N);
    let (image, _) = target.render(&gpu, &mut renderer);
    let mut wrong = Vec::new();
    for (x, y, pixel) in image.enumerate_pixels() {
        let expected = flat_shown_srgb(colors[texture_of(x, y)]);
        if color_distance(*pixel, expected) > 1 {
            wrong.push((x, y, *pixel, expected));
        }
    }
    if !wrong.is_empty() {
        save_output("non_uniform.actual", &image);
    }
    assert!(
        wrong.is_empty(),
        "{} wrong pixels, first: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    // Neighbours really do differ.
    assert_ne!(texture_of(0, 0), texture_of(1, 0));
    assert_ne!(texture_of(0, 0), texture_of(0, 1));
    gpu.finish();
}

fn missing_checker_expected(u: f32, v: f32) -> [u8; 4] {
    let (cx, cy) = ((u * 8.0) as u32, (v * 8.0) as u32);
    if (cx + cy) % 2 == 0 {
        unbound::heap::MISSING_COLOR
    } else {
        [0, 0, 0, 255]
    }
}

/// Writes a bad index straight into a GPU table (as a bug or a corrupted
/// upload would) and expects slot 0's "missing" checker, never undefined
/// behaviour or another texture.
#[test]
fn bad_material_and_texture_indices_show_the_missing_texture() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 2.0);
    let green = solid_texture(&mut renderer, [0, 255, 0, 255]);
    let blue = solid_texture(&mut renderer, [0, 0, 255, 255]);
    let green_material = textured_material(&mut renderer, green);
    let blue_material = textured_material(&mut renderer, blue);
    // Left half: green quad; right half: blue quad.
    let left = renderer
        .add_object(&ObjectDesc {
            mesh: quad,
            material: green_material,
            world_from_object: quad_at(Vec3::new(-1.0, 0.0, 0.0), 2.0, 4.0),
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh: quad,
            material: blue_material,
            world_from_object: quad_at(Vec3::new(1.0, 0.0, 0.0), 2.0, 4.0),
        })
        .unwrap();
    let target = Target::new(&gpu, 64, 64);
    let (image, _) = target.render(&gpu, &mut renderer);
    for ((x, y), color) in [((16, 32), [0, 255, 0, 255]), ((48, 32), [0, 0, 255, 255])] {
        let pixel = *image.get_pixel(x, y);
        let expected = flat_shown_srgb(color);
        assert!(
            color_distance(pixel, expected) <= 1,
            "{pixel:?} {expected:?}"
        );
    }

    // Corrupt the left object's material index and the blue material's texture index.
    let object_slot = renderer.objects().resolve(left).unwrap();
    let material_offset = std::mem::offset_of!(unbound::gpu_types::GpuObject, material) as u64;
    gpu.queue.write_buffer(
        renderer.objects().object_buffer(),
        u64::from(object_slot) * size_of::<unbound::gpu_types::GpuObject>() as u64
            + material_offset,
        bytemuck::bytes_of(&9_999u32),
    );
    let blue_slot = renderer.materials().resolve(blue_material).unwrap();
    let texture_offset = std::mem::offset_of!(unbound::gpu_types::GpuMaterial, base_color) as u64
        + std::mem::offset_of!(unbound::gpu_types::GpuMaterialTexture, texture) as u64;
    gpu.queue.write_buffer(
        renderer.materials().buffer(),
        u64::from(blue_slot) * size_of::<unbound::gpu_types::GpuMaterial>() as u64 + texture_offset,
        bytemuck::bytes_of(&123_456u32),
    );
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("bad_indices", &image);
    // Each quad spans 32x64 pixels with uv 0..1; sample the centres of the checker cells.
    for (x0, name) in [(0u32, "bad material"), (32, "bad texture")] {
        for cy in 0..8u32 {
            for cx in 0..8u32 {
                let (u, v) = ((cx as f32 + 0.5) / 8.0, (cy as f32 + 0.5) / 8.0);
                let (x, y) = (x0 + (u * 32.0) as u32, (v * 64.0) as u32);
                let expected = missing_checker_expected(u, v);
                let pixel = *image.get_pixel(x, y);
                // Linear filtering blends up to 1/8 of the neighbouring cell
                // in (and sRGB encoding magnifies that in dark cells), so
                // classify: magenta cells are bright, black cells dark, both
                // without green (beyond the dielectric's specular
                // reflection of the ambient) and with red = blue.
                let [r, g, b, _] = pixel.0;
                let magenta = expected == unbound::heap::MISSING_COLOR;
                let green_floor = flat_shown_srgb([0, 0, 0, 255])[1];
                let ok = g <= green_floor + 10
                    && r.abs_diff(b) <= 2
                    && if magenta { r >= 200 } else { r <= 120 };
                assert!(
                    ok,
                    "{name}: pixel ({x},{y}) is {pixel:?}, expected {expected:?}"
                );
            }
        }
    }
    gpu.finish();
}

/// A 64x64 texture with GPU mips.
fn texture_64(
    renderer: &mut unbound::Renderer,
    format: wgpu::TextureFormat,
    data: &[u8],
) -> unbound::TextureHandle {
    renderer
        .add_texture(&unbound::TextureDesc {
            label: None,
            width: 64,
            height: 64,
            format,
            data,
            mips: unbound::Mips::Generate,
        })
        .unwrap()
}

/// A small lit scene of five meshes, each with its own texture, one with a
/// normal map: compared with a reference image, plus property checks.
fn reference_scene(gpu: &Gpu, normal_maps: bool) -> image::RgbaImage {
    let caps = Gpu::default_capacities();
    let mut renderer = gpu.renderer(&caps);
    renderer.set_normal_maps(normal_maps);
    renderer
        .set_camera(&unbound::Camera {
            position: Vec3::new(0.0, 1.5, 6.0),
            target: Vec3::ZERO,
            ..Default::default()
        })
        .unwrap();
    let sampler = renderer.heap().default_sampler();
    let bumps = unbound_scenes::bump_normal_map(64, 4);
    let normal_map = texture_64(&mut renderer, wgpu::TextureFormat::Rgba8Unorm, &bumps);
    let meshes = [
        shapes::cube(),
        shapes::sphere(24, 12),
        shapes::torus(0.15, 32, 12),
        shapes::cylinder(0.4, 0.4, 24),
        shapes::cylinder(0.45, 0.0, 24),
    ];
    let positions = [
        Vec3::new(-2.0, 0.8, 0.0),
        Vec3::new(0.0, 0.8, 0.0),
        Vec3::new(2.0, 0.8, 0.0),
        Vec3::new(-1.0, -0.8, 0.5),
        Vec3::new(1.0, -0.8, 0.5),
    ];
    for (i, (mesh, position)) in meshes.iter().zip(positions).enumerate() {
        let data = unbound_scenes::demo_texture(i as u32 * 5, 64);
        let texture = texture_64(&mut renderer, wgpu::TextureFormat::Rgba8UnormSrgb, &data);
        let material = renderer
            .add_material(&Material {
                base_color: Some(TextureRef::new(texture, sampler)),
                normal: (i == 0).then(|| TextureRef::new(normal_map, sampler)),
                // From a smooth dielectric to a rough metal.
                metallic_factor: [0.0, 0.0, 1.0, 0.5, 1.0][i],
                roughness_factor: [0.2, 0.6, 0.3, 0.5, 0.8][i],
                ..Default::default()
            })
            .unwrap();
        let mesh = renderer.add_mesh(&mesh.as_mesh_data()).unwrap();
        renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: Mat4::from_rotation_translation(
                    glam::Quat::from_euler(glam::EulerRot::YXZ, 0.6, 0.4, 0.0),
                    position,
                ) * Mat4::from_scale(Vec3::splat(1.3)),
            })
            .unwrap();
    }
    let target = Target::new(gpu, 128, 128);
    target.render(gpu, &mut renderer).0
}

#[test]
fn reference_scene_matches_and_normal_maps_change_it() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let with_maps = reference_scene(&gpu, true);
    save_output("reference_scene", &with_maps);
    // Tolerance: lavapipe is deterministic; other drivers differ in filtering
    // and rasterisation rules, so allow small channel differences on up to
    // 2% of pixels (object edges).
    compare_with_reference(&gpu, "reference_scene", &with_maps, 6, 0.02);
    let without_maps = reference_scene(&gpu, false);
    // The normal-mapped cube (top left) changes; the sphere (top middle) does not.
    let differs = |x0: u32, y0: u32, x1: u32, y1: u32| {
        (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                color_distance(*with_maps.get_pixel(x, y), without_maps.get_pixel(x, y).0) > 8
            })
            .count()
    };
    let cube_changed = differs(5, 20, 50, 60);
    let sphere_changed = differs(55, 25, 75, 55);
    assert!(
        cube_changed > 50,
        "normal map changed only {cube_changed} pixels of the cube"
    );
    assert_eq!(sphere_changed, 0, "sphere has no normal map but changed");
    gpu.finish();
}

/// Pipeline buckets: a single-sided quad seen from behind is culled, a
/// double-sided one is drawn; a half-transparent quad blends over what is
/// behind it; blended quads are drawn far to near.
#[test]
fn double_sided_and_blended_materials() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 2.0);
    let white = renderer.heap().white_texture();
    let sampler = renderer.heap().default_sampler();
    let flat = |color: glam::Vec4, alpha_mode, double_sided| Material {
        base_color_factor: color,
        base_color: Some(TextureRef::new(white, sampler)),
        alpha_mode,
        double_sided,
        metallic_factor: 0.0,
        ..Default::default()
    };
    let (opaque, blend) = (unbound::AlphaMode::Opaque, unbound::AlphaMode::Blend);
    let [single, double, blue, half_red, half_green] = [
        (glam::Vec4::new(1.0, 0.0, 0.0, 1.0), opaque, false),
        (glam::Vec4::new(0.0, 1.0, 0.0, 1.0), opaque, true),
        (glam::Vec4::new(0.0, 0.0, 1.0, 1.0), opaque, false),
        (glam::Vec4::new(1.0, 0.0, 0.0, 0.5), blend, false),
        (glam::Vec4::new(0.0, 1.0, 0.0, 0.5), blend, false),
    ]
    .map(|(color, alpha_mode, double_sided)| {
        renderer
            .add_material(&flat(color, alpha_mode, double_sided))
            .unwrap()
    });
    let facing_away = |x: f32, y: f32| {
        Mat4::from_translation(Vec3::new(x, y, 0.0)) * Mat4::from_rotation_y(std::f32::consts::PI)
    };
    for (material, world_from_object) in [
        // Top left: single-sided from behind (culled). Top right: double-sided from behind.
        (single, facing_away(-1.0, 1.0)),
        (double, facing_away(1.0, 1.0)),
        // Bottom left: half-transparent red in front of opaque blue.
        (blue, quad_at(Vec3::new(-1.0, -1.0, -1.0), 1.0, 1.0)),
        (half_red, quad_at(Vec3::new(-1.0, -1.0, 1.0), 1.0, 1.0)),
        // Bottom right: red near, green far, both blended, over the dark background.
        (half_red, quad_at(Vec3::new(1.0, -1.0, 3.0), 1.0, 1.0)),
        (half_green, quad_at(Vec3::new(1.0, -1.0, -8.0), 1.0, 1.0)),
    ] {
        renderer
            .add_object(&ObjectDesc {
                mesh: quad,
                material,
                world_from_object,
            })
            .unwrap();
    }
    assert_eq!(renderer.objects().bucket_counts(), [2, 1, 3]);
    let target = Target::new(&gpu, 64, 64);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("buckets", &image);
    let background = *image.get_pixel(0, 0);
    assert_eq!(
        *image.get_pixel(16, 16),
        background,
        "single-sided back face is culled"
    );
    assert!(
        color_distance(*image.get_pixel(48, 16), flat_shown_srgb([0, 255, 0, 255])) <= 2,
        "double-sided back face drawn: {:?}",
        image.get_pixel(48, 16)
    );
    // 50% red over blue, blended in linear space: what a linear 0.5 (sRGB
    // 188) in red and blue shows, since the shading is affine in the colour.
    let mixed = *image.get_pixel(16, 48);
    assert!(
        color_distance(mixed, flat_shown_srgb([188, 0, 188, 255])) <= 3,
        "blend: {mixed:?}"
    );
    // Far to near: the near red ends on top, so red outweighs green.
    let layered = image.get_pixel(48, 48);
    assert!(
        layered[0] > layered[1] + 20,
        "far-to-near order: {layered:?}"
    );
    // Changing a material's alpha mode moves its objects' bucket.
    renderer
        .update_material(
            half_green,
            &flat(glam::Vec4::new(0.0, 1.0, 0.0, 1.0), opaque, false),
        )
        .unwrap();
    assert_eq!(renderer.objects().bucket_counts(), [3, 1, 2]);
    gpu.finish();
}

/// The application's own render pass before unbound's, standing in for its
/// own geometry: clears colour and depth.
fn application_pass(
    encoder: &mut wgpu::CommandEncoder,
    target: &Target,
    color: wgpu::Color,
    depth: f32,
) {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("application's own pass"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: target.color_view().view(),
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(color),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: target.depth_view().view(),
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(depth),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        ..Default::default()
    });
}

/// The application records its own pass first (colour green, depth cleared
/// to 0.55, standing in for its own geometry), then unbound draws a red quad
/// behind that depth (0.67) on the left and a blue one in front of it (0.44)
/// on the right. Loaded depth hides the red quad; cleared depth shows it.
/// Colour and depth load independently.
#[test]
fn frame_target_loads_or_clears_colour_and_depth() {
    use unbound::{FrameTarget, TargetLoad};
    const APP_DEPTH: f32 = 0.55;
    let (red, blue, green, black) = (
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [0, 255, 0, 255],
        [0, 0, 0, 255],
    );
    let (gpu, mut renderer) = Gpu::with_renderer();
    // Camera at z = 10, near 5, far 20: depth (4/3)(1 - 5 / distance).
    let quad = flat_quad_scene(&mut renderer, 1.0);
    for (color, world_from_object) in [
        // Distance 10 (depth 0.67): left half, middle rows.
        (red, quad_at(Vec3::new(-0.5, 0.0, 0.0), 1.0, 1.0)),
        // Distance 7.5 (depth 0.44): right half, middle rows.
        (blue, quad_at(Vec3::new(0.375, 0.0, 2.5), 0.75, 0.75)),
    ] {
        add_solid_object(&mut renderer, quad, color, world_from_object);
    }
    let target = Target::new(&gpu, 16, 16);
    let render = |renderer: &mut unbound::Renderer,
                  color_load: TargetLoad<wgpu::Color>,
                  depth_load: TargetLoad<f32>| {
        let frame = FrameTarget {
            color: target.color_view(),
            depth: target.depth_view(),
            color_load,
            depth_load,
        };
        let record = |encoder: &mut wgpu::CommandEncoder, _: &FrameTarget<'_>| {
            application_pass(encoder, &target, wgpu::Color::GREEN, APP_DEPTH);
            renderer.render(encoder, &frame).unwrap();
        };
        target.capture(&gpu, record).0
    };
    let clear_black = TargetLoad::Clear(wgpu::Color::BLACK);
    let clear_far = TargetLoad::Clear(unbound::FAR_DEPTH);
    for (color_load, depth_load) in [
        (clear_black, clear_far),
        (TargetLoad::Load, clear_far),
        (clear_black, TargetLoad::Load),
        (TargetLoad::Load, TargetLoad::Load),
    ] {
        let image = render(&mut renderer, color_load, depth_load);
        let background = if color_load == TargetLoad::Load {
            green
        } else {
            black
        };
        let behind = if depth_load == TargetLoad::Load {
            background
        } else {
            flat_shown_srgb(red)
        };
        let case = format!("colour {color_load:?}, depth {depth_load:?}");
        let front = flat_shown_srgb(blue);
        for ((x, y), expected) in [((8, 1), background), ((4, 8), behind), ((12, 8), front)] {
            let pixel = *image.get_pixel(x, y);
            if color_distance(pixel, expected) > 1 {
                save_output("frame_target_load.actual", &image);
                panic!("{case}: pixel ({x}, {y}) is {pixel:?}, expected {expected:?}");
            }
        }
    }
    // The convenience constructors are the two ends.
    let (color, depth) = (target.color_view(), target.depth_view());
    let loaded = FrameTarget::loaded(color, depth);
    assert_eq!(
        (loaded.color_load, loaded.depth_load),
        (TargetLoad::Load, TargetLoad::Load)
    );
    let cleared = FrameTarget::cleared(color, depth, wgpu::Color::BLACK);
    assert_eq!(
        (cleared.color_load, cleared.depth_load),
        (clear_black, clear_far)
    );
    gpu.finish();
}

/// Frames must be submitted in the order recorded. Dropping recorded frames'
/// encoders (more of them than the statistics ring has slots) is a break in
/// the sequence: the renderer says so once, from the first `render` after a
/// later frame's statistics show the gap, records nothing then, and keeps
/// rendering and reporting statistics. Two frames submitted in the wrong
/// order are reported the same way, once.
#[test]
fn dropped_and_reordered_frames_are_reported() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let target = Target::new(&gpu, 8, 8);
    let encoder = || gpu.device.create_command_encoder(&Default::default());
    let (_, first) = target.render(&gpu, &mut renderer);
    assert_eq!(first.frame_index, 0);
    for _ in 0..5 {
        renderer.render(&mut encoder(), &target.frame()).unwrap();
    }
    let (_, sixth) = target.render(&gpu, &mut renderer);
    assert_eq!(sixth.frame_index, 6, "frames 1 to 5 were recorded");
    let error = renderer
        .render(&mut encoder(), &target.frame())
        .unwrap_err();
    assert_matches!(
        error,
        Error::Render(RenderError::FrameSequence {
            frame: 6,
            ran_after: Some(0)
        })
    );
    let (_, seventh) = target.render(&gpu, &mut renderer);
    assert_eq!(seventh.frame_index, 7, "the refused call recorded nothing");
    let (_, eighth) = target.render(&gpu, &mut renderer);
    assert_eq!(eighth.gpu.map(|g| g.frame_index), Some(7), "statistics");

    // Frames 9 and 10 submitted as 10, 9.
    let (mut ninth, mut tenth) = (encoder(), encoder());
    renderer.render(&mut ninth, &target.frame()).unwrap();
    renderer.render(&mut tenth, &target.frame()).unwrap();
    gpu.queue.submit([tenth.finish()]);
    gpu.queue.submit([ninth.finish()]);
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    let error = renderer
        .render(&mut encoder(), &target.frame())
        .unwrap_err();
    assert_matches!(
        error,
        Error::Render(RenderError::FrameSequence {
            frame: 10,
            ran_after: Some(8)
        })
    );
    // Frame 11 runs after the late frame 9: the same incident, not reported
    // again.
    for _ in 0..3 {
        target.render(&gpu, &mut renderer);
    }
    gpu.finish();
}

/// Changes made before a frame whose encoder is then dropped unsubmitted
/// are not lost: an object moved, a material changed and an object of a
/// new mesh added all appear in the next frame recorded after the drop, and
/// stay. The break is still reported once. Then the same with a frame
/// recorded between the dropped one and its drop: that frame shows the
/// tables without the lost change, the next one after the drop with it.
#[test]
fn changes_before_a_dropped_frame_appear_in_the_next() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let (red, green, blue) = ([255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]);
    let left = quad_at(Vec3::new(-0.5, 0.0, 0.0), 1.0, 2.0);
    let right = quad_at(Vec3::new(0.5, 0.0, 0.0), 1.0, 2.0);
    let moving = add_solid_object(&mut renderer, quad, red, left);
    let target = Target::new(&gpu, 8, 8);
    let encoder = || gpu.device.create_command_encoder(&Default::default());
    let shows = |image: &image::RgbaImage, (x, y): (u32, u32), color: [u8; 4]| {
        color_distance(*image.get_pixel(x, y), flat_shown_srgb(color)) <= 2
    };
    let (before, _) = target.render(&gpu, &mut renderer);
    assert!(shows(&before, (1, 4), red) && !shows(&before, (6, 4), red));

    // Moved to the right; a new mesh (a second quad, on the left) with a
    // green object; then a frame recorded and dropped.
    let desc = |world_from_object| ObjectDesc {
        mesh: quad,
        material: moving.material,
        world_from_object,
    };
    renderer.update_object(moving.object, &desc(right)).unwrap();
    let new_mesh = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    add_solid_object(&mut renderer, new_mesh, green, left);
    let mut dropped = encoder();
    renderer.render(&mut dropped, &target.frame()).unwrap();
    drop(dropped);
    let expected = |image: &image::RgbaImage, moved: [u8; 4]| {
        shows(image, (1, 4), green) && shows(image, (6, 4), moved)
    };
    let (after, stats) = target.render(&gpu, &mut renderer);
    assert_eq!(stats.frame_index, 2);
    assert!(
        expected(&after, red),
        "the dropped frame's changes are lost"
    );
    let error = renderer
        .render(&mut encoder(), &target.frame())
        .unwrap_err();
    assert_matches!(
        error,
        Error::Render(RenderError::FrameSequence {
            frame: 2,
            ran_after: Some(0)
        })
    );
    let (later, _) = target.render(&gpu, &mut renderer);
    assert!(expected(&later, red));

    // Frame A changes the material to blue; frame B is recorded after it;
    // A is dropped and B submitted: B lacks the change, the next has it.
    let blue_texture = solid_texture(&mut renderer, blue);
    let sampler = renderer.heap().default_sampler();
    let material = material_showing(blue_texture, sampler);
    renderer
        .update_material(moving.material, &material)
        .unwrap();
    let mut dropped = encoder();
    renderer.render(&mut dropped, &target.frame()).unwrap();
    let (between, _) = target.render(&gpu, &mut renderer);
    assert!(expected(&between, red), "recorded before the drop");
    drop(dropped);
    let error = renderer
        .render(&mut encoder(), &target.frame())
        .unwrap_err();
    assert_matches!(
        error,
        Error::Render(RenderError::FrameSequence {
            frame: 5,
            ran_after: Some(3)
        })
    );
    let (next, _) = target.render(&gpu, &mut renderer);
    assert!(expected(&next, blue), "the change is lost");
    gpu.finish();
}
