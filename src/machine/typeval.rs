//! Type-level evaluation for the type checker, on this machine.
//!
//! The checker asks for the weak head normal form of a term in its typing context
//! ([`TypeEval`]). Here the context becomes a chain of context entries — an open binder
//! for each variable without a value, a suspended right-hand side for each `let` — the
//! term is evaluated in it, and the value is read back into a core term in the
//! checker's scope:
//!
//! - literals, universes, primitive types as themselves; a constructor or a partial
//!   application as its head applied to its arguments; an open binder of the context as
//!   its variable;
//! - a function or a `Pi` (code closed over a context chain) as its code with every
//!   free variable replaced by what the chain holds for it: a context variable, an
//!   evaluated value (read back in turn), or suspended code (read back the same way,
//!   unevaluated: the checker asks again if it needs more).
//!
//! Evaluation that gets stuck (a `match` on an open variable, an unknown) leaves the
//! term as it was, which is then a normal form for the checker's purposes. Externals
//! are never called, and the step budget bounds type-level computation.

use super::Machine;
use super::arena::NIL;
use super::heap::{Cell, Heap};
use super::need::Ctl;
use super::value::{CtxtId, PartialHead, Value};
use crate::check::eval::{CtxEntry, TYPE_LEVEL_STEP_LIMIT, TypeEval, TypeEvalError};
use crate::core::program::Program;
use crate::core::subst::{map_match, rewrite};
use crate::core::term::{Binder, HoleKind, Ix, Lit, Match, Plicity, RcTerm, Term};
use crate::syntax::span::{FileId, Span};
use std::collections::HashMap;

/// The machine as the type checker's evaluator.
pub struct MachineTypeEval {
    /// Steps allowed for one evaluation.
    pub step_limit: u64,
}

impl Default for MachineTypeEval {
    fn default() -> MachineTypeEval {
        MachineTypeEval {
            step_limit: TYPE_LEVEL_STEP_LIMIT,
        }
    }
}

/// How many entries one readback may visit before it gives up on the rest (a value
/// that refers to itself, such as `let xs = Cons 1 xs`, is infinite when read back).
const READBACK_BUDGET: u32 = 100_000;

impl TypeEval for MachineTypeEval {
    fn whnf(
        &mut self,
        program: &Program,
        ctx: &[CtxEntry],
        term: &RcTerm,
    ) -> Result<RcTerm, TypeEvalError> {
        let binders: Vec<Binder> = ctx
            .iter()
            .map(|e| Binder {
                name: e.name.clone(),
                plicity: Plicity::Explicit,
                ty: e.ty.clone(),
            })
            .collect();
        let values: Vec<Option<RcTerm>> = ctx.iter().map(|e| e.value.clone()).collect();
        let mut m = Machine::for_type_level(program, self.step_limit);
        let mut env = NIL;
        let mut levels = HashMap::new();
        for (level, (binder, value)) in binders.iter().zip(&values).enumerate() {
            let x = m.heap.new_ctxt(Cell::Open, env, Some(binder));
            if let Some(v) = value {
                // A `let` is recursive: its right-hand side's context is the entry itself.
                let e = m.heap.ctxt_mut(x);
                e.cell = Cell::Suspended(v, x);
                e.self_ref = true;
            }
            levels.insert(x, level as u32);
            env = x;
        }
        // One reference for the evaluation, one kept for reading back.
        m.heap.retain(env);
        let result = m.run(Ctl::Eval(term, env));
        match result {
            Ok(v) => {
                let mut reader = Reader {
                    heap: &m.heap,
                    levels: &levels,
                    depth: ctx.len() as u32,
                    budget: READBACK_BUDGET,
                };
                Ok(reader.value(&v, 0))
            }
            Err(_) if self.step_limit != 0 && m.stats().steps > self.step_limit => {
                Err(TypeEvalError::StepLimit(self.step_limit))
            }
            // Stuck on an open variable or an unknown: the term stays as it is, a
            // neutral term for the checker.
            Err(e) if is_stuck(&e) => Ok(term.clone()),
            Err(e) => Err(TypeEvalError::Failed(e.message, e.span)),
        }
    }
}

