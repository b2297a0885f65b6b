//! The compute material pass ([`MaterialPass::Compute`], the default,
//! `src/passes/visibility.rs`) against the fragment material pass, both
//! chosen explicitly, on the built-in demo scene, FlightHelmet, the
//! shadowed scene (cascaded shadows, an alpha-masked quad) and the sphere
//! grid (the sky behind it), with occlusion culling on (the fragment pass
//! shades in both phases, the compute pass once after the late phase) and
//! off; and each pass with occlusion on against off: the same image,
//! exactly. The default material pass is checked against forward in
//! `tests/visibility.rs`, each pass's debug views in
//! `tests/visibility_debug.rs`.
//!
//! Tolerance: lit colour within 2/255 on at least 99% of pixels. Both
//! passes run the same reconstruction and shading on the same ids; what
//! may differ is the compiler's rounding of the two entry points.

mod common;

use common::sphere_grid::set_up_sphere_grid;
use common::*;
use glam::{Mat4, Vec3};
use unbound::loaders::gltf::load_gltf;
use unbound::{Camera, Geometry, MaterialPass, Renderer, RendererConfig};

/// Builds a renderer of `config` with a scene on it.
type Build<'a> = &'a dyn Fn(&Gpu, RendererConfig) -> Renderer;

/// Renders the scene `build` makes through the visibility buffer with
/// the fragment and the compute material pass, occlusion on and off, at
/// `size`, and asserts the lit images agree (within 2/255 on 99% of
/// pixels), something was drawn, and each pass draws the same image with
/// occlusion on as off.
fn compare_material_passes(gpu: &Gpu, build: Build<'_>, name: &str, size: (u32, u32)) {
    let target = Target::new(gpu, size.0, size.1);
    let pixels = (size.0 * size.1) as usize;
    let mut occluded = None;
    for occlusion in [true, false] {
        let render = |material_pass| {
            let mut renderer = build(
                gpu,
                RendererConfig {
                    capacities: Gpu::default_capacities(),
                    geometry: Geometry::Visibility,
                    material_pass,
                    occlusion,
                    ..Default::default()
                },
            );
            assert_eq!(renderer.geometry(), Geometry::Visibility, "{name}");
            assert_eq!(renderer.material_pass(), material_pass, "{name}");
            // Two frames: the second with the first's depth pyramid.
            target.render(gpu, &mut renderer);
            target.render(gpu, &mut renderer).0
        };
        let fragment = render(MaterialPass::Fragment);
        let compute = render(MaterialPass::Compute);
        let label = format!("{name}, occlusion {occlusion}");
        let differ = mismatched_pixels(&fragment, &compute, 2);
        if differ * 100 > pixels {
            save_output(&format!("material-{name}-fragment"), &fragment);
            save_output(&format!("material-{name}-compute"), &compute);
        }
        assert!(
            differ * 100 <= pixels,
            "{label}: {differ} of {pixels} pixels differ by more than 2/255 (largest {})",
            largest_difference(&fragment, &compute)
        );
        eprintln!("{label}: {differ} of {pixels} pixels differ by more than 2/255");
        let background = fragment.get_pixel(0, 0).0;
        let drawn = fragment.pixels().filter(|p| p.0 != background).count();
        assert!(drawn * 10 > pixels, "{label}: {drawn} pixels drawn");
        let Some((fragment_on, compute_on)) = occluded.replace((fragment, compute)) else {
            continue;
        };
        let (fragment_off, compute_off) = occluded.as_ref().expect("just set");
        for (pass, on, off) in [
            ("fragment", &fragment_on, fragment_off),
            ("compute", &compute_on, compute_off),
        ] {
            let differ = mismatched_pixels(on, off, 0);
            if differ > 0 {
                save_output(&format!("material-{name}-{pass}-occlusion"), on);
                save_output(&format!("material-{name}-{pass}-no-occlusion"), off);
            }
            assert_eq!(differ, 0, "{name}, {pass}: occlusion on against off");
        }
        eprintln!("{name}: occlusion on and off draw the same image with either pass");
    }
}

#[test]
fn the_demo_scene_looks_the_same_through_the_compute_material_pass() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let build = |gpu: &Gpu, config| {
        let mut renderer = gpu.renderer_with(config);
        let config = unbound_scenes::demo::DemoSceneConfig {
            instances: 600,
            textures: 48,
            ..Default::default()
        };
        let scene =
            unbound_scenes::demo::build_demo_scene(&mut renderer, &config, 160.0 / 90.0).unwrap();
        renderer.set_camera(&scene.camera).unwrap();
        renderer
    };
    compare_material_passes(&gpu, &build, "demo", (160, 90));
    gpu.finish();
}

#[test]
fn flight_helmet_looks_the_same_through_the_compute_material_pass() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let build = |gpu: &Gpu, config| {
        let mut renderer = gpu.renderer_with(config);
        let helmet = asset("FlightHelmet/FlightHelmet.gltf");
        load_gltf(&mut renderer, &helmet, Mat4::IDENTITY).unwrap();
        let camera = Camera {
            position: Vec3::new(0.0, 0.35, 0.9),
            target: Vec3::new(0.0, 0.3, 0.0),
            aspect: 1.0,
            z_near: 0.01,
            ..Default::default()
        };
        renderer.set_camera(&camera).unwrap();
        renderer
    };
    compare_material_passes(&gpu, &build, "helmet", (128, 128));
    gpu.finish();
}

#[test]
fn the_shadowed_scene_looks_the_same_through_the_compute_material_pass() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let build = |gpu: &Gpu, config: RendererConfig| {
        let mut renderer = gpu.renderer_with(RendererConfig {
            shadows: shadow_scene::settings(true),
            ..config
        });
        shadow_scene::build(&mut renderer, true);
        renderer
    };
    let size = shadow_scene::SIZE;
    compare_material_passes(&gpu, &build, "shadows", (size, size));
    gpu.finish();
}

#[test]
fn the_sphere_grid_looks_the_same_through_the_compute_material_pass() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let build = |gpu: &Gpu, config| {
        let mut renderer = gpu.renderer_with(config);
        set_up_sphere_grid(gpu, &mut renderer);
        renderer
    };
    let size = common::sphere_grid::sphere_grid_size();
    compare_material_passes(&gpu, &build, "sphere-grid", size);
    gpu.finish();
}

/// The compute material pass is the default where the visibility buffer
/// runs; it falls back to the fragment pass where the visibility buffer
/// cannot run: at 4× MSAA (the HDR target has four samples; a storage
/// texture one) and on tier B.
#[test]
fn the_compute_material_pass_is_the_default_and_falls_back_to_fragment() {
    assert_eq!(
        RendererConfig::default().material_pass,
        MaterialPass::Compute
    );
    let gpu = Gpu::new(&Gpu::default_capacities());
    let default = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        ..Default::default()
    });
    assert_eq!(default.material_pass(), MaterialPass::Compute);
    let fallbacks = [
        (None, unbound::output::Msaa::X4),
        (Some(unbound::Tier::B), unbound::output::Msaa::X1),
    ];
    for (tier, msaa) in fallbacks {
        let renderer = gpu.renderer_with(RendererConfig {
            capacities: Gpu::default_capacities(),
            tier,
            msaa,
            material_pass: MaterialPass::Compute,
            ..Default::default()
        });
        assert_eq!(
            renderer.material_pass(),
            MaterialPass::Fragment,
            "{tier:?} {msaa:?}"
        );
    }
    gpu.finish();
}
