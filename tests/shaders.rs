//! Every shader in the workspace validates with naga under the capabilities
//! of every tier that builds it (its features and the downlevel
//! capabilities every tier needs, nothing optional), and translates to
//! SPIR-V (Vulkan), HLSL (DX12) and MSL (Metal) with options that mirror
//! wgpu's, and to GLSL (tier C's GL) without binding arrays. Non-uniform
//! resource indices must survive translation. Shaders are found by walking
//! the workspace, so a new `.wgsl` file cannot be left out.

mod common;

use std::collections::BTreeSet;

use naga::back::{hlsl, msl, spv};
use naga::valid::{ModuleInfo, ValidationFlags};
use unbound::Tier;
use unbound::capabilities::REQUIRED_DOWNLEVEL;
use unbound::shaders::{self, ShaderVariant, VARIANTS};

/// Binding-array size wgpu would pass to the HLSL writer (the bind group
/// layout's count).
const BINDING_ARRAY_SIZE: u32 = 4096;

/// Whether `variant` is built from the file `path` with `contents`: a file
/// of its by that name holds exactly those contents.
fn variant_uses(variant: &ShaderVariant, path: &str, contents: &str) -> bool {
    let name = path.rsplit('/').next().unwrap();
    variant.files().unwrap().contains(name)
        && variant
            .extra
            .iter()
            .chain(shaders::SOURCES)
            .find(|(n, _)| *n == name)
            .is_some_and(|(_, text)| *text == contents)
}

/// Every shader of the workspace with the tiers it must validate under:
/// each tier's variants; the comparison path's shader (it runs on any
/// device the library runs on: the lowest tier); and every other `.wgsl`
/// file on its own (the demo's present pass), also under the lowest tier.
fn workspace_shaders() -> Vec<(ShaderVariant, Vec<Tier>)> {
    let lowest = *Tier::ALL.last().unwrap();
    let mut checked: Vec<(ShaderVariant, Vec<Tier>)> = Vec::new();
    for tier in Tier::ALL {
        for variant in tier_and_ray_variants(tier) {
            match checked.iter_mut().find(|(v, _)| *v == variant) {
                Some((_, tiers)) => tiers.push(tier),
                None => checked.push((variant, vec![tier])),
            }
        }
    }
    checked.push((unbound_baseline::SHADER, vec![lowest]));
    checked.push((unbound_baseline::SHADER_LIGHTS, vec![lowest]));
    for (path, contents) in common::workspace_wgsl_files() {
        if checked
            .iter()
            .any(|(v, _)| variant_uses(v, &path, &contents))
        {
            continue;
        }
        // Not part of any variant: a shader of its own (its includes, if
        // any, from the library).
        let name = path.rsplit('/').next().unwrap().to_owned();
        let name: &'static str = Box::leak(name.into_boxed_str());
        let contents: &'static str = Box::leak(contents.into_boxed_str());
        let extra: &'static [(&str, &str)] = Box::leak(Box::new([(name, contents)]));
        checked.push((
            ShaderVariant {
                file: name,
                defines: &[],
                extra,
            },
            vec![lowest],
        ));
    }
    checked
}

/// A tier's variants, and those it builds with ray queries.
fn tier_and_ray_variants(tier: Tier) -> Vec<ShaderVariant> {
    let mut variants = shaders::tier_variants(tier).to_vec();
    variants.extend(shaders::ray_query_variants(tier));
    variants.extend(shaders::subgroup_variants(tier));
    variants.extend(shaders::visibility_variants(tier));
    variants.extend(shaders::compute_raster_variants(tier));
    variants
}

/// Whether `variant` is built with ray queries only (on some tier).
fn traces_rays(variant: &ShaderVariant) -> bool {
    Tier::ALL
        .into_iter()
        .any(|tier| shaders::ray_query_variants(tier).contains(variant))
}

