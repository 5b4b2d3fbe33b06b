//! Runtime errors: plain data with the place of the operation that failed.
//!
//! A [`RuntimeError`] is one pointer wide (its data is boxed), so that the machine's
//! transition results (`Result<Control, RuntimeError>`) fit in two registers: errors
//! are rare, transitions are not. Its fields read as if it were the [`ErrorData`] it
//! points at.

use crate::diagnostic::Diagnostic;
use crate::syntax::span::Span;
use std::fmt;

/// What kind of error: what code that handles errors decides by (never the message's
/// text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The program said so (`error "..."`).
    User,
    /// No arm of a `match` covers the value.
    MatchFailure,
    /// `/` or `%` by zero.
    DivisionByZero,
    /// A result does not fit (an `Int` overflow, a `Float` out of `Int`'s range).
    Overflow,
    /// A primitive met a value it does not take (`++` on a number, comparing
    /// functions, a prelude definition it needs is missing).
    BadValue,
    /// An external call failed.
    External,
    /// An `effect` call that did not start because an earlier failure decided the run.
    NotStarted,
    /// `--plan` did not make the call.
    Planned,
    /// Evaluation met an unknown where it needed a value (an open variable in a type,
    /// a neutral head applied): not an error of the program, only of evaluating open
    /// terms.
    Stuck,
    /// A value needed itself.
    InfiniteLoop,
    /// `--max-memory` was passed.
    OutOfMemory,
    /// Ctrl-C, or the REPL's interrupt.
    Interrupted,
    /// The evaluation's step limit was reached.
    StepLimit,
    /// The evaluation stopped after the steps it was asked to take (a paused state,
    /// to be read back and resumed).
    Paused,
    /// The evaluation was dropped before it ended (a parallel run's other fibers).
    Abandoned,
    /// A bug in Spindle.
    Internal,
}

impl ErrorKind {
    /// Whether an error of this kind is the program's own (it waits, like the
    /// sequential run, for the work that comes before it to end, which may fail
    /// first), rather than one that stops the evaluation at once (an interrupt, a
    /// limit, a pause, a bug).
    pub fn orders_after_futures(self) -> bool {
        !matches!(
            self,
            ErrorKind::OutOfMemory
                | ErrorKind::Interrupted
                | ErrorKind::StepLimit
                | ErrorKind::Paused
                | ErrorKind::Abandoned
                | ErrorKind::Internal
                | ErrorKind::Stuck
        )
    }
}

/// What a runtime error says.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorData {
    /// What kind of error.
    pub kind: ErrorKind,
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
    /// An error of this kind at a place.
    pub fn at(kind: ErrorKind, message: impl Into<String>, span: Span) -> RuntimeError {
        RuntimeError(Box::new(ErrorData {
            kind,
            message: message.into(),
            span: Some(span),
        }))
    }

    /// An error of this kind without a place.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> RuntimeError {
        RuntimeError(Box::new(ErrorData {
            kind,
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
