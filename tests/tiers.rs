//! Capability tiers: the same application code renders matching images on
//! tier A (lavapipe Vulkan), tier B (lavapipe with the tier forced) and tier
//! C (Mesa's GL llvmpipe adapter, no binding arrays).

mod common;

use common::*;
use unbound::{RendererConfig, Tier};
use unbound_scenes::demo::{DemoSceneConfig, build_demo_scene};

/// wgpu's GL backend makes one EGL context current at a time, and Mesa's GL
/// and Vulkan software drivers side by side on two cores were seen to slow
/// each other by orders of magnitude: the tests here take turns.
static GL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gl_turn() -> std::sync::MutexGuard<'static, ()> {
    GL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

const WIDTH: u32 = 160;
const HEIGHT: u32 = 90;

/// The demo scene (64x64 textures: no resampling in tier C) at one tier.
fn demo_image(gpu: &Gpu, tier: Option<Tier>) -> (image::RgbaImage, Tier) {
    demo_image_with(gpu, tier, false)
}

/// [`demo_image`], cluster culling as given.
fn demo_image_with(
    gpu: &Gpu,
    tier: Option<Tier>,
    cluster_culling: bool,
) -> (image::RgbaImage, Tier) {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        cluster_culling,
        ..Default::default()
    });
    assert_eq!(renderer.cluster_culling_active(), cluster_culling);
    let config = DemoSceneConfig {
        instances: 600,
        textures: 48,
        ..Default::default()
    };
    build_demo_scene(&mut renderer, &config, WIDTH as f32 / HEIGHT as f32).unwrap();
    let target = Target::new(gpu, WIDTH, HEIGHT);
    let (image, _) = target.render(gpu, &mut renderer);
    (image, renderer.tier())
}

/// A device on Mesa's GL adapter (tier C).
fn gl_gpu() -> Gpu {
    Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL)
}

#[test]
fn tier_b_renders_the_same_image_as_tier_a() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (a, tier_a) = demo_image(&gpu, None);
    let (b, tier_b) = demo_image(&gpu, Some(Tier::B));
    assert_eq!((tier_a, tier_b), (Tier::A, Tier::B));
    // Same heap, same draws (plus empty ones): identical.
    assert_eq!(mismatched_pixels(&a, &b, 0), 0);
    gpu.finish();
}

/// Cluster culling on tier B (through the triangle filter's packed draws)
/// draws the demo scene exactly as tier A does with it.
#[test]
fn tier_b_culls_clusters_to_tier_as_image() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (a, _) = demo_image_with(&gpu, None, true);
    let (b, tier_b) = demo_image_with(&gpu, Some(Tier::B), true);
    assert_eq!(tier_b, Tier::B);
    assert_eq!(mismatched_pixels(&a, &b, 0), 0);
    gpu.finish();
}

/// Tier C on GL against tier A on Vulkan. The textures are 64x64, exactly
/// the smallest size class, so nothing is resampled; the differences left
/// are GL vs Vulkan rasterisation and filtering details in llvmpipe:
/// channel difference <= 3 on all but 1% of pixels.
#[test]
fn tier_c_on_gl_matches_tier_a() {
    let _turn = gl_turn();
    let vulkan = Gpu::new(&Gpu::default_capacities());
    let (a, _) = demo_image(&vulkan, None);
    let gl = gl_gpu();
    let (c, tier) = demo_image(&gl, None);
    assert_eq!(tier, Tier::C, "GL has no binding arrays");
    save_output("tier_a", &a);
    save_output("tier_c", &c);
    let bad = mismatched_pixels(&a, &c, 3);
    assert!(
        bad <= (WIDTH * HEIGHT) as usize / 100,
        "{bad} pixels differ"
    );
    assert!(
        drawn_pixels(&c, a.get_pixel(0, 0).0) > 2000,
        "tier C drew the scene"
    );
    gl.finish();
    vulkan.finish();
}