/// The features `variant` is validated with on `tier`: the tier's, and
/// ray queries for the variants that trace rays.
fn features(variant: &ShaderVariant, tier: Tier) -> wgpu::Features {
    let mut features = tier.features();
    if traces_rays(variant) {
        features |= unbound::RAY_QUERY_FEATURES;
    }
    if shaders::subgroup_variants(tier).contains(variant) {
        features |= wgpu::Features::SUBGROUP;
    }
    if shaders::visibility_variants(tier).contains(variant) {
        features |= wgpu::Features::PRIMITIVE_INDEX;
    }
    if shaders::compute_raster_variants(tier).contains(variant) {
        features |= unbound::BUFFER_RASTER_FEATURES | unbound::TEXTURE_RASTER_FEATURES;
    }
    if variant.defines.contains(&"EARLY_DEPTH") {
        features |= wgpu::Features::SHADER_EARLY_DEPTH_TEST;
    }
    features
}

/// Parses `variant` and validates it under the capabilities of each of
/// `tiers`.
fn parse(variant: &ShaderVariant, tiers: &[Tier]) -> (naga::Module, ModuleInfo) {
    let source = variant.source().expect("preprocess");
    let module = naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|error| panic!("{}: {}", variant.label(), error.emit_to_string(&source)));
    let mut info = None;
    for &tier in tiers {
        let mut validator = wgpu_naga_bridge::create_validator(
            features(variant, tier),
            REQUIRED_DOWNLEVEL,
            ValidationFlags::all(),
        );
        info = Some(validator.validate(&module).unwrap_or_else(|error| {
            panic!(
                "{} on tier {tier:?}: {}",
                variant.label(),
                error.emit_to_string(&source)
            )
        }));
    }
    (module, info.expect("at least one tier"))
}

/// Every shader, parsed and validated.
fn modules() -> Vec<(ShaderVariant, naga::Module, ModuleInfo)> {
    workspace_shaders()
        .into_iter()
        .map(|(variant, tiers)| {
            let (module, info) = parse(&variant, &tiers);
            (variant, module, info)
        })
        .collect()
}

#[test]
fn every_tier_validates_its_variants_with_its_capabilities() {
    let checked = workspace_shaders();
    for tier in Tier::ALL {
        for variant in tier_and_ray_variants(tier) {
            let (_, tiers) = checked.iter().find(|(v, _)| *v == variant).unwrap();
            assert!(tiers.contains(&tier));
            parse(&variant, &[tier]);
        }
    }
    // Every variant the renderer can build is some tier's (with ray
    // queries or without).
    for variant in VARIANTS {
        assert!(
            Tier::ALL
                .iter()
                .any(|&tier| tier_and_ray_variants(tier).contains(variant)),
            "{} is no tier's",
            variant.label()
        );
    }
    // Tier C builds none with ray queries or subgroups.
    assert!(shaders::ray_query_variants(Tier::C).is_empty());
    assert!(shaders::subgroup_variants(Tier::C).is_empty());
}

#[test]
fn every_wgsl_file_in_the_workspace_is_validated() {
    let checked = workspace_shaders();
    let files = common::workspace_wgsl_files();
    for (path, contents) in &files {
        assert!(
            checked.iter().any(|(v, _)| variant_uses(v, path, contents)),
            "{path}: in no validated shader"
        );
    }
    // The library's files are all used by some tier (not just validated on
    // their own), and the demo's present pass is among the shaders.
    let library: BTreeSet<&str> = shaders::SOURCES.iter().map(|(n, _)| *n).collect();
    let mut reached = BTreeSet::new();
    for tier in Tier::ALL {
        for variant in tier_and_ray_variants(tier) {
            reached.extend(variant.files().unwrap());
        }
    }
    for name in library {
        assert!(reached.contains(name), "wgsl/{name}: in no tier's variants");
    }
    assert!(
        files
            .iter()
            .any(|(path, _)| path == "crates/demo/wgsl/present.wgsl")
    );
    for (variant, module, _) in modules() {
        assert!(!module.entry_points.is_empty(), "{}", variant.label());
    }
}

fn is_binding_array(module: &naga::Module, ty: naga::Handle<naga::Type>) -> bool {
    matches!(module.types[ty].inner, naga::TypeInner::BindingArray { .. })
}

