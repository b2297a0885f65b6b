//! One baseline frame: CPU culling, the blended objects sorted far to near,
//! then one `draw_indexed` per visible object, rebinding only what changed,
//! into the HDR target; then the library's output pass into the colour
//! target.

use unbound::camera::{frustum_planes, sphere_in_frustum};
use unbound::gpu_types::{BUCKET_BLEND, FRAME_FLAG_NORMAL_MAPS, GpuFrameUniforms, uniform_bytes};
use unbound::output::Output;
use unbound::passes::output::OutputInputs;
use unbound::passes::prefilter::ENVIRONMENT_GROUP;
use unbound::{DebugView, FrameTarget};

use crate::resources::{BaselineObject, OBJECT_STRIDE};
use crate::{BaselineRenderer, BaselineStats};

/// Bytes of the two resolved timestamps (draw pass begin, end).
const TIMESTAMP_BYTES: u64 = 2 * wgpu::QUERY_SIZE as u64;

/// The draw pass's begin and end timestamps, resolved and copied for
/// reading back.
#[derive(Debug)]
pub(crate) struct Timestamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

impl Timestamps {
    /// `None` without `TIMESTAMP_QUERY`.
    pub(crate) fn new(device: &wgpu::Device) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        Some(Self {
            set: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("baseline timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("baseline timestamp resolve"),
                size: TIMESTAMP_BYTES,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("baseline timestamp readback"),
                size: TIMESTAMP_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        })
    }
}

/// Object indices sorted by (bucket, material, mesh): opaque buckets keep
/// this order; the blended tail is re-sorted by depth every frame.
pub(crate) fn initial_draw_order(objects: &[BaselineObject]) -> Vec<u32> {
    let mut draw_order: Vec<u32> = (0..objects.len() as u32).collect();
    draw_order.sort_by_key(|&i| {
        let o = &objects[i as usize];
        (o.bucket, o.material, o.mesh)
    });
    draw_order
}

/// Sorts the blended tail of `draw_order` far to near: distance of the
/// bounding-sphere centre from the near plane (the cull pass's depth-bucket
/// measure), ties by index.
fn sort_blended(draw_order: &mut [u32], objects: &[BaselineObject], near: glam::Vec4) {
    let first_blended = draw_order.partition_point(|&i| objects[i as usize].bucket < BUCKET_BLEND);
    draw_order[first_blended..].sort_by(|&a, &b| {
        let depth = |i: u32| near.truncate().dot(objects[i as usize].sphere.truncate()) + near.w;
        depth(b).total_cmp(&depth(a)).then(a.cmp(&b))
    });
}

impl BaselineRenderer {
    /// Records one frame: CPU culling, then one draw per visible object into
    /// the HDR target, then the output pass into `target` (its colour
    /// cleared or loaded as the bindless renderer does it).
    pub fn render(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget<'_>,
    ) -> BaselineStats {
        let clip_from_world = self.camera.clip_from_world();
        let planes = frustum_planes(&clip_from_world);
        let mut uniforms = GpuFrameUniforms::new(
            &self.camera,
            &self.lighting,
            self.objects.list.len() as u32,
            self.meshes.len() as u32,
            FRAME_FLAG_NORMAL_MAPS,
        );
        // Every fragment loops over every light (no clusters).
        uniforms.light_grid.w = self.frame.light_count;
        self.queue
            .write_buffer(&self.frame.uniforms, 0, &uniform_bytes(&uniforms));
        sort_blended(&mut self.draw_order, &self.objects.list, planes[4]);
        let timestamps = self
            .timestamps
            .as_ref()
            .map(|t| wgpu::RenderPassTimestampWrites {
                query_set: &t.set,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
        let (mut pass, _) = self.hdr.begin_draw_pass(
            &self.device,
            encoder,
            target,
            "baseline draw",
            false,
            timestamps,
        );
        let mut stats = self.record_draws(&mut pass, &planes);
        drop(pass);
        let inputs = OutputInputs {
            hdr: &self.hdr,
            output: &Output::default(),
            view: DebugView::Lit,
            metered_exposure: None,
        };
        let output = self
            .output
            .record(&self.device, encoder, &inputs, target, None);
        stats.bind_groups_set += output.bind_groups_set;
        stats.commands_recorded += output.commands_recorded;
        if let Some(t) = &self.timestamps {
            encoder.resolve_query_set(&t.set, 0..2, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.readback, 0, TIMESTAMP_BYTES);
        }
        stats
    }

    /// One draw per object in `draw_order` inside the frustum, binding the
    /// pipeline, material and mesh only when they change.
    fn record_draws(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        planes: &[glam::Vec4; 6],
    ) -> BaselineStats {
        let mut stats = BaselineStats::default();
        pass.set_bind_group(0, &self.frame.group, &[]);
        pass.set_bind_group(ENVIRONMENT_GROUP, self.environment.bind_group(), &[]);
        stats.bind_groups_set += 2;
        stats.commands_recorded += 2;
        let (mut bound_bucket, mut bound_material, mut bound_mesh) = (u32::MAX, u32::MAX, u32::MAX);
        for &index in &self.draw_order {
            let object = self.objects.list[index as usize];
            if !sphere_in_frustum(planes, object.sphere) {
                continue;
            }
            if object.bucket != bound_bucket {
                pass.set_pipeline(&self.pipelines[object.bucket as usize]);
                bound_bucket = object.bucket;
                stats.commands_recorded += 1;
            }
            if object.material != bound_material {
                pass.set_bind_group(1, &self.material_groups[object.material as usize], &[]);
                bound_material = object.material;
                stats.bind_groups_set += 1;
                stats.commands_recorded += 1;
            }
            let mesh = &self.meshes[object.mesh as usize];
            if object.mesh != bound_mesh {
                pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                bound_mesh = object.mesh;
                stats.commands_recorded += 2;
            }
            pass.set_bind_group(
                2,
                &self.objects.group,
                &[(u64::from(index) * OBJECT_STRIDE) as u32],
            );
            pass.draw_indexed(0..mesh.index_count, 0, 0..1);
            stats.bind_groups_set += 1;
            stats.commands_recorded += 2;
            stats.draws += 1;
            stats.triangles += u64::from(mesh.index_count / 3);
        }
        stats.visible_instances = stats.draws;
        stats
    }

    /// GPU time of the last frame's draw pass, after that frame has been
    /// submitted and waited for (blocking; for benchmarks).
    pub fn last_draw_ms(&self) -> Option<f64> {
        let readback = &self.timestamps.as_ref()?.readback;
        readback.map_async(wgpu::MapMode::Read, .., |_| {});
        self.device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(
            &readback.get_mapped_range(..).ok()?[..TIMESTAMP_BYTES as usize],
        );
        readback.unmap();
        let period = f64::from(self.queue.get_timestamp_period());
        Some(ticks[1].saturating_sub(ticks[0]) as f64 * period / 1e6)
    }
}
