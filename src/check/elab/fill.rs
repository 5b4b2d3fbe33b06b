//! The names that can fill a typed hole, for the language server's *Fill* action.
//!
//! Whether a name fits is the checker's own question: its type is unified with the
//! hole's goal, in the hole's context, by the unifier the check uses, in a trial that
//! is undone afterwards (a candidate leaves no unknown solved and no error behind). A
//! name whose type starts with implicit parameters is tried again with them
//! instantiated by fresh unknowns, as a use of it would: `length : {a : Type} ->
//! List a -> Int` fills a hole of type `List Int -> Int`. An implicit parameter of an
//! interface type (a constraint) must then have a dictionary for the type it got.
//!
//! Only holes whose place is recorded (the language server's document) are looked
//! at; `spindle check` and the REPL never get here.

use super::instances::Head;
use super::report::PendingHole;
use super::*;
use crate::check::record::{Fill, FillKind, MAX_FILLS};
use std::collections::{HashMap, HashSet};

/// The instances by interface and head, as instance search finds them.
type Instances = HashMap<(DataId, Head), DefId>;

/// A global that may fill a hole: its name, what it is, where it is declared.
type Candidate = (String, Global, Span);

impl Elab<'_> {
    /// The names that fit `hole` (whose goal has no unknown left): its local
    /// variables (innermost first), then the globals in scope whose type is the goal,
    /// then those whose type instantiates to it; at most [`MAX_FILLS`].
    pub(in crate::check) fn fills(&mut self, hole: &PendingHole) -> Vec<Fill> {
        let Some(entries) = &hole.entries else {
            return Vec::new();
        };
        let mut cx = Cx::new(hole.unit);
        cx.entries = entries.clone();
        let table = self.probe(|e| e.instance_table());
        let mut out = Vec::new();
        for (name, ty) in hole.locals.iter().rev() {
            if out.len() < MAX_FILLS && self.fit(&mut cx, ty, hole, &table, true).is_some() {
                out.push(Fill {
                    name: name.clone(),
                    kind: FillKind::Local,
                    declared: None,
                });
            }
        }
        let (mut exact, mut instantiated) = (Vec::new(), Vec::new());
        for (name, g, declared) in self.fill_globals(hole.unit) {
            if exact.len() >= MAX_FILLS {
                break;
            }
            let Some(ty) = self.fill_type(g) else {
                continue;
            };
            let room = instantiated.len() < MAX_FILLS;
            let Some(kind) = self.fit(&mut cx, &ty, hole, &table, room) else {
                continue;
            };
            let fill = Fill {
                name,
                kind,
                declared: Some(declared),
            };
            match kind {
                FillKind::Exact => exact.push(fill),
                _ => instantiated.push(fill),
            }
        }
        // Back to the budget in force after the declarations (see `end_type_budget`).
        self.eval.start_budget(false);
        out.extend(exact);
        out.extend(instantiated);
        out.truncate(MAX_FILLS);
        out
    }

    /// How a name of type `ty` fits `hole`: its type as it is, or (when
    /// `instantiate`) once its implicit parameters are instantiated; `None` if not.
    /// Each try has a budget of type-level steps of its own.
    fn fit(
        &mut self,
        cx: &mut Cx<'_>,
        ty: &RcTerm,
        hole: &PendingHole,
        table: &Instances,
        instantiate: bool,
    ) -> Option<FillKind> {
        let (goal, span) = (&hole.goal, hole.span);
        self.eval.start_budget(true);
        if self.probe(|e| e.unify(cx, ty, goal, span)) {
            return Some(FillKind::Exact);
        }
        if !instantiate || !starts_implicit(ty) {
            return None;
        }
        self.eval.start_budget(true);
        self.probe(|e| e.instantiates_to(cx, ty, goal, span, table))
            .then_some(FillKind::Instantiated)
    }

    /// Whether `ty`, its implicit parameters instantiated by fresh unknowns, unifies
    /// with `goal`, each of those unknowns then settled (run in a probe: what it
    /// solves is undone by the caller).
    fn instantiates_to(
        &mut self,
        cx: &mut Cx<'_>,
        ty: &RcTerm,
        goal: &RcTerm,
        span: Span,
        table: &Instances,
    ) -> bool {
        let mut ty = ty.clone();
        let mut args = Vec::new();
        loop {
            let want = self.whnf(cx, &ty, span);
            let Term::Pi(b, cod) = &*want else { break };
            if b.plicity != Plicity::Implicit {
                break;
            }
            let arg = self.fresh(cx, span, format!("the implicit argument `{}`", b.name));
            args.push((arg.clone(), b.ty.clone()));
            ty = subst_top(cod, &arg);
        }
        self.unify(cx, &ty, goal, span)
            && args
                .iter()
                .all(|(arg, arg_ty)| self.settled(cx, arg, arg_ty, span, table))
    }

    /// Whether an implicit argument instantiated for a candidate is settled once its
    /// type is unified with the goal: a constraint has a dictionary at hand; another
    /// argument is solved, unless it is a type (which the check defaults, as it does
    /// for any use).
    fn settled(
        &mut self,
        cx: &Cx<'_>,
        arg: &RcTerm,
        arg_ty: &RcTerm,
        span: Span,
        table: &Instances,
    ) -> bool {
        if self.interface_of(cx, arg_ty, span).is_some() {
            return self.has_instance(cx, arg_ty, table, span);
        }
        if matches!(&*self.metas.zonk(arg_ty), Term::Universe(_)) {
            return true;
        }
        let arg = self.metas.zonk(arg);
        !self.is_unsolved_meta(&arg)
    }

    /// The type of a global, as a use of it starts with (`None` for a global that
    /// fills no hole: a type, a primitive).
    fn fill_type(&self, g: Global) -> Option<RcTerm> {
        match g {
            Global::Def(id) => Some(self.program.def(id).ty.clone()),
            Global::Con(id) => Some(self.program.con_type(id)),
            Global::Extern(id) => Some(self.program.external(id).ty.clone()),
            Global::Data(_) | Global::PrimType(_) | Global::Prim(_) => None,
        }
    }

    /// The globals a hole in `unit` may be filled with, as name resolution sees them:
    /// the unit's own, then its imports' (not a name two of them define, which would
    /// be ambiguous), then the prelude's, each in the order declared; a name
    /// shadowed by an earlier one is left out, and so are names the source cannot
    /// write (instances, the prelude's `prim_` and `'` names) and the constructors of
    /// records.
    fn fill_globals(&self, unit: usize) -> Vec<Candidate> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut take = |mut found: Vec<Candidate>, out: &mut Vec<Candidate>| {
            found.retain(|(name, g, _)| self.may_fill(name, *g));
            found.sort_by_key(|(_, _, span)| (span.file, span.start));
            for c in found {
                if seen.insert(c.0.clone()) {
                    out.push(c);
                }
            }
        };
        take(scope_candidates(&self.scopes[unit]), &mut out);
        take(self.import_candidates(unit), &mut out);
        if unit != PRELUDE_UNIT {
            take(scope_candidates(&self.scopes[PRELUDE_UNIT]), &mut out);
        }
        out
    }

    /// The names `unit`'s imports define, each once (a name two imports define
    /// differently is left out).
    fn import_candidates(&self, unit: usize) -> Vec<Candidate> {
        let mut by_name: HashMap<String, Vec<(Global, Span)>> = HashMap::new();
        for (u, _) in &self.imports[unit] {
            for (name, g, span) in self.scopes[*u].entries() {
                let found = by_name.entry(name.to_string()).or_default();
                if !found.iter().any(|(h, _)| *h == g) {
                    found.push((g, span));
                }
            }
        }
        by_name
            .into_iter()
            .filter_map(|(name, found)| match found.as_slice() {
                [(g, span)] => Some((name, *g, *span)),
                _ => None,
            })
            .collect()
    }

    /// Whether the global `g` named `name` is one a hole may be filled with.
    fn may_fill(&self, name: &str, g: Global) -> bool {
        let writable = !name.contains('\'') && !name.starts_with('<') && !name.starts_with("prim_");
        let record_con = matches!(g, Global::Con(c) if self.program.data(c.data).record);
        writable && !record_con && self.fill_type(g).is_some()
    }
}

/// The names a unit's scope declares, as candidates.
fn scope_candidates(scope: &scope::UnitScope) -> Vec<Candidate> {
    scope
        .entries()
        .map(|(n, g, s)| (n.to_string(), g, s))
        .collect()
}

/// Whether a type starts with an implicit parameter (by its shape: a global's type is
/// written so).
fn starts_implicit(ty: &RcTerm) -> bool {
    matches!(&**ty, Term::Pi(b, _) if b.plicity == Plicity::Implicit)
}
