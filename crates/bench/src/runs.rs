//! What the bench runs: the options resolved from the command line, the
//! kinds of run, and the list the options make of them (`driver.rs`
//! measures each one on each render path).

use unbound::{IndirectMode, Tier};
use unbound_harness::AdapterChoice;
use unbound_scenes::bench::{BenchScene, SceneSpec};

/// Forward or the visibility buffer, with the compute rasteriser, its
/// threshold in pixels and the material pass (`--geometry`,
/// `--compute-raster`, `--raster-threshold`, `--material-pass`).
pub type GeometryChoice = (
    unbound::Geometry,
    unbound::ComputeRaster,
    f32,
    unbound::MaterialPass,
);

/// `--material-pass`: `fragment` or `compute`.
pub(crate) fn parse_material_pass(name: &str) -> Result<unbound::MaterialPass, String> {
    match name.trim() {
        "fragment" => Ok(unbound::MaterialPass::Fragment),
        "compute" => Ok(unbound::MaterialPass::Compute),
        other => Err(format!(
            "unknown material pass {other:?}: fragment or compute"
        )),
    }
}

/// Tiles across, tiles down, depth slices (`--light-grid`).
pub type LightGrid = [u32; 3];

/// Frames per run.
#[derive(Clone, Copy, Debug)]
pub struct FrameCounts {
    /// Measured frames (at least one).
    pub measured: u32,
    /// Unmeasured frames before them.
    pub warmup: u32,
}

/// What to run, resolved from the command line.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub scenes: Vec<BenchScene>,
    pub sizes: Vec<u32>,
    pub frames: FrameCounts,
    /// Instances of the cull-only run; 0: none.
    pub cull_only: u32,
    pub switches: bool,
    /// Texture counts of the heap-size runs (`--textures`, or 16 and 4096
    /// with `--switches`); empty: none.
    pub heap_textures: Vec<u32>,
    /// Textures the heap-size runs' objects sample (`--sampled-textures`,
    /// at most the heap's); `None`: every texture of the heap.
    pub sampled_textures: Option<u32>,
    /// How unbound binds 2D textures (`--texture-heap`).
    pub texture_heap: unbound::TextureHeap,
    /// The texture budget in bytes (`--texture-budget`); `None`: every
    /// texture resident.
    pub texture_budget: Option<u64>,
    pub tiers: bool,
    /// Point-light counts of the lights runs (`--lights`).
    pub lights: Vec<u32>,
    /// The cluster grid of unbound's runs (`--light-grid`; `None`: the
    /// renderer's default).
    pub light_grid: Option<LightGrid>,
    /// Also measure frames and the cull pass with the sun's shadows.
    pub shadows: bool,
    /// Occlusion culling on unbound's runs (`--occlusion`).
    pub occlusion: bool,
    /// Level of detail on unbound's frame runs (`--lod`).
    pub lod: bool,
    /// The depth pre-pass on unbound's frame runs (`--depth-prepass`).
    pub depth_prepass: bool,
    /// Cluster culling on unbound's frame runs (`--cluster-culling`), and
    /// triangle filtering after it (`--triangle-filtering`).
    pub cluster_culling: (bool, bool),
    /// Forward or the visibility buffer on unbound's frame runs
    /// (`--geometry`), with the compute rasteriser and its threshold
    /// (`--compute-raster`, `--raster-threshold`).
    pub geometry: GeometryChoice,
    /// What unbound's frames draw (`--debug-view`; the lit view by
    /// default): a debug view shows what the material pass costs without
    /// full shading.
    pub debug_view: unbound::DebugView,
    /// Subgroup operations in unbound's cull pass (`--subgroups`).
    pub subgroups: bool,
    /// Count the last frame's small triangles (`--count-small-triangles`).
    pub count_small_triangles: bool,
    pub paths: Vec<RenderPath>,
    pub choice: AdapterChoice,
    /// Date recorded in the report.
    pub date: String,
}

/// A render path under measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RenderPath {
    /// unbound's bindless, GPU-driven `Renderer`.
    Unbound,
    /// the bind-per-draw `BaselineRenderer`.
    Baseline,
}

