//! Scope resolution: surface AST to core terms.
//!
//! Names become de Bruijn indices (locals) or references into the program's tables
//! (globals, see [`scope`](super::scope)); operators become primitives; `if`, `&&` and
//! `||` become matches on `Bool`; `()`, tuples and list literals become constructor
//! applications; nested patterns are compiled to one-level matches
//! ([`patterns`](super::patterns)). Every binder gets its annotation, or a hole where the
//! source has none. Errors are collected, not thrown: resolution goes on after an unbound
//! name (the name becomes a hole) so one run reports every independent error.
//!
//! Recursion here follows the shape of the surface tree; [`stacker`] grows the native
//! stack on demand so that a long operator chain (a million `+`) cannot overflow it.

use super::scope::{self, Global, UnitScope};
use crate::core::program::{Builtins, CtorDecl, DataDecl, DefDecl, ExternDecl, Program};
use crate::core::term::{
    Binder, CaseArm, CasePat, ConId, DataId, DefId, ExternId, HoleKind, Lit, Lvl, Match, Name,
    Plicity, RcTerm, Term,
};
use crate::diagnostic::Diagnostic;
use crate::external;
use crate::prim::Prim;
use crate::syntax::ast::{BinOp, Decl, Expr, ExprKind, Module, Param};
use crate::syntax::span::Span;
use std::rc::Rc;

/// One scope unit: the prelude (all its files) or one user file.
pub struct SourceUnit<'a> {
    /// The parsed files of the unit (one, except for the prelude).
    pub modules: Vec<&'a Module<'a>>,
    /// The units this one imports directly, with the place of each `import`.
    pub imports: Vec<(usize, Span)>,
}

/// Index of the prelude among the units passed to [`resolve_program`].
pub const PRELUDE_UNIT: usize = 0;

/// Stack growth parameters: grow when less than `RED_ZONE` bytes remain.
pub(crate) const RED_ZONE: usize = 64 * 1024;
/// How much native stack to add each time it runs low.
pub(crate) const STACK_CHUNK: usize = 2 * 1024 * 1024;

