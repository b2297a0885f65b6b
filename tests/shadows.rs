//! The sun's cascaded shadows (`unbound::shadows`) on a ground plane under
//! an opaque box and an alpha-masked quad with a checker of holes
//! (`tests/common/shadow_scene.rs`): shadows fall on the pixels a CPU ray
//! test predicts, the quad's shadow has its holes, the image matches its
//! reference (tier B identically), the cascades debug view shows the
//! cascade of each pixel, a camera moving by less than a texel leaves the
//! shadow map as it was, and bad settings are typed errors. Tier C is
//! checked in `tests/tiers.rs`; the cascades' visible sets in
//! `tests/culling.rs`.

mod common;

use common::shadow_scene::*;
use common::*;
use glam::Vec3;
use unbound::shadows::Cascade;
use unbound::{DebugOptions, DebugView, Error, ShadowError, ShadowSettings, Tier};

/// A plane pixel whose sun ray meets the same kind of blocker from every
/// point within a margin of its own (two pixels' footprint plus four texels
/// of its cascade: the filter's reach and the bias), so that the shadow's
/// edge is at least that far.
struct Probe {
    x: u32,
    y: u32,
    blocker: Blocker,
    cascade: usize,
}

/// The probes of the image. `cascades` are the ones the
/// renderer used; points within the margin of a split are left out too.
fn probes(cascades: &[Cascade]) -> Vec<Probe> {
    let sun = sun_direction();
    let mut probes = Vec::new();
    for y in 2..SIZE - 2 {
        for x in 2..SIZE - 2 {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let Some((point, footprint)) = plane_footprint(cx, cy) else {
                continue;
            };
            let depth = view_depth(point);
            let Some(cascade) = cascades.iter().position(|c| depth <= c.far_depth) else {
                continue;
            };
            let margin = footprint + 4.0 * cascades[cascade].texel_world_size;
            let near_split = cascades
                .iter()
                .any(|c| (view_depth(point) - c.far_depth).abs() < margin);
            let blocker = trace(point, sun);
            let uniform = (0..16).all(|k| {
                let angle = k as f32 * std::f32::consts::TAU / 16.0;
                let moved = point + Vec3::new(angle.cos(), 0.0, angle.sin()) * margin;
                trace(moved, sun).blocks() == blocker.blocks()
            });
            if uniform && !near_split {
                probes.push(Probe {
                    x,
                    y,
                    blocker,
                    cascade,
                });
            }
        }
    }
    probes
}

/// At every probe the sun ray test predicts blocked, `shadowed` equals
/// `sunless` (only the sun is shadowed), which is well darker than
/// `unshadowed`; where it predicts the sun reaches, `shadowed` equals
/// `unshadowed`. Returns the probes per blocker; fails unless the probes
/// span two cascades.
fn check_probes(
    probes: &[Probe],
    shadowed: &image::RgbaImage,
    unshadowed: &image::RgbaImage,
    sunless: &image::RgbaImage,
) -> std::collections::HashMap<Blocker, usize> {
    let mut counts = std::collections::HashMap::new();
    let mut cascades_seen = std::collections::BTreeSet::new();
    for probe in probes {
        let on = *shadowed.get_pixel(probe.x, probe.y);
        let off = unshadowed.get_pixel(probe.x, probe.y).0;
        let dark = sunless.get_pixel(probe.x, probe.y).0;
        let at = (probe.x, probe.y, probe.blocker);
        if probe.blocker.blocks() {
            assert!(
                color_distance(on, dark) <= 2,
                "{at:?}: shadowed {on:?}, without the sun {dark:?}"
            );
            assert!(
                color_distance(image::Rgba(off), dark) >= 15,
                "{at:?}: the sun adds too little to tell ({off:?} against {dark:?})"
            );
        } else {
            assert!(
                color_distance(on, off) <= 2,
                "{at:?}: lit {on:?}, without shadows {off:?}"
            );
        }
        *counts.entry(probe.blocker).or_insert(0) += 1;
        cascades_seen.insert(probe.cascade);
    }
    eprintln!("probes per blocker: {counts:?}, cascades {cascades_seen:?}");
    assert!(cascades_seen.len() >= 2, "probes in {cascades_seen:?}");
    counts
}

/// The renderer's cascades for the scene (one frame recorded).
fn scene_cascades(gpu: &Gpu) -> Vec<Cascade> {
    let mut renderer = renderer(gpu, None, true, true);
    Target::new(gpu, SIZE, SIZE).render(gpu, &mut renderer);
    renderer.shadow_cascades().to_vec()
}

