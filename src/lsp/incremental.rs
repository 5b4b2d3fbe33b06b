//! Checking a document again after a change, re-checking only what the change can
//! affect: the checker keeps, per group of mutually recursive definitions, its results
//! under a key made of the group's text and its dependencies' keys, and reuses them
//! when the key comes again (see [`crate::check::reuse`] for the scheme and why it is
//! sound). The statistics of the last check are what `spindle/stats` answers.

use super::analysis::Analysis;
use crate::check::record;
use std::path::Path;

pub use crate::check::reuse::{Cache, Stats};

/// Checks `text` (the document `name` at `path`), reusing what `cache` allows, and
/// leaves in `cache` what the next check may reuse.
pub fn check(cache: &mut Cache, name: &str, path: Option<&Path>, text: &str) -> (Analysis, Stats) {
    // The document is the first file of its check.
    record::start(Some(crate::syntax::span::FileId(0)));
    let (checked, kept, stats) =
        crate::driver::check_document_reusing(name, path, text, std::mem::take(cache));
    let recording = record::take();
    *cache = kept;
    let decls = super::analysis::parse_decls(checked.file, text);
    (
        Analysis {
            checked,
            recording,
            decls,
        },
        stats,
    )
}
