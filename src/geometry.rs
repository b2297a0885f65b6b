//! The geometry arena: one vertex storage buffer and one index buffer for
//! every mesh, read by shaders through indices (vertex pulling).
//!
//! Meshes are sub-allocated ranges of both buffers; freed ranges are reused
//! (first fit, coalesced); the buffers grow by reallocation plus a GPU copy.
//! Indices are stored already offset by the mesh's first vertex, so every
//! draw uses base vertex 0: on DX12, wgpu passes neither base vertex nor first
//! instance to shaders under multi-draw-indirect-count (wgpu issue 7974).

use std::ops::Range;

use glam::{Vec2, Vec3};

use crate::gpu_table::GpuTable;
use crate::gpu_types::{GpuMesh, GpuVertex, INDEX_SIZE_BYTES};
use crate::handles::{
    CapacityError, HandleError, MeshHandle, MeshSlot, SlotAllocator, new_owner_id,
};
use crate::range_alloc::RangeAllocator;
use crate::upload::UploadBatch;

/// Vertices and indices the arena starts with (it grows up to its capacity).
const INITIAL_VERTICES: u32 = 1 << 16;
const INITIAL_INDICES: u32 = 1 << 18;

/// A triangle-list mesh to upload. Attributes other than positions are
/// optional: normals are computed (area-weighted) when missing, tangents from
/// the first UV set, UVs default to zero.
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshData<'a> {
    /// Object-space positions.
    pub positions: &'a [[f32; 3]],
    /// Unit normals.
    pub normals: Option<&'a [[f32; 3]]>,
    /// Tangents: xyz direction, w handedness (±1).
    pub tangents: Option<&'a [[f32; 4]]>,
    /// First UV set.
    pub uv0: Option<&'a [[f32; 2]]>,
    /// Second UV set.
    pub uv1: Option<&'a [[f32; 2]]>,
    /// Triangle list, indices into `positions`.
    pub indices: &'a [u32],
}

/// Object-space bounds of a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshBounds {
    /// Box minimum.
    pub min: Vec3,
    /// Box maximum.
    pub max: Vec3,
    /// Sphere centre (the box centre).
    pub center: Vec3,
    /// Sphere radius (enclosing every vertex).
    pub radius: f32,
}

/// Why a mesh was rejected. The arena is unchanged after any error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// No positions or no indices.
    #[error("mesh has no {what}")]
    Empty {
        /// "positions" or "indices".
        what: &'static str,
    },
    /// The index count is not a multiple of 3.
    #[error("index count {count} is not a multiple of 3")]
    NotTriangles {
        /// Indices given.
        count: usize,
    },
    /// An attribute's length differs from the position count.
    #[error("{attribute} has {actual} elements, positions have {expected}")]
    AttributeLength {
        /// Attribute name.
        attribute: &'static str,
        /// Position count.
        expected: usize,
        /// Attribute length.
        actual: usize,
    },
    /// NaN or infinity in an attribute.
    #[error("{attribute}[{index}] is not finite")]
    NonFinite {
        /// Attribute name.
        attribute: &'static str,
        /// Element index.
        index: usize,
    },
    /// An index past the vertex count.
    #[error("indices[{position}] = {value} is out of range for {vertex_count} vertices")]
    IndexOutOfRange {
        /// Where in the index list.
        position: usize,
        /// The index.
        value: u32,
        /// Vertices in the mesh.
        vertex_count: usize,
    },
    /// The arena cannot hold the mesh.
    #[error("geometry arena full: {what} needs {requested}, at most {available} available")]
    ArenaFull {
        /// "vertices" or "indices".
        what: &'static str,
        /// Elements requested.
        requested: usize,
        /// Largest allocation possible.
        available: u32,
    },
    /// Mesh table full.
    #[error(transparent)]
    Capacity(#[from] CapacityError),
    /// Stale or foreign handle.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// Live objects still use the mesh.
    #[error("mesh slot {slot} is still used by {objects} object(s)")]
    InUse {
        /// The mesh slot.
        slot: u32,
        /// Live objects referencing it.
        objects: u32,
    },
}

