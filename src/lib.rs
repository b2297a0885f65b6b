//! # unbound
//!
//! A GPU-driven, bindless renderer for wgpu. Every texture and sampler lives
//! in global binding arrays bound once per frame ([`heap`]); every mesh in one
//! vertex and one index buffer read by index ([`geometry`]); materials and
//! objects in storage-buffer tables ([`materials`], [`scene`]). Each frame a
//! compute pass culls every object on the GPU and writes indirect draws
//! ([`passes::cull`]), and one indirect multi-draw per pipeline draws them
//! ([`passes::draw`]) into an HDR target, which an output pass resolves,
//! exposes and tone maps into the application's colour target
//! ([`passes::output`], [`output`]). Punctual lights live in a table too
//! ([`lights`]); a compute pass sorts them into view-space clusters every
//! frame ([`passes::lights`]) and each fragment shades with its cluster's
//! lights only. The CPU cost of a frame does not grow with the number of
//! objects or lights: only changed table entries are uploaded.
//!
//! The application owns the `Device`, `Queue` and surface; unbound records
//! into the encoder it is given:
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use unbound::{Renderer, RendererConfig};
//! let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
//! let adapter = instance.request_adapter(&Default::default()).await?;
//! let config = RendererConfig::default();
//! let (device, queue) =
//!     unbound::request_device(&adapter, &config.capacities, &Default::default()).await?;
//! let mut renderer = Renderer::new(&adapter, &device, &queue, config)?;
//! let cube = unbound::shapes::cube();
//! let mesh = renderer.add_mesh(&cube.as_mesh_data())?;
//! let material = renderer.add_material(&unbound::Material::dielectric(glam::Vec4::ONE))?;
//! renderer.add_object(&unbound::ObjectDesc { mesh, material, world_from_object: glam::Mat4::IDENTITY })?;
//! let color_texture = device.create_texture(&renderer.color_target_descriptor(256, 256));
//! let depth_texture = device.create_texture(&renderer.depth_target_descriptor(256, 256));
//! // each frame:
//! let (color, depth) = (unbound::TargetView::new(&color_texture), unbound::TargetView::new(&depth_texture));
//! let mut encoder = device.create_command_encoder(&Default::default());
//! let stats = renderer.render(&mut encoder, &unbound::FrameTarget::new(&color, &depth))?;
//! queue.submit([encoder.finish()]);
//! println!("{stats}");
//! # Ok(()) }
//! ```
//!
//! # Conventions
//!
//! - World space is right-handed, +Y up, in glTF's units: metres, radians,
//!   candela for point and spot lights, lux for directional ones
//!   ([`Camera`], [`Light`], [`Lighting`]).
//! - Colours given to the renderer are linear RGB; 8-bit colour textures are
//!   sRGB by default ([`TextureDesc`]). Shading is glTF 2.0's
//!   metallic-roughness model ([`Material`]).
//! - Triangles are counter-clockwise in front ([`MeshData`]); depth is 0 at
//!   the near plane and 1 at the far one ([`DEPTH_FORMAT`]).
//! - Matrices are named for what they map: `world_from_object` takes a point
//!   from object space to world space.
//!
//! # Errors
//!
//! Every public call checks its input before wgpu sees it and returns a typed
//! error that leaves the renderer as it was ([`Error`] gathers them): bad
//! capacities ([`CapabilityError`], at [`check_adapter`] and
//! [`Renderer::new`]), stale or foreign handles ([`HandleError`]), bad meshes
//! and transforms ([`GeometryError`], [`ObjectError`]), lighting, lights and
//! shadow settings ([`LightingError`], [`LightError`], [`ShadowError`]),
//! materials ([`MaterialError`]), textures ([`HeapError`]), resources still
//! in use, full tables, and frame targets or a broken frame order
//! ([`RenderError`]). Files are not
//! trusted at all: the glTF loader's CPU stage checks everything a file
//! claims, within [`LoadLimits`](loaders::gltf::LoadLimits), and returns
//! `GltfError` (see [`loaders::gltf`]). On the GPU, every index read from a
//! table is checked against the live counts ([`passes::draw`]). Not
//! defended: a texture the application destroys while a [`TargetView`] of it
//! is in use, an application that lies about what its `Device` has, and the
//! GPU memory an accepted glTF document takes when uploaded (bounded by the
//! renderer's [`Capacities`], not by the loader's limits).
//!
//! # Cargo features
//!
//! - `gltf` (default): the glTF 2.0 loader ([`loaders::gltf`]), with PNG,
//!   JPEG and KTX2 decoding. It adds the `gltf`, `image`, `ktx2` and `ruzstd`
//!   crates; an application that loads no glTF depends on `unbound` with
//!   `default-features = false`.
//! - `hdr` (default): Radiance `.hdr` environments
//!   ([`lighting::EquirectImage`]'s `from_hdr` and `open_hdr`).
//!
//! See `docs/ARCHITECTURE.md` for one frame's data flow, ownership and the
//! rules across frames in flight, and each module's documentation for its
//! part of the frame.

