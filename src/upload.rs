//! Uploads recorded into the frame's command encoder, and kept until the
//! frame is known to have been submitted.
//!
//! Every table change of a frame is packed into one staging buffer (several
//! when the frame uploads more than the device's `max_buffer_size`: each
//! table fits that limit, their sum need not) and copied with
//! `copy_buffer_to_buffer` inside the frame's encoder. So a frame
//! sees exactly the table contents of the moment it was recorded: changes
//! made afterwards go into the next frame's encoder, never into a frame
//! already recorded but not yet submitted (which `Queue::write_buffer` would
//! do, since its writes run before the next submission's command buffers).
//! A buffer that grows is copied into its replacement the same way
//! ([`UploadBatch::copy`]).
//!
//! **A dropped frame loses nothing.** Each frame's copies are kept in the
//! [`UploadLog`] (the staging buffers stay alive with them: no CPU copy of
//! the bytes) until the frame and every frame recorded before it have run.
//! The frame's encoder carries a callback (`on_submitted_work_done`) that
//! wgpu either calls, once the submitted work is done, or drops uncalled
//! when the encoder or its command buffer is dropped without being
//! submitted. Then the next frame recorded copies again, before its own
//! uploads, everything the lost frame and the frames recorded after it
//! copied, in the order they were recorded: every source is immutable (a
//! staging buffer, or a buffer already replaced and no longer written), so
//! the tables end as they would have after the lost frame. Frames recorded
//! between the lost frame and its drop show the tables without its changes;
//! the first frame recorded after the drop shows them all.
//!
//! Bound: the log holds the copies of at most [`MAX_FRAMES_KEPT`] frames
//! whose work is not yet known done (wgpu calls the callbacks from
//! `Queue::submit` and `Device::poll`); past that the oldest frame's copies
//! are let go, and with them the ability to repeat them.

use std::collections::VecDeque;
use std::sync::Arc;

use wgpu::util::DeviceExt;

pub(crate) use crate::submission::MAX_FRAMES_KEPT;
use crate::submission::{Submission, SubmissionState};

/// Where a queued copy reads from.
#[derive(Debug)]
enum Source {
    /// The batch's bytes, from this offset (in the staging buffers once
    /// recorded).
    Staged(u64),
    /// A buffer, from this offset.
    Buffer(wgpu::Buffer, u64),
}

#[derive(Debug)]
struct Copy {
    source: Source,
    target: wgpu::Buffer,
    target_offset: u64,
    size: u64,
}

/// A copy as recorded: from a buffer that is never written again.
#[derive(Clone, Debug)]
struct RecordedCopy {
    source: wgpu::Buffer,
    source_offset: u64,
    target: wgpu::Buffer,
    target_offset: u64,
    size: u64,
}

impl RecordedCopy {
    fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_buffer_to_buffer(
            &self.source,
            self.source_offset,
            &self.target,
            self.target_offset,
            self.size,
        );
    }
}

/// What an upload recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct UploadStats {
    /// Bytes copied from the CPU.
    pub bytes_uploaded: u64,
    /// Commands recorded into the encoder (copies).
    pub commands_recorded: u32,
}

/// The copies one frame records.
#[derive(Debug, Default)]
pub(crate) struct UploadBatch {
    data: Vec<u8>,
    copies: Vec<Copy>,
}

impl UploadBatch {
    /// Queues `bytes` to be written at `offset` of `target`.
    pub fn write(&mut self, target: &wgpu::Buffer, offset: u64, bytes: &[u8]) {
        debug_assert!(offset.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT));
        if bytes.is_empty() {
            return;
        }
        let source_offset = self.data.len() as u64;
        self.data.extend_from_slice(bytes);
        // Copy sizes must be multiples of 4; our structs always are, but pad
        // defensively (the pad bytes land past the written range only if the
        // caller passed an unaligned slice, which tables never do).
        let size = (bytes.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        self.data.resize((source_offset + size) as usize, 0);
        self.copies.push(Copy {
            source: Source::Staged(source_offset),
            target: target.clone(),
            target_offset: offset,
            size,
        });
    }

    /// Queues a copy of `size` bytes from the start of `source` to the
    /// start of `target`, in order with the writes: a grown buffer's old
    /// contents. `source` must never be written again (it is replaced).
    pub fn copy(&mut self, source: &wgpu::Buffer, target: &wgpu::Buffer, size: u64) {
        if size == 0 {
            return;
        }
        self.copies.push(Copy {
            source: Source::Buffer(source.clone(), 0),
            target: target.clone(),
            target_offset: 0,
            size,
        });
    }

