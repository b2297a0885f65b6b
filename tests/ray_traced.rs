//! Inline ray tracing on lavapipe, traced images: ray-query sun shadows
//! where a CPU ray test predicts and where the shadow maps put them, the
//! masked occluder's holes, and the path-traced reference view (the white
//! furnace, and a lone sphere against the raster image-based light).

mod common;

use common::shadow_scene::{self, Blocker};
use common::*;
use unbound::{Error, Material, ObjectDesc, Renderer, shapes};

/// Ground-plane pixels of the shadow scene (`common::shadow_scene`, the
/// scene of `tests/shadows.rs`) away from shadow edges: the CPU ray test
/// classifies the plane points of the pixel's centre and of the four points
/// a pixel away alike. Each: (x, y, in shadow, decided by the masked quad:
/// the ray towards the sun crosses an opaque cell or a hole).
fn predicted_pixels() -> Vec<(u32, u32, bool, bool)> {
    let sun = shadow_scene::sun_direction();
    let predict = |x: f32, y: f32| {
        let blocker = shadow_scene::trace(shadow_scene::plane_point(x, y)?, sun);
        let by_quad = matches!(blocker, Blocker::OpaqueCell | Blocker::Hole);
        Some((blocker.blocks(), by_quad))
    };
    let mut pixels = Vec::new();
    for y in 0..shadow_scene::SIZE {
        for x in 0..shadow_scene::SIZE {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let Some(centre) = predict(cx, cy) else {
                continue;
            };
            let around = [(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0)];
            if around
                .iter()
                .all(|(dx, dy)| predict(cx + dx, cy + dy) == Some(centre))
            {
                pixels.push((x, y, centre.0, centre.1));
            }
        }
    }
    pixels
}

/// The shadow scene rendered lit: without shadows, with ray-query shadows
/// and with shadow maps (`shadow_scene::settings`: 4 cascades of 512²).
struct ShadowImages {
    unshadowed: image::RgbaImage,
    ray_query: image::RgbaImage,
    maps: image::RgbaImage,
}

fn shadow_images() -> ShadowImages {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    let mut renderer = gpu.renderer_with(ray_config(capacities));
    shadow_scene::build(&mut renderer, true);
    let target = Target::new(&gpu, shadow_scene::SIZE, shadow_scene::SIZE);
    let unshadowed = target.render(&gpu, &mut renderer).0;
    renderer.set_ray_query_shadows(true).unwrap();
    let ray_query = target.render(&gpu, &mut renderer).0;
    assert!(renderer.shadow_cascades().is_empty(), "no maps with rays");
    save_output("ray_queries_shadows", &ray_query);
    renderer.set_ray_query_shadows(false).unwrap();
    renderer.set_shadows(&shadow_scene::settings(true)).unwrap();
    let maps = target.render(&gpu, &mut renderer).0;
    assert_eq!(renderer.shadow_cascades().len(), 4, "the maps were drawn");
    gpu.finish();
    ShadowImages {
        unshadowed,
        ray_query,
        maps,
    }
}

/// How the GPU shows ground pixel `(x, y)`: `Some(true)` in shadow (much
/// darker than without shadows), `Some(false)` lit (as without shadows),
/// `None` neither.
fn shown_in_shadow(
    unshadowed: &image::RgbaImage,
    shadowed: &image::RgbaImage,
    x: u32,
    y: u32,
) -> Option<bool> {
    let (a, b) = (unshadowed.get_pixel(x, y).0, shadowed.get_pixel(x, y).0);
    let darker = i32::from(a[1]) - i32::from(b[1]);
    match darker {
        d if d.abs() <= 2 => Some(false),
        d if d >= 40 => Some(true),
        _ => None,
    }
}

/// Counts (pixels, agreeing) among `pixels`: shown as predicted.
fn agreement(
    pixels: &[(u32, u32, bool, bool)],
    unshadowed: &image::RgbaImage,
    shadowed: &image::RgbaImage,
) -> (usize, usize) {
    let agreeing = pixels
        .iter()
        .filter(|&&(x, y, in_shadow, _)| {
            shown_in_shadow(unshadowed, shadowed, x, y) == Some(in_shadow)
        })
        .count();
    (pixels.len(), agreeing)
}

/// Ray-query shadows fall where a CPU ray test predicts: every ground
/// pixel away from shadow edges is in shadow exactly when the ray from its
/// point towards the sun meets the box or an opaque cell of the masked
/// quad (at least 99% of them; shadowed and lit pixels both present).
#[test]
fn ray_query_shadows_fall_where_a_cpu_ray_test_predicts() {
    let images = shadow_images();
    let pixels = predicted_pixels();
    let shadows = pixels.iter().filter(|p| p.2).count();
    assert!(
        shadows >= 200 && pixels.len() - shadows >= 2000,
        "{shadows} of {} in shadow",
        pixels.len()
    );
    let (total, agreeing) = agreement(&pixels, &images.unshadowed, &images.ray_query);
    eprintln!("shadows: {agreeing} of {total} ground pixels as predicted");
    assert!(
        agreeing as f64 >= 0.99 * total as f64,
        "{agreeing} of {total} ground pixels as predicted"
    );
}

