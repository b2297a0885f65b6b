//! The visibility buffer (issue 29, first slice: hardware raster;
//! `wgsl/visibility.wgsl`), chosen by [`crate::Geometry::Visibility`]:
//! the camera's opaque and alpha-masked surfaces are rasterized once into
//! depth plus an id per pixel, then shaded once per pixel by a material
//! pass (a compute pass by default) that reaches vertices, materials and
//! textures through the tables alone.
//!
//! **Where it runs.** It takes the depth pre-pass's place in the frame
//! (`src/passes/prepass.rs`): the visibility pass is the pre-pass with an
//! id target, and the draw pass, handed the ids, replaces its opaque and
//! double-sided buckets with the material pass; the blended bucket is then
//! drawn forward as before, sorted. With occlusion culling both phases
//! have a visibility pass: the late one loads the ids and depth and marks
//! its ids (`VISIBILITY_LATE`). The compute material pass (the default)
//! then runs once, in the late phase's draw pass, over every id (the
//! early phase's draw pass only clears the HDR target: nothing between
//! the phases reads it, the depth pyramid reads depth); the fragment
//! material pass runs in both phases' draw passes, the late one shading
//! only the late ids.
//!
//! **Depth contract.** The visibility pass's depth *is* the scene's depth:
//! it draws the forward draws (the same culled indirect draws, instance
//! ids and index buffer) through the same `@invariant` vertex code
//! (`pulled_surface` in `wgsl/draw.wgsl`), with the same depth test, so
//! the depth target holds exactly what forward shading leaves. The
//! blended objects drawn forward on top, the depth pyramid, automatic
//! exposure and the bounds view read it unchanged. With the compute
//! rasteriser ([`crate::ComputeRaster`], `src/passes/compute_raster/`)
//! the small instances are rasterised by compute instead (the cull pass
//! leaves them out of the draws: `wgsl/cull_raster.wgsl`) and
//! a resolve draw at the end of the visibility render pass writes their
//! ids and depths through the same depth test: the contract holds for the
//! targets as that render pass leaves them.
//!
//! **Id** ([`VISIBILITY_FORMAT`], `Rg32Uint`, 0 where nothing was drawn):
//! x the object slot + 1, y the triangle's position in the arena's index
//! buffer (first index / 3; bit 31 [`crate::gpu_types::VISIBILITY_LATE`],
//! bit 30 [`crate::gpu_types::VISIBILITY_COMPUTE`], both masked off by
//! [`crate::gpu_types::VISIBILITY_TRIANGLE_MASK`]). The vertex stage
//! finds its draw's first index (`find_draw`, a binary search per bucket
//! over the camera's draws by `first_instance`, the DX12-safe draw
//! identity) and the fragment adds `@builtin(primitive_index)`, which
//! counts from 0 in every draw. 8 bytes a pixel, 8 MiB at 1024², written
//! once by the visibility pass and read once by the material pass. It
//! covers any number of instances of any mesh (object slots to 2³² - 2,
//! index buffers to 2³¹ triangles). The compute rasteriser packs depth
//! and a 32-bit id (raster item, triangle in item) into 64 bits and its
//! resolve converts them back to this form, so the material pass reads
//! one format.
//!
//! **Material pass** (by default [`MaterialPass::Compute`]: `cs_material`,
//! one thread per pixel, 8×8 workgroups, `textureStore` into the HDR
//! target, which is then made with storage usage): the draw pass ends
//! after its clear (or, in the late phase, its load), the compute pass
//! shades, and a second render pass, loading colour and depth, draws the
//! blended bucket (its timestamps split across the two). On a GPU with
//! few graphics units beside many compute units (the H200: 0.28 ms
//! against 2.89 ms at 1024², `docs/PERFORMANCE.md`) the fragment pass's
//! shading is throttled where compute's is not. [`MaterialPass::Fragment`]
//! runs the same shading as a full-screen fragment pass inside the draw
//! pass, writing the HDR target the blended draws then blend into; it is
//! the fallback where the HDR target cannot be a storage texture (see
//! [`MaterialPass`]), and selectable (the tests compare the two). Nothing the
//! compute entry reaches takes implicit derivatives (the reconstruction
//! supplies them; naga refuses the module otherwise, `tests/shaders.rs`),
//! and the cluster lookup reads the reconstructed pixel position. Per
//! pixel with an id it fetches the triangle's three
//! indices and vertices, pulls them as the vertex stage does (morphed and
//! skinned: animated instances go through the visibility buffer too),
//! computes perspective-correct barycentrics from the pixel's ray
//! (analytically, from the clip-space corners, exact for corners behind
//! the eye), and the UV derivatives from the ray of its neighbour across
//! its 2x2 quad (the raster's fine differences), then samples and shades
//! through `sample_surface` (`wgsl/shade.wgsl`) and `shade_surface`
//! (`wgsl/surface.wgsl`), the draw pass's very functions: the same BRDF,
//! lights, clusters, shadows and image-based light. The reconstruction
//! keeps few values live, for the shading's sake (its registers set the
//! pass's occupancy): it reads the object record and builds a rigid
//! object's normal matrix once per pixel (a skinned corner has its own),
//! places the three clip-space corners first, takes the barycentrics of
//! the pixel's ray and its quad neighbour's from one plane (affine in the
//! ray's screen position), then transforms each corner's attributes and
//! weights them into the interpolated surface one corner at a time.
//!
//! **Debug views** (`src/debug.rs`): the material pass's `DEBUG_VIEWS`
//! variant (built, as the draw pass's, on the first frame of a view other
//! than lit or of the missing-texture highlight) ends in the draw pass's
//! own last step (`debug_color` in `wgsl/draw.wgsl`) on the reconstructed
//! surface: the object slot comes from the id, the LOD level from the mesh
//! entry whose index range holds the triangle (hence the mesh table, 11,
//! in the material pass's group), and the raster view's rasteriser from
//! the id's [`crate::gpu_types::VISIBILITY_COMPUTE`] bit.
//!
//! **Where it applies** ([`crate::Renderer::geometry`] says which runs):
//! tier A with `Features::PRIMITIVE_INDEX` (lavapipe and the H200 have it)
//! and 9 storage buffers in the fragment stage
//! ([`crate::capabilities::VISIBILITY_STORAGE_BUFFERS_PER_STAGE`],
//! requested where the adapter allows); at 1× MSAA; every drawn view but
//! the draw view, without ray-query shadows. Everywhere else the frame
//! draws forward: tiers B and C, 4× MSAA (the id target has one sample per
//! pixel), the draw view (the id does not name the draw), ray-query
//! shadows and the traced views, and while cluster culling is on: a
//! cluster draw shares its instance's `first_instance`, so the vertex
//! stage could not find its first index, and drawing whole meshes instead
//! (as an earlier version did, suspending cluster culling) loses the
//! cluster LOD cut: the dense scene's frame went from 12.9 ms forward to
//! 944 ms on the H200.

