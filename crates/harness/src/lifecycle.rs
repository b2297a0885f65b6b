//! Creating and destroying Vulkan instances and devices one at a time
//! in a process: a mitigation for a data race in the Khronos validation
//! layer that CI runs, not for anything unbound or wgpu does.
//!
//! **The race.** The validation layers CI installs (Debian 12's, 1.3.239;
//! still so in 1.3.275) keep every instance's and device's state in one
//! process-wide map, `layer_data_map` in the layer's chassis, read by
//! every Vulkan call and written by `vkCreateInstance`, `vkCreateDevice`
//! and their destroys, with no lock: `GetLayerDataPtr` carries the
//! comment "TODO: We probably should lock here, or have caller lock".
//! Tests run in parallel threads, each with its own instance and device,
//! so creations and destructions overlap. From v1.4.304 (commit 3d4d519,
//! 2024-11) the layer keeps these maps behind locks.
//!
//! **Evidence.** `texture_pages` aborted once in CI with glibc's
//! "corrupted double-linked list" after 5 of its 6 tests had passed (five
//! short tests had created and destroyed their devices while the 16,384
//! texture test kept calling into its own). Reproduced without unbound or
//! wgpu: a program (ash only) with one thread creating and destroying
//! buffers on a long-lived device while six threads create and destroy
//! instances and devices, 20 s per run with `MALLOC_CHECK_=3`,
//! `MALLOC_PERTURB_=165`, on a 2-core machine: the layer on, 10 of 24
//! runs crashed (SIGSEGV inside the validation layer's library, called
//! from `vkDestroyBuffer` on the long-lived device); the layer off, 0 of
//! 8; the layer on with creations and destructions taking turns as here,
//! 0 of 24. The CI abort itself did not recur in the runs of
//! `texture_pages` made here (each takes minutes on lavapipe).
//!
//! **What it covers.** [`lifecycle_turn`] is held while
//! [`open_headless`](crate::open_headless) creates an instance and a
//! device, and while the tests' GPU (`tests/common/mod.rs`) drops its
//! device (it drops last in a test, so the device and its instance are
//! destroyed in the turn); the instances, adapters and devices a test
//! makes itself are made and dropped in it too (`InTurn` there). That
//! removes the overlapping writes of the map; a call on one device while
//! another is created still reads the map as it changes, which the
//! layer's later locks also cover and which did not crash in the runs
//! above. Remove this once CI's layers are v1.4.304 or later.

use std::sync::{Condvar, Mutex, PoisonError};

/// Whether some thread holds the turn, and the threads waiting for it.
static BUSY: Mutex<bool> = Mutex::new(false);
static FREED: Condvar = Condvar::new();

/// One thread's turn to create or destroy Vulkan instances and devices;
/// the next thread's turn starts when it is dropped. It may be dropped on
/// another thread than the one that took it.
#[derive(Debug)]
#[must_use = "the turn ends when this is dropped"]
pub struct LifecycleTurn(());

/// Waits until no other thread creates or destroys a Vulkan instance or
/// device, then takes the turn (see the module docs for why).
pub fn lifecycle_turn() -> LifecycleTurn {
    let mut busy = BUSY.lock().unwrap_or_else(PoisonError::into_inner);
    while *busy {
        busy = FREED.wait(busy).unwrap_or_else(PoisonError::into_inner);
    }
    *busy = true;
    LifecycleTurn(())
}

impl Drop for LifecycleTurn {
    fn drop(&mut self) {
        *BUSY.lock().unwrap_or_else(PoisonError::into_inner) = false;
        FREED.notify_one();
    }
}
