//! Host twins of the WGSL structs and constants in `wgsl/types.wgsl` (and
//! of the encodings other WGSL files share with the host).
//!
//! Each type here is written by the host into a GPU buffer and read by a
//! shader. Field names and order match the WGSL struct of the same name
//! (without the `Gpu` prefix). Two kinds:
//!
//! - bulk tables (vertices, meshes, objects, materials, counts, the cull
//!   header) are `#[repr(C)]` + `bytemuck::Pod` with explicit padding: they
//!   are arrays, uploaded by range, and read back;
//! - the small uniform structs ([`GpuFrameUniforms`], [`GpuOutputUniforms`])
//!   are laid out by `encase` with WGSL's rules ([`uniform_bytes`] gives
//!   their bytes), so a new field cannot end up at an offset the shader
//!   does not expect.
//!
//! `tests/layouts.rs` checks every struct's size, field names and offsets
//! against naga's layout of the WGSL source, and every constant here against
//! its WGSL twin. Byte offsets and sizes the host needs come from these
//! types (`offset_of!`, `size_of`, [`encase::ShaderSize`]), never typed by hand.

use std::mem::offset_of;

use bytemuck::{Pod, Zeroable};
use encase::ShaderType;
use encase::internal::WriteInto;
use glam::{Mat4, UVec4, Vec4};

mod animation;
mod clusters;
mod cull;
mod exposure;
mod lights;
mod raster;
mod shadows;
mod texture_arrays;
pub use animation::*;
pub use clusters::*;
pub use cull::*;
pub use exposure::*;
pub use lights::*;
pub use raster::*;
pub use shadows::*;
pub use texture_arrays::*;

/// Bytes per index in the geometry arena's index buffer (`u32` indices).
pub const INDEX_SIZE_BYTES: u64 = 4;

/// Reserved 2D texture slot: the visible "missing" texture (WGSL
/// `TEXTURE_MISSING`; the heap fills it, `crate::heap`).
pub const TEXTURE_MISSING: u32 = 0;
/// Reserved 2D texture slot: opaque white, for "no texture" (WGSL
/// `TEXTURE_WHITE`).
pub const TEXTURE_WHITE: u32 = 1;
/// Reserved sampler slot: linear filtering, repeat addressing.
pub const SAMPLER_DEFAULT: u32 = 0;
/// Reserved material slot: shows the "missing" texture
/// (`crate::materials`).
pub const MATERIAL_FALLBACK: u32 = 0;

/// One vertex of the geometry arena (WGSL `Vertex`, 40 bytes).
///
/// Normals are octahedral-encoded into two 16-bit snorms; tangents into four
/// 8-bit snorms (xyz direction, w handedness ±1). The vertex shader decodes
/// them; the tangent is re-orthogonalised against the normal there, so 8 bits
/// are enough. The position stays the first field (`Float32x3` at offset 0:
/// ray-tracing acceleration structures read it in place).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuVertex {
    /// Object-space position.
    pub position: [f32; 3],
    /// Unit normal, octahedral, `pack2x16snorm`.
    pub normal_oct: u32,
    /// Unit tangent and handedness, `pack4x8snorm`.
    pub tangent: u32,
    /// First texture coordinate set.
    pub uv0: [f32; 2],
    /// Second texture coordinate set.
    pub uv1: [f32; 2],
    /// Linear RGBA vertex colour, `pack4x8unorm` (white without one).
    pub color: u32,
}
const _: () = assert!(offset_of!(GpuVertex, position) == 0);

