//! The wound stack form (Rogers' spines), as records in the heap's stack arena.
//!
//! A [`Stack`] is one spine of a term: a [`Head`] value at the bottom, a context (a
//! chain of [`Ctxt`](super::heap::Ctxt) entries from [`Stack::ctx`] up to
//! [`Stack::end`], innermost first), and its pending applications (a list of
//! sub-stacks through [`Stack::apps`] and [`Stack::sib`], innermost first). Each
//! pending application's own context ends where it branched off this spine.
//!
//! Lambdas, `Pi` types and match arms are not wound into: a lambda with nothing
//! pending is a function value ([`Head::Code`] in the stack's context), and a
//! `match` is a destructor head ([`Head::Match`]) whose scrutinee is a sub-stack and
//! whose arms stay code in the stack's context. Binder type annotations stay code too
//! (they are wound when the checker needs them). Everything else is wound: arguments,
//! `let` right-hand sides, scrutinees.

use super::value::{CtxtId, StackId, Value};
use crate::core::term::{ConId, DataId, DefId, ExternId, Lit, Match, Plicity, PrimType, RcTerm};
use crate::prim::Prim;
use crate::syntax::span::Span;

/// One spine.
#[derive(Debug)]
pub struct Stack<'p> {
    /// The bottom of the spine.
    pub head: Head<'p>,
    /// The innermost context entry (counted), or `NIL`.
    pub ctx: CtxtId,
    /// Where this spine's own context ends: an entry of the enclosing spine (or `NIL`
    /// at the root). Not counted: it is on the chain from `ctx`.
    pub end: CtxtId,
    /// The innermost pending application (owned), or `NIL`.
    pub apps: StackId,
    /// When this stack is itself a pending application: the next (outer) one.
    pub sib: StackId,
    /// When this stack is a pending application: whether it is an implicit argument.
    pub plicity: Plicity,
}

/// The head value at the bottom of a spine (Rogers' Fig. 1 values).
#[derive(Debug)]
pub enum Head<'p> {
    /// A variable: a pointer to its context entry (counted).
    Var(CtxtId),
    /// A top-level definition.
    Def(DefId),
    /// A type constructor.
    Data(DataId),
    /// A data constructor.
    Con(ConId),
    /// An external.
    Extern(ExternId),
    /// A primitive, with the place its runtime errors are reported at.
    Prim(Prim, Span),
    /// `Int`, `Float`, `String`.
    PrimType(PrimType),
    /// A literal.
    Lit(Lit),
    /// `Type n`.
    Universe(u32),
    /// A hole (the `Term::Hole` itself).
    Hole(&'p RcTerm),
    /// Code not wound further, in the stack's context: a lambda, a `Pi`, an annotation.
    Code(&'p RcTerm),
    /// A destructor: a one-level match, its scrutinee wound as a sub-stack (owned) that
    /// ends at the start of the stack's context.
    Match(&'p Match, StackId),
    /// An evaluated value (normal forms built for printing, results of evaluation).
    Value(Value<'p>),
    /// A freed record.
    Free,
}

impl Head<'_> {
    /// The head as a term when it needs no context: a definition, a type, a
    /// constructor, an external, a primitive, a literal, a hole. `None` for variables,
    /// code, destructors, values and freed records.
    pub fn closed_term(&self) -> Option<RcTerm> {
        use crate::core::term::Term;
        Some(match self {
            Head::Def(d) => Term::Def(*d).rc(),
            Head::Data(d) => Term::Data(*d).rc(),
            Head::Con(c) => Term::Con(*c).rc(),
            Head::Extern(e) => Term::Extern(*e).rc(),
            Head::Prim(p, span) => Term::Prim(*p, *span).rc(),
            Head::PrimType(p) => Term::PrimType(*p).rc(),
            Head::Lit(l) => Term::Lit(l.clone()).rc(),
            Head::Universe(n) => Term::Universe(*n).rc(),
            Head::Hole(h) => (*h).clone(),
            Head::Var(_) | Head::Code(_) | Head::Match(..) | Head::Value(_) | Head::Free => {
                return None;
            }
        })
    }
}
