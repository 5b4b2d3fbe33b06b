//! The backup cycle collector (DESIGN.md section 2; Bacon and Rajan, "Concurrent Cycle
//! Collection in Reference Counted Systems", 2001, the synchronous trial deletion).
//!
//! Reference counting frees everything but cycles: a recursive `let` of data
//! (`let xs = Cons 1 xs`, `repeat`) points back at its own record. When the number of
//! live objects has grown past a threshold, the collector runs trial deletion over the
//! whole heap: it subtracts from each object's count the references other heap objects
//! hold to it; what is left over is held from outside the heap (frames, controls, the
//! definitions, the scheduler, the printer, native callers), so those objects and
//! everything they reach are live; the rest is garbage held only by cycles. It
//! releases what the garbage holds outside itself and frees the garbage. No roots are
//! enumerated, so it may run at any step boundary.
//!
//! It runs when the heap has allocated four times what was live after the last run
//! (and at least [`MIN_THRESHOLD`] objects are live), so its cost is amortized over the
//! allocation; and only if a recursive data `let` was made since (records point
//! outward, so every cycle goes through one of those). The same check unpins the
//! top-level values no live code can reach.

use super::code::{CodeId, CodeStore};
use super::frame::{Control, Frame, FrameCode};
use super::heap::{Heap, ThunkState};
use super::unwind::{Obj, children, count, live_objects};
use super::value::Val;
use super::walk::Sight;
use crate::core::program::Program;
use std::collections::HashMap;

/// How many objects are allocated before long-lived thunks are first trimmed, and at
/// least between two trims (which happen after the heap allocates twice what is live).
pub const TRIM_THRESHOLD: u64 = 1 << 16;

/// The live-object count below which the collector never runs.
pub const MIN_THRESHOLD: usize = 1 << 18;

/// When the cycle collector and the thunk trimmer run next, and what they freed.
pub struct Collector {
    /// Live objects past which the cycle collector runs.
    pub(crate) threshold: usize,
    /// Allocated objects at which long-lived thunks are trimmed next
    /// ([`super::Machine::trim_thunks`]).
    pub(crate) trim_threshold: u64,
    /// Recursive data `let`s made when the cycle collector last ran.
    pub(crate) cyclic_seen: u64,
    /// Objects the cycle collector freed.
    pub collected: u64,
}

impl Default for Collector {
    fn default() -> Collector {
        Collector {
            threshold: MIN_THRESHOLD,
            trim_threshold: TRIM_THRESHOLD,
            cyclic_seen: 0,
            collected: 0,
        }
    }
}

impl Collector {
    /// Whether long-lived thunks are due a trim ([`super::Machine::trim_thunks`]),
    /// the heap having made `allocated` objects.
    #[inline]
    pub(crate) fn trim_due(&self, allocated: u64) -> bool {
        allocated >= self.trim_threshold
    }

    /// Notes a trim done when the heap had made `allocated` objects: the next is due
    /// once it has allocated twice what is live now.
    pub(crate) fn trimmed(&mut self, allocated: u64, heap: &Heap) {
        let live = heap.live_objects() as u64;
        self.trim_threshold = allocated + (2 * live).max(TRIM_THRESHOLD);
    }

    /// Whether the heap, having made `allocated` objects, has grown past the
    /// collector's threshold.
    #[inline]
    pub(crate) fn collect_due(&self, allocated: u64, heap: &Heap) -> bool {
        allocated >= self.threshold as u64 && heap.live_objects() >= MIN_THRESHOLD
    }

    /// Runs the collector if a recursive data `let` was made since it last ran, and
    /// sets the threshold of the next run (the heap having made `allocated` objects
    /// when the check began). Returns how many objects it freed.
    pub(crate) fn collect_if_cyclic(&mut self, allocated: u64, heap: &mut Heap) -> usize {
        let freed = if heap.cyclic != self.cyclic_seen {
            self.collect(heap)
        } else {
            0
        };
        let live = heap.live_objects() as u64;
        self.threshold = (allocated + (4 * live).max(MIN_THRESHOLD as u64)) as usize;
        freed
    }

    /// Frees every object held only by cycles; returns how many were freed.
    pub fn collect(&mut self, heap: &mut Heap) -> usize {
        let freed = collect(heap);
        self.cyclic_seen = heap.cyclic;
        self.collected += freed as u64;
        freed
    }
}

fn collect(heap: &mut Heap) -> usize {
    let objects = live_objects(heap);
    let index: HashMap<Obj, usize> = objects.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    // Trial deletion: the references held from inside the heap.
    let mut inner = vec![0u32; objects.len()];
    for &o in &objects {
        children(heap, o, &mut |c| {
            if let Some(&i) = index.get(&c) {
                inner[i] += 1;
            }
        });
    }
    // Objects with references from outside are live, and so is what they reach.
    let mut live = vec![false; objects.len()];
    let mut work: Vec<usize> = Vec::new();
    for (i, &o) in objects.iter().enumerate() {
        if count(heap, o) > inner[i] {
            live[i] = true;
            work.push(i);
        }
    }
    while let Some(i) = work.pop() {
        children(heap, objects[i], &mut |c| {
            if let Some(&j) = index.get(&c)
                && !live[j]
            {
                live[j] = true;
                work.push(j);
            }
        });
    }
    let garbage: Vec<Obj> = objects
        .iter()
        .enumerate()
        .filter(|(i, _)| !live[*i])
        .map(|(_, o)| *o)
        .collect();
    if garbage.is_empty() {
        return 0;
    }
    // What the garbage holds of the live heap is released; the garbage itself is
    // freed without following its references again.
    let mut held_live: Vec<Obj> = Vec::new();
    for &g in &garbage {
        children(heap, g, &mut |c| {
            if index.get(&c).is_some_and(|&j| live[j]) {
                held_live.push(c);
            }
        });
    }
    for &g in &garbage {
        free_raw(heap, g);
    }
    for c in held_live {
        heap.release_object(c);
    }
    garbage.len()
}