use crate::output::DEPTH_FORMAT;
use crate::passes::inputs::FrameInputs;
use crate::passes::scene::{INSTANCE_ID_LAYOUT, SceneInputs};
use crate::passes::{PassStats, buffer_entry, layout_entry, storage, texture_binding};

/// How the visibility buffer's material pass shades its ids
/// (`src/passes/visibility.rs`). The image is the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MaterialPass {
    /// A full-screen fragment pass inside the draw pass; with occlusion
    /// culling one per phase, the late one shading the late ids. The
    /// fallback where compute cannot run.
    Fragment,
    /// The default: one compute pass a frame, one thread per pixel,
    /// storing into the HDR target between the draw pass's clear (with
    /// occlusion culling: the late phase's load) and its blended draws.
    /// Fragment work runs on few units of a compute-heavy GPU (the H200),
    /// compute on all: 0.28 ms against the fragment pass's 2.89 ms there.
    /// Falls back to [`Self::Fragment`] where the visibility buffer
    /// cannot run (4× MSAA: a storage texture has one sample; tiers B and
    /// C) and where the adapter cannot store into the HDR format;
    /// [`crate::Renderer::material_pass`] says which runs.
    #[default]
    Compute,
}

/// The id target's format (see the module docs).
pub const VISIBILITY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;

