//! Metavariables: the unknowns of elaboration.
//!
//! A metavariable stands for a term the user left out (an implicit argument, a `_`, a
//! missing annotation). It is created in a context of `depth` local variables and
//! appears in terms *applied to all of them* (`?m x0 ... x(depth-1)`), so that its
//! solution can be a closed term: `\x0 ... x(depth-1) -> t`. Solving is pattern
//! unification (see `unify`); [`Metas::zonk`] substitutes solutions into a term.

use crate::core::subst::instantiate;
use crate::core::term::{Binder, HoleKind, Ix, Plicity, RcTerm, Term};
use crate::syntax::span::Span;
use std::rc::Rc;

/// What a metavariable stands for, for error messages ("cannot infer ...").
#[derive(Clone, Debug)]
pub struct MetaInfo {
    /// The solution, a closed term with one lambda per variable of the context.
    pub solution: Option<RcTerm>,
    /// How many local variables the context had.
    pub depth: u32,
    /// Where the unknown stands in the source.
    pub span: Span,
    /// What it is, in words: "the implicit argument `a`", "the type of `x`".
    pub what: String,
    /// A type argument nothing constrains (`fst (1, error "x")` leaves the second
    /// component's type open): any type will do, so it defaults to `Unit` instead of
    /// being an error.
    pub defaultable: bool,
}

/// The metavariables of one elaboration.
#[derive(Debug, Default)]
pub struct Metas {
    entries: Vec<MetaInfo>,
}

impl Metas {
    /// A fresh unknown in a context of `depth` variables, applied to all of them.
    pub fn fresh(&mut self, depth: u32, span: Span, what: impl Into<String>) -> RcTerm {
        let id = self.entries.len() as u32;
        self.entries.push(MetaInfo {
            solution: None,
            depth,
            span,
            what: what.into(),
            defaultable: false,
        });
        let head = Term::Hole(HoleKind::Meta(id), span).rc();
        (0..depth).rev().fold(head, |f, i| {
            Term::App(f, Plicity::Explicit, Term::Var(Ix(i)).rc()).rc()
        })
    }

    /// The id the next fresh metavariable will get.
    pub fn next_id(&self) -> u32 {
        self.entries.len() as u32
    }

    /// A fresh unknown that is a closed term (used by pruning, which applies it to the
    /// arguments it keeps).
    pub fn fresh_closed(&mut self, span: Span, what: impl Into<String>) -> u32 {
        let id = self.next_id();
        self.entries.push(MetaInfo {
            solution: None,
            depth: 0,
            span,
            what: what.into(),
            defaultable: false,
        });
        id
    }

    /// Marks the unknown `t` (a fresh application) as a type that may default.
    pub fn mark_defaultable(&mut self, t: &RcTerm) {
        if let Some((id, _)) = meta_spine(t) {
            self.entries[id as usize].defaultable = true;
        }
    }

    /// Marks the unknown `id` as a type that may default.
    pub fn mark_defaultable_id(&mut self, id: u32) {
        self.entries[id as usize].defaultable = true;
    }

    /// The metavariable with this id.
    pub fn get(&self, id: u32) -> &MetaInfo {
        &self.entries[id as usize]
    }

    /// Records a solution: `body` in the meta's context, abstracted here over it.
    pub fn solve(&mut self, id: u32, body: RcTerm) {
        let depth = self.entries[id as usize].depth;
        self.solve_with(id, depth, body);
    }

    /// Records a solution: `body`, abstracted over `arity` variables (the arguments the
    /// meta was applied to where it was solved).
    pub fn solve_with(&mut self, id: u32, arity: u32, body: RcTerm) {
        let solution = (0..arity).fold(body, |b, _| {
            Term::Lam(
                Binder {
                    name: Rc::from("x"),
                    plicity: Plicity::Explicit,
                    ty: Term::Universe(0).rc(),
                },
                b,
            )
            .rc()
        });
        self.entries[id as usize].solution = Some(solution);
    }

