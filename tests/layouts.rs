//! Host and shaders cannot drift apart: every struct the host writes has a
//! Rust twin whose size, field names and field offsets equal naga's layout
//! of the WGSL struct, and every `const` of every WGSL file either equals
//! its Rust twin or is listed here as the shader's own.
//!
//! Two kinds of twins (see `unbound::gpu_types`):
//! - `bytemuck` tables: offsets from `offset_of!`, size from `size_of`;
//! - `encase` uniform structs: encase's layout, checked by writing a value
//!   whose every field is distinct and finding each field's bytes at naga's
//!   offset for it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::mem::{offset_of, size_of};

use encase::internal::{CreateFrom, WriteInto};
use encase::{ShaderSize, ShaderType};
use unbound::Tier;
use unbound::gpu_types::*;
use unbound::shaders::{self, ShaderVariant};
use unbound_harness::wgsl::{StructLayout, WgslModule};

/// naga's view of a variant's full source.
fn module(variant: &ShaderVariant) -> WgslModule {
    WgslModule::parse(&variant.label(), &variant.source().expect("preprocess"))
}

/// A struct of `types.wgsl` (or `cull.wgsl`), as the cull pass's module
/// lays it out.
fn wgsl_struct(name: &str) -> StructLayout {
    module(&shaders::CULL).struct_layout(name)
}

/// A struct of another variant's source.
fn wgsl_struct_in(variant: &ShaderVariant, name: &str) -> StructLayout {
    module(variant).struct_layout(name)
}

/// A `bytemuck` twin: its size, and every field's offset, equal the WGSL
/// struct's. The fields are matched by name, in the order of their offsets:
/// the layout comes from the Rust type, never from a list in this test.
fn check_pod(wgsl: &StructLayout, name: &str, rust_size: usize, rust_fields: &[(&str, usize)]) {
    assert_eq!(rust_size, wgsl.size as usize, "{name}: size");
    let mut rust_fields = rust_fields.to_vec();
    rust_fields.sort_by_key(|&(_, offset)| offset);
    assert_eq!(
        wgsl.offsets(),
        rust_fields,
        "{name}: field names and offsets (WGSL left, Rust right)"
    );
    // Arrays of these structs must not need padding between elements.
    assert_eq!(rust_size % wgsl.alignment as usize, 0, "{name}: stride");
}

macro_rules! pod_twin {
    ($rust:ident, $wgsl:literal, [$($field:ident),* $(,)?]) => {{
        pod_twin!(wgsl_struct($wgsl), $rust, $wgsl, [$($field),*])
    }};
    ($layout:expr, $rust:ident, $wgsl:literal, [$($field:ident),* $(,)?]) => {{
        // Lists every field: this pattern does not compile otherwise.
        let _every_field = |v: &$rust| {
            let $rust { $($field: _),* } = v;
        };
        check_pod(&$layout, $wgsl, size_of::<$rust>(), &[$((stringify!($field), offset_of!($rust, $field))),*])
    }};
}

/// The bytes encase writes for one value on its own (a field of a struct).
fn encase_bytes<T: ShaderType + WriteInto>(value: &T) -> Vec<u8> {
    encase::StorageBuffer::<Vec<u8>>::content_of(value).unwrap()
}

