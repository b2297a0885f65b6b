//! Spot-light shadows (`unbound::shadows::spots`) in the shadow scene
//! (`tests/common/shadow_scene.rs`) under a spot light: the shadows of the
//! box and of the masked quad's opaque cells fall on the pixels a CPU ray
//! test towards the light predicts, the image with the sun too matches its
//! reference (tier B identically), the shadowed spots are the first
//! casting ones in slot order up to the setting, and bad settings are
//! typed errors. The spots' visible sets are checked in
//! `tests/culling.rs`, tier C in `tests/tiers.rs`, the sun's shadows in
//! `tests/shadows.rs`.

mod common;

use common::shadow_scene::*;
use common::*;
use glam::Vec3;
use unbound::shadows::spots::{NO_SPOT_SHADOW, SpotShadow};
use unbound::shadows::{MAX_SPOT_SHADOWS, ShadowError};
use unbound::{Error, Light, ShadowSettings, Tier};

/// A plane pixel whose ray towards the spot light meets the same kind of
/// blocker from every point within a margin of its own (two pixels'
/// footprint plus four texels of the spot's map there: the filter's reach
/// and the bias), well inside the inner cone.
struct Probe {
    x: u32,
    y: u32,
    blocker: Blocker,
}

fn probes(spot: &SpotShadow) -> Vec<Probe> {
    let light = spot_light(true);
    let axis = light.direction.normalize();
    let inner = SPOT_CONE.0;
    let mut probes = Vec::new();
    for y in 2..SIZE - 2 {
        for x in 2..SIZE - 2 {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let Some((point, footprint)) = plane_footprint(cx, cy) else {
                continue;
            };
            let depth = (point - SPOT_POSITION).dot(axis);
            let margin = footprint + 4.0 * spot.texel_scale * depth;
            let towards = |p: Vec3| (SPOT_POSITION - p).normalize();
            if (-towards(point)).dot(axis) < (inner - 0.05).cos() {
                continue;
            }
            let blocker = trace(point, towards(point));
            let uniform = (0..16).all(|k| {
                let angle = k as f32 * std::f32::consts::TAU / 16.0;
                let moved = point + Vec3::new(angle.cos(), 0.0, angle.sin()) * margin;
                trace(moved, towards(moved)).blocks() == blocker.blocks()
            });
            if uniform {
                probes.push(Probe { x, y, blocker });
            }
        }
    }
    probes
}

/// Shadow placement: with the sun dark, at every probe the ray test
/// predicts blocked (by the box, or by an opaque cell of the masked quad),
/// the pixel with the spot's shadow equals the pixel without the spot,
/// which is well darker than the pixel with a spot that casts none; where
/// it predicts the light reaches (past the quad's holes too), the shadow
/// changes nothing. Then the scene with the sun and the spot, both
/// shadowed, against its reference, and tier B identical.
#[test]
fn spot_shadows_fall_where_rays_to_the_light_are_blocked_and_match_the_reference() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (shadowed, renderer) = render_with_spot(&gpu, None, false, Some(true));
    assert_eq!(renderer.tier(), Tier::A);
    let spots = renderer.spot_shadows().to_vec();
    assert_eq!(spots.len(), 1, "the spot is shadowed");
    let slot = spots[0].slot;
    assert_eq!(renderer.lights().gpu_entry(slot).unwrap().shadow, 0);
    let (unshadowed, renderer) = render_with_spot(&gpu, None, false, Some(false));
    assert!(renderer.spot_shadows().is_empty(), "a spot casting none");
    let entry = renderer.lights().gpu_entry(slot).unwrap();
    assert_eq!(entry.shadow, NO_SPOT_SHADOW);
    let (spotless, _) = render_with_spot(&gpu, None, false, None);
    save_output("spot_shadows_on", &shadowed);
    save_output("spot_shadows_off", &unshadowed);

    let mut counts = std::collections::HashMap::new();
    for probe in probes(&spots[0]) {
        let on = *shadowed.get_pixel(probe.x, probe.y);
        let off = unshadowed.get_pixel(probe.x, probe.y).0;
        let dark = spotless.get_pixel(probe.x, probe.y).0;
        let at = (probe.x, probe.y, probe.blocker);
        if probe.blocker.blocks() {
            assert!(
                color_distance(on, dark) <= 2,
                "{at:?}: shadowed {on:?}, without the spot {dark:?}"
            );
            assert!(
                color_distance(image::Rgba(off), dark) >= 15,
                "{at:?}: the spot adds too little to tell ({off:?} against {dark:?})"
            );
        } else {
            assert!(
                color_distance(on, off) <= 2,
                "{at:?}: lit {on:?}, without the spot's shadow {off:?}"
            );
        }
        *counts.entry(probe.blocker).or_insert(0) += 1;
    }
    eprintln!("probes per blocker: {counts:?}");
    for blocker in [
        Blocker::Box,
        Blocker::OpaqueCell,
        Blocker::Hole,
        Blocker::Clear,
    ] {
        assert!(
            counts.get(&blocker).copied().unwrap_or(0) >= 8,
            "too few probes of {blocker:?}: {counts:?}"
        );
    }

    // The sun and the spot, both shadowed. lavapipe renders it identically
    // run to run; the margin is for other LLVM versions.
    let (both, _) = render_with_spot(&gpu, None, true, Some(true));
    compare_with_reference(&gpu, "spot_shadows", &both, 2, 0.002);
    let (b, renderer) = render_with_spot(&gpu, Some(Tier::B), true, Some(true));
    assert_eq!(renderer.tier(), Tier::B);
    assert_eq!(mismatched_pixels(&both, &b, 0), 0, "tier B differs");
    gpu.finish();
}

