//! The local context of elaboration: the variables in scope with their types (and
//! values, for `let`), and the names the source uses for them.

use super::*;

/// The local context while elaborating: the variables in scope with their types (and
/// values, for `let`), and the names the source can use for them. A pattern variable
/// names an existing variable, so names and variables are kept apart.
pub(in crate::check) struct Cx<'s> {
    pub(in crate::check) unit: usize,
    pub(in crate::check) names: Vec<(&'s str, Lvl)>,
    pub(in crate::check) entries: Vec<CtxEntry>,
}

impl<'s> Cx<'s> {
    pub(in crate::check) fn new(unit: usize) -> Cx<'s> {
        Cx {
            unit,
            names: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// How many variables are in scope.
    pub(in crate::check) fn depth(&self) -> u32 {
        self.entries.len() as u32
    }

    /// Enters a variable the source calls `name`, of type `ty` (in the current scope).
    pub(in crate::check) fn push(&mut self, name: &'s str, ty: RcTerm) {
        self.names.push((name, Lvl(self.depth())));
        self.push_hidden(name_of(name), ty);
    }

    /// Enters a variable no source name refers to (a pattern's field, an inserted
    /// implicit parameter, a bound scrutinee).
    pub(in crate::check) fn push_hidden(&mut self, name: Name, ty: RcTerm) {
        self.entries.push(CtxEntry {
            name,
            ty,
            value: None,
        });
    }

    /// Leaves the innermost variable (and its name, if it has one).
    pub(in crate::check) fn pop(&mut self) {
        let lvl = Lvl(self.depth() - 1);
        if self.names.last().is_some_and(|(_, l)| *l == lvl) {
            self.names.pop();
        }
        self.entries.pop();
    }

    /// The index of the variable at `lvl`, seen from here.
    pub(in crate::check) fn var(&self, lvl: Lvl) -> RcTerm {
        Term::Var(lvl.to_ix(self.depth())).rc()
    }

    /// The type of the variable at `lvl`, in the current scope.
    pub(in crate::check) fn type_of(&self, lvl: Lvl) -> RcTerm {
        shift(&self.entries[lvl.0 as usize].ty, self.depth() - lvl.0)
    }

    /// The variable a local name denotes, if it is a local.
    pub(in crate::check) fn lookup(&self, name: &str) -> Option<Lvl> {
        self.names
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, l)| *l)
    }

    /// Display names of the variables in scope from level `from` on, outermost first
    /// (for printing types whose free variables are all at least that level).
    pub(in crate::check) fn display_names(&self, from: u32) -> Vec<String> {
        self.entries[from as usize..]
            .iter()
            .map(|e| e.name.to_string())
            .collect()
    }
}
