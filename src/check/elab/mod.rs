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
//! reports every independent error, and a type standing for something already
//! reported agrees with anything, so one mistake is one error. The output program has
//! no metavariables left; any unknown that could not be solved is an error naming what
//! it stood for.
//!
//! The parts, one job each:
//!
//! - `program`: the tables and scopes of every declaration, then the declarations
//!   group by group, then the unknowns substituted and the ones left reported.
//! - `order`: the order of those groups: strongly connected components of the
//!   declarations' references, dependencies first (a type may call a function defined
//!   further down).
//! - `data`: the universe each data type lives in, and strict positivity.
//! - `expr`: `check` and `infer`: lambdas, applications, names, `let`, arrows; chains
//!   (`let` after `let`, `else if`, nested lambdas, arrows) in loops.
//! - `operators`, `sugar`: binary operators; tuples, lists and `if`.
//! - `conversion`: weak head normal forms by the machine (a failure there is reported
//!   as what it is) and the checks that two types agree.
//! - `resolve`, `report`, `context`: name resolution, messages (typed holes, unbound
//!   names, mismatches, types cut to a readable length), and the local context.
//! - `fill`: for the language server, the names that fit a typed hole (tried by
//!   unification, each try undone).
//!
//! Costs are kept in proportion to the program: unknowns are created in constant time
//! whatever the depth of their context ([`HoleKind::MetaCtx`]), shared types are
//! walked once per pass (see `core::subst`), and finished definitions are skipped by
//! later passes (see [`Metas::is_final`](super::meta::Metas::is_final)).

use super::scope::{self, Global, UnitScope};
use crate::check::eval::{CtxEntry, TypeEval};
use crate::check::meta::Metas;
use crate::core::pretty;
use crate::core::program::{Builtins, CtorDecl, DataDecl, DefDecl, ExternDecl, Program};
use crate::core::subst::{has_free_var, instantiate, shift, subst_top, unshift};
use crate::core::term::{
    Binder, CasePat, ConId, DataId, DefId, ExternId, HoleKind, Ix, Lit, Lvl, Match, Name, Plicity,
    PrimType, RcTerm, Term,
};
use crate::diagnostic::Diagnostic;
use crate::external;
use crate::prim::Prim;
use crate::syntax::ast::{
    BinOp, Decl, Expr, ExprKind, FieldInit, LetExpr, MAX_UNIVERSE_LEVEL, Module, Param, PiExpr,
};
use crate::syntax::span::Span;
use std::rc::Rc;

mod context;
mod conversion;
mod data;
mod expr;
mod fill;
mod instances;
mod operators;
mod order;
mod program;
mod records;
mod report;
mod resolve;
mod sugar;

pub(in crate::check) use context::Cx;
pub(in crate::check) use conversion::refine;
use operators::Deferred;
pub(crate) use report::arms_of;
pub(in crate::check) use sugar::{bool_match, data_args};

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

/// How much of the prelude a load checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreludeCheck {
    /// All of it: `spindle check`, the REPL, `encode`, `hash`, the tests.
    Whole,
    /// Only the prelude definitions the program's declarations can reach (`spindle
    /// run`). The program itself, the prelude's data types and its externals are
    /// checked whole. The prelude does not change and checks without errors (the
    /// tests check it whole), so the definitions left out are unreachable code: they
    /// keep holes for their types and bodies and are never run. Checking the whole
    /// prelude takes about 2 ms; a workflow that uses a few of its functions checks in
    /// a third of that.
    Reachable,
}

