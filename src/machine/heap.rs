//! The heap: every object the machine allocates, in one arena per kind, with
//! reference counts instead of a tracing collector.
//!
//! Objects:
//!
//! - [`ThunkObj`]: a value that may not be computed yet. Its state is explicit
//!   (nickel-style): `Suspended` (code and the record where its context ends: Rogers'
//!   end pointer), `Blackholed` (being evaluated by a fiber), `Done` (its value).
//! - [`RecObj`]: a *record*, one flat context segment: the parameters of one call, the
//!   fields bound by one match arm, or one `let` binding. It links to the record its
//!   code's context continues in ([`RecObj::parent`]) and names its layout, which
//!   gives each slot's binder (name and type annotation: the type of any part of a
//!   state can be computed). Records only ever point outward, so the only cycles are
//!   a recursive `let` (`let xs = Cons 1 xs`) and what data builds through one: the
//!   backup cycle collector ([`super::cycles`]) reclaims those.
//! - [`ConObj`], [`StrObj`], [`FunObj`] (code closed over a record), [`PapObj`] (a
//!   head waiting for more arguments, or a neutral one), and for type-level
//!   evaluation [`PiObj`] and [`StuckObj`].
//!
//! Every stored handle counts one reference. When a count reaches zero the object is
//! destroyed at once and what it held is released in turn, with an explicit worklist
//! (never native recursion: a million-element list is freed in a loop).

use super::arena::{Arena, Run, Slots, Words};
use super::code::{CodeId, LayoutId, Site};
use super::unwind::{self, Fold, Obj};
use super::value::{NIL, Ref, Val};
use crate::core::term::{ConId, DataId, DefId, ExternId};
use crate::prim::Prim;
use crate::syntax::span::Span;
use std::rc::Rc;

/// The state of a thunk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThunkState {
    /// Not evaluated: code and the record its context ends at (counted, or `NIL`).
    Suspended {
        /// The code.
        code: CodeId,
        /// Its context.
        env: Ref,
    },
    /// Being evaluated by this fiber: needing it again from the same fiber is an
    /// infinite loop; another fiber waits for it.
    Blackholed {
        /// The fiber evaluating it.
        fiber: u32,
        /// The code being evaluated (its place, for messages).
        code: CodeId,
    },
    /// Evaluated: its weak head normal form (counted).
    Done(Val),
    /// Its evaluation failed with this error (an index into the machine's table of
    /// failures): needing it again raises the same error.
    Failed(u32),
}

/// A value that may not be computed yet.
#[derive(Debug)]
pub struct ThunkObj {
    /// References to it.
    pub rc: u32,
    /// Whether fibers wait for its value (the scheduler wakes them when it is
    /// written).
    pub waiters: bool,
    /// Where it stands.
    pub state: ThunkState,
}

/// One flat context segment (see the module documentation).
#[derive(Debug)]
pub struct RecObj {
    /// References to it.
    pub rc: u32,
    /// The enclosing record (counted), or `NIL`.
    pub parent: Ref,
    /// What its slots are: their binders.
    pub layout: LayoutId,
    /// The bound values (each counted; `Val::Erased` for erased binders and slots
    /// not written yet).
    pub slots: Slots<3>,
}

/// A constructor value with its explicit fields.
#[derive(Debug)]
pub struct ConObj {
    /// References to it.
    pub rc: u32,
    /// Which constructor.
    pub con: ConId,
    /// The fields (each counted).
    pub fields: Slots<2>,
}

/// A string.
#[derive(Debug)]
pub struct StrObj {
    /// References to it.
    pub rc: u32,
    /// The text.
    pub text: Rc<str>,
}

/// A function: code closed over a record.
#[derive(Debug)]
pub struct FunObj {
    /// References to it.
    pub rc: u32,
    /// The function's code ([`super::code::Fun`]).
    pub fun: u32,
    /// Its context (counted), or `NIL` for closed code.
    pub env: Ref,
}

/// The head of a partial application.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PapHead {
    /// A function value (counted).
    Fun(Ref),
    /// A top-level function.
    Def(DefId),
    /// A constructor waiting for more fields.
    Con(ConId),
    /// A primitive waiting for more arguments.
    Prim(Prim, Span),
    /// An external waiting for more arguments.
    Extern(ExternId, Site),
    /// A type constructor applied to its parameters: a normal form.
    Data(DataId),
    /// An open variable of type-level evaluation (the checker's context, by level)
    /// applied to arguments: a neutral normal form.
    Open(u32),
    /// A hole or metavariable (its code node) applied to arguments: neutral.
    Hole(CodeId),
}

