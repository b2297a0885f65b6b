//! Every shader variant the renderer builds validates with naga under the
//! capabilities the device will have, and translates to SPIR-V (Vulkan), HLSL
//! (DX12) and MSL (Metal) with options that mirror wgpu's. Non-uniform
//! resource indices must survive translation.

use naga::back::{hlsl, msl, spv};
use naga::valid::{ModuleInfo, ValidationFlags};
use unbound::capabilities::{OPTIONAL_FEATURES, REQUIRED_FEATURES};
use unbound::shaders::{ShaderVariant, VARIANTS};

/// The library's variants and the comparison path's shader.
fn variants() -> Vec<ShaderVariant> {
    VARIANTS
        .iter()
        .copied()
        .chain([unbound_baseline::SHADER])
        .collect()
}

/// Binding-array size wgpu would pass to the HLSL writer (the bind group
/// layout's count).
const BINDING_ARRAY_SIZE: u32 = 4096;

fn parse(variant: &ShaderVariant) -> (naga::Module, ModuleInfo) {
    let source = variant.source().expect("preprocess");
    let module = naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|error| panic!("{}: {}", variant.label(), error.emit_to_string(&source)));
    let mut validator = wgpu_naga_bridge::create_validator(
        REQUIRED_FEATURES | OPTIONAL_FEATURES,
        wgpu::DownlevelFlags::all(),
        ValidationFlags::all(),
    );
    let info = validator
        .validate(&module)
        .unwrap_or_else(|error| panic!("{}: {}", variant.label(), error.emit_to_string(&source)));
    (module, info)
}

fn is_binding_array(module: &naga::Module, ty: naga::Handle<naga::Type>) -> bool {
    matches!(module.types[ty].inner, naga::TypeInner::BindingArray { .. })
}

#[test]
fn every_variant_validates() {
    for variant in &variants() {
        parse(variant);
    }
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
    for variant in &variants() {
        let (module, info) = parse(variant);
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
    for variant in &variants() {
        let (module, info) = parse(variant);
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
            for array in ["textures_2d", "textures_cube", "nagaSamplerHeap"] {
                let pattern = format!("{array}[");
                let accesses: Vec<&str> = out
                    .match_indices(&pattern)
                    .map(|(i, _)| &out[i + pattern.len()..])
                    // Skip declarations such as `textures_2d[4096]`.
                    .filter(|index| !index.starts_with(|c: char| c.is_ascii_digit()))
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
    for variant in &variants() {
        let (module, info) = parse(variant);
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
/// output is sampled with two different samplers (GL combines them).
#[test]
fn variants_without_binding_arrays_translate_to_glsl() {
    use naga::back::glsl;
    for variant in &variants() {
        let (module, info) = parse(variant);
        if uses_binding_arrays(&module) {
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
