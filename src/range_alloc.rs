//! First-fit range allocation with coalescing free lists, for the geometry
//! arena's vertex and index buffers.

use std::ops::Range;

#[derive(Debug)]
pub(crate) struct RangeAllocator {
    /// Sorted, disjoint, coalesced free ranges inside `0..size`.
    free: Vec<Range<u32>>,
    size: u32,
    max_size: u32,
}

impl RangeAllocator {
    pub fn new(size: u32, max_size: u32) -> Self {
        let mut allocator = Self {
            free: Vec::new(),
            size,
            max_size,
        };
        allocator.free_range(0..size);
        allocator
    }

    pub fn size(&self) -> u32 {
        self.size
    }

    /// Allocates `len` elements, growing the space (doubling, up to the
    /// maximum) if no free range fits. `None` if even the maximum is too small.
    pub fn alloc(&mut self, len: u32) -> Option<Range<u32>> {
        debug_assert!(len > 0);
        if let Some(i) = self.free.iter().position(|r| r.len() as u32 >= len) {
            let start = self.free[i].start;
            self.free[i].start += len;
            if self.free[i].is_empty() {
                self.free.remove(i);
            }
            return Some(start..start + len);
        }
        // Grow: the tail free range (if it reaches the end) extends.
        let tail = match self.free.last() {
            Some(r) if r.end == self.size => r.len() as u32,
            _ => 0,
        };
        let needed = u64::from(self.size) + u64::from(len - tail);
        if needed > u64::from(self.max_size) {
            return None;
        }
        let new_size = (u64::from(self.size) * 2)
            .max(needed)
            .min(u64::from(self.max_size)) as u32;
        self.free_range(self.size..new_size);
        self.size = new_size;
        self.alloc(len)
    }

    /// Largest allocation that could succeed now (growth included).
    pub fn available(&self) -> u32 {
        let tail = match self.free.last() {
            Some(r) if r.end == self.size => r.len() as u32,
            _ => 0,
        };
        let largest = self.free.iter().map(|r| r.len() as u32).max().unwrap_or(0);
        largest.max(self.max_size - self.size + tail)
    }

    pub fn free_range(&mut self, range: Range<u32>) {
        if range.is_empty() {
            return;
        }
        let i = self.free.partition_point(|r| r.start < range.start);
        self.free.insert(i, range);
        if i + 1 < self.free.len() && self.free[i].end == self.free[i + 1].start {
            self.free[i].end = self.free[i + 1].end;
            self.free.remove(i + 1);
        }
        if i > 0 && self.free[i - 1].end == self.free[i].start {
            self.free[i - 1].end = self.free[i].end;
            self.free.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RangeAllocator;

    #[test]
    fn freed_ranges_are_reused_and_coalesced() {
        let mut ranges = RangeAllocator::new(8, 64);
        let a = ranges.alloc(4).unwrap();
        let b = ranges.alloc(4).unwrap();
        assert_eq!((a.clone(), b.clone()), (0..4, 4..8));
        let c = ranges.alloc(8).unwrap();
        assert_eq!(c, 8..16);
        assert_eq!(ranges.size(), 16);
        ranges.free_range(a);
        ranges.free_range(b);
        assert_eq!(ranges.alloc(8).unwrap(), 0..8);
        assert!(ranges.alloc(64).is_none());
        assert_eq!(ranges.available(), 48);
    }
}
