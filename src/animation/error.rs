//! Why animation data is refused: [`AnimationError`] (the glTF loader wraps
//! it in `GltfError::Animation`, naming the file).

/// What is wrong with a sampler's keys (see [`Sampler::validate`]).
///
/// [`Sampler::validate`]: super::Sampler::validate
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SamplerError {
    /// The sampler has no key.
    #[error("no keyframes")]
    NoKeys,
    /// A key time is NaN, infinite, negative, or not after the one before
    /// it (times must increase strictly).
    #[error(
        "key {key}'s time {time} does not increase strictly from the previous one (or is not finite, or negative)"
    )]
    TimesNotIncreasing {
        /// The key.
        key: usize,
        /// Its time in seconds.
        time: f32,
    },
    /// An output value is NaN or infinite.
    #[error("output value {index} is {value}")]
    NonFiniteValue {
        /// Index into the flat output values.
        index: usize,
        /// The value.
        value: f32,
    },
    /// The output count does not match the input count (× 3 for
    /// CUBICSPLINE: in-tangent, value, out-tangent) × the values per key.
    #[error("{values} output values for {keys} keys, expected {expected}")]
    OutputCount {
        /// Key times.
        keys: usize,
        /// Output values (scalars).
        values: usize,
        /// Expected output values.
        expected: usize,
    },
}

/// Why animation data cannot be played.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AnimationError {
    /// A node comes before its parent in [`AnimationData::nodes`].
    ///
    /// [`AnimationData::nodes`]: super::AnimationData::nodes
    #[error("node {node} comes before its parent")]
    NodeOrder {
        /// Index of the node.
        node: usize,
    },
    /// A sampler's keys are unusable.
    #[error("animation {clip} sampler {sampler}: {reason}")]
    Sampler {
        /// The clip (glTF animation index).
        clip: usize,
        /// The sampler within it.
        sampler: usize,
        /// What is wrong.
        reason: SamplerError,
    },
    /// A channel names a node or a sampler that does not exist.
    #[error("animation {clip}: a channel names a node or sampler out of range")]
    ChannelOutOfRange {
        /// The clip.
        clip: usize,
    },
    /// A skin's inverse bind matrices are not one per joint.
    #[error("skin {skin}: {matrices} inverse bind matrices for {joints} joints")]
    InverseBindCount {
        /// The skin.
        skin: usize,
        /// Its joints.
        joints: usize,
        /// Its inverse bind matrices.
        matrices: usize,
    },
    /// An inverse bind matrix has a NaN or infinite element.
    #[error("skin {skin}: inverse bind matrix {joint} is not finite")]
    NonFiniteInverseBind {
        /// The skin.
        skin: usize,
        /// The joint.
        joint: usize,
    },
    /// A skin's joint is not a node of the scene's hierarchy.
    #[error("skin {skin}: joint node {node} is not a node of the scene")]
    JointNotInScene {
        /// The skin.
        skin: usize,
        /// The joint's node (glTF node index).
        node: usize,
    },
    /// A vertex names a joint beyond its skin's joints.
    #[error(
        "mesh {mesh} primitive {primitive}: vertex {vertex} names joint {joint}, but its skin has {joints}"
    )]
    JointOutOfRange {
        /// glTF mesh index.
        mesh: usize,
        /// Primitive within the mesh.
        primitive: usize,
        /// The vertex.
        vertex: usize,
        /// The joint index it names.
        joint: u32,
        /// Joints of the skin.
        joints: usize,
    },
    /// Morph targets or weights do not agree in number.
    #[error("mesh {mesh}: {what}: {found}, expected {expected}")]
    MorphTargetCount {
        /// glTF mesh index.
        mesh: usize,
        /// What was counted.
        what: &'static str,
        /// The count found.
        found: usize,
        /// The count expected.
        expected: usize,
    },
    /// A morph target's deltas are NaN or infinite.
    #[error("mesh {mesh} primitive {primitive}: morph target {target} has a non-finite delta")]
    NonFiniteMorphTarget {
        /// glTF mesh index.
        mesh: usize,
        /// Primitive within the mesh.
        primitive: usize,
        /// The target.
        target: usize,
    },
    /// An object driver names a node, mesh or skin out of range.
    #[error("object {object}: its node, mesh or skin is out of range")]
    DriverOutOfRange {
        /// The object (placement index).
        object: usize,
    },
    /// The GPU tables would index past `u32` (a scene far beyond any
    /// device's buffer limits).
    #[error("the animation's {what} do not fit the GPU tables' 32-bit indices")]
    TableTooLarge {
        /// What overflowed.
        what: &'static str,
    },
    /// More instances play than the playback pass was made for.
    #[error("{instances} animated instances, but room for {capacity}")]
    TooManyInstances {
        /// Instances asked for.
        instances: usize,
        /// Instances the pass holds.
        capacity: usize,
    },
    /// Skin stream entries beyond the deform buffer's stream.
    #[error("skin stream entries up to vertex {end}, but the stream holds {vertices}")]
    StreamOutOfRange {
        /// One past the last vertex written.
        end: u64,
        /// Vertices the stream holds.
        vertices: u32,
    },
    /// Morph delta entries beyond the deform buffer's delta region. It
    /// holds one range per morphed mesh of the data given to
    /// [`Renderer::set_animation`](crate::Renderer::set_animation); objects
    /// whose meshes hold the same deltas share a range, whichever arena
    /// mesh they draw. Deltas not in that data do not fit.
    #[error(
        "morph delta entries up to {end}, but the region holds {entries}: morph only with \
         targets of meshes in the AnimationData given to set_animation"
    )]
    DeltasOutOfRange {
        /// One past the last entry written.
        end: u64,
        /// Entries the region holds.
        entries: u32,
    },
    /// A morphed object's node plays fewer weights than its mesh has
    /// targets, or its mesh and its deltas differ in vertex count.
    #[error("morph targets that do not fit: {what}")]
    MorphMismatch {
        /// What differs.
        what: &'static str,
    },
    /// A skinned object's mesh and its stream differ in vertex count.
    #[error("a mesh of {mesh} vertices with a skin stream of {stream}")]
    StreamLength {
        /// The mesh's vertices.
        mesh: u32,
        /// The stream's.
        stream: usize,
    },
    /// A skinned object's joint spheres are not one per joint of its skin
    /// ([`SkinnedMesh::joint_spheres`](super::SkinnedMesh::joint_spheres)).
    #[error("{spheres} joint spheres for a skin of {joints} joints")]
    JointSpheres {
        /// Spheres given.
        spheres: usize,
        /// Joints of the skin.
        joints: usize,
    },
    /// No animation was given to the renderer
    /// ([`Renderer::set_animation`](crate::Renderer::set_animation)), or
    /// an index names a skin or an instance it does not have.
    #[error("no such animation skin or instance ({what})")]
    NotInAnimation {
        /// What was missing.
        what: &'static str,
    },
    /// An [`AnimatedScene`](super::AnimatedScene) whose animation the
    /// renderer played was replaced since by another
    /// [`Renderer::set_animation`](crate::Renderer::set_animation) (or the
    /// scene is posed in another renderer): its clips would index the other
    /// animation's tables. Nothing was changed; the scene's next
    /// [`pose_at`](super::AnimatedScene::pose_at) gives the renderer its
    /// animation again (replacing the other one).
    #[error(
        "the renderer's animation was replaced since this scene gave it its own; \
         pose_at again to give it back"
    )]
    Replaced,
    /// A scene time handed to the renderer is NaN or infinite.
    #[error("scene time {time} is not finite")]
    Time {
        /// The time.
        time: f32,
    },
}
