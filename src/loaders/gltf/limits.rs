//! How much memory a glTF file may make the CPU stage allocate
//! ([`LoadLimits`]), and the running totals checked against it before each
//! allocation.

use std::fmt;
use std::path::PathBuf;

use super::GltfError;

const MIB: u64 = 1 << 20;

/// Limits on what one glTF file may make the loader read and allocate,
/// each checked before the allocation it bounds (from file metadata, the
/// JSON's counts and image headers). Exceeding one is a
/// [`GltfError::LimitExceeded`] naming it, in every
/// [`MissingImages`](super::MissingImages) mode: an image over a limit is
/// an error, never the missing texture.
///
/// The defaults load every file of the workspace's `assets/` and of the
/// glTF corpus it tests against, and keep the CPU stage's peak memory under
/// 2 GiB for any file (1.75 GiB measured with `examples/gltf_rss.rs` for a
/// file built to reach every default at once, with a 16-bit 8192 x 8192
/// PNG, the costliest image to decode; generating tangents for the largest
/// primitive [`max_tangent_indices`](Self::max_tangent_indices) allows
/// adds at most about 160 MB while it runs):
///
/// | field | default |
/// | --- | --- |
/// | [`max_file_bytes`](Self::max_file_bytes) | 268,435,456 (256 MiB) |
/// | [`max_json_objects`](Self::max_json_objects) | 524,288 (2^19) |
/// | [`max_json_values`](Self::max_json_values) | 4,194,304 (2^22) |
/// | [`max_buffer_bytes`](Self::max_buffer_bytes) | 268,435,456 (256 MiB) |
/// | [`max_image_bytes`](Self::max_image_bytes) | 536,870,912 (512 MiB) |
/// | [`max_image_pixels`](Self::max_image_pixels) | 67,108,864 (8192 x 8192) |
/// | [`max_accessor_elements`](Self::max_accessor_elements) | 16,777,216 (2^24) |
/// | [`max_vertices`](Self::max_vertices) | 4,194,304 (2^22) |
/// | [`max_indices`](Self::max_indices) | 33,554,432 (2^25) |
/// | [`max_tangent_indices`](Self::max_tangent_indices) | 1,048,576 (2^20) |
/// | [`max_decompressed_bytes`](Self::max_decompressed_bytes) | 268,435,456 (256 MiB) |
/// | [`max_placements`](Self::max_placements) | 1,048,576 (2^20) |
/// | [`max_animation_values`](Self::max_animation_values) | 33,554,432 (2^25) |
///
/// A tool that trusts its files raises them field by field, e.g.
/// `LoadLimits { max_image_pixels: 16384 * 16384, ..LoadLimits::default() }`,
/// or lifts them all with [`LoadLimits::UNLIMITED`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LoadLimits {
    /// Largest single file read whole: the `.gltf` or `.glb` itself and each
    /// external image file.
    pub max_file_bytes: u64,
    /// JSON objects and arrays (counted on the text before it is parsed:
    /// each becomes a struct of up to about 250 bytes).
    pub max_json_objects: u64,
    /// JSON values of every kind, numbers and strings included (bounded on
    /// the text before it is parsed, by one more than its objects, arrays
    /// and commas: the JSON is read as a tree of values of up to about 100
    /// bytes each before the `gltf` crate sees it).
    pub max_json_values: u64,
    /// All buffers together: the GLB BIN chunk, decoded `data:` URIs and
    /// external buffer files (a chunk or file named by several buffers is
    /// held, and counted, once; at most each buffer's declared `byteLength`
    /// is read from a file).
    pub max_buffer_bytes: u64,
    /// All decoded textures together: RGBA8 texels (after grey or RGB is
    /// expanded to RGBA) or block-compressed levels, counted per texture.
    pub max_image_bytes: u64,
    /// Texels of one image (width x height, from its header).
    pub max_image_pixels: u64,
    /// Elements of one accessor a triangle primitive reads.
    pub max_accessor_elements: u64,
    /// Vertices of all triangle primitives together (an accessor used by
    /// several primitives counts once per primitive).
    pub max_vertices: u64,
    /// Triangle-list indices of all primitives together, after strips and
    /// fans are converted (three per triangle).
    pub max_indices: u64,
    /// Triangle-list indices of one primitive whose tangents are generated
    /// (a normal-mapped primitive without `TANGENT`): generating them holds
    /// about 150 bytes per index while it runs (154 MB measured with
    /// `examples/gltf_rss.rs` for a primitive of 1,048,344 indices), so the
    /// default bounds that to about 160 MB.
    pub max_tangent_indices: u64,
    /// All decompressed buffer views together (`EXT_meshopt_compression`,
    /// `KHR_meshopt_compression`): each view's `byteLength`, charged before
    /// its stream is decoded (a stream claiming 4 GB is refused unread).
    /// Not part of the 2 GiB measured above: a file reaching this limit as
    /// well as every other could take up to this much more.
    pub max_decompressed_bytes: u64,
    /// Objects and lights the scene's nodes place, together: each node
    /// naming a mesh places every triangle primitive of that mesh, so a
    /// file of few nodes and few primitives can ask for their product.
    /// Charged before each node's placements are made; an instancing
    /// extension charges its instances times the mesh's primitives here
    /// too. The default is the renderer's default
    /// [`Capacities::objects`](crate::Capacities::objects): a
    /// [`GltfPlacement`](super::GltfPlacement) is 80 bytes, so the
    /// placements hold at most 80 MiB (240 MiB for a moment while their
    /// list grows), made after the images and meshes are decoded, when
    /// their transient buffers are freed (127 MB peak measured for 20,000
    /// nodes x 20,000 primitives, refused at the 53rd node).
    pub max_placements: u64,
    /// Scalars of animation data in all, charged before each accessor is
    /// read: key times, output components of the samplers the channels
    /// use, joint indices and weights (4 each per vertex and set), morph
    /// target deltas (3 per vertex, attribute and target) and inverse bind
    /// matrices (16 each). Held as 2- and 4-byte values, so the default
    /// bounds them to 128 MiB.
    pub max_animation_values: u64,
}

