//! Readback (`get_ast`): a wound stack back to a core term, as a [`Fold`].
//!
//! A variable's index is the number of entries between the stack's innermost entry
//! and the variable's entry; an open binder or a paired binder becomes a lambda (the
//! paired one then applied to its argument), a recursive entry a `let`, a pending
//! application an application. Code kept in a stack (a lambda with nothing pending,
//! a `Pi`, match arms) is in the stack's context, so it reads back as itself.
//! Evaluated heads read back as their values. [`alpha_eq`] compares terms up to the
//! names of bound variables, without recursion.

use super::Machine;
use super::arena::NIL;
use super::heap::{Cell, Heap};
use super::stack::Head;
use super::unwind::{Entry, Fold, unwind};
use super::value::{CtxtId, StackId, Value};
use crate::core::subst::map_match;
use crate::core::term::{Binder, CasePat, Lit, Plicity, RcTerm, Term};
use std::rc::Rc;

/// The readback fold.
pub struct ReadBack;

/// Reads a wound stack back as a core term (the stack is left as it was).
pub fn get_ast<'p>(heap: &mut Heap<'p>, s: StackId) -> RcTerm {
    unwind(heap, &mut ReadBack, s)
}

fn binder_of(heap: &Heap<'_>, c: CtxtId) -> Binder {
    match heap.ctxt(c).binder {
        Some(b) => b.clone(),
        None => Binder {
            name: Rc::from("_"),
            plicity: Plicity::Explicit,
            ty: Term::Universe(0).rc(),
        },
    }
}

/// A right-hand side that is not a wound stack, as a term.
fn rhs_term(heap: &Heap<'_>, c: CtxtId) -> RcTerm {
    match &heap.ctxt(c).cell {
        Cell::Suspended(t, _) => (*t).clone(),
        Cell::Value(v) => value_term(v),
        _ => Term::Universe(0).rc(),
    }
}

/// An evaluated atom as a term (compound values are stacks of their own).
fn value_term(v: &Value<'_>) -> RcTerm {
    match v {
        Value::Int(n) => Term::Lit(Lit::Int(*n)).rc(),
        Value::Float(x) => Term::Lit(Lit::Float(*x)).rc(),
        Value::Str(s) => Term::Lit(Lit::Str(s.clone())).rc(),
        Value::Con(c, NIL) => Term::Con(*c).rc(),
        Value::Fun(t, NIL) | Value::Pi(t, NIL) => (*t).clone(),
        Value::Universe(n) => Term::Universe(*n).rc(),
        Value::PrimType(p) => Term::PrimType(*p).rc(),
        _ => Term::Hole(
            crate::core::term::HoleKind::Infer,
            crate::syntax::span::Span::new(crate::syntax::span::FileId(0), 0, 0),
        )
        .rc(),
    }
}

impl<'p> Fold<'p> for ReadBack {
    type Out = RcTerm;

    fn val(&mut self, heap: &mut Heap<'p>, s: StackId, scrut: Option<RcTerm>) -> RcTerm {
        let st = heap.stacks.get(s);
        match &st.head {
            Head::Var(c) => {
                let mut ix = 0;
                let mut e = st.ctx;
                while e != *c && e != NIL {
                    e = heap.ctxt(e).next;
                    ix += 1;
                }
                Term::Var(crate::core::term::Ix(ix)).rc()
            }
            Head::Code(t) => (*t).clone(),
            Head::Match(m, _) => {
                map_match(m, scrut.expect("scrutinee"), &mut |code, _| code.clone())
            }
            Head::Value(v) => value_term(v),
            h => h.closed_term().unwrap_or_else(|| Term::Universe(0).rc()),
        }
    }

    fn let_l(
        &mut self,
        heap: &mut Heap<'p>,
        c: CtxtId,
        entry: Entry<RcTerm>,
        body: RcTerm,
    ) -> RcTerm {
        let b = binder_of(heap, c);
        match entry {
            Entry::Open | Entry::Paired => Term::Lam(b, body).rc(),
            Entry::Letrec(rhs) => {
                let rhs = rhs.unwrap_or_else(|| rhs_term(heap, c));
                Term::Let(b, rhs, body).rc()
            }
        }
    }

