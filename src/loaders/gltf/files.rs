//! Which files a glTF file may make the loader read ([`FileAccess`]), and
//! reading them: URIs resolved and checked before anything is opened, only
//! regular files opened, reads bounded.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::path::{Component, Path, PathBuf};

use super::GltfError;
use super::limits::{Budget, Limit};
use crate::loaders::files::{ReadError, open_regular, read_at_most, read_regular_file};

/// Most symbolic links one URI may pass through (as Linux's `ELOOP`).
const MAX_SYMLINKS: usize = 40;

/// Where the files a glTF names may be.
///
/// A buffer or image `uri` that is not a `data:` URI names a file. It is
/// percent-decoded once (as glTF requires: `%20` is a space; `%2e%2e` is
/// `..` and checked like it) and taken as a path relative to the scene
/// file's folder (the `base_dir` of [`parse_gltf_slice`]). Then, under the
/// default [`FileAccess::SceneFolder`] and under [`FileAccess::Root`]:
/// - absolute paths (and drive or UNC prefixes) are refused without looking
///   at the file system;
/// - `..` may not climb out of the allowed folder: checked on the path as
///   written first (so nothing outside is even looked up), then again as
///   the path is walked;
/// - symbolic links are followed one component at a time, from inside the
///   folder only: a link's target is read (`readlink`) and judged on its
///   text before anything it names is looked up. A target that leaves the
///   folder (an absolute path outside it, or `..` past it, after the links
///   before it) is refused as [`RefusalReason::OutsideRoot`] without being
///   looked up, so the outcome is the same whether it exists or not, and
///   says nothing about paths outside the folder. Links that stay inside
///   are followed (at most 40 per URI). A missing file or folder inside the
///   folder is a [`GltfError::Resource`], as without links. An absolute
///   target is inside only if it starts with the folder's canonical path
///   (links naming the folder by another path are refused);
///
/// and in every mode, [`FileAccess::Unrestricted`] included:
/// - a URI scheme other than `data:` (`file:`, `http:`, ...) is refused;
/// - only regular files are read: devices (`/dev/zero`), FIFOs, sockets and
///   folders are refused from their metadata, before they are opened (a
///   FIFO would block the open), and checked again on the open handle;
/// - at most [`LoadLimits::max_file_bytes`] of an image file, and at most
///   the declared `byteLength` of a buffer file, is read.
///
/// A refusal is [`GltfError::Refused`] naming the URI and the
/// [`RefusalReason`]; nothing was read. It is distinct from a file that is
/// missing or unreadable ([`GltfError::Resource`]), which the loader
/// tolerates for an image ([`MissingImages`]) where a refusal stays an
/// error.
///
/// What remains trusted: the path of the scene file itself (the caller
/// names it; it must still be a regular file), and the file system not
/// changing between the checks and the open (a regular file swapped for a
/// FIFO in between could still block the open).
///
/// [`parse_gltf_slice`]: super::parse_gltf_slice
/// [`LoadLimits::max_file_bytes`]: super::LoadLimits::max_file_bytes
/// [`MissingImages`]: super::MissingImages
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileAccess {
    /// Inside the scene file's folder and its subfolders (the default).
    #[default]
    SceneFolder,
    /// Inside this folder and its subfolders. URIs still resolve from the
    /// scene file's folder: a scene in `root/scenes/` may name
    /// `../textures/wood.png`.
    Root(PathBuf),
    /// Anywhere, absolute paths included: for tools that trust their files.
    /// Non-regular files and URI schemes are still refused.
    Unrestricted,
}

/// Why a URI was refused ([`GltfError::Refused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RefusalReason {
    /// An absolute path (or one with a root, drive or UNC prefix).
    Absolute,
    /// The path leads out of the allowed folder (by `..` or a symbolic
    /// link).
    OutsideRoot,
    /// Not a regular file: a device, FIFO, socket or folder.
    NotRegularFile,
    /// A URI scheme other than `data:`.
    Scheme,
    /// Percent-decoding gives bytes that are not UTF-8, or a NUL.
    Malformed,
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Absolute => "an absolute path",
            Self::OutsideRoot => "leads outside the folder files may be read from",
            Self::NotRegularFile => "not a regular file",
            Self::Scheme => "a URI scheme other than data:",
            Self::Malformed => "malformed after percent-decoding",
        })
    }
}

/// At most 100 characters of a URI, as errors name it.
pub(super) fn uri_for_errors(uri: &str) -> String {
    uri.chars().take(100).collect()
}

/// Reads the scene file the caller named: a regular file of at most
/// [`LoadLimits::max_file_bytes`](super::LoadLimits::max_file_bytes).
pub(super) fn read_scene_file(path: &Path, budget: &Budget) -> Result<Vec<u8>, GltfError> {
    let io = |source| GltfError::Io {
        path: path.to_owned(),
        source,
    };
    match read_regular_file(path, budget.limit(Limit::FileBytes)) {
        Ok(bytes) => Ok(bytes),
        Err(ReadError::Io(source)) => Err(io(source)),
        Err(ReadError::NotRegularFile) => Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ))),
        Err(ReadError::TooLarge { bytes }) => Err(budget
            .check(Limit::FileBytes, bytes)
            .expect_err("a file over the limit fails its check")),
    }
}