impl RenderPath {
    /// Name on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Self::Unbound => "unbound",
            Self::Baseline => "baseline",
        }
    }
}

/// What a run varies. Every kind but `Frame` runs on the draw-bound scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunKind {
    /// A scene with its own texture count, indirect count, indirect-call
    /// validation on, tier A: the main table.
    Frame(BenchScene),
    /// Another indirect mode, or indirect-call validation off (`--switches`).
    /// The baseline issues no indirect draws: it runs only with `Count`.
    IndirectSwitch {
        indirect: IndirectMode,
        validation_indirect_call: bool,
    },
    /// A smaller or larger texture heap (`--switches`, `--textures`), of
    /// which the objects sample the first `sampled` (`--sampled-textures`;
    /// all of them without it), on tier A and, with `--tiers`, on tiers B
    /// and C too (plain indirect there, unbound only).
    HeapSwitch {
        textures: u32,
        sampled: u32,
        tier: Tier,
    },
    /// A lower tier forced, plain indirect (`--tiers`), unbound only.
    Tier(Tier),
    /// The cull pass alone (`--cull-only N`), unbound only.
    CullOnly,
    /// Draw-bound with this many point lights (`--lights`), unbound only:
    /// the baseline loops over every light at every fragment.
    Lights { lights: u32 },
}

/// Textures of the draw-bound and raster-bound scenes.
const SCATTERED_TEXTURES: u32 = 1024;
/// Textures of the cube grid.
const CUBE_GRID_TEXTURES: u32 = 64;
/// Textures of the cull-only scene (the cull pass never reads them).
const CULL_ONLY_TEXTURES: u32 = 16;
/// The most textures of one size class tier C holds on most devices (one
/// texture array each, `max_texture_array_layers` layers: 2048 on Mesa's GL
/// and on the H200) less the heap's two reserved ones (missing, white):
/// larger heap sizes run on tiers A and B only.
pub const TIER_C_HEAP_TEXTURES: u32 = 2046;

/// One run: a kind at a number of instances, with the sun's shadows or
/// not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub kind: RunKind,
    pub instances: u32,
    /// The sun's shadows on (`--shadows on`): unbound only, frames and the
    /// cull-only run, 4 cascades of 2048² (`ShadowSettings::default`).
    pub shadows: bool,
}

impl Run {
    /// Textures a `Frame` run of `scene` has.
    pub fn frame_textures(scene: BenchScene) -> u32 {
        match scene {
            BenchScene::CubeGrid => CUBE_GRID_TEXTURES,
            BenchScene::City => unbound_scenes::city::CITY_TEXTURES,
            BenchScene::DrawBound | BenchScene::RasterBound => SCATTERED_TEXTURES,
            // The Fox's one texture.
            BenchScene::Crowd | BenchScene::CrowdStatic => 1,
            BenchScene::Dense => unbound_scenes::bench::DENSE_TEXTURES,
        }
    }

    pub fn scene(self) -> BenchScene {
        match self.kind {
            RunKind::Frame(scene) => scene,
            _ => BenchScene::DrawBound,
        }
    }

