//! Whether a recorded frame ran: the one detection that the table uploads'
//! log (`src/upload.rs`) and the acceleration-structure builds' log
//! (`src/rays/frames.rs`) share, so that a frame dropped unsubmitted loses
//! nothing.
//!
//! [`Submission::watch`] gives the frame's encoder a callback
//! (`on_submitted_work_done`) that wgpu either calls, once the submitted
//! work is done, or drops uncalled when the encoder or its command buffer
//! is dropped without being submitted. Dropped uncalled, it marks the frame
//! [`SubmissionState::Lost`]. wgpu calls the callbacks from `Queue::submit`
//! and `Device::poll`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Frames not yet known to have run that a log keeps at most; past that
/// the oldest is let go, and with it the ability to repeat its work.
pub(crate) const MAX_FRAMES_KEPT: usize = 64;

/// Where a recorded frame stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum SubmissionState {
    /// Recorded, not yet known submitted.
    Recorded = 0,
    /// Submitted, and its work is done.
    Done = 1,
    /// Its encoder was dropped unsubmitted: its work is to be done again.
    Lost = 2,
    /// Lost, and its work already repeated by a later frame.
    Repeated = 3,
}

impl SubmissionState {
    fn from_u8(value: u8) -> Self {
        match value {
            0 => Self::Recorded,
            1 => Self::Done,
            2 => Self::Lost,
            _ => Self::Repeated,
        }
    }
}

/// One recorded frame's [`SubmissionState`], updated by wgpu's callback.
#[derive(Debug)]
pub(crate) struct Submission(Arc<AtomicU8>);

impl Submission {
    /// Watches the frame recorded into `encoder`.
    pub fn watch(encoder: &mut wgpu::CommandEncoder) -> Self {
        let (submission, guard) = Self::with_guard();
        encoder.on_submitted_work_done(move || guard.done());
        submission
    }

    /// A frame in `Recorded` state and the guard that settles it.
    fn with_guard() -> (Self, Guard) {
        let state = Arc::new(AtomicU8::new(SubmissionState::Recorded as u8));
        let guard = Guard {
            state: state.clone(),
            called: false,
        };
        (Self(state), guard)
    }

    /// The frame's state now.
    pub fn state(&self) -> SubmissionState {
        SubmissionState::from_u8(self.0.load(Ordering::Acquire))
    }

    /// Marks a lost frame repeated (nothing if it was not lost).
    pub fn mark_repeated(&self) {
        let (lost, repeated) = (SubmissionState::Lost, SubmissionState::Repeated);
        let _ = self.0.compare_exchange(
            lost as u8,
            repeated as u8,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// A frame whose callback ran (`true`) or was dropped uncalled.
    #[cfg(test)]
    pub fn settled(ran: bool) -> Self {
        let (submission, guard) = Self::with_guard();
        if ran {
            guard.done();
        } else {
            drop(guard);
        }
        submission
    }

    /// A frame not yet known to have run.
    #[cfg(test)]
    pub fn recorded() -> Self {
        let (submission, guard) = Self::with_guard();
        // Neither called nor dropped, as while wgpu holds the callback.
        std::mem::forget(guard);
        submission
    }
}

/// Marks its frame lost if dropped before wgpu calls it back.
#[derive(Debug)]
struct Guard {
    state: Arc<AtomicU8>,
    called: bool,
}

impl Guard {
    fn done(mut self) {
        self.called = true;
        let done = SubmissionState::Done as u8;
        self.state.store(done, Ordering::Release);
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if !self.called {
            let lost = SubmissionState::Lost as u8;
            self.state.store(lost, Ordering::Release);
        }
    }
}

/// Where a readback buffer of a ring stands: free, in flight (its
/// frame's copy recorded, mapped once that frame's work is done through
/// `map_buffer_on_submit`), or mapped and ready to read. Shared by the GPU
/// statistics (`src/readback.rs`) and the texture feedback
/// (`src/heap/feedback.rs`); nothing ever waits for it.
#[derive(Debug, Default)]
pub(crate) struct MapState(Arc<AtomicU8>);

const MAP_FREE: u8 = 0;
const MAP_IN_FLIGHT: u8 = 1;
const MAP_READY: u8 = 2;

impl MapState {
    pub fn is_free(&self) -> bool {
        self.0.load(Ordering::Acquire) == MAP_FREE
    }

    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire) == MAP_READY
    }

    /// Frees it once read (and unmapped).
    pub fn free(&self) {
        self.0.store(MAP_FREE, Ordering::Release);
    }

    /// Marks it in flight; the guard, moved into the map callback, settles
    /// it: ready if mapped, free if the map failed or the callback was
    /// dropped uncalled (the frame's command buffer was never submitted).
    pub fn in_flight(&self) -> MapGuard {
        self.0.store(MAP_IN_FLIGHT, Ordering::Release);
        MapGuard {
            state: self.0.clone(),
            settled: false,
        }
    }
}

/// Settles a [`MapState`] from its map callback; frees it if dropped
/// uncalled.
#[derive(Debug)]
pub(crate) struct MapGuard {
    state: Arc<AtomicU8>,
    settled: bool,
}

impl MapGuard {
    /// The map's outcome: ready if `mapped`, else free.
    pub fn settle(mut self, mapped: bool) {
        self.settled = true;
        let state = if mapped { MAP_READY } else { MAP_FREE };
        self.state.store(state, Ordering::Release);
    }
}

impl Drop for MapGuard {
    fn drop(&mut self) {
        if !self.settled {
            self.state.store(MAP_FREE, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_settles_its_frame() {
        assert_eq!(Submission::settled(true).state(), SubmissionState::Done);
        let lost = Submission::settled(false);
        assert_eq!(lost.state(), SubmissionState::Lost);
        lost.mark_repeated();
        assert_eq!(lost.state(), SubmissionState::Repeated);
        let recorded = Submission::recorded();
        recorded.mark_repeated();
        assert_eq!(recorded.state(), SubmissionState::Recorded);
    }
}
