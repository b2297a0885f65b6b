//! The renderer: owns the heap, arena and tables, and records one frame as
//! upload -> cull -> draw -> readback into the application's encoder.

use std::fmt;

use crate::camera::{Camera, Lighting};
use crate::capabilities::{
    AdapterSupport, CapabilityError, Capacities, Tier, check_adapter, check_device,
};
use crate::debug::{DebugOptions, ID_TARGET_FORMAT};
use crate::geometry::{GeometryArena, GeometryError, MeshData};
use crate::gpu_types::{
    BUCKET_BLEND, FRAME_FLAG_BUCKET_SHIFT, FRAME_FLAG_HIGHLIGHT_MISSING, FRAME_FLAG_NORMAL_MAPS,
    FRAME_FLAG_UNCOMPACTED_DRAWS, GpuFrameUniforms, GpuTableCounts,
};
use crate::handles::{
    CubeTextureHandle, MaterialHandle, MeshHandle, ObjectHandle, SamplerHandle, TextureHandle,
};
use crate::heap::{
    CompressedTextureDesc, CubeTextureDesc, HeapError, ResourceHeap, SamplerDesc, TextureDesc,
};
use crate::materials::{Material, MaterialError, MaterialTable};
use crate::passes::bounds::{BoundsInputs, BoundsPass};
use crate::passes::cull::{CullInputs, CullPass};
use crate::passes::draw::{DEPTH_FORMAT, DrawInputs, DrawPass, FrameTarget, IndirectDraws};
use crate::readback::{GpuFrameStats, Readback};
use crate::scene::{ObjectDesc, ObjectError, ObjectTable};
use crate::upload::UploadBatch;

/// How the draw pass issues the cull pass's draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndirectMode {
    /// `multi_draw_indexed_indirect_count`: a compacted list, count read on
    /// the GPU (not validated by wgpu).
    #[default]
    Count,
    /// `multi_draw_indexed_indirect` over one draw per mesh slot, culled
    /// meshes with zero instances. With wgpu's indirect-call validation on
    /// (`InstanceFlags::VALIDATION_INDIRECT_CALL`, the default) every draw is
    /// validated; the lower tier without indirect count uses this.
    Plain,
}

/// How to build a [`Renderer`].
#[derive(Clone, Copy, Debug)]
pub struct RendererConfig {
    /// Table and array capacities (device limits are derived from them).
    pub capacities: Capacities,
    /// Format of the colour targets `render` draws into.
    pub color_format: wgpu::TextureFormat,
    /// How indirect draws are issued (tiers B and C always use
    /// [`IndirectMode::Plain`]).
    pub indirect: IndirectMode,
    /// Run at most this tier even if the adapter supports a better one
    /// (`None`: the best available).
    pub tier: Option<Tier>,
}

impl Default for RendererConfig {
    fn default() -> Self {
        Self {
            capacities: Capacities::default(),
            color_format: wgpu::TextureFormat::Rgba8UnormSrgb,
            indirect: IndirectMode::Count,
            tier: None,
        }
    }
}

/// Why a frame could not be recorded. Nothing was recorded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The colour target's format is neither the configured one nor
    /// [`ID_TARGET_FORMAT`].
    #[error(
        "colour target is {actual:?}, renderer was built for {expected:?} (or {ID_TARGET_FORMAT:?} for id views)"
    )]
    ColorFormat {
        /// Configured format.
        expected: wgpu::TextureFormat,
        /// Given format.
        actual: wgpu::TextureFormat,
    },
    /// The depth target is not [`DEPTH_FORMAT`].
    #[error("depth target is {actual:?}, expected {DEPTH_FORMAT:?}")]
    DepthFormat {
        /// Given format.
        actual: wgpu::TextureFormat,
    },
    /// Colour and depth sizes differ.
    #[error("colour target is {color:?}, depth target is {depth:?}")]
    SizeMismatch {
        /// Colour size.
        color: (u32, u32),
        /// Depth size.
        depth: (u32, u32),
    },
    /// An id debug view needs a colour target of [`ID_TARGET_FORMAT`].
    #[error(
        "the {view:?} debug view writes ids: it needs a {ID_TARGET_FORMAT:?} colour target, not {actual:?}"
    )]
    IdViewTarget {
        /// The view.
        view: crate::debug::DebugView,
        /// Given format.
        actual: wgpu::TextureFormat,
    },
    /// The camera has non-finite or degenerate values.
    #[error("camera is not valid: {0:?}")]
    InvalidCamera(Box<Camera>),
}

