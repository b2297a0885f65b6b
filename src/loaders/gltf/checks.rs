//! Checks on bytes the `gltf` crate would trust, and byte-level helpers:
//! GLB headers, JSON index checks, accessor ranges, base64, strip and fan
//! conversion.

use std::path::Path;

use gltf::accessor::{DataType, Dimensions};

use super::GltfError;
use super::extensions::unsupported_required;
use super::normalise::root_from_slice;

/// `gltf::Gltf::from_slice`, with the JSON normalised first (see
/// `normalise.rs`; its warnings are returned) and the invariants the crate
/// unwraps without validating checked before it builds the document
/// ([`check_unvalidated`]).
pub(super) fn parse_json(
    path: &Path,
    bytes: &[u8],
) -> Result<(gltf::Gltf, Vec<String>), GltfError> {
    let parse_error = |message: String| GltfError::Parse {
        path: path.to_owned(),
        message,
    };
    let gltf_error = |e: gltf::Error| parse_error(e.to_string());
    let (json, blob) = if bytes.starts_with(b"glTF") {
        let glb = gltf::Glb::from_slice(bytes).map_err(gltf_error)?;
        (glb.json.into_owned(), glb.bin.map(|b| b.into_owned()))
    } else {
        (bytes.to_vec(), None)
    };
    let (root, warnings) = root_from_slice(&json).map_err(parse_error)?;
    let required = root.extensions_required.iter().map(String::as_str);
    if let Some(extension) = unsupported_required(required) {
        return Err(GltfError::UnsupportedExtension {
            path: path.to_owned(),
            extension: extension.to_owned(),
        });
    }
    check_unvalidated(&root).map_err(parse_error)?;
    let document = validated(root).map_err(parse_error)?;
    Ok((gltf::Gltf { document, blob }, warnings))
}

/// `gltf::Document::from_json`: the crate's validation, less two refusals
/// of files the specification allows, which unbound handles itself:
/// - a required extension outside the crate's own features (unbound has
///   refused the ones it does not support just before, by name);
/// - an accessor without a buffer view or sparse storage (all zeros,
///   read by `accessors.rs`; the crate's reader is never used).
///
/// The crate's accessors that would then misbehave are not called on such
/// a file: `Accessor::view` is an `Option` already, and textures without a
/// source are allowed by the crate's `allow_empty_texture` feature
/// (`Texture::source` is an `Option`).
fn validated(root: gltf::json::Root) -> Result<gltf::Document, String> {
    use gltf::json::validation::{Error, Validate};
    let mut errors: Vec<String> = Vec::new();
    root.validate(&root, gltf::json::Path::new, &mut |path, error| {
        let path = path();
        let at = path.as_str();
        let allowed = match error {
            Error::Unsupported => at.starts_with("extensionsRequired"),
            Error::Missing => at.starts_with("accessors[") && at.ends_with("].bufferView"),
            _ => false,
        };
        if !allowed && errors.len() < 8 {
            errors.push(format!("{at}: {error}"));
        }
    });
    if errors.is_empty() {
        Ok(gltf::Document::from_json_without_validation(root))
    } else {
        Err(errors.join(", "))
    }
}

/// What the `gltf` crate unwraps without its validation checking it: its
/// validation looks a primitive's POSITION accessor up unchecked, an
/// animation channel's target node and path are not validated, and
/// `Image::source` unwraps the MIME type when an image has a buffer view
/// (even one that also has a URI) and the URI otherwise. An image must have
/// a URI or a buffer view, not both, and a MIME type with a buffer view, as
/// the specification says.
fn check_unvalidated(root: &gltf::json::Root) -> Result<(), String> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let position = primitive
                .attributes
                .get(&gltf::json::validation::Checked::Valid(
                    gltf::Semantic::Positions,
                ));
            if position.is_some_and(|a| a.value() >= root.accessors.len()) {
                return Err(format!(
                    "mesh {m} primitive {p}: POSITION accessor out of range"
                ));
            }
        }
    }
    // The crate's validation of an animation checks its samplers and each
    // channel's sampler index, not the channel's target, which it unwraps.
    for (a, animation) in root.animations.iter().enumerate() {
        for (c, channel) in animation.channels.iter().enumerate() {
            let target = &channel.target;
            if target.node.value() >= root.nodes.len() {
                return Err(format!(
                    "animation {a} channel {c}: target node out of range"
                ));
            }
            if !matches!(target.path, gltf::json::validation::Checked::Valid(_)) {
                return Err(format!("animation {a} channel {c}: invalid target path"));
            }
        }
    }
    for (i, image) in root.images.iter().enumerate() {
        let problem = match (&image.uri, &image.buffer_view, &image.mime_type) {
            (Some(_), None, _) | (None, Some(_), Some(_)) => continue,
            (Some(_), Some(_), _) => "both a URI and a buffer view",
            (None, Some(_), None) => "a buffer view but no MIME type",
            (None, None, _) => "neither a URI nor a buffer view",
        };
        return Err(format!("image {i} has {problem}"));
    }
    Ok(())
}

