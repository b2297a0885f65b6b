//! One array of the heap: slot bookkeeping, what each slot holds, how many
//! materials reference it and the bytes it accounts for.

use crate::handles::{
    CapacityError, Handle, HandleError, OwnerId, SlotAllocator, SlotKind, Texture2dSlot,
};

use super::desc::HeapError;

/// One array of the heap. `T` is what a slot holds: a view or a sampler;
/// `()` where the texture storage keeps the contents itself (2D slots).
#[derive(Debug)]
pub(super) struct SlotArray<K, T> {
    pub slots: SlotAllocator<K>,
    /// Slots below this hold built-in fallbacks and are never freed.
    pub reserved: u32,
    pub items: Vec<Option<T>>,
    pub references: Vec<u32>,
    pub bytes: Vec<u64>,
}

impl<K: SlotKind, T> SlotArray<K, T> {
    pub fn new(owner: OwnerId, capacity: u32) -> Self {
        Self {
            slots: SlotAllocator::new(owner, capacity, 0),
            reserved: 0,
            items: Vec::new(),
            references: Vec::new(),
            bytes: Vec::new(),
        }
    }

    /// Fails before any upload when no slot can be allocated.
    pub fn check_room(&self) -> Result<(), CapacityError> {
        self.slots.check_room()
    }

    /// Puts `item` into the lowest free slot.
    pub fn insert(&mut self, item: T, bytes: u64) -> Result<Handle<K>, CapacityError> {
        let handle = self.slots.alloc()?;
        let slot = handle.slot() as usize;
        if slot >= self.items.len() {
            self.items.resize_with(slot + 1, || None);
            self.references.resize(slot + 1, 0);
            self.bytes.resize(slot + 1, 0);
        }
        self.items[slot] = Some(item);
        self.bytes[slot] = bytes;
        Ok(handle)
    }

    /// Frees the slot; refused for reserved slots and while referenced.
    /// Returns the freed slot.
    pub fn remove(&mut self, handle: Handle<K>) -> Result<u32, HeapError> {
        let slot = self.slots.resolve(handle)?;
        if slot < self.reserved {
            return Err(HandleError::Reserved {
                kind: K::NAME,
                slot,
            }
            .into());
        }
        let references = self.references[slot as usize];
        if references > 0 {
            return Err(HeapError::InUse {
                kind: K::NAME,
                slot,
                references,
            });
        }
        self.slots.free(handle)?;
        self.items[slot as usize] = None;
        self.bytes[slot as usize] = 0;
        Ok(slot)
    }

    /// Slots bound: up to the highest live one, at least one.
    pub fn bound_len(&self) -> u32 {
        self.slots.live_end().max(1)
    }

    /// The items of the bound slots, free ones replaced by slot 0's.
    pub fn bound(&self) -> Vec<&T> {
        let fallback = self.items[0].as_ref().expect("slot 0 is reserved");
        self.items[..self.bound_len() as usize]
            .iter()
            .map(|item| item.as_ref().unwrap_or(fallback))
            .collect()
    }
}

/// 2D slot bookkeeping; what each slot shows lives in the texture storage
/// (`storage.rs`).
pub(super) type Slots2d = SlotArray<Texture2dSlot, ()>;