/// Any unbound error.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Device contract.
    #[error(transparent)]
    Capability(#[from] CapabilityError),
    /// Textures and samplers.
    #[error(transparent)]
    Heap(#[from] HeapError),
    /// Meshes.
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    /// Materials.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// Objects.
    #[error(transparent)]
    Object(#[from] ObjectError),
    /// Frame recording.
    #[error(transparent)]
    Render(#[from] RenderError),
}

/// What one `render` call did, plus the newest GPU statistics that have come
/// back (from an earlier frame: they arrive without waiting).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// This frame's index (0 for the first).
    pub frame_index: u64,
    /// Commands recorded into the encoder (passes, copies, binds, dispatches, draws).
    pub commands_recorded: u32,
    /// `set_bind_group` calls.
    pub bind_groups_set: u32,
    /// Bind groups (re)built this frame.
    pub bind_group_rebuilds: u32,
    /// Bytes copied from the CPU this frame.
    pub bytes_uploaded: u64,
    /// Live objects.
    pub instances: u32,
    /// GPU statistics of the newest finished frame, if any has finished.
    pub gpu: Option<GpuFrameStats>,
}

impl fmt::Display for FrameStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3} ms"));
        write!(
            f,
            "frame {}: {} commands, {} bind groups set, {} rebuilt, {} bytes uploaded, {} instances",
            self.frame_index,
            self.commands_recorded,
            self.bind_groups_set,
            self.bind_group_rebuilds,
            self.bytes_uploaded,
            self.instances
        )?;
        match &self.gpu {
            Some(g) => write!(
                f,
                "; GPU (frame {}): {} visible, {} draws, {} triangles, cull {}, draw {}",
                g.frame_index,
                g.visible_instances,
                g.draws,
                g.triangles,
                ms(g.cull_ms),
                ms(g.draw_ms)
            ),
            None => write!(f, "; GPU: n/a (no frame finished yet)"),
        }
    }
}

/// Bytes of GPU memory unbound's buffers and textures hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Texture heap (estimate, mips included).
    pub textures_bytes: u64,
    /// Geometry arena and mesh table.
    pub geometry_bytes: u64,
    /// Object table, bounds and batch streams.
    pub objects_bytes: u64,
    /// Material table.
    pub materials_bytes: u64,
    /// Cull outputs, instance ids, readback ring.
    pub frame_bytes: u64,
}

impl MemoryStats {
    /// Everything.
    pub fn total_bytes(&self) -> u64 {
        self.textures_bytes
            + self.geometry_bytes
            + self.objects_bytes
            + self.materials_bytes
            + self.frame_bytes
    }
}

/// A GPU-driven, bindless renderer. See the crate docs.
#[derive(Debug)]
pub struct Renderer {
    device: wgpu::Device,
    support: AdapterSupport,
    tier: Tier,
    config: RendererConfig,
    heap: ResourceHeap,
    arena: GeometryArena,
    materials: MaterialTable,
    objects: ObjectTable,
    frame_uniforms: wgpu::Buffer,
    table_counts: wgpu::Buffer,
    cull: CullPass,
    draw: DrawPass,
    bounds: Option<BoundsPass>,
    readback: Readback,
    camera: Camera,
    debug: DebugOptions,
    lighting: Lighting,
    normal_maps: bool,
    last_uniforms: Option<GpuFrameUniforms>,
    last_counts: Option<GpuTableCounts>,
    frame_index: u64,
}

