//! An audit of the heap's reference counts, run by tests between evaluation steps.
//!
//! Every counted reference is recounted from the roots (the definitions' pinned
//! entries, the frames and side stacks of the machine, the loop's current control) and
//! from every live entry, block and wound stack; each live entry's and block's count
//! must equal the references found, and nothing may point at a freed slot. Together
//! with the stack invariants ([`invariants`](super::invariants)) this checks that
//! evaluation keeps the stack form and the reference counts consistent at every step.

use super::Machine;
use super::arena::NIL;
use super::frame::{Arg, Frame, Ref, fiber_refs};
use super::heap::Cell;
use super::need::Ctl;
use super::stack::Head;
use super::value::{BlockId, CtxtId, PartialHead, StackId, Value};

/// References found, per slot.
struct Tally {
    ctxts: Vec<u32>,
    blocks: Vec<u32>,
    stacks: Vec<StackId>,
}

impl Tally {
    fn ctxt(&mut self, c: CtxtId) {
        if c != NIL {
            self.ctxts[c as usize] += 1;
        }
    }

    fn block(&mut self, b: BlockId) {
        if b != NIL {
            self.blocks[b as usize] += 1;
        }
    }

    fn value(&mut self, v: &Value<'_>, owner: CtxtId, self_ref: bool) {
        match v {
            Value::Con(_, b) => self.block(*b),
            Value::Fun(_, env) | Value::Pi(_, env) if !(self_ref && *env == owner) => {
                self.ctxt(*env)
            }
            Value::Fun(..) | Value::Pi(..) => {}
            Value::Stuck(_, x) => self.ctxt(*x),
            Value::Partial(h, b) => {
                if let PartialHead::Open(o) = h {
                    self.ctxt(*o);
                }
                self.block(*b);
            }
            _ => {}
        }
    }

    /// The references one fiber's stacks and control hold.
    fn fiber(
        &mut self,
        frames: &[Frame<'_>],
        pargs: &[Arg<'_>],
        pvals: &[Value<'_>],
        eq_work: &[(CtxtId, CtxtId)],
        ctl: Option<&Ctl<'_>>,
    ) {
        fiber_refs(frames, pargs, pvals, eq_work, ctl, &mut |r| match r {
            Ref::Entry(c) => self.ctxt(c),
            Ref::Value(v) => self.value(v, NIL, false),
            Ref::Stack(s) => self.stacks.push(s),
        });
    }
}

impl<'p> Machine<'p> {
    /// Checks every reference count against the references that exist, with `ctl`
    /// the loop's current control (if any).
    pub fn audit(&self, ctl: Option<&Ctl<'p>>) -> Result<(), String> {
        let heap = &self.heap;
        let mut t = Tally {
            ctxts: vec![0; heap.ctxts.capacity()],
            blocks: vec![0; heap.blocks.capacity()],
            stacks: Vec::new(),
        };
        for &d in &self.defs {
            t.ctxt(d);
        }
        t.fiber(&self.frames, &self.pargs, &self.pvals, &self.eq_work, ctl);
        let mut held_values = Vec::new();
        self.printing.each(|c| t.ctxt(c), |v| held_values.push(v));
        for v in held_values {
            t.value(v, NIL, false);
        }
        if let Some(s) = &self.sched {
            for f in s.parked() {
                t.fiber(f.0, f.1, f.2, f.3, f.4);
            }
        }
        for c in 0..heap.ctxts.capacity() as u32 {
            let e = heap.ctxt(c);
            match &e.cell {
                Cell::Free => continue,
                Cell::Suspended(_, env) => {
                    if !(e.self_ref && *env == c) {
                        t.ctxt(*env)
                    }
                }
                Cell::Value(v) => t.value(v, c, e.self_ref),
                Cell::Ind(x) => t.ctxt(*x),
                Cell::Wound(s) => t.stacks.push(*s),
                Cell::Open | Cell::Blackholed(_) => {}
            }
            t.ctxt(e.next);
        }
        for b in 0..heap.blocks.capacity() as u32 {
            let blk = heap.blocks.get(b);
            if blk.rc > 0 {
                for &c in blk.cells() {
                    t.ctxt(c);
                }
            }
        }
        while let Some(s) = t.stacks.pop() {
            if s == NIL {
                continue;
            }
            let st = heap.stacks.get(s);
            match &st.head {
                Head::Var(c) => t.ctxt(*c),
                Head::Value(v) => t.value(v, NIL, false),
                Head::Match(_, scrut) => t.stacks.push(*scrut),
                _ => {}
            }
            t.ctxt(st.ctx);
            let mut a = st.apps;
            while a != NIL {
                t.stacks.push(a);
                a = heap.stacks.get(a).sib;
            }
        }
        for c in 0..heap.ctxts.capacity() {
            let e = heap.ctxt(c as u32);
            let found = t.ctxts[c];
            if matches!(e.cell, Cell::Free) {
                if found > 0 {
                    return Err(format!("{found} references to freed entry {c}"));
                }
            } else if e.rc != found {
                return Err(format!("entry {c}: count {}, references {found}", e.rc));
            }
        }
        for b in 0..heap.blocks.capacity() {
            let blk = heap.blocks.get(b as u32);
            let found = t.blocks[b];
            if blk.rc == 0 {
                if found > 0 {
                    return Err(format!("{found} references to freed block {b}"));
                }
            } else if blk.rc != found {
                return Err(format!("block {b}: count {}, references {found}", blk.rc));
            }
        }
        Ok(())
    }
}
