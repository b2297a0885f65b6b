//! Did the frames run on the GPU in the order they were recorded?
//!
//! Each frame carries the uploads made since the frame recorded before it,
//! so a frame submitted after a later one applies its uploads late; a frame
//! whose command buffer is dropped has its uploads repeated by the next one
//! recorded (`src/upload.rs`), but is still a break. The GPU tells: every
//! frame's commands end by copying the number of the frame that last ran
//! into the frame's statistics readback (`src/readback.rs`), then writing
//! their own number in its place. Numbers are frame indices modulo
//! [`SEQUENCE_PERIOD`], copied from a constant buffer, so nothing is
//! uploaded per frame. A frame that ran after anything but the frame
//! recorded before it is a break in the sequence, except right after a
//! frame submitted late (frames 10, 9, 11 break once, at 10).
//!
//! Only frames that got a readback slot report, so a break between two
//! frames without one goes unseen: detection is where the statistics
//! allow, not a guarantee.
//!
//! A frame whose command buffer was refused at submission (a wgpu
//! validation error) runs nothing, yet its slot may still be mapped: what
//! the slot holds then is not the frame's. So each frame also copies its
//! own number into its slot, last; a slot without it is a frame that did
//! not run, reported as [`RenderError::FrameFailed`] and never read as a
//! break (the frames right after it find the number it would have found,
//! which is no break either). A slot left idle for an exact multiple of
//! [`SEQUENCE_PERIOD`] frames could hold a stale copy of the same number:
//! such a failure goes unseen, never misreported.

use std::collections::VecDeque;

use wgpu::util::DeviceExt;

use crate::errors::RenderError;

/// Frame numbers on the GPU are frame indices modulo this.
const SEQUENCE_PERIOD: u32 = 1024;
/// Set in the copy of a frame's own number (`FrameSequence::record_own_number`).
const OWN_MARK: u32 = 1 << 31;
/// The GPU's frame number before any frame has run.
const NO_FRAME: u32 = u32::MAX;
/// Bytes of one frame number.
pub(crate) const FRAME_NUMBER_BYTES: u64 = size_of::<u32>() as u64;
/// Frames whose predecessor is remembered, to recognise the frame after
/// one submitted late.
const REMEMBERED: usize = 16;

/// The number frame `frame` should find as its predecessor.
fn expected_predecessor(frame: u64) -> u32 {
    frame
        .checked_sub(1)
        .map_or(NO_FRAME, |f| (f % u64::from(SEQUENCE_PERIOD)) as u32)
}

/// The frame whose number is `number` nearest to `frame`, or `None` for
/// [`NO_FRAME`].
fn frame_of(number: u32, frame: u64) -> Option<u64> {
    if number == NO_FRAME {
        return None;
    }
    let period = u64::from(SEQUENCE_PERIOD);
    let base = frame - frame % period + u64::from(number);
    [
        base.checked_sub(period),
        Some(base),
        base.checked_add(period),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|f| f.abs_diff(frame))
}

/// The frame an error pending in [`Breaks`] is about.
fn reported_frame(error: &RenderError) -> Option<u64> {
    match *error {
        RenderError::FrameSequence { frame, .. } | RenderError::FrameFailed { frame } => {
            Some(frame)
        }
        _ => None,
    }
}

/// What one frame's readback slot told: the number of the frame that ran
/// before it, or `None` if the frame did not run (its own number is not
/// in the slot).
pub(crate) type Arrival = (u64, Option<u32>);

/// What the readbacks told so far: recent frames' predecessors, recent
/// frames that did not run, and the earliest incident not yet reported.
#[derive(Debug, Default)]
struct Breaks {
    /// Recent frames and the number of the frame that ran before each.
    predecessors: VecDeque<(u64, u32)>,
    /// Recent frames that did not run.
    failed: VecDeque<u64>,
    /// The earliest break or failure seen and not yet reported.
    pending: Option<RenderError>,
}

