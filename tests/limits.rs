//! API misuse around limits and arithmetic: capacities too large for the
//! device's buffers, zero or overflowing capacities, lighting and bounds
//! that are not finite. Each is a typed error, and the device or renderer
//! keeps working: every case is followed by a frame without wgpu or
//! validation errors.

mod common;

use common::*;
use glam::{Mat4, Vec3};
use unbound::capabilities::{CapabilityError, LowLimit};
use unbound::capacities::MAX_MESHES;
use unbound::geometry::GeometryError;
use unbound::{
    Capacities, Error, Lighting, LightingError, MeshData, ObjectDesc, ObjectError, Renderer,
    RendererConfig, check_adapter, shapes,
};

/// A renderer with `capacities` on `gpu`'s device.
fn try_renderer(gpu: &Gpu, capacities: Capacities) -> Result<Renderer, Error> {
    Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        RendererConfig {
            capacities,
            ..RendererConfig::default()
        },
    )
}

/// A renderer with the default test capacities draws a lit cube: the
/// device is still usable.
fn renders_a_cube(gpu: &Gpu) {
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let mesh = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    add_solid_object(&mut renderer, mesh, [200, 40, 40, 255], Mat4::IDENTITY);
    let (image, _) = Target::new(gpu, 32, 32).render(gpu, &mut renderer);
    let background = image.get_pixel(0, 0).0;
    assert!(drawn_pixels(&image, background) > 0);
    gpu.finish();
}

/// The low limits a capability error lists, from the adapter check or the
/// device check (whichever refused first).
fn low_limits(error: &Error) -> &[LowLimit] {
    match error {
        Error::Capability(
            CapabilityError::Unsupported {
                low_limits: low, ..
            }
            | CapabilityError::DeviceLowLimits { low },
        ) => low,
        other => panic!("not a low-limit error: {other:?}"),
    }
}

/// The cull counters take 384 B per mesh slot: 400,000 meshes need more
/// than a 128 MiB storage binding although their mesh table (64 B each)
/// fits. Refused when the renderer is created, naming the buffer.
#[test]
fn cull_counters_beyond_the_storage_binding_are_refused_at_creation() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let storage_limit = gpu.device.limits().max_storage_buffer_binding_size;
    let meshes = u32::try_from(storage_limit / 384 + 1_000).unwrap();
    let capacities = Capacities {
        meshes,
        ..Gpu::default_capacities()
    };
    let buffers = capacities.buffers();
    let counters = buffers
        .iter()
        .find(|b| b.label == "unbound cull counters")
        .unwrap();
    let table = buffers
        .iter()
        .find(|b| b.label == "unbound mesh table")
        .unwrap();
    assert!(counters.size_bytes >= 384 * u64::from(meshes));
    assert!(counters.size_bytes > storage_limit && table.size_bytes <= storage_limit);
    assert_eq!(
        capacities.required_limits().max_storage_buffer_binding_size,
        counters.size_bytes
    );

    let error = try_renderer(&gpu, capacities).expect_err("counters beyond the binding");
    let storage = low_limits(&error)
        .iter()
        .find(|l| l.name == "max_storage_buffer_binding_size")
        .unwrap_or_else(|| panic!("{error}"));
    assert_eq!(storage.required, counters.size_bytes);
    assert_eq!(storage.needed_by, Some("unbound cull counters"));
    assert!(
        error.to_string().contains("unbound cull counters"),
        "{error}"
    );
    renders_a_cube(&gpu);
}

