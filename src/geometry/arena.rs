//! The arena itself: two growable GPU buffers sub-allocated by range, and
//! the mesh table the cull pass reads.

use std::ops::Range;

use glam::Vec3;

use super::clusters;
use super::{GeometryError, MeshBounds, MeshData};
use crate::gpu_table::{GpuTable, array_size_bytes};
use crate::gpu_types::{GpuCluster, GpuClusterLod, GpuMesh, GpuVertex, INDEX_SIZE_BYTES};

mod lists;

pub(crate) use lists::PackingBounds;

use crate::handles::{HandleError, MeshHandle, MeshSlot, SlotAllocator, new_owner_id};
use crate::lod::MeshOptions;
use crate::range_alloc::RangeAllocator;
use crate::upload::UploadBatch;

/// Vertices and indices the arena starts with (it grows up to its capacity).
const INITIAL_VERTICES: u32 = 1 << 16;
const INITIAL_INDICES: u32 = 1 << 18;

/// Bytes of the vertex buffer holding `vertices` vertices.
pub(crate) fn vertex_buffer_size_bytes(vertices: u32) -> u64 {
    array_size_bytes::<GpuVertex>(vertices)
}

/// Bytes of the index buffer holding `indices` indices.
pub(crate) fn index_buffer_size_bytes(indices: u32) -> u64 {
    u64::from(indices) * INDEX_SIZE_BYTES
}

/// A growable GPU buffer whose contents live only on the GPU: growing copies
/// the old contents over in the frame's encoder.
#[derive(Debug)]
struct ArenaBuffer {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: wgpu::Buffer,
    /// Bytes of the buffer for a number of elements.
    size_bytes: fn(u32) -> u64,
    version: u64,
}

impl ArenaBuffer {
    fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
        size_bytes: fn(u32) -> u64,
        len: u32,
    ) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        Self {
            label,
            usage,
            buffer: Self::create(device, label, usage, size_bytes(len)),
            size_bytes,
            version: 0,
        }
    }

    fn create(
        device: &wgpu::Device,
        label: &str,
        usage: wgpu::BufferUsages,
        size: u64,
    ) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    }

    /// Reallocates to `len` elements if smaller, copying the old contents
    /// (in `batch`, so that a dropped frame's growth is repeated: the old
    /// buffer is never written again).
    fn ensure(&mut self, device: &wgpu::Device, batch: &mut UploadBatch, len: u32) {
        let size = (self.size_bytes)(len);
        if size <= self.buffer.size() {
            return;
        }
        let buffer = Self::create(device, self.label, self.usage, size);
        batch.copy(&self.buffer, &buffer, self.buffer.size());
        self.buffer = buffer;
        self.version += 1;
    }
}

/// A mesh's vertices and indices, packed and waiting for the next frame's
/// upload.
#[derive(Debug)]
struct PendingMesh {
    /// The mesh slot: a mesh removed before the next frame takes its
    /// pending bytes with it.
    slot: u32,
    vertex_offset: u64,
    vertices: Vec<u8>,
    index_offset: u64,
    indices: Vec<u8>,
}

impl PendingMesh {
    fn size_bytes(&self) -> u64 {
        (self.vertices.len() + self.indices.len()) as u64
    }
}

/// A mesh's place in the arena.
#[derive(Clone, Debug)]
struct MeshRecord {
    vertices: Range<u32>,
    indices: Range<u32>,
    bounds: MeshBounds,
    objects: u32,
    /// The mesh-table entries of its simplified levels (never given out).
    levels: Vec<MeshHandle>,
    /// Its clusters and its levels' in the cluster table.
    clusters: Range<u32>,
    /// Clusters of its largest list (the mesh's or a level's): what one
    /// instance can draw at most.
    max_clusters: u32,
    /// Its clusters are a cluster-LOD hierarchy.
    cluster_lod: bool,
    /// Indices of every list (the mesh's and its levels'): more than one
    /// instance draws.
    total_indices: u32,
    /// Over every list's clusters, the widest vertex span
    /// ([`super::clusters::ClusteredIndices::widest_vertex_span`]).
    widest_vertex_span: u32,
}

