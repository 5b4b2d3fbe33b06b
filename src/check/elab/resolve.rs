//! Name resolution: which global a name means in a unit (its own declarations, its
//! imports, the prelude, the built-in names).

use super::*;

impl<'e> Elab<'e> {
    /// The global a name means in `cx`'s unit; reports an unbound or ambiguous name.
    pub(in crate::check) fn global(
        &mut self,
        cx: &Cx<'_>,
        name: &str,
        span: Span,
    ) -> Option<Global> {
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
}
