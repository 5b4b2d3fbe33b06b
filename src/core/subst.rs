//! Operations on the variables of core terms: shifting, substitution, free-variable
//! tests. These are bookkeeping on de Bruijn indices, not evaluation (the machine
//! evaluates); the type checker uses them to move types between contexts and to
//! instantiate a dependent function type with its argument (its goal refinement in a
//! `match` arm is a [`rewrite`] too).
//!
//! Everything is built on one rewriting traversal, [`rewrite`], which rebuilds only the
//! parts of a term that change (unchanged subtrees are shared), walks deep terms with
//! an explicit stack and visits a shared subterm once per binder depth, so its cost is
//! the size of the term's graph, not of its tree. [`map_free_vars`] is the form for
//! operations on variables, which also spells out a type checker's context
//! metavariable ([`HoleKind::MetaCtx`]) where its implicit arguments change.

use crate::core::term::{Binder, CaseArm, CasePat, HoleKind, Ix, Match, Plicity, RcTerm, Term};
use std::collections::HashMap;
use std::rc::Rc;

/// A copy of match `m` around `scrut`, with each piece of its code (the fields' type
/// annotations, the arms, the default) passed through `f(code, binders)`, where
/// `binders` counts the match's own binders around that code (an arm's fields before
/// it, or the default's one).
pub fn map_match<'t>(
    m: &'t Match,
    scrut: RcTerm,
    f: &mut impl FnMut(&'t RcTerm, u32) -> RcTerm,
) -> RcTerm {
    let arms = m
        .arms
        .iter()
        .map(|arm| {
            let pat = match &arm.pat {
                CasePat::Con(c, fields) => CasePat::Con(
                    *c,
                    fields
                        .iter()
                        .enumerate()
                        .map(|(k, b)| Binder {
                            name: b.name.clone(),
                            plicity: b.plicity,
                            ty: f(&b.ty, k as u32),
                        })
                        .collect(),
                ),
                CasePat::Lit(l) => CasePat::Lit(l.clone()),
            };
            let body = f(&arm.body, arm.pat.arity() as u32);
            CaseArm { pat, body }
        })
        .collect();
    let default = m.default.as_ref().map(|(b, body)| {
        let binder = Binder {
            name: b.name.clone(),
            plicity: b.plicity,
            ty: f(&b.ty, 0),
        };
        (binder, f(body, 1))
    });
    Term::Match(Box::new(Match {
        scrut,
        arms,
        default,
        span: m.span,
    }))
    .rc()
}

/// Rebuilds `t`, first asking `f(node, binders)` at every node, where `binders` is how
/// many binders of `t` enclose the node; `Some(r)` replaces the node (and its children
/// are not visited; `Some(node.clone())` keeps a subtree as it is), `None` descends.
///
/// The walk uses an explicit stack, so a term of any depth (a million nested arrows or
/// `let`s) costs heap, not native stack. Unchanged subtrees are shared with `t`, and a
/// subtree shared within `t` (an `Rc` with several owners, as types are: a pair type
/// mentions its component types once each, however often they occur) is rewritten once
/// per binder depth and its result shared: a term whose tree would be exponentially
/// large but whose graph is small costs the size of its graph. `f` must therefore give
/// the same answer (and have the same effect) each time it is asked about the same node
/// at the same depth.
pub fn rewrite(t: &RcTerm, f: &mut impl FnMut(&RcTerm, u32) -> Option<RcTerm>) -> RcTerm {
    rewrite_spines(t, &mut |node, d, _| f(node, d))
}

/// [`rewrite`], also telling `f` whether the node is the function part of an
/// application (`inner` in `App(inner, _, _)`): a pass that treats whole application
/// spines (`f a b c`) handles each spine where it starts, once, instead of again at
/// every one of its prefixes.
pub fn rewrite_spines(
    t: &RcTerm,
    f: &mut impl FnMut(&RcTerm, u32, bool) -> Option<RcTerm>,
) -> RcTerm {
    Rewrite {
        f,
        memo: HashMap::new(),
    }
    .run(t, 0)
}

/// The state of one [`rewrite`].
struct Rewrite<'f, F> {
    f: &'f mut F,
    /// Results for shared nodes, by node and binder depth.
    memo: HashMap<(*const Term, u32), RcTerm>,
}

/// One step of the walk: visit a node (at a binder depth, and whether it is the
/// function part of an application), or rebuild it once its children are done (their
/// results are the last `children` entries of the result stack; `shared` tells whether
/// the node had other owners when it was visited, so its result is worth remembering).
enum Step<'t> {
    Visit(&'t RcTerm, u32, bool),
    Build {
        node: &'t RcTerm,
        depth: u32,
        children: u32,
        shared: bool,
    },
}

