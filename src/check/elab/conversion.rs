//! Conversion: weak head normal forms by the machine, and the checks that two types
//! agree (equality, or a universe below another).

use super::*;
use crate::check::eval::TypeEvalError;
use crate::check::meta::flex;
use crate::core::subst::free_var_bound;

/// Whether `t` is a weak head normal form by its shape alone (no need to ask the
/// machine): a type former, a universe, a literal, a lambda.
pub(in crate::check) fn is_whnf_already(t: &Term) -> bool {
    let mut head = t;
    while let Term::App(f, _, _) = head {
        head = f;
    }
    match head {
        Term::Pi(..) | Term::Universe(_) | Term::PrimType(_) | Term::Lit(_) => {
            std::ptr::eq(head, t)
        }
        Term::Data(_) | Term::Con(_) => true,
        Term::Lam(..) => std::ptr::eq(head, t),
        _ => false,
    }
}

/// The goal `t` refined by what a match arm learnt: the variable `ix` is `with`.
/// Occurrences among an unknown's arguments are left alone: `?r b` must stay an
/// unknown applied to variables to be solvable (its solution will mention `b`, which
/// the arm then sees refined when the goal is compared).
pub(in crate::check) fn refine(t: &RcTerm, ix: Ix, with: &RcTerm) -> RcTerm {
    crate::core::subst::rewrite_spines(t, &mut |node, d, in_spine| match &**node {
        Term::Var(Ix(i)) if *i == ix.0 + d => Some(shift(with, d)),
        _ if !in_spine && flex(node).is_some() => Some(node.clone()),
        _ => None,
    })
}

/// Whether `a` and `b` are applications of one definition (a type function) to as
/// many arguments.
fn same_function_applied(a: &Term, b: &Term) -> bool {
    let (ha, na) = head_and_arity(a);
    let (hb, nb) = head_and_arity(b);
    matches!((ha, hb), (Term::Def(x), Term::Def(y)) if x == y) && na == nb && na > 0
}

/// A term's head and how many arguments it is applied to.
fn head_and_arity(t: &Term) -> (&Term, usize) {
    let (mut head, mut n) = (t, 0);
    while let Term::App(f, _, _) = head {
        head = f;
        n += 1;
    }
    (head, n)
}

/// Whether `t` is a variable without a value (an open binder), perhaps applied: a
/// neutral term, already in weak head normal form.
pub(in crate::check) fn is_neutral_variable(cx: &Cx<'_>, t: &Term) -> bool {
    let mut head = t;
    while let Term::App(f, _, _) = head {
        head = f;
    }
    match head {
        Term::Var(Ix(i)) => {
            let depth = cx.depth();
            *i < depth && cx.entries[(depth - 1 - i) as usize].value.is_none()
        }
        _ => false,
    }
}

impl<'e> Elab<'e> {
    /// The weak head normal form of `t` in `cx`, by the machine.
    pub(in crate::check) fn whnf(&mut self, cx: &Cx<'_>, t: &RcTerm, span: Span) -> RcTerm {
        let t = self.metas.force_head(t);
        // Already in weak head normal form by its shape: a type former, a value, a
        // variable without a value, an unknown (after `force_head`, an unsolved one).
        if is_whnf_already(&t) || is_neutral_variable(cx, &t) || flex(&t).is_some() {
            return t;
        }
        let t = self.metas.zonk_explicit(&t);
        let ctx = self.machine_context(cx, &t);
        match self.eval.whnf(&self.program, &ctx, &t) {
            Ok(r) => r,
            Err(e) => {
                self.type_eval_failed(cx, &t, e, span);
                t
            }
        }
    }

