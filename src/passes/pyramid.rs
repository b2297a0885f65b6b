//! The depth pyramid of occlusion culling (`wgsl/pyramid.wgsl`): an
//! `R32Float` mip chain over the depth the early phase drew, each texel the
//! farthest depth below it (depth is standard: 0 near, 1 far, compare
//! `Less`, so the reduction is a maximum). wgpu has no min/max reduction
//! samplers, so a compute dispatch per level reads the level below with
//! `textureLoad`.
//!
//! Level 0 is the depth target's size (per pixel the farthest of its
//! samples; the depth texture is bound as unfilterable float, as GLSL cannot
//! `textureLoad` a depth texture); level `l` has wgpu's mip size
//! `max(1, size >> l)`, and its texel `t` covers pixels
//! `[t << l, (t + 1) << l)`, the last texel of a row or column reaching to the
//! edge (it also reads the children an odd size leaves over). So a texel is
//! never nearer than any pixel it covers: the late phase's test
//! (`wgsl/occlusion.wgsl`, CPU twin [`crate::occlusion::DepthPyramid`]) is
//! conservative.
//!
//! Each level reads the one below as a one-level storage texture and writes
//! through a read-write binding: wgpu's GL backend orders a storage write
//! before the next dispatch's read only after one.

use crate::output::Msaa;
use crate::passes::{PassStats, layout_entry, texture_binding};
use crate::shaders;

/// Threads per side of a pyramid workgroup (WGSL `PYRAMID_WORKGROUP`).
pub const PYRAMID_WORKGROUP: u32 = 8;
/// The pyramid's format.
pub const PYRAMID_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// Mip levels of a full chain over `(width, height)`: down to 1 × 1.
pub fn pyramid_levels((width, height): (u32, u32)) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// The pyramid texture and the bind groups that build and read it, made
/// for one size.
#[derive(Debug)]
struct Pyramid {
    texture: wgpu::Texture,
    /// The whole chain, as the late cull reads it.
    view: wgpu::TextureView,
    /// Per level above 0: reads level `l - 1`, writes level `l`.
    reduce_groups: Vec<wgpu::BindGroup>,
    /// Level 0 as a storage view, for the group that reads the depth.
    level0: wgpu::TextureView,
}

/// The depth group's key: which level and layer of which depth texture.
type DepthKey = (wgpu::Texture, u32, u32);

#[derive(Debug)]
pub(crate) struct PyramidPass {
    depth_layout: wgpu::BindGroupLayout,
    reduce_layout: wgpu::BindGroupLayout,
    depth_to_pyramid: wgpu::ComputePipeline,
    reduce_level: wgpu::ComputePipeline,
    pyramid: Option<Pyramid>,
    depth_group: Option<(DepthKey, wgpu::BindGroup)>,
}

