//! Decoding the images textures use: each image's size is read from its
//! header and checked against [`LoadLimits`](super::LoadLimits) before its
//! texels are allocated; an image used both as sRGB colour and as linear
//! data is decoded once.

use std::collections::HashMap;
use std::io::Cursor;

use super::buffers::Buffers;
use super::ktx2::{KTX2_MAGIC, Ktx2Texels, decode_ktx2, probe_ktx2};
use super::limits::Limit;
use super::materials::TextureKey;
use super::parse::Parser;
use super::{GltfError, GltfTexture, LoadStage, TexelData};

/// An image's size as its header states it.
struct ImageSize {
    width: u32,
    height: u32,
    /// Bytes of the texels decoding returns (RGBA8, or every BC level).
    texel_bytes: u64,
}

/// PNG, JPEG or KTX2 size from the header alone.
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

/// Decodes an image of the probed `size`: PNG and JPEG as RGBA8 (the
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
    /// charged to [`Limit::ImageBytes`] before the image is decoded.
    pub(super) fn decode_images(
        &mut self,
        document: &gltf::Document,
        buffers: &Buffers,
        keys: &[TextureKey],
    ) -> Result<Vec<GltfTexture>, GltfError> {
        let total = keys.len();
        self.progress.report(LoadStage::Images, 0, total);
        let mut uses: HashMap<usize, u64> = HashMap::new();
        for &(index, _) in keys {
            *uses.entry(index).or_default() += 1;
        }
        let mut textures: Vec<GltfTexture> = Vec::with_capacity(total);
        let mut decoded: HashMap<usize, (u32, u32, Ktx2Texels)> = HashMap::new();
        for &(index, srgb) in keys {
            let image = document.images().nth(index).expect("validated index");
            let (width, height, texels) = match decoded.remove(&index) {
                Some(d) => d,
                None => self.decode_image(&image, buffers, uses[&index])?,
            };
            let left = uses.get_mut(&index).expect("counted above");
            *left -= 1;
            if *left > 0 {
                decoded.insert(index, (width, height, texels.clone()));
            }
            let data = match texels {
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
            };
            textures.push(GltfTexture {
                name: image.name().map(str::to_owned),
                image: index,
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
    ) -> Result<(u32, u32, Ktx2Texels), GltfError> {
        let index = image.index();
        let read;
        let encoded: &[u8] = match image.source() {
            gltf::image::Source::View { view, .. } => {
                &buffers[view.buffer().index()][view.offset()..view.offset() + view.length()]
            }
            gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
                read = self.data_uri(uri, false)?;
                &read
            }
            gltf::image::Source::Uri { uri, .. } => {
                read = self.files.read_whole(uri, &self.budget)?;
                &read
            }
        };
        let size = probe(encoded).map_err(|e| self.invalid(format!("image {index}: {e}")))?;
        self.budget.check(
            Limit::ImagePixels,
            u64::from(size.width) * u64::from(size.height),
        )?;
        self.budget
            .charge(Limit::ImageBytes, size.texel_bytes.saturating_mul(uses))?;
        // Decoders are contained too (a last resort).
        let texels = std::panic::catch_unwind(|| decode(encoded, &size))
            .unwrap_or_else(|_| Err("the image decoder panicked".into()))
            .map_err(|e| self.invalid(format!("image {index}: {e}")))?;
        Ok((size.width, size.height, texels))
    }
}
