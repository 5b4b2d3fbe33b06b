//! Messages about a program: typed holes with their goals, unbound names with a
//! suggestion, type mismatches; types shown in messages are cut to a readable length.

use super::*;

/// How long a type shown in a message may be (LANGUAGE.md section 6: types in messages
/// are cut to a readable length); the rest is shown as `…`.
pub(in crate::check) const SHOWN_TYPE_LIMIT: usize = 300;

/// How many local variables a typed hole's report lists (the innermost ones).
const HOLE_LOCALS_SHOWN: usize = 30;

/// A typed hole, reported once elaboration is over: by then the unknowns in its goal
/// and in the types of the variables around it are solved as far as they will be (in
/// `Just ?x` where a `Maybe Int` is expected, `?x`'s type is known only after the
/// application is checked against `Maybe Int`).
pub(in crate::check) struct PendingHole {
    label: String,
    pub(super) span: Span,
    pub(super) goal: RcTerm,
    /// The innermost local variables: name and type (in the hole's scope).
    pub(super) locals: Vec<(String, RcTerm)>,
    /// How many more local variables there are.
    more: usize,
    /// Display names of the variables the goal and those types may mention.
    names: Vec<String>,
    /// The scope unit it is in.
    pub(super) unit: usize,
    /// The local context at the hole, kept when its place is recorded (for the
    /// language server): what the names that may fill it are tried in.
    pub(super) entries: Option<Vec<crate::check::eval::CtxEntry>>,
}

impl PendingHole {
    /// The hole's name, without `?`, from its label (`None` for `?` alone).
    fn label_name(&self) -> Option<&str> {
        self.label
            .strip_prefix("hole `?")
            .and_then(|s| s.strip_suffix('`'))
            .filter(|s| !s.is_empty())
    }
}

impl<'e> Elab<'e> {
    /// Records a typed hole: the goal and the local variables with their types, to be
    /// reported by [`Elab::report_holes`].
    pub(in crate::check) fn report_goal(
        &mut self,
        cx: &Cx<'_>,
        name: Option<&str>,
        goal: &RcTerm,
        span: Span,
    ) {
        if let Some(var) = crate::check::split::wanted_at(name) {
            let arms = self.split_arms(cx, name.unwrap_or(""), &var, span);
            crate::check::split::answer(arms);
        }
        let label = match name {
            Some(n) => format!("hole `?{n}`"),
            None => "hole `?`".to_string(),
        };
        let mut seen = std::collections::HashSet::new();
        let mut locals = Vec::new();
        let mut more = 0;
        for (n, lvl) in cx.names.innermost_first() {
            if n == "_" || !seen.insert(n) {
                continue;
            }
            if locals.len() == HOLE_LOCALS_SHOWN {
                more += 1;
                continue;
            }
            locals.push((n.to_string(), cx.type_of(lvl)));
        }
        locals.reverse();
        let depth = cx.depth();
        let reach = std::iter::once(goal)
            .chain(locals.iter().map(|(_, t)| t))
            .map(crate::core::subst::free_var_bound)
            .max()
            .unwrap_or(0)
            .min(depth);
        self.holes.push(PendingHole {
            label,
            span,
            goal: goal.clone(),
            locals,
            more,
            names: cx.display_names(depth - reach),
            unit: cx.unit,
            entries: crate::check::record::wants(span).then(|| cx.entries.clone()),
        });
    }

