//! Inline ray tracing on lavapipe (Mesa 25 has `VK_KHR_ray_query`): the
//! optional capability and its typed errors, acceleration structures that
//! follow the tables (built only when something changed, freed with what
//! they were made from), and the hit-material view against the drawn
//! material view. Traced images: `tests/ray_traced.rs`.

mod common;

use common::*;
use unbound::{
    AlphaMode, CapabilityError, Capacities, Error, Material, ObjectDesc, RAY_QUERY_FEATURES,
    RenderError, Renderer, RendererConfig, Tier, shapes,
};

/// `check_adapter` reports ray queries on the test adapter, a device has
/// them only when requested with the experimental-features token, and
/// asking for them where they cannot run is a typed error: without the
/// token, on tier C, with more objects than 24 bits name. Without them
/// the same device renders as ever.
#[test]
fn ray_queries_are_an_optional_capability_with_typed_errors() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    let support = unbound::check_adapter(&gpu.adapter, &capacities).unwrap();
    support
        .ray_queries
        .clone()
        .expect("the test adapter (lavapipe, Mesa 25) has ray queries");
    assert!(gpu.device.features().contains(RAY_QUERY_FEATURES));
    let renderer = Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        ray_config(capacities),
    );
    assert!(renderer.is_ok(), "{:?}", renderer.err());

    let forced_c = RendererConfig {
        tier: Some(Tier::C),
        ..ray_config(capacities)
    };
    let error = Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, forced_c).unwrap_err();
    assert_matches!(
        error,
        Error::Capability(CapabilityError::RayQueriesTier { tier: Tier::C })
    );
    let too_many = Capacities {
        objects: unbound::MAX_RAY_QUERY_OBJECTS + 1,
        ..capacities
    };
    let error =
        Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, ray_config(too_many)).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Capability(CapabilityError::CapacityTooLarge {
                requested,
                maximum: unbound::MAX_RAY_QUERY_OBJECTS,
                ..
            }) if requested == unbound::MAX_RAY_QUERY_OBJECTS + 1
        ),
        "{error:?}"
    );

    // The feature withheld: a device requested without the token.
    let plain = Gpu::new(&capacities);
    assert!(!plain.device.features().contains(RAY_QUERY_FEATURES));
    let error = Renderer::new(
        &plain.adapter,
        &plain.device,
        &plain.queue,
        ray_config(capacities),
    )
    .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Capability(CapabilityError::DeviceMissingFeatures { missing })
                if missing == RAY_QUERY_FEATURES
        ),
        "{error:?}"
    );
    let mut renderer = plain.renderer(&capacities);
    // What traces is refused by a renderer without ray queries.
    let error = renderer.set_ray_query_shadows(true).unwrap_err();
    assert_matches!(
        error,
        Error::Render(unbound::RenderError::RayQueriesOff { .. })
    );
    let hit_material = unbound::DebugOptions {
        view: unbound::DebugView::HitMaterial,
        ..Default::default()
    };
    let error = renderer.set_debug(&hit_material).unwrap_err();
    assert_matches!(
        error,
        Error::Render(unbound::RenderError::RayQueriesOff { .. })
    );
    assert_eq!(renderer.debug().view, unbound::DebugView::Lit);
    let mesh = flat_quad_scene(&mut renderer, 1.0);
    add_solid_object(
        &mut renderer,
        mesh,
        [200, 40, 40, 255],
        quad_at(glam::Vec3::ZERO, 2.0, 2.0),
    );
    let target = Target::new(&plain, 16, 16);
    let (image, _) = target.render(&plain, &mut renderer);
    assert_eq!(
        drawn_pixels(&image, shown_clear_srgb(unbound_harness::BACKGROUND)),
        16 * 16
    );
    assert!(renderer.acceleration_structures().is_none());
    plain.finish();
    gpu.finish();
}

/// Renders one 8x8 frame and returns its statistics.
fn frame(gpu: &Gpu, renderer: &mut Renderer, target: &Target) -> unbound::FrameStats {
    target.render(gpu, renderer).1
}

