//! Two-phase occlusion culling for the camera (on by default,
//! [`crate::Renderer::set_occlusion`]; `wgsl/occlusion.wgsl`, CPU twin
//! [`crate::occlusion`]): what the cull pass's phases (`wgsl/cull.wgsl`,
//! [`CullPhase`], a uniform of the cull pass's group 1 that tells the same
//! dispatches apart) need besides the views' buffers.
//!
//! - A visibility bit per object slot ([`crate::Renderer::visibility_buffer`],
//!   one `u32` per 32 slots): the camera saw the object last frame. *Early:*
//!   the camera keeps an object in the frustum whose bit is set and which is
//!   not blended (the cascades cull as ever, in the same dispatch), and the
//!   draw pass draws the opaque and double-sided buckets into the cleared
//!   targets.
//! - *Pyramid:* the depth pyramid of what the early phase drew
//!   ([`PyramidPass`]). The depth target must have `TEXTURE_BINDING`
//!   ([`crate::RenderError::DepthNotSampleable`] otherwise).
//! - *Late:* the cull pass runs again for the camera alone into cull buffers of
//!   its own, after a dispatch of its own for the pyramid test
//!   (`test_occlusion`): each object in the frustum projects its world box's
//!   8 corners (a corner behind the camera or before the near plane: never
//!   hidden), takes the finest pyramid level where its pixel rectangle covers
//!   at most 2 × 2 texels, and is hidden when its nearest depth exceeds their
//!   farthest. The bit becomes "in the frustum and not hidden", and the
//!   objects not hidden and not drawn early are drawn into the same HDR target
//!   and depth with load operations, all three buckets, blended ones last
//!   (every blended object waits for the late phase, so their far-to-near
//!   order stays exact). Tiers B and C issue one draw per mesh slot from each
//!   phase's own draw region.
//!
//! The test has a dispatch of its own because it is the cull pass's only
//! texture fetch and has no barriers: llvmpipe compiles a compute shader with
//! barriers as a coroutine, where texture fetches made GL's compile take
//! minutes. It samples each pyramid texel at its centre through a nearest
//! sampler rather than loading it, since on wgpu's GL backend a sampler-less
//! fetch used the unit's last filter, under which the `R32Float` chain was
//! incomplete and read 0.
//!
//! An object hidden by the pyramid is hidden by what the early phase drew,
//! which is in the final image too, so the image is the one frustum culling
//! alone draws; a wrong or stale bit (a new object in a reused slot, a camera
//! cut) costs a draw or a late test, never a missing object
//! (`tests/occlusion.rs`: every frame of a camera sliding past a wall equal
//! pixel for pixel on tiers A, B, C and at 4×; the bits equal the CPU twin's
//! verdicts over the read-back pyramid). Statistics:
//! [`GpuFrameStats`](crate::GpuFrameStats)'s `early_instances`,
//! `late_instances`, `occluded_instances`, `pyramid_ms` and `late_cull_ms`;
//! `visible_instances` stays "in the frustum". The traced views and
//! [`crate::Renderer::render_cull_only`] cull the frustum only.
//!
//! Cost: 2 bits per object, the late buffers (8 bytes per object and the
//! draws), the pyramid (4/3 × 4 bytes a pixel); per frame three passes more
//! (the pyramid's one dispatch a level).
//!
//! **Shadow cascades** ([`crate::Renderer::set_cascade_occlusion`], on by
//! default, with the camera's occlusion culling, tiers A and B) are culled
//! the same way, each against its own depth, with the same dispatches and
//! pyramid build:
//!
//! - *Early* (the one cull dispatch of every view): a cascade keeps the
//!   casters in its box (without its near plane) whose bit of that cascade
//!   is set ([`FRAME_FLAG_CASCADE_OCCLUSION`](crate::gpu_types::FRAME_FLAG_CASCADE_OCCLUSION);
//!   each cascade has a bit array of its own after the camera's), and the
//!   shadow pass draws them into its cleared layer.
//! - *Pyramid and late*, per cascade before the camera draws: the pyramid
//!   of the layer's early depth ([`PyramidPass`], one per cascade, the
//!   shadow map's size), then a late cull dispatch for that cascade alone
//!   ([`GpuCullPhase::view`] names it; its own late buffers) that tests
//!   every caster in the box against it through the cascade's orthographic
//!   projection, keeps those not hidden and not drawn early, and writes the
//!   cascade's bits; the shadow pass draws them into the layer, loaded.
//!
//! **What is reused across frames, and why the map stays exact.** Only the
//! bits: "last frame, this caster was in the box and not hidden". Cascades
//! move with the camera (by whole texels, `crate::shadows`), change with
//! the sun, and their casters move, so last frame's bits are a hint of
//! what to draw early, never a verdict: the late phase tests every caster
//! not drawn early against the pyramid of *this* frame's early depth. A
//! caster it hides has its box's nearest depth beyond the farthest early
//! depth of every texel its rectangle touches, so none of its fragments
//! would pass the depth test (`Less`) against what is already in the
//! layer; the layer's depth is the minimum over the casters drawn, and
//! leaving out casters that cannot lower it leaves it bit for bit what
//! frustum culling alone draws. Pancaked casters (between the box and the
//! sun) have a box reaching depth 0 and are never hidden. A wrong or stale
//! bit costs a draw or a late test, never a missing caster
//! (`tests/cascade_occlusion.rs`: the shadow map and the image equal, frame
//! for frame, with the cull on and off, while casters and the camera move).
//! Tier C (GL) keeps the cascades frustum-culled (shadow map layers as
//! sampled 2D views there are not a path unbound tests), as do the traced
//! views and frames without the camera's occlusion culling (the early phase
//! needs it). Cost: 4 more bit arrays (4 bits per object slot), per cascade
//! late buffers and a pyramid of the shadow map's size (4/3 × 4 bytes a
//! texel, 22 MiB at 2048²), and per cascade three passes more.

