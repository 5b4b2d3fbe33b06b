//! Syntax sugar: tuples as nested `MkPair`s, list literals as `Cons` chains, `if` and
//! the logical operators as matches on `Bool`.

use super::*;

/// The arguments of `D args` if `t` is the data type `d` applied (explicitly).
pub(in crate::check) fn data_args(t: &Term, d: DataId) -> Option<Vec<RcTerm>> {
    let mut args = Vec::new();
    let mut head = t;
    while let Term::App(f, _, a) = head {
        args.push(a.clone());
        head = f;
    }
    match head {
        Term::Data(id) if *id == d => {
            args.reverse();
            Some(args)
        }
        _ => None,
    }
}

/// `match cond with | True -> then_ | False -> else_`.
pub(in crate::check) fn bool_match(
    b: Builtins,
    cond: RcTerm,
    then_: RcTerm,
    else_: RcTerm,
    span: Span,
) -> RcTerm {
    b.if_then_else(cond, then_, else_, span)
}

/// `MkPair {a} {b} x y`.
pub(in crate::check) fn pair_term(
    b: Builtins,
    a: &RcTerm,
    bt: &RcTerm,
    x: RcTerm,
    y: RcTerm,
) -> RcTerm {
    let con = Term::Con(b.mk_pair).rc();
    let con = Term::App(con, Plicity::Implicit, a.clone()).rc();
    let con = Term::App(con, Plicity::Implicit, bt.clone()).rc();
    Term::apps(con, [x, y])
}

/// `Cons {a} x1 (Cons {a} x2 ... (Nil {a}))`, built from the end in a loop.
pub(in crate::check) fn list_term(b: Builtins, elem: &RcTerm, items: Vec<RcTerm>) -> RcTerm {
    let nil = Term::App(Term::Con(b.nil).rc(), Plicity::Implicit, elem.clone()).rc();
    items.into_iter().rev().fold(nil, |tail, x| {
        let cons = Term::App(Term::Con(b.cons).rc(), Plicity::Implicit, elem.clone()).rc();
        Term::apps(cons, [x, tail])
    })
}

impl<'e> Elab<'e> {
    /// Checks a tuple against a pair type, component by component (this is where a
    /// dependent type such as `Vec (S n) a` gets unfolded to the pair it stands for).
    pub(in crate::check) fn check_tuple<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        items: &'s [Expr<'s>],
        ty: &RcTerm,
    ) -> Option<RcTerm> {
        let b = self.program.builtins;
        // Component by component in a loop (a tuple of ten thousand is as deep):
        // each step checks the first item against the pair type's first component
        // and goes on with the rest against its second.
        let mut done: Vec<(RcTerm, RcTerm, RcTerm)> = Vec::new();
        let mut ty = ty.clone();
        let mut rest = items;
        let last = loop {
            let (first, tail) = rest.split_first()?;
            let want = self.whnf(cx, &ty, first.span);
            let pair = data_args(&want, b.pair).filter(|args| args.len() == 2);
            let Some([a, bt]) = pair.as_deref() else {
                if done.is_empty() {
                    return None;
                }
                // The rest is no pair type by its shape: inferred, then compared.
                let (t, inferred) = self.infer_tuple(cx, rest);
                self.expect(cx, rest[0].span, &inferred, &ty);
                break t;
            };
            let (a, bt) = (a.clone(), bt.clone());
            let x = self.check(cx, first, &a);
            if tail.len() == 1 {
                let y = self.check(cx, &tail[0], &bt);
                done.push((a, bt, x));
                break y;
            }
            done.push((a, bt.clone(), x));
            ty = bt;
            rest = tail;
        };
        let mut acc = last;
        for (a, bt, x) in done.into_iter().rev() {
            acc = pair_term(b, &a, &bt, x, acc);
        }
        Some(acc)
    }

    /// Infers `(a, b, c)` as `(a, (b, c))`.
    pub(in crate::check) fn infer_tuple<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        items: &'s [Expr<'s>],
    ) -> (RcTerm, RcTerm) {
        let b = self.program.builtins;
        let mut parts: Vec<(RcTerm, RcTerm)> = Vec::with_capacity(items.len());
        for (k, i) in items.iter().enumerate() {
            let (x, xt) = self.infer_value(cx, i);
            // The last component is the second parameter of the innermost pair.
            let param = usize::from(k + 1 == items.len() && k > 0);
            self.check_sugar_universe(
                cx,
                b.pair,
                param,
                &xt,
                i.span,
                "the type of a tuple's component",
            );
            parts.push((x, xt));
        }
        let Some(mut acc) = parts.pop() else {
            return (Term::Con(b.unit_con).rc(), Term::Data(b.unit).rc());
        };
        while let Some((x, xt)) = parts.pop() {
            let ty = Term::apps(Term::Data(b.pair).rc(), [xt.clone(), acc.1.clone()]);
            acc = (pair_term(b, &xt, &acc.1, x, acc.0), ty);
        }
        acc
    }
}
