//! Instance arguments (issue 29): an implicit parameter whose type is an interface
//! applied to a type (`{d : Show a}`, written `Show a =>`) is filled by the elaborator
//! with the dictionary of that type: a local one (a constraint of the definition being
//! checked) or the instance declared for the type's head constructor.
//!
//! Where an implicit argument of an interface type is inserted, its unknown becomes a
//! goal (`InstanceGoal`). Goals are solved once every definition is checked, when the
//! types they wait on are known and every instance's type is: a goal whose type is
//! still unknown waits for the others, since solving one may fix another's type. An
//! instance with constraints (`instance Show a => Show (List a)`) adds their goals, one
//! level deeper; past `MAX_DEPTH` levels the search stops with an error (instances
//! that loop).
//!
//! Instances are found by the interface and the head of the type (`Show` and `List`),
//! so there is at most one for each pair, and two are an error ("overlapping"). A
//! dictionary is a value, never part of a type: solving goals late changes no type
//! that was compared before.

use super::*;
use crate::check::eval::CtxEntry;
use crate::core::term::spine;
use std::collections::HashMap;

/// How deep instance search may go (instance of a constraint of an instance ...).
const MAX_DEPTH: u32 = 32;

/// An unknown standing for an instance argument.
pub(in crate::check) struct InstanceGoal {
    /// The unknown, in the goal's context.
    meta: RcTerm,
    /// Its type (`Show Int`), in the same context.
    ty: RcTerm,
    /// The scope unit where it was inserted.
    unit: usize,
    /// The local context where it was inserted (a constraint in scope may solve it).
    entries: Vec<CtxEntry>,
    /// Where the argument was needed.
    span: Span,
    /// How many instances deep: 0 for an argument the source needs.
    depth: u32,
}

/// What an instance is found by: the head of the type it is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::check) enum Head {
    /// A data type (`List`, `Maybe`, a record).
    Data(DataId),
    /// `Int`, `Float`, `String` or `Char`.
    Prim(PrimType),
}

/// How one attempt at a goal went.
enum Attempt {
    /// Solved.
    Solved,
    /// Its type is not known yet.
    Waiting,
    /// Reported.
    Failed,
}

