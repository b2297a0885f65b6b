//! A glTF's buffers: the GLB BIN chunk, `data:` URIs and external files,
//! each source held once and shared by every buffer naming it, and charged
//! to [`LoadLimits::max_buffer_bytes`](super::LoadLimits::max_buffer_bytes)
//! before it is read; and the bytes of each buffer view, decompressed
//! where a meshopt extension compresses it (`meshopt.rs`).
//!
//! In a GLB only the first buffer may be the BIN chunk (the specification's
//! rule); another buffer without a URI is an error unless it is a meshopt
//! `fallback` buffer. A fallback buffer is never read, with or without a
//! URI: it holds no bytes, and a view reading it uncompressed is an error.
//! A buffer that is absent (no URI, no BIN chunk) is an error only when a
//! view reads it.

use std::collections::HashMap;
use std::ops::Index;
use std::path::PathBuf;
use std::sync::Arc;

use super::checks::decode_base64;
use super::limits::Limit;
use super::stage::Parser;
use super::{GltfError, LoadStage};

/// The bytes of every buffer, in glTF order: each buffer is the first
/// `byteLength` bytes of a shared source.
#[derive(Debug, Default)]
pub(super) struct Buffers {
    slices: Vec<(Arc<Vec<u8>>, usize)>,
    /// Per buffer: why it holds no bytes (a fallback, or absent).
    empty: Vec<Option<&'static str>>,
    /// Per buffer view: its decompressed bytes (meshopt), if compressed.
    pub(super) decoded: Vec<Option<Vec<u8>>>,
    /// Per accessor a Draco stream decodes (`draco.rs`): its elements,
    /// tightly packed in its component type.
    pub(super) draco: HashMap<usize, Vec<u8>>,
}

impl Buffers {
    /// Buffer `index`, if there is one.
    pub(super) fn get(&self, index: usize) -> Option<&[u8]> {
        self.slices.get(index).map(|(bytes, len)| &bytes[..*len])
    }

    /// The bytes of buffer view `view` (checked by [`Parser::check_views`]).
    pub(super) fn view(&self, view: &gltf::buffer::View<'_>) -> &[u8] {
        match self.decoded.get(view.index()) {
            Some(Some(bytes)) => bytes,
            _ => &self[view.buffer().index()][view.offset()..view.offset() + view.length()],
        }
    }
}

impl Index<usize> for Buffers {
    type Output = [u8];

    fn index(&self, index: usize) -> &[u8] {
        let (bytes, len) = &self.slices[index];
        &bytes[..*len]
    }
}

