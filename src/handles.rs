//! Typed handles (slot + generation + owner) and the slot allocator behind
//! every table and array.
//!
//! A handle names a slot in one renderer's table. Freeing a slot bumps its
//! generation, so an old handle to a reused slot is detected as stale; the
//! owner id catches handles from another renderer. Free slots are reused
//! lowest first, which keeps the arrays dense and the bound prefix short.
//!
//! Neither number wraps, so a stale or foreign handle never becomes valid
//! again. A slot whose generation reaches `u32::MAX` is retired when freed:
//! it is never reused, and the table holds one slot fewer from then on (a
//! slot must be freed 2^32 - 1 times for that). Owner ids count up in a
//! `u64`; one process would have to create a billion tables a second for
//! 584 years to run out (then creating a table panics rather than reuse an
//! id).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// Names a kind of slot for handles and error messages.
pub trait SlotKind {
    /// Human name, used in errors.
    const NAME: &'static str;
}

macro_rules! slot_kinds {
    ($($(#[$doc:meta])* $kind:ident => $name:literal, $handle:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $kind {}
        impl SlotKind for $kind {
            const NAME: &'static str = $name;
        }
        $(#[$doc])*
        pub type $handle = Handle<$kind>;
    )*};
}

slot_kinds! {
    /// A 2D texture in the resource heap.
    Texture2dSlot => "2D texture", TextureHandle;
    /// A cube texture in the resource heap.
    TextureCubeSlot => "cube texture", CubeTextureHandle;
    /// A sampler in the resource heap.
    SamplerSlot => "sampler", SamplerHandle;
    /// A mesh in the geometry arena.
    MeshSlot => "mesh", MeshHandle;
    /// A material in the material table.
    MaterialSlot => "material", MaterialHandle;
    /// An object in the object table.
    ObjectSlot => "object", ObjectHandle;
    /// A punctual light in the light table.
    LightSlot => "light", LightHandle;
}

/// A typed reference to a slot in one renderer's table.
pub struct Handle<K> {
    slot: u32,
    generation: u32,
    owner: OwnerId,
    kind: PhantomData<fn() -> K>,
}

impl<K> Handle<K> {
    /// The slot index: what shaders see.
    pub fn slot(self) -> u32 {
        self.slot
    }

    /// How many times the slot was freed before this handle was made.
    pub fn generation(self) -> u32 {
        self.generation
    }
}

impl<K> Clone for Handle<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for Handle<K> {}
impl<K> PartialEq for Handle<K> {
    fn eq(&self, other: &Self) -> bool {
        (self.slot, self.generation, self.owner) == (other.slot, other.generation, other.owner)
    }
}
impl<K> Eq for Handle<K> {}
impl<K> Hash for Handle<K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.slot, self.generation, self.owner).hash(state);
    }
}
impl<K: SlotKind> fmt::Debug for Handle<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}v{}", K::NAME, self.slot, self.generation)
    }
}

/// A handle that does not name a live slot of this renderer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandleError {
    /// The slot was freed (and maybe reused) since the handle was made.
    #[error("stale {kind} handle: slot {slot} generation {generation} was freed")]
    Stale {
        /// Kind of slot.
        kind: &'static str,
        /// Slot index.
        slot: u32,
        /// Generation the handle carries.
        generation: u32,
    },
    /// The handle belongs to another renderer.
    #[error("{kind} handle belongs to another renderer")]
    Foreign {
        /// Kind of slot.
        kind: &'static str,
    },
    /// The slot is reserved (slot 0 of arrays with a built-in fallback).
    #[error("{kind} slot {slot} is reserved and cannot be freed")]
    Reserved {
        /// Kind of slot.
        kind: &'static str,
        /// Slot index.
        slot: u32,
    },
}

/// Every table is full.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} capacity {capacity} exhausted")]
pub struct CapacityError {
    /// Kind of slot.
    pub kind: &'static str,
    /// The configured capacity.
    pub capacity: u32,
}

