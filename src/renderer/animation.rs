//! Animation in the renderer: one animation's tables and playback pass
//! (`src/passes/animation.rs`) for a number of instances, the deform
//! buffer the raster passes skin with, and the frame step that plays it.
//!
//! Skinned objects' culling bounds follow their pose: the frame step
//! dispatches the skinned bounds (`src/passes/skin_bounds.rs`) right
//! after the playback, before any cull.
//!
//! First version: one animation per renderer ([`Renderer::set_animation`]
//! replaces the one before; its instances can be many, e.g. a crowd of
//! one model). Skinned objects are pointed at an instance's palette
//! ([`Renderer::set_object_skin`]), morphed ones at an instance's weights
//! ([`Renderer::set_object_morph`]); the CPU then writes per frame only
//! what plays ([`Renderer::play_animation`]) and the time.
//!
//! Replacing the animation replaces the deform buffer, so every place in
//! the old one an object's record names (palette, morph deltas and
//! weights) is stale: the objects the old animation deformed are drawn,
//! bounded and traced undeformed again (their records reset, their CPU
//! bounds uploaded again, their deformed BLASes dropped) until they are
//! skinned or morphed by the new one.

use super::Renderer;
use std::collections::{HashMap, HashSet};

use crate::animation::{
    AnimationData, AnimationError, AnimationTables, MORPH_ENTRIES_PER_DELTA, MorphTargets, Playing,
    SkinnedMesh, pack_influences, pack_morph_deltas,
};
use crate::errors::Error;
use crate::handles::ObjectHandle;
use crate::passes::PassStats;
use crate::passes::animation::AnimationPass;
use crate::passes::skin_bounds::{SkinBoundsPass, SkinBoundsTargets};
use crate::timestamps::TimedPass;

/// The next animation's [`RendererAnimation::version`].
static NEXT_ANIMATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The renderer's animation (see the module docs).
#[derive(Debug)]
pub(super) struct RendererAnimation {
    pub pass: AnimationPass,
    /// The skinned objects' bounds.
    pub bounds: SkinBoundsPass,
    /// Per skin, its first joint in the palette and its joints.
    skins: Vec<(u32, usize)>,
    /// Per node, its first weight in an instance's weights and its count.
    node_weights: Vec<(u32, u32)>,
    /// Per range of the delta region, the packed deltas it holds: meshes
    /// with the same deltas (one morph set added as two arena meshes)
    /// share a range. A CPU copy of the region, as large.
    ranges: HashMap<Vec<[u32; 4]>, u32>,
    /// Entries of the delta region given out.
    deltas_used: u32,
    /// The objects skinned or morphed by this animation (some may have
    /// been removed or undeformed since): undeformed when it is replaced.
    deformed: HashSet<ObjectHandle>,
    /// Bumped when the deform buffer is replaced (a new animation): unique
    /// to this animation among every renderer's.
    pub version: u64,
    /// The time the next frame plays.
    time: f32,
    /// Bumped whenever what plays or the time may have changed: the ray
    /// paths deform and build again (`src/rays/deform.rs`).
    pub pose_changes: u64,
}

impl Renderer {
    /// Uploads `data`'s animation tables (keys, hierarchy, skins) for
    /// `instances` instances, replacing any animation before (objects
    /// skinned or morphed by it are drawn, bounded and traced undeformed
    /// until skinned or morphed again: see the module docs). Makes the
    /// deform buffer: a skin stream entry for every vertex of the arena,
    /// then every instance's matrices and morph weights, then a region of
    /// one range of morph deltas per mesh of `data` with morph targets
    /// ([`Renderer::set_object_morph`]); sizes beyond the device's limits
    /// are [`CapabilityError::DeviceLimit`](crate::CapabilityError::DeviceLimit).
    pub fn set_animation(&mut self, data: &AnimationData, instances: u32) -> Result<(), Error> {
        let tables = AnimationTables::new(data)?;
        let vertices = self.tables.arena.vertex_capacity();
        let delta_entries: u64 = data
            .meshes
            .iter()
            .filter_map(|m| m.morph.as_ref())
            .map(|m| (m.vertices() * m.targets.len() * MORPH_ENTRIES_PER_DELTA) as u64)
            .sum();
        let delta_entries =
            u32::try_from(delta_entries).map_err(|_| AnimationError::TableTooLarge {
                what: "morph deltas",
            })?;
        let pass =
            AnimationPass::with_deform(&self.device, &tables, instances, vertices, delta_entries)?;
        let node_weights = tables
            .nodes
            .iter()
            .map(|n| (n.weight_offset, n.weight_count))
            .collect();
        // Unique across renderers: an `AnimatedScene` tells its own
        // animation from any other by it (`Renderer::animation_id`).
        let version = NEXT_ANIMATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let firsts = &tables.skin_first_joint;
        let ends = firsts.iter().skip(1).copied();
        let skins = firsts
            .iter()
            .zip(ends.chain([tables.joints.len() as u32]))
            .map(|(&first, end)| (first, (end - first) as usize))
            .collect();
        self.undeform_objects();
        self.tables.animation = Some(RendererAnimation {
            pass,
            bounds: SkinBoundsPass::new(&self.device),
            skins,
            node_weights,
            ranges: HashMap::new(),
            deltas_used: 0,
            deformed: HashSet::new(),
            version,
            time: 0.0,
            pose_changes: 0,
        });
        Ok(())
    }

