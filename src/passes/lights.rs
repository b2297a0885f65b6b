//! The light pass (compute): sorts the light table's lights into the view's
//! clusters every frame, writing one list of light slots per cluster (a
//! range of one index list), each in ascending slot order so frames are
//! identical run to run. See `wgsl/lights.wgsl`; the grid and the tests are
//! `lighting::clusters`. The draw pass's fragments read their cluster's
//! list (`wgsl/clusters.wgsl`, `wgsl/punctual.wgsl`).
//!
//! Recorded only while the table has live lights: without, the draw pass
//! reads no list (the frame's `light_grid.w` is 0) and the frame records
//! what it did before lights existed.
//!
//! One compute pass, five dispatches, over the grid of
//! [`ClusterGrid`] (which clusters a light touches:
//! [`crate::lighting::clusters`]):
//!
//! 1. `prepare_lights` (a thread per light slot) puts each light in view space
//!    (centre, cull radius, axis);
//! 2. `column_lights` (a workgroup of 64 per screen tile) lists, in ascending
//!    slot order, the lights whose sphere (grown by a relative 10⁻⁴) reaches
//!    the tile's column between the first slice's near and the last slice's
//!    far plane: a superset of every list of the tile's clusters, so the
//!    cluster workgroups test those alone (about `3 × depth / radius` lights
//!    for lights scattered evenly, against all of them before). Each tile
//!    has [`column_capacity`] entries; a column with more lights is counted
//!    in the statistics and its clusters test every light, so lists are
//!    never cut by it;
//! 3. `count_lights` (a workgroup of 64 per cluster, each thread testing every
//!    64th light of its column) counts the lights that touch each cluster;
//! 4. `scan_clusters` (one workgroup) prefix-sums the counts into each
//!    cluster's range of one index list; past its end the later clusters'
//!    lists are cut. The range list's last two entries say how many
//!    references were needed and written, how many clusters have a light
//!    and the longest list, how many column lists overflowed and the
//!    longest: the frame's statistics read them back
//!    ([`crate::GpuFrameStats::light_lists`]);
//! 5. `fill_lists` (a workgroup per cluster) tests the lights again, 64 at a
//!    time, and writes each hit at its range start plus the number of hits at
//!    lower slots (an atomic OR per hit into a 64-bit mask in workgroup memory,
//!    then `countOneBits`), so every list is in ascending slot order and no
//!    atomic's order reaches the image.
//!
//! `tests/lights.rs` reads the lists back and compares them with the CPU
//! assignment (`ClusterView::assign`, the same tests in the same order in
//! `f32`): exact, except for light-cluster pairs whose test is within a
//! relative 10⁻⁶ of its decision, which may go either way; the light-count
//! view checks the fragments' lookup. 12 commands, 1 bind group.
//!
//! The index list is sized for the load: when the light table grows it
//! holds `clusters × min(light slots, GUESSED_LIGHTS_PER_CLUSTER)`
//! references, and when a finished frame needed more than it holds (its
//! lists were cut), the next frame's list grows to a power of two above
//! the need with a quarter to spare ([`FrameStats::light_references_grown`]
//! says so). It never outgrows `ClusterGrid::max_light_references`, which
//! `Renderer::new` checked against the device's limits, and never shrinks.
//!
//! [`FrameStats::light_references_grown`]: crate::FrameStats::light_references_grown

use crate::lighting::ClusterGrid;
use crate::passes::{BufferBindGroup, PassStats, Views, buffer_entry, storage};
use crate::readback::LightListSource;
use crate::shaders;

/// Threads per workgroup of `prepare_lights`, `count_lights` and
/// `fill_lists` (WGSL `LIGHT_WORKGROUP_SIZE` in `wgsl/lights.wgsl`).
pub const WORKGROUP_SIZE: u32 = 64;
/// Threads of the one `scan_clusters` workgroup (WGSL
/// `SCAN_WORKGROUP_SIZE`).
pub const SCAN_WORKGROUP_SIZE: u32 = 256;
/// Bytes of one view-space light (WGSL `ViewLight`, the pass's own).
const VIEW_LIGHT_SIZE: u64 = 48;
/// Bytes of one cluster's (first, count).
pub const CLUSTER_RANGE_SIZE: u64 = 8;

