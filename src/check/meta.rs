//! Metavariables: the unknowns of elaboration.
//!
//! A metavariable stands for a term the user left out (an implicit argument, a `_`, a
//! missing annotation). It is created in a context of `depth` local variables and may
//! depend on all of them: it appears as [`HoleKind::MetaCtx`]`(id, depth, 0)`, which
//! means the unknown applied to those variables, so that its solution can be a closed
//! term `\x0 ... x(depth-1) -> body`. The arguments are left implicit, so creating an
//! unknown costs the same in a context of a hundred thousand variables as in an empty
//! one; moved under more binders it only counts them (its third number), and
//! `core::subst` spells the arguments out (`Meta(id)` applied to variables) only where
//! a substitution changes some of them. Solving is pattern unification (see `unify`).
//!
//! A solution is kept as its body and arity (the number of variables it abstracts), so
//! that the common case, an unknown used where it was created, is its solution's body
//! as it is. [`Metas::zonk`] substitutes solutions into a term. It remembers each
//! unknown's fully substituted solution once nothing in it is unknown any more, so that
//! unknowns solved by other unknowns (`?a := ?b -> ?b`, `?b := ?c -> ?c`, ...) give a
//! term whose graph grows with their number even when its tree doubles with each.

use crate::core::subst::{instantiate, rewrite, rewrite_spines, shift};
use crate::core::term::{Binder, HoleKind, Ix, Plicity, RcTerm, Term};
use crate::syntax::span::Span;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A solution: `body` abstracted over `arity` variables (the innermost `arity`
/// variables of the meta's context, or the arguments it was applied to where solved).
#[derive(Clone, Debug)]
pub struct Solution {
    /// How many variables the solution abstracts.
    pub arity: u32,
    /// The solution's body, under those variables.
    pub body: RcTerm,
}

/// What a metavariable stands for, for error messages ("cannot infer ...").
#[derive(Clone, Debug)]
pub struct MetaInfo {
    /// The solution, once found.
    pub solution: Option<Solution>,
    /// How many local variables the context had.
    pub depth: u32,
    /// Where the unknown stands in the source.
    pub span: Span,
    /// What it is, in words: "the implicit argument `a`", "the type of `x`".
    pub what: String,
    /// Its type (in its own context), where it is known to be a universe or a family
    /// of types ending in one (`{a : Type}`, `{f : Type -> Type}`): a solution must
    /// be a type (family) of that universe, not a larger one (see `unify`).
    pub ty: Option<RcTerm>,
    /// A type argument nothing constrains (`fst (1, error "x")` leaves the second
    /// component's type open): any type will do, so it defaults to `Unit` instead of
    /// being an error.
    pub defaultable: bool,
}

/// The metavariables of one elaboration.
#[derive(Debug, Default)]
pub struct Metas {
    entries: Vec<MetaInfo>,
    /// Fully substituted solution bodies of metavariables whose solution mentions no
    /// unknown any more (so it never changes again).
    zonked: RefCell<HashMap<u32, RcTerm>>,
    /// How many have a solution.
    solved: usize,
    /// Terms known to be *final*: closed and free of unknowns (a finished definition's
    /// type and body, a fully substituted solution of an unknown of the empty
    /// context). Nothing in them can change, so passes over terms skip them: a type
    /// shared by many definitions is walked once, not once per definition. Held here
    /// by `Rc`, so an address is never reused while it is recorded.
    finals: RefCell<HashMap<*const Term, RcTerm>>,
    /// While a trial is open ([`Metas::begin_trial`]): every entry changed since,
    /// as it was before its first change in the trial, so the trial can be undone.
    trail: Vec<(u32, MetaInfo)>,
    /// How many trials are open.
    trials: u32,
}

/// Where a trial started ([`Metas::begin_trial`]): what to undo back to.
#[derive(Clone, Copy, Debug)]
pub struct Trial {
    trail: usize,
    entries: usize,
    solved: usize,
}

/// An unknown applied to arguments: first `implicit` consecutive variables (those of a
/// [`HoleKind::MetaCtx`]: indices `skip + implicit - 1` down to `skip`), then the
/// explicit ones.
#[derive(Debug)]
pub struct Flex<'t> {
    /// The metavariable.
    pub id: u32,
    /// How many variables it is applied to implicitly.
    pub implicit: u32,
    /// The index of the last of them.
    pub skip: u32,
    /// The explicit arguments after those, first first.
    pub args: Vec<&'t RcTerm>,
}

