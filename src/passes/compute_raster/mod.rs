//! The visibility buffer's compute rasteriser (issue 29, stage 2;
//! `wgsl/compute_raster.wgsl`), chosen by [`crate::ComputeRaster`]: small
//! instances' triangles are rasterised by compute threads into packed
//! 64-bit depth-and-id values with a 64-bit atomic max, then resolved into
//! the visibility pass's id target and depth. Small triangles waste the
//! hardware rasteriser's quads and setup; a compute thread per triangle
//! does not.
//!
//! **Who takes what: the cull pass.** An instance the compute rasteriser
//! takes must cost the hardware visibility pass nothing: neither an
//! instance in its indirect draws nor a vertex. Marking visible-list
//! entries after the cull (the first version) left them in the draws, and
//! `vs_visibility` ran and clipped all their vertices, so the compute path
//! was slower than hardware at every size on the H200. So the decision
//! moved into the cull pass (`wgsl/cull_raster.wgsl`), before the draws
//! exist: for the camera's view only, in every phase, while the frame
//! uniforms' `raster` threshold is above 0 (the visibility buffer with a
//! compute rasteriser runs this frame: `item_budget`, `target_bytes`),
//! an instance of the opaque or double-sided bucket, whose material is not
//! alpha-masked (the batch stream's [`crate::gpu_types::BATCH_MASKED`]
//! bit: the alpha test needs textures and derivatives), whose bounding
//! sphere's box lies wholly in front of the near plane (the compute
//! rasteriser does not clip) and inside a guard band of 4× the viewport,
//! and spans fewer than the threshold's pixels
//! ([`crate::RendererConfig::raster_threshold`]) reserves its raster items
//! (an atomic on the cull header's `raster_items`, up to the frame's item
//! budget; past it the instance stays hardware) and is listed from the end
//! of the camera's visible list down (`raster_instances` long) instead of
//! being counted into its draw key. Each instance is either in a draw or in
//! that list, so both fit the one region. Shadow views, forward rendering
//! and every renderer without the compute rasteriser see a threshold of 0
//! and nothing changes for them. The alternatives cost more: a compaction
//! of the draws' instance ranges after a classify pass is a second pass
//! over every visible instance and a copy of the list.
//!
//! **Where it runs.** Inside the visibility pass's recording
//! (`src/passes/prepass.rs`), in each phase that has one (the first, and
//! with occlusion culling the late one, over its own cull outputs): one
//! compute pass (reset, classify, on the texture path its clear, raster;
//! wgpu orders each dispatch after the last) before the hardware visibility
//! render pass, then one full-screen draw at the end of that render pass.
//! 1. *Classify* (one thread per listed instance, strided over at most
//!    65535 workgroups): the instance's drawn mesh (its LOD level's, chosen by
//!    `wgsl/lod.wgsl` from the same inputs as the cull) has its index range
//!    cut into items of up to [`crate::gpu_types::ITEM_TRIANGLES`]
//!    triangles (object slot, first arena triangle, count, double-sided).
//!    Room for them was reserved by the cull pass, so every listed
//!    instance is drawn.
//! 2. *Raster* (one workgroup of 32 threads per two items, strided over at most 65535
//!    workgroups through an indirect dispatch; one thread per triangle):
//!    the corners are pulled as the vertex stage pulls them (morphed and
//!    skinned), transformed by the same matrices, back faces culled unless
//!    double-sided (counter-clockwise in NDC is front, as wgpu's default),
//!    snapped to 1/256 pixel; every pixel centre in the box is tested with
//!    integer edge functions (exact: 32-bit relative to the box's corner
//!    for boxes under 64 pixels, 64-bit otherwise; evaluated once at the
//!    box's first centre and stepped by additions, since 64-bit products
//!    are slow on GPUs) under the **top-left fill rule** (a
//!    centre exactly on an edge is covered only by a top edge, horizontal
//!    with the triangle below it, or a left edge, the triangle to its
//!    right): a centre on an edge shared by two triangles is covered
//!    exactly once. Depth is interpolated linearly in screen space from
//!    the corners' NDC depth, as the hardware does. The value kept per
//!    pixel is the atomic max of `(!depth_bits) << 32 | !id` with
//!    `id = item << 4 | triangle in item`: 0 is empty (a plain buffer
//!    clear), the nearest depth wins (depth compares `Less`, and
//!    non-negative floats order as their bits), equal depths go to the
//!    smallest id: deterministic whatever order the threads run in.
//! 3. *Resolve* (a full-screen triangle, last in the visibility render
//!    pass, depth test `Less` with depth writes, `@builtin(frag_depth)`):
//!    each pixel with a value writes its id in the visibility pass's form
//!    (object slot + 1, the item's first arena triangle + the triangle in
//!    the item; the late bit in the late phase) and its depth, where it is
//!    nearer than the hardware raster's.
//!
//! **Depth contract.** After the visibility render pass the depth target
//! holds the nearest of both rasterisers at every pixel, and the id target
//! its id: the material pass, the blended objects drawn forward on top,
//! the depth pyramid and the late cull, exposure and the bounds view read
//! them unchanged. Depths of compute-rasterised pixels are the screen-space
//! interpolation of the corners' depths in `f32`, equal to the hardware's
//! within rounding.
//!
//! **Paths.** [`crate::ComputeRaster::Buffer`]: a storage buffer of
//! `atomic<u64>` (`SHADER_INT64_ATOMIC_MIN_MAX`, result unused), cleared by
//! `clear_buffer`, read by the resolve as `vec2<u32>`.
//! [`crate::ComputeRaster::Texture`]: an `R64Uint` storage texture
//! (`textureAtomicMax`), cleared by a compute dispatch (an atomic min with
//! 0: `R64Uint` cannot be a render attachment), read by the resolve as a
//! read-only storage texture.
//!
//! **Timing.** The compute pass opens the visibility
//! pass's timestamp range and the render pass closes it: the `Prepass`
//! (and `LatePrepass`) pass times include the compute rasteriser.
//!
//! **Sizes.** Items: twice the camera's visible-list entries (at least
//! 4096, at most what one binding holds and 2^27, the id's item bits); the
//! cull pass reserves at most twice the object slots (`sizes.rs`). The target: 8
//! bytes a pixel; a target larger than one binding allows runs without
//! the compute rasteriser.

