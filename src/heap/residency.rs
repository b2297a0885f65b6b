//! Streaming under a memory budget, on the paged heap only
//! ([`crate::RendererConfig::texture_budget`]; tier C's arrays and the
//! bindless heap keep every texture fully resident).
//!
//! - **Two layers per texture.** With a budget, a 2D texture larger than
//!   the smallest size class (64²) is held twice: a *base* layer of the
//!   smallest class, written at add and kept until the texture is removed
//!   (never evicted), and, while resident, a *full* layer of its own class.
//!   The slot-to-layer map points at the full layer when it is resident,
//!   at the base layer otherwise. UVs are normalised and each layer has a
//!   full mip chain, so the base layer is the texture's best resident
//!   level: a texture short of memory is blurrier, never magenta.
//!   Textures of the smallest class have only their base layer and cost
//!   the budget nothing.
//! - **The budget** counts the bytes of the resident full layers (mips
//!   included): `class² · 4 · 4/3` each. Pages themselves are never
//!   released (`pages.rs`), so the budget bounds what the streamed layers
//!   occupy, not the pages' high-water mark.
//! - **Wanted.** A texture is *wanted* in a frame when the camera's
//!   feedback read back as that frame begins (`feedback.rs`: the shading
//!   sampled it, a few frames earlier) asks for a finer level than its
//!   base layer holds, or when the application asks for it
//!   ([`crate::Renderer::want_texture`], an override: the texture is
//!   promoted whether or not the camera needs it). The heap keeps the last
//!   frame each texture was wanted in; a resident texture the camera keeps
//!   seeing stays wanted, one it no longer needs ages and is evicted first.
//! - **The streamer** runs once per frame, as the frame begins, before
//!   the slot map's upload (`Pages::set_frames`): the
//!   textures wanted in the last [`WANTED_FRAMES`] frames whose full layer
//!   is not resident are promoted, most recently wanted first, while their
//!   level-0 texels fit the per-frame upload cap
//!   ([`STREAM_BYTES_PER_FRAME`]) and their layer fits the budget, evicting
//!   resident textures wanted less recently than the one promoted (least
//!   recently wanted first). A promotion queues the full layer's write
//!   from the decoded image the heap keeps (`layers.rs`; the same frame
//!   uploads the map entry, so no frame samples the layer before its
//!   write). An eviction points the slot back to its base layer and frees
//!   the full one (reused once the frames that sampled it finished): no
//!   GPU copy.

use std::sync::Arc;

use super::layers::Texels;

/// A texture wanted within this many frames is still promoted.
pub const WANTED_FRAMES: u64 = 8;

/// Level-0 bytes the streamer writes per frame at most (at least one
/// texture per frame, whatever its size).
pub const STREAM_BYTES_PER_FRAME: u64 = 8 << 20;

/// Bytes a layer of `size`² RGBA8 texels holds, mips included.
pub(super) fn layer_bytes(size: u32) -> u64 {
    u64::from(size) * u64::from(size) * 4 * 4 / 3
}

/// The residency counters a renderer reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResidencyStats {
    /// The budget (bytes of full layers).
    pub budget: u64,
    /// Bytes of full layers resident now.
    pub resident_bytes: u64,
    /// Bytes of full layers promoted (written) since the heap was made.
    pub requested_bytes: u64,
    /// Bytes of full layers evicted since the heap was made.
    pub evicted_bytes: u64,
    /// Textures streamed (larger than the base class), live now.
    pub streamed: u32,
    /// Of those, with their full layer resident now.
    pub fully_resident: u32,
    /// Of those, how many the newest feedback read this frame asked at
    /// more than their base layer (`feedback.rs`; 0 when none arrived).
    pub wanted_by_feedback: u32,
}

/// One streamed texture (larger than the base class).
#[derive(Debug)]
pub(super) struct Streamed {
    /// The base layer's location (never freed before the texture).
    pub base: u32,
    /// The full layer's location, while resident.
    pub full: Option<u32>,
    /// The full class's array kind (`texture_array` numbering).
    pub kind: usize,
    /// Bytes the full layer holds.
    pub bytes: u64,
    /// The decoded image, the source of every promotion.
    pub texels: Arc<Texels>,
    /// The last frame it was wanted in (0: never).
    pub wanted: u64,
}

