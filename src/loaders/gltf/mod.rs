//! glTF 2.0 into the heap, arena and tables: `.gltf` with external or
//! embedded (data URI) buffers and images, and `.glb`.
//!
//! Loading is two stages:
//! 1. [`parse_gltf`] (or [`parse_gltf_slice`] for bytes in memory) reads,
//!    pre-checks and validates everything on the CPU, with no GPU and no
//!    [`Renderer`]: a [`GltfDocument`] of meshes (triangle lists, validated
//!    like [`MeshData::validate`](crate::geometry::MeshData::validate)), materials, decoded RGBA8 textures,
//!    samplers and object placements.
//! 2. [`GltfDocument::upload`] adds it to a renderer, removing what it added
//!    again if the renderer refuses anything.
//!
//! [`load_gltf`] composes both; [`load_gltf_with`] also takes a placement and
//! a progress callback ([`LoadOptions`]). Parsing needs no device, so another
//! renderer can draw the same document (the workspace's comparison renderer
//! does), and a fuzz target can exercise the whole CPU path.
//!
//! Scope: triangle primitives of every mesh (strips and fans converted to
//! lists; points and lines skipped and reported once), placed by the default
//! scene's node hierarchy, else the first scene's (walked iteratively with a
//! visited set, so cycles cannot overflow the stack; a file without a scene,
//! or whose scene has no nodes, places nothing, with a warning),
//! metallic-roughness materials with normal (MikkTSpace tangents generated
//! when a normal-mapped primitive has no `TANGENT`: [`GltfMesh::tangents`]),
//! occlusion and emissive textures, `KHR_texture_transform`,
//! `KHR_materials_emissive_strength`, `KHR_lights_punctual` (directional,
//! point and spot lights placed by their nodes, [`GltfLight`]; a light the
//! renderer would refuse is [`GltfError::Light`]), both UV sets, samplers (deduplicated by
//! the heap), sRGB colour and linear data textures, PNG, JPEG and WebP
//! (`EXT_texture_webp`) images, KTX2
//! with 8-bit RGB/RGBA formats (uncompressed or zstd; RGB expanded to RGBA,
//! mips regenerated on the GPU), `KHR_mesh_quantization` (8- and 16-bit
//! attributes dequantised at load into the usual vertex,
//! `accessors.rs`), `EXT_meshopt_compression` and
//! `KHR_meshopt_compression` (views decoded when the buffers are read,
//! `meshopt.rs`), with the off-by-default `draco` cargo feature
//! `KHR_draco_mesh_compression` (each primitive's stream decoded into its
//! accessors, `draco.rs`), with the off-by-default `basisu` cargo feature
//! `KHR_texture_basisu` (UASTC KTX2 images transcoded to RGBA8, `basisu.rs`;
//! a texture whose preferred image cannot be used falls back to its core
//! `source`, said once), `EXT_mesh_gpu_instancing` (each instance an object,
//! `instancing.rs`; [`GltfError::ObjectCapacity`] when the renderer's object
//! table cannot take them all), accessors without a buffer view (zeros) and sparse
//! accessors. Animation (`animation.rs`, `clips.rs`): the default
//! scene's node hierarchy, its animations (channels on nodes:
//! translation, rotation, scale, morph weights; STEP, LINEAR,
//! CUBICSPLINE), the skins its nodes use and each primitive's skin
//! influences (`JOINTS_0`/`WEIGHTS_0`, `JOINTS_1`/`WEIGHTS_1`) and morph
//! targets, kept in [`GltfDocument::animation`] as a side stream beside the
//! meshes (the 40-byte vertex is unchanged); [`load_gltf`] returns an
//! [`AnimatedScene`](crate::animation::AnimatedScene) in
//! [`GltfScene::animation`] to pose them (on the CPU for now: see
//! [`crate::animation`]). Bad animation data is [`GltfError::Animation`].
//! [`SUPPORTED_EXTENSIONS`] lists the extensions a file may
//! require; a required one outside it is
//! [`GltfError::UnsupportedExtension`], and an optional one is named once in
//! the warnings with what is lost (`extensions.rs`). A texture without a
//! source unbound can decode is not used, with a warning. Valid JSON the `gltf`
//! crate's strict deserialiser refuses (integers written as `1.0`, `extras`
//! that are not objects, scenes without `nodes`, `KHR_animation_pointer`
//! channels without a node, which are dropped with a warning naming what
//! is not played) is normalised first (`normalise.rs`); what its
//! validation refuses but the specification allows (required extensions
//! outside its feature list, accessors without a buffer view) is let
//! through by unbound's call of that validation (`checks.rs`).
//!
//! Robustness: files are parsed from a slice. Every `gltf`-crate call that
//! can panic on a hostile file is made unreachable by a check before it
//! (read from the `gltf` and `gltf-json` 1.4.1 sources):
//! - `Glb::from_slice` subtracts 12 from the header's length unchecked (an
//!   underflow into a huge allocation and an uncatchable abort): GLB headers
//!   and chunk tables are checked first;
//! - `Document::from_json`'s validation looks a primitive's POSITION
//!   accessor up unchecked: that index is checked on the JSON first;
//! - `Image::source` unwraps the MIME type when an image has a buffer view
//!   (even one that also has a URI: finding 1 of issue 12) and the URI
//!   otherwise: an image must have exactly one of them, and a MIME type with
//!   a buffer view;
//! - the crate's primitive reader is not used: unbound reads accessors
//!   itself (`accessors.rs`), every offset, stride and sparse index checked
//!   before it is read, every view within its buffer;
//! - everything else it unwraps (indices into the root's arrays,
//!   enumerations read as `Checked` values: accessor and sampler enums,
//!   primitive modes, alpha modes) is covered by its validation, which
//!   `Document::from_json` always runs.
//!
//! The parser and image decoding still run inside `catch_unwind` as a last
//! resort. Every failure is a typed [`GltfError`]
//! naming the file. A [`GltfDocument`] edited through its public fields is
//! checked by [`GltfDocument::validate`]; [`GltfDocument::upload`] checks its
//! indices before adding anything.
//!
//! Hostile files ([`ParseOptions`]):
//! - **Files read.** A `uri` is percent-decoded and must resolve, after `..`
//!   and symbolic links, inside the scene file's folder; absolute paths, URI
//!   schemes other than `data:`, and anything but regular files (devices,
//!   FIFOs) are refused, before anything is opened, with
//!   [`GltfError::Refused`] naming the URI. [`FileAccess`] widens the folder
//!   for tools that trust their files (`Root(folder)` or `Unrestricted`).
//! - **Memory.** [`LoadLimits`] bounds the scene file and the objects and values
//!   of its JSON, all buffers (a file or BIN chunk named by several buffers is held
//!   and counted once), each image's pixels and all decoded texels, each
//!   accessor, all vertices and indices, and each primitive whose tangents
//!   are generated. Each is checked before the
//!   allocation it bounds (file sizes from metadata, JSON objects and values counted on
//!   the text, at most a buffer's `byteLength` read, image sizes from
//!   headers, index counts from accessors including the growth of strips and
//!   fans); exceeding one is [`GltfError::LimitExceeded`]. The defaults
//!   (numbers in [`LoadLimits`]) keep the CPU stage under 2 GiB.
//!
//! Unusable images ([`MissingImages`]): an image whose file is missing or
//! unreadable, or whose bytes are corrupt or in an unsupported format,
//! loads by default as the heap's visible "missing" texture
//! ([`TexelData::Missing`]), named once per file in the warnings returned
//! with the document and the scene; [`MissingImages::Error`] keeps the
//! error. A refused URI, a limit exceeded and a missing buffer are errors in
//! both modes.

