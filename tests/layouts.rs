//! Every struct the host writes has a Rust twin in `unbound::gpu_types`;
//! sizes and field offsets must equal naga's layout of `wgsl/types.wgsl`.

use std::mem::{offset_of, size_of};

use unbound::gpu_types::*;

fn wgsl_layouts() -> (naga::Module, naga::proc::Layouter) {
    let source = unbound::shaders::SOURCES
        .iter()
        .find(|(name, _)| *name == "types.wgsl")
        .unwrap()
        .1;
    let module = naga::front::wgsl::parse_str(source).expect("types.wgsl parses");
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    (module, layouter)
}

fn check(name: &str, rust_size: usize, rust_fields: &[(&str, usize)]) {
    let (module, layouter) = wgsl_layouts();
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no WGSL struct {name}"));
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        panic!("{name} is not a struct");
    };
    assert_eq!(rust_size, *span as usize, "{name}: size");
    assert_eq!(
        layouter[handle].size as usize, rust_size,
        "{name}: layouter size"
    );
    let wgsl: Vec<(&str, usize)> = members
        .iter()
        .map(|m| (m.name.as_deref().unwrap(), m.offset as usize))
        .collect();
    assert_eq!(wgsl, rust_fields, "{name}: field names and offsets");
    // Arrays of these structs must not need padding between elements.
    assert_eq!(
        rust_size % layouter[handle].alignment.round_up(1) as usize,
        0,
        "{name}: stride"
    );
}

macro_rules! twin {
    ($rust:ty, $wgsl:literal, [$($field:ident),* $(,)?]) => {
        check($wgsl, size_of::<$rust>(), &[$((stringify!($field), offset_of!($rust, $field))),*])
    };
}

#[test]
fn vertex() {
    twin!(
        GpuVertex,
        "Vertex",
        [position, normal_oct, tangent, uv0, uv1]
    );
}

#[test]
fn mesh() {
    twin!(
        GpuMesh,
        "Mesh",
        [
            first_index,
            index_count,
            first_vertex,
            vertex_count,
            bounding_sphere,
            aabb_min,
            aabb_max
        ]
    );
}

#[test]
fn object() {
    twin!(
        GpuObject,
        "Object",
        [world_from_object, mesh, material, flags, _pad]
    );
}

#[test]
fn material_texture() {
    twin!(
        GpuMaterialTexture,
        "MaterialTexture",
        [uv_row0, uv_row1, texture, sampler, uv_set, _pad]
    );
}

#[test]
fn material() {
    twin!(
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
fn table_counts() {
    twin!(
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
fn frame_uniforms() {
    twin!(
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
        ]
    );
}

#[test]
fn cull_header() {
    twin!(
        GpuCullHeader,
        "CullHeader",
        [
            draw_count,
            visible_instances,
            triangles_lo,
            triangles_hi,
            bucket_draws,
            sorted_blend_draws
        ]
    );
}

#[test]
fn draw_indexed_indirect() {
    // The cull pass writes wgpu's own argument struct.
    twin!(
        wgpu::util::DrawIndexedIndirectArgs,
        "DrawIndexedIndirect",
        [
            index_count,
            instance_count,
            first_index,
            base_vertex,
            first_instance
        ]
    );
}

/// A `u32` constant of `types.wgsl`.
fn wgsl_constant(name: &str) -> u32 {
    let (module, _) = wgsl_layouts();
    let (_, constant) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no WGSL constant {name}"));
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref other => panic!("{name} = {other:?}"),
    }
}

#[test]
fn debug_view_and_frame_flag_constants() {
    use unbound::DebugView;
    for (view, name) in [
        (DebugView::Lit, "DEBUG_VIEW_LIT"),
        (DebugView::Unlit, "DEBUG_VIEW_UNLIT"),
        (DebugView::Normals, "DEBUG_VIEW_NORMALS"),
        (DebugView::Uvs, "DEBUG_VIEW_UVS"),
        (DebugView::MaterialIndex, "DEBUG_VIEW_MATERIAL"),
        (DebugView::ObjectIndex, "DEBUG_VIEW_OBJECT"),
        (DebugView::DrawIndex, "DEBUG_VIEW_DRAW"),
        (DebugView::TextureSlot, "DEBUG_VIEW_TEXTURE_SLOT"),
    ] {
        assert_eq!(view as u32, wgsl_constant(name), "{name}");
        assert_eq!(
            view.is_id_view(),
            view as u32 >= wgsl_constant("DEBUG_VIEW_FIRST_ID"),
            "{name}"
        );
    }
    for (value, name) in [
        (FRAME_FLAG_NORMAL_MAPS, "FRAME_FLAG_NORMAL_MAPS"),
        (FRAME_FLAG_UNCOMPACTED_DRAWS, "FRAME_FLAG_UNCOMPACTED_DRAWS"),
        (FRAME_FLAG_BUCKET_SHIFT, "FRAME_FLAG_BUCKET_SHIFT"),
        (FRAME_FLAG_HIGHLIGHT_MISSING, "FRAME_FLAG_HIGHLIGHT_MISSING"),
        (BUCKET_SHIFT, "BUCKET_SHIFT"),
        (BLEND_SORT_CAP, "BLEND_SORT_CAP"),
    ] {
        assert_eq!(value, wgsl_constant(name), "{name}");
    }
}