    /// The arms of a `match` on the local variable `var` at the hole `?hole` (in
    /// `cx`): one `| PATTERN -> ?hole` per constructor of the variable's data type,
    /// its fields named after their types and apart from the names in scope.
    fn split_arms(
        &mut self,
        cx: &Cx<'_>,
        hole: &str,
        var: &str,
        span: Span,
    ) -> Result<Vec<String>, String> {
        let lvl = cx
            .lookup(var)
            .ok_or_else(|| format!("`{var}` is not a local variable at the hole `?{hole}`"))?;
        let ty = self.metas.zonk(&cx.type_of(lvl));
        let ty = self.whnf(cx, &ty, span);
        let (head, _) = crate::core::term::spine(&ty);
        let pair = self.program.builtins.pair;
        let head_data = match &**head {
            Term::Data(d) => Some(*d),
            // A tuple of types written as a type (`(Int, Bool)`) is a pair type.
            Term::Con(c) if *c == self.program.builtins.mk_pair => Some(pair),
            _ => None,
        };
        let Some(d) = &head_data else {
            let shown = self.show(cx, &ty);
            return Err(format!(
                "`{var}` has type `{shown}`, which is not a data type: there are no cases to split into"
            ));
        };
        let taken: std::collections::HashSet<String> = cx
            .names
            .innermost_first()
            .map(|(n, _)| n.to_string())
            .collect();
        Ok(arms_of(&self.program, *d, taken, hole))
    }

    /// Reports every typed hole recorded, with the types as the end of elaboration
    /// knows them.
    pub(in crate::check) fn report_holes(&mut self) {
        for hole in std::mem::take(&mut self.holes) {
            let recorded = crate::check::record::wants(hole.span);
            let mut open = Vec::new();
            if recorded {
                self.metas
                    .unsolved_in(&self.metas.zonk(&hole.goal), &mut open);
            }
            let fills = if recorded && open.is_empty() {
                self.fills(&hole)
            } else {
                Vec::new()
            };
            let names: Vec<&str> = hole.names.iter().map(String::as_str).collect();
            let mut unknowns = Vec::new();
            let mut show = |t: &RcTerm| {
                let t = self.metas.zonk(t);
                pretty::term_to_string_cut_unknowns(
                    &self.program,
                    &names,
                    &t,
                    SHOWN_TYPE_LIMIT,
                    &mut unknowns,
                )
            };
            let shown = show(&hole.goal);
            if recorded {
                self.record_hole(&hole, &shown, !open.is_empty(), fills);
            }
            let mut d = Diagnostic::error(format!("{} has type `{shown}`", hole.label))
                .at(hole.span, format!("expected type: {shown}"));
            if hole.locals.is_empty() {
                d = d.note("no local variables are in scope");
            } else {
                let mut lines: Vec<String> = Vec::new();
                if hole.more > 0 {
                    lines.push(format!("  ... and {} more", hole.more));
                }
                for (n, t) in &hole.locals {
                    lines.push(format!("  {n} : {}", show(t)));
                }
                d = d.note(format!("local variables:\n{}", lines.join("\n")));
            }
            let d = self.explain_unknowns(d, &unknowns);
            self.errors.push(d);
        }
    }

    /// Notes a typed hole for the language server ([`crate::check::record`]): its
    /// goal, its locals with their types, the arms of a case split on each local of a
    /// data type, and the names that fit it.
    fn record_hole(
        &self,
        hole: &PendingHole,
        goal: &str,
        goal_open: bool,
        fills: Vec<crate::check::record::Fill>,
    ) {
        let names: Vec<&str> = hole.names.iter().map(String::as_str).collect();
        let taken: std::collections::HashSet<String> =
            hole.locals.iter().map(|(n, _)| n.clone()).collect();
        let hole_name = hole.label_name();
        let locals = hole
            .locals
            .iter()
            .map(|(n, t)| {
                let t = self.metas.zonk(t);
                let mut unknowns = Vec::new();
                let ty = pretty::term_to_string_cut_unknowns(
                    &self.program,
                    &names,
                    &t,
                    SHOWN_TYPE_LIMIT,
                    &mut unknowns,
                );
                let arms = crate::check::record::data_head(&t)
                    .map(|d| arms_of(&self.program, d, taken.clone(), hole_name.unwrap_or("")));
                crate::check::record::HoleLocal {
                    name: n.clone(),
                    ty,
                    arms,
                }
            })
            .collect();
        crate::check::record::note_hole(crate::check::record::HoleAt {
            span: hole.span,
            name: hole_name.map(str::to_string),
            goal: goal.to_string(),
            goal_open,
            locals,
            fills,
        });
    }

