//! The depth pre-pass tests' scene (`tests/prepass.rs`, `tests/tiers.rs`):
//! the occlusion tests' wall scene with alpha-masked screens and point
//! lights, and the comparison of a camera path with the pre-pass on and off.

use glam::{Vec3, Vec4};
use unbound::output::Msaa;
use unbound::{
    AlphaMode, DebugOptions, DebugView, Light, Material, Renderer, RendererConfig, TextureRef,
    Tier, shapes,
};

use super::occlusion_scene::{HEIGHT, WIDTH, background_srgb, sliding_camera, wall_scene};
use super::*;

/// A 16×16 texture of 4×4-texel squares, alternately opaque and clear (its
/// colour varies too), sampled linearly: the alpha test meets interpolated
/// alpha at every square's edge.
fn checker_texels() -> Vec<u8> {
    (0..16 * 16)
        .flat_map(|i| {
            let (x, y) = (i % 16, i / 16);
            let opaque = (x / 4 + y / 4) % 2 == 0;
            [
                (x * 16) as u8,
                (y * 16) as u8,
                160,
                if opaque { 255 } else { 0 },
            ]
        })
        .collect()
}

/// The occlusion tests' wall scene, two alpha-masked screens in front of
/// the wall (one double-sided) and 40 point lights among the objects.
pub fn overdraw_scene(renderer: &mut Renderer) {
    wall_scene(renderer);
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let texels = checker_texels();
    let texture = data_texture(renderer, 16, wgpu::TextureFormat::Rgba8UnormSrgb, &texels);
    let sampler = renderer.heap().default_sampler();
    for (x, double_sided) in [(-1.5, false), (1.8, true)] {
        let material = renderer
            .add_material(&Material {
                base_color_factor: Vec4::new(1.0, 0.9, 0.8, 1.0),
                base_color: Some(TextureRef::new(texture, sampler)),
                alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
                double_sided,
                metallic_factor: 0.0,
                ..Default::default()
            })
            .unwrap();
        renderer
            .add_object(&unbound::ObjectDesc {
                mesh: quad,
                material,
                world_from_object: quad_at(Vec3::new(x, 0.2, 5.0), 2.5, 2.5),
            })
            .unwrap();
    }
    let mut rng = unbound_scenes::Rng::new(27);
    for _ in 0..40 {
        let position = Vec3::new(
            rng.range(-5.0, 5.0),
            rng.range(-2.0, 2.0),
            rng.range(-4.0, 6.0),
        );
        let color = Vec3::new(
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
        );
        let light = Light::point(position, color, rng.range(0.5, 3.0), Some(3.0));
        renderer.add_light(&light).unwrap();
    }
}

pub fn renderer_for(gpu: &Gpu, (tier, msaa): (Option<Tier>, Msaa), prepass: bool) -> Renderer {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        msaa,
        depth_prepass: prepass,
        ..Default::default()
    });
    renderer.set_lighting(&flat_lighting()).unwrap();
    overdraw_scene(&mut renderer);
    renderer
}

/// Renders the sliding path with the pre-pass on and off, occlusion
/// culling as `occlusion` says, in the lit view and then the object-id
/// view, and asserts every frame equal.
pub fn compare_path(gpu: &Gpu, setup: (Option<Tier>, Msaa), occlusion: bool) {
    let frames = 6;
    let mut on = renderer_for(gpu, setup, true);
    let mut off = renderer_for(gpu, setup, false);
    assert!(on.depth_prepass() && !off.depth_prepass());
    for renderer in [&mut on, &mut off] {
        renderer.set_occlusion(occlusion);
    }
    let name = format!("{:?}-{:?}-occlusion-{occlusion}", setup.0, setup.1);
    let lit = Target::with_msaa(gpu, WIDTH, HEIGHT, Target::FORMAT, setup.1);
    let ids = Target::with_msaa(gpu, WIDTH, HEIGHT, unbound::ID_TARGET_FORMAT, setup.1);
    for (view, target) in [(DebugView::Lit, &lit), (DebugView::ObjectIndex, &ids)] {
        let debug = DebugOptions {
            view,
            ..Default::default()
        };
        on.set_debug(&debug).unwrap();
        off.set_debug(&debug).unwrap();
        for frame in 0..frames {
            // The path's middle: the wall and the screens in view.
            let camera = sliding_camera(frame + 2, frames + 4);
            on.set_camera(&camera).unwrap();
            off.set_camera(&camera).unwrap();
            let (with, with_stats) = target.render(gpu, &mut on);
            let (without, without_stats) = target.render(gpu, &mut off);
            let differ = mismatched_pixels(&with, &without, 0);
            if differ > 0 {
                save_output(&format!("prepass-{name}-{view:?}-{frame}-on"), &with);
                save_output(&format!("prepass-{name}-{view:?}-{frame}-off"), &without);
            }
            assert_eq!(differ, 0, "{name} {view:?} frame {frame}: pixels differ");
            // The pre-pass ran (one pass, its groups and draws more), and
            // the frame shows something.
            assert!(
                with_stats.commands_recorded > without_stats.commands_recorded,
                "{name}: {} against {} commands",
                with_stats.commands_recorded,
                without_stats.commands_recorded
            );
            if view == DebugView::Lit {
                let drawn = drawn_pixels(&with, background_srgb());
                assert!(
                    drawn > (WIDTH * HEIGHT / 8) as usize,
                    "{name} frame {frame}: {drawn}"
                );
            }
        }
    }
    gpu.finish();
}