/// Cluster culling on GL (tier C: cluster cull, triangle filter and the
/// packed draws in GL compute and draw indirect) matches tier A with it,
/// within the GL tolerance above.
#[test]
fn tier_c_on_gl_culls_clusters_like_tier_a() {
    let _turn = gl_turn();
    let vulkan = Gpu::new(&Gpu::default_capacities());
    let (a, _) = demo_image_with(&vulkan, None, true);
    let gl = gl_gpu();
    let (c, tier) = demo_image_with(&gl, None, true);
    assert_eq!(tier, Tier::C);
    let bad = mismatched_pixels(&a, &c, 3);
    if bad > (WIDTH * HEIGHT) as usize / 100 {
        save_output("tier_c_clusters", &c);
        panic!("{bad} pixels differ");
    }
    assert!(drawn_pixels(&c, a.get_pixel(0, 0).0) > 2000);
    gl.finish();
    vulkan.finish();
}

/// Handles, materials, errors and the cross-frame rule behave the same in
/// tier C: a frame recorded before a texture is freed still shows it, even
/// though tier C keeps textures in shared arrays (freed layers are reused
/// only after the frames that might sample them have finished).
#[test]
fn tier_c_handles_errors_and_recorded_frames_behave_like_tier_a() {
    let _turn = gl_turn();
    let gpu = gl_gpu();
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    assert_eq!(renderer.tier(), Tier::C);
    let seen = record_across_a_free(&gpu, &mut renderer, |renderer, red| {
        // Same typed errors as tier A.
        assert!(matches!(
            renderer.remove_texture(red),
            Err(unbound::Error::Heap(unbound::HeapError::InUse { .. }))
        ));
        let bad = renderer.add_texture(&unbound::TextureDesc {
            label: None,
            width: 2,
            height: 2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            data: &[0; 4],
            mips: unbound::Mips::None,
        });
        assert!(matches!(
            bad,
            Err(unbound::Error::Heap(unbound::HeapError::DataLength { .. }))
        ));
    });
    assert!(
        renderer.heap().texture_2d_slot(seen.red).is_err(),
        "stale handle"
    );
    seen.assert_each_frame_shows_its_texture();
    gpu.finish();
}

#[test]
fn forcing_a_better_tier_than_supported_is_an_error() {
    let _turn = gl_turn();
    let gpu = gl_gpu();
    let result = unbound::Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        RendererConfig {
            capacities: Gpu::default_capacities(),
            tier: Some(Tier::A),
            ..Default::default()
        },
    );
    let error = result.unwrap_err();
    assert!(
        matches!(
            error,
            unbound::Error::Capability(unbound::CapabilityError::TierUnavailable {
                requested: Tier::A,
                supported: Tier::C
            })
        ),
        "{error}"
    );
}

/// Ray queries on Mesa's GL adapter: `check_adapter` says it has none, and
/// asking for them is a typed error naming the missing feature (before any
/// pipeline is built). Without them GL renders as the other tests here
/// show.
#[test]
fn ray_queries_on_gl_are_a_typed_error() {
    let _turn = gl_turn();
    let gpu = gl_gpu();
    let capacities = Gpu::default_capacities();
    let support = unbound::check_adapter(&gpu.adapter, &capacities).unwrap();
    assert!(support.ray_queries.is_err());
    let config = RendererConfig {
        capacities,
        ray_queries: true,
        ..Default::default()
    };
    let error = unbound::Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config).unwrap_err();
    let unbound::Error::Capability(unbound::CapabilityError::RayQueriesUnsupported {
        missing_features,
        ..
    }) = &error
    else {
        panic!("{error}");
    };
    assert_eq!(*missing_features, unbound::RAY_QUERY_FEATURES);
}

fn helmet_image(gpu: &Gpu, tier: Option<Tier>) -> image::RgbaImage {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        ..Default::default()
    });
    let scene = unbound::loaders::gltf::load_gltf(
        &mut renderer,
        &asset("FlightHelmet/FlightHelmet.gltf"),
        glam::Mat4::IDENTITY,
    )
    .unwrap();
    renderer
        .set_camera(&camera_framing_box(scene.bounds.0, scene.bounds.1))
        .unwrap();
    let target = Target::new(gpu, 128, 128);
    target.render(gpu, &mut renderer).0
}