    /// The current animation's identity (`None` without one): different
    /// for every [`Renderer::set_animation`] of every renderer, so that an
    /// [`AnimatedScene`](crate::animation::AnimatedScene) knows whether
    /// the animation it gave is still the one that plays.
    pub(crate) fn animation_id(&self) -> Option<u64> {
        self.tables.animation.as_ref().map(|a| a.version)
    }

    /// Skins `object` with skin `skin` of instance `instance` of the
    /// animation: its mesh's vertices get `mesh`'s influences (one entry
    /// per vertex, [`AnimationError::StreamLength`] otherwise), and every
    /// raster pass then draws it deformed by that instance's palette (its
    /// transform places the skeleton's scene; glTF ignores a skinned
    /// mesh's own node); its culling bounds follow the pose, from `mesh`'s
    /// joint spheres (one per joint of the skin,
    /// [`AnimationError::JointSpheres`] otherwise). `None` for `mesh`
    /// draws and bounds it as its mesh is again.
    pub fn set_object_skin(
        &mut self,
        object: ObjectHandle,
        mesh: Option<&SkinnedMesh<'_>>,
        instance: u32,
        skin: usize,
    ) -> Result<(), Error> {
        let Some(skinned) = mesh else {
            self.tables
                .objects
                .set_skin(object, crate::gpu_types::NO_SKIN)?;
            let slot = self
                .tables
                .objects
                .resolve(object)
                .map_err(crate::scene::ObjectError::from)?;
            if let Some(animation) = self.tables.animation.as_mut() {
                animation.bounds.unset(slot);
            }
            self.rays_set_object(object);
            return Ok(());
        };
        let influences = skinned.influences;
        let animation = self
            .tables
            .animation
            .as_mut()
            .ok_or(AnimationError::NotInAnimation { what: "animation" })?;
        let (first_joint, joints) = *animation
            .skins
            .get(skin)
            .ok_or(AnimationError::NotInAnimation { what: "skin" })?;
        if skinned.joint_spheres.len() != joints {
            return Err(AnimationError::JointSpheres {
                spheres: skinned.joint_spheres.len(),
                joints,
            }
            .into());
        }
        if instance >= animation.pass.capacity() {
            return Err(AnimationError::NotInAnimation { what: "instance" }.into());
        }
        let palette = u32::try_from(animation.pass.palette_index(instance, first_joint))
            .map_err(|_| AnimationError::TableTooLarge { what: "palettes" })?;
        let object_record = self
            .tables
            .objects
            .get(object)
            .map_err(crate::scene::ObjectError::from)?;
        let mesh = self
            .tables
            .arena
            .gpu_entry(object_record.mesh)
            .copied()
            .unwrap_or_default();
        if influences.len() != mesh.vertex_count as usize {
            return Err(AnimationError::StreamLength {
                mesh: mesh.vertex_count,
                stream: influences.len(),
            }
            .into());
        }
        let slot = self
            .tables
            .objects
            .resolve(object)
            .map_err(crate::scene::ObjectError::from)?;
        animation.bounds.set(
            slot,
            palette,
            (mesh.first_vertex, first_joint),
            &skinned.joint_spheres,
        )?;
        animation
            .pass
            .write_skin_stream(mesh.first_vertex, pack_influences(influences))?;
        animation.deformed.insert(object);
        self.tables.objects.set_skin(object, palette)?;
        // Rays trace it deformed too (`src/rays/deform.rs`).
        self.rays_set_object(object);
        Ok(())
    }