impl Flex<'_> {
    /// Every argument, the implicit ones spelt out (as variables of the scope the term
    /// stands in).
    pub fn all_args(&self) -> Vec<RcTerm> {
        let mut out: Vec<RcTerm> = (0..self.implicit)
            .rev()
            .map(|i| Term::Var(Ix(i + self.skip)).rc())
            .collect();
        out.extend(self.args.iter().map(|a| (*a).clone()));
        out
    }

    /// The number of arguments.
    pub fn arity(&self) -> usize {
        self.implicit as usize + self.args.len()
    }
}

impl Metas {
    /// Opens a trial: what unification does from here on can be undone with
    /// [`Metas::undo`] (solutions, universe bounds, defaultable marks, new unknowns),
    /// or kept with [`Metas::keep`]. Trials nest.
    pub fn begin_trial(&mut self) -> Trial {
        self.trials += 1;
        Trial {
            trail: self.trail.len(),
            entries: self.entries.len(),
            solved: self.solved,
        }
    }

    /// Closes a trial, keeping what it did (an enclosing trial can still undo it).
    pub fn keep(&mut self, t: Trial) {
        self.trials -= 1;
        if self.trials == 0 {
            debug_assert!(t.trail <= self.trail.len());
            self.trail.clear();
        }
    }

    /// Closes a trial, undoing what it did: every unknown is as it was when the trial
    /// began, and those made since are gone.
    pub fn undo(&mut self, t: Trial) {
        self.trials -= 1;
        while self.trail.len() > t.trail {
            let (id, old) = self.trail.pop().expect("a trail entry");
            if (id as usize) < self.entries.len() {
                self.entries[id as usize] = old;
            }
        }
        self.entries.truncate(t.entries);
        self.solved = t.solved;
        // Cached substitutions may have gone through an undone solution.
        self.zonked.borrow_mut().clear();
    }

    /// Records entry `id` as it is, before a change, when a trial is open.
    fn note(&mut self, id: u32) {
        if self.trials > 0 {
            let old = self.entries[id as usize].clone();
            self.trail.push((id, old));
        }
    }

    /// A fresh unknown in a context of `depth` variables, applied to all of them.
    pub fn fresh(&mut self, depth: u32, span: Span, what: impl Into<String>) -> RcTerm {
        let id = self.push(depth, span, what.into());
        Term::Hole(HoleKind::MetaCtx(id, depth, 0), span).rc()
    }

    fn push(&mut self, depth: u32, span: Span, what: String) -> u32 {
        let id = self.entries.len() as u32;
        self.entries.push(MetaInfo {
            solution: None,
            depth,
            span,
            what,
            defaultable: false,
            ty: None,
        });
        id
    }

    /// Records the type of the unknown `t` (a fresh one, or one applied to the
    /// variables it was created over), in its own context.
    pub fn set_type(&mut self, t: &RcTerm, ty: RcTerm) {
        if let Some(f) = flex(t) {
            self.note(f.id);
            self.entries[f.id as usize].ty = Some(ty);
        }
    }

    /// The universe a solution of `id` must live in, if its type is known to be one
    /// (`Type n`) or a family of types ending in one (`A -> Type n`).
    pub fn universe_of_solution(&self, id: u32) -> Option<u32> {
        let mut ty = self.force_head(self.entries[id as usize].ty.as_ref()?);
        loop {
            match &*ty {
                Term::Universe(n) => return Some(*n),
                Term::Pi(_, cod) => ty = self.force_head(cod),
                _ => return None,
            }
        }
    }

    /// Requires the solution of the unsolved `id` to live in `Type n` (or lower): a
    /// type found inside another unknown's solution, which must live there.
    pub fn bound_universe(&mut self, id: u32, n: u32) {
        if self.universe_of_solution(id).is_none_or(|m| m > n) {
            self.note(id);
            self.entries[id as usize].ty = Some(Term::Universe(n).rc());
        }
    }