/// Names the table (of one renderer) a handle belongs to.
pub(crate) type OwnerId = u64;

static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// A fresh owner id, unique in this process: the counter never wraps.
pub(crate) fn new_owner_id() -> OwnerId {
    NEXT_OWNER
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |id| id.checked_add(1))
        .expect("fewer than 2^64 tables created in one process")
}

/// Slot bookkeeping for one table: generations, liveness, a lowest-first free
/// list and the high-water mark.
#[derive(Debug)]
pub(crate) struct SlotAllocator<K> {
    owner: OwnerId,
    capacity: u32,
    reserved: u32,
    generations: Vec<u32>,
    live: Vec<bool>,
    free: BinaryHeap<Reverse<u32>>,
    live_count: u32,
    kind: PhantomData<fn() -> K>,
}

impl<K: SlotKind> SlotAllocator<K> {
    /// An allocator of `capacity` slots, the first `reserved` of which are
    /// allocated at once and can never be freed.
    pub fn new(owner: OwnerId, capacity: u32, reserved: u32) -> Self {
        let mut allocator = Self {
            owner,
            capacity,
            reserved,
            generations: Vec::new(),
            live: Vec::new(),
            free: BinaryHeap::new(),
            live_count: 0,
            kind: PhantomData,
        };
        for _ in 0..reserved {
            allocator.alloc().expect("reserved slots fit the capacity");
        }
        allocator
    }

    /// Fails when no slot can be allocated: every slot is live or retired.
    pub fn check_room(&self) -> Result<(), CapacityError> {
        if self.free.is_empty() && self.generations.len() as u64 >= u64::from(self.capacity) {
            return Err(CapacityError {
                kind: K::NAME,
                capacity: self.capacity,
            });
        }
        Ok(())
    }

    /// Takes the lowest free slot.
    pub fn alloc(&mut self) -> Result<Handle<K>, CapacityError> {
        self.check_room()?;
        let slot = match self.free.pop() {
            Some(Reverse(slot)) => slot,
            None => {
                let slot = self.generations.len() as u32;
                self.generations.push(0);
                self.live.push(false);
                slot
            }
        };
        self.live[slot as usize] = true;
        self.live_count += 1;
        Ok(self.handle(slot))
    }

    fn handle(&self, slot: u32) -> Handle<K> {
        Handle {
            slot,
            generation: self.generations[slot as usize],
            owner: self.owner,
            kind: PhantomData,
        }
    }

    /// The current handle of live slot `slot`.
    pub fn handle_of(&self, slot: u32) -> Handle<K> {
        debug_assert!(self.is_live(slot));
        self.handle(slot)
    }

    /// Checks that `handle` names a live slot; returns the slot index.
    pub fn resolve(&self, handle: Handle<K>) -> Result<u32, HandleError> {
        if handle.owner != self.owner {
            return Err(HandleError::Foreign { kind: K::NAME });
        }
        let index = handle.slot as usize;
        if index < self.live.len()
            && self.live[index]
            && self.generations[index] == handle.generation
        {
            Ok(handle.slot)
        } else {
            Err(HandleError::Stale {
                kind: K::NAME,
                slot: handle.slot,
                generation: handle.generation,
            })
        }
    }

    /// Frees the slot; its generation moves on so old handles become stale.
    /// A slot at the last generation is retired instead: never reused, so
    /// its generations never start again.
    pub fn free(&mut self, handle: Handle<K>) -> Result<u32, HandleError> {
        let slot = self.resolve(handle)?;
        if slot < self.reserved {
            return Err(HandleError::Reserved {
                kind: K::NAME,
                slot,
            });
        }
        let index = slot as usize;
        self.live[index] = false;
        if let Some(next) = self.generations[index].checked_add(1) {
            self.generations[index] = next;
            self.free.push(Reverse(slot));
        }
        self.live_count -= 1;
        Ok(slot)
    }

