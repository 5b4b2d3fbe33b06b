//! Loops run in place: the fold over a range (`foldlRange f z lo hi`, what fusion
//! makes of strict folds over `range`/`map`/`filter` pipelines, [`super::fuse`]) with
//! a step the machine computes at once.
//!
//! The prelude's `foldlRange` takes four machine steps per element: the test
//! `lo >= hi`, the strict `let z2 = f z lo`, the `prim_seq`, the call for the next
//! element. When `f` is a function value whose body is arithmetic (cheap, see
//! [`super::words`]) and the accumulator is a value, each element's `f z lo` is
//! computed at once, so the loop runs here, one step per element, until the range
//! ends or a step cannot be computed at hand (an overflow, an accumulator that is not a
//! number). Then the call is made as written, from where the loop got to: its record
//! holds `f`, the accumulator, the next `lo` and `hi`, and the prelude's body goes on.
//! So the loop computes nothing the definition would not, in the same order, and its
//! failures are the definition's own.
//!
//! The loop stops every `LOOP_BATCH` elements, so the evaluation loop still sees its
//! limits and interrupts, and where evaluation is to pause (the paused state is then
//! the definition's call from where the loop got to).

use super::Machine;
use super::code::{Code, CodeId, Fast, SkipLoop};
use super::error::Result;
use super::eval::IMM_DEPTH;
use super::frame::Control;
use super::value::{NIL, Ref, Val};

/// How many elements the loop takes before it hands back to the evaluation loop.
const LOOP_BATCH: u64 = 1024;

impl<'p> Machine<'p> {
    /// A call of `foldlRange` ([`Fast::FoldRange`]) in `env` (owned): the loop in
    /// place when its step is cheap, else `None` (nothing done; the call is made as
    /// usual).
    pub(crate) fn fold_range(&mut self, c: CodeId, env: Ref) -> Option<Result<Control>> {
        let budget = self.step_budget(LOOP_BATCH);
        if budget == 0 {
            return None;
        }
        // Four arguments: compilation marks only such calls (`Fast::FoldRange`).
        let Code::CallDef { def, args, .. } = self.code.nodes[c as usize] else {
            return None;
        };
        let code = |i: u32| self.code.args[(args.start + i) as usize];
        let (fc, zc, loc, hic) = (code(0), code(1), code(2), code(3));
        let (Some(Val::Int(lo)), Some(Val::Int(hi))) =
            (self.imm(loc, env, IMM_DEPTH), self.imm(hic, env, IMM_DEPTH))
        else {
            return None;
        };
        if lo >= hi {
            return None;
        }
        let f = self.imm(fc, env, IMM_DEPTH)?;
        let Some(step) = self.cheap_step(f) else {
            self.heap.release(f);
            return None;
        };
        let Some(mut acc) = self.imm(zc, env, IMM_DEPTH) else {
            self.heap.release(f);
            return None;
        };
        let mut i = lo;
        let end = hi.min(lo.saturating_add(budget as i64));
        while i < end {
            self.heap.retain(acc);
            match self.cheap_step_call(step, acc, i) {
                Some(v) => {
                    self.heap.release(acc);
                    acc = v;
                    i += 1;
                    self.run.steps += 1;
                }
                None => break,
            }
        }
        // The call as written, from where the loop got to.
        let fun = self.fun_of(def);
        let (layout, slots, body) = {
            let fun = &self.code.funs[fun as usize];
            (fun.layout, fun.slots, fun.body)
        };
        let rec = self.heap.record(NIL, layout, slots);
        for (slot, v) in [f, acc, Val::Int(i), Val::Int(hi)].into_iter().enumerate() {
            self.heap.set_slot(rec, slot as u32, v);
        }
        self.heap.release_rec(env);
        Some(Ok(Control::Eval(body, rec)))
    }

    /// The body of a call of a [`SkipLoop`] function, its record `rec` (owned) just
    /// filled: while `lo < hi` and the test is computed at hand to `False`, `lo`
    /// advances in place (the call the body would make next, with the same other
    /// arguments, in a record like this one), one step per element. Then the
    /// machine goes on exactly where it would be: in the body (the range ended, or
    /// the batch), in the arm for `True`, in the `match` on another value, or
    /// evaluating a test not at hand under its `Case` frame.
    pub(crate) fn skip_loop(&mut self, sk: SkipLoop, body: CodeId, rec: Ref) -> Result<Control> {
        let budget = self.step_budget(LOOP_BATCH);
        let scrut = self.code.matches[sk.test as usize].scrut;
        let no = self.prog.builtins.false_;
        let mut taken = 0;
        while taken < budget && self.heap.recs.get(rec).rc == 1 {
            let (Val::Int(lo), Val::Int(hi)) =
                (self.heap.slot(rec, sk.lo), self.heap.slot(rec, sk.hi))
            else {
                break;
            };
            if lo >= hi {
                break;
            }
            let Some(v) = self.imm(scrut, rec, IMM_DEPTH) else {
                return Ok(self.case_later(sk.test, rec));
            };
            if v != Val::Atom(no) {
                if v == Val::Atom(self.prog.builtins.true_) {
                    return Ok(Control::Eval(sk.take, rec));
                }
                return self.case(v, sk.test, rec);
            }
            self.heap.set_slot(rec, sk.lo, Val::Int(lo + 1));
            self.run.steps += 1;
            taken += 1;
        }
        Ok(Control::Eval(body, rec))
    }

    /// How many steps a loop run in place may take at most: `batch`, or fewer when
    /// evaluation is to pause sooner (0: none).
    pub(crate) fn step_budget(&self, batch: u64) -> u64 {
        match self.run.pause_after {
            0 => batch,
            p => batch.min(p.saturating_sub(self.run.steps)),
        }
    }

    /// Whether a call node is a `foldlRange` whose loop may run in place.
    #[inline(always)]
    pub(crate) fn is_fold_range(&self, c: CodeId) -> bool {
        self.code.fast[c as usize] == Fast::FoldRange
    }
}