/// Where a buffer's bytes come from.
enum Source<'a> {
    /// None: why.
    Empty(&'static str),
    Bin,
    Data(&'a str),
    /// A file: the URI and its canonical path.
    File(&'a str, PathBuf),
}

/// An upper bound of the bytes a base64 text decodes to (exact without
/// whitespace).
fn decoded_len_bound(text: &str) -> u64 {
    text.trim_end_matches('=').len() as u64 * 3 / 4
}

/// Whether `buffer` is a meshopt `fallback` buffer (never read).
fn is_fallback(buffer: &gltf::Buffer<'_>) -> bool {
    ["EXT_meshopt_compression", "KHR_meshopt_compression"]
        .iter()
        .filter_map(|e| buffer.extension_value(e))
        .any(|v| v.get("fallback").and_then(gltf::json::Value::as_bool) == Some(true))
}

impl Parser<'_, '_, '_> {
    /// Reads every buffer of `document`; `blob` is the GLB's BIN chunk. Every
    /// file URI is checked against the access policy before any is read.
    pub(super) fn read_buffers(
        &mut self,
        document: &gltf::Document,
        blob: Option<Vec<u8>>,
    ) -> Result<Buffers, GltfError> {
        let total = document.buffers().len();
        self.progress.report(LoadStage::Buffers, 0, total);
        // Resolve first; a file named by several buffers is read once, as
        // far as the longest of them.
        let mut longest: HashMap<PathBuf, u64> = HashMap::new();
        let mut sources = Vec::with_capacity(total);
        for buffer in document.buffers() {
            sources.push(match buffer.source() {
                _ if is_fallback(&buffer) => {
                    Source::Empty("a meshopt fallback buffer (never read)")
                }
                gltf::buffer::Source::Bin if buffer.index() > 0 || blob.is_none() => {
                    Source::Empty(if blob.is_some() {
                        "without a URI, and only the first buffer can be the GLB's BIN chunk"
                    } else {
                        "without a URI, in a file without a GLB BIN chunk"
                    })
                }
                gltf::buffer::Source::Bin => Source::Bin,
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => Source::Data(uri),
                gltf::buffer::Source::Uri(uri) => {
                    let file = self.files.resolve(uri)?;
                    let length = longest.entry(file.clone()).or_default();
                    *length = (*length).max(buffer.length() as u64);
                    Source::File(uri, file)
                }
            });
        }
        let blob = blob.map(Arc::new);
        let mut blob_charged = false;
        let mut files: HashMap<PathBuf, Arc<Vec<u8>>> = HashMap::new();
        let mut buffers = Buffers::default();
        for (buffer, source) in document.buffers().zip(sources) {
            let data = match source {
                Source::Empty(why) => {
                    buffers.slices.push((Arc::new(Vec::new()), 0));
                    buffers.empty.push(Some(why));
                    continue;
                }
                Source::Bin => {
                    let bin = blob.as_ref().expect("only with a BIN chunk");
                    if !std::mem::replace(&mut blob_charged, true) {
                        self.budget.charge(Limit::BufferBytes, bin.len() as u64)?;
                    }
                    Arc::clone(bin)
                }
                Source::Data(uri) => Arc::new(self.data_uri(uri, true)?),
                Source::File(uri, file) => match files.get(&file) {
                    Some(data) => Arc::clone(data),
                    None => {
                        let data = Arc::new(self.files.read_buffer(
                            uri,
                            &file,
                            longest[&file],
                            &mut self.budget,
                        )?);
                        files.insert(file, Arc::clone(&data));
                        data
                    }
                },
            };
            if data.len() < buffer.length() {
                return Err(self.invalid(format!(
                    "buffer {} has {} bytes, declares {}",
                    buffer.index(),
                    data.len(),
                    buffer.length()
                )));
            }
            buffers.slices.push((data, buffer.length()));
            buffers.empty.push(None);
            self.progress
                .report(LoadStage::Buffers, buffers.slices.len(), total);
        }
        Ok(buffers)
    }

    /// Checks that every view not compressed by meshopt lies within its
    /// buffer, and reads one that holds bytes.
    pub(super) fn check_views(
        &self,
        document: &gltf::Document,
        buffers: &Buffers,
    ) -> Result<(), GltfError> {
        for view in document.views() {
            if buffers
                .decoded
                .get(view.index())
                .is_some_and(Option::is_some)
            {
                continue;
            }
            let buffer = view.buffer().index();
            if let Some(why) = buffers.empty[buffer] {
                return Err(self.invalid(format!(
                    "buffer view {} reads buffer {buffer}, which is {why}",
                    view.index()
                )));
            }
            let fits = view
                .offset()
                .checked_add(view.length())
                .is_some_and(|end| end <= buffers[buffer].len());
            if !fits {
                return Err(self.invalid(format!("buffer view {} out of its buffer", view.index())));
            }
        }
        Ok(())
    }

    /// The bytes of a `data:` URI; with `charge`, charged to
    /// [`Limit::BufferBytes`] before decoding.
    pub(super) fn data_uri(&mut self, uri: &str, charge: bool) -> Result<Vec<u8>, GltfError> {
        let data = uri.strip_prefix("data:").unwrap_or(uri);
        let (_, payload) = data.split_once(";base64,").ok_or_else(|| {
            let start: String = uri.chars().take(40).collect();
            self.invalid(format!("unsupported data URI {start}"))
        })?;
        if charge {
            self.budget
                .charge(Limit::BufferBytes, decoded_len_bound(payload))?;
        }
        decode_base64(payload).ok_or_else(|| self.invalid("malformed base64 data URI".into()))
    }
}
