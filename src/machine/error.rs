//! Runtime errors: plain data with the place of the operation that failed.
//!
//! A [`RuntimeError`] is one pointer wide (its data is boxed), so that the machine's
//! transition results (`Result<Control, RuntimeError>`) fit in two registers: errors
//! are rare, transitions are not. Its fields read as if it were the [`ErrorData`] it
//! points at.

use crate::diagnostic::Diagnostic;
use crate::syntax::span::Span;
use std::fmt;

/// What a runtime error says.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorData {
    /// What went wrong (`division by zero`, `infinite loop`, `no arm matched`, ...).
    pub message: String,
    /// Where.
    pub span: Option<Span>,
}

/// A runtime error: a message and, where known, the source location of the
/// operation (a primitive, a `match`, an `error` call).
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeError(Box<ErrorData>);

impl std::ops::Deref for RuntimeError {
    type Target = ErrorData;
    fn deref(&self) -> &ErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for RuntimeError {
    fn deref_mut(&mut self) -> &mut ErrorData {
        &mut self.0
    }
}

impl RuntimeError {
    /// An error at a place.
    pub fn at(message: impl Into<String>, span: Span) -> RuntimeError {
        RuntimeError(Box::new(ErrorData {
            message: message.into(),
            span: Some(span),
        }))
    }

    /// An error without a place.
    pub fn new(message: impl Into<String>) -> RuntimeError {
        RuntimeError(Box::new(ErrorData {
            message: message.into(),
            span: None,
        }))
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
