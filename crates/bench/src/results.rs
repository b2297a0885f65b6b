//! Results as saved in JSON, and merging saved files.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use unbound::{DebugView, IndirectMode, Tier};
use unbound_scenes::bench::BenchScene;

use crate::counts::{ClusterCounts, OcclusionCounts};
use crate::runs::{RenderPath, Run, RunKind};

/// Median and 10th/90th percentile of a sample.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Stat {
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
}

impl Stat {
    /// Of at least one value.
    pub fn of(values: &[f64]) -> Self {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        Self {
            median: at(0.5),
            p10: at(0.1),
            p90: at(0.9),
        }
    }
}

/// Which run on which path. In JSON: the fields `scene`, `path`, `tier`,
/// `indirect`, `validation_indirect_call`, `instances`, `textures`,
/// `sampled_textures`, `lights`, `shadows`, `occlusion`, `lod`, `depth_prepass` and
/// `debug_view`, from which the kind of run is read back. Merged results
/// keep one run of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "RunFields", try_from = "RunFields")]
pub struct RunId {
    pub run: Run,
    pub path: RenderPath,
    /// Two-phase occlusion culling ran (`--occlusion on`): unbound's frame
    /// runs only (the baseline and the cull-only run cull the frustum).
    pub occlusion: bool,
    /// Level of detail ran (`--lod on`): unbound's frame runs only, their
    /// meshes with simplified levels (the cull-only run has no viewport to
    /// project errors into).
    pub lod: bool,
    /// The camera's depth pre-pass ran (`--depth-prepass on`): unbound's
    /// frame runs only.
    pub depth_prepass: bool,
    /// What unbound's frames drew (`--debug-view`): runs of different views
    /// are different runs. The lit view on the baseline, which draws lit.
    pub debug_view: DebugView,
}

impl RunId {
    /// `run` on `path`, with occlusion culling and level of detail where
    /// it culls and `occlusion` and `lod` ask for them.
    pub fn new(run: Run, path: RenderPath, occlusion: bool, lod: bool) -> Self {
        Self {
            run,
            path,
            occlusion: occlusion && run.culls_occlusion(path),
            lod: lod && run.culls_occlusion(path),
            depth_prepass: false,
            debug_view: DebugView::Lit,
        }
    }

    /// The same run drawing `view` where it is unbound's (the baseline
    /// draws lit).
    pub fn with_debug_view(self, view: DebugView) -> Self {
        Self {
            debug_view: match self.path {
                RenderPath::Unbound => view,
                RenderPath::Baseline => DebugView::Lit,
            },
            ..self
        }
    }

    /// The same run with the depth pre-pass where it draws and `on` asks
    /// for it.
    pub fn with_depth_prepass(self, on: bool) -> Self {
        Self {
            depth_prepass: on && self.run.culls_occlusion(self.path),
            ..self
        }
    }
}

/// [`RunId`] as JSON fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct RunFields {
    scene: String,
    path: String,
    /// Capability tier of the unbound path; empty for the baseline, absent
    /// in results from before tiers (tier A).
    #[serde(default)]
    tier: String,
    indirect: String,
    validation_indirect_call: bool,
    instances: u32,
    textures: u32,
    /// Heap-size runs with `--sampled-textures`: the textures the objects
    /// sample, of `textures`; absent when they sample every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sampled_textures: Option<u32>,
    /// Point lights (`--lights` runs); absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    lights: u32,
    /// The sun's shadows on; absent (off) in results from before shadows,
    /// and left out when off.
    #[serde(default, skip_serializing_if = "is_false")]
    shadows: bool,
    /// Occlusion culling on; absent (off) in results from before it, and
    /// left out when off.
    #[serde(default, skip_serializing_if = "is_false")]
    occlusion: bool,
    /// Level of detail on; absent (off) in results from before it, and
    /// left out when off.
    #[serde(default, skip_serializing_if = "is_false")]
    lod: bool,
    /// The depth pre-pass on; absent (off) in results from before it, and
    /// left out when off.
    #[serde(default, skip_serializing_if = "is_false")]
    depth_prepass: bool,
    /// unbound's runs with a `--debug-view` other than `lit`: its name;
    /// absent for the lit view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    debug_view: Option<String>,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

fn is_false(value: &bool) -> bool {
    !value
}

pub fn indirect_name(indirect: IndirectMode) -> &'static str {
    match indirect {
        IndirectMode::Count => "count",
        IndirectMode::Plain => "plain",
    }
}

impl From<RunId> for RunFields {
    fn from(
        RunId {
            run,
            path,
            occlusion,
            lod,
            depth_prepass,
            debug_view,
        }: RunId,
    ) -> Self {
        Self {
            scene: run.scene_name().into(),
            path: path.name().into(),
            tier: match path {
                RenderPath::Unbound => format!("{:?}", run.tier()),
                RenderPath::Baseline => String::new(),
            },
            indirect: indirect_name(run.indirect()).into(),
            validation_indirect_call: run.validation_indirect_call(),
            instances: run.instances,
            textures: run.textures(),
            sampled_textures: Some(run.sampled_textures())
                .filter(|&sampled| sampled != run.textures()),
            lights: run.lights(),
            shadows: run.shadows,
            occlusion,
            lod,
            depth_prepass,
            debug_view: Some(debug_view)
                .filter(|&view| view != DebugView::Lit)
                .map(|view| view.name().to_owned()),
        }
    }
}

