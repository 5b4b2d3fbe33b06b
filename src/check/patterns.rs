//! Elaborating `match`: nested patterns compiled to typed one-level matches.
//!
//! Core terms have only one-level case analysis ([`Match`]): arms on a constructor
//! (binding its fields) or a literal, then a default. A surface `match` is compiled by
//! the clause-matrix method:
//!
//! - The *occurrences* are the values being examined, each a local variable (the
//!   scrutinee, then the fields bound by enclosing arms), each with its type. A *row* is
//!   one source arm: a pattern per occurrence, the variables it has bound so far, and
//!   its body.
//! - If the first row's patterns are all variables or `_`, it matches: its body is
//!   checked against the goal, with its pattern variables naming the occurrences.
//! - Otherwise split on the first column where the first row tests something: one arm
//!   per constructor (or literal) appearing there, binding the constructor's fields at
//!   their types (the data type's parameters taken from the occurrence's type), and a
//!   default when the constructors seen do not cover the type. No rows left means no
//!   arm matches: an empty match (a runtime error at the `match`) and a warning naming
//!   a missing case.
//!
//! **Dependent matching.** When the occurrence is a variable and the goal is known, each
//! constructor arm checks its body against the goal with that variable replaced by the
//! constructor applied to the arm's fields: in `match n with | Z -> e1 | S m -> e2`, `e1`
//! is checked against the goal with `n := Z`, `e2` with `n := S m`.
//!
//! Rows are tried top to bottom, as the language requires. A body reachable along
//! several paths is elaborated once per path (names are resolved afresh each time, so
//! no index shifting is needed). An arm whose body is reached on no path is warned
//! about: it is unreachable.
//!
//! **Costs.** A column where every row matches anything is dropped as soon as it
//! appears (its names recorded in the rows' bindings, which are shared lists), and a
//! split puts each row in its constructor's group in one pass, so a list pattern of ten
//! thousand elements or a match of a hundred thousand literal arms compiles in time and
//! memory proportional to its size.

use super::coverage::{Known, ROOT_TERM};
use super::elab::{Cx, Elab, data_args, global_term, name_of, refine};
use super::scope::Global;
use crate::core::subst::{rewrite, shift};
use crate::core::term::{
    Binder, CaseArm, CasePat, ConId, DataId, Ix, Lit, Lvl, Match, Plicity, PrimType, RcTerm, Term,
};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::syntax::ast::{Arm, Expr, ExprKind, Ident, Pat, PatKind};
use crate::syntax::span::Span;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A pattern after sugar is removed and constructor names are resolved.
#[derive(Clone, Debug)]
enum IPat<'s> {
    /// Matches anything; binds the name (written where it says) if there is one.
    Any(Option<Ident<'s>>),
    /// A constructor with one sub-pattern per explicit field (shared: rows are copied
    /// into several groups, and a list pattern's tail is as long as the list), and
    /// where it is written.
    Con(ConId, Rc<[IPat<'s>]>, Span),
    /// A literal, and where it is written.
    Lit(Lit, Span),
}

/// The pattern variables a row has bound so far, innermost first: a shared list, so
/// that copying a row to several groups of a split costs nothing.
#[derive(Clone, Default)]
struct Binds<'s>(Option<Rc<(Ident<'s>, Lvl, Binds<'s>)>>);

impl<'s> Binds<'s> {
    fn with(&self, name: Ident<'s>, lvl: Lvl) -> Binds<'s> {
        Binds(Some(Rc::new((name, lvl, self.clone()))))
    }

    /// The bindings, outermost (first bound) first.
    fn to_vec(&self) -> Vec<(Ident<'s>, Lvl)> {
        let mut out = Vec::new();
        let mut cur = &self.0;
        while let Some(node) = cur {
            out.push((node.0, node.1));
            cur = &node.2.0;
        }
        out.reverse();
        out
    }
}

impl Drop for Binds<'_> {
    /// Unlinks the list in a loop: a list pattern of a hundred thousand elements binds
    /// as many names, and a recursive drop would use as many stack frames.
    fn drop(&mut self) {
        let mut next = self.0.take();
        while let Some(node) = next {
            match Rc::try_unwrap(node) {
                Ok((_, _, mut rest)) => next = rest.0.take(),
                Err(_) => break,
            }
        }
    }
}

/// One arm of the matrix.
#[derive(Clone)]
struct Row<'s> {
    pats: Vec<IPat<'s>>,
    binds: Binds<'s>,
    /// The arm's guard, if it has one: when it is false, the rows after this one are
    /// tried.
    guard: Option<&'s Expr<'s>>,
    body: &'s Expr<'s>,
    /// The source arm it comes from.
    arm: usize,
    /// Variables of a part of the pattern that had an error: the body sees them as
    /// unknowns (reported once, with the pattern, rather than again at every use).
    unknown: Rc<[&'s str]>,
}

/// What a column tests, for splitting.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Head {
    Con(ConId),
    Lit(Lit),
}

impl Eq for Head {}

impl std::hash::Hash for Head {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        match self {
            Head::Con(c) => (0u8, c).hash(h),
            Head::Lit(Lit::Int(n)) => (1u8, n).hash(h),
            Head::Lit(Lit::Float(x)) => (2u8, x.to_bits()).hash(h),
            Head::Lit(Lit::Str(t)) => (3u8, &**t).hash(h),
            Head::Lit(Lit::Char(c)) => (4u8, c).hash(h),
        }
    }
}

