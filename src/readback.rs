//! GPU statistics coming back without stalls: a ring of small buffers, each
//! filled at the end of a frame (cull counters + pass timestamps) and mapped
//! with `map_buffer_on_submit`. A later frame collects whatever has arrived;
//! nothing ever waits for the GPU. If every slot is still in flight, that
//! frame's statistics are skipped. A slot whose frame is never submitted
//! (its encoder dropped) is freed when wgpu drops the map callback.
//!
//! A timed pass (`src/timestamps.rs`) that a frame did not record leaves
//! its queries unset: 0, or an earlier frame's. Each slot remembers which
//! passes its frame recorded, and one rule ([`Recorded::ran`]) says whose
//! timestamps count, for each pass's time and for the frame's span.
//!
//! A frame with lights also copies the light pass's list statistics (the
//! cluster ranges' trailer, `passes/lights.rs`) into its slot:
//! [`GpuFrameStats::light_lists`]; a frame with shadow cascades, each
//! cascade's cull headers (early and, culled by occlusion, late):
//! [`GpuFrameStats::cascade_casters`].
//!
//! The slots also carry the frame sequence check (`src/frame_sequence.rs`),
//! and the frame's own number, copied last: a slot mapped without it is a
//! frame that did not run (refused at submission), whose statistics are
//! not read.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::errors::RenderError;
use crate::frame_sequence::{FRAME_NUMBER_BYTES, FrameSequence};
pub use crate::frame_stats::{CascadeCasterStats, GpuFrameStats, LightListStats};
use crate::gpu_types::{ClusterStats, GpuClusterStats, GpuCullHeader};
use crate::shadows::MAX_CASCADES;
use crate::submission::MapState;
use crate::timestamps::{QUERIES, TimedPass, Timestamps};

const RING_SLOTS: usize = 4;
const HEADER_BYTES: u64 = size_of::<GpuCullHeader>() as u64;
/// Offset of the late occlusion phase's header (after the camera's).
const LATE_HEADER_OFFSET: u64 = HEADER_BYTES;
/// Offset of the resolved timestamps.
const TIMESTAMP_OFFSET: u64 = 2 * HEADER_BYTES;
/// Bytes of the resolved timestamps (one `u64` per query).
const TIMESTAMP_BYTES: u64 = wgpu::QUERY_SIZE as u64 * QUERIES as u64;
/// Offset of the light pass's list statistics.
const LIGHT_LISTS_OFFSET: u64 = TIMESTAMP_OFFSET + TIMESTAMP_BYTES;
/// Bytes of the light list statistics: references needed and written,
/// clusters with a light, longest list, column lists that overflowed,
/// longest column (`u32` each).
const LIGHT_LISTS_BYTES: u64 = 24;
/// Offset of the cascades' cull headers: per cascade the early one, then
/// the late one.
const CASCADE_HEADERS_OFFSET: u64 = LIGHT_LISTS_OFFSET + LIGHT_LISTS_BYTES;
/// Offset of the cluster statistics, early (or only) phase then late.
const CLUSTERS_OFFSET: u64 = CASCADE_HEADERS_OFFSET + 2 * HEADER_BYTES * MAX_CASCADES as u64;
const CLUSTER_BYTES: u64 = size_of::<GpuClusterStats>() as u64;
/// Offset of the number of the frame that ran on the GPU before the slot's.
const PREDECESSOR_OFFSET: u64 = CLUSTERS_OFFSET + 2 * CLUSTER_BYTES;
/// Offset of the slot's frame's own number, copied last: a slot without it
/// belongs to a frame that did not run (`src/frame_sequence.rs`).
const OWN_NUMBER_OFFSET: u64 = PREDECESSOR_OFFSET + FRAME_NUMBER_BYTES;
const SLOT_BYTES: u64 = OWN_NUMBER_OFFSET + FRAME_NUMBER_BYTES;

