//! `KHR_draco_mesh_compression` (cargo feature `draco`, off by default):
//! a triangle primitive whose indices and attributes are one Draco stream
//! in a buffer view, decoded once when the buffers are read by the pure-Rust
//! `draco-oxide-decoder`, before any accessor reads them.
//!
//! Each decoded attribute (the stream's attribute whose unique id the
//! extension's `attributes` map names) and the triangles become the bytes
//! of the primitive's accessors, in each accessor's own component type, so
//! that the accessor reader (`accessors.rs`) reads them like any other;
//! a value the accessor's type cannot hold exactly is an error.
//!
//! Before anything is decoded:
//!
//! - the accessors' elements are checked against
//!   [`LoadLimits::max_accessor_elements`](super::LoadLimits::max_accessor_elements)
//!   and their bytes charged to
//!   [`LoadLimits::max_decompressed_bytes`](super::LoadLimits::max_decompressed_bytes);
//! - the stream's header is read here ([`declared_counts`]): bitstream 2.2
//!   (what the Draco encoders of glTF tools write; the decoder reads no
//!   other), a triangle mesh, no metadata section, and counts that agree
//!   with the accessors (triangles x 3 = the indices' count; sequential
//!   streams: points = the attributes' count; edgebreaker streams: vertices
//!   and symbols no more than the triangles allow). The decoder sizes its
//!   work from these counts, so a stream claiming more than its accessors
//!   is refused unread, and its allocations stay proportional to the
//!   charged accessors.
//!
//! After decoding, the triangle and point counts are checked again, and
//! every point's value is looked up with a bound check. A stream the
//! decoder refuses is [`GltfError::Invalid`] naming the primitive.

use std::collections::HashMap;

use draco_oxide_core::attribute::{Attribute, ComponentDataType as Component};
use gltf::accessor::DataType;
use gltf::mesh::Mode;

use super::GltfError;
use super::buffers::Buffers;
use super::limits::Limit;
use super::stage::Parser;

/// The extension's name.
const NAME: &str = "KHR_draco_mesh_compression";

/// One Draco primitive: its stream's view, its indices accessor and, per
/// attribute, the accessor and the stream's attribute unique id.
struct Compressed<'a> {
    view: gltf::buffer::View<'a>,
    indices: gltf::Accessor<'a>,
    attributes: Vec<(gltf::Accessor<'a>, u64)>,
}

/// The extension object of `primitive`, resolved against `document`.
fn compressed<'a>(
    document: &'a gltf::Document,
    primitive: &gltf::Primitive<'a>,
    extension: &gltf::json::Value,
) -> Result<Compressed<'a>, String> {
    let view = extension
        .get("bufferView")
        .and_then(gltf::json::Value::as_u64)
        .and_then(|v| document.views().nth(usize::try_from(v).ok()?))
        .ok_or("bufferView missing or not one of the file's buffer views")?;
    if primitive.mode() != Mode::Triangles {
        return Err(format!(
            "mode {:?}: Draco streams decode to triangle lists",
            primitive.mode()
        ));
    }
    let indices = primitive
        .indices()
        .ok_or("a Draco primitive needs an indices accessor")?;
    let map = extension
        .get("attributes")
        .and_then(gltf::json::Value::as_object)
        .ok_or("attributes missing or not an object")?;
    let mut attributes = Vec::with_capacity(map.len());
    for (semantic, id) in map {
        let id = id
            .as_u64()
            .ok_or_else(|| format!("attributes.{semantic} is not an integer"))?;
        let accessor = primitive
            .attributes()
            .find(|(s, _)| s.to_string() == *semantic)
            .map(|(_, a)| a);
        match accessor {
            Some(accessor) => attributes.push((accessor, id)),
            // An application-specific attribute the `gltf` crate does not
            // list: unbound does not read it.
            None if semantic.starts_with('_') => {}
            None => {
                return Err(format!(
                    "attributes.{semantic} is not an attribute of the primitive"
                ));
            }
        }
    }
    Ok(Compressed {
        view,
        indices,
        attributes,
    })
}

/// Reads an unsigned LEB128 varint (Draco's `varint`), at most 64 bits.
fn leb128(bytes: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at).ok_or("the header is truncated")?;
        *at += 1;
        value |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a header varint is longer than 64 bits".into())
}