    /// A fresh unknown in a context of `depth` variables, returned by id: its term is
    /// built by the caller (pruning applies it to the arguments it keeps).
    pub fn fresh_id(&mut self, depth: u32, span: Span, what: impl Into<String>) -> u32 {
        self.push(depth, span, what.into())
    }

    /// Marks the unknown `t` (a fresh one) as a type that may default.
    pub fn mark_defaultable(&mut self, t: &RcTerm) {
        if let Some(f) = flex(t) {
            self.note(f.id);
            self.entries[f.id as usize].defaultable = true;
        }
    }

    /// Marks the unknown `id` as a type that may default.
    pub fn mark_defaultable_id(&mut self, id: u32) {
        self.note(id);
        self.entries[id as usize].defaultable = true;
    }

    /// The metavariable with this id.
    pub fn get(&self, id: u32) -> &MetaInfo {
        &self.entries[id as usize]
    }

    /// Whether `id` has no solution yet.
    pub fn is_unsolved(&self, id: u32) -> bool {
        self.entries[id as usize].solution.is_none()
    }

    /// Records a solution: `body`, in the meta's own context.
    pub fn solve(&mut self, id: u32, body: RcTerm) {
        let depth = self.entries[id as usize].depth;
        self.solve_with(id, depth, body);
    }

    /// Records a solution: `body`, abstracted over `arity` variables (the arguments the
    /// meta was applied to where it was solved).
    pub fn solve_with(&mut self, id: u32, arity: u32, body: RcTerm) {
        self.note(id);
        let entry = &mut self.entries[id as usize];
        if entry.solution.is_none() {
            self.solved += 1;
        }
        entry.solution = Some(Solution { arity, body });
    }

    /// Every metavariable, with its id.
    pub fn all(&self) -> impl Iterator<Item = (u32, &MetaInfo)> {
        self.entries.iter().enumerate().map(|(i, m)| (i as u32, m))
    }

    /// `t` with every solved metavariable replaced by its solution.
    pub fn zonk(&self, t: &RcTerm) -> RcTerm {
        self.zonk_noting(t, &mut false)
    }

    /// Whether `t` is known to be final: closed and free of unknowns.
    pub fn is_final(&self, t: &RcTerm) -> bool {
        Rc::strong_count(t) > 1 && self.finals.borrow().contains_key(&Rc::as_ptr(t))
    }

    /// Records that `t` is final (the caller knows it is closed).
    fn mark_final(&self, t: &RcTerm) {
        self.finals.borrow_mut().insert(Rc::as_ptr(t), t.clone());
    }

    /// [`Metas::zonk`] of a closed term (a definition's type or body): when no unknown
    /// is left, the result is recorded as final.
    pub fn zonk_closed(&self, t: &RcTerm) -> RcTerm {
        let mut open = false;
        let z = self.zonk_noting(t, &mut open);
        if !open {
            self.mark_final(&z);
        }
        z
    }

    /// The unknowns left in `t` (after [`Metas::zonk`]), added to `out`.
    pub fn unsolved_in(&self, t: &RcTerm, out: &mut Vec<u32>) {
        rewrite(t, &mut |node, _| match &**node {
            Term::Hole(HoleKind::Meta(id) | HoleKind::MetaCtx(id, ..), _) => {
                out.push(*id);
                None
            }
            _ if self.is_final(node) => Some(node.clone()),
            _ => None,
        });
    }

