//! The heap: context entries, field blocks and stack records in index arenas, with
//! reference counts instead of a tracing collector.
//!
//! A context entry ([`Ctxt`]) is Rogers' `x : T = rhs` (or an open binder `x : T`): it
//! links to the enclosing entry ([`Ctxt::next`]), holds its binder (name and type
//! annotation) and a [`Cell`] whose state is explicit: [`Cell::Suspended`] (a right-hand
//! side not yet evaluated: code plus the entry where its context ends),
//! [`Cell::Wound`] (a right-hand side wound into a stack), [`Cell::Blackholed`] (being
//! evaluated), [`Cell::Value`] (evaluated), [`Cell::Open`] (no right-hand side) or
//! [`Cell::Ind`] (an alias of another entry: a variable passed as an argument, a field
//! bound by a match).
//!
//! Every handle stored anywhere (a context link, a value, a frame of the machine, a
//! variable head) counts one reference. When an entry's count drops to zero it is
//! destroyed at once and what it pointed at is released in turn, with an explicit
//! worklist (never native recursion). Two kinds of self reference are not counted,
//! so that the common recursive `let` is reclaimed without a tracing collector: a
//! `let` right-hand side's own context pointer while it is suspended, and the context
//! of a function value stored in the entry of the `let` that defines it (`let go n =
//! ... go ... in ...`). Cycles through data (`let xs = Cons 1 xs in ...`) are not
//! reclaimed (a known limitation).

use super::arena::{Arena, NIL};
use super::stack::{Head, Stack};
use super::value::{BlockId, CtxtId, PartialHead, StackId, Value};
use crate::core::term::{Binder, RcTerm};

/// One context entry.
#[derive(Debug)]
pub struct Ctxt<'p> {
    /// The right-hand side and its state.
    pub cell: Cell<'p>,
    /// The enclosing entry (counted), or `NIL`.
    pub next: CtxtId,
    /// References to this entry.
    pub rc: u32,
    /// Whether the context pointer inside this entry's own cell points back at the
    /// entry and is not counted (see the module documentation).
    pub self_ref: bool,
    /// The binder (name, plicity and type annotation); `None` for anonymous cells
    /// such as constructor fields.
    pub binder: Option<&'p Binder>,
}

/// The state of a context entry's right-hand side.
#[derive(Debug)]
pub enum Cell<'p> {
    /// An open binder: no right-hand side (a weak head normal form when needed).
    Open,
    /// Not yet evaluated: code and the entry where its context ends (counted unless
    /// it is the entry itself, see [`Ctxt::self_ref`]).
    Suspended(&'p RcTerm, CtxtId),
    /// Not yet evaluated, wound into a stack (owned).
    Wound(StackId),
    /// Being evaluated, by this fiber ([`crate::machine::oldsched`]; always 0 without a scheduler):
    /// the same fiber needing it again before it is done is an infinite loop.
    Blackholed(u32),
    /// Evaluated.
    Value(Value<'p>),
    /// The same as another entry (counted).
    Ind(CtxtId),
    /// A freed slot.
    Free,
}

/// The explicit fields of a constructor value, or the arguments of a partial
/// application: context entries (each counted), shared by every copy of the value.
#[derive(Debug, Default)]
pub struct Block {
    /// References to this block.
    pub rc: u32,
    len: u32,
    inline: [CtxtId; 2],
    spill: Vec<CtxtId>,
}

impl Block {
    /// The entries, in order.
    pub fn cells(&self) -> &[CtxtId] {
        if self.len as usize <= self.inline.len() {
            &self.inline[..self.len as usize]
        } else {
            &self.spill
        }
    }
}

/// Something whose count reached zero, waiting to be destroyed.
#[derive(Debug, Clone, Copy)]
enum Garbage {
    Ctxt(CtxtId),
    Block(BlockId),
    Stack(StackId),
}

/// The machine's heap.
#[derive(Debug, Default)]
pub struct Heap<'p> {
    /// Context entries.
    pub ctxts: Arena<Ctxt<'p>>,
    /// Field and argument blocks.
    pub blocks: Arena<Block>,
    /// Wound stacks.
    pub stacks: Arena<Stack<'p>>,
    garbage: Vec<Garbage>,
}

