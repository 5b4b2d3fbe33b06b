//! The program as a whole: every declaration entered in the tables and scopes first, then
//! each one elaborated (data types, externals, signatures, bodies), then the unknowns
//! substituted and the ones left reported.

use super::*;
use crate::core::graph::components;
use crate::syntax::ast::DataKind;
use std::collections::HashMap;

/// How many unknowns that cannot be inferred are reported one by one (the rest are
/// counted in one more error).
const UNSOLVED_REPORTED: usize = 10;

/// Whether a definition's type ends, after its parameters, in a universe: a
/// type-level function, whose body types may unfold.
pub(in crate::check) fn ends_in_universe(ty: &Term) -> bool {
    let mut t = ty;
    while let Term::Pi(_, cod) = t {
        t = cod;
    }
    matches!(t, Term::Universe(_))
}

/// Enters one declaration in the tables and its unit's scope.
pub(in crate::check) fn declare_one(
    program: &mut Program,
    scope: &mut UnitScope,
    decl: &Decl<'_>,
    errors: &mut Vec<Diagnostic>,
) {
    let hole = |span: Span| Term::infer(span);
    match decl {
        Decl::Import { .. } => {}
        Decl::Def { name, role, .. } => {
            let id = DefId(program.defs.len() as u32);
            program.defs.push(DefDecl {
                name: name_of(name.name),
                ty: hole(name.span),
                body: hole(name.span),
                span: name.span,
                role: *role,
            });
            scope.declare(name.name, Global::Def(id), name.span, errors);
        }
        Decl::Data {
            kind, name, ctors, ..
        } => {
            let id = DataId(program.datas.len() as u32);
            scope.declare(name.name, Global::Data(id), name.span, errors);
            let mut decls = Vec::new();
            for (i, c) in ctors.iter().enumerate() {
                let con = ConId {
                    data: id,
                    index: i as u32,
                };
                // A record's constructor has no name a program writes: records are
                // built with `{ f = e }` and matched with `{ f = p }`.
                if *kind == DataKind::Data {
                    scope.declare(c.name.name, Global::Con(con), c.name.span, errors);
                }
                decls.push(CtorDecl {
                    name: name_of(c.name.name),
                    fields: c.fields.iter().map(|f| hole(f.span)).collect(),
                    field_names: c.field_names.iter().map(|f| name_of(f.name)).collect(),
                    span: c.name.span,
                });
            }
            program.datas.push(DataDecl {
                name: name_of(name.name),
                params: Vec::new(),
                ctors: decls,
                interface: *kind == DataKind::Interface,
                record: *kind != DataKind::Data,
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
pub(in crate::check) fn placeholder_builtins() -> Builtins {
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
        append: None,
    }
}

impl<'e> Elab<'e> {
    /// Gives every declaration of every unit its id and enters its name in its unit's
    /// scope, so that any declaration can refer to any other.
    pub(in crate::check) fn declare(
        units: &[SourceUnit<'_>],
        eval: &'e mut dyn TypeEval,
    ) -> Elab<'e> {
        let mut program = Program {
            defs: Vec::new(),
            datas: Vec::new(),
            externs: Vec::new(),
            builtins: placeholder_builtins(),
            main: None,
            run_bodies: Default::default(),
            inlined_bodies: Default::default(),
            collections: Default::default(),
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
            eval_failures: Default::default(),
            holes: Vec::new(),
            eval_failure_kinds: Default::default(),
            unify_depth: 0,
            budget_report: None,
            prelude_files: units
                .get(PRELUDE_UNIT)
                .into_iter()
                .flat_map(|u| &u.modules)
                .filter_map(|m| m.decls.first().map(|d| d.span().file))
                .collect(),
            coverage: Default::default(),
            arm_use: Default::default(),
            data_levels: Vec::new(),
            final_levels: Default::default(),
            record_hint: None,
            instance_goals: Vec::new(),
            goal_depth: 0,
            instance_defs: Vec::new(),
            records_by_field: Default::default(),
            type_heads: Default::default(),
        };
        for (i, d) in e.program.datas.iter().enumerate() {
            if d.record && !d.interface {
                for f in &d.ctors[0].field_names {
                    e.records_by_field
                        .entry(f.clone())
                        .or_default()
                        .push(DataId(i as u32));
                }
            }
        }
        e.data_levels = vec![0; e.program.datas.len()];
        if !units.is_empty() {
            e.program.builtins = e.find_builtins();
        }
        e
    }

    /// Looks up the prelude types and constructors that syntax desugars to.
    pub(in crate::check) fn find_builtins(&mut self) -> Builtins {
        let scope = &self.scopes[PRELUDE_UNIT];
        let mut missing = Vec::new();
        let mut data = |name: &str| match scope.get_type(name) {
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
            append: match scope.get("append") {
                Some((Global::Def(id), _)) => Some(id),
                _ => None,
            },
        };
        if !missing.is_empty() {
            self.errors.push(Diagnostic::error(format!(
                "the prelude lacks {}",
                missing.join(", ")
            )));
        }
        b
    }

    /// Elaborates every declaration of `units`, phase by phase and in dependency order
    /// (see the module documentation); with [`PreludeCheck::Reachable`], of the
    /// prelude's definitions only those the rest can reach.
    pub(in crate::check) fn elaborate_declarations(
        &mut self,
        units: &[SourceUnit<'_>],
        prelude: PreludeCheck,
    ) {
        // Declarations in table order, with the unit each comes from.
        let mut defs = Vec::new();
        let mut datas = Vec::new();
        let mut externs = Vec::new();
        for (u, unit) in units.iter().enumerate() {
            for module in &unit.modules {
                for decl in module.decls {
                    match decl {
                        Decl::Def { role, .. } => {
                            if role.is_instance() {
                                let id = DefId(defs.len() as u32);
                                let derived = *role == crate::syntax::ast::DefRole::Derived;
                                self.instance_defs.push((id, u, derived));
                            }
                            defs.push((u, decl))
                        }
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
        let mut nodes: Vec<(order::Node, usize, &Decl<'_>)> = Vec::new();
        for (i, (u, decl)) in datas.iter().enumerate() {
            nodes.push((order::Node::Data(DataId(i as u32)), *u, decl));
        }
        for (i, (u, decl)) in externs.iter().enumerate() {
            nodes.push((order::Node::Extern(ExternId(i as u32)), *u, decl));
        }
        for (i, (u, decl)) in defs.iter().enumerate() {
            nodes.push((order::Node::Def(DefId(i as u32)), *u, decl));
        }
        let edges = self.reference_edges(&nodes);
        let needed = (prelude == PreludeCheck::Reachable)
            .then(|| Self::reachable_declarations(&nodes, &edges));
        let first_def = datas.len() + externs.len();
        if let Some(needed) = &needed {
            self.instance_defs
                .retain(|(id, _, _)| needed[first_def + id.0 as usize]);
        }
        let groups = components(&edges);
        let mut done = vec![false; nodes.len()];
        let keys = self.reuse_keys(&nodes, &edges, &groups);
        for (g, group) in groups.iter().enumerate() {
            // A group is reachable whole or not at all (its members reach each other).
            if let Some(needed) = &needed
                && !needed[group[0]]
            {
                continue;
            }
            crate::check::reuse::entering(g);
            if let Some(Some(key)) = keys.get(g) {
                let ranges = group
                    .iter()
                    .map(|i| {
                        let s = nodes[*i].2.span();
                        (s.start, s.end)
                    })
                    .collect();
                let defs = group
                    .iter()
                    .filter_map(|i| match nodes[*i].0 {
                        order::Node::Def(id) => Some(id),
                        _ => None,
                    })
                    .collect();
                if let Some(diagnostics) =
                    crate::check::reuse::reuse_or_note(*key, ranges, defs, &mut self.program)
                {
                    self.errors.extend(diagnostics);
                    for i in group {
                        done[*i] = true;
                    }
                    continue;
                }
            }
            self.elaborate_nodes(group, &nodes, &mut done);
        }
        if needed.is_some() {
            // The prelude's instances of the interfaces the goals need, checked now
            // (with what they refer to), until no goal needs another interface.
            let mut by_class: HashMap<DataId, Vec<usize>> = HashMap::new();
            for (i, (_, u, decl)) in nodes.iter().enumerate() {
                if !done[i]
                    && let Some(class) = self.instance_class(*u, decl)
                {
                    by_class.entry(class).or_default().push(i);
                }
            }
            // First what the instances at hand solve (a constraint in scope), then
            // the interfaces the goals left need.
            while !self.resolve_instances(false) {
                let classes: Vec<DataId> = self
                    .goal_classes()
                    .into_iter()
                    .filter(|c| by_class.contains_key(c))
                    .collect();
                if classes.is_empty() {
                    break;
                }
                let mut start = Vec::new();
                for c in &classes {
                    start.extend(by_class.remove(c).unwrap_or_default());
                }
                let mut want = vec![false; nodes.len()];
                Self::reach(start.clone(), &edges, &mut want, &|j| !done[j]);
                for group in &groups {
                    if group.iter().any(|i| want[*i] && !done[*i]) {
                        self.elaborate_nodes(group, &nodes, &mut done);
                    }
                }
                for i in start {
                    if let (order::Node::Def(id), u, Decl::Def { role, .. }) = nodes[i] {
                        let derived = *role == crate::syntax::ast::DefRole::Derived;
                        self.instance_defs.push((id, u, derived));
                    }
                }
            }
        }
        self.resolve_instances(true);
        self.zonk_program();
    }

    /// The key of each group for an incremental check ([`crate::check::reuse`]), or
    /// none when no incremental check is on.
    fn reuse_keys(
        &self,
        nodes: &[(order::Node, usize, &Decl<'_>)],
        edges: &[Vec<usize>],
        groups: &[Vec<usize>],
    ) -> Vec<Option<u64>> {
        if !crate::check::reuse::active() || crate::check::split::requested() {
            return Vec::new();
        }
        let infos: Vec<crate::check::reuse::NodeInfo> = nodes
            .iter()
            .map(|(n, u, decl)| {
                let (layout, instance) = match decl {
                    Decl::Def { name, role, .. } => {
                        (format!("{u} def {}", name.name), role.is_instance())
                    }
                    Decl::Data { name, ctors, .. } => (
                        format!(
                            "{u} data {} {}",
                            name.name,
                            ctors
                                .iter()
                                .map(|c| format!(
                                    "{}/{}/{}",
                                    c.name.name,
                                    c.fields.len(),
                                    c.field_names.len()
                                ))
                                .collect::<Vec<_>>()
                                .join(" ")
                        ),
                        false,
                    ),
                    Decl::Extern { name, .. } => (format!("{u} extern {}", name.name), false),
                    Decl::Import { path, .. } => (format!("{u} import {path}"), false),
                };
                crate::check::reuse::NodeInfo {
                    span: decl.span(),
                    is_def: matches!(n, order::Node::Def(_)),
                    layout,
                    instance,
                }
            })
            .collect();
        crate::check::reuse::keys(&infos, edges, groups)
    }

    /// Elaborates the declarations `group` (indices into `nodes`) not done yet, and
    /// marks them done.
    fn elaborate_nodes(
        &mut self,
        group: &[usize],
        nodes: &[(order::Node, usize, &Decl<'_>)],
        done: &mut [bool],
    ) {
        let members: Vec<(order::Node, usize, &Decl<'_>)> = group
            .iter()
            .filter(|i| !done[**i])
            .map(|i| nodes[*i])
            .collect();
        for i in group {
            done[*i] = true;
        }
        if !members.is_empty() {
            self.elaborate_group(&members);
        }
    }

    /// Elaborates one group of mutually dependent declarations (every declaration it
    /// refers to outside the group is done): its data types' parameters and fields,
    /// externals, the types of its definitions (before the fields if a field names one
    /// of them), then their bodies (type-level ones first, since types unfold them),
    /// then the data types' strict positivity (which may look into those bodies); then
    /// substitutes what is solved, so that later groups (and type-level evaluation) see
    /// finished terms.
    fn elaborate_group(&mut self, members: &[(order::Node, usize, &Decl<'_>)]) {
        let deferred = self.deferred.len();
        let datas: Vec<(DataId, usize, &Decl<'_>)> = members
            .iter()
            .filter_map(|(n, u, d)| match n {
                order::Node::Data(id) => Some((*id, *u, *d)),
                _ => None,
            })
            .collect();
        let defs: Vec<(DefId, usize, &Decl<'_>)> = members
            .iter()
            .filter_map(|(n, u, d)| match n {
                order::Node::Def(id) => Some((*id, *u, *d)),
                _ => None,
            })
            .collect();
        // A field may name a definition of the group (`data T = MkT (F Int)` with
        // `def F (a : Type) : Type = List T`): then the definitions' types come before
        // the fields. Otherwise the fields come first, so that a definition's type may
        // use the group's constructors.
        let fields_use_defs = !defs.is_empty()
            && datas.iter().any(|(_, u, decl)| {
                self.references(*u, decl)
                    .iter()
                    .any(|n| matches!(n, order::Node::Def(_)) && members.iter().any(|m| m.0 == *n))
            });
        for (id, u, decl) in &datas {
            if let Decl::Data { params, .. } = decl {
                self.data_parameters(*u, *id, params);
            }
        }
        if !fields_use_defs && !datas.is_empty() {
            self.start_type_budget(datas[0].1);
            self.data_fields_and_level(&datas);
        }
        for (n, u, decl) in members {
            if let (order::Node::Extern(id), Decl::Extern { ty, .. }) = (n, decl) {
                let (t, _) = self.check_type(&mut Cx::new(*u), ty);
                self.check_host_type(id.0 as usize, &t, ty.span);
                self.program.externs[id.0 as usize].ty = self.metas.zonk_closed(&t);
            }
        }
        for (id, u, decl) in &defs {
            if let Decl::Def {
                params, ret, body, ..
            } = decl
            {
                self.start_type_budget(*u);
                let ty = self.signature(*u, params, *ret, body.span);
                self.program.defs[id.0 as usize].ty = ty;
            }
        }
        if fields_use_defs {
            self.start_type_budget(datas[0].1);
            self.data_fields_and_level(&datas);
        }
        let mut order: Vec<usize> = (0..defs.len()).collect();
        order.sort_by_key(|i| !ends_in_universe(&self.program.def(defs[*i].0).ty));
        for i in order {
            if let (id, u, Decl::Def { params, body, .. }) = defs[i] {
                self.start_type_budget(u);
                let value = self.def_body(u, id, params, body);
                // Substituted already: a later body of the group may unfold it.
                self.program.defs[id.0 as usize].body = self.metas.zonk(&value);
            }
        }
        self.end_type_budget();
        // The operators whose operand types are known by now.
        self.check_deferred(Some(deferred));
        // Strict positivity, once the definitions a field may name are known.
        if !datas.is_empty() {
            self.data_positivity(&datas, members);
        }
        if !defs.is_empty() {
            self.def_type_positivity(&defs, members);
        }
        for (id, _, _) in &defs {
            let d = &self.program.defs[id.0 as usize];
            let (ty, body) = (
                self.metas.zonk_closed(&d.ty),
                self.metas.zonk_closed(&d.body),
            );
            let d = &mut self.program.defs[id.0 as usize];
            d.ty = ty;
            d.body = body;
        }
        if crate::check::reuse::active() {
            self.note_open_group(&defs, &datas);
        }
    }

    /// For an incremental check ([`crate::check::reuse`]): whether the group just
    /// checked left unknowns that what comes later may solve (or default) — those
    /// instance search will solve at the end aside —, which makes the group, and
    /// every group that depends on it, belong to this check only.
    fn note_open_group(
        &self,
        defs: &[(DefId, usize, &Decl<'_>)],
        datas: &[(DataId, usize, &Decl<'_>)],
    ) {
        let except = self.pending_instance_metas();
        let open = |t: &RcTerm| crate::check::reuse::has_unknowns(&self.metas.zonk(t), &except);
        let defs_open = defs.iter().any(|(id, _, _)| {
            let d = &self.program.defs[id.0 as usize];
            open(&d.ty) || open(&d.body)
        });
        let datas_open = datas.iter().any(|(id, _, _)| {
            let d = &self.program.datas[id.0 as usize];
            d.params.iter().any(|b| open(&b.ty))
                || d.ctors.iter().any(|c| c.fields.iter().any(open))
        });
        if defs_open || datas_open {
            crate::check::reuse::note_open();
        }
    }

    /// An `extern` must be declared at the type the host gives the external (the host
    /// calls it with exactly those arguments).
    pub(in crate::check) fn check_host_type(&mut self, i: usize, declared: &RcTerm, at: Span) {
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

    /// A data declaration's parameters.
    pub(in crate::check) fn data_parameters<'s>(
        &mut self,
        unit: usize,
        id: DataId,
        params: &'s [Param<'s>],
    ) {
        let mut cx = Cx::new(unit);
        let binders = self.telescope(&mut cx, params, "parameter");
        self.program.datas[id.0 as usize].params = binders;
    }

    /// A data declaration's constructors' field types (its parameters are done);
    /// returns the largest universe level of a field's type.
    pub(in crate::check) fn data_fields<'s>(
        &mut self,
        unit: usize,
        id: DataId,
        params: &'s [Param<'s>],
        ctors: &'s [crate::syntax::ast::CtorDecl<'s>],
    ) -> u32 {
        let mut cx = Cx::new(unit);
        let binders = self.program.data(id).params.clone();
        for (p, b) in params.iter().zip(binders) {
            cx.push(p.name.name, p.name.span, b.ty);
        }
        let mut level = 0;
        for (c, ctor) in ctors.iter().enumerate() {
            let mut fields = Vec::new();
            for (i, field) in ctor.fields.iter().enumerate() {
                let (t, l) = self.check_type(&mut cx, field);
                level = level.max(l);
                // A record's later fields may name the earlier ones (`Vec n Int`).
                match ctor.field_names.get(i) {
                    Some(f) => cx.push(f.name, f.span, t.clone()),
                    None => cx.push_hidden(name_of("_"), t.clone()),
                }
                fields.push(t);
            }
            for _ in ctor.fields {
                cx.pop();
            }
            self.program.datas[id.0 as usize].ctors[c].fields = fields;
        }
        level
    }

    /// The type of a `def`: its parameters as a `Pi` telescope around the result type
    /// (unknowns where the source wrote no type).
    pub(in crate::check) fn signature<'s>(
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
    pub(in crate::check) fn def_body<'s>(
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
            cx.push(p.name.name, p.name.span, b.ty.clone());
            ty = cod.clone();
            binders.push(b);
        }
        let value = self.check(&mut cx, body, &ty);
        binders
            .into_iter()
            .rev()
            .fold(value, |body, b| Term::Lam(b, body).rc())
    }

    /// Substitutes every solution into the program and reports every unknown left.
    pub(in crate::check) fn zonk_program(&mut self) {
        self.check_deferred(None);
        // Typed holes are reported before the unknowns nothing fixed default to `Unit`:
        // `?f x` with nothing known of its result has type `A -> _t`, not `A -> Unit`.
        self.report_holes();
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
            *t = metas.zonk_closed(t);
            metas.unsolved_in(t, &mut unsolved);
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
        // In source order, and only the first few: a lambda of ten thousand untyped
        // parameters is one mistake, not ten thousand.
        unsolved.sort_by_key(|id| {
            let s = self.metas.get(*id).span;
            (s.file, s.start, *id)
        });
        for (k, id) in unsolved.iter().enumerate() {
            let info = self.metas.get(*id);
            if k == UNSOLVED_REPORTED {
                self.errors.push(
                    Diagnostic::error(format!(
                        "... and {} more unknowns cannot be inferred",
                        unsolved.len() - k
                    ))
                    .at(info.span, format!("the next one is {}", info.what)),
                );
                break;
            }
            self.errors.push(
                Diagnostic::error(format!("cannot infer {}", info.what))
                    .at(info.span, "add a type annotation here"),
            );
        }
    }

    /// Elaborates binders left to right, each annotation a type in the scope of the
    /// earlier binders, and leaves them all in `cx`.
    pub(in crate::check) fn telescope<'s>(
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
            // (`Cx::push` notes the name's type for hover when recording.)
            cx.push(p.name.name, p.name.span, ty.clone());
            binders.push(Binder {
                name: name_of(p.name.name),
                plicity: p.plicity,
                ty,
            });
        }
        binders
    }
}
