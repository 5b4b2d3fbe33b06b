//! Source files and byte spans.
//!
//! Every surface node and every diagnostic refers to source text through a [`Span`]: a
//! file id plus a half-open byte range. Line and column numbers are computed only when a
//! diagnostic is rendered, from the [`SourceMap`] that owns the text.

use std::fmt;
use std::path::PathBuf;

/// Identifies one loaded source file in a [`SourceMap`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one source file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the range points into.
    pub file: FileId,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` in `file`.
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span { file, start, end }
    }

    /// The smallest span covering both `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// An empty span at the start of `self`.
    pub fn first_point(self) -> Span {
        Span {
            end: self.start,
            ..self
        }
    }
}

/// One loaded source file: its display name, the path it was read from (if any, for
/// resolving `import`s relative to it), its text and the byte offsets of its lines.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (`runtime_error.sp`, `<repl>`, `<prelude>/list.sp`).
    pub name: String,
    /// The file's path on disk, when it came from disk.
    pub path: Option<PathBuf>,
    /// The text. Invalid UTF-8 never gets here: reading reports it as an error.
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// The 1-based line and column (in Unicode scalar values) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map(|s| s.chars().count())
            .unwrap_or(end - start);
        (line + 1, col + 1)
    }
}

/// All source files of one session (a run, a check or a REPL), indexed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, path: Option<PathBuf>, text: String) -> FileId {
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile {
            name: name.into(),
            path,
            text,
            line_starts,
        });
        id
    }

    /// The file with this id.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Every file, in the order added.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// `FILE:LINE:COLUMN` for the start of a span, as used in error messages.
    pub fn location(&self, span: Span) -> Location<'_> {
        let file = self.get(span.file);
        let (line, col) = file.line_col(span.start);
        Location {
            file: &file.name,
            line,
            col,
        }
    }
}

/// A printable `FILE:LINE:COLUMN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location<'a> {
    /// The file's display name.
    pub file: &'a str,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in Unicode scalar values.
    pub col: usize,
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Source files can be larger than `u32::MAX` bytes only in theory; we refuse them.
pub const MAX_SOURCE_BYTES: usize = u32::MAX as usize - 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_scalar_values() {
        let mut map = SourceMap::new();
        let id = map.add("t.sp", None, "ab\nhé x\n".to_string());
        // 'x' is at byte 7 (h=4, é=5..7, space=7? no: "hé x" = h(3) é(4,5) ' '(6) x(7))
        let loc = map.location(Span::new(id, 7, 8));
        assert_eq!((loc.line, loc.col), (2, 4));
        assert_eq!(map.location(Span::new(id, 0, 1)).to_string(), "t.sp:1:1");
        // End of file is a valid location too.
        let end = map.get(id).text.len() as u32;
        assert_eq!(map.location(Span::new(id, end, end)).line, 3);
    }
}