    /// Highest live slot + 1.
    pub fn live_end(&self) -> u32 {
        self.live
            .iter()
            .rposition(|&live| live)
            .map_or(0, |last| last as u32 + 1)
    }

    /// Live slots.
    pub fn live_count(&self) -> u32 {
        self.live_count
    }

    /// Whether `slot` is live.
    pub fn is_live(&self, slot: u32) -> bool {
        self.live.get(slot as usize).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allocator() -> SlotAllocator<MeshSlot> {
        SlotAllocator::new(new_owner_id(), 4, 1)
    }

    #[test]
    fn freed_slot_is_reused_lowest_first_with_new_generation() {
        let mut slots = allocator();
        let a = slots.alloc().unwrap();
        let b = slots.alloc().unwrap();
        assert_eq!((a.slot(), b.slot()), (1, 2));
        slots.free(b).unwrap();
        slots.free(a).unwrap();
        let c = slots.alloc().unwrap();
        assert_eq!(c.slot(), 1);
        assert_eq!(c.generation(), 1);
        assert!(matches!(slots.resolve(a), Err(HandleError::Stale { .. })));
        assert_eq!(slots.resolve(c), Ok(1));
    }

    #[test]
    fn capacity_foreign_and_reserved_are_errors() {
        let mut slots = allocator();
        for _ in 0..3 {
            slots.alloc().unwrap();
        }
        assert!(slots.alloc().is_err());
        let other = allocator();
        let foreign = other.handle_of(0);
        assert!(matches!(
            slots.resolve(foreign),
            Err(HandleError::Foreign { .. })
        ));
        let zero = slots.handle_of(0);
        assert!(matches!(
            slots.free(zero),
            Err(HandleError::Reserved { .. })
        ));
        assert_eq!(slots.live_end(), 4);
    }

    /// A slot freed at the last generation is retired: the handle of its
    /// first generation (0) never resolves again, and the table holds one
    /// slot fewer.
    #[test]
    fn generations_never_wrap_into_a_live_handle() {
        let mut slots = allocator();
        let first = slots.alloc().unwrap();
        slots.free(first).unwrap();
        // As if the slot had been freed 2^32 - 2 more times.
        slots.generations[first.slot() as usize] = u32::MAX;
        let last = slots.alloc().unwrap();
        assert_eq!((last.slot(), last.generation()), (first.slot(), u32::MAX));
        slots.free(last).unwrap();
        for handle in [first, last] {
            assert!(matches!(
                slots.resolve(handle),
                Err(HandleError::Stale { .. })
            ));
        }
        let others = [slots.alloc().unwrap(), slots.alloc().unwrap()];
        assert!(others.iter().all(|h| h.slot() != first.slot()));
        for handle in [first, last] {
            assert!(slots.resolve(handle).is_err());
        }
        // Slot 0 reserved, slot 1 retired, slots 2 and 3 live: full.
        assert!(slots.check_room().is_err());
        assert!(slots.alloc().is_err());
        slots.free(others[0]).unwrap();
        assert_eq!(slots.alloc().unwrap().slot(), others[0].slot());
    }

    /// Owner ids keep counting past `u32::MAX`: a renderer created after
    /// 2^32 others does not take the id of the first.
    #[test]
    fn owner_ids_do_not_wrap_at_2_pow_32() {
        let early = new_owner_id();
        NEXT_OWNER.fetch_max(u64::from(u32::MAX), Ordering::Relaxed);
        let ids = [new_owner_id(), new_owner_id(), new_owner_id()];
        assert!(ids[0] >= u64::from(u32::MAX), "{ids:?}");
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        assert!(!ids.contains(&early));
        let mut mine = SlotAllocator::<MeshSlot>::new(ids[1], 4, 0);
        let theirs = SlotAllocator::<MeshSlot>::new(ids[1] - (1 << 32), 4, 0);
        let handle = mine.alloc().unwrap();
        assert!(matches!(
            theirs.resolve(handle),
            Err(HandleError::Foreign { .. })
        ));
    }
}