/// One mesh of the mesh table (WGSL `Mesh`, 112 bytes): where its indices
/// live in the arena, its object-space bounds and its simplified levels
/// ([`crate::lod`]; each level is an entry of its own, sharing the mesh's
/// vertices and bounds, without levels of its own).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMesh {
    /// First index in the arena's index buffer.
    pub first_index: u32,
    /// Number of indices (a multiple of 3; 0 for a free slot).
    pub index_count: u32,
    /// First vertex in the arena (indices are already offset by it).
    pub first_vertex: u32,
    /// Number of vertices.
    pub vertex_count: u32,
    /// Bounding sphere: centre xyz, radius w.
    pub bounding_sphere: [f32; 4],
    /// Bounding box minimum (w unused).
    pub aabb_min: [f32; 4],
    /// Bounding box maximum (w unused).
    pub aabb_max: [f32; 4],
    /// Simplification error of each level over the bounding radius,
    /// non-decreasing (`lod_levels` used).
    pub lod_errors: [f32; 4],
    /// Mesh slot of each simplified level, coarser ones later.
    pub lod_slots: [u32; 4],
    /// Simplified levels (0 to [`crate::lod::MAX_LOD_LEVELS`]).
    pub lod_levels: u32,
    /// The entry's first cluster in the cluster table
    /// ([`crate::geometry::clusters`]).
    pub first_cluster: u32,
    /// Its clusters (0 for a free slot).
    pub cluster_count: u32,
    /// 1 when its clusters are a cluster-LOD hierarchy
    /// ([`crate::geometry::cluster_lod`]: every level's clusters, each
    /// with a [`GpuClusterLod`]), else 0.
    pub cluster_lod: u32,
}

/// One object (instance) of the object table (WGSL `Object`, 96 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuObject {
    /// Column-major `world_from_object` matrix.
    pub world_from_object: [[f32; 4]; 4],
    /// Mesh table index.
    pub mesh: u32,
    /// Material table index.
    pub material: u32,
    /// [`OBJECT_FLAG_LIVE`] and friends.
    pub flags: u32,
    /// A skinned object's palette: the index of its first matrix's first
    /// column in the deform buffer (`vec4` units; `wgsl/pull.wgsl`,
    /// [`crate::passes::animation`]), else [`NO_SKIN`].
    pub skin: u32,
    /// A morphed object's deltas: the `vec4` index in the deform buffer of
    /// its mesh's first vertex's first target delta (two `vec4` per vertex
    /// and target, `wgsl/morph.wgsl`), else [`NO_MORPH`].
    pub morph_deltas: u32,
    /// Index (in 4-byte units of the deform buffer) of the first morph
    /// weight the object's node plays.
    pub morph_weights: u32,
    /// Morph targets of its mesh.
    pub morph_targets: u32,
    /// The arena vertex the deltas start at (its mesh's first vertex).
    pub morph_first_vertex: u32,
}

impl GpuObject {
    /// An object drawn as its mesh is: no skin, no morph.
    pub const UNDEFORMED: Self = Self {
        world_from_object: [[0.0; 4]; 4],
        mesh: 0,
        material: 0,
        flags: 0,
        skin: NO_SKIN,
        morph_deltas: NO_MORPH,
        morph_weights: 0,
        morph_targets: 0,
        morph_first_vertex: 0,
    };
}

/// Object flag: the slot holds a live object.
pub const OBJECT_FLAG_LIVE: u32 = 1;
/// [`GpuObject::skin`] of an object drawn as its mesh is (WGSL `NO_SKIN`).
pub const NO_SKIN: u32 = u32::MAX;
/// [`GpuObject::morph_deltas`] of an object drawn without morph targets
/// (WGSL `NO_MORPH`).
pub const NO_MORPH: u32 = u32::MAX;
/// The largest tangent delta component the deform buffer keeps (packed as
/// `snorm16` of `delta / MORPH_TANGENT_RANGE`; a delta between unit
/// tangents is at most 2 long), WGSL `MORPH_TANGENT_RANGE`.
pub const MORPH_TANGENT_RANGE: u32 = 2;

/// One texture reference inside a material (WGSL `MaterialTexture`, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMaterialTexture {
    /// First row of the 2x3 UV transform (`uv' = M * (u, v, 1)`), w unused.
    pub uv_row0: [f32; 4],
    /// Second row of the UV transform, w unused.
    pub uv_row1: [f32; 4],
    /// Slot in the 2D texture array (0: none / missing).
    pub texture: u32,
    /// Slot in the sampler array.
    pub sampler: u32,
    /// Which UV set (0 or 1).
    pub uv_set: u32,
    /// Explicit padding.
    pub _pad: u32,
}

