//! Unification: definitional equality with unknowns.
//!
//! Two types are compared structurally first (syntactic equality up to alpha is the
//! fast path); where their shapes differ, both are brought to weak head normal form by
//! the machine and compared again, so a definition is unfolded only when it has to be
//! (`Vec (S n) a` meets `Pair a (Vec n a)`). An unknown applied to distinct local
//! variables (a *pattern*) is solved by abstracting the other side over those
//! variables, after an occurs check and a scope check (the other side may only use
//! variables the unknown can see). Functions are compared up to eta.
//!
//! The common case is an unknown applied to the consecutive variables it was created
//! over ([`HoleKind::MetaCtx`](crate::core::term::HoleKind::MetaCtx)): then the
//! solution is the other side itself, moved out from under the variables it does not
//! see, checked in one pass that skips finished terms, whatever the context's depth.
//!
//! Unification does not backtrack: an unknown solved on the way to a failure stays
//! solved; the failure is reported by the caller as a type mismatch.

use super::elab::{Cx, Elab};
use super::meta::{Flex, flex};
use crate::core::equiv::alpha_eq;
use crate::core::subst::{map_free_vars, rewrite_spines, shift, unshift};
use crate::core::term::{CasePat, HoleKind, Ix, Plicity, RcTerm, Term};
use crate::diagnostic::Diagnostic;
use crate::syntax::span::Span;

