//! A directional light as the sun (issue 27 item 6): a table light named
//! the sun drives the shadow cascades and the sun term in place of the
//! built-in sun, and is shaded once; the glTF loader names a file's
//! brightest directional light the sun; bad names are typed errors.

mod common;

use common::shadow_scene::{self, SIZE, plane_footprint, sun_direction, trace};
use common::sun_file::{SUN_LUX, pixel_of, roof_shadow_centre, sun_gltf_file};
use common::*;
use glam::Vec3;
use unbound::gpu_types::{LIGHT_KIND_DIRECTIONAL, LIGHT_KIND_NONE};
use unbound::output::{Output, ToneMapping};
use unbound::{Error, Light, LightError, Lighting};

/// The built-in sun of the shadow scene, as a table light.
fn sun_light() -> Light {
    Light::directional(
        -sun_direction(),
        Vec3::ONE,
        Lighting::default().light_color.x,
    )
}

/// Rec. 709 luminance of an sRGB pixel, linear.
fn pixel_luminance(image: &image::RgbaImage, (x, y): (u32, u32)) -> f32 {
    let p = image.get_pixel(x, y).0;
    let linear = Vec3::from_array([0, 1, 2].map(|c| srgb_to_linear(f32::from(p[c]) / 255.0)));
    linear.dot(Vec3::new(0.2126, 0.7152, 0.0722))
}

/// The shadow scene lit by a directional table light named the sun equals
/// the scene lit by the built-in sun of the same direction and colour
/// (tolerance 1 per channel: both shade the same uniforms; measured 0), so
/// its cascades are the built-in sun's: interior plane pixels whose CPU ray
/// towards the sun meets the box are darker than without shadows (at most
/// 0.6 of it), and those whose ray is clear are unchanged (within 2).
#[test]
fn a_light_named_the_sun_casts_the_built_in_suns_shadows_and_is_shaded_once() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (built_in, _) = shadow_scene::render(&gpu, None, true, true);
    let (unshadowed, _) = shadow_scene::render(&gpu, None, true, false);

    let mut renderer = shadow_scene::renderer(&gpu, None, false, true);
    let sun = renderer.add_light(&sun_light()).unwrap();
    renderer.set_sun_light(Some(sun)).unwrap();
    assert_eq!(renderer.sun_light(), Some(sun));
    let lighting = renderer.sun();
    assert!((lighting.direction_to_light - sun_direction()).length() < 1e-6);
    assert_eq!(lighting.light_color, Lighting::default().light_color);
    let target = Target::new(&gpu, SIZE, SIZE);
    let (named, _) = target.render(&gpu, &mut renderer);
    save_output("sun_named", &named);
    let differing = mismatched_pixels(&built_in, &named, 1);
    eprintln!(
        "named sun against built-in: {differing} pixels differ by > 1, largest {}",
        largest_difference(&built_in, &named)
    );
    assert_eq!(differing, 0);

    // Where the CPU says: rays from the plane towards the sun.
    let (mut shadowed, mut clear) = (0, 0);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            let Some((point, footprint)) = plane_footprint(fx, fy) else {
                continue;
            };
            // Interior: the whole footprint meets the same blocker.
            let blocker = trace(point, sun_direction());
            let same = [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z]
                .iter()
                .all(|&d| trace(point + d * footprint, sun_direction()) == blocker);
            if !same {
                continue;
            }
            let (with, without) = (
                pixel_luminance(&named, (x, y)),
                pixel_luminance(&unshadowed, (x, y)),
            );
            if blocker == shadow_scene::Blocker::Box {
                assert!(with < 0.6 * without, "({x}, {y}): {with} vs {without}");
                shadowed += 1;
            } else if !blocker.blocks() {
                let (a, b) = (named.get_pixel(x, y), unshadowed.get_pixel(x, y));
                assert!(color_distance(*a, b.0) <= 2, "({x}, {y}): {a:?} {b:?}");
                clear += 1;
            }
        }
    }
    eprintln!("{shadowed} pixels in the box's shadow, {clear} clear");
    assert!(shadowed > 100 && clear > 1000, "{shadowed} {clear}");
    gpu.finish();
}