/// One material of the material table (WGSL `Material`, 304 bytes). Fields
/// follow glTF 2.0's metallic-roughness material.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMaterial {
    /// Linear RGBA base colour factor.
    pub base_color_factor: [f32; 4],
    /// Linear RGB emissive factor.
    pub emissive_factor: [f32; 3],
    /// `KHR_materials_emissive_strength`.
    pub emissive_strength: f32,
    /// Metallic factor.
    pub metallic_factor: f32,
    /// Roughness factor.
    pub roughness_factor: f32,
    /// Normal map scale.
    pub normal_scale: f32,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// Alpha cutoff (mask mode).
    pub alpha_cutoff: f32,
    /// [`ALPHA_OPAQUE`], [`ALPHA_MASK`] or [`ALPHA_BLEND`].
    pub alpha_mode: u32,
    /// [`MATERIAL_FLAG_DOUBLE_SIDED`] and friends.
    pub flags: u32,
    /// Explicit padding.
    pub _pad: u32,
    /// Base colour texture (sRGB).
    pub base_color: GpuMaterialTexture,
    /// Metallic (B) and roughness (G) texture.
    pub metallic_roughness: GpuMaterialTexture,
    /// Tangent-space normal map.
    pub normal: GpuMaterialTexture,
    /// Occlusion (R).
    pub occlusion: GpuMaterialTexture,
    /// Emissive texture (sRGB).
    pub emissive: GpuMaterialTexture,
}

/// Material alpha mode: alpha ignored (WGSL `ALPHA_OPAQUE`).
pub const ALPHA_OPAQUE: u32 = 0;
/// Material alpha mode: fragments below `alpha_cutoff` discarded (WGSL `ALPHA_MASK`).
pub const ALPHA_MASK: u32 = 1;
/// Material alpha mode: alpha blended (WGSL `ALPHA_BLEND`).
pub const ALPHA_BLEND: u32 = 2;

/// TLAS instance mask of objects with an opaque material (WGSL
/// `RAY_MASK_OPAQUE`, `src/rays/`): a ray's cull mask picks which kinds of
/// object it may hit.
pub const RAY_MASK_OPAQUE: u32 = 1;
/// TLAS instance mask of objects with an alpha-masked material (WGSL
/// `RAY_MASK_MASKED`).
pub const RAY_MASK_MASKED: u32 = 2;
/// TLAS instance mask of objects with a blended material (WGSL
/// `RAY_MASK_BLENDED`).
pub const RAY_MASK_BLENDED: u32 = 4;

/// Material flag: render both faces.
pub const MATERIAL_FLAG_DOUBLE_SIDED: u32 = 1;
/// Material flag: the material has a normal map.
pub const MATERIAL_FLAG_NORMAL_MAP: u32 = 2;
/// Material flag: `KHR_materials_unlit`, the base colour shown without
/// lighting.
pub const MATERIAL_FLAG_UNLIT: u32 = 4;

/// Live sizes of every table and array (WGSL `TableCounts`, 32 bytes).
/// Shaders check every index read from a table against these before use:
/// wgpu does not bounds-check binding arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuTableCounts {
    /// 2D texture slots bound (highest live slot + 1).
    pub textures_2d: u32,
    /// Cube texture slots bound.
    pub textures_cube: u32,
    /// Sampler slots bound.
    pub samplers: u32,
    /// Material slots in use (high-water mark).
    pub materials: u32,
    /// Mesh slots in use (high-water mark).
    pub meshes: u32,
    /// Object slots in use (high-water mark).
    pub objects: u32,
    /// Vertices in the arena (allocated capacity).
    pub vertices: u32,
    /// Explicit padding.
    pub _pad: u32,
}