    /// Reports an unbound name, suggesting a close one in scope.
    pub(in crate::check) fn unbound(&mut self, cx: &Cx<'_>, name: &str, span: Span) {
        // The innermost locals (a suggestion among a hundred thousand would cost more
        // than it helps).
        let mut candidates: Vec<String> = cx
            .names
            .innermost_first()
            .take(1000)
            .map(|(n, _)| n.to_string())
            .collect();
        candidates.extend(self.scopes[cx.unit].names().map(str::to_string));
        for (u, _) in &self.imports[cx.unit] {
            candidates.extend(self.scopes[*u].names().map(str::to_string));
        }
        candidates.extend(self.scopes[PRELUDE_UNIT].names().map(str::to_string));
        candidates.extend(scope::builtin_names().map(str::to_string));
        let mut d = Diagnostic::error(format!("unbound name `{name}`")).at(span, "not in scope");
        if name == "where" {
            d = d.note(
                "help: `where` belongs to a `def`: it starts its own line after the def's body, \
                 then one binding per line; elsewhere use `let name = e in ...`",
            );
        } else if let Some(s) = scope::suggest(name, candidates.iter().map(String::as_str)) {
            d = d.note(format!("help: did you mean `{s}`?"));
        }
        self.errors.push(d);
    }

    /// Prints a type for a message, with the user's names for the variables in scope,
    /// cut to [`SHOWN_TYPE_LIMIT`] bytes.
    pub(in crate::check) fn show(&self, cx: &Cx<'_>, t: &RcTerm) -> String {
        let t = self.metas.zonk(t);
        // Only the variables `t` can refer to need names.
        let depth = cx.depth();
        let from = depth - crate::core::subst::free_var_bound(&t).min(depth);
        let names = cx.display_names(from);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        pretty::term_to_string_cut(&self.program, &refs, &t, SHOWN_TYPE_LIMIT)
    }

    /// [`Elab::show`], naming the unknowns `t` mentions after those of `unknowns`
    /// (which it extends): the types of one message share the names `_t`, `_t2`...
    pub(in crate::check) fn show_unknowns(
        &self,
        cx: &Cx<'_>,
        t: &RcTerm,
        unknowns: &mut Vec<u32>,
    ) -> String {
        let t = self.metas.zonk(t);
        let depth = cx.depth();
        let from = depth - crate::core::subst::free_var_bound(&t).min(depth);
        let names = cx.display_names(from);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        pretty::term_to_string_cut_unknowns(&self.program, &refs, &t, SHOWN_TYPE_LIMIT, unknowns)
    }

    /// Says where each unknown a message names comes from: a label at the place it
    /// was made for (`_t` is the type of the parameter `n`).
    pub(in crate::check) fn explain_unknowns(
        &self,
        mut d: Diagnostic,
        unknowns: &[u32],
    ) -> Diagnostic {
        for (k, id) in unknowns.iter().enumerate() {
            let info = self.metas.get(*id);
            let name = pretty::unknown_name(k);
            d = d.also(
                info.span,
                format!("`{name}` is {}, not known at this point", info.what),
            );
        }
        d
    }

    /// Whether `t` is (an application of) an unknown standing for a type after an
    /// error: it agrees with anything, so a mismatch with it is no second error.
    pub(in crate::check) fn is_recovery(&self, t: &RcTerm) -> bool {
        let t = self.metas.force_head(t);
        crate::check::meta::flex(&t)
            .is_some_and(|f| self.metas.is_unsolved(f.id) && self.metas.get(f.id).defaultable)
    }

