//! Reading a file named by untrusted input, shared by the glTF loader
//! (`src/loaders/gltf/files.rs`, which also decides which files a scene
//! may name) and the environment's `.hdr` files
//! ([`crate::lighting::EquirectImage::open_hdr`]): only regular files are
//! opened, their size is known and checked before anything is read, and a
//! read never goes past it.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why [`read_regular_file`] read nothing.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The file could not be looked up, opened or read.
    Io(std::io::Error),
    /// A device (`/dev/zero`), FIFO, socket or folder: refused from its
    /// metadata before it was opened (opening a FIFO would block).
    NotRegularFile,
    /// Longer than allowed: `bytes`, from its metadata.
    TooLarge {
        /// The file's length.
        bytes: u64,
    },
}

/// Opens `path` if it is a regular file: its type is checked before the
/// open (which would block on a FIFO) and again on the handle. `None`: not
/// a regular file.
pub(crate) fn open_regular(path: &Path) -> std::io::Result<Option<(File, u64)>> {
    if !std::fs::metadata(path)?.is_file() {
        return Ok(None);
    }
    let file = File::open(path)?;
    let metadata = file.metadata()?;
    Ok(metadata.is_file().then_some((file, metadata.len())))
}

/// Reads at most `bytes` bytes of `file`.
pub(crate) fn read_at_most(file: File, bytes: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(usize::try_from(bytes).unwrap_or(usize::MAX));
    file.take(bytes).read_to_end(&mut out)?;
    Ok(out)
}

/// Reads the whole of `path` if it is a regular file of at most
/// `max_bytes`, checked from its metadata before reading.
pub(crate) fn read_regular_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, ReadError> {
    let (file, bytes) = open_regular(path)
        .map_err(ReadError::Io)?
        .ok_or(ReadError::NotRegularFile)?;
    if bytes > max_bytes {
        return Err(ReadError::TooLarge { bytes });
    }
    read_at_most(file, bytes).map_err(ReadError::Io)
}