mod accessors;
mod animation;
#[cfg(feature = "basisu")]
mod basisu;
mod buffers;
mod checks;
mod clips;
mod document;
#[cfg(feature = "draco")]
mod draco;
mod extensions;
mod files;
mod images;
mod instancing;
mod ktx2;
mod lights;
mod limits;
mod materials;
mod meshopt;
mod normalise;
mod parse;
mod primitives;
mod stage;
mod upload;
mod validate;
mod weights;

use std::fmt;
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};

use crate::errors::Error;
use crate::geometry::GeometryError;
use crate::handles::{
    LightHandle, MaterialHandle, MeshHandle, ObjectHandle, SamplerHandle, TextureHandle,
};
use crate::lights::LightError;
use crate::renderer::Renderer;
use crate::scene::ObjectDesc;

pub use document::{
    GltfDocument, GltfMaterial, GltfMesh, GltfPlacement, GltfTexture, GltfTextureRef, TexelData,
};
pub use extensions::SUPPORTED_EXTENSIONS;
pub use files::{FileAccess, RefusalReason};
pub use lights::GltfLight;
pub use limits::{Limit, LoadLimits};
pub use parse::{
    parse_gltf, parse_gltf_slice, parse_gltf_slice_with_options, parse_gltf_with,
    parse_gltf_with_options,
};
pub use validate::{DocumentError, Indexed, OutOfRange};

