//! Values the renderer derives from valid inputs are checked as well
//! (issue 24, class 5): each input below is finite and in its own range,
//! but a product or ratio of them is not, and is refused with a typed error
//! naming the derived value; the setting in use is kept and the renderer
//! renders the same image afterwards (lights, materials, cameras, exposure,
//! environment radiance, shadow cascades). Radiance past the HDR target,
//! which no check can rule out, shows as the brightest value, never NaN.

mod common;

use common::*;
use glam::Vec3;
use unbound::output::{Output, OutputError};
use unbound::{
    Camera, Error, Light, LightError, MAX_LIGHT_INTENSITY, MAX_LIGHT_RANGE, Material,
    MaterialError, RenderError,
};

#[test]
fn derived_overflows_are_refused_and_the_renderer_renders_on() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let solid = add_solid_object(
        &mut renderer,
        quad,
        [200, 100, 50, 255],
        quad_at(Vec3::ZERO, 2.0, 2.0),
    );
    let good_light = Light::point(Vec3::new(0.0, 0.0, 1.0), Vec3::ONE, 1.0, None);
    let light = renderer.add_light(&good_light).unwrap();
    let target = Target::new(&gpu, 8, 8);
    let (before, _) = target.render(&gpu, &mut renderer);

    // A light: colour 1e20 × intensity 1e20 overflows; each is finite.
    let bright = Light {
        color: Vec3::splat(1e20),
        intensity: 1e20,
        ..good_light
    };
    for result in [
        renderer.add_light(&bright),
        renderer.set_light(light, &bright).map(|()| light),
    ] {
        let error = result.unwrap_err();
        assert!(
            matches!(
                &error,
                Error::Light(LightError::Derived { value, max, .. })
                    if *value == f32::INFINITY && *max == MAX_LIGHT_INTENSITY
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.contains("colour × intensity")
                && message.contains("intensity 100000000000000000000"),
            "{message}"
        );
    }
    // Just over the bound, finite: still refused; the bound itself is taken.
    let over = Light {
        intensity: MAX_LIGHT_INTENSITY * 2.0,
        ..good_light
    };
    assert_matches!(
        renderer.add_light(&over),
        Err(Error::Light(LightError::Derived { .. }))
    );
    let at = Light {
        intensity: MAX_LIGHT_INTENSITY,
        ..good_light
    };
    let at = renderer.add_light(&at).unwrap();
    renderer.remove_light(at).unwrap();
    // A range whose square overflows.
    let far = Light {
        range: Some(1e30),
        ..good_light
    };
    let error = renderer.add_light(&far).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Light(LightError::Derived { value, max, .. })
                if value == 1e30 && max == MAX_LIGHT_RANGE
        ),
        "{error:?}"
    );
    // A scalar field prints as a scalar, not as a vector.
    let nan = Light {
        intensity: f32::NAN,
        ..good_light
    };
    let message = renderer.add_light(&nan).unwrap_err().to_string();
    assert!(
        message.ends_with("intensity is not finite: NaN"),
        "{message}"
    );
    assert_eq!(renderer.lights().len(), 1);

    // A material: emissive factor 1e30 × strength 1e30.
    let sampler = renderer.heap().default_sampler();
    let glowing = Material {
        emissive_factor: Vec3::splat(1e30),
        emissive_strength: 1e30,
        ..material_showing(solid.texture, sampler)
    };
    let error = renderer
        .update_material(solid.material, &glowing)
        .unwrap_err();
    assert!(
        matches!(error, Error::Material(MaterialError::Derived { value, .. }) if value == f32::INFINITY),
        "{error:?}"
    );
    assert_matches!(
        renderer.add_material(&glowing),
        Err(Error::Material(MaterialError::Derived { .. }))
    );

    // A camera: z_far / z_near, the view's length squared (2e30²), 1 / aspect.
    let camera = *renderer.camera();
    for bad in [
        Camera {
            z_near: 1e-30,
            z_far: 1e30,
            ..camera
        },
        Camera {
            position: Vec3::new(0.0, 0.0, 1e30),
            target: Vec3::new(0.0, 0.0, -1e30),
            ..camera
        },
        Camera {
            aspect: 1e-40,
            ..camera
        },
    ] {
        assert_matches!(
            renderer.set_camera(&bad),
            Err(Error::Render(RenderError::InvalidCamera(_)))
        );
    }
    assert_eq!(renderer.camera(), &camera);

    // Exposure: 2^120 is a finite scale, 2^120 × the brightest HDR value is
    // not.
    let output = *renderer.output();
    let exposure_ev = 120.0;
    let error = renderer
        .set_output(&Output {
            exposure_ev,
            ..output
        })
        .unwrap_err();
    assert!(
        matches!(error, Error::Output(OutputError::Derived { exposed, .. }) if exposed == f32::INFINITY),
        "{error:?}"
    );
    assert_eq!(renderer.output(), &output);

    let (after, _) = target.render(&gpu, &mut renderer);
    assert_eq!(
        largest_difference(&before, &after),
        0,
        "the renderer renders on"
    );
    gpu.finish();
}

