//! Checking a document again after a change, re-checking only what the change can
//! affect: the checker keeps, per group of mutually recursive definitions, its results
//! under a key made of the group's text and its dependencies' keys, and reuses them
//! when the key comes again (see [`crate::check::reuse`] for the scheme and why it is
//! sound). The statistics of the last check are what `spindle/stats` answers.

use super::analysis::Analysis;
use crate::check::record;
use crate::driver::{CheckedDocument, FileSnapshot};
use std::path::{Path, PathBuf};

pub use crate::check::reuse::{Cache, Stats};

/// Checks `text` (the document `name` at `path`), reusing what `cache` allows, and
/// leaves in `cache` what the next check may reuse. An import of a file in `open`
/// (the editor's open files, by canonical path) reads the editor's text of it.
pub fn check(
    cache: &mut Cache,
    name: &str,
    path: Option<&Path>,
    text: &str,
    open: &FileSnapshot,
) -> (Analysis, Stats) {
    // The document is the first file of its check.
    record::start(Some(crate::syntax::span::FileId(0)));
    let (checked, kept, stats) =
        crate::driver::check_document_reusing(name, path, text, open, std::mem::take(cache));
    let recording = record::take();
    *cache = kept;
    let decls = super::analysis::parse_decls(checked.file, text);
    let imported = imported_files(&checked);
    (
        Analysis {
            checked,
            recording,
            decls,
            imported,
        },
        stats,
    )
}

/// The canonical paths of the files a check read for the document's imports (direct
/// or not).
fn imported_files(checked: &CheckedDocument) -> Vec<PathBuf> {
    checked
        .loaded
        .sources
        .files()
        .filter(|(id, _)| *id != checked.file)
        .filter_map(|(_, f)| f.path.as_ref()?.canonicalize().ok())
        .collect()
}
