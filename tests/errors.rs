//! Bad input is refused with a typed error before wgpu sees it, and the
//! renderer keeps working: every case is followed by a successful frame
//! with no wgpu or validation error.

mod common;

use common::*;
use glam::{Mat4, Vec3};
use unbound::geometry::GeometryError;
use unbound::heap::HeapError;
use unbound::{Capacities, Error, MeshData, ObjectDesc, RenderError, TextureDesc, shapes};

fn texture(width: u32, height: u32, format: wgpu::TextureFormat, data: &[u8]) -> TextureDesc<'_> {
    TextureDesc {
        label: None,
        width,
        height,
        format,
        data,
        mips: unbound::Mips::Generate,
    }
}

#[test]
fn bad_input_is_a_typed_error_and_rendering_continues() {
    let caps = Capacities {
        textures_2d: 8,
        meshes: 16,
        vertices: 1 << 16,
        indices: 1 << 16,
        ..Gpu::default_capacities()
    };
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let target = Target::new(&gpu, 32, 32);
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let material = renderer.add_material(&Default::default()).unwrap();
    let object = renderer
        .add_object(&ObjectDesc {
            mesh: cube,
            material,
            world_from_object: Mat4::IDENTITY,
        })
        .unwrap();
    let (reference, _) = target.render(&gpu, &mut renderer);

    let max = gpu.device.limits().max_texture_dimension_2d;
    let pixel = [0u8; 4];
    let check = |name: &str, result: Result<(), Error>, expect: &dyn Fn(&Error) -> bool| {
        let error = result.expect_err(name);
        assert!(expect(&error), "{name}: unexpected {error:?}");
        assert!(!error.to_string().is_empty());
    };
    let r = &mut renderer;
    check(
        "oversized texture",
        r.add_texture(&texture(
            max + 1,
            1,
            wgpu::TextureFormat::Rgba8UnormSrgb,
            &pixel,
        ))
        .map(drop),
        &|e| matches!(e, Error::Heap(HeapError::InvalidSize { .. })),
    );
    check(
        "empty texture",
        r.add_texture(&texture(0, 1, wgpu::TextureFormat::Rgba8UnormSrgb, &[]))
            .map(drop),
        &|e| matches!(e, Error::Heap(HeapError::InvalidSize { .. })),
    );
    check(
        "unsupported format",
        r.add_texture(&texture(1, 1, wgpu::TextureFormat::Bc1RgbaUnorm, &pixel))
            .map(drop),
        &|e| matches!(e, Error::Heap(HeapError::UnsupportedFormat { .. })),
    );
    check(
        "short data",
        r.add_texture(&texture(2, 2, wgpu::TextureFormat::Rgba8Unorm, &pixel))
            .map(drop),
        &|e| {
            matches!(
                e,
                Error::Heap(HeapError::DataLength {
                    expected: 16,
                    actual: 4
                })
            )
        },
    );
    // Capacity: 8 slots, 2 reserved.
    let mut added = Vec::new();
    for _ in 0..6 {
        added.push(
            r.add_texture(&texture(1, 1, wgpu::TextureFormat::Rgba8Unorm, &pixel))
                .unwrap(),
        );
    }
    check(
        "too many textures",
        r.add_texture(&texture(1, 1, wgpu::TextureFormat::Rgba8Unorm, &pixel))
            .map(drop),
        &|e| matches!(e, Error::Heap(HeapError::Capacity(_))),
    );
    r.remove_texture(added[0]).unwrap();
    r.add_texture(&texture(1, 1, wgpu::TextureFormat::Rgba8Unorm, &pixel))
        .expect("a freed slot is usable again");

    let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let ok = MeshData {
        positions: &p,
        indices: &[0, 1, 2],
        ..Default::default()
    };
    check(
        "empty mesh",
        r.add_mesh(&MeshData {
            positions: &[],
            indices: &[],
            ..Default::default()
        })
        .map(drop),
        &|e| matches!(e, Error::Geometry(GeometryError::Empty { .. })),
    );
    check(
        "index out of range",
        r.add_mesh(&MeshData {
            indices: &[0, 1, 7],
            ..ok
        })
        .map(drop),
        &|e| {
            matches!(
                e,
                Error::Geometry(GeometryError::IndexOutOfRange { value: 7, .. })
            )
        },
    );
    let nan = [[0.0, f32::NAN, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    check(
        "NaN position",
        r.add_mesh(&MeshData {
            positions: &nan,
            ..ok
        })
        .map(drop),
        &|e| {
            matches!(
                e,
                Error::Geometry(GeometryError::NonFinite {
                    attribute: "positions",
                    index: 0
                })
            )
        },
    );
    check(
        "normals length",
        r.add_mesh(&MeshData {
            normals: Some(&p[..2]),
            ..ok
        })
        .map(drop),
        &|e| matches!(e, Error::Geometry(GeometryError::AttributeLength { .. })),
    );
    let huge = shapes::sphere(300, 300); // 90k vertices > 65,536 capacity
    check(
        "mesh past the arena's capacity",
        r.add_mesh(&huge.as_mesh_data()).map(drop),
        &|e| {
            matches!(
                e,
                Error::Geometry(GeometryError::ArenaFull {
                    what: "vertices",
                    ..
                })
            )
        },
    );
    check(
        "NaN transform",
        r.add_object(&ObjectDesc {
            mesh: cube,
            material,
            world_from_object: Mat4::from_translation(Vec3::new(f32::INFINITY, 0.0, 0.0)),
        })
        .map(drop),
        &|e| matches!(e, Error::Object(unbound::ObjectError::NonFiniteTransform)),
    );
    check(
        "NaN set_transform",
        r.set_transform(object, Mat4::from_scale(Vec3::splat(f32::NAN))),
        &|e| matches!(e, Error::Object(unbound::ObjectError::NonFiniteTransform)),
    );
    let removed = r.add_mesh(&ok).unwrap();
    r.remove_mesh(removed).unwrap();
    check(
        "stale mesh handle",
        r.add_object(&ObjectDesc {
            mesh: removed,
            material,
            world_from_object: Mat4::IDENTITY,
        })
        .map(drop),
        &|e| {
            matches!(
                e,
                Error::Object(unbound::ObjectError::Handle(
                    unbound::HandleError::Stale { .. }
                ))
            )
        },
    );
    check(
        "NaN material factor",
        r.add_material(&unbound::Material {
            roughness_factor: f32::NAN,
            ..Default::default()
        })
        .map(drop),
        &|e| matches!(e, Error::Material(unbound::MaterialError::NonFinite { .. })),
    );
    check(
        "metallic factor above 1",
        r.add_material(&unbound::Material {
            metallic_factor: 1.25,
            ..Default::default()
        })
        .map(drop),
        &|e| {
            matches!(
                e,
                Error::Material(unbound::MaterialError::OutOfRange {
                    field: "metallic_factor",
                    ..
                })
            )
        },
    );
    let camera = unbound::Camera {
        z_near: -1.0,
        ..Default::default()
    };
    check("invalid camera", r.set_camera(&camera), &|e| {
        matches!(e, Error::Render(RenderError::InvalidCamera(_)))
    });

    // Wrong targets are refused before anything is recorded.
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let small = Target::new(&gpu, 16, 16);
    let mismatched = unbound::FrameTarget::loaded(target.color_view(), small.depth_view());
    let error = renderer.render(&mut encoder, &mismatched).unwrap_err();
    assert!(
        matches!(error, Error::Render(RenderError::SizeMismatch { .. })),
        "{error}"
    );
    let error = renderer
        .render(
            &mut encoder,
            &unbound::FrameTarget::loaded(target.color_view(), target.color_view()),
        )
        .unwrap_err();
    assert!(
        matches!(error, Error::Render(RenderError::DepthFormat { .. })),
        "{error}"
    );
    for value in [1.5, -0.25, f32::NAN] {
        let clear_out_of_range = unbound::FrameTarget {
            depth_load: unbound::TargetLoad::Clear(value),
            ..target.frame()
        };
        let error = renderer
            .render(&mut encoder, &clear_out_of_range)
            .unwrap_err();
        assert!(
            matches!(error, Error::Render(RenderError::DepthClearValue { .. })),
            "{error}"
        );
    }
    drop(encoder);

    // Nothing above changed what is drawn.
    let (after, _) = target.render(&gpu, &mut renderer);
    assert_eq!(after, reference, "the renderer still draws the same frame");
    gpu.finish();
}

/// A 2D texture unbound could draw into (or not: `usage` and `samples` are
/// the test's).
fn target_texture(
    gpu: &Gpu,
    size: (u32, u32, u32),
    mip_levels: u32,
    samples: u32,
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("test target"),
        size: wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: size.2,
        },
        mip_level_count: mip_levels,
        sample_count: samples,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// Copies one 16x16 level and layer of `texture` out as an image.
fn level_image(gpu: &Gpu, texture: &wgpu::Texture, mip_level: u32, layer: u32) -> image::RgbaImage {
    let copy = target_texture(
        gpu,
        (16, 16, 1),
        1,
        1,
        texture.format(),
        wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC,
    );
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level,
            origin: wgpu::Origin3d {
                x: 0,
                y: 0,
                z: layer,
            },
            aspect: wgpu::TextureAspect::All,
        },
        copy.as_image_copy(),
        copy.size(),
    );
    let readback =
        unbound_harness::TextureReadback::record(&gpu.device, &mut encoder, &copy).unwrap();
    gpu.queue.submit([encoder.finish()]);
    let texels = readback.read(&gpu.device).unwrap();
    image::RgbaImage::from_raw(16, 16, texels).unwrap()
}

