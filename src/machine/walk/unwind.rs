//! One generic walk, and the folds that are walks of it (DESIGN.md section 2).
//!
//! [`depth_first`] is the walk: depth first over the nodes of a [`Walk`], with an
//! explicit stack (it never recurses natively, so a million-element list or a
//! million-thunk chain costs heap, not native stack). Going into a node pushes the
//! nodes to go into next; a node may leave a post-order step, taken once everything
//! it pushed is done. Every traversal of the machine's state is an instance of it
//! (each monomorphised, so each compiles to its own specialised loop):
//!
//! - the folds over heap objects ([`Fold`], walked by [`walk`]): their nodes are
//!   objects, their edges every counted reference between objects ([`children`], the
//!   one place that knows which references an object holds), and they have no
//!   post-order steps. [`unwind`] walks one from every root the machine holds (the
//!   running fiber's control, frames and side stacks; the parked fibers' through the
//!   scheduler; the printer's pending parts; the definitions' pinned values). These
//!   folds are the reference-count audit and the reachability audit
//!   ([`Sight::audit`]), the census behind the statistics ([`Sight::census`]), the
//!   destruction of what is no longer referenced (`Heap::collect`: an edge counts one
//!   reference less and goes into the object when none is left; going into an object
//!   frees it), and the scheduler's search for speculative work in built data
//!   ([`Frontier`]);
//! - readback ([`super::readback`]): its nodes are words at a binder depth (and code
//!   in a record, a function's lambdas), its edges follow the variables of compiled
//!   code into record chains rather than every slot of a record, and its post-order
//!   step builds a node's term from its parts' terms;
//! - printing ([`super::print`]): its nodes are the parts of the value still to print;
//!   going into one needs it (so a step of this walk may run the machine: printing
//!   streams, LANGUAGE.md 9), writes what it knows and pushes its fields.
//!
//! The scheduler's frame scan ([`crate::sched`]) is not a walk but the choice of
//! roots for [`Frontier`]: per frame a fiber pushed since it last parked, which parts
//! are certainly needed (a fiber of their own) and which may be (the frontier).
//!
//! The cycle collector ([`crate::machine::cycles`]), which counts references inside a set of
//! objects, follows the same edges through [`children`].

use super::Sight;
use crate::machine::frame::Control;
use crate::machine::heap::{Heap, PapHead, ThunkState};
use crate::machine::host::HeldRef;
use crate::machine::value::{NIL, Ref, Val};

/// A heap object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Obj {
    /// A thunk.
    Thunk(Ref),
    /// A record.
    Rec(Ref),
    /// A constructor value.
    Con(Ref),
    /// A string.
    Str(Ref),
    /// A function.
    Fun(Ref),
    /// A partial application.
    Pap(Ref),
    /// A dependent function type.
    Pi(Ref),
    /// A stuck match.
    Stuck(Ref),
}

impl Obj {
    /// The object a word points at, if it points at one.
    pub fn of(v: Val) -> Option<Obj> {
        Some(match v {
            Val::Thunk(r) => Obj::Thunk(r),
            Val::Con(r) => Obj::Con(r),
            Val::Str(r) => Obj::Str(r),
            Val::Fun(r) => Obj::Fun(r),
            Val::Pap(r) => Obj::Pap(r),
            Val::Pi(r) => Obj::Pi(r),
            Val::Stuck(r) => Obj::Stuck(r),
            _ => return None,
        })
    }

    /// The object a held reference points at.
    pub fn of_held(h: HeldRef) -> Option<Obj> {
        match h {
            HeldRef::Val(v) => Obj::of(v),
            HeldRef::Rec(r) if r != NIL => Some(Obj::Rec(r)),
            HeldRef::Rec(_) => None,
        }
    }
}

/// Calls `f` on every counted reference object `o` holds, in order.
#[inline]
pub fn children(heap: &Heap, o: Obj, f: &mut impl FnMut(Obj)) {
    #[inline(always)]
    fn val(v: Val, f: &mut impl FnMut(Obj)) {
        if let Some(x) = Obj::of(v) {
            f(x)
        }
    }
    #[inline(always)]
    fn rec(r: Ref, f: &mut impl FnMut(Obj)) {
        if r != NIL {
            f(Obj::Rec(r))
        }
    }
    match o {
        Obj::Thunk(r) => match heap.thunks.get(r).state {
            ThunkState::Suspended { env, .. } => rec(env, f),
            ThunkState::Done(v) => val(v, f),
            ThunkState::Blackholed { .. } | ThunkState::Failed(_) => {}
        },
        Obj::Rec(r) => {
            let o = heap.recs.get(r);
            rec(o.parent, f);
            for &w in o.slots.get(&heap.words) {
                val(w, f);
            }
        }
        Obj::Con(r) => {
            for &w in heap.fields(r) {
                val(w, f);
            }
        }
        Obj::Str(_) => {}
        Obj::Fun(r) => rec(heap.funs.get(r).env, f),
        Obj::Pap(r) => {
            let o = heap.paps.get(r);
            if let PapHead::Fun(x) = o.head {
                f(Obj::Fun(x));
            }
            for &w in heap.words.get(o.args) {
                val(w, f);
            }
        }
        Obj::Pi(r) => rec(heap.pis.get(r).env, f),
        Obj::Stuck(r) => {
            let o = heap.stucks.get(r);
            rec(o.env, f);
            val(o.scrut, f);
        }
    }
}