/// FlightHelmet's 512x512 textures are enlarged to tier C's 1024 class
/// (bilinear) and its samplers become trilinear repeat, so tier C gets a
/// looser tolerance than the demo scene: channel difference <= 16 on all but
/// 1% of pixels, mean difference under 1 level (measured on llvmpipe: no
/// pixel over 24, mean 0.17). Tier B is identical to tier A.
#[test]
fn flight_helmet_matches_across_tiers() {
    let _turn = gl_turn();
    let vulkan = Gpu::new(&Gpu::default_capacities());
    let a = helmet_image(&vulkan, None);
    let b = helmet_image(&vulkan, Some(Tier::B));
    assert_eq!(mismatched_pixels(&a, &b, 0), 0, "tier B");
    let c = {
        let gl = gl_gpu();
        let image = helmet_image(&gl, None);
        gl.finish();
        image
    };
    save_output("helmet_tier_a", &a);
    save_output("helmet_tier_c", &c);
    let bad = mismatched_pixels(&a, &c, 16);
    eprintln!("helmet tier C vs A: {bad} pixels differ by more than 16");
    assert!(
        bad <= 128 * 128 / 100,
        "{bad} pixels differ by more than 16"
    );
    let total: u64 = a
        .pixels()
        .zip(c.pixels())
        .map(|(x, y)| u64::from(color_distance(*x, y.0)))
        .sum();
    let mean = total as f64 / f64::from(128 * 128);
    eprintln!("helmet tier C vs A: mean channel difference {mean:.2}");
    assert!(mean < 1.0, "mean difference {mean:.2}");
    vulkan.finish();
}

/// Tier C's layer quarantine counts the frame being recorded: frame N
/// samples texture T; T is freed after N is recorded, frame N+1 is
/// recorded, then U is added. U must not take T's layer while N is still
/// unsubmitted (U's texels are written at once, ahead of N). Frames N and
/// N+1 are submitted only then, and N shows T.
#[test]
fn tier_c_does_not_reuse_a_layer_a_recorded_frame_samples() {
    let _turn = gl_turn();
    let gpu = gl_gpu();
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    assert_eq!(renderer.tier(), Tier::C);
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let filling_the_view = quad_at(glam::Vec3::ZERO, 2.0, 2.0);
    let red = add_solid_object(&mut renderer, quad, [255, 0, 0, 255], filling_the_view);
    // Earlier frames have finished, so quarantined layers can be recycled.
    let target = Target::new(&gpu, 16, 16);
    for _ in 0..2 {
        target.render(&gpu, &mut renderer);
    }

    let target_n = Target::new(&gpu, 16, 16);
    let mut encoder_n = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&mut encoder_n, &target_n.frame()).unwrap();
    let out_n = target_n.copy_out(&gpu, &mut encoder_n);
    renderer.remove_object(red.object).unwrap();
    renderer.remove_material(red.material).unwrap();
    renderer.remove_texture(red.texture).unwrap();
    let mut encoder_next = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&mut encoder_next, &target.frame()).unwrap();
    let blue = add_solid_object(&mut renderer, quad, [0, 0, 255, 255], filling_the_view);
    gpu.queue
        .submit([encoder_n.finish(), encoder_next.finish()]);

    let frame_n = *target_n.image_from(&gpu, &out_n).get_pixel(8, 8);
    assert!(
        color_distance(frame_n, flat_shown_srgb([255, 0, 0, 255])) <= 1,
        "frame N shows {frame_n:?}, not the red texture it was recorded with"
    );
    let (after, _) = target.render(&gpu, &mut renderer);
    let shown = *after.get_pixel(8, 8);
    assert!(
        color_distance(shown, flat_shown_srgb([0, 0, 255, 255])) <= 1,
        "the next frame shows {shown:?}, not blue"
    );
    assert!(renderer.heap().texture_2d_slot(blue.texture).is_ok());
    gpu.finish();
}

