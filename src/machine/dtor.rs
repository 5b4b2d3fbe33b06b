//! Destruction (`stack_dtor`) as a [`Fold`]: frees every stack record of a wound stack
//! as the fold passes it (sub-stacks first), dropping the references its heads and
//! contexts hold; context entries go when their counts reach zero. The right-hand
//! side of each entry is destroyed as the fold passes the entry and detached from it:
//! this also breaks the cycle between a recursive `let` entry and its wound
//! right-hand side (which refers back to the entry). The stack must be the caller's
//! alone.

use super::heap::{Cell, Heap};
use super::unwind::{Entry, Fold, unwind};
use super::value::{CtxtId, StackId};
use crate::core::term::Plicity;

/// The destructor fold.
pub struct StackDtor;

/// Destroys a wound stack (owned by the caller) and everything only it holds.
pub fn stack_dtor(heap: &mut Heap<'_>, s: StackId) {
    unwind(heap, &mut StackDtor, s)
}

impl<'p> Fold<'p> for StackDtor {
    type Out = ();

    fn val(&mut self, _heap: &mut Heap<'p>, _s: StackId, _scrut: Option<()>) {}

    fn let_l(&mut self, heap: &mut Heap<'p>, c: CtxtId, _entry: Entry<()>, _body: ()) {
        // The right-hand side, if wound, was destroyed already (sub-stacks first).
        if let Cell::Wound(_) = heap.ctxt(c).cell {
            heap.ctxt_mut(c).cell = Cell::Open;
        }
    }

    fn let_a(&mut self, _heap: &mut Heap<'p>, _c: CtxtId, _fun: (), _arg: Option<()>) {}

    fn apply(&mut self, _heap: &mut Heap<'p>, _fun: (), _arg: (), _plicity: Plicity) {}

    fn done(&mut self, heap: &mut Heap<'p>, s: StackId) {
        // Sub-stacks were finished first; detach them so freeing this record does not
        // free them again.
        let st = heap.stacks.get_mut(s);
        st.apps = super::arena::NIL;
        if let super::stack::Head::Match(_, scrut) = &mut st.head {
            *scrut = super::arena::NIL;
        }
        heap.release_stack(s);
    }
}
