//! The device contract: the capability check names every missing feature
//! and low limit, and the device helper merges the application's needs.
//! The instances, adapters and devices these tests make themselves are
//! made and dropped in the process's lifecycle turn ([`common::InTurn`]).

mod common;

use common::InTurn;

use unbound::Tier;
use unbound::capabilities::{CapabilityError, check_adapter_tier, check_device};
use unbound::output::Msaa;
use unbound::{Capacities, REQUIRED_FEATURES, check_adapter};
use unbound_harness::{AdapterChoice, create_instance, instance_flags, select_adapter};

const GL_HINT: &str = "no OpenGL adapter: install Mesa's EGL and GL drivers \
(apt-get install -t bookworm-backports libegl1 libegl-mesa0 libgl1-mesa-dri)";

/// GL has no binding arrays: the check says exactly what tier A lacks there,
/// and the adapter is accepted at tier C with those reasons recorded.
#[test]
fn gl_adapter_lacks_binding_arrays_and_the_check_says_so() {
    let adapters = InTurn::make(|| {
        let instance = create_instance(
            &AdapterChoice {
                backends: Some(wgpu::Backends::GL),
                ..Default::default()
            },
            instance_flags(),
        );
        pollster::block_on(instance.enumerate_adapters(wgpu::Backends::GL))
    });
    let adapter = adapters.first().expect(GL_HINT);
    let support = check_adapter(adapter, &Capacities::default()).expect("GL runs tier C");
    assert_eq!(support.tier, Tier::C);
    assert_eq!(
        support.rejected.len(),
        2,
        "tiers A and B rejected with reasons"
    );
    let error = check_adapter_tier(adapter, &Capacities::default(), Tier::A)
        .expect_err("GL has no binding arrays");
    let CapabilityError::Unsupported {
        missing_features,
        low_limits,
        ..
    } = &error
    else {
        panic!("unexpected error {error}");
    };
    assert!(
        missing_features.contains(wgpu::Features::TEXTURE_BINDING_ARRAY),
        "{error}"
    );
    assert!(
        missing_features.contains(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT),
        "{error}"
    );
    let binding_arrays = low_limits
        .iter()
        .find(|l| l.name == "max_binding_array_elements_per_shader_stage")
        .unwrap_or_else(|| panic!("binding-array limit not reported: {error}"));
    assert_eq!(binding_arrays.required, 4096 + 16 + 64);
    let message = error.to_string();
    assert!(message.contains("TEXTURE_BINDING_ARRAY"), "{message}");
    assert!(
        message.contains("max_binding_array_elements_per_shader_stage: requires 4176"),
        "{message}"
    );
}

/// The test adapter; its instance lives as long as it does.
fn test_adapter() -> InTurn<wgpu::Adapter> {
    InTurn::make(|| {
        let choice = AdapterChoice::from_env(true);
        let instance = create_instance(&choice, instance_flags());
        pollster::block_on(select_adapter(&instance, &choice, &Capacities::default()))
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

#[test]
fn capacities_beyond_the_adapter_name_the_limit_with_both_values() {
    let adapter = test_adapter();
    let available = adapter.limits().max_binding_array_elements_per_shader_stage;
    let capacities = Capacities {
        textures_2d: available,
        objects: u32::MAX / 2,
        ..Capacities::default()
    };
    let error = check_adapter_tier(&adapter, &capacities, Tier::A).unwrap_err();
    let CapabilityError::Unsupported {
        low_limits,
        missing_features,
        ..
    } = &error
    else {
        panic!("{error}");
    };
    assert!(missing_features.is_empty());
    let names: Vec<_> = low_limits.iter().map(|l| l.name).collect();
    assert!(
        names.contains(&"max_binding_array_elements_per_shader_stage"),
        "{error}"
    );
    assert!(
        names.contains(&"max_storage_buffer_binding_size"),
        "{error}"
    );
    let array = low_limits
        .iter()
        .find(|l| l.name.starts_with("max_binding_array_elements"))
        .unwrap();
    assert_eq!(array.available, u64::from(available));
    // Clamping to the adapter gives capacities it accepts.
    let clamped = capacities.clamped_to(&adapter.limits());
    check_adapter(&adapter, &clamped).expect("clamped capacities fit");
}

#[test]
fn default_device_is_refused_and_helper_merges_application_needs() {
    let adapter = test_adapter();
    assert!(adapter.features().contains(REQUIRED_FEATURES));
    let plain =
        InTurn::make(|| pollster::block_on(adapter.request_device(&Default::default())).unwrap());
    let error = check_device(&plain.0, &Capacities::default(), Tier::A).unwrap_err();
    assert!(
        matches!(error, CapabilityError::DeviceMissingFeatures { .. }),
        "{error}"
    );
    drop(plain);

    let adapter = test_adapter();
    let app_limits = wgpu::Limits {
        max_bind_groups: 5.min(adapter.limits().max_bind_groups),
        ..Default::default()
    };
    let app_features = adapter.features() & wgpu::Features::DEPTH_CLIP_CONTROL;
    let application = InTurn::make(|| {
        pollster::block_on(unbound::request_device(
            &adapter,
            &Capacities::default(),
            &unbound::DeviceOptions {
                label: Some("application device"),
                features: app_features,
                limits: app_limits.clone(),
                ..Default::default()
            },
        ))
        .unwrap()
    });
    let device = &application.0;
    check_device(device, &Capacities::default(), Tier::A).expect("helper device satisfies unbound");
    assert!(device.features().contains(REQUIRED_FEATURES | app_features));
    assert!(device.limits().max_bind_groups >= app_limits.max_bind_groups);
    assert!(device.limits().max_binding_array_elements_per_shader_stage >= 4176);
}

/// A sample count a format lacks is named with the counts it has (the
/// check `Renderer::new` makes for `RendererConfig::msaa`, on a device
/// that lacks 4× depth here).
#[test]
fn sample_counts_a_format_lacks_are_named() {
    let (hdr, depth) = (
        wgpu::TextureFormat::Rgba16Float,
        wgpu::TextureFormat::Depth32Float,
    );
    let guaranteed = |f: wgpu::TextureFormat| f.guaranteed_format_features(Default::default());
    assert!(Msaa::X4.check_formats(&[hdr, depth], guaranteed).is_ok());
    assert!(Msaa::X1.check_formats(&[hdr, depth], guaranteed).is_ok());
    // A device without 4x for depth.
    let no_msaa_depth = |f: wgpu::TextureFormat| {
        let mut features = guaranteed(f);
        if f == depth {
            features.flags -= wgpu::TextureFormatFeatureFlags::MULTISAMPLE_X4;
        }
        features
    };
    let error = Msaa::X4
        .check_formats(&[hdr, depth], no_msaa_depth)
        .unwrap_err();
    assert!(
        matches!(
            &error,
            CapabilityError::SampleCount { samples: 4, format, supported }
                if *format == depth && *supported == vec![1]
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("Depth32Float"), "{error}");
    // Without RENDER_ATTACHMENT, no sample count.
    let sampled_only = |f: wgpu::TextureFormat| wgpu::TextureFormatFeatures {
        allowed_usages: wgpu::TextureUsages::TEXTURE_BINDING,
        ..guaranteed(f)
    };
    assert!(Msaa::X1.check_formats(&[hdr], sampled_only).is_err());
}