/// What the `match` being compiled knows about its arms: which were reached, and
/// which had an error in their pattern (they are not warned about).
#[derive(Default)]
pub(super) struct ArmUse {
    reached: Vec<bool>,
    broken: Vec<bool>,
}

/// The value a column examines: a local variable, or (for a flat match on a
/// non-variable) the scrutinee term itself with its type, examined exactly once.
enum Occ {
    Var(Lvl),
    Term(RcTerm, RcTerm),
}

/// The goal of a compiled matrix: the type every arm must have (in the current scope),
/// and whether arms refine it by what they learn about a variable.
#[derive(Clone)]
struct Goal {
    ty: RcTerm,
    refine: bool,
}

impl Goal {
    fn under(&self, binders: u32) -> Goal {
        Goal {
            ty: shift(&self.ty, binders),
            refine: self.refine,
        }
    }
}

impl Elab<'_> {
    /// Elaborates `match scrut with arms` against `goal`, or infers its type.
    pub(super) fn match_expr<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        scrut: &'s Expr<'s>,
        arms: &'s [Arm<'s>],
        span: Span,
        goal: Option<&RcTerm>,
    ) -> (RcTerm, RcTerm) {
        let goal = match goal {
            Some(ty) => Goal {
                ty: ty.clone(),
                refine: true,
            },
            None => Goal {
                ty: self.fresh(cx, span, "the type of this `match`"),
                refine: false,
            },
        };
        for arm in arms {
            self.check_pattern_names(arm.pat);
        }
        let outer_use = std::mem::replace(
            &mut self.arm_use,
            ArmUse {
                reached: vec![false; arms.len()],
                broken: vec![false; arms.len()],
            },
        );
        let mut rows = Vec::with_capacity(arms.len());
        // A record pattern names fields; the scrutinee's type, if a variable's, says
        // whose.
        let hint = match &scrut.kind {
            ExprKind::Var(name) => cx.lookup(name).and_then(|l| {
                let ty = cx.type_of(l);
                self.record_type(cx, &ty, scrut.span).map(|r| r.data)
            }),
            _ => None,
        };
        for (i, arm) in arms.iter().enumerate() {
            let errors = self.errors.len();
            let mut broken = Vec::new();
            self.record_hint = hint;
            let pat = self.lower(cx, arm.pat, &mut broken);
            self.record_hint = None;
            self.arm_use.broken[i] = self.errors.len() > errors;
            rows.push(Row {
                pats: vec![pat],
                binds: Binds::default(),
                guard: arm.guard,
                body: arm.body,
                arm: i,
                unknown: broken.into(),
            });
        }
        let errors_before = self.errors.len();
        // Each match has its own coverage path (an arm's body may hold another match).
        let outer = std::mem::take(&mut self.coverage);
        let result = self.match_rows(cx, scrut, rows, span, goal);
        self.coverage = outer;
        let used = std::mem::replace(&mut self.arm_use, outer_use);
        // An arm whose pattern had an error matches anything here: the arms after it
        // may well be reachable once it is fixed.
        let first_broken = used.broken.iter().position(|b| *b).unwrap_or(arms.len());
        for (i, arm) in arms.iter().enumerate().take(first_broken) {
            if !used.reached[i] {
                self.errors.push(
                    Diagnostic::warning("this match arm is never reached")
                        .at(
                            arm.pat.span,
                            "the arms before it match every value it matches",
                        )
                        .note("remove it, or move it before the arms that cover it"),
                );
            }
        }
        self.hint_outdented_arms(arms, errors_before, span);
        result
    }

    /// Adds a hint to the problems found in an arm written as if it belonged to an
    /// enclosing `match` (see [`Arm::outdented`]): without parentheses, the inner
    /// `match` took it.
    /// And to a case this `match` misses when its last arm's body is such an inner
    /// `match`.
    fn hint_outdented_arms(&mut self, arms: &[Arm<'_>], errors_before: usize, span: Span) {
        const HINT: &str = "help: this arm belongs to the `match` just above it, which extends as far \
             as it can; if it is meant for the enclosing `match`, put the inner `match` in \
             parentheses";
        const OUTER_HINT: &str = "help: the last arm's `match` took the arms written after it; if \
             they are meant for this `match`, put the inner `match` in parentheses";
        let swallowed = arms.last().is_some_and(|a| {
            matches!(&a.body.kind, ExprKind::Match { arms: inner, .. } if inner.iter().any(|i| i.outdented))
        });
        if swallowed {
            for d in &mut self.errors[errors_before..] {
                if d.kind == DiagnosticKind::MissingCase
                    && d.primary_span() == Some(span)
                    && !d.notes.iter().any(|n| n == OUTER_HINT)
                {
                    d.notes.push(OUTER_HINT.to_string());
                }
            }
        }
        let outdented: Vec<Span> = arms
            .iter()
            .filter(|a| a.outdented)
            .map(|a| a.span)
            .collect();
        if outdented.is_empty() {
            return;
        }
        for d in &mut self.errors[errors_before..] {
            let inside = d.primary_span().is_some_and(|s| {
                outdented
                    .iter()
                    .any(|a| a.file == s.file && a.start <= s.start && s.end <= a.end)
            });
            if inside && !d.notes.iter().any(|n| n == HINT) {
                d.notes.push(HINT.to_string());
            }
        }
    }

    /// [`Elab::match_expr`] once the arms are lowered to rows.
    fn match_rows<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        scrut: &'s Expr<'s>,
        rows: Vec<Row<'s>>,
        span: Span,
        goal: Goal,
    ) -> (RcTerm, RcTerm) {
        // A variable scrutinee is examined in place: this is what lets each arm refine
        // the variable in the goal.
        if let ExprKind::Var(name) = scrut.kind
            && let Some((lvl, binder)) = cx.lookup_bound(name)
        {
            if crate::check::record::wants(scrut.span) {
                crate::check::record::note_local(scrut.span, binder);
                crate::check::record::note_type(
                    scrut.span,
                    &cx.type_of(lvl),
                    |from| cx.display_names(from),
                    cx.depth(),
                );
            }
            self.coverage.root = lvl.0;
            let t = self.compile(cx, &[lvl], rows, span, &goal);
            return (t, goal.ty);
        }
        let (st, sty) = self.infer_value(cx, scrut);
        if is_flat(&rows) {
            self.coverage.root = ROOT_TERM;
            let t = self.compile_flat(cx, st, sty, rows, span, &goal);
            return (t, goal.ty);
        }
        // Bind the scrutinee once so nested tests and variables can refer to it. A core
        // `let` is recursive, so its right-hand side is shifted under its own binder.
        let lvl = Lvl(cx.depth());
        self.coverage.root = lvl.0;
        let value = shift(&st, 1);
        cx.push_hidden(name_of("_"), sty.clone());
        cx.entries[lvl.0 as usize].value = Some(value.clone());
        let body = self.compile(cx, &[lvl], rows, span, &goal.under(1));
        cx.pop();
        let binder = Binder {
            name: name_of("_"),
            plicity: Plicity::Explicit,
            ty: sty,
        };
        (Term::Let(binder, value, body).rc(), goal.ty)
    }

    /// Reports a variable bound twice in one pattern (`(x, x)`).
    fn check_pattern_names(&mut self, pat: &Pat<'_>) {
        let mut seen: HashMap<&str, Span> = HashMap::new();
        let mut work = vec![pat];
        while let Some(p) = work.pop() {
            match &p.kind {
                PatKind::Var(name) => {
                    if let Some(first) = seen.get(name) {
                        self.errors.push(
                            Diagnostic::error(format!("`{name}` is bound twice in this pattern"))
                                .at(p.span, "bound again here")
                                .also(*first, "first bound here"),
                        );
                    } else {
                        seen.insert(name, p.span);
                    }
                }
                PatKind::Con { args, .. } => work.extend(args.iter().rev()),
                PatKind::Tuple(items) | PatKind::List(items) => work.extend(items.iter().rev()),
                PatKind::Record { fields, .. } => work.extend(fields.iter().rev().map(|f| &f.1)),
                PatKind::Cons { head, tail } => work.extend([*tail, *head]),
                PatKind::Wild
                | PatKind::Int(_)
                | PatKind::Str(_)
                | PatKind::Char(_)
                | PatKind::Unit => {}
            }
        }
    }

    /// Lowers `{ f = p, .. }`: the record is the scrutinee's (`hint`) if it has these
    /// fields, else the one record that has them.
    fn lower_record<'s>(
        &mut self,
        cx: &Cx<'s>,
        p: &'s Pat<'s>,
        fields: &'s [(crate::syntax::ast::Ident<'s>, Pat<'s>)],
        rest: bool,
        broken: &mut Vec<&'s str>,
    ) -> IPat<'s> {
        let names: Vec<&str> = fields.iter().map(|(f, _)| f.name).collect();
        let fits = |e: &Self, d: DataId| {
            let data = e.program.data(d);
            let own = &data.ctors[0].field_names;
            data.record
                && names.iter().all(|n| own.iter().any(|f| &**f == *n))
                && (rest || own.len() == names.len())
        };
        let found = match self.record_hint.take() {
            Some(d) if fits(self, d) => vec![d],
            _ => self
                .records_with(&names, !rest)
                .into_iter()
                .filter(|d| fits(self, *d))
                .collect(),
        };
        let d = match found.as_slice() {
            [d] => *d,
            _ => {
                let why = if found.is_empty() {
                    if rest {
                        "no record has these fields".to_string()
                    } else {
                        "no record has exactly these fields (end the pattern with `..` to leave some out)".to_string()
                    }
                } else {
                    self.several_records(&found)
                };
                self.errors.push(
                    Diagnostic::error("cannot tell which record this pattern matches")
                        .at(p.span, why),
                );
                broken.extend(p.variables());
                return IPat::Any(None);
            }
        };
        let own = self.program.data(d).ctors[0].field_names.clone();
        let mut sub: Vec<IPat<'s>> = own.iter().map(|_| IPat::Any(None)).collect();
        for (f, q) in fields {
            let i = own
                .iter()
                .position(|n| &**n == f.name)
                .expect("fits checked the names");
            if names.iter().filter(|n| **n == f.name).count() > 1 {
                self.errors.push(
                    Diagnostic::error(format!("the field `{}` is matched twice", f.name))
                        .at(f.span, ""),
                );
                broken.extend(p.variables());
                return IPat::Any(None);
            }
            sub[i] = self.lower(cx, q, broken);
        }
        IPat::Con(ConId { data: d, index: 0 }, sub.into(), p.span)
    }

    /// Lowers a surface pattern: resolves constructor names, checks arities, removes
    /// the sugar of `()`, tuples and list patterns.
    fn lower<'s>(&mut self, cx: &Cx<'s>, p: &'s Pat<'s>, broken: &mut Vec<&'s str>) -> IPat<'s> {
        let b = self.program.builtins;
        match &p.kind {
            PatKind::Var(name) => IPat::Any(Some(Ident { name, span: p.span })),
            PatKind::Wild => IPat::Any(None),
            PatKind::Int(n) => IPat::Lit(Lit::Int(*n), p.span),
            PatKind::Str(s) => IPat::Lit(Lit::Str(Rc::from(*s)), p.span),
            PatKind::Char(c) => IPat::Lit(Lit::Char(*c), p.span),
            PatKind::Unit => IPat::Con(b.unit_con, Rc::from([]), p.span),
            PatKind::Record { fields, rest } => self.lower_record(cx, p, fields, *rest, broken),
            PatKind::Tuple(items) => {
                let mut lowered: Vec<IPat<'s>> =
                    items.iter().map(|i| self.lower(cx, i, broken)).collect();
                let mut acc = lowered
                    .pop()
                    .unwrap_or(IPat::Con(b.unit_con, Rc::from([]), p.span));
                while let Some(x) = lowered.pop() {
                    acc = IPat::Con(b.mk_pair, Rc::from([x, acc]), p.span);
                }
                acc
            }
            PatKind::Cons { .. } => {
                // A chain `p1 :: p2 :: ... :: rest` is walked in a loop (it may be as
                // long as a list pattern), then built from the right.
                let mut heads = Vec::new();
                let mut cur = p;
                while let PatKind::Cons { head, tail } = &cur.kind {
                    heads.push((self.lower(cx, head, broken), cur.span));
                    cur = tail;
                }
                let rest = self.lower(cx, cur, broken);
                heads.into_iter().rev().fold(rest, |tail, (x, span)| {
                    IPat::Con(b.cons, Rc::from([x, tail]), span)
                })
            }
            PatKind::List(items) => {
                let lowered: Vec<IPat<'s>> =
                    items.iter().map(|i| self.lower(cx, i, broken)).collect();
                lowered
                    .into_iter()
                    .rev()
                    .fold(IPat::Con(b.nil, Rc::from([]), p.span), |tail, x| {
                        IPat::Con(b.cons, Rc::from([x, tail]), p.span)
                    })
            }
            PatKind::Con { name, args } => {
                let sub: Vec<IPat<'s>> = args.iter().map(|a| self.lower(cx, a, broken)).collect();
                match self.global(cx, name.name, name.span) {
                    Some(Global::Con(con)) => {
                        let arity = self.program.con(con).fields.len();
                        if arity != sub.len() {
                            self.errors.push(
                                Diagnostic::error(format!(
                                    "constructor `{}` has {} field{}, but the pattern gives {}",
                                    name.name,
                                    arity,
                                    if arity == 1 { "" } else { "s" },
                                    sub.len()
                                ))
                                .at(p.span, ""),
                            );
                            broken.extend(p.variables());
                            return IPat::Any(None);
                        }
                        IPat::Con(con, sub.into(), p.span)
                    }
                    Some(_) => {
                        self.errors.push(
                            Diagnostic::error(format!(
                                "`{}` is not a constructor, so it cannot be matched on",
                                name.name
                            ))
                            .at(name.span, "expected a constructor"),
                        );
                        broken.extend(p.variables());
                        IPat::Any(None)
                    }
                    None => {
                        broken.extend(p.variables());
                        IPat::Any(None)
                    }
                }
            }
        }
    }

    /// The one-level match of a flat `match` on a non-variable scrutinee.
    fn compile_flat<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        scrut: RcTerm,
        scrut_ty: RcTerm,
        rows: Vec<Row<'s>>,
        span: Span,
        goal: &Goal,
    ) -> RcTerm {
        // A first arm that matches anything is taken without evaluating the scrutinee.
        if let Some(IPat::Any(_)) = rows.first().map(|r| &r.pats[0]) {
            let row = rows.into_iter().next().expect("rows is not empty");
            return self.leaf(cx, &row, row.binds.to_vec(), goal);
        }
        self.split(cx, Occ::Term(scrut, scrut_ty), &[], 0, rows, span, goal)
    }

    /// Compiles a clause matrix over `occs`.
    fn compile<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occs: &[Lvl],
        rows: Vec<Row<'s>>,
        span: Span,
        goal: &Goal,
    ) -> RcTerm {
        stacker::maybe_grow(super::elab::RED_ZONE, super::elab::STACK_CHUNK, || {
            self.compile_inner(cx, occs, rows, span, goal)
        })
    }

    fn compile_inner<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occs: &[Lvl],
        rows: Vec<Row<'s>>,
        span: Span,
        goal: &Goal,
    ) -> RcTerm {
        if rows.is_empty() {
            return no_match(cx, occs.first().copied(), span);
        }
        let (occs, rows) = drop_wildcard_columns(occs, rows);
        match rows[0].pats.iter().position(|p| !matches!(p, IPat::Any(_))) {
            None => {
                let mut rows = rows.into_iter();
                let row = rows.next().expect("rows is not empty");
                let mut binds = row.binds.to_vec();
                for (p, occ) in row.pats.iter().zip(&occs) {
                    if let IPat::Any(Some(name)) = p {
                        binds.push((*name, *occ));
                    }
                }
                match row.guard {
                    Some(guard) if row.unknown.is_empty() => {
                        let rest: Vec<Row<'s>> = rows.collect();
                        self.guarded_leaf(cx, &row, binds, guard, &occs, rest, span, goal)
                    }
                    _ => self.leaf(cx, &row, binds, goal),
                }
            }
            Some(col) => self.split(cx, Occ::Var(occs[col]), &occs, col, rows, span, goal),
        }
    }

    /// Checks a row's body with its pattern variables naming their occurrences.
    fn leaf<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        row: &Row<'s>,
        binds: Vec<(Ident<'s>, Lvl)>,
        goal: &Goal,
    ) -> RcTerm {
        self.arm_use.reached[row.arm] = true;
        let saved = cx.names.len();
        self.bind_pattern_vars(cx, binds);
        let t = if row.unknown.is_empty() {
            self.check(cx, row.body, &goal.ty)
        } else {
            self.check_with_unknowns(cx, &row.unknown, row.body, goal)
        };
        cx.names.truncate(saved);
        t
    }

    /// Names a row's pattern variables by their occurrences (and, when recording, notes
    /// each one's type at its place in the pattern).
    fn bind_pattern_vars<'s>(&mut self, cx: &mut Cx<'s>, binds: Vec<(Ident<'s>, Lvl)>) {
        for (name, lvl) in binds {
            if crate::check::record::wants(name.span) {
                crate::check::record::note_type(
                    name.span,
                    &cx.type_of(lvl),
                    |from| cx.display_names(from),
                    cx.depth(),
                );
            }
            cx.names.push(name.name, name.span, lvl);
        }
    }

    /// The variable holding the value the `match` being compiled examines, if one
    /// does.
    fn match_root(&self, cx: &Cx<'_>) -> Option<Lvl> {
        let root = self.coverage.root;
        (root != ROOT_TERM && root < cx.depth()).then_some(Lvl(root))
    }

    /// A row whose patterns match, with a guard: `if guard then body else ...`, where
    /// `...` is the rest of the matrix (the rows after this one, for the same
    /// occurrences). A guarded row covers nothing: with no rows after it, the `match`
    /// misses a case.
    #[allow(clippy::too_many_arguments)]
    fn guarded_leaf<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        row: &Row<'s>,
        binds: Vec<(Ident<'s>, Lvl)>,
        guard: &'s Expr<'s>,
        occs: &[Lvl],
        rest: Vec<Row<'s>>,
        span: Span,
        goal: &Goal,
    ) -> RcTerm {
        self.arm_use.reached[row.arm] = true;
        let b = self.program.builtins;
        let saved = cx.names.len();
        self.bind_pattern_vars(cx, binds);
        let bool_ty = Term::Data(b.bool_).rc();
        let cond = self.check(cx, guard, &bool_ty);
        let then_ = self.check(cx, row.body, &goal.ty);
        cx.names.truncate(saved);
        let else_ = if rest.is_empty() {
            self.warn_missing(span);
            if let Some(d) = self.errors.last_mut() {
                d.notes.push(
                    "an arm with a guard covers nothing: add an arm without a guard".to_string(),
                );
            }
            no_match(cx, self.match_root(cx).or(occs.first().copied()), span)
        } else {
            self.compile(cx, occs, rest, span, goal)
        };
        super::elab::bool_match(b, cond, then_, else_, guard.span)
    }

    /// Checks `body` with `names` bound (by `let`s) to unknowns that agree with
    /// anything: the variables of a pattern that had an error.
    fn check_with_unknowns<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        names: &[&'s str],
        body: &'s Expr<'s>,
        goal: &Goal,
    ) -> RcTerm {
        let mut lets = Vec::new();
        for name in names {
            let ty = self.recovery_type(cx, body.span);
            cx.push(name, body.span.first_point(), ty.clone());
            let value = self.recovery_type(cx, body.span);
            let lvl = cx.depth() as usize - 1;
            cx.entries[lvl].value = Some(value.clone());
            lets.push((name_of(name), ty, value));
        }
        let t = self.check(cx, body, &goal.under(names.len() as u32).ty);
        self.close_lets(cx, lets, t)
    }

    /// The data type's parameters as the occurrence's type gives them (unifying with a
    /// fresh `D ?params` if the type is still unknown).
    fn data_params(
        &mut self,
        cx: &mut Cx<'_>,
        occ_ty: &RcTerm,
        d: DataId,
        span: Span,
    ) -> Vec<RcTerm> {
        let n = self.program.data(d).params.len();
        let w = self.whnf(cx, occ_ty, span);
        if let Some(args) = data_args(&w, d)
            && args.len() == n
        {
            return args;
        }
        let params: Vec<RcTerm> = (0..n)
            .map(|i| {
                let name = self.program.data(d).params[i].name.clone();
                self.fresh(
                    cx,
                    span,
                    format!("the parameter `{name}` of the scrutinee's type"),
                )
            })
            .collect();
        let want = Term::apps(Term::Data(d).rc(), params.iter().cloned());
        if !self.unify(cx, occ_ty, &want, span) {
            let found = self.show(cx, occ_ty);
            let name = self.program.data(d).name.clone();
            self.errors.push(
                Diagnostic::error(format!(
                    "type mismatch: this pattern is a `{name}`, but the value matched has type `{found}`"
                ))
                .at(span, "")
                .note(format!("found: {found}")),
            );
        }
        params
    }

    /// The rows of each head's arm (in `heads`' order), with the fields' sub-patterns
    /// in place of column `col`, and for each head the first name a row gives each
    /// field. One pass over the rows: a row testing a head goes to that head's group,
    /// a row matching anything to every group.
    #[allow(clippy::type_complexity)]
    fn group_rows<'s>(
        &self,
        heads: &[Head],
        rows: &[Row<'s>],
        col: usize,
        occ: &Occ,
    ) -> (Vec<Vec<Row<'s>>>, Vec<Vec<Option<&'s str>>>) {
        let index: HashMap<&Head, usize> = heads.iter().enumerate().map(|(i, h)| (h, i)).collect();
        let arities: Vec<usize> = heads
            .iter()
            .map(|h| match h {
                Head::Con(c) => self.program.con(*c).fields.len(),
                Head::Lit(_) => 0,
            })
            .collect();
        let mut groups: Vec<Vec<Row<'s>>> = heads.iter().map(|_| Vec::new()).collect();
        let mut names: Vec<Vec<Option<&'s str>>> = arities.iter().map(|a| vec![None; *a]).collect();
        for row in rows {
            let pat = &row.pats[col];
            let targets: Vec<(usize, Vec<IPat<'s>>)> = match pat {
                IPat::Con(c, ps, _) => index
                    .get(&Head::Con(*c))
                    .map(|h| vec![(*h, ps.to_vec())])
                    .unwrap_or_default(),
                IPat::Lit(l, _) => index
                    .get(&Head::Lit(l.clone()))
                    .map(|h| vec![(*h, Vec::new())])
                    .unwrap_or_default(),
                IPat::Any(_) => (0..heads.len())
                    .map(|h| (h, vec![IPat::Any(None); arities[h]]))
                    .collect(),
            };
            let binds = match (pat, occ) {
                (IPat::Any(Some(n)), Occ::Var(l)) => row.binds.with(*n, *l),
                _ => row.binds.clone(),
            };
            for (h, fields) in targets {
                for (k, f) in fields.iter().enumerate() {
                    if let (IPat::Any(Some(n)), Some(slot @ None)) = (f, names[h].get_mut(k)) {
                        *slot = Some(n.name);
                    }
                }
                let mut pats = row.pats[..col].to_vec();
                pats.extend(fields);
                pats.extend_from_slice(&row.pats[col + 1..]);
                groups[h].push(Row {
                    pats,
                    binds: binds.clone(),
                    ..row.clone()
                });
            }
        }
        (groups, names)
    }

    /// Splits the matrix on column `col`, whose value is `occ`.
    #[allow(clippy::too_many_arguments)]
    fn split<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occ: Occ,
        occs: &[Lvl],
        col: usize,
        rows: Vec<Row<'s>>,
        span: Span,
        goal: &Goal,
    ) -> RcTerm {
        let heads = self.heads(&rows, col);
        // Where the first tested pattern is written: type errors about it point there.
        let pat_span = rows
            .iter()
            .find_map(|r| match &r.pats[col] {
                IPat::Con(_, _, sp) | IPat::Lit(_, sp) => Some(*sp),
                IPat::Any(_) => None,
            })
            .unwrap_or(span);
        let occ_ty = match &occ {
            Occ::Var(l) => cx.type_of(*l),
            Occ::Term(_, ty) => ty.clone(),
        };
        let params = match heads.first() {
            Some(Head::Con(c)) => self.data_params(cx, &occ_ty, c.data, pat_span),
            Some(Head::Lit(l)) => {
                let want = Term::PrimType(match l {
                    Lit::Int(_) => PrimType::Int,
                    Lit::Float(_) => PrimType::Float,
                    Lit::Str(_) => PrimType::String,
                    Lit::Char(_) => PrimType::Char,
                })
                .rc();
                if !self.unify(cx, &occ_ty, &want, pat_span) {
                    let found = self.show(cx, &occ_ty);
                    let wanted = self.show(cx, &want);
                    self.errors.push(
                        Diagnostic::error(format!(
                            "type mismatch: this pattern is a `{wanted}`, but the value matched has type `{found}`"
                        ))
                        .at(pat_span, "")
                        .note(format!("expected: {found}"))
                        .note(format!("   found: {wanted}")),
                    );
                }
                Vec::new()
            }
            None => Vec::new(),
        };
        // A case no arm covers fails naming the whole value matched, not the part.
        let root = self.match_root(cx).or(occs.first().copied());
        let (mut groups, group_names) = self.group_rows(&heads, &rows, col, &occ);
        let mut arms = Vec::new();
        for (hi, head) in heads.iter().enumerate() {
            let field_tys: Vec<RcTerm> = match head {
                Head::Con(c) => self.program.con(*c).fields.clone(),
                Head::Lit(_) => Vec::new(),
            };
            let arity = field_tys.len();
            let base = cx.depth();
            let names = &group_names[hi];
            let sub = std::mem::take(&mut groups[hi]);
            let mut binders = Vec::with_capacity(arity);
            for (j, fty) in field_tys.iter().enumerate() {
                let ty = subst_params(fty, j as u32, &params);
                let name = name_of(names[j].unwrap_or("_"));
                cx.push_hidden(name.clone(), ty.clone());
                binders.push(Binder {
                    name,
                    plicity: Plicity::Explicit,
                    ty,
                });
            }
            let mut arm_goal = goal.under(arity as u32);
            if let (true, Occ::Var(l), Head::Con(c)) = (goal.refine, &occ, head) {
                let k = arity as u32;
                let con = params.iter().fold(Term::Con(*c).rc(), |f, p| {
                    Term::App(f, Plicity::Implicit, shift(p, k)).rc()
                });
                let con = (0..k).rev().fold(con, |f, i| {
                    Term::App(f, Plicity::Explicit, Term::Var(Ix(i)).rc()).rc()
                });
                arm_goal.ty = refine(&arm_goal.ty, l.to_ix(base + k), &con);
            }
            let mut new_occs = occs[..col.min(occs.len())].to_vec();
            new_occs.extend((0..arity as u32).map(|k| Lvl(base + k)));
            new_occs.extend_from_slice(&occs[(col + 1).min(occs.len())..]);
            let known = match head {
                Head::Con(c) => Known::Con(*c, (0..arity as u32).map(|k| base + k).collect()),
                Head::Lit(l) => Known::Lit(l.clone()),
            };
            self.coverage.known.push((occ_id(&occ), known));
            let body = self.compile_or_root(cx, &new_occs, root, sub, span, &arm_goal);
            self.coverage.known.pop();
            for _ in 0..arity {
                cx.pop();
            }
            let pat = match head {
                Head::Con(c) => CasePat::Con(*c, binders),
                Head::Lit(l) => CasePat::Lit(l.clone()),
            };
            arms.push(CaseArm { pat, body });
        }
        let exhaustive = match heads.first() {
            Some(Head::Con(c)) => heads.len() == self.program.data(c.data).ctors.len(),
            _ => false,
        };
        let default = if exhaustive {
            None
        } else {
            let dflt = Lvl(cx.depth());
            let mut name = None;
            let mut sub = Vec::new();
            for row in &rows {
                let IPat::Any(n) = &row.pats[col] else {
                    continue;
                };
                let binds = match n {
                    Some(n) => {
                        name.get_or_insert(n.name);
                        row.binds.with(*n, dflt)
                    }
                    None => row.binds.clone(),
                };
                let mut pats = row.pats[..col].to_vec();
                pats.extend_from_slice(&row.pats[(col + 1).min(row.pats.len())..]);
                sub.push(Row {
                    pats,
                    binds,
                    ..row.clone()
                });
            }
            self.coverage
                .known
                .push((occ_id(&occ), Known::NoneOf(heads.clone())));
            if sub.is_empty() {
                self.warn_missing(span);
            }
            let mut new_occs = occs[..col.min(occs.len())].to_vec();
            new_occs.extend_from_slice(&occs[(col + 1).min(occs.len())..]);
            let binder_name = name_of(name.unwrap_or("_"));
            cx.push_hidden(binder_name.clone(), occ_ty.clone());
            let body = self.compile_or_root(
                cx,
                &new_occs,
                root.or(Some(dflt)),
                sub,
                span,
                &goal.under(1),
            );
            self.coverage.known.pop();
            cx.pop();
            let binder = Binder {
                name: binder_name,
                plicity: Plicity::Explicit,
                ty: occ_ty,
            };
            Some((binder, body))
        };
        let scrut = match occ {
            Occ::Var(l) => cx.var(l),
            Occ::Term(t, _) => t,
        };
        Term::Match(Box::new(Match {
            scrut,
            arms,
            default,
            span,
        }))
        .rc()
    }

    /// Compiles a sub-matrix, remembering the root occurrence for the "no arm matches"
    /// leaf when the matrix has no rows left.
    fn compile_or_root<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occs: &[Lvl],
        root: Option<Lvl>,
        rows: Vec<Row<'s>>,
        span: Span,
        goal: &Goal,
    ) -> RcTerm {
        if rows.is_empty() {
            return no_match(cx, root.or(occs.first().copied()), span);
        }
        self.compile(cx, occs, rows, span, goal)
    }

    /// The distinct constructors or literals tested in column `col`, in order of first
    /// appearance. Constructors of another type than the first one's, or literals mixed
    /// with constructors, are reported (the rows that use them are then never taken).
    fn heads(&mut self, rows: &[Row<'_>], col: usize) -> Vec<Head> {
        let mut heads: Vec<Head> = Vec::new();
        let mut seen: HashSet<Head> = HashSet::new();
        for row in rows {
            let head = match &row.pats[col] {
                IPat::Con(c, _, _) => Head::Con(*c),
                IPat::Lit(l, _) => Head::Lit(l.clone()),
                IPat::Any(_) => continue,
            };
            if seen.contains(&head) {
                continue;
            }
            let compatible = match (heads.first(), &head) {
                (None, _) => true,
                (Some(Head::Con(a)), Head::Con(b)) => a.data == b.data,
                (Some(Head::Lit(Lit::Int(_))), Head::Lit(Lit::Int(_))) => true,
                (Some(Head::Lit(Lit::Str(_))), Head::Lit(Lit::Str(_))) => true,
                (Some(Head::Lit(Lit::Char(_))), Head::Lit(Lit::Char(_))) => true,
                _ => false,
            };
            if compatible {
                seen.insert(head.clone());
                heads.push(head);
            } else {
                self.arm_use.broken[row.arm] = true;
                self.errors.push(
                    Diagnostic::error("the patterns of this match test values of different types")
                        .at(
                            row.body.span,
                            "this arm's pattern does not fit the earlier ones",
                        ),
                );
            }
        }
        heads
    }
}