mod path;
mod sizes;

pub use path::{BUFFER_RASTER_FEATURES, ComputeRaster, TEXTURE_RASTER_FEATURES};
use sizes::{ITEM_BYTES, items_wanted};
pub(crate) use sizes::{item_budget, target_bytes};
use wgpu::util::DeviceExt;

use crate::gpu_types::GpuRasterParams;
use crate::output::DEPTH_FORMAT;
use crate::passes::scene::SceneInputs;
use crate::passes::visibility::VISIBILITY_FORMAT;
use crate::passes::{PassStats, buffer_entry, layout_entry, storage};
use crate::shaders::{COMPUTE_RASTER_BUFFER, COMPUTE_RASTER_TEXTURE};

/// Most workgroups per dimension a dispatch may have (WebGPU's default).
const MAX_GROUPS: u32 = 65535;

/// Bindings (see `wgsl/compute_raster.wgsl`) of the classify group (reset
/// and classify): uniform or storage, read-only or not.
const CLASSIFY_BINDINGS: [(u32, Binding); 10] = [
    (0, Binding::Uniform),
    (1, Binding::Uniform),
    (4, Binding::Read),
    (5, Binding::Read),
    (6, Binding::Read),
    (7, Binding::Read),
    (8, Binding::Read),
    (9, Binding::Read),
    (10, Binding::Write),
    (12, Binding::Write),
];

/// The raster group's buffers (clear and raster; the target at 16 besides).
const RASTER_BINDINGS: [(u32, Binding); 9] = [
    (0, Binding::Uniform),
    (1, Binding::Uniform),
    (2, Binding::Read),
    (3, Binding::Read),
    (4, Binding::Read),
    (11, Binding::Read),
    (13, Binding::Read),
    (14, Binding::Read),
    (15, Binding::Read),
];

#[derive(Clone, Copy, Debug)]
enum Binding {
    Uniform,
    Read,
    Write,
}