/// Checks the stream's header (see the module docs) against `indices`
/// indices and `points` points; returns the declared triangle count.
fn declared_counts(stream: &[u8], indices: u64, points: u64) -> Result<u64, String> {
    let header = stream
        .get(..11)
        .ok_or("the stream is shorter than its header")?;
    if &header[..5] != b"DRACO" {
        return Err("the stream does not start with DRACO".into());
    }
    let (major, minor, geometry, method) = (header[5], header[6], header[7], header[8]);
    if (major, minor) != (2, 2) {
        return Err(format!(
            "Draco bitstream {major}.{minor}: only 2.2 is decoded"
        ));
    }
    if geometry != 1 {
        return Err(format!("geometry type {geometry} is not a triangle mesh"));
    }
    if u16::from_le_bytes([header[9], header[10]]) & 0x8000 != 0 {
        return Err("streams with a metadata section are not decoded".into());
    }
    let mut at = 11;
    let triangles = match method {
        // Sequential: triangles, then points.
        0 => {
            let triangles = leb128(stream, &mut at)?;
            let declared = leb128(stream, &mut at)?;
            if declared != points {
                return Err(format!(
                    "the stream declares {declared} points, the accessors {points}"
                ));
            }
            triangles
        }
        // Edgebreaker: traversal, vertices, triangles, attribute data,
        // symbols, split symbols.
        1 => {
            at += 1;
            let vertices = leb128(stream, &mut at)?;
            let triangles = leb128(stream, &mut at)?;
            at += 1;
            let symbols = leb128(stream, &mut at)?;
            let splits = leb128(stream, &mut at)?;
            let corners = triangles.saturating_mul(3);
            if vertices > corners.min(points) || symbols > triangles || splits > triangles {
                return Err(format!(
                    "the stream declares {vertices} vertices, {symbols} symbols and {splits} \
                     split symbols for {triangles} triangles and {points} points"
                ));
            }
            triangles
        }
        other => return Err(format!("unknown encoder method {other}")),
    };
    if triangles.checked_mul(3) != Some(indices) {
        return Err(format!(
            "the stream declares {triangles} triangles, the indices accessor {indices} indices"
        ));
    }
    Ok(triangles)
}

/// The value of one decoded component, if its type is one Draco can hold.
fn component(bytes: &[u8], ty: Component) -> Option<f64> {
    let b = |n: usize| bytes.get(..n);
    Some(match ty {
        Component::I8 => f64::from(b(1)?[0] as i8),
        Component::U8 => f64::from(b(1)?[0]),
        Component::I16 => f64::from(i16::from_le_bytes(b(2)?.try_into().ok()?)),
        Component::U16 => f64::from(u16::from_le_bytes(b(2)?.try_into().ok()?)),
        Component::I32 => f64::from(i32::from_le_bytes(b(4)?.try_into().ok()?)),
        Component::U32 => f64::from(u32::from_le_bytes(b(4)?.try_into().ok()?)),
        Component::F32 => f64::from(f32::from_le_bytes(b(4)?.try_into().ok()?)),
        _ => return None,
    })
}

/// Appends `value` as `ty`, little-endian; `false` where `ty` cannot hold
/// it exactly (floats are rounded to `f32`).
fn push(out: &mut Vec<u8>, value: f64, ty: DataType) -> bool {
    let integral = value.fract() == 0.0;
    let fits = |min: f64, max: f64| integral && (min..=max).contains(&value);
    match ty {
        DataType::F32 => out.extend_from_slice(&(value as f32).to_le_bytes()),
        DataType::I8 if fits(-128.0, 127.0) => out.push(value as i8 as u8),
        DataType::U8 if fits(0.0, 255.0) => out.push(value as u8),
        DataType::I16 if fits(-32768.0, 32767.0) => {
            out.extend_from_slice(&(value as i16).to_le_bytes());
        }
        DataType::U16 if fits(0.0, 65535.0) => out.extend_from_slice(&(value as u16).to_le_bytes()),
        DataType::U32 if fits(0.0, 4_294_967_295.0) => {
            out.extend_from_slice(&(value as u32).to_le_bytes());
        }
        _ => return false,
    }
    true
}

/// The value index of `point` in `attribute`, if it has one.
fn value_index(attribute: &Attribute, point: usize) -> Option<usize> {
    match attribute.point_map_as_slice() {
        Some(map) => map.get(point).map(|&v| usize::from(v)),
        None => (point < attribute.num_unique_values()).then_some(point),
    }
}

