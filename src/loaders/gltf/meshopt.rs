//! `EXT_meshopt_compression` and `KHR_meshopt_compression`: buffer views
//! whose bytes are a meshoptimizer stream in another buffer, decoded once
//! when the buffers are read, before any accessor reads them.
//!
//! Each compressed view names its stream (`buffer`, `byteOffset`,
//! `byteLength`) and what it decodes to: `count` elements of `byteStride`
//! bytes, in mode `ATTRIBUTES` (the vertex codec, then a filter: `NONE`,
//! `OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL`, and `COLOR` in the KHR
//! version), `TRIANGLES` (the index codec) or `INDICES` (the index-sequence
//! codec). Everything the decoders would assert is checked first (strides,
//! a triangle count divisible by 3, each filter's stride), and the output
//! (`count` x `byteStride`, padded to the view's `byteLength`) is charged
//! to [`LoadLimits::max_decompressed_bytes`](super::LoadLimits::max_decompressed_bytes)
//! before it is allocated. A stream the decoder refuses (truncated, or
//! shorter than its counts claim) is [`GltfError::Invalid`]; decoding never
//! reads past the stream.
//!
//! The `meshopt` crate's vertex decoder takes the stride from its element
//! type: each stride the extensions allow (4 to 256 bytes, multiples of 4)
//! is one instance of a byte-array element ([`decode_vertices`]).

use super::GltfError;
use super::buffers::Buffers;
use super::limits::Limit;
use super::stage::Parser;
use gltf::json::Value;

/// How a compressed view's stream is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

/// The filter applied to decoded attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
    Color,
}

/// One compressed view's extension object.
#[derive(Clone, Copy, Debug)]
struct Compressed {
    buffer: usize,
    offset: usize,
    length: usize,
    stride: usize,
    count: usize,
    mode: Mode,
    filter: Filter,
}

/// The meshopt extension of `view`, if it has one (the KHR one where both
/// are present).
fn compressed(view: &gltf::buffer::View<'_>) -> Result<Option<Compressed>, String> {
    match (
        view.extension_value("KHR_meshopt_compression"),
        view.extension_value("EXT_meshopt_compression"),
    ) {
        (Some(value), _) => extension(value, true).map(Some),
        (None, Some(value)) => extension(value, false).map(Some),
        (None, None) => Ok(None),
    }
}

/// One extension object (`khr`: the KHR version, else the EXT one).
fn extension(value: &Value, khr: bool) -> Result<Compressed, String> {
    let name = if khr { "KHR" } else { "EXT" };
    let integer = |key: &str, default: Option<u64>| {
        match value.get(key) {
            Some(v) => v.as_u64(),
            None => default,
        }
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("{name}_meshopt_compression: {key} missing or not an integer"))
    };
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let mode = match text("mode") {
        Some("ATTRIBUTES") => Mode::Attributes,
        Some("TRIANGLES") => Mode::Triangles,
        Some("INDICES") => Mode::Indices,
        other => return Err(format!("{name}_meshopt_compression: mode {other:?}")),
    };
    let filter = match text("filter") {
        None | Some("NONE") => Filter::None,
        Some("OCTAHEDRAL") => Filter::Octahedral,
        Some("QUATERNION") => Filter::Quaternion,
        Some("EXPONENTIAL") => Filter::Exponential,
        Some("COLOR") if khr => Filter::Color,
        Some(other) => return Err(format!("{name}_meshopt_compression: filter {other:?}")),
    };
    Ok(Compressed {
        buffer: integer("buffer", None)?,
        offset: integer("byteOffset", Some(0))?,
        length: integer("byteLength", None)?,
        stride: integer("byteStride", None)?,
        count: integer("count", None)?,
        mode,
        filter,
    })
}