pub(super) fn check_accessor(
    accessor: &gltf::Accessor<'_>,
    name: &str,
    allowed: &[(DataType, Dimensions)],
) -> Result<(), String> {
    let index = accessor.index();
    let kind = (accessor.data_type(), accessor.dimensions());
    if !allowed.contains(&kind) {
        return Err(format!(
            "{name} accessor {index} is {:?} {:?}, expected one of {allowed:?}",
            kind.0, kind.1
        ));
    }
    let count = accessor.count();
    if count == 0 {
        return Err(format!("{name} accessor {index} has {count} elements"));
    }
    // Without a view: zeros (and sparse storage, checked when read).
    let Some(view) = accessor.view() else {
        return Ok(());
    };
    let size = accessor.size();
    let stride = view.stride().unwrap_or(size);
    if stride < size {
        return Err(format!(
            "{name} accessor {index}: stride {stride} is under its element size {size}"
        ));
    }
    let end = stride
        .checked_mul(count - 1)
        .and_then(|n| n.checked_add(size))
        .and_then(|n| n.checked_add(accessor.offset()));
    match end {
        Some(end) if end <= view.length() => Ok(()),
        _ => Err(format!(
            "{name} accessor {index}: {count} elements of {size} bytes (stride {stride}) at offset {} overrun buffer view {} of {} bytes",
            accessor.offset(),
            view.index(),
            view.length()
        )),
    }
}

/// Checks a binary glTF's header and chunk table before the parser sees it:
/// `gltf` 1.4 trusts the header's length (a length under 12 underflows into
/// a huge allocation and an abort that no panic handler can catch).
pub(super) fn check_glb(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 12 {
        return Err(format!(
            "GLB of {} bytes is shorter than its 12-byte header",
            bytes.len()
        ));
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (version, length) = (word(4), word(8) as usize);
    if version != 2 {
        return Err(format!(
            "GLB version {version} (only glTF 2.0 is supported)"
        ));
    }
    if length < 12 || length > bytes.len() {
        return Err(format!(
            "GLB header claims {length} bytes, file has {}",
            bytes.len()
        ));
    }
    let mut at = 12;
    let mut chunk = 0;
    while at < length {
        if length - at < 8 {
            return Err(format!("GLB chunk {chunk} header runs past the end"));
        }
        let chunk_length = word(at) as usize;
        if chunk_length > length - at - 8 {
            return Err(format!(
                "GLB chunk {chunk} claims {chunk_length} bytes, {} remain",
                length - at - 8
            ));
        }
        if chunk == 0 && word(at + 4) != 0x4E4F_534A {
            return Err("GLB's first chunk is not JSON".into());
        }
        at += 8 + chunk_length;
        chunk += 1;
    }
    if chunk == 0 {
        return Err("GLB has no JSON chunk".into());
    }
    Ok(())
}

/// Decodes standard base64 (the payload of a `data:` URI).
pub(super) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let v: Vec<u8> = chunk.iter().map(|&c| value(c)).collect::<Option<_>>()?;
        let n = v.iter().fold(0u32, |n, &x| (n << 6) | u32::from(x)) << (6 * (4 - v.len()));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..v.len().saturating_sub(1)]);
    }
    Some(out)
}

/// Strips and fans as a triangle list (glTF's winding rules: every other
/// strip triangle is flipped to keep the front face).
pub(super) fn triangle_list(mode: gltf::mesh::Mode, indices: &[u32]) -> Vec<u32> {
    let triangles = indices.len().saturating_sub(2);
    match mode {
        gltf::mesh::Mode::TriangleStrip => (0..triangles)
            .flat_map(|i| {
                if i % 2 == 0 {
                    [indices[i], indices[i + 1], indices[i + 2]]
                } else {
                    [indices[i + 1], indices[i], indices[i + 2]]
                }
            })
            .collect(),
        gltf::mesh::Mode::TriangleFan => (0..triangles)
            .flat_map(|i| [indices[0], indices[i + 1], indices[i + 2]])
            .collect(),
        _ => indices.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glb_headers_are_checked_before_parsing() {
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(4u32.to_le_bytes()); // claims 4 bytes: under the header
        assert!(super::check_glb(&glb).unwrap_err().contains("claims 4"));
        assert!(super::check_glb(b"glTF").is_err());
        let mut ok = b"glTF".to_vec();
        ok.extend(2u32.to_le_bytes());
        ok.extend(22u32.to_le_bytes());
        ok.extend(2u32.to_le_bytes());
        ok.extend(0x4E4F_534Au32.to_le_bytes());
        ok.extend(b"{}");
        assert_eq!(super::check_glb(&ok), Ok(()));
        let mut long_chunk = ok.clone();
        long_chunk[12] = 200;
        assert!(
            super::check_glb(&long_chunk)
                .unwrap_err()
                .contains("chunk 0")
        );
        let mut version_one = ok;
        version_one[4] = 1;
        assert!(
            super::check_glb(&version_one)
                .unwrap_err()
                .contains("version 1")
        );
    }

    #[test]
    fn strips_and_fans_become_lists() {
        use gltf::mesh::Mode;
        assert_eq!(
            super::triangle_list(Mode::TriangleStrip, &[0, 1, 2, 3]),
            [0, 1, 2, 2, 1, 3]
        );
        assert_eq!(
            super::triangle_list(Mode::TriangleFan, &[0, 1, 2, 3]),
            [0, 1, 2, 0, 2, 3]
        );
        assert!(super::triangle_list(Mode::TriangleFan, &[0, 1]).is_empty());
    }

    #[test]
    fn base64_decodes() {
        assert_eq!(super::decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(super::decode_base64("AAEC").unwrap(), [0, 1, 2]);
        assert!(super::decode_base64("a$==").is_none());
    }
}
