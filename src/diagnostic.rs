//! Diagnostics as plain data, rendered once at the edge.
//!
//! Every pass (lexer, parser, resolver, checker, machine) reports problems as
//! [`Diagnostic`] values: a severity, a message, labelled spans and notes. Nothing below
//! the command line prints anything; `render` turns diagnostics into the text users see,
//! with `codespan-reporting`, so that every error starts with `error`, names
//! `FILE:LINE:COLUMN` and shows the source line.

use crate::syntax::span::{FileId, SourceMap, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term;
use std::ops::Range;

/// How bad a diagnostic is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Stops the program: exit status 1.
    Error,
    /// Reported, but the program still checks and runs.
    Warning,
}

/// A span with a short message attached; the primary label marks the place itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there (may be empty).
    pub message: String,
    /// The place the diagnostic is about (shown as `FILE:LINE:COLUMN`), as opposed to
    /// a secondary place that explains it.
    pub primary: bool,
}

/// One problem found in a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The headline, without the `error:` prefix.
    pub message: String,
    /// Places in the source; the first primary one names the location.
    pub labels: Vec<Label>,
    /// Extra lines (`help: did you mean ...`, `expected: ...`).
    pub notes: Vec<String>,
    /// What kind of problem it is, where a later pass acts on the kind (adds a hint,
    /// shows it again): never decided from the headline's text.
    pub kind: DiagnosticKind,
}

/// The kinds of diagnostic that something besides the reader acts on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// Any other problem.
    #[default]
    General,
    /// A `match` does not cover every case (`spindle run` shows these before it runs).
    MissingCase,
    /// A value where a type was expected (`(x : xs)`, written for a list cell).
    NotAType,
    /// Evaluating a type failed or ran past the type-level step limit (reported once
    /// per type and failure, whichever comparison met it first).
    TypeEvaluation,
}

impl Diagnostic {
    /// An error with a headline and no places yet.
    pub fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            kind: DiagnosticKind::General,
        }
    }

    /// The diagnostic, of kind `kind`.
    pub fn kind(mut self, kind: DiagnosticKind) -> Diagnostic {
        self.kind = kind;
        self
    }

    /// A warning with a headline and no places yet.
    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }

    /// Adds the primary place.
    pub fn at(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    /// Adds a secondary place.
    pub fn also(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    /// Adds a note line.
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// The primary span, if any.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    /// Whether this stops the program.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Adapts a [`SourceMap`] to `codespan-reporting`'s view of files.
struct MapFiles<'a>(&'a SourceMap);

impl<'a> Files<'a> for MapFiles<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(&self.0.get(id).name)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(&self.0.get(id).text)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, FilesError> {
        Ok(self.0.get(id).line_col(byte_index as u32).0 - 1)
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, FilesError> {
        let text = &self.0.get(id).text;
        let mut start = 0usize;
        for _ in 0..line_index {
            match text[start..].find('\n') {
                Some(i) => start += i + 1,
                None => {
                    return Err(FilesError::LineTooLarge {
                        given: line_index,
                        max: line_index,
                    });
                }
            }
        }
        let end = text[start..]
            .find('\n')
            .map(|i| start + i + 1)
            .unwrap_or(text.len());
        Ok(start..end)
    }
}

/// Longest source line shown in a snippet; longer lines (a 10 MB line of bad input)
/// are reported by location only, so an error message stays readable.
const MAX_SNIPPET_LINE: usize = 400;

/// Renders diagnostics as plain text (no colour), the form users see on standard error.
pub fn render(map: &SourceMap, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&render_one(map, d));
    }
    out
}

fn render_one(map: &SourceMap, d: &Diagnostic) -> String {
    let files = MapFiles(map);
    let snippet_ok = d.labels.iter().all(|l| {
        let file = &map.get(l.span.file).text;
        let start = (l.span.start as usize).min(file.len());
        let line_start = file[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line_end = file[start..]
            .find('\n')
            .map(|i| start + i)
            .unwrap_or(file.len());
        line_end - line_start <= MAX_SNIPPET_LINE && (l.span.end as usize) <= file.len()
    });
    let mut notes = d.notes.clone();
    let mut labels = Vec::new();
    if snippet_ok {
        for l in &d.labels {
            let range = l.span.start as usize..l.span.end as usize;
            let label = if l.primary {
                cs::Label::primary(l.span.file, range)
            } else {
                cs::Label::secondary(l.span.file, range)
            };
            labels.push(label.with_message(l.message.clone()));
        }
    }
    let mut message = d.message.clone();
    if let Some(span) = d.primary_span() {
        // The location always appears in the headline so a reader (or a script) finds
        // `FILE:LINE:COLUMN` even when the snippet is omitted.
        message = format!("{}: {}", map.location(span), message);
    }
    // Every secondary place is also named as `FILE:LINE:COLUMN`, so both places of a
    // duplicate definition can be found without reading the snippet.
    for l in d.labels.iter().filter(|l| !l.primary) {
        notes.push(format!("{}: {}", map.location(l.span), l.message));
    }
    let diag = match d.severity {
        Severity::Error => cs::Diagnostic::error(),
        Severity::Warning => cs::Diagnostic::warning(),
    }
    .with_message(message)
    .with_labels(labels)
    .with_notes(notes);
    let mut buf = term::termcolor::NoColor::new(Vec::new());
    let config = term::Config::default();
    if term::emit_to_write_style(&mut buf, &config, &files, &diag).is_err() {
        return format!("error: {}\n", d.message);
    }
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_names_file_line_column_and_shows_the_line() {
        let mut map = SourceMap::new();
        let id = map.add("bad.sp", None, "def main =\n  (1 + \n".to_string());
        let d = Diagnostic::error("unclosed parenthesis").at(Span::new(id, 13, 14), "opened here");
        let text = render(&map, &[d]);
        assert!(text.starts_with("error"), "{text}");
        assert!(text.contains("bad.sp:2:3"), "{text}");
        assert!(text.contains("(1 +"), "{text}");
    }

    #[test]
    fn very_long_lines_are_not_echoed() {
        let mut map = SourceMap::new();
        let long = "x".repeat(100_000);
        let id = map.add("long.sp", None, long);
        let d = Diagnostic::error("bad").at(Span::new(id, 5, 6), "");
        let text = render(&map, &[d]);
        assert!(text.contains("long.sp:1:6"));
        assert!(text.len() < 1000);
    }
}
