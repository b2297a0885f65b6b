//! A GPU storage buffer mirrored by a CPU array that uploads only what
//! changed, and grows (by reallocation) up to a fixed capacity.

use std::ops::Range;

use bytemuck::Pod;

use crate::upload::UploadBatch;

/// Smallest buffer a table allocates, in elements.
const MIN_ELEMENTS: u32 = 64;

/// Bytes of `len` elements of `T` in a GPU array: how every table sizes its
/// buffer, and what `Capacities::buffers` checks against the device limits.
/// A `u32` count times a struct size cannot overflow `u64`.
pub(crate) const fn array_size_bytes<T>(len: u32) -> u64 {
    len as u64 * size_of::<T>() as u64
}

/// Dirty ranges listed before they are merged.
const MERGE_DIRTY_AT: usize = 1024;

/// The element ranges written since the last upload. Writing the same
/// elements again and again between two frames keeps the list at most about
/// twice the distinct ranges written (merged when it doubles), not one entry
/// per write.
#[derive(Debug, Default)]
struct DirtyRanges {
    ranges: Vec<Range<u32>>,
    /// `ranges`' length at which it is merged next.
    merge_at: usize,
}

impl DirtyRanges {
    /// Marks element `index` written.
    fn mark(&mut self, index: u32) {
        match self.ranges.last_mut() {
            Some(last) if last.end == index => last.end += 1,
            Some(last) if last.contains(&index) => {}
            _ => self.ranges.push(index..index + 1),
        }
        if self.ranges.len() >= self.merge_at.max(MERGE_DIRTY_AT) {
            self.merge();
            self.merge_at = 2 * self.ranges.len();
        }
    }

    /// Marks `range` written.
    fn mark_range(&mut self, range: Range<u32>) {
        self.ranges.push(range);
    }

    /// Sorts the ranges and merges overlapping and touching ones.
    fn merge(&mut self) {
        self.ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<u32>> = Vec::with_capacity(self.ranges.len());
        for range in self.ranges.drain(..) {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        self.ranges = merged;
    }

    /// The merged ranges, sorted; the list is left empty.
    fn take(&mut self) -> Vec<Range<u32>> {
        self.merge();
        self.merge_at = 0;
        std::mem::take(&mut self.ranges)
    }

    fn clear(&mut self) {
        self.ranges.clear();
        self.merge_at = 0;
    }

    fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

#[derive(Debug)]
pub(crate) struct GpuTable<T> {
    label: &'static str,
    usage: wgpu::BufferUsages,
    cpu: Vec<T>,
    buffer: wgpu::Buffer,
    gpu_len: u32,
    max_len: u32,
    dirty: DirtyRanges,
    version: u64,
}

impl<T: Pod + Default> GpuTable<T> {
    pub fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
        max_len: u32,
    ) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let gpu_len = MIN_ELEMENTS.min(max_len.max(1));
        Self {
            label,
            usage,
            cpu: Vec::new(),
            buffer: Self::create(device, label, usage, gpu_len),
            gpu_len,
            max_len,
            dirty: DirtyRanges::default(),
            version: 0,
        }
    }

    fn create(
        device: &wgpu::Device,
        label: &str,
        usage: wgpu::BufferUsages,
        len: u32,
    ) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: array_size_bytes::<T>(len),
            usage,
            mapped_at_creation: false,
        })
    }

    /// Writes element `index` (growing the CPU side if needed).
    pub fn set(&mut self, index: u32, value: T) {
        debug_assert!(index < self.max_len);
        let i = index as usize;
        if i >= self.cpu.len() {
            self.cpu.resize(i + 1, T::default());
        }
        self.cpu[i] = value;
        self.dirty.mark(index);
    }

    pub fn get(&self, index: u32) -> Option<&T> {
        self.cpu.get(index as usize)
    }

    /// Elements in use on the CPU side.
    pub fn len(&self) -> u32 {
        self.cpu.len() as u32
    }

    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Changes whenever the buffer is replaced (bind groups must follow).
    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn size_bytes(&self) -> u64 {
        self.buffer.size()
    }

    /// Queues the changed ranges; reallocates first if the CPU side outgrew
    /// the buffer (then everything is uploaded again from the CPU mirror).
    pub fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        if self.len() > self.gpu_len {
            let len = self
                .len()
                .checked_next_power_of_two()
                .unwrap_or(u32::MAX)
                .clamp(MIN_ELEMENTS, self.max_len.max(self.len()));
            self.buffer = Self::create(device, self.label, self.usage, len);
            self.gpu_len = len;
            self.version += 1;
            self.dirty.clear();
            self.dirty.mark_range(0..self.len());
        }
        if self.dirty.is_empty() {
            return;
        }
        let stride = size_of::<T>() as u64;
        for range in self.dirty.take() {
            let bytes = bytemuck::cast_slice(&self.cpu[range.start as usize..range.end as usize]);
            batch.write(&self.buffer, u64::from(range.start) * stride, bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writing two elements in turn a million times between two frames
    /// keeps two ranges, not a million.
    #[test]
    fn repeated_writes_keep_the_dirty_list_bounded() {
        let mut dirty = DirtyRanges::default();
        for i in 0..1_000_000 {
            dirty.mark(if i % 2 == 0 { 10 } else { 20 });
            assert!(dirty.ranges.len() <= MERGE_DIRTY_AT, "after {i} writes");
        }
        dirty.mark(11);
        assert_eq!(dirty.take(), [10..12, 20..21]);
        assert!(dirty.is_empty());
    }
}