impl Renderer {
    /// Builds a renderer on a device created from `adapter` with at least
    /// unbound's requirements (see [`crate::request_device`]).
    pub fn new(
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        config: RendererConfig,
    ) -> Result<Self, Error> {
        let support = check_adapter(adapter, &config.capacities)?;
        let tier = support.choose(config.tier)?;
        check_device(device, &config.capacities, tier)?;
        let mut config = config;
        if !tier.has_indirect_count() {
            config.indirect = IndirectMode::Plain;
        }
        let c = &config.capacities;
        let mut heap = ResourceHeap::new(
            device,
            queue,
            c.textures_2d,
            c.textures_cube,
            c.samplers,
            !tier.has_binding_arrays(),
        );
        let materials = MaterialTable::new(device, &mut heap, c.materials);
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        Ok(Self {
            arena: GeometryArena::new(device, c.vertices, c.indices, c.meshes),
            objects: ObjectTable::new(device, c.objects),
            frame_uniforms: buffer(
                "unbound frame uniforms",
                size_of::<GpuFrameUniforms>() as u64,
                wgpu::BufferUsages::UNIFORM,
            ),
            table_counts: buffer(
                "unbound table counts",
                size_of::<GpuTableCounts>() as u64,
                wgpu::BufferUsages::STORAGE,
            ),
            cull: CullPass::new(device),
            draw: DrawPass::new(device, heap.layout(), config.color_format, tier),
            bounds: None,
            readback: Readback::new(device, queue),
            heap,
            materials,
            device: device.clone(),
            support,
            tier,
            config,
            camera: Camera::default(),
            debug: DebugOptions::default(),
            lighting: Lighting::default(),
            normal_maps: true,
            last_uniforms: None,
            last_counts: None,
            frame_index: 0,
        })
    }

    /// The adapter's description, its best tier and why better tiers were
    /// not possible.
    pub fn adapter_support(&self) -> &AdapterSupport {
        &self.support
    }

    /// The tier this renderer runs.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The configuration the renderer was built with.
    pub fn config(&self) -> &RendererConfig {
        &self.config
    }

    /// The resource heap (textures and samplers).
    pub fn heap(&self) -> &ResourceHeap {
        &self.heap
    }

    /// The geometry arena.
    pub fn arena(&self) -> &GeometryArena {
        &self.arena
    }

    /// The material table.
    pub fn materials(&self) -> &MaterialTable {
        &self.materials
    }

    /// The object table.
    pub fn objects(&self) -> &ObjectTable {
        &self.objects
    }

    /// Uploads a 2D texture into the heap.
    pub fn add_texture(&mut self, desc: &TextureDesc<'_>) -> Result<TextureHandle, Error> {
        Ok(self.heap.add_texture_2d(desc)?)
    }

    /// Uploads a block-compressed (BC) 2D texture into the heap as it is.
    pub fn add_compressed_texture(
        &mut self,
        desc: &CompressedTextureDesc<'_>,
    ) -> Result<TextureHandle, Error> {
        Ok(self.heap.add_compressed_texture_2d(desc)?)
    }

    /// Uploads a cube texture into the heap.
    pub fn add_cube_texture(
        &mut self,
        desc: &CubeTextureDesc<'_>,
    ) -> Result<CubeTextureHandle, Error> {
        Ok(self.heap.add_texture_cube(desc)?)
    }

    /// Frees a 2D texture (refused while a material uses it).
    pub fn remove_texture(&mut self, handle: TextureHandle) -> Result<(), Error> {
        Ok(self.heap.remove_texture_2d(handle)?)
    }

    /// Frees a cube texture.
    pub fn remove_cube_texture(&mut self, handle: CubeTextureHandle) -> Result<(), Error> {
        Ok(self.heap.remove_texture_cube(handle)?)
    }

    /// Adds (or shares) a sampler.
    pub fn add_sampler(&mut self, desc: &SamplerDesc) -> Result<SamplerHandle, Error> {
        Ok(self.heap.add_sampler(desc)?)
    }

    /// Frees a sampler (refused while a material uses it).
    pub fn remove_sampler(&mut self, handle: SamplerHandle) -> Result<(), Error> {
        Ok(self.heap.remove_sampler(handle)?)
    }

    /// Adds a mesh to the arena.
    pub fn add_mesh(&mut self, data: &MeshData<'_>) -> Result<MeshHandle, Error> {
        Ok(self.arena.add(data)?)
    }

    /// Frees a mesh (refused while objects use it).
    pub fn remove_mesh(&mut self, handle: MeshHandle) -> Result<(), Error> {
        Ok(self.arena.remove(handle)?)
    }

    /// Adds a material.
    pub fn add_material(&mut self, material: &Material) -> Result<MaterialHandle, Error> {
        Ok(self.materials.add(&mut self.heap, material)?)
    }

    /// Replaces a material.
    pub fn update_material(
        &mut self,
        handle: MaterialHandle,
        material: &Material,
    ) -> Result<(), Error> {
        let slot = self
            .materials
            .resolve(handle)
            .map_err(MaterialError::from)?;
        let before = self.materials.bucket_of(slot);
        self.materials.update(&mut self.heap, handle, material)?;
        let after = self.materials.bucket_of(slot);
        if after != before {
            // Alpha mode or sidedness changed: its objects move pipeline.
            self.objects.rebucket(slot, after);
        }
        Ok(())
    }