    /// The scene's name in results: the cull-only run has its own.
    pub fn scene_name(self) -> &'static str {
        match self.kind {
            RunKind::CullOnly => "cull-only",
            _ => self.scene().name(),
        }
    }

    pub fn textures(self) -> u32 {
        match self.kind {
            RunKind::Frame(scene) => Self::frame_textures(scene),
            RunKind::HeapSwitch { textures, .. } => textures,
            RunKind::CullOnly => CULL_ONLY_TEXTURES,
            RunKind::IndirectSwitch { .. } | RunKind::Tier(_) | RunKind::Lights { .. } => {
                SCATTERED_TEXTURES
            }
        }
    }

    /// Textures the objects sample: the first [`Self::textures`] of them.
    pub fn sampled_textures(self) -> u32 {
        match self.kind {
            RunKind::HeapSwitch { sampled, .. } => sampled,
            _ => self.textures(),
        }
    }

    /// The heap as reports show it: its texture count, the sampled count
    /// where fewer, and the tier where not A.
    pub fn heap_label(self) -> String {
        let mut label = self.textures().to_string();
        if self.sampled_textures() != self.textures() {
            label += &format!(" ({} sampled)", self.sampled_textures());
        }
        if self.tier() != Tier::A {
            label += &format!(", tier {:?}", self.tier());
        }
        label
    }

    pub fn indirect(self) -> IndirectMode {
        match self.kind {
            RunKind::IndirectSwitch { indirect, .. } => indirect,
            RunKind::Tier(_) => IndirectMode::Plain,
            RunKind::HeapSwitch { tier, .. } if tier != Tier::A => IndirectMode::Plain,
            _ => IndirectMode::Count,
        }
    }

    /// Whether wgpu validates indirect calls (`VALIDATION_INDIRECT_CALL`).
    pub fn validation_indirect_call(self) -> bool {
        match self.kind {
            RunKind::IndirectSwitch {
                validation_indirect_call,
                ..
            } => validation_indirect_call,
            _ => true,
        }
    }

    pub fn tier(self) -> Tier {
        match self.kind {
            RunKind::Tier(tier) | RunKind::HeapSwitch { tier, .. } => tier,
            _ => Tier::A,
        }
    }

    /// Whether occlusion culling can run in this run on `path`: unbound's
    /// frames (the cull-only run and the baseline cull the frustum alone).
    pub fn culls_occlusion(self, path: RenderPath) -> bool {
        path == RenderPath::Unbound && self.kind != RunKind::CullOnly
    }

    /// Whether this run is measured on `path` (the baseline draws no
    /// shadows).
    pub fn measures(self, path: RenderPath) -> bool {
        match (path, self.kind) {
            (RenderPath::Unbound, _) => true,
            (RenderPath::Baseline, _) if self.shadows => false,
            // The baseline plays no animation.
            (RenderPath::Baseline, RunKind::Frame(scene)) if scene.is_crowd() => false,
            (
                RenderPath::Baseline,
                RunKind::Tier(_) | RunKind::CullOnly | RunKind::Lights { .. },
            ) => false,
            (RenderPath::Baseline, RunKind::IndirectSwitch { indirect, .. }) => {
                indirect == IndirectMode::Count
            }
            (RenderPath::Baseline, RunKind::HeapSwitch { tier, .. }) => tier == Tier::A,
            (RenderPath::Baseline, RunKind::Frame(_)) => true,
        }
    }

    /// Point lights of the run's scene.
    pub fn lights(self) -> u32 {
        match self.kind {
            RunKind::Lights { lights } => lights,
            _ => 0,
        }
    }
}

/// Seed of the lights runs' point lights.
const LIGHTS_SEED: u64 = 7;
/// The lights runs' lights all have the range that puts a point of the
/// scene within reach of this many lights when there are 1,000: more
/// lights overlap more (4 at 1,000, 40 at 10,000).
pub const LIGHTS_OVERLAP_PER_1000: f32 = 4.0;

/// `scene` with `lights` point lights scattered over its bounds
/// ([`unbound_scenes::scatter_point_lights`]; the range
/// [`LIGHTS_OVERLAP_PER_1000`] gives, whatever the count).
pub fn with_lights(mut scene: SceneSpec, lights: u32) -> SceneSpec {
    if lights > 0 {
        let overlap = LIGHTS_OVERLAP_PER_1000 * lights as f32 / 1000.0;
        scene.lights =
            unbound_scenes::scatter_point_lights(lights, scene.bounds(), overlap, LIGHTS_SEED);
    }
    scene
}