impl PyramidPass {
    pub fn new(device: &wgpu::Device, msaa: Msaa) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let level = |access| wgpu::BindingType::StorageTexture {
            access,
            format: PYRAMID_FORMAT,
            view_dimension: wgpu::TextureViewDimension::D2,
        };
        // Read-write though only written: wgpu's GL backend orders a
        // storage write before the next dispatch's read only after a
        // read-write binding.
        let out = layout_entry(1, compute, level(wgpu::StorageTextureAccess::ReadWrite));
        let texture = |binding, sample_type, multisampled| {
            let ty = texture_binding(sample_type, wgpu::TextureViewDimension::D2, multisampled);
            layout_entry(binding, compute, ty)
        };
        let multisampled = msaa.sample_count() > 1;
        let layout = |label, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries,
            })
        };
        let unfilterable = wgpu::TextureSampleType::Float { filterable: false };
        let depth_layout = layout(
            "unbound pyramid from depth",
            &[
                // Unfilterable float rather than depth: GLSL cannot
                // `textureLoad` a depth texture.
                texture(0, unfilterable, multisampled),
                out,
            ],
        );
        // The level below is read as a storage texture of one level, not
        // a sampled view of one mip: wgpu's GL backend emulates a sampled
        // view's mip range on the shared texture object, which left the
        // late cull's full-chain view seeing a single level (texel fetches
        // elsewhere returned 0, hiding everything).
        let level_in = layout_entry(2, compute, level(wgpu::StorageTextureAccess::ReadOnly));
        let reduce_layout = layout("unbound pyramid reduce", &[out, level_in]);
        let module = shaders::pyramid_variant(msaa).create(device);
        let pipeline = |group_layout, entry_point| {
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(entry_point),
                bind_group_layouts: &[Some(group_layout)],
                immediate_size: 0,
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self {
            depth_to_pyramid: pipeline(&depth_layout, "depth_to_pyramid"),
            reduce_level: pipeline(&reduce_layout, "reduce_level"),
            depth_layout,
            reduce_layout,
            pyramid: None,
            depth_group: None,
        }
    }

    /// The pyramid texture, once built.
    pub fn texture(&self) -> Option<&wgpu::Texture> {
        self.pyramid.as_ref().map(|p| &p.texture)
    }

    /// The whole chain (the late cull's input), once built.
    pub fn view(&self) -> Option<&wgpu::TextureView> {
        self.pyramid.as_ref().map(|p| &p.view)
    }

    pub fn size_bytes(&self) -> u64 {
        self.pyramid.as_ref().map_or(0, |p| {
            (0..p.texture.mip_level_count())
                .map(|level| {
                    let size = p
                        .texture
                        .size()
                        .mip_level_size(level, p.texture.dimension());
                    4 * u64::from(size.width) * u64::from(size.height)
                })
                .sum()
        })
    }

    /// Makes the pyramid `size` (level 0) if it is not; returns whether it
    /// was (re)made (the late cull's bind group then changes).
    pub fn prepare(&mut self, device: &wgpu::Device, size: (u32, u32)) -> bool {
        let current = self.pyramid.as_ref().map(|p| {
            let s = p.texture.size();
            (s.width, s.height)
        });
        if current == Some(size) {
            return false;
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("unbound depth pyramid"),
            size: wgpu::Extent3d {
                width: size.0.max(1),
                height: size.1.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: pyramid_levels(size),
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: PYRAMID_FORMAT,
            usage: wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let level = |level| {
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("unbound depth pyramid level"),
                base_mip_level: level,
                mip_level_count: Some(1),
                ..Default::default()
            })
        };
        let levels: Vec<wgpu::TextureView> = (0..texture.mip_level_count()).map(level).collect();
        let reduce_groups = levels
            .windows(2)
            .map(|pair| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("unbound pyramid reduce"),
                    layout: &self.reduce_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(&pair[1]),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(&pair[0]),
                        },
                    ],
                })
            })
            .collect();
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let level0 = levels.into_iter().next().expect("at least one level");
        self.pyramid = Some(Pyramid {
            texture,
            view,
            reduce_groups,
            level0,
        });
        self.depth_group = None;
        true
    }

    /// Records the pyramid's build from level `mip_level`, layer
    /// `array_layer` of `depth` (the size [`Self::prepare`] was given).
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        depth: (&wgpu::Texture, u32, u32),
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> PassStats {
        let pyramid = self.pyramid.as_ref().expect("prepared before recording");
        let key = (depth.0.clone(), depth.1, depth.2);
        let mut rebuilt = 0;
        if self.depth_group.as_ref().is_none_or(|(k, _)| *k != key) {
            let view = depth.0.create_view(&wgpu::TextureViewDescriptor {
                label: Some("unbound pyramid depth input"),
                dimension: Some(wgpu::TextureViewDimension::D2),
                aspect: wgpu::TextureAspect::DepthOnly,
                base_mip_level: depth.1,
                mip_level_count: Some(1),
                base_array_layer: depth.2,
                array_layer_count: Some(1),
                ..Default::default()
            });
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("unbound pyramid from depth"),
                layout: &self.depth_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&pyramid.level0),
                    },
                ],
            });
            self.depth_group = Some((key, group));
            rebuilt = 1;
        }
        let (_, depth_group) = self.depth_group.as_ref().expect("made above");
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound depth pyramid"),
            timestamp_writes: timestamps,
        });
        let groups = |extent: u32| extent.div_ceil(PYRAMID_WORKGROUP);
        let texture = &pyramid.texture;
        let level_size = |level| texture.size().mip_level_size(level, texture.dimension());
        pass.set_pipeline(&self.depth_to_pyramid);
        pass.set_bind_group(0, depth_group, &[]);
        let size = level_size(0);
        pass.dispatch_workgroups(groups(size.width), groups(size.height), 1);
        pass.set_pipeline(&self.reduce_level);
        for (level, group) in (1..).zip(&pyramid.reduce_groups) {
            let size = level_size(level);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(groups(size.width), groups(size.height), 1);
        }
        let levels = pyramid.reduce_groups.len() as u32;
        PassStats {
            // pass, 2 pipelines, per level a bind group and a dispatch
            commands_recorded: 3 + 2 * (levels + 1),
            bind_groups_set: levels + 1,
            bind_group_rebuilds: rebuilt,
        }
    }
}