/// Per-frame constants (WGSL `FrameUniforms`, 384 bytes): the camera, the
/// sun, the cull pass's parameters and the light clusters'. A uniform
/// buffer, laid out by `encase` with WGSL's rules; upload [`uniform_bytes`]
/// of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct GpuFrameUniforms {
    /// `clip_from_world` of the view camera.
    pub clip_from_world: Mat4,
    /// Camera position in world space (w = 1).
    pub camera_position: Vec4,
    /// Unit direction towards the light (w unused).
    pub light_direction: Vec4,
    /// Light colour times intensity (w unused).
    pub light_color: Vec4,
    /// Ambient colour (w unused).
    pub ambient_color: Vec4,
    /// Frustum planes (xyz normal pointing inside, w distance), left, right,
    /// bottom, top, near, far.
    pub frustum_planes: [Vec4; 6],
    /// Object slots the cull pass scans.
    pub instance_count: u32,
    /// Mesh slots the draw-building pass scans.
    pub mesh_count: u32,
    /// [`FRAME_FLAG_NORMAL_MAPS`] and friends.
    pub flags: u32,
    /// What the draw pass writes: [`crate::debug::DebugView`] as `u32`.
    pub debug_view: u32,
    /// `view_from_world` of the view camera (the light pass works in view
    /// space).
    pub view_from_world: Mat4,
    /// The light clusters: tiles across, tiles down, depth slices, and the
    /// light slots in use (0: no live lights, nothing is looped over).
    pub light_grid: UVec4,
    /// x, y: tiles per pixel across and down; z, w: a fragment's depth
    /// slice is `log2(view depth) * z + w`.
    pub cluster_from_pixel: Vec4,
    /// View depth from window depth: `x / (z - depth * y)` (x: near * far,
    /// y: far - near, z: far); w: near.
    pub view_depth: Vec4,
    /// View-space x and y per unit of view depth at the view's right and
    /// top edges (x: `tan(fov_y / 2) * aspect`, y: `tan(fov_y / 2)`); z:
    /// `log2(far / near) / slices`, the depth ratio of one slice as a power
    /// of two; w unused.
    pub view_frustum: Vec4,
    /// Small-object culling of the camera view (`wgsl/small_objects.wgsl`,
    /// twin [`crate::small_objects`]): x, y the target's width and height
    /// in pixels, whose centres are the samples; zero while it is off (or
    /// at 4x MSAA), when nothing is culled for its size. z, w unused.
    pub pixel_grid: Vec4,
    /// Level of detail ([`crate::lod`]): xyz where distances are measured
    /// from (the cull camera), w the factor `k` of the level test
    /// ([`crate::lod::lod_factor`]); used with [`FRAME_FLAG_LOD`].
    pub lod: Vec4,
    /// The camera's compute rasteriser (`src/passes/compute_raster/`): x, y
    /// the target's size in pixels, z the threshold in pixels (0: off, the
    /// cull pass then sends no instance to it), w the raster items it may
    /// reserve.
    pub raster: Vec4,
}

impl GpuFrameUniforms {
    /// The frame constants for a camera and lighting.
    pub fn new(
        camera: &crate::camera::Camera,
        lighting: &crate::camera::Lighting,
        instance_count: u32,
        mesh_count: u32,
        flags: u32,
    ) -> Self {
        let clip_from_world = camera.clip_from_world();
        Self {
            clip_from_world,
            camera_position: camera.position.extend(1.0),
            light_direction: lighting.direction_to_light.normalize_or_zero().extend(0.0),
            light_color: lighting.light_color.extend(0.0),
            ambient_color: lighting.ambient_color.extend(0.0),
            frustum_planes: crate::camera::frustum_planes(&clip_from_world),
            instance_count,
            mesh_count,
            flags,
            debug_view: 0,
            view_from_world: camera.view_from_world(),
            light_grid: UVec4::ZERO,
            cluster_from_pixel: Vec4::ZERO,
            view_depth: Vec4::ZERO,
            view_frustum: Vec4::ZERO,
            pixel_grid: Vec4::ZERO,
            lod: Vec4::ZERO,
            raster: Vec4::ZERO,
        }
    }
}