/// A head and the arguments it has received.
#[derive(Debug)]
pub struct PapObj {
    /// References to it.
    pub rc: u32,
    /// The head.
    pub head: PapHead,
    /// How many parameters of the head the arguments cover (erased ones included).
    pub taken: u32,
    /// The arguments received, each counted (erased ones are not kept).
    pub args: Run,
}

/// A dependent function type in a context (type-level evaluation).
#[derive(Debug)]
pub struct PiObj {
    /// References to it.
    pub rc: u32,
    /// The `Pi` node's code.
    pub code: CodeId,
    /// Its context (counted), or `NIL`.
    pub env: Ref,
}

/// A `match` stuck on a neutral scrutinee (type-level evaluation).
#[derive(Debug)]
pub struct StuckObj {
    /// References to it.
    pub rc: u32,
    /// The `match` node's code.
    pub code: CodeId,
    /// Its context (counted), or `NIL`.
    pub env: Ref,
    /// The scrutinee's value (counted).
    pub scrut: Val,
}

/// The machine's heap.
#[derive(Debug, Default)]
pub struct Heap {
    /// Thunks.
    pub thunks: Arena<ThunkObj>,
    /// Records.
    pub recs: Arena<RecObj>,
    /// Constructor values.
    pub cons: Arena<ConObj>,
    /// Strings.
    pub strs: Arena<StrObj>,
    /// Functions.
    pub funs: Arena<FunObj>,
    /// Partial applications and neutral heads.
    pub paps: Arena<PapObj>,
    /// Dependent function types.
    pub pis: Arena<PiObj>,
    /// Stuck matches.
    pub stucks: Arena<StuckObj>,
    /// Fields, slots and arguments.
    pub words: Words,
    /// Objects whose count reached zero, waiting to be destroyed.
    garbage: Vec<Obj>,
    /// Scratch space for the references of the object being destroyed.
    garbage_refs: Vec<Obj>,
    /// Bytes of string text live now (for `--max-memory`).
    pub string_bytes: usize,
    /// Records of recursive data `let`s made so far (the only objects a cycle can go
    /// through: records point outward otherwise).
    pub cyclic: u64,
    /// Errors that thunks failed with ([`ThunkState::Failed`] holds an index here).
    pub failures: Vec<super::error::RuntimeError>,
}

impl Heap {
    /// Whether thunk `t` is not evaluated yet and the reference the caller holds is its
    /// only one (nothing else can ever need it).
    pub fn sole_suspended(&self, t: Ref) -> bool {
        let th = self.thunks.get(t);
        th.rc == 1 && matches!(th.state, ThunkState::Suspended { .. })
    }

    // ----- allocation -------------------------------------------------------------

    /// A new thunk, with one reference (the caller's).
    #[inline(always)]
    pub fn thunk(&mut self, code: CodeId, env: Ref) -> Ref {
        self.thunks.alloc(ThunkObj {
            rc: 1,
            waiters: false,
            state: ThunkState::Suspended { code, env },
        })
    }

    /// A new record with `len` slots (all `Erased`), one reference.
    #[inline(always)]
    pub fn record(&mut self, parent: Ref, layout: LayoutId, len: u32) -> Ref {
        let slots = Slots::new(&mut self.words, len);
        self.recs.alloc(RecObj {
            rc: 1,
            parent,
            layout,
            slots,
        })
    }

    /// A new constructor value whose fields are given (their references move in).
    #[inline(always)]
    pub fn con(&mut self, con: ConId, fields: &[Val]) -> Val {
        let fields = Slots::from_slice(&mut self.words, fields);
        Val::Con(self.cons.alloc(ConObj { rc: 1, con, fields }))
    }

    /// A new string value.
    #[inline]
    pub fn string(&mut self, text: Rc<str>) -> Val {
        self.string_bytes += text.len();
        Val::Str(self.strs.alloc(StrObj { rc: 1, text }))
    }

    /// A new function value (the reference to `env` moves in).
    #[inline(always)]
    pub fn fun(&mut self, fun: u32, env: Ref) -> Val {
        Val::Fun(self.funs.alloc(FunObj { rc: 1, fun, env }))
    }

    /// A new partial application (the references of `head` and `args` move in).
    pub fn pap(&mut self, head: PapHead, taken: u32, args: &[Val]) -> Val {
        let run = self.words.alloc(args.len() as u32);
        self.words.get_mut(run).copy_from_slice(args);
        Val::Pap(self.paps.alloc(PapObj {
            rc: 1,
            head,
            taken,
            args: run,
        }))
    }