/// Shadow placement: at every probe the sun ray test predicts blocked (by
/// the box, or by an opaque cell of the masked quad), the pixel with
/// shadows on equals the pixel with the sun off (only the sun is shadowed:
/// image-based light is not), which is well darker than the pixel with the
/// sun and no shadows; where it predicts the sun reaches (past the quad's
/// holes too), shadows change nothing. Then the image against its
/// reference, and tier B identical.
#[test]
fn shadows_fall_where_rays_to_the_sun_are_blocked_and_match_the_reference() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let cascades = scene_cascades(&gpu);
    assert_eq!(cascades.len(), 4);
    let (shadowed, tier) = render(&gpu, None, true, true);
    assert_eq!(tier, Tier::A);
    let (unshadowed, _) = render(&gpu, None, true, false);
    let (sunless, _) = render(&gpu, None, false, false);
    save_output("shadows_on", &shadowed);
    save_output("shadows_off", &unshadowed);

    let counts = check_probes(&probes(&cascades), &shadowed, &unshadowed, &sunless);
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

    // lavapipe renders it identically run to run; the margin is for other
    // LLVM versions.
    compare_with_reference(&gpu, "shadows", &shadowed, 2, 0.002);
    let (b, tier) = render(&gpu, Some(Tier::B), true, true);
    assert_eq!(tier, Tier::B);
    assert_eq!(mismatched_pixels(&shadowed, &b, 0), 0, "tier B differs");
    gpu.finish();
}

/// With a punctual light in the scene (the draw shader's variant with
/// lights and shadows), the sun's shadows fall as without one, and the
/// punctual light is not shadowed: blocked probes show the scene lit by the
/// environment and the point light alone.
#[test]
fn shadows_fall_beside_punctual_lights() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let cascades = scene_cascades(&gpu);
    let target = Target::new(&gpu, SIZE, SIZE);
    let render_with_light = |sun: bool, shadows: bool| {
        let mut renderer = renderer(&gpu, None, sun, shadows);
        let light = unbound::Light::point(Vec3::new(0.5, 4.0, 3.0), Vec3::ONE, 6.0, None);
        renderer.add_light(&light).unwrap();
        target.render(&gpu, &mut renderer).0
    };
    let shadowed = render_with_light(true, true);
    let unshadowed = render_with_light(true, false);
    let sunless = render_with_light(false, false);
    let (plain, _) = render(&gpu, None, true, true);
    assert!(
        mismatched_pixels(&shadowed, &plain, 5) > (SIZE * SIZE) as usize / 4,
        "the point light shows"
    );
    let counts = check_probes(&probes(&cascades), &shadowed, &unshadowed, &sunless);
    assert!(
        counts.get(&Blocker::Box).copied().unwrap_or(0) >= 8,
        "{counts:?}"
    );
    gpu.finish();
}

/// The cascades view: each probe shows its cascade's colour (red, green,
/// blue, yellow), full where lit and half where shadowed.
#[test]
fn cascades_view_shows_each_pixels_cascade() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu, None, true, true);
    renderer
        .set_debug(&DebugOptions {
            view: DebugView::Cascades,
            ..Default::default()
        })
        .unwrap();
    let (image, _) = Target::new(&gpu, SIZE, SIZE).render(&gpu, &mut renderer);
    save_output("shadows_cascades", &image);
    let colours = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [1.0, 1.0, 0.0],
    ];
    let probes = probes(renderer.shadow_cascades());
    assert!(probes.len() > 100);
    for probe in &probes {
        let scale = if probe.blocker.blocks() { 0.5 } else { 1.0 };
        let expected =
            colours[probe.cascade].map(|c| (linear_to_srgb(c * scale) * 255.0).round() as u8);
        let pixel = *image.get_pixel(probe.x, probe.y);
        assert!(
            color_distance(pixel, [expected[0], expected[1], expected[2], 255]) <= 2,
            "({}, {}) in cascade {}: {pixel:?}, expected {expected:?}",
            probe.x,
            probe.y,
            probe.cascade
        );
    }
    gpu.finish();
}