/// What the decoders would assert, checked: `None` if `c` can be decoded.
fn unsupported_layout(c: &Compressed) -> Option<String> {
    let stride = c.stride;
    let ok = match (c.mode, c.filter) {
        (Mode::Attributes, Filter::None | Filter::Exponential) => {
            stride.is_multiple_of(4) && (4..=256).contains(&stride)
        }
        (Mode::Attributes, Filter::Octahedral | Filter::Color) => stride == 4 || stride == 8,
        (Mode::Attributes, Filter::Quaternion) => stride == 8,
        (Mode::Triangles, Filter::None) => {
            (stride == 2 || stride == 4) && c.count.is_multiple_of(3)
        }
        (Mode::Indices, Filter::None) => stride == 2 || stride == 4,
        _ => false,
    };
    (!ok).then(|| {
        format!(
            "{:?} with filter {:?}, byteStride {stride} and count {} cannot be decoded",
            c.mode, c.filter, c.count
        )
    })
}

impl Parser<'_, '_, '_> {
    /// Decodes every compressed buffer view into `buffers.decoded` (see the
    /// module docs).
    pub(super) fn decode_meshopt(
        &mut self,
        document: &gltf::Document,
        buffers: &mut Buffers,
    ) -> Result<(), GltfError> {
        buffers.decoded = vec![None; document.views().len()];
        for view in document.views() {
            let index = view.index();
            let error = |e: String| format!("buffer view {index}: {e}");
            let Some(c) = compressed(&view).map_err(|e| self.invalid(error(e)))? else {
                continue;
            };
            check(&c, view.length()).map_err(|e| self.invalid(error(e)))?;
            self.budget
                .charge(Limit::DecompressedBytes, view.length() as u64)?;
            let stream = buffers
                .get(c.buffer)
                .and_then(|b| b.get(c.offset..c.offset.checked_add(c.length)?))
                .ok_or_else(|| {
                    self.invalid(error(format!(
                        "stream of {} bytes at {} is outside buffer {}",
                        c.length, c.offset, c.buffer
                    )))
                })?;
            let bytes =
                decode_view(&c, view.length(), stream).map_err(|e| self.invalid(error(e)))?;
            buffers.decoded[index] = Some(bytes);
        }
        Ok(())
    }
}

/// Everything checked about `c` before its stream is looked at, for a view
/// of `view_length` bytes: a layout the decoders handle, and an output
/// (`count` x `byteStride` bytes) within the view.
fn check(c: &Compressed, view_length: usize) -> Result<(), String> {
    if let Some(problem) = unsupported_layout(c) {
        return Err(problem);
    }
    match c.count.checked_mul(c.stride) {
        Some(n) if n <= view_length => Ok(()),
        _ => Err(format!(
            "{} elements of {} bytes overrun the view's {view_length} bytes",
            c.count, c.stride
        )),
    }
}

/// The view's bytes: `stream` decoded (`c` checked) and padded with zeros
/// to `view_length`.
fn decode_view(c: &Compressed, view_length: usize, stream: &[u8]) -> Result<Vec<u8>, String> {
    let mut bytes = decode(c, stream)?;
    debug_assert_eq!(bytes.len(), c.count * c.stride);
    bytes.resize(view_length, 0);
    Ok(bytes)
}

/// What the loader does with one compressed view whose extension object is
/// `extension` (`khr`: `KHR_meshopt_compression`, else
/// `EXT_meshopt_compression`), `view_length` bytes long, and whose stream
/// is `stream`: the extension read, checked and decoded, without a document
/// (its `buffer`, `byteOffset` and `byteLength` are not looked at). The
/// entry point of the `meshopt_decode` fuzz target (`fuzz/`), not an API.
#[doc(hidden)]
pub fn decode_meshopt_view(
    extension_object: &Value,
    khr: bool,
    view_length: usize,
    stream: &[u8],
) -> Result<Vec<u8>, String> {
    let c = extension(extension_object, khr)?;
    check(&c, view_length)?;
    decode_view(&c, view_length, stream)
}