/// Every streamed texture, by heap slot, and the counters.
#[derive(Debug)]
pub(super) struct Residency {
    pub budget: u64,
    pub textures: Vec<Option<Streamed>>,
    pub resident_bytes: u64,
    pub requested_bytes: u64,
    pub evicted_bytes: u64,
    /// Streamed textures the feedback read this frame wanted.
    pub wanted_by_feedback: u32,
}

/// What the streamer decided for one frame: slots to evict, then slots to
/// promote, in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    pub evict: Vec<u32>,
    pub promote: Vec<u32>,
}

impl Residency {
    pub fn new(budget: u64) -> Self {
        Self {
            budget,
            textures: Vec::new(),
            resident_bytes: 0,
            requested_bytes: 0,
            evicted_bytes: 0,
            wanted_by_feedback: 0,
        }
    }

    /// Marks a streamed texture as wanted in `frame` (nothing for a slot
    /// of the base class); `by_feedback`: the camera's feedback asked.
    pub fn want(&mut self, slot: u32, frame: u64, by_feedback: bool) {
        let Some(streamed) = self
            .textures
            .get_mut(slot as usize)
            .and_then(Option::as_mut)
        else {
            return;
        };
        if by_feedback && streamed.wanted < frame {
            self.wanted_by_feedback += 1;
        }
        streamed.wanted = streamed.wanted.max(frame);
    }

    pub fn get(&self, slot: u32) -> Option<&Streamed> {
        self.textures.get(slot as usize)?.as_ref()
    }

    pub fn get_mut(&mut self, slot: u32) -> Option<&mut Streamed> {
        self.textures.get_mut(slot as usize)?.as_mut()
    }

    pub fn insert(&mut self, slot: u32, streamed: Streamed) {
        let slot = slot as usize;
        if slot >= self.textures.len() {
            self.textures.resize_with(slot + 1, || None);
        }
        self.textures[slot] = Some(streamed);
    }

    pub fn take(&mut self, slot: u32) -> Option<Streamed> {
        let streamed = self.textures.get_mut(slot as usize)?.take()?;
        if streamed.full.is_some() {
            self.resident_bytes -= streamed.bytes;
        }
        Some(streamed)
    }

    /// The streamer's choice for frame `frame` (see the module docs); the
    /// counters are updated as if the plan were carried out.
    pub fn plan(&mut self, frame: u64) -> Plan {
        let recent = frame.saturating_sub(WANTED_FRAMES);
        let mut wanted: Vec<(u64, u32)> = Vec::new();
        let mut resident: Vec<(u64, u32)> = Vec::new();
        for (slot, streamed) in self.textures.iter().enumerate() {
            let Some(s) = streamed else { continue };
            if s.full.is_some() {
                resident.push((s.wanted, slot as u32));
            } else if s.wanted > 0 && s.wanted > recent {
                wanted.push((s.wanted, slot as u32));
            }
        }
        // Most recently wanted first; evict the least recently wanted first.
        wanted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        resident.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut plan = Plan::default();
        let mut uploaded = 0;
        for (when, slot) in wanted {
            let s = self.get(slot).expect("listed");
            let (bytes, level0) = (s.bytes, s.bytes * 3 / 4);
            if uploaded > 0 && uploaded + level0 > STREAM_BYTES_PER_FRAME {
                break;
            }
            let mut freed = 0;
            let mut victims = 0;
            while self.resident_bytes - freed + bytes > self.budget && victims < resident.len() {
                let (victim_when, victim) = resident[resident.len() - 1 - victims];
                if victim_when >= when {
                    break;
                }
                freed += self.get(victim).expect("listed").bytes;
                victims += 1;
            }
            if self.resident_bytes - freed + bytes > self.budget {
                continue;
            }
            for _ in 0..victims {
                let (_, victim) = resident.pop().expect("counted");
                plan.evict.push(victim);
                self.evicted_bytes += self.get(victim).expect("listed").bytes;
            }
            self.resident_bytes = self.resident_bytes - freed + bytes;
            self.requested_bytes += bytes;
            uploaded += level0;
            plan.promote.push(slot);
        }
        plan
    }