/// The environment prefilter's compute passes run on GL: a uniform
/// environment's diffuse light is its colour, the default sky is brighter
/// above. (wgpu's GL backend cannot copy a cube map to a buffer: the
/// specular cube is checked on GL by the images drawn with it.)
#[test]
fn the_environment_prefilter_runs_on_gl() {
    use glam::Vec3;
    use unbound::lighting::{Environment, PrefilterSettings};
    use unbound::passes::prefilter::Prefilter;
    let _turn = gl_turn();
    let gpu = gl_gpu();
    let prefilter = Prefilter::new(&gpu.device, &gpu.queue);
    let settings = PrefilterSettings {
        specular_size: 64,
        specular_mips: 3,
        samples: 16,
    };
    let color = Vec3::new(0.25, 0.5, 1.0);
    let maps = prefilter
        .prefilter(
            &gpu.device,
            &gpu.queue,
            &Environment::Uniform(color),
            &settings,
        )
        .unwrap();
    let diffuse = sh_irradiance(&read_sh(&gpu, maps.sh_buffer()), Vec3::X);
    assert!((diffuse - color).abs().max_element() < 1e-2, "{diffuse}");
    let [sky_ms, large_ms] = time_default_prefilter(&gpu);
    println!(
        "GL: default settings: prefilter of the sky at 512x256 {sky_ms:.1} ms, at 2048x1024 {large_ms:.1} ms"
    );
    gpu.finish();
}

/// The white furnace on tier C (GL) as on tier A (tests/furnace.rs).
#[test]
fn tier_c_passes_the_white_furnace() {
    let _turn = gl_turn();
    let gpu = gl_gpu();
    assert_eq!(gpu.adapter.get_info().backend, wgpu::Backend::Gl);
    check_furnace(&white_furnace(&gpu));
    gpu.finish();
}

/// The specular cube is sampled the right way round on GL too (its cube
/// map is made by copies into GL's faces).
#[test]
fn tier_c_reflects_the_environment_the_right_way_round() {
    let _turn = gl_turn();
    let gpu = gl_gpu();
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    assert_eq!(renderer.tier(), Tier::C);
    check_mirror(&gpu, &mut renderer);
    gpu.finish();
}

/// The many-lights scene on tier C (GL: the light pass's compute and the
/// fragments' storage-buffer reads of the light table and cluster lists;
/// no texture unit more) matches the reference image tier A matches
/// (tests/lights.rs), with the tolerance of the demo scene above (64x64
/// textures, nothing resampled): channel difference <= 3 on all but 1% of
/// pixels; and its cluster lists equal tier A's.
#[test]
fn tier_c_renders_the_many_lights_scene_like_the_reference() {
    let _turn = gl_turn();
    let scene = many_lights_scene();
    let render = |gpu: &Gpu| {
        let mut renderer = gpu.renderer(&Gpu::default_capacities());
        scene.load_into(&mut renderer).unwrap();
        let target = Target::new(gpu, scene.width, scene.height);
        let image = target.render(gpu, &mut renderer).0;
        (
            image,
            read_cluster_lists(gpu, &renderer).clusters,
            renderer.tier(),
        )
    };
    let vulkan = Gpu::new(&Gpu::default_capacities());
    let (_, a_lists, _) = render(&vulkan);
    vulkan.finish();
    let gl = gl_gpu();
    let (c, c_lists, tier) = render(&gl);
    assert_eq!(tier, Tier::C);
    save_output("lights_many_tier_c", &c);
    assert!(
        a_lists == c_lists,
        "tier C's cluster lists differ from tier A's"
    );
    compare_with_reference(&gl, "lights_many", &c, 3, 0.01);
    gl.finish();
}