impl Elab<'_> {
    /// Makes `a` and `b` equal, solving unknowns; false if they cannot be.
    pub(super) fn unify(&mut self, cx: &mut Cx<'_>, a: &RcTerm, b: &RcTerm, span: Span) -> bool {
        self.unify_depth += 1;
        let ok = stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
            self.unify_at(cx, a, b, span, false)
        });
        self.unify_depth -= 1;
        if !ok && self.unify_depth == 0 && self.eval.exhausted() {
            // The comparison as the caller asked for it, not the part it had reached.
            self.comparison_over_budget(cx, a, b, span);
        }
        ok
    }

    fn unify_at(
        &mut self,
        cx: &mut Cx<'_>,
        a: &RcTerm,
        b: &RcTerm,
        span: Span,
        evaluated: bool,
    ) -> bool {
        let a = self.metas.force_head(a);
        let b = self.metas.force_head(b);
        if alpha_eq(&a, &b) {
            return true;
        }
        // An unknown on either side is solved by the other; when both are unknowns,
        // whichever can see the other's variables is solved.
        let flex_a = flex(&a).filter(|f| self.metas.is_unsolved(f.id));
        let flex_b = flex(&b).filter(|f| self.metas.is_unsolved(f.id));
        if let (Some(x), Some(y)) = (&flex_a, &flex_b)
            && x.id == y.id
        {
            // One unknown on both sides: its arguments must agree, or it does not
            // depend on those that differ (`?a (k - 1) = ?a k`, a local recursive
            // function's call): then it is a new unknown of the others.
            if x.arity() != y.arity() {
                return false;
            }
            let (xs, ys) = (x.all_args(), y.all_args());
            let agree: Vec<bool> = xs
                .iter()
                .zip(&ys)
                .map(|(p, q)| alpha_eq(&self.metas.zonk(p), &self.metas.zonk(q)))
                .collect();
            if agree.iter().all(|a| *a) {
                return self.unify_args(cx, x, y, span);
            }
            let id = x.id;
            let n = xs.len() as u32;
            let kept: Vec<u32> = (0..n).filter(|i| agree[*i as usize]).collect();
            let info = self.metas.get(id);
            let (at, what, defaultable) = (info.span, info.what.clone(), info.defaultable);
            let narrower = self.metas.fresh_id(kept.len() as u32, at, what);
            if defaultable {
                self.metas.mark_defaultable_id(narrower);
            }
            if let Some(u) = self.metas.universe_of_solution(id) {
                self.metas.bound_universe(narrower, u);
            }
            let body = Term::apps(
                Term::Hole(HoleKind::Meta(narrower), at).rc(),
                kept.iter().map(|pos| Term::Var(Ix(n - 1 - pos)).rc()),
            );
            self.metas.solve_with(id, n, body);
            return true;
        }
        if flex_a.is_some() || flex_b.is_some() {
            // Between two unknowns, solve the newer one first: the older one stands
            // for what the user wrote earlier (a parameter's type rather than the
            // result type), which is what a "cannot infer" message should name.
            let mut tries = [(flex_a, &b), (flex_b, &a)];
            if let [(Some(x), _), (Some(y), _)] = &tries
                && y.id > x.id
            {
                tries.swap(0, 1);
            }
            for (f, other) in tries {
                if let Some(f) = f
                    && self.solve(cx, &f, other, span)
                {
                    return true;
                }
            }
            if flex(&a).is_some() && flex(&b).is_some() {
                return false;
            }
        }
        // Each structural comparison is a step of conversion, charged to the budget of
        // type-level steps (solving an unknown above is not).
        if !self.eval.charge(1) {
            return false;
        }
        match (&*a, &*b) {
            (Term::Pi(p, x), Term::Pi(q, y)) if p.plicity == q.plicity => {
                if !self.unify(cx, &p.ty, &q.ty, span) {
                    return false;
                }
                cx.push_hidden(p.name.clone(), p.ty.clone());
                let ok = self.unify(cx, x, y, span);
                cx.pop();
                return ok;
            }
            (Term::Lam(p, x), Term::Lam(_, y)) => {
                cx.push_hidden(p.name.clone(), p.ty.clone());
                let ok = self.unify(cx, x, y, span);
                cx.pop();
                return ok;
            }
            (Term::Lam(p, x), _) => return self.eta(cx, p, x, &b, span),
            (_, Term::Lam(p, y)) => return self.eta(cx, p, y, &a, span),
            (Term::Universe(i), Term::Universe(j)) => return i == j,
            (Term::Match(m), Term::Match(n)) if self.unify_matches(cx, m, n, span) => {
                return true;
            }
            _ => {}
        }
        if let (Some((ha, aa)), Some((hb, ab))) = (rigid_spine(&a), rigid_spine(&b))
            && same_head(ha, hb)
            && aa.len() == ab.len()
            && aa.iter().zip(&ab).all(|(x, y)| x.0 == y.0)
        {
            // The arguments first (`Vect ?a ?n` meets `Vect Int 2` before either is
            // unfolded), as a trial: if they disagree, what they solved is undone and
            // both sides are unfolded instead (a type function may map different
            // arguments to one type).
            let mut args_agree =
                |e: &mut Self| aa.iter().zip(&ab).all(|(x, y)| e.unify(cx, x.1, y.1, span));
            if matches!(ha, Term::Def(_) | Term::Var(_)) {
                if self.trial(args_agree) {
                    return true;
                }
            } else if args_agree(self) {
                return true;
            }
        }
        if evaluated {
            return false;
        }
        let a2 = self.whnf(cx, &a, span);
        let b2 = self.whnf(cx, &b, span);
        self.unify_at(cx, &a2, &b2, span, true)
    }

    /// The arguments of two applications of one unknown, pairwise.
    fn unify_args(&mut self, cx: &mut Cx<'_>, x: &Flex<'_>, y: &Flex<'_>, span: Span) -> bool {
        if x.implicit == y.implicit {
            return x
                .args
                .iter()
                .zip(&y.args)
                .all(|(p, q)| self.unify(cx, p, q, span));
        }
        let (xs, ys) = (x.all_args(), y.all_args());
        xs.iter().zip(&ys).all(|(p, q)| self.unify(cx, p, q, span))
    }

    /// `\x -> body` against `other`: compare `body` with `other x`.
    fn eta(
        &mut self,
        cx: &mut Cx<'_>,
        p: &crate::core::term::Binder,
        body: &RcTerm,
        other: &RcTerm,
        span: Span,
    ) -> bool {
        cx.push_hidden(p.name.clone(), p.ty.clone());
        let applied = Term::App(shift(other, 1), p.plicity, Term::Var(Ix(0)).rc()).rc();
        let ok = self.unify(cx, body, &applied, span);
        cx.pop();
        ok
    }

    /// Two stuck matches: the same scrutinee and the same arms.
    fn unify_matches(
        &mut self,
        cx: &mut Cx<'_>,
        m: &crate::core::term::Match,
        n: &crate::core::term::Match,
        span: Span,
    ) -> bool {
        if m.arms.len() != n.arms.len() || m.default.is_some() != n.default.is_some() {
            return false;
        }
        if !self.unify(cx, &m.scrut, &n.scrut, span) {
            return false;
        }
        for (x, y) in m.arms.iter().zip(&n.arms) {
            let fields = match (&x.pat, &y.pat) {
                (CasePat::Con(c, fs), CasePat::Con(d, gs)) if c == d && fs.len() == gs.len() => {
                    fs.clone()
                }
                (CasePat::Lit(l), CasePat::Lit(k)) if l == k => Vec::new(),
                _ => return false,
            };
            for f in &fields {
                cx.push_hidden(f.name.clone(), f.ty.clone());
            }
            let ok = self.unify(cx, &x.body, &y.body, span);
            for _ in &fields {
                cx.pop();
            }
            if !ok {
                return false;
            }
        }
        if let (Some((b, x)), Some((_, y))) = (&m.default, &n.default) {
            cx.push_hidden(b.name.clone(), b.ty.clone());
            let ok = self.unify(cx, x, y, span);
            cx.pop();
            return ok;
        }
        true
    }

    /// Solves `?id args = rhs` if `args` are distinct local variables and `rhs` uses
    /// only those variables and not `?id` itself.
    fn solve(&mut self, cx: &mut Cx<'_>, f: &Flex<'_>, rhs: &RcTerm, span: Span) -> bool {
        let id = f.id;
        if f.args.is_empty() {
            // The unknown applied to the consecutive variables `skip .. skip + k`, as it
            // was created: its solution is `rhs` itself (moved out from under the
            // `skip` innermost variables), if `rhs` needs no other variable.
            let (k, skip) = (f.implicit, f.skip);
            let rhs = self.metas.zonk(rhs);
            let Some(rhs) = self.prune(&rhs, id, &Allowed::Range(skip, skip + k)) else {
                return false;
            };
            let scan = self.scan(&rhs, id);
            if scan.bound > skip + k || scan.floor.is_some_and(|low| low < skip) || scan.occurs {
                return false;
            }
            self.check_universe(cx, id, &rhs, span);
            let rhs = unshift(&rhs, skip);
            self.pass_on_default(id, &rhs);
            self.metas.solve_with(id, k, rhs);
            return true;
        }
        let depth = cx.depth();
        let args = f.all_args();
        // The level of each argument that is a variable not seen before. An argument
        // that is not (`go (n - 1)`'s `n - 1`, a variable given twice) is left out of
        // the solution: `?r (n - 1) = Int` is solved by `?r := \_ -> Int`. That is a
        // solution, if not always the most general one (first-order inference); the
        // other side may not use what such an argument holds.
        let mut levels: Vec<Option<u32>> = Vec::with_capacity(args.len());
        for a in &args {
            let a = self.metas.zonk(a);
            let lvl = match &*a {
                Term::Var(Ix(i)) if *i < depth => Some(depth - 1 - i),
                _ => None,
            };
            levels.push(lvl.filter(|l| !levels.contains(&Some(*l))));
        }
        // `?f Int = List Int` (an unknown type constructor applied to a type that is
        // not a variable): first-order, `?f := List`, rather than `\_ -> List Int`.
        if levels.iter().any(Option::is_none) && self.first_order(cx, f, rhs, span) {
            return true;
        }
        let rhs = self.metas.zonk(rhs);
        let allowed = |outer: u32| outer < depth && levels.contains(&Some(depth - 1 - outer));
        let Some(rhs) = self.prune(&rhs, id, &Allowed::Some(&allowed)) else {
            return false;
        };
        if self.scan(&rhs, id).occurs {
            return false;
        }
        self.check_universe(cx, id, &rhs, span);
        let n = levels.len() as u32;
        let mut ok = true;
        let renamed = map_free_vars(&rhs, &mut |outer, d| {
            if outer >= depth {
                ok = false;
                return None;
            }
            let lvl = depth - 1 - outer;
            match levels.iter().position(|l| *l == Some(lvl)) {
                Some(pos) => Some(Term::Var(Ix(d + n - 1 - pos as u32)).rc()),
                None => {
                    ok = false;
                    None
                }
            }
        });
        if ok {
            self.pass_on_default(id, &renamed);
            self.metas.solve_with(id, n, renamed);
        }
        ok
    }

    /// Solves `?f[ctx] a1 .. ak = h b1 .. bm` (k <= m, the last k arguments explicit)
    /// by `?f[ctx] := h b1 .. b(m-k)` and `ai = b(m-k+i)`, when the unknown is applied to
    /// its whole context implicitly. False, having solved nothing, if it does not apply.
    fn first_order(&mut self, cx: &mut Cx<'_>, f: &Flex<'_>, rhs: &RcTerm, span: Span) -> bool {
        let k = f.args.len();
        if k == 0 || f.implicit != self.metas.get(f.id).depth {
            return false;
        }
        let rhs = self.metas.zonk(rhs);
        let (head, rargs) = crate::core::term::spine(&rhs);
        if flex(head).is_some() || rargs.len() < k {
            return false;
        }
        let m = rargs.len() - k;
        if rargs[m..].iter().any(|(p, _)| *p != Plicity::Explicit) {
            return false;
        }
        let prefix = rargs[..m].iter().fold(head.clone(), |acc, (p, a)| {
            Term::App(acc, *p, (*a).clone()).rc()
        });
        let bare = Flex {
            id: f.id,
            implicit: f.implicit,
            skip: f.skip,
            args: Vec::new(),
        };
        if !self.solve(cx, &bare, &prefix, span) {
            return false;
        }
        let pairs: Vec<(RcTerm, RcTerm)> = f
            .args
            .iter()
            .zip(&rargs[m..])
            .map(|(a, (_, b))| ((*a).clone(), (*b).clone()))
            .collect();
        pairs.iter().all(|(a, b)| self.unify(cx, a, b, span))
    }

    /// Reports a solution `rhs` (in `cx`) of the unknown `id` that lives in a larger
    /// universe than the unknown's type allows (see `levels`). The unknown is solved
    /// all the same, so that the mistake is one error.
    fn check_universe(&mut self, cx: &mut Cx<'_>, id: u32, rhs: &RcTerm, span: Span) {
        let Some(n) = self.metas.universe_of_solution(id) else {
            return;
        };
        if let Err(found) = self.fits_universe(cx, rhs, n, span) {
            let shown = self.show(cx, rhs);
            let what = self.metas.get(id).what.clone();
            let universe = super::levels::universe_name;
            self.errors.push(
                Diagnostic::error(format!(
                    "universe mismatch: {what} must be a type in {}, but `{shown}` is in {}",
                    universe(n),
                    universe(found)
                ))
                .at(span, format!("this makes {what} `{shown}`"))
                .note(format!("expected: a type in {}", universe(n)))
                .note(format!(
                    "   found: `{shown}`, a type in {}",
                    universe(found)
                )),
            );
        }
    }

    /// An unconstrained type argument solved by another unknown passes on its freedom
    /// to default: they are the same type.
    fn pass_on_default(&mut self, id: u32, solution: &RcTerm) {
        if self.metas.get(id).defaultable
            && let Some(other) = flex(solution)
            && self.metas.is_unsolved(other.id)
        {
            self.metas.mark_defaultable_id(other.id);
        }
    }

    /// Removes, from the unknowns inside `rhs`, the arguments that are local variables
    /// the unknown `target` being solved cannot see (`allowed` says which it can, by
    /// their index seen from `rhs`'s root): `?n p acc` inside `?m := Pair (?n p acc) ..`
    /// where `?m` sees neither `p` nor `acc` becomes `?n'` with `?n := \p acc -> ?n'`.
    /// Returns `None` when an argument that would have to go is not a plain variable
    /// (then no solution is found this way).
    fn prune(&mut self, rhs: &RcTerm, target: u32, allowed: &Allowed<'_>) -> Option<RcTerm> {
        let mut failed = false;
        // The unknowns to prune, with which of their arguments stay.
        let mut pruned: Vec<(u32, Vec<bool>)> = Vec::new();
        rewrite_spines(rhs, &mut |node, d, in_spine| {
            if self.metas.is_final(node) {
                return Some(node.clone());
            }
            if in_spine || failed {
                return None;
            }
            let f = flex(node)?;
            if f.id == target || !self.metas.is_unsolved(f.id) {
                return None;
            }
            if pruned.iter().any(|(m, _)| *m == f.id) {
                return None;
            }
            // The consecutive variables first (those bound inside `rhs` stay), then
            // the explicit arguments.
            let implicit_ok = f.skip + f.implicit <= d || {
                let low = f.skip.max(d) - d;
                allowed.all_in(low, f.skip + f.implicit - d)
            };
            let explicit_ok = f.args.iter().all(|a| match &***a {
                Term::Var(Ix(i)) => *i < d || allowed.contains(i - d),
                _ => true,
            });
            if implicit_ok && explicit_ok {
                return None;
            }
            if !f.args.iter().all(|a| matches!(&***a, Term::Var(_))) {
                failed = true;
                return None;
            }
            let mut keep: Vec<bool> = (0..f.implicit)
                .rev()
                .map(|j| {
                    let i = j + f.skip;
                    i < d || allowed.contains(i - d)
                })
                .collect();
            keep.extend(f.args.iter().map(|a| match &***a {
                Term::Var(Ix(i)) => *i < d || allowed.contains(i - d),
                _ => true,
            }));
            pruned.push((f.id, keep));
            None
        });
        if failed {
            return None;
        }
        for (id, keep) in pruned {
            let info = self.metas.get(id).clone();
            let arity = keep.len() as u32;
            let kept: Vec<u32> = (0..arity).filter(|k| keep[*k as usize]).collect();
            let count = kept.len() as u32;
            // ?id := \x0 .. x(arity-1) -> ?fresh x(kept...); when the kept ones are the
            // innermost variables, the fresh unknown is a context unknown over them.
            let innermost = kept
                .iter()
                .enumerate()
                .all(|(j, k)| *k == arity - count + j as u32);
            let body = if innermost {
                let fresh = self.metas.fresh_id(count, info.span, info.what.clone());
                Term::Hole(HoleKind::MetaCtx(fresh, count, 0), info.span).rc()
            } else {
                let fresh = self.metas.fresh_id(0, info.span, info.what.clone());
                let head = Term::Hole(HoleKind::Meta(fresh), info.span).rc();
                kept.iter().fold(head, |f, k| {
                    Term::App(f, Plicity::Explicit, Term::Var(Ix(arity - 1 - k)).rc()).rc()
                })
            };
            if info.defaultable
                && let Some(f) = flex(&body)
            {
                self.metas.mark_defaultable_id(f.id);
            }
            self.metas.solve_with(id, arity, body);
        }
        Some(self.metas.zonk(rhs))
    }
}