/// Every mesh's vertices and indices in two shared buffers, plus the mesh
/// table the cull pass reads. See the module docs.
#[derive(Debug)]
pub struct GeometryArena {
    vertex_ranges: RangeAllocator,
    index_ranges: RangeAllocator,
    vertices: ArenaBuffer,
    indices: ArenaBuffer,
    /// Meshes added since the last frame, uploaded by the next one.
    pending: Vec<PendingMesh>,
    slots: SlotAllocator<MeshSlot>,
    records: Vec<Option<MeshRecord>>,
    table: GpuTable<GpuMesh>,
    /// Live slots holding simplified levels rather than meshes.
    level_slots: u32,
    /// Every mesh's clusters ([`super::clusters`]), by range.
    cluster_ranges: RangeAllocator,
    clusters: GpuTable<GpuCluster>,
    /// Per cluster of a cluster-LOD mesh, its place in the hierarchy
    /// ([`super::cluster_lod`]); parallel to `clusters`.
    cluster_lods: GpuTable<GpuClusterLod>,
    /// Over live objects, the clusters of their mesh's largest list: the
    /// most cluster draws the camera's cull can write.
    instance_clusters: u64,
}

impl GeometryArena {
    /// Whether the index buffer is a storage buffer too (ray queries, or
    /// asked for at [`Self::new`]).
    pub(crate) fn storage_indices(&self) -> bool {
        self.indices.usage.contains(wgpu::BufferUsages::STORAGE)
    }
}

impl GeometryArena {
    /// An empty arena for at most `max_vertices`, `max_indices` and
    /// `max_meshes`. With `ray_queries` its buffers are also acceleration
    /// structure inputs (`BLAS_INPUT`), and the index buffer a storage
    /// buffer, which hit shading reads (`src/rays/`); with
    /// `storage_indices` too (the triangle filter reads it,
    /// `src/passes/triangle_filter.rs`, and the visibility buffer's
    /// material pass a pixel's triangle, `src/passes/visibility.rs`).
    pub(crate) fn new(
        device: &wgpu::Device,
        (max_vertices, max_indices, max_meshes): (u32, u32, u32),
        ray_queries: bool,
        storage_indices: bool,
    ) -> Self {
        let initial_vertices = INITIAL_VERTICES.min(max_vertices);
        let initial_indices = INITIAL_INDICES.min(max_indices);
        let (ray_vertices, ray_indices) = if ray_queries {
            let input = wgpu::BufferUsages::BLAS_INPUT;
            (input, input | wgpu::BufferUsages::STORAGE)
        } else {
            (wgpu::BufferUsages::empty(), wgpu::BufferUsages::empty())
        };
        let ray_indices = if storage_indices {
            ray_indices | wgpu::BufferUsages::STORAGE
        } else {
            ray_indices
        };
        Self {
            vertex_ranges: RangeAllocator::new(initial_vertices, max_vertices),
            index_ranges: RangeAllocator::new(initial_indices, max_indices),
            vertices: ArenaBuffer::new(
                device,
                "unbound arena vertices",
                wgpu::BufferUsages::STORAGE | ray_vertices,
                vertex_buffer_size_bytes,
                initial_vertices,
            ),
            indices: ArenaBuffer::new(
                device,
                "unbound arena indices",
                wgpu::BufferUsages::INDEX | ray_indices,
                index_buffer_size_bytes,
                initial_indices,
            ),
            pending: Vec::new(),
            slots: SlotAllocator::new(new_owner_id(), max_meshes, 0),
            records: Vec::new(),
            table: GpuTable::new(
                device,
                "unbound mesh table",
                wgpu::BufferUsages::STORAGE,
                max_meshes,
            ),
            level_slots: 0,
            cluster_ranges: RangeAllocator::new(
                clusters::cluster_capacity(max_indices, max_meshes),
                clusters::cluster_capacity(max_indices, max_meshes),
            ),
            clusters: GpuTable::new(
                device,
                "unbound cluster table",
                wgpu::BufferUsages::STORAGE,
                clusters::cluster_capacity(max_indices, max_meshes),
            ),
            cluster_lods: GpuTable::new(
                device,
                "unbound cluster LOD table",
                wgpu::BufferUsages::STORAGE,
                clusters::cluster_capacity(max_indices, max_meshes),
            ),
            instance_clusters: 0,
        }
    }

