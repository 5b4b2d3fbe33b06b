//! Type-level evaluation for the type checker, on this machine (DESIGN.md section 3:
//! one evaluator for programs and for types).
//!
//! The checker asks for the weak head normal form of a term in its typing context
//! ([`TypeEval`]). The context becomes one record: each variable without a value is
//! an open variable ([`PapHead::Open`], a neutral normal form), each `let`-bound one
//! a thunk of its value. The term is compiled without erasure (types need every
//! argument) and run; the value reads back ([`super::readback`]) into a core term in
//! the checker's scope, its open variables as variables. A `match` on an open
//! variable is stuck, a normal form. Externals are never called (the call is left as
//! it is), and the step budget bounds type-level computation.

use super::readback::Reader;
use crate::check::eval::{CtxEntry, TypeEval, TypeEvalError, type_step_limit};
use crate::core::program::Program;
use crate::core::term::{Binder, Plicity, RcTerm};
use crate::machine::Machine;
use crate::machine::compile::compile_in_context;
use crate::machine::frame::Control;
use crate::machine::heap::PapHead;
use crate::machine::value::Val;

/// The machine as the type checker's evaluator.
pub struct MachineTypeEval {
    /// Steps allowed for one budget (a definition's type, or its body; 0: no limit).
    pub step_limit: u64,
    /// Whether the budget in force is bounded by `step_limit` (the prelude's is not).
    bounded: bool,
    /// Steps taken in the budget so far.
    spent: u64,
    /// Whether this budget ran out already: it is reported once, and every later
    /// evaluation in the budget leaves its term as it is (stuck), so a definition
    /// whose types do not terminate costs at most its budget and one error.
    exhausted: bool,
    /// Whether running out was reported.
    reported: bool,
}

impl Default for MachineTypeEval {
    fn default() -> MachineTypeEval {
        MachineTypeEval {
            step_limit: type_step_limit(),
            // Until the checker starts a definition's budget.
            bounded: false,
            spent: 0,
            exhausted: false,
            reported: false,
        }
    }
}

impl MachineTypeEval {
    /// The limit of the budget in force, counting every step (0: none). Outside a
    /// definition's budget (the prelude, instance resolution after a group) steps are
    /// not summed, and each evaluation alone is held to `step_limit`.
    fn limit(&self) -> u64 {
        if self.bounded { self.step_limit } else { 0 }
    }
}

impl TypeEval for MachineTypeEval {
    fn start_budget(&mut self, bounded: bool) {
        self.bounded = bounded;
        self.spent = 0;
        self.exhausted = false;
        self.reported = false;
    }

    fn charge(&mut self, steps: u64) -> bool {
        self.spent = self.spent.saturating_add(steps);
        if self.limit() != 0 && self.spent > self.limit() {
            self.exhausted = true;
        }
        !self.exhausted
    }

    fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn first_report(&mut self) -> bool {
        let first = self.exhausted && !self.reported;
        self.reported |= self.exhausted;
        first
    }

    fn budget(&self) -> u64 {
        self.step_limit
    }

    fn whnf(
        &mut self,
        program: &Program,
        ctx: &[CtxEntry],
        term: &RcTerm,
    ) -> Result<RcTerm, TypeEvalError> {
        if self.exhausted {
            return Ok(term.clone());
        }
        let binders: Vec<Binder> = ctx
            .iter()
            .map(|e| Binder {
                name: e.name.clone(),
                plicity: Plicity::Explicit,
                ty: e.ty.clone(),
            })
            .collect();
        // What is left of the budget is this evaluation's limit (0: none).
        let left = match self.limit() {
            0 => self.step_limit,
            limit => limit.saturating_sub(self.spent).max(1),
        };
        let refs: Vec<&Binder> = binders.iter().collect();
        let values: Vec<Option<&RcTerm>> = ctx.iter().map(|e| e.value.as_ref()).collect();
        let mut m = Machine::for_type_level(program, left);
        let (layout, code) = compile_in_context(program, &mut m.code, &refs, refs.len(), term);
        let n = refs.len() as u32;
        let env = if n == 0 {
            crate::machine::value::NIL
        } else {
            m.heap.record(crate::machine::value::NIL, layout, n)
        };
        for (level, value) in values.iter().enumerate() {
            let w = match value {
                None => m.heap.pap(PapHead::Open(level as u32), 0, &[]),
                Some(v) => {
                    // A `let` sees the entries up to and including itself.
                    let (_, c) = compile_in_context(program, &mut m.code, &refs, level + 1, v);
                    m.heap.retain_rec(env);
                    Val::Thunk(m.heap.thunk(c, env))
                }
            };
            m.heap.set_slot(env, level as u32, w);
        }
        m.heap.retain_rec(env);
        let result = m.run(Control::Eval(code, env));
        // One more for the evaluation itself: a comparison that asks for many small
        // evaluations spends its budget too.
        self.spent = self.spent.saturating_add(m.run.steps + 1);
        match result {
            Ok(v) => {
                let mut reader = Reader::new(m.sight());
                reader.ctx_len = n;
                Ok(reader.word(v, 0))
            }
            Err(_) if left != 0 && m.run.steps > left => {
                // A definition's budget stays spent; outside one, only this
                // evaluation failed.
                self.exhausted = self.limit() != 0;
                Err(TypeEvalError::StepLimit(self.step_limit))
            }
            // Stuck on an open variable or an unknown: the term stays as it is, a
            // neutral term for the checker.
            Err(e) if is_stuck(&e) => Ok(term.clone()),
            Err(e) => Err(TypeEvalError::Failed(e.message.clone(), e.span)),
        }
    }
}

/// Whether an evaluation error only says that evaluation met an unknown value (an open
/// variable, an unknown, a stuck match) where it needed a known one: a well-typed term
/// raises such errors only because part of it is unknown, so the term is stuck, not
/// failed. Every other error (division by zero, `error`, a match no arm covers, an
/// external, an infinite loop) is a real failure of the type's computation.
fn is_stuck(e: &crate::machine::error::RuntimeError) -> bool {
    use crate::machine::error::ErrorKind;
    matches!(e.kind, ErrorKind::Stuck | ErrorKind::Internal)
}