/// Frees an object of cyclic garbage (and its words) without releasing what it
/// refers to; its count is not zero, so it is set to zero first.
fn free_raw(heap: &mut Heap, o: Obj) {
    if let Obj::Thunk(r) = o {
        heap.thunks.get_mut(r).state = ThunkState::Failed(0);
    }
    *heap.count_mut(o) = 0;
    heap.free_object(o);
}

// ----- top-level values no code can reach any more --------------------------------

/// The top-level values (CAFs) that evaluating a core term may need: those it
/// mentions, and those mentioned by the definitions it mentions, transitively.
fn cafs_of_term(
    prog: &crate::core::program::Program,
    t: &crate::core::term::RcTerm,
    memo: &mut HashMap<u32, std::rc::Rc<[u32]>>,
) -> Vec<u32> {
    use crate::core::term::Term;
    let mut out: Vec<u32> = Vec::new();
    let mut defs: Vec<u32> = Vec::new();
    let mut work = vec![t];
    while let Some(t) = work.pop() {
        if let Term::Def(d) = &**t {
            defs.push(d.0);
        }
        t.for_each_child(|c, _| work.push(c));
    }
    for d in defs {
        out.extend(cafs_of_def(prog, d, memo).iter().copied());
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The CAFs definition `d` may need (itself, if it is one), transitively.
fn cafs_of_def(
    prog: &crate::core::program::Program,
    d: u32,
    memo: &mut HashMap<u32, std::rc::Rc<[u32]>>,
) -> std::rc::Rc<[u32]> {
    if let Some(r) = memo.get(&d) {
        return r.clone();
    }
    // Breadth-first over the definitions reachable from `d` (recursion-safe).
    let mut seen = std::collections::HashSet::new();
    let mut queue = vec![d];
    let mut cafs = Vec::new();
    while let Some(e) = queue.pop() {
        if (e as usize) >= prog.defs.len() || !seen.insert(e) {
            continue;
        }
        if !super::analysis::is_function(prog, crate::core::term::DefId(e)) {
            cafs.push(e);
        }
        let mut work = vec![&prog.defs[e as usize].body];
        while let Some(t) = work.pop() {
            if let crate::core::term::Term::Def(x) = &**t {
                queue.push(x.0);
            }
            t.for_each_child(|c, _| work.push(c));
        }
    }
    cafs.sort_unstable();
    let r: std::rc::Rc<[u32]> = cafs.into();
    memo.insert(d, r.clone());
    r
}

/// Unpins the top-level values (`vals`, pinned as thunks) that no code in `codes`
/// (the code that may still run: [`Sight::live_code`]) can refer to any more: their
/// pinned reference goes; if nothing else holds them, they are freed. A value still
/// referenced stays, and code that mentions a definition keeps it pinned. `memo`
/// remembers each definition's CAFs between runs.
pub(crate) fn unpin_dead_cafs(
    prog: &Program,
    code: &CodeStore,
    heap: &mut Heap,
    vals: &mut [Val],
    memo: &mut HashMap<u32, std::rc::Rc<[u32]>>,
    codes: Vec<CodeId>,
) {
    let mut needed = std::collections::HashSet::new();
    for c in codes {
        needed.extend(cafs_of_term(prog, code.meta[c as usize].core, memo));
    }
    for f in heap.funs.live_handles() {
        let core = code.funs[heap.funs.get(f).fun as usize].core;
        needed.extend(cafs_of_term(prog, core, memo));
    }
    for (d, v) in vals.iter_mut().enumerate() {
        if matches!(v, Val::Thunk(_)) && !needed.contains(&(d as u32)) {
            heap.release(std::mem::replace(v, Val::Erased));
        }
    }
}

impl Sight<'_, '_> {
    /// The code that may still run: thunks' not evaluated yet (suspended, or being
    /// evaluated: black-holed), what the frames of every fiber run next
    /// ([`Frame::code`]), and the controls' (`ctl`, the caller's, if it has one; the
    /// paused one). Functions' bodies are not listed (the heap has them).
    pub(crate) fn live_code(&self, ctl: Option<&Control>) -> Vec<CodeId> {
        let mut codes: Vec<u32> = Vec::new();
        for t in self.heap.thunks.live_handles() {
            if let ThunkState::Suspended { code, .. } | ThunkState::Blackholed { code, .. } =
                self.heap.thunks.get(t).state
            {
                codes.push(code);
            }
        }
        let frame_code = |f: &Frame, codes: &mut Vec<u32>| match f.code() {
            Some(FrameCode::Node(c)) => codes.push(c),
            Some(FrameCode::Match(m)) => codes.push(self.code.matches[m as usize].node),
            None => {}
        };
        for f in &self.stacks.frames {
            frame_code(f, &mut codes);
        }
        for c in [ctl, self.run.paused.as_ref()].into_iter().flatten() {
            if let Control::Eval(code, _) = c {
                codes.push(*code);
            }
        }
        if let Some(h) = self.host {
            h.parked(&mut |frames, ctl| {
                for f in frames {
                    frame_code(f, &mut codes);
                }
                if let Some(Control::Eval(code, _)) = ctl {
                    codes.push(*code);
                }
            });
        }
        codes
    }
}