    /// Validates, packs and stages a mesh (generating missing tangents,
    /// which may add vertices: [`MeshData::packed`]) and, with
    /// [`MeshOptions::lod_levels`], its simplified levels
    /// ([`crate::lod::generate_levels`]: one mesh-table entry each, their
    /// indices after the mesh's in one range of the index buffer); its
    /// data reaches the GPU with the next frame.
    pub fn add(
        &mut self,
        data: &MeshData<'_>,
        options: &MeshOptions,
    ) -> Result<MeshHandle, GeometryError> {
        data.validate()?;
        options.validate()?;
        let bounds = data.finite_bounds()?;
        let index_count = data.indices.len();
        let too_big = |what, requested, available| GeometryError::ArenaFull {
            what,
            requested,
            available,
        };
        // Packing may add vertices, never removes any: refuse early what
        // cannot fit before paying for it.
        let vertex_room = self.vertex_ranges.available();
        if data.positions.len() > vertex_room as usize {
            return Err(too_big("vertices", data.positions.len(), vertex_room));
        }
        let index_room = self.index_ranges.available();
        if index_count > index_room as usize {
            return Err(too_big("indices", index_count, index_room));
        }
        self.slots.check_room()?;
        let packed = data.packed();
        let vertex_count = packed.vertices.len();
        if vertex_count > vertex_room as usize {
            return Err(too_big("vertices", vertex_count, vertex_room));
        }
        let mesh = self.mesh_lists(&packed, options, index_room)?;
        let levels = &mesh.levels;
        let cluster_total: usize = mesh.lists.iter().map(|l| l.clusters.len()).sum();
        let handles = self.alloc_slots(1 + levels.len())?;
        let handle = handles[0];
        let vertices = self
            .vertex_ranges
            .alloc(vertex_count as u32)
            .expect("checked available");
        let indices = self
            .index_ranges
            .alloc(mesh.total_indices as u32)
            .expect("checked available");

        let cluster_range = self
            .cluster_ranges
            .alloc(cluster_total as u32)
            .expect("checked available");
        let (offset_indices, list_clusters) = self.place_lists(
            &mesh.lists,
            indices.start,
            vertices.start,
            cluster_range.start,
        );
        self.place_lods(&mesh.lods, cluster_range.start);
        self.pending.push(PendingMesh {
            slot: handle.slot(),
            vertex_offset: u64::from(vertices.start) * size_of::<GpuVertex>() as u64,
            vertices: bytemuck::cast_slice(&packed.vertices).to_vec(),
            index_offset: u64::from(indices.start) * INDEX_SIZE_BYTES,
            indices: bytemuck::cast_slice(&offset_indices).to_vec(),
        });

        let entry =
            |first_index: u32, index_count: usize, (first_cluster, cluster_count)| GpuMesh {
                first_index,
                index_count: index_count as u32,
                first_cluster,
                cluster_count,
                first_vertex: vertices.start,
                vertex_count: vertex_count as u32,
                bounding_sphere: bounds.center.extend(bounds.radius).to_array(),
                aabb_min: bounds.min.extend(0.0).to_array(),
                aabb_max: bounds.max.extend(0.0).to_array(),
                ..GpuMesh::default()
            };
        let mut base = entry(indices.start, index_count, list_clusters[0]);
        base.cluster_lod = u32::from(!mesh.lods.is_empty());
        let mut first_index = indices.start + mesh.own_indices as u32;
        for (l, (level, level_handle)) in levels.iter().zip(&handles[1..]).enumerate() {
            let level_entry = entry(first_index, level.indices.len(), list_clusters[l + 1]);
            self.table.set(level_handle.slot(), level_entry);
            first_index += level.indices.len() as u32;
            base.lod_slots[l] = level_handle.slot();
            base.lod_errors[l] = if bounds.radius > 0.0 {
                level.error / bounds.radius
            } else {
                0.0
            };
            base.lod_levels += 1;
        }
        self.table.set(handle.slot(), base);
        let slot = handle.slot() as usize;
        let last = handles
            .iter()
            .map(|h| h.slot() as usize)
            .max()
            .unwrap_or(slot);
        if last >= self.records.len() {
            self.records.resize(last + 1, None);
        }
        self.level_slots += levels.len() as u32;
        self.records[slot] = Some(MeshRecord {
            vertices,
            indices,
            bounds,
            objects: 0,
            levels: handles[1..].to_vec(),
            clusters: cluster_range,
            cluster_lod: mesh.max_cut.is_some(),
            total_indices: mesh.total_indices as u32,
            widest_vertex_span: mesh.widest_vertex_span(),
            max_clusters: mesh
                .max_cut
                .unwrap_or_else(|| list_clusters.iter().map(|&(_, n)| n).max().unwrap_or(0)),
        });
        Ok(handle)
    }

