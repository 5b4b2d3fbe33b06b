//! Statistics of a wound stack as a [`Fold`]: how many stacks, context entries, open
//! binders and pending applications it is made of (the `:stack` view and tests use it).

use super::heap::Heap;
use super::unwind::{Entry, Fold, unwind};
use super::value::{CtxtId, StackId};
use crate::core::term::Plicity;

/// Counts of the parts of a wound stack.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Census {
    /// Stack records (spines).
    pub stacks: usize,
    /// Context entries.
    pub contexts: usize,
    /// Open binders among them.
    pub open: usize,
    /// Pending applications.
    pub applications: usize,
}

/// The census fold.
#[derive(Default)]
pub struct CensusFold(pub Census);

/// Counts the parts of a wound stack.
pub fn census(heap: &mut Heap<'_>, s: StackId) -> Census {
    let mut f = CensusFold::default();
    unwind(heap, &mut f, s);
    f.0
}

impl<'p> Fold<'p> for CensusFold {
    type Out = ();

    fn val(&mut self, _heap: &mut Heap<'p>, _s: StackId, _scrut: Option<()>) {
        self.0.stacks += 1;
    }

    fn let_l(&mut self, _heap: &mut Heap<'p>, _c: CtxtId, entry: Entry<()>, _body: ()) {
        self.0.contexts += 1;
        if matches!(entry, Entry::Open) {
            self.0.open += 1;
        }
    }

    fn let_a(&mut self, _heap: &mut Heap<'p>, _c: CtxtId, _fun: (), _arg: Option<()>) {}

    fn apply(&mut self, _heap: &mut Heap<'p>, _fun: (), _arg: (), _plicity: Plicity) {
        self.0.applications += 1;
    }
}
