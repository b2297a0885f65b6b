//! The tiers unbound runs as, and the features each needs: what an
//! adapter must have before capacities (and the limits they derive, in
//! `src/limits.rs`) come in.

/// Features unbound cannot work without (tier A: the full bindless, GPU-driven path).
pub const REQUIRED_FEATURES: wgpu::Features = wgpu::Features::TEXTURE_BINDING_ARRAY
    .union(wgpu::Features::SAMPLED_TEXTURE_AND_STORAGE_BUFFER_ARRAY_NON_UNIFORM_INDEXING)
    .union(wgpu::Features::PARTIALLY_BOUND_BINDING_ARRAY)
    .union(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT)
    .union(wgpu::Features::INDIRECT_FIRST_INSTANCE);

/// Features unbound uses when the adapter has them: GPU timestamps per pass,
/// BC1-BC7 textures uploaded as they are (KTX2 in glTF files; without the
/// feature they are a typed error, [`crate::HeapError::MissingFeature`]),
/// subgroup operations in the cull pass (a plain fallback without), and
/// `@builtin(primitive_index)`, which the visibility buffer needs
/// ([`crate::Geometry::Visibility`]; forward without), and 64-bit integers
/// with 64-bit atomics in buffers and textures, which its compute
/// rasteriser needs ([`crate::ComputeRaster`]; hardware raster without),
/// and forced early depth tests, which spare the texture feedback's draw
/// shading the fragments the depth test rejects (`src/heap/feedback.rs`;
/// Vulkan and GL have them, DX12 and Metal shade those fragments too).
pub const OPTIONAL_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::TEXTURE_COMPRESSION_BC)
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::PRIMITIVE_INDEX)
    .union(wgpu::Features::SHADER_INT64)
    .union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX)
    .union(wgpu::Features::TEXTURE_INT64_ATOMIC)
    .union(wgpu::Features::TEXTURE_ATOMIC)
    .union(wgpu::Features::SHADER_EARLY_DEPTH_TEST);

/// Storage buffers the largest unbound pipeline binds in one shader stage (the cull pass).
pub const STORAGE_BUFFERS_PER_STAGE: u32 = 8;

/// Storage buffers the visibility buffer's material pass binds in its
/// fragment stage (`src/passes/visibility.rs`): the draw pass's fragment
/// tables, the vertices, objects and deform buffer its vertex stage reads,
/// the index buffer, and the mesh table (the LOD debug view's levels); with the paged heap, its slot-to-layer map too,
/// and under a texture budget the texture feedback (group 0:
/// [`VISIBILITY_PAGED_STORAGE_BUFFERS_PER_STAGE`] at most).
/// `unbound::request_device` asks for them where the adapter allows; the
/// frame draws forward on a device with fewer.
pub const VISIBILITY_STORAGE_BUFFERS_PER_STAGE: u32 = STORAGE_BUFFERS_PER_STAGE + 2;

/// [`VISIBILITY_STORAGE_BUFFERS_PER_STAGE`] with the paged heap's map and
/// the texture feedback (`src/heap/feedback.rs`).
pub const VISIBILITY_PAGED_STORAGE_BUFFERS_PER_STAGE: u32 =
    VISIBILITY_STORAGE_BUFFERS_PER_STAGE + 2;

/// What unbound runs as on an adapter. Same API, same tables and handles;
/// the frame adapts to what the adapter offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Full: binding arrays with non-uniform indexing, GPU culling,
    /// `multi_draw_indexed_indirect_count` (Vulkan, DX12).
    A,
    /// No indirect count: the same heap; plain `multi_draw_indexed_indirect`
    /// over one draw per mesh slot, culled meshes with zero instances.
    B,
    /// No binding arrays: textures in a few 2D texture arrays by size class
    /// and format (resampled on upload), two fixed samplers, plain
    /// multi-draw; vertex pulling and GPU culling stay (OpenGL, WebGPU).
    C,
}

