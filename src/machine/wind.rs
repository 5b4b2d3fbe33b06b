//! Winding (Rogers' Fig. 2): a core term becomes a stack, eagerly, all the way down
//! (arguments and scrutinees are wound into sub-stacks; lambda bodies with nothing
//! pending, `Pi` types, match arms and recursive `let` right-hand sides stay code).
//!
//! Walking down the left spine: an application pushes its argument as a pending
//! application (a sub-stack whose context ends at the current entry); a lambda pops
//! the innermost pending application into a context entry `x : A = arg`; a `let`
//! pushes an entry whose right-hand side's context ends at the entry itself; the walk
//! ends at a head. A lambda with nothing pending is a function value, kept as code in
//! the stack's context. A `let` right-hand side stays suspended code whose context
//! ends at its own entry (so the entry's reference to itself need not be counted). Sub-terms are wound from an explicit worklist, so winding a
//! deep term never recurses natively.

use super::arena::NIL;
use super::heap::{Cell, Heap};
use super::stack::{Head, Stack};
use super::value::{CtxtId, StackId};
use crate::core::term::{Plicity, RcTerm, Term};

/// Winds `t`, whose free variables are bound by the chain of entries from `ctx`,
/// into a new stack ending at `ctx`. Returns the stack (owned by the caller).
pub fn wind<'p>(heap: &mut Heap<'p>, t: &'p RcTerm, ctx: CtxtId) -> StackId {
    let root = blank(heap, ctx, Plicity::Explicit);
    let mut jobs: Vec<(&'p RcTerm, StackId)> = vec![(t, root)];
    let mut pending: Vec<StackId> = Vec::new();
    while let Some((t, s)) = jobs.pop() {
        let end = heap.stacks.get(s).end;
        heap.retain(end);
        let mut cur = end;
        let mut t = t;
        pending.clear();
        let head = loop {
            match &**t {
                Term::App(f, pl, a) => {
                    let arg = blank(heap, cur, *pl);
                    jobs.push((a, arg));
                    pending.push(arg);
                    t = f;
                }
                Term::Lam(b, body) if !pending.is_empty() => {
                    // `pending` holds outermost first: the innermost is the last.
                    let arg = pending.pop().expect("pending application");
                    cur = heap.new_ctxt(Cell::Wound(arg), cur, Some(b));
                    t = body;
                }
                Term::Let(b, rhs, body) => {
                    // A recursive right-hand side stays suspended: its context ends at
                    // the entry itself, a self reference the entry does not count
                    // (winding it would make a cycle of counted references).
                    let x = heap.new_ctxt(Cell::Open, cur, Some(b));
                    let e = heap.ctxt_mut(x);
                    e.cell = Cell::Suspended(rhs, x);
                    e.self_ref = true;
                    cur = x;
                    t = body;
                }
                Term::Match(m) => {
                    let scrut = blank(heap, cur, Plicity::Explicit);
                    jobs.push((&m.scrut, scrut));
                    break Head::Match(m, scrut);
                }
                Term::Var(ix) => {
                    let c = heap.walk(cur, ix.0);
                    heap.retain(c);
                    break Head::Var(c);
                }
                Term::Def(d) => break Head::Def(*d),
                Term::Data(d) => break Head::Data(*d),
                Term::Con(c) => break Head::Con(*c),
                Term::Extern(e) => break Head::Extern(*e),
                Term::Prim(p, span) => break Head::Prim(*p, *span),
                Term::PrimType(p) => break Head::PrimType(*p),
                Term::Lit(l) => break Head::Lit(l.clone()),
                Term::Universe(n) => break Head::Universe(*n),
                Term::Hole(..) => break Head::Hole(t),
                Term::Lam(..) | Term::Pi(..) | Term::Ann(..) => break Head::Code(t),
            }
        };
        // Link the pending applications innermost first.
        let mut apps = NIL;
        for &a in pending.iter() {
            heap.stacks.get_mut(a).sib = apps;
            apps = a;
        }
        let st = heap.stacks.get_mut(s);
        st.head = head;
        st.ctx = cur;
        st.apps = apps;
    }
    root
}

/// A stack record to be filled in, ending at `end`.
fn blank<'p>(heap: &mut Heap<'p>, end: CtxtId, plicity: Plicity) -> StackId {
    heap.stacks.alloc(Stack {
        head: Head::Free,
        ctx: NIL,
        end,
        apps: NIL,
        sib: NIL,
        plicity,
    })
}