/// An `encase` twin: its size and field names equal the WGSL struct's, and
/// each field of a value with all-distinct words is written at naga's
/// offset for the WGSL member of that name (so the order of the fields is
/// checked through encase's layout of the Rust type).
fn check_encase<T>(
    variant: &ShaderVariant,
    name: &str,
    field_bytes: impl Fn(&T) -> Vec<(&'static str, Vec<u8>)>,
) where
    T: ShaderType + ShaderSize + CreateFrom + WriteInto,
{
    let wgsl = module(variant).struct_layout(name);
    let size = T::SHADER_SIZE.get() as usize;
    assert_eq!(size, wgsl.size as usize, "{name}: size");
    // Every 32-bit word distinct (and a finite float): a field written at
    // another field's offset cannot go unnoticed.
    let words: Vec<u32> = (0..size as u32 / 4).map(|i| 0x3f80_0000 + i).collect();
    let sample: T = encase::UniformBuffer::new(bytemuck::cast_slice::<u32, u8>(&words))
        .create()
        .unwrap();
    let written = uniform_bytes(&sample);
    assert_eq!(written.len(), size, "{name}: bytes written");
    let fields = field_bytes(&sample);
    let mut rust_names: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
    let mut wgsl_names: Vec<&str> = wgsl.members.iter().map(|m| m.name.as_str()).collect();
    rust_names.sort_unstable();
    wgsl_names.sort_unstable();
    assert_eq!(wgsl_names, rust_names, "{name}: field names");
    for member in &wgsl.members {
        let (_, bytes) = fields.iter().find(|(n, _)| *n == member.name).unwrap();
        let (offset, end) = (
            member.offset as usize,
            (member.offset + member.size) as usize,
        );
        assert_eq!(bytes.len(), end - offset, "{name}.{}: size", member.name);
        assert_eq!(
            &written[offset..end],
            &bytes[..],
            "{name}.{}: the Rust field is not at WGSL offset {offset}",
            member.name
        );
    }
}

macro_rules! encase_twin {
    ($variant:expr, $rust:ident, $wgsl:literal, [$($field:ident),* $(,)?]) => {{
        // Lists every field: this pattern does not compile otherwise.
        let _every_field = |v: &$rust| {
            let $rust { $($field: _),* } = v;
        };
        check_encase::<$rust>(&$variant, $wgsl, |v: &$rust| {
            vec![$((stringify!($field), encase_bytes(&v.$field))),*]
        })
    }};
}

#[test]
fn vertex() {
    pod_twin!(
        GpuVertex,
        "Vertex",
        [position, normal_oct, tangent, uv0, uv1, color]
    );
}

#[test]
fn mesh() {
    pod_twin!(
        GpuMesh,
        "Mesh",
        [
            first_index,
            index_count,
            first_vertex,
            vertex_count,
            bounding_sphere,
            aabb_min,
            aabb_max,
            lod_errors,
            lod_slots,
            lod_levels,
            first_cluster,
            cluster_count,
            cluster_lod
        ]
    );
}

#[test]
fn cluster_lod() {
    pod_twin!(
        GpuClusterLod,
        "ClusterLod",
        [
            own_sphere,
            parent_sphere,
            own_error,
            parent_error,
            level,
            _pad
        ]
    );
}

#[test]
fn cluster() {
    pod_twin!(
        GpuCluster,
        "Cluster",
        [
            bounding_sphere,
            cone_apex,
            cone_cutoff,
            cone_axis,
            first_index,
            index_count,
            _pad
        ]
    );
}

#[test]
fn triangle_filter() {
    pod_twin!(
        wgsl_struct_in(&shaders::TRIANGLE_FILTER, "TriangleFilter"),
        GpuTriangleFilter,
        "TriangleFilter",
        [
            viewport,
            draws_per_bucket,
            index_capacity,
            head_word,
            pixel_test,
            snap_pixels,
            _pad
        ]
    );
}

#[test]
fn object() {
    pod_twin!(
        GpuObject,
        "Object",
        [
            world_from_object,
            mesh,
            material,
            flags,
            skin,
            morph_deltas,
            morph_weights,
            morph_targets,
            morph_first_vertex
        ]
    );
}

#[test]
fn material_texture() {
    pod_twin!(
        GpuMaterialTexture,
        "MaterialTexture",
        [uv_row0, uv_row1, texture, sampler, uv_set, _pad]
    );
}

#[test]
fn material() {
    pod_twin!(
        GpuMaterial,
        "Material",
        [
            base_color_factor,
            emissive_factor,
            emissive_strength,
            metallic_factor,
            roughness_factor,
            normal_scale,
            occlusion_strength,
            alpha_cutoff,
            alpha_mode,
            flags,
            _pad,
            base_color,
            metallic_roughness,
            normal,
            occlusion,
            emissive,
        ]
    );
}

#[test]
fn prefilter_params() {
    use unbound::passes::prefilter::GpuPrefilterParams;
    pod_twin!(
        wgsl_struct_in(&shaders::PREFILTER, "PrefilterParams"),
        GpuPrefilterParams,
        "PrefilterParams",
        [
            size,
            samples,
            roughness,
            source_size,
            source_mips,
            box_side,
            source_level,
            _pad
        ]
    );
}

#[test]
fn environment_uniforms() {
    use unbound::passes::prefilter::GpuEnvironmentUniforms;
    pod_twin!(
        wgsl_struct_in(&shaders::DRAW, "EnvironmentUniforms"),
        GpuEnvironmentUniforms,
        "EnvironmentUniforms",
        [sh, specular_lod]
    );
}

#[test]
fn table_counts() {
    pod_twin!(
        GpuTableCounts,
        "TableCounts",
        [
            textures_2d,
            textures_cube,
            samplers,
            materials,
            meshes,
            objects,
            vertices,
            _pad
        ]
    );
}

#[test]
fn cull_header() {
    pod_twin!(
        GpuCullHeader,
        "CullHeader",
        [
            draw_count,
            visible_instances,
            triangles_lo,
            triangles_hi,
            bucket_draws,
            sorted_blend_draws,
            occluded_instances,
            small_instances,
            raster_instances,
            raster_items
        ]
    );
    // The offsets the draw pass reads its draw counts at.
    let wgsl = wgsl_struct("CullHeader");
    assert_eq!(
        GpuCullHeader::SORTED_BLEND_DRAWS_OFFSET,
        wgsl.offset_of("sorted_blend_draws") as u64
    );
    for bucket in 0..BUCKETS {
        assert_eq!(
            GpuCullHeader::bucket_draws_offset(bucket),
            (wgsl.offset_of("bucket_draws") + 4 * bucket as usize) as u64
        );
    }
}

/// A struct of the animation playback pass's source.
fn animation_struct(name: &str) -> StructLayout {
    wgsl_struct_in(&shaders::ANIMATION, name)
}

#[test]
fn animation_tables() {
    pod_twin!(
        animation_struct("AnimNode"),
        GpuAnimNode,
        "AnimNode",
        [
            translation,
            parent,
            rotation,
            scale,
            weight_count,
            weight_offset,
            rest_weights,
            _pad
        ]
    );
    pod_twin!(
        animation_struct("AnimClip"),
        GpuAnimClip,
        "AnimClip",
        [duration, first_channel, channel_count, _pad]
    );
    pod_twin!(
        animation_struct("AnimChannel"),
        GpuAnimChannel,
        "AnimChannel",
        [
            node,
            path,
            interpolation,
            components,
            times,
            key_count,
            values,
            _pad
        ]
    );
    pod_twin!(
        animation_struct("AnimJoint"),
        GpuAnimJoint,
        "AnimJoint",
        [inverse_bind, node, _pad]
    );
    pod_twin!(
        wgsl_struct_in(&shaders::RAY_DEFORM, "RayDeformJob"),
        GpuRayDeformJob,
        "RayDeformJob",
        [object, first_index, corners, first_output]
    );
    pod_twin!(
        animation_struct("AnimInstance"),
        GpuAnimInstance,
        "AnimInstance",
        [
            start_a, speed_a, start_b, speed_b, clip_a, clip_b, blend, flags
        ]
    );
    pod_twin!(
        animation_struct("SkinnedBounds"),
        GpuSkinnedBounds,
        "SkinnedBounds",
        [object, palette, first_sphere, joint_count]
    );
    encase_twin!(
        shaders::ANIMATION,
        GpuAnimFrame,
        "AnimFrame",
        [
            time,
            instance_count,
            node_count,
            joint_count,
            weight_count,
            clip_count
        ]
    );
}

#[test]
fn raster_params() {
    let layout = wgsl_struct_in(&shaders::COMPUTE_RASTER_BUFFER, "RasterParams");
    pod_twin!(
        layout,
        GpuRasterParams,
        "RasterParams",
        [size, capacity, _pad]
    );
}

#[test]
fn cull_phase() {
    pod_twin!(GpuCullPhase, "CullPhase", [phase, view, _pad1, _pad2]);
}

#[test]
fn cull_counters_are_words() {
    // Each view's counters region is the header's words (the HEADER_*
    // constants, checked against GpuCullHeader's offsets below) and then
    // u32 key data.
    assert_eq!(
        module(&shaders::CULL).global_array_stride("counters") as usize,
        size_of::<u32>()
    );
    assert_eq!(size_of::<GpuCullHeader>() % size_of::<u32>(), 0);
}

#[test]
fn shadow_uniforms() {
    for variant in [shaders::CULL, shaders::DRAW_SHADOWS] {
        encase_twin!(
            variant,
            GpuShadowUniforms,
            "ShadowUniforms",
            [
                shadow_from_world,
                cascade_planes,
                split_depths,
                texel_world_sizes,
                camera_forward,
                cascade_count,
                resolution,
                normal_offset_texels,
                depth_bias_texels,
                spot_from_world,
                spot_planes,
                spot_texel_scales,
                spot_count,
            ]
        );
    }
}

#[test]
fn draw_indexed_indirect() {
    // The cull pass writes wgpu's own argument struct.
    use wgpu::util::DrawIndexedIndirectArgs;
    pod_twin!(
        DrawIndexedIndirectArgs,
        "DrawIndexedIndirect",
        [
            index_count,
            instance_count,
            first_index,
            base_vertex,
            first_instance
        ]
    );
    assert_eq!(
        unbound::passes::cull::DRAW_ARGS_SIZE,
        u64::from(wgsl_struct("DrawIndexedIndirect").size)
    );
}

#[test]
fn frame_uniforms() {
    encase_twin!(
        shaders::CULL,
        GpuFrameUniforms,
        "FrameUniforms",
        [
            clip_from_world,
            camera_position,
            light_direction,
            light_color,
            ambient_color,
            frustum_planes,
            instance_count,
            mesh_count,
            flags,
            debug_view,
            view_from_world,
            light_grid,
            cluster_from_pixel,
            view_depth,
            view_frustum,
            pixel_grid,
            lod,
            raster,
        ]
    );
}

#[test]
fn light() {
    pod_twin!(
        GpuLight,
        "Light",
        [
            position,
            range,
            direction,
            cull_radius,
            intensity,
            kind,
            cone_scale,
            cone_offset,
            cos_outer,
            sin_outer,
            shadow,
            _pad
        ]
    );
}

#[test]
fn light_pass_buffers_have_the_host_strides() {
    use unbound::passes::lights::{CLUSTER_RANGE_SIZE, SCAN_WORKGROUP_SIZE, WORKGROUP_SIZE};
    let lights = module(&shaders::LIGHTS);
    assert_eq!(
        lights.global_array_stride("lights") as usize,
        size_of::<GpuLight>()
    );
    assert_eq!(
        u64::from(lights.global_array_stride("cluster_ranges")),
        CLUSTER_RANGE_SIZE
    );
    assert_eq!(lights.global_array_stride("light_indices") as usize, 4);
    for entry in &lights.module().entry_points {
        let size = if entry.name == "scan_clusters" {
            SCAN_WORKGROUP_SIZE
        } else {
            WORKGROUP_SIZE
        };
        assert_eq!(entry.workgroup_size, [size, 1, 1], "{}", entry.name);
    }
    // The draw pass reads the same arrays.
    let draw = module(&shaders::DRAW_LIGHTS);
    assert_eq!(
        u64::from(draw.global_array_stride("cluster_ranges")),
        CLUSTER_RANGE_SIZE
    );
    assert_eq!(
        draw.global_array_stride("lights") as usize,
        size_of::<GpuLight>()
    );
}

#[test]
fn output_uniforms() {
    for variant in [shaders::OUTPUT, shaders::OUTPUT_MULTISAMPLED] {
        encase_twin!(
            variant,
            GpuOutputUniforms,
            "OutputUniforms",
            [exposure_scale, tone_mapping, debug_view]
        );
    }
}

#[test]
fn exposure_twins() {
    for variant in [shaders::EXPOSURE, shaders::EXPOSURE_MULTISAMPLED] {
        encase_twin!(
            variant,
            GpuExposureParams,
            "ExposureParams",
            [
                min_ev,
                max_ev,
                key_log2,
                adaptation,
                low_fraction,
                high_fraction,
                jump
            ]
        );
        pod_twin!(
            wgsl_struct_in(&variant, "ExposureState"),
            GpuExposureState,
            "ExposureState",
            [exposure_ev, exposure_scale, target_ev, metered_pixels]
        );
        let module = module(&variant);
        assert_eq!(
            module.global_array_stride("histogram") as usize,
            size_of::<u32>()
        );
    }
}

#[test]
fn ray_uniforms() {
    encase_twin!(
        shaders::RAY_VIEW,
        GpuRayUniforms,
        "RayUniforms",
        [world_from_clip, viewport, sample_index, samples, bounces]
    );
}

#[test]
fn baseline_object_uniforms() {
    use unbound_baseline::GpuObjectUniforms;
    encase_twin!(
        unbound_baseline::SHADER,
        GpuObjectUniforms,
        "ObjectUniforms",
        [world_from_object]
    );
}

#[test]
fn uniform_bytes_are_the_fields_with_zero_padding() {
    let camera = unbound::Camera::default();
    let uniforms = GpuFrameUniforms::new(&camera, &unbound::Lighting::default(), 7, 3, 0b101);
    let bytes = uniform_bytes(&uniforms);
    let wgsl = wgsl_struct("FrameUniforms");
    assert_eq!(bytes.len(), wgsl.size as usize);
    // glam's column-major matrix is WGSL's mat4x4.
    let at = wgsl.offset_of("clip_from_world");
    let matrix: &[f32] = bytemuck::cast_slice(&bytes[at..at + 64]);
    assert_eq!(matrix, camera.clip_from_world().to_cols_array());
    // Bytes no member covers are zero.
    let mut covered = vec![false; bytes.len()];
    for m in &wgsl.members {
        covered[m.offset as usize..(m.offset + m.size) as usize].fill(true);
    }
    for (i, byte) in bytes.iter().enumerate() {
        assert!(covered[i] || *byte == 0, "padding byte {i} = {byte}");
    }
}

#[test]
fn streams_the_host_writes_have_the_rust_element_sizes() {
    // Object table streams (scene.rs: bounds [f32; 4], batch u32) and the
    // visible list.
    let stride =
        |variant: &ShaderVariant, name: &str| module(variant).global_array_stride(name) as usize;
    for variant in [&shaders::CULL, &shaders::BOUNDS] {
        assert_eq!(stride(variant, "instance_bounds"), size_of::<[f32; 4]>());
        assert_eq!(stride(variant, "instance_batch"), size_of::<u32>());
    }
    assert_eq!(
        stride(&shaders::CULL, "visible_instances"),
        size_of::<u32>()
    );
    // Tier C's slot maps (heap: texture arrays, sampler modes).
    for name in ["texture_locations", "sampler_modes"] {
        assert_eq!(
            stride(&shaders::DRAW_TEXTURE_ARRAYS, name),
            size_of::<u32>()
        );
    }
}

/// Tier C's group 0 as the shader declares it: each array's two bindings
/// (`BINDING_REPEAT_ARRAYS + a`, `BINDING_CLAMP_ARRAYS + a`) hold the
/// variables named for its size class and format (`repeat_256_linear`),
/// and the samplers and maps are where the host binds them.
#[test]
fn tier_c_bindings_are_the_hosts() {
    let module = module(&shaders::DRAW_TEXTURE_ARRAYS);
    let bindings: BTreeMap<u32, String> = module
        .module()
        .global_variables
        .iter()
        .filter_map(|(_, var)| {
            let binding = var.binding.as_ref()?;
            (binding.group == 0).then(|| (binding.binding, var.name.clone().unwrap()))
        })
        .collect();
    let mut expected = BTreeMap::new();
    for (class, size) in TEXTURE_ARRAY_SIZES.iter().enumerate() {
        for (format, name) in ["srgb", "linear"].iter().enumerate() {
            assert_eq!(
                TEXTURE_ARRAY_FORMATS[format].is_srgb(),
                *name == "srgb",
                "{name}"
            );
            let array = texture_array(class, format);
            for (first, sampler) in [
                (BINDING_REPEAT_ARRAYS, "repeat"),
                (BINDING_CLAMP_ARRAYS, "clamp"),
            ] {
                expected.insert(first + array, format!("{sampler}_{size}_{name}"));
            }
        }
    }
    for (binding, name) in [
        (BINDING_SAMPLER_REPEAT, "sampler_repeat"),
        (BINDING_SAMPLER_CLAMP, "sampler_clamp"),
        (BINDING_TEXTURE_LOCATIONS, "texture_locations"),
        (BINDING_SAMPLER_MODES, "sampler_modes"),
    ] {
        expected.insert(binding, name.to_owned());
    }
    assert_eq!(
        bindings, expected,
        "group 0 of tier C (WGSL left, Rust right)"
    );
    assert_eq!(
        expected.len() as u32,
        TEXTURE_ARRAY_BINDINGS + TEXTURE_ARRAY_SAMPLERS + 2
    );
}

#[test]
fn cull_entry_points_use_the_host_workgroup_size() {
    use unbound::passes::cull::WORKGROUP_SIZE;
    let modules = [module(&shaders::CULL), module(&shaders::CLUSTER_CULL)];
    let entries = modules.iter().flat_map(|m| &m.module().entry_points);
    assert!(entries.clone().count() > 1);
    for entry in entries {
        assert_eq!(
            entry.workgroup_size,
            [WORKGROUP_SIZE, 1, 1],
            "{}: dispatch_size assumes WORKGROUP_SIZE threads",
            entry.name
        );
    }
}

/// WGSL constants that are the shader's own: nothing on the host depends on
/// them (why, for each).
const SHADER_ONLY_CONSTANTS: &[(&str, &str)] = &[
    (
        "INVISIBLE",
        "instance_rank of a culled instance, between two cull dispatches",
    ),
    (
        "RANK_BITS",
        "instance_rank packing, between two cull dispatches",
    ),
    (
        "RANK_MASK",
        "instance_rank packing, between two cull dispatches",
    ),
    (
        "RAY_CULLED_FACES",
        "how many culled back faces a camera ray looks through",
    ),
    (
        "ALL_SLOTS",
        "a cluster whose column list overflowed tests every light, within one dispatch",
    ),
    (
        "ITEM_SHIFT",
        "the compute rasteriser's id packing, between its raster and its resolve",
    ),
    (
        "ITEM_COUNT_MASK",
        "a raster item's triangle count, between classify and raster",
    ),
    (
        "ITEM_DOUBLE_SIDED",
        "a raster item's face flag, between classify and raster",
    ),
    (
        "ITEMS_PER_GROUP",
        "raster items per workgroup, between classify's dispatch size and raster",
    ),
    ("SMALL_BOX", "the raster's 32-bit path, within one thread"),
    (
        "GUARD_NDC",
        "which instances the cull pass keeps from the compute rasteriser, on the GPU",
    ),
    (
        "SUBPIXEL",
        "the compute rasteriser's snapping, within one dispatch",
    ),
    (
        "MAX_GROUPS",
        "the raster dispatch's arguments, written and read on the GPU",
    ),
];

/// What each `const` in the WGSL files of the library (and of the baseline,
/// which includes them) must equal, by name: the Rust constant the host
/// uses, or `None` for the shader's own.
fn wgsl_constant_twins() -> BTreeMap<&'static str, Option<i64>> {
    use unbound::DebugView;
    use unbound::passes::cull;
    let mut twins = BTreeMap::new();
    let mut rust = |name, value: u32| {
        assert!(twins.insert(name, Some(value.into())).is_none(), "{name}");
    };
    // types.wgsl
    rust("NO_MORPH", NO_MORPH);
    rust("MORPH_TANGENT_RANGE", MORPH_TANGENT_RANGE);
    rust("ALPHA_OPAQUE", ALPHA_OPAQUE);
    rust("ALPHA_MASK", ALPHA_MASK);
    rust("ALPHA_BLEND", ALPHA_BLEND);
    rust("MATERIAL_FLAG_DOUBLE_SIDED", MATERIAL_FLAG_DOUBLE_SIDED);
    rust("MATERIAL_FLAG_NORMAL_MAP", MATERIAL_FLAG_NORMAL_MAP);
    rust("MATERIAL_FLAG_UNLIT", MATERIAL_FLAG_UNLIT);
    rust("FRAME_FLAG_NORMAL_MAPS", FRAME_FLAG_NORMAL_MAPS);
    rust("FRAME_FLAG_UNCOMPACTED_DRAWS", FRAME_FLAG_UNCOMPACTED_DRAWS);
    rust("FRAME_FLAG_BUCKET_SHIFT", FRAME_FLAG_BUCKET_SHIFT);
    rust("FRAME_FLAG_HIGHLIGHT_MISSING", FRAME_FLAG_HIGHLIGHT_MISSING);
    rust("FRAME_FLAG_OCCLUSION", FRAME_FLAG_OCCLUSION);
    rust("FRAME_FLAG_FEEDBACK_SHIFT", FRAME_FLAG_FEEDBACK_SHIFT);
    rust("TEXTURE_FEEDBACK_MAX_CODE", unbound::heap::MAX_LEVEL_CODE);
    rust("FRAME_FLAG_LOD", FRAME_FLAG_LOD);
    rust("FRAME_FLAG_CASCADE_OCCLUSION", FRAME_FLAG_CASCADE_OCCLUSION);
    rust("DEBUG_VIEW_LIT", DebugView::Lit as u32);
    rust("DEBUG_VIEW_UNLIT", DebugView::Unlit as u32);
    rust("DEBUG_VIEW_NORMALS", DebugView::Normals as u32);
    rust("DEBUG_VIEW_UVS", DebugView::Uvs as u32);
    rust("DEBUG_VIEW_METALLIC", DebugView::Metallic as u32);
    rust("DEBUG_VIEW_ROUGHNESS", DebugView::Roughness as u32);
    rust("DEBUG_VIEW_OCCLUSION", DebugView::Occlusion as u32);
    rust("DEBUG_VIEW_EMISSIVE", DebugView::Emissive as u32);
    rust("DEBUG_VIEW_TANGENTS", DebugView::Tangents as u32);
    rust("DEBUG_VIEW_LIGHT_COUNT", DebugView::LightCount as u32);
    rust("DEBUG_VIEW_CASCADES", DebugView::Cascades as u32);
    rust("DEBUG_VIEW_PATH_TRACED", DebugView::PathTraced as u32);
    rust("DEBUG_VIEW_LOD_LEVEL", DebugView::LodLevel as u32);
    rust("DEBUG_VIEW_FIRST_ID", DebugView::MaterialIndex as u32);
    rust("DEBUG_VIEW_MATERIAL", DebugView::MaterialIndex as u32);
    rust("DEBUG_VIEW_OBJECT", DebugView::ObjectIndex as u32);
    rust("DEBUG_VIEW_DRAW", DebugView::DrawIndex as u32);
    rust("DEBUG_VIEW_TEXTURE_SLOT", DebugView::TextureSlot as u32);
    rust("DEBUG_VIEW_HIT_MATERIAL", DebugView::HitMaterial as u32);
    rust("DEBUG_VIEW_LAST_ID", DebugView::HitMaterial as u32);
    rust("DEBUG_VIEW_RASTER", DebugView::Raster as u32);
    rust("BUCKET_OPAQUE", BUCKET_OPAQUE);
    rust("BUCKET_DOUBLE_SIDED", BUCKET_DOUBLE_SIDED);
    rust("BUCKET_BLEND", BUCKET_BLEND);
    rust("BUCKETS", BUCKETS);
    rust("BUCKET_SHIFT", BUCKET_SHIFT);
    rust("MESH_MASK", MESH_MASK);
    rust("BATCH_MASKED", BATCH_MASKED);
    rust("BLEND_SORT_CAP", BLEND_SORT_CAP);
    // visibility.wgsl
    rust("VISIBILITY_LATE", VISIBILITY_LATE);
    rust("VISIBILITY_COMPUTE", VISIBILITY_COMPUTE);
    rust("VISIBILITY_TRIANGLE_MASK", VISIBILITY_TRIANGLE_MASK);
    // compute_raster.wgsl
    rust("ITEM_TRIANGLES", ITEM_TRIANGLES);
    rust("MAX_LOD_LEVELS", unbound::lod::MAX_LOD_LEVELS);
    rust("LIGHT_KIND_NONE", LIGHT_KIND_NONE);
    rust("LIGHT_KIND_DIRECTIONAL", LIGHT_KIND_DIRECTIONAL);
    rust("LIGHT_KIND_POINT", LIGHT_KIND_POINT);
    rust("LIGHT_KIND_SPOT", LIGHT_KIND_SPOT);
    // ray_hit.wgsl
    rust("RAY_MASK_OPAQUE", RAY_MASK_OPAQUE);
    rust("RAY_MASK_MASKED", RAY_MASK_MASKED);
    rust("RAY_MASK_BLENDED", RAY_MASK_BLENDED);
    // output.wgsl
    use unbound::output::{Msaa, ToneMapping};
    rust("TONE_MAPPING_PBR_NEUTRAL", ToneMapping::PbrNeutral as u32);
    rust("TONE_MAPPING_ACES", ToneMapping::Aces as u32);
    rust("TONE_MAPPING_AGX", ToneMapping::Agx as u32);
    rust("TONE_MAPPING_LINEAR", ToneMapping::Linear as u32);
    rust("MSAA_SAMPLES", Msaa::X4.sample_count());
    // heap.wgsl, heap_arrays.wgsl
    rust("TEXTURE_MISSING", unbound::heap::TEXTURE_MISSING);
    rust("TEXTURE_WHITE", unbound::heap::TEXTURE_WHITE);
    rust("TEXTURE_LOCATION_ARRAY_SHIFT", TEXTURE_LOCATION_ARRAY_SHIFT);
    rust("TEXTURE_LOCATION_LAYER_MASK", TEXTURE_LOCATION_LAYER_MASK);
    rust("SAMPLER_MODE_REPEAT", SAMPLER_MODE_REPEAT);
    rust("SAMPLER_MODE_CLAMP", SAMPLER_MODE_CLAMP);
    rust("TEXTURE_ARRAY_64_SRGB", TEXTURE_ARRAY_64_SRGB);
    rust("TEXTURE_ARRAY_64_LINEAR", TEXTURE_ARRAY_64_LINEAR);
    rust("TEXTURE_ARRAY_256_SRGB", TEXTURE_ARRAY_256_SRGB);
    rust("TEXTURE_ARRAY_256_LINEAR", TEXTURE_ARRAY_256_LINEAR);
    rust("TEXTURE_ARRAY_1024_SRGB", TEXTURE_ARRAY_1024_SRGB);
    rust("TEXTURE_ARRAY_1024_LINEAR", TEXTURE_ARRAY_1024_LINEAR);
    rust("TEXTURE_ARRAYS", TEXTURE_ARRAYS);
    rust("BINDING_REPEAT_ARRAYS", BINDING_REPEAT_ARRAYS);
    rust("BINDING_CLAMP_ARRAYS", BINDING_CLAMP_ARRAYS);
    rust("BINDING_SAMPLER_REPEAT", BINDING_SAMPLER_REPEAT);
    rust("BINDING_SAMPLER_CLAMP", BINDING_SAMPLER_CLAMP);
    rust("BINDING_TEXTURE_LOCATIONS", BINDING_TEXTURE_LOCATIONS);
    rust("BINDING_SAMPLER_MODES", BINDING_SAMPLER_MODES);
    // cull.wgsl, bounds.wgsl
    rust("WORKGROUP_SIZE", cull::WORKGROUP_SIZE);
    rust("LOCAL_KEYS", cull::LOCAL_KEYS);
    rust("DEPTH_BUCKETS", cull::DEPTH_BUCKETS);
    rust("BLEND_TAIL", cull::BLEND_TAIL);
    rust("MAX_CASCADES", MAX_CASCADES);
    rust("MAX_SPOT_SHADOWS", unbound::shadows::MAX_SPOT_SHADOWS);
    rust("NO_SPOT_SHADOW", unbound::shadows::spots::NO_SPOT_SHADOW);
    rust("MAX_VIEWS", cull::MAX_VIEWS);
    rust(
        "CASCADE_NEAR_PLANE",
        unbound::shadows::CASCADE_NEAR_PLANE as u32,
    );
    let word = |offset: usize| (offset / size_of::<u32>()) as u32;
    rust("HEADER_WORDS", word(size_of::<GpuCullHeader>()));
    rust(
        "HEADER_DRAW_COUNT",
        word(offset_of!(GpuCullHeader, draw_count)),
    );
    rust(
        "HEADER_VISIBLE_INSTANCES",
        word(offset_of!(GpuCullHeader, visible_instances)),
    );
    rust(
        "HEADER_TRIANGLES_LO",
        word(offset_of!(GpuCullHeader, triangles_lo)),
    );
    rust(
        "HEADER_TRIANGLES_HI",
        word(offset_of!(GpuCullHeader, triangles_hi)),
    );
    rust(
        "HEADER_BUCKET_DRAWS",
        word(offset_of!(GpuCullHeader, bucket_draws)),
    );
    rust(
        "HEADER_SORTED_BLEND_DRAWS",
        word(offset_of!(GpuCullHeader, sorted_blend_draws)),
    );
    rust(
        "HEADER_OCCLUDED_INSTANCES",
        word(offset_of!(GpuCullHeader, occluded_instances)),
    );
    rust(
        "HEADER_SMALL_INSTANCES",
        word(offset_of!(GpuCullHeader, small_instances)),
    );
    rust(
        "HEADER_RASTER_INSTANCES",
        word(offset_of!(GpuCullHeader, raster_instances)),
    );
    rust(
        "HEADER_RASTER_ITEMS",
        word(offset_of!(GpuCullHeader, raster_items)),
    );
    rust("NO_MESH", unbound::scene::NO_MESH);
    rust("CULL_PHASE_FRUSTUM", unbound::gpu_types::CULL_PHASE_FRUSTUM);
    rust("CULL_PHASE_EARLY", unbound::gpu_types::CULL_PHASE_EARLY);
    rust("CULL_PHASE_LATE", unbound::gpu_types::CULL_PHASE_LATE);
    // cluster_cull.wgsl: the words of GpuClusterStats, the draws after it.
    rust("CLUSTER_HEADER_WORDS", word(size_of::<GpuClusterStats>()));
    rust("CLUSTER_BUCKETS", CLUSTER_BUCKETS);
    rust("DRAW_WORDS", word(cull::DRAW_ARGS_SIZE as usize));
    for (name, offset) in [
        ("STAT_DRAWS", offset_of!(GpuClusterStats, bucket_draws)),
        ("STAT_TESTED", offset_of!(GpuClusterStats, tested)),
        ("STAT_FRUSTUM", offset_of!(GpuClusterStats, frustum_culled)),
        ("STAT_CONE", offset_of!(GpuClusterStats, cone_culled)),
        ("STAT_OCCLUDED", offset_of!(GpuClusterStats, occluded)),
        ("STAT_DRAWN", offset_of!(GpuClusterStats, drawn)),
        (
            "STAT_TRIANGLES_LO",
            offset_of!(GpuClusterStats, triangles_lo),
        ),
        (
            "STAT_TRIANGLES_HI",
            offset_of!(GpuClusterStats, triangles_hi),
        ),
        (
            "STAT_WHOLE_MESHES",
            offset_of!(GpuClusterStats, whole_meshes),
        ),
    ] {
        rust(name, word(offset));
    }
    // triangle_filter.wgsl: the filter's words of GpuClusterStats, its
    // head, the packing of its indices (pull.wgsl too), its verdicts.
    for (name, offset) in [
        (
            "STAT_FILTER_TESTED",
            offset_of!(GpuClusterStats, filter_tested),
        ),
        (
            "STAT_FILTER_OUTSIDE",
            offset_of!(GpuClusterStats, filter_outside),
        ),
        ("STAT_FILTER_BACK", offset_of!(GpuClusterStats, filter_back)),
        (
            "STAT_FILTER_NO_PIXEL",
            offset_of!(GpuClusterStats, filter_no_pixel),
        ),
        (
            "STAT_FILTER_DRAWN",
            offset_of!(GpuClusterStats, filter_drawn),
        ),
        (
            "FILTER_PASS_DRAWS",
            offset_of!(GpuTriangleFilterHead, pass_draws),
        ),
        ("FILTER_INDICES", offset_of!(GpuTriangleFilterHead, indices)),
        (
            "FILTER_PACKED_DRAWS",
            offset_of!(GpuTriangleFilterHead, packed_draws),
        ),
        ("FILTER_ONE", offset_of!(GpuTriangleFilterHead, one)),
        ("FILTER_HEAD_WORDS", size_of::<GpuTriangleFilterHead>()),
    ] {
        rust(name, word(offset));
    }
    {
        use unbound::geometry::clusters::{CLUSTER_MAX_TRIANGLES, TriangleVerdict};
        use unbound::passes::triangle_filter::{FILTERED_SLOT, LOCAL_VERTEX_BITS, MAX_RECORDS};
        rust("LOCAL_VERTEX_BITS", LOCAL_VERTEX_BITS);
        rust("MAX_RECORDS", MAX_RECORDS);
        rust("FILTERED_SLOT", FILTERED_SLOT);
        rust("CLUSTER_MAX_TRIANGLES", CLUSTER_MAX_TRIANGLES as u32);
        rust("VERDICT_KEPT", TriangleVerdict::Kept as u32);
        rust("VERDICT_OUTSIDE", TriangleVerdict::Outside as u32);
        rust("VERDICT_BACK", TriangleVerdict::BackFacing as u32);
        rust("VERDICT_NO_PIXEL", TriangleVerdict::NoPixel as u32);
    }
    // pyramid.wgsl
    rust(
        "PYRAMID_WORKGROUP",
        unbound::passes::pyramid::PYRAMID_WORKGROUP,
    );
    // lights.wgsl
    rust(
        "LIGHT_WORKGROUP_SIZE",
        unbound::passes::lights::WORKGROUP_SIZE,
    );
    rust(
        "SCAN_WORKGROUP_SIZE",
        unbound::passes::lights::SCAN_WORKGROUP_SIZE,
    );
    // skinning.wgsl
    rust("NO_SKIN", NO_SKIN);
    // ray_deform.wgsl
    rust(
        "RAY_DEFORM_WORKGROUP_SIZE",
        unbound::rays::DEFORM_WORKGROUP_SIZE,
    );
    // animation.wgsl
    rust("ANIM_NO_PARENT", ANIM_NO_PARENT);
    rust("ANIM_PATH_TRANSLATION", ANIM_PATH_TRANSLATION);
    rust("ANIM_PATH_ROTATION", ANIM_PATH_ROTATION);
    rust("ANIM_PATH_SCALE", ANIM_PATH_SCALE);
    rust("ANIM_PATH_WEIGHTS", ANIM_PATH_WEIGHTS);
    rust("ANIM_STEP", ANIM_STEP);
    rust("ANIM_LINEAR", ANIM_LINEAR);
    rust("ANIM_CUBIC_SPLINE", ANIM_CUBIC_SPLINE);
    rust("ANIM_LOOP_A", ANIM_LOOP_A);
    rust("ANIM_LOOP_B", ANIM_LOOP_B);
    rust("ANIM_BLEND", ANIM_BLEND);
    rust("ANIM_NO_CLIP", ANIM_NO_CLIP);
    rust(
        "ANIM_WORKGROUP_SIZE",
        unbound::passes::animation::WORKGROUP_SIZE,
    );
    // exposure.wgsl
    rust("EXPOSURE_BINS", unbound::exposure::EXPOSURE_BINS as u32);
    for (name, _why) in SHADER_ONLY_CONSTANTS {
        assert!(twins.insert(name, None).is_none(), "{name}");
    }
    use unbound::exposure::{MAX_LOG2_LUMINANCE, MIN_LOG2_LUMINANCE};
    for (name, value) in [
        ("MIN_LOG2_LUMINANCE", MIN_LOG2_LUMINANCE),
        ("MAX_LOG2_LUMINANCE", MAX_LOG2_LUMINANCE),
    ] {
        assert!(twins.insert(name, Some(value.into())).is_none(), "{name}");
    }
    twins
}