    /// [`Metas::zonk`], setting `open` when an unsolved metavariable is left.
    fn zonk_noting(&self, t: &RcTerm, open: &mut bool) -> RcTerm {
        // Solutions refer to other unknowns, solved in turn (a chain of `id`s is a
        // chain of solutions as long as the program): each step may nest a call.
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.zonk_walk(t, open))
    }

    fn zonk_walk(&self, t: &RcTerm, open: &mut bool) -> RcTerm {
        if self.solved == 0 {
            *open |= self.unsolved_any(t);
            return t.clone();
        }
        rewrite_spines(t, &mut |node, _, in_spine| {
            if self.is_final(node) {
                return Some(node.clone());
            }
            if in_spine {
                return None;
            }
            let f = flex(node)?;
            let Some(solution) = &self.entries[f.id as usize].solution else {
                *open = true;
                if f.args.is_empty() {
                    return Some(node.clone());
                }
                // The arguments may hold solved unknowns.
                let head = spine_head(node).clone();
                let args = f.args.iter().map(|a| (self.zonk_noting(a, open), *a));
                return Some(reapply(node, head, args));
            };
            if f.args.is_empty() && solution.arity == f.implicit {
                // Applied to the variables it was solved over: the solution's body as it
                // is (under `skip` more binders).
                return Some(shift(&self.zonked_body(f.id, open), f.skip));
            }
            let body = self.zonked_body(f.id, open);
            let args: Vec<RcTerm> = f
                .all_args()
                .iter()
                .map(|a| self.zonk_noting(a, open))
                .collect();
            Some(apply_solution(solution.arity, &body, &args))
        })
    }

    /// The solution body of `id` with every solution substituted, remembered once it
    /// mentions no unknown.
    fn zonked_body(&self, id: u32, open: &mut bool) -> RcTerm {
        if let Some(done) = self.zonked.borrow().get(&id) {
            return done.clone();
        }
        let Some(solution) = &self.entries[id as usize].solution else {
            return Term::Hole(HoleKind::Meta(id), self.entries[id as usize].span).rc();
        };
        let mut inner_open = false;
        let body = self.zonk_noting(&solution.body, &mut inner_open);
        if inner_open {
            *open = true;
        } else {
            if solution.arity == 0 {
                // A solution over no variables is closed.
                self.mark_final(&body);
            }
            self.zonked.borrow_mut().insert(id, body.clone());
        }
        body
    }

    /// Whether `t` mentions an unknown.
    fn unsolved_any(&self, t: &RcTerm) -> bool {
        let mut found = Vec::new();
        self.unsolved_in(t, &mut found);
        !found.is_empty()
    }

    /// [`Metas::zonk`], then every unknown left spelt out as an explicit application:
    /// the form handed to the machine, which evaluates a term in its own environment
    /// and so must see every variable the term refers to.
    pub fn zonk_explicit(&self, t: &RcTerm) -> RcTerm {
        let t = self.zonk(t);
        rewrite(&t, &mut |node, _| match &**node {
            Term::Hole(HoleKind::MetaCtx(id, count, skip), span) => Some(
                crate::core::subst::meta_spine_term(*id, *count, *skip, *span),
            ),
            _ => None,
        })
    }

    /// The head of `t`, with solved metavariables at the head substituted (only the
    /// head: cheaper than a full [`Metas::zonk`] when only the shape matters).
    pub fn force_head(&self, t: &RcTerm) -> RcTerm {
        let mut t = t.clone();
        loop {
            let Some(f) = flex(&t) else {
                return t;
            };
            let Some(solution) = &self.entries[f.id as usize].solution else {
                return t;
            };
            if f.args.is_empty() && solution.arity == f.implicit {
                t = shift(&solution.body, f.skip);
                continue;
            }
            let args = f.all_args();
            t = apply_solution(solution.arity, &solution.body, &args);
        }
    }
}

/// If `t` is a metavariable applied to arguments, which one and its arguments.
pub fn flex(t: &Term) -> Option<Flex<'_>> {
    let mut args = Vec::new();
    let mut head = t;
    while let Term::App(f, _, a) = head {
        args.push(a);
        head = f;
    }
    let (id, implicit, skip) = match head {
        Term::Hole(HoleKind::Meta(id), _) => (*id, 0, 0),
        Term::Hole(HoleKind::MetaCtx(id, count, skip), _) => (*id, *count, *skip),
        _ => return None,
    };
    args.reverse();
    Some(Flex {
        id,
        implicit,
        skip,
        args,
    })
}

/// The head of an application spine.
fn spine_head(t: &RcTerm) -> &RcTerm {
    let mut head = t;
    while let Term::App(f, _, _) = &**head {
        head = f;
    }
    head
}

/// `head` applied to new arguments with the plicities of `t`'s spine (`args` pairs each
/// new argument with the old one it replaces; `t` itself if none changed).
fn reapply<'a>(
    t: &RcTerm,
    head: RcTerm,
    args: impl Iterator<Item = (RcTerm, &'a RcTerm)>,
) -> RcTerm {
    let mut plicities = Vec::new();
    let mut cur = t;
    while let Term::App(f, p, _) = &**cur {
        plicities.push(*p);
        cur = f;
    }
    plicities.reverse();
    let mut changed = false;
    let mut out = head;
    for ((new, old), p) in args.zip(plicities) {
        changed |= !Rc::ptr_eq(&new, old);
        out = Term::App(out, p, new).rc();
    }
    if changed { out } else { t.clone() }
}