/// Whether a node has other owners, so that its rewrite is worth remembering. Asked
/// when the walk first meets the node, before the walk holds a copy of it itself (a
/// result that keeps the node as it is is one).
fn is_shared(t: &RcTerm) -> bool {
    Rc::strong_count(t) > 1
}

impl<F: FnMut(&RcTerm, u32, bool) -> Option<RcTerm>> Rewrite<'_, F> {
    fn run(&mut self, root: &RcTerm, depth: u32) -> RcTerm {
        let mut steps = vec![Step::Visit(root, depth, false)];
        let mut results: Vec<RcTerm> = Vec::new();
        // The children of the node being visited (reused: one allocation per walk,
        // not one per node).
        let mut children: Vec<(&RcTerm, u32)> = Vec::new();
        while let Some(step) = steps.pop() {
            match step {
                Step::Visit(t, d, in_spine) => {
                    let shared = is_shared(t);
                    if shared && let Some(r) = self.memo.get(&(Rc::as_ptr(t), d)) {
                        results.push(r.clone());
                        continue;
                    }
                    if let Some(r) = (self.f)(t, d, in_spine) {
                        if shared {
                            self.memo.insert((Rc::as_ptr(t), d), r.clone());
                        }
                        results.push(r);
                        continue;
                    }
                    children.clear();
                    t.for_each_child(|child, k| children.push((child, k)));
                    if children.is_empty() {
                        results.push(t.clone());
                        continue;
                    }
                    steps.push(Step::Build {
                        node: t,
                        depth: d,
                        children: children.len() as u32,
                        shared,
                    });
                    let app = matches!(&**t, Term::App(..));
                    for (i, (child, k)) in children.drain(..).enumerate().rev() {
                        steps.push(Step::Visit(child, d + k, app && i == 0));
                    }
                }
                Step::Build {
                    node,
                    depth,
                    children,
                    shared,
                } => {
                    let from = results.len() - children as usize;
                    let r = rebuild(node, &results[from..]);
                    results.truncate(from);
                    if shared {
                        self.memo.insert((Rc::as_ptr(node), depth), r.clone());
                    }
                    results.push(r);
                }
            }
        }
        results.pop().unwrap_or_else(|| root.clone())
    }
}

/// `t` with its direct subterms replaced by `kids` (in [`Term::for_each_child`]'s
/// order); `t` itself when every one of them is unchanged.
fn rebuild(t: &RcTerm, kids: &[RcTerm]) -> RcTerm {
    let mut same = true;
    let mut count = 0;
    t.for_each_child(|child, _| {
        same &= kids.get(count).is_some_and(|k| Rc::ptr_eq(child, k));
        count += 1;
    });
    if same && count == kids.len() {
        return t.clone();
    }
    let mut kids = kids.iter().cloned();
    let mut next = || kids.next().unwrap_or_else(|| Term::Universe(0).rc());
    let binder = |b: &Binder, ty: RcTerm| Binder {
        name: b.name.clone(),
        plicity: b.plicity,
        ty,
    };
    match &**t {
        Term::Pi(b, _) => {
            let ty = next();
            Term::Pi(binder(b, ty), next()).rc()
        }
        Term::Lam(b, _) => {
            let ty = next();
            Term::Lam(binder(b, ty), next()).rc()
        }
        Term::App(_, p, _) => {
            let f = next();
            Term::App(f, *p, next()).rc()
        }
        Term::Let(b, _, _) => {
            let ty = next();
            let rhs = next();
            Term::Let(binder(b, ty), rhs, next()).rc()
        }
        Term::Ann(..) => {
            let e = next();
            Term::Ann(e, next()).rc()
        }
        Term::Match(m) => {
            let scrut = next();
            map_match(m, scrut, &mut |_, _| next())
        }
        Term::Var(_)
        | Term::Def(_)
        | Term::Data(_)
        | Term::Con(_)
        | Term::Extern(..)
        | Term::Prim(..)
        | Term::PrimType(_)
        | Term::Lit(_)
        | Term::Universe(_)
        | Term::Hole(..) => t.clone(),
    }
}

