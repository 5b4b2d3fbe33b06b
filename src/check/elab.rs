//! Elaboration: surface AST to fully annotated core terms, type checking on the way.
//!
//! One pass (DESIGN.md section 3): names become de Bruijn indices or references into the
//! program's tables (see [`super::scope`]); every expression is checked against
//! an expected type (`Elab::check`) or has its type inferred (`Elab::infer`);
//! implicit arguments are inserted as metavariables ([`meta`](super::meta)) and solved
//! by unification (`check::unify`); operators are resolved by the type of
//! their operands; sugar (`if`, `&&`, tuples, lists, `()`) becomes matches and
//! constructor applications; nested patterns are compiled to one-level matches with
//! dependent refinement of the goal (`check::patterns`). Types are compared
//! after evaluation by the stack machine, through [`TypeEval`].
//!
//! Errors are collected, not thrown: after a mismatch elaboration goes on, so one run
//! reports every independent error. The output program has no metavariables left; any
//! unknown that could not be solved is an error naming what it stood for.
//!
//! Declarations are elaborated in phases so that every top-level name can be used
//! anywhere: data types (parameters and fields), externals, the types of all
//! definitions, then the bodies (type-level definitions first, since types unfold them).

use super::eval::{CtxEntry, TypeEval};
use super::meta::Metas;
use super::scope::{self, Global, UnitScope};
use crate::core::pretty;
use crate::core::program::{Builtins, CtorDecl, DataDecl, DefDecl, ExternDecl, Program};
use crate::core::subst::{has_free_var, instantiate, rewrite, shift, subst_top};
use crate::core::term::{
    Binder, CaseArm, CasePat, ConId, DataId, DefId, ExternId, HoleKind, Ix, Lit, Lvl, Match, Name,
    Plicity, PrimType, RcTerm, Term,
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

/// Index of the prelude among the units passed to [`elaborate_program`].
pub const PRELUDE_UNIT: usize = 0;

/// Stack growth parameters: grow when less than `RED_ZONE` bytes remain.
pub(crate) const RED_ZONE: usize = 64 * 1024;
/// How much native stack to add each time it runs low.
pub(crate) const STACK_CHUNK: usize = 2 * 1024 * 1024;

/// Elaborates a whole program. `units[0]` must be the prelude; `entry` is the unit whose
/// `main` becomes [`Program::main`]. Returns the program and every diagnostic (errors
/// and warnings); the program is meaningful only if there are no errors.
pub fn elaborate_program(
    units: &[SourceUnit<'_>],
    entry: usize,
    eval: &mut dyn TypeEval,
) -> (Program, Vec<Diagnostic>) {
    let mut e = Elab::declare(units, eval);
    e.elaborate_declarations(units);
    e.program.main = e.scopes[entry].get("main").and_then(|(g, _)| match g {
        Global::Def(id) => Some(id),
        _ => None,
    });
    let mut errors = std::mem::take(&mut e.errors);
    dedup(&mut errors);
    // In source order (declarations are checked in phases, not in file order).
    errors.sort_by_key(|d| d.primary_span().map(|s| (s.file, s.start)));
    (e.program, errors)
}

/// Pattern compilation may elaborate an arm body more than once; report each problem
/// once.
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

/// The local context while elaborating: the variables in scope with their types (and
/// values, for `let`), and the names the source can use for them. A pattern variable
/// names an existing variable, so names and variables are kept apart.
pub(super) struct Cx<'s> {
    pub(super) unit: usize,
    pub(super) names: Vec<(&'s str, Lvl)>,
    pub(super) entries: Vec<CtxEntry>,
}

impl<'s> Cx<'s> {
    fn new(unit: usize) -> Cx<'s> {
        Cx {
            unit,
            names: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// How many variables are in scope.
    pub(super) fn depth(&self) -> u32 {
        self.entries.len() as u32
    }

    /// Enters a variable the source calls `name`, of type `ty` (in the current scope).
    pub(super) fn push(&mut self, name: &'s str, ty: RcTerm) {
        self.names.push((name, Lvl(self.depth())));
        self.push_hidden(name_of(name), ty);
    }

    /// Enters a variable no source name refers to (a pattern's field, an inserted
    /// implicit parameter, a bound scrutinee).
    pub(super) fn push_hidden(&mut self, name: Name, ty: RcTerm) {
        self.entries.push(CtxEntry {
            name,
            ty,
            value: None,
        });
    }

    /// Leaves the innermost variable (and its name, if it has one).
    pub(super) fn pop(&mut self) {
        let lvl = Lvl(self.depth() - 1);
        if self.names.last().is_some_and(|(_, l)| *l == lvl) {
            self.names.pop();
        }
        self.entries.pop();
    }

    /// The index of the variable at `lvl`, seen from here.
    pub(super) fn var(&self, lvl: Lvl) -> RcTerm {
        Term::Var(lvl.to_ix(self.depth())).rc()
    }

    /// The type of the variable at `lvl`, in the current scope.
    pub(super) fn type_of(&self, lvl: Lvl) -> RcTerm {
        shift(&self.entries[lvl.0 as usize].ty, self.depth() - lvl.0)
    }

    /// The variable a local name denotes, if it is a local.
    pub(super) fn lookup(&self, name: &str) -> Option<Lvl> {
        self.names
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, l)| *l)
    }

    /// Display names of the variables in scope, outermost first (for printing types).
    pub(super) fn display_names(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.name.to_string()).collect()
    }
}

/// The elaborator's state.
pub(super) struct Elab<'e> {
    pub(super) program: Program,
    pub(super) scopes: Vec<UnitScope>,
    pub(super) imports: Vec<Vec<(usize, Span)>>,
    pub(super) errors: Vec<Diagnostic>,
    pub(super) metas: Metas,
    pub(super) eval: &'e mut dyn TypeEval,
    /// Operand types that must turn out to be numbers (or strings, lists), checked once
    /// everything else is known.
    deferred: Vec<Deferred>,
    /// Places where type-level evaluation failed (already reported): a type mismatch
    /// there would only repeat it.
    eval_failures: Vec<Span>,
    /// What the `match` being compiled knows about each occurrence on the current
    /// path, for naming an uncovered case (see `patterns`).
    pub(super) coverage: super::patterns::Coverage,
}

/// A constraint on an operator's operand type that could not be checked when the
/// operator was met, because the type was still unknown.
struct Deferred {
    ty: RcTerm,
    ctx: Vec<CtxEntry>,
    allowed: Allowed,
    op: BinOp,
    span: Span,
}

/// Which operand types an operator accepts.
#[derive(Clone, Copy, PartialEq)]
enum Allowed {
    /// `Int` or `Float`: arithmetic.
    Numbers,
    /// `Int`, `Float` or `String`: ordering.
    Ordered,
    /// `String` or any `List`: `++`.
    Concatenable,
}

