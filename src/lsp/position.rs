//! Positions as an editor counts them and as the checker does.
//!
//! LSP positions are (line, character) with characters counted in UTF-16 code units;
//! the checker's spans are byte offsets into UTF-8 text. [`LineIndex`] converts both
//! ways for one text, in time proportional to one line, and never fails: a position
//! past the end of a line or of the text is clamped to it, as the protocol asks.

use lsp_types::{Position, Range};

/// The line starts of one text, for converting positions.
pub struct LineIndex {
    /// Byte offset of the start of each line.
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The byte offset in `text` of an LSP position (clamped to the text).
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let line = pos.line as usize;
        let Some(&start) = self.starts.get(line) else {
            return text.len();
        };
        let end = self
            .starts
            .get(line + 1)
            .map(|e| e - 1)
            .unwrap_or(text.len())
            .min(text.len());
        let line_text = text.get(start..end).unwrap_or("");
        let mut units = 0u32;
        for (i, c) in line_text.char_indices() {
            if units >= pos.character {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        end
    }

    /// The LSP position of a byte offset in `text` (clamped to the text; an offset
    /// inside a character counts as the character's start).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let character = text[start..offset]
            .chars()
            .map(|c| c.len_utf16() as u32)
            .sum();
        Position {
            line: line as u32,
            character,
        }
    }

    /// The LSP range of the byte range `start..end` of `text`.
    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range {
            start: self.position(text, start),
            end: self.position(text, end.max(start)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_round_trip() {
        let text = "def a = \"é𝄞x\"\nline two\n";
        let ix = LineIndex::new(text);
        let x = text.find('x').unwrap();
        let p = ix.position(text, x);
        // `é` is one UTF-16 unit, `𝄞` two.
        assert_eq!(
            p,
            Position {
                line: 0,
                character: 12
            }
        );
        assert_eq!(ix.offset(text, p), x);
        let two = text.find("two").unwrap();
        assert_eq!(
            ix.offset(
                text,
                Position {
                    line: 1,
                    character: 5
                }
            ),
            two
        );
        // Past the end of a line or of the text: clamped.
        assert_eq!(
            ix.offset(
                text,
                Position {
                    line: 1,
                    character: 99
                }
            ),
            text.len() - 1
        );
        assert_eq!(
            ix.offset(
                text,
                Position {
                    line: 9,
                    character: 0
                }
            ),
            text.len()
        );
        assert_eq!(
            ix.position(text, 10_000),
            Position {
                line: 2,
                character: 0
            }
        );
    }
}