/// A solution `\x1 .. x(arity) -> body` applied to arguments: substitutes for as many
/// of its variables as there are arguments, applies any arguments left over, and
/// abstracts again over variables no argument was given for.
fn apply_solution(arity: u32, body: &RcTerm, args: &[RcTerm]) -> RcTerm {
    let n = arity as usize;
    if args.len() >= n {
        let result = instantiate(body, &args[..n]);
        return args[n..].iter().fold(result, |f, a| {
            Term::App(f, Plicity::Explicit, a.clone()).rc()
        });
    }
    // Fewer arguments than variables: the rest stay abstracted.
    let missing = (n - args.len()) as u32;
    let shifted: Vec<RcTerm> = args
        .iter()
        .map(|a| crate::core::subst::shift(a, missing))
        .chain((0..missing).rev().map(|i| Term::Var(Ix(i)).rc()))
        .collect();
    let inner = instantiate(body, &shifted);
    (0..missing).fold(inner, |b, _| {
        Term::Lam(
            Binder {
                name: Rc::from("x"),
                plicity: Plicity::Explicit,
                ty: Term::Universe(0).rc(),
            },
            b,
        )
        .rc()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::equiv::alpha_eq;
    use crate::core::term::{Lit, PrimType};
    use crate::syntax::span::FileId;

    fn span() -> Span {
        Span::new(FileId(0), 0, 0)
    }

    #[test]
    fn a_solution_is_substituted_with_the_context_variables() {
        let mut metas = Metas::default();
        // In a context of two variables, ?m x0 x1 := x1 (the innermost variable).
        let m = metas.fresh(2, span(), "test");
        metas.solve(0, Term::Var(Ix(0)).rc());
        assert!(alpha_eq(&metas.zonk(&m), &Term::Var(Ix(0))));
        // Under a binder the same meta application is shifted, and so is its value.
        let shifted = crate::core::subst::shift(&m, 1);
        assert!(alpha_eq(&metas.zonk(&shifted), &Term::Var(Ix(1))));
    }

    #[test]
    fn zonk_reaches_nested_solutions() {
        let mut metas = Metas::default();
        let a = metas.fresh(0, span(), "a");
        let b = metas.fresh(0, span(), "b");
        metas.solve(0, b.clone());
        metas.solve(1, Term::PrimType(PrimType::Int).rc());
        let t = Term::App(a, Plicity::Explicit, Term::Lit(Lit::Int(1)).rc()).rc();
        let z = metas.zonk(&t);
        assert!(matches!(&*z, Term::App(f, _, _) if matches!(&**f, Term::PrimType(PrimType::Int))));
    }

    /// `?a0 := ?a1 -> ?a1`, `?a1 := ?a2 -> ?a2`, ...: the tree of the solution of `?a0`
    /// doubles with each unknown, its graph does not, and neither does the time to
    /// build and compare it.
    #[test]
    fn chains_of_solutions_stay_shared() {
        let mut metas = Metas::default();
        let n = 200;
        let ms: Vec<RcTerm> = (0..=n).map(|_| metas.fresh(0, span(), "m")).collect();
        for i in 0..n {
            let arrow = Term::Pi(
                Binder {
                    name: Rc::from("_"),
                    plicity: Plicity::Explicit,
                    ty: ms[i + 1].clone(),
                },
                ms[i + 1].clone(),
            )
            .rc();
            metas.solve(i as u32, arrow);
        }
        metas.solve(n as u32, Term::PrimType(PrimType::Int).rc());
        let z = metas.zonk(&ms[0]);
        let again = metas.zonk(&ms[0]);
        assert!(alpha_eq(&z, &again));
        let Term::Pi(b, cod) = &*z else {
            panic!("not an arrow")
        };
        assert!(Rc::ptr_eq(&b.ty, cod) || alpha_eq(&b.ty, cod));
    }
}