/// A growable GPU buffer whose contents live only on the GPU: growing copies
/// the old contents over in the frame's encoder.
#[derive(Debug)]
struct ArenaBuffer {
    label: &'static str,
    usage: wgpu::BufferUsages,
    buffer: wgpu::Buffer,
    stride: u64,
    version: u64,
}

impl ArenaBuffer {
    fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
        stride: u64,
        len: u32,
    ) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        Self {
            label,
            usage,
            buffer: Self::create(device, label, usage, stride * u64::from(len)),
            stride,
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

    /// Reallocates to `len` elements if smaller, copying the old contents.
    fn ensure(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        len: u32,
    ) -> u32 {
        let size = self.stride * u64::from(len);
        if size <= self.buffer.size() {
            return 0;
        }
        let buffer = Self::create(device, self.label, self.usage, size);
        encoder.copy_buffer_to_buffer(&self.buffer, 0, &buffer, 0, self.buffer.size());
        self.buffer = buffer;
        self.version += 1;
        1
    }
}

/// A mesh's place in the arena.
#[derive(Clone, Debug)]
struct MeshRecord {
    vertices: Range<u32>,
    indices: Range<u32>,
    bounds: MeshBounds,
    objects: u32,
}

/// Every mesh's vertices and indices in two shared buffers, plus the mesh
/// table the cull pass reads. See the module docs.
#[derive(Debug)]
pub struct GeometryArena {
    vertex_ranges: RangeAllocator,
    index_ranges: RangeAllocator,
    vertices: ArenaBuffer,
    indices: ArenaBuffer,
    pending: Vec<(bool, u64, Vec<u8>)>,
    slots: SlotAllocator<MeshSlot>,
    records: Vec<Option<MeshRecord>>,
    table: GpuTable<GpuMesh>,
}

fn check_finite<const N: usize>(
    attribute: &'static str,
    values: &[[f32; N]],
) -> Result<(), GeometryError> {
    match values.iter().position(|v| v.iter().any(|x| !x.is_finite())) {
        Some(index) => Err(GeometryError::NonFinite { attribute, index }),
        None => Ok(()),
    }
}

fn check_len<T>(
    attribute: &'static str,
    values: Option<&[T]>,
    expected: usize,
) -> Result<(), GeometryError> {
    match values {
        Some(v) if v.len() != expected => Err(GeometryError::AttributeLength {
            attribute,
            expected,
            actual: v.len(),
        }),
        _ => Ok(()),
    }
}

