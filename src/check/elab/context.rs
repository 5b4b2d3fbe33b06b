//! The local context of elaboration: the variables in scope with their types (and
//! values, for `let`), and the names the source uses for them.

use super::*;
use std::collections::HashMap;

/// The local context while elaborating: the variables in scope with their types (and
/// values, for `let`), and the names the source can use for them. A pattern variable
/// names an existing variable, so names and variables are kept apart.
pub(in crate::check) struct Cx<'s> {
    pub(in crate::check) unit: usize,
    pub(in crate::check) names: Names<'s>,
    pub(in crate::check) entries: Vec<CtxEntry>,
}

/// The variable a name names and where its binder is written.
type Bound = (Lvl, Span);

/// The source names in scope, in the order they were bound, with an index from each
/// name to the variable it names now, so that looking a name up costs the same in a
/// context of a hundred thousand variables as in a small one. Each binding remembers
/// what its name named before, which unbinding restores.
///
/// When the checker records places (the language server), each binding also gathers
/// the places of the expressions checked while it is the innermost one ([`Names::touch`]);
/// when it is unbound, what it gathered goes to the binding around it and the whole is
/// noted as the variable's scope ([`crate::check::record::note_scope`]): completion
/// offers the variables whose scope holds the cursor.
#[derive(Default)]
pub(in crate::check) struct Names<'s> {
    stack: Vec<Binding<'s>>,
    index: HashMap<&'s str, Bound>,
}

/// One name bound, in [`Names`].
struct Binding<'s> {
    name: &'s str,
    lvl: Lvl,
    /// Where its binder is written.
    binder: Span,
    /// What the name named before.
    before: Option<Bound>,
    /// The places checked in its scope so far (when recording).
    reach: Reach,
}

/// The smallest range of a file holding some places: `start > end` while empty.
#[derive(Clone, Copy)]
struct Reach {
    start: u32,
    end: u32,
}

impl Reach {
    /// No place yet.
    const EMPTY: Reach = Reach {
        start: u32::MAX,
        end: 0,
    };

    /// Grows to hold `start..end`.
    fn add(&mut self, start: u32, end: u32) {
        self.start = self.start.min(start);
        self.end = self.end.max(end);
    }

    /// Whether it holds no place.
    fn is_empty(self) -> bool {
        self.start > self.end
    }
}

impl<'s> Names<'s> {
    /// Binds `name`, written at `binder`, to the variable at `lvl`, shadowing what it
    /// named before.
    pub(in crate::check) fn push(&mut self, name: &'s str, binder: Span, lvl: Lvl) {
        let before = self.index.insert(name, (lvl, binder));
        self.stack.push(Binding {
            name,
            lvl,
            binder,
            before,
            reach: Reach::EMPTY,
        });
    }

    /// Unbinds the innermost name.
    pub(in crate::check) fn pop(&mut self) -> Option<(&'s str, Lvl)> {
        let b = self.stack.pop()?;
        match b.before {
            Some(before) => {
                self.index.insert(b.name, before);
            }
            None => {
                self.index.remove(b.name);
            }
        }
        self.close(&b);
        Some((b.name, b.lvl))
    }

    /// Notes that the expression at `span` (a place recorded) was checked with the
    /// names as they are: it is in the innermost binding's scope.
    pub(in crate::check) fn touch(&mut self, span: Span) {
        if let Some(b) = self.stack.last_mut() {
            b.reach.add(span.start, span.end);
        }
    }

    /// Ends the scope of a binding just unbound: the places it gathered are in the
    /// scope of the binding around it too, and are noted as its scope.
    fn close(&mut self, b: &Binding<'s>) {
        if b.reach.is_empty() {
            return;
        }
        if let Some(outer) = self.stack.last_mut() {
            outer.reach.add(b.reach.start, b.reach.end);
        }
        if b.binder.end > b.binder.start && crate::check::record::wants(b.binder) {
            let extent = Span::new(b.binder.file, b.reach.start, b.reach.end);
            crate::check::record::note_scope(b.name, b.binder, extent);
        }
    }

    /// The innermost binding, if any.
    pub(in crate::check) fn last(&self) -> Option<(&'s str, Lvl)> {
        self.stack.last().map(|b| (b.name, b.lvl))
    }

    /// How many bindings there are.
    pub(in crate::check) fn len(&self) -> usize {
        self.stack.len()
    }

    /// Unbinds names until `len` are left.
    pub(in crate::check) fn truncate(&mut self, len: usize) {
        while self.stack.len() > len {
            self.pop();
        }
    }

    /// The variable `name` names, if any.
    pub(in crate::check) fn get(&self, name: &str) -> Option<Lvl> {
        self.index.get(name).map(|&(l, _)| l)
    }

    /// The variable `name` names and where its binder is written, if any.
    pub(in crate::check) fn get_bound(&self, name: &str) -> Option<(Lvl, Span)> {
        self.index.get(name).copied()
    }

    /// The bindings, innermost first (shadowed ones included).
    pub(in crate::check) fn innermost_first(&self) -> impl Iterator<Item = (&'s str, Lvl)> + '_ {
        self.stack.iter().rev().map(|b| (b.name, b.lvl))
    }
}

impl Drop for Names<'_> {
    /// A context dropped with names still bound (a definition's parameters) ends
    /// their scopes, innermost first.
    fn drop(&mut self) {
        while let Some(b) = self.stack.pop() {
            self.close(&b);
        }
    }
}

impl<'s> Cx<'s> {
    /// An empty context in the scope unit `unit`.
    pub(in crate::check) fn new(unit: usize) -> Cx<'s> {
        Cx {
            unit,
            names: Names::default(),
            entries: Vec::new(),
        }
    }

    /// How many variables are in scope.
    pub(in crate::check) fn depth(&self) -> u32 {
        self.entries.len() as u32
    }

    /// Enters a variable the source calls `name` (written at `binder`), of type `ty`
    /// (in the current scope).
    ///
    /// When the checker records places (the language server), the binder's name gets
    /// its type for hover: every binder (a lambda's, a `let`'s, a parameter, a pattern
    /// variable) comes through here.
    pub(in crate::check) fn push(&mut self, name: &'s str, binder: Span, ty: RcTerm) {
        if binder.end > binder.start && crate::check::record::wants(binder) {
            crate::check::record::note_type(
                binder,
                &ty,
                |from| self.display_names(from),
                self.depth(),
            );
        }
        self.names.push(name, binder, Lvl(self.depth()));
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
        if self.names.last().is_some_and(|(_, l)| l == lvl) {
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
        self.names.get(name)
    }

    /// The variable a local name denotes and where it is bound, if it is a local.
    pub(in crate::check) fn lookup_bound(&self, name: &str) -> Option<(Lvl, Span)> {
        self.names.get_bound(name)
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
