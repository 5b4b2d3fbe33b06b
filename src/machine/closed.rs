//! Which code is closed: computed once per program, so that a function or a
//! suspended argument with no free local variables is built without a context. A
//! closure keeps its whole context chain alive (contexts are shared chains, not copied
//! per closure), so a closed lambda like `\acc x -> acc + x` passed down a long fold
//! must not hold on to the context it was written in (and the list that context
//! binds).

use crate::core::program::Program;
use crate::core::term::{CasePat, Term};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for pointer keys.
#[derive(Default)]
pub struct PtrHasher(u64);

impl Hasher for PtrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_right(29);
    }
}

/// The set of closed lambdas and applications' arguments, by address.
pub type ClosedSet = HashSet<usize, BuildHasherDefault<PtrHasher>>;

/// How many enclosing binders a term needs (1 + its largest free index, or 0).
fn needs(term: &Term, child: impl Fn(&Term) -> u32) -> u32 {
    let under = |n: u32, k: u32| n.saturating_sub(k);
    match term {
        Term::Var(ix) => ix.0 + 1,
        Term::Lam(b, body) | Term::Pi(b, body) => child(&b.ty).max(under(child(body), 1)),
        Term::Let(b, rhs, body) => child(&b.ty)
            .max(under(child(rhs), 1))
            .max(under(child(body), 1)),
        Term::App(f, _, a) => child(f).max(child(a)),
        Term::Ann(e, t) => child(e).max(child(t)),
        Term::Match(m) => {
            let mut n = child(&m.scrut);
            for arm in &m.arms {
                n = n.max(under(child(&arm.body), arm.pat.arity() as u32));
                if let CasePat::Con(_, fields) = &arm.pat {
                    for (i, f) in fields.iter().enumerate() {
                        n = n.max(under(child(&f.ty), i as u32));
                    }
                }
            }
            if let Some((b, body)) = &m.default {
                n = n.max(child(&b.ty)).max(under(child(body), 1));
            }
            n
        }
        _ => 0,
    }
}

fn children(term: &Term) -> Vec<&Term> {
    let mut v: Vec<&Term> = Vec::new();
    match term {
        Term::Lam(b, body) | Term::Pi(b, body) => {
            v.push(&b.ty);
            v.push(body);
        }
        Term::Let(b, rhs, body) => {
            v.push(&b.ty);
            v.push(rhs);
            v.push(body);
        }
        Term::App(f, _, a) => {
            v.push(f);
            v.push(a);
        }
        Term::Ann(e, t) => {
            v.push(e);
            v.push(t);
        }
        Term::Match(m) => {
            v.push(&m.scrut);
            for arm in &m.arms {
                v.push(&arm.body);
                if let CasePat::Con(_, fields) = &arm.pat {
                    for f in fields {
                        v.push(&f.ty);
                    }
                }
            }
            if let Some((b, body)) = &m.default {
                v.push(&b.ty);
                v.push(body);
            }
        }
        _ => {}
    }
    v
}

/// The closed lambdas and closed non-atomic application arguments of a program's
/// definitions (iterative post-order traversal).
pub fn closed_terms(prog: &Program) -> ClosedSet {
    let mut need: std::collections::HashMap<usize, u32, BuildHasherDefault<PtrHasher>> =
        Default::default();
    let mut closed = ClosedSet::default();
    let key = |t: &Term| t as *const Term as usize;
    for def in &prog.defs {
        let mut stack: Vec<(&Term, bool)> = vec![(&def.body, false)];
        while let Some((t, expanded)) = stack.pop() {
            if need.contains_key(&key(t)) {
                continue;
            }
            if !expanded {
                stack.push((t, true));
                for c in children(t) {
                    if !need.contains_key(&key(c)) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            let n = needs(t, |c| need.get(&key(c)).copied().unwrap_or(0));
            need.insert(key(t), n);
            if n == 0
                && matches!(
                    t,
                    Term::Lam(..) | Term::App(..) | Term::Match(..) | Term::Let(..)
                )
            {
                closed.insert(key(t));
            }
        }
    }
    closed
}