/// Elaborates a whole program. `units[0]` must be the prelude; `entry` is the unit whose
/// `main` becomes [`Program::main`]. Returns the program and every diagnostic (errors
/// and warnings); the program is meaningful only if there are no errors.
pub fn elaborate_program(
    units: &[SourceUnit<'_>],
    entry: usize,
    eval: &mut dyn TypeEval,
    prelude: PreludeCheck,
) -> (Program, Vec<Diagnostic>) {
    let mut e = Elab::declare(units, eval);
    e.elaborate_declarations(units, prelude);
    if crate::check::record::on() {
        crate::check::record::finish(|t| e.metas.zonk(t));
    }
    crate::check::reuse::replay_records();
    let mut totality = Vec::new();
    if !e.errors.iter().any(Diagnostic::is_error) {
        totality = crate::check::totality::report(&e.program, &e.prelude_files);
        e.errors.extend(totality.iter().cloned());
    }
    e.program.main = e.scopes[entry].get("main").and_then(|(g, _)| match g {
        Global::Def(id) => Some(id),
        _ => None,
    });
    let mut errors = std::mem::take(&mut e.errors);
    dedup(&mut errors);
    // In source order (declarations are checked in phases, not in file order).
    errors.sort_by_key(|d| d.primary_span().map(|s| (s.file, s.start)));
    crate::check::reuse::store(&e.program, &errors, &totality);
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

/// The elaborator's state.
pub(in crate::check) struct Elab<'e> {
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
    eval_failures: std::collections::HashSet<Span>,
    /// Typed holes, reported at the end.
    holes: Vec<report::PendingHole>,
    /// The type-level evaluation failures reported, by type shown and failure.
    eval_failure_kinds: std::collections::HashSet<(String, String)>,
    /// How many calls of `unify` are under way (the outermost reports a comparison
    /// that ran past the type-level step limit).
    pub(super) unify_depth: u32,
    /// Where the errors stood just after the report that the type-level step budget in
    /// force ran out: what is reported after it (comparisons failing for want of
    /// budget) is withdrawn when the budget ends.
    pub(super) budget_report: Option<usize>,
    /// The files of the prelude (a runtime error there is reported at the user's
    /// place instead).
    prelude_files: std::collections::HashSet<crate::syntax::span::FileId>,
    /// What the `match` being compiled knows about each occurrence on the current
    /// path, for naming an uncovered case (see `patterns`).
    pub(super) coverage: crate::check::coverage::Coverage,
    /// The universe level of each data type (see `data`).
    pub(in crate::check) data_levels: Vec<u32>,
    /// The universe level of final types (closed, without unknowns) met as solutions
    /// of unknowns, by address (see `levels`).
    pub(in crate::check) final_levels: std::collections::HashMap<*const Term, u32>,
    /// Which arms of the `match` being compiled were reached (see `patterns`).
    pub(super) arm_use: crate::check::patterns::ArmUse,
    /// The record the scrutinee of the `match` being lowered has, if known (a record
    /// pattern names only fields).
    pub(in crate::check) record_hint: Option<DataId>,
    /// Unknowns that stand for instance arguments, solved once every definition is
    /// checked (see `instances`).
    pub(in crate::check) instance_goals: Vec<instances::InstanceGoal>,
    /// How deep the instance search that creates new goals is.
    pub(in crate::check) goal_depth: u32,
    /// The instance definitions, with the unit each is in and whether it was derived.
    pub(in crate::check) instance_defs: Vec<(DefId, usize, bool)>,
    /// The records (not interfaces) that have a field of each name, for finding a
    /// record by its fields in time independent of how many records there are.
    pub(in crate::check) records_by_field: std::collections::HashMap<Name, Vec<DataId>>,
    /// Where a name heads an expression in a place that expects a type: a name that is
    /// both a type and a constructor (`data Body = Body ...`) means the type there.
    pub(super) type_heads: std::collections::HashSet<Span>,
}

/// The core term for a global reference.
pub(in crate::check) fn global_term(g: Global, span: Span) -> RcTerm {
    match g {
        Global::Def(id) => Term::Def(id),
        Global::Data(id) => Term::Data(id),
        Global::Con(id) => Term::Con(id),
        Global::Extern(id) => Term::Extern(id, span),
        Global::PrimType(t) => Term::PrimType(t),
        Global::Prim(p) => Term::Prim(p, span),
    }
    .rc()
}

/// A binder name for the core term.
pub(in crate::check) fn name_of(s: &str) -> Name {
    Rc::from(s)
}

#[cfg(test)]
mod tests;