    /// Morphs `object` by `targets` (its mesh's morph targets, deltas for
    /// every vertex of its mesh, else [`AnimationError::MorphMismatch`])
    /// with the weights node `node` of instance `instance` plays (as many
    /// as the targets, else [`AnimationError::MorphMismatch`]): every
    /// raster pass then draws it morphed, before any skinning
    /// (`wgsl/morph.wgsl`), and rays trace it morphed (`src/rays/deform.rs`).
    /// Its culling bounds grow by `reach`
    /// ([`morph_reach`](crate::animation::morph_reach), object space; a
    /// skinned object's joint spheres carry it too,
    /// [`SkinnedMesh::with_reach`]). The deltas of a mesh are uploaded
    /// once, into the region [`Renderer::set_animation`] made for the
    /// morphed meshes of its data; meshes with the same deltas share one
    /// range (a morph set added as two arena meshes, or a mesh placed anew
    /// in the arena), so the region holds whatever the data's meshes
    /// morph by; other deltas may not fit
    /// ([`AnimationError::DeltasOutOfRange`]). `None` draws it unmorphed.
    pub fn set_object_morph(
        &mut self,
        object: ObjectHandle,
        targets: Option<&MorphTargets>,
        instance: u32,
        node: usize,
        reach: f32,
    ) -> Result<(), Error> {
        let arena = &self.tables.arena;
        let Some(targets) = targets else {
            let none = [crate::gpu_types::NO_MORPH, 0, 0, 0];
            self.tables.objects.set_morph(arena, object, none, 0.0)?;
            self.rays_set_object(object);
            return Ok(());
        };
        let animation = self
            .tables
            .animation
            .as_mut()
            .ok_or(AnimationError::NotInAnimation { what: "animation" })?;
        let (first_weight, weight_count) = *animation
            .node_weights
            .get(node)
            .ok_or(AnimationError::NotInAnimation { what: "node" })?;
        let target_count = targets.targets.len() as u32;
        if weight_count < target_count {
            return Err(AnimationError::MorphMismatch {
                what: "the node plays fewer weights than the mesh has targets",
            }
            .into());
        }
        if instance >= animation.pass.capacity() {
            return Err(AnimationError::NotInAnimation { what: "instance" }.into());
        }
        let object_record = self
            .tables
            .objects
            .get(object)
            .map_err(crate::scene::ObjectError::from)?;
        let mesh = arena
            .gpu_entry(object_record.mesh)
            .copied()
            .unwrap_or_default();
        let vertices = mesh.vertex_count as usize;
        if targets.vertices() != vertices || !reach.is_finite() || reach < 0.0 {
            return Err(AnimationError::MorphMismatch {
                what: "deltas for another vertex count, or a reach that is not finite",
            }
            .into());
        }
        // Packed again for each call (a pass over the deltas), found by
        // content: meshes with the same deltas share a range.
        let packed = pack_morph_deltas(targets, vertices);
        let first = match animation.ranges.get(&packed) {
            Some(&first) => first,
            None => {
                let first = animation.deltas_used;
                let entries = packed.len() as u64;
                animation.pass.write_morph_deltas(first, packed.clone())?;
                // Within the region's u32 entries: the write checked it.
                animation.deltas_used = (u64::from(first) + entries) as u32;
                animation.ranges.insert(packed, first);
                first
            }
        };
        let too_large = AnimationError::TableTooLarge {
            what: "morph deltas",
        };
        let deltas = u32::try_from(animation.pass.delta_index(first)).map_err(|_| too_large)?;
        let weights =
            u32::try_from(animation.pass.weight_index(instance, first_weight)).map_err(|_| {
                AnimationError::TableTooLarge {
                    what: "morph weights",
                }
            })?;
        let record = [deltas, weights, target_count, mesh.first_vertex];
        animation.deformed.insert(object);
        self.tables
            .objects
            .set_morph(arena, object, record, reach)?;
        // Rays trace it morphed too (`src/rays/deform.rs`).
        self.rays_set_object(object);
        Ok(())
    }