/// The explicit form of a context metavariable `MetaCtx(id, count, skip)`: `?id`
/// applied to the variables `skip + count - 1`, ..., `skip`.
pub fn meta_spine_term(id: u32, count: u32, skip: u32, span: crate::syntax::span::Span) -> RcTerm {
    (0..count)
        .rev()
        .fold(Term::Hole(HoleKind::Meta(id), span).rc(), |f, i| {
            Term::App(f, Plicity::Explicit, Term::Var(Ix(i + skip)).rc()).rc()
        })
}

/// Rewrites the free variables of `t`: `f(ix, binders)` is asked about each variable
/// that is free in `t`, with its index seen from `t`'s root (`ix`) and the number of
/// binders of `t` around it; `Some(r)` replaces it (`r` is in the scope of that node).
///
/// A context metavariable ([`HoleKind::MetaCtx`]) stands for an application to
/// variables; where some of those are free in `t` and `f` changes one of them, it is
/// spelt out as that application first.
pub fn map_free_vars(t: &RcTerm, f: &mut impl FnMut(u32, u32) -> Option<RcTerm>) -> RcTerm {
    rewrite(t, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i >= d => f(i - d, d),
        Term::Hole(HoleKind::MetaCtx(id, count, skip), span) if skip + count > d => {
            let mut changed = false;
            let args: Vec<RcTerm> = (0..*count)
                .rev()
                .map(|j| {
                    let i = j + skip;
                    let new = if i >= d { f(i - d, d) } else { None };
                    changed |= new.is_some();
                    new.unwrap_or_else(|| Term::Var(Ix(i)).rc())
                })
                .collect();
            if !changed {
                return Some(node.clone());
            }
            Some(Term::apps(
                Term::Hole(HoleKind::Meta(*id), *span).rc(),
                args,
            ))
        }
        _ => None,
    })
}

/// Adds `delta` to the index of every free variable of `t` (the caller guarantees no
/// free variable below `-delta`). A context metavariable whose arguments are all free
/// keeps its compact form (its `skip` moves); one whose arguments are partly bound
/// inside `t` is spelt out.
fn shift_free(t: &RcTerm, delta: i64) -> RcTerm {
    let moved = |i: u32| (i as i64 + delta).max(0) as u32;
    rewrite(t, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i >= d => Some(Term::Var(Ix(moved(*i - d) + d)).rc()),
        Term::Hole(HoleKind::MetaCtx(id, count, skip), span) if skip + count > d => {
            if *skip >= d {
                let skip = moved(skip - d) + d;
                return Some(Term::Hole(HoleKind::MetaCtx(*id, *count, skip), *span).rc());
            }
            let args = (0..*count).rev().map(|j| {
                let i = j + skip;
                let i = if i >= d { moved(i - d) + d } else { i };
                Term::Var(Ix(i)).rc()
            });
            Some(Term::apps(
                Term::Hole(HoleKind::Meta(*id), *span).rc(),
                args,
            ))
        }
        _ => None,
    })
}

/// One more than the largest index of a variable free in `t` (0 when `t` is closed):
/// every free variable of `t` is below it.
pub fn free_var_bound(t: &RcTerm) -> u32 {
    let mut bound = 0;
    rewrite(t, &mut |node, d| {
        match &**node {
            Term::Var(Ix(i)) if *i >= d => bound = bound.max(i - d + 1),
            Term::Hole(HoleKind::MetaCtx(_, count, skip), _) if skip + count > d => {
                bound = bound.max(skip + count - d)
            }
            _ => return None,
        }
        Some(node.clone())
    });
    bound
}

/// The smallest index of a variable free in `t`, if any.
pub fn free_var_floor(t: &RcTerm) -> Option<u32> {
    let mut floor: Option<u32> = None;
    rewrite(t, &mut |node, d| {
        let low = match &**node {
            Term::Var(Ix(i)) if *i >= d => i - d,
            Term::Hole(HoleKind::MetaCtx(_, count, skip), _) if skip + count > d => {
                skip.saturating_sub(d)
            }
            _ => return None,
        };
        floor = Some(floor.map_or(low, |f| f.min(low)));
        Some(node.clone())
    });
    floor
}

/// Moves `t` under `by` more binders: every free variable's index grows by `by`.
pub fn shift(t: &RcTerm, by: u32) -> RcTerm {
    if by == 0 {
        return t.clone();
    }
    shift_free(t, by as i64)
}

/// Moves `t` out from under `by` binders it does not use: every free variable's index
/// drops by `by` (none may be below `by`).
pub fn unshift(t: &RcTerm, by: u32) -> RcTerm {
    if by == 0 {
        return t.clone();
    }
    shift_free(t, -(by as i64))
}