/// Light slots the view-space lights start with (they grow with the
/// light table).
pub(crate) const INITIAL_LIGHT_CAPACITY: u32 = 64;
/// Lights per cluster the index list is first sized for (it grows when a
/// frame needs more).
pub const GUESSED_LIGHTS_PER_CLUSTER: u32 = 32;
/// Entries after the clusters' in the cluster ranges: (references needed,
/// written), (clusters with a light, longest list), (column lists that
/// overflowed, longest column).
pub const CLUSTER_RANGES_TRAILER: u64 = 3;
/// Most lights a tile's column list holds.
pub const MAX_COLUMN_LIGHTS: u32 = 4096;
/// Most column list entries of a grid in all (64 MiB).
const MAX_COLUMN_ENTRIES: u64 = 1 << 24;

/// Slots each tile's column list holds for `lights` light slots:
/// `lights`, at most [`MAX_COLUMN_LIGHTS`] and the tiles' share of
/// 2^24 entries.
pub fn column_capacity(grid: &ClusterGrid, lights: u32) -> u32 {
    let tiles = u64::from(grid.tiles_x) * u64::from(grid.tiles_y);
    let share = (MAX_COLUMN_ENTRIES / tiles.max(1)).min(u64::from(MAX_COLUMN_LIGHTS)) as u32;
    lights.min(share)
}

/// Bytes of the column lists of `grid` for `lights` light slots: a count
/// per tile, then [`column_capacity`] slots per tile (`u32` each).
pub(crate) fn column_lists_size_bytes(grid: &ClusterGrid, lights: u32) -> u64 {
    let tiles = u64::from(grid.tiles_x) * u64::from(grid.tiles_y);
    size_of::<u32>() as u64 * tiles * (1 + u64::from(column_capacity(grid, lights)))
}

/// Bytes of the view-space light scratch for `lights` light slots.
pub(crate) fn view_lights_size_bytes(lights: u32) -> u64 {
    VIEW_LIGHT_SIZE * u64::from(lights.max(1))
}

/// Bytes of the cluster ranges of `grid`: one (first, count) per cluster
/// and [`CLUSTER_RANGES_TRAILER`] entries of statistics after them.
pub(crate) fn cluster_ranges_size_bytes(grid: &ClusterGrid) -> u64 {
    CLUSTER_RANGE_SIZE * (u64::from(grid.clusters()) + CLUSTER_RANGES_TRAILER)
}

/// Byte offset of the statistics after the clusters' ranges.
pub(crate) fn cluster_ranges_trailer_offset(grid: &ClusterGrid) -> u64 {
    CLUSTER_RANGE_SIZE * u64::from(grid.clusters())
}

/// Bytes of the largest light index list of `grid` (the list grows up to
/// it).
pub(crate) fn light_indices_size_bytes(grid: &ClusterGrid) -> u64 {
    size_of::<u32>() as u64 * u64::from(grid.max_light_references)
}

/// References the index list is given for `slots` light slots before any
/// frame said what it needs: `clusters × min(slots, GUESSED_LIGHTS_PER_CLUSTER)`,
/// at least 1, at most the grid's `max_light_references`.
pub(crate) fn initial_light_references(grid: &ClusterGrid, slots: u32) -> u32 {
    let guess = u64::from(grid.clusters()) * u64::from(slots.min(GUESSED_LIGHTS_PER_CLUSTER));
    guess.clamp(1, u64::from(grid.max_light_references)) as u32
}