/// The reference count of a live object.
pub fn count(heap: &Heap, o: Obj) -> u32 {
    match o {
        Obj::Thunk(r) => heap.thunks.get(r).rc,
        Obj::Rec(r) => heap.recs.get(r).rc,
        Obj::Con(r) => heap.cons.get(r).rc,
        Obj::Str(r) => heap.strs.get(r).rc,
        Obj::Fun(r) => heap.funs.get(r).rc,
        Obj::Pap(r) => heap.paps.get(r).rc,
        Obj::Pi(r) => heap.pis.get(r).rc,
        Obj::Stuck(r) => heap.stucks.get(r).rc,
    }
}

/// Whether an object is live (not freed).
pub fn is_live(heap: &Heap, o: Obj) -> bool {
    match o {
        Obj::Thunk(r) => heap.thunks.is_live(r),
        Obj::Rec(r) => heap.recs.is_live(r),
        Obj::Con(r) => heap.cons.is_live(r),
        Obj::Str(r) => heap.strs.is_live(r),
        Obj::Fun(r) => heap.funs.is_live(r),
        Obj::Pap(r) => heap.paps.is_live(r),
        Obj::Pi(r) => heap.pis.is_live(r),
        Obj::Stuck(r) => heap.stucks.is_live(r),
    }
}

/// Every live object of the heap.
pub fn live_objects(heap: &Heap) -> Vec<Obj> {
    let mut out = Vec::with_capacity(heap.live_objects());
    out.extend(heap.thunks.live_handles().map(Obj::Thunk));
    out.extend(heap.recs.live_handles().map(Obj::Rec));
    out.extend(heap.cons.live_handles().map(Obj::Con));
    out.extend(heap.strs.live_handles().map(Obj::Str));
    out.extend(heap.funs.live_handles().map(Obj::Fun));
    out.extend(heap.paps.live_handles().map(Obj::Pap));
    out.extend(heap.pis.live_handles().map(Obj::Pi));
    out.extend(heap.stucks.live_handles().map(Obj::Stuck));
    out
}

/// A depth-first traversal of a graph, walked with an explicit stack ([`depth_first`]):
/// the one walk behind every fold of the heap ([`Fold`], through [`walk`]) and behind
/// readback ([`super::readback`]), whose nodes are words at a binder depth and whose
/// post-order steps build terms from their children's terms.
pub trait Walk {
    /// What the walk goes into.
    type Node;
    /// What is left to do for a node once the nodes it pushed, and everything they
    /// lead to, are done (its post-order step).
    type Exit;
    /// Goes into `n`: pushes on `work` the nodes to go into next (the last pushed is
    /// gone into first), and returns the node's post-order step, if it has one.
    fn enter(&mut self, n: Self::Node, work: &mut Vec<Self::Node>) -> Option<Self::Exit>;
    /// Takes a post-order step.
    fn exit(&mut self, x: Self::Exit);
}

/// Walks from the nodes on `work` (the top one first), depth first, without native
/// recursion: each node is entered ([`Walk::enter`]) when it is popped, and its
/// post-order step ([`Walk::exit`]) is taken once the stack is back to the height it
/// had below the node, that is, once all the node pushed is done (so a node's
/// children are entered in order, and a child's step comes before its next sibling is
/// entered, as in a recursive walk).
///
/// `exits` (empty, and left empty) holds the pending post-order steps, each with the
/// stack height it waits for (the heights never decrease towards the top); it is
/// scratch space that a caller walking often keeps. A walk without steps (`Exit` has
/// no values) passes a new vector, never pushes on it, and the checks compile to
/// nothing.
#[inline]
pub fn depth_first<W: Walk>(w: &mut W, work: &mut Vec<W::Node>, exits: &mut Vec<(W::Exit, usize)>) {
    loop {
        while exits.last().is_some_and(|&(_, at)| at == work.len()) {
            if let Some((x, _)) = exits.pop() {
                w.exit(x);
            }
        }
        let Some(n) = work.pop() else { break };
        let at = work.len();
        if let Some(x) = w.enter(n, work) {
            exits.push((x, at));
        }
    }
}