/// One BLAS per live mesh, built by the frame after it was added; the TLAS
/// is built on frames where an object was added, moved, changed or
/// removed, and on no other; a mesh's BLAS is made again (and built)
/// when the first alpha-masked object starts using it and when the last
/// stops, whether by the object or by its material's alpha mode.
#[test]
fn structures_follow_the_tables_and_rebuild_only_on_change() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    let mut renderer = gpu.renderer_with(ray_config(capacities));
    let target = Target::new(&gpu, 8, 8);
    renderer.set_camera(&camera_framing_plane(2.0)).unwrap();
    let builds = |stats: unbound::FrameStats| (stats.blas_builds, stats.tlas_builds);
    // An empty TLAS is built once, before any frame can bind it.
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 1));
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 0));

    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let opaque = renderer
        .add_material(&Material {
            metallic_factor: 0.0,
            ..Default::default()
        })
        .unwrap();
    let add = |renderer: &mut Renderer, mesh, material, x: f32| {
        renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: glam::Mat4::from_translation(glam::Vec3::new(x, 0.0, 0.0)),
            })
            .unwrap()
    };
    let a = add(&mut renderer, cube, opaque, -1.0);
    let _b = add(&mut renderer, cube, opaque, 1.0);
    let c = add(&mut renderer, quad, opaque, 0.0);
    let stats = renderer.acceleration_structures().unwrap();
    assert_eq!(
        (stats.blas, stats.blas_pending, stats.tlas_instances),
        (2, 2, 3)
    );
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (2, 1));
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 0));

    renderer
        .set_transform(a, glam::Mat4::from_translation(glam::Vec3::Y))
        .unwrap();
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 1));
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 0));

    // The first alpha-masked user of the quad: its BLAS is made again.
    let masked = renderer
        .add_material(&Material {
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            ..Default::default()
        })
        .unwrap();
    let d = add(&mut renderer, quad, masked, 0.5);
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (1, 1));
    // A second masked user does not; removing it neither.
    let e = add(&mut renderer, quad, masked, 0.7);
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 1));
    renderer.remove_object(e).unwrap();
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 1));
    // The last one leaving makes it opaque again.
    renderer.remove_object(d).unwrap();
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (1, 1));
    // A material becoming alpha-masked does the same for its objects'
    // meshes (the cube: a and b; the quad: c).
    renderer
        .update_material(
            opaque,
            &Material {
                alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (2, 1));
    // A material change that keeps the alpha mode changes nothing.
    renderer
        .update_material(
            opaque,
            &Material {
                alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
                metallic_factor: 0.5,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 0));

    // Everything removed: no BLAS left, an empty TLAS built once more.
    for object in [a, _b, c] {
        renderer.remove_object(object).unwrap();
    }
    renderer.remove_mesh(cube).unwrap();
    renderer.remove_mesh(quad).unwrap();
    let stats = renderer.acceleration_structures().unwrap();
    assert_eq!(
        (stats.blas, stats.blas_pending, stats.tlas_instances),
        (0, 0, 0)
    );
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 1));
    // A mesh added and removed before any frame is never built.
    let gone = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    renderer.remove_mesh(gone).unwrap();
    assert_eq!(builds(frame(&gpu, &mut renderer, &target)), (0, 0));
    gpu.finish();
}

/// A frame dropped unsubmitted loses no acceleration-structure build
/// (issue 24, class 9): a new mesh's BLAS and the TLAS holding its object,
/// then the TLAS alone (an object moved), each recorded into a frame that
/// is dropped, are built by the next frame, whose traced view (the
/// hit-material view, camera rays through ray queries) shows the change.
#[test]
fn builds_of_a_dropped_frame_are_made_again() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    let mut renderer = gpu.renderer_with(ray_config(capacities));
    renderer.set_camera(&camera_framing_plane(2.0)).unwrap();
    renderer
        .set_debug(&unbound::DebugOptions {
            view: unbound::DebugView::HitMaterial,
            ..Default::default()
        })
        .unwrap();
    let target = Target::with_format(&gpu, 8, 8, unbound::ID_TARGET_FORMAT);
    let encoder = || gpu.device.create_command_encoder(&Default::default());
    let traced = |renderer: &mut Renderer| {
        let (image, stats) = target.render(&gpu, renderer);
        let hits = ids(&image).iter().filter(|&&id| id != 0).count();
        (hits, (stats.blas_builds, stats.tlas_builds))
    };
    assert_eq!(traced(&mut renderer), (0, (0, 1)));

    // A new mesh and an object filling the view, in a frame then dropped.
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let material = colour_material(&mut renderer, [0.8, 0.2, 0.2], AlphaMode::Opaque);
    let object = renderer
        .add_object(&ObjectDesc {
            mesh: quad,
            material,
            world_from_object: quad_at(glam::Vec3::ZERO, 8.0, 8.0),
        })
        .unwrap();
    let mut dropped = encoder();
    renderer.render(&mut dropped, &target.frame()).unwrap();
    drop(dropped);
    assert_eq!(
        traced(&mut renderer),
        (64, (1, 1)),
        "the dropped frame's BLAS and TLAS builds are lost"
    );
    // The break in the sequence is reported once.
    assert_matches!(
        renderer.render(&mut encoder(), &target.frame()),
        Err(Error::Render(RenderError::FrameSequence { .. }))
    );
    assert_eq!(traced(&mut renderer), (64, (0, 0)));

    // Moved out of view: a TLAS build alone, in a frame then dropped.
    renderer
        .set_transform(object, quad_at(glam::Vec3::new(100.0, 0.0, 0.0), 8.0, 8.0))
        .unwrap();
    let mut dropped = encoder();
    renderer.render(&mut dropped, &target.frame()).unwrap();
    drop(dropped);
    assert_eq!(
        traced(&mut renderer),
        (0, (0, 1)),
        "the dropped frame's TLAS build is lost"
    );
    gpu.finish();
}