/// The id target, made the size of the frame's colour target.
#[derive(Debug, Default)]
pub(crate) struct IdTarget {
    view: Option<(wgpu::Texture, wgpu::TextureView)>,
    /// Counts the textures made (the material pass's bind group key).
    generation: u64,
}

impl IdTarget {
    /// The target for a frame of `size`, made again when the size changed.
    pub fn prepare(&mut self, device: &wgpu::Device, size: (u32, u32)) -> &wgpu::TextureView {
        let fits = self
            .view
            .as_ref()
            .is_some_and(|(t, _)| (t.width(), t.height()) == size);
        if !fits {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("unbound visibility ids"),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: VISIBILITY_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            let view = texture.create_view(&Default::default());
            self.view = Some((texture, view));
            self.generation += 1;
        }
        &self.view.as_ref().expect("just made").1
    }

    /// The texture, once a frame made it (tests read the ids back).
    pub fn texture(&self) -> Option<&wgpu::Texture> {
        self.view.as_ref().map(|(t, _)| t)
    }

    pub fn size_bytes(&self) -> u64 {
        self.texture()
            .map_or(0, |t| u64::from(t.width()) * u64::from(t.height()) * 8)
    }
}

/// The visibility pass's pipelines of one phase for the opaque (back faces
/// culled) and double-sided buckets: depth written where less, as the
/// draw pass's, and the id target.
pub(crate) fn visibility_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    late: bool,
) -> [wgpu::RenderPipeline; 2] {
    let entry_point = if late {
        "fs_visibility_late"
    } else {
        "fs_visibility"
    };
    [("opaque", Some(wgpu::Face::Back)), ("double-sided", None)].map(|(name, cull_mode)| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(&format!("unbound visibility {name}")),
            layout: Some(layout),
            vertex: wgpu::VertexState {
                module,
                entry_point: Some("vs_visibility"),
                compilation_options: Default::default(),
                buffers: &[Some(INSTANCE_ID_LAYOUT)],
            },
            fragment: Some(wgpu::FragmentState {
                module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                targets: &[Some(VISIBILITY_FORMAT.into())],
            }),
            primitive: wgpu::PrimitiveState {
                cull_mode,
                ..Default::default()
            },
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

/// The bindings of the material pass's scene group (group 1), by number:
/// the scene layout's (`src/passes/draw.rs`) that the shading reads, all
/// visible to the fragment stage, the mesh table (11: the LOD view's
/// levels), plus the arena's indices (13) and the ids (14).
const MATERIAL_BUFFERS: [u32; 11] = [0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13];

/// The compute material pass's HDR target binding in its scene group
/// (`hdr_output` in `wgsl/visibility.wgsl`).
const HDR_OUTPUT_BINDING: u32 = 15;

/// The material pass: its scene group's layout, its pipeline layouts and
/// its bind group (see the module docs).
#[derive(Debug)]
pub(crate) struct MaterialShading {
    layout: wgpu::BindGroupLayout,
    /// Without and with the shadow map's group.
    pipeline_layouts: [wgpu::PipelineLayout; 2],
    /// The compute pass (else the fragment pass).
    compute: bool,
    cached: Option<([u64; 8], wgpu::BindGroup)>,
}

/// The bind group layouts the material pass binds besides its scene
/// group: the heap's, the shadow map's and the environment's.
#[derive(Debug)]
pub(crate) struct MaterialLayouts {
    pub heap: wgpu::BindGroupLayout,
    pub shadow: wgpu::BindGroupLayout,
    pub environment: wgpu::BindGroupLayout,
}

/// The material pass's pipelines of one shader variant.
#[derive(Debug)]
pub(crate) enum MaterialPipelines {
    /// Full-screen triangles inside the draw pass (first phase, late
    /// phase: the late one shades the late ids only).
    Fragment([wgpu::RenderPipeline; 2]),
    /// One compute pass a frame, over every id, between the draw pass's
    /// clear (or load, in the late phase) and its blended draws.
    Compute(wgpu::ComputePipeline),
}

impl MaterialShading {
    /// The material pass over `layouts`: the compute pass where `compute`
    /// (the HDR target is storage-capable), else the fragment pass.
    pub fn new(device: &wgpu::Device, layouts: &MaterialLayouts, compute: bool) -> Self {
        let stages = match compute {
            true => wgpu::ShaderStages::COMPUTE,
            false => wgpu::ShaderStages::FRAGMENT,
        };
        let mut entries: Vec<wgpu::BindGroupLayoutEntry> = MATERIAL_BUFFERS
            .iter()
            .map(|&binding| {
                let ty = if binding == 0 {
                    wgpu::BufferBindingType::Uniform
                } else {
                    storage(true)
                };
                buffer_entry(binding, stages, ty)
            })
            .collect();
        let ids = texture_binding(
            wgpu::TextureSampleType::Uint,
            wgpu::TextureViewDimension::D2,
            false,
        );
        entries.push(layout_entry(14, stages, ids));
        if compute {
            let hdr = wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: crate::output::HDR_FORMAT,
                view_dimension: wgpu::TextureViewDimension::D2,
            };
            entries.push(layout_entry(HDR_OUTPUT_BINDING, stages, hdr));
        }
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound material pass scene"),
            entries: &entries,
        });
        let pipeline_layout = |label, shadow: Option<&wgpu::BindGroupLayout>| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[
                    Some(&layouts.heap),
                    Some(&layout),
                    shadow,
                    Some(&layouts.environment),
                ],
                immediate_size: 0,
            })
        };
        let pipeline_layouts = [
            pipeline_layout("unbound material pass", None),
            pipeline_layout("unbound material pass with shadows", Some(&layouts.shadow)),
        ];
        Self {
            layout,
            pipeline_layouts,
            compute,
            cached: None,
        }
    }

    /// The material pass's pipelines from the visibility module `module`,
    /// with the shadow map's group where `shadows`. The fragment pass
    /// (first phase, late phase): a full-screen triangle into the HDR
    /// target, depth neither tested nor written (the visibility pass's
    /// stays). The compute pass: `cs_material`.
    pub fn pipelines(
        &self,
        device: &wgpu::Device,
        module: &wgpu::ShaderModule,
        shadows: bool,
    ) -> MaterialPipelines {
        let layout = &self.pipeline_layouts[usize::from(shadows)];
        if self.compute {
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("unbound compute material pass"),
                layout: Some(layout),
                module,
                entry_point: Some("cs_material"),
                compilation_options: Default::default(),
                cache: None,
            });
            return MaterialPipelines::Compute(pipeline);
        }
        MaterialPipelines::Fragment([false, true].map(|late| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("unbound material pass"),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_fullscreen"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(if late {
                        "fs_material_late"
                    } else {
                        "fs_material"
                    }),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: crate::output::HDR_FORMAT,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                primitive: Default::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(false),
                    depth_compare: Some(wgpu::CompareFunction::Always),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                multiview_mask: None,
                cache: None,
            })
        }))
    }

    /// The material pass's scene group over `scene`'s tables, `ids` and
    /// (the compute pass) the HDR target `hdr`, each with its generation,
    /// rebuilt when a buffer or a texture changed; returns whether it was.
    pub fn bind_group(
        &mut self,
        device: &wgpu::Device,
        scene: &SceneInputs<'_>,
        ids: (&wgpu::TextureView, u64),
        hdr: Option<(&wgpu::TextureView, u64)>,
    ) -> (&wgpu::BindGroup, bool) {
        let SceneInputs {
            tables,
            view,
            lights,
            clusters,
            ..
        } = scene;
        let key = [
            tables.arena_version,
            tables.objects_version,
            tables.materials_version,
            lights.version,
            clusters.version,
            tables.deform_version,
            ids.1,
            hdr.map_or(0, |(_, generation)| generation),
        ];
        let rebuilt = self.cached.as_ref().is_none_or(|(k, _)| *k != key);
        if rebuilt {
            let buffers = [
                &view.uniforms,
                tables.counts,
                tables.vertices,
                tables.objects,
                tables.materials,
                lights.lights,
                clusters.ranges,
                clusters.light_indices,
                tables.meshes,
                tables.deform,
                tables.indices,
            ];
            let mut entries: Vec<wgpu::BindGroupEntry<'_>> = MATERIAL_BUFFERS
                .iter()
                .zip(buffers)
                .map(|(&binding, buffer)| wgpu::BindGroupEntry {
                    binding,
                    resource: buffer.as_entire_binding(),
                })
                .collect();
            entries.push(wgpu::BindGroupEntry {
                binding: 14,
                resource: wgpu::BindingResource::TextureView(ids.0),
            });
            if let Some((hdr, _)) = hdr {
                entries.push(wgpu::BindGroupEntry {
                    binding: HDR_OUTPUT_BINDING,
                    resource: wgpu::BindingResource::TextureView(hdr),
                });
            }
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("unbound material pass scene"),
                layout: &self.layout,
                entries: &entries,
            });
            self.cached = Some((key, group));
        }
        (&self.cached.as_ref().expect("just built").1, rebuilt)
    }

    /// Records the fragment material pass into `pass` (the draw pass's,
    /// its groups 0, 2 and 3 set): its scene group over `scene` and `ids`,
    /// one full-screen triangle through `pipeline` (the phase's), then
    /// the draw pass's scene group `restore` again for the blended draws.
    pub fn record(
        &mut self,
        pass: &mut wgpu::RenderPass<'_>,
        device: &wgpu::Device,
        (scene, restore): (&SceneInputs<'_>, &wgpu::BindGroup),
        ids: &VisibilityIds,
        pipeline: &wgpu::RenderPipeline,
    ) -> PassStats {
        let ids = (&ids.view, ids.generation);
        let (group, rebuilt) = self.bind_group(device, scene, ids, None);
        pass.set_pipeline(pipeline);
        pass.set_bind_group(1, group, &[]);
        pass.draw(0..3, 0..1);
        pass.set_bind_group(1, restore, &[]);
        PassStats {
            commands_recorded: 4,
            bind_groups_set: 2,
            bind_group_rebuilds: u32::from(rebuilt),
        }
    }

    /// Records the compute material pass into `encoder`: one 8×8
    /// workgroup per tile of `frame`'s HDR target through `pipeline`,
    /// storing each pixel with an id shaded; `shadow`: the shadow map's
    /// group, with shadows.
    pub fn dispatch(
        &mut self,
        (frame, encoder): (&FrameInputs<'_>, &mut wgpu::CommandEncoder),
        (scene, shadow): (&SceneInputs<'_>, Option<&wgpu::BindGroup>),
        ids: &VisibilityIds,
        pipeline: &wgpu::ComputePipeline,
    ) -> PassStats {
        let ids = (&ids.view, ids.generation);
        let hdr = frame.hdr.view().expect("prepared for the frame");
        let (group, rebuilt) = self.bind_group(frame.device, scene, ids, Some(hdr));
        let groups = (frame.heap, shadow, frame.environment);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound compute material pass"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, groups.0, &[]);
        pass.set_bind_group(1, group, &[]);
        if let Some(shadow) = groups.1 {
            pass.set_bind_group(2, shadow, &[]);
        }
        pass.set_bind_group(3, groups.2, &[]);
        let (width, height) = frame.target.color.size();
        pass.dispatch_workgroups(width.div_ceil(8), height.div_ceil(8), 1);
        PassStats {
            commands_recorded: 7,
            bind_groups_set: 3 + u32::from(groups.1.is_some()),
            bind_group_rebuilds: u32::from(rebuilt),
        }
    }
}

/// The ids a visibility pass left for the material pass: the target's
/// view and its generation (a new texture, a new bind group).
#[derive(Debug, Clone)]
pub(crate) struct VisibilityIds {
    pub view: wgpu::TextureView,
    pub generation: u64,
}

impl IdTarget {
    /// The ids as the material pass takes them, once prepared.
    pub fn ids(&self) -> Option<VisibilityIds> {
        self.view.as_ref().map(|(_, view)| VisibilityIds {
            view: view.clone(),
            generation: self.generation,
        })
    }
}
