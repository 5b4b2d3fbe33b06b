//! The machine's stack of typed frames (nickel-style: one variant per kind of
//! continuation, no closures), and the loop's control.
//!
//! Reading the frames from the top down to an [`Frame::Update`] gives what the
//! current computation will do with its value: apply it to pending arguments
//! ([`Frame::Arg`]), choose a match arm ([`Frame::Case`]), hand it to a primitive,
//! an external or a call waiting for its strict arguments. Below the update frame is
//! the computation that needed the thunk, and so on down to the bottom. Every frame is
//! data, so a stopped machine reads back to a term ([`super::state`]) and a fiber can
//! be set aside and resumed ([`crate::sched`]).

use super::code::{CodeId, LayoutId, Site};
use super::value::{Ref, Val};
use crate::core::term::ExternId;
use crate::prim::Prim;
use crate::syntax::span::Span;

/// What the loop does next.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Control {
    /// Run code in a record (the record reference is owned by the control).
    Eval(CodeId, Ref),
    /// Need a thunk (owned reference).
    Force(Ref),
    /// Return a weak head normal form (owned) to the frame on top.
    Ret(Val),
    /// The current fiber waits (for a call, or for a thunk another fiber is
    /// evaluating): run another.
    Park,
}

/// An operation waiting for its strict arguments ([`Frame::Strict`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StrictOp {
    /// A primitive.
    Prim(Prim, Span),
    /// An external call, its arguments in normal form.
    Extern(ExternId, Site),
}

/// One frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Frame {
    /// Write the value into this thunk (counted) when it returns.
    Update(Ref),
    /// A pending application: the argument (counted) and whether it is implicit.
    Arg(Val, bool),
    /// A `match` waiting for its scrutinee, in its record (counted).
    Case {
        /// The match ([`super::code::CodeStore::matches`]).
        m: u32,
        /// Its record.
        env: Ref,
    },
    /// A binary primitive evaluating its left operand; the right one is code.
    BinL {
        /// Which primitive.
        prim: Prim,
        /// The right operand's code.
        b: CodeId,
        /// Its record (counted).
        env: Ref,
        /// Where, for errors.
        span: Span,
    },
    /// A binary primitive evaluating its left operand; the right one is a word (a
    /// fiber may be computing it).
    BinLv {
        /// Which primitive.
        prim: Prim,
        /// The right operand (counted).
        b: Val,
        /// Where, for errors.
        span: Span,
    },
    /// A binary primitive evaluating its right operand; the left one's value is here.
    BinR {
        /// Which primitive.
        prim: Prim,
        /// The left value (counted).
        a: Val,
        /// Where, for errors.
        span: Span,
    },
    /// A known call ([`super::code::Code::CallDef`]) filling its record: the slots
    /// before `next` are filled, argument `next` (strict) is being evaluated, the rest
    /// are code in the caller's record.
    CallArgs {
        /// The call node.
        code: CodeId,
        /// The caller's record (counted).
        env: Ref,
        /// The argument being evaluated.
        next: u32,
        /// The callee's record being filled (counted).
        rec: Ref,
    },
    /// A primitive or external evaluating its strict arguments: `n` in all, `done` of
    /// them evaluated (on the value stack), the rest on the pending stack (next on
    /// top).
    Strict {
        /// What runs when they are all evaluated.
        op: StrictOp,
        /// How many arguments.
        n: u8,
        /// How many are done.
        done: u8,
        /// Whether arguments are needed to normal form (externals, `join`).
        nf: bool,
    },
    /// A strict `let`: its right-hand side is being evaluated; then the record is
    /// made and the body runs.
    LetStrict {
        /// The record's layout.
        layout: LayoutId,
        /// The body.
        body: CodeId,
        /// The outer record (counted).
        env: Ref,
    },
    /// `prim_seq a b`: `a` is being evaluated; `b` comes next.
    SeqB {
        /// The code of `b`.
        b: CodeId,
        /// Its record (counted).
        env: Ref,
    },
    /// `a ++ b`: `a` is being evaluated; `b` (counted) is next if it is a string.
    ConcatL {
        /// The second operand.
        b: Val,
        /// Where, for errors.
        span: Span,
    },
    /// `a ++ b` on strings: `b` is being evaluated.
    ConcatR {
        /// The first operand's value (counted).
        a: Val,
    },
    /// A normal-form walk: the values still to need sit on the machine's deep stack
    /// above `base`; `root` (counted) is returned when they are done.
    Deep {
        /// What is being normalised.
        root: Val,
        /// Deep stack height when the walk started.
        base: u32,
        /// Only the spine: of a list cell, only its tail is walked (a spine walk,
        /// [`crate::machine::compile::spine`]), not its elements.
        spine: bool,
    },
    /// A structural comparison: the pairs still to compare sit on the machine's
    /// comparison stack above `base`.
    Eq {
        /// Comparison stack height when it started.
        base: u32,
        /// `!=` rather than `==`.
        negate: bool,
        /// Where, for "cannot compare functions".
        span: Span,
    },
    /// A comparison evaluating the left side of a pair; the right one (counted) next.
    EqLeft(Val),
    /// A comparison evaluating the right side of a pair; the left value (counted).
    EqRight(Val),
    /// `try e`: a runtime error below this frame becomes `Left message`.
    Try,
    /// `after a b`: `a` is being evaluated to normal form; `b` (counted) is next.
    After(Val),
    /// `reading files x` or `writing files x`: `x` is being evaluated; calls made
    /// meanwhile read (or write) the files of the list (counted, in normal form).
    Declare {
        /// `writing` rather than `reading`.
        writing: bool,
        /// The list of file names.
        files: Val,
    },
    /// The printer waits for a string: a `join` or `++` whose value would return here
    /// hands back its arguments instead, so the pieces print as they are computed.
    Stream,
}