    pub fn stats(&self) -> ResidencyStats {
        let live = self.textures.iter().flatten();
        ResidencyStats {
            budget: self.budget,
            resident_bytes: self.resident_bytes,
            requested_bytes: self.requested_bytes,
            evicted_bytes: self.evicted_bytes,
            streamed: live.clone().count() as u32,
            fully_resident: live.filter(|s| s.full.is_some()).count() as u32,
            wanted_by_feedback: self.wanted_by_feedback,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A texture of `size`² at `slot`, wanted last in frame `wanted`.
    fn add(residency: &mut Residency, slot: u32, size: u32, wanted: u64) {
        residency.insert(
            slot,
            Streamed {
                base: slot,
                full: None,
                kind: 0,
                bytes: layer_bytes(size),
                texels: Arc::new(Texels {
                    width: size,
                    height: size,
                    format: wgpu::TextureFormat::Rgba8UnormSrgb,
                    data: Box::new([]),
                }),
                wanted,
            },
        );
    }

    /// Carries out a plan as `Pages::stream` does (locations aside).
    fn apply(residency: &mut Residency, plan: &Plan) {
        for &slot in &plan.evict {
            residency.get_mut(slot).unwrap().full = None;
        }
        for &slot in &plan.promote {
            residency.get_mut(slot).unwrap().full = Some(slot);
        }
    }

    /// Most recently wanted first within the budget; ties in slot order;
    /// a texture evicts only textures wanted less recently, the least
    /// recently wanted first; textures not wanted within `WANTED_FRAMES`
    /// are not promoted; evicted bytes are counted.
    #[test]
    fn promotes_the_most_recently_wanted_and_evicts_the_least() {
        let mut residency = Residency::new(2 * layer_bytes(256));
        for slot in 1..=4 {
            add(&mut residency, slot, 256, 0);
        }
        for slot in 1..=3 {
            residency.get_mut(slot).unwrap().wanted = 10;
        }
        let plan = residency.plan(10);
        assert_eq!(
            plan,
            Plan {
                evict: vec![],
                promote: vec![1, 2]
            }
        );
        apply(&mut residency, &plan);
        // Slot 3 is wanted as recently as the resident ones: it waits.
        assert_eq!(residency.plan(10), Plan::default());

        residency.get_mut(1).unwrap().wanted = 11;
        residency.get_mut(4).unwrap().wanted = 11;
        let plan = residency.plan(11);
        // Slot 4 (wanted at 11) evicts slot 2 (10); slot 3 (10) evicts
        // nothing wanted as recently.
        assert_eq!(
            plan,
            Plan {
                evict: vec![2],
                promote: vec![4]
            }
        );
        apply(&mut residency, &plan);
        let stats = residency.stats();
        assert_eq!(stats.resident_bytes, 2 * layer_bytes(256));
        assert_eq!(stats.evicted_bytes, layer_bytes(256));
        assert_eq!(stats.requested_bytes, 3 * layer_bytes(256));
        assert_eq!((stats.streamed, stats.fully_resident), (4, 2));

        // Wanted too long ago: not promoted, even with room.
        residency.take(1);
        assert_eq!(residency.plan(10 + WANTED_FRAMES), Plan::default());
    }

    /// At most `STREAM_BYTES_PER_FRAME` of level 0 per frame (one texture
    /// at least), the rest the next frame.
    #[test]
    fn uploads_at_most_the_per_frame_cap() {
        let level0 = layer_bytes(1024) * 3 / 4;
        let per_frame = (STREAM_BYTES_PER_FRAME / level0) as usize;
        assert!(per_frame >= 1);
        let mut residency = Residency::new(u64::MAX / 2);
        for slot in 0..per_frame as u32 + 1 {
            add(&mut residency, slot, 1024, 5);
        }
        let plan = residency.plan(5);
        assert_eq!(plan.promote.len(), per_frame);
        apply(&mut residency, &plan);
        assert_eq!(residency.plan(6).promote, vec![per_frame as u32]);
    }
}
