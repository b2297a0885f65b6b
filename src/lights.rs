//! Punctual lights (`KHR_lights_punctual`: directional, point and spot) and
//! the light table they live in.
//!
//! A [`Light`] is added, changed and removed through generation-checked
//! [`LightHandle`]s, like an object. The table is a CPU-mirrored GPU array
//! of [`GpuLight`] (80 bytes) that uploads only the slots that changed;
//! its capacity is [`crate::Capacities::lights`]. Each frame the light pass
//! (`passes/lights.rs`) sorts the live lights into view-space clusters and
//! the draw pass shades each fragment with its cluster's lights only.
//!
//! Units are glTF's: point and spot intensities in candela, directional in
//! lux; a light of intensity `I` and colour `c` gives a surface facing it
//! at distance `d` an illuminance of `c I / d²` (times the range window and
//! the spot cone, [`crate::lighting::punctual`]).
//!
//! **The sun.** One directional light may be named the sun
//! ([`LightTable::set_sun`]; the glTF loader names a file's brightest). It
//! then replaces [`crate::Lighting`]'s built-in sun (direction and colour;
//! the ambient stays): the cascades follow it and the sun term shades it,
//! while its GPU entry is left empty (kind `NONE`), so it is never shaded
//! twice. Removing it, or making it a point or spot, brings the built-in
//! sun back. Other directional lights are in every cluster, unshadowed.
//!
//! Spot lights with [`Light::casts_shadows`] may be shadowed: the table
//! gives the first [`crate::ShadowSettings::spot_lights`] of them, in slot
//! order, their index among the spot shadows (`GpuLight::shadow`; see
//! [`crate::shadows::spots`]).
//!
//! Bad input is refused with a [`LightError`] before anything changes:
//! non-finite values, a negative colour or intensity, a range that is not
//! positive, a spot cone whose inner angle exceeds its outer one (or an
//! outer angle outside (0, π/2]), a direction that cannot be normalised,
//! a full table, a stale or foreign handle. What the renderer derives from
//! valid fields is checked too ([`LightError::Derived`]): colour ×
//! intensity up to [`MAX_LIGHT_INTENSITY`] per channel and a range up to
//! [`MAX_LIGHT_RANGE`], so that the cull radius, its square and the
//! shading stay finite.
//!
//! A free slot is all zero (kind `NONE`). When spots' shadow indices change,
//! only the entries that change are rewritten (one rank move at most each).

use std::collections::BTreeSet;

use glam::{Mat4, Vec3};

use crate::gpu_table::GpuTable;
use crate::gpu_types::{
    GpuLight, LIGHT_KIND_DIRECTIONAL, LIGHT_KIND_NONE, LIGHT_KIND_POINT, LIGHT_KIND_SPOT,
};
use crate::handles::{
    CapacityError, HandleError, LightHandle, LightSlot, SlotAllocator, new_owner_id,
};
use crate::lighting::ClusterGrid;
use crate::lighting::punctual::{cone_scale_offset, cull_radius};
use crate::shadows::spots::NO_SPOT_SHADOW;
use crate::upload::UploadBatch;

/// What kind of light, with the spot cone's angles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LightKind {
    /// Infinitely far away, shining along [`Light::direction`]; intensity in
    /// lux. Not attenuated; in every cluster.
    Directional,
    /// Shines in every direction from [`Light::position`]; intensity in
    /// candela.
    Point,
    /// Shines from [`Light::position`] along [`Light::direction`] in a cone;
    /// intensity in candela (inside the inner cone).
    Spot {
        /// Angle from the axis where the falloff begins, radians (at least
        /// 0, at most `outer_cone_angle`).
        inner_cone_angle: f32,
        /// Angle from the axis where the falloff ends, radians (over 0, at
        /// most π/2).
        outer_cone_angle: f32,
    },
}

/// One punctual light. [`Light::default`] is glTF's default: a white point
/// light of 1 cd at the origin without a range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// Directional, point or spot.
    pub kind: LightKind,
    /// World-space position (point and spot lights).
    pub position: Vec3,
    /// World-space direction the light shines in (spot and directional
    /// lights; normalised when encoded). glTF's lights shine along their
    /// node's -Z.
    pub direction: Vec3,
    /// Linear RGB colour, each channel at least 0.
    pub color: Vec3,
    /// Candela (point, spot) or lux (directional), at least 0.
    pub intensity: f32,
    /// Distance at which the light's influence is windowed to 0
    /// (`KHR_lights_punctual`'s recommended falloff); `None`: plain inverse
    /// square, culled where its illuminance falls under
    /// [`crate::lighting::LIGHT_CUTOFF_ILLUMINANCE`].
    pub range: Option<f32>,
    /// A spot light casts shadows while shadows are on, if it is among the
    /// first [`crate::ShadowSettings::spot_lights`] such spots in slot
    /// order (see [`crate::shadows::spots`]); default `true`. Point and
    /// directional lights cast none.
    pub casts_shadows: bool,
}