    /// Reports that `found` is not `expected` at `span`, unless a failure of type-level
    /// evaluation there, or an earlier error (a type standing for something already
    /// reported), explains it.
    pub(in crate::check) fn mismatch(
        &mut self,
        cx: &Cx<'_>,
        span: Span,
        found: &RcTerm,
        expected: &RcTerm,
    ) {
        if self.eval_failures.contains(&span)
            || self.is_recovery(found)
            || self.is_recovery(expected)
        {
            return;
        }
        let mut unknowns = Vec::new();
        let e = self.show_unknowns(cx, expected, &mut unknowns);
        let f = self.show_unknowns(cx, found, &mut unknowns);
        let d = Diagnostic::error(format!("type mismatch: expected `{e}`, found `{f}`"))
            .at(span, format!("this has type `{f}`"))
            .note(format!("expected: {e}"))
            .note(format!("   found: {f}"));
        let d = self.explain_unknowns(d, &unknowns);
        self.errors.push(d);
    }
}

/// The arms of a `match` on a value of the data type `d`: one `| PATTERN -> ?hole`
/// per constructor, its fields named after their types and apart from the names in
/// `taken` (`?` alone when `hole` is empty). `spindle check --split`, the REPL's
/// `:split` and the language server's case split all write arms this way.
pub(crate) fn arms_of(
    program: &crate::core::program::Program,
    d: DataId,
    mut taken: std::collections::HashSet<String>,
    hole: &str,
) -> Vec<String> {
    let data = program.data(d);
    let b = &program.builtins;
    let (list, pair, nil, cons) = (b.list, b.pair, b.nil, b.cons);
    let mut arms = Vec::new();
    for (i, ctor) in data.ctors.iter().enumerate() {
        let mut names = Vec::new();
        for (j, field) in ctor.fields.iter().enumerate() {
            let base = match ctor.field_names.get(j) {
                Some(n) => n.to_string(),
                None => field_name(program, field),
            };
            let mut name = base.clone();
            let mut k = 1;
            while taken.contains(&name) {
                name = format!("{base}{k}");
                k += 1;
            }
            taken.insert(name.clone());
            names.push(name);
        }
        let con = crate::core::term::ConId {
            data: d,
            index: i as u32,
        };
        let pattern = if d == list && con == nil {
            "[]".to_string()
        } else if d == pair && names.len() == 2 {
            format!("({}, {})", names[0], names[1])
        } else if d == list && con == cons && names.len() == 2 {
            format!("{} :: {}", names[0], names[1])
        } else if !ctor.field_names.is_empty() {
            let fields: Vec<String> = ctor
                .field_names
                .iter()
                .zip(&names)
                .map(|(f, n)| {
                    if **f == *n {
                        n.clone()
                    } else {
                        format!("{f} = {n}")
                    }
                })
                .collect();
            format!("{{ {} }}", fields.join(", "))
        } else if names.is_empty() {
            ctor.name.to_string()
        } else {
            format!("{} {}", ctor.name, names.join(" "))
        };
        arms.push(format!("| {pattern} -> ?{hole}"));
    }
    arms
}

/// A name for a field of type `ty`, from the type: `n` for an `Int`, `s` for a
/// `String`, `xs` for a list, the type's initial for a data type, `f` for a function,
/// `x` otherwise.
fn field_name(prog: &crate::core::program::Program, ty: &RcTerm) -> String {
    use crate::core::term::PrimType;
    let (head, _) = crate::core::term::spine(ty);
    match &**head {
        Term::PrimType(PrimType::Int) => "n".into(),
        Term::PrimType(PrimType::Float) => "x".into(),
        Term::PrimType(PrimType::String) => "s".into(),
        Term::PrimType(PrimType::Char) => "c".into(),
        Term::Data(d) if *d == prog.builtins.list => "xs".into(),
        Term::Data(d) => prog
            .data(*d)
            .name
            .chars()
            .next()
            .map(|c| c.to_lowercase().to_string())
            .unwrap_or_else(|| "x".into()),
        Term::Pi(..) => "f".into(),
        Term::Universe(_) => "t".into(),
        _ => "x".into(),
    }
}