    /// Frees a material (refused while objects use it).
    pub fn remove_material(&mut self, handle: MaterialHandle) -> Result<(), Error> {
        Ok(self.materials.remove(&mut self.heap, handle)?)
    }

    /// Adds an object.
    pub fn add_object(&mut self, desc: &ObjectDesc) -> Result<ObjectHandle, Error> {
        Ok(self
            .objects
            .add(&mut self.arena, &mut self.materials, desc)?)
    }

    /// Moves an object.
    pub fn set_transform(
        &mut self,
        handle: ObjectHandle,
        world_from_object: glam::Mat4,
    ) -> Result<(), Error> {
        Ok(self
            .objects
            .set_transform(&self.arena, handle, world_from_object)?)
    }

    /// Changes an object's mesh, material and transform.
    pub fn update_object(&mut self, handle: ObjectHandle, desc: &ObjectDesc) -> Result<(), Error> {
        Ok(self
            .objects
            .update(&mut self.arena, &mut self.materials, handle, desc)?)
    }

    /// Removes an object.
    pub fn remove_object(&mut self, handle: ObjectHandle) -> Result<(), Error> {
        Ok(self
            .objects
            .remove(&mut self.arena, &mut self.materials, handle)?)
    }

    /// Sets the camera for the next frames.
    pub fn set_camera(&mut self, camera: &Camera) -> Result<(), Error> {
        if !camera.is_valid() {
            return Err(RenderError::InvalidCamera(Box::new(*camera)).into());
        }
        self.camera = *camera;
        Ok(())
    }

    /// The camera in use.
    pub fn camera(&self) -> &Camera {
        &self.camera
    }

    /// Sets the debug view and options for the next frames (see
    /// [`crate::debug`]). A frozen cull camera must be valid.
    pub fn set_debug(&mut self, options: &DebugOptions) -> Result<(), Error> {
        if let Some(camera) = &options.cull_camera
            && !camera.is_valid()
        {
            return Err(RenderError::InvalidCamera(Box::new(*camera)).into());
        }
        self.debug = *options;
        Ok(())
    }

    /// The debug settings in use.
    pub fn debug(&self) -> &DebugOptions {
        &self.debug
    }

    /// Sets the light and ambient term.
    pub fn set_lighting(&mut self, lighting: &Lighting) {
        self.lighting = *lighting;
    }

    /// Turns normal mapping on or off (for comparisons).
    pub fn set_normal_maps(&mut self, enabled: bool) {
        self.normal_maps = enabled;
    }

    /// GPU memory held by unbound.
    pub fn memory(&self) -> MemoryStats {
        MemoryStats {
            textures_bytes: self.heap.texture_bytes(),
            geometry_bytes: self.arena.size_bytes(),
            objects_bytes: self.objects.size_bytes(),
            materials_bytes: self.materials.size_bytes(),
            frame_bytes: self.cull.outputs().size_bytes()
                + self.draw.size_bytes()
                + self.readback.size_bytes(),
        }
    }

    /// GPU statistics of the newest frame that has finished, collecting any
    /// that arrived since the last call (never waits).
    pub fn latest_gpu_stats(&mut self) -> Option<GpuFrameStats> {
        self.readback.collect()
    }

    /// The visible-instance list the last recorded cull pass writes (object
    /// slots, grouped by mesh), for applications and tests that read it.
    pub fn visible_instances_buffer(&self) -> &wgpu::Buffer {
        &self.cull.outputs().visible_instances
    }

    /// The cull counters (a `GpuCullHeader` first).
    pub fn cull_counters_buffer(&self) -> &wgpu::Buffer {
        &self.cull.outputs().counters
    }

    /// The indirect draws buffer (`DrawIndexedIndirectArgs` per draw).
    pub fn indirect_draws_buffer(&self) -> &wgpu::Buffer {
        &self.cull.outputs().draws
    }

    /// Records one frame into `encoder`: upload, cull, draw, readback. No
    /// per-object CPU work happens here; GPU statistics come back later
    /// without blocking.
    pub fn render(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
    ) -> Result<FrameStats, Error> {
        self.check_target(target)?;
        let mut stats = self.begin_frame();
        self.upload(encoder, &mut stats);
        self.cull(encoder, &mut stats);
        self.draw(encoder, target, &mut stats);
        if self.debug.culled_bounds && !self.debug.view.is_id_view() {
            self.draw_bounds(encoder, target, &mut stats);
        }
        self.end_frame(encoder, &mut stats, true);
        Ok(stats)
    }

