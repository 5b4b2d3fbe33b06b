//! A notebook cell as REPL inputs, and the checks of a cell that need no session.
//!
//! A cell is read exactly as the REPL reads piped lines: an input goes on while it is
//! unfinished or the next line is indented ([`crate::repl::continues`]), so a cell may
//! hold several declarations and expressions, multi-line ones included, and each is
//! one REPL input.

use crate::repl::{self, Command};
use crate::syntax::parser;
use crate::syntax::span::FileId;
use bumpalo::Bump;

/// The REPL inputs a cell holds, in order (blank lines between them dropped).
pub fn inputs(cell: &str) -> Vec<String> {
    placed_inputs(cell)
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

/// The REPL inputs a cell holds, each with the index of the cell line it starts on.
pub fn placed_inputs(cell: &str) -> Vec<(usize, String)> {
    let mut inputs = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in cell.lines().enumerate() {
        match &mut pending {
            Some((_, p)) if repl::continues(p, line) => {
                p.push('\n');
                p.push_str(line);
            }
            _ => {
                if let Some(p) = pending.take() {
                    inputs.push(p);
                }
                if !line.trim().is_empty() {
                    pending = Some((i, line.to_string()));
                }
            }
        }
    }
    inputs.extend(pending);
    inputs
}

/// An input as the session is to read it: after as many empty lines as cell lines
/// come before it, so that the places in its errors are the cell's lines.
pub fn in_place(line: usize, input: &str) -> String {
    format!("{}{input}", "\n".repeat(line))
}

/// What a cell is, for `is_complete_request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completeness {
    /// Ready to run.
    Complete,
    /// Its last input is unfinished: the frontend should take another line.
    Incomplete,
    /// An input is neither whole nor the start of one (running it is an error).
    Invalid,
}

impl Completeness {
    /// The protocol's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Completeness::Complete => "complete",
            Completeness::Incomplete => "incomplete",
            Completeness::Invalid => "invalid",
        }
    }
}

/// Whether a cell is complete, unfinished or invalid, from the parser alone.
pub fn completeness(cell: &str) -> Completeness {
    let inputs = inputs(cell);
    let last = inputs.len().saturating_sub(1);
    for (i, input) in inputs.iter().enumerate() {
        let text = match repl::parse_command(input) {
            Command::Bad(_) => return Completeness::Invalid,
            Command::Input(text)
            | Command::Type(text)
            | Command::Print(text)
            | Command::Stack(text) => text,
            _ => continue,
        };
        // Comment lines only: nothing to run.
        if text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with("--"))
        {
            continue;
        }
        let arena = Bump::new();
        match parser::parse_repl_input(&arena, FileId(0), &text) {
            Ok(_) => {}
            Err(failure) if failure.unfinished && i == last => return Completeness::Incomplete,
            Err(_) => return Completeness::Invalid,
        }
    }
    Completeness::Complete
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_splits_into_inputs_as_piped_lines_do() {
        let cell = "data Color = Red\n  | Green\n\ndef x = 1\nf (y : Int) : Int =\n  y + x\n:type f\nf 2\n";
        assert_eq!(
            inputs(cell),
            vec![
                "data Color = Red\n  | Green",
                "def x = 1",
                "f (y : Int) : Int =\n  y + x",
                ":type f",
                "f 2",
            ]
        );
        assert_eq!(inputs("(1 +\n2)"), vec!["(1 +\n2)"]);
        assert!(inputs("\n  \n").is_empty());
        assert_eq!(
            placed_inputs("def x = 1\n\nx +\n  1"),
            vec![(0, "def x = 1".to_string()), (2, "x +\n  1".to_string())]
        );
    }

    #[test]
    fn completeness_of_cells() {
        for cell in ["1 + 2", "def x = 1\nx", ":doc map", "-- a note", ""] {
            assert_eq!(completeness(cell), Completeness::Complete, "{cell:?}");
        }
        for cell in ["(1 +", "def x = 1\nlet y = 2", "def f (x : Int) : Int ="] {
            assert_eq!(completeness(cell), Completeness::Incomplete, "{cell:?}");
        }
        for cell in ["1 )", ":frob", "def x = 1\n) + 2"] {
            assert_eq!(completeness(cell), Completeness::Invalid, "{cell:?}");
        }
    }
}
