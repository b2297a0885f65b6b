//! The frame's GPU passes, in the order a frame records them, and what flows
//! between them. Each pass takes what it reads as arguments and returns what
//! it wrote and what it recorded (`PassStats`, summed into
//! [`FrameStats`](crate::FrameStats)); none reaches into another.
//!
//! - `GpuTables`: the scene's tables on the GPU as the upload left them (arena,
//!   objects with their bounds and batch streams, materials, live counts),
//!   their slot counts, live objects per pipeline bucket, and the versions that
//!   say when a bind group must be rebuilt. Every pass reads it; none writes it.
//! - `View` (`view.rs`): what depends on one camera: its frame uniforms (matrices,
//!   cull frustum, sun, flags, debug view, the light grid) and its region of
//!   the cull buffers. `Views` holds the camera's and, with shadows on, one per
//!   cascade and one per shadowed spot light, the shadow uniforms, the buffers
//!   the cull pass writes (one region per view, each aligned to 256 bytes so
//!   that a pass binds one view's alone) and the camera's cluster buffers. A
//!   reflection would be one more `View` through the same passes.
//! - `FrameInputs` (`inputs.rs`): what every pass of one frame reads, made
//!   once by the recipe after the upload: the device, `GpuTables`, `Views`,
//!   the heap's bind group (group 0 of every raster pass, rebuilt lazily by
//!   the heap, [`crate::heap`]), the environment's group, the light table
//!   (`LightInputs`), the frame's target and the HDR target
//!   ([`output::HdrTarget`], which the camera's pass shades into and the
//!   output pass reads).
//! - `CullOutput` (`cull.rs`): what one cull dispatch wrote, every view's
//!   region of the visible list, the draws and the counters (`CulledView`:
//!   one view's). The draw and shadow passes take it; the statistics
//!   readback copies the camera's counters; [`crate::Renderer::cull_region`]
//!   gives a view's byte offsets to applications and tests.
//! - `LightClusters` (`lights.rs`): the cluster lists the light pass wrote for
//!   the camera. The draw pass takes them.
//! - `SceneInputs` (`scene.rs`): the scene group (group 1) of one view, as the
//!   draw and shadow passes bind it, and one bucket's indirect draws.
//! - `DrawOutput` (`inputs.rs`): the HDR target and the depth the camera's pass
//!   (the draw pass, or a traced view in its place, `rays.rs`) left; the
//!   depth pyramid reads the depth, the output pass the HDR target.
//! - `DepthPrepassOutput` (`prepass.rs`): that the camera's depth holds the
//!   nearest opaque surface of each sample before the draw pass shades (the
//!   draw pass then tests depth for equality). Opt-in.
//! - `PyramidOutput` (`occlusion.rs`): the late occlusion phase's cull inputs
//!   over the pyramid just built.
//!
//! A new pass is a type here with a `record` that takes these and returns its
//! outputs, and one more step in the frame's recipe (`src/renderer/frame.rs`).

pub mod animation;
pub mod bounds;
pub(crate) mod cluster_cull;
pub(crate) mod compute_raster;
pub mod cull;
pub(crate) mod cull_buffers;
pub mod draw;
pub mod exposure;
pub(crate) mod inputs;
pub mod lights;
pub(crate) mod occlusion;
pub mod output;
pub mod prefilter;
pub(crate) mod prepass;
pub mod pyramid;
pub mod rays;
pub(crate) mod scene;
pub mod shadow;
pub mod skin_bounds;
pub mod triangle_filter;
mod view;
pub(crate) mod visibility;

pub(crate) use view::{View, Views};

/// The scene's tables on the GPU as this frame's upload left them: what the
/// passes read, whichever view they work for.
#[derive(Debug)]
pub(crate) struct GpuTables<'a> {
    /// `TableCounts`: live slots of every table, for the shaders' bounds
    /// checks.
    pub counts: &'a wgpu::Buffer,
    /// The geometry arena: vertices, pre-offset indices, mesh records.
    pub vertices: &'a wgpu::Buffer,
    pub indices: &'a wgpu::Buffer,
    pub meshes: &'a wgpu::Buffer,
    /// The cluster table (`crate::geometry::clusters`).
    pub clusters: &'a wgpu::Buffer,
    /// The cluster-LOD table, parallel to `clusters`.
    pub cluster_lods: &'a wgpu::Buffer,
    /// Clusters of the largest live cluster-LOD mesh (0: none).
    pub cluster_lod_clusters: u32,
    /// The object table and its two cull streams (bounding spheres; mesh
    /// and pipeline bucket).
    pub objects: &'a wgpu::Buffer,
    pub bounds: &'a wgpu::Buffer,
    pub batch: &'a wgpu::Buffer,
    pub materials: &'a wgpu::Buffer,
    /// The deform buffer: skin stream and palettes (`animation.rs`), read
    /// by the raster passes' vertex pulling.
    pub deform: &'a wgpu::Buffer,
    /// Object slots in use (the cull pass scans them all).
    pub object_slots: u32,
    /// Mesh slots in use.
    pub mesh_slots: u32,
    /// Live objects per pipeline bucket (`gpu_types::BUCKET_*`).
    pub bucket_objects: [u32; crate::gpu_types::BUCKETS as usize],
    /// Live alpha-masked materials (the shadow pass tests alpha only while
    /// there are any).
    pub masked_materials: u32,
    /// Change whenever one of the arena's, the object table's or the
    /// material table's buffers is replaced (bind groups are rebuilt then).
    pub arena_version: u64,
    pub objects_version: u64,
    pub materials_version: u64,
    pub deform_version: u64,
}