/// Zero capacities, too few slots for the built-in fallbacks, more meshes
/// than an object can name, more lights than the light pass prepares, and
/// binding-array totals beyond `u32` are
/// typed errors from the adapter check and from `Renderer::new`, before any
/// wgpu call.
#[test]
fn zero_and_overflowing_capacities_are_typed_errors() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let valid = Gpu::default_capacities();
    for (field, _) in valid.fields() {
        let mut capacities = valid;
        match field {
            "textures_2d" => capacities.textures_2d = 0,
            "textures_cube" => capacities.textures_cube = 0,
            "samplers" => capacities.samplers = 0,
            "vertices" => capacities.vertices = 0,
            "indices" => capacities.indices = 0,
            "meshes" => capacities.meshes = 0,
            "materials" => capacities.materials = 0,
            "objects" => capacities.objects = 0,
            "lights" => capacities.lights = 0,
            other => panic!("field {other} not covered"),
        }
        let error = check_adapter(&gpu.adapter, &capacities).expect_err(field);
        assert!(
            matches!(
                &error,
                CapabilityError::CapacityTooSmall { capacity, requested: 0, minimum: 1.. }
                    if *capacity == field
            ),
            "{error:?}"
        );
        let error = try_renderer(&gpu, capacities).expect_err(field);
        assert_matches!(
            error,
            Error::Capability(CapabilityError::CapacityTooSmall { .. })
        );
    }
    // Slot 0 is "missing", slot 1 white: one 2D slot is too few.
    let one_texture = Capacities {
        textures_2d: 1,
        ..valid
    };
    assert_matches!(
        try_renderer(&gpu, one_texture),
        Err(Error::Capability(CapabilityError::CapacityTooSmall {
            capacity: "textures_2d",
            requested: 1,
            minimum: 2,
        }))
    );
    let too_many_meshes = Capacities {
        meshes: MAX_MESHES + 1,
        ..valid
    };
    assert_matches!(
        too_many_meshes.validate(),
        Err(CapabilityError::CapacityTooLarge {
            capacity: "meshes",
            ..
        })
    );
    let too_many_lights = Capacities {
        lights: unbound::capacities::MAX_LIGHTS + 1,
        ..valid
    };
    assert_matches!(
        try_renderer(&gpu, too_many_lights),
        Err(Error::Capability(CapabilityError::CapacityTooLarge {
            capacity: "lights",
            ..
        }))
    );
    // 2D + cube + sampler slots overflow the u32 limit wgpu takes.
    let overflowing = Capacities {
        textures_2d: u32::MAX,
        ..valid
    };
    let total = u64::from(u32::MAX) + u64::from(valid.textures_cube + valid.samplers);
    assert_eq!(overflowing.binding_array_elements(), total);
    // Refused before any device is made; were one made, it is made and
    // dropped in the lifecycle turn.
    let request = InTurn::make(|| {
        pollster::block_on(unbound::request_device(
            &gpu.adapter,
            &overflowing,
            &Default::default(),
        ))
    });
    for error in [
        &check_adapter(&gpu.adapter, &overflowing).unwrap_err(),
        request.as_ref().unwrap_err(),
    ] {
        assert!(
            matches!(error, CapabilityError::CapacityOverflow { total: t, .. } if *t == total),
            "{error:?}"
        );
    }
    assert_eq!(
        overflowing
            .required_limits()
            .max_binding_array_elements_per_shader_stage,
        u32::MAX
    );
    renders_a_cube(&gpu);
}

/// NaN or infinite lighting and a direction that cannot be normalised are
/// refused; the lighting in use and the image stay as they were.
#[test]
fn non_finite_lighting_is_refused_and_the_frame_is_unchanged() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let mesh = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    add_solid_object(&mut renderer, mesh, [200, 200, 200, 255], Mat4::IDENTITY);
    let lighting = Lighting {
        direction_to_light: Vec3::new(0.2, 0.9, 0.4),
        ..Lighting::default()
    };
    renderer.set_lighting(&lighting).unwrap();
    let target = Target::new(&gpu, 32, 32);
    let (before, _) = target.render(&gpu, &mut renderer);

    let with = |change: fn(&mut Lighting)| {
        let mut bad = lighting;
        change(&mut bad);
        bad
    };
    let cases = [
        ("NaN direction", with(|l| l.direction_to_light.x = f32::NAN)),
        ("infinite light", with(|l| l.light_color.y = f32::INFINITY)),
        ("NaN ambient", with(|l| l.ambient_color.z = f32::NAN)),
        (
            "zero direction",
            with(|l| l.direction_to_light = Vec3::ZERO),
        ),
        // Squared lengths that under- and overflow f32.
        (
            "tiny direction",
            with(|l| l.direction_to_light = Vec3::splat(1e-30)),
        ),
        (
            "huge direction",
            with(|l| l.direction_to_light = Vec3::splat(1e30)),
        ),
    ];
    for (name, bad) in cases {
        let error = renderer.set_lighting(&bad).expect_err(name);
        assert_matches!(
            &error,
            Error::Lighting(LightingError::NonFinite { .. } | LightingError::Direction { .. })
        );
        assert!(!error.to_string().is_empty());
        assert_eq!(renderer.lighting(), &lighting, "{name}");
    }
    let (after, _) = target.render(&gpu, &mut renderer);
    assert_eq!(largest_difference(&before, &after), 0);
    gpu.finish();
}