/// The variables an unknown being solved may use, by their index seen from the other
/// side's root.
enum Allowed<'a> {
    /// The indices `from .. to`.
    Range(u32, u32),
    /// Those the predicate accepts.
    Some(&'a dyn Fn(u32) -> bool),
}

impl Allowed<'_> {
    fn contains(&self, ix: u32) -> bool {
        match self {
            Allowed::Range(from, to) => (*from..*to).contains(&ix),
            Allowed::Some(f) => f(ix),
        }
    }

    /// Whether every index of `from .. to` is allowed.
    fn all_in(&self, from: u32, to: u32) -> bool {
        match self {
            Allowed::Range(a, b) => from >= to || (*a <= from && to <= *b),
            Allowed::Some(f) => (from..to).all(f),
        }
    }
}

/// What [`Elab::scan`] finds in the other side of an equation.
struct Scan {
    /// One more than the largest free variable index (0 if none).
    bound: u32,
    /// The smallest free variable index, if any.
    floor: Option<u32>,
    /// Whether the unknown being solved occurs.
    occurs: bool,
}

impl Elab<'_> {
    /// The free variables of `t` and whether the unknown `id` occurs in it, in one pass
    /// that skips final terms (closed and free of unknowns).
    fn scan(&self, t: &RcTerm, id: u32) -> Scan {
        let mut scan = Scan {
            bound: 0,
            floor: None,
            occurs: false,
        };
        let note = |low: u32, high: u32, scan: &mut Scan| {
            scan.bound = scan.bound.max(high);
            scan.floor = Some(scan.floor.map_or(low, |f| f.min(low)));
        };
        crate::core::subst::rewrite(t, &mut |node, d| {
            if self.metas.is_final(node) {
                return Some(node.clone());
            }
            match &**node {
                Term::Var(Ix(i)) if *i >= d => note(i - d, i - d + 1, &mut scan),
                Term::Hole(HoleKind::MetaCtx(m, count, skip), _) => {
                    scan.occurs |= *m == id;
                    if skip + count > d {
                        note(skip.saturating_sub(d), skip + count - d, &mut scan);
                    }
                }
                Term::Hole(HoleKind::Meta(m), _) => scan.occurs |= *m == id,
                _ => return None,
            }
            Some(node.clone())
        });
        scan
    }
}

