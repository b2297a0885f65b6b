//! Tier C's numbering, twinned in `wgsl/heap_arrays.wgsl`: which texture
//! array holds which size class and format, the bindings of its group 0,
//! and the encodings of its two slot maps. The heap's tier C storage
//! (`src/heap/texture_arrays.rs`) and tier C's device limits
//! (`src/capabilities/mod.rs`) count from here; `tests/layouts.rs` checks
//! every WGSL twin.

/// Edge lengths of the size classes, smallest first (square layers, in
/// texels).
pub const TEXTURE_ARRAY_SIZES: [u32; 3] = [64, 256, 1024];
/// Formats of each size class's arrays, in array order: sRGB colour, linear
/// data.
pub const TEXTURE_ARRAY_FORMATS: [wgpu::TextureFormat; 2] = [
    wgpu::TextureFormat::Rgba8UnormSrgb,
    wgpu::TextureFormat::Rgba8Unorm,
];
/// Texture arrays: one per size class and format (WGSL `TEXTURE_ARRAYS`).
pub const TEXTURE_ARRAYS: u32 = (TEXTURE_ARRAY_SIZES.len() * TEXTURE_ARRAY_FORMATS.len()) as u32;

/// The number of the array of size class `class` and format `format`
/// (indices into [`TEXTURE_ARRAY_SIZES`] and [`TEXTURE_ARRAY_FORMATS`]):
/// class by class, each class's sRGB array first.
pub const fn texture_array(class: usize, format: usize) -> u32 {
    (class * TEXTURE_ARRAY_FORMATS.len() + format) as u32
}

/// The 64-texel sRGB array (WGSL `TEXTURE_ARRAY_64_SRGB`).
pub const TEXTURE_ARRAY_64_SRGB: u32 = texture_array(0, 0);
/// The 64-texel linear array (WGSL `TEXTURE_ARRAY_64_LINEAR`).
pub const TEXTURE_ARRAY_64_LINEAR: u32 = texture_array(0, 1);
/// The 256-texel sRGB array (WGSL `TEXTURE_ARRAY_256_SRGB`).
pub const TEXTURE_ARRAY_256_SRGB: u32 = texture_array(1, 0);
/// The 256-texel linear array (WGSL `TEXTURE_ARRAY_256_LINEAR`).
pub const TEXTURE_ARRAY_256_LINEAR: u32 = texture_array(1, 1);
/// The 1024-texel sRGB array (WGSL `TEXTURE_ARRAY_1024_SRGB`).
pub const TEXTURE_ARRAY_1024_SRGB: u32 = texture_array(2, 0);
/// The 1024-texel linear array (WGSL `TEXTURE_ARRAY_1024_LINEAR`).
pub const TEXTURE_ARRAY_1024_LINEAR: u32 = texture_array(2, 1);

/// Group 0 binds every array twice, as GL pairs a texture with exactly one
/// sampler: array `a` sampled with repeat addressing is binding
/// `BINDING_REPEAT_ARRAYS + a` (WGSL twin)...
pub const BINDING_REPEAT_ARRAYS: u32 = 0;
/// ... and with clamp-to-edge addressing `BINDING_CLAMP_ARRAYS + a` (WGSL
/// twin).
pub const BINDING_CLAMP_ARRAYS: u32 = BINDING_REPEAT_ARRAYS + TEXTURE_ARRAYS;
/// Sampled-texture bindings of group 0: every array twice.
pub const TEXTURE_ARRAY_BINDINGS: u32 = 2 * TEXTURE_ARRAYS;
/// The repeating sampler's binding (WGSL twin).
pub const BINDING_SAMPLER_REPEAT: u32 = BINDING_REPEAT_ARRAYS + TEXTURE_ARRAY_BINDINGS;
/// The clamping sampler's binding (WGSL twin).
pub const BINDING_SAMPLER_CLAMP: u32 = BINDING_SAMPLER_REPEAT + 1;
/// Samplers of group 0: the repeating and the clamping one.
pub const TEXTURE_ARRAY_SAMPLERS: u32 = 2;
/// The slot-to-location map's binding (WGSL `texture_locations`, twin
/// `BINDING_TEXTURE_LOCATIONS`).
pub const BINDING_TEXTURE_LOCATIONS: u32 = BINDING_SAMPLER_REPEAT + TEXTURE_ARRAY_SAMPLERS;
/// The sampler-slot-to-mode map's binding (WGSL `sampler_modes`, twin
/// `BINDING_SAMPLER_MODES`).
pub const BINDING_SAMPLER_MODES: u32 = BINDING_TEXTURE_LOCATIONS + 1;

/// A 2D texture slot's entry in `texture_locations` is
/// `array << TEXTURE_LOCATION_ARRAY_SHIFT | layer`, or with pages (tiers A
/// and B, `src/heap/pages.rs`) `page << TEXTURE_LOCATION_ARRAY_SHIFT |
/// layer` (WGSL twin in `wgsl/heap_locations.wgsl`): up to 65,536 layers
/// per array and 65,536 pages.
pub const TEXTURE_LOCATION_ARRAY_SHIFT: u32 = 16;
/// The layer bits of a texture location (WGSL twin).
pub const TEXTURE_LOCATION_LAYER_MASK: u32 = (1 << TEXTURE_LOCATION_ARRAY_SHIFT) - 1;
/// A sampler slot's entry in `sampler_modes`: repeat addressing (WGSL
/// `SAMPLER_MODE_REPEAT`).
pub const SAMPLER_MODE_REPEAT: u32 = 0;
/// Clamp-to-edge addressing (WGSL `SAMPLER_MODE_CLAMP`).
pub const SAMPLER_MODE_CLAMP: u32 = 1;