impl Binding {
    fn ty(self) -> wgpu::BufferBindingType {
        match self {
            Self::Uniform => wgpu::BufferBindingType::Uniform,
            Self::Read => storage(true),
            Self::Write => storage(false),
        }
    }
}

/// Where the packed values live.
#[derive(Debug)]
enum RasterTarget {
    Buffer(wgpu::Buffer),
    Texture(wgpu::TextureView),
}

/// The compute rasteriser's pipelines and buffers (see the module docs).
#[derive(Debug)]
pub(crate) struct ComputeRasterPass {
    texture: bool,
    layouts: [wgpu::BindGroupLayout; 3],
    reset: wgpu::ComputePipeline,
    classify: wgpu::ComputePipeline,
    clear: Option<wgpu::ComputePipeline>,
    raster: wgpu::ComputePipeline,
    /// First phase, late phase.
    resolve: [wgpu::RenderPipeline; 2],
    /// The raster dispatch's arguments (words 0-2) and the item count.
    counter: wgpu::Buffer,
    items: Option<wgpu::Buffer>,
    params: Option<(GpuRasterParams, wgpu::Buffer)>,
    target: Option<((u32, u32), RasterTarget)>,
    /// The resolve's group of the last recorded phase.
    resolve_group: Option<wgpu::BindGroup>,
}