/// An application spine whose head is rigid (cannot be solved): the head and the
/// arguments, first first.
fn rigid_spine(t: &Term) -> Option<(&Term, Vec<(Plicity, &RcTerm)>)> {
    let mut args = Vec::new();
    let mut head = t;
    while let Term::App(f, p, a) = head {
        args.push((*p, a));
        head = f;
    }
    match head {
        Term::Var(_)
        | Term::Def(_)
        | Term::Data(_)
        | Term::Con(_)
        | Term::Extern(..)
        | Term::Prim(..)
        | Term::PrimType(_)
        | Term::Lit(_) => {
            args.reverse();
            Some((head, args))
        }
        _ => None,
    }
}

/// Whether two rigid heads are the same.
fn same_head(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Var(x), Term::Var(y)) => x == y,
        (Term::Def(x), Term::Def(y)) => x == y,
        (Term::Data(x), Term::Data(y)) => x == y,
        (Term::Con(x), Term::Con(y)) => x == y,
        (Term::Extern(x, _), Term::Extern(y, _)) => x == y,
        (Term::Prim(x, _), Term::Prim(y, _)) => x == y,
        (Term::PrimType(x), Term::PrimType(y)) => x == y,
        (Term::Lit(x), Term::Lit(y)) => x == y,
        _ => false,
    }
}
