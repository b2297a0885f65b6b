//! What a frame did, and the memory unbound holds.

use std::fmt;
use std::ops::AddAssign;

use crate::heap::ResidencyStats;
use crate::passes::PassStats;
use crate::rays::BuildStats;
use crate::readback::GpuFrameStats;
use crate::upload::UploadStats;

/// What one `render` call did, plus the newest GPU statistics that have come
/// back (from an earlier frame: they arrive without waiting).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// This frame's index (0 for the first).
    pub frame_index: u64,
    /// Commands recorded into the encoder (passes, copies, binds, dispatches, draws).
    pub commands_recorded: u32,
    /// `set_bind_group` calls.
    pub bind_groups_set: u32,
    /// Bind groups (re)built this frame.
    pub bind_group_rebuilds: u32,
    /// HDR targets (re)created this frame: 1 on the first frame and on
    /// every frame whose colour target has another size than the last's,
    /// else 0.
    pub hdr_targets_created: u32,
    /// Bytes copied from the CPU this frame.
    pub bytes_uploaded: u64,
    /// Live objects.
    pub instances: u32,
    /// Bottom-level acceleration structures built this frame (with ray
    /// queries: one per mesh added, or made again, since the last frame,
    /// and the deformed ones).
    pub blas_builds: u32,
    /// Of [`Self::blas_builds`], the BLASes of skinned objects' deformed
    /// positions (with ray queries: each traced skinned or morphed object
    /// due this frame, on frames its animation moved as its
    /// [`RayDeformation`](crate::RayDeformation) allows, or when it was
    /// added or changed; `src/rays/deform.rs`).
    pub deformed_blas_builds: u32,
    /// Top-level acceleration structure builds this frame (with ray
    /// queries: 1 when an object was added, removed, moved or changed since
    /// the last frame, or a deformed BLAS was built, else 0).
    pub tlas_builds: u32,
    /// GPU statistics of the newest finished frame, if any has finished.
    pub gpu: Option<GpuFrameStats>,
    /// Light references the cluster lists of this frame may hold
    /// (`passes/lights.rs`: sized for the light table, grown on overflow).
    pub light_references: u32,
    /// Whether this frame's index list grew because a finished frame
    /// needed more than it held ([`GpuFrameStats::light_lists`]).
    pub light_references_grown: bool,
    /// With [`crate::RendererConfig::texture_budget`] on the paged heap:
    /// the budget, resident, requested (promoted) and evicted bytes after
    /// this frame's streaming (`src/heap/residency.rs`).
    pub textures: Option<ResidencyStats>,
}

impl fmt::Display for FrameStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3} ms"));
        write!(
            f,
            "frame {}: {} commands, {} bind groups set, {} rebuilt, {} bytes uploaded, {} instances",
            self.frame_index,
            self.commands_recorded,
            self.bind_groups_set,
            self.bind_group_rebuilds,
            self.bytes_uploaded,
            self.instances
        )?;
        match &self.gpu {
            Some(g) => write!(
                f,
                "; GPU (frame {}): {} visible ({} drawn early, {} drawn late, {} occluded), {} draws, {} triangles, \
                 cull {}, pyramid {}, late cull {}, lights {}, draw {}, output {}",
                g.frame_index,
                g.visible_instances,
                g.early_instances,
                g.late_instances,
                g.occluded_instances,
                g.draws,
                g.triangles,
                ms(g.cull_ms),
                ms(g.pyramid_ms),
                ms(g.late_cull_ms),
                ms(g.lights_ms),
                ms(g.draw_ms),
                ms(g.output_ms)
            )?,
            None => write!(f, "; GPU: n/a (no frame finished yet)")?,
        }
        if let Some(l) = self.gpu.and_then(|g| g.light_lists) {
            write!(
                f,
                "; light lists: {:.1} lights per lit cluster (longest {}), {} of {} references{}",
                l.mean_lights_per_lit_cluster(),
                l.max_lights_per_cluster,
                l.references_needed,
                l.references_capacity,
                if l.overflowed() {
                    ", OVERFLOW: lists cut"
                } else {
                    ""
                }
            )?;
            if l.overflowed_columns > 0 {
                write!(f, ", {} columns over their list", l.overflowed_columns)?;
            }
        }
        Ok(())
    }
}

/// Bytes of GPU memory unbound's buffers and textures hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Texture heap (estimate, mips included).
    pub textures_bytes: u64,
    /// Geometry arena and mesh table.
    pub geometry_bytes: u64,
    /// Object table, bounds and batch streams.
    pub objects_bytes: u64,
    /// Material table.
    pub materials_bytes: u64,
    /// Cull outputs, instance ids, readback ring.
    pub frame_bytes: u64,
    /// The environment's maps (specular cube, diffuse coefficients) and
    /// the BRDF table.
    pub environment_bytes: u64,
    /// Light table and the light pass's cluster lists.
    pub lights_bytes: u64,
    /// The HDR target (all its samples), the visibility buffer's id target
    /// (8 bytes a pixel, once it ran), the output pass's uniforms.
    pub output_bytes: u64,
    /// The shadow map (once shadows have been on).
    pub shadow_bytes: u64,
    /// The animation: keyframe and hierarchy tables, instance records,
    /// node matrices, palettes and skin stream, morph weights; with ray
    /// queries, the deformed positions skinned objects' BLASes are built
    /// from.
    pub animation_bytes: u64,
}

impl MemoryStats {
    /// Everything.
    pub fn total_bytes(&self) -> u64 {
        self.textures_bytes
            + self.geometry_bytes
            + self.objects_bytes
            + self.materials_bytes
            + self.frame_bytes
            + self.environment_bytes
            + self.lights_bytes
            + self.output_bytes
            + self.shadow_bytes
            + self.animation_bytes
    }
}

impl AddAssign<PassStats> for FrameStats {
    fn add_assign(&mut self, pass: PassStats) {
        self.commands_recorded += pass.commands_recorded;
        self.bind_groups_set += pass.bind_groups_set;
        self.bind_group_rebuilds += pass.bind_group_rebuilds;
    }
}

impl AddAssign<UploadStats> for FrameStats {
    fn add_assign(&mut self, upload: UploadStats) {
        self.commands_recorded += upload.commands_recorded;
        self.bytes_uploaded += upload.bytes_uploaded;
    }
}

impl AddAssign<BuildStats> for FrameStats {
    fn add_assign(&mut self, built: BuildStats) {
        self.commands_recorded += built.commands_recorded;
        self.blas_builds += built.blas_built;
        self.deformed_blas_builds += built.deformed_built;
        self.tlas_builds += built.tlas_built;
    }
}