// Fuzzing entry points (`fuzz/`), not an API.
#[cfg(feature = "draco")]
#[doc(hidden)]
pub use draco::decode_draco_stream;
#[doc(hidden)]
pub use meshopt::decode_meshopt_view;

/// Why a glTF file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// Reading a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A buffer or image file the glTF names is missing or could not be
    /// read (the policy allowed it: compare [`GltfError::Refused`]). An
    /// image's only with [`MissingImages::Error`]: by default it is missing.
    #[error("{path}: {uri}: {source}")]
    Resource {
        /// The glTF file.
        path: PathBuf,
        /// The URI it names (at most 100 characters of it).
        uri: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file access policy ([`FileAccess`]) refused a URI: nothing was
    /// read. An error in every mode, unlike a missing file.
    #[error("{path}: {uri}: refused: {reason}")]
    Refused {
        /// The glTF file.
        path: PathBuf,
        /// The URI it names (at most 100 characters of it).
        uri: String,
        /// Why.
        reason: RefusalReason,
    },
    /// Reading or decoding would exceed one of the [`LoadLimits`] (checked
    /// before allocating).
    #[error("{path}: {limit}: {value}, over the limit of {max}")]
    LimitExceeded {
        /// The glTF file.
        path: PathBuf,
        /// Which limit.
        limit: Limit,
        /// The value (or running total) that would exceed it.
        value: u64,
        /// The limit.
        max: u64,
    },
    /// The glTF parser rejected (or panicked on) the file.
    #[error("{path}: invalid glTF: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// The file requires a glTF extension unbound does not support
    /// ([`SUPPORTED_EXTENSIONS`] lists those it does); nothing was read but
    /// the JSON.
    #[error(
        "{path}: requires extension {extension}, which unbound does not support{}",
        extensions::why_unsupported(extension)
    )]
    UnsupportedExtension {
        /// The file.
        path: PathBuf,
        /// The extension, as the file names it.
        extension: String,
    },
    /// The file is valid glTF but inconsistent or unsupported (an image
    /// that cannot be decoded: only with [`MissingImages::Error`]).
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The problem.
        message: String,
    },
    /// A primitive's geometry is unusable (NaN or infinite values, indices
    /// out of range, ...).
    #[error("{path}: mesh {mesh} primitive {primitive}: {source}")]
    Geometry {
        /// The file.
        path: PathBuf,
        /// glTF mesh index.
        mesh: usize,
        /// Primitive index within the mesh.
        primitive: usize,
        /// What is wrong.
        source: GeometryError,
    },
    /// A `KHR_lights_punctual` light the renderer would refuse (a negative
    /// intensity, a spot cone whose inner angle exceeds its outer one, ...).
    #[error("{path}: light {light} (node {node}): {source}")]
    Light {
        /// The file.
        path: PathBuf,
        /// glTF light index.
        light: usize,
        /// The node that places it.
        node: usize,
        /// What is wrong.
        source: LightError,
    },
    /// A document edited through its public fields is inconsistent
    /// ([`GltfDocument::validate`]); nothing was added.
    #[error("{path}: {source}")]
    Document {
        /// The file the document was parsed from.
        path: PathBuf,
        /// What is wrong.
        source: DocumentError,
    },
    /// The document places more objects (instances × primitives) than the
    /// renderer's object table has free; nothing was added. Raise
    /// [`Capacities::objects`](crate::Capacities::objects).
    #[error(
        "{path}: places {objects} objects, but the renderer's object capacity is {capacity} \
         ({live} in use)"
    )]
    ObjectCapacity {
        /// The file the document was parsed from.
        path: PathBuf,
        /// Objects the document places.
        objects: u64,
        /// The renderer's object capacity.
        capacity: u32,
        /// Objects already live in the renderer.
        live: u32,
    },
    /// The file's animation data cannot be played: a bad skin, sampler or
    /// morph target ([`AnimationError`](crate::animation::AnimationError)).
    #[error("{path}: {source}")]
    Animation {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: crate::animation::AnimationError,
    },
    /// unbound refused the content.
    #[error("{path}: {source}")]
    Renderer {
        /// The file.
        path: PathBuf,
        /// The renderer's error.
        source: Box<Error>,
    },
}