/// Radiance past the HDR target's largest value (65504, `f16`) is stored as
/// infinity whatever the inputs: an emissive of 1e30 (factor 1e30 ×
/// strength 1, finite, accepted) fills the view, and every tone-mapping
/// curve shows it as its brightest, never NaN (which the colour target
/// would show as black). So does an exposure of +100 EV (accepted:
/// 2^100 × 65504 is finite) over an ordinary radiance, whose square
/// overflows `f32` inside ACES.
#[test]
fn radiance_past_the_hdr_target_shows_as_the_brightest() {
    use unbound::output::ToneMapping;
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let glowing = renderer
        .add_material(&Material {
            base_color_factor: glam::Vec4::new(0.0, 0.0, 0.0, 1.0),
            emissive_factor: Vec3::splat(1e30),
            emissive_strength: 1.0,
            ..Default::default()
        })
        .unwrap();
    let object = renderer
        .add_object(&unbound::ObjectDesc {
            mesh: quad,
            material: glowing,
            world_from_object: quad_at(Vec3::ZERO, 4.0, 4.0),
        })
        .unwrap();
    let target = Target::new(&gpu, 8, 8);
    let darkest_channel = |image: &image::RgbaImage| {
        image
            .pixels()
            .flat_map(|p| p.0[..3].to_vec())
            .min()
            .unwrap()
    };
    let curves = [
        ToneMapping::PbrNeutral,
        ToneMapping::Aces,
        ToneMapping::Agx,
        ToneMapping::Linear,
    ];
    for tone_mapping in curves {
        let output = Output {
            tone_mapping,
            ..Output::default()
        };
        renderer.set_output(&output).unwrap();
        let (image, _) = target.render(&gpu, &mut renderer);
        let darkest = darkest_channel(&image);
        assert!(
            darkest >= 250,
            "{tone_mapping:?}: emissive 1e30 shows {darkest}"
        );
    }

    // An ordinary grey surface at +100 EV.
    renderer.remove_object(object).unwrap();
    add_solid_object(
        &mut renderer,
        quad,
        [128, 128, 128, 255],
        quad_at(Vec3::ZERO, 4.0, 4.0),
    );
    for tone_mapping in curves {
        let output = Output {
            tone_mapping,
            exposure_ev: 100.0,
        };
        renderer.set_output(&output).unwrap();
        let (image, _) = target.render(&gpu, &mut renderer);
        let darkest = darkest_channel(&image);
        assert!(darkest >= 250, "{tone_mapping:?}: +100 EV shows {darkest}");
    }
    gpu.finish();
}