/// Bytes of live allocations on the device after it went idle.
fn allocated_bytes(gpu: &Gpu) -> u64 {
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
    gpu.device
        .generate_allocator_report()
        .expect("the Vulkan backend reports its allocations")
        .total_allocated_bytes
}

/// 200 cycles of adding a mesh and an object (alpha-masked every other
/// time, so BLASes are made again too), rendering, removing both and
/// rendering leave the device's allocations and the live BLAS count where
/// they started.
#[test]
fn adding_and_removing_leaks_nothing() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    let mut renderer = gpu.renderer_with(ray_config(capacities));
    let target = Target::new(&gpu, 8, 8);
    renderer.set_camera(&camera_framing_plane(2.0)).unwrap();
    let opaque = renderer.add_material(&Material::default()).unwrap();
    let masked = renderer
        .add_material(&Material {
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            ..Default::default()
        })
        .unwrap();
    let sphere = shapes::sphere(12, 8);
    let cycle = |renderer: &mut Renderer, i: u32| {
        let mesh = renderer.add_mesh(&sphere.as_mesh_data()).unwrap();
        let object = renderer
            .add_object(&ObjectDesc {
                mesh,
                material: if i.is_multiple_of(2) { opaque } else { masked },
                world_from_object: glam::Mat4::IDENTITY,
            })
            .unwrap();
        frame(&gpu, renderer, &target);
        renderer.remove_object(object).unwrap();
        renderer.remove_mesh(mesh).unwrap();
        frame(&gpu, renderer, &target);
    };
    // Warm up: the arena, the tables and wgpu's pools reach their size.
    for i in 0..4 {
        cycle(&mut renderer, i);
    }
    let before = allocated_bytes(&gpu);
    let blas_before = renderer.acceleration_structures().unwrap().blas;
    for i in 0..200 {
        cycle(&mut renderer, i);
    }
    let after = allocated_bytes(&gpu);
    assert_eq!(
        renderer.acceleration_structures().unwrap().blas,
        blas_before
    );
    assert_eq!(blas_before, 0);
    assert_eq!(
        after,
        before,
        "allocated bytes grew by {}",
        after as i64 - before as i64
    );
    gpu.finish();
}

/// A 4x4 texture whose alpha is a checkerboard (0 and 255), white, without
/// mips, and a nearest-filtering sampler: alpha-masked holes with sharp
/// edges.
fn checker_alpha_material(renderer: &mut Renderer, double_sided: bool) -> unbound::MaterialHandle {
    let texels: Vec<u8> = (0..16)
        .flat_map(|i| {
            let (x, y) = (i % 4, i / 4);
            let alpha = if (x + y) % 2 == 0 { 255 } else { 0 };
            [230, 230, 230, alpha]
        })
        .collect();
    let texture = renderer
        .add_texture(&unbound::TextureDesc {
            label: Some("checker alpha"),
            width: 4,
            height: 4,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            data: &texels,
            mips: unbound::Mips::None,
        })
        .unwrap();
    let sampler = renderer
        .add_sampler(&unbound::SamplerDesc {
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Nearest,
            mipmap_filter: wgpu::MipmapFilterMode::Nearest,
            ..Default::default()
        })
        .unwrap();
    renderer
        .add_material(&Material {
            base_color: Some(unbound::TextureRef::new(texture, sampler)),
            metallic_factor: 0.0,
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            double_sided,
            ..Default::default()
        })
        .unwrap()
}

