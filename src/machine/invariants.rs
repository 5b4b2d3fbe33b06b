//! A checker for the seven properties of a valid stack (Rogers section 3), run by the
//! tests after winding and after evaluation.
//!
//! For a stack `S` whose own context is the chain of entries from `S.ctx` up to (not
//! including) `S.end`, numbered by position from 0 at `S.ctx`:
//!
//! 1. every sub-stack referenced directly (pending applications, wound right-hand
//!    sides of its own entries) ends at an entry of its context or at its end;
//! 2. every variable it references is on the chain from its context pointer;
//! 3. the sub-stack of its head (a destructor's scrutinee) ends at the start of its
//!    context (`S.ctx`);
//! 4. right-hand-side end points nest: if entry `x`'s argument ends at entry `e`, no
//!    entry strictly between `x` and `e` has an argument ending beyond `e`;
//! 5. pending applications end at ordered places: the innermost (first) one closest
//!    to the start;
//! 6. no pending application ends strictly between a paired binder and the end of its
//!    argument;
//! 7. every open binder of its context is reachable from every pending application
//!    (each application ends at or inside every open binder).
//!
//! Every sub-stack is checked too, from an explicit worklist.

use super::arena::NIL;
use super::heap::{Cell, Heap};
use super::stack::Head;
use super::value::{CtxtId, StackId};
use std::collections::HashMap;

/// Checks stack `s` and its sub-stacks; the error names the first violated property.
pub fn check(heap: &Heap<'_>, s: StackId) -> Result<(), String> {
    let mut work = vec![s];
    while let Some(s) = work.pop() {
        check_one(heap, s, &mut work)?;
    }
    Ok(())
}

fn on_chain(heap: &Heap<'_>, from: CtxtId, target: CtxtId) -> bool {
    let mut e = from;
    loop {
        if e == target {
            return true;
        }
        if e == NIL {
            return false;
        }
        e = heap.ctxt(e).next;
    }
}

fn check_one(heap: &Heap<'_>, s: StackId, work: &mut Vec<StackId>) -> Result<(), String> {
    let st = heap.stacks.get(s);
    // Positions of the stack's own entries; the end has position `len`.
    let mut pos: HashMap<CtxtId, usize> = HashMap::new();
    let mut own: Vec<CtxtId> = Vec::new();
    let mut e = st.ctx;
    while e != st.end {
        if e == NIL {
            return Err(format!("stack {s}: its context does not reach its end"));
        }
        pos.insert(e, own.len());
        own.push(e);
        e = heap.ctxt(e).next;
    }
    let len = own.len();
    pos.insert(st.end, len);
    // Where each own entry's argument or right-hand side ends.
    let mut bends: Vec<Option<usize>> = Vec::with_capacity(len);
    for (i, &c) in own.iter().enumerate() {
        let end = match heap.ctxt(c).cell {
            Cell::Wound(r) => {
                work.push(r);
                Some(heap.stacks.get(r).end)
            }
            Cell::Suspended(_, env) => Some(env),
            _ => None,
        };
        match end {
            None => bends.push(None),
            Some(end) => match pos.get(&end) {
                Some(&p) if p >= i => bends.push(Some(p)),
                _ => {
                    return Err(format!(
                        "property 1: the right-hand side of entry {i} of stack {s} ends outside the stack"
                    ));
                }
            },
        }
    }
    // Property 2 and 3: the head.
    match st.head {
        Head::Var(c) if !on_chain(heap, st.ctx, c) => {
            return Err(format!("property 2: stack {s}'s variable is not in scope"));
        }
        Head::Match(_, scrut) => {
            if heap.stacks.get(scrut).end != st.ctx {
                return Err(format!(
                    "property 3: stack {s}'s scrutinee does not end at the start of its context"
                ));
            }
            work.push(scrut);
        }
        _ => {}
    }
    // Property 4: nesting of argument ends.
    for (i, b) in bends.iter().enumerate() {
        if let Some(p) = *b {
            if p == i {
                continue; // a recursive binding
            }
            for (j, bj) in bends.iter().enumerate().take(p).skip(i + 1) {
                if let Some(q) = *bj
                    && q > p
                {
                    return Err(format!(
                        "property 4: in stack {s}, entry {j}'s argument ends beyond entry {i}'s"
                    ));
                }
            }
        }
    }
    // Properties 1, 5, 6, 7: the pending applications.
    let mut last = 0usize;
    let mut a = st.apps;
    while a != NIL {
        work.push(a);
        let end = heap.stacks.get(a).end;
        let Some(&p) = pos.get(&end) else {
            return Err(format!(
                "property 1: a pending application of stack {s} ends outside the stack"
            ));
        };
        if p < last {
            return Err(format!(
                "property 5: stack {s}'s pending applications are out of order"
            ));
        }
        last = p;
        for (i, b) in bends.iter().enumerate() {
            if let Some(q) = *b
                && q != i
                && p > i
                && p < q
            {
                return Err(format!(
                    "property 6: a pending application of stack {s} ends between entry {i} and its argument"
                ));
            }
        }
        for (i, &c) in own.iter().enumerate() {
            if matches!(heap.ctxt(c).cell, Cell::Open) && p > i {
                return Err(format!(
                    "property 7: open binder {i} of stack {s} is not reachable from a pending application"
                ));
            }
        }
        a = heap.stacks.get(a).sib;
    }
    Ok(())
}