impl Default for Light {
    fn default() -> Self {
        Self {
            kind: LightKind::Point,
            position: Vec3::ZERO,
            direction: Vec3::NEG_Z,
            color: Vec3::ONE,
            intensity: 1.0,
            range: None,
            casts_shadows: true,
        }
    }
}

/// Why a light was refused. Nothing changes on error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LightError {
    /// NaN or infinity in a field.
    #[error("light field {field} is not finite: {}", shown(field, value))]
    NonFinite {
        /// The field.
        field: &'static str,
        /// Its value (a scalar in x).
        value: Vec3,
    },
    /// A negative intensity or colour channel.
    #[error("light field {field} is negative: {}", shown(field, value))]
    Negative {
        /// The field.
        field: &'static str,
        /// Its value (a scalar in x).
        value: Vec3,
    },
    /// A range that is not positive (glTF's range is over 0; `None` means
    /// no range).
    #[error("light range {range} is not positive")]
    Range {
        /// The range given.
        range: f32,
    },
    /// A spot cone that is not `0 <= inner <= outer <= π/2` with `outer > 0`.
    #[error(
        "spot cone inner {inner_cone_angle} / outer {outer_cone_angle} radians: needs 0 <= inner <= outer <= pi/2, outer > 0"
    )]
    Cone {
        /// The inner angle given.
        inner_cone_angle: f32,
        /// The outer angle given.
        outer_cone_angle: f32,
    },
    /// A spot or directional light whose direction `f32` cannot normalise.
    #[error("light direction {direction:?} cannot be normalised")]
    Direction {
        /// The direction given.
        direction: Vec3,
    },
    /// A light named the sun that is not directional.
    #[error("only a directional light can be the sun, not kind {kind} (2 point, 3 spot)")]
    NotDirectional {
        /// Its `GpuLight::kind`.
        kind: u32,
    },
    /// Stale or foreign handle.
    #[error(transparent)]
    Handle(#[from] HandleError),
    /// The table is full ([`crate::Capacities::lights`]).
    #[error(transparent)]
    Capacity(#[from] CapacityError),
    /// A cluster grid outside [`ClusterGrid::validate`]'s bounds (refused
    /// when the renderer is created).
    #[error(
        "cluster grid {grid:?}: needs 1 to 1024 tiles a side, at most 65,536 clusters and 1 to 2^26 light references"
    )]
    Grid {
        /// The grid given.
        grid: ClusterGrid,
    },
    /// A value the renderer derives from valid fields is beyond what the
    /// shading keeps finite: a channel of colour × intensity over
    /// [`MAX_LIGHT_INTENSITY`], or a range over [`MAX_LIGHT_RANGE`].
    #[error("light {derived} = {value} is beyond {max} (from {inputs})")]
    Derived {
        /// What was derived, and how.
        derived: &'static str,
        /// Its value (infinite where the product overflowed).
        value: f32,
        /// The most the renderer takes.
        max: f32,
        /// The fields it was derived from, with their values.
        inputs: String,
    },
}

/// The most a channel of a light's colour × intensity may be (candela or
/// lux). The shading multiplies it by up to
/// 1 / [`crate::lighting::punctual::MIN_DISTANCE_SQUARED`]
/// (10⁴) and by BRDF terms up to about 10⁶ at the lowest roughness, and
/// the light pass squares the cull radius it gives (at most 10¹⁶ m): all
/// stay finite in `f32`. The sun seen as a point light (3·10²⁷ cd) fits.
pub const MAX_LIGHT_INTENSITY: f32 = 1e28;

/// The longest range a light may have (m): the shading and the light pass
/// square it, which stays finite in `f32`.
pub const MAX_LIGHT_RANGE: f32 = 1e18;

/// Fields that hold a scalar (in x) print as one.
fn shown(field: &str, value: &Vec3) -> String {
    match field {
        "position" | "direction" | "color" => format!("{value:?}"),
        _ => value.x.to_string(),
    }
}