/// Calls `f` on every reference a fiber's stacks and control hold: one enumeration for
/// the audits and the scheduler.
pub fn stack_refs(
    frames: &[Frame],
    vals: &[Val],
    pending: &[Val],
    deep: &[Val],
    eq_work: &[(Val, Val)],
    ctl: Option<&Control>,
    f: &mut dyn FnMut(super::host::HeldRef),
) {
    use super::host::HeldRef::{Rec, Val as V};
    for fr in frames {
        match *fr {
            Frame::Update(t) => f(V(Val::Thunk(t))),
            Frame::Arg(v, _)
            | Frame::BinLv { b: v, .. }
            | Frame::BinR { a: v, .. }
            | Frame::ConcatL { b: v, .. }
            | Frame::ConcatR { a: v }
            | Frame::Deep { root: v, .. }
            | Frame::EqLeft(v)
            | Frame::EqRight(v)
            | Frame::After(v)
            | Frame::Declare { files: v, .. } => f(V(v)),
            Frame::CallArgs { env, rec, .. } => {
                f(Rec(env));
                f(Rec(rec));
            }
            Frame::Case { env, .. }
            | Frame::BinL { env, .. }
            | Frame::LetStrict { env, .. }
            | Frame::SeqB { env, .. } => f(Rec(env)),
            Frame::Strict { .. } | Frame::Eq { .. } | Frame::Try | Frame::Stream => {}
        }
    }
    for &v in vals.iter().chain(pending).chain(deep) {
        f(V(v));
    }
    for &(a, b) in eq_work {
        f(V(a));
        f(V(b));
    }
    match ctl {
        Some(Control::Eval(_, env)) => f(Rec(*env)),
        Some(Control::Force(t)) => f(V(Val::Thunk(*t))),
        Some(Control::Ret(v)) => f(V(*v)),
        Some(Control::Park) | None => {}
    }
}

#[cfg(test)]
mod size_tests {
    /// The hot types stay small: the evaluation loop moves them at every step, and a
    /// deep evaluation holds hundreds of thousands of frames. A change that grows one
    /// must be measured (peers.sh) and this bound moved on purpose.
    #[test]
    fn the_machine_types_stay_small() {
        use std::mem::size_of;
        assert_eq!(size_of::<super::Val>(), 16);
        assert!(size_of::<super::Control>() <= 16, "Control");
        assert!(size_of::<crate::machine::error::Result<super::Control>>() <= 16);
        assert!(size_of::<super::Frame>() <= 32, "Frame");
        assert!(size_of::<crate::machine::code::Code>() <= 24, "Code");
        // A list cell keeps its two fields in place, in 56 bytes (the peak memory of
        // a program that holds a long list, `sort.sp`).
        assert!(size_of::<crate::machine::heap::ConObj>() <= 56, "ConObj");
        assert!(size_of::<crate::machine::heap::RecObj>() <= 72, "RecObj");
    }
}

/// The running fiber's stacks: the continuation and its side stacks. A scheduler
/// saves and restores this one value when it switches fibers.
#[derive(Debug, Default)]
pub struct Stacks {
    /// The continuation.
    pub frames: Vec<Frame>,
    /// Evaluated arguments of calls and primitives in progress.
    pub vals: Vec<Val>,
    /// Arguments of primitives and externals not evaluated yet (next on top).
    pub pending: Vec<Val>,
    /// Values still to need in normal-form walks.
    pub deep: Vec<Val>,
    /// Pairs still to compare in structural comparisons.
    pub eq_work: Vec<(Val, Val)>,
}

impl Stacks {
    /// The bytes the stacks take (what a parked fiber holds, for `--max-memory`).
    pub fn bytes(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + (self.vals.capacity() + self.pending.capacity() + self.deep.capacity())
                * std::mem::size_of::<Val>()
            + self.eq_work.capacity() * 2 * std::mem::size_of::<Val>()
    }
}