/// The bytes of `accessor` from decoded attribute `attribute`: the value
/// of each of `points`, in the accessor's component type.
fn attribute_bytes(
    attribute: &Attribute,
    accessor: &gltf::Accessor<'_>,
    points: &[usize],
) -> Result<Vec<u8>, String> {
    let index = accessor.index();
    let components = accessor.dimensions().multiplicity();
    let ty = attribute.get_component_type();
    if attribute.get_num_components() != components {
        return Err(format!(
            "accessor {index} has {components} components, the stream's attribute {}",
            attribute.get_num_components()
        ));
    }
    let values = attribute.get_data_as_bytes();
    let value_size = components * ty.size();
    let mut out = Vec::with_capacity(points.len() * components * accessor.data_type().size());
    for &point in points {
        let value = value_index(attribute, point);
        let bytes = value
            .and_then(|v| values.get(v * value_size..(v + 1) * value_size))
            .ok_or_else(|| format!("accessor {index}: point {point} has no decoded value"))?;
        for c in 0..components {
            let value = component(&bytes[c * ty.size()..], ty)
                .ok_or_else(|| format!("accessor {index}: Draco component type {ty:?}"))?;
            if !push(&mut out, value, accessor.data_type()) {
                return Err(format!(
                    "accessor {index}: decoded value {value} is not a {:?}",
                    accessor.data_type()
                ));
            }
        }
    }
    Ok(out)
}

/// The bytes of the indices accessor `accessor` from decoded `faces`.
fn index_bytes(faces: &[[usize; 3]], accessor: &gltf::Accessor<'_>) -> Result<Vec<u8>, String> {
    let ty = accessor.data_type();
    let mut out = Vec::with_capacity(faces.len() * 3 * ty.size());
    for &index in faces.iter().flatten() {
        if !push(&mut out, index as f64, ty) {
            return Err(format!(
                "index {index} does not fit accessor {}'s {ty:?}",
                accessor.index()
            ));
        }
    }
    Ok(out)
}

impl Parser<'_, '_, '_> {
    /// Decodes every Draco primitive's stream into `buffers.draco` (see
    /// the module docs). Runs after the views are checked.
    pub(super) fn decode_draco(
        &mut self,
        document: &gltf::Document,
        buffers: &mut Buffers,
    ) -> Result<(), GltfError> {
        // Which view each decoded accessor came from.
        let mut decoded_from: HashMap<usize, usize> = HashMap::new();
        for mesh in document.meshes() {
            for primitive in mesh.primitives() {
                let Some(extension) = primitive.extension_value(NAME) else {
                    continue;
                };
                // Point and line primitives are skipped by the loader.
                if matches!(
                    primitive.mode(),
                    Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
                ) {
                    continue;
                }
                let context = |e: String| {
                    format!(
                        "mesh {} primitive {}: {NAME}: {e}",
                        mesh.index(),
                        primitive.index()
                    )
                };
                let c = compressed(document, &primitive, extension)
                    .map_err(|e| self.invalid(context(e)))?;
                let accessors =
                    || std::iter::once(&c.indices).chain(c.attributes.iter().map(|a| &a.0));
                let mut reused = 0;
                for accessor in accessors() {
                    match decoded_from.get(&accessor.index()) {
                        Some(&view) if view == c.view.index() => reused += 1,
                        Some(_) => {
                            return Err(self.invalid(context(format!(
                                "accessor {} is decoded from two Draco streams",
                                accessor.index()
                            ))));
                        }
                        None => {}
                    }
                }
                if reused == c.attributes.len() + 1 {
                    continue;
                }
                let mut bytes = 0u64;
                for accessor in accessors() {
                    self.budget
                        .check(Limit::AccessorElements, accessor.count() as u64)?;
                    let size = accessor.data_type().size() * accessor.dimensions().multiplicity();
                    bytes = bytes.saturating_add(accessor.count() as u64 * size as u64);
                }
                self.budget.charge(Limit::DecompressedBytes, bytes)?;
                let points = c.attributes.first().map_or(0, |a| a.0.count() as u64);
                let decoded = decode(buffers.view(&c.view), &c, points)
                    .map_err(|e| self.invalid(context(e)))?;
                for (accessor, bytes) in decoded {
                    decoded_from.insert(accessor, c.view.index());
                    buffers.draco.insert(accessor, bytes);
                }
            }
        }
        Ok(())
    }
}

/// Decodes the stream of `c` into the bytes of each of its accessors.
fn decode(stream: &[u8], c: &Compressed<'_>, points: u64) -> Result<Vec<(usize, Vec<u8>)>, String> {
    if let Some((a, _)) = c.attributes.iter().find(|a| a.0.count() as u64 != points) {
        return Err(format!(
            "accessor {} has {} elements, the primitive's others {points}",
            a.index(),
            a.count()
        ));
    }
    let (mesh, faces, representatives) = decode_stream(stream, c.indices.count() as u64, points)?;
    let mut out = vec![(c.indices.index(), index_bytes(&faces, &c.indices)?)];
    for (accessor, id) in &c.attributes {
        let attribute = mesh
            .attributes
            .iter()
            .find(|a| a.get_id().as_usize() as u64 == *id)
            .ok_or_else(|| format!("the stream has no attribute with unique id {id}"))?;
        out.push((
            accessor.index(),
            attribute_bytes(attribute, accessor, &representatives)?,
        ));
    }
    Ok(out)
}

