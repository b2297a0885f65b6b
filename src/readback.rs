//! GPU statistics coming back without stalls: a ring of small buffers, each
//! filled at the end of a frame (cull counters + pass timestamps) and mapped
//! with `map_buffer_on_submit`. A later frame collects whatever has arrived;
//! nothing ever waits for the GPU. If every slot is still in flight, that
//! frame's statistics are skipped. A slot whose frame is never submitted
//! (its encoder dropped) is freed when wgpu drops the map callback.
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

const RING_SLOTS: usize = 4;
/// Timestamp queries: a begin and an end for each [`TimedPass`].
const QUERIES: u32 = 2 * TimedPass::ALL.len() as u32;
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
    /// Whether the frame had draw and output passes (else their timestamps
    /// are unset).
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

impl Slot {
    /// The first recorded timed pass's beginning and the last one's end, in
    /// ticks (`None` without timestamps: unset queries read as 0).
    fn timed_span(&self, ticks: &[u64; QUERIES as usize]) -> Option<(u64, u64)> {
        let phased = self.occlusion;
        let recorded = [
            (TimedPass::Cull, true),
            (TimedPass::Lights, self.lit.is_some()),
            (TimedPass::Animation, self.animated),
            (TimedPass::Shadows, self.cascades.0 > 0),
            (TimedPass::Prepass, self.prepassed),
            (TimedPass::Draw, self.drew),
            (TimedPass::Pyramid, phased),
            (TimedPass::LateCull, phased),
            (TimedPass::LatePrepass, phased && self.prepassed),
            (TimedPass::LateDraw, phased && self.drew),
            (TimedPass::Output, self.drew),
        ];
        recorded
            .iter()
            .filter(|(_, on)| *on)
            .map(|(pass, _)| pass.first_query() as usize)
            .map(|begin| (ticks[begin], ticks[begin + 1]))
            .reduce(|(b0, e0), (b1, e1)| (b0.min(b1), e0.max(e1)))
    }
}

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
    const ALL: [Self; 12] = [
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
    fn first_query(self) -> u32 {
        2 * self as u32
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

/// The frame's timestamp queries (`None` without `TIMESTAMP_QUERY`): the
/// recipe takes them once and hands each timed pass its pair.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timestamps<'a>(Option<&'a wgpu::QuerySet>);

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
                drew: false,
                lit: None,
                occlusion: false,
                prepassed: false,
                animated: false,
                cascades: (0, false),
                clusters: [false; 2],
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
            let stats = {
                let bytes = slot
                    .buffer
                    .get_mapped_range(..)
                    .expect("mapped by callback");
                let header: GpuCullHeader =
                    bytemuck::pod_read_unaligned(&bytes[..HEADER_BYTES as usize]);
                let late: GpuCullHeader = if slot.occlusion {
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
                let light_lists = slot.lit.map(|(capacity, clusters)| LightListStats {
                    clusters,
                    lit_clusters: lists[2],
                    max_lights_per_cluster: lists[3],
                    references_needed: lists[0],
                    references_capacity: capacity,
                    overflowed_columns: lists[4],
                    max_lights_per_column: lists[5],
                });
                let cascades = slot.cascades.0;
                let cascade_casters = cascade_casters(&bytes, slot.cascades);
                let clusters = (0..2).filter(|&p| slot.clusters[p]).map(|p| {
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
                let time = |pass: TimedPass| {
                    let begin = pass.first_query() as usize;
                    ms(ticks[begin], ticks[begin + 1])
                };
                let occlusion = |pass| time(pass).filter(|_| slot.occlusion);
                let span = slot.timed_span(&ticks);
                let draw_ms = time(TimedPass::Draw)
                    .map(|early| early + occlusion(TimedPass::LateDraw).unwrap_or(0.0));
                let prepass_ms = time(TimedPass::Prepass)
                    .map(|early| early + occlusion(TimedPass::LatePrepass).unwrap_or(0.0));
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
                    pyramid_ms: occlusion(TimedPass::Pyramid),
                    late_cull_ms: occlusion(TimedPass::LateCull),
                    draw_ms: draw_ms.filter(|_| slot.drew),
                    prepass_ms: prepass_ms.filter(|_| slot.prepassed),
                    output_ms: time(TimedPass::Output).filter(|_| slot.drew),
                    lights_ms: time(TimedPass::Lights).filter(|_| slot.lit.is_some()),
                    light_lists,
                    animation_ms: time(TimedPass::Animation).filter(|_| slot.animated),
                    shadows_ms: time(TimedPass::Shadows).filter(|_| cascades > 0),
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
            slot.frame_index = frame_index;
            slot.drew = drew;
            slot.lit = lit.map(|l| (l.capacity, l.clusters));
            slot.occlusion = late_counters.is_some();
            slot.prepassed = prepassed;
            slot.animated = animated;
            let late = !cascades.is_empty() && cascades.iter().all(|c| c.late.is_some());
            slot.cascades = (cascades.len() as u32, late);
            slot.clusters = clusters.map(|c| c.is_some());
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