/// A fold over the heap: a walk along the counted references between objects (see
/// [`walk`]).
pub trait Fold {
    /// The heap walked.
    fn heap(&self) -> &Heap;
    /// A reference held from outside the heap (a root); whether to go into `o`.
    fn root(&mut self, o: Obj) -> bool {
        self.edge(o)
    }
    /// A counted reference to `o`; whether to go into `o`.
    fn edge(&mut self, o: Obj) -> bool;
    /// Going into `o`: its references have been read (so the fold may free it) and
    /// are followed next.
    #[inline(always)]
    fn visit(&mut self, _o: Obj) {}
}

/// A [`Fold`] as a [`Walk`] of objects: going into an object reads its references
/// ([`children`]) into `refs`, visits it, and asks about each reference (last first)
/// whether to go into what it reaches. No post-order steps.
struct Objects<'a, F> {
    fold: &'a mut F,
    refs: &'a mut Vec<Obj>,
}

impl<F: Fold> Walk for Objects<'_, F> {
    type Node = Obj;
    type Exit = std::convert::Infallible;

    #[inline(always)]
    fn enter(&mut self, o: Obj, work: &mut Vec<Obj>) -> Option<Self::Exit> {
        self.refs.clear();
        children(self.fold.heap(), o, &mut |c| self.refs.push(c));
        self.fold.visit(o);
        for &c in self.refs.iter().rev() {
            if self.fold.edge(c) {
                work.push(c);
            }
        }
        None
    }

    #[inline(always)]
    fn exit(&mut self, x: Self::Exit) {
        match x {}
    }
}

/// Walks a [`Fold`] from the objects on `work` (gone into already: each gets
/// [`Fold::visit`]), depth first, each object's references in order: the generic
/// [`depth_first`] walk over objects. `refs` is scratch space (kept by callers that
/// walk often, so that a walk allocates nothing).
#[inline]
pub fn walk<F: Fold>(f: &mut F, work: &mut Vec<Obj>, refs: &mut Vec<Obj>) {
    depth_first(&mut Objects { fold: f, refs }, work, &mut Vec::new());
}

impl<'a, 'p> Sight<'a, 'p> {
    /// Calls `f` on every reference the running fiber's stacks hold, and `ctl`, its
    /// control, if the caller has it.
    pub(crate) fn running_refs(&self, ctl: Option<&Control>, f: &mut dyn FnMut(HeldRef)) {
        self.stacks.refs(ctl, f);
    }

    /// Calls `f` on every reference the machine holds from outside the heap: the
    /// running fiber (with `ctl`, its control, if the caller has it), the parked
    /// fibers and what else the host holds, the printer, the pinned definitions, the
    /// paused control.
    pub fn roots(&self, ctl: Option<&Control>, f: &mut dyn FnMut(HeldRef)) {
        self.running_refs(ctl, f);
        if let Some(p) = &self.run.paused {
            crate::machine::frame::control_refs(p, f);
        }
        if let Some(h) = &self.host {
            h.held(f);
        }
        for t in &self.printer.printing {
            t.refs(f);
        }
        for v in self.pinned() {
            f(HeldRef::Val(v));
        }
    }
}

/// Walks the machine state from its roots ([`Sight::roots`]), calling the fold on
/// every edge.
pub fn unwind<F: Fold>(m: &Sight<'_, '_>, ctl: Option<&Control>, f: &mut F) {
    let mut work: Vec<Obj> = Vec::new();
    m.roots(ctl, &mut |h| {
        if let Some(o) = Obj::of_held(h)
            && f.root(o)
        {
            work.push(o);
        }
    });
    walk(f, &mut work, &mut Vec::new());
}

/// The search for work in data already built (the scheduler's frontier, the printer's
/// look-ahead): the thunks not evaluated yet among what some words hold, each word
/// itself or, inside constructor values (the elements of a list literal), up to a
/// budget of them deep; in order, depth first.
pub struct Frontier<'h> {
    heap: &'h Heap,
    budget: usize,
    /// The thunks found (not counted: the caller retains what it keeps).
    found: Vec<Val>,
    /// The fibers evaluating the thunks met being evaluated, when asked for.
    owners: Option<Vec<u32>>,
}

impl<'h> Frontier<'h> {
    /// The suspended thunks (at most `most`) that `words` hold, the first word's
    /// first, looking into at most `budget` constructor values.
    pub fn search(heap: &'h Heap, words: &[Val], budget: usize, most: usize) -> Vec<Val> {
        Frontier::run(heap, words, budget, most, None).0
    }