/// Where a frame's light list statistics are, for the readback.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LightListSource<'a> {
    /// The cluster ranges.
    pub ranges: &'a wgpu::Buffer,
    /// Byte offset of their trailer (6 `u32`: needed, written, clusters
    /// with a light, longest list, overflowed columns, longest column).
    pub offset: u64,
    /// References the index list held.
    pub capacity: u32,
    /// Clusters in the grid.
    pub clusters: u32,
}

/// Each of the slot's `cascades` cascades' casters, from their early and
/// (`late`: culled by occlusion) late headers in the slot's `bytes`.
fn cascade_casters(
    bytes: &[u8],
    (cascades, late): (u32, bool),
) -> [CascadeCasterStats; MAX_CASCADES as usize] {
    let mut casters = [CascadeCasterStats::default(); MAX_CASCADES as usize];
    for (c, stats) in casters.iter_mut().enumerate().take(cascades as usize) {
        let header = |phase: u64| -> GpuCullHeader {
            let at = (CASCADE_HEADERS_OFFSET + (2 * c as u64 + phase) * HEADER_BYTES) as usize;
            bytemuck::pod_read_unaligned(&bytes[at..at + HEADER_BYTES as usize])
        };
        let late = if late {
            header(1)
        } else {
            GpuCullHeader::default()
        };
        *stats = CascadeCasterStats {
            drawn: header(0).visible_instances + late.visible_instances,
            late: late.visible_instances,
            occluded: late.occluded_instances,
        };
    }
    casters
}

#[derive(Debug)]
struct Slot {
    buffer: wgpu::Buffer,
    state: MapState,
    frame_index: u64,
    /// What the slot's frame recorded.
    recorded: Recorded,
}

/// What a slot's frame recorded: which timed passes ran (a pass that did
/// not leaves its timestamps unset: 0, or an earlier frame's) and which
/// statistics were copied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Recorded {
    /// Whether the frame had draw and output passes.
    drew: bool,
    /// The frame's light lists' capacity and clusters, if it had a light
    /// pass.
    lit: Option<(u32, u32)>,
    /// Whether the frame ran the late occlusion phase.
    occlusion: bool,
    /// Whether the frame drew a depth pre-pass.
    prepassed: bool,
    /// Whether the frame had an animation playback pass.
    animated: bool,
    /// The cascades whose headers were copied, and whether their late
    /// phases' were.
    cascades: (u32, bool),
    /// Which phases' cluster statistics the frame copied.
    clusters: [bool; 2],
}

/// The query of the frame's start ([`Readback::record_start`]).
const START: usize = 2 * TimedPass::Start as usize;

impl Recorded {
    /// Whether the frame recorded `pass`, so that its timestamps are its
    /// own: the one rule for each pass's time and for the frame's span.
    fn ran(self, pass: TimedPass) -> bool {
        match pass {
            TimedPass::Cull | TimedPass::Start => true,
            TimedPass::Lights => self.lit.is_some(),
            TimedPass::Animation => self.animated,
            TimedPass::Shadows => self.cascades.0 > 0,
            TimedPass::Prepass => self.prepassed,
            TimedPass::Draw | TimedPass::Output => self.drew,
            TimedPass::Pyramid | TimedPass::LateCull => self.occlusion,
            TimedPass::LatePrepass => self.occlusion && self.prepassed,
            TimedPass::LateDraw => self.occlusion && self.drew,
        }
    }

    /// The first recorded timed pass's beginning and the last one's end, in
    /// ticks (the frame's start is no timed pass of its own; without
    /// timestamps, unset queries read as 0).
    fn timed_span(self, ticks: &[u64; QUERIES as usize]) -> Option<(u64, u64)> {
        TimedPass::ALL
            .into_iter()
            .filter(|&pass| pass != TimedPass::Start && self.ran(pass))
            .map(|pass| pass.first_query() as usize)
            .map(|begin| (ticks[begin], ticks[begin + 1]))
            .reduce(|(b0, e0), (b1, e1)| (b0.min(b1), e0.max(e1)))
    }
}