/// An environment radiance the maps' half floats cannot hold (a channel
/// above 65504: a uniform colour, a sky's sun, an image's texel) is
/// refused, naming it and the bound, and the environment in use is kept;
/// so is an `ambient_color` that, times the brightest environment radiance,
/// overflows `f32`. The bound itself is accepted.
#[test]
fn environment_radiance_past_the_maps_is_refused() {
    use unbound::lighting::environment::MAX_ENVIRONMENT_RADIANCE;
    use unbound::lighting::{Environment, EnvironmentError, EquirectImage, Sky};
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 1.0);
    add_solid_object(
        &mut renderer,
        quad,
        [200, 100, 50, 255],
        quad_at(Vec3::ZERO, 1.0, 1.0),
    );
    let target = Target::new(&gpu, 8, 8);
    let (before, _) = target.render(&gpu, &mut renderer);

    let bright_sun = Sky {
        sun_radiance: Vec3::new(1e5, 9e4, 8e4),
        ..Sky::default()
    };
    for (environment, named) in [
        (Environment::Uniform(Vec3::new(1.0, 1e6, 1.0)), "uniform"),
        (Environment::Sky(bright_sun), "sky sun_radiance"),
    ] {
        let error = renderer
            .set_environment(&gpu.queue, &environment)
            .unwrap_err();
        assert!(
            matches!(
                &error,
                Error::Environment(EnvironmentError::TooBright { what, max, .. })
                    if what == named && *max == 65504.0
            ),
            "{error:?}"
        );
        assert!(error.to_string().contains("65504"), "{error}");
    }
    // An image's texels may be brighter than the maps hold (an unclipped
    // sun): the prefilter clamps what it stores.
    let sun = EquirectImage::new(2, 1, vec![Vec3::ONE, Vec3::new(0.0, 7e4, 0.0)]).unwrap();
    renderer
        .set_environment(&gpu.queue, &Environment::Equirect(sun))
        .unwrap();
    let error =
        EquirectImage::new(2, 1, vec![Vec3::ONE, Vec3::new(0.0, f32::INFINITY, 0.0)]).unwrap_err();
    assert!(
        matches!(&error, EnvironmentError::BadRadiance { x: 1, y: 0, .. }),
        "{error:?}"
    );
    let lighting = *renderer.lighting();
    let error = renderer
        .set_lighting(&unbound::Lighting {
            ambient_color: Vec3::splat(1e34),
            ..lighting
        })
        .unwrap_err();
    assert_matches!(
        error,
        Error::Lighting(unbound::LightingError::Derived { .. })
    );
    assert_eq!(renderer.lighting(), &lighting);

    // The bound is accepted; the renderer renders on.
    let at_bound = Environment::Uniform(Vec3::splat(MAX_ENVIRONMENT_RADIANCE));
    renderer.set_environment(&gpu.queue, &at_bound).unwrap();
    renderer
        .set_environment(&gpu.queue, &Environment::uniform_white())
        .unwrap();
    let (after, _) = target.render(&gpu, &mut renderer);
    assert_eq!(largest_difference(&before, &after), 0);
    gpu.finish();
}

/// Shadow settings valid field by field whose derived values are not: a
/// bias of more texels than the map is wide (whose world size, times a
/// cascade's texel, may overflow), and a `max_distance` of 1e30 that,
/// with a camera whose far plane is 1e30 (each valid alone), gives a
/// cascade whose bounding sphere overflows `f32`. `set_shadows` refuses
/// them with the camera in use; a frame refuses them with a camera set
/// afterwards, recording nothing; the renderer renders on.
#[test]
fn shadow_cascades_past_f32_are_refused() {
    use unbound::{ShadowError, ShadowSettings};
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 1.0);
    add_solid_object(
        &mut renderer,
        quad,
        [200, 100, 50, 255],
        quad_at(Vec3::ZERO, 1.0, 1.0),
    );
    let on = ShadowSettings {
        enabled: true,
        resolution: 64,
        ..ShadowSettings::default()
    };
    renderer.set_shadows(&on).unwrap();
    let target = Target::new(&gpu, 8, 8);
    let (before, _) = target.render(&gpu, &mut renderer);

    for bias in [
        ShadowSettings {
            depth_bias_texels: 1e30,
            ..on
        },
        ShadowSettings {
            normal_offset_texels: 65.0,
            ..on
        },
    ] {
        let error = renderer.set_shadows(&bias).unwrap_err();
        assert!(
            matches!(error, Error::Shadow(ShadowError::Derived { max, .. }) if max == 64.0),
            "{error:?}"
        );
    }
    let far_reaching = ShadowSettings {
        max_distance: 1e30,
        ..on
    };
    // The camera's far plane (20) bounds the cascades: accepted.
    renderer.set_shadows(&far_reaching).unwrap();
    let camera = *renderer.camera();
    let deep = Camera {
        z_far: 1e30,
        ..camera
    };
    renderer.set_camera(&deep).unwrap();
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let error = renderer.render(&mut encoder, &target.frame()).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Shadow(ShadowError::Derived { derived, value, .. })
                if derived.starts_with("cascade") && !value.is_finite()
        ),
        "{error:?}"
    );
    drop(encoder);
    assert_matches!(
        renderer.set_shadows(&far_reaching),
        Err(Error::Shadow(ShadowError::Derived { .. }))
    );
    assert_eq!(renderer.shadows(), &far_reaching);

    renderer.set_camera(&camera).unwrap();
    renderer.set_shadows(&on).unwrap();
    let (after, _) = target.render(&gpu, &mut renderer);
    assert_eq!(
        largest_difference(&before, &after),
        0,
        "the renderer renders on"
    );
    gpu.finish();
}