/// Resolves a whole program. `units[0]` must be the prelude; `entry` is the unit whose
/// `main` becomes [`Program::main`]. Returns the program (with holes where names failed
/// to resolve) and every diagnostic.
pub fn resolve_program(units: &[SourceUnit<'_>], entry: usize) -> (Program, Vec<Diagnostic>) {
    let mut r = Resolver::declare(units);
    r.resolve_bodies(units);
    let main = r.scopes[entry].get("main").and_then(|(g, _)| match g {
        Global::Def(id) => Some(id),
        _ => None,
    });
    r.program.main = main;
    let mut errors = r.errors;
    dedup(&mut errors);
    (r.program, errors)
}

/// Resolves one expression as if written inside `unit` (the REPL and the printer's
/// round-trip tests use this), with `locals` bound outermost first.
pub fn resolve_expr_in(
    program: &Program,
    units: &[SourceUnit<'_>],
    unit: usize,
    locals: &[&str],
    expr: &Expr<'_>,
) -> (RcTerm, Vec<Diagnostic>) {
    let mut r = Resolver::declare(units);
    r.program = program.clone();
    let mut cx = Cx::new(unit);
    for name in locals {
        cx.push(name);
    }
    let term = r.expr(&mut cx, expr);
    let mut errors = r.errors;
    dedup(&mut errors);
    (term, errors)
}

/// Pattern compilation may resolve an arm body more than once; report each problem once.
fn dedup(errors: &mut Vec<Diagnostic>) {
    let mut seen = Vec::<(String, Option<Span>)>::new();
    errors.retain(|d| {
        let key = (d.message.clone(), d.primary_span());
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
}

/// The local environment while resolving an expression: names in scope, each mapped to
/// the level of the binder it denotes, and the number of binders (`depth`). A pattern
/// variable may alias an existing binder, so names and binders are counted apart.
pub(super) struct Cx<'s> {
    pub(super) unit: usize,
    pub(super) names: Vec<(&'s str, Lvl)>,
    pub(super) depth: u32,
}

impl<'s> Cx<'s> {
    fn new(unit: usize) -> Cx<'s> {
        Cx {
            unit,
            names: Vec::new(),
            depth: 0,
        }
    }

    /// Enters a binder named `name`.
    pub(super) fn push(&mut self, name: &'s str) {
        self.names.push((name, Lvl(self.depth)));
        self.depth += 1;
    }

    /// Enters a binder that no name refers to (a compiled pattern's field, a scrutinee).
    pub(super) fn push_anonymous(&mut self) {
        self.depth += 1;
    }

    /// Leaves the innermost binder pushed with [`Cx::push`].
    pub(super) fn pop(&mut self) {
        self.names.pop();
        self.depth -= 1;
    }

    /// The index of the binder at `lvl`, seen from here.
    pub(super) fn var(&self, lvl: Lvl) -> RcTerm {
        Term::Var(lvl.to_ix(self.depth)).rc()
    }

    /// The binder a local name denotes, if it is a local.
    pub(super) fn lookup(&self, name: &str) -> Option<Lvl> {
        self.names
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, l)| *l)
    }
}

/// The resolver's state: the program being built, the scope of every unit, errors.
pub(super) struct Resolver {
    pub(super) program: Program,
    pub(super) scopes: Vec<UnitScope>,
    pub(super) imports: Vec<Vec<(usize, Span)>>,
    pub(super) errors: Vec<Diagnostic>,
}

impl Resolver {
    /// Phase one: give every declaration of every unit its id and enter its name in its
    /// unit's scope, so that bodies can refer to any of them in any order.
    fn declare(units: &[SourceUnit<'_>]) -> Resolver {
        let mut program = Program {
            defs: Vec::new(),
            datas: Vec::new(),
            externs: Vec::new(),
            builtins: placeholder_builtins(),
            main: None,
        };
        let mut errors = Vec::new();
        let mut scopes = Vec::new();
        for unit in units {
            let mut scope = UnitScope::default();
            for module in &unit.modules {
                for decl in module.decls {
                    declare_one(&mut program, &mut scope, decl, &mut errors);
                }
            }
            scopes.push(scope);
        }
        let imports = units.iter().map(|u| u.imports.clone()).collect();
        let mut r = Resolver {
            program,
            scopes,
            imports,
            errors,
        };
        if !units.is_empty() {
            r.program.builtins = r.find_builtins();
        }
        r
    }

    /// Looks up the prelude types and constructors that syntax desugars to.
    fn find_builtins(&mut self) -> Builtins {
        let scope = &self.scopes[PRELUDE_UNIT];
        let mut missing = Vec::new();
        let mut data = |name: &str| match scope.get(name) {
            Some((Global::Data(id), _)) => id,
            _ => {
                missing.push(name.to_string());
                DataId(0)
            }
        };
        let (bool_, unit, pair, list, maybe) = (
            data("Bool"),
            data("Unit"),
            data("Pair"),
            data("List"),
            data("Maybe"),
        );
        let mut con = |name: &str| match scope.get(name) {
            Some((Global::Con(id), _)) => id,
            _ => {
                missing.push(name.to_string());
                ConId {
                    data: DataId(0),
                    index: 0,
                }
            }
        };
        let b = Builtins {
            bool_,
            false_: con("False"),
            true_: con("True"),
            unit,
            unit_con: con("MkUnit"),
            pair,
            mk_pair: con("MkPair"),
            list,
            nil: con("Nil"),
            cons: con("Cons"),
            maybe,
            nothing: con("Nothing"),
            just: con("Just"),
        };
        if !missing.is_empty() {
            self.errors.push(Diagnostic::error(format!(
                "the prelude lacks {}",
                missing.join(", ")
            )));
        }
        b
    }

    /// Phase two: resolve every declaration's types and bodies.
    fn resolve_bodies(&mut self, units: &[SourceUnit<'_>]) {
        let (mut def_ix, mut data_ix, mut ext_ix) = (0usize, 0usize, 0usize);
        for (u, unit) in units.iter().enumerate() {
            for module in &unit.modules {
                for decl in module.decls {
                    match decl {
                        Decl::Import { span, .. } => {
                            if u == PRELUDE_UNIT {
                                self.errors.push(
                                    Diagnostic::error("the prelude cannot import files")
                                        .at(*span, ""),
                                );
                            }
                        }
                        Decl::Def {
                            params, ret, body, ..
                        } => {
                            let (ty, value) = self.definition(u, params, *ret, body);
                            let d = &mut self.program.defs[def_ix];
                            d.ty = ty;
                            d.body = value;
                            def_ix += 1;
                        }
                        Decl::Data { params, ctors, .. } => {
                            let mut cx = Cx::new(u);
                            let binders = self.telescope(&mut cx, params);
                            let mut resolved = Vec::new();
                            for ctor in *ctors {
                                let mut fields = Vec::new();
                                for field in ctor.fields {
                                    fields.push(self.expr(&mut cx, field));
                                    cx.push_anonymous();
                                }
                                cx.depth -= ctor.fields.len() as u32;
                                resolved.push(fields);
                            }
                            let d = &mut self.program.datas[data_ix];
                            d.params = binders;
                            for (c, fields) in d.ctors.iter_mut().zip(resolved) {
                                c.fields = fields;
                            }
                            data_ix += 1;
                        }
                        Decl::Extern { ty, .. } => {
                            let t = self.expr(&mut Cx::new(u), ty);
                            self.program.externs[ext_ix].ty = t;
                            ext_ix += 1;
                        }
                    }
                }
            }
        }
    }

    /// The type and value of `def name params : ret = body` (also of a local `let`):
    /// the parameters as a `Pi` telescope around the result type, and as lambdas around
    /// the body.
    fn definition<'s>(
        &mut self,
        unit: usize,
        params: &'s [Param<'s>],
        ret: Option<&'s Expr<'s>>,
        body: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let mut cx = Cx::new(unit);
        self.definition_in(&mut cx, params, ret, body)
    }

    /// [`Resolver::definition`] inside an existing environment; for a recursive `let`
    /// the caller has already bound the name (the body sees it, the type does not).
    fn definition_in<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        params: &'s [Param<'s>],
        ret: Option<&'s Expr<'s>>,
        body: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let binders = self.telescope(cx, params);
        let ret_ty = match ret {
            Some(t) => self.expr(cx, t),
            None => Term::infer(body.span.first_point()),
        };
        let value = self.expr(cx, body);
        for _ in params {
            cx.pop();
        }
        let ty = binders
            .iter()
            .rev()
            .fold(ret_ty, |cod, b| Term::Pi(b.clone(), cod).rc());
        let value = binders
            .into_iter()
            .rev()
            .fold(value, |body, b| Term::Lam(b, body).rc());
        (ty, value)
    }

    /// Resolves binders left to right, each annotation in the scope of the earlier
    /// binders, and leaves them all bound in `cx`.
    fn telescope<'s>(&mut self, cx: &mut Cx<'s>, params: &'s [Param<'s>]) -> Vec<Binder> {
        let mut binders = Vec::with_capacity(params.len());
        for p in params {
            binders.push(self.binder(cx, p));
            cx.push(p.name.name);
        }
        binders
    }

    fn binder<'s>(&mut self, cx: &mut Cx<'s>, p: &'s Param<'s>) -> Binder {
        let ty = match p.ty {
            Some(t) => self.expr(cx, t),
            None => Term::infer(p.name.span),
        };
        Binder {
            name: name_of(p.name.name),
            plicity: p.plicity,
            ty,
        }
    }

    /// Resolves an expression in `cx`.
    pub(super) fn expr<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> RcTerm {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.expr_inner(cx, e))
    }

    fn expr_inner<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> RcTerm {
        let b = self.program.builtins;
        match &e.kind {
            ExprKind::Var(name) => self.name(cx, name, e.span),
            ExprKind::Int(n) => Term::Lit(Lit::Int(*n)).rc(),
            ExprKind::Float(x) => Term::Lit(Lit::Float(*x)).rc(),
            ExprKind::Str(s) => Term::Lit(Lit::Str(Rc::from(*s))).rc(),
            ExprKind::Universe(n) => Term::Universe(*n).rc(),
            ExprKind::Hole => Term::infer(e.span),
            ExprKind::TypedHole(name) => Term::Hole(HoleKind::Goal(name.map(name_of)), e.span).rc(),
            ExprKind::Lam { params, body } => {
                let binders = self.telescope(cx, params);
                let body = self.expr(cx, body);
                for _ in params.iter() {
                    cx.pop();
                }
                binders
                    .into_iter()
                    .rev()
                    .fold(body, |body, b| Term::Lam(b, body).rc())
            }
            ExprKind::Pi {
                name,
                plicity,
                dom,
                cod,
            } => {
                let dom = self.expr(cx, dom);
                let bound = name.map(|n| n.name).unwrap_or("_");
                cx.push(bound);
                let cod = self.expr(cx, cod);
                cx.pop();
                let binder = Binder {
                    name: name_of(bound),
                    plicity: *plicity,
                    ty: dom,
                };
                Term::Pi(binder, cod).rc()
            }
            ExprKind::Let {
                name,
                params,
                ret,
                rhs,
                body,
            } => {
                // The annotation is outside the binding; the right-hand side and the
                // body are inside it (every `let` is recursive).
                let ty = self.let_type(cx, params, *ret, rhs.span);
                cx.push(name.name);
                let (_, value) = self.definition_in(cx, params, *ret, rhs);
                let body = self.expr(cx, body);
                cx.pop();
                let binder = Binder {
                    name: name_of(name.name),
                    plicity: Plicity::Explicit,
                    ty,
                };
                Term::Let(binder, value, body).rc()
            }
            ExprKind::If { cond, then_, else_ } => {
                let cond = self.expr(cx, cond);
                let then_ = self.expr(cx, then_);
                let else_ = self.expr(cx, else_);
                bool_match(b, cond, then_, else_, e.span)
            }
            ExprKind::Match { scrut, arms } => self.match_expr(cx, scrut, arms, e.span),
            ExprKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                let lhs = self.expr(cx, lhs);
                let rhs = self.expr(cx, rhs);
                let t = || Term::Con(b.true_).rc();
                let f = || Term::Con(b.false_).rc();
                match op {
                    BinOp::And => bool_match(b, lhs, rhs, f(), *op_span),
                    BinOp::Or => bool_match(b, lhs, t(), rhs, *op_span),
                    _ => Term::apps(Term::Prim(prim_of(*op), *op_span).rc(), [lhs, rhs]),
                }
            }
            ExprKind::App { fun, arg, plicity } => {
                let fun = self.expr(cx, fun);
                let arg = self.expr(cx, arg);
                Term::App(fun, *plicity, arg).rc()
            }
            ExprKind::Ann { expr, ty } => {
                let expr = self.expr(cx, expr);
                let ty = self.expr(cx, ty);
                Term::Ann(expr, ty).rc()
            }
            ExprKind::Unit => Term::Con(b.unit_con).rc(),
            ExprKind::Tuple(items) => {
                let mut resolved: Vec<RcTerm> = items.iter().map(|i| self.expr(cx, i)).collect();
                let mut acc = resolved.pop().unwrap_or_else(|| Term::Con(b.unit_con).rc());
                while let Some(x) = resolved.pop() {
                    acc = Term::apps(Term::Con(b.mk_pair).rc(), [x, acc]);
                }
                acc
            }
            ExprKind::List(items) => {
                let resolved: Vec<RcTerm> = items.iter().map(|i| self.expr(cx, i)).collect();
                resolved
                    .into_iter()
                    .rev()
                    .fold(Term::Con(b.nil).rc(), |tail, x| {
                        Term::apps(Term::Con(b.cons).rc(), [x, tail])
                    })
            }
        }
    }

    /// The annotation of a `let` binding: its parameters as a `Pi` telescope around the
    /// declared result type, or a hole when neither is written.
    fn let_type<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        params: &'s [Param<'s>],
        ret: Option<&'s Expr<'s>>,
        at: Span,
    ) -> RcTerm {
        if params.is_empty() && ret.is_none() {
            return Term::infer(at.first_point());
        }
        let binders = self.telescope(cx, params);
        let ret_ty = match ret {
            Some(t) => self.expr(cx, t),
            None => Term::infer(at.first_point()),
        };
        for _ in params {
            cx.pop();
        }
        binders
            .into_iter()
            .rev()
            .fold(ret_ty, |cod, b| Term::Pi(b, cod).rc())
    }

    /// A name in expression position: a local, else a global, else an error.
    fn name(&mut self, cx: &Cx<'_>, name: &str, span: Span) -> RcTerm {
        if let Some(lvl) = cx.lookup(name) {
            return cx.var(lvl);
        }
        match self.global(cx, name, span) {
            Some(g) => global_term(g, span),
            None => Term::infer(span),
        }
    }

    /// The global a name means in `cx`'s unit; reports an unbound or ambiguous name.
    pub(super) fn global(&mut self, cx: &Cx<'_>, name: &str, span: Span) -> Option<Global> {
        if let Some((g, _)) = self.scopes[cx.unit].get(name) {
            return Some(g);
        }
        let found: Vec<(Global, Span)> = self.imports[cx.unit]
            .iter()
            .filter_map(|(u, _)| self.scopes[*u].get(name))
            .fold(Vec::new(), |mut acc, hit| {
                if !acc.iter().any(|(g, _)| *g == hit.0) {
                    acc.push(hit);
                }
                acc
            });
        match found.as_slice() {
            [(g, _)] => return Some(*g),
            [(g, first), (_, second), ..] => {
                self.errors.push(
                    Diagnostic::error(format!("`{name}` is ambiguous: two imports define it"))
                        .at(span, "used here")
                        .also(*first, "one definition")
                        .also(*second, "another definition"),
                );
                return Some(*g);
            }
            [] => {}
        }
        if cx.unit != PRELUDE_UNIT {
            if let Some((g, _)) = self.scopes[PRELUDE_UNIT].get(name) {
                return Some(g);
            }
        }
        if let Some(g) = scope::builtin(name) {
            return Some(g);
        }
        self.unbound(cx, name, span);
        None
    }

    fn unbound(&mut self, cx: &Cx<'_>, name: &str, span: Span) {
        let mut candidates: Vec<String> = cx.names.iter().map(|(n, _)| n.to_string()).collect();
        candidates.extend(self.scopes[cx.unit].names().map(str::to_string));
        for (u, _) in &self.imports[cx.unit] {
            candidates.extend(self.scopes[*u].names().map(str::to_string));
        }
        candidates.extend(self.scopes[PRELUDE_UNIT].names().map(str::to_string));
        candidates.extend(scope::builtin_names().map(str::to_string));
        let mut d = Diagnostic::error(format!("unbound name `{name}`")).at(span, "not in scope");
        if let Some(s) = scope::suggest(name, candidates.iter().map(String::as_str)) {
            d = d.note(format!("help: did you mean `{s}`?"));
        }
        self.errors.push(d);
    }
}