/// A plain dielectric of one colour.
fn colour_material(
    renderer: &mut Renderer,
    rgb: [f32; 3],
    alpha_mode: AlphaMode,
) -> unbound::MaterialHandle {
    renderer
        .add_material(&Material {
            base_color_factor: glam::Vec3::from(rgb).extend(0.5),
            metallic_factor: 0.0,
            alpha_mode,
            ..Default::default()
        })
        .unwrap()
}

fn place(
    renderer: &mut Renderer,
    mesh: unbound::MeshHandle,
    material: unbound::MaterialHandle,
    world_from_object: glam::Mat4,
) {
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object,
        })
        .unwrap();
}

/// Every kind of surface a camera ray must see as the draw pass draws it:
/// a floor, solid shapes of their own materials (one mirrored), an
/// alpha-masked checkerboard quad in front of them (holes), a blended
/// sphere, a single-sided quad turned away from the camera (culled: rays
/// see through it) and a double-sided one turned away (drawn). Returns the
/// camera.
fn ray_scene(renderer: &mut Renderer) -> unbound::Camera {
    use glam::{Mat4, Quat, Vec3};
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let sphere = renderer
        .add_mesh(&shapes::sphere(24, 16).as_mesh_data())
        .unwrap();
    let torus = renderer
        .add_mesh(&shapes::torus(0.3, 24, 12).as_mesh_data())
        .unwrap();
    let opaque = AlphaMode::Opaque;
    let floor = colour_material(renderer, [0.5, 0.5, 0.5], opaque);
    let floor_at = Mat4::from_scale_rotation_translation(
        Vec3::splat(8.0),
        Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
        Vec3::new(0.0, -1.0, 0.0),
    );
    place(renderer, quad, floor, floor_at);
    let red = colour_material(renderer, [0.8, 0.1, 0.1], opaque);
    place(
        renderer,
        cube,
        red,
        Mat4::from_translation(Vec3::new(-1.6, -0.5, -0.5)),
    );
    let green = colour_material(renderer, [0.1, 0.8, 0.1], opaque);
    place(
        renderer,
        sphere,
        green,
        Mat4::from_translation(Vec3::new(0.0, -0.2, -1.2)),
    );
    let blue = colour_material(renderer, [0.1, 0.1, 0.8], opaque);
    let mirrored = Mat4::from_translation(Vec3::new(1.6, -0.4, -0.4))
        * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    place(renderer, torus, blue, mirrored * Mat4::from_rotation_x(1.2));
    let blended = colour_material(renderer, [0.9, 0.8, 0.1], AlphaMode::Blend);
    place(
        renderer,
        sphere,
        blended,
        Mat4::from_scale_rotation_translation(
            Vec3::splat(0.5),
            Quat::IDENTITY,
            Vec3::new(1.2, 0.6, 0.8),
        ),
    );
    let checker = checker_alpha_material(renderer, false);
    place(
        renderer,
        quad,
        checker,
        quad_at(Vec3::new(-0.4, 0.0, 0.6), 2.0, 2.0),
    );
    // Turned away from the camera (which looks down -Z): single-sided,
    // culled; double-sided, drawn.
    let away = Quat::from_rotation_y(std::f32::consts::PI);
    let culled = colour_material(renderer, [0.9, 0.1, 0.9], opaque);
    place(
        renderer,
        quad,
        culled,
        Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 1.0, 1.0),
            away,
            Vec3::new(1.5, 0.5, 1.0),
        ),
    );
    let both = renderer
        .add_material(&Material {
            base_color_factor: glam::Vec4::new(0.1, 0.9, 0.9, 1.0),
            metallic_factor: 0.0,
            double_sided: true,
            ..Default::default()
        })
        .unwrap();
    place(
        renderer,
        quad,
        both,
        Mat4::from_scale_rotation_translation(
            Vec3::new(0.8, 0.8, 1.0),
            away,
            Vec3::new(-1.8, 0.9, 0.8),
        ),
    );
    unbound::Camera {
        position: Vec3::new(0.6, 1.4, 5.5),
        target: Vec3::new(0.0, -0.3, 0.0),
        fov_y_radians: 50f32.to_radians(),
        aspect: 1.0,
        ..Default::default()
    }
}

