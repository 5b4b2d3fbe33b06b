//! Doc comments: the `--` line comments directly above a declaration document it.
//!
//! ```text
//! -- `range a b` is [a, a + 1, ..., b - 1].
//! def range (a : Int) (b : Int) : List Int = ...
//! ```
//!
//! The comment lines must come right above the line the declaration starts on, with
//! no blank line between; a comment separated by a blank line (a section heading) is
//! not documentation. The text is found in the source when it is asked for, from the
//! place of the declaration, so documentation costs nothing to parse or check, is not
//! part of the checked program, and never changes a program's content hash or its
//! protobuf encoding.

use crate::syntax::span::{SourceMap, Span};

/// The documentation of the declaration written at byte `offset` of `text` (any
/// offset on the declaration's first line: its keyword or its name): the `--` comment
/// lines directly above that line, each without its `--` and one space after it, joined
/// with newlines. `None` when there are none (or only empty comment lines).
pub fn doc_comment(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let before = text.get(..offset)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let above = &text[..line_start];
    let mut lines: Vec<&str> = Vec::new();
    for line in above.lines().rev() {
        let Some(comment) = line.trim_start().strip_prefix("--") else {
            break;
        };
        let comment = comment.strip_prefix(' ').unwrap_or(comment);
        lines.push(comment.trim_end());
    }
    lines.reverse();
    // Leading and trailing empty comment lines are layout, not text.
    let first = lines.iter().position(|l| !l.is_empty())?;
    let last = lines.iter().rposition(|l| !l.is_empty())?;
    Some(lines[first..=last].join("\n"))
}

/// The documentation of the declaration whose name (or keyword) is at `span`, read
/// from the source in `sources` ([`doc_comment`]); `None` when the span's file is not
/// among them or the declaration has no doc comment.
pub fn doc_at(sources: &SourceMap, span: Span) -> Option<String> {
    let (_, file) = sources.files().nth(span.file.0 as usize)?;
    doc_comment(&file.text, span.start as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_of_line(text: &str, marker: &str) -> Option<String> {
        doc_comment(text, text.find(marker).expect("marker"))
    }

    #[test]
    fn comment_lines_directly_above_are_the_documentation() {
        let text = "-- Section heading.\n\n-- Adds one.\n-- Second line.\ndef inc x = x + 1\n";
        assert_eq!(
            doc_of_line(text, "inc"),
            Some("Adds one.\nSecond line.".to_string())
        );
        assert_eq!(
            doc_of_line(text, "def"),
            Some("Adds one.\nSecond line.".to_string())
        );
    }

    #[test]
    fn a_blank_line_or_code_in_between_ends_the_documentation() {
        let text = "-- Not this.\n\ndef a = 1\ndef b = 2 -- trailing\ndef c = 3\n";
        assert_eq!(doc_of_line(text, "def a"), None);
        assert_eq!(doc_of_line(text, "def b"), None);
        assert_eq!(doc_of_line(text, "def c"), None);
        assert_eq!(doc_of_line("def first = 1", "first"), None);
    }

    #[test]
    fn layout_of_the_comment_is_cleaned() {
        let text = "--\n--   indented stays\n--no space\n--\r\ndata T = A\n";
        assert_eq!(
            doc_of_line(text, "T"),
            Some("  indented stays\nno space".to_string())
        );
        assert_eq!(doc_of_line("--\n--\ndef x = 1", "x"), None);
        // Offsets out of range or inside a character are no documentation, not a panic.
        assert_eq!(doc_comment("-- é\ndef x = 1", 100), Some("é".to_string()));
        assert_eq!(doc_comment("-- é\ndef x = 1", 4), None);
    }
}
