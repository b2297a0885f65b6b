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