use wgpu::TextureViewDimension::D2;
use wgpu::util::DeviceExt;

use crate::gpu_types::GpuCullPhase;
use crate::output::Msaa;
use crate::passes::cull::{CullBindGroup, CullBuffers, CullInputs, CullPhase, INITIAL_CAPACITY};
use crate::passes::inputs::FrameInputs;
use crate::passes::pyramid::{PYRAMID_FORMAT, PyramidPass};
use crate::passes::{PassStats, buffer_entry, layout_entry, texture_binding};
use crate::shadows::MAX_CASCADES;
use crate::target::TargetView;

/// Bytes of the visibility buffer of `instance_capacity` object slots:
/// `2 + MAX_CASCADES` bit arrays of `u32` words, the camera's last verdicts
/// (the visibility bits), the running late phase's pyramid verdicts
/// (`test_occlusion` in `wgsl/occlusion.wgsl`), then each cascade's last
/// verdicts.
pub(crate) fn visibility_size_bytes(instance_capacity: u32) -> u64 {
    let arrays = 2 + u64::from(MAX_CASCADES);
    arrays * 4 * u64::from(instance_capacity.max(1).div_ceil(32))
}

/// One shadow cascade's late phase: the pyramid of its layer, its late
/// buffers and the cull pass's group 1 over both.
#[derive(Debug)]
pub(crate) struct CascadeLate {
    pub pyramid: PyramidPass,
    pub late: CullBuffers,
    /// `GpuCullPhase` of the late phase, naming the cascade's view.
    phase_uniform: wgpu::Buffer,
    /// Over the pyramid as last made.
    group: Option<wgpu::BindGroup>,
}

/// The occlusion state of the camera view.
#[derive(Debug)]
pub(crate) struct Occlusion {
    /// One bit per object slot (`u32` words): seen by the camera last frame.
    pub visibility: wgpu::Buffer,
    visibility_capacity: u32,
    /// Changes whenever `visibility` is replaced.
    pub visibility_version: u64,
    /// The late phase's outputs (one view), made when first needed.
    pub late: Option<CullBuffers>,
    pub pyramid: PyramidPass,
    /// Group 1 of the cull pass: the phase and the pyramid.
    pub phase_layout: wgpu::BindGroupLayout,
    phase_uniforms: [wgpu::Buffer; 3],
    /// The frustum and early phases' groups (a 1 × 1 stand-in pyramid).
    stand_in_groups: [wgpu::BindGroup; 2],
    /// The late phase's, over the pyramid as last made.
    late_group: Option<wgpu::BindGroup>,
    /// Per cascade in use while cascades are culled by occlusion.
    pub cascades: Vec<CascadeLate>,
    /// Nearest in every direction: the late phase samples pyramid texels at
    /// their centres. A `textureLoad` without a sampler left wgpu's GL
    /// backend with whatever filter the texture unit last had, under which
    /// an `R32Float` mip chain is incomplete and fetches read 0.
    pyramid_sampler: wgpu::Sampler,
}