/// OpDecorate ... NonUniform in a SPIR-V word stream.
fn count_non_uniform_decorations(words: &[u32]) -> usize {
    const OP_DECORATE: u32 = 71;
    const DECORATION_NON_UNIFORM: u32 = 5300;
    let mut count = 0;
    let mut i = 5; // skip the header
    while i < words.len() {
        let length = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        if opcode == OP_DECORATE && length >= 3 && words[i + 2] == DECORATION_NON_UNIFORM {
            count += 1;
        }
        i += length.max(1);
    }
    count
}

fn uses_binding_arrays(module: &naga::Module) -> bool {
    module
        .global_variables
        .iter()
        .any(|(_, var)| is_binding_array(module, var.ty))
}

#[test]
fn every_variant_translates_to_spirv_with_non_uniform_decorations() {
    for (variant, module, info) in modules() {
        let options = spv::Options {
            lang_version: (1, 3),
            ..Default::default()
        };
        for entry in &module.entry_points {
            let pipeline = spv::PipelineOptions {
                shader_stage: entry.stage,
                entry_point: entry.name.clone(),
            };
            let words = spv::write_vec(&module, &info, &options, Some(&pipeline))
                .unwrap_or_else(|e| panic!("{} {}: {e}", variant.label(), entry.name));
            if uses_binding_arrays(&module) && entry.stage == naga::ShaderStage::Fragment {
                assert!(
                    count_non_uniform_decorations(&words) > 0,
                    "{} {}: no NonUniform decoration on bindless accesses",
                    variant.label(),
                    entry.name
                );
            }
        }
    }
}

fn hlsl_binding_map(module: &naga::Module) -> hlsl::BindingMap {
    let mut map = hlsl::BindingMap::default();
    for (_, var) in module.global_variables.iter() {
        if let Some(binding) = &var.binding {
            map.insert(
                *binding,
                hlsl::BindTarget {
                    space: binding.group as u8,
                    register: binding.binding,
                    binding_array_size: is_binding_array(module, var.ty)
                        .then_some(BINDING_ARRAY_SIZE),
                    dynamic_storage_buffer_offsets_index: None,
                    restrict_indexing: false,
                },
            );
        }
    }
    map
}

#[test]
fn every_variant_translates_to_hlsl_with_non_uniform_resource_index() {
    for (variant, module, info) in modules() {
        // As wgpu's DX12 backend does: samplers live in a global heap and each
        // group that has samplers gets an index buffer in a spare register.
        let mut sampler_buffer_binding_map = hlsl::SamplerIndexBufferBindingMap::default();
        for (_, var) in module.global_variables.iter() {
            let is_sampler = match module.types[var.ty].inner {
                naga::TypeInner::Sampler { .. } => true,
                naga::TypeInner::BindingArray { base, .. } => {
                    matches!(module.types[base].inner, naga::TypeInner::Sampler { .. })
                }
                _ => false,
            };
            if let (true, Some(binding)) = (is_sampler, &var.binding) {
                sampler_buffer_binding_map.insert(
                    hlsl::SamplerIndexBufferKey {
                        group: binding.group,
                    },
                    hlsl::BindTarget {
                        space: binding.group as u8,
                        register: 100,
                        ..Default::default()
                    },
                );
            }
        }
        let options = hlsl::Options {
            shader_model: hlsl::ShaderModel::V6_0,
            binding_map: hlsl_binding_map(&module),
            fake_missing_bindings: false,
            restrict_indexing: true,
            force_loop_bounding: true,
            sampler_buffer_binding_map,
            ..Default::default()
        };
        let pipeline = hlsl::PipelineOptions::default();
        let mut out = String::new();
        hlsl::Writer::new(&mut out, &options, &pipeline)
            .write(&module, &info, None)
            .unwrap_or_else(|e| panic!("{}: {e}", variant.label()));
        if std::env::var_os("UNBOUND_DUMP_HLSL").is_some() {
            eprintln!("{out}");
        }
        if uses_binding_arrays(&module) {
            // Samplers go through wgpu's global sampler heap on DX12.
            // The paged heap binds pages of 2D textures in place of them.
            let textures_2d = if variant.defines.contains(&"TEXTURE_PAGES") {
                "texture_pages"
            } else {
                "textures_2d"
            };
            for array in [textures_2d, "textures_cube", "nagaSamplerHeap"] {
                let pattern = format!("{array}[");
                let accesses: Vec<&str> = out
                    .match_indices(&pattern)
                    .map(|(i, _)| &out[i + pattern.len()..])
                    // Skip declarations such as `textures_2d[4096]`, and
                    // plain (not arrayed) samplers such as the
                    // environment's, at a fixed slot of their group:
                    // `nagaSamplerHeap[nagaGroup3SamplerIndexArray[3]]`.
                    .filter(|index| !index.starts_with(|c: char| c.is_ascii_digit()))
                    .filter(|index| !index.starts_with("nagaGroup"))
                    .collect();
                assert!(
                    !accesses.is_empty(),
                    "{}: no {array} access in HLSL",
                    variant.label()
                );
                for index in accesses {
                    assert!(
                        index.starts_with("NonUniformResourceIndex("),
                        "{}: {array} indexed without NonUniformResourceIndex: {}",
                        variant.label(),
                        &index[..index.len().min(80)]
                    );
                }
            }
        }
    }
}