/// The sphere grid on tier C against tier A (`tests/sphere_grid.rs` checks
/// tier A against its reference). Channel difference <= 3 on all but 1% of
/// pixels, as for the demo scene.
#[test]
fn tier_c_renders_the_sphere_grid_like_tier_a() {
    let _turn = gl_turn();
    let vulkan = Gpu::new(&Gpu::default_capacities());
    let (a, _) = common::sphere_grid::render_sphere_grid(&vulkan, None);
    let gl = gl_gpu();
    let (c, tier) = common::sphere_grid::render_sphere_grid(&gl, None);
    assert_eq!(tier, Tier::C);
    save_output("sphere_grid_c", &c);
    let bad = mismatched_pixels(&a, &c, 3);
    let worst = largest_difference(&a, &c);
    assert!(
        bad <= (a.width() * a.height()) as usize / 100,
        "{bad} pixels differ by more than 3; largest difference {worst}"
    );
    eprintln!("sphere grid, tier C against A: {bad} pixels differ by > 3, largest {worst}");
    gl.finish();
    vulkan.finish();
}

/// The output pass on tier C: on GL the tone-mapping curves match their
/// CPU twins (tests/output.rs on tier A); 4× MSAA is refused there with a
/// typed error (wgpu's GL backend cannot read a multisampled texture in a
/// shader), and tier C forced on Vulkan renders 4× what it renders at 1×
/// except along edges, ids never averaged.
#[test]
fn tier_c_tone_maps_and_msaa_needs_a_backend_that_reads_multisampled_textures() {
    use unbound::output::Msaa;
    let _turn = gl_turn();
    let config = RendererConfig {
        capacities: Gpu::default_capacities(),
        ..Default::default()
    };
    let gpu = gl_gpu();
    check_curves(&gpu, config);
    let error = unbound::Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        RendererConfig {
            msaa: Msaa::X4,
            ..config
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            error,
            unbound::Error::Capability(unbound::CapabilityError::MsaaBackend {
                backend: wgpu::Backend::Gl,
                samples: 4
            })
        ),
        "{error:?}"
    );
    gpu.finish();
    drop(gpu);
    let gpu = Gpu::new(&config.capacities);
    let tier_c = RendererConfig {
        tier: Some(Tier::C),
        ..config
    };
    check_msaa(&gpu, tier_c, "tier_c_msaa");
    gpu.finish();
}

/// The material views of a generated glTF on tier C (GL): the same checks
/// as `tests/debug_views.rs` on tier A, texel by texel within one step.
#[test]
fn tier_c_material_views_show_the_gltf_texels() {
    let _turn = gl_turn();
    let gl = gl_gpu();
    let mut renderer = gl.renderer(&Gpu::default_capacities());
    assert_eq!(renderer.tier(), Tier::C);
    check_gltf_material_views(&gl, &mut renderer);
    gl.finish();
}

/// The shadow scene (`tests/shadows.rs` checks tier A against its reference
/// and the CPU ray test) on tier C against tier A: the shadow pass and the
/// shadows variant on GL, with the masked quad's alpha through the texture
/// arrays (where its 4x4 texture is resampled to 64x64 and filtered
/// trilinearly, so its edges, and its shadow's, differ). Channel difference
/// <= 3 on all but 2% of pixels.
#[test]
fn tier_c_renders_shadows_like_tier_a() {
    use common::shadow_scene::{SIZE, render};
    let _turn = gl_turn();
    let vulkan = Gpu::new(&Gpu::default_capacities());
    let (a, _) = render(&vulkan, None, true, true);
    let (unshadowed, _) = render(&vulkan, None, true, false);
    let gl = gl_gpu();
    let (c, tier) = render(&gl, None, true, true);
    assert_eq!(tier, Tier::C);
    save_output("shadows_c", &c);
    let bad = mismatched_pixels(&a, &c, 3);
    let worst = largest_difference(&a, &c);
    eprintln!("shadows, tier C against A: {bad} pixels differ by > 3, largest {worst}");
    assert!(
        bad <= (SIZE * SIZE) as usize / 50,
        "{bad} pixels differ by more than 3; largest difference {worst}"
    );
    // The shadows are there: as many pixels darkened by them as on tier A.
    let shadowed = |image: &image::RgbaImage| mismatched_pixels(image, &unshadowed, 10);
    let (on_a, on_c) = (shadowed(&a), shadowed(&c));
    assert!(on_a > 1000, "{on_a} pixels in shadow on tier A");
    assert!(
        on_c.abs_diff(on_a) <= on_a / 20,
        "shadowed pixels: A {on_a}, C {on_c}"
    );
    gl.finish();
    vulkan.finish();
}