impl Occlusion {
    pub fn new(device: &wgpu::Device, msaa: Msaa) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let unfiltered = wgpu::TextureSampleType::Float { filterable: false };
        let nearest = wgpu::SamplerBindingType::NonFiltering;
        let phase_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound cull phase"),
            entries: &[
                buffer_entry(0, compute, wgpu::BufferBindingType::Uniform),
                layout_entry(1, compute, texture_binding(unfiltered, D2, false)),
                layout_entry(2, compute, wgpu::BindingType::Sampler(nearest)),
            ],
        });
        let pyramid_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("unbound depth pyramid"),
            ..Default::default()
        });
        let phase_uniforms = CullPhase::ALL.map(|phase| {
            let uniform = GpuCullPhase {
                phase: phase.gpu(),
                ..Default::default()
            };
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unbound cull phase"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            })
        });
        let stand_in = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("unbound depth pyramid stand-in"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: PYRAMID_FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        let stand_in_groups = [0, 1].map(|phase| {
            phase_group(
                device,
                &phase_layout,
                &phase_uniforms[phase],
                &stand_in,
                &pyramid_sampler,
            )
        });
        Self {
            visibility: visibility_buffer(device, INITIAL_CAPACITY),
            visibility_capacity: INITIAL_CAPACITY,
            visibility_version: 0,
            late: None,
            pyramid: PyramidPass::new(device, msaa),
            phase_layout,
            phase_uniforms,
            stand_in_groups,
            late_group: None,
            cascades: Vec::new(),
            pyramid_sampler,
        }
    }

    /// Keeps one late phase per cascade of `cascades` (none: culling the
    /// cascades by occlusion is off), each with late buffers of
    /// `instance_capacity`.
    pub fn ensure_cascades(
        &mut self,
        device: &wgpu::Device,
        meshes: &wgpu::Buffer,
        instance_capacity: u32,
        cascades: u32,
    ) {
        self.cascades.truncate(cascades as usize);
        while self.cascades.len() < cascades as usize {
            let view = 1 + self.cascades.len() as u32;
            let uniform = GpuCullPhase {
                phase: CullPhase::Late.gpu(),
                view,
                ..Default::default()
            };
            self.cascades.push(CascadeLate {
                pyramid: PyramidPass::new(device, Msaa::X1),
                late: CullBuffers::new(device, 0, 0, 1),
                phase_uniform: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("unbound cascade cull phase"),
                    contents: bytemuck::bytes_of(&uniform),
                    usage: wgpu::BufferUsages::UNIFORM,
                }),
                group: None,
            });
        }
        for cascade in &mut self.cascades {
            cascade
                .late
                .ensure_capacity(device, meshes, instance_capacity, 1);
        }
    }

    /// Cascade `cascade`'s pyramid of layer `cascade` of `shadow_map` (its
    /// early depth), and the inputs of its late cull over it.
    pub fn record_cascade_pyramid(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        shadow_map: &wgpu::Texture,
        cascade: usize,
    ) -> PyramidOutput<'_> {
        let size = (shadow_map.width(), shadow_map.height());
        let late = &mut self.cascades[cascade];
        if late.pyramid.prepare(device, size) || late.group.is_none() {
            let view = late.pyramid.view().expect("prepared");
            let (layout, sampler) = (&self.phase_layout, &self.pyramid_sampler);
            let group = phase_group(device, layout, &late.phase_uniform, view, sampler);
            late.group = Some(group);
        }
        let layer = (shadow_map, 0, cascade as u32);
        let stats = late.pyramid.record(device, encoder, layer, None);
        let late = &self.cascades[cascade];
        PyramidOutput {
            late_cull: CullInputs {
                phase: CullPhase::Late,
                out: &late.late,
                visibility: (&self.visibility, self.visibility_version),
                phase_group: late.group.as_ref().expect("made above"),
                bind_group: CullBindGroup::CascadeLate(cascade),
            },
            stats,
        }
    }

    /// Makes the bits cover `instance_capacity` slots (new bits are 0: an
    /// object not drawn early is tested late) and, while occlusion culling
    /// is on, the late buffers the tables' capacities.
    pub fn ensure_capacity(
        &mut self,
        device: &wgpu::Device,
        meshes: &wgpu::Buffer,
        instance_capacity: u32,
        enabled: bool,
    ) {
        if instance_capacity > self.visibility_capacity {
            self.visibility = visibility_buffer(device, instance_capacity);
            self.visibility_capacity = instance_capacity;
            self.visibility_version += 1;
        }
        if enabled {
            let late = self
                .late
                .get_or_insert_with(|| CullBuffers::new(device, 0, 0, 1));
            late.ensure_capacity(device, meshes, instance_capacity, 1);
        }
    }

    /// Makes the pyramid `size` (the depth target's) and the late phase's
    /// group over it.
    pub fn prepare_pyramid(&mut self, device: &wgpu::Device, size: (u32, u32)) {
        if self.pyramid.prepare(device, size) || self.late_group.is_none() {
            let view = self.pyramid.view().expect("prepared");
            let uniform = &self.phase_uniforms[2];
            self.late_group = Some(phase_group(
                device,
                &self.phase_layout,
                uniform,
                view,
                &self.pyramid_sampler,
            ));
        }
    }

    /// The cull pass's group 1 for `phase` (the late one once
    /// [`Self::prepare_pyramid`] ran).
    pub fn phase_group(&self, phase: CullPhase) -> &wgpu::BindGroup {
        match phase {
            CullPhase::Frustum => &self.stand_in_groups[0],
            CullPhase::Early => &self.stand_in_groups[1],
            CullPhase::Late => self.late_group.as_ref().expect("pyramid prepared"),
        }
    }

    /// What a cull dispatch of `phase` (not the late one) reads and writes
    /// besides the tables: `out`, the views' buffers.
    pub fn cull_inputs<'o>(&self, phase: CullPhase, out: &'o CullBuffers) -> CullInputs<'o, '_> {
        CullInputs {
            phase,
            out,
            visibility: (&self.visibility, self.visibility_version),
            phase_group: self.phase_group(phase),
            bind_group: match phase {
                CullPhase::Late => CullBindGroup::CameraLate,
                _ => CullBindGroup::Views,
            },
        }
    }

    /// The camera's visibility bits and their version.
    pub fn visibility_bits(&self) -> (&wgpu::Buffer, u64) {
        (&self.visibility, self.visibility_version)
    }

    pub fn size_bytes(&self) -> u64 {
        let cascades = self.cascades.iter();
        self.visibility.size()
            + self.late.as_ref().map_or(0, CullBuffers::size_bytes)
            + self.pyramid.size_bytes()
            + cascades
                .map(|c| c.late.size_bytes() + c.pyramid.size_bytes())
                .sum::<u64>()
    }
}