/// An id-view image in false colours (a colour per id, black for none),
/// for looking at.
fn false_colour(image: &image::RgbaImage) -> image::RgbaImage {
    let mut out = image.clone();
    for pixel in out.pixels_mut() {
        let id = unbound::debug::decode_id(pixel.0).map_or(0, |id| id + 1);
        let hash = id.wrapping_mul(0x9e37_79b9).rotate_left(7);
        pixel.0 = if id == 0 {
            [0, 0, 0, 255]
        } else {
            let [r, g, b, _] = hash.to_le_bytes();
            [r | 0x40, g | 0x40, b | 0x40, 255]
        };
    }
    out
}

/// The ids of an id-view image (0: nothing drawn).
fn ids(image: &image::RgbaImage) -> Vec<u32> {
    image
        .pixels()
        .map(|p| unbound::debug::decode_id(p.0).map_or(0, |id| id + 1))
        .collect()
}

/// Renders `view` of `renderer` into an id target of `size` pixels.
fn id_image(
    gpu: &Gpu,
    renderer: &mut Renderer,
    view: unbound::DebugView,
    size: u32,
) -> image::RgbaImage {
    renderer
        .set_debug(&unbound::DebugOptions {
            view,
            ..Default::default()
        })
        .unwrap();
    let target = Target::with_format(gpu, size, size, unbound::ID_TARGET_FORMAT);
    target.render(gpu, renderer).0
}

/// The hit-material view (camera rays through ray queries) equals the
/// draw pass's material view on at least 99% of the pixels away from
/// silhouettes (pixels whose 8 neighbours all show the same id in the
/// material view), over a scene with alpha-masked holes, culled and
/// double-sided back faces, a blended and a mirrored object.
#[test]
fn hit_material_view_matches_the_material_view() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    // Hits sample through the heap: its binding arrays, or its pages.
    for heap in [unbound::TextureHeap::Bindless, unbound::TextureHeap::Paged] {
        hit_material_view_matches(&gpu, heap);
    }
    gpu.finish();
}

fn hit_material_view_matches(gpu: &Gpu, heap: unbound::TextureHeap) {
    const SIZE: u32 = 96;
    let capacities = ray_capacities();
    let mut renderer = gpu.renderer_with(unbound::RendererConfig {
        texture_heap: heap,
        ..ray_config(capacities)
    });
    let camera = ray_scene(&mut renderer);
    renderer.set_camera(&camera).unwrap();
    let drawn = id_image(gpu, &mut renderer, unbound::DebugView::MaterialIndex, SIZE);
    let traced = id_image(gpu, &mut renderer, unbound::DebugView::HitMaterial, SIZE);
    save_output(
        &format!("ray_queries_material_drawn_{heap:?}"),
        &false_colour(&drawn),
    );
    save_output(
        &format!("ray_queries_material_traced_{heap:?}"),
        &false_colour(&traced),
    );
    let (drawn, traced) = (ids(&drawn), ids(&traced));
    let size = SIZE as i32;
    let at = |x: i32, y: i32| drawn[(y * size + x) as usize];
    let mut interior = 0;
    let mut equal = 0;
    for y in 1..size - 1 {
        for x in 1..size - 1 {
            let id = at(x, y);
            let edge = (-1..=1).any(|dy| (-1..=1).any(|dx| at(x + dx, y + dy) != id));
            if edge {
                continue;
            }
            interior += 1;
            equal += usize::from(traced[(y * size + x) as usize] == id);
        }
    }
    // The scene shows what it was built to: most materials, holes and the
    // double-sided quad's back, not the culled quad.
    let shown: std::collections::BTreeSet<u32> = drawn.iter().copied().collect();
    assert!(shown.len() >= 8, "materials shown: {shown:?}");
    assert!(
        interior > (SIZE * SIZE / 2) as usize,
        "{interior} interior pixels"
    );
    let ratio = equal as f64 / interior as f64;
    eprintln!(
        "hit-material view, {heap:?}: {equal} of {interior} interior pixels equal ({ratio:.4})"
    );
    assert!(
        ratio >= 0.99,
        "{heap:?}: {equal} of {interior} interior pixels equal ({ratio:.4})"
    );
}
