//! The frame's timestamp queries: one query set, a begin and an end query
//! for each [`TimedPass`], handed out once per frame ([`Timestamps`]) so
//! that each timed pass writes its own pair and no pass reaches for
//! another's. `src/readback.rs` owns the set, resolves it at the end of the
//! frame and reads the pairs back.

/// Timestamp queries: a begin and an end for each [`TimedPass`].
pub(crate) const QUERIES: u32 = 2 * TimedPass::ALL.len() as u32;

/// The passes whose GPU time the statistics report, in the order of their
/// query pairs (begin, end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimedPass {
    Cull,
    Draw,
    Output,
    Lights,
    Pyramid,
    LateCull,
    LateDraw,
    Prepass,
    LatePrepass,
    Animation,
    /// From the first shadow view's pass to the last (the cascades' late
    /// phases included).
    Shadows,
    /// An empty pass before anything else the frame records: where the
    /// frame's command buffer starts on the GPU.
    Start,
}

impl TimedPass {
    pub const ALL: [Self; 12] = [
        Self::Cull,
        Self::Draw,
        Self::Output,
        Self::Lights,
        Self::Pyramid,
        Self::LateCull,
        Self::LateDraw,
        Self::Prepass,
        Self::LatePrepass,
        Self::Animation,
        Self::Shadows,
        Self::Start,
    ];

    /// Its begin query; the end one follows.
    pub fn first_query(self) -> u32 {
        2 * self as u32
    }
}

/// The frame's timestamp queries (`None` without `TIMESTAMP_QUERY`): the
/// recipe takes them once and hands each timed pass its pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timestamps<'a>(pub Option<&'a wgpu::QuerySet>);

impl<'a> Timestamps<'a> {
    fn pair(pass: TimedPass) -> (Option<u32>, Option<u32>) {
        let begin = pass.first_query();
        (Some(begin), Some(begin + 1))
    }

    /// The writes of a compute pass.
    pub fn compute(self, pass: TimedPass) -> Option<wgpu::ComputePassTimestampWrites<'a>> {
        let (beginning_of_pass_write_index, end_of_pass_write_index) = Self::pair(pass);
        self.0.map(|query_set| wgpu::ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index,
            end_of_pass_write_index,
        })
    }

    /// The writes of a render pass.
    pub fn render(self, pass: TimedPass) -> Option<wgpu::RenderPassTimestampWrites<'a>> {
        let (beginning_of_pass_write_index, end_of_pass_write_index) = Self::pair(pass);
        self.0.map(|query_set| wgpu::RenderPassTimestampWrites {
            query_set,
            beginning_of_pass_write_index,
            end_of_pass_write_index,
        })
    }
}