    // ----- access -----------------------------------------------------------------

    /// The text of a string value.
    #[inline(always)]
    pub fn text(&self, r: Ref) -> &Rc<str> {
        &self.strs.get(r).text
    }

    /// A record's slot `i`.
    #[inline(always)]
    pub fn slot(&self, rec: Ref, i: u32) -> Val {
        self.recs.get(rec).slots.at(&self.words, i)
    }

    /// A record's slots.
    #[inline(always)]
    pub fn rec_slots(&self, rec: Ref) -> &[Val] {
        self.recs.get(rec).slots.get(&self.words)
    }

    /// Writes a record's slot `i` (the reference moves in; the old word is not
    /// released).
    #[inline(always)]
    pub fn set_slot(&mut self, rec: Ref, i: u32, v: Val) {
        self.recs.get_mut(rec).slots.set(&mut self.words, i, v);
    }

    /// The record `hops` parents up from `rec`.
    #[inline(always)]
    pub fn up(&self, mut rec: Ref, hops: u32) -> Ref {
        for _ in 0..hops {
            rec = self.recs.get(rec).parent;
        }
        rec
    }

    /// A constructor value's fields.
    #[inline(always)]
    pub fn fields(&self, r: Ref) -> &[Val] {
        self.cons.get(r).fields.get(&self.words)
    }

    /// What a thunk holds if it is evaluated (not counted).
    #[inline(always)]
    pub fn forced(&self, v: Val) -> Val {
        self.forced_inner(v)
    }

    /// Field `i` of constructor `r` (borrowed), read through an evaluated thunk; the
    /// field then holds the value itself and the thunk (an indirection now) is
    /// released, as a record's slot is ([`crate::machine::Machine::slot_word`]): a
    /// structure that lives long (a list kept for a second pass) does not keep a
    /// thunk per element once they are evaluated.
    #[inline]
    pub fn con_field(&mut self, r: Ref, i: u32) -> Val {
        let raw = self.cons.get(r).fields.at(&self.words, i);
        if let Val::Thunk(t) = raw
            && let ThunkState::Done(x) = self.thunks.get(t).state
        {
            self.retain(x);
            self.cons.get_mut(r).fields.set(&mut self.words, i, x);
            self.release(raw);
            return x;
        }
        raw
    }

    #[inline(always)]
    fn forced_inner(&self, v: Val) -> Val {
        match v {
            Val::Thunk(t) => match self.thunks.get(t).state {
                ThunkState::Done(x) => x,
                _ => v,
            },
            _ => v,
        }
    }

    // ----- counting ---------------------------------------------------------------

    /// Counts one more reference to what `v` points at.
    #[inline(always)]
    pub fn retain(&mut self, v: Val) {
        match v {
            Val::Thunk(r) => self.thunks.get_mut(r).rc += 1,
            Val::Con(r) => self.cons.get_mut(r).rc += 1,
            Val::Str(r) => self.strs.get_mut(r).rc += 1,
            Val::Fun(r) => self.funs.get_mut(r).rc += 1,
            Val::Pap(r) => self.paps.get_mut(r).rc += 1,
            Val::Pi(r) => self.pis.get_mut(r).rc += 1,
            Val::Stuck(r) => self.stucks.get_mut(r).rc += 1,
            Val::Int(_)
            | Val::Float(_)
            | Val::Char(_)
            | Val::Atom(_)
            | Val::Erased
            | Val::Universe(_)
            | Val::PrimType(_) => {}
        }
    }

    /// Counts one more reference to a record (`NIL` is allowed).
    #[inline(always)]
    pub fn retain_rec(&mut self, r: Ref) {
        if r != NIL {
            self.recs.get_mut(r).rc += 1;
        }
    }

    /// Drops one reference to what `v` points at, destroying what is no longer used.
    #[inline(always)]
    pub fn release(&mut self, v: Val) {
        if let Some(o) = Obj::of(v) {
            self.release_object(o);
        }
    }

    /// Drops one reference to an object, destroying what is no longer used.
    #[inline(always)]
    pub fn release_object(&mut self, o: Obj) {
        if self.dec_count(o) == 0 {
            self.garbage.push(o);
            self.collect();
        }
    }

