//! The machine's stack of typed frames: the pending applications of the spine being
//! evaluated and the continuations of the spines waiting for it (nickel-style: one
//! variant per kind of frame, no closures).
//!
//! Reading the frame stack from the top down to an [`Frame::Update`] gives the current
//! spine's pending applications ([`Frame::Arg`], innermost first); below it is the
//! spine that needed the binding being updated, and so on down to the bottom. A
//! [`Frame::Case`] is a destructor waiting for its scrutinee, a [`Frame::Prim`] a
//! primitive waiting for its strict arguments, the `Eq*` frames a structural
//! comparison in progress.

use super::value::{CtxtId, StackId, Value};
use crate::core::term::{ExternId, Match, Plicity, RcTerm};
use crate::prim::Prim;
use crate::syntax::span::Span;

/// A pending application's argument: a suspended spine, wound lazily.
#[derive(Debug)]
pub enum Arg<'p> {
    /// Code in a context (counted): wound if and when it is needed.
    Code(&'p RcTerm, CtxtId),
    /// An existing context entry (counted): a variable passed along.
    Cell(CtxtId),
    /// A value already known (a literal, a lambda, a nullary constructor).
    Val(Value<'p>),
    /// A wound stack (owned).
    Stack(StackId),
}

impl<'p> Arg<'p> {
    /// The loop's control that evaluates this argument.
    pub fn into_ctl(self) -> super::need::Ctl<'p> {
        use super::need::Ctl;
        match self {
            Arg::Code(t, env) => Ctl::Eval(t, env),
            Arg::Cell(c) => Ctl::Enter(c),
            Arg::Val(v) => Ctl::Ret(v),
            Arg::Stack(s) => Ctl::Stack(s),
        }
    }
}

/// A counted reference held by a fiber's stacks or control.
pub enum Ref<'a, 'p> {
    /// A context entry.
    Entry(CtxtId),
    /// A value (what it points at).
    Value(&'a Value<'p>),
    /// A wound stack.
    Stack(StackId),
}

/// Calls `f` on every reference a fiber holds: its frames, its primitives' pending
/// arguments and values, its comparison worklist and its control. One enumeration
/// for the audit and for the scheduler's search for work.
pub fn fiber_refs<'a, 'p>(
    frames: &'a [Frame<'p>],
    pargs: &'a [Arg<'p>],
    pvals: &'a [Value<'p>],
    eq_work: &'a [(CtxtId, CtxtId)],
    ctl: Option<&'a super::need::Ctl<'p>>,
    f: &mut impl FnMut(Ref<'a, 'p>),
) {
    use super::need::Ctl;
    let arg = |a: &'a Arg<'p>, f: &mut dyn FnMut(Ref<'a, 'p>)| match a {
        Arg::Code(_, env) => f(Ref::Entry(*env)),
        Arg::Cell(c) => f(Ref::Entry(*c)),
        Arg::Val(v) => f(Ref::Value(v)),
        Arg::Stack(s) => f(Ref::Stack(*s)),
    };
    for fr in frames {
        match fr {
            Frame::Arg(a, _) | Frame::BinL { b: a, .. } => arg(a, f),
            Frame::Update(c) | Frame::EqLeft(c) | Frame::JoinElem(c) => f(Ref::Entry(*c)),
            Frame::Case(_, env) => f(Ref::Entry(*env)),
            Frame::EqRight(v) | Frame::BinR { a: v, .. } => f(Ref::Value(v)),
            Frame::Prim { .. }
            | Frame::Eq { .. }
            | Frame::JoinList { .. }
            | Frame::Ext { .. }
            | Frame::ExtRunArgs { .. } => {}
        }
    }
    for a in pargs {
        arg(a, f);
    }
    for v in pvals {
        f(Ref::Value(v));
    }
    for &(x, y) in eq_work {
        f(Ref::Entry(x));
        f(Ref::Entry(y));
    }
    match ctl {
        Some(Ctl::Eval(_, env)) => f(Ref::Entry(*env)),
        Some(Ctl::Enter(c)) => f(Ref::Entry(*c)),
        Some(Ctl::Ret(v)) => f(Ref::Value(v)),
        Some(Ctl::Stack(s)) => f(Ref::Stack(*s)),
        Some(Ctl::Park) | None => {}
    }
}

/// One frame.
#[derive(Debug)]
pub enum Frame<'p> {
    /// A pending application.
    Arg(Arg<'p>, Plicity),
    /// Write the value into this entry (counted) when it is reached: the entry's
    /// right-hand side is being evaluated (black-holed).
    Update(CtxtId),
    /// A destructor waiting for its scrutinee, with the context of its arms (counted).
    Case(&'p Match, CtxtId),
    /// A primitive evaluating its first `strict` arguments, `got` of them done; the
    /// values wait on the machine's value stack, the arguments still to evaluate on
    /// its argument stack.
    Prim {
        /// Which primitive.
        prim: Prim,
        /// Where it is applied.
        span: Span,
        /// How many arguments are evaluated before it runs.
        strict: u8,
        /// How many are done.
        got: u8,
        /// How many arguments it took in all.
        arity: u8,
    },
    /// A binary primitive evaluating its left argument; the right one comes next.
    BinL {
        /// Which primitive.
        prim: Prim,
        /// Where it is applied.
        span: Span,
        /// The right argument.
        b: Arg<'p>,
    },
    /// A binary primitive evaluating its right argument; the left one's value is here.
    BinR {
        /// Which primitive.
        prim: Prim,
        /// Where it is applied.
        span: Span,
        /// The left argument's value.
        a: Value<'p>,
    },
    /// An external evaluating the arguments its call needs (like [`Frame::Prim`]).
    Ext {
        /// Which external.
        op: super::external::ExtOp,
        /// Its declaration (for reading a paused state back).
        ext: ExternId,
        /// Where the call is written.
        site: super::external::CallSite,
        /// Where it is declared.
        span: Span,
        /// How many arguments are needed before the call.
        strict: u8,
        /// How many are done.
        got: u8,
    },
    /// `run`: its argument list is being walked; the joined text returns here.
    ExtRunArgs {
        /// The declaration of `run` (for reading a paused state back).
        ext: ExternId,
        /// Where the call is written.
        site: super::external::CallSite,
        /// The program to run.
        prog: std::rc::Rc<str>,
        /// Where `run` is declared.
        span: Span,
    },
    /// A structural comparison: the pairs still to compare sit on the machine's
    /// comparison worklist above `base`.
    Eq {
        /// Worklist height when the comparison started.
        base: u32,
        /// `!=` rather than `==`.
        negate: bool,
        /// Where, for "cannot compare functions".
        span: Span,
    },
    /// Evaluating the left side of a pair; the right one (counted) comes next.
    EqLeft(CtxtId),
    /// Evaluating the right side of a pair; the left one's value is here.
    EqRight(Value<'p>),
    /// `join sep xs`: walking the list, the text so far in `acc`; the next list cell's
    /// value returns here.
    JoinList {
        /// The separator.
        sep: std::rc::Rc<str>,
        /// The text so far.
        acc: String,
        /// Whether no element was added yet.
        first: bool,
    },
    /// `join`: evaluating an element; the rest of the list (counted) comes next.
    JoinElem(CtxtId),
}