impl TryFrom<RunFields> for RunId {
    type Error = String;

    fn try_from(mut fields: RunFields) -> Result<Self, String> {
        let path = [RenderPath::Unbound, RenderPath::Baseline]
            .into_iter()
            .find(|p| p.name() == fields.path)
            .ok_or_else(|| format!("unknown path {:?}", fields.path))?;
        if path == RenderPath::Unbound && fields.tier.is_empty() {
            fields.tier = "A".into();
        }
        let tier = Tier::ALL
            .into_iter()
            .find(|t| format!("{t:?}") == fields.tier)
            .unwrap_or(Tier::A);
        let indirect = [IndirectMode::Count, IndirectMode::Plain]
            .into_iter()
            .find(|&i| indirect_name(i) == fields.indirect)
            .ok_or_else(|| format!("unknown indirect mode {:?}", fields.indirect))?;
        let heap_switch = |scene| {
            (fields.textures != Run::frame_textures(scene) || fields.sampled_textures.is_some())
                .then(|| RunKind::HeapSwitch {
                    textures: fields.textures,
                    sampled: fields.sampled_textures.unwrap_or(fields.textures),
                    tier,
                })
        };
        let kind = if tier != Tier::A {
            heap_switch(BenchScene::DrawBound).unwrap_or(RunKind::Tier(tier))
        } else if fields.lights > 0 {
            RunKind::Lights {
                lights: fields.lights,
            }
        } else if fields.scene == "cull-only" {
            RunKind::CullOnly
        } else {
            let scene = BenchScene::parse(&fields.scene)
                .ok_or_else(|| format!("unknown scene {:?}", fields.scene))?;
            if indirect != IndirectMode::Count || !fields.validation_indirect_call {
                RunKind::IndirectSwitch {
                    indirect,
                    validation_indirect_call: fields.validation_indirect_call,
                }
            } else {
                heap_switch(scene).unwrap_or(RunKind::Frame(scene))
            }
        };
        let debug_view = match &fields.debug_view {
            Some(name) => {
                DebugView::parse(name).ok_or_else(|| format!("unknown debug view {name:?}"))?
            }
            None => DebugView::Lit,
        };
        let run = Run {
            kind,
            instances: fields.instances,
            shadows: fields.shadows,
        };
        let id = Self::new(run, path, fields.occlusion, fields.lod)
            .with_depth_prepass(fields.depth_prepass)
            .with_debug_view(debug_view);
        // Every field must say what the kind implies: nothing is lost when
        // merged results are written back.
        if RunFields::from(id) == fields {
            Ok(id)
        } else {
            Err(format!("not a run this benchmark makes: {fields:?}"))
        }
    }
}

/// One run on one path.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunResult {
    #[serde(flatten)]
    pub id: RunId,
    pub changed_per_frame: u32,
    pub frames: u32,
    pub cpu_update_ms: Stat,
    pub cpu_record_ms: Stat,
    pub cpu_submit_ms: Stat,
    pub cpu_total_ms: Stat,
    pub frame_ms: Stat,
    pub gpu_cull_ms: Option<Stat>,
    pub gpu_draw_ms: Option<Stat>,
    /// unbound with `--depth-prepass on`: the depth pre-pass (both
    /// occlusion phases); absent otherwise and in results from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_prepass_ms: Option<Stat>,
    /// unbound: the output pass (resolve, exposure, tone mapping).
    #[serde(default)]
    pub gpu_output_ms: Option<Stat>,
    /// The light pass (runs with lights); absent in results from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_lights_ms: Option<Stat>,
    /// Occlusion culling's depth pyramid and late cull (unbound with
    /// occlusion culling); absent in results from before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_pyramid_ms: Option<Stat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_late_cull_ms: Option<Stat>,
    /// The animation playback pass (unbound's animated crowd); absent
    /// elsewhere and in results from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_animation_ms: Option<Stat>,
    /// Every shadow view's passes (the cascades' late phases included).
    pub gpu_shadows_ms: Option<Stat>,
    /// unbound: the GPU from the first timed pass's beginning to the last
    /// one's end (the passes and the gaps between them; not a pass, so not
    /// `gpu_`-prefixed); absent elsewhere and in results from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_ms: Option<Stat>,
    /// unbound: the GPU from the frame's command buffer starting to its
    /// first timed pass (`FrameStats::gpu.lead_ms`); absent elsewhere and in
    /// results from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead_ms: Option<Stat>,
    /// Instances in the frustum (drawn early, drawn late or occluded).
    pub visible_instances: u32,
    /// unbound's frame runs, the last frame: instances the early phase
    /// drew (all visible ones without occlusion culling), the late phase
    /// drew, and the pyramid hid. Absent for the baseline and in results
    /// from before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occlusion_counts: Option<OcclusionCounts>,
    pub draws: u32,
    pub triangles: u64,
    pub gpu_memory_bytes: u64,
    /// unbound's runs: whether the cull pass ran its subgroup variant
    /// (`--subgroups`, and the adapter has them). Absent in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cull_subgroups: Option<bool>,
    /// unbound's runs: `"forward"`, or `"visibility"` with what ran
    /// (`geometry_name` in `crates/bench/src/paths.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geometry: Option<String>,
    /// Cull-only runs: instances per millisecond of cull GPU time, and the
    /// bandwidth bound in ms at the adapter's copy bandwidth.
    pub instances_per_ms: Option<f64>,
    pub bandwidth_bound_ms: Option<f64>,
    /// Cull-only runs: the copy bandwidth the bound is computed at, measured
    /// on the adapter (bytes read plus written per second). Absent in results
    /// from before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_bandwidth_bytes_per_s: Option<f64>,
    /// unbound's frame runs with `--count-small-triangles` (level of detail
    /// off): the last frame's triangles by size on screen. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small_triangles: Option<crate::small_triangles::SmallTriangles>,
    /// unbound's runs with lights: the light pass's cluster lists over the
    /// measured frames. Absent otherwise and in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub light_lists: Option<LightLists>,
    /// unbound's frame runs with `--cluster-culling on`: what the last
    /// frame's cluster culling did (both occlusion phases). Absent
    /// otherwise and in older results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<ClusterCounts>,
}