    /// The part of `cx` that evaluating `t` can reach (the innermost variables, as far
    /// out as `t` and the `let` values it may unfold refer), in the form the machine
    /// evaluates: a type computed deep inside a long chain of `let`s or parameters
    /// costs what it uses, not the depth of the context.
    fn machine_context(&self, cx: &Cx<'_>, t: &RcTerm) -> Vec<CtxEntry> {
        let depth = cx.depth();
        let mut from = depth - free_var_bound(t).min(depth);
        let mut level = depth;
        while level > from {
            level -= 1;
            if let Some(value) = &cx.entries[level as usize].value {
                // A `let` is recursive: its value is in the scope of the entry itself.
                let reach = free_var_bound(value).min(level + 1);
                from = from.min(level + 1 - reach);
            }
        }
        cx.entries[from as usize..]
            .iter()
            .map(|e| CtxEntry {
                name: e.name.clone(),
                ty: e.ty.clone(),
                value: e.value.as_ref().map(|v| self.metas.zonk_explicit(v)),
            })
            .collect()
    }

    /// Reports a runtime error of type-level evaluation as what it is, at its place
    /// (unless that is in the prelude: then at the place being checked), with the type
    /// being evaluated; or the step limit.
    fn type_eval_failed(&mut self, cx: &Cx<'_>, t: &RcTerm, e: TypeEvalError, span: Span) {
        self.eval_failures.insert(span);
        let shown = self.show(cx, t);
        // One report per type and failure, however often the type is evaluated; and
        // one per budget that runs out (each definition's own, whatever its types).
        let over_budget = matches!(e, TypeEvalError::StepLimit(_)) && self.eval.exhausted();
        let what = match &e {
            TypeEvalError::StepLimit(_) => String::new(),
            TypeEvalError::Failed(message, _) => message.clone(),
        };
        if over_budget {
            if !self.eval.first_report() {
                return;
            }
        } else if !self.eval_failure_kinds.insert((shown.clone(), what)) {
            return;
        }
        let d = match e {
            TypeEvalError::StepLimit(n) => Diagnostic::error(format!(
                "evaluating the type `{shown}`: type-level evaluation exceeded its limit of {n} steps (a computation in a type may not terminate)"
            ))
            .at(span, "while checking this")
            .note("the limit counts every step of type-level evaluation in one definition's type, or in its body; raise it with `--type-steps N` (0: no limit)"),
            TypeEvalError::Failed(message, at) => {
                let d = Diagnostic::error(format!("evaluating the type `{shown}`: {message}"));
                match at {
                    Some(at) if !self.prelude_files.contains(&at.file) && at != span => d
                        .at(at, message.clone())
                        .also(span, format!("the type `{shown}` is evaluated here")),
                    _ => d.at(span, format!("while checking this: {message}")),
                }
            }
        };
        self.errors
            .push(d.kind(crate::diagnostic::DiagnosticKind::TypeEvaluation));
        if over_budget {
            self.budget_report = Some(self.errors.len());
        }
    }

    /// Starts the type-level step budget of a definition's type or body, or of a
    /// group's fields, in unit `unit` (the prelude's is unbounded).
    pub(in crate::check) fn start_type_budget(&mut self, unit: usize) {
        if let Some(at) = self.budget_report.take() {
            self.errors.truncate(at);
        }
        self.eval.start_budget(unit != super::PRELUDE_UNIT);
    }

    /// Ends the budget in force: if it ran out, the errors reported after that (the
    /// comparisons that failed for want of budget) are withdrawn; the report stays.
    /// What is checked next (a group's operators, instances) is held only to the
    /// limit per evaluation.
    pub(in crate::check) fn end_type_budget(&mut self) {
        if let Some(at) = self.budget_report.take() {
            self.errors.truncate(at);
        }
        self.eval.start_budget(false);
    }

    /// Runs `attempt` (a unification) as a trial: if it fails, the unknowns it solved
    /// are unsolved again and what it reported is withdrawn, but for failures of
    /// type-level evaluation (the type fails whichever comparison evaluates it, and is
    /// reported once).
    pub(in crate::check) fn trial(&mut self, attempt: impl FnOnce(&mut Self) -> bool) -> bool {
        let trial = self.metas.begin_trial();
        let errors = self.errors.len();
        if attempt(self) {
            self.metas.keep(trial);
            return true;
        }
        self.metas.undo(trial);
        let mut k = errors;
        for i in errors..self.errors.len() {
            if self.errors[i].kind == crate::diagnostic::DiagnosticKind::TypeEvaluation {
                self.errors.swap(k, i);
                k += 1;
            }
        }
        self.errors.truncate(k);
        // A budget report made in the trial is among those kept, before `k`.
        if let Some(at) = self.budget_report
            && at > k
        {
            self.budget_report = Some(k);
        }
        false
    }