impl Light {
    /// A point light.
    pub fn point(position: Vec3, color: Vec3, intensity_cd: f32, range: Option<f32>) -> Self {
        Self {
            kind: LightKind::Point,
            position,
            color,
            intensity: intensity_cd,
            range,
            ..Self::default()
        }
    }

    /// A spot light shining along `direction`.
    pub fn spot(
        position: Vec3,
        direction: Vec3,
        color: Vec3,
        intensity_cd: f32,
        range: Option<f32>,
        (inner_cone_angle, outer_cone_angle): (f32, f32),
    ) -> Self {
        Self {
            kind: LightKind::Spot {
                inner_cone_angle,
                outer_cone_angle,
            },
            position,
            direction,
            color,
            intensity: intensity_cd,
            range,
            casts_shadows: true,
        }
    }

    /// A directional light shining along `direction`.
    pub fn directional(direction: Vec3, color: Vec3, illuminance_lux: f32) -> Self {
        Self {
            kind: LightKind::Directional,
            direction,
            color,
            intensity: illuminance_lux,
            ..Self::default()
        }
    }

    /// The light placed by `world_from_light`: position transformed as a
    /// point, direction as a vector (glTF places a light at its node's
    /// origin shining along its -Z). Not normalised here.
    pub fn transformed(&self, world_from_light: &Mat4) -> Self {
        Self {
            position: world_from_light.transform_point3(self.position),
            direction: world_from_light.transform_vector3(self.direction),
            ..*self
        }
    }

    /// Checks what [`crate::Renderer::add_light`] accepts (see
    /// [`LightError`]).
    pub fn validate(&self) -> Result<(), LightError> {
        let scalar = |v: f32| Vec3::new(v, 0.0, 0.0);
        let mut fields = vec![
            ("position", self.position),
            ("direction", self.direction),
            ("color", self.color),
            ("intensity", scalar(self.intensity)),
        ];
        if let Some(range) = self.range {
            fields.push(("range", scalar(range)));
        }
        if let LightKind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        } = self.kind
        {
            fields.push(("inner_cone_angle", scalar(inner_cone_angle)));
            fields.push(("outer_cone_angle", scalar(outer_cone_angle)));
        }
        for (field, value) in fields {
            if !value.is_finite() {
                return Err(LightError::NonFinite { field, value });
            }
        }
        for (field, value) in [("color", self.color), ("intensity", scalar(self.intensity))] {
            if value.min_element() < 0.0 {
                return Err(LightError::Negative { field, value });
            }
        }
        if let Some(range) = self.range.filter(|&r| r <= 0.0) {
            return Err(LightError::Range { range });
        }
        if let LightKind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        } = self.kind
        {
            let ordered = 0.0 <= inner_cone_angle && inner_cone_angle <= outer_cone_angle;
            if !ordered || outer_cone_angle <= 0.0 || outer_cone_angle > std::f32::consts::FRAC_PI_2
            {
                return Err(LightError::Cone {
                    inner_cone_angle,
                    outer_cone_angle,
                });
            }
        }
        let aimed = !matches!(self.kind, LightKind::Point);
        if aimed && self.direction.try_normalize().is_none() {
            return Err(LightError::Direction {
                direction: self.direction,
            });
        }
        self.validate_derived()
    }

    /// Checks what the renderer derives from the fields, once each field is
    /// valid: colour × intensity, and the range the shading squares. The
    /// cull radius of a light without range follows from the first (at
    /// most 10¹⁶ m); a spot's cone scale is at most 1000 by construction
    /// ([`cone_scale_offset`]).
    fn validate_derived(&self) -> Result<(), LightError> {
        let intensity = (self.color * self.intensity).max_element();
        if intensity > MAX_LIGHT_INTENSITY {
            return Err(LightError::Derived {
                derived: "colour × intensity (brightest channel)",
                value: intensity,
                max: MAX_LIGHT_INTENSITY,
                inputs: format!("color {:?}, intensity {}", self.color, self.intensity),
            });
        }
        if let Some(range) = self.range.filter(|&r| r > MAX_LIGHT_RANGE) {
            return Err(LightError::Derived {
                derived: "range (squared by the shading)",
                value: range,
                max: MAX_LIGHT_RANGE,
                inputs: format!("range {range}"),
            });
        }
        Ok(())
    }

    /// The light's GPU entry, after [`Self::validate`].
    pub fn to_gpu(&self) -> Result<GpuLight, LightError> {
        self.validate()?;
        let intensity = self.color * self.intensity;
        let direction = self.direction.try_normalize().unwrap_or(Vec3::NEG_Z);
        let (kind, (cone_scale, cone_offset), (cos_outer, sin_outer)) = match self.kind {
            LightKind::Directional => (LIGHT_KIND_DIRECTIONAL, (0.0, 1.0), (-1.0, 0.0)),
            LightKind::Point => (LIGHT_KIND_POINT, (0.0, 1.0), (-1.0, 0.0)),
            LightKind::Spot {
                inner_cone_angle,
                outer_cone_angle,
            } => (
                LIGHT_KIND_SPOT,
                cone_scale_offset(inner_cone_angle, outer_cone_angle),
                (outer_cone_angle.cos(), outer_cone_angle.sin()),
            ),
        };
        Ok(GpuLight {
            position: self.position.to_array(),
            range: self.range.unwrap_or(0.0),
            direction: direction.to_array(),
            cull_radius: cull_radius(intensity, self.range),
            intensity: intensity.to_array(),
            kind,
            cone_scale,
            cone_offset,
            cos_outer,
            sin_outer,
            // The light table gives shadowed spots their index.
            shadow: NO_SPOT_SHADOW,
            _pad: [0; 3],
        })
    }

    /// Whether the light asks for a spot shadow.
    fn casts_spot_shadow(&self) -> bool {
        self.casts_shadows && matches!(self.kind, LightKind::Spot { .. })
    }
}