impl ComputeRasterPass {
    /// The pass of `path` ([`ComputeRaster::Buffer`] or
    /// [`ComputeRaster::Texture`], as [`ComputeRaster::on`] chose it).
    pub fn new(device: &wgpu::Device, path: ComputeRaster) -> Self {
        let texture = path == ComputeRaster::Texture;
        let variant = if texture {
            COMPUTE_RASTER_TEXTURE
        } else {
            COMPUTE_RASTER_BUFFER
        };
        let module = variant.create(device);
        let compute = wgpu::ShaderStages::COMPUTE;
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let entries = |bindings: &[(u32, Binding)], stages| {
            bindings
                .iter()
                .map(|&(binding, kind)| buffer_entry(binding, stages, kind.ty()))
                .collect::<Vec<_>>()
        };
        let target_entry = |binding, stages, access| {
            if texture {
                let ty = wgpu::BindingType::StorageTexture {
                    access,
                    format: wgpu::TextureFormat::R64Uint,
                    view_dimension: wgpu::TextureViewDimension::D2,
                };
                layout_entry(binding, stages, ty)
            } else {
                let read_only = access == wgpu::StorageTextureAccess::ReadOnly;
                buffer_entry(binding, stages, storage(read_only))
            }
        };
        let classify_entries = entries(&CLASSIFY_BINDINGS, compute);
        let mut raster_entries = entries(&RASTER_BINDINGS, compute);
        raster_entries.push(target_entry(
            16,
            compute,
            wgpu::StorageTextureAccess::Atomic,
        ));
        let mut resolve_entries = entries(&[(0, Binding::Uniform), (11, Binding::Read)], fragment);
        resolve_entries.push(target_entry(
            17,
            fragment,
            wgpu::StorageTextureAccess::ReadOnly,
        ));
        let layouts = [
            ("classify", classify_entries),
            ("raster", raster_entries),
            ("resolve", resolve_entries),
        ]
        .map(|(name, entries)| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&format!("unbound compute raster {name}")),
                entries: &entries,
            })
        });
        let pipeline_layout = |layout| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("unbound compute raster"),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            })
        };
        let [classify_layout, raster_layout, resolve_layout] =
            [&layouts[0], &layouts[1], &layouts[2]].map(pipeline_layout);
        let compute_pipeline = |layout: &wgpu::PipelineLayout, entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&format!("unbound compute raster {entry}")),
                layout: Some(layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let resolve = resolve_pipelines(device, &module, &resolve_layout);
        let counter = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("unbound compute raster counter"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
            mapped_at_creation: false,
        });
        Self {
            texture,
            reset: compute_pipeline(&classify_layout, "reset"),
            classify: compute_pipeline(&classify_layout, "classify"),
            clear: texture.then(|| compute_pipeline(&raster_layout, "clear")),
            raster: compute_pipeline(&raster_layout, "raster"),
            layouts,
            resolve,
            counter,
            items: None,
            params: None,
            target: None,
            resolve_group: None,
        }
    }

    /// Which path this pass runs.
    pub fn path(&self) -> ComputeRaster {
        if self.texture {
            ComputeRaster::Texture
        } else {
            ComputeRaster::Buffer
        }
    }

    /// The buffer path's values of the last frame (tests read them back).
    pub fn target_buffer(&self) -> Option<&wgpu::Buffer> {
        match &self.target {
            Some((_, RasterTarget::Buffer(buffer))) => Some(buffer),
            _ => None,
        }
    }

    pub fn size_bytes(&self) -> u64 {
        let items = self.items.as_ref().map_or(0, wgpu::Buffer::size);
        let target = self
            .target
            .as_ref()
            .map_or(0, |((w, h), _)| u64::from(*w) * u64::from(*h) * 8);
        items + target
    }

    /// Makes the target for `size` (again when it changed); false where one
    /// binding cannot hold it.
    fn prepare_target(&mut self, device: &wgpu::Device, size: (u32, u32)) -> bool {
        let Some(bytes) = target_bytes(device, size) else {
            return false;
        };
        if self.target.as_ref().is_some_and(|(s, _)| *s == size) {
            return true;
        }
        let target = if self.texture {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("unbound compute raster target"),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::R64Uint,
                usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::STORAGE_ATOMIC,
                view_formats: &[],
            });
            RasterTarget::Texture(texture.create_view(&Default::default()))
        } else {
            RasterTarget::Buffer(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound compute raster target"),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }))
        };
        self.target = Some((size, target));
        true
    }

    /// Makes the item buffer hold `items` (grown only) and the parameters
    /// for this frame.
    fn prepare_items(&mut self, device: &wgpu::Device, size: (u32, u32), entries: u64) {
        let wanted = items_wanted(device, entries);
        if self
            .items
            .as_ref()
            .is_none_or(|b| b.size() / ITEM_BYTES < wanted)
        {
            self.items = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound compute raster items"),
                size: wanted * ITEM_BYTES,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }));
        }
        let capacity = self.items.as_ref().map_or(0, |b| b.size() / ITEM_BYTES) as u32;
        let params = GpuRasterParams {
            size: [size.0, size.1],
            capacity,
            _pad: 0,
        };
        if self.params.as_ref().is_none_or(|(p, _)| *p != params) {
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unbound compute raster parameters"),
                contents: bytemuck::bytes_of(&params),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            self.params = Some((params, buffer));
        }
    }

    /// Records classify and raster for the camera's view `scene` into a
    /// target of `size`, opening the visibility pass's timestamp range
    /// (`timestamps`: the query set and its beginning index); returns
    /// whether it ran (the resolve is then recorded by
    /// [`Self::record_resolve`]).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        scene: &SceneInputs<'_>,
        size: (u32, u32),
        timestamps: Option<(&wgpu::QuerySet, Option<u32>)>,
    ) -> (PassStats, bool) {
        self.resolve_group = None;
        if !self.prepare_target(device, size) {
            return (PassStats::default(), false);
        }
        let visible = &scene.culled.visible_instances;
        let visible_bytes = visible
            .size
            .map_or(visible.buffer.size() - visible.offset, |s| s.get());
        let entries = visible_bytes / 4;
        self.prepare_items(device, size, entries);
        let (Some((_, params)), Some(items), Some((_, target))) =
            (&self.params, &self.items, &self.target)
        else {
            return (PassStats::default(), false);
        };
        let tables = scene.tables;
        let group = |layout, entries: &[(u32, wgpu::BindingResource<'_>)]| {
            bind_group(device, layout, entries)
        };
        let target_resource = |binding| match target {
            RasterTarget::Buffer(buffer) => (binding, whole(buffer)),
            RasterTarget::Texture(view) => (binding, wgpu::BindingResource::TextureView(view)),
        };
        let classify = group(
            &self.layouts[0],
            &[
                (0, whole(params)),
                (1, whole(&scene.view.uniforms)),
                (4, whole(tables.objects)),
                (5, whole(tables.materials)),
                (6, range(visible)),
                (7, whole(tables.meshes)),
                (8, range(&scene.culled.counters)),
                (9, whole(tables.bounds)),
                (10, whole(items)),
                (12, whole(&self.counter)),
            ],
        );
        let raster = group(
            &self.layouts[1],
            &[
                (0, whole(params)),
                (1, whole(&scene.view.uniforms)),
                (2, whole(tables.counts)),
                (3, whole(tables.vertices)),
                (4, whole(tables.objects)),
                (11, whole(items)),
                (13, whole(&self.counter)),
                (14, whole(tables.deform)),
                (15, whole(tables.indices)),
                target_resource(16),
            ],
        );
        let resolve = group(
            &self.layouts[2],
            &[(0, whole(params)), (11, whole(items)), target_resource(17)],
        );
        let mut stats = PassStats {
            commands_recorded: 0,
            bind_groups_set: 0,
            bind_group_rebuilds: 3,
        };
        if let RasterTarget::Buffer(buffer) = target {
            encoder.clear_buffer(buffer, 0, None);
            stats.commands_recorded += 1;
        }
        {
            let timestamp_writes =
                timestamps.map(|(query_set, beginning)| wgpu::ComputePassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: beginning,
                    end_of_pass_write_index: None,
                });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("unbound compute raster"),
                timestamp_writes,
            });
            pass.set_bind_group(0, &classify, &[]);
            pass.set_pipeline(&self.reset);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&self.classify);
            let groups = entries.div_ceil(256).min(u64::from(MAX_GROUPS)) as u32;
            pass.dispatch_workgroups(groups, 1, 1);
            // One pass for all four dispatches (wgpu orders each after the
            // last): a pass less per phase.
            pass.set_bind_group(0, &raster, &[]);
            if let Some(clear) = &self.clear {
                pass.set_pipeline(clear);
                pass.dispatch_workgroups(size.0.div_ceil(8), size.1.div_ceil(8), 1);
                stats.commands_recorded += 2;
            }
            pass.set_pipeline(&self.raster);
            pass.dispatch_workgroups_indirect(&self.counter, 0);
        }
        // pass, 2 binds, 3 x (pipeline + dispatch)
        stats.commands_recorded += 9;
        stats.bind_groups_set += 2;
        self.resolve_group = Some(resolve);
        (stats, true)
    }

    /// Records the resolve into the visibility render pass `pass` (its
    /// last draw: it sets its own group 0), for the late occlusion phase
    /// where `late`; nothing where [`Self::record`] did not run.
    pub fn record_resolve(&self, pass: &mut wgpu::RenderPass<'_>, late: bool) -> PassStats {
        let Some(group) = &self.resolve_group else {
            return PassStats::default();
        };
        pass.set_pipeline(&self.resolve[usize::from(late)]);
        pass.set_bind_group(0, group, &[]);
        pass.draw(0..3, 0..1);
        PassStats {
            commands_recorded: 3,
            bind_groups_set: 1,
            bind_group_rebuilds: 0,
        }
    }
}