/// The sun's table entry is empty on the GPU (kind `NONE`, so no cluster
/// lists it) while `get` still gives it; making it a point light or
/// removing it brings the built-in sun back and its entry is written
/// again; only a live directional light can be named.
#[test]
fn the_sun_light_leaves_the_table_and_comes_back() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let built_in = *renderer.lighting();
    let sun = renderer.add_light(&sun_light()).unwrap();
    let slot = renderer.lights().resolve(sun).unwrap();
    renderer.set_sun_light(Some(sun)).unwrap();
    let entry = |r: &unbound::Renderer| r.lights().gpu_entry(slot).unwrap().kind;
    assert_eq!(entry(&renderer), LIGHT_KIND_NONE);
    assert_eq!(
        renderer.lights().get(sun).unwrap().kind,
        LIGHT_KIND_DIRECTIONAL
    );
    // Changing it keeps it the sun, with the new values.
    let brighter = Light {
        intensity: 10.0,
        ..sun_light()
    };
    renderer.set_light(sun, &brighter).unwrap();
    assert_eq!(renderer.sun().light_color, Vec3::splat(10.0));
    assert_eq!(entry(&renderer), LIGHT_KIND_NONE);
    // A point light is not a sun.
    let point = Light::point(Vec3::Y, Vec3::ONE, 5.0, None);
    renderer.set_light(sun, &point).unwrap();
    assert_eq!(renderer.sun_light(), None);
    assert_eq!(renderer.sun(), built_in);
    assert_ne!(entry(&renderer), LIGHT_KIND_NONE);
    let refused = renderer.set_sun_light(Some(sun));
    assert!(
        matches!(
            refused,
            Err(Error::Light(LightError::NotDirectional { .. }))
        ),
        "{refused:?}"
    );
    // Removed: the built-in sun again; a stale handle is refused.
    renderer.set_light(sun, &sun_light()).unwrap();
    renderer.set_sun_light(Some(sun)).unwrap();
    renderer.remove_light(sun).unwrap();
    assert_eq!(renderer.sun_light(), None);
    assert_eq!(renderer.sun(), built_in);
    let stale = renderer.set_sun_light(Some(sun));
    assert!(
        matches!(stale, Err(Error::Light(LightError::Handle(_)))),
        "{stale:?}"
    );
    // Named back to none: the entry is the table's again.
    let other = renderer.add_light(&sun_light()).unwrap();
    renderer.set_sun_light(Some(other)).unwrap();
    renderer.set_sun_light(None).unwrap();
    let slot = renderer.lights().resolve(other).unwrap();
    assert_eq!(
        renderer.lights().gpu_entry(slot).unwrap().kind,
        LIGHT_KIND_DIRECTIONAL
    );
    gpu.finish();
}

/// Loading a file names its brightest directional light (2,049 lux, not
/// the first, 10 lux) the sun; its roof's shadow lands where the CPU
/// projects it along the sun (the shadow's centre shows at most 0.3 of the
/// lit ground's luminance beside it); a second file keeps the first's sun.
#[test]
fn a_files_brightest_directional_light_is_the_sun() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    renderer.set_camera(&shadow_scene::camera()).unwrap();
    renderer.set_shadows(&shadow_scene::settings(true)).unwrap();
    // Fixed exposure for 2,049 lux: -10 EV (this test is about the shadow).
    renderer
        .set_output(&Output {
            exposure_ev: -10.0,
            tone_mapping: ToneMapping::PbrNeutral,
        })
        .unwrap();
    let path = sun_gltf_file("sun.gltf");
    let scene =
        unbound::loaders::gltf::load_gltf(&mut renderer, &path, glam::Mat4::IDENTITY).unwrap();
    let sun = renderer.sun_light().expect("the file's sun");
    assert!(scene.lights.contains(&sun));
    assert_eq!(renderer.lights().get(sun).unwrap().intensity, [SUN_LUX; 3]);
    let lighting = renderer.sun();
    assert!((lighting.direction_to_light - sun_direction()).length() < 1e-5);
    assert!(
        (lighting.light_color - Vec3::splat(SUN_LUX))
            .abs()
            .max_element()
            < 1e-2
    );
    let target = Target::new(&gpu, SIZE, SIZE);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("sun_file", &image);
    let shadow = pixel_luminance(&image, pixel_of(roof_shadow_centre()));
    let lit = pixel_luminance(&image, pixel_of(roof_shadow_centre() + Vec3::X * 3.5));
    eprintln!("file's sun: shadow centre {shadow}, lit ground {lit}");
    assert!(shadow < 0.3 * lit, "{shadow} vs {lit}");

    let again =
        unbound::loaders::gltf::load_gltf(&mut renderer, &path, glam::Mat4::IDENTITY).unwrap();
    assert_eq!(renderer.sun_light(), Some(sun));
    assert!(!again.lights.contains(&sun));
    gpu.finish();
}
