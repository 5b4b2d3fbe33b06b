//! Compiling nested patterns to one-level matches.
//!
//! Core terms have only one-level case analysis ([`Match`]): arms on a constructor
//! (binding its fields) or a literal, then a default. A surface `match` with nested
//! patterns is compiled here to a tree of those, by the classic clause-matrix method:
//!
//! - The *occurrences* are the values being examined, each a bound variable (the
//!   scrutinee, then the fields bound by enclosing arms). A *row* is one source arm: a
//!   pattern per occurrence, the variables it has bound so far, and its body.
//! - If the first row's patterns are all variables or `_`, it matches: its body is
//!   resolved with its pattern variables naming the occurrences they matched.
//! - Otherwise pick the first column where the first row tests something, and split on
//!   it: one arm per constructor (or literal) appearing there, whose sub-matrix keeps the
//!   rows compatible with it (their sub-patterns replacing the column), and a default
//!   (rows with a variable there) when the constructors seen do not cover the type.
//! - No rows left means no arm matches: an empty match, which the machine reports as a
//!   runtime error at the `match`.
//!
//! Rows are tried top to bottom, as the language requires. A body can be reached along
//! several paths, in which case it is resolved once per path (names are resolved afresh
//! each time, so no index shifting is needed).

use super::resolve::{Cx, Resolver, global_term, name_of};
use super::scope::Global;
use crate::core::term::{Binder, CaseArm, CasePat, ConId, Lit, Lvl, Match, Plicity, RcTerm, Term};
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{Arm, Expr, ExprKind, Pat, PatKind};
use crate::syntax::span::Span;
use std::rc::Rc;

