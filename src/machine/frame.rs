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

impl Frame {
    /// Calls `f` on every reference the frame holds itself (each counted): the one
    /// description of a frame's parts that the audits, the scheduler's search and
    /// dropping a frame use. What it owns on the side stacks is
    /// [`Frame::side_entries`].
    #[inline]
    pub fn held(&self, f: &mut dyn FnMut(super::host::HeldRef)) {
        use super::host::HeldRef::{Rec, Val as V};
        match *self {
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
}

/// The code a frame runs when a value returns to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameCode {
    /// A node (an operand, a body, the call whose arguments are being filled).
    Node(CodeId),
    /// The arms of a match ([`super::code::CodeStore::matches`]).
    Match(u32),
}

impl Frame {
    /// The code this frame runs when a value returns to it, if any: what keeps the
    /// definitions that code mentions alive ([`super::cycles`]).
    pub fn code(&self) -> Option<FrameCode> {
        match *self {
            Frame::Case { m, .. } => Some(FrameCode::Match(m)),
            Frame::BinL { b, .. } | Frame::SeqB { b, .. } | Frame::LetStrict { body: b, .. } => {
                Some(FrameCode::Node(b))
            }
            Frame::CallArgs { code, .. } => Some(FrameCode::Node(code)),
            Frame::Update(_)
            | Frame::Arg(..)
            | Frame::BinLv { .. }
            | Frame::BinR { .. }
            | Frame::Strict { .. }
            | Frame::ConcatL { .. }
            | Frame::ConcatR { .. }
            | Frame::Deep { .. }
            | Frame::Eq { .. }
            | Frame::EqLeft(_)
            | Frame::EqRight(_)
            | Frame::Try
            | Frame::After(_)
            | Frame::Stream
            | Frame::Declare { .. } => None,
        }
    }
}

/// Calls `f` on every reference a control holds.
pub fn control_refs(ctl: &Control, f: &mut dyn FnMut(super::host::HeldRef)) {
    use super::host::HeldRef::{Rec, Val as V};
    match ctl {
        Control::Eval(_, env) => f(Rec(*env)),
        Control::Force(t) => f(V(Val::Thunk(*t))),
        Control::Ret(v) => f(V(*v)),
        Control::Park => {}
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

/// The entries of the side stacks a frame owns: a `Strict` frame its evaluated
/// arguments (on `vals`) and those still to evaluate (on `pending`, less the one
/// being evaluated); a `Deep` walk the `deep` entries from its base up; a comparison
/// the `eq_work` pairs from its base up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SideEntries {
    /// Entries on `vals`.
    pub vals: usize,
    /// Entries on `pending`.
    pub pending: usize,
    /// Where its entries on `deep` start.
    pub deep_base: Option<u32>,
    /// Where its entries on `eq_work` start.
    pub eq_base: Option<u32>,
}

impl Frame {
    /// The side stacks' entries this frame owns (the one description dropping and
    /// splitting a fiber's stacks use).
    #[inline]
    pub fn side_entries(&self) -> SideEntries {
        match *self {
            Frame::Strict { n, done, .. } => SideEntries {
                vals: done as usize,
                // The argument being evaluated is neither done nor pending.
                pending: n.saturating_sub(done).saturating_sub(1) as usize,
                ..SideEntries::default()
            },
            Frame::Deep { base, .. } => SideEntries {
                deep_base: Some(base),
                ..SideEntries::default()
            },
            Frame::Eq { base, .. } => SideEntries {
                eq_base: Some(base),
                ..SideEntries::default()
            },
            _ => SideEntries::default(),
        }
    }

    /// The frame with its side-stack bases moved down by `deep` and `eq` entries (it
    /// moved to stacks that lack the entries below those).
    fn rebased(self, deep: u32, eq: u32) -> Frame {
        match self {
            Frame::Deep { root, base, spine } => Frame::Deep {
                root,
                base: base - deep,
                spine,
            },
            Frame::Eq { base, negate, span } => Frame::Eq {
                base: base - eq,
                negate,
                span,
            },
            f => f,
        }
    }
}

/// Where a fiber's stacks split: above a frame, with the side-stack entries the
/// frames above it own ([`Stacks::split_above`]).
#[derive(Clone, Copy, Debug)]
pub struct Split {
    /// The frame the split is above.
    at: usize,
    /// Entries on `vals` and `pending` above the split (on top of each).
    vals: usize,
    pending: usize,
    /// Where the entries above the split start on `deep` and `eq_work`.
    deep_lo: usize,
    eq_lo: usize,
}

impl Stacks {
    /// Stacks that walk `v` (owned) to normal form, or only its spine.
    pub fn walking(v: Val, spine: bool) -> Stacks {
        Stacks {
            frames: vec![Frame::Deep {
                root: Val::Erased,
                base: 0,
                spine,
            }],
            deep: vec![v],
            ..Stacks::default()
        }
    }

    /// Where these stacks split above frame `at`, or `None` when the frames above it
    /// cannot move to other stacks: the printer's base is among them (its run ends
    /// on these stacks), or they own entries the side stacks do not hold.
    pub fn split_above(&self, at: usize) -> Option<Split> {
        let (mut vals, mut pending) = (0usize, 0usize);
        let (mut deep_lo, mut eq_lo) = (None, None);
        for fr in &self.frames[at + 1..] {
            if matches!(fr, Frame::Stream) {
                return None;
            }
            let e = fr.side_entries();
            vals += e.vals;
            pending += e.pending;
            deep_lo = deep_lo.or(e.deep_base.map(|b| b as usize));
            eq_lo = eq_lo.or(e.eq_base.map(|b| b as usize));
        }
        let s = Split {
            at,
            vals,
            pending,
            deep_lo: deep_lo.unwrap_or(self.deep.len()),
            eq_lo: eq_lo.unwrap_or(self.eq_work.len()),
        };
        (s.vals <= self.vals.len()
            && s.pending <= self.pending.len()
            && s.deep_lo <= self.deep.len()
            && s.eq_lo <= self.eq_work.len())
        .then_some(s)
    }

    /// Takes the frames above a split and the side-stack entries they own, as stacks
    /// of their own (their bases moved to match).
    pub fn split_off(&mut self, s: Split) -> Stacks {
        let (deep, eq) = (s.deep_lo as u32, s.eq_lo as u32);
        Stacks {
            frames: (self.frames.drain(s.at + 1..))
                .map(|f| f.rebased(deep, eq))
                .collect(),
            vals: self.vals.split_off(self.vals.len() - s.vals),
            pending: self.pending.split_off(self.pending.len() - s.pending),
            deep: self.deep.split_off(s.deep_lo),
            eq_work: self.eq_work.split_off(s.eq_lo),
        }
    }

    /// Puts `bottom`, frames that own no side-stack entries yet (an `Update`, a walk
    /// whose values come later), under these stacks' frames.
    pub fn push_under(&mut self, bottom: &[Frame]) {
        debug_assert!(bottom.iter().all(|f| {
            let e = f.side_entries();
            e.vals == 0 && e.pending == 0 && e.deep_base.is_none_or(|b| b == 0)
        }));
        self.frames.splice(0..0, bottom.iter().copied());
    }

    /// The values the stacks' pending primitives and normal-form walks will need
    /// (arguments not evaluated yet, parts of walks): certainly needed if the fiber's
    /// work is.
    pub fn to_be_needed(&self) -> impl Iterator<Item = Val> + '_ {
        self.pending.iter().chain(&self.deep).copied()
    }

    /// Calls `f` on every reference the stacks hold, and `ctl`, a control, if given:
    /// one enumeration for the audits and the scheduler.
    pub fn refs(&self, ctl: Option<&Control>, f: &mut dyn FnMut(super::host::HeldRef)) {
        use super::host::HeldRef::Val as V;
        for fr in &self.frames {
            fr.held(f);
        }
        for &v in self.vals.iter().chain(&self.pending).chain(&self.deep) {
            f(V(v));
        }
        for &(a, b) in &self.eq_work {
            f(V(a));
            f(V(b));
        }
        if let Some(c) = ctl {
            control_refs(c, f);
        }
    }

    /// The bytes the stacks take (what a parked fiber holds, for `--max-memory`).
    pub fn bytes(&self) -> usize {
        self.frames.capacity() * std::mem::size_of::<Frame>()
            + (self.vals.capacity() + self.pending.capacity() + self.deep.capacity())
                * std::mem::size_of::<Val>()
            + self.eq_work.capacity() * 2 * std::mem::size_of::<Val>()
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

#[cfg(test)]
mod split_tests {
    use super::*;

    fn strict(n: u8, done: u8) -> Frame {
        Frame::Strict {
            op: StrictOp::Prim(Prim::Add, Span::new(crate::syntax::span::FileId(0), 0, 0)),
            n,
            done,
            nf: false,
        }
    }

    fn deep(base: u32) -> Frame {
        Frame::Deep {
            root: Val::Erased,
            base,
            spine: false,
        }
    }

    /// A fiber's stacks: a walk with two values of its own under a strict call with
    /// one argument done and one pending (the third being evaluated), under a second
    /// walk with one value.
    fn sample() -> Stacks {
        Stacks {
            frames: vec![Frame::Update(7), deep(0), strict(3, 1), deep(2)],
            vals: vec![Val::Int(1)],
            pending: vec![Val::Int(2)],
            deep: vec![Val::Int(3), Val::Int(4), Val::Int(5)],
            eq_work: vec![],
        }
    }

    #[test]
    fn the_frames_above_a_split_take_the_entries_they_own() {
        let mut s = sample();
        let split = s.split_above(1).expect("a split");
        let top = s.split_off(split);
        assert_eq!(top.frames, vec![strict(3, 1), deep(0)]);
        assert_eq!(top.vals, vec![Val::Int(1)]);
        assert_eq!(top.pending, vec![Val::Int(2)]);
        assert_eq!(top.deep, vec![Val::Int(5)]);
        assert_eq!(s.frames, vec![Frame::Update(7), deep(0)]);
        assert_eq!(s.deep, vec![Val::Int(3), Val::Int(4)]);
        assert!(s.vals.is_empty() && s.pending.is_empty());
    }

    #[test]
    fn a_split_above_the_top_frame_takes_nothing() {
        let mut s = sample();
        let top = s.split_off(s.split_above(3).expect("a split"));
        assert!(top.frames.is_empty() && top.deep.is_empty() && top.vals.is_empty());
        assert_eq!(s.deep.len(), 3);
    }

    #[test]
    fn the_printers_base_and_missing_entries_do_not_split() {
        let mut s = sample();
        s.frames.push(Frame::Stream);
        assert!(s.split_above(1).is_none());
        let mut s = sample();
        s.vals.clear();
        assert!(s.split_above(1).is_none());
    }

    #[test]
    fn frames_go_under_split_off_stacks() {
        let mut s = sample();
        let mut top = s.split_off(s.split_above(1).expect("a split"));
        top.push_under(&[Frame::Update(9)]);
        assert_eq!(top.frames[0], Frame::Update(9));
        assert_eq!(top.frames.len(), 3);
    }
}