/// Ray-query shadows and shadow maps agree: of the ground pixels away from
/// shadow edges, at least 98% are shown in shadow by both or lit by both
/// (the masked quad's holes included), with many of each kind.
#[test]
fn ray_query_shadows_agree_with_shadow_maps() {
    let images = shadow_images();
    let pixels = predicted_pixels();
    let shown = |image, &(x, y, _, _): &(u32, u32, bool, bool)| {
        shown_in_shadow(&images.unshadowed, image, x, y)
    };
    let in_shadow = pixels
        .iter()
        .filter(|p| shown(&images.ray_query, p) == Some(true))
        .count();
    let agreeing = pixels
        .iter()
        .filter(|p| shown(&images.ray_query, p) == shown(&images.maps, p))
        .count();
    eprintln!(
        "ray-query shadows and shadow maps agree on {agreeing} of {} ground pixels ({in_shadow} in shadow)",
        pixels.len()
    );
    assert!(
        in_shadow >= 200 && pixels.len() - in_shadow >= 2000,
        "{in_shadow} of {} in shadow",
        pixels.len()
    );
    assert!(
        agreeing as f64 >= 0.98 * pixels.len() as f64,
        "{agreeing} of {} ground pixels agree",
        pixels.len()
    );
}

/// The alpha-masked quad's shadow has its holes: under it, ground pixels
/// whose ray towards the sun crosses a hole are lit and those crossing an
/// opaque cell are in shadow (at least 99%, with many of each).
#[test]
fn alpha_masked_occluder_shadow_has_its_holes() {
    let images = shadow_images();
    let under_quad: Vec<_> = predicted_pixels().into_iter().filter(|p| p.3).collect();
    let holes = under_quad.iter().filter(|p| !p.2).count();
    let cells = under_quad.len() - holes;
    assert!(
        holes >= 60 && cells >= 60,
        "{holes} hole and {cells} opaque-cell pixels"
    );
    let (total, agreeing) = agreement(&under_quad, &images.unshadowed, &images.ray_query);
    eprintln!("masked shadow: {agreeing} of {total} pixels as predicted ({holes} holes)");
    assert!(
        agreeing as f64 >= 0.99 * total as f64,
        "{agreeing} of {total} pixels under the masked quad as predicted"
    );
}

/// Side of the path tracer's test images, in pixels.
const PATH_SIZE: u32 = 64;

/// A unit-radius sphere of `material` at the origin seen from far away
/// (nearly orthographic: n·v = √(1 - ρ²) at ρ radii from the centre),
/// filling the target's width with a margin, under the environment alone
/// (no sun).
fn lone_sphere(renderer: &mut Renderer, material: Material) {
    let mesh = renderer
        .add_mesh(&shapes::sphere(96, 48).as_mesh_data())
        .unwrap();
    let material = renderer.add_material(&material).unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: glam::Mat4::from_scale(glam::Vec3::splat(2.0)),
        })
        .unwrap();
    renderer
        .set_lighting(&unbound::Lighting {
            direction_to_light: glam::Vec3::Y,
            light_color: glam::Vec3::ZERO,
            ambient_color: glam::Vec3::ONE,
        })
        .unwrap();
    let distance = 200.0;
    renderer
        .set_camera(&unbound::Camera {
            position: glam::Vec3::new(0.0, 0.0, distance),
            target: glam::Vec3::ZERO,
            up: glam::Vec3::Y,
            fov_y_radians: 2.0 * (1.25f32 / distance).atan(),
            aspect: 1.0,
            z_near: distance - 10.0,
            z_far: distance + 10.0,
        })
        .unwrap();
}

/// The HDR target's texels (radiance before exposure and tone mapping)
/// after `frames` frames of the path-traced view, `samples_per_frame`
/// samples each.
fn path_traced(
    gpu: &Gpu,
    renderer: &mut Renderer,
    bounces: u32,
    samples_per_frame: u32,
    frames: u32,
) -> Vec<glam::Vec4> {
    renderer
        .set_debug(&unbound::DebugOptions {
            view: unbound::DebugView::PathTraced,
            ..Default::default()
        })
        .unwrap();
    renderer
        .set_path_tracing(&unbound::PathTracing {
            bounces,
            samples_per_frame,
        })
        .unwrap();
    let target = Target::new(gpu, PATH_SIZE, PATH_SIZE);
    for frame in 1..=frames {
        target.render(gpu, renderer);
        assert_eq!(renderer.path_traced_samples(), frame * samples_per_frame);
    }
    read_rgba16f(gpu, renderer.hdr_target().unwrap(), 0, 0)
}