#![warn(missing_docs)]

/// The README's examples, compiled by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod animation;
pub mod camera;
pub mod capabilities;
pub mod capacities;
pub mod debug;
pub mod errors;
pub mod exposure;
pub mod geometry;
pub mod gpu_types;
pub mod handles;
pub mod heap;
pub mod lighting;
pub mod lights;
pub mod limits;
pub mod loaders;
pub mod lod;
pub mod materials;
pub mod mipmaps;
pub mod occlusion;
pub mod output;
pub mod passes;
pub mod rays;
pub mod renderer;
pub mod scene;
pub mod shaders;
pub mod shadows;
pub mod shapes;
pub mod small_objects;
pub mod target;

mod frame_sequence;
mod frame_stats;
mod gpu_table;
mod range_alloc;
mod readback;
mod submission;
mod timestamps;
mod upload;

pub use camera::{Camera, Lighting, LightingError};
pub use capabilities::{
    AdapterSupport, CapabilityError, Capacities, DeviceOptions, MAX_RAY_QUERY_OBJECTS,
    OPTIONAL_FEATURES, RAY_QUERY_FEATURES, REQUIRED_FEATURES, TextureHeap, Tier, check_adapter,
    request_device,
};
pub use debug::{DebugOptions, DebugView, ID_TARGET_FORMAT};
pub use errors::{Error, RenderError, TargetKind};
pub use exposure::{AutoExposure, ExposureError};
pub use geometry::{GeometryError, MeshData};
pub use gpu_types::ClusterStats;
pub use handles::{
    CubeTextureHandle, HandleError, LightHandle, MaterialHandle, MeshHandle, ObjectHandle,
    SamplerHandle, TextureHandle,
};
pub use heap::{
    CompressedTextureDesc, CubeTextureDesc, HeapError, Mips, ResidencyStats, SamplerDesc,
    TextureDesc,
};
pub use lighting::ClusterGrid;
pub use lights::{Light, LightError, LightKind, MAX_LIGHT_INTENSITY, MAX_LIGHT_RANGE};
pub use lod::{LodError, LodSettings, MeshOptions};
pub use materials::{AlphaMode, Material, MaterialError, TextureRef, UvTransform};
pub use output::DEPTH_FORMAT;
pub use passes::draw::IndirectMode;
pub use passes::visibility::MaterialPass;
pub use rays::{AccelerationStructureStats, PathTracing, RayDeformation};
pub use readback::{CascadeCasterStats, GpuFrameStats, LightListStats};
pub use renderer::{
    BUFFER_RASTER_FEATURES, ComputeRaster, FrameStats, Geometry, MemoryStats, Renderer,
    RendererConfig, TEXTURE_RASTER_FEATURES,
};
pub use scene::{ObjectDesc, ObjectError};
pub use shadows::{ShadowError, ShadowSettings};
pub use target::{FAR_DEPTH, FrameTarget, TargetLoad, TargetView};
