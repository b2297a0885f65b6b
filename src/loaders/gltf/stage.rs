//! One file's CPU stage, as the parts of the loader that read it share it:
//! the file's path (for errors), what it may read ([`SceneFiles`]) and
//! allocate ([`Budget`]), what becomes of unusable images, and the progress
//! callback. Each part of the parse adds its own methods to [`Parser`]
//! (`buffers.rs`, `images.rs`, `meshopt.rs`, `parse.rs`, ...), and this
//! module imports none of them.

use std::path::Path;

use super::files::SceneFiles;
use super::limits::Budget;
use super::{GltfError, MissingImages, ParseOptions, Progress};

/// One file's CPU stage: what it may read and allocate, and its progress.
pub(super) struct Parser<'p, 'a, 'b> {
    pub(super) path: &'p Path,
    pub(super) files: SceneFiles<'p>,
    pub(super) budget: Budget,
    pub(super) missing_images: MissingImages,
    pub(super) progress: &'p mut Progress<'a, 'b>,
}

impl<'p, 'a, 'b> Parser<'p, 'a, 'b> {
    pub(super) fn new(
        path: &'p Path,
        base_dir: Option<&'p Path>,
        options: &'p ParseOptions,
        progress: &'p mut Progress<'a, 'b>,
    ) -> Self {
        Self {
            path,
            files: SceneFiles::new(path, base_dir, &options.file_access),
            budget: Budget::new(options.limits, path.to_owned()),
            missing_images: options.missing_images,
            progress,
        }
    }

    /// The file's [`GltfError::Invalid`] with `message`.
    pub(super) fn invalid(&self, message: String) -> GltfError {
        GltfError::Invalid {
            path: self.path.to_owned(),
            message,
        }
    }
}