impl LoadLimits {
    /// The defaults (see the type's docs).
    pub const DEFAULT: Self = Self {
        max_file_bytes: 256 * MIB,
        max_json_objects: 1 << 19,
        max_json_values: 1 << 22,
        max_buffer_bytes: 384 * MIB,
        max_image_bytes: 512 * MIB,
        max_image_pixels: 8192 * 8192,
        max_accessor_elements: 1 << 24,
        max_vertices: 1 << 22,
        max_indices: 1 << 25,
        max_tangent_indices: 1 << 20,
        max_decompressed_bytes: 256 * MIB,
        max_placements: 1 << 20,
        max_animation_values: 1 << 25,
    };

    /// No limits: for files the application trusts (a hostile file can then
    /// exhaust memory).
    pub const UNLIMITED: Self = Self {
        max_file_bytes: u64::MAX,
        max_json_objects: u64::MAX,
        max_json_values: u64::MAX,
        max_buffer_bytes: u64::MAX,
        max_image_bytes: u64::MAX,
        max_image_pixels: u64::MAX,
        max_accessor_elements: u64::MAX,
        max_vertices: u64::MAX,
        max_indices: u64::MAX,
        max_tangent_indices: u64::MAX,
        max_decompressed_bytes: u64::MAX,
        max_placements: u64::MAX,
        max_animation_values: u64::MAX,
    };

    /// The value of `limit`.
    pub fn get(&self, limit: Limit) -> u64 {
        match limit {
            Limit::FileBytes => self.max_file_bytes,
            Limit::JsonObjects => self.max_json_objects,
            Limit::JsonValues => self.max_json_values,
            Limit::BufferBytes => self.max_buffer_bytes,
            Limit::ImageBytes => self.max_image_bytes,
            Limit::ImagePixels => self.max_image_pixels,
            Limit::AccessorElements => self.max_accessor_elements,
            Limit::Vertices => self.max_vertices,
            Limit::Indices => self.max_indices,
            Limit::TangentIndices => self.max_tangent_indices,
            Limit::DecompressedBytes => self.max_decompressed_bytes,
            Limit::Placements => self.max_placements,
            Limit::AnimationValues => self.max_animation_values,
        }
    }
}