/// Drops the columns where every row matches anything, recording the names they bind
/// in the rows' bindings: they test nothing, and keeping them would make every later
/// split copy them (a list pattern of `n` elements would cost `n²`).
fn drop_wildcard_columns<'s>(occs: &[Lvl], rows: Vec<Row<'s>>) -> (Vec<Lvl>, Vec<Row<'s>>) {
    let width = occs.len();
    let idle: Vec<bool> = (0..width)
        .map(|c| {
            rows.iter()
                .all(|r| matches!(r.pats.get(c), Some(IPat::Any(_))))
        })
        .collect();
    if !idle.contains(&true) || rows.iter().any(|r| r.pats.len() != width) {
        return (occs.to_vec(), rows);
    }
    let kept_occs = occs
        .iter()
        .zip(&idle)
        .filter(|(_, idle)| !**idle)
        .map(|(o, _)| *o)
        .collect();
    let rows = rows
        .into_iter()
        .map(|mut row| {
            let mut pats = Vec::with_capacity(width);
            for ((p, occ), idle) in row.pats.into_iter().zip(occs).zip(&idle) {
                match (p, idle) {
                    (IPat::Any(Some(name)), true) => row.binds = row.binds.with(name, *occ),
                    (_, true) => {}
                    (p, false) => pats.push(p),
                }
            }
            row.pats = pats;
            row
        })
        .collect();
    (kept_occs, rows)
}