/// Which timed passes besides the cull a frame recorded: their timestamps
/// are unset otherwise.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RecordedPasses<'a> {
    /// The draw (or traced view) and output passes.
    pub drew: bool,
    /// The light pass, with where its statistics are.
    pub lit: Option<LightListSource<'a>>,
    /// The depth pre-pass (both occlusion phases, with occlusion culling).
    pub prepassed: bool,
    /// The animation playback pass.
    pub animated: bool,
    /// Where each shadow cascade's cull headers are.
    pub cascades: &'a [CascadeCounters<'a>],
    /// The camera's cluster statistics heads (cluster culling ran): the
    /// first phase's, the late phase's.
    pub clusters: [Option<&'a wgpu::Buffer>; 2],
}

/// Where one shadow cascade's cull headers are: the early one (the views'
/// counters at the cascade's region: buffer and offset) and, culled by
/// occlusion, its late phase's (offset 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CascadeCounters<'a> {
    pub early: (&'a wgpu::Buffer, u64),
    pub late: Option<&'a wgpu::Buffer>,
}

#[derive(Debug)]
pub(crate) struct Readback {
    slots: Vec<Slot>,
    queries: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    period_ns: f64,
    latest: Option<GpuFrameStats>,
    /// Frames known to have finished on the GPU (frame index + 1 of the
    /// newest whose readback was mapped; frames finish in order).
    finished: Arc<AtomicU64>,
    /// Whether frames ran in the order recorded.
    sequence: FrameSequence,
}

