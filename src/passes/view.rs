//! Views: points of view on the scene, each holding what depends on its
//! camera. The renderer has the main camera's and, with shadows on, one per
//! shadow cascade and one per shadowed spot light; the cull pass culls them all in one dispatch into one
//! set of buffers with a region per view, and the draw and shadow passes
//! draw each view's region.

use crate::gpu_types::{GpuFrameUniforms, GpuShadowUniforms, uniform_bytes};
use crate::lighting::ClusterGrid;
use crate::passes::cull::{CullBuffers, INITIAL_CAPACITY};
use crate::passes::lights::ClusterBuffers;
use crate::upload::UploadBatch;

/// The camera-dependent data of one view: the uniforms its passes read.
/// What the cull pass writes for it is region [`Self::region`] of
/// [`Views::cull`].
#[derive(Debug)]
pub(crate) struct View {
    /// `FrameUniforms`: matrices, cull frustum, light, flags, debug view.
    pub uniforms: wgpu::Buffer,
    /// What the uniforms buffer holds (or will, once this frame's upload
    /// runs): unchanged uniforms are not uploaded again.
    last_uniforms: Option<GpuFrameUniforms>,
    /// The view's region of the cull buffers (0: the camera).
    pub region: u32,
}

impl View {
    pub fn new(device: &wgpu::Device, label: &str, region: u32) -> Self {
        Self {
            uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: GpuFrameUniforms::SIZE_BYTES,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_uniforms: None,
            region,
        }
    }

    /// Queues `uniforms` into this frame's upload if they changed.
    pub fn write_uniforms(&mut self, batch: &mut UploadBatch, uniforms: GpuFrameUniforms) {
        if self.last_uniforms != Some(uniforms) {
            batch.write(&self.uniforms, 0, &uniform_bytes(&uniforms));
            self.last_uniforms = Some(uniforms);
        }
    }
}

/// Every view of a frame and the buffers the cull pass writes for them.
#[derive(Debug)]
pub(crate) struct Views {
    /// The main camera's view (region 0).
    pub main: View,
    /// One view per shadow cascade in use (regions 1, 2, ...); empty with
    /// shadows off.
    pub cascades: Vec<View>,
    /// One view per shadowed spot light (the regions after the cascades'),
    /// by shadow index; empty with shadows off.
    pub spots: Vec<View>,
    /// `ShadowUniforms`: the cascades' and the spots' matrices and planes,
    /// read by the cull pass (always: counts 0 with shadows off) and the
    /// shading.
    pub shadow_uniforms: wgpu::Buffer,
    last_shadow_uniforms: Option<GpuShadowUniforms>,
    /// The cull pass's outputs, one region per view.
    pub cull: CullBuffers,
    /// The light pass's outputs for the camera: the cluster lists.
    pub clusters: ClusterBuffers,
}

impl Views {
    pub fn new(device: &wgpu::Device, grid: &ClusterGrid) -> Self {
        Self {
            main: View::new(device, "unbound frame uniforms", 0),
            cascades: Vec::new(),
            spots: Vec::new(),
            shadow_uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("unbound shadow uniforms"),
                size: GpuShadowUniforms::SIZE_BYTES,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_shadow_uniforms: None,
            cull: CullBuffers::new(device, INITIAL_CAPACITY, INITIAL_CAPACITY, 1),
            clusters: ClusterBuffers::new(device, grid),
        }
    }

    /// Keeps one view per cascade and per spot shadow of `uniforms`, and
    /// queues the shadow uniforms (and each view's `FrameUniforms`, derived
    /// from `main` with its matrix and planes) into this frame's upload
    /// where they changed.
    pub fn write_shadow_uniforms(
        &mut self,
        device: &wgpu::Device,
        batch: &mut UploadBatch,
        main: &GpuFrameUniforms,
        uniforms: GpuShadowUniforms,
    ) {
        let cascades = uniforms.cascade_count;
        let shadow_views = [
            (&mut self.cascades, 1, cascades, "cascade"),
            (
                &mut self.spots,
                1 + cascades,
                uniforms.spot_count,
                "spot shadow",
            ),
        ];
        for (views, first_region, count, name) in shadow_views {
            views.truncate(count as usize);
            for (i, view) in views.iter_mut().enumerate() {
                // A region moves when the cascade count changes.
                view.region = first_region + i as u32;
            }
            while views.len() < count as usize {
                let i = views.len() as u32;
                let label = format!("unbound {name} {i} uniforms");
                views.push(View::new(device, &label, first_region + i));
            }
        }
        let matrices = (uniforms.shadow_from_world.iter())
            .take(cascades as usize)
            .chain(&uniforms.spot_from_world);
        let planes = (uniforms.cascade_planes.chunks_exact(6))
            .take(cascades as usize)
            .chain(uniforms.spot_planes.iter().map(|p| p.as_slice()));
        let views = self.cascades.iter_mut().chain(&mut self.spots);
        for ((view, matrix), planes) in views.zip(matrices).zip(planes) {
            view.write_uniforms(
                batch,
                GpuFrameUniforms {
                    clip_from_world: *matrix,
                    frustum_planes: planes.try_into().expect("six planes a view"),
                    debug_view: 0,
                    ..*main
                },
            );
        }
        if self.last_shadow_uniforms != Some(uniforms) {
            batch.write(&self.shadow_uniforms, 0, &uniform_bytes(&uniforms));
            self.last_shadow_uniforms = Some(uniforms);
        }
    }

    /// The views culled this frame: the camera, the cascades and the
    /// shadowed spot lights.
    pub fn count(&self) -> u32 {
        1 + (self.cascades.len() + self.spots.len()) as u32
    }

    /// The shadow views of this frame, in shadow map layer order: the
    /// cascades, then the spots.
    pub fn shadow_views(&self) -> impl Iterator<Item = &View> {
        self.cascades.iter().chain(&self.spots)
    }
}
