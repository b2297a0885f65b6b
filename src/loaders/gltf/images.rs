//! Decoding the images textures use: each image's size is read from its
//! header and checked against [`LoadLimits`](super::LoadLimits) before its
//! texels are allocated; an image used both as sRGB colour and as linear
//! data is decoded once.
//!
//! An image that cannot be used (its file missing or unreadable, its bytes
//! corrupt or in an unsupported format) is, by default, missing
//! ([`TexelData::Missing`]: the heap's missing texture) with one warning per
//! file; [`MissingImages::Error`] makes it an error. A refused URI and an
//! image over a limit are errors in both modes.

use std::collections::{HashMap, HashSet};
use std::io::Cursor;

use super::buffers::Buffers;
use super::files::uri_for_errors;
use super::ktx2::{KTX2_MAGIC, Ktx2Texels, decode_ktx2, probe_ktx2};
use super::limits::Limit;
use super::materials::TextureKey;
use super::stage::Parser;
use super::{GltfError, GltfTexture, LoadStage, MissingImages, TexelData};

/// Why one image was not decoded.
enum ImageError {
    /// An error in every mode (a refusal, a limit).
    Fatal(GltfError),
    /// The image cannot be used: `error` in [`MissingImages::Error`] mode,
    /// else a missing texture and a warning giving `reason`.
    Unusable { error: GltfError, reason: String },
}

impl From<GltfError> for ImageError {
    fn from(error: GltfError) -> Self {
        Self::Fatal(error)
    }
}

/// Decoded texels of one image: width, height, texels (`None`: missing),
/// and the image they came from (a fallback's, where the texture's
/// preferred image could not be used).
type Decoded = (Option<(u32, u32, Ktx2Texels)>, usize);

/// An image's size as its header states it.
struct ImageSize {
    width: u32,
    height: u32,
    /// Bytes of the texels decoding returns (RGBA8, or every BC level).
    texel_bytes: u64,
}

/// PNG, JPEG, WebP or KTX2 size from the header alone.
fn probe(encoded: &[u8]) -> Result<ImageSize, String> {
    let (width, height, texel_bytes) = if encoded.starts_with(&KTX2_MAGIC) {
        probe_ktx2(encoded)?
    } else {
        let mut reader = image::ImageReader::new(Cursor::new(encoded))
            .with_guessed_format()
            .map_err(|e| e.to_string())?;
        // Only the header is read: the size is checked by the caller.
        reader.no_limits();
        let (width, height) = reader.into_dimensions().map_err(|e| e.to_string())?;
        (width, height, u64::from(width) * u64::from(height) * 4)
    };
    Ok(ImageSize {
        width,
        height,
        texel_bytes,
    })
}

/// Decodes an image of the probed `size`: PNG, JPEG and WebP as RGBA8 (the
/// decoder limited to that size, and to 8 bytes a pixel while decoding).
fn decode(encoded: &[u8], size: &ImageSize) -> Result<Ktx2Texels, String> {
    if encoded.starts_with(&KTX2_MAGIC) {
        return decode_ktx2(encoded).map(|(_, _, texels)| texels);
    }
    let mut reader = image::ImageReader::new(Cursor::new(encoded))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(size.width);
    limits.max_image_height = Some(size.height);
    limits.max_alloc = Some(u64::from(size.width) * u64::from(size.height) * 8 + (1 << 20));
    reader.limits(limits);
    let rgba = reader.decode().map_err(|e| e.to_string())?.into_rgba8();
    Ok(Ktx2Texels::Rgba8(rgba.into_raw()))
}