    /// Every metavariable, with its id.
    pub fn all(&self) -> impl Iterator<Item = (u32, &MetaInfo)> {
        self.entries.iter().enumerate().map(|(i, m)| (i as u32, m))
    }

    /// `t` with every solved metavariable replaced by its solution.
    pub fn zonk(&self, t: &RcTerm) -> RcTerm {
        if !self.entries.iter().any(|m| m.solution.is_some()) {
            return t.clone();
        }
        crate::core::subst::rewrite(t, &mut |node, _| {
            let (id, args) = meta_spine(node)?;
            let solution = self.entries[id as usize].solution.as_ref()?;
            let args: Vec<RcTerm> = args.iter().map(|a| self.zonk(a)).collect();
            Some(self.zonk(&apply_solution(solution, &args)))
        })
    }

    /// The head of `t`, with solved metavariables at the head substituted (only the
    /// head: cheaper than a full [`Metas::zonk`] when only the shape matters).
    pub fn force_head(&self, t: &RcTerm) -> RcTerm {
        let mut t = t.clone();
        loop {
            let Some((id, args)) = meta_spine(&t) else {
                return t;
            };
            let Some(solution) = self.entries[id as usize].solution.as_ref() else {
                return t;
            };
            let args: Vec<RcTerm> = args.into_iter().cloned().collect();
            t = apply_solution(solution, &args);
        }
    }
}

/// If `t` is a metavariable applied to arguments, its id and the arguments (first
/// argument first).
pub fn meta_spine(t: &Term) -> Option<(u32, Vec<&RcTerm>)> {
    let mut args = Vec::new();
    let mut head = t;
    while let Term::App(f, _, a) = head {
        args.push(a);
        head = f;
    }
    match head {
        Term::Hole(HoleKind::Meta(id), _) => {
            args.reverse();
            Some((*id, args))
        }
        _ => None,
    }
}

/// Applies a solution `\x1 .. xn -> body` to arguments, substituting for as many
/// lambdas as there are arguments and applying any arguments left over.
fn apply_solution(solution: &RcTerm, args: &[RcTerm]) -> RcTerm {
    let mut body = solution.clone();
    let mut taken = 0;
    while taken < args.len() {
        match &*body {
            Term::Lam(_, inner) => {
                body = inner.clone();
                taken += 1;
            }
            _ => break,
        }
    }
    let result = instantiate(&body, &args[..taken]);
    args[taken..].iter().fold(result, |f, a| {
        Term::App(f, Plicity::Explicit, a.clone()).rc()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::equiv::alpha_eq;
    use crate::core::term::{Lit, PrimType};
    use crate::syntax::span::FileId;

    #[test]
    fn a_solution_is_substituted_with_the_context_variables() {
        let span = Span::new(FileId(0), 0, 0);
        let mut metas = Metas::default();
        // In a context of two variables, ?m x0 x1 := x1 (the innermost variable).
        let m = metas.fresh(2, span, "test");
        metas.solve(0, Term::Var(Ix(0)).rc());
        assert!(alpha_eq(&metas.zonk(&m), &Term::Var(Ix(0))));
        // Under a binder the same meta application is shifted, and so is its value.
        let shifted = crate::core::subst::shift(&m, 1);
        assert!(alpha_eq(&metas.zonk(&shifted), &Term::Var(Ix(1))));
    }

    #[test]
    fn zonk_reaches_nested_solutions() {
        let span = Span::new(FileId(0), 0, 0);
        let mut metas = Metas::default();
        let a = metas.fresh(0, span, "a");
        let b = metas.fresh(0, span, "b");
        metas.solve(0, b.clone());
        metas.solve(1, Term::PrimType(PrimType::Int).rc());
        let t = Term::App(a, Plicity::Explicit, Term::Lit(Lit::Int(1)).rc()).rc();
        let z = metas.zonk(&t);
        assert!(matches!(&*z, Term::App(f, _, _) if matches!(&**f, Term::PrimType(PrimType::Int))));
    }
}
