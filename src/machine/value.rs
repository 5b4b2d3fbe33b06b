//! Weak head normal forms: what a context entry holds once it has been evaluated.
//!
//! A value is small (it is copied in and out of context entries); whatever it points at
//! on the heap it points at through counted handles: a constructor's fields are a
//! [`Block`](super::heap::Block) of context entries, a function's context is the entry
//! its lambda closes over. Copying a value out of an entry therefore means taking one
//! more reference ([`Heap::retain_value`](super::heap::Heap::retain_value)), never
//! copying a tree.

use crate::core::term::{ConId, DataId, ExternId, PrimType, RcTerm};
use crate::prim::Prim;
use crate::syntax::span::Span;
use std::rc::Rc;

/// Handle of a context entry.
pub type CtxtId = u32;
/// Handle of a block of constructor fields or arguments.
pub type BlockId = u32;
/// Handle of a wound stack.
pub type StackId = u32;

/// A weak head normal form.
#[derive(Clone, Debug)]
pub enum Value<'p> {
    /// An `Int`.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `String`.
    Str(Rc<str>),
    /// A saturated constructor and its explicit fields (a block, or `NIL` when none).
    Con(ConId, BlockId),
    /// A lambda (the `Term::Lam` itself) with the context entry it closes over.
    Fun(&'p RcTerm, CtxtId),
    /// A head that has not received all its arguments (a primitive, a constructor), or
    /// a neutral head that never reduces (a type constructor, an open binder): the
    /// arguments are a block of context entries.
    Partial(PartialHead, BlockId),
    /// `Type n`.
    Universe(u32),
    /// `Int`, `Float`, `String`.
    PrimType(PrimType),
    /// A dependent function type (the `Term::Pi`) in its context.
    Pi(&'p RcTerm, CtxtId),
    /// An unknown: the placeholder an implicit binder gets when no implicit argument
    /// is pending (erased before type checking), or a hole.
    Unknown,
    /// A `match` whose scrutinee is neutral (an open variable, an unknown): stuck, a
    /// normal form. Only type-level evaluation makes these (elsewhere such a match is an
    /// error). The entry holds the scrutinee's value and links to the match's context.
    Stuck(&'p crate::core::term::Match, CtxtId),
}

/// The head of a [`Value::Partial`].
#[derive(Clone, Copy, Debug)]
pub enum PartialHead {
    /// A primitive waiting for more arguments.
    Prim(Prim, Span),
    /// A constructor waiting for more fields.
    Con(ConId),
    /// A type constructor applied to its parameters (a weak head normal form).
    Data(DataId),
    /// An open binder applied to arguments (a neutral term).
    Open(CtxtId),
    /// An external waiting for arguments, and the place it is written
    /// ([`CallSite`](super::external::CallSite)).
    Extern(ExternId, super::external::CallSite),
}

impl<'p> Value<'p> {
    /// A short description of the value's kind, for runtime error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an Int",
            Value::Float(_) => "a Float",
            Value::Str(_) => "a String",
            Value::Con(..) => "a data value",
            Value::Fun(..) => "a function",
            Value::Partial(PartialHead::Data(_), _) => "a type",
            Value::Partial(..) => "a partial application",
            Value::Universe(_) | Value::PrimType(_) | Value::Pi(..) => "a type",
            Value::Unknown => "an unknown value",
            Value::Stuck(..) => "a stuck match",
        }
    }
}