impl Parser<'_, '_, '_> {
    /// The textures `keys` name, in order: each image decoded once, its
    /// texels moved into its last texture and copied only into an earlier
    /// one (an image used as colour and as data). Every texture's bytes are
    /// charged to [`Limit::ImageBytes`] before the image is decoded. An
    /// unusable image with an entry in `fallbacks` (a texture's extension
    /// image, and its core `source`) is replaced by its fallback, said once
    /// in `warnings`, in every [`MissingImages`] mode; otherwise its
    /// textures are missing, with a warning in `warnings` (see
    /// [`MissingImages`]).
    pub(super) fn decode_images(
        &mut self,
        document: &gltf::Document,
        buffers: &Buffers,
        keys: &[TextureKey],
        fallbacks: &HashMap<usize, usize>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<GltfTexture>, GltfError> {
        let total = keys.len();
        self.progress.report(LoadStage::Images, 0, total);
        let mut uses: HashMap<usize, u64> = HashMap::new();
        for &(index, _) in keys {
            *uses.entry(index).or_default() += 1;
        }
        let mut textures: Vec<GltfTexture> = Vec::with_capacity(total);
        let mut decoded: HashMap<usize, Decoded> = HashMap::new();
        // What each warning named: a file once, however many images use it.
        let mut named: HashSet<String> = HashSet::new();
        for &(index, srgb) in keys {
            let (texels, used) = match decoded.remove(&index) {
                Some(d) => d,
                None => {
                    let mut image = document.images().nth(index).expect("validated index");
                    let mut result = self.decode_image(&image, buffers, uses[&index]);
                    if let (Err(ImageError::Unusable { reason, .. }), Some(&fallback)) =
                        (&result, fallbacks.get(&index))
                    {
                        warnings.push(format!(
                            "image {}: {reason}; its textures use their fallback source, image {fallback}",
                            uri_for_errors(&image_name(&image))
                        ));
                        image = document.images().nth(fallback).expect("validated index");
                        result = self.decode_image(&image, buffers, uses[&index]);
                    }
                    match result {
                        Ok(d) => (Some(d), image.index()),
                        Err(ImageError::Fatal(error)) => return Err(error),
                        Err(ImageError::Unusable { error, reason }) => {
                            if self.missing_images == MissingImages::Error {
                                return Err(error);
                            }
                            let what = image_name(&image);
                            if !named.contains(&what) {
                                warnings.push(format!(
                                    "image {}: {reason}; shown as the missing texture",
                                    uri_for_errors(&what)
                                ));
                                named.insert(what);
                            }
                            (None, image.index())
                        }
                    }
                }
            };
            let left = uses.get_mut(&index).expect("counted above");
            *left -= 1;
            if *left > 0 {
                decoded.insert(index, (texels.clone(), used));
            }
            let (width, height, data) = match texels {
                Some((width, height, texels)) => (width, height, texel_data(texels, srgb)),
                None => (0, 0, TexelData::Missing),
            };
            let image = document.images().nth(used).expect("validated index");
            textures.push(GltfTexture {
                name: image.name().map(str::to_owned),
                image: used,
                width,
                height,
                srgb,
                data,
            });
            self.progress
                .report(LoadStage::Images, textures.len(), total);
        }
        Ok(textures)
    }

    /// Reads, checks and decodes one image used by `uses` textures.
    fn decode_image(
        &mut self,
        image: &gltf::Image<'_>,
        buffers: &Buffers,
        uses: u64,
    ) -> Result<(u32, u32, Ktx2Texels), ImageError> {
        let index = image.index();
        let read;
        let encoded: &[u8] = match image.source() {
            gltf::image::Source::View { view, .. } => {
                &buffers[view.buffer().index()][view.offset()..view.offset() + view.length()]
            }
            gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
                // Charged to no limit: the text is in the file already.
                read = self.data_uri(uri, false).map_err(|error| match error {
                    GltfError::Invalid { ref message, .. } => ImageError::Unusable {
                        reason: format!("undecodable: {message}"),
                        error,
                    },
                    fatal => ImageError::Fatal(fatal),
                })?;
                &read
            }
            gltf::image::Source::Uri { uri, .. } => {
                read = self
                    .files
                    .read_whole(uri, &self.budget)
                    .map_err(|error| match error {
                        GltfError::Resource { ref source, .. } => ImageError::Unusable {
                            reason: format!("unreadable: {source}"),
                            error,
                        },
                        fatal => ImageError::Fatal(fatal),
                    })?;
                &read
            }
        };
        let size = probe(encoded).map_err(|e| self.undecodable(index, &e))?;
        self.budget.check(
            Limit::ImagePixels,
            u64::from(size.width) * u64::from(size.height),
        )?;
        self.budget
            .charge(Limit::ImageBytes, size.texel_bytes.saturating_mul(uses))?;
        // Decoders are contained too (a last resort).
        let texels = std::panic::catch_unwind(|| decode(encoded, &size))
            .unwrap_or_else(|_| Err("the image decoder panicked".into()))
            .map_err(|e| self.undecodable(index, &e))?;
        Ok((size.width, size.height, texels))
    }

    /// Image `index` cannot be decoded: why.
    fn undecodable(&self, index: usize, why: &str) -> ImageError {
        ImageError::Unusable {
            error: self.invalid(format!("image {index}: {why}")),
            reason: format!("undecodable: {why}"),
        }
    }
}

/// An image as warnings name it: the URI as written (shown as errors show
/// URIs, at most 100 characters), or its index and where it is embedded.
fn image_name(image: &gltf::Image<'_>) -> String {
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            format!("{} (bufferView {})", image.index(), view.index())
        }
        gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
            format!("{} (data URI)", image.index())
        }
        gltf::image::Source::Uri { uri, .. } => uri.to_owned(),
    }
}

/// Decoded texels as a texture sampled as sRGB colour or linear data.
fn texel_data(texels: Ktx2Texels, srgb: bool) -> TexelData {
    match texels {
        Ktx2Texels::Rgba8(rgba) => TexelData::Rgba8(rgba),
        Ktx2Texels::Bc {
            unorm,
            srgb: srgb_format,
            levels,
        } => TexelData::Compressed {
            format: if srgb {
                srgb_format.unwrap_or(unorm)
            } else {
                unorm
            },
            levels,
        },
    }
}