/// WGSL files outside the library's `wgsl/` and the baseline's shader, and
/// the test in their own crate that checks their constants and structs
/// against their Rust twins (this crate cannot see those).
const CHECKED_IN_THEIR_CRATE: &[(&str, &str)] = &[(
    "crates/demo/wgsl/present.wgsl",
    "crates/demo/src/present.rs, mod tests",
)];

/// The variants whose constants this test checks: every tier's, and the
/// baseline's.
fn checked_variants() -> Vec<ShaderVariant> {
    let mut variants: Vec<ShaderVariant> = Tier::ALL
        .into_iter()
        .flat_map(|tier| {
            let mut variants = shaders::tier_variants(tier).to_vec();
            variants.extend(shaders::ray_query_variants(tier));
            variants.extend(shaders::visibility_variants(tier));
            variants.extend(shaders::compute_raster_variants(tier));
            variants
        })
        .collect();
    variants.push(unbound_baseline::SHADER);
    variants.push(unbound_baseline::SHADER_LIGHTS);
    variants
}

#[test]
fn every_wgsl_file_has_its_constants_checked() {
    // Every library file is part of some tier's variants.
    let mut reached = BTreeSet::new();
    for variant in checked_variants() {
        reached.extend(variant.files().unwrap());
    }
    for (name, _) in shaders::SOURCES {
        assert!(
            reached.contains(*name),
            "wgsl/{name}: in no tier's variants"
        );
    }
    // Every other file is the baseline's shader or checked in its crate.
    let elsewhere: BTreeSet<String> = common::workspace_wgsl_files()
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| {
            !(path.starts_with("wgsl/") && reached.contains(&path["wgsl/".len()..]))
                && path != "crates/baseline/wgsl/baseline.wgsl"
        })
        .collect();
    let listed: BTreeSet<String> = CHECKED_IN_THEIR_CRATE
        .iter()
        .map(|(path, _)| path.to_string())
        .collect();
    assert_eq!(
        elsewhere, listed,
        "WGSL files whose constants no test checks (or listed files that are gone)"
    );
}

#[test]
fn every_wgsl_constant_equals_its_rust_twin() {
    let twins = wgsl_constant_twins();
    let mut seen = BTreeSet::new();
    let mut errors = Vec::new();
    for variant in checked_variants() {
        for (name, value) in module(&variant).constants() {
            match twins.get(name.as_str()) {
                Some(Some(rust)) if *rust != value => errors.push(format!(
                    "{}: WGSL {name} = {value}, Rust twin = {rust}",
                    variant.label()
                )),
                Some(_) => {}
                None => errors.push(format!(
                    "{}: WGSL constant {name} has no Rust twin in tests/layouts.rs \
                     (add it, or list it as the shader's own)",
                    variant.label()
                )),
            }
            seen.insert(name);
        }
    }
    for name in twins.keys() {
        if !seen.contains(*name) {
            errors.push(format!("{name} is listed but no WGSL file declares it"));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn debug_views_from_the_first_to_the_last_id_view_are_id_views() {
    use unbound::DebugView;
    for view in DebugView::ALL {
        assert_eq!(
            view.is_id_view(),
            (DebugView::MaterialIndex as u32..=DebugView::HitMaterial as u32)
                .contains(&(view as u32)),
            "{view:?}"
        );
    }
}
