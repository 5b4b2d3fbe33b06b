//! Name resolution: which global a name means in a unit (its own declarations, its
//! imports, the prelude, the built-in names).

use super::*;

impl<'e> Elab<'e> {
    /// The global a name means in an expression in `cx`'s unit (a constructor rather
    /// than a type of the same name); reports an unbound or ambiguous name.
    pub(in crate::check) fn global(
        &mut self,
        cx: &Cx<'_>,
        name: &str,
        span: Span,
    ) -> Option<Global> {
        self.global_as(cx, name, span, false)
    }

    /// The global a name means in `cx`'s unit: where a type is expected (`want_type`)
    /// a type rather than a constructor of the same name, else the reverse. Reports an
    /// unbound or ambiguous name.
    pub(in crate::check) fn global_as(
        &mut self,
        cx: &Cx<'_>,
        name: &str,
        span: Span,
        want_type: bool,
    ) -> Option<Global> {
        let get = |s: &scope::UnitScope| s.get_as(name, want_type);
        if let Some((g, _)) = get(&self.scopes[cx.unit]) {
            return Some(g);
        }
        let found: Vec<(Global, Span)> = self.imports[cx.unit]
            .iter()
            .filter_map(|(u, _)| get(&self.scopes[*u]))
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
            && let Some((g, _)) = get(&self.scopes[PRELUDE_UNIT])
        {
            return Some(g);
        }
        if let Some(g) = scope::builtin(name) {
            return Some(g);
        }
        if want_type {
            // No type of that name: what the name means in an expression (a
            // constructor in a type's place is then reported as such).
            return self.global_as(cx, name, span, false);
        }
        self.unbound(cx, name, span);
        None
    }
}