/// Decodes `%XX` escapes once (a `%` not followed by two hex digits stays
/// as it is). `None`: the result is not UTF-8 or holds a NUL.
fn percent_decode(uri: &str) -> Option<String> {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| Some(hex(*bytes.get(i + 1)?)? << 4 | hex(*bytes.get(i + 2)?)?))
            .flatten();
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().filter(|s| !s.contains('\0'))
}

/// Whether `uri` starts with an RFC 3986 scheme of two or more characters
/// (one letter followed by `:` is a Windows drive, checked as a path).
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `base` joined with `relative`, `.` and `..` resolved on the text alone.
fn lexical_join(base: &Path, relative: &Path) -> PathBuf {
    let mut out = base.to_path_buf();
    for component in relative.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// One component of a path being walked.
enum Step {
    /// `..`.
    Parent,
    /// A name.
    Name(OsString),
}

/// The `..` and names of `path` (`.`, roots and prefixes dropped: the
/// caller has dealt with those).
fn steps(path: &Path) -> impl Iterator<Item = Step> + '_ {
    path.components().filter_map(|component| match component {
        Component::ParentDir => Some(Step::Parent),
        Component::Normal(name) => Some(Step::Name(name.to_owned())),
        Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
    })
}

/// The files one glTF file may read, under a [`FileAccess`] policy.
pub(super) struct SceneFiles<'p> {
    /// The glTF file (named in errors).
    path: &'p Path,
    /// The folder URIs are relative to (`None`: parsed from memory without
    /// one; external URIs are refused).
    base_dir: Option<&'p Path>,
    access: &'p FileAccess,
    /// `base_dir` and the allowed folder (`None`: unrestricted), both
    /// canonical, once a URI needed them.
    folders: Option<(PathBuf, Option<PathBuf>)>,
}

impl<'p> SceneFiles<'p> {
    pub(super) fn new(path: &'p Path, base_dir: Option<&'p Path>, access: &'p FileAccess) -> Self {
        Self {
            path,
            base_dir,
            access,
            folders: None,
        }
    }

    fn refused(&self, uri: &str, reason: RefusalReason) -> GltfError {
        GltfError::Refused {
            path: self.path.to_owned(),
            uri: uri_for_errors(uri),
            reason,
        }
    }

    fn resource(&self, uri: &str, source: std::io::Error) -> GltfError {
        GltfError::Resource {
            path: self.path.to_owned(),
            uri: uri_for_errors(uri),
            source,
        }
    }