/// A finite transform whose world bounds overflow `f32` would make the cull
/// pass drop the object silently: adding, moving and updating with it are
/// refused and change nothing. Finite positions whose mesh bounds overflow
/// are refused too.
#[test]
fn world_bounds_that_overflow_are_refused() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    // Centred at (10, 10, 10): scaling by 1e38 puts the centre past f32::MAX.
    let positions = [[10.0, 10.0, 10.0], [11.0, 10.0, 10.0], [10.0, 11.0, 10.0]];
    let triangle = renderer
        .add_mesh(&MeshData {
            positions: &positions,
            indices: &[0, 1, 2],
            ..Default::default()
        })
        .unwrap();
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let shown = add_solid_object(&mut renderer, cube, [40, 200, 40, 255], Mat4::IDENTITY);
    let target = Target::new(&gpu, 32, 32);
    let (before, _) = target.render(&gpu, &mut renderer);

    let huge = Mat4::from_scale(Vec3::splat(1e38));
    let refused = |result: Result<(), Error>| {
        let error = result.expect_err("world bounds overflow");
        assert_matches!(&error, Error::Object(ObjectError::NonFiniteBounds { .. }));
        assert!(!error.to_string().is_empty());
    };
    refused(
        renderer
            .add_object(&ObjectDesc {
                mesh: triangle,
                material: shown.material,
                world_from_object: huge,
            })
            .map(drop),
    );
    assert_eq!(renderer.objects().len(), 1);
    // Behind the camera (at z = 5, looking down -z): culled.
    let placed = Mat4::from_translation(Vec3::new(0.0, 0.0, 2000.0));
    let object = renderer
        .add_object(&ObjectDesc {
            mesh: triangle,
            material: shown.material,
            world_from_object: placed,
        })
        .unwrap();
    refused(renderer.set_transform(object, huge));
    refused(renderer.update_object(
        object,
        &ObjectDesc {
            mesh: triangle,
            material: shown.material,
            world_from_object: huge,
        },
    ));
    let kept = renderer.objects().get(object).unwrap();
    assert_eq!(kept.world_from_object, placed.to_cols_array_2d());
    let slot = renderer.objects().resolve(object).unwrap();
    let sphere = renderer.objects().world_sphere_of_slot(slot).unwrap();
    assert!(sphere.iter().all(|v| v.is_finite()), "{sphere:?}");

    // Finite positions near f32::MAX: the box centre overflows.
    let far = [[3e38, 0.0, 0.0], [3.4e38, 0.0, 0.0], [3e38, 1.0, 0.0]];
    let error = renderer
        .add_mesh(&MeshData {
            positions: &far,
            indices: &[0, 1, 2],
            ..Default::default()
        })
        .expect_err("mesh bounds overflow");
    assert_matches!(
        error,
        Error::Geometry(GeometryError::NonFiniteBounds { .. })
    );
    assert_eq!(renderer.arena().mesh_count(), 2);

    // Only the cube is in view: the image is as before.
    let (after, _) = target.render(&gpu, &mut renderer);
    assert_eq!(largest_difference(&before, &after), 0);
    gpu.finish();
}