    /// Runs `attempt` (unifications) and undoes what it did whatever it found: the
    /// unknowns it solved or made are as they were, the errors it reported are
    /// withdrawn. For questions that must leave the check as it is (does this name
    /// fit that hole?).
    pub(in crate::check) fn probe<T>(&mut self, attempt: impl FnOnce(&mut Self) -> T) -> T {
        let trial = self.metas.begin_trial();
        let errors = self.errors.len();
        let budget_report = self.budget_report;
        let out = attempt(self);
        self.metas.undo(trial);
        self.errors.truncate(errors);
        self.budget_report = budget_report;
        out
    }

    /// Whether `t` is an unsolved metavariable application.
    pub(in crate::check) fn is_unsolved_meta(&self, t: &RcTerm) -> bool {
        flex(t).is_some_and(|f| self.metas.is_unsolved(f.id))
    }

    /// Requires `found` and `expected` to be equal, reporting a mismatch at `span`.
    pub(in crate::check) fn expect(
        &mut self,
        cx: &mut Cx<'_>,
        span: Span,
        found: &RcTerm,
        expected: &RcTerm,
    ) {
        if !self.unify(cx, found, expected, span) && !self.eval.exhausted() {
            self.mismatch(cx, span, found, expected);
        }
    }

    /// Reports, once per budget, that comparing `a` with `b` ran past the type-level
    /// step limit (the comparisons themselves, not an evaluation, used it up).
    pub(in crate::check) fn comparison_over_budget(
        &mut self,
        cx: &Cx<'_>,
        a: &RcTerm,
        b: &RcTerm,
        span: Span,
    ) {
        if !self.eval.first_report() {
            return;
        }
        let (a, b) = (self.show(cx, a), self.show(cx, b));
        let n = self.eval.budget();
        self.errors.push(
            Diagnostic::error(format!(
                "comparing `{a}` with `{b}`: type-level evaluation exceeded its limit of {n} steps (a computation in a type may not terminate, or may be too large to compare)"
            ))
            .at(span, "while checking this")
            .note("the limit counts every step of type-level evaluation in one definition's type, or in its body; raise it with `--type-steps N` (0: no limit)")
            .kind(crate::diagnostic::DiagnosticKind::TypeEvaluation),
        );
        self.budget_report = Some(self.errors.len());
    }

    /// Requires a value of type `found` to be usable where `expected` is required
    /// (equal types, or a smaller universe: `Type : Type 1` and also `Type : Type 2`).
    pub(in crate::check) fn expect_subtype(
        &mut self,
        cx: &mut Cx<'_>,
        span: Span,
        found: &RcTerm,
        expected: &RcTerm,
    ) {
        // Two applications of one type function are compared by their arguments
        // first (`unify` unfolds them only if those disagree): evaluating them first
        // would lose what the arguments say (`Vect ?a ?n` is stuck on `?n`).
        if same_function_applied(
            &self.metas.force_head(found),
            &self.metas.force_head(expected),
        ) && self.trial(|e| e.unify(cx, found, expected, span))
        {
            return;
        }
        let f = self.whnf(cx, found, span);
        let e = self.whnf(cx, expected, span);
        if let (Term::Universe(i), Term::Universe(j)) = (&*f, &*e) {
            if i > j {
                self.mismatch(cx, span, found, expected);
            }
            return;
        }
        // Unify the evaluated forms (no second trip to the machine); the message shows
        // the types as written.
        if !self.unify(cx, &f, &e, span) && !self.eval.exhausted() {
            self.mismatch(cx, span, found, expected);
        }
    }
}