/// Targets are checked as the views they are, not as their textures: a mip
/// level or layer of another size than depth, a level or layer the texture
/// lacks, multisampled colour or depth, a texture without
/// `RENDER_ATTACHMENT` and a 3D texture are typed errors before anything is
/// recorded (on the starting commit such views passed the check and wgpu
/// rejected the frame). A mip level or layer of the right size draws
/// exactly what a plain target of that size does.
#[test]
fn target_views_are_checked_as_views() {
    use unbound::{FrameTarget, TargetKind, TargetView};
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let left_half = quad_at(Vec3::new(-0.5, 0.0, 0.0), 1.0, 2.0);
    add_solid_object(&mut renderer, quad, [255, 0, 0, 255], left_half);
    let plain = Target::new(&gpu, 16, 16);
    let (reference, _) = plain.render(&gpu, &mut renderer);
    let red = flat_shown_srgb([255, 0, 0, 255]);
    assert!(
        color_distance(*reference.get_pixel(4, 8), red) <= 1,
        "left half red: {:?}",
        reference.get_pixel(4, 8)
    );
    assert!(
        color_distance(*reference.get_pixel(12, 8), red) > 100,
        "right half not: {:?}",
        reference.get_pixel(12, 8)
    );

    let srgb = wgpu::TextureFormat::Rgba8UnormSrgb;
    let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
    let depth = |size: u32, samples: u32, usage: wgpu::TextureUsages| {
        let texture = target_texture(
            &gpu,
            (size, size, 1),
            1,
            samples,
            unbound::DEPTH_FORMAT,
            usage,
        );
        TargetView::new(&texture)
    };
    // Sampleable: occlusion culling (on by default) builds its pyramid from
    // the depth.
    let attachment_sampled =
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING;
    let depth_16 = depth(16, 1, attachment_sampled);
    let depth_32 = depth(32, 1, attachment_sampled);
    let mips = target_texture(&gpu, (32, 32, 1), 2, 1, srgb, attachment);
    let layers = target_texture(&gpu, (16, 16, 2), 1, 1, srgb, attachment);
    let big_layers = target_texture(&gpu, (32, 32, 2), 1, 1, srgb, attachment);
    let mip_1 = TargetView::of_level(&mips, 1, 0).unwrap();
    let layer_1 = TargetView::of_level(&layers, 0, 1).unwrap();
    assert_eq!((mip_1.size(), mip_1.mip_level()), ((16, 16), 1));
    assert_eq!((layer_1.size(), layer_1.array_layer()), ((16, 16), 1));

    let refused = |renderer: &mut unbound::Renderer, color: &TargetView, depth: &TargetView| {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let frame = FrameTarget::new(color, depth);
        match renderer.render(&mut encoder, &frame) {
            Err(Error::Render(error)) => error,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        refused(&mut renderer, &mip_1, &depth_32),
        RenderError::SizeMismatch {
            color: (16, 16),
            depth: (32, 32)
        }
    );
    let big_layer = TargetView::of_level(&big_layers, 0, 1).unwrap();
    assert_eq!(
        refused(&mut renderer, &big_layer, &depth_16),
        RenderError::SizeMismatch {
            color: (32, 32),
            depth: (16, 16)
        }
    );
    for (mip_level, layer) in [(2, 0), (0, 1)] {
        assert_matches!(
            TargetView::of_level(&mips, mip_level, layer),
            Err(RenderError::TargetLevel {
                mip_levels: 2,
                layers: 1,
                ..
            })
        );
    }
    let msaa = TargetView::new(&target_texture(
        &gpu,
        (16, 16, 1),
        1,
        4,
        srgb,
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    ));
    let msaa_depth = depth(16, 4, wgpu::TextureUsages::RENDER_ATTACHMENT);
    assert_eq!(
        refused(&mut renderer, &msaa, &msaa_depth),
        RenderError::SampleCount {
            color: 4,
            depth: 4,
            depth_expected: 1
        }
    );
    assert_eq!(
        refused(&mut renderer, plain.color_view(), &msaa_depth),
        RenderError::SampleCount {
            color: 1,
            depth: 4,
            depth_expected: 1
        }
    );
    let sampled_only = TargetView::new(&target_texture(
        &gpu,
        (16, 16, 1),
        1,
        1,
        srgb,
        wgpu::TextureUsages::TEXTURE_BINDING,
    ));
    assert_matches!(
        refused(&mut renderer, &sampled_only, &depth_16),
        RenderError::TargetUsage {
            target: TargetKind::Color,
            ..
        }
    );
    let depth_sampled_only = depth(16, 1, wgpu::TextureUsages::TEXTURE_BINDING);
    assert_matches!(
        refused(&mut renderer, plain.color_view(), &depth_sampled_only),
        RenderError::TargetUsage {
            target: TargetKind::Depth,
            ..
        }
    );
    let volume = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("test 3D target"),
        size: wgpu::Extent3d {
            width: 16,
            height: 16,
            depth_or_array_layers: 2,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D3,
        format: srgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    assert_eq!(
        refused(&mut renderer, &TargetView::new(&volume), &depth_16),
        RenderError::TargetDimension {
            dimension: wgpu::TextureDimension::D3
        }
    );
    assert_matches!(
        TargetView::of_level(&volume, 0, 0),
        Err(RenderError::TargetDimension { .. })
    );

    // A level or layer of the depth target's size draws the same image.
    for (texture, view, mip_level, layer) in [(&mips, &mip_1, 1, 0), (&layers, &layer_1, 0, 1)] {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        renderer
            .render(&mut encoder, &plain_frame(view, &depth_16))
            .unwrap();
        gpu.queue.submit([encoder.finish()]);
        let image = level_image(&gpu, texture, mip_level, layer);
        assert_eq!(
            image, reference,
            "mip level {mip_level}, layer {layer} differs from a plain target"
        );
    }
    let (after, _) = plain.render(&gpu, &mut renderer);
    assert_eq!(after, reference, "the renderer still draws the same frame");
    gpu.finish();
}

/// Cleared to the harness's background, as [`Target::frame`] is.
fn plain_frame<'a>(
    color: &'a unbound::TargetView,
    depth: &'a unbound::TargetView,
) -> unbound::FrameTarget<'a> {
    unbound::FrameTarget::cleared(color, depth, unbound_harness::BACKGROUND)
}