    /// What each instance of the animation plays (instance `i` plays
    /// `playing[i]`; more than it holds is
    /// [`AnimationError::TooManyInstances`]) and the scene time the next
    /// frame shows (not finite: [`AnimationError::Time`]). Without an
    /// animation: [`AnimationError::NotInAnimation`]. Each call compares
    /// every instance's record with the last; when only the time moves,
    /// [`Renderer::set_animation_time`] costs nothing per instance.
    pub fn play_animation(&mut self, playing: &[Playing], time: f32) -> Result<(), Error> {
        let animation = self
            .tables
            .animation
            .as_mut()
            .ok_or(AnimationError::NotInAnimation { what: "animation" })?;
        if !time.is_finite() {
            return Err(AnimationError::Time { time }.into());
        }
        animation.pass.set_instances(playing)?;
        animation.time = time;
        animation.pose_changes += 1;
        Ok(())
    }

    /// The scene time the next frame shows, what plays staying as the last
    /// [`Renderer::play_animation`] set it: the per-frame call, costing
    /// the CPU nothing per instance (`play_animation` compares every
    /// instance's record with the last). Without an animation:
    /// [`AnimationError::NotInAnimation`]; a time that is not finite:
    /// [`AnimationError::Time`].
    pub fn set_animation_time(&mut self, time: f32) -> Result<(), Error> {
        let animation = self
            .tables
            .animation
            .as_mut()
            .ok_or(AnimationError::NotInAnimation { what: "animation" })?;
        if !time.is_finite() {
            return Err(AnimationError::Time { time }.into());
        }
        if animation.time != time {
            animation.time = time;
            animation.pose_changes += 1;
        }
        Ok(())
    }

    /// Every live object the current animation skinned or morphed drawn as
    /// its mesh is again (before the animation is replaced: their records
    /// name places in its deform buffer).
    fn undeform_objects(&mut self) {
        let Some(animation) = self.tables.animation.as_mut() else {
            return;
        };
        let handles = std::mem::take(&mut animation.deformed);
        let none = [crate::gpu_types::NO_MORPH, 0, 0, 0];
        for object in handles {
            let tables = &mut self.tables;
            let Ok(record) = tables.objects.get(object) else {
                // Removed since.
                continue;
            };
            // Neither can fail: the handle is live, and its sphere was
            // finite with a reach at least as large.
            if record.skin != crate::gpu_types::NO_SKIN {
                let skin = crate::gpu_types::NO_SKIN;
                let set = tables.objects.set_skin(object, skin);
                set.expect("a live object");
            }
            if record.morph_deltas != crate::gpu_types::NO_MORPH {
                let set = tables.objects.set_morph(&tables.arena, object, none, 0.0);
                set.expect("a live object whose sphere was finite with more reach");
            }
            self.rays_set_object(object);
        }
    }

    /// The frame's animation step: the playback pass, with an animation,
    /// timed as [`TimedPass::Animation`]. The second value says whether
    /// the pass was recorded (its timestamps are unset otherwise).
    pub(super) fn record_animation(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(PassStats, bool), Error> {
        let timestamps = self.readback.timestamps().compute(TimedPass::Animation);
        let Some(animation) = self.tables.animation.as_mut() else {
            return Ok((PassStats::default(), false));
        };
        // The skinned bounds, when anything plays: after the playback, in
        // its compute pass.
        let objects = &self.tables.objects;
        let targets = SkinBoundsTargets {
            deform: animation.pass.poses(),
            objects: objects.object_buffer(),
            bounds: objects.bounds_buffer(),
            version: objects.version() + animation.version,
        };
        let bounds = &mut animation.bounds;
        let workgroups = match animation.pass.instance_count() {
            0 => None,
            _ => bounds.prepare(&self.device, &targets)?,
        };
        let bounds = &animation.bounds;
        let after = |pass: &mut wgpu::ComputePass<'_>| match workgroups {
            Some(groups) => bounds.dispatch(pass, groups),
            None => PassStats::default(),
        };
        let pass = &mut animation.pass;
        Ok(pass.record_with(
            &self.device,
            encoder,
            animation.time,
            timestamps,
            Some(&after),
        )?)
    }
}