    /// Records upload and cull only, without drawing: the visible list and
    /// indirect draws are left in [`Self::visible_instances_buffer`] and
    /// [`Self::indirect_draws_buffer`] for applications that draw themselves,
    /// and for benchmarking the cull pass alone.
    pub fn render_cull_only(&mut self, encoder: &mut wgpu::CommandEncoder) -> FrameStats {
        let mut stats = self.begin_frame();
        self.upload(encoder, &mut stats);
        self.cull(encoder, &mut stats);
        self.end_frame(encoder, &mut stats, false);
        stats
    }

    /// Collects GPU statistics that have arrived (never waits).
    fn begin_frame(&mut self) -> FrameStats {
        let gpu = self.readback.collect();
        self.heap
            .set_frames(self.frame_index, self.readback.frames_finished());
        FrameStats {
            frame_index: self.frame_index,
            instances: self.objects.len(),
            gpu,
            ..Default::default()
        }
    }

    /// Queues this frame's counters and timestamps for readback.
    fn end_frame(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        stats: &mut FrameStats,
        drew: bool,
    ) {
        let counters = &self.cull.outputs().counters;
        stats.commands_recorded += self
            .readback
            .record(encoder, counters, self.frame_index, drew);
        self.frame_index += 1;
    }

    fn frame_flags(&self) -> u32 {
        let mut flags = 0;
        if self.normal_maps {
            flags |= FRAME_FLAG_NORMAL_MAPS;
        }
        if self.config.indirect == IndirectMode::Plain {
            flags |= FRAME_FLAG_UNCOMPACTED_DRAWS;
        }
        if self.debug.highlight_missing {
            flags |= FRAME_FLAG_HIGHLIGHT_MISSING;
        }
        for (bucket, &objects) in self.objects.bucket_counts().iter().enumerate() {
            if objects > 0 {
                flags |= 1 << (FRAME_FLAG_BUCKET_SHIFT + bucket as u32);
            }
        }
        flags
    }

    fn check_target(&self, target: &FrameTarget<'_>) -> Result<(), RenderError> {
        let color = target.color.texture();
        let depth = target.depth.texture();
        if color.format() != self.config.color_format && color.format() != ID_TARGET_FORMAT {
            return Err(RenderError::ColorFormat {
                expected: self.config.color_format,
                actual: color.format(),
            });
        }
        if self.debug.view.is_id_view() && color.format() != ID_TARGET_FORMAT {
            return Err(RenderError::IdViewTarget {
                view: self.debug.view,
                actual: color.format(),
            });
        }
        if depth.format() != DEPTH_FORMAT {
            return Err(RenderError::DepthFormat {
                actual: depth.format(),
            });
        }
        let (c, d) = (
            (color.width(), color.height()),
            (depth.width(), depth.height()),
        );
        if c != d {
            return Err(RenderError::SizeMismatch { color: c, depth: d });
        }
        Ok(())
    }

    /// CPU tables -> GPU tables: only what changed since the last frame.
    fn upload(&mut self, encoder: &mut wgpu::CommandEncoder, stats: &mut FrameStats) {
        let mut batch = UploadBatch::default();
        stats.commands_recorded += self.arena.flush(&self.device, encoder, &mut batch);
        self.materials.flush(&self.device, &mut batch);
        self.heap.flush(&self.device, &mut batch);
        self.objects.flush(&self.device, &mut batch);

        let heap = self.heap.counts();
        let counts = GpuTableCounts {
            textures_2d: heap.textures_2d,
            textures_cube: heap.textures_cube,
            samplers: heap.samplers,
            materials: self.materials.slots_in_use(),
            meshes: self.arena.mesh_slots(),
            objects: self.objects.slots_in_use(),
            vertices: self.arena.vertex_capacity(),
            _pad: 0,
        };
        if self.last_counts != Some(counts) {
            batch.write(&self.table_counts, 0, bytemuck::bytes_of(&counts));
            self.last_counts = Some(counts);
        }
        let mut uniforms = GpuFrameUniforms::new(
            &self.camera,
            &self.lighting,
            counts.objects,
            counts.meshes,
            self.frame_flags(),
        );
        uniforms.debug_view = self.debug.view as u32;
        if let Some(cull_camera) = &self.debug.cull_camera {
            uniforms.frustum_planes =
                crate::camera::frustum_planes(&cull_camera.clip_from_world()).map(|p| p.to_array());
        }
        if self.last_uniforms != Some(uniforms) {
            batch.write(&self.frame_uniforms, 0, bytemuck::bytes_of(&uniforms));
            self.last_uniforms = Some(uniforms);
        }
        let (bytes, commands) = batch.record(&self.device, encoder);
        stats.bytes_uploaded += bytes;
        stats.commands_recorded += commands;

        let instance_capacity = self.objects.gpu_capacity();
        self.cull
            .ensure_capacity(&self.device, self.arena.mesh_buffer(), instance_capacity);
        self.draw.ensure_capacity(&self.device, instance_capacity);
    }

