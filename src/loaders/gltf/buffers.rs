//! A glTF's buffers: the GLB BIN chunk, `data:` URIs and external files,
//! each source held once and shared by every buffer naming it, and charged
//! to [`LoadLimits::max_buffer_bytes`](super::LoadLimits::max_buffer_bytes)
//! before it is read.

use std::collections::HashMap;
use std::ops::Index;
use std::path::PathBuf;
use std::sync::Arc;

use super::checks::decode_base64;
use super::limits::Limit;
use super::parse::Parser;
use super::{GltfError, LoadStage};

/// The bytes of every buffer, in glTF order: each buffer is the first
/// `byteLength` bytes of a shared source.
#[derive(Debug, Default)]
pub(super) struct Buffers {
    slices: Vec<(Arc<Vec<u8>>, usize)>,
}

impl Buffers {
    /// Buffer `index`, if there is one.
    pub(super) fn get(&self, index: usize) -> Option<&[u8]> {
        self.slices.get(index).map(|(bytes, len)| &bytes[..*len])
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
                Source::Bin => {
                    let bin = blob
                        .as_ref()
                        .ok_or_else(|| self.invalid("GLB buffer without a BIN chunk".into()))?;
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
            self.progress
                .report(LoadStage::Buffers, buffers.slices.len(), total);
        }
        Ok(buffers)
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