impl GpuFrameUniforms {
    /// Bytes of the WGSL struct (`encase::ShaderSize::SHADER_SIZE`): the
    /// uniform buffer's size.
    pub const SIZE_BYTES: u64 = <Self as encase::ShaderSize>::SHADER_SIZE.get();
}

/// The bytes of a uniform-buffer value in WGSL's layout (`encase`; padding
/// is zero). As long as `T::SHADER_SIZE`.
pub fn uniform_bytes<T: ShaderType + WriteInto>(value: &T) -> Vec<u8> {
    let mut buffer = encase::UniformBuffer::new(Vec::new());
    buffer
        .write(value)
        .expect("writing into a Vec grows it as needed");
    buffer.into_inner()
}

/// The output pass's parameters (WGSL `OutputUniforms` in
/// `wgsl/output.wgsl`): exposure and tone mapping of lit frames, and the
/// view, which decides whether the pass tone maps, averages only (debug
/// views) or copies the first sample (id views). A uniform buffer, laid out
/// by `encase`.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct GpuOutputUniforms {
    /// `2^EV`: what radiance is multiplied by before the curve.
    pub exposure_scale: f32,
    /// [`crate::output::ToneMapping`] as `u32`.
    pub tone_mapping: u32,
    /// [`crate::debug::DebugView`] as `u32`.
    pub debug_view: u32,
}

impl GpuOutputUniforms {
    /// Bytes of the WGSL struct: the uniform buffer's size.
    pub const SIZE_BYTES: u64 = <Self as encase::ShaderSize>::SHADER_SIZE.get();
}

/// The constants of the passes that trace rays (WGSL `RayUniforms` in
/// `wgsl/ray_hit.wgsl`): what turns a pixel into a camera ray. A uniform
/// buffer, laid out by `encase`.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct GpuRayUniforms {
    /// The inverse of the view camera's `clip_from_world`.
    pub world_from_clip: Mat4,
    /// The target's width and height in pixels, then their reciprocals.
    pub viewport: Vec4,
    /// The path-traced view: samples per pixel accumulated before this
    /// frame (0: start again).
    pub sample_index: u32,
    /// The path-traced view: samples per pixel this frame.
    pub samples: u32,
    /// The path-traced view: bounces after the camera ray's hit.
    pub bounces: u32,
}

impl GpuRayUniforms {
    /// Bytes of the WGSL struct: the uniform buffer's size.
    pub const SIZE_BYTES: u64 = <Self as encase::ShaderSize>::SHADER_SIZE.get();

    /// The constants for `camera` and a target of `size` pixels (no path
    /// tracing).
    pub fn new(camera: &crate::camera::Camera, size: (u32, u32)) -> Self {
        let (width, height) = (size.0.max(1) as f32, size.1.max(1) as f32);
        Self {
            world_from_clip: camera.clip_from_world().inverse(),
            viewport: Vec4::new(width, height, 1.0 / width, 1.0 / height),
            sample_index: 0,
            samples: 0,
            bounces: 0,
        }
    }
}

/// Frame flag: apply normal maps.
pub const FRAME_FLAG_NORMAL_MAPS: u32 = 1;
/// Frame flag: write one draw per mesh slot (zero instances when culled)
/// for plain `multi_draw_indexed_indirect`, instead of a compacted list.
pub const FRAME_FLAG_UNCOMPACTED_DRAWS: u32 = 2;
/// Frame flags: bit `FRAME_FLAG_BUCKET_SHIFT + b` says pipeline bucket `b` has
/// live objects (uncompacted draws are written only for those).
pub const FRAME_FLAG_BUCKET_SHIFT: u32 = 2;
/// Frame flag (debug): pixels that sampled the missing texture turn magenta.
pub const FRAME_FLAG_HIGHLIGHT_MISSING: u32 = 32;
// The highlight bit lies above the bucket bits.
const _: () = assert!(FRAME_FLAG_HIGHLIGHT_MISSING >= 1 << (FRAME_FLAG_BUCKET_SHIFT + BUCKETS));
/// Frame flag: the frame culls occlusion, so its late phase writes the
/// visibility bits (the bounds view reads them).
pub const FRAME_FLAG_OCCLUSION: u32 = 64;
/// Frame flag: the cull pass picks each instance's level of detail
/// ([`crate::lod`]).
pub const FRAME_FLAG_LOD: u32 = 128;
/// Frame flag: the shadow cascades are culled by occlusion too, each
/// against its own depth (early phase: what it kept last frame; a late
/// phase of its own; see `src/passes/occlusion.rs`).
pub const FRAME_FLAG_CASCADE_OCCLUSION: u32 = 256;
/// Frame flags: bits `FRAME_FLAG_FEEDBACK_SHIFT..+3` hold the frame number
/// mod 8, which rotates the fragments that write the texture feedback
/// (`src/heap/feedback.rs`).
pub const FRAME_FLAG_FEEDBACK_SHIFT: u32 = 16;
const _: () = assert!(1 << FRAME_FLAG_FEEDBACK_SHIFT > FRAME_FLAG_CASCADE_OCCLUSION);