/// Substitutes for the `args.len()` innermost free variables of `body` (`args[0]` for
/// the outermost of them), which leaves their binders: the other free variables' indices
/// drop by `args.len()`. The arguments are in the scope outside those binders.
pub fn instantiate(body: &RcTerm, args: &[RcTerm]) -> RcTerm {
    let n = args.len() as u32;
    if n == 0 {
        return body.clone();
    }
    rewrite(body, &mut |node, d| match &**node {
        // Past the substituted variables, or below them: only the indices move.
        Term::Hole(HoleKind::MetaCtx(id, count, skip), span)
            if skip + count > d && *skip >= d + n =>
        {
            Some(Term::Hole(HoleKind::MetaCtx(*id, *count, skip - n), *span).rc())
        }
        Term::Var(Ix(i)) if *i >= d => {
            let j = i - d;
            Some(if j < n {
                shift(&args[(n - 1 - j) as usize], d)
            } else {
                Term::Var(Ix(j - n + d)).rc()
            })
        }
        Term::Hole(HoleKind::MetaCtx(id, count, skip), span) if skip + count > d => {
            // Some arguments substituted, or some bound inside `body`: spelt out.
            let spelt = (0..*count).rev().map(|k| {
                let i = k + skip;
                if i < d {
                    return Term::Var(Ix(i)).rc();
                }
                let j = i - d;
                if j < n {
                    shift(&args[(n - 1 - j) as usize], d)
                } else {
                    Term::Var(Ix(j - n + d)).rc()
                }
            });
            Some(Term::apps(
                Term::Hole(HoleKind::Meta(*id), *span).rc(),
                spelt,
            ))
        }
        _ => None,
    })
}

/// `body[x := arg]` for the body of a one-binder form (a `Pi`'s codomain, a lambda's
/// body).
pub fn subst_top(body: &RcTerm, arg: &RcTerm) -> RcTerm {
    instantiate(body, std::slice::from_ref(arg))
}

/// Whether `t` has the free variable with index `ix`.
pub fn has_free_var(t: &RcTerm, ix: u32) -> bool {
    let mut found = false;
    rewrite(t, &mut |node, d| {
        if found {
            return Some(node.clone());
        }
        match &**node {
            Term::Var(Ix(i)) if *i >= d && i - d == ix => found = true,
            Term::Hole(HoleKind::MetaCtx(_, count, skip), _)
                if ix + d >= *skip && ix + d < skip + count =>
            {
                found = true
            }
            _ => {}
        }
        None
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::equiv::alpha_eq;
    use crate::core::term::{Lit, Plicity};

    fn var(i: u32) -> RcTerm {
        Term::Var(Ix(i)).rc()
    }
    fn app(f: RcTerm, a: RcTerm) -> RcTerm {
        Term::App(f, Plicity::Explicit, a).rc()
    }
    fn lam(body: RcTerm) -> RcTerm {
        Term::Lam(
            Binder {
                name: Rc::from("x"),
                plicity: Plicity::Explicit,
                ty: Term::Universe(0).rc(),
            },
            body,
        )
        .rc()
    }

    #[test]
    fn shift_moves_only_free_variables() {
        let t = lam(app(var(0), var(1)));
        assert!(alpha_eq(&shift(&t, 2), &lam(app(var(0), var(3)))));
    }

    #[test]
    fn substitution_replaces_the_top_variable_and_lowers_the_rest() {
        // (0 1)[0 := 5] = 5 0
        let body = app(var(0), var(1));
        let five = Term::Lit(Lit::Int(5)).rc();
        assert!(alpha_eq(
            &subst_top(&body, &five),
            &app(five.clone(), var(0))
        ));
        // Under a binder the argument is shifted: (\. 1)[0 := v2] = \. v3
        let body = lam(var(1));
        assert!(alpha_eq(&subst_top(&body, &var(2)), &lam(var(3))));
    }

    #[test]
    fn instantiate_many_puts_the_first_argument_outermost() {
        // body under two binders: (1 0); args [a, b] -> (a b)
        let body = app(var(1), var(0));
        let a = Term::Lit(Lit::Int(1)).rc();
        let b = Term::Lit(Lit::Int(2)).rc();
        assert!(alpha_eq(
            &instantiate(&body, &[a.clone(), b.clone()]),
            &app(a, b)
        ));
    }

    #[test]
    fn free_variables_are_found_under_binders() {
        let t = app(var(0), lam(var(2)));
        assert!(has_free_var(&t, 0));
        assert!(has_free_var(&t, 1));
        assert!(!has_free_var(&t, 2));
    }
}