#[test]
fn every_variant_translates_to_msl() {
    for (variant, module, info) in modules() {
        let options = msl::Options {
            lang_version: (3, 0),
            fake_missing_bindings: true,
            ..Default::default()
        };
        let pipeline = msl::PipelineOptions::default();
        msl::write_string(&module, &info, &options, &pipeline)
            .unwrap_or_else(|e| panic!("{}: {e}", variant.label()));
    }
}

#[test]
fn preprocessor_selects_branches_and_reports_errors() {
    // The include of types.wgsl happens once even if requested twice.
    let source = unbound::shaders::CULL.source().unwrap();
    assert_eq!(source.matches("struct Vertex {").count(), 1);
    assert!(!source.contains("#include"));
}

/// Tier C runs on wgpu's GL backend: every variant without binding arrays
/// translates to GLSL 4.30 core for every entry point, and no texture in the
/// output is sampled with two different samplers (GL combines them). The
/// compute rasteriser (tier A alone, 64-bit integers, which naga's GLSL
/// output lacks) is no tier C variant.
#[test]
fn variants_without_binding_arrays_translate_to_glsl() {
    use naga::back::glsl;
    for (variant, module, info) in modules() {
        let tier_a_only = shaders::compute_raster_variants(Tier::A).contains(&variant);
        if uses_binding_arrays(&module) || tier_a_only {
            continue;
        }
        let options = glsl::Options {
            version: glsl::Version::Desktop(430),
            ..Default::default()
        };
        for entry in &module.entry_points {
            let pipeline = glsl::PipelineOptions {
                shader_stage: entry.stage,
                entry_point: entry.name.clone(),
                multiview: None,
            };
            let mut out = String::new();
            glsl::Writer::new(
                &mut out,
                &module,
                &info,
                &options,
                &pipeline,
                Default::default(),
            )
            .and_then(|mut writer| writer.write())
            .unwrap_or_else(|e| panic!("{} {}: {e}", variant.label(), entry.name));
            assert!(
                out.contains("void main()"),
                "{} {}",
                variant.label(),
                entry.name
            );
        }
    }
    // The tier C draw pass is among them.
    assert!(
        VARIANTS
            .iter()
            .any(|v| v.defines.contains(&"TEXTURE_ARRAYS"))
    );
}