/// What one pass recorded, summed into the frame's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    /// Commands recorded into the encoder (passes, copies, binds,
    /// dispatches, draws).
    pub commands_recorded: u32,
    /// `set_bind_group` calls.
    pub bind_groups_set: u32,
    /// Bind groups (re)built.
    pub bind_group_rebuilds: u32,
}

impl PassStats {
    /// What a pass that recorded `commands` commands and set no bind
    /// group recorded.
    pub(crate) fn commands(commands: u32) -> Self {
        Self {
            commands_recorded: commands,
            ..Self::default()
        }
    }
}

impl std::ops::Add for PassStats {
    type Output = Self;

    fn add(mut self, other: Self) -> Self {
        self += other;
        self
    }
}

impl std::ops::AddAssign for PassStats {
    fn add_assign(&mut self, other: Self) {
        self.commands_recorded += other.commands_recorded;
        self.bind_groups_set += other.bind_groups_set;
        self.bind_group_rebuilds += other.bind_group_rebuilds;
    }
}

/// A layout entry of one resource (not an array).
pub(crate) fn layout_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BindingType,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty,
        count: None,
    }
}

/// A layout entry for a whole uniform or storage buffer.
pub(crate) fn buffer_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    ty: wgpu::BufferBindingType,
) -> wgpu::BindGroupLayoutEntry {
    let ty = wgpu::BindingType::Buffer {
        ty,
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    layout_entry(binding, visibility, ty)
}

/// A sampled texture binding of `view_dimension`, one sample per texel or
/// several (`multisampled`).
pub(crate) fn texture_binding(
    sample_type: wgpu::TextureSampleType,
    view_dimension: wgpu::TextureViewDimension,
    multisampled: bool,
) -> wgpu::BindingType {
    wgpu::BindingType::Texture {
        sample_type,
        view_dimension,
        multisampled,
    }
}

/// A storage buffer binding type.
pub(crate) fn storage(read_only: bool) -> wgpu::BufferBindingType {
    wgpu::BufferBindingType::Storage { read_only }
}

/// A bind group of whole buffers, rebuilt only when the key of the buffers
/// it was built from (their versions) changes.
#[derive(Debug)]
pub(crate) struct BufferBindGroup<K> {
    label: &'static str,
    cached: Option<(K, wgpu::BindGroup)>,
}

impl<K: PartialEq> BufferBindGroup<K> {
    pub fn new(label: &'static str) -> Self {
        Self {
            label,
            cached: None,
        }
    }

    /// The group over whole `buffers` (bound at 0, 1, 2, ...) for `key`;
    /// builds it if the key changed. Returns whether it was rebuilt.
    pub fn get(
        &mut self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        key: K,
        buffers: &[&wgpu::Buffer],
    ) -> (&wgpu::BindGroup, bool) {
        let bindings: Vec<wgpu::BufferBinding<'_>> = buffers
            .iter()
            .map(|b| b.as_entire_buffer_binding())
            .collect();
        self.get_ranges(device, layout, key, &bindings)
    }

    /// [`Self::get`] over buffer ranges (a view's region of the cull
    /// buffers, say).
    pub fn get_ranges(
        &mut self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        key: K,
        buffers: &[wgpu::BufferBinding<'_>],
    ) -> (&wgpu::BindGroup, bool) {
        let rebuilt = self.cached.as_ref().is_none_or(|(k, _)| *k != key);
        if rebuilt {
            let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: wgpu::BindingResource::Buffer(b.clone()),
                })
                .collect();
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(self.label),
                layout,
                entries: &entries,
            });
            self.cached = Some((key, group));
        }
        (&self.cached.as_ref().expect("just built").1, rebuilt)
    }
}

/// Values built per colour format on first use: a pass's pipelines for each
/// format it is drawn into (the configured one, the id views' linear one).
#[derive(Debug)]
pub(crate) struct PerFormat<T>(Vec<(wgpu::TextureFormat, T)>);

impl<T> PerFormat<T> {
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// The value for `format`, built by `build` the first time.
    pub fn get_or_build(&mut self, format: wgpu::TextureFormat, build: impl FnOnce() -> T) -> &T {
        let index = match self.0.iter().position(|(f, _)| *f == format) {
            Some(i) => i,
            None => {
                self.0.push((format, build()));
                self.0.len() - 1
            }
        };
        &self.0[index].1
    }
}
