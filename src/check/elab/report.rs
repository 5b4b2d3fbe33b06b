//! Messages about a program: typed holes with their goals, unbound names with a
//! suggestion, type mismatches; types shown in messages are cut to a readable length.

use super::*;

/// How long a type shown in a message may be (LANGUAGE.md section 6: types in messages
/// are cut to a readable length); the rest is shown as `…`.
pub(in crate::check) const SHOWN_TYPE_LIMIT: usize = 300;

impl<'e> Elab<'e> {
    /// Reports a typed hole: the goal and the local variables with their types.
    pub(in crate::check) fn report_goal(
        &mut self,
        cx: &Cx<'_>,
        name: Option<&str>,
        goal: &RcTerm,
        span: Span,
    ) {
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

    pub(in crate::check) fn unbound(&mut self, cx: &Cx<'_>, name: &str, span: Span) {
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

    pub(in crate::check) fn mismatch(
        &mut self,
        cx: &Cx<'_>,
        span: Span,
        found: &RcTerm,
        expected: &RcTerm,
    ) {
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
}
