//! One bottom-level acceleration structure (BLAS) per mesh, built from the
//! geometry arena in place: the arena's vertex buffer (positions are
//! `Float32x3` at offset 0 of every vertex, the vertex size the stride) and
//! its index buffer (indices pre-offset, so the geometry starts at vertex 0
//! and reaches the mesh's last vertex), never a second copy of the
//! geometry. Meshes have one level of detail; it is what the BLAS holds.
//!
//! A mesh's BLAS is opaque unless a live object using it has an
//! alpha-masked material: `TlasInstance` has no per-instance opaque flag,
//! and only non-opaque geometry reaches the shader's candidate loop, where
//! the alpha test runs. The count of such objects is kept per mesh slot;
//! when it crosses zero the BLAS is made again with the other flag, and
//! the instances that use it are pointed at the new one (see `mod.rs`).

use std::mem::offset_of;

use crate::gpu_types::{GpuMesh, GpuVertex};

// The arena's vertex is what the BLAS reads: positions first.
const _: () = assert!(offset_of!(GpuVertex, position) == 0);

/// Bytes from one vertex's position to the next: the arena's vertex size.
pub(crate) const VERTEX_STRIDE_BYTES: u64 = size_of::<GpuVertex>() as u64;

/// A mesh's BLAS and what its build reads.
#[derive(Debug)]
struct MeshBlas {
    blas: wgpu::Blas,
    size: wgpu::BlasTriangleGeometrySizeDescriptor,
    first_index: u32,
    opaque: bool,
}

impl MeshBlas {
    fn new(device: &wgpu::Device, mesh: &GpuMesh, opaque: bool) -> Self {
        let size = wgpu::BlasTriangleGeometrySizeDescriptor {
            vertex_format: wgpu::VertexFormat::Float32x3,
            // From vertex 0 of the arena: indices are pre-offset.
            vertex_count: mesh.first_vertex + mesh.vertex_count,
            index_format: Some(wgpu::IndexFormat::Uint32),
            index_count: Some(mesh.index_count),
            flags: if opaque {
                wgpu::AccelerationStructureGeometryFlags::OPAQUE
            } else {
                wgpu::AccelerationStructureGeometryFlags::empty()
            },
        };
        let blas = device.create_blas(
            &wgpu::CreateBlasDescriptor {
                label: Some("unbound mesh BLAS"),
                flags: wgpu::AccelerationStructureFlags::PREFER_FAST_TRACE,
                update_mode: wgpu::AccelerationStructureUpdateMode::Build,
            },
            wgpu::BlasGeometrySizeDescriptors::Triangles {
                descriptors: vec![size.clone()],
            },
        );
        Self {
            blas,
            size,
            first_index: mesh.first_index,
            opaque,
        }
    }
}

/// Every live mesh's BLAS, by mesh slot, and which wait for their build.
#[derive(Debug, Default)]
pub(crate) struct MeshStructures {
    meshes: Vec<Option<MeshBlas>>,
    /// Live objects with an alpha-masked material, per mesh slot.
    masked_users: Vec<u32>,
    /// Mesh slots whose BLAS the next frame builds.
    pending: Vec<u32>,
    live: u32,
}

impl MeshStructures {
    /// Creates the BLAS of a mesh just added to `slot` (built by the next
    /// frame, after the upload of its vertices and indices).
    pub fn add(&mut self, device: &wgpu::Device, slot: u32, mesh: &GpuMesh) {
        let index = slot as usize;
        if index >= self.meshes.len() {
            self.meshes.resize_with(index + 1, || None);
            self.masked_users.resize(index + 1, 0);
        }
        self.meshes[index] = Some(MeshBlas::new(device, mesh, true));
        self.masked_users[index] = 0;
        self.pending.push(slot);
        self.live += 1;
    }

    /// Drops the BLAS of a mesh removed from `slot`. wgpu keeps it alive
    /// while a recorded frame or the TLAS built from it still uses it, so
    /// frames in flight trace what they were recorded with.
    pub fn remove(&mut self, slot: u32) {
        if let Some(entry) = self.meshes.get_mut(slot as usize)
            && entry.take().is_some()
        {
            self.live -= 1;
        }
        self.pending.retain(|&pending| pending != slot);
    }

    /// The BLAS of a live mesh slot.
    pub fn blas(&self, slot: u32) -> Option<&wgpu::Blas> {
        self.meshes
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map(|m| &m.blas)
    }

    /// Counts one more (`true`) or one fewer alpha-masked object using mesh
    /// `slot`. When the count crosses zero the mesh's BLAS is made again,
    /// non-opaque while the count is above zero, and `true` is returned:
    /// the instances using the mesh must take the new BLAS.
    pub fn count_masked_user(
        &mut self,
        device: &wgpu::Device,
        mesh_table: Option<&GpuMesh>,
        slot: u32,
        added: bool,
    ) -> bool {
        let Some(count) = self.masked_users.get_mut(slot as usize) else {
            return false;
        };
        *count = if added {
            *count + 1
        } else {
            count.saturating_sub(1)
        };
        let opaque = *count == 0;
        let (Some(Some(entry)), Some(mesh)) = (self.meshes.get_mut(slot as usize), mesh_table)
        else {
            return false;
        };
        if entry.opaque == opaque {
            return false;
        }
        *entry = MeshBlas::new(device, mesh, opaque);
        if !self.pending.contains(&slot) {
            self.pending.push(slot);
        }
        true
    }

    /// Live BLASes (one per live mesh).
    pub fn live(&self) -> u32 {
        self.live
    }

    /// BLASes waiting for their build.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The mesh slots whose BLAS waits for its build.
    pub fn pending_slots(&self) -> Vec<u32> {
        self.pending.clone()
    }

    /// Makes the BLASes of the live mesh slots among `slots` pending again
    /// (their build was lost with a dropped frame).
    pub fn requeue(&mut self, slots: &[u32]) {
        for &slot in slots {
            let live = self.meshes.get(slot as usize).is_some_and(Option::is_some);
            if live && !self.pending.contains(&slot) {
                self.pending.push(slot);
            }
        }
    }

    /// The build entries of every pending BLAS, reading `vertices` and
    /// `indices` (the arena's buffers as this frame's upload left them),
    /// and forgets them as pending.
    pub fn take_builds<'a>(
        &'a mut self,
        vertices: &'a wgpu::Buffer,
        indices: &'a wgpu::Buffer,
    ) -> Vec<wgpu::BlasBuildEntry<'a>> {
        let pending = std::mem::take(&mut self.pending);
        pending
            .into_iter()
            .filter_map(|slot| self.meshes.get(slot as usize).and_then(Option::as_ref))
            .map(|mesh| wgpu::BlasBuildEntry {
                blas: &mesh.blas,
                geometry: wgpu::BlasGeometries::TriangleGeometries(vec![
                    wgpu::BlasTriangleGeometry {
                        size: &mesh.size,
                        vertex_buffer: vertices,
                        first_vertex: 0,
                        vertex_stride: VERTEX_STRIDE_BYTES,
                        index_buffer: Some(indices),
                        first_index: Some(mesh.first_index),
                        transform_buffer: None,
                        transform_buffer_offset: None,
                    },
                ]),
            })
            .collect()
    }
}