/// The texture feedback's twins (`src/shaders/feedback.rs`): each draw
/// variant of the paged heap has two, its defines plus `TEXTURE_FEEDBACK`,
/// and plus `EARLY_DEPTH` too, its file kept (the visibility buffer's
/// too); the other layouts' have none.
#[test]
fn every_paged_draw_variant_has_feedback_twins() {
    use shaders::{CameraFeedback, DrawShading, ShadowSource};
    use unbound::capabilities::HeapLayout;
    let shadows = [
        ShadowSource::Off,
        ShadowSource::Maps,
        ShadowSource::RayQuery,
    ];
    let twins = [
        (CameraFeedback::Sampled, &["TEXTURE_FEEDBACK"][..]),
        (
            CameraFeedback::EarlyDepth,
            &["TEXTURE_FEEDBACK", "EARLY_DEPTH"],
        ),
    ];
    for layout in [HeapLayout::BindingArrays, HeapLayout::Pages] {
        for shading in DrawShading::ALL {
            for shadow in shadows {
                for visibility in [false, true] {
                    let off = (layout, CameraFeedback::Off);
                    let plain = shaders::camera_variant(off, visibility, shading, shadow);
                    for (feedback, added) in twins {
                        let heap = (layout, feedback);
                        let twin = shaders::camera_variant(heap, visibility, shading, shadow);
                        assert_eq!(twin.file, plain.file);
                        let mut expected = plain.defines.to_vec();
                        if layout == HeapLayout::Pages {
                            expected.extend(added);
                        }
                        let mut defines = twin.defines.to_vec();
                        expected.sort_unstable();
                        defines.sort_unstable();
                        assert_eq!(defines, expected, "{layout:?} {shading:?} {shadow:?}");
                    }
                }
            }
        }
    }
    let feedback = shaders::FEEDBACK_VARIANTS.iter();
    assert!(
        feedback
            .chain(&shaders::EARLY_DEPTH_VARIANTS)
            .all(|v| VARIANTS.contains(v))
    );
}

/// `EARLY_DEPTH` forces early fragment tests on `fs_main` and nothing
/// else, in naga's module (`EarlyDepthTest::Force`) and in the SPIR-V
/// (`OpExecutionMode EarlyFragmentTests`); the variants without it force
/// none. Every feedback variant a tier builds, the visibility buffer's too.
#[test]
fn early_depth_forces_early_fragment_tests_on_fs_main_alone() {
    const OP_EXECUTION_MODE: u32 = 16;
    const EARLY_FRAGMENT_TESTS: u32 = 9;
    let mut forced = 0;
    for variant in tier_and_ray_variants(Tier::A) {
        if !variant.defines.contains(&"TEXTURE_FEEDBACK") {
            continue;
        }
        let early = variant.defines.contains(&"EARLY_DEPTH");
        let (module, info) = parse(&variant, &[Tier::A]);
        let options = spv::Options {
            lang_version: (1, 3),
            ..Default::default()
        };
        for entry in &module.entry_points {
            let expected = early && entry.name == "fs_main";
            let force = Some(naga::EarlyDepthTest::Force);
            let label = format!("{} {}", variant.label(), entry.name);
            assert_eq!(entry.early_depth_test == force, expected, "{label}");
            let pipeline = spv::PipelineOptions {
                shader_stage: entry.stage,
                entry_point: entry.name.clone(),
            };
            let words = spv::write_vec(&module, &info, &options, Some(&pipeline)).unwrap();
            let mut modes = Vec::new();
            let mut i = 5; // skip the header
            while i < words.len() {
                let length = (words[i] >> 16) as usize;
                if words[i] & 0xffff == OP_EXECUTION_MODE && length >= 3 {
                    modes.push(words[i + 2]);
                }
                i += length.max(1);
            }
            assert_eq!(modes.contains(&EARLY_FRAGMENT_TESTS), expected, "{label}");
            forced += usize::from(expected);
        }
    }
    // The draw pass's and the visibility buffer's: 9 + 6.
    assert_eq!(forced, 15);
}

/// Early depth tests are forced only where they cannot change the image
/// (`CameraFeedback::choose`): with the feedback on a device that has
/// them, after a depth pre-pass (no pipeline writes depth) or while no
/// material is alpha-masked (nothing discards); never without the
/// feature, never without the feedback.
#[test]
fn early_depth_is_chosen_only_where_nothing_discards_after_writing_depth() {
    use shaders::CameraFeedback::{self, EarlyDepth, Off, Sampled};
    let cases = [
        // (feedback, feature), pre-pass, masked materials, chosen
        ((false, true), true, 0, Off),
        ((false, false), false, 3, Off),
        ((true, false), true, 0, Sampled),
        ((true, false), false, 0, Sampled),
        ((true, true), true, 0, EarlyDepth),
        ((true, true), true, 2, EarlyDepth),
        ((true, true), false, 0, EarlyDepth),
        ((true, true), false, 1, Sampled),
    ];
    for (device, prepassed, masked, expected) in cases {
        let chosen = CameraFeedback::choose(device, prepassed, masked);
        assert_eq!(chosen, expected, "{device:?} {prepassed} {masked}");
    }
}
