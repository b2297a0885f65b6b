//! Twins of the animation tables and the playback pass's records
//! (`wgsl/animation.wgsl`; the tables are built by
//! [`crate::animation::AnimationTables`], the pass is
//! [`crate::passes::animation`]).

use bytemuck::{Pod, Zeroable};
use encase::ShaderType;

/// [`GpuAnimNode::parent`] of a root node.
pub const ANIM_NO_PARENT: u32 = u32::MAX;
/// [`GpuAnimChannel::path`]: translation (3 components).
pub const ANIM_PATH_TRANSLATION: u32 = 0;
/// [`GpuAnimChannel::path`]: rotation (4 components, a quaternion xyzw).
pub const ANIM_PATH_ROTATION: u32 = 1;
/// [`GpuAnimChannel::path`]: scale (3 components).
pub const ANIM_PATH_SCALE: u32 = 2;
/// [`GpuAnimChannel::path`]: morph weights (the node's weight count).
pub const ANIM_PATH_WEIGHTS: u32 = 3;
/// [`GpuAnimChannel::interpolation`]: the previous key's value.
pub const ANIM_STEP: u32 = 0;
/// [`GpuAnimChannel::interpolation`]: linear (rotations by slerp).
pub const ANIM_LINEAR: u32 = 1;
/// [`GpuAnimChannel::interpolation`]: glTF's cubic Hermite spline.
pub const ANIM_CUBIC_SPLINE: u32 = 2;
/// [`GpuAnimInstance::flags`]: clip `a` loops.
pub const ANIM_LOOP_A: u32 = 1;
/// [`GpuAnimInstance::flags`]: clip `b` loops.
pub const ANIM_LOOP_B: u32 = 2;
/// [`GpuAnimInstance::flags`]: clip `b` is blended over clip `a` by
/// [`GpuAnimInstance::blend`].
pub const ANIM_BLEND: u32 = 4;
/// [`GpuAnimInstance::clip_a`] of an instance at rest (any index beyond
/// the clips shows the rest pose, as the CPU twin does).
pub const ANIM_NO_CLIP: u32 = u32::MAX;

/// One node of the hierarchy (WGSL `AnimNode`, 64 bytes): its parent
/// (parents come first), its rest transform and where its morph weights
/// live.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuAnimNode {
    /// Rest translation.
    pub translation: [f32; 3],
    /// Index of the parent node, [`ANIM_NO_PARENT`] for a root.
    pub parent: u32,
    /// Rest rotation (xyzw).
    pub rotation: [f32; 4],
    /// Rest scale.
    pub scale: [f32; 3],
    /// Morph weights of the node (0 without morph targets).
    pub weight_count: u32,
    /// Offset of the node's weights in an instance's weights.
    pub weight_offset: u32,
    /// Index of the node's rest weights in the key table.
    pub rest_weights: u32,
    /// Explicit padding.
    pub _pad: [u32; 2],
}

/// One clip (WGSL `AnimClip`, 16 bytes): its duration and its channels.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuAnimClip {
    /// Last key time, seconds.
    pub duration: f32,
    /// First of its channels in the channel table.
    pub first_channel: u32,
    /// How many.
    pub channel_count: u32,
    /// Explicit padding.
    pub _pad: u32,
}

/// One channel with its sampler (WGSL `AnimChannel`, 32 bytes): what it
/// animates and where its keys are in the key table.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuAnimChannel {
    /// The node it animates.
    pub node: u32,
    /// [`ANIM_PATH_TRANSLATION`] and friends.
    pub path: u32,
    /// [`ANIM_STEP`], [`ANIM_LINEAR`] or [`ANIM_CUBIC_SPLINE`].
    pub interpolation: u32,
    /// Values per key (× 3 stored for CUBICSPLINE: in-tangent, value,
    /// out-tangent).
    pub components: u32,
    /// Index of the first key time in the key table.
    pub times: u32,
    /// Keys.
    pub key_count: u32,
    /// Index of the first output value in the key table.
    pub values: u32,
    /// Explicit padding.
    pub _pad: u32,
}

/// One joint of one skin (WGSL `AnimJoint`, 80 bytes). The joints of
/// every skin are one flat table; joint `j` of it writes palette entry
/// `j` of each instance.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuAnimJoint {
    /// `joint_from_mesh` at bind time, column-major.
    pub inverse_bind: [[f32; 4]; 4],
    /// The joint's node.
    pub node: u32,
    /// Explicit padding.
    pub _pad: [u32; 3],
}

/// What one instance plays (WGSL `AnimInstance`, 32 bytes): the only data
/// the CPU writes per instance.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuAnimInstance {
    /// Scene time at which clip `a`'s time 0 plays.
    pub start_a: f32,
    /// Clip `a`'s seconds per scene second.
    pub speed_a: f32,
    /// Scene time at which clip `b`'s time 0 plays.
    pub start_b: f32,
    /// Clip `b`'s seconds per scene second.
    pub speed_b: f32,
    /// Clip `a` ([`ANIM_NO_CLIP`]: the rest pose).
    pub clip_a: u32,
    /// Clip `b` (with [`ANIM_BLEND`]).
    pub clip_b: u32,
    /// Blend weight: 0 shows `a`, 1 shows `b`.
    pub blend: f32,
    /// [`ANIM_LOOP_A`], [`ANIM_LOOP_B`], [`ANIM_BLEND`].
    pub flags: u32,
}

/// The playback pass's uniforms (WGSL `AnimFrame`; `encase`).
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct GpuAnimFrame {
    /// Scene time, seconds.
    pub time: f32,
    /// Instances to play.
    pub instance_count: u32,
    /// Nodes of the hierarchy.
    pub node_count: u32,
    /// Joints of every skin together (palette entries per instance).
    pub joint_count: u32,
    /// Morph weights per instance.
    pub weight_count: u32,
    /// Clips.
    pub clip_count: u32,
}

/// One skinned object whose culling bounds follow its pose (WGSL
/// `SkinnedBounds`, 16 bytes; [`crate::passes::skin_bounds`]): the
/// playback pass's second entry point encloses the object's joint spheres
/// moved by its palette and writes its world sphere over its bounds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuSkinnedBounds {
    /// The object's slot (its entry in the object table and the bounds).
    pub object: u32,
    /// Its palette ([`GpuObject::skin`]: a `vec4` index into the deform
    /// buffer); the record is skipped while the object's differs.
    ///
    /// [`GpuObject::skin`]: crate::gpu_types::GpuObject::skin
    pub palette: u32,
    /// Its skin's first joint sphere in the sphere table.
    pub first_sphere: u32,
    /// Joints of its skin (spheres, palette matrices).
    pub joint_count: u32,
}

/// One traced deformed (skinned or morphed) object of the ray paths'
/// deformation pass (WGSL `RayDeformJob`, 16 bytes; `src/rays/deform.rs`,
/// `wgsl/ray_deform.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuRayDeformJob {
    /// Its object slot: its [`super::GpuObject`] names its palette
    /// (`skin`) and its morph (`morph_*`).
    pub object: u32,
    /// Its mesh's first index in the arena.
    pub first_index: u32,
    /// Its mesh's index count: the corners deformed.
    pub corners: u32,
    /// Its region's first vertex in the deformed-position pool.
    pub first_output: u32,
}
