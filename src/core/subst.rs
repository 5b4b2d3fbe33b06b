//! Operations on the variables of core terms: shifting, substitution, free-variable
//! tests. These are bookkeeping on de Bruijn indices, not evaluation (the machine
//! evaluates); the type checker uses them to move types between contexts and to
//! instantiate a dependent function type with its argument (its goal refinement in a
//! `match` arm is a [`rewrite`] too).
//!
//! Everything is built on one rewriting traversal, [`rewrite`], which rebuilds only the
//! parts of a term that change (unchanged subtrees are shared) and grows the native
//! stack on demand for deep terms.

use crate::core::term::{Binder, CaseArm, CasePat, Ix, Match, RcTerm, Term};
use std::rc::Rc;

/// A copy of match `m` around `scrut`, with each piece of its code (the fields' type
/// annotations, the arms, the default) passed through `f(code, binders)`, where
/// `binders` counts the match's own binders around that code (an arm's fields before
/// it, or the default's one).
pub fn map_match(m: &Match, scrut: RcTerm, f: &mut impl FnMut(&RcTerm, u32) -> RcTerm) -> RcTerm {
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
pub fn rewrite(t: &RcTerm, f: &mut impl FnMut(&RcTerm, u32) -> Option<RcTerm>) -> RcTerm {
    go(t, 0, f)
}

fn go(t: &RcTerm, depth: u32, f: &mut impl FnMut(&RcTerm, u32) -> Option<RcTerm>) -> RcTerm {
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || go_inner(t, depth, f))
}

fn binder(b: &Binder, depth: u32, f: &mut impl FnMut(&RcTerm, u32) -> Option<RcTerm>) -> Binder {
    Binder {
        name: b.name.clone(),
        plicity: b.plicity,
        ty: go(&b.ty, depth, f),
    }
}

fn go_inner(t: &RcTerm, depth: u32, f: &mut impl FnMut(&RcTerm, u32) -> Option<RcTerm>) -> RcTerm {
    if let Some(r) = f(t, depth) {
        return r;
    }
    match &**t {
        Term::Pi(b, body) => {
            let nb = binder(b, depth, f);
            let nbody = go(body, depth + 1, f);
            if Rc::ptr_eq(&nb.ty, &b.ty) && Rc::ptr_eq(&nbody, body) {
                return t.clone();
            }
            Term::Pi(nb, nbody).rc()
        }
        Term::Lam(b, body) => {
            let nb = binder(b, depth, f);
            let nbody = go(body, depth + 1, f);
            if Rc::ptr_eq(&nb.ty, &b.ty) && Rc::ptr_eq(&nbody, body) {
                return t.clone();
            }
            Term::Lam(nb, nbody).rc()
        }
        Term::App(fun, p, arg) => {
            // Walk the application spine in a loop: it can be long.
            let mut args = Vec::new();
            let mut head = t;
            while let Term::App(g, p, a) = &**head {
                args.push((*p, a));
                head = g;
            }
            let _ = (fun, p, arg);
            let nhead = go(head, depth, f);
            let mut changed = !Rc::ptr_eq(&nhead, head);
            let nargs: Vec<_> = args
                .iter()
                .rev()
                .map(|(p, a)| {
                    let na = go(a, depth, f);
                    changed |= !Rc::ptr_eq(&na, a);
                    (*p, na)
                })
                .collect();
            if !changed {
                return t.clone();
            }
            nargs
                .into_iter()
                .fold(nhead, |acc, (p, a)| Term::App(acc, p, a).rc())
        }
        Term::Let(b, rhs, body) => {
            let nb = binder(b, depth, f);
            let nrhs = go(rhs, depth + 1, f);
            let nbody = go(body, depth + 1, f);
            if Rc::ptr_eq(&nb.ty, &b.ty) && Rc::ptr_eq(&nrhs, rhs) && Rc::ptr_eq(&nbody, body) {
                return t.clone();
            }
            Term::Let(nb, nrhs, nbody).rc()
        }
        Term::Ann(e, ty) => {
            let ne = go(e, depth, f);
            let nty = go(ty, depth, f);
            if Rc::ptr_eq(&ne, e) && Rc::ptr_eq(&nty, ty) {
                return t.clone();
            }
            Term::Ann(ne, nty).rc()
        }
        Term::Match(m) => {
            let scrut = go(&m.scrut, depth, f);
            map_match(m, scrut, &mut |code, k| go(code, depth + k, f))
        }
        Term::Var(_)
        | Term::Def(_)
        | Term::Data(_)
        | Term::Con(_)
        | Term::Extern(_)
        | Term::Prim(..)
        | Term::PrimType(_)
        | Term::Lit(_)
        | Term::Universe(_)
        | Term::Hole(..) => t.clone(),
    }
}

/// Moves `t` under `by` more binders: every free variable's index grows by `by`.
pub fn shift(t: &RcTerm, by: u32) -> RcTerm {
    if by == 0 {
        return t.clone();
    }
    rewrite(t, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i >= d => Some(Term::Var(Ix(i + by)).rc()),
        _ => None,
    })
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
        Term::Var(Ix(i)) if *i >= d => {
            let j = i - d;
            Some(if j < n {
                shift(&args[(n - 1 - j) as usize], d)
            } else {
                Term::Var(Ix(i - n)).rc()
            })
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
        if let Term::Var(Ix(i)) = &**node
            && *i >= d
            && i - d == ix
        {
            found = true;
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