/// The depth pre-pass on tier C (GL, texture arrays, plain multi-draws):
/// the draw pass's vertex stage runs in the pre-pass too, so the images
/// with and without it are the same, pixel for pixel, along the camera
/// path with occlusion culling, in the lit and object-id views
/// (`tests/prepass.rs` for tiers A and B).
#[test]
fn tier_c_renders_the_same_with_the_depth_prepass() {
    use common::prepass_scene::compare_path;
    use unbound::output::Msaa;
    let _turn = gl_turn();
    let gl = gl_gpu();
    compare_path(&gl, (Some(Tier::C), Msaa::X1), true);
}

/// The shadow scene under the sun and a shadowed spot light
/// (`tests/spot_shadows.rs` checks tier A against its reference and the
/// CPU ray test) on tier C against tier A: the cascades and the spot's
/// layer share one depth array on GL. The same tolerance as the sun's
/// shadows, and the spot's shadow is there: as many pixels darkened by the
/// spot's shadow as on tier A.
#[test]
fn tier_c_renders_spot_shadows_like_tier_a() {
    use common::shadow_scene::{SIZE, render_with_spot};
    let _turn = gl_turn();
    let vulkan = Gpu::new(&Gpu::default_capacities());
    let (a, _) = render_with_spot(&vulkan, None, true, Some(true));
    let (unshadowed, _) = render_with_spot(&vulkan, None, true, Some(false));
    let gl = gl_gpu();
    let (c, renderer) = render_with_spot(&gl, None, true, Some(true));
    assert_eq!(renderer.tier(), Tier::C);
    assert_eq!(renderer.spot_shadows().len(), 1);
    save_output("spot_shadows_c", &c);
    let bad = mismatched_pixels(&a, &c, 3);
    let worst = largest_difference(&a, &c);
    eprintln!("spot shadows, tier C against A: {bad} pixels differ by > 3, largest {worst}");
    assert!(
        bad <= (SIZE * SIZE) as usize / 50,
        "{bad} pixels differ by more than 3; largest difference {worst}"
    );
    let shadowed = |image: &image::RgbaImage| mismatched_pixels(image, &unshadowed, 10);
    let (on_a, on_c) = (shadowed(&a), shadowed(&c));
    assert!(on_a > 500, "{on_a} pixels in the spot's shadow on tier A");
    assert!(
        on_c.abs_diff(on_a) <= on_a / 20,
        "pixels in the spot's shadow: A {on_a}, C {on_c}"
    );
    gl.finish();
    vulkan.finish();
}

/// Each compressed file of issue 25 against its original on tier B
/// (lavapipe with the tier forced), within the tolerance tier A's test
/// (`tests/gltf_compressed.rs`) states: at most 3% of pixels differ by
/// more than 24 in a channel, bounds within 1/1000 of the extent.
#[test]
fn compressed_files_render_like_their_originals_on_tier_b() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    for (name, original, compressed) in compressed_pairs() {
        assert_renders_like_original(
            &gpu,
            Some(Tier::B),
            "tier_b",
            (name, &original, &compressed),
        );
    }
    gpu.finish();
}

/// The same on tier C (Mesa's GL llvmpipe), every pair, within the same
/// tolerance: original and compressed file go through the same texture
/// resampling into tier C's size-class arrays (FlightHelmet's 2048 x 2048
/// textures included).
#[test]
fn compressed_files_render_like_their_originals_on_tier_c() {
    let _turn = gl_turn();
    let gl = gl_gpu();
    for (name, original, compressed) in compressed_pairs() {
        assert_renders_like_original(&gl, Some(Tier::C), "tier_c", (name, &original, &compressed));
    }
    gl.finish();
}