impl Allowed {
    fn accepts(self, t: &Term, list: DataId) -> bool {
        match (self, t) {
            (_, Term::PrimType(PrimType::Int | PrimType::Float)) => self != Allowed::Concatenable,
            (Allowed::Ordered | Allowed::Concatenable, Term::PrimType(PrimType::String)) => true,
            (Allowed::Concatenable, t) => data_args(t, list).is_some(),
            _ => false,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Allowed::Numbers => "two Ints or two Floats",
            Allowed::Ordered => "two Ints, two Floats or two Strings",
            Allowed::Concatenable => "two Strings or two Lists",
        }
    }
}

impl<'e> Elab<'e> {
    /// Gives every declaration of every unit its id and enters its name in its unit's
    /// scope, so that any declaration can refer to any other.
    fn declare(units: &[SourceUnit<'_>], eval: &'e mut dyn TypeEval) -> Elab<'e> {
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
        let mut e = Elab {
            program,
            scopes,
            imports,
            errors,
            metas: Metas::default(),
            eval,
            deferred: Vec::new(),
            eval_failures: Vec::new(),
            coverage: Default::default(),
        };
        if !units.is_empty() {
            e.program.builtins = e.find_builtins();
        }
        e
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

    /// Elaborates every declaration, phase by phase (see the module documentation).
    fn elaborate_declarations(&mut self, units: &[SourceUnit<'_>]) {
        // Declarations in table order, with the unit each comes from.
        let mut defs = Vec::new();
        let mut datas = Vec::new();
        let mut externs = Vec::new();
        for (u, unit) in units.iter().enumerate() {
            for module in &unit.modules {
                for decl in module.decls {
                    match decl {
                        Decl::Def { .. } => defs.push((u, decl)),
                        Decl::Data { .. } => datas.push((u, decl)),
                        Decl::Extern { .. } => externs.push((u, decl)),
                        Decl::Import { span, .. } => {
                            if u == PRELUDE_UNIT {
                                self.errors.push(
                                    Diagnostic::error("the prelude cannot import files")
                                        .at(*span, ""),
                                );
                            }
                        }
                    }
                }
            }
        }
        for (i, (u, decl)) in datas.iter().enumerate() {
            if let Decl::Data { params, ctors, .. } = decl {
                self.data_decl(*u, DataId(i as u32), params, ctors);
            }
        }
        for (i, (u, decl)) in externs.iter().enumerate() {
            if let Decl::Extern { ty, .. } = decl {
                let (t, _) = self.check_type(&mut Cx::new(*u), ty);
                self.check_host_type(i, &t, ty.span);
                self.program.externs[i].ty = t;
            }
        }
        for (i, (u, decl)) in defs.iter().enumerate() {
            if let Decl::Def {
                params, ret, body, ..
            } = decl
            {
                let ty = self.signature(*u, params, *ret, body.span);
                self.program.defs[i].ty = ty;
            }
        }
        // Bodies: definitions whose result is a type first, since types unfold them.
        let mut order: Vec<usize> = (0..defs.len()).collect();
        order.sort_by_key(|i| !ends_in_universe(&self.program.defs[*i].ty));
        for i in order {
            if let (u, Decl::Def { params, body, .. }) = defs[i] {
                let value = self.def_body(u, DefId(i as u32), params, body);
                self.program.defs[i].body = value;
            }
        }
        self.zonk_program();
    }

    /// An `extern` must be declared at the type the host gives the external (the host
    /// calls it with exactly those arguments).
    fn check_host_type(&mut self, i: usize, declared: &RcTerm, at: Span) {
        let name = self.program.externs[i].name.clone();
        let Some(host) = external::host_type(&name) else {
            return; // An unknown external, already reported.
        };
        let arena = bumpalo::Bump::new();
        let Ok(expr) = crate::syntax::parser::parse_expr(&arena, at.file, host) else {
            return;
        };
        let mut cx = Cx::new(PRELUDE_UNIT);
        let errors_before = self.errors.len();
        let (host_ty, _) = self.check_type(&mut cx, expr);
        self.errors.truncate(errors_before);
        if !self.unify(&mut cx, declared, &host_ty, at) {
            let shown = self.show(&cx, declared);
            let name_span = self.program.externs[i].span;
            self.errors.push(
                Diagnostic::error(format!(
                    "the host provides `{name}` with type `{host}`, not `{shown}`"
                ))
                .at(name_span, "declared here")
                .also(at, "with this type")
                .note(format!("expected: {host}"))
                .note(format!("   found: {shown}")),
            );
        }
    }

    /// A data declaration: its parameters and each constructor's field types.
    fn data_decl<'s>(
        &mut self,
        unit: usize,
        id: DataId,
        params: &'s [Param<'s>],
        ctors: &'s [crate::syntax::ast::CtorDecl<'s>],
    ) {
        let mut cx = Cx::new(unit);
        let binders = self.telescope(&mut cx, params, "parameter");
        self.program.datas[id.0 as usize].params = binders;
        for (c, ctor) in ctors.iter().enumerate() {
            let mut fields = Vec::new();
            for field in ctor.fields {
                let (t, _) = self.check_type(&mut cx, field);
                cx.push_hidden(name_of("_"), t.clone());
                fields.push(t);
            }
            for _ in ctor.fields {
                cx.pop();
            }
            self.program.datas[id.0 as usize].ctors[c].fields = fields;
        }
    }

    /// The type of a `def`: its parameters as a `Pi` telescope around the result type
    /// (unknowns where the source wrote no type).
    fn signature<'s>(
        &mut self,
        unit: usize,
        params: &'s [Param<'s>],
        ret: Option<&'s Expr<'s>>,
        at: Span,
    ) -> RcTerm {
        let mut cx = Cx::new(unit);
        let binders = self.telescope(&mut cx, params, "parameter");
        let ret_ty = match ret {
            Some(t) => self.check_type(&mut cx, t).0,
            None => self.fresh(&cx, at.first_point(), "the result type"),
        };
        binders
            .into_iter()
            .rev()
            .fold(ret_ty, |cod, b| Term::Pi(b, cod).rc())
    }

    /// Checks a definition's body against its signature; returns the value (the body
    /// wrapped in the parameters' lambdas).
    fn def_body<'s>(
        &mut self,
        unit: usize,
        id: DefId,
        params: &'s [Param<'s>],
        body: &'s Expr<'s>,
    ) -> RcTerm {
        let mut cx = Cx::new(unit);
        let mut ty = self.program.def(id).ty.clone();
        let mut binders = Vec::new();
        for p in params {
            let Term::Pi(b, cod) = &*ty else { break };
            let b = b.clone();
            cx.push(p.name.name, b.ty.clone());
            ty = cod.clone();
            binders.push(b);
        }
        let value = self.check(&mut cx, body, &ty);
        binders
            .into_iter()
            .rev()
            .fold(value, |body, b| Term::Lam(b, body).rc())
    }

    /// Checks the operand types that were unknown when their operators were met.
    fn check_deferred(&mut self) {
        let list = self.program.builtins.list;
        for d in std::mem::take(&mut self.deferred) {
            let cx = Cx {
                unit: PRELUDE_UNIT,
                names: Vec::new(),
                entries: d.ctx,
            };
            let ty = self.whnf(&cx, &d.ty, d.span);
            if self.is_unsolved_meta(&ty) || d.allowed.accepts(&ty, list) {
                continue;
            }
            let shown = self.show(&cx, &ty);
            self.errors.push(
                Diagnostic::error(format!(
                    "`{}` works on {}",
                    d.op.symbol(),
                    d.allowed.describe()
                ))
                .at(d.span, format!("its operands have type `{shown}`"))
                .note(format!("found: {shown}")),
            );
        }
    }

    /// Substitutes every solution into the program and reports every unknown left.
    fn zonk_program(&mut self) {
        self.check_deferred();
        let unit = Term::Data(self.program.builtins.unit).rc();
        let open: Vec<u32> = self
            .metas
            .all()
            .filter(|(_, m)| m.defaultable && m.solution.is_none())
            .map(|(id, _)| id)
            .collect();
        for id in open {
            self.metas.solve(id, unit.clone());
        }
        let mut unsolved = Vec::new();
        let mut fix = |metas: &Metas, t: &mut RcTerm| {
            *t = metas.zonk(t);
            collect_metas(t, &mut unsolved);
        };
        for d in &mut self.program.defs {
            fix(&self.metas, &mut d.ty);
            fix(&self.metas, &mut d.body);
        }
        for d in &mut self.program.datas {
            for b in &mut d.params {
                fix(&self.metas, &mut b.ty);
            }
            for c in &mut d.ctors {
                for f in &mut c.fields {
                    fix(&self.metas, f);
                }
            }
        }
        for e in &mut self.program.externs {
            fix(&self.metas, &mut e.ty);
        }
        unsolved.sort_unstable();
        unsolved.dedup();
        for id in unsolved {
            let info = self.metas.get(id);
            self.errors.push(
                Diagnostic::error(format!("cannot infer {}", info.what))
                    .at(info.span, "add a type annotation here"),
            );
        }
    }

    /// Elaborates binders left to right, each annotation a type in the scope of the
    /// earlier binders, and leaves them all in `cx`.
    fn telescope<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        params: &'s [Param<'s>],
        what: &str,
    ) -> Vec<Binder> {
        let mut binders = Vec::with_capacity(params.len());
        for p in params {
            let ty = match p.ty {
                Some(t) => self.check_type(cx, t).0,
                None => self.fresh(
                    cx,
                    p.name.span,
                    format!("the type of the {what} `{}`", p.name.name),
                ),
            };
            cx.push(p.name.name, ty.clone());
            binders.push(Binder {
                name: name_of(p.name.name),
                plicity: p.plicity,
                ty,
            });
        }
        binders
    }

    /// A fresh unknown in `cx`.
    pub(super) fn fresh(&mut self, cx: &Cx<'_>, span: Span, what: impl Into<String>) -> RcTerm {
        self.metas.fresh(cx.depth(), span, what)
    }

    /// The type given to an expression after an error was reported about it: an
    /// unknown that agrees with anything and is never reported itself, so one mistake
    /// gives one error.
    pub(super) fn recovery_type(&mut self, cx: &Cx<'_>, span: Span) -> RcTerm {
        let t = self.fresh(cx, span, "a type after an error");
        self.metas.mark_defaultable(&t);
        t
    }

    /// Checks that `e` is a type; returns it and its universe level.
    pub(super) fn check_type<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> (RcTerm, u32) {
        let (t, ty) = self.infer(cx, e);
        let ty = self.whnf(cx, &ty, e.span);
        match &*ty {
            Term::Universe(n) => (t, *n),
            _ if self.is_unsolved_meta(&ty) => {
                let universe = Term::Universe(0).rc();
                self.expect(cx, e.span, &ty, &universe);
                (t, 0)
            }
            _ => {
                let shown = self.show(cx, &ty);
                self.errors.push(
                    Diagnostic::error("expected a type")
                        .at(e.span, format!("this is a value of type `{shown}`"))
                        .note(format!("found: {shown}")),
                );
                (t, 0)
            }
        }
    }

    /// Checks `e` against the type `ty` (in `cx`); returns the elaborated term.
    pub(super) fn check<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>, ty: &RcTerm) -> RcTerm {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.check_inner(cx, e, ty))
    }

    fn check_inner<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>, ty: &RcTerm) -> RcTerm {
        match &e.kind {
            ExprKind::Lam { params, body } => return self.check_lam(cx, params, body, ty, e.span),
            ExprKind::Let {
                name,
                params,
                ret,
                rhs,
                body,
            } => {
                return self
                    .let_expr(cx, *name, params, *ret, rhs, body, Some(ty))
                    .0;
            }
            ExprKind::If {
                cond: c,
                then_,
                else_,
            } => {
                let b = self.program.builtins;
                let bool_ty = Term::Data(b.bool_).rc();
                let cond = self.check(cx, c, &bool_ty);
                // `if` is a match on `Bool`: on a variable it refines the goal the same
                // way (`if b then 42 else "x"` against `Pick b`).
                let (then_ty, else_ty) = match (&c.kind, &*cond) {
                    (ExprKind::Var(_), Term::Var(ix)) => (
                        refine(ty, *ix, &Term::Con(b.true_).rc()),
                        refine(ty, *ix, &Term::Con(b.false_).rc()),
                    ),
                    _ => (ty.clone(), ty.clone()),
                };
                let then_ = self.check(cx, then_, &then_ty);
                let else_ = self.check(cx, else_, &else_ty);
                return bool_match(b, cond, then_, else_, e.span);
            }
            ExprKind::Match { scrut, arms } => {
                return self.match_expr(cx, scrut, arms, e.span, Some(ty)).0;
            }
            ExprKind::Hole => return self.fresh(cx, e.span, "this `_`"),
            ExprKind::TypedHole(name) => {
                self.report_goal(cx, *name, ty, e.span);
                return Term::Hole(HoleKind::Goal(name.map(name_of)), e.span).rc();
            }
            ExprKind::Tuple(items) => {
                if let Some(t) = self.check_tuple(cx, items, ty) {
                    return t;
                }
            }
            ExprKind::List(items) => {
                let b = self.program.builtins;
                let want = self.whnf(cx, ty, e.span);
                if let Some([elem]) = data_args(&want, b.list).as_deref() {
                    let elem = elem.clone();
                    let items: Vec<RcTerm> =
                        items.iter().map(|i| self.check(cx, i, &elem)).collect();
                    return list_term(b, &elem, items);
                }
            }
            _ => {}
        }
        let (t, inferred) = self.infer(cx, e);
        let want = self.whnf(cx, ty, e.span);
        let (t, inferred) = if matches!(&*want, Term::Pi(b, _) if b.plicity == Plicity::Implicit) {
            (t, inferred)
        } else {
            self.insert_implicits(cx, t, inferred, e.span)
        };
        self.expect_subtype(cx, e.span, &inferred, ty);
        t
    }

    /// Checks a tuple against a pair type, component by component (this is where a
    /// dependent type such as `Vec (S n) a` gets unfolded to the pair it stands for).
    fn check_tuple<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        items: &'s [Expr<'s>],
        ty: &RcTerm,
    ) -> Option<RcTerm> {
        let b = self.program.builtins;
        let (first, rest) = items.split_first()?;
        let want = self.whnf(cx, ty, first.span);
        let args = data_args(&want, b.pair)?;
        let [a, bt] = args.as_slice() else {
            return None;
        };
        let (a, bt) = (a.clone(), bt.clone());
        let x = self.check(cx, first, &a);
        let y = if rest.len() == 1 {
            self.check(cx, &rest[0], &bt)
        } else {
            match self.check_tuple(cx, rest, &bt) {
                Some(t) => t,
                None => {
                    let (t, inferred) = self.infer_tuple(cx, rest);
                    self.expect(cx, rest[0].span, &inferred, &bt);
                    t
                }
            }
        };
        Some(pair_term(b, &a, &bt, x, y))
    }

    /// Checks `\params -> body` against `ty`, taking the parameters' types from it and
    /// inserting implicit lambdas where `ty` expects implicit parameters the source
    /// does not bind.
    fn check_lam<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        params: &'s [Param<'s>],
        body: &'s Expr<'s>,
        ty: &RcTerm,
        span: Span,
    ) -> RcTerm {
        let Some((p, rest)) = params.split_first() else {
            return self.check(cx, body, ty);
        };
        let want = self.whnf(cx, ty, p.span);
        if let Term::Pi(b, cod) = &*want {
            if b.plicity == p.plicity {
                if let Some(ann) = p.ty {
                    let (ann, _) = self.check_type(cx, ann);
                    self.expect(cx, p.span, &ann, &b.ty);
                }
                cx.push(p.name.name, b.ty.clone());
                let body = self.check_lam(cx, rest, body, cod, span);
                cx.pop();
                let binder = Binder {
                    name: name_of(p.name.name),
                    plicity: p.plicity,
                    ty: b.ty.clone(),
                };
                return Term::Lam(binder, body).rc();
            }
            if b.plicity == Plicity::Implicit {
                cx.push_hidden(b.name.clone(), b.ty.clone());
                let body = self.check_lam(cx, params, body, cod, span);
                cx.pop();
                return Term::Lam(b.clone(), body).rc();
            }
            self.errors.push(
                Diagnostic::error("this parameter should be explicit")
                    .at(p.span, "the expected type has an explicit parameter here"),
            );
        }
        let (t, inferred) = self.infer_lam(cx, params, body);
        self.expect_subtype(cx, span, &inferred, ty);
        t
    }

    /// Infers the type of `\params -> body`.
    fn infer_lam<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        params: &'s [Param<'s>],
        body: &'s Expr<'s>,
    ) -> (RcTerm, RcTerm) {
        let binders = self.telescope(cx, params, "parameter");
        let (body, body_ty) = self.infer_value(cx, body);
        for _ in params {
            cx.pop();
        }
        let ty = binders
            .iter()
            .rev()
            .fold(body_ty, |cod, b| Term::Pi(b.clone(), cod).rc());
        let term = binders
            .into_iter()
            .rev()
            .fold(body, |body, b| Term::Lam(b, body).rc());
        (term, ty)
    }

    /// Infers `e` and inserts its leading implicit arguments: the form for a value used
    /// as it is (an operand, a component, a list element).
    pub(super) fn infer_value<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> (RcTerm, RcTerm) {
        let (t, ty) = self.infer(cx, e);
        self.insert_implicits(cx, t, ty, e.span)
    }

    /// Applies `t : ty` to fresh unknowns for as long as `ty` expects implicit arguments.
    pub(super) fn insert_implicits(
        &mut self,
        cx: &Cx<'_>,
        mut t: RcTerm,
        mut ty: RcTerm,
        span: Span,
    ) -> (RcTerm, RcTerm) {
        loop {
            let want = self.whnf(cx, &ty, span);
            let Term::Pi(b, cod) = &*want else {
                return (t, ty);
            };
            if b.plicity != Plicity::Implicit {
                return (t, ty);
            }
            let arg = self.fresh(cx, span, format!("the implicit argument `{}`", b.name));
            if matches!(&*b.ty, Term::Universe(_)) {
                self.metas.mark_defaultable(&arg);
            }
            t = Term::App(t, Plicity::Implicit, arg.clone()).rc();
            ty = subst_top(cod, &arg);
        }
    }

    /// Infers the type of `e`; returns the elaborated term and its type.
    pub(super) fn infer<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> (RcTerm, RcTerm) {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || self.infer_inner(cx, e))
    }

    fn infer_inner<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> (RcTerm, RcTerm) {
        let b = self.program.builtins;
        let prim = |t: PrimType| Term::PrimType(t).rc();
        match &e.kind {
            ExprKind::Var(name) => self.infer_name(cx, name, e.span),
            ExprKind::Int(n) => (Term::Lit(Lit::Int(*n)).rc(), prim(PrimType::Int)),
            ExprKind::Float(x) => (Term::Lit(Lit::Float(*x)).rc(), prim(PrimType::Float)),
            ExprKind::Str(s) => (
                Term::Lit(Lit::Str(Rc::from(*s))).rc(),
                prim(PrimType::String),
            ),
            ExprKind::Universe(n) => (Term::Universe(*n).rc(), Term::Universe(n + 1).rc()),
            ExprKind::Hole => {
                let ty = self.fresh(cx, e.span, "the type of this `_`");
                (self.fresh(cx, e.span, "this `_`"), ty)
            }
            ExprKind::TypedHole(name) => {
                // The hole is reported here; its type, if nothing else fixes it, is no
                // second error.
                let ty = self.fresh(cx, e.span, "the type of this hole");
                self.metas.mark_defaultable(&ty);
                self.report_goal(cx, *name, &ty, e.span);
                (
                    Term::Hole(HoleKind::Goal(name.map(name_of)), e.span).rc(),
                    ty,
                )
            }
            ExprKind::Lam { params, body } => self.infer_lam(cx, params, body),
            ExprKind::Pi {
                name,
                plicity,
                dom,
                cod,
            } => {
                let (dom, i) = self.check_type(cx, dom);
                let bound = name.map(|n| n.name).unwrap_or("_");
                cx.push(bound, dom.clone());
                let (cod, j) = self.check_type(cx, cod);
                cx.pop();
                let binder = Binder {
                    name: name_of(bound),
                    plicity: *plicity,
                    ty: dom,
                };
                (Term::Pi(binder, cod).rc(), Term::Universe(i.max(j)).rc())
            }
            ExprKind::Let {
                name,
                params,
                ret,
                rhs,
                body,
            } => self.let_expr(cx, *name, params, *ret, rhs, body, None),
            ExprKind::If { cond, then_, else_ } => {
                let bool_ty = Term::Data(b.bool_).rc();
                let cond = self.check(cx, cond, &bool_ty);
                let (then_, ty) = self.infer_value(cx, then_);
                let else_ = self.check(cx, else_, &ty);
                (bool_match(b, cond, then_, else_, e.span), ty)
            }
            ExprKind::Match { scrut, arms } => self.match_expr(cx, scrut, arms, e.span, None),
            ExprKind::Binary { .. } => self.binary_chain(cx, e),
            ExprKind::App { .. } => self.infer_app(cx, e),
            ExprKind::Ann { expr, ty } => {
                let (ty, _) = self.check_type(cx, ty);
                let t = self.check(cx, expr, &ty);
                (t, ty)
            }
            ExprKind::Unit => (Term::Con(b.unit_con).rc(), Term::Data(b.unit).rc()),
            ExprKind::Tuple(items) => self.infer_tuple(cx, items),
            ExprKind::List(items) => {
                let elem = match items.first() {
                    Some(first) => self.infer_value(cx, first).1,
                    None => self.fresh(cx, e.span, "the type of the list's elements"),
                };
                let terms: Vec<RcTerm> = items.iter().map(|i| self.check(cx, i, &elem)).collect();
                let ty = Term::App(Term::Data(b.list).rc(), Plicity::Explicit, elem.clone()).rc();
                (list_term(b, &elem, terms), ty)
            }
        }
    }

    /// Infers `(a, b, c)` as `(a, (b, c))`.
    fn infer_tuple<'s>(&mut self, cx: &mut Cx<'s>, items: &'s [Expr<'s>]) -> (RcTerm, RcTerm) {
        let b = self.program.builtins;
        let mut parts: Vec<(RcTerm, RcTerm)> =
            items.iter().map(|i| self.infer_value(cx, i)).collect();
        let Some(mut acc) = parts.pop() else {
            return (Term::Con(b.unit_con).rc(), Term::Data(b.unit).rc());
        };
        while let Some((x, xt)) = parts.pop() {
            let ty = Term::apps(Term::Data(b.pair).rc(), [xt.clone(), acc.1.clone()]);
            acc = (pair_term(b, &xt, &acc.1, x, acc.0), ty);
        }
        acc
    }

    /// Infers an application spine `f a {b} c`, walking it in a loop.
    fn infer_app<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> (RcTerm, RcTerm) {
        let mut args = Vec::new();
        let mut head = e;
        while let ExprKind::App { fun, arg, plicity } = &head.kind {
            args.push((*plicity, *arg));
            head = fun;
        }
        let (mut f, mut fty) = self.infer(cx, head);
        let mut fun_span = head.span;
        for (plicity, arg) in args.into_iter().rev() {
            if plicity == Plicity::Explicit {
                (f, fty) = self.insert_implicits(cx, f, fty, fun_span);
            }
            let want = self.whnf(cx, &fty, fun_span);
            let (dom, cod) = match &*want {
                Term::Pi(b, cod) if b.plicity == plicity => (b.ty.clone(), cod.clone()),
                _ if self.is_unsolved_meta(&want) => {
                    let dom = self.fresh(cx, arg.span, "the type of this argument");
                    cx.push_hidden(name_of("x"), dom.clone());
                    let cod = self.fresh(cx, arg.span, "the result type of this function");
                    cx.pop();
                    let pi = Term::Pi(
                        Binder {
                            name: name_of("x"),
                            plicity,
                            ty: dom.clone(),
                        },
                        cod.clone(),
                    )
                    .rc();
                    self.expect(cx, fun_span, &want, &pi);
                    (dom, cod)
                }
                _ => {
                    let shown = self.show(cx, &fty);
                    let msg = match (&*want, plicity) {
                        (Term::Pi(..), Plicity::Implicit) => {
                            "this function takes no implicit argument here".to_string()
                        }
                        _ => "this is not a function, so it cannot be applied".to_string(),
                    };
                    self.errors.push(
                        Diagnostic::error(msg)
                            .at(fun_span, format!("it has type `{shown}`"))
                            .also(arg.span, "applied to this")
                            .note(format!("found: {shown}")),
                    );
                    let (a, _) = self.infer(cx, arg);
                    let unknown = self.recovery_type(cx, arg.span);
                    return (Term::App(f, plicity, a).rc(), unknown);
                }
            };
            let a = self.check(cx, arg, &dom);
            fty = subst_top(&cod, &a);
            f = Term::App(f, plicity, a).rc();
            fun_span = fun_span.to(arg.span);
        }
        (f, fty)
    }

    /// A name in expression position: a local, else a global, else an error.
    fn infer_name(&mut self, cx: &mut Cx<'_>, name: &str, span: Span) -> (RcTerm, RcTerm) {
        if let Some(lvl) = cx.lookup(name) {
            return (cx.var(lvl), cx.type_of(lvl));
        }
        match self.global(cx, name, span) {
            Some(g) => self.global_typed(cx, g, span),
            None => {
                let ty = self.fresh(cx, span, format!("the type of `{name}`"));
                (self.fresh(cx, span, format!("`{name}`")), ty)
            }
        }
    }

    /// A global reference and its type.
    fn global_typed(&mut self, cx: &Cx<'_>, g: Global, span: Span) -> (RcTerm, RcTerm) {
        let term = global_term(g, span);
        let ty = match g {
            Global::Def(id) => self.program.def(id).ty.clone(),
            Global::Data(id) => self.program.data_type(id),
            Global::Con(id) => self.program.con_type(id),
            Global::Extern(id) => self.program.external(id).ty.clone(),
            Global::PrimType(_) => Term::Universe(0).rc(),
            Global::Prim(p) => {
                let mut fresh = || {
                    let t =
                        self.metas
                            .fresh(cx.depth(), span, "the type of this primitive's operands");
                    self.metas.mark_defaultable(&t);
                    t
                };
                super::prim_types::prim_type(p, &self.program.builtins, &mut fresh)
            }
        };
        (term, ty)
    }

    /// `let name params : ret = rhs in body`, checked against `goal` or inferred.
    #[allow(clippy::too_many_arguments)]
    fn let_expr<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        name: crate::syntax::ast::Ident<'s>,
        params: &'s [Param<'s>],
        ret: Option<&'s Expr<'s>>,
        rhs: &'s Expr<'s>,
        body: &'s Expr<'s>,
        goal: Option<&RcTerm>,
    ) -> (RcTerm, RcTerm) {
        let ty = if params.is_empty() && ret.is_none() {
            None
        } else {
            let binders = self.telescope(cx, params, "parameter");
            let ret_ty = match ret {
                Some(t) => self.check_type(cx, t).0,
                None => self.fresh(
                    cx,
                    rhs.span.first_point(),
                    format!("the result type of `{}`", name.name),
                ),
            };
            for _ in params {
                cx.pop();
            }
            Some(
                binders
                    .into_iter()
                    .rev()
                    .fold(ret_ty, |cod, b| Term::Pi(b, cod).rc()),
            )
        };
        // Without an annotation the right-hand side's type is inferred first (so a
        // polymorphic right-hand side keeps its implicit parameters); a recursive use
        // inside it then needs the annotation.
        let (ty, value) = match ty {
            Some(ty) => {
                cx.push(name.name, ty.clone());
                let value = self.check_lam(cx, params, rhs, &shift(&ty, 1), rhs.span);
                (ty, value)
            }
            None => {
                let ty = self.fresh(cx, name.span, format!("the type of `{}`", name.name));
                cx.push(name.name, ty.clone());
                let (value, inferred) = self.infer(cx, rhs);
                self.expect(cx, rhs.span, &inferred, &shift(&ty, 1));
                (ty, value)
            }
        };
        let lvl = (cx.depth() - 1) as usize;
        cx.entries[lvl].value = Some(value.clone());
        let (body, body_ty) = match goal {
            Some(g) => {
                let g1 = shift(g, 1);
                (self.check(cx, body, &g1), g.clone())
            }
            None => {
                let (b, t) = self.infer_value(cx, body);
                let t = self.metas.zonk(&t);
                let t = if !has_free_var(&t, 0) {
                    instantiate(&t, &[Term::Universe(0).rc()])
                } else if !has_free_var(&value, 0) {
                    let v = instantiate(&value, &[Term::Universe(0).rc()]);
                    instantiate(&t, &[v])
                } else {
                    self.errors.push(
                        Diagnostic::error(format!(
                            "the type of this `let` depends on the recursive `{}`",
                            name.name
                        ))
                        .at(body.span, "annotate the whole `let` expression"),
                    );
                    instantiate(&t, &[Term::Universe(0).rc()])
                };
                (b, t)
            }
        };
        cx.pop();
        let binder = Binder {
            name: name_of(name.name),
            plicity: Plicity::Explicit,
            ty,
        };
        (Term::Let(binder, value, body).rc(), body_ty)
    }

    /// Reports a typed hole: the goal and the local variables with their types.
    fn report_goal(&mut self, cx: &Cx<'_>, name: Option<&str>, goal: &RcTerm, span: Span) {
        let shown = self.show(cx, goal);
        let label = match name {
            Some(n) => format!("hole `?{n}`"),
            None => "hole `?`".to_string(),
        };
        let mut d = Diagnostic::error(format!("{label} has type `{shown}`"))
            .at(span, format!("expected type: {shown}"));
        let mut seen: Vec<&str> = Vec::new();
        let mut locals = Vec::new();
        for (n, lvl) in cx.names.iter().rev() {
            if seen.contains(n) || *n == "_" {
                continue;
            }
            seen.push(n);
            let ty = self.show(cx, &cx.type_of(*lvl));
            locals.push(format!("  {n} : {ty}"));
        }
        if locals.is_empty() {
            d = d.note("no local variables are in scope");
        } else {
            locals.reverse();
            d = d.note(format!("local variables:\n{}", locals.join("\n")));
        }
        self.errors.push(d);
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
        if cx.unit != PRELUDE_UNIT
            && let Some((g, _)) = self.scopes[PRELUDE_UNIT].get(name)
        {
            return Some(g);
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

    /// Prints a type for a message, with the user's names for the variables in scope.
    pub(super) fn show(&self, cx: &Cx<'_>, t: &RcTerm) -> String {
        let t = self.metas.zonk(t);
        let names = cx.display_names();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        pretty::term_to_string(&self.program, &refs, &t)
    }

    /// The weak head normal form of `t` in `cx`, by the machine.
    pub(super) fn whnf(&mut self, cx: &Cx<'_>, t: &RcTerm, span: Span) -> RcTerm {
        let t = self.metas.force_head(t);
        // Already in weak head normal form by its shape: a type former, a value, a
        // variable without a value, an unknown (after `force_head`, an unsolved one).
        if is_whnf_already(&t)
            || is_neutral_variable(cx, &t)
            || super::meta::meta_spine(&t).is_some()
        {
            return t;
        }
        let t = self.metas.zonk(&t);
        match self.eval.whnf(&self.program, &cx.entries, &t) {
            Ok(r) => r,
            Err(e) => {
                let what = match e {
                    super::eval::TypeEvalError::StepLimit(n) => format!(
                        "type-level evaluation exceeded its limit of {n} steps (a computation in a type may not terminate)"
                    ),
                    super::eval::TypeEvalError::Failed(msg) => {
                        format!("type-level evaluation failed: {msg}")
                    }
                };
                self.errors
                    .push(Diagnostic::error(what).at(span, "while checking this"));
                self.eval_failures.push(span);
                t
            }
        }
    }

    /// Whether `t` is an unsolved metavariable application.
    pub(super) fn is_unsolved_meta(&self, t: &RcTerm) -> bool {
        super::meta::meta_spine(t).is_some_and(|(id, _)| self.metas.get(id).solution.is_none())
    }

    /// Requires `found` and `expected` to be equal, reporting a mismatch at `span`.
    pub(super) fn expect(
        &mut self,
        cx: &mut Cx<'_>,
        span: Span,
        found: &RcTerm,
        expected: &RcTerm,
    ) {
        if !self.unify(cx, found, expected, span) {
            self.mismatch(cx, span, found, expected);
        }
    }

    /// Requires a value of type `found` to be usable where `expected` is required
    /// (equal types, or a smaller universe: `Type : Type 1` and also `Type : Type 2`).
    pub(super) fn expect_subtype(
        &mut self,
        cx: &mut Cx<'_>,
        span: Span,
        found: &RcTerm,
        expected: &RcTerm,
    ) {
        let f = self.whnf(cx, found, span);
        let e = self.whnf(cx, expected, span);
        if let (Term::Universe(i), Term::Universe(j)) = (&*f, &*e) {
            if i > j {
                self.mismatch(cx, span, found, expected);
            }
            return;
        }
        // Unify the evaluated forms (no second trip to the machine); the message shows
        // the types as written.
        if !self.unify(cx, &f, &e, span) {
            self.mismatch(cx, span, found, expected);
        }
    }

    fn mismatch(&mut self, cx: &Cx<'_>, span: Span, found: &RcTerm, expected: &RcTerm) {
        if self.eval_failures.contains(&span) {
            return;
        }
        let f = self.show(cx, found);
        let e = self.show(cx, expected);
        self.errors.push(
            Diagnostic::error(format!("type mismatch: expected `{e}`, found `{f}`"))
                .at(span, format!("this has type `{f}`"))
                .note(format!("expected: {e}"))
                .note(format!("   found: {f}")),
        );
    }

    /// Elaborates a chain of binary operators without recursing along it (a long chain
    /// is deep on one side): the operands are collected in a loop, then combined.
    fn binary_chain<'s>(&mut self, cx: &mut Cx<'s>, e: &'s Expr<'s>) -> (RcTerm, RcTerm) {
        let mut left_steps = Vec::new();
        let mut leftmost = e;
        while let ExprKind::Binary {
            op,
            op_span,
            lhs,
            rhs,
        } = &leftmost.kind
        {
            if matches!(rhs.kind, ExprKind::Binary { .. }) && left_steps.is_empty() {
                break;
            }
            left_steps.push((*op, *op_span, *rhs));
            leftmost = lhs;
        }
        if !left_steps.is_empty() {
            let mut acc = self.infer_value(cx, leftmost);
            let mut span = leftmost.span;
            for (op, op_span, rhs) in left_steps.into_iter().rev() {
                acc = self.operator(cx, op, op_span, (acc, span), Operand::Expr(rhs));
                span = span.to(rhs.span);
            }
            return acc;
        }
        let mut right_steps = Vec::new();
        let mut rightmost = e;
        while let ExprKind::Binary {
            op,
            op_span,
            lhs,
            rhs,
        } = &rightmost.kind
        {
            right_steps.push((*lhs, *op, *op_span));
            rightmost = rhs;
        }
        // Right-nested: elaborate the left operands first (source order), then combine
        // from the right.
        let lefts: Vec<((RcTerm, RcTerm), Span, BinOp, Span)> = right_steps
            .into_iter()
            .map(|(lhs, op, op_span)| (self.infer_value(cx, lhs), lhs.span, op, op_span))
            .collect();
        let mut acc = self.infer_value(cx, rightmost);
        let mut acc_span = rightmost.span;
        for (lhs, lhs_span, op, op_span) in lefts.into_iter().rev() {
            acc = self.operator(
                cx,
                op,
                op_span,
                (lhs, lhs_span),
                Operand::Done(acc, acc_span),
            );
            acc_span = lhs_span.to(acc_span);
        }
        acc
    }

    /// Types one operator application, resolving the operator by its operands' type.
    fn operator<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        op: BinOp,
        op_span: Span,
        lhs: ((RcTerm, RcTerm), Span),
        rhs: Operand<'s>,
    ) -> (RcTerm, RcTerm) {
        let b = self.program.builtins;
        let bool_ty = Term::Data(b.bool_).rc();
        let ((l, lt), l_span) = lhs;
        match op {
            BinOp::And | BinOp::Or => {
                self.expect(cx, l_span, &lt, &bool_ty);
                let r = self.operand_against(cx, rhs, &bool_ty);
                let t = if op == BinOp::And {
                    bool_match(b, l, r, Term::Con(b.false_).rc(), op_span)
                } else {
                    bool_match(b, l, Term::Con(b.true_).rc(), r, op_span)
                };
                (t, bool_ty)
            }
            BinOp::Eq | BinOp::Ne => {
                let r = self.operand_against(cx, rhs, &lt);
                let p = if op == BinOp::Eq { Prim::Eq } else { Prim::Ne };
                (Term::apps(Term::Prim(p, op_span).rc(), [l, r]), bool_ty)
            }
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge => {
                let ordering = matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
                let allowed = if ordering {
                    Allowed::Ordered
                } else {
                    Allowed::Numbers
                };
                let (r, ty) =
                    self.same_operands(cx, op, op_span, (l.clone(), lt, l_span), rhs, allowed);
                let p = super::prim_types::arith_prim(op);
                let result = if ordering { bool_ty } else { ty };
                (Term::apps(Term::Prim(p, op_span).rc(), [l, r]), result)
            }
            BinOp::Concat => self.concat(cx, op_span, (l, lt, l_span), rhs),
        }
    }

    /// Checks the right operand against `ty`.
    fn operand_against<'s>(&mut self, cx: &mut Cx<'s>, rhs: Operand<'s>, ty: &RcTerm) -> RcTerm {
        match rhs {
            Operand::Expr(e) => self.check(cx, e, ty),
            Operand::Done((t, rt), span) => {
                self.expect(cx, span, &rt, ty);
                t
            }
        }
    }

    /// The right operand, inferred.
    fn operand_infer<'s>(&mut self, cx: &mut Cx<'s>, rhs: Operand<'s>) -> ((RcTerm, RcTerm), Span) {
        match rhs {
            Operand::Expr(e) => (self.infer_value(cx, e), e.span),
            Operand::Done(x, span) => (x, span),
        }
    }

    /// Makes both operands of `op` have one type that `allowed` accepts (now, or at the
    /// end if it is still unknown: the primitive itself works on any of them). Returns
    /// the right operand and the type.
    fn same_operands<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        op: BinOp,
        op_span: Span,
        lhs: (RcTerm, RcTerm, Span),
        rhs: Operand<'s>,
        allowed: Allowed,
    ) -> (RcTerm, RcTerm) {
        let list = self.program.builtins.list;
        let (_, lt, l_span) = lhs;
        let lw = self.whnf(cx, &lt, l_span);
        if allowed.accepts(&lw, list) {
            let r = self.operand_against(cx, rhs, &lw);
            return (r, lw);
        }
        if self.is_unsolved_meta(&lw) {
            let ((r, rt), r_span) = self.operand_infer(cx, rhs);
            let rw = self.whnf(cx, &rt, r_span);
            if allowed.accepts(&rw, list) {
                self.expect(cx, l_span, &lt, &rw);
                return (r, rw);
            }
            if self.is_unsolved_meta(&rw) {
                self.expect(cx, r_span, &rt, &lt);
                self.deferred.push(Deferred {
                    ty: lt.clone(),
                    ctx: cx.entries.clone(),
                    allowed,
                    op,
                    span: op_span,
                });
                return (r, lt);
            }
            let shown = self.show(cx, &rt);
            self.operand_error(op, op_span, allowed, r_span, shown);
            return (r, self.recovery_type(cx, op_span));
        }
        let shown = self.show(cx, &lt);
        self.operand_error(op, op_span, allowed, l_span, shown);
        let r = match rhs {
            Operand::Expr(e) => self.infer(cx, e).0,
            Operand::Done((t, _), _) => t,
        };
        (r, self.recovery_type(cx, op_span))
    }

    fn operand_error(
        &mut self,
        op: BinOp,
        op_span: Span,
        allowed: Allowed,
        at: Span,
        shown: String,
    ) {
        self.errors.push(
            Diagnostic::error(format!("`{}` works on {}", op.symbol(), allowed.describe()))
                .at(at, format!("this has type `{shown}`"))
                .also(op_span, "the operator")
                .note(format!("found: {shown}")),
        );
    }

    /// `++` on two `String`s or two lists: the `Concat` primitive, which handles both.
    fn concat<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        op_span: Span,
        lhs: (RcTerm, RcTerm, Span),
        rhs: Operand<'s>,
    ) -> (RcTerm, RcTerm) {
        let l = lhs.0.clone();
        let (r, ty) =
            self.same_operands(cx, BinOp::Concat, op_span, lhs, rhs, Allowed::Concatenable);
        (
            Term::apps(Term::Prim(Prim::Concat, op_span).rc(), [l, r]),
            ty,
        )
    }
}