/// A decoded stream: the mesh, its triangles' points and each point's
/// decoded point.
type DecodedStream = (draco_oxide_core::mesh::Mesh, Vec<[usize; 3]>, Vec<usize>);

/// The stream's header checked against `indices` indices and `points`
/// points, the stream decoded, its triangle count checked, and its points
/// merged down to `points` ([`merge_points`]).
fn decode_stream(stream: &[u8], indices: u64, points: u64) -> Result<DecodedStream, String> {
    let triangles = declared_counts(stream, indices, points)?;
    let mesh = decode_mesh(stream)?;
    if mesh.faces.len() as u64 != triangles {
        return Err(format!(
            "the stream decodes to {} triangles, its header says {triangles}",
            mesh.faces.len()
        ));
    }
    let (faces, representatives) = merge_points(&mesh, points)?;
    Ok((mesh, faces, representatives))
}

/// What the loader does with one Draco stream before it reads the
/// accessors' values out of it (see [`decode_stream`]), for a primitive of
/// `indices` indices and `points` points, without a document; returns the
/// triangles. The entry point of the `draco_decode` fuzz target (`fuzz/`),
/// not an API. The decoder's panics are contained as errors, as in the
/// loader.
#[doc(hidden)]
pub fn decode_draco_stream(
    stream: &[u8],
    indices: u64,
    points: u64,
) -> Result<Vec<[usize; 3]>, String> {
    decode_stream(stream, indices, points).map(|(_, faces, _)| faces)
}

/// Decodes `stream`, a panic of the decoder contained as an error: it
/// panics on some hostile streams (overflowing shifts and subtractions in
/// dequantisation, `clamp` with its bounds crossed; found by flipping bits
/// in glTF Transform's streams), and cannot be told not to.
fn decode_mesh(stream: &[u8]) -> Result<draco_oxide_core::mesh::Mesh, String> {
    let decode = || draco_oxide_decoder::Decoder::new().decode_mesh(stream);
    match std::panic::catch_unwind(decode) {
        Ok(Ok(mesh)) => Ok(mesh),
        Ok(Err(e)) => Err(format!("the stream does not decode: {e}")),
        Err(panic) => Err(format!(
            "the decoder panicked on the stream: {}",
            panic
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        )),
    }
}

/// The triangles' point indices and, per point, the decoded point it is,
/// for `points` points. `draco-oxide-decoder` can decode more points than
/// the encoder had (AnisotropyBarnLamp: 148 for 140, 774 for 769): points
/// whose every attribute has the same value index are then merged, in
/// order of first appearance, as Draco's own decoder does, and the count
/// must then agree.
fn merge_points(
    mesh: &draco_oxide_core::mesh::Mesh,
    points: u64,
) -> Result<(Vec<[usize; 3]>, Vec<usize>), String> {
    let decoded = mesh.attributes.first().map_or(0, Attribute::len);
    let faces = mesh.faces.iter().map(|f| f.map(usize::from));
    if mesh.attributes.iter().any(|a| a.len() != decoded) {
        return Err("the stream's attributes have different point counts".into());
    }
    if decoded as u64 == points {
        return Ok((faces.collect(), (0..decoded).collect()));
    }
    let mut merged: HashMap<Vec<usize>, usize> = HashMap::new();
    let mut representatives = Vec::new();
    let mut remap = Vec::with_capacity(decoded);
    for point in 0..decoded {
        let key: Vec<usize> = mesh
            .attributes
            .iter()
            .map(|a| value_index(a, point).unwrap_or(usize::MAX))
            .collect();
        let next = representatives.len();
        let merged_into = *merged.entry(key).or_insert(next);
        if merged_into == next {
            representatives.push(point);
        }
        remap.push(merged_into);
    }
    if representatives.len() as u64 != points {
        return Err(format!(
            "the stream decodes to {decoded} points ({} distinct), the accessors have {points}",
            representatives.len()
        ));
    }
    let faces = faces
        .map(|f| {
            let mut out = [0; 3];
            for (o, p) in out.iter_mut().zip(f) {
                *o = *remap.get(p).ok_or("a triangle names a point not decoded")?;
            }
            Ok(out)
        })
        .collect::<Result<_, &str>>()?;
    Ok((faces, representatives))
}