impl<'p> Heap<'p> {
    /// Allocates an entry with one reference (the caller's).
    #[inline]
    pub fn new_ctxt(&mut self, cell: Cell<'p>, next: CtxtId, binder: Option<&'p Binder>) -> CtxtId {
        self.ctxts.alloc(Ctxt {
            cell,
            next,
            rc: 1,
            self_ref: false,
            binder,
        })
    }

    /// The entry behind a handle.
    #[inline]
    pub fn ctxt(&self, c: CtxtId) -> &Ctxt<'p> {
        self.ctxts.get(c)
    }

    /// The entry behind a handle, mutably.
    #[inline]
    pub fn ctxt_mut(&mut self, c: CtxtId) -> &mut Ctxt<'p> {
        self.ctxts.get_mut(c)
    }

    /// Follows [`Cell::Ind`] links to the entry that holds the right-hand side.
    #[inline]
    pub fn resolve(&self, mut c: CtxtId) -> CtxtId {
        while let Cell::Ind(t) = self.ctxts.get(c).cell {
            c = t;
        }
        c
    }

    /// The entry `ix` links up the chain from `c`.
    #[inline]
    pub fn walk(&self, mut c: CtxtId, ix: u32) -> CtxtId {
        for _ in 0..ix {
            c = self.ctxts.get(c).next;
        }
        c
    }

    /// Takes one more reference to an entry.
    #[inline]
    pub fn retain(&mut self, c: CtxtId) {
        if c != NIL {
            self.ctxts.get_mut(c).rc += 1;
        }
    }

    /// Drops one reference to an entry, destroying it (and what only it held) when
    /// none remain.
    #[inline]
    pub fn release(&mut self, c: CtxtId) {
        if c != NIL {
            let e = self.ctxts.get_mut(c);
            e.rc -= 1;
            if e.rc == 0 {
                self.collect(Garbage::Ctxt(c));
            }
        }
    }

    /// Allocates a block holding `cells` (their references move into the block).
    pub fn new_block(&mut self, cells: &[CtxtId]) -> BlockId {
        if cells.is_empty() {
            return NIL;
        }
        let mut b = Block {
            rc: 1,
            len: cells.len() as u32,
            ..Block::default()
        };
        if cells.len() <= b.inline.len() {
            b.inline[..cells.len()].copy_from_slice(cells);
        } else {
            b.spill = cells.to_vec();
        }
        self.blocks.alloc(b)
    }

    /// The entries of a block (`NIL` is the empty block).
    #[inline]
    pub fn block(&self, b: BlockId) -> &[CtxtId] {
        if b == NIL {
            &[]
        } else {
            self.blocks.get(b).cells()
        }
    }

    /// Drops one reference to a block.
    #[inline]
    pub fn release_block(&mut self, b: BlockId) {
        if b != NIL {
            let blk = self.blocks.get_mut(b);
            blk.rc -= 1;
            if blk.rc == 0 {
                self.collect(Garbage::Block(b));
            }
        }
    }

    /// Takes the references a copy of `v` needs.
    #[inline]
    pub fn retain_value(&mut self, v: &Value<'p>) {
        match *v {
            Value::Con(_, b) if b != NIL => {
                self.blocks.get_mut(b).rc += 1;
            }
            Value::Fun(_, env) | Value::Pi(_, env) | Value::Stuck(_, env) => self.retain(env),
            Value::Partial(h, b) => {
                if let PartialHead::Open(o) = h {
                    self.retain(o);
                }
                if b != NIL {
                    self.blocks.get_mut(b).rc += 1;
                }
            }
            _ => {}
        }
    }

    /// Drops the references held by a value.
    #[inline]
    pub fn release_value(&mut self, v: Value<'p>) {
        match v {
            Value::Con(_, b) => self.release_block(b),
            Value::Fun(_, env) | Value::Pi(_, env) | Value::Stuck(_, env) => self.release(env),
            Value::Partial(h, b) => {
                if let PartialHead::Open(o) = h {
                    self.release(o);
                }
                self.release_block(b);
            }
            _ => {}
        }
    }

    /// A counted copy of an evaluated value.
    #[inline]
    pub fn copy_value(&mut self, v: &Value<'p>) -> Value<'p> {
        self.retain_value(v);
        v.clone()
    }

    /// Destroys a wound stack and everything only it holds.
    pub fn release_stack(&mut self, s: StackId) {
        if s != NIL {
            self.collect(Garbage::Stack(s));
        }
    }

    #[inline]
    fn drop_ref(&mut self, c: CtxtId) {
        if c != NIL {
            let e = self.ctxts.get_mut(c);
            e.rc -= 1;
            if e.rc == 0 {
                self.garbage.push(Garbage::Ctxt(c));
            }
        }
    }

    #[inline]
    fn drop_block(&mut self, b: BlockId) {
        if b != NIL {
            let blk = self.blocks.get_mut(b);
            blk.rc -= 1;
            if blk.rc == 0 {
                self.garbage.push(Garbage::Block(b));
            }
        }
    }

    /// Drops what a value held, from inside the collector (`owner` is the entry the
    /// value was stored in, for the uncounted self reference).
    fn drop_value(&mut self, v: Value<'p>, owner: CtxtId, self_ref: bool) {
        match v {
            Value::Con(_, b) => self.drop_block(b),
            Value::Fun(_, env) | Value::Pi(_, env) if !(self_ref && env == owner) => {
                self.drop_ref(env)
            }
            Value::Stuck(_, x) => self.drop_ref(x),
            Value::Partial(h, b) => {
                if let PartialHead::Open(o) = h {
                    self.drop_ref(o);
                }
                self.drop_block(b);
            }
            _ => {}
        }
    }

    /// The destructor: frees `first` and, transitively, everything whose count drops
    /// to zero, with an explicit worklist.
    fn collect(&mut self, first: Garbage) {
        self.garbage.push(first);
        while let Some(g) = self.garbage.pop() {
            match g {
                Garbage::Ctxt(c) => {
                    let e = self.ctxts.get_mut(c);
                    let cell = std::mem::replace(&mut e.cell, Cell::Free);
                    let next = e.next;
                    let self_ref = e.self_ref;
                    e.binder = None;
                    self.ctxts.release(c);
                    self.drop_ref(next);
                    match cell {
                        Cell::Suspended(_, env) => {
                            if !(self_ref && env == c) {
                                self.drop_ref(env)
                            }
                        }
                        Cell::Value(v) => self.drop_value(v, c, self_ref),
                        Cell::Ind(t) => self.drop_ref(t),
                        Cell::Wound(s) if s != NIL => self.garbage.push(Garbage::Stack(s)),
                        Cell::Wound(_) | Cell::Open | Cell::Blackholed(_) | Cell::Free => {}
                    }
                }
                Garbage::Block(b) => {
                    let blk = std::mem::take(self.blocks.get_mut(b));
                    self.blocks.release(b);
                    for &c in blk.cells() {
                        self.drop_ref(c);
                    }
                }
                Garbage::Stack(s) => {
                    let st = self.stacks.get_mut(s);
                    let head = std::mem::replace(&mut st.head, Head::Free);
                    let (ctx, apps) = (st.ctx, st.apps);
                    self.stacks.release(s);
                    match head {
                        Head::Var(c) => self.drop_ref(c),
                        Head::Match(_, scrut) if scrut != NIL => {
                            self.garbage.push(Garbage::Stack(scrut))
                        }
                        Head::Value(v) => self.drop_value(v, NIL, false),
                        _ => {}
                    }
                    let mut a = apps;
                    while a != NIL {
                        let next = self.stacks.get(a).sib;
                        self.garbage.push(Garbage::Stack(a));
                        a = next;
                    }
                    self.drop_ref(ctx);
                }
            }
        }
    }
}
