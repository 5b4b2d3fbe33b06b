//! Conversion: weak head normal forms by the machine, and the checks that two types
//! agree (equality, or a universe below another).

use super::*;

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
    rewrite(t, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i == ix.0 + d => Some(shift(with, d)),
        Term::App(..) if crate::check::meta::meta_spine(node).is_some() => Some(node.clone()),
        _ => None,
    })
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
        if is_whnf_already(&t)
            || is_neutral_variable(cx, &t)
            || crate::check::meta::meta_spine(&t).is_some()
        {
            return t;
        }
        let t = self.metas.zonk(&t);
        match self.eval.whnf(&self.program, &cx.entries, &t) {
            Ok(r) => r,
            Err(e) => {
                let what = match e {
                    crate::check::eval::TypeEvalError::StepLimit(n) => format!(
                        "type-level evaluation exceeded its limit of {n} steps (a computation in a type may not terminate)"
                    ),
                    crate::check::eval::TypeEvalError::Failed(msg) => {
                        format!("type-level evaluation failed: {msg}")
                    }
                };
                self.errors
                    .push(Diagnostic::error(what).at(span, "while checking this"));
                self.eval_failures.push(span);
                t
            }
        }
    }

    /// Whether `t` is an unsolved metavariable application.
    pub(in crate::check) fn is_unsolved_meta(&self, t: &RcTerm) -> bool {
        crate::check::meta::meta_spine(t)
            .is_some_and(|(id, _)| self.metas.get(id).solution.is_none())
    }

    /// Requires `found` and `expected` to be equal, reporting a mismatch at `span`.
    pub(in crate::check) fn expect(
        &mut self,
        cx: &mut Cx<'_>,
        span: Span,
        found: &RcTerm,
        expected: &RcTerm,
    ) {
        if !self.unify(cx, found, expected, span) {
            self.mismatch(cx, span, found, expected);
        }
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
        if !self.unify(cx, &f, &e, span) {
            self.mismatch(cx, span, found, expected);
        }
    }
}