/// References the index list grows to when a frame needed `needed`: the
/// power of two above `needed` and a quarter more, at most the grid's
/// `max_light_references`.
pub(crate) fn grown_light_references(grid: &ClusterGrid, needed: u32) -> u32 {
    let wanted = (u64::from(needed) + u64::from(needed) / 4).next_power_of_two();
    wanted.min(u64::from(grid.max_light_references)) as u32
}

/// A storage buffer the pass writes (and tests read back).
fn storage_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The buffers the light pass writes for one view, kept from frame to
/// frame: the view-space lights grow with the light table.
#[derive(Debug)]
pub(crate) struct ClusterBuffers {
    pub view_lights: wgpu::Buffer,
    /// Per tile its column's light count, then per tile a list of slots.
    pub column_lists: wgpu::Buffer,
    /// Per cluster `(first, count)` into `light_indices`, then
    /// [`CLUSTER_RANGES_TRAILER`] entries of statistics.
    pub ranges: wgpu::Buffer,
    /// Light slots, one range per cluster.
    pub light_indices: wgpu::Buffer,
    light_capacity: u32,
    grid: ClusterGrid,
    /// Changes whenever a buffer is reallocated.
    pub version: u64,
}

impl ClusterBuffers {
    pub fn new(device: &wgpu::Device, grid: &ClusterGrid) -> Self {
        let buffer = |label, size| storage_buffer(device, label, size);
        let light_capacity = INITIAL_LIGHT_CAPACITY;
        Self {
            view_lights: buffer(
                "unbound view lights",
                view_lights_size_bytes(light_capacity),
            ),
            column_lists: buffer(
                "unbound light columns",
                column_lists_size_bytes(grid, light_capacity),
            ),
            ranges: buffer("unbound cluster ranges", cluster_ranges_size_bytes(grid)),
            light_indices: Self::index_list(device, initial_light_references(grid, 0)),
            light_capacity,
            grid: *grid,
            version: 0,
        }
    }

    fn index_list(device: &wgpu::Device, references: u32) -> wgpu::Buffer {
        let size = size_of::<u32>() as u64 * u64::from(references);
        storage_buffer(device, "unbound light indices", size)
    }

    /// Makes the view-space lights cover `lights` light slots, and the
    /// index list hold at least [`initial_light_references`] for them.
    pub fn ensure_capacity(&mut self, device: &wgpu::Device, lights: u32) {
        if lights > self.light_capacity {
            self.view_lights = storage_buffer(
                device,
                "unbound view lights",
                view_lights_size_bytes(lights),
            );
            let size = column_lists_size_bytes(&self.grid, lights);
            if size > self.column_lists.size() {
                self.column_lists = storage_buffer(device, "unbound light columns", size);
            }
            self.light_capacity = lights;
            self.version += 1;
        }
        let references = initial_light_references(&self.grid, lights);
        if references > self.light_references() {
            self.light_indices = Self::index_list(device, references);
            self.version += 1;
        }
    }

    /// Grows the index list when a frame needed `needed` references and it
    /// holds fewer (up to the grid's most). Returns whether it grew.
    pub fn grow_light_references(&mut self, device: &wgpu::Device, needed: u32) -> bool {
        let references = grown_light_references(&self.grid, needed);
        if needed <= self.light_references() || references <= self.light_references() {
            return false;
        }
        self.light_indices = Self::index_list(device, references);
        self.version += 1;
        true
    }

    /// References the index list holds.
    pub fn light_references(&self) -> u32 {
        (self.light_indices.size() / size_of::<u32>() as u64) as u32
    }

    /// Where the light pass writes its statistics: the cluster ranges'
    /// trailer.
    pub fn statistics(&self) -> LightListSource<'_> {
        LightListSource {
            ranges: &self.ranges,
            offset: cluster_ranges_trailer_offset(&self.grid),
            capacity: self.light_references(),
            clusters: self.grid.clusters(),
        }
    }

    pub fn size_bytes(&self) -> u64 {
        self.view_lights.size()
            + self.column_lists.size()
            + self.ranges.size()
            + self.light_indices.size()
    }
}