/// Texel snapping: a camera moved by a fraction of a texel (its cascades'
/// snapped origins unchanged) leaves the shadow map bit for bit as it was,
/// though the camera, and so each cascade's slice, moved; a larger move
/// shifts the cascades by whole texels only (`shadows.rs`'s unit tests
/// check the matrices).
#[test]
fn moving_the_camera_by_a_fraction_of_a_texel_leaves_the_shadow_map_unchanged() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu, None, true, true);
    let target = Target::new(&gpu, SIZE, SIZE);
    target.render(&gpu, &mut renderer);
    let before = renderer.shadow_cascades().to_vec();
    let map = read_shadow_map(&gpu, &renderer);
    assert!(
        bytemuck::cast_slice::<u8, f32>(&map)
            .iter()
            .any(|&d| d < 1.0),
        "casters were drawn"
    );
    // A small move that keeps every snapped origin (found on the CPU).
    let texel = before[0].texel_world_size;
    let step = (1..50)
        .map(|k| Vec3::new(0.37, 0.11, -0.23).normalize() * texel * 0.02 * k as f32)
        .rev()
        .find(|&step| {
            let mut camera = camera();
            camera.position += step;
            camera.target += step;
            let moved = unbound::shadows::cascades(&camera, sun_direction(), &settings(true));
            moved
                .iter()
                .zip(&before)
                .all(|(a, b)| a.origin_texels == b.origin_texels)
        })
        .expect("a sub-texel move keeping the origins");
    let mut camera = camera();
    camera.position += step;
    camera.target += step;
    renderer.set_camera(&camera).unwrap();
    target.render(&gpu, &mut renderer);
    let after = renderer.shadow_cascades().to_vec();
    for (a, b) in after.iter().zip(&before) {
        assert_ne!(a.sphere, b.sphere, "the slice moved");
        assert_eq!(
            a.clip_from_world, b.clip_from_world,
            "the projection did not"
        );
    }
    assert!(
        read_shadow_map(&gpu, &renderer) == map,
        "the shadow map changed"
    );
    gpu.finish();
}

/// Bad settings are typed errors that keep the settings in use, at run time
/// and at creation; the renderer renders afterwards.
#[test]
fn bad_shadow_settings_are_refused() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer(&gpu, None, true, true);
    let good = *renderer.shadows();
    let max = gpu.device.limits().max_texture_dimension_2d;
    let bad = [
        ShadowSettings {
            cascades: 0,
            ..good
        },
        ShadowSettings {
            cascades: unbound::shadows::MAX_CASCADES + 1,
            ..good
        },
        ShadowSettings {
            resolution: 0,
            ..good
        },
        ShadowSettings {
            resolution: max + 1,
            ..good
        },
        ShadowSettings {
            split_lambda: f32::NAN,
            ..good
        },
        ShadowSettings {
            split_lambda: 1.5,
            ..good
        },
        ShadowSettings {
            max_distance: f32::INFINITY,
            ..good
        },
        ShadowSettings {
            depth_bias_texels: -1.0,
            ..good
        },
        ShadowSettings {
            normal_offset_texels: f32::NAN,
            ..good
        },
    ];
    for settings in bad {
        let error = renderer.set_shadows(&settings).unwrap_err();
        assert_matches!(&error, Error::Shadow(_));
        match error {
            Error::Shadow(ShadowError::Resolution { resolution, max: m }) => {
                assert_eq!((resolution, m), (settings.resolution, max));
            }
            Error::Shadow(ShadowError::CascadeCount { count }) => {
                assert_eq!(count, settings.cascades);
            }
            Error::Shadow(ShadowError::OutOfRange { .. }) => {}
            other => panic!("{settings:?}: {other:?}"),
        }
        assert_eq!(*renderer.shadows(), good, "the settings in use stay");
    }
    // Disabled settings are checked too.
    assert_matches!(
        renderer.set_shadows(&ShadowSettings {
            enabled: false,
            cascades: 0,
            ..good
        }),
        Err(Error::Shadow(ShadowError::CascadeCount { count: 0 }))
    );
    let (image, _) = Target::new(&gpu, SIZE, SIZE).render(&gpu, &mut renderer);
    assert!(drawn_pixels(&image, image.get_pixel(0, 0).0) > 1000);
    assert_eq!(renderer.shadow_cascades().len(), 4);

    let created = unbound::Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        unbound::RendererConfig {
            capacities: Gpu::default_capacities(),
            shadows: ShadowSettings {
                resolution: 0,
                ..good
            },
            ..Default::default()
        },
    );
    assert_matches!(created, Err(Error::Shadow(ShadowError::Resolution { .. })));
    gpu.finish();
}
