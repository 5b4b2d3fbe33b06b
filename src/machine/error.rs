//! Runtime errors: plain data with the place of the operation that failed.

use crate::diagnostic::Diagnostic;
use crate::syntax::span::Span;
use std::fmt;

/// A runtime error: a message and, where known, the source location of the
/// operation (a primitive, a `match`, an `error` call).
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeError {
    /// What went wrong (`division by zero`, `infinite loop`, `no arm matched`, ...).
    pub message: String,
    /// Where.
    pub span: Option<Span>,
}

impl RuntimeError {
    /// An error at a place.
    pub fn at(message: impl Into<String>, span: Span) -> RuntimeError {
        RuntimeError {
            message: message.into(),
            span: Some(span),
        }
    }

    /// An error without a place.
    pub fn new(message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            message: message.into(),
            span: None,
        }
    }

    /// The error as a diagnostic, for rendering at the command line.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let d = Diagnostic::error(self.message.clone());
        match self.span {
            Some(span) => d.at(span, ""),
            None => d,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// Evaluation results.
pub type Result<T> = std::result::Result<T, RuntimeError>;