/// A stage of loading, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LoadStage {
    /// Reading buffers (units: buffers).
    Buffers,
    /// Decoding images (units: textures).
    Images,
    /// Reading and validating triangle primitives (units: primitives).
    Meshes,
    /// Uploading textures into the heap (units: textures).
    UploadTextures,
    /// Uploading meshes into the arena (units: meshes).
    UploadMeshes,
    /// Adding materials, objects and lights (units: materials + objects +
    /// lights).
    UploadObjects,
}

/// One progress report: `done` of `total` units of `stage`. Each stage
/// reports `0` first and `total` last, with `done` never decreasing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadProgress {
    /// The stage.
    pub stage: LoadStage,
    /// Units finished.
    pub done: u64,
    /// Units in this stage.
    pub total: u64,
}

/// What the CPU stage may read and allocate, and what it tolerates (see
/// the module docs): the default confines files to the scene's folder,
/// applies [`LoadLimits::DEFAULT`] and shows unusable images as the missing
/// texture ([`MissingImages::Placeholder`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParseOptions {
    /// Where the files a glTF names may be.
    pub file_access: FileAccess,
    /// How much it may make the loader read and allocate.
    pub limits: LoadLimits,
    /// What becomes of an image that is missing or cannot be decoded
    /// (`MissingImages::Error`: the strict mode).
    pub missing_images: MissingImages,
}

/// What becomes of a referenced image that cannot be used: its file is
/// missing or unreadable ([`GltfError::Resource`]), or its bytes are
/// corrupt or in an unsupported format ([`GltfError::Invalid`]).
///
/// Never degraded, in either mode: a URI the [`FileAccess`] policy refuses
/// ([`GltfError::Refused`]), an image over one of the [`LoadLimits`]
/// ([`GltfError::LimitExceeded`]: limits protect the process, so a file
/// cannot get past them by being partly unusable), a missing or unreadable
/// buffer (`.bin`), and an external URI in a file parsed from memory
/// without a base directory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MissingImages {
    /// The image's textures are [`TexelData::Missing`] (uploaded as the
    /// heap's visible "missing" texture, slot 0), and
    /// [`GltfDocument::warnings`] names the
    /// image once per file (a URI used by several images once), with the
    /// reason. The default, as other glTF viewers render such a scene.
    #[default]
    Placeholder,
    /// The load fails with the image's error (strict).
    Error,
}