impl Default for LoadLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One of the [`LoadLimits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// [`LoadLimits::max_file_bytes`].
    FileBytes,
    /// [`LoadLimits::max_json_objects`].
    JsonObjects,
    /// [`LoadLimits::max_json_values`].
    JsonValues,
    /// [`LoadLimits::max_buffer_bytes`].
    BufferBytes,
    /// [`LoadLimits::max_image_bytes`].
    ImageBytes,
    /// [`LoadLimits::max_image_pixels`].
    ImagePixels,
    /// [`LoadLimits::max_accessor_elements`].
    AccessorElements,
    /// [`LoadLimits::max_vertices`].
    Vertices,
    /// [`LoadLimits::max_indices`].
    Indices,
    /// [`LoadLimits::max_tangent_indices`].
    TangentIndices,
    /// [`LoadLimits::max_decompressed_bytes`].
    DecompressedBytes,
    /// [`LoadLimits::max_placements`].
    Placements,
    /// [`LoadLimits::max_animation_values`].
    AnimationValues,
}

impl Limit {
    /// How many limits there are.
    const COUNT: usize = 13;
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::FileBytes => "bytes of one file (LoadLimits::max_file_bytes)",
            Self::JsonObjects => "JSON objects and arrays (LoadLimits::max_json_objects)",
            Self::JsonValues => "JSON values (LoadLimits::max_json_values)",
            Self::BufferBytes => "buffer bytes in all (LoadLimits::max_buffer_bytes)",
            Self::ImageBytes => "decoded image bytes in all (LoadLimits::max_image_bytes)",
            Self::ImagePixels => "pixels of one image (LoadLimits::max_image_pixels)",
            Self::AccessorElements => {
                "elements of one accessor (LoadLimits::max_accessor_elements)"
            }
            Self::Vertices => "vertices in all (LoadLimits::max_vertices)",
            Self::Indices => "triangle-list indices in all (LoadLimits::max_indices)",
            Self::TangentIndices => {
                "indices of one primitive whose tangents are generated (LoadLimits::max_tangent_indices)"
            }
            Self::DecompressedBytes => {
                "decompressed buffer view bytes in all (LoadLimits::max_decompressed_bytes)"
            }
            Self::Placements => "objects and lights placed in all (LoadLimits::max_placements)",
            Self::AnimationValues => {
                "animation values in all (LoadLimits::max_animation_values)"
            }
        })
    }
}

/// What one file has used of its [`LoadLimits`] so far.
pub(super) struct Budget {
    limits: LoadLimits,
    /// The glTF file (named in errors).
    path: PathBuf,
    /// Running totals, indexed by `Limit as usize` (only the totals among
    /// the limits are ever charged).
    used: [u64; Limit::COUNT],
}

impl Budget {
    pub(super) fn new(limits: LoadLimits, path: PathBuf) -> Self {
        Self {
            limits,
            path,
            used: [0; Limit::COUNT],
        }
    }

    /// The value of `limit`.
    pub(super) fn limit(&self, limit: Limit) -> u64 {
        self.limits.get(limit)
    }

    /// Checks a per-item limit: `value` of `limit` is allowed.
    pub(super) fn check(&self, limit: Limit, value: u64) -> Result<(), GltfError> {
        let max = self.limits.get(limit);
        if value > max {
            return Err(GltfError::LimitExceeded {
                path: self.path.clone(),
                limit,
                value,
                max,
            });
        }
        Ok(())
    }

    /// Adds `amount` to the running total of `limit` (one of the totals:
    /// buffer bytes, image bytes, vertices, indices), refusing it if the
    /// total would exceed the limit.
    pub(super) fn charge(&mut self, limit: Limit, amount: u64) -> Result<(), GltfError> {
        let total = self.used[limit as usize].saturating_add(amount);
        self.check(limit, total)?;
        self.used[limit as usize] = total;
        Ok(())
    }

    /// Charges `instances` placements of a mesh of `primitives` triangle
    /// primitives (an object each) to [`Limit::Placements`], before they
    /// are made: a node naming a mesh is one instance; an instancing
    /// extension would charge its instance count here.
    pub(super) fn charge_placements(
        &mut self,
        instances: u64,
        primitives: u64,
    ) -> Result<(), GltfError> {
        self.charge(Limit::Placements, instances.saturating_mul(primitives))
    }

    /// Charges what reading a triangle primitive allocates, from its
    /// accessors' counts: each accessor read against
    /// [`LoadLimits::max_accessor_elements`], its vertices and its
    /// triangle-list indices (strips and fans grow to three per triangle;
    /// no indices: one per vertex) against the totals.
    pub(super) fn charge_primitive(
        &mut self,
        primitive: &gltf::Primitive<'_>,
    ) -> Result<(), GltfError> {
        use gltf::Semantic;
        let read = [
            Semantic::Positions,
            Semantic::Normals,
            Semantic::Tangents,
            Semantic::TexCoords(0),
            Semantic::TexCoords(1),
        ];
        let accessors = read
            .iter()
            .filter_map(|semantic| primitive.get(semantic))
            .chain(primitive.indices());
        for accessor in accessors {
            self.check(Limit::AccessorElements, accessor.count() as u64)?;
        }
        let vertices = primitive
            .get(&Semantic::Positions)
            .map_or(0, |a| a.count() as u64);
        self.charge(Limit::Vertices, vertices)?;
        let elements = primitive.indices().map_or(vertices, |a| a.count() as u64);
        let list = match primitive.mode() {
            gltf::mesh::Mode::TriangleStrip | gltf::mesh::Mode::TriangleFan => {
                elements.saturating_sub(2).saturating_mul(3)
            }
            _ => elements,
        };
        self.charge(Limit::Indices, list)
    }
}

/// What the JSON of a `.gltf` file or a GLB's JSON chunk (whose chunk
/// table has been checked) holds, counted on the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct JsonCounts {
    /// Objects and arrays.
    pub(super) containers: u64,
    /// A bound on its values of every kind: the root, and each member of a
    /// container (one more than the container's commas).
    pub(super) values: u64,
}

/// Counts `file`'s JSON (see [`JsonCounts`]), outside strings.
pub(super) fn json_counts(file: &[u8]) -> JsonCounts {
    let json = match file.get(12..16) {
        Some(length) if file.starts_with(b"glTF") => {
            let length = u32::from_le_bytes(length.try_into().expect("4 bytes")) as usize;
            file.get(20..20 + length).unwrap_or(&[])
        }
        _ => file,
    };
    let (mut containers, mut commas) = (0u64, 0u64);
    let (mut in_string, mut escaped) = (false, false);
    for &byte in json {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if byte == b'"' {
            in_string = true;
        } else if byte == b'{' || byte == b'[' {
            containers += 1;
        } else if byte == b',' {
            commas += 1;
        }
    }
    JsonCounts {
        containers,
        values: 1 + containers + commas,
    }
}

#[cfg(test)]
mod tests {
    use super::{Budget, Limit, LoadLimits};

    #[test]
    fn json_objects_are_counted_outside_strings() {
        let json = br#"{"a":[1,{"b":"{[\"{"}],"c":"\\"}"#;
        let counts = super::json_counts(json);
        assert_eq!(counts.containers, 3);
        // The root, "a"'s array, 1, the inner object, "b"'s string, "c"'s.
        assert_eq!(counts.values, 6);
        let mut glb = b"glTF".to_vec();
        for word in [2u32, 28, 8, 0x4E4F_534A] {
            glb.extend(word.to_le_bytes());
        }
        glb.extend(b"[{}]    ");
        assert_eq!(super::json_counts(&glb).containers, 2);
    }

    #[test]
    fn totals_are_refused_before_they_are_added() {
        let limits = LoadLimits {
            max_indices: 10,
            ..LoadLimits::DEFAULT
        };
        let mut budget = Budget::new(limits, "x.gltf".into());
        budget.charge(Limit::Indices, 6).unwrap();
        let error = budget.charge(Limit::Indices, 6).unwrap_err().to_string();
        assert!(
            error.contains("12") && error.contains("max_indices"),
            "{error}"
        );
        budget.charge(Limit::Indices, 4).unwrap();
        assert!(budget.check(Limit::ImagePixels, u64::MAX).is_err());
        assert!(budget.check(Limit::ImagePixels, 8192 * 8192).is_ok());
    }
}