/// Enters one declaration in the tables and its unit's scope.
fn declare_one(
    program: &mut Program,
    scope: &mut UnitScope,
    decl: &Decl<'_>,
    errors: &mut Vec<Diagnostic>,
) {
    let hole = |span: Span| Term::infer(span);
    match decl {
        Decl::Import { .. } => {}
        Decl::Def { name, .. } => {
            let id = DefId(program.defs.len() as u32);
            program.defs.push(DefDecl {
                name: name_of(name.name),
                ty: hole(name.span),
                body: hole(name.span),
                span: name.span,
            });
            scope.declare(name.name, Global::Def(id), name.span, errors);
        }
        Decl::Data { name, ctors, .. } => {
            let id = DataId(program.datas.len() as u32);
            scope.declare(name.name, Global::Data(id), name.span, errors);
            let mut decls = Vec::new();
            for (i, c) in ctors.iter().enumerate() {
                let con = ConId {
                    data: id,
                    index: i as u32,
                };
                scope.declare(c.name.name, Global::Con(con), c.name.span, errors);
                decls.push(CtorDecl {
                    name: name_of(c.name.name),
                    fields: c.fields.iter().map(|f| hole(f.span)).collect(),
                    span: c.name.span,
                });
            }
            program.datas.push(DataDecl {
                name: name_of(name.name),
                params: Vec::new(),
                ctors: decls,
                span: name.span,
            });
        }
        Decl::Extern { name, .. } => {
            if !external::is_known(name.name) {
                let mut d = Diagnostic::error(format!("unknown external `{}`", name.name))
                    .at(name.span, "the host provides no external of this name")
                    .note(format!(
                        "known externals: {}",
                        external::known_names().join(", ")
                    ));
                if let Some(s) = scope::suggest(name.name, external::known_names().into_iter()) {
                    d = d.note(format!("help: did you mean `{s}`?"));
                }
                errors.push(d);
            }
            let id = ExternId(program.externs.len() as u32);
            program.externs.push(ExternDecl {
                name: name_of(name.name),
                ty: hole(name.span),
                span: name.span,
            });
            scope.declare(name.name, Global::Extern(id), name.span, errors);
        }
    }
}