    /// The canonical base folder and allowed folder.
    fn folders(&mut self, uri: &str) -> Result<(PathBuf, Option<PathBuf>), GltfError> {
        if let Some(folders) = &self.folders {
            return Ok(folders.clone());
        }
        let base_dir = self.base_dir.ok_or_else(|| GltfError::Invalid {
            path: self.path.to_owned(),
            message: format!(
                "external URI {uri:?} in a file parsed from memory without a base directory"
            ),
        })?;
        let base_dir = if base_dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            base_dir
        };
        let base = base_dir
            .canonicalize()
            .map_err(|source| self.resource(uri, source))?;
        let root = match self.access {
            FileAccess::SceneFolder => Some(base.clone()),
            FileAccess::Root(root) => {
                Some(root.canonicalize().map_err(|source| GltfError::Io {
                    path: root.clone(),
                    source,
                })?)
            }
            FileAccess::Unrestricted => None,
        };
        Ok(self.folders.insert((base, root)).clone())
    }

    /// The canonical path of the file `uri` names, if the policy allows it
    /// (see [`FileAccess`]). Looks nothing up outside the allowed folder.
    pub(super) fn resolve(&mut self, uri: &str) -> Result<PathBuf, GltfError> {
        if has_scheme(uri) {
            return Err(self.refused(uri, RefusalReason::Scheme));
        }
        let decoded =
            percent_decode(uri).ok_or_else(|| self.refused(uri, RefusalReason::Malformed))?;
        let relative = Path::new(&decoded);
        let (base, root) = self.folders(uri)?;
        if let Some(root) = &root {
            let rooted = relative
                .components()
                .any(|c| matches!(c, Component::RootDir | Component::Prefix(_)));
            if rooted || relative.is_absolute() {
                return Err(self.refused(uri, RefusalReason::Absolute));
            }
            if !lexical_join(&base, relative).starts_with(root) {
                return Err(self.refused(uri, RefusalReason::OutsideRoot));
            }
        }
        match root {
            Some(root) => self.walk_inside(uri, &base, relative, &root),
            None => base
                .join(relative)
                .canonicalize()
                .map_err(|source| self.resource(uri, source)),
        }
    }

    /// `relative` resolved from `base` one component at a time, never
    /// looking anything up outside `root` (both canonical): `..` that
    /// leaves `root`, and a symbolic link whose target leaves it (read with
    /// `readlink`, decided on its text), are refused before anything past
    /// them is looked at. The path kept holds no link and stays inside
    /// `root`, so every `lstat` is of a path inside `root`.
    fn walk_inside(
        &self,
        uri: &str,
        base: &Path,
        relative: &Path,
        root: &Path,
    ) -> Result<PathBuf, GltfError> {
        let outside = || self.refused(uri, RefusalReason::OutsideRoot);
        let mut current = base.to_path_buf();
        let mut pending: VecDeque<Step> = steps(relative).collect();
        let mut links = 0;
        while let Some(step) = pending.pop_front() {
            let name = match step {
                Step::Parent => {
                    current.pop();
                    if !current.starts_with(root) {
                        return Err(outside());
                    }
                    continue;
                }
                Step::Name(name) => name,
            };
            let next = current.join(name);
            let metadata =
                std::fs::symlink_metadata(&next).map_err(|source| self.resource(uri, source))?;
            if !metadata.file_type().is_symlink() {
                current = next;
                continue;
            }
            links += 1;
            if links > MAX_SYMLINKS {
                let loops = std::io::Error::other("too many levels of symbolic links");
                return Err(self.resource(uri, loops));
            }
            let target = std::fs::read_link(&next).map_err(|source| self.resource(uri, source))?;
            let target = if target.is_absolute() || target.has_root() {
                current = root.to_path_buf();
                target
                    .strip_prefix(root)
                    .map_err(|_| outside())?
                    .to_path_buf()
            } else {
                target
            };
            for step in steps(&target).collect::<Vec<_>>().into_iter().rev() {
                pending.push_front(step);
            }
        }
        Ok(current)
    }

    /// Opens the regular file `file` (resolved from `uri`): its handle and
    /// length.
    fn open(&self, uri: &str, file: &Path) -> Result<(File, u64), GltfError> {
        open_regular(file)
            .map_err(|source| self.resource(uri, source))?
            .ok_or_else(|| self.refused(uri, RefusalReason::NotRegularFile))
    }

    /// Reads the buffer file `file` (resolved from `uri`): at most `bytes`
    /// (the longest `byteLength` of the buffers naming it), charged to
    /// [`Limit::BufferBytes`] before reading.
    pub(super) fn read_buffer(
        &self,
        uri: &str,
        file: &Path,
        bytes: u64,
        budget: &mut Budget,
    ) -> Result<Vec<u8>, GltfError> {
        let (handle, length) = self.open(uri, file)?;
        let bytes = bytes.min(length);
        budget.charge(Limit::BufferBytes, bytes)?;
        read_at_most(handle, bytes).map_err(|source| self.resource(uri, source))
    }

    /// Reads the whole file `uri` names (an image), if the policy allows it
    /// and it holds at most [`Limit::FileBytes`].
    pub(super) fn read_whole(&mut self, uri: &str, budget: &Budget) -> Result<Vec<u8>, GltfError> {
        let file = self.resolve(uri)?;
        let (handle, bytes) = self.open(uri, &file)?;
        budget.check(Limit::FileBytes, bytes)?;
        read_at_most(handle, bytes).map_err(|source| self.resource(uri, source))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn uris_are_percent_decoded_once() {
        assert_eq!(super::percent_decode("a%20b.png").unwrap(), "a b.png");
        assert_eq!(super::percent_decode("%2e%2E/x").unwrap(), "../x");
        assert_eq!(super::percent_decode("%252e").unwrap(), "%2e");
        assert_eq!(super::percent_decode("100%.png").unwrap(), "100%.png");
        assert_eq!(super::percent_decode("%e2%82%ac").unwrap(), "\u{20ac}");
        assert!(super::percent_decode("%ff").is_none(), "not UTF-8");
        assert!(super::percent_decode("a%00b").is_none(), "NUL");
    }

    #[test]
    fn schemes_are_told_from_drives_and_paths() {
        assert!(super::has_scheme("file:///etc/passwd"));
        assert!(super::has_scheme("http://example.com/a.png"));
        assert!(!super::has_scheme("C:/a.png"));
        assert!(!super::has_scheme("textures/a.png"));
        assert!(!super::has_scheme("./a:b.png"));
    }

    #[test]
    fn lexical_join_resolves_dots() {
        let base = Path::new("/scenes/a");
        assert_eq!(
            super::lexical_join(base, Path::new("b/../c/./d")),
            Path::new("/scenes/a/c/d")
        );
        assert_eq!(
            super::lexical_join(base, Path::new("../../../x")),
            Path::new("/x")
        );
    }
}
