//! The generic fold over a wound stack (Rogers' Fig. 4, `unwind`), iterative.
//!
//! Unwinding a stack starts from its head ([`Fold::val`]), then walks its context from
//! the innermost entry to the stack's end, wrapping the result: each entry is a binder
//! ([`Fold::let_l`]); a binder paired with an argument is applied to it once the walk
//! reaches the entry where the argument's context ends ([`Fold::let_a`]); a pending
//! application is applied when the walk reaches its end ([`Fold::apply`]). The end
//! pointers alone recover which lambda was paired with which application (Rogers'
//! properties 4-6): a stack's context read from start to end is a parenthesized
//! expression read backwards.
//!
//! Sub-stacks (arguments, right-hand sides, a destructor's scrutinee) are unwound
//! before the callback that consumes their result, from an explicit stack of
//! suspended walks: unwinding never recurses natively, whatever the depth of the term.
//! [`unwind`] is generic over the fold, so each fold is monomorphized and inlined.

use super::arena::NIL;
use super::heap::{Cell, Heap};
use super::stack::Head;
use super::value::{CtxtId, StackId};
use crate::core::term::Plicity;

/// How a context entry relates to the rest of the term.
#[derive(Debug)]
pub enum Entry<O> {
    /// An open binder (an unpaired lambda).
    Open,
    /// A lambda paired with an argument: [`Fold::let_a`] applies it later.
    Paired,
    /// A recursive `let` (its right-hand side's context ends at the entry itself), with
    /// the unwound right-hand side when it is a wound stack.
    Letrec(Option<O>),
}

