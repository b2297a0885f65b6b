//! What a frame's culling counted, as the results save it: the occlusion
//! phases' instances and the cascades' casters, and cluster culling.

use serde::{Deserialize, Serialize};

/// What each occlusion phase did with the instances in the frustum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OcclusionCounts {
    pub early_instances: u32,
    pub late_instances: u32,
    pub occluded_instances: u32,
    /// Per shadow cascade: casters drawn (both phases), of those drawn
    /// late, and hidden by its pyramid (zeros without shadows).
    #[serde(default)]
    pub cascade_casters: [[u32; 3]; 4],
}

/// What cluster culling did in a frame (`unbound::ClusterStats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterCounts {
    pub tested: u32,
    pub frustum_culled: u32,
    pub cone_culled: u32,
    pub occluded: u32,
    /// Cluster draws (and whole-mesh draws of skinned instances).
    pub drawn: u32,
    /// Instances drawn whole (skinned, tier A).
    #[serde(default)]
    pub whole_meshes: u32,
    /// Triangles of the cluster draws (the opaque and double-sided
    /// buckets) before triangle filtering; blended instances' come on
    /// top, in `triangles`.
    pub triangles: u64,
    /// Triangles the triangle filter tested, and dropped: outside the
    /// frustum, facing away, covering no pixel centre (zeros with it off).
    #[serde(default)]
    pub filter_tested: u32,
    #[serde(default)]
    pub filter_outside: u32,
    #[serde(default)]
    pub filter_back: u32,
    #[serde(default)]
    pub filter_no_pixel: u32,
    /// Triangles the cluster buckets hand the rasteriser (after filtering
    /// where it ran).
    #[serde(default)]
    pub triangles_drawn: u64,
}

impl ClusterCounts {
    pub fn of(stats: unbound::ClusterStats) -> Self {
        Self {
            tested: stats.tested,
            frustum_culled: stats.frustum_culled,
            cone_culled: stats.cone_culled,
            occluded: stats.occluded,
            drawn: stats.drawn,
            whole_meshes: stats.whole_meshes,
            triangles: stats.triangles,
            filter_tested: stats.filter_tested,
            filter_outside: stats.filter_outside,
            filter_back: stats.filter_back,
            filter_no_pixel: stats.filter_no_pixel,
            triangles_drawn: stats.triangles_drawn,
        }
    }
}