/// A pattern after sugar is removed and constructor names are resolved.
#[derive(Clone, Debug)]
enum IPat<'s> {
    /// Matches anything; binds the name if there is one.
    Any(Option<&'s str>),
    /// A constructor with one sub-pattern per explicit field.
    Con(ConId, Vec<IPat<'s>>),
    /// A literal.
    Lit(Lit),
}

/// One arm of the matrix.
#[derive(Clone)]
struct Row<'s> {
    pats: Vec<IPat<'s>>,
    binds: Vec<(&'s str, Lvl)>,
    body: &'s Expr<'s>,
}

/// What a column tests, for splitting.
#[derive(Clone, PartialEq)]
enum Head {
    Con(ConId),
    Lit(Lit),
}

impl Resolver {
    /// Resolves `match scrut with arms`.
    pub(super) fn match_expr<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        scrut: &'s Expr<'s>,
        arms: &'s [Arm<'s>],
        span: Span,
    ) -> RcTerm {
        let rows: Vec<Row<'s>> = arms
            .iter()
            .map(|arm| Row {
                pats: vec![self.lower(cx, arm.pat)],
                binds: Vec::new(),
                body: arm.body,
            })
            .collect();
        // A variable scrutinee is examined in place (this is what lets the type checker
        // refine the variable's type in each arm).
        if let ExprKind::Var(name) = scrut.kind {
            if let Some(lvl) = cx.lookup(name) {
                return self.compile(cx, &[lvl], rows, span);
            }
        }
        let scrut_term = self.expr(cx, scrut);
        if is_flat(&rows) {
            // Every test is on the scrutinee itself and nothing names it: one match on
            // the scrutinee term, no binding needed.
            return self.compile_flat(cx, scrut_term, rows, span);
        }
        // Otherwise bind the scrutinee once so nested tests and variables can refer to
        // it. The `let` is recursive in core, so the right-hand side is shifted under
        // its own (unnamed, unreferenced) binder.
        let lvl = Lvl(cx.depth);
        cx.push_anonymous();
        let shifted = self.expr(cx, scrut);
        let body = self.compile(cx, &[lvl], rows, span);
        cx.depth -= 1;
        drop(scrut_term);
        let binder = Binder {
            name: name_of("_"),
            plicity: Plicity::Explicit,
            ty: Term::infer(scrut.span),
        };
        Term::Let(binder, shifted, body).rc()
    }

    /// Lowers a surface pattern: resolves constructor names, checks arities, removes
    /// the sugar of `()`, tuples and list patterns.
    fn lower<'s>(&mut self, cx: &Cx<'s>, p: &'s Pat<'s>) -> IPat<'s> {
        let b = self.program.builtins;
        match &p.kind {
            PatKind::Var(name) => IPat::Any(Some(name)),
            PatKind::Wild => IPat::Any(None),
            PatKind::Int(n) => IPat::Lit(Lit::Int(*n)),
            PatKind::Str(s) => IPat::Lit(Lit::Str(Rc::from(*s))),
            PatKind::Unit => IPat::Con(b.unit_con, Vec::new()),
            PatKind::Tuple(items) => {
                let mut lowered: Vec<IPat<'s>> = items.iter().map(|i| self.lower(cx, i)).collect();
                let mut acc = lowered.pop().unwrap_or(IPat::Con(b.unit_con, Vec::new()));
                while let Some(x) = lowered.pop() {
                    acc = IPat::Con(b.mk_pair, vec![x, acc]);
                }
                acc
            }
            PatKind::List(items) => {
                let lowered: Vec<IPat<'s>> = items.iter().map(|i| self.lower(cx, i)).collect();
                lowered
                    .into_iter()
                    .rev()
                    .fold(IPat::Con(b.nil, Vec::new()), |tail, x| {
                        IPat::Con(b.cons, vec![x, tail])
                    })
            }
            PatKind::Con { name, args } => {
                let sub: Vec<IPat<'s>> = args.iter().map(|a| self.lower(cx, a)).collect();
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
                            return IPat::Any(None);
                        }
                        IPat::Con(con, sub)
                    }
                    Some(_) => {
                        self.errors.push(
                            Diagnostic::error(format!(
                                "`{}` is not a constructor, so it cannot be matched on",
                                name.name
                            ))
                            .at(name.span, "expected a constructor"),
                        );
                        IPat::Any(None)
                    }
                    None => IPat::Any(None),
                }
            }
        }
    }

    /// The one-level match of a flat `match` on a non-variable scrutinee.
    fn compile_flat<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        scrut: RcTerm,
        rows: Vec<Row<'s>>,
        span: Span,
    ) -> RcTerm {
        // A first arm that matches anything is taken without evaluating the scrutinee.
        if let Some(IPat::Any(_)) = rows.first().map(|r| &r.pats[0]) {
            let row = rows.into_iter().next().expect("rows is not empty");
            return self.leaf(cx, &row.binds, row.body);
        }
        // The scrutinee is examined once, so its occurrence is a term; the default (if
        // any) binds it afresh, and no pattern names it (see `is_flat`).
        self.split(cx, Occ::Term(scrut), &[], 0, rows, span)
    }

    /// Compiles a clause matrix over `occs`.
    fn compile<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occs: &[Lvl],
        rows: Vec<Row<'s>>,
        span: Span,
    ) -> RcTerm {
        stacker::maybe_grow(
            super::resolve::RED_ZONE,
            super::resolve::STACK_CHUNK,
            || self.compile_inner(cx, occs, rows, span),
        )
    }

    fn compile_inner<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occs: &[Lvl],
        rows: Vec<Row<'s>>,
        span: Span,
    ) -> RcTerm {
        let Some(first) = rows.first() else {
            return no_match(cx, occs.first().copied(), span);
        };
        match first.pats.iter().position(|p| !matches!(p, IPat::Any(_))) {
            None => {
                let row = rows.into_iter().next().expect("rows is not empty");
                let mut binds = row.binds;
                for (p, occ) in row.pats.iter().zip(occs) {
                    if let IPat::Any(Some(name)) = p {
                        binds.push((name, *occ));
                    }
                }
                self.leaf(cx, &binds, row.body)
            }
            Some(col) => self.split(cx, Occ::Var(occs[col]), occs, col, rows, span),
        }
    }

    /// Resolves a row's body with its pattern variables naming their occurrences.
    fn leaf<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        binds: &[(&'s str, Lvl)],
        body: &'s Expr<'s>,
    ) -> RcTerm {
        let saved = cx.names.len();
        cx.names.extend(binds.iter().copied());
        let t = self.expr(cx, body);
        cx.names.truncate(saved);
        t
    }

    /// Splits the matrix on column `col`, whose value is `occ`.
    fn split<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occ: Occ,
        occs: &[Lvl],
        col: usize,
        rows: Vec<Row<'s>>,
        span: Span,
    ) -> RcTerm {
        let heads = self.heads(&rows, col);
        let root = occs.first().copied();
        let mut arms = Vec::new();
        for head in &heads {
            let arity = match head {
                Head::Con(c) => self.program.con(*c).fields.len(),
                Head::Lit(_) => 0,
            };
            let base = cx.depth;
            let field_lvls: Vec<Lvl> = (0..arity as u32).map(|k| Lvl(base + k)).collect();
            let mut names: Vec<Option<&'s str>> = vec![None; arity];
            let mut sub = Vec::new();
            for row in &rows {
                let pat = &row.pats[col];
                let fields = match (pat, head) {
                    (IPat::Con(c, ps), Head::Con(h)) if c == h => ps.clone(),
                    (IPat::Lit(l), Head::Lit(h)) if l == h => Vec::new(),
                    (IPat::Any(_), _) => vec![IPat::Any(None); arity],
                    _ => continue,
                };
                for (k, f) in fields.iter().enumerate() {
                    if let (IPat::Any(Some(n)), None) = (f, names[k]) {
                        names[k] = Some(n);
                    }
                }
                let mut binds = row.binds.clone();
                if let (IPat::Any(Some(n)), Occ::Var(l)) = (pat, &occ) {
                    binds.push((n, *l));
                }
                let mut pats = row.pats[..col].to_vec();
                pats.extend(fields);
                pats.extend_from_slice(&row.pats[col + 1..]);
                sub.push(Row {
                    pats,
                    binds,
                    body: row.body,
                });
            }
            let mut new_occs = occs[..col].to_vec();
            new_occs.extend(field_lvls);
            new_occs.extend_from_slice(&occs[(col + 1).min(occs.len())..]);
            cx.depth += arity as u32;
            let body = self.compile_or_root(cx, &new_occs, root, sub, span);
            cx.depth -= arity as u32;
            let pat = match head {
                Head::Con(c) => CasePat::Con(
                    *c,
                    names
                        .iter()
                        .map(|n| Binder {
                            name: name_of(n.unwrap_or("_")),
                            plicity: Plicity::Explicit,
                            ty: Term::infer(span),
                        })
                        .collect(),
                ),
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
            let dflt = Lvl(cx.depth);
            let mut name = None;
            let mut sub = Vec::new();
            for row in &rows {
                let IPat::Any(n) = &row.pats[col] else {
                    continue;
                };
                let mut binds = row.binds.clone();
                if let Some(n) = n {
                    name.get_or_insert(*n);
                    binds.push((n, dflt));
                }
                let mut pats = row.pats[..col].to_vec();
                pats.extend_from_slice(&row.pats[(col + 1).min(row.pats.len())..]);
                sub.push(Row {
                    pats,
                    binds,
                    body: row.body,
                });
            }
            let mut new_occs = occs[..col.min(occs.len())].to_vec();
            new_occs.extend_from_slice(&occs[(col + 1).min(occs.len())..]);
            cx.push_anonymous();
            let body = self.compile_or_root(cx, &new_occs, root.or(Some(dflt)), sub, span);
            cx.depth -= 1;
            let binder = Binder {
                name: name_of(name.unwrap_or("_")),
                plicity: Plicity::Explicit,
                ty: Term::infer(span),
            };
            Some((binder, body))
        };
        let scrut = match occ {
            Occ::Var(l) => cx.var(l),
            Occ::Term(t) => t,
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
    /// leaf when the matrix has no columns left.
    fn compile_or_root<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        occs: &[Lvl],
        root: Option<Lvl>,
        rows: Vec<Row<'s>>,
        span: Span,
    ) -> RcTerm {
        if rows.is_empty() {
            return no_match(cx, root.or(occs.first().copied()), span);
        }
        self.compile(cx, occs, rows, span)
    }

    /// The distinct constructors or literals tested in column `col`, in order of first
    /// appearance. Constructors of another type than the first one's, or literals mixed
    /// with constructors, are reported (the rows that use them are then never taken).
    fn heads(&mut self, rows: &[Row<'_>], col: usize) -> Vec<Head> {
        let mut heads: Vec<Head> = Vec::new();
        for row in rows {
            let head = match &row.pats[col] {
                IPat::Con(c, _) => Head::Con(*c),
                IPat::Lit(l) => Head::Lit(l.clone()),
                IPat::Any(_) => continue,
            };
            if heads.contains(&head) {
                continue;
            }
            let compatible = match (heads.first(), &head) {
                (None, _) => true,
                (Some(Head::Con(a)), Head::Con(b)) => a.data == b.data,
                (Some(Head::Lit(Lit::Int(_))), Head::Lit(Lit::Int(_))) => true,
                (Some(Head::Lit(Lit::Str(_))), Head::Lit(Lit::Str(_))) => true,
                _ => false,
            };
            if compatible {
                heads.push(head);
            } else {
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

/// The value a column examines: a bound variable, or (for a flat match on a
/// non-variable) the scrutinee term itself, examined exactly once.
enum Occ {
    Var(Lvl),
    Term(RcTerm),
}

/// Whether a match can be one level on an arbitrary scrutinee term: no sub-pattern
/// tests anything and no arm names the scrutinee.
fn is_flat(rows: &[Row<'_>]) -> bool {
    rows.iter().all(|row| match &row.pats[0] {
        IPat::Any(name) => name.is_none(),
        IPat::Lit(_) => true,
        IPat::Con(_, sub) => sub.iter().all(|p| matches!(p, IPat::Any(_))),
    })
}

/// The leaf where no arm matches: an empty match on the root occurrence, which fails at
/// run time with the `match`'s location.
fn no_match(cx: &Cx<'_>, root: Option<Lvl>, span: Span) -> RcTerm {
    let scrut = match root {
        Some(l) => cx.var(l),
        None => global_term(
            Global::Con(ConId {
                data: crate::core::term::DataId(0),
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