/// Builtins that stand in until the prelude's are found (only used if it lacks them,
/// which is reported).
fn placeholder_builtins() -> Builtins {
    let c = ConId {
        data: DataId(0),
        index: 0,
    };
    Builtins {
        bool_: DataId(0),
        false_: c,
        true_: c,
        unit: DataId(0),
        unit_con: c,
        pair: DataId(0),
        mk_pair: c,
        list: DataId(0),
        nil: c,
        cons: c,
        maybe: DataId(0),
        nothing: c,
        just: c,
    }
}

/// The core term for a global reference.
pub(super) fn global_term(g: Global, span: Span) -> RcTerm {
    match g {
        Global::Def(id) => Term::Def(id),
        Global::Data(id) => Term::Data(id),
        Global::Con(id) => Term::Con(id),
        Global::Extern(id) => Term::Extern(id),
        Global::PrimType(t) => Term::PrimType(t),
        Global::Prim(p) => Term::Prim(p, span),
    }
    .rc()
}

/// `match cond with | True -> then_ | False -> else_`.
fn bool_match(b: Builtins, cond: RcTerm, then_: RcTerm, else_: RcTerm, span: Span) -> RcTerm {
    let arm = |con, body| CaseArm {
        pat: CasePat::Con(con, Vec::new()),
        body,
    };
    Term::Match(Box::new(Match {
        scrut: cond,
        arms: vec![arm(b.true_, then_), arm(b.false_, else_)],
        default: None,
        span,
    }))
    .rc()
}

/// The primitive an arithmetic or comparison operator means.
fn prim_of(op: BinOp) -> Prim {
    match op {
        BinOp::Eq => Prim::Eq,
        BinOp::Ne => Prim::Ne,
        BinOp::Lt => Prim::Lt,
        BinOp::Le => Prim::Le,
        BinOp::Gt => Prim::Gt,
        BinOp::Ge => Prim::Ge,
        BinOp::Concat => Prim::Concat,
        BinOp::Add => Prim::Add,
        BinOp::Sub => Prim::Sub,
        BinOp::Mul => Prim::Mul,
        BinOp::Div => Prim::Div,
        BinOp::Rem => Prim::Rem,
        // `&&` and `||` are lazy and become matches; they never reach here.
        BinOp::And | BinOp::Or => Prim::Eq,
    }
}

/// A binder name for the core term.
pub(super) fn name_of(s: &str) -> Name {
    Rc::from(s)
}
