//! A view: one point of view on the scene, holding what depends on its
//! camera. The renderer has one, the main camera's; a shadow cascade or a
//! reflection would be another, culled and drawn with the same passes.

use crate::gpu_types::{GpuFrameUniforms, uniform_bytes};
use crate::lighting::ClusterGrid;
use crate::passes::cull::{CullBuffers, INITIAL_CAPACITY};
use crate::passes::lights::ClusterBuffers;
use crate::upload::UploadBatch;

/// The camera-dependent data of one view: the uniforms every pass reads and
/// the buffers the cull and light passes write for it.
#[derive(Debug)]
pub(crate) struct View {
    /// `FrameUniforms`: matrices, cull frustum, light, flags, debug view.
    pub uniforms: wgpu::Buffer,
    /// What the uniforms buffer holds (or will, once this frame's upload
    /// runs): unchanged uniforms are not uploaded again.
    last_uniforms: Option<GpuFrameUniforms>,
    /// The cull pass's outputs for this view: visible list, indirect draws,
    /// counters.
    pub cull: CullBuffers,
    /// The light pass's outputs for this view: the cluster lists.
    pub clusters: ClusterBuffers,
}

impl View {
    pub fn new(device: &wgpu::Device, label: &str, grid: &ClusterGrid) -> Self {
        Self {
            uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: GpuFrameUniforms::SIZE_BYTES,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_uniforms: None,
            cull: CullBuffers::new(device, INITIAL_CAPACITY, INITIAL_CAPACITY),
            clusters: ClusterBuffers::new(device, grid),
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