    /// `count` mesh slots, or none (those taken are given back) if the
    /// table is full.
    fn alloc_slots(&mut self, count: usize) -> Result<Vec<MeshHandle>, GeometryError> {
        let mut handles = Vec::with_capacity(count);
        for _ in 0..count {
            match self.slots.alloc() {
                Ok(handle) => handles.push(handle),
                Err(error) => {
                    for handle in handles {
                        self.slots.free(handle).expect("just allocated");
                    }
                    return Err(error.into());
                }
            }
        }
        Ok(handles)
    }

    /// Frees a mesh's ranges and level entries for reuse and drops its
    /// upload if no frame has taken it yet. Refused while live objects use
    /// it.
    pub fn remove(&mut self, handle: MeshHandle) -> Result<(), GeometryError> {
        let slot = self.slots.resolve(handle)?;
        let record = self.records[slot as usize]
            .as_ref()
            .expect("live mesh has a record");
        if record.objects > 0 {
            return Err(GeometryError::InUse {
                slot,
                objects: record.objects,
            });
        }
        self.slots.free(handle)?;
        let record = self.records[slot as usize].take().expect("checked");
        self.vertex_ranges.free_range(record.vertices);
        self.index_ranges.free_range(record.indices);
        for cluster in record.clusters.clone() {
            self.clusters.set(cluster, GpuCluster::default());
            // Only a cluster-LOD mesh's entries are ever read.
            if record.cluster_lod {
                self.cluster_lods.set(cluster, GpuClusterLod::default());
            }
        }
        self.cluster_ranges.free_range(record.clusters);
        self.pending.retain(|mesh| mesh.slot != slot);
        // Empty entries: the cull pass skips meshes without indices.
        self.table.set(slot, GpuMesh::default());
        self.level_slots -= record.levels.len() as u32;
        for level in record.levels {
            let level_slot = self
                .slots
                .free(level)
                .expect("a live mesh's levels are live");
            self.table.set(level_slot, GpuMesh::default());
        }
        Ok(())
    }

    /// The slot and bounds of a live mesh.
    pub fn resolve(&self, handle: MeshHandle) -> Result<(u32, MeshBounds), HandleError> {
        let slot = self.slots.resolve(handle)?;
        let record = self.records[slot as usize]
            .as_ref()
            .expect("live mesh has a record");
        Ok((slot, record.bounds))
    }

    /// Bounds of mesh slot `slot` (a point at the origin if the slot is free).
    pub(crate) fn bounds_of_slot(&self, slot: u32) -> MeshBounds {
        self.records
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map_or(
                MeshBounds {
                    min: Vec3::ZERO,
                    max: Vec3::ZERO,
                    center: Vec3::ZERO,
                    radius: 0.0,
                },
                |r| r.bounds,
            )
    }