/// A right operand: not yet elaborated, or already inferred (with its span).
pub(super) enum Operand<'s> {
    Expr(&'s Expr<'s>),
    Done((RcTerm, RcTerm), Span),
}

/// Whether `t` is a weak head normal form by its shape alone (no need to ask the
/// machine): a type former, a universe, a literal, a lambda.
fn is_whnf_already(t: &Term) -> bool {
    let mut head = t;
    while let Term::App(f, _, _) = head {
        head = f;
    }
    match head {
        Term::Pi(..) | Term::Universe(_) | Term::PrimType(_) | Term::Lit(_) => {
            std::ptr::eq(head, t)
        }
        Term::Data(_) | Term::Con(_) => true,
        Term::Lam(..) => std::ptr::eq(head, t),
        _ => false,
    }
}

/// The goal `t` refined by what a match arm learnt: the variable `ix` is `with`.
/// Occurrences among an unknown's arguments are left alone: `?r b` must stay an
/// unknown applied to variables to be solvable (its solution will mention `b`, which
/// the arm then sees refined when the goal is compared).
pub(super) fn refine(t: &RcTerm, ix: Ix, with: &RcTerm) -> RcTerm {
    rewrite(t, &mut |node, d| match &**node {
        Term::Var(Ix(i)) if *i == ix.0 + d => Some(shift(with, d)),
        Term::App(..) if super::meta::meta_spine(node).is_some() => Some(node.clone()),
        _ => None,
    })
}