impl MeshData<'_> {
    /// Checks everything the arena relies on.
    pub fn validate(&self) -> Result<(), GeometryError> {
        let n = self.positions.len();
        if n == 0 {
            return Err(GeometryError::Empty { what: "positions" });
        }
        if self.indices.is_empty() {
            return Err(GeometryError::Empty { what: "indices" });
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(GeometryError::NotTriangles {
                count: self.indices.len(),
            });
        }
        check_len("normals", self.normals, n)?;
        check_len("tangents", self.tangents, n)?;
        check_len("uv0", self.uv0, n)?;
        check_len("uv1", self.uv1, n)?;
        check_finite("positions", self.positions)?;
        check_finite("normals", self.normals.unwrap_or_default())?;
        check_finite("tangents", self.tangents.unwrap_or_default())?;
        check_finite("uv0", self.uv0.unwrap_or_default())?;
        check_finite("uv1", self.uv1.unwrap_or_default())?;
        if let Some(position) = self.indices.iter().position(|&i| i as usize >= n) {
            return Err(GeometryError::IndexOutOfRange {
                position,
                value: self.indices[position],
                vertex_count: n,
            });
        }
        Ok(())
    }

    /// Object-space bounds of the positions.
    pub fn bounds(&self) -> MeshBounds {
        let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for p in self.positions {
            min = min.min(Vec3::from(*p));
            max = max.max(Vec3::from(*p));
        }
        let center = (min + max) * 0.5;
        let radius = self
            .positions
            .iter()
            .map(|p| Vec3::from(*p).distance(center))
            .fold(0.0, f32::max);
        MeshBounds {
            min,
            max,
            center,
            radius,
        }
    }

    /// Area-weighted vertex normals of the triangles.
    fn computed_normals(&self) -> Vec<Vec3> {
        let mut normals = vec![Vec3::ZERO; self.positions.len()];
        for tri in self.indices.chunks_exact(3) {
            let [a, b, c] =
                [tri[0], tri[1], tri[2]].map(|i| Vec3::from(self.positions[i as usize]));
            let n = (b - a).cross(c - a);
            for &i in tri {
                normals[i as usize] += n;
            }
        }
        normals
            .into_iter()
            .map(|n| n.try_normalize().unwrap_or(Vec3::Z))
            .collect()
    }

    /// Per-vertex tangents from the first UV set (accumulated per triangle,
    /// Gram-Schmidt against the normal), or any perpendicular without UVs.
    fn computed_tangents(&self, normals: &[Vec3]) -> Vec<[f32; 4]> {
        let n = self.positions.len();
        let mut tangent = vec![Vec3::ZERO; n];
        let mut bitangent = vec![Vec3::ZERO; n];
        if let Some(uv) = self.uv0 {
            for tri in self.indices.chunks_exact(3) {
                let [i0, i1, i2] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
                let [p0, p1, p2] = [i0, i1, i2].map(|i| Vec3::from(self.positions[i]));
                let [t0, t1, t2] = [i0, i1, i2].map(|i| Vec2::from(uv[i]));
                let (e1, e2) = (p1 - p0, p2 - p0);
                let (d1, d2) = (t1 - t0, t2 - t0);
                let det = d1.x * d2.y - d2.x * d1.y;
                if det.abs() < 1e-12 {
                    continue;
                }
                let r = 1.0 / det;
                let t = (e1 * d2.y - e2 * d1.y) * r;
                let b = (e2 * d1.x - e1 * d2.x) * r;
                for i in [i0, i1, i2] {
                    tangent[i] += t;
                    bitangent[i] += b;
                }
            }
        }
        (0..n)
            .map(|i| {
                let normal = normals[i];
                let t = tangent[i] - normal * normal.dot(tangent[i]);
                let t = t
                    .try_normalize()
                    .unwrap_or_else(|| normal.any_orthonormal_vector());
                let w = if normal.cross(t).dot(bitangent[i]) < 0.0 {
                    -1.0
                } else {
                    1.0
                };
                [t.x, t.y, t.z, w]
            })
            .collect()
    }

    /// The vertices in the arena's packed format.
    pub fn packed_vertices(&self) -> Vec<GpuVertex> {
        let normals: Vec<Vec3> = match self.normals {
            Some(normals) => normals
                .iter()
                .map(|n| Vec3::from(*n).try_normalize().unwrap_or(Vec3::Z))
                .collect(),
            None => self.computed_normals(),
        };
        let tangents = match self.tangents {
            Some(t) => t.to_vec(),
            None => self.computed_tangents(&normals),
        };
        (0..self.positions.len())
            .map(|i| GpuVertex {
                position: self.positions[i],
                normal_oct: encode_octahedral(normals[i]),
                tangent: pack_4x8_snorm(tangents[i]),
                uv0: self.uv0.map_or([0.0; 2], |uv| uv[i]),
                uv1: self.uv1.map_or([0.0; 2], |uv| uv[i]),
            })
            .collect()
    }
}

/// Octahedral encoding of a unit vector as two 16-bit snorms (WGSL
/// `unpack2x16snorm` order: x in the low half).
pub fn encode_octahedral(n: Vec3) -> u32 {
    let n = n / (n.x.abs() + n.y.abs() + n.z.abs());
    let e = if n.z >= 0.0 {
        Vec2::new(n.x, n.y)
    } else {
        let sign = Vec2::new(n.x.signum(), n.y.signum());
        (Vec2::ONE - Vec2::new(n.y.abs(), n.x.abs())) * sign
    };
    let snorm = |v: f32| u32::from((v.clamp(-1.0, 1.0) * 32767.0).round() as i16 as u16);
    snorm(e.x) | (snorm(e.y) << 16)
}

