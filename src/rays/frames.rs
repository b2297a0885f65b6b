//! The acceleration-structure builds of recorded frames, kept until each
//! frame is known to have been submitted, so that a frame dropped
//! unsubmitted loses none of them (the same detection as the table
//! uploads' log, `src/upload.rs`, through `src/submission.rs`).
//!
//! A frame that builds anything carries a callback
//! (`on_submitted_work_done`) that wgpu either calls, once the submitted
//! work is done, or drops uncalled when the encoder or its command buffer
//! is dropped without being submitted. The next frame recorded then builds
//! again the BLASes the lost frame built (those still live: a BLAS made
//! again since is pending anyway) and the TLAS, from the instances as they
//! are now. The TLAS is always built with them: wgpu refuses a TLAS whose
//! BLAS was built after it.
//!
//! Limit: a frame recorded after the lost one but before its drop was
//! known traces the structures without the lost builds (and, if it built
//! the TLAS over a BLAS only the lost frame built, wgpu refuses it at
//! submission); the first frame recorded after the drop is whole.
//!
//! Bound: at most [`crate::upload::MAX_FRAMES_KEPT`] frames whose work is
//! not yet known done are kept; past that the oldest is let go.

use std::collections::VecDeque;

use crate::submission::{MAX_FRAMES_KEPT, Submission, SubmissionState};

/// One recorded frame's builds.
#[derive(Debug)]
struct LoggedBuild {
    submission: Submission,
    /// The mesh slots whose BLAS it built.
    blas: Vec<u32>,
}

/// What the lost frames built, to build again.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct LostBuilds {
    /// Mesh slots whose BLAS a lost frame built.
    pub blas: Vec<u32>,
}

/// The builds of the frames not yet known to have run (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct BuildLog {
    frames: VecDeque<LoggedBuild>,
}

impl BuildLog {
    /// Logs a frame recorded into `encoder` that built the BLASes of mesh
    /// slots `blas` (and the TLAS).
    pub fn log(&mut self, encoder: &mut wgpu::CommandEncoder, blas: Vec<u32>) {
        let submission = Submission::watch(encoder);
        if self.frames.len() == MAX_FRAMES_KEPT {
            log::warn!(
                "unbound: {MAX_FRAMES_KEPT} frames with acceleration-structure builds not yet \
                 known to have run; the oldest one's builds are not made again if it is dropped"
            );
            self.frames.pop_front();
        }
        self.frames.push_back(LoggedBuild { submission, blas });
    }

    /// Forgets the frames that ran and those lost; returns what the lost
    /// ones built (`None`: none was lost).
    pub fn take_lost(&mut self) -> Option<LostBuilds> {
        let mut lost: Option<LostBuilds> = None;
        self.frames
            .retain_mut(|frame| match frame.submission.state() {
                SubmissionState::Done | SubmissionState::Repeated => false,
                SubmissionState::Lost => {
                    let builds = lost.get_or_insert_with(LostBuilds::default);
                    builds.blas.append(&mut frame.blas);
                    false
                }
                SubmissionState::Recorded => true,
            });
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_guard_marks_its_frame_lost() {
        let mut log = BuildLog::default();
        log.frames.push_back(LoggedBuild {
            submission: Submission::settled(true),
            blas: vec![1],
        });
        log.frames.push_back(LoggedBuild {
            submission: Submission::settled(false),
            blas: vec![2, 3],
        });
        log.frames.push_back(LoggedBuild {
            submission: Submission::recorded(),
            blas: vec![4],
        });
        assert_eq!(log.take_lost(), Some(LostBuilds { blas: vec![2, 3] }));
        assert_eq!(log.frames.len(), 1, "the frame not yet known to have run");
        assert_eq!(log.take_lost(), None);
    }
}