/// The coverage name of an occurrence.
fn occ_id(occ: &Occ) -> u32 {
    match occ {
        Occ::Var(l) => l.0,
        Occ::Term(..) => ROOT_TERM,
    }
}

/// Whether a match can be one level on an arbitrary scrutinee term: no sub-pattern
/// tests anything, no arm names the scrutinee and no arm has a guard (a false guard
/// goes on to the next arm, which examines the scrutinee again).
fn is_flat(rows: &[Row<'_>]) -> bool {
    rows.iter().all(|row| row.guard.is_none())
        && rows.iter().all(|row| match &row.pats[0] {
            IPat::Any(name) => name.is_none(),
            IPat::Lit(..) => true,
            IPat::Con(_, sub, _) => sub.iter().all(|p| matches!(p, IPat::Any(_))),
        })
}

/// A constructor's field type (in the scope of the data type's parameters and the
/// `j` earlier fields) with the parameters replaced by `params` (in the scope outside
/// the fields): the result is in that scope plus the `j` earlier fields.
pub(in crate::check) fn subst_params(field: &RcTerm, j: u32, params: &[RcTerm]) -> RcTerm {
    let n = params.len() as u32;
    rewrite(field, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i >= d + j => {
            let from_fields = i - d - j;
            if from_fields < n {
                Some(shift(&params[(n - 1 - from_fields) as usize], d + j))
            } else {
                Some(Term::Var(Ix(i - n)).rc())
            }
        }
        _ => None,
    })
}

/// The leaf where no arm matches: an empty match on the root occurrence, which fails at
/// run time with the `match`'s location.
fn no_match(cx: &Cx<'_>, root: Option<Lvl>, span: Span) -> RcTerm {
    let scrut = match root {
        Some(l) => cx.var(l),
        None => global_term(
            Global::Con(ConId {
                data: DataId(0),
                index: 0,
            }),
            span,
        ),
    };
    Term::Match(Box::new(Match {
        scrut,
        arms: Vec::new(),
        default: None,
        span,
    }))
    .rc()
}