/// Whether `t` is a variable without a value (an open binder), perhaps applied: a
/// neutral term, already in weak head normal form.
fn is_neutral_variable(cx: &Cx<'_>, t: &Term) -> bool {
    let mut head = t;
    while let Term::App(f, _, _) = head {
        head = f;
    }
    match head {
        Term::Var(Ix(i)) => {
            let depth = cx.depth();
            *i < depth && cx.entries[(depth - 1 - i) as usize].value.is_none()
        }
        _ => false,
    }
}

/// The arguments of `D args` if `t` is the data type `d` applied (explicitly).
pub(super) fn data_args(t: &Term, d: DataId) -> Option<Vec<RcTerm>> {
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

/// Whether a definition's type ends, after its parameters, in a universe: a
/// type-level function, whose body types may unfold.
fn ends_in_universe(ty: &Term) -> bool {
    let mut t = ty;
    while let Term::Pi(_, cod) = t {
        t = cod;
    }
    matches!(t, Term::Universe(_))
}

/// Collects the ids of the metavariables left in `t`.
fn collect_metas(t: &RcTerm, out: &mut Vec<u32>) {
    crate::core::subst::rewrite(t, &mut |node, _| {
        if let Term::Hole(HoleKind::Meta(id), _) = &**node {
            out.push(*id);
        }
        None
    });
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
pub(super) fn bool_match(
    b: Builtins,
    cond: RcTerm,
    then_: RcTerm,
    else_: RcTerm,
    span: Span,
) -> RcTerm {
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

/// `MkPair {a} {b} x y`.
fn pair_term(b: Builtins, a: &RcTerm, bt: &RcTerm, x: RcTerm, y: RcTerm) -> RcTerm {
    let con = Term::Con(b.mk_pair).rc();
    let con = Term::App(con, Plicity::Implicit, a.clone()).rc();
    let con = Term::App(con, Plicity::Implicit, bt.clone()).rc();
    Term::apps(con, [x, y])
}

/// `Cons {a} x1 (Cons {a} x2 ... (Nil {a}))`, built from the end in a loop.
fn list_term(b: Builtins, elem: &RcTerm, items: Vec<RcTerm>) -> RcTerm {
    let nil = Term::App(Term::Con(b.nil).rc(), Plicity::Implicit, elem.clone()).rc();
    items.into_iter().rev().fold(nil, |tail, x| {
        let cons = Term::App(Term::Con(b.cons).rc(), Plicity::Implicit, elem.clone()).rc();
        Term::apps(cons, [x, tail])
    })
}

/// A binder name for the core term.
pub(super) fn name_of(s: &str) -> Name {
    Rc::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::equiv::alpha_eq;
    use crate::syntax::span::FileId;

    fn var(i: u32) -> RcTerm {
        Term::Var(Ix(i)).rc()
    }

    #[test]
    fn refine_replaces_rigid_occurrences_and_leaves_unknowns_alone() {
        let span = Span::new(FileId(0), 0, 0);
        let z = Term::Lit(Lit::Int(0)).rc();
        let meta = Term::App(
            Term::Hole(HoleKind::Meta(0), span).rc(),
            Plicity::Explicit,
            var(0),
        )
        .rc();
        // f x (?m x) with x := 0 gives f 0 (?m x): the unknown keeps its argument.
        let t = Term::apps(var(1), [var(0), meta.clone()]);
        let want = Term::apps(var(1), [z.clone(), meta]);
        assert!(alpha_eq(&refine(&t, Ix(0), &z), &want));
        // Under a binder the variable's index and the replacement are shifted.
        let lam = |body: RcTerm| {
            Term::Lam(
                Binder {
                    name: name_of("y"),
                    plicity: Plicity::Explicit,
                    ty: Term::Universe(0).rc(),
                },
                body,
            )
            .rc()
        };
        let t = lam(Term::apps(var(1), [var(2)]));
        let want = lam(Term::apps(z.clone(), [var(2)]));
        assert!(alpha_eq(&refine(&t, Ix(0), &z), &want));
    }
}