/// The light table as the light pass reads it.
#[derive(Debug)]
pub(crate) struct LightInputs<'a> {
    /// `GpuLight` per slot.
    pub lights: &'a wgpu::Buffer,
    /// Changes whenever the table's buffer is replaced.
    pub version: u64,
    /// Slots in use (high-water mark).
    pub slots: u32,
    /// The grid the frame uniforms describe.
    pub grid: ClusterGrid,
}

/// The cluster lists of a view, as the draw pass reads them.
#[derive(Debug)]
pub(crate) struct LightClusters<'a> {
    pub ranges: &'a wgpu::Buffer,
    pub light_indices: &'a wgpu::Buffer,
    /// Changes whenever these buffers are reallocated.
    pub version: u64,
    /// What the pass recorded (nothing without live lights).
    pub stats: PassStats,
}

#[derive(Debug)]
pub(crate) struct LightPass {
    layout: wgpu::BindGroupLayout,
    prepare_lights: wgpu::ComputePipeline,
    column_lights: wgpu::ComputePipeline,
    count_lights: wgpu::ComputePipeline,
    scan_clusters: wgpu::ComputePipeline,
    fill_lists: wgpu::ComputePipeline,
    bind_group: BufferBindGroup<[u64; 2]>,
}

impl LightPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let entry = |binding, ty| buffer_entry(binding, compute, ty);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("unbound lights"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform),
                entry(1, storage(true)),
                entry(2, storage(false)),
                entry(3, storage(false)),
                entry(4, storage(false)),
                entry(5, storage(false)),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("unbound lights"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::LIGHTS.create(device);
        let pipeline = |entry_point| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self {
            prepare_lights: pipeline("prepare_lights"),
            column_lights: pipeline("column_lights"),
            count_lights: pipeline("count_lights"),
            scan_clusters: pipeline("scan_clusters"),
            fill_lists: pipeline("fill_lists"),
            layout,
            bind_group: BufferBindGroup::new("unbound lights"),
        }
    }

    /// Records the light pass for the main view of `views` (nothing while
    /// `inputs.slots` is 0): its cluster lists.
    pub fn record<'v>(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &LightInputs<'_>,
        views: &'v Views,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> LightClusters<'v> {
        let (view, out) = (&views.main, &views.clusters);
        let mut clusters = LightClusters {
            ranges: &out.ranges,
            light_indices: &out.light_indices,
            version: out.version,
            stats: PassStats::default(),
        };
        if inputs.slots == 0 {
            return clusters;
        }
        let key = [inputs.version, out.version];
        let buffers = [
            &view.uniforms,
            inputs.lights,
            &out.view_lights,
            &out.ranges,
            &out.light_indices,
            &out.column_lists,
        ];
        let (bind_group, rebuilt) = self.bind_group.get(device, &self.layout, key, &buffers);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("unbound lights"),
            timestamp_writes: timestamps,
        });
        pass.set_bind_group(0, bind_group, &[]);
        let grid = &inputs.grid;
        pass.set_pipeline(&self.prepare_lights);
        pass.dispatch_workgroups(inputs.slots.div_ceil(WORKGROUP_SIZE), 1, 1);
        pass.set_pipeline(&self.column_lights);
        pass.dispatch_workgroups(grid.tiles_x, grid.tiles_y, 1);
        pass.set_pipeline(&self.count_lights);
        pass.dispatch_workgroups(grid.tiles_x, grid.tiles_y, grid.depth_slices);
        pass.set_pipeline(&self.scan_clusters);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.fill_lists);
        pass.dispatch_workgroups(grid.tiles_x, grid.tiles_y, grid.depth_slices);
        clusters.stats = PassStats {
            // pass, bind, 5 x (pipeline + dispatch)
            commands_recorded: 12,
            bind_groups_set: 1,
            bind_group_rebuilds: u32::from(rebuilt),
        };
        clusters
    }
}