/// Whether an evaluation error only says that evaluation met an unknown value (an open
/// variable, an unknown, a stuck match) where it needed a known one: a well-typed term
/// raises such errors only because part of it is unknown, so the term is stuck, not
/// failed. Every other error (division by zero, `error`, a match no arm covers, an
/// external, an infinite loop) is a real failure of the type's computation.
fn is_stuck(e: &crate::machine::error::RuntimeError) -> bool {
    e.message.contains("cannot be applied to")
        || e.message.starts_with("cannot apply ")
        || e.message.starts_with("internal error")
}

/// Reads values and closures back into core terms in the checker's scope.
struct Reader<'a, 'p> {
    heap: &'a Heap<'p>,
    /// The checker's context variables: entry to level.
    levels: &'a HashMap<CtxtId, u32>,
    /// How many variables the checker's context has.
    depth: u32,
    budget: u32,
}

fn unknown() -> RcTerm {
    Term::Hole(HoleKind::Infer, Span::new(FileId(0), 0, 0)).rc()
}

impl Reader<'_, '_> {
    /// A value, read back under `under` binders of the result.
    fn value(&mut self, v: &Value<'_>, under: u32) -> RcTerm {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.value_inner(v, under))
    }

    fn value_inner(&mut self, v: &Value<'_>, under: u32) -> RcTerm {
        match v {
            Value::Int(n) => Term::Lit(Lit::Int(*n)).rc(),
            Value::Float(x) => Term::Lit(Lit::Float(*x)).rc(),
            Value::Str(s) => Term::Lit(Lit::Str(s.clone())).rc(),
            Value::Universe(n) => Term::Universe(*n).rc(),
            Value::PrimType(p) => Term::PrimType(*p).rc(),
            Value::Con(c, block) => self.applied(Term::Con(*c).rc(), *block, under),
            Value::Partial(head, block) => {
                let head = match head {
                    PartialHead::Prim(p, span) => Term::Prim(*p, *span).rc(),
                    PartialHead::Con(c) => Term::Con(*c).rc(),
                    PartialHead::Data(d) => Term::Data(*d).rc(),
                    PartialHead::Extern(e, _) => Term::Extern(*e).rc(),
                    PartialHead::Open(c) => self.entry(*c, under),
                };
                self.applied(head, *block, under)
            }
            Value::Fun(code, env) | Value::Pi(code, env) => self.closure(code, *env, 0, under),
            Value::Unknown => unknown(),
            Value::Stuck(m, x) => self.stuck(m, *x, under),
        }
    }

    /// `head` applied to the entries of a block (explicitly).
    fn applied(&mut self, head: RcTerm, block: u32, under: u32) -> RcTerm {
        if block == NIL {
            return head;
        }
        let cells = self.heap.block(block).to_vec();
        cells.into_iter().fold(head, |f, c| {
            let a = self.entry(c, under);
            Term::App(f, Plicity::Explicit, a).rc()
        })
    }

    /// What a context entry holds, as a term.
    fn entry(&mut self, c: CtxtId, under: u32) -> RcTerm {
        let c = self.heap.resolve(c);
        if let Some(level) = self.levels.get(&c) {
            return Term::Var(Ix(under + self.depth - 1 - level)).rc();
        }
        if self.budget == 0 {
            return unknown();
        }
        self.budget -= 1;
        match &self.heap.ctxt(c).cell {
            Cell::Value(v) => {
                let v = v.clone();
                self.value(&v, under)
            }
            Cell::Suspended(code, env) => self.closure(code, *env, 0, under),
            _ => unknown(),
        }
    }

    /// Code closed over a context chain, under `skip` binders of its own (a match
    /// arm's fields): its free variables replaced by what the chain holds for them.
    fn closure(&mut self, code: &RcTerm, env: CtxtId, skip: u32, under: u32) -> RcTerm {
        let heap = self.heap;
        rewrite(code, &mut |node, d| match &**node {
            Term::Var(Ix(i)) if *i >= d + skip => {
                if env == NIL {
                    return Some(unknown());
                }
                let target = heap.walk(env, i - d - skip);
                Some(self.entry(target, under + d + skip))
            }
            _ => None,
        })
    }

    /// A stuck match: the scrutinee's value, and the arms closed over the match's
    /// context.
    fn stuck(&mut self, m: &Match, x: CtxtId, under: u32) -> RcTerm {
        let entry = self.heap.ctxt(x);
        let env = entry.next;
        let scrut = match &entry.cell {
            Cell::Value(v) => {
                let v = v.clone();
                self.value(&v, under)
            }
            _ => unknown(),
        };
        map_match(m, scrut, &mut |code, k| self.closure(code, env, k, under))
    }
}