/// Decodes one checked stream to `count` x `stride` bytes.
fn decode(c: &Compressed, stream: &[u8]) -> Result<Vec<u8>, String> {
    let failed = |e: meshopt::Error| format!("{:?} stream does not decode: {e:?}", c.mode);
    match (c.mode, c.stride) {
        (Mode::Triangles, 2) => meshopt::decode_index_buffer::<u16>(stream, c.count)
            .map(|i| bytemuck::cast_slice(&i).to_vec())
            .map_err(failed),
        (Mode::Triangles, _) => meshopt::decode_index_buffer::<u32>(stream, c.count)
            .map(|i| bytemuck::cast_slice(&i).to_vec())
            .map_err(failed),
        (Mode::Indices, 2) => meshopt::decode_index_sequence::<u16>(stream, c.count)
            .map(|i| bytemuck::cast_slice(&i).to_vec())
            .map_err(failed),
        (Mode::Indices, _) => meshopt::decode_index_sequence::<u32>(stream, c.count)
            .map(|i| bytemuck::cast_slice(&i).to_vec())
            .map_err(failed),
        (Mode::Attributes, stride) => {
            let bytes = decode_vertices(stream, c.count, stride).map_err(failed)?;
            Ok(filtered(bytes, c.filter, stride))
        }
    }
}

/// `bytes` (whole elements of `stride` bytes) with `filter` undone.
fn filtered(bytes: Vec<u8>, filter: Filter, stride: usize) -> Vec<u8> {
    fn apply<T: bytemuck::Pod>(bytes: &[u8], f: impl FnOnce(&mut [T])) -> Vec<u8> {
        let mut typed: Vec<T> = bytemuck::pod_collect_to_vec(bytes);
        f(&mut typed);
        bytemuck::cast_slice(&typed).to_vec()
    }
    match (filter, stride) {
        (Filter::None, _) => bytes,
        (Filter::Octahedral, 4) => apply::<[i8; 4]>(&bytes, meshopt::decode_filter_oct),
        (Filter::Octahedral, _) => apply::<[i16; 4]>(&bytes, meshopt::decode_filter_oct),
        (Filter::Quaternion, _) => apply::<[i16; 4]>(&bytes, meshopt::decode_filter_quat),
        // Each 32-bit component stands alone, whatever the stride.
        (Filter::Exponential, _) => apply::<[u32; 1]>(&bytes, meshopt::decode_filter_exp),
        (Filter::Color, 4) => apply::<[u8; 4]>(&bytes, meshopt::decode_filter_color),
        (Filter::Color, _) => apply::<[u16; 4]>(&bytes, meshopt::decode_filter_color),
    }
}

/// One vertex of `N` bytes, as the vertex decoder's element type.
#[derive(Clone, Copy)]
struct Vertex<const N: usize>([u8; N]);

impl<const N: usize> Default for Vertex<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

fn vertices<const N: usize>(stream: &[u8], count: usize) -> meshopt::Result<Vec<u8>> {
    let decoded: Vec<Vertex<N>> = meshopt::decode_vertex_buffer(stream, count)?;
    let mut bytes = Vec::with_capacity(count * N);
    for vertex in &decoded {
        bytes.extend_from_slice(&vertex.0);
    }
    Ok(bytes)
}

macro_rules! by_stride {
    ($stride:expr, $stream:expr, $count:expr; $($n:literal)*) => {
        match $stride {
            $($n => vertices::<$n>($stream, $count),)*
            _ => unreachable!("strides are checked by unsupported_layout"),
        }
    };
}

/// The vertex codec's output: `count` vertices of `stride` bytes (a
/// multiple of 4 up to 256, checked).
pub(super) fn decode_vertices(
    stream: &[u8],
    count: usize,
    stride: usize,
) -> meshopt::Result<Vec<u8>> {
    by_stride!(stride, stream, count;
        4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64
        68 72 76 80 84 88 92 96 100 104 108 112 116 120 124 128
        132 136 140 144 148 152 156 160 164 168 172 176 180 184 188 192
        196 200 204 208 212 216 220 224 228 232 236 240 244 248 252 256)
}