/// WGSL `pack4x8snorm`.
pub fn pack_4x8_snorm(v: [f32; 4]) -> u32 {
    v.iter().enumerate().fold(0, |packed, (i, x)| {
        let byte = u32::from((x.clamp(-1.0, 1.0) * 127.0).round() as i8 as u8);
        packed | (byte << (8 * i))
    })
}

impl GeometryArena {
    pub(crate) fn new(
        device: &wgpu::Device,
        max_vertices: u32,
        max_indices: u32,
        max_meshes: u32,
    ) -> Self {
        let initial_vertices = INITIAL_VERTICES.min(max_vertices);
        let initial_indices = INITIAL_INDICES.min(max_indices);
        Self {
            vertex_ranges: RangeAllocator::new(initial_vertices, max_vertices),
            index_ranges: RangeAllocator::new(initial_indices, max_indices),
            vertices: ArenaBuffer::new(
                device,
                "unbound arena vertices",
                wgpu::BufferUsages::STORAGE,
                size_of::<GpuVertex>() as u64,
                initial_vertices,
            ),
            indices: ArenaBuffer::new(
                device,
                "unbound arena indices",
                wgpu::BufferUsages::INDEX,
                INDEX_SIZE_BYTES,
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
        }
    }

    /// Validates and stages a mesh; its data reaches the GPU with the next frame.
    pub fn add(&mut self, data: &MeshData<'_>) -> Result<MeshHandle, GeometryError> {
        data.validate()?;
        let vertex_count = data.positions.len();
        let index_count = data.indices.len();
        let too_big = |what, requested, available| GeometryError::ArenaFull {
            what,
            requested,
            available,
        };
        if vertex_count > self.vertex_ranges.available() as usize {
            return Err(too_big(
                "vertices",
                vertex_count,
                self.vertex_ranges.available(),
            ));
        }
        if index_count > self.index_ranges.available() as usize {
            return Err(too_big(
                "indices",
                index_count,
                self.index_ranges.available(),
            ));
        }
        if self.slots.live_count() >= self.slots.capacity() {
            return Err(CapacityError {
                kind: "mesh",
                capacity: self.slots.capacity(),
            }
            .into());
        }
        let vertices = self
            .vertex_ranges
            .alloc(vertex_count as u32)
            .expect("checked available");
        let indices = self
            .index_ranges
            .alloc(index_count as u32)
            .expect("checked available");
        let handle = self.slots.alloc()?;

        let packed = data.packed_vertices();
        let offset_indices: Vec<u32> = data.indices.iter().map(|i| i + vertices.start).collect();
        self.pending.push((
            true,
            u64::from(vertices.start) * size_of::<GpuVertex>() as u64,
            bytemuck::cast_slice(&packed).to_vec(),
        ));
        self.pending.push((
            false,
            u64::from(indices.start) * INDEX_SIZE_BYTES,
            bytemuck::cast_slice(&offset_indices).to_vec(),
        ));

        let bounds = data.bounds();
        self.table.set(
            handle.slot(),
            GpuMesh {
                first_index: indices.start,
                index_count: index_count as u32,
                first_vertex: vertices.start,
                vertex_count: vertex_count as u32,
                bounding_sphere: bounds.center.extend(bounds.radius).to_array(),
                aabb_min: bounds.min.extend(0.0).to_array(),
                aabb_max: bounds.max.extend(0.0).to_array(),
            },
        );
        let slot = handle.slot() as usize;
        if slot >= self.records.len() {
            self.records.resize(slot + 1, None);
        }
        self.records[slot] = Some(MeshRecord {
            vertices,
            indices,
            bounds,
            objects: 0,
        });
        Ok(handle)
    }

    /// Frees a mesh's ranges for reuse. Refused while live objects use it.
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
        // An empty entry: the cull pass skips meshes without indices.
        self.table.set(slot, GpuMesh::default());
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

    /// Index count of a live mesh slot.
    pub fn index_count(&self, slot: u32) -> u32 {
        self.table.get(slot).map_or(0, |m| m.index_count)
    }

    pub(crate) fn retain(&mut self, slot: u32) {
        if let Some(record) = self.records[slot as usize].as_mut() {
            record.objects += 1;
        }
    }

    pub(crate) fn release(&mut self, slot: u32) {
        if let Some(record) = self.records[slot as usize].as_mut() {
            record.objects -= 1;
        }
    }

    /// Mesh slots in use (high-water mark): what the cull pass scans.
    pub fn mesh_slots(&self) -> u32 {
        self.table.len()
    }

    /// Live meshes.
    pub fn mesh_count(&self) -> u32 {
        self.slots.live_count()
    }

    /// Vertices the arena's buffer holds room for.
    pub fn vertex_capacity(&self) -> u32 {
        self.vertex_ranges.size()
    }

    /// Records growth copies and queues staged data and mesh-table changes.
    pub(crate) fn flush(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        batch: &mut UploadBatch,
    ) -> u32 {
        let mut commands = self
            .vertices
            .ensure(device, encoder, self.vertex_ranges.size());
        commands += self
            .indices
            .ensure(device, encoder, self.index_ranges.size());
        for (is_vertex, offset, bytes) in self.pending.drain(..) {
            let target = if is_vertex {
                &self.vertices.buffer
            } else {
                &self.indices.buffer
            };
            batch.write(target, offset, &bytes);
        }
        self.table.flush(device, batch);
        commands
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

    /// Changes whenever one of the arena's buffers is replaced.
    pub(crate) fn version(&self) -> u64 {
        self.vertices.version + self.indices.version + self.table.version()
    }

    /// Bytes of GPU memory the arena holds.
    pub fn size_bytes(&self) -> u64 {
        self.vertices.buffer.size() + self.indices.buffer.size() + self.table.size_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octahedral_round_trip_is_close() {
        for n in [
            Vec3::X,
            -Vec3::Y,
            Vec3::new(0.3, -0.5, -0.8).normalize(),
            Vec3::new(-0.6, 0.1, 0.2).normalize(),
        ] {
            let packed = encode_octahedral(n);
            let e = Vec2::new(
                f32::from((packed & 0xffff) as u16 as i16) / 32767.0,
                f32::from((packed >> 16) as u16 as i16) / 32767.0,
            );
            let mut d = Vec3::new(e.x, e.y, 1.0 - e.x.abs() - e.y.abs());
            if d.z < 0.0 {
                let folded = (Vec2::ONE - Vec2::new(d.y.abs(), d.x.abs()))
                    * Vec2::new(d.x.signum(), d.y.signum());
                d = Vec3::new(folded.x, folded.y, d.z);
            }
            assert!(d.normalize().dot(n) > 0.9999, "{n} -> {d}");
        }
    }

    #[test]
    fn bad_meshes_are_rejected() {
        let p = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let ok = MeshData {
            positions: &p,
            indices: &[0, 1, 2],
            ..Default::default()
        };
        assert!(ok.validate().is_ok());
        let bad = MeshData {
            indices: &[0, 1, 3],
            ..ok
        };
        assert!(matches!(
            bad.validate(),
            Err(GeometryError::IndexOutOfRange { value: 3, .. })
        ));
        let nan = [[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let bad = MeshData {
            positions: &nan,
            ..ok
        };
        assert!(matches!(
            bad.validate(),
            Err(GeometryError::NonFinite { .. })
        ));
        let bad = MeshData {
            indices: &[0, 1],
            ..ok
        };
        assert!(matches!(
            bad.validate(),
            Err(GeometryError::NotTriangles { .. })
        ));
    }
}