    /// The mesh table's entry of mesh slot `slot` (an empty one if the slot
    /// is free).
    pub fn gpu_entry(&self, slot: u32) -> Option<&GpuMesh> {
        self.table.get(slot)
    }

    /// Index count of a live mesh slot.
    pub fn index_count(&self, slot: u32) -> u32 {
        self.table.get(slot).map_or(0, |m| m.index_count)
    }

    pub(crate) fn retain(&mut self, slot: u32) {
        if let Some(record) = self.records[slot as usize].as_mut() {
            record.objects += 1;
            self.instance_clusters += u64::from(record.max_clusters);
        }
    }

    pub(crate) fn release(&mut self, slot: u32) {
        if let Some(record) = self.records[slot as usize].as_mut() {
            record.objects -= 1;
            self.instance_clusters -= u64::from(record.max_clusters);
        }
    }

    /// Over live objects, the clusters of their mesh's largest list (the
    /// mesh's or a level's): the most cluster draws one view can need.
    pub fn instance_clusters(&self) -> u64 {
        self.instance_clusters
    }

    /// The cluster table's entry `index` (clusters are listed by
    /// [`GpuMesh::first_cluster`] and `cluster_count`).
    pub fn cluster(&self, index: u32) -> Option<&GpuCluster> {
        self.clusters.get(index)
    }

    /// Mesh slots in use (high-water mark): what the cull pass scans.
    pub fn mesh_slots(&self) -> u32 {
        self.table.len()
    }

    /// Live meshes (their simplified levels' entries not counted).
    pub fn mesh_count(&self) -> u32 {
        self.slots.live_count() - self.level_slots
    }

    /// Bytes of mesh data (packed vertices and indices) added since the last
    /// frame and waiting for the next frame's upload.
    pub fn pending_upload_bytes(&self) -> u64 {
        self.pending.iter().map(PendingMesh::size_bytes).sum()
    }

    /// Vertices the arena's buffer holds room for.
    pub fn vertex_capacity(&self) -> u32 {
        self.vertex_ranges.size()
    }

    /// Queues growth copies, staged data and mesh-table changes.
    pub(crate) fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        self.vertices
            .ensure(device, batch, self.vertex_ranges.size());
        self.indices.ensure(device, batch, self.index_ranges.size());
        for mesh in self.pending.drain(..) {
            batch.write(&self.vertices.buffer, mesh.vertex_offset, &mesh.vertices);
            batch.write(&self.indices.buffer, mesh.index_offset, &mesh.indices);
        }
        self.table.flush(device, batch);
        self.clusters.flush(device, batch);
        self.cluster_lods.flush(device, batch);
    }

    /// The vertex storage buffer.
    pub fn vertex_buffer(&self) -> &wgpu::Buffer {
        &self.vertices.buffer
    }

    /// The index buffer.
    pub fn index_buffer(&self) -> &wgpu::Buffer {
        &self.indices.buffer
    }

    /// The mesh table buffer.
    pub fn mesh_buffer(&self) -> &wgpu::Buffer {
        self.table.buffer()
    }

    /// The cluster table buffer.
    pub fn cluster_buffer(&self) -> &wgpu::Buffer {
        self.clusters.buffer()
    }

    /// Changes whenever one of the arena's buffers is replaced.
    pub(crate) fn version(&self) -> u64 {
        self.vertices.version
            + self.indices.version
            + self.table.version()
            + self.clusters.version()
            + self.cluster_lods.version()
    }

    /// Bytes of GPU memory the arena holds.
    pub fn size_bytes(&self) -> u64 {
        self.vertices.buffer.size()
            + self.indices.buffer.size()
            + self.table.size_bytes()
            + self.clusters.size_bytes()
            + self.cluster_lods.size_bytes()
    }
}