/// One traversal of the stack form.
pub trait Fold<'p> {
    /// What the fold computes for each stack.
    type Out;

    /// Whether wound right-hand sides of context entries are unwound too (a
    /// destructor leaves them to the entries' reference counts).
    const RHS: bool = true;

    /// Whether a destructor head's scrutinee is unwound before [`Fold::val`] (the
    /// `need` fold evaluates the whole stack in `val` instead).
    const SCRUT: bool = true;

    /// The head of stack `s`, given the result for its scrutinee sub-stack if it is a
    /// destructor. `val` may rewrite the stack (the `need` fold evaluates it): its
    /// context and pending applications are read after `val` returns.
    fn val(&mut self, heap: &mut Heap<'p>, s: StackId, scrut: Option<Self::Out>) -> Self::Out;

    /// A context entry `c` wrapped around `body`.
    fn let_l(
        &mut self,
        heap: &mut Heap<'p>,
        c: CtxtId,
        entry: Entry<Self::Out>,
        body: Self::Out,
    ) -> Self::Out;

    /// The paired binder `c` (already wrapped by `let_l`) applied to its argument (the
    /// unwound right-hand side when it is a wound stack).
    fn let_a(
        &mut self,
        heap: &mut Heap<'p>,
        c: CtxtId,
        fun: Self::Out,
        arg: Option<Self::Out>,
    ) -> Self::Out;

    /// A pending application.
    fn apply(
        &mut self,
        heap: &mut Heap<'p>,
        fun: Self::Out,
        arg: Self::Out,
        plicity: Plicity,
    ) -> Self::Out;

    /// Stack `s` is finished (a destructor frees it here).
    fn done(&mut self, _heap: &mut Heap<'p>, _s: StackId) {}
}

/// Where a suspended walk resumes.
enum State {
    Start,
    AfterScrut,
    Walk,
    AfterRhs(CtxtId, CtxtId),
    AfterApp(StackId),
}

/// A walk in progress over one stack.
struct Walk<O> {
    s: StackId,
    end: CtxtId,
    c: CtxtId,
    app: StackId,
    la_base: usize,
    acc: Option<O>,
    state: State,
}

/// The entry where the right-hand side of `c` has its context end (`c` itself for a
/// recursive binding or an entry without a right-hand side).
fn rhs_end(heap: &Heap<'_>, c: CtxtId) -> CtxtId {
    match heap.ctxt(c).cell {
        Cell::Wound(r) => heap.stacks.get(r).end,
        Cell::Suspended(_, env) => env,
        _ => c,
    }
}

/// What the walk on top asks for next.
enum Next {
    /// Unwind this sub-stack first.
    Sub(StackId),
    /// The walk is finished.
    Done,
}

/// Folds `f` over stack `s`.
pub fn unwind<'p, F: Fold<'p>>(heap: &mut Heap<'p>, f: &mut F, s: StackId) -> F::Out {
    let mut walks: Vec<Walk<F::Out>> = vec![new_walk(heap, s, 0)];
    // Paired binders waiting for their argument: (where it ends, argument, binder).
    let mut la: Vec<(CtxtId, Option<F::Out>, CtxtId)> = Vec::new();
    let mut result: Option<F::Out> = None;
    loop {
        let w = walks.last_mut().expect("walk");
        let next = resume(heap, f, w, &mut la, &mut result);
        match next {
            Next::Sub(sub) => {
                // The sub-stack's walk must not fire the binders pending here.
                let lb = la.len();
                walks.push(new_walk(heap, sub, lb));
            }
            Next::Done => {
                let w = walks.pop().expect("walk");
                f.done(heap, w.s);
                result = w.acc;
                if walks.is_empty() {
                    return result.expect("unwind result");
                }
            }
        }
    }
}

/// Resumes the walk `w` until it needs a sub-stack or is finished.
fn resume<'p, F: Fold<'p>>(
    heap: &mut Heap<'p>,
    f: &mut F,
    w: &mut Walk<F::Out>,
    la: &mut Vec<(CtxtId, Option<F::Out>, CtxtId)>,
    result: &mut Option<F::Out>,
) -> Next {
    match std::mem::replace(&mut w.state, State::Walk) {
        State::Start => {
            if F::SCRUT
                && let Head::Match(_, scrut) = heap.stacks.get(w.s).head
            {
                w.state = State::AfterScrut;
                return Next::Sub(scrut);
            }
            w.acc = Some(f.val(heap, w.s, None));
            reread(heap, w);
        }
        State::AfterScrut => {
            w.acc = Some(f.val(heap, w.s, result.take()));
            reread(heap, w);
        }
        State::AfterRhs(c, bend) => {
            let out = result.take();
            entry(heap, f, w, la, c, bend, out);
        }
        State::AfterApp(a) => {
            let arg = result.take().expect("argument result");
            let pl = heap.stacks.get(a).plicity;
            let next = heap.stacks.get(a).sib;
            let acc = w.acc.take().expect("accumulator");
            w.acc = Some(f.apply(heap, acc, arg, pl));
            w.app = next;
        }
        State::Walk => {}
    }
    loop {
        while la.len() > w.la_base && la.last().map(|l| l.0) == Some(w.c) {
            let (_, arg, x) = la.pop().expect("pending let_a");
            let acc = w.acc.take().expect("accumulator");
            w.acc = Some(f.let_a(heap, x, acc, arg));
        }
        if w.app != NIL && heap.stacks.get(w.app).end == w.c {
            w.state = State::AfterApp(w.app);
            return Next::Sub(w.app);
        }
        if w.c == w.end || w.c == NIL {
            return Next::Done;
        }
        let c = w.c;
        if F::RHS
            && let Cell::Wound(r) = heap.ctxt(c).cell
        {
            w.state = State::AfterRhs(c, heap.stacks.get(r).end);
            return Next::Sub(r);
        }
        let bend = rhs_end(heap, c);
        entry(heap, f, w, la, c, bend, None);
    }
}

/// Reads the stack's context and pending applications again after `val`.
fn reread<O>(heap: &Heap<'_>, w: &mut Walk<O>) {
    let st = heap.stacks.get(w.s);
    w.c = st.ctx;
    w.end = st.end;
    w.app = st.apps;
}

fn new_walk<O>(heap: &Heap<'_>, s: StackId, la_base: usize) -> Walk<O> {
    let st = heap.stacks.get(s);
    Walk {
        s,
        end: st.end,
        c: st.ctx,
        app: st.apps,
        la_base,
        acc: None,
        state: State::Start,
    }
}

/// Passes entry `c` (its unwound right-hand side in `rhs`, if any).
fn entry<'p, F: Fold<'p>>(
    heap: &mut Heap<'p>,
    f: &mut F,
    w: &mut Walk<F::Out>,
    la: &mut Vec<(CtxtId, Option<F::Out>, CtxtId)>,
    c: CtxtId,
    bend: CtxtId,
    rhs: Option<F::Out>,
) {
    let next = heap.ctxt(c).next;
    let acc = w.acc.take().expect("accumulator");
    let open = matches!(heap.ctxt(c).cell, Cell::Open);
    w.acc = Some(if open {
        f.let_l(heap, c, Entry::Open, acc)
    } else if bend == c {
        f.let_l(heap, c, Entry::Letrec(rhs), acc)
    } else {
        la.push((bend, rhs, c));
        f.let_l(heap, c, Entry::Paired, acc)
    });
    w.c = next;
}
