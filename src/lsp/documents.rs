//! The documents an editor has open: their text as the editor has it (which may
//! differ from the file on disk), kept up to date from `didOpen` and `didChange`.

use super::position::LineIndex;
use lsp_types::{TextDocumentContentChangeEvent, Uri};
use std::collections::HashMap;
use std::path::PathBuf;

/// One open document.
pub struct Document {
    /// Its text now.
    pub text: String,
    /// The editor's version of it.
    pub version: i32,
    /// Its line starts.
    pub lines: LineIndex,
}

impl Document {
    /// A document with `text`.
    pub fn new(text: String, version: i32) -> Document {
        let lines = LineIndex::new(&text);
        Document {
            text,
            version,
            lines,
        }
    }

    /// Applies an editor's changes in order: a change with a range replaces that
    /// range, one without replaces the whole text.
    pub fn apply(&mut self, changes: Vec<TextDocumentContentChangeEvent>, version: i32) {
        for change in changes {
            match change.range {
                Some(range) => {
                    let start = self.lines.offset(&self.text, range.start);
                    let end = self.lines.offset(&self.text, range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
                None => self.text = change.text,
            }
            self.lines = LineIndex::new(&self.text);
        }
        self.version = version;
    }
}

/// The open documents, by URI.
#[derive(Default)]
pub struct Store {
    docs: HashMap<String, Document>,
}

impl Store {
    /// Opens (or reopens) a document.
    pub fn open(&mut self, uri: &Uri, text: String, version: i32) {
        self.docs
            .insert(uri.as_str().to_string(), Document::new(text, version));
    }

    /// The document at `uri`, if open.
    pub fn get(&self, uri: &Uri) -> Option<&Document> {
        self.docs.get(uri.as_str())
    }

    /// The document at `uri`, if open, to change.
    pub fn get_mut(&mut self, uri: &Uri) -> Option<&mut Document> {
        self.docs.get_mut(uri.as_str())
    }

    /// Closes a document.
    pub fn close(&mut self, uri: &Uri) {
        self.docs.remove(uri.as_str());
    }

    /// The text of every open document that is a file on disk, by the file's
    /// canonical path: what a check reads for an import of one of them instead of
    /// the file (whose text may be older than the editor's).
    pub fn open_files(&self) -> crate::driver::FileSnapshot {
        self.docs
            .iter()
            .filter_map(|(uri, doc)| {
                let uri: Uri = uri.parse().ok()?;
                let path = uri_to_path(&uri)?.canonicalize().ok()?;
                Some((path, doc.text.clone()))
            })
            .collect()
    }
}

/// The file a `file:` URI names (percent escapes decoded); `None` for other schemes.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///path` or `file://localhost/path`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = rest.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(h, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok().map(PathBuf::from)
}

/// The `file:` URI of a path (characters outside the unreserved set and `/`
/// percent-escaped).
pub fn path_to_uri(path: &std::path::Path) -> Option<Uri> {
    let absolute = std::path::absolute(path).ok()?;
    let mut s = String::from("file://");
    for b in absolute.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_and_paths() {
        let uri: Uri = "file:///tmp/a%20b/c.sp".parse().unwrap();
        assert_eq!(uri_to_path(&uri), Some(PathBuf::from("/tmp/a b/c.sp")));
        let back = path_to_uri(std::path::Path::new("/tmp/a b/c.sp")).unwrap();
        assert_eq!(back.as_str(), "file:///tmp/a%20b/c.sp");
        let other: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(uri_to_path(&other), None);
    }
}
