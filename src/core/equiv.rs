//! Alpha-equivalence of core terms: equal up to the names of bound variables and the
//! source spans they carry. De Bruijn indices make this structural equality; binder
//! names, `Prim` / `Hole` / `Match` spans are ignored. Used by round-trip tests (print
//! then parse, wind then readback, encode then decode).
//!
//! The comparison walks both trees with an explicit work list, so deep terms cost heap,
//! not native stack, and compares a pair of shared subterms (`Rc`s with other owners)
//! once, so two equal terms whose trees are exponentially large but whose graphs are
//! small compare in the size of their graphs.

use crate::core::term::{Binder, CasePat, HoleKind, RcTerm, Term};
use std::collections::HashSet;
use std::rc::Rc;

/// Whether `a` and `b` are the same term up to bound names and spans.
pub fn alpha_eq(a: &Term, b: &Term) -> bool {
    let mut work = Work {
        pairs: vec![(a, b)],
        seen: HashSet::new(),
    };
    while let Some((a, b)) = work.pairs.pop() {
        if std::ptr::eq(a, b) {
            continue;
        }
        let same = match (a, b) {
            (Term::Var(x), Term::Var(y)) => x == y,
            (Term::Def(x), Term::Def(y)) => x == y,
            (Term::Data(x), Term::Data(y)) => x == y,
            (Term::Con(x), Term::Con(y)) => x == y,
            (Term::Extern(x, _), Term::Extern(y, _)) => x == y,
            (Term::Prim(x, _), Term::Prim(y, _)) => x == y,
            (Term::PrimType(x), Term::PrimType(y)) => x == y,
            (Term::Lit(x), Term::Lit(y)) => x == y,
            (Term::Universe(x), Term::Universe(y)) => x == y,
            (Term::Hole(x, _), Term::Hole(y, _)) => match (x, y) {
                (HoleKind::Infer, HoleKind::Infer) => true,
                (HoleKind::Goal(m), HoleKind::Goal(n)) => m == n,
                (HoleKind::Meta(m), HoleKind::Meta(n)) => m == n,
                (HoleKind::MetaCtx(m, j, a), HoleKind::MetaCtx(n, k, b)) => (m, j, a) == (n, k, b),
                _ => false,
            },
            (Term::Pi(p, x), Term::Pi(q, y)) | (Term::Lam(p, x), Term::Lam(q, y)) => {
                push_binder(&mut work, p, q);
                work.push((x, y));
                p.plicity == q.plicity
            }
            (Term::App(f, p, x), Term::App(g, q, y)) => {
                work.push((f, g));
                work.push((x, y));
                p == q
            }
            (Term::Let(p, r, x), Term::Let(q, s, y)) => {
                push_binder(&mut work, p, q);
                work.push((r, s));
                work.push((x, y));
                p.plicity == q.plicity
            }
            (Term::Ann(e, t), Term::Ann(f, u)) => {
                work.push((e, f));
                work.push((t, u));
                true
            }
            (Term::Match(m), Term::Match(n)) => {
                work.push((&m.scrut, &n.scrut));
                let arms_same = m.arms.len() == n.arms.len()
                    && m.arms.iter().zip(&n.arms).all(|(x, y)| {
                        work.push((&x.body, &y.body));
                        match (&x.pat, &y.pat) {
                            (CasePat::Con(c, fs), CasePat::Con(d, gs)) => {
                                let ok = c == d && fs.len() == gs.len();
                                if ok {
                                    for (f, g) in fs.iter().zip(gs) {
                                        push_binder(&mut work, f, g);
                                    }
                                }
                                ok
                            }
                            (CasePat::Lit(l), CasePat::Lit(k)) => l == k,
                            _ => false,
                        }
                    });
                let default_same = match (&m.default, &n.default) {
                    (None, None) => true,
                    (Some((p, x)), Some((q, y))) => {
                        push_binder(&mut work, p, q);
                        work.push((x, y));
                        true
                    }
                    _ => false,
                };
                arms_same && default_same
            }
            _ => false,
        };
        if !same {
            return false;
        }
    }
    true
}

/// The pairs of subterms still to compare, and the pairs of shared subterms already
/// queued (comparing them again would give the same answer).
struct Work<'t> {
    pairs: Vec<(&'t Term, &'t Term)>,
    seen: HashSet<(*const Term, *const Term)>,
}

impl<'t> Work<'t> {
    /// Queues a pair of subterms, unless they are one term or a shared pair already met.
    fn push(&mut self, (a, b): (&'t RcTerm, &'t RcTerm)) {
        if Rc::ptr_eq(a, b) {
            return;
        }
        if Rc::strong_count(a) > 1
            && Rc::strong_count(b) > 1
            && !self.seen.insert((Rc::as_ptr(a), Rc::as_ptr(b)))
        {
            return;
        }
        self.pairs.push((a, b));
    }
}

fn push_binder<'t>(work: &mut Work<'t>, p: &'t Binder, q: &'t Binder) {
    work.push((&p.ty, &q.ty));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::term::{Ix, Lit, Plicity};
    use std::rc::Rc;

    fn lam(name: &str, body: Term) -> Term {
        Term::Lam(
            Binder {
                name: Rc::from(name),
                plicity: Plicity::Explicit,
                ty: Term::Universe(0).rc(),
            },
            body.rc(),
        )
    }

    #[test]
    fn names_do_not_matter_but_indices_do() {
        assert!(alpha_eq(
            &lam("x", Term::Var(Ix(0))),
            &lam("y", Term::Var(Ix(0)))
        ));
        assert!(!alpha_eq(
            &lam("x", Term::Var(Ix(0))),
            &lam("x", Term::Var(Ix(1)))
        ));
        assert!(!alpha_eq(&Term::Lit(Lit::Int(1)), &Term::Lit(Lit::Int(2))));
    }

    #[test]
    fn deep_terms_compare_without_recursion() {
        // Two spines of a million applications (their arguments shared: the spines
        // are what must be walked without recursion).
        let one = Term::Lit(Lit::Int(1)).rc();
        let mut a = Term::Var(Ix(0)).rc();
        let mut b = Term::Var(Ix(0)).rc();
        for _ in 0..1_000_000 {
            a = Term::App(a, Plicity::Explicit, one.clone()).rc();
            b = Term::App(b, Plicity::Explicit, one.clone()).rc();
        }
        assert!(alpha_eq(&a, &b));
    }
}