/// Pipeline bucket: opaque and mask, back faces culled (WGSL `BUCKET_OPAQUE`).
pub const BUCKET_OPAQUE: u32 = 0;
/// Pipeline bucket: opaque and mask, both faces.
pub const BUCKET_DOUBLE_SIDED: u32 = 1;
/// Pipeline bucket: alpha blended, drawn last and far to near.
pub const BUCKET_BLEND: u32 = 2;
/// Number of pipeline buckets.
///
/// Every object is in one of three buckets by its
/// material: opaque or masked with back faces culled, opaque or masked
/// double-sided, and blended. The batch stream carries the bucket beside the
/// mesh (`mesh | masked << 29 | bucket << 30`), keys are (bucket, mesh, depth), and each
/// bucket's draws go to a region of the draw buffer of their own with a count
/// of their own in the header. Blended instances are sorted exactly, far to
/// near across all meshes, for the camera: `scatter_visible` also appends each
/// (distance of the centre from the near plane, visible slot) to a blend list
/// at the end of the counters, and `sort_blended` bitonic-sorts it in 16 KiB of
/// workgroup memory (ties by slot) and writes one single-instance draw per entry
/// after the three bucket regions. Past `BLEND_SORT_CAP` (2,048) visible blended
/// instances, what 16 KiB holds on every device, the blend bucket falls back to
/// per-mesh draws whose instances take their depth buckets in reverse (a coarse
/// far-to-near order) and the sorted list stays empty (`tests/blending.rs`).
/// Changing a material's alpha mode or sidedness moves its objects, a scan of
/// the object table paid only then.
pub const BUCKETS: u32 = 3;
/// `batch = mesh | masked | bucket << BUCKET_SHIFT` in the object table's
/// batch stream.
pub const BUCKET_SHIFT: u32 = 30;
/// Batch bit: the object's material is alpha-masked (WGSL `BATCH_MASKED`).
/// The cull pass leaves such instances to the hardware visibility pass
/// (the compute rasteriser has no alpha test; `src/passes/compute_raster/`).
pub const BATCH_MASKED: u32 = 1 << 29;
/// Mesh bits of a batch value.
pub const MESH_MASK: u32 = BATCH_MASKED - 1;

impl GpuMaterial {
    /// The pipeline bucket objects with this material are drawn in.
    pub fn bucket(&self) -> u32 {
        if self.alpha_mode == ALPHA_BLEND {
            BUCKET_BLEND
        } else if self.flags & MATERIAL_FLAG_DOUBLE_SIDED != 0 {
            BUCKET_DOUBLE_SIDED
        } else {
            BUCKET_OPAQUE
        }
    }

    /// The bits above the mesh that objects with this material carry in
    /// the batch stream: the bucket, and [`BATCH_MASKED`].
    pub fn batch_class(&self) -> u32 {
        let masked = if self.alpha_mode == ALPHA_MASK {
            BATCH_MASKED
        } else {
            0
        };
        (self.bucket() << BUCKET_SHIFT) | masked
    }
}