impl Breaks {
    /// Takes in frames' predecessors as their readbacks arrive (any order)
    /// and notes the earliest break or failure among them.
    fn arrived(&mut self, frames: &[Arrival]) {
        for &(frame, predecessor) in frames {
            let Some(predecessor) = predecessor else {
                if self.failed.len() == REMEMBERED {
                    self.failed.pop_front();
                }
                self.failed.push_back(frame);
                continue;
            };
            if self.predecessors.len() == REMEMBERED {
                self.predecessors.pop_front();
            }
            self.predecessors.push_back((frame, predecessor));
        }
        for &(frame, predecessor) in frames {
            let incident = match predecessor {
                None => Some(RenderError::FrameFailed { frame }),
                Some(predecessor) => self
                    .break_at(frame, predecessor)
                    .map(|ran_after| RenderError::FrameSequence { frame, ran_after }),
            };
            let earlier_pending = self
                .pending
                .as_ref()
                .and_then(reported_frame)
                .is_some_and(|earlier| earlier <= frame);
            if let Some(incident) = incident.filter(|_| !earlier_pending) {
                self.pending = Some(incident);
            }
        }
    }

    /// `Some(ran_after)` if `frame` ran after `predecessor` out of
    /// sequence: neither after the frame recorded before it, nor after the
    /// frame before a run of frames that did not run, nor right after a
    /// frame submitted late that itself ran after that one.
    fn break_at(&self, frame: u64, predecessor: u32) -> Option<Option<u64>> {
        let expected = expected_predecessor(frame);
        if predecessor == expected {
            return None;
        }
        let mut before = frame.checked_sub(1);
        while let Some(failed) = before.filter(|f| self.failed.contains(f)) {
            if predecessor == expected_predecessor(failed) {
                return None;
            }
            before = failed.checked_sub(1);
        }
        let ran_after = frame_of(predecessor, frame);
        let after_a_late_frame = ran_after.is_some_and(|late| {
            self.predecessors
                .iter()
                .any(|&(f, before_late)| f == late && before_late == expected)
        });
        (!after_a_late_frame).then_some(ran_after)
    }
}

/// The frame sequence's GPU buffers and what the readbacks told so far.
#[derive(Debug)]
pub(crate) struct FrameSequence {
    /// 0, 1, ..., `SEQUENCE_PERIOD - 1`, then the same with `OWN_MARK`:
    /// each frame copies its numbers from here.
    numbers: wgpu::Buffer,
    /// The number of the frame that last ran on the GPU.
    last_run: wgpu::Buffer,
    breaks: Breaks,
}