impl Elab<'_> {
    /// The interface `ty` is an instance of (after evaluation), if it is one.
    pub(in crate::check) fn interface_of(
        &mut self,
        cx: &Cx<'_>,
        ty: &RcTerm,
        span: Span,
    ) -> Option<DataId> {
        // Cheap tests first: most implicit arguments are types.
        if matches!(&**ty, Term::Universe(_) | Term::Pi(..) | Term::PrimType(_)) {
            return None;
        }
        let want = self.whnf(cx, ty, span);
        match &**spine(&want).0 {
            Term::Data(d) if self.program.data(*d).interface => Some(*d),
            _ => None,
        }
    }

    /// Records the unknown `meta : ty` (an inserted implicit argument of an interface
    /// type) as a goal for instance search.
    pub(in crate::check) fn instance_goal(
        &mut self,
        cx: &Cx<'_>,
        meta: &RcTerm,
        ty: &RcTerm,
        span: Span,
    ) {
        self.instance_goals.push(InstanceGoal {
            meta: meta.clone(),
            ty: ty.clone(),
            unit: cx.unit,
            entries: cx.entries.clone(),
            span,
            depth: self.goal_depth,
        });
    }

    /// The unknowns that instance search will solve at the end of the check (the
    /// goals still pending): an incremental check ([`crate::check::reuse`]) does not
    /// count them as left open by the group that made them.
    pub(in crate::check) fn pending_instance_metas(&self) -> std::collections::HashSet<u32> {
        self.instance_goals
            .iter()
            .filter_map(|g| crate::check::meta::flex(&g.meta).map(|f| f.id))
            .collect()
    }

    /// The head of `ty`'s argument, for finding an instance; `None` while unknown,
    /// `Some(None)` for a type no instance can be for (a variable, a function type).
    fn head_of(&mut self, cx: &Cx<'_>, ty: &RcTerm, span: Span) -> Option<Option<Head>> {
        let t = self.whnf(cx, ty, span);
        if self.is_unsolved_meta(&t) {
            return None;
        }
        let (head, _) = spine(&t);
        Some(match &**head {
            Term::Data(d) => Some(Head::Data(*d)),
            Term::PrimType(p) => Some(Head::Prim(*p)),
            Term::Hole(..) => return None,
            _ => None,
        })
    }

    /// The instances, by interface and head; reports instances that are not of an
    /// interface applied to a type constructor, overlapping ones, and hand-written
    /// `Eq` instances.
    pub(in crate::check) fn instance_table(&mut self) -> HashMap<(DataId, Head), DefId> {
        let mut table: HashMap<(DataId, Head), DefId> = HashMap::new();
        let eq = self.scopes[PRELUDE_UNIT]
            .get("Eq")
            .and_then(|(g, _)| match g {
                Global::Data(d) => Some(d),
                _ => None,
            });
        for (id, unit, derived) in self.instance_defs.clone() {
            let def = self.program.def(id);
            let span = def.span;
            let mut ty = def.ty.clone();
            let mut cx = Cx::new(unit);
            while let Term::Pi(b, cod) = &*ty {
                cx.push_hidden(b.name.clone(), b.ty.clone());
                ty = cod.clone();
            }
            let want = self.whnf(&cx, &ty, span);
            let (head, args) = spine(&want);
            let class = match &**head {
                Term::Data(d) if self.program.data(*d).interface => *d,
                _ => {
                    if !self.is_recovery(&want) {
                        let shown = self.show(&cx, &want);
                        self.errors.push(
                            Diagnostic::error(format!("`{shown}` is not an interface")).at(
                                span,
                                "an instance is of an interface, as in `instance Show Int`",
                            ),
                        );
                    }
                    continue;
                }
            };
            let class_name = self.program.data(class).name.clone();
            if Some(class) == eq && !derived && unit != PRELUDE_UNIT {
                self.errors.push(
                    Diagnostic::error("an `Eq` instance cannot be written by hand")
                        .at(span, "`==` is structural on every type")
                        .note("help: derive it: `deriving (Eq)`"),
                );
                continue;
            }
            let Some((_, arg)) = args.first() else {
                continue;
            };
            let arg = (*arg).clone();
            let key = match self.head_of(&cx, &arg, span) {
                Some(Some(h)) => h,
                _ => {
                    let shown = self.show(&cx, &arg);
                    self.errors.push(
                        Diagnostic::error(format!(
                            "an instance of `{class_name}` must be for a named type, not `{shown}`"
                        ))
                        .at(span, "as in `instance Show (List a)`"),
                    );
                    continue;
                }
            };
            if let Some(first) = table.get(&(class, key)) {
                let first_span = self.program.def(*first).span;
                let shown = self.show(&cx, &want);
                self.errors.push(
                    Diagnostic::error(format!("overlapping instances: two for `{shown}`"))
                        .at(span, "this instance")
                        .also(first_span, "overlaps this one")
                        .note("an interface has at most one instance per type constructor"),
                );
                continue;
            }
            table.insert((class, key), id);
        }
        table
    }

    /// The interfaces the goals not solved yet are of (those whose type is known).
    pub(in crate::check) fn goal_classes(&mut self) -> Vec<DataId> {
        let goals = std::mem::take(&mut self.instance_goals);
        let mut out = Vec::new();
        for g in &goals {
            let cx = goal_cx(g);
            let want = self.whnf(&cx, &g.ty, g.span);
            if let Term::Data(d) = &**spine(&want).0
                && !out.contains(d)
            {
                out.push(*d);
            }
        }
        self.instance_goals = goals;
        out
    }

    /// Solves the instance goals. With `report`, reports those that have no instance,
    /// that stay ambiguous, or whose search goes too deep, and returns true; without,
    /// leaves the goals it could not solve (no error reported for them) and returns
    /// whether none is left.
    pub(in crate::check) fn resolve_instances(&mut self, report: bool) -> bool {
        if self.instance_goals.is_empty() && self.instance_defs.is_empty() {
            return true;
        }
        let errors = self.errors.len();
        let table = self.instance_table();
        if !report {
            // Reported (once) by the last round.
            self.errors.truncate(errors);
        }
        let mut goals = std::mem::take(&mut self.instance_goals);
        loop {
            let mut progress = false;
            let mut waiting = Vec::new();
            for goal in goals {
                match self.attempt(&goal, &table, report) {
                    Attempt::Solved | Attempt::Failed => progress = true,
                    Attempt::Waiting => waiting.push(goal),
                }
            }
            let new = std::mem::take(&mut self.instance_goals);
            progress |= !new.is_empty();
            goals = waiting;
            goals.extend(new);
            if goals.is_empty() || !progress {
                break;
            }
        }
        if !report {
            let none_left = goals.is_empty();
            self.instance_goals = goals;
            return none_left;
        }
        for goal in goals {
            let cx = goal_cx(&goal);
            let ty = self.metas.zonk(&goal.ty);
            let shown = self.show(&cx, &ty);
            let class = shown.split_whitespace().next().unwrap_or("").to_string();
            self.errors.push(
                Diagnostic::error(format!("cannot tell which `{class}` instance to use here"))
                    .at(
                        goal.span,
                        format!("needs `{shown}`, and the type is not known"),
                    )
                    .note("help: annotate the type of the value"),
            );
            self.metas.mark_defaultable(&goal.meta);
            self.silence_unknowns(&ty);
        }
        true
    }

    /// Marks the unknowns in `ty` as reported (an ambiguous instance is one error).
    fn silence_unknowns(&mut self, ty: &RcTerm) {
        let mut unsolved = Vec::new();
        self.metas.unsolved_in(ty, &mut unsolved);
        for id in unsolved {
            self.metas.mark_defaultable_id(id);
        }
    }

    /// Whether a dictionary of type `ty` (an interface applied to a type, in `cx`) is
    /// at hand: a local one of exactly that type, or an instance in `table` for the
    /// type's head (whose own constraints are not looked into).
    pub(in crate::check) fn has_instance(
        &mut self,
        cx: &Cx<'_>,
        ty: &RcTerm,
        table: &HashMap<(DataId, Head), DefId>,
        span: Span,
    ) -> bool {
        let want = self.whnf(cx, ty, span);
        let (head, args) = spine(&want);
        let (Term::Data(class), Some((_, arg))) = (&**head, args.first()) else {
            return false;
        };
        let class = *class;
        let arg = (*arg).clone();
        let target = self.metas.zonk(&want);
        for lvl in (0..cx.depth()).rev() {
            let lty = cx.type_of(Lvl(lvl));
            if !matches!(&**spine(&lty).0, Term::Data(d) if *d == class) {
                continue;
            }
            let lty = self.whnf(cx, &lty, span);
            if crate::core::equiv::alpha_eq(&self.metas.zonk(&lty), &target) {
                return true;
            }
        }
        matches!(self.head_of(cx, &arg, span), Some(Some(h)) if table.contains_key(&(class, h)))
    }

    fn attempt(
        &mut self,
        goal: &InstanceGoal,
        table: &HashMap<(DataId, Head), DefId>,
        report: bool,
    ) -> Attempt {
        let mut cx = goal_cx(goal);
        let meta = self.metas.zonk(&goal.meta);
        if !self.is_unsolved_meta(&meta) {
            return Attempt::Solved; // Given explicitly or solved by unification.
        }
        let want = self.whnf(&cx, &goal.ty, goal.span);
        let (head, args) = spine(&want);
        let Term::Data(class) = &**head else {
            return Attempt::Failed;
        };
        let class = *class;
        let Some((_, arg)) = args.first() else {
            return Attempt::Failed;
        };
        let arg = (*arg).clone();
        let Some(key) = self.head_of(&cx, &arg, goal.span) else {
            return Attempt::Waiting;
        };
        // A local dictionary of exactly this type first (a constraint in scope).
        let target = self.metas.zonk(&want);
        for lvl in (0..cx.depth()).rev() {
            let lty = cx.type_of(Lvl(lvl));
            if !matches!(&**spine(&lty).0, Term::Data(d) if *d == class) {
                continue;
            }
            let lty = self.whnf(&cx, &lty, goal.span);
            if crate::core::equiv::alpha_eq(&self.metas.zonk(&lty), &target) {
                let var = cx.var(Lvl(lvl));
                self.unify(&mut cx, &meta, &var, goal.span);
                return Attempt::Solved;
            }
        }
        let shown = self.show(&cx, &target);
        let Some(def) = key.and_then(|k| table.get(&(class, k)).copied()) else {
            if !report {
                return Attempt::Waiting; // The instance may not be loaded yet.
            }
            let class_name = self.program.data(class).name.clone();
            let mut d = Diagnostic::error(format!("no instance `{shown}`"))
                .at(goal.span, format!("needs `{shown}`"));
            d = match key {
                None => d.note(format!(
                    "help: add the constraint `{shown} =>` to the type of the definition"
                )),
                Some(_) => d.note(format!(
                    "help: write `instance {shown} where` or add `deriving ({class_name})` to the type"
                )),
            };
            self.errors.push(d);
            self.metas.mark_defaultable(&goal.meta);
            return Attempt::Failed;
        };
        if goal.depth >= MAX_DEPTH {
            let shown = if shown.chars().count() > 60 {
                format!("{}...", shown.chars().take(60).collect::<String>())
            } else {
                shown
            };
            self.errors.push(
                Diagnostic::error(format!(
                    "instance search for `{shown}` went {MAX_DEPTH} levels deep"
                ))
                .at(goal.span, "needed here")
                .note("the instances' constraints may loop"),
            );
            self.metas.mark_defaultable(&goal.meta);
            return Attempt::Failed;
        }
        let ty = self.program.def(def).ty.clone();
        let outer_depth = std::mem::replace(&mut self.goal_depth, goal.depth + 1);
        let (t, ty) = self.insert_implicits(&cx, Term::Def(def).rc(), ty, goal.span);
        self.goal_depth = outer_depth;
        if !self.unify(&mut cx, &ty, &want, goal.span) {
            let found = self.show(&cx, &ty);
            self.errors.push(
                Diagnostic::error(format!("the instance `{found}` does not fit `{shown}`"))
                    .at(goal.span, "needed here"),
            );
            self.metas.mark_defaultable(&goal.meta);
            return Attempt::Failed;
        }
        self.unify(&mut cx, &meta, &t, goal.span);
        Attempt::Solved
    }
}

/// The context a goal was made in.
fn goal_cx(goal: &InstanceGoal) -> Cx<'static> {
    let mut cx = Cx::new(goal.unit);
    cx.entries = goal.entries.clone();
    cx
}