/// The shadowed spots are the first `spot_lights` live spot lights that
/// cast shadows, in slot order, whatever the order of the calls; removing
/// one or raising the setting gives the next its shadow; each gets a view
/// of its own after the cascades; with shadows off there is none.
#[test]
fn the_first_casting_spots_in_slot_order_are_shadowed() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu, None, true, true);
    let spot = |x: f32, casts_shadows: bool| Light {
        position: Vec3::new(x, 6.0, 0.0),
        ..spot_light(casts_shadows)
    };
    let point = Light::point(Vec3::new(0.0, 3.0, 0.0), Vec3::ONE, 5.0, Some(6.0));
    let handles = [
        renderer.add_light(&spot(-3.0, true)).unwrap(),
        renderer.add_light(&point).unwrap(),
        renderer.add_light(&spot(-1.0, false)).unwrap(),
        renderer.add_light(&spot(1.0, true)).unwrap(),
        renderer.add_light(&spot(3.0, true)).unwrap(),
        renderer.add_light(&spot(5.0, true)).unwrap(),
    ];
    renderer
        .set_shadows(&ShadowSettings {
            spot_lights: 2,
            ..settings(true)
        })
        .unwrap();
    let shadow_of =
        |renderer: &unbound::Renderer, i: usize| renderer.lights().get(handles[i]).unwrap().shadow;
    let none = NO_SPOT_SHADOW;
    let all: Vec<u32> = (0..6).map(|i| shadow_of(&renderer, i)).collect();
    assert_eq!(all, [0, none, none, 1, none, none]);
    let target = Target::new(&gpu, SIZE, SIZE);
    let slots = |renderer: &unbound::Renderer| -> Vec<u32> {
        renderer.spot_shadows().iter().map(|s| s.slot).collect()
    };
    let slot =
        |renderer: &unbound::Renderer, i: usize| renderer.lights().resolve(handles[i]).unwrap();
    target.render(&gpu, &mut renderer);
    assert_eq!(slots(&renderer), [slot(&renderer, 0), slot(&renderer, 3)]);
    // The camera, 4 cascades, 2 spots.
    assert!(renderer.cull_region(6).is_some() && renderer.cull_region(7).is_none());

    // The first casting spot goes: the next ones move up.
    renderer.remove_light(handles[0]).unwrap();
    assert_eq!(
        (1..6).map(|i| shadow_of(&renderer, i)).collect::<Vec<_>>(),
        [none, none, 0, 1, none]
    );
    // A spot that starts casting takes its place in slot order.
    renderer.set_light(handles[2], &spot(-1.0, true)).unwrap();
    assert_eq!(
        (1..6).map(|i| shadow_of(&renderer, i)).collect::<Vec<_>>(),
        [none, 0, 1, none, none]
    );
    // More shadowed spots.
    renderer
        .set_shadows(&ShadowSettings {
            spot_lights: 3,
            ..settings(true)
        })
        .unwrap();
    assert_eq!(
        (1..6).map(|i| shadow_of(&renderer, i)).collect::<Vec<_>>(),
        [none, 0, 1, 2, none]
    );
    target.render(&gpu, &mut renderer);
    let expected: Vec<u32> = (2..5).map(|i| slot(&renderer, i)).collect();
    assert_eq!(slots(&renderer), expected);
    assert!(renderer.cull_region(7).is_some() && renderer.cull_region(8).is_none());
    let map = renderer.shadow_map_texture().unwrap();
    assert_eq!(map.depth_or_array_layers(), 7, "4 cascades and 3 spots");

    // Shadows off: no spot view, no map drawn.
    renderer.set_shadows(&settings(false)).unwrap();
    target.render(&gpu, &mut renderer);
    assert!(renderer.spot_shadows().is_empty());
    assert!(renderer.cull_region(1).is_none());
    gpu.finish();
}

/// Too many shadowed spots is a typed error that keeps the settings in
/// use, at run time and at creation; the renderer renders afterwards with
/// its spot shadow.
#[test]
fn too_many_shadowed_spots_are_refused() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu, None, true, true);
    renderer.add_light(&spot_light(true)).unwrap();
    let good = *renderer.shadows();
    let error = renderer
        .set_shadows(&ShadowSettings {
            spot_lights: MAX_SPOT_SHADOWS + 1,
            ..good
        })
        .unwrap_err();
    let Error::Shadow(ShadowError::SpotLightCount { count }) = error else {
        panic!("{error:?}");
    };
    assert_eq!(count, MAX_SPOT_SHADOWS + 1);
    assert_eq!(*renderer.shadows(), good, "the settings in use stay");
    let (image, _) = Target::new(&gpu, SIZE, SIZE).render(&gpu, &mut renderer);
    assert!(drawn_pixels(&image, image.get_pixel(0, 0).0) > 1000);
    assert_eq!(renderer.spot_shadows().len(), 1);

    let created = unbound::Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        unbound::RendererConfig {
            capacities: Gpu::default_capacities(),
            shadows: ShadowSettings {
                spot_lights: MAX_SPOT_SHADOWS + 1,
                ..good
            },
            ..Default::default()
        },
    );
    assert_matches!(
        created,
        Err(Error::Shadow(ShadowError::SpotLightCount { .. }))
    );
    gpu.finish();
}