impl Readback {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let slots = (0..RING_SLOTS)
            .map(|_| Slot {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("unbound stats readback"),
                    size: SLOT_BYTES,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                state: MapState::default(),
                frame_index: 0,
                recorded: Recorded::default(),
            })
            .collect();
        let queries = device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| {
                (
                    device.create_query_set(&wgpu::QuerySetDescriptor {
                        label: Some("unbound pass timestamps"),
                        ty: wgpu::QueryType::Timestamp,
                        count: QUERIES,
                    }),
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("unbound timestamp resolve"),
                        size: TIMESTAMP_BYTES,
                        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    }),
                )
            });
        Self {
            slots,
            queries,
            period_ns: f64::from(queue.get_timestamp_period()),
            latest: None,
            finished: Arc::new(AtomicU64::new(0)),
            sequence: FrameSequence::new(device),
        }
    }

    /// The frame's timestamp queries, handed out once per frame: each timed
    /// pass takes its own pair from them.
    pub fn timestamps(&self) -> Timestamps<'_> {
        Timestamps(self.queries.as_ref().map(|(set, _)| set))
    }

    /// Reads every slot that has arrived (newest wins); never blocks.
    pub fn collect(&mut self) -> Option<GpuFrameStats> {
        let mut arrived = Vec::new();
        for slot in &mut self.slots {
            if !slot.state.is_ready() {
                continue;
            }
            let recorded = slot.recorded;
            let stats = {
                let bytes = slot
                    .buffer
                    .get_mapped_range(..)
                    .expect("mapped by callback");
                let header: GpuCullHeader =
                    bytemuck::pod_read_unaligned(&bytes[..HEADER_BYTES as usize]);
                let late: GpuCullHeader = if recorded.occlusion {
                    bytemuck::pod_read_unaligned(
                        &bytes[LATE_HEADER_OFFSET as usize..TIMESTAMP_OFFSET as usize],
                    )
                } else {
                    GpuCullHeader::default()
                };
                let ticks: [u64; QUERIES as usize] = bytemuck::pod_read_unaligned(
                    &bytes[TIMESTAMP_OFFSET as usize..LIGHT_LISTS_OFFSET as usize],
                );
                let predecessor: u32 = bytemuck::pod_read_unaligned(
                    &bytes[PREDECESSOR_OFFSET as usize..OWN_NUMBER_OFFSET as usize],
                );
                let own: u32 = bytemuck::pod_read_unaligned(
                    &bytes[OWN_NUMBER_OFFSET as usize..SLOT_BYTES as usize],
                );
                let lists: [u32; 6] = bytemuck::pod_read_unaligned(
                    &bytes[LIGHT_LISTS_OFFSET as usize..CASCADE_HEADERS_OFFSET as usize],
                );
                let light_lists = recorded.lit.map(|(capacity, clusters)| LightListStats {
                    clusters,
                    lit_clusters: lists[2],
                    max_lights_per_cluster: lists[3],
                    references_needed: lists[0],
                    references_capacity: capacity,
                    overflowed_columns: lists[4],
                    max_lights_per_column: lists[5],
                });
                let cascades = recorded.cascades.0;
                let cascade_casters = cascade_casters(&bytes, recorded.cascades);
                let clusters = (0..2).filter(|&p| recorded.clusters[p]).map(|p| {
                    let at = (CLUSTERS_OFFSET + p as u64 * CLUSTER_BYTES) as usize;
                    ClusterStats::from_gpu(&bytemuck::pod_read_unaligned(
                        &bytes[at..at + CLUSTER_BYTES as usize],
                    ))
                });
                let clusters = clusters.reduce(|a, b| a + b);
                let ran = FrameSequence::is_own_number(slot.frame_index, own);
                arrived.push((slot.frame_index, ran.then_some(predecessor)));
                let ms = |begin: u64, end: u64| {
                    self.queries
                        .as_ref()
                        .map(|_| end.saturating_sub(begin) as f64 * self.period_ns / 1e6)
                };
                let triangles = |h: &GpuCullHeader| {
                    u64::from(h.triangles_lo) | (u64::from(h.triangles_hi) << 32)
                };
                // A pass the frame did not record has no time.
                let time = |pass: TimedPass| {
                    let begin = pass.first_query() as usize;
                    ms(ticks[begin], ticks[begin + 1]).filter(|_| recorded.ran(pass))
                };
                let span = recorded.timed_span(&ticks);
                // Both occlusion phases.
                let phases = |early, late| time(early).map(|e| e + time(late).unwrap_or(0.0));
                // A frame that did not run left no statistics.
                ran.then_some(GpuFrameStats {
                    frame_index: slot.frame_index,
                    draws: header.draw_count + late.draw_count,
                    // The compute rasteriser's instances are in the
                    // frustum too, though not in the draws.
                    visible_instances: header.visible_instances
                        + late.visible_instances
                        + header.raster_instances
                        + late.raster_instances
                        + late.occluded_instances
                        + header.small_instances
                        + late.small_instances,
                    early_instances: header.visible_instances,
                    late_instances: late.visible_instances,
                    occluded_instances: late.occluded_instances,
                    small_instances: header.small_instances + late.small_instances,
                    triangles: triangles(&header) + triangles(&late),
                    cull_ms: time(TimedPass::Cull),
                    pyramid_ms: time(TimedPass::Pyramid),
                    late_cull_ms: time(TimedPass::LateCull),
                    draw_ms: phases(TimedPass::Draw, TimedPass::LateDraw),
                    prepass_ms: phases(TimedPass::Prepass, TimedPass::LatePrepass),
                    output_ms: time(TimedPass::Output),
                    lights_ms: time(TimedPass::Lights),
                    light_lists,
                    animation_ms: time(TimedPass::Animation),
                    shadows_ms: time(TimedPass::Shadows),
                    span_ms: span.and_then(|(begin, end)| ms(begin, end)),
                    lead_ms: span.and_then(|(first, _)| ms(ticks[START], first)),
                    cascades,
                    cascade_casters,
                    clusters,
                })
            };
            slot.buffer.unmap();
            slot.state.free();
            let Some(stats) = stats else {
                continue;
            };
            if self
                .latest
                .is_none_or(|l| l.frame_index < stats.frame_index)
            {
                self.latest = Some(stats);
            }
        }
        self.sequence.arrived(&arrived);
        self.latest
    }

    /// Copies this frame's counters, timestamps and predecessor into a free
    /// slot and asks for it to be mapped once the frame has executed; then
    /// records the frame's number as the last that ran. `counters`: the
    /// views' and, if the frame ran the late occlusion phase, its own.
    /// `passes`: which timed passes the frame recorded. Returns commands
    /// recorded.
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        (counters, late_counters): (&wgpu::Buffer, Option<&wgpu::Buffer>),
        frame_index: u64,
        passes: RecordedPasses<'_>,
    ) -> u32 {
        let RecordedPasses {
            drew,
            lit,
            prepassed,
            animated,
            cascades,
            clusters,
        } = passes;
        let mut commands = 0;
        let free = self.slots.iter_mut().find(|s| s.state.is_free());
        if let Some(slot) = free {
            encoder.copy_buffer_to_buffer(counters, 0, &slot.buffer, 0, HEADER_BYTES);
            commands += 1;
            if let Some(late) = late_counters {
                let offset = LATE_HEADER_OFFSET;
                encoder.copy_buffer_to_buffer(late, 0, &slot.buffer, offset, HEADER_BYTES);
                commands += 1;
            }
            let cascades = &cascades[..cascades.len().min(MAX_CASCADES as usize)];
            for (c, cascade) in cascades.iter().enumerate() {
                let at = CASCADE_HEADERS_OFFSET + 2 * c as u64 * HEADER_BYTES;
                let (early, offset) = cascade.early;
                encoder.copy_buffer_to_buffer(early, offset, &slot.buffer, at, HEADER_BYTES);
                commands += 1;
                if let Some(late) = cascade.late {
                    let at = at + HEADER_BYTES;
                    encoder.copy_buffer_to_buffer(late, 0, &slot.buffer, at, HEADER_BYTES);
                    commands += 1;
                }
            }
            for (phase, head) in clusters.iter().enumerate() {
                if let Some(head) = head {
                    let offset = CLUSTERS_OFFSET + phase as u64 * CLUSTER_BYTES;
                    encoder.copy_buffer_to_buffer(head, 0, &slot.buffer, offset, CLUSTER_BYTES);
                    commands += 1;
                }
            }
            if let Some(lists) = lit {
                let (offset, bytes) = (LIGHT_LISTS_OFFSET, LIGHT_LISTS_BYTES);
                encoder.copy_buffer_to_buffer(
                    lists.ranges,
                    lists.offset,
                    &slot.buffer,
                    offset,
                    bytes,
                );
                commands += 1;
            }
            if let Some((set, resolve)) = &self.queries {
                encoder.resolve_query_set(set, 0..QUERIES, resolve, 0);
                encoder.copy_buffer_to_buffer(
                    resolve,
                    0,
                    &slot.buffer,
                    TIMESTAMP_OFFSET,
                    TIMESTAMP_BYTES,
                );
                commands += 2;
            }
            commands += self
                .sequence
                .record_predecessor(encoder, &slot.buffer, PREDECESSOR_OFFSET);
            commands += self.sequence.record_own_number(
                encoder,
                &slot.buffer,
                OWN_NUMBER_OFFSET,
                frame_index,
            );
            let late = !cascades.is_empty() && cascades.iter().all(|c| c.late.is_some());
            slot.frame_index = frame_index;
            slot.recorded = Recorded {
                drew,
                lit: lit.map(|l| (l.capacity, l.clusters)),
                occlusion: late_counters.is_some(),
                prepassed,
                animated,
                cascades: (cascades.len() as u32, late),
                clusters: clusters.map(|c| c.is_some()),
            };
            let guard = slot.state.in_flight();
            let finished = self.finished.clone();
            encoder.map_buffer_on_submit(&slot.buffer, wgpu::MapMode::Read, .., move |result| {
                finished.fetch_max(frame_index + 1, Ordering::AcqRel);
                guard.settle(result.is_ok());
            });
        }
        commands + self.sequence.record_frame(encoder, frame_index)
    }

    /// Records the frame's start, first in its encoder (an empty compute
    /// pass carrying the timestamps: no feature needed beyond
    /// `TIMESTAMP_QUERY`); returns commands recorded.
    pub fn record_start(&self, encoder: &mut wgpu::CommandEncoder) -> u32 {
        let Some(timestamp_writes) = self.timestamps().compute(TimedPass::Start) else {
            return 0;
        };
        drop(encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound frame start"),
            timestamp_writes: Some(timestamp_writes),
        }));
        1
    }

    /// Collects what has arrived and returns the earliest break in the
    /// frame sequence seen since the last call, if any.
    pub fn take_sequence_error(&mut self) -> Option<RenderError> {
        self.collect();
        self.sequence.take_break()
    }

    /// How many frames have finished on the GPU (a lower bound).
    pub fn frames_finished(&self) -> u64 {
        self.finished.load(Ordering::Acquire)
    }

    pub fn size_bytes(&self) -> u64 {
        SLOT_BYTES * RING_SLOTS as u64 + self.sequence.size_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each pass's ticks: begins at `10 * (i + 1)`, ends 5 later.
    fn ticks() -> [u64; QUERIES as usize] {
        let mut ticks = [0; QUERIES as usize];
        for (i, pass) in TimedPass::ALL.into_iter().enumerate() {
            let begin = pass.first_query() as usize;
            ticks[begin] = 10 * (i as u64 + 1);
            ticks[begin + 1] = ticks[begin] + 5;
        }
        ticks
    }

    #[test]
    fn a_frame_that_only_culled_ran_the_cull_and_its_start() {
        let recorded = Recorded::default();
        let ran: Vec<_> = TimedPass::ALL
            .into_iter()
            .filter(|&p| recorded.ran(p))
            .collect();
        assert_eq!(ran, [TimedPass::Cull, TimedPass::Start]);
        // The cull's own pair, nothing else's (Start is no timed pass).
        let cull = TimedPass::Cull.first_query() as usize;
        let ticks = ticks();
        assert_eq!(
            recorded.timed_span(&ticks),
            Some((ticks[cull], ticks[cull + 1]))
        );
    }

    #[test]
    fn late_phases_ran_only_with_occlusion_and_their_early_pass() {
        let drew = Recorded {
            drew: true,
            ..Recorded::default()
        };
        assert!(drew.ran(TimedPass::Draw) && drew.ran(TimedPass::Output));
        assert!(!drew.ran(TimedPass::LateDraw) && !drew.ran(TimedPass::Pyramid));
        let culled = Recorded {
            occlusion: true,
            ..Recorded::default()
        };
        assert!(culled.ran(TimedPass::Pyramid) && culled.ran(TimedPass::LateCull));
        assert!(!culled.ran(TimedPass::LateDraw) && !culled.ran(TimedPass::LatePrepass));
        let both = Recorded {
            prepassed: true,
            ..culled
        };
        assert!(both.ran(TimedPass::LatePrepass) && !both.ran(TimedPass::LateDraw));
    }

    #[test]
    fn the_span_leaves_out_the_start_and_the_passes_not_recorded() {
        let mut ticks = ticks();
        let pair = |pass: TimedPass| pass.first_query() as usize;
        // An earlier frame's animation, around this frame's passes, and the
        // frame's start before them all.
        let (animation, start) = (pair(TimedPass::Animation), pair(TimedPass::Start));
        (ticks[animation], ticks[animation + 1]) = (1, 1000);
        (ticks[start], ticks[start + 1]) = (0, 0);
        let (cull, shadows) = (pair(TimedPass::Cull), pair(TimedPass::Shadows));
        let recorded = Recorded {
            lit: Some((64, 16)),
            cascades: (2, false),
            ..Recorded::default()
        };
        assert!(recorded.ran(TimedPass::Start));
        assert_eq!(
            recorded.timed_span(&ticks),
            Some((ticks[cull], ticks[shadows + 1]))
        );
        let animated = Recorded {
            animated: true,
            ..recorded
        };
        assert_eq!(animated.timed_span(&ticks), Some((1, 1000)));
        let everything = Recorded {
            drew: true,
            occlusion: true,
            prepassed: true,
            ..animated
        };
        assert!(TimedPass::ALL.into_iter().all(|p| everything.ran(p)));
        assert_eq!(everything.timed_span(&ticks), Some((1, 1000)));
    }
}