    fn let_a(
        &mut self,
        heap: &mut Heap<'p>,
        c: CtxtId,
        fun: RcTerm,
        arg: Option<RcTerm>,
    ) -> RcTerm {
        // The application's own plicity, kept on the argument's stack.
        let pl = match heap.ctxt(c).cell {
            Cell::Wound(r) => heap.stacks.get(r).plicity,
            _ => heap
                .ctxt(c)
                .binder
                .map(|b| b.plicity)
                .unwrap_or(Plicity::Explicit),
        };
        let arg = arg.unwrap_or_else(|| rhs_term(heap, c));
        Term::App(fun, pl, arg).rc()
    }

    fn apply(
        &mut self,
        _heap: &mut Heap<'p>,
        fun: RcTerm,
        arg: RcTerm,
        plicity: Plicity,
    ) -> RcTerm {
        Term::App(fun, plicity, arg).rc()
    }
}

/// Whether two terms are equal up to the names of bound variables (and spans,
/// annotations' holes kinds aside: holes compare equal to holes).
pub fn alpha_eq(a: &Term, b: &Term) -> bool {
    let mut work: Vec<(&Term, &Term)> = vec![(a, b)];
    while let Some((a, b)) = work.pop() {
        use Term::*;
        let ok = match (a, b) {
            (Var(x), Var(y)) => x == y,
            (Def(x), Def(y)) => x == y,
            (Data(x), Data(y)) => x == y,
            (Con(x), Con(y)) => x == y,
            (Extern(x), Extern(y)) => x == y,
            (Prim(x, _), Prim(y, _)) => x == y,
            (PrimType(x), PrimType(y)) => x == y,
            (Lit(x), Lit(y)) => x == y,
            (Universe(x), Universe(y)) => x == y,
            (Hole(..), Hole(..)) => true,
            (Pi(bx, x), Pi(by, y)) | (Lam(bx, x), Lam(by, y)) => {
                work.push((&bx.ty, &by.ty));
                work.push((x, y));
                bx.plicity == by.plicity
            }
            (App(f, p, x), App(g, q, y)) => {
                work.push((f, g));
                work.push((x, y));
                p == q
            }
            (Let(bx, r, x), Let(by, s, y)) => {
                work.push((&bx.ty, &by.ty));
                work.push((r, s));
                work.push((x, y));
                true
            }
            (Ann(x, t), Ann(y, u)) => {
                work.push((x, y));
                work.push((t, u));
                true
            }
            (Match(m), Match(n)) => {
                work.push((&m.scrut, &n.scrut));
                let arms_ok = m.arms.len() == n.arms.len()
                    && m.arms
                        .iter()
                        .zip(&n.arms)
                        .all(|(x, y)| match (&x.pat, &y.pat) {
                            (CasePat::Con(c, f), CasePat::Con(d, g)) => {
                                c == d && f.len() == g.len()
                            }
                            (CasePat::Lit(k), CasePat::Lit(l)) => k == l,
                            _ => false,
                        });
                if arms_ok {
                    for (x, y) in m.arms.iter().zip(&n.arms) {
                        work.push((&x.body, &y.body));
                    }
                }
                let def_ok = match (&m.default, &n.default) {
                    (None, None) => true,
                    (Some((_, x)), Some((_, y))) => {
                        work.push((x, y));
                        true
                    }
                    _ => false,
                };
                arms_ok && def_ok
            }
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

impl<'p> Machine<'p> {
    /// A function value as Spindle source: its lambda, with the variables it closes
    /// over replaced by their values where those are evaluated atoms (numbers,
    /// strings, constants); other free variables keep their names.
    pub fn show_closure(&mut self, t: &'p RcTerm, env: CtxtId) -> String {
        let mut names: Vec<Rc<str>> = Vec::new();
        let mut e = env;
        while e != NIL {
            let c = self.heap.ctxt(e);
            names.push(
                c.binder
                    .map(|b| b.name.clone())
                    .unwrap_or_else(|| Rc::from("_")),
            );
            e = c.next;
        }
        let heap = &self.heap;
        let body = crate::core::subst::rewrite(t, &mut |node, depth| {
            let Term::Var(ix) = &**node else { return None };
            if ix.0 < depth {
                return None;
            }
            let c = heap.resolve(heap.walk(env, ix.0 - depth));
            match &heap.ctxt(c).cell {
                Cell::Value(v @ (Value::Int(_) | Value::Float(_) | Value::Str(_))) => {
                    Some(value_term(v))
                }
                Cell::Value(Value::Con(k, NIL)) => Some(Term::Con(*k).rc()),
                _ => None,
            }
        });
        names.reverse();
        let locals: Vec<&str> = names.iter().map(|n| &**n).collect();
        crate::core::pretty::term_to_string(self.prog, &locals, &body)
    }
}