/// A whole buffer as a binding.
fn whole(buffer: &wgpu::Buffer) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(buffer.as_entire_buffer_binding())
}

/// A buffer range as a binding.
fn range<'a>(binding: &wgpu::BufferBinding<'a>) -> wgpu::BindingResource<'a> {
    wgpu::BindingResource::Buffer(binding.clone())
}

/// A bind group of `layout` over `entries` (binding, resource).
fn bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    entries: &[(u32, wgpu::BindingResource<'_>)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
        .iter()
        .map(|(binding, resource)| wgpu::BindGroupEntry {
            binding: *binding,
            resource: resource.clone(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("unbound compute raster"),
        layout,
        entries: &entries,
    })
}

/// The resolve's pipelines (early and late phase): a full-screen triangle
/// writing the compute raster's nearer pixels into the id target and depth.
fn resolve_pipelines(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::PipelineLayout,
) -> [wgpu::RenderPipeline; 2] {
    ["fs_resolve", "fs_resolve_late"].map(|entry| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("unbound compute raster resolve"),
            layout: Some(layout),
            vertex: wgpu::VertexState {
                module,
                entry_point: Some("vs_resolve"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                targets: &[Some(VISIBILITY_FORMAT.into())],
            }),
            primitive: Default::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        })
    })
}
