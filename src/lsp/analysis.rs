//! One check of a document and what the queries need from it: the diagnostics (as
//! `spindle check` reports them), the elaborated program (kept even with errors), what
//! the checker recorded of each place ([`crate::check::record`]), and the document's
//! top-level declarations as parsed.

use crate::check::record::Recording;
use crate::diagnostic::{Diagnostic, Severity};
use crate::driver::CheckedDocument;
use crate::syntax::ast::{DataKind, Decl, DefRole};
use crate::syntax::span::{FileId, Span};

/// A top-level declaration of the document, for document symbols and the
/// incremental check.
#[derive(Clone, Debug)]
pub struct DeclInfo {
    /// Its name.
    pub name: String,
    /// What it is.
    pub kind: DeclKind,
    /// The whole declaration.
    pub span: Span,
    /// Its name's place.
    pub name_span: Span,
    /// Its constructors (a `data`) or fields (a `record`), with their places.
    pub children: Vec<(String, Span)>,
}

/// The kinds of top-level declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclKind {
    /// A `def` (or `total def`).
    Def,
    /// An `instance`.
    Instance,
    /// A `data` type.
    Data,
    /// A `record`.
    Record,
    /// An `interface`.
    Interface,
    /// An `extern`.
    Extern,
}

/// A document checked.
pub struct Analysis {
    /// The check, as `spindle check` makes it.
    pub checked: CheckedDocument,
    /// What the checker recorded of each place.
    pub recording: Recording,
    /// The document's top-level declarations (empty if it does not parse).
    pub decls: Vec<DeclInfo>,
    /// The canonical paths of the files the check read for the document's imports
    /// (direct or not): when one of them, open in the editor, changes, the document
    /// is checked again.
    pub imported: Vec<std::path::PathBuf>,
}

impl Analysis {
    /// The document's file id.
    pub fn file(&self) -> FileId {
        self.checked.file
    }

    /// The diagnostics whose place is in the document (or that have no place), in the
    /// order `spindle check` prints them; a problem in an imported file is shown at
    /// the document's first line, where the editor can show it.
    pub fn diagnostics(&self) -> impl Iterator<Item = (&Diagnostic, Option<Span>)> {
        let file = self.file();
        self.checked
            .loaded
            .diagnostics
            .iter()
            .map(move |d| match d.primary_span() {
                Some(s) if s.file == file => (d, Some(s)),
                _ => (d, None),
            })
    }
}

/// The text an editor shows for a diagnostic: its headline, then its notes, one per
/// line, as `spindle check` prints them under the snippet (`= note`).
pub fn diagnostic_text(d: &Diagnostic) -> String {
    let mut text = d.message.clone();
    for note in &d.notes {
        text.push('\n');
        text.push_str(note);
    }
    text
}

/// Whether a diagnostic is an error.
pub fn is_error(d: &Diagnostic) -> bool {
    d.severity == Severity::Error
}

/// The top-level declarations of `text`, parsed again (parsing costs little next to
/// checking) so that symbols are there even when the check fails.
pub fn parse_decls(file: FileId, text: &str) -> Vec<DeclInfo> {
    let arena = bumpalo::Bump::new();
    let (module, _) = crate::syntax::parser::parse_module(&arena, file, text);
    let mut out = Vec::new();
    for decl in module.decls {
        match decl {
            Decl::Import { .. } => {}
            Decl::Def {
                role, name, span, ..
            } => {
                let kind = match role {
                    DefRole::Plain | DefRole::Total => DeclKind::Def,
                    DefRole::Instance => DeclKind::Instance,
                    // Written by `deriving` or an interface: part of another declaration.
                    DefRole::Derived | DefRole::Method => continue,
                };
                out.push(DeclInfo {
                    name: name.name.to_string(),
                    kind,
                    span: *span,
                    name_span: name.span,
                    children: Vec::new(),
                });
            }
            Decl::Data {
                kind,
                name,
                ctors,
                span,
                ..
            } => {
                let children = match kind {
                    DataKind::Data => ctors
                        .iter()
                        .map(|c| (c.name.name.to_string(), c.span))
                        .collect(),
                    _ => ctors
                        .iter()
                        .flat_map(|c| c.field_names.iter())
                        .map(|f| (f.name.to_string(), f.span))
                        .collect(),
                };
                out.push(DeclInfo {
                    name: name.name.to_string(),
                    kind: match kind {
                        DataKind::Data => DeclKind::Data,
                        DataKind::Record => DeclKind::Record,
                        DataKind::Interface => DeclKind::Interface,
                    },
                    span: *span,
                    name_span: name.span,
                    children,
                });
            }
            Decl::Extern { name, span, .. } => out.push(DeclInfo {
                name: name.name.to_string(),
                kind: DeclKind::Extern,
                span: *span,
                name_span: name.span,
                children: Vec::new(),
            }),
        }
    }
    out
}