impl FrameSequence {
    pub fn new(device: &wgpu::Device) -> Self {
        // The frame numbers, then the same marked as a slot's own (never
        // 0, which a slot nothing was copied into reads).
        let numbers: Vec<u32> = (0..SEQUENCE_PERIOD)
            .chain((0..SEQUENCE_PERIOD).map(|n| n | OWN_MARK))
            .collect();
        Self {
            numbers: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unbound frame numbers"),
                contents: bytemuck::cast_slice(&numbers),
                usage: wgpu::BufferUsages::COPY_SRC,
            }),
            last_run: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("unbound last frame run"),
                contents: bytemuck::bytes_of(&NO_FRAME),
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            }),
            breaks: Breaks::default(),
        }
    }

    /// Records the copy of the last frame run's number into `readback` at
    /// `offset` ([`FRAME_NUMBER_BYTES`]). Returns commands recorded.
    pub fn record_predecessor(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        readback: &wgpu::Buffer,
        offset: u64,
    ) -> u32 {
        encoder.copy_buffer_to_buffer(&self.last_run, 0, readback, offset, FRAME_NUMBER_BYTES);
        1
    }

    /// Records the copy of frame `frame`'s own number into `readback` at
    /// `offset` ([`FRAME_NUMBER_BYTES`]): the slot then shows the frame ran.
    /// Returns commands recorded.
    pub fn record_own_number(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        readback: &wgpu::Buffer,
        offset: u64,
        frame: u64,
    ) -> u32 {
        let marked = u64::from(SEQUENCE_PERIOD) + frame % u64::from(SEQUENCE_PERIOD);
        encoder.copy_buffer_to_buffer(
            &self.numbers,
            marked * FRAME_NUMBER_BYTES,
            readback,
            offset,
            FRAME_NUMBER_BYTES,
        );
        1
    }

    /// Whether `number`, read from frame `frame`'s slot, is the frame's own.
    pub fn is_own_number(frame: u64, number: u32) -> bool {
        number & OWN_MARK != 0
            && u64::from(number & !OWN_MARK) == frame % u64::from(SEQUENCE_PERIOD)
    }

    /// Records frame `frame` as the last run. Returns commands recorded.
    pub fn record_frame(&self, encoder: &mut wgpu::CommandEncoder, frame: u64) -> u32 {
        let number = frame % u64::from(SEQUENCE_PERIOD);
        encoder.copy_buffer_to_buffer(
            &self.numbers,
            number * FRAME_NUMBER_BYTES,
            &self.last_run,
            0,
            FRAME_NUMBER_BYTES,
        );
        1
    }

    /// Takes in frames' predecessors (frame, the number it found) as their
    /// readbacks arrive, in any order.
    pub fn arrived(&mut self, frames: &[Arrival]) {
        self.breaks.arrived(frames);
    }

    /// The earliest break seen since the last call, if any.
    pub fn take_break(&mut self) -> Option<RenderError> {
        self.breaks.pending.take()
    }

    pub fn size_bytes(&self) -> u64 {
        self.numbers.size() + self.last_run.size()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_numbers_map_back_to_the_nearest_frame() {
        let period = u64::from(SEQUENCE_PERIOD);
        assert_eq!(expected_predecessor(0), NO_FRAME);
        assert_eq!(expected_predecessor(7), 6);
        assert_eq!(expected_predecessor(period), (period - 1) as u32);
        assert_eq!(frame_of(NO_FRAME, 3), None);
        assert_eq!(frame_of(5, 7), Some(5));
        assert_eq!(frame_of(7, 6), Some(7));
        assert_eq!(frame_of((period - 1) as u32, period + 1), Some(period - 1));
        assert_eq!(frame_of(5, 0), Some(5));
    }

    fn reported(frames: &[(u64, u32)]) -> Option<RenderError> {
        let mut breaks = Breaks::default();
        let frames: Vec<Arrival> = frames.iter().map(|&(f, p)| (f, Some(p))).collect();
        breaks.arrived(&frames);
        breaks.pending.take()
    }

    fn ran_after(frame: u64, ran_after: Option<u64>) -> Option<RenderError> {
        Some(RenderError::FrameSequence { frame, ran_after })
    }

    #[test]
    fn breaks_are_reported_once_per_incident() {
        assert_eq!(reported(&[(0, NO_FRAME), (1, 0), (2, 1)]), None);
        // Frames 3 to 5 dropped.
        assert_eq!(reported(&[(2, 1), (6, 2), (7, 6)]), ran_after(6, Some(2)));
        // Frames 0 to 2 dropped: 3 ran first.
        assert_eq!(reported(&[(3, NO_FRAME)]), ran_after(3, None));
        // Submitted 10, 9, 11, in any arrival order: one break, at 10.
        let swapped = [(9, 10), (10, 8), (11, 9)];
        assert_eq!(reported(&swapped), ran_after(10, Some(8)));
        let mut breaks = Breaks::default();
        let swapped = swapped.map(|(f, p)| (f, Some(p)));
        breaks.arrived(&swapped[..2]);
        assert_eq!(breaks.pending.take(), ran_after(10, Some(8)));
        breaks.arrived(&swapped[2..]);
        assert_eq!(breaks.pending.take(), None, "11 follows the late frame 9");
        // After a wrap of the frame numbers.
        let period = u64::from(SEQUENCE_PERIOD);
        assert_eq!(
            reported(&[(period + 1, (period - 1) as u32)]),
            ran_after(period + 1, Some(period - 1))
        );
    }

    /// A frame refused at submission is reported as such, whatever its
    /// slot held (zeros read as "ran after frame 0" before), and the
    /// frames after it, which find what it would have found, are no break.
    #[test]
    fn a_frame_that_did_not_run_is_reported_as_failed() {
        let failed = |frame| Some(RenderError::FrameFailed { frame });
        let mut breaks = Breaks::default();
        breaks.arrived(&[(0, None), (1, Some(NO_FRAME)), (2, Some(1))]);
        assert_eq!(breaks.pending.take(), failed(0));
        // Two in a row, the later frames in a later collection.
        breaks.arrived(&[(3, Some(2)), (4, None), (5, None)]);
        assert_eq!(breaks.pending.take(), failed(4));
        breaks.arrived(&[(6, Some(3)), (7, Some(6))]);
        assert_eq!(breaks.pending.take(), None);
        // A real break after a failure is still one.
        breaks.arrived(&[(8, None), (9, Some(2))]);
        assert_eq!(breaks.pending.take(), failed(8));
        let error = RenderError::FrameSequence {
            frame: 0,
            ran_after: Some(0),
        };
        assert!(
            !error.to_string().contains("18446744073709551615"),
            "{error}"
        );
        assert!(error.to_string().contains("not first"), "{error}");
    }
}