/// Options of [`load_gltf_with`].
pub struct LoadOptions<'a> {
    /// Placement of the scene in the world.
    pub world_from_scene: Mat4,
    /// Called as loading advances (for large files).
    pub progress: Option<&'a mut dyn FnMut(LoadProgress)>,
    /// File access policy, limits and unusable images of the parse stage.
    pub parse: ParseOptions,
    /// How each mesh (primitive) is added: with
    /// [`MeshOptions::lod_levels`](crate::MeshOptions::lod_levels),
    /// simplified levels for level of detail (none by default).
    pub meshes: crate::MeshOptions,
}

impl Default for LoadOptions<'_> {
    fn default() -> Self {
        Self {
            world_from_scene: Mat4::IDENTITY,
            progress: None,
            parse: ParseOptions::default(),
            meshes: crate::MeshOptions::default(),
        }
    }
}

impl fmt::Debug for LoadOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("world_from_scene", &self.world_from_scene)
            .field("progress", &self.progress.is_some())
            .field("parse", &self.parse)
            .field("meshes", &self.meshes)
            .finish()
    }
}

/// Forwards progress to an optional callback.
pub(crate) struct Progress<'a, 'b>(pub(crate) Option<&'a mut (dyn FnMut(LoadProgress) + 'b)>);

impl Progress<'_, '_> {
    pub(crate) fn report(&mut self, stage: LoadStage, done: usize, total: usize) {
        if let Some(callback) = self.0.as_mut() {
            callback(LoadProgress {
                stage,
                done: done as u64,
                total: total as u64,
            });
        }
    }
}

/// What [`load_gltf`] added to the renderer.
#[derive(Debug, Default)]
pub struct GltfScene {
    /// Objects, one per primitive instance.
    pub objects: Vec<ObjectHandle>,
    /// What each object was created from, to place more copies.
    pub placements: Vec<ObjectDesc>,
    /// Meshes, one per triangle primitive, in [`GltfDocument::meshes`] order.
    pub meshes: Vec<MeshHandle>,
    /// Materials, in [`GltfDocument::materials`] order.
    pub materials: Vec<MaterialHandle>,
    /// Textures, in [`GltfDocument::textures`] order: a missing one
    /// ([`TexelData::Missing`]) is the heap's reserved "missing" texture,
    /// which is never removed.
    pub textures: Vec<TextureHandle>,
    /// Samplers, in [`GltfDocument::samplers`] order (shared through the
    /// heap with equal descriptions, so other scenes may use them too).
    pub samplers: Vec<SamplerHandle>,
    /// Lights, in [`GltfDocument::lights`] order.
    pub lights: Vec<LightHandle>,
    /// World-space bounds of the objects (min, max).
    pub bounds: (Vec3, Vec3),
    /// Things skipped or degraded, each once.
    pub warnings: Vec<String>,
    /// The scene's animation, to pose it ([`AnimatedScene::pose_at`]):
    /// `Some` when the document animates or deforms anything
    /// ([`AnimationData::is_animated`](crate::animation::AnimationData::is_animated)).
    /// The application keeps it with the scene's handles.
    ///
    /// [`AnimatedScene::pose_at`]: crate::animation::AnimatedScene::pose_at
    pub animation: Option<crate::animation::AnimatedScene>,
}

/// Loads the default scene of `path` into `renderer`, placed by
/// `world_from_scene`: [`parse_gltf`] then [`GltfDocument::upload`]. A
/// failed load leaves the renderer as it was.
pub fn load_gltf(
    renderer: &mut Renderer,
    path: &Path,
    world_from_scene: Mat4,
) -> Result<GltfScene, GltfError> {
    load_gltf_with(
        renderer,
        path,
        LoadOptions {
            world_from_scene,
            ..LoadOptions::default()
        },
    )
}

/// [`load_gltf`] with a progress callback, a file access policy and limits.
pub fn load_gltf_with(
    renderer: &mut Renderer,
    path: &Path,
    options: LoadOptions<'_>,
) -> Result<GltfScene, GltfError> {
    let mut progress = Progress(options.progress);
    let document = parse::parse_path(path, &options.parse, &mut progress)?;
    upload::upload(
        &document,
        renderer,
        (options.world_from_scene, &options.meshes),
        &mut progress,
    )
}