/// How 2D textures are bound on tiers A and B
/// ([`RendererConfig::texture_heap`](crate::RendererConfig::texture_heap));
/// tier C always uses its six texture arrays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureHeap {
    /// One binding-array element per texture: wgpu tracks every texture at
    /// each submission, and adding one rebuilds the heap's bind group.
    #[default]
    Bindless,
    /// Pages of 2D texture arrays by size class and format, as tier C's
    /// (`src/heap/pages.rs`): one binding-array element per page.
    Paged,
}

/// What the heap's group 0 binds for 2D textures, from the tier and the
/// [`TextureHeap`] setting: it picks the heap's storage
/// (`src/heap/storage.rs`) and the shaders' variant (`src/shaders/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeapLayout {
    /// A binding array of textures (`wgsl/heap.wgsl`).
    BindingArrays,
    /// A binding array of texture-array pages (`wgsl/heap.wgsl` with
    /// `TEXTURE_PAGES`).
    Pages,
    /// Tier C's six texture arrays (`wgsl/heap_arrays.wgsl`).
    TextureArrays,
}

impl HeapLayout {
    /// The layout `tier` uses with `setting`.
    pub fn new(tier: Tier, setting: TextureHeap) -> Self {
        match (tier.has_binding_arrays(), setting) {
            (false, _) => Self::TextureArrays,
            (true, TextureHeap::Bindless) => Self::BindingArrays,
            (true, TextureHeap::Paged) => Self::Pages,
        }
    }
}

/// Downlevel capabilities every tier needs: compute shaders (culling),
/// storage buffers in vertex shaders (vertex pulling), indirect draws.
pub const REQUIRED_DOWNLEVEL: wgpu::DownlevelFlags = wgpu::DownlevelFlags::COMPUTE_SHADERS
    .union(wgpu::DownlevelFlags::VERTEX_STORAGE)
    .union(wgpu::DownlevelFlags::INDIRECT_EXECUTION);

/// Sampled-texture bindings of tier C: six texture arrays (size classes x
/// formats), each bound once per sampler (see `src/heap/texture_arrays.rs`).
pub const TIER_C_TEXTURE_ARRAYS: u32 = crate::gpu_types::TEXTURE_ARRAY_BINDINGS;
/// Fixed samplers of tier C.
pub const TIER_C_SAMPLERS: u32 = crate::gpu_types::TEXTURE_ARRAY_SAMPLERS;
/// Sampled textures the draw pass's fragment stage binds on tier C (its
/// device limit): the heap's texture arrays, the environment's specular
/// cube and BRDF table, and the shadow map (15 of the 16 texture units GL
/// 4.3 guarantees a stage).
pub const TIER_C_STAGE_TEXTURES: u32 = TIER_C_TEXTURE_ARRAYS + 2 + 1;
/// Samplers it binds: the heap's, the environment's and the shadow map's
/// comparison sampler.
pub const TIER_C_STAGE_SAMPLERS: u32 = TIER_C_SAMPLERS + 1 + 1;

impl Tier {
    /// Best first.
    pub const ALL: [Tier; 3] = [Tier::A, Tier::B, Tier::C];

    /// Features this tier needs.
    pub fn features(self) -> wgpu::Features {
        match self {
            Tier::A => REQUIRED_FEATURES,
            Tier::B => REQUIRED_FEATURES - wgpu::Features::MULTI_DRAW_INDIRECT_COUNT,
            Tier::C => wgpu::Features::INDIRECT_FIRST_INSTANCE,
        }
    }

    /// Whether the draw pass reads the draw count from the GPU.
    pub fn has_indirect_count(self) -> bool {
        self == Tier::A
    }

    /// Whether textures live in binding arrays (else in texture arrays).
    pub fn has_binding_arrays(self) -> bool {
        self != Tier::C
    }

    /// One line for logs and the demo.
    pub fn describe(self) -> &'static str {
        match self {
            Tier::A => "A (bindless binding arrays, GPU culling, multi-draw-indirect-count)",
            Tier::B => "B (bindless binding arrays, GPU culling, plain multi-draw-indirect)",
            Tier::C => "C (texture arrays by size class, GPU culling, plain multi-draw-indirect)",
        }
    }

    /// Parses `a`, `b` or `c`.
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "a" => Some(Tier::A),
            "b" => Some(Tier::B),
            "c" => Some(Tier::C),
            _ => None,
        }
    }
}