    /// [`Frontier::search`], and the fibers evaluating the thunks it meets being
    /// evaluated (black holes): a value certainly needed whole needs their work too.
    pub fn search_with_owners(
        heap: &'h Heap,
        words: &[Val],
        budget: usize,
        most: usize,
    ) -> (Vec<Val>, Vec<u32>) {
        Frontier::run(heap, words, budget, most, Some(Vec::new()))
    }

    fn run(
        heap: &'h Heap,
        words: &[Val],
        budget: usize,
        most: usize,
        owners: Option<Vec<u32>>,
    ) -> (Vec<Val>, Vec<u32>) {
        let mut f = Frontier {
            heap,
            budget,
            found: Vec::new(),
            owners,
        };
        let (mut work, mut refs) = (Vec::new(), Vec::new());
        for &v in words {
            if let Some(o) = Obj::of(v)
                && f.root(o)
            {
                work.push(o);
                walk(&mut f, &mut work, &mut refs);
            }
            if f.found.len() >= most {
                break;
            }
        }
        f.found.truncate(most);
        (f.found, f.owners.unwrap_or_default())
    }
}

impl Fold for Frontier<'_> {
    fn heap(&self) -> &Heap {
        self.heap
    }

    fn edge(&mut self, o: Obj) -> bool {
        match o {
            Obj::Thunk(t) => match self.heap.thunks.get(t).state {
                ThunkState::Suspended { .. } => {
                    self.found.push(Val::Thunk(t));
                    false
                }
                // Its value, if that is data to look into.
                ThunkState::Done(Val::Con(_)) => true,
                ThunkState::Blackholed { fiber, .. } => {
                    if let Some(o) = &mut self.owners {
                        o.push(fiber);
                    }
                    false
                }
                _ => false,
            },
            Obj::Con(_) if self.budget > 0 => {
                self.budget -= 1;
                true
            }
            _ => false,
        }
    }
}

/// The reference-count audit: every live object's count equals the references the
/// walk finds to it, and every live object is reached (nothing unreachable stays
/// alive). `cycles_ok` tolerates unreachable objects (cyclic garbage the cycle
/// collector has not taken yet).
struct Audit<'h> {
    heap: &'h Heap,
    counts: std::collections::HashMap<Obj, u32>,
}

impl Fold for Audit<'_> {
    fn heap(&self) -> &Heap {
        self.heap
    }

    fn edge(&mut self, o: Obj) -> bool {
        let c = self.counts.entry(o).or_insert(0);
        *c += 1;
        *c == 1
    }
}

impl<'a, 'p> Sight<'a, 'p> {
    /// Checks that reference counts are exact and (unless `cycles_ok`) that nothing
    /// unreachable is alive; `ctl` is the control the caller holds, if any.
    pub fn audit(&self, ctl: Option<&Control>, cycles_ok: bool) -> Result<(), String> {
        let mut a = Audit {
            heap: self.heap,
            counts: std::collections::HashMap::new(),
        };
        unwind(self, ctl, &mut a);
        let mut problems = Vec::new();
        for (&o, &n) in &a.counts {
            if !is_live(self.heap, o) {
                problems.push(format!("{o:?} is referenced {n} times but freed"));
                continue;
            }
            let rc = count(self.heap, o);
            if rc != n && !(cycles_ok && rc > n) {
                problems.push(format!("{o:?} has count {rc} but {n} references"));
            }
        }
        for o in live_objects(self.heap) {
            if !a.counts.contains_key(&o) && !cycles_ok {
                problems.push(format!(
                    "{o:?} is alive but unreachable (count {})",
                    count(self.heap, o)
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            problems.sort();
            problems.truncate(10);
            Err(problems.join("; "))
        }
    }

    /// How many objects of each kind the state reaches (a census, for statistics).
    pub fn census(&self) -> [usize; 8] {
        struct Census<'h>(&'h Heap, [usize; 8], std::collections::HashSet<Obj>);
        impl Fold for Census<'_> {
            fn heap(&self) -> &Heap {
                self.0
            }
            fn edge(&mut self, o: Obj) -> bool {
                if !self.2.insert(o) {
                    return false;
                }
                let i = match o {
                    Obj::Thunk(_) => 0,
                    Obj::Rec(_) => 1,
                    Obj::Con(_) => 2,
                    Obj::Str(_) => 3,
                    Obj::Fun(_) => 4,
                    Obj::Pap(_) => 5,
                    Obj::Pi(_) => 6,
                    Obj::Stuck(_) => 7,
                };
                self.1[i] += 1;
                true
            }
        }
        let mut c = Census(self.heap, [0; 8], Default::default());
        unwind(self, self.run.paused.as_ref(), &mut c);
        c.1
    }
}