    /// Releases a reference a frame, a control or a host holds.
    #[inline]
    pub fn release_held(&mut self, h: super::host::HeldRef) {
        match h {
            super::host::HeldRef::Val(v) => self.release(v),
            super::host::HeldRef::Rec(r) => self.release_rec(r),
        }
    }

    /// Drops one reference to a record (`NIL` is allowed).
    #[inline(always)]
    pub fn release_rec(&mut self, r: Ref) {
        if r != NIL {
            self.release_object(Obj::Rec(r));
        }
    }

    /// Destroys everything on the garbage list, and what that frees in turn: a walk
    /// ([`unwind::walk`]) whose edges count one reference less and go into an object
    /// when none is left, and which frees each object it goes into.
    #[inline(never)]
    fn collect(&mut self) {
        struct Destroy<'h>(&'h mut Heap);
        impl Fold for Destroy<'_> {
            #[inline(always)]
            fn heap(&self) -> &Heap {
                self.0
            }
            #[inline(always)]
            fn edge(&mut self, o: Obj) -> bool {
                self.0.dec_count(o) == 0
            }
            #[inline(always)]
            fn visit(&mut self, o: Obj) {
                self.0.free_object(o);
            }
        }
        let mut work = std::mem::take(&mut self.garbage);
        let mut refs = std::mem::take(&mut self.garbage_refs);
        unwind::walk(&mut Destroy(self), &mut work, &mut refs);
        self.garbage = work;
        self.garbage_refs = refs;
    }

    /// Counts one reference less to a live object; its count now.
    #[inline(always)]
    fn dec_count(&mut self, o: Obj) -> u32 {
        let rc = self.count_mut(o);
        debug_assert!(*rc > 0, "release of a dead object");
        *rc -= 1;
        *rc
    }

    /// The reference count of a live object.
    #[inline(always)]
    pub(super) fn count_mut(&mut self, o: Obj) -> &mut u32 {
        match o {
            Obj::Thunk(r) => &mut self.thunks.get_mut(r).rc,
            Obj::Rec(r) => &mut self.recs.get_mut(r).rc,
            Obj::Con(r) => &mut self.cons.get_mut(r).rc,
            Obj::Str(r) => &mut self.strs.get_mut(r).rc,
            Obj::Fun(r) => &mut self.funs.get_mut(r).rc,
            Obj::Pap(r) => &mut self.paps.get_mut(r).rc,
            Obj::Pi(r) => &mut self.pis.get_mut(r).rc,
            Obj::Stuck(r) => &mut self.stucks.get_mut(r).rc,
        }
    }

    /// Frees an object (and the words it holds) without releasing what it refers to:
    /// the caller has released that, or is freeing it too (the cycle collector).
    #[inline(always)]
    pub(super) fn free_object(&mut self, o: Obj) {
        match o {
            Obj::Thunk(r) => self.thunks.free(r),
            Obj::Rec(r) => {
                let slots = self.recs.get(r).slots;
                self.recs.free(r);
                slots.free(&mut self.words);
            }
            Obj::Con(r) => {
                let fields = self.cons.get(r).fields;
                self.cons.free(r);
                fields.free(&mut self.words);
            }
            Obj::Str(r) => {
                let text = std::mem::replace(&mut self.strs.get_mut(r).text, Rc::from(""));
                self.string_bytes -= text.len();
                self.strs.free(r);
            }
            Obj::Fun(r) => self.funs.free(r),
            Obj::Pap(r) => {
                let run = self.paps.get(r).args;
                self.paps.free(r);
                self.words.free(run);
            }
            Obj::Pi(r) => self.pis.free(r),
            Obj::Stuck(r) => self.stucks.free(r),
        }
    }

    /// How many objects of every kind were ever allocated.
    pub fn allocated_objects(&self) -> u64 {
        self.thunks.allocated()
            + self.recs.allocated()
            + self.cons.allocated()
            + self.strs.allocated()
            + self.funs.allocated()
            + self.paps.allocated()
            + self.pis.allocated()
            + self.stucks.allocated()
    }

    /// How many objects of every kind are live (records included).
    pub fn live_objects(&self) -> usize {
        self.thunks.live()
            + self.recs.live()
            + self.cons.live()
            + self.strs.live()
            + self.funs.live()
            + self.paps.live()
            + self.pis.live()
            + self.stucks.live()
    }

    /// Approximate bytes in use, for `--max-memory`: objects, words and text.
    pub fn bytes_in_use(&self) -> usize {
        self.live_objects() * 24 + self.words.live() * 16 + self.string_bytes
    }
}