    /// GPU: frustum culling, visible list, indirect draws.
    fn cull(&mut self, encoder: &mut wgpu::CommandEncoder, stats: &mut FrameStats) {
        let inputs = CullInputs {
            frame: &self.frame_uniforms,
            counts: &self.table_counts,
            bounds: self.objects.bounds_buffer(),
            batch: self.objects.batch_buffer(),
            meshes: self.arena.mesh_buffer(),
            instance_count: self.objects.slots_in_use(),
            blended_objects: self.objects.bucket_counts()[BUCKET_BLEND as usize] > 0,
            version: [self.objects.version(), self.arena.version(), 0, 0],
        };
        let (commands, binds, rebuilds) = self.cull.record(
            &self.device,
            encoder,
            &inputs,
            self.readback.cull_timestamps(),
        );
        stats.commands_recorded += commands;
        stats.bind_groups_set += binds;
        stats.bind_group_rebuilds += rebuilds;
    }

    /// GPU: one indirect multi-draw with vertex pulling and bindless shading.
    fn draw(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
        stats: &mut FrameStats,
    ) {
        let (heap_group, heap_rebuilt) = self.heap.bind_group();
        let outputs = self.cull.outputs();
        let inputs = DrawInputs {
            heap: heap_group,
            frame: &self.frame_uniforms,
            counts: &self.table_counts,
            vertices: self.arena.vertex_buffer(),
            objects: self.objects.object_buffer(),
            materials: self.materials.buffer(),
            visible_instances: &outputs.visible_instances,
            draws: &outputs.draws,
            cull_counters: &outputs.counters,
            version: [
                self.arena.version(),
                self.objects.version(),
                self.materials.version(),
                self.cull.outputs_version(),
            ],
        };
        let draws = IndirectDraws {
            draws: &outputs.draws,
            count: &outputs.counters,
            max_count: self.arena.mesh_slots().min(outputs.mesh_capacity),
            region: outputs.mesh_capacity,
            bucket_objects: self.objects.bucket_counts(),
            index_buffer: self.arena.index_buffer(),
            count_in_buffer: self.config.indirect == IndirectMode::Count,
        };
        // Id views clear to "nothing drawn" (id bytes 0), whatever the
        // application's clear colour.
        let id_target = FrameTarget {
            clear_color: target.clear_color.map(|_| wgpu::Color::TRANSPARENT),
            ..*target
        };
        let target = if self.debug.view.is_id_view() {
            &id_target
        } else {
            target
        };
        let (commands, binds, rebuilds) = self.draw.record(
            &self.device,
            encoder,
            target,
            &inputs,
            &draws,
            self.readback.draw_timestamps(),
        );
        stats.commands_recorded += commands;
        stats.bind_groups_set += binds;
        stats.bind_group_rebuilds += rebuilds + u32::from(heap_rebuilt);
    }

    /// Debug: object bounding boxes over the frame, culled ones red.
    fn draw_bounds(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
        stats: &mut FrameStats,
    ) {
        let bounds = self
            .bounds
            .get_or_insert_with(|| BoundsPass::new(&self.device));
        let inputs = BoundsInputs {
            frame: &self.frame_uniforms,
            bounds: self.objects.bounds_buffer(),
            batch: self.objects.batch_buffer(),
            instance_count: self.objects.slots_in_use(),
            version: self.objects.version(),
        };
        let (commands, binds, rebuilds) =
            bounds.record(&self.device, encoder, target.color, &inputs);
        stats.commands_recorded += commands;
        stats.bind_groups_set += binds;
        stats.bind_group_rebuilds += rebuilds;
    }
}