    /// Records the copies into `encoder` without logging them: for a pass
    /// whose writes the frame's logged upload already made (unchanged
    /// uniforms write nothing), or outside [`Renderer::render`]'s frames.
    ///
    /// [`Renderer::render`]: crate::Renderer::render
    pub fn record(self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder) -> UploadStats {
        let (copies, bytes_uploaded) = self.stage(device);
        for copy in &copies {
            copy.record(encoder);
        }
        UploadStats {
            bytes_uploaded,
            commands_recorded: copies.len() as u32,
        }
    }

    /// The copies from staging buffers of at most the device's
    /// `max_buffer_size` each (a copy that straddles two is split), in the
    /// order queued, and the bytes staged.
    fn stage(self, device: &wgpu::Device) -> (Vec<RecordedCopy>, u64) {
        if self.copies.is_empty() {
            return (Vec::new(), 0);
        }
        let chunk_bytes = staging_chunk_bytes(device.limits().max_buffer_size);
        let staging: Vec<wgpu::Buffer> = self
            .data
            .chunks(usize::try_from(chunk_bytes).unwrap_or(usize::MAX))
            .map(|contents| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("unbound upload staging"),
                    contents,
                    usage: wgpu::BufferUsages::COPY_SRC,
                })
            })
            .collect();
        let mut recorded = Vec::with_capacity(self.copies.len());
        for copy in self.copies {
            let first = match copy.source {
                Source::Buffer(source, source_offset) => {
                    recorded.push(RecordedCopy {
                        source,
                        source_offset,
                        target: copy.target,
                        target_offset: copy.target_offset,
                        size: copy.size,
                    });
                    continue;
                }
                Source::Staged(first) => first,
            };
            let mut done = 0;
            while done < copy.size {
                let source = first + done;
                let (chunk, offset) = (source / chunk_bytes, source % chunk_bytes);
                let size = (copy.size - done).min(chunk_bytes - offset);
                recorded.push(RecordedCopy {
                    source: staging[chunk as usize].clone(),
                    source_offset: offset,
                    target: copy.target.clone(),
                    target_offset: copy.target_offset + done,
                    size,
                });
                done += size;
            }
        }
        (recorded, self.data.len() as u64)
    }
}

/// One recorded frame's copies, kept until it and its predecessors ran.
#[derive(Debug)]
struct LoggedFrame {
    submission: Submission,
    copies: Arc<[RecordedCopy]>,
}

impl LoggedFrame {
    fn state(&self) -> SubmissionState {
        self.submission.state()
    }
}

/// The copies of the frames not yet known to have run, to be repeated when
/// one of them is dropped unsubmitted (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct UploadLog {
    frames: VecDeque<LoggedFrame>,
}

impl UploadLog {
    /// Records `batch` into `encoder`, after the copies of every lost frame
    /// and of the frames recorded after it, and logs the frame.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        batch: UploadBatch,
    ) -> UploadStats {
        let mut copies = self.repeat_lost();
        let (own, bytes_uploaded) = batch.stage(device);
        copies.extend(own);
        for copy in &copies {
            copy.record(encoder);
        }
        let stats = UploadStats {
            bytes_uploaded,
            commands_recorded: copies.len() as u32,
        };
        let submission = Submission::watch(encoder);
        if self.frames.len() == MAX_FRAMES_KEPT {
            log::warn!(
                "unbound: {MAX_FRAMES_KEPT} recorded frames not yet known to have run; \
                 the oldest one's uploads can no longer be repeated if it is dropped"
            );
            self.frames.pop_front();
        }
        self.frames.push_back(LoggedFrame {
            submission,
            copies: copies.into(),
        });
        stats
    }

    /// Lets go of the frames that ran (or were repeated) with all before
    /// them; returns the copies to repeat: those of the earliest lost frame
    /// and of every frame after it, in the order recorded.
    fn repeat_lost(&mut self) -> Vec<RecordedCopy> {
        while self
            .frames
            .front()
            .is_some_and(|f| matches!(f.state(), SubmissionState::Done | SubmissionState::Repeated))
        {
            self.frames.pop_front();
        }
        let Some(first_lost) = self
            .frames
            .iter()
            .position(|f| f.state() == SubmissionState::Lost)
        else {
            return Vec::new();
        };
        let mut repeated = Vec::new();
        for frame in self.frames.iter().skip(first_lost) {
            // A frame repeated already is in a later frame's copies.
            if frame.state() != SubmissionState::Repeated {
                repeated.extend(frame.copies.iter().cloned());
            }
            frame.submission.mark_repeated();
        }
        repeated
    }
}

/// The size of one staging buffer: the device's largest buffer, rounded
/// down to the copy alignment so that every copy's offsets stay aligned.
fn staging_chunk_bytes(max_buffer_size: u64) -> u64 {
    (max_buffer_size & !(wgpu::COPY_BUFFER_ALIGNMENT - 1)).max(wgpu::COPY_BUFFER_ALIGNMENT)
}