/// Each pixel of the sphere's inner disc (within [`INNER`] of its radius,
/// 1.25 radii to the image's edge) with its n·v.
fn inner_disc() -> Vec<(usize, f32)> {
    let half = PATH_SIZE as f32 / 2.0;
    let radius_px = half / 1.25;
    (0..PATH_SIZE * PATH_SIZE)
        .filter_map(|i| {
            let (x, y) = ((i % PATH_SIZE) as f32 + 0.5, (i / PATH_SIZE) as f32 + 0.5);
            let rho = (x - half).hypot(y - half) / radius_px;
            (rho <= INNER).then(|| (i as usize, (1.0 - rho * rho).sqrt()))
        })
        .collect()
}

/// The white furnace, path traced: under a uniform white environment of
/// radiance 1, a white dielectric of roughness 1 (glTF's closest to a
/// white diffuse surface) converges to the environment's value times the
/// BRDF's directional albedo (the CPU's, `Brdf::directional_albedo`, 0.97
/// over the disc), and so does a white metal of roughness 0.3 (whose
/// bounces mostly follow the GGX reflection): the disc's mean within 0.01
/// after 256 samples per pixel (64 a frame, 4 frames, 2 bounces; 64²
/// pixels). Paths restart when the camera moves; bad settings are refused.
#[test]
fn path_traced_white_furnace_converges_to_the_environment() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    for (metallic, roughness) in [(0.0, 1.0), (1.0, 0.3)] {
        let mut renderer = gpu.renderer_with(ray_config(capacities));
        let white = Material {
            base_color_factor: glam::Vec4::ONE,
            metallic_factor: metallic,
            roughness_factor: roughness,
            ..Default::default()
        };
        lone_sphere(&mut renderer, white);
        let texels = path_traced(&gpu, &mut renderer, 2, 64, 4);
        let disc = inner_disc();
        let mean = disc
            .iter()
            .map(|&(i, _)| texels[i].truncate())
            .sum::<glam::Vec3>()
            / disc.len() as f32;
        let brdf = unbound::lighting::Brdf {
            base_color: glam::Vec3::ONE,
            metallic,
            roughness,
        };
        let expected = cpu_disc_albedo(&brdf);
        eprintln!(
            "path-traced furnace, metallic {metallic}, roughness {roughness}: {mean} against {expected} (environment 1)"
        );
        assert!(
            (mean - glam::Vec3::splat(expected)).abs().max_element() <= 0.01,
            "{mean} vs {expected}"
        );
        assert!(expected > 0.9, "{expected}");
        // Moving the camera starts again; settings out of range are refused.
        let mut camera = *renderer.camera();
        camera.position.x += 1.0;
        renderer.set_camera(&camera).unwrap();
        Target::new(&gpu, PATH_SIZE, PATH_SIZE).render(&gpu, &mut renderer);
        assert_eq!(renderer.path_traced_samples(), 64);
        let bad = unbound::PathTracing {
            bounces: 2,
            samples_per_frame: 0,
        };
        assert_matches!(
            renderer.set_path_tracing(&bad).unwrap_err(),
            Error::Render(unbound::RenderError::PathTracing { .. })
        );
    }
    gpu.finish();
}

/// A lone grey diffuse sphere under the procedural sky, path traced (256
/// samples per pixel, 2 bounces), against the draw pass's image-based
/// light (spherical harmonics and the split sum), both read before tone
/// mapping: the disc's mean within 3% and 95% of its pixels within 10%.
#[test]
fn path_traced_sphere_matches_the_raster_image_based_light() {
    let capacities = ray_capacities();
    let gpu = Gpu::with_ray_queries(&capacities);
    let mut renderer = gpu.renderer_with(ray_config(capacities));
    renderer
        .set_environment(&gpu.queue, &unbound::lighting::Environment::sky())
        .unwrap();
    let grey = Material {
        base_color_factor: glam::Vec4::new(0.7, 0.7, 0.7, 1.0),
        metallic_factor: 0.0,
        roughness_factor: 1.0,
        ..Default::default()
    };
    lone_sphere(&mut renderer, grey);
    Target::new(&gpu, PATH_SIZE, PATH_SIZE).render(&gpu, &mut renderer);
    let raster = read_rgba16f(&gpu, renderer.hdr_target().unwrap(), 0, 0);
    let traced = path_traced(&gpu, &mut renderer, 2, 64, 4);
    let disc = inner_disc();
    let luminance = |v: glam::Vec4| v.truncate().dot(glam::Vec3::new(0.2126, 0.7152, 0.0722));
    let (mut raster_sum, mut traced_sum, mut close) = (0.0, 0.0, 0);
    for &(i, _) in &disc {
        let (r, t) = (luminance(raster[i]), luminance(traced[i]));
        raster_sum += r;
        traced_sum += t;
        close += usize::from((t - r).abs() <= 0.1 * r);
    }
    let ratio = traced_sum / raster_sum;
    eprintln!(
        "path-traced sphere: mean {ratio:.4} of the raster's, {close} of {} pixels within 10%",
        disc.len()
    );
    assert!(
        (ratio - 1.0).abs() <= 0.03,
        "path traced / raster = {ratio}"
    );
    assert!(
        close * 100 >= disc.len() * 95,
        "{close} of {} pixels within 10%",
        disc.len()
    );
    gpu.finish();
}