/// Every light. See the module docs.
#[derive(Debug)]
pub struct LightTable {
    slots: SlotAllocator<LightSlot>,
    lights: GpuTable<GpuLight>,
    /// Slots of the live spot lights that cast shadows, ascending.
    casters: BTreeSet<u32>,
    /// How many of them are shadowed: [`crate::ShadowSettings::spot_lights`].
    shadowed_spots: u32,
    /// The directional light named the sun: its slot and its entry, which
    /// the table on the GPU holds empty (see the module docs).
    sun: Option<(LightHandle, GpuLight)>,
}

impl LightTable {
    pub(crate) fn new(device: &wgpu::Device, capacity: u32) -> Self {
        Self {
            slots: SlotAllocator::new(new_owner_id(), capacity, 0),
            lights: GpuTable::new(
                device,
                "unbound light table",
                wgpu::BufferUsages::STORAGE,
                capacity,
            ),
            casters: BTreeSet::new(),
            shadowed_spots: 0,
            sun: None,
        }
    }

    /// Adds a light.
    pub fn add(&mut self, light: &Light) -> Result<LightHandle, LightError> {
        let gpu = light.to_gpu()?;
        let handle = self.slots.alloc()?;
        self.place(handle.slot(), light, gpu);
        Ok(handle)
    }

    /// Replaces a light.
    pub fn set(&mut self, handle: LightHandle, light: &Light) -> Result<(), LightError> {
        let slot = self.slots.resolve(handle)?;
        let gpu = light.to_gpu()?;
        self.place(slot, light, gpu);
        Ok(())
    }

    /// Removes a light; its slot is reused by a later add.
    pub fn remove(&mut self, handle: LightHandle) -> Result<(), LightError> {
        let slot = self.slots.free(handle)?;
        self.lights.set(slot, GpuLight::default());
        self.sun = self.sun.filter(|(sun, _)| sun.slot() != slot);
        self.casters.remove(&slot);
        self.assign_spot_shadows(self.shadowed_spots);
        Ok(())
    }

    /// Writes a validated light into `slot` and gives the spot shadows
    /// their indices again.
    fn place(&mut self, slot: u32, light: &Light, gpu: GpuLight) {
        let sun_here = |sun: &(LightHandle, GpuLight)| sun.0.slot() == slot;
        if self.sun.is_some_and(|sun| sun_here(&sun)) {
            let still = light.kind == LightKind::Directional;
            self.sun = self.sun.filter(|_| still).map(|(handle, _)| (handle, gpu));
        }
        let sun = self.sun.filter(sun_here);
        self.lights
            .set(slot, sun.map_or(gpu, |_| GpuLight::default()));
        if light.casts_spot_shadow() {
            self.casters.insert(slot);
        } else {
            self.casters.remove(&slot);
        }
        self.assign_spot_shadows(self.shadowed_spots);
    }