fn visibility_buffer(device: &wgpu::Device, instance_capacity: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("unbound visibility bits"),
        size: visibility_size_bytes(instance_capacity),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

fn phase_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    uniform: &wgpu::Buffer,
    pyramid: &wgpu::TextureView,
    sampler: &wgpu::Sampler,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("unbound cull phase"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(pyramid),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
        ],
    })
}

/// What the depth pyramid pass leaves for the late phase's cull: its
/// inputs (the late buffers, the bits, the phase group over the pyramid).
pub(crate) struct PyramidOutput<'a> {
    pub late_cull: CullInputs<'a, 'a>,
    pub stats: PassStats,
}

impl Occlusion {
    /// After the early draw: the depth pyramid of `depth` (the depth the
    /// early phase drew), and the late cull's inputs over it.
    pub fn record_pyramid(
        &mut self,
        frame: &FrameInputs<'_>,
        encoder: &mut wgpu::CommandEncoder,
        depth: &TargetView,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> PyramidOutput<'_> {
        let device = frame.device;
        self.prepare_pyramid(device, depth.size());
        let level = (depth.texture(), depth.mip_level(), depth.array_layer());
        let stats = self.pyramid.record(device, encoder, level, timestamps);
        let out = self.late.as_ref().expect("made by ensure_capacity");
        PyramidOutput {
            late_cull: self.cull_inputs(CullPhase::Late, out),
            stats,
        }
    }
}