/// How full the light pass's cluster lists were over a run's measured
/// frames (`unbound::LightListStats`, read back each frame).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct LightLists {
    /// Tiles across, tiles down, depth slices.
    pub grid: [u32; 3],
    pub clusters: u32,
    /// Clusters with at least one light.
    pub lit_clusters: Stat,
    /// References needed over clusters with a light: the mean length of a
    /// list a fragment can land in (not weighted by fragments).
    pub mean_lights_per_lit_cluster: Stat,
    /// The longest list of any measured frame.
    pub max_lights_per_cluster: u32,
    pub references_needed: Stat,
    /// References the index list held in the last measured frame.
    pub references_capacity: u32,
    /// Measured frames whose lists needed more than the list held (cut).
    pub overflowed_frames: u32,
    /// The most lights a tile's column held (the light pass's first cull),
    /// and the most columns of a frame over their list (their clusters
    /// tested every light).
    #[serde(default)]
    pub max_lights_per_column: u32,
    #[serde(default)]
    pub overflowed_columns: u32,
    /// Measured frames whose statistics came back.
    pub measured_frames: u32,
    /// Frames, warm-up included, whose list grew because an earlier frame
    /// overflowed.
    pub grown_frames: u32,
    /// Lights within reach of a point of the scene, by the scene's
    /// construction (`runs::LIGHTS_OVERLAP_PER_1000`): what a fragment
    /// would loop over with exact lists.
    pub lights_per_point: f32,
    /// The last frame's fragments, sampled: the list they loop over
    /// against the lights that reach them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragments: Option<crate::fragments::FragmentLights>,
}

impl RunResult {
    /// The copy bandwidth the bound was computed at: as recorded, or for
    /// older results (which did not record it, and counted the cull's
    /// bytes the older way) worked back from the bound.
    pub fn copy_bandwidth_bytes_per_s(&self) -> Option<f64> {
        self.copy_bandwidth_bytes_per_s.or_else(|| {
            let bytes = crate::runs::legacy_cull_traffic_bytes(
                self.id.run.instances,
                self.visible_instances,
            );
            self.bandwidth_bound_ms.map(|ms| bytes / (ms / 1e3))
        })
    }
}

/// Everything one invocation measured, on one adapter.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    pub date: String,
    pub adapter: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    pub settings: String,
    /// The median submit-to-completion time of a command buffer that does
    /// almost nothing (`gpu::submit_round_trip_ms`): what of `frame_ms` is
    /// the platform's. Absent in results from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_round_trip_ms: Option<f64>,
    pub results: Vec<RunResult>,
}

impl Report {
    pub fn describe_adapter(&mut self, info: &wgpu::AdapterInfo) {
        self.adapter.clone_from(&info.name);
        self.backend = format!("{:?}", info.backend);
        self.device_type = format!("{:?}", info.device_type);
        self.driver.clone_from(&info.driver);
        self.driver_info.clone_from(&info.driver_info);
    }
}

/// Several result files (one adapter) as one report: the first file's
/// header, and the first file's run of each configuration (each
/// [`RunId`]: runs of different debug views are both kept).
pub fn merge(files: &[PathBuf]) -> Result<Report, String> {
    let mut merged: Option<Report> = None;
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let report: Report =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        match &mut merged {
            Some(m) => {
                for r in report.results {
                    if !m.results.iter().any(|x| x.id == r.id) {
                        m.results.push(r);
                    }
                }
            }
            None => merged = Some(report),
        }
    }
    merged.ok_or_else(|| "no result files".into())
}

#[cfg(test)]
mod tests;