    /// Shadows the first `count` casting spot lights (slot order) from now
    /// on ([`crate::ShadowSettings::spot_lights`]).
    pub(crate) fn set_shadowed_spots(&mut self, count: u32) {
        let reach = self.shadowed_spots.max(count);
        self.shadowed_spots = count;
        self.assign_spot_shadows(reach);
    }

    /// Gives the i-th casting spot light shadow index i while i is below
    /// the shadowed count, and [`NO_SPOT_SHADOW`] after, rewriting the
    /// entries that change. One light added, changed or removed moves the
    /// others' ranks by one at most, so only the first `reach + 1` casters
    /// can change (`reach`: the largest shadowed count involved).
    fn assign_spot_shadows(&mut self, reach: u32) {
        let shadowed = self.shadowed_spots as usize;
        for (index, &slot) in self.casters.iter().take(reach as usize + 1).enumerate() {
            let shadow = if index < shadowed {
                index as u32
            } else {
                NO_SPOT_SHADOW
            };
            let mut entry = *self.lights.get(slot).expect("a caster is live");
            if entry.shadow != shadow {
                entry.shadow = shadow;
                self.lights.set(slot, entry);
            }
        }
    }

    /// The shadowed spot lights, by shadow index: slot and GPU entry.
    pub fn shadowed_spots(&self) -> impl Iterator<Item = (u32, GpuLight)> + '_ {
        self.casters
            .iter()
            .take(self.shadowed_spots as usize)
            .map(|&slot| (slot, *self.lights.get(slot).expect("a caster is live")))
    }

    /// Names the directional light `handle` the sun (`None`: the built-in
    /// sun; see the module docs). Refuses a stale handle and a light that
    /// is not directional, changing nothing.
    pub fn set_sun(&mut self, handle: Option<LightHandle>) -> Result<(), LightError> {
        let Some(handle) = handle else {
            if let Some((sun, entry)) = self.sun.take() {
                self.lights.set(sun.slot(), entry);
            }
            return Ok(());
        };
        let entry = self.get(handle)?;
        if entry.kind != LIGHT_KIND_DIRECTIONAL {
            return Err(LightError::NotDirectional { kind: entry.kind });
        }
        self.set_sun(None)?;
        self.sun = Some((handle, entry));
        self.lights.set(handle.slot(), GpuLight::default());
        Ok(())
    }

    /// The sun's handle and entry; `None`: the built-in sun.
    pub fn sun(&self) -> Option<(LightHandle, GpuLight)> {
        self.sun
    }

    /// The GPU entry of a live light (the sun's too, empty on the GPU).
    pub fn get(&self, handle: LightHandle) -> Result<GpuLight, HandleError> {
        let slot = self.slots.resolve(handle)?;
        match self.sun {
            Some((sun, entry)) if sun.slot() == slot => Ok(entry),
            _ => Ok(*self.lights.get(slot).expect("live light")),
        }
    }

    /// The slot of a live light (what the cluster lists name).
    pub fn resolve(&self, handle: LightHandle) -> Result<u32, HandleError> {
        self.slots.resolve(handle)
    }

    /// The GPU entry of slot `slot` as last written (free slots are zero).
    pub fn gpu_entry(&self, slot: u32) -> Option<GpuLight> {
        self.lights.get(slot).copied()
    }

    /// Light slots in use (high-water mark): what the light pass scans.
    pub fn slots_in_use(&self) -> u32 {
        self.lights.len()
    }

    /// Live lights.
    pub fn len(&self) -> u32 {
        self.slots.live_count()
    }

    /// Whether there are no live lights.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn flush(&mut self, device: &wgpu::Device, batch: &mut UploadBatch) {
        self.lights.flush(device, batch);
    }

    /// The light table buffer (`GpuLight` per slot).
    pub fn buffer(&self) -> &wgpu::Buffer {
        self.lights.buffer()
    }

    /// Capacity of the GPU buffer, in lights.
    pub fn gpu_capacity(&self) -> u32 {
        (self.lights.size_bytes() / size_of::<GpuLight>() as u64) as u32
    }

    pub(crate) fn version(&self) -> u64 {
        self.lights.version()
    }

    /// Bytes of GPU memory the table holds.
    pub fn size_bytes(&self) -> u64 {
        self.lights.size_bytes()
    }
}

// A free slot is all zero: the shaders skip it by its kind.
const _: () = assert!(LIGHT_KIND_NONE == 0);
const _: () = assert!(LIGHT_KIND_POINT != LIGHT_KIND_NONE);