/// The runs `options` ask for, in the order they run and are reported.
/// With `--shadows on` each frame run and the cull-only run is followed by
/// the same run with shadows.
pub fn plan(options: &RunOptions) -> Vec<Run> {
    let mut runs = Vec::new();
    let push = |runs: &mut Vec<Run>, kind: RunKind, instances: u32, shadows: bool| {
        runs.push(Run {
            kind,
            instances,
            shadows: false,
        });
        if shadows {
            runs.push(Run {
                kind,
                instances,
                shadows: true,
            });
        }
    };
    for &scene in &options.scenes {
        for &instances in &options.sizes {
            push(&mut runs, RunKind::Frame(scene), instances, options.shadows);
        }
    }
    // The largest size up to 100k: switches are about the CPU side.
    let switch_instances = options
        .sizes
        .iter()
        .copied()
        .filter(|&s| s <= 100_000)
        .max()
        .unwrap_or(1_000);
    if options.switches {
        let indirect_switches = [
            (IndirectMode::Plain, true),
            (IndirectMode::Plain, false),
            (IndirectMode::Count, false),
        ]
        .map(
            |(indirect, validation_indirect_call)| RunKind::IndirectSwitch {
                indirect,
                validation_indirect_call,
            },
        );
        for kind in indirect_switches {
            push(&mut runs, kind, switch_instances, false);
        }
    }
    let heap_tiers: &[Tier] = if options.tiers {
        &[Tier::A, Tier::B, Tier::C]
    } else {
        &[Tier::A]
    };
    for &tier in heap_tiers {
        let fits = |&&textures: &&u32| tier != Tier::C || textures <= TIER_C_HEAP_TEXTURES;
        for &textures in options.heap_textures.iter().filter(fits) {
            let sampled = options
                .sampled_textures
                .map_or(textures, |n| n.min(textures));
            push(
                &mut runs,
                RunKind::HeapSwitch {
                    textures,
                    sampled,
                    tier,
                },
                switch_instances,
                false,
            );
        }
    }
    if options.tiers {
        for &instances in options
            .sizes
            .iter()
            .filter(|&&s| s == 10_000 || s == 100_000)
        {
            for tier in [Tier::B, Tier::C] {
                push(&mut runs, RunKind::Tier(tier), instances, false);
            }
        }
    }
    plan_lights(options, &mut runs);
    if options.cull_only > 0 {
        push(
            &mut runs,
            RunKind::CullOnly,
            options.cull_only,
            options.shadows,
        );
    }
    runs
}

/// `--lights`: draw-bound at every size with each count of point lights;
/// 0 is the draw-bound frame run (added if the scenes leave it out).
fn plan_lights(options: &RunOptions, runs: &mut Vec<Run>) {
    for &instances in &options.sizes {
        for &lights in &options.lights {
            let kind = if lights == 0 {
                RunKind::Frame(BenchScene::DrawBound)
            } else {
                RunKind::Lights { lights }
            };
            let run = Run {
                kind,
                instances,
                shadows: false,
            };
            if !runs.contains(&run) {
                runs.push(run);
            }
        }
    }
}

/// Bytes the cull pass reads and writes per instance: bounds 16 + batch 4 +
/// rank write 4 (`cull_instances`), rank 4 (`scatter_visible`); per
/// visible instance batch 4 + the visible-list write 4 (counted at the
/// measured visible fraction). Per workgroup and key, not counted: a base
/// written and read back, a range start read (at 4M, under 1% of the
/// rest).
const CULL_BYTES_FIXED: f64 = (16.0 + 4.0 + 4.0) + 4.0;
const CULL_BYTES_VISIBLE: f64 = 4.0 + 4.0;

/// The count results recorded before 2026-12-01 used: bounds 16, batch 4
/// and rank 4 per instance; rank 4, batch 4, offset 4 and the visible
/// write 4 per visible instance. Their bandwidth is worked back from their
/// bound with it.
const LEGACY_CULL_BYTES: (f64, f64) = (28.0, 12.0);

/// [`cull_traffic_bytes`] under the count of results recorded before
/// 2026-12-01, which recorded their bound but not their bandwidth.
pub fn legacy_cull_traffic_bytes(instances: u32, visible: u32) -> f64 {
    let visible_fraction = f64::from(visible) / f64::from(instances);
    (LEGACY_CULL_BYTES.0 + LEGACY_CULL_BYTES.1 * visible_fraction) * f64::from(instances)
}

/// Bytes the cull pass moves for `instances` of which `visible` pass.
pub fn cull_traffic_bytes(instances: u32, visible: u32) -> f64 {
    let visible_fraction = f64::from(visible) / f64::from(instances);
    (CULL_BYTES_FIXED + CULL_BYTES_VISIBLE * visible_fraction) * f64::from(instances)
}

#[cfg(test)]
mod tests;
