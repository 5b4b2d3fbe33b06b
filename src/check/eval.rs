//! What the type checker needs from the evaluator: weak head normal forms of open terms.
//!
//! Definitional equality evaluates types with the project's one evaluator, the stack
//! machine (DESIGN.md section 3). The checker sees it through [`TypeEval`]: given the
//! typing context (each local variable's type, and its value if it is `let`-bound) and a
//! term in that context, return the term's weak head normal form *as a core term in the
//! same context*. Local variables without a value are open binders (normal forms);
//! unsolved metavariables are stuck like them; externals are never called (an external
//! application is stuck); evaluation has a step budget.

use crate::core::program::Program;
use crate::core::term::{Name, RcTerm};
use crate::syntax::span::Span;

/// One local variable of the typing context, outermost first.
#[derive(Clone, Debug)]
pub struct CtxEntry {
    /// The name, for messages.
    pub name: Name,
    /// Its type, in the scope of the entries before it.
    pub ty: RcTerm,
    /// Its value if it is `let`-bound, in the scope of the entries up to and including
    /// itself (a `let` is recursive).
    pub value: Option<RcTerm>,
}

/// Why type-level evaluation failed.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeEvalError {
    /// The step budget ran out: the type-level computation may not terminate.
    StepLimit(u64),
    /// A runtime error during type-level evaluation (`error`, division by zero, a
    /// match that no arm covers, ...), with the place of the operation that failed.
    /// Evaluation that is merely stuck on an unknown value is no error: the term is
    /// then its own normal form.
    Failed(String, Option<Span>),
}

/// An evaluator for the type checker.
pub trait TypeEval {
    /// Starts a new budget of type-level steps: the checker calls this before each
    /// definition's type and before its body, so the limit bounds all the type-level
    /// evaluation one of them causes, however many comparisons it takes. `bounded`:
    /// false for the prelude's definitions, which are known to check.
    fn start_budget(&mut self, _bounded: bool) {}

    /// Charges `steps` steps of conversion (the unifier's comparisons) to the budget:
    /// false once it has run out.
    fn charge(&mut self, _steps: u64) -> bool {
        true
    }

    /// Whether the budget has run out: evaluation then leaves terms as they are.
    fn exhausted(&self) -> bool {
        false
    }

    /// True once, the first time it is asked after the budget ran out: the one
    /// report of it.
    fn first_report(&mut self) -> bool {
        false
    }

    /// The steps one budget allows (0: no limit).
    fn budget(&self) -> u64 {
        0
    }

    /// The weak head normal form of `term` in `ctx`, as a core term in `ctx`.
    fn whnf(
        &mut self,
        program: &Program,
        ctx: &[CtxEntry],
        term: &RcTerm,
    ) -> Result<RcTerm, TypeEvalError>;
}

/// The default budget of machine steps for the type-level evaluation of one
/// definition's type, or of its body (LANGUAGE.md 6, as issue 31 amends it).
pub const TYPE_LEVEL_STEP_LIMIT: u64 = 1_000_000;

/// The budget in force (`--type-steps N`), for every checker of this process.
static TYPE_STEP_LIMIT: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(TYPE_LEVEL_STEP_LIMIT);

/// Sets the budget of type-level steps per definition (`--type-steps N`; 0 = none).
pub fn set_type_step_limit(steps: u64) {
    TYPE_STEP_LIMIT.store(steps, std::sync::atomic::Ordering::Relaxed);
}

/// The budget of type-level steps per definition in force.
pub fn type_step_limit() -> u64 {
    TYPE_STEP_LIMIT.load(std::sync::atomic::Ordering::Relaxed)
}
