//! What the checker learns about each place of a program, kept for an editor.
//!
//! The language server (`spindle lsp`) answers "what is the type of this expression",
//! "where is this name defined" and "what could fill this hole" from what the checker
//! met on its way, not from a second analysis that could disagree with it. While a
//! recording is on ([`start`]), the elaborator notes the type of every expression it
//! checks or infers, the global each name resolves to, and each typed hole with its
//! goal, its local variables and the case splits they allow; [`take`] collects them.
//!
//! The recording is per thread and off by default: the command line and the REPL pay
//! one thread-local flag test per expression for it, nothing else.

use crate::check::scope::Global;
use crate::core::term::{DataId, RcTerm};
use crate::syntax::span::{FileId, Span};
use std::cell::{Cell, RefCell};

/// The type of the expression at a place, in the local context it was checked in.
#[derive(Clone, Debug)]
pub struct TypeAt {
    /// The expression's place.
    pub span: Span,
    /// Its type, with every unknown substituted once the check is over.
    pub ty: RcTerm,
    /// The names of the innermost local variables around it that the type may
    /// mention, outermost first (what the type's variables are printed as).
    pub names: Vec<String>,
}

/// A name that resolved to a global declaration.
#[derive(Clone, Copy, Debug)]
pub struct NameAt {
    /// Where the name is written.
    pub span: Span,
    /// What it means.
    pub global: Global,
}

/// A name that refers to a local variable (a parameter, a `let` or `where` binding, a
/// lambda's binder, a pattern variable).
#[derive(Clone, Copy, Debug)]
pub struct LocalAt {
    /// Where the name is written.
    pub span: Span,
    /// Where the variable is bound (the binder's name).
    pub binder: Span,
}

/// Where a local variable is in scope, as the checker had it: for completing the
/// names in scope at a place.
#[derive(Clone, Debug)]
pub struct ScopeAt {
    /// The variable's name.
    pub name: String,
    /// Where it is bound (the binder's name; its type is recorded there).
    pub binder: Span,
    /// From the start of the first expression checked with the variable in scope to
    /// the end of the last (its body: a lambda's, an arm's, a `let`'s; a definition's
    /// later parameters, result type and body for a parameter).
    pub extent: Span,
}

/// A local variable at a typed hole.
#[derive(Clone, Debug)]
pub struct HoleLocal {
    /// Its name.
    pub name: String,
    /// Its type, as shown in the hole's report.
    pub ty: String,
    /// The arms of a `match` on it (`| PATTERN -> ?h`), when its type is a data type.
    pub arms: Option<Vec<String>>,
}

/// How a name fills a typed hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FillKind {
    /// A local variable whose type is the hole's (or instantiates to it).
    Local,
    /// A global whose type is the hole's, as it is.
    Exact,
    /// A global whose type is the hole's once its implicit parameters are
    /// instantiated (`length : {a : Type} -> List a -> Int` for `List Int -> Int`).
    Instantiated,
}

/// A name that can fill a typed hole: the checker's unifier found its type fits the
/// hole's goal, in a trial it then undid.
#[derive(Clone, Debug)]
pub struct Fill {
    /// The name, as written at the hole.
    pub name: String,
    /// How it fits.
    pub kind: FillKind,
    /// Where it is declared (`None` for a local variable).
    pub declared: Option<Span>,
}

/// A typed hole, as the checker reports it.
#[derive(Clone, Debug)]
pub struct HoleAt {
    /// The hole's place (`?h`).
    pub span: Span,
    /// Its name, without `?` (`None` for `?` alone).
    pub name: Option<String>,
    /// The type it must have, as shown in the report.
    pub goal: String,
    /// The goal mentions an unknown (no name can be said to have it).
    pub goal_open: bool,
    /// The local variables in scope there (the innermost ones the report lists).
    pub locals: Vec<HoleLocal>,
    /// The names that fit it: its local variables first, then the globals in scope
    /// whose type is its goal, then those whose type instantiates to it (each in the
    /// order: the file's, its imports', the prelude's), at most
    /// [`MAX_FILLS`]; none when the goal is open.
    pub fills: Vec<Fill>,
}

/// How many names a hole's record lists as fitting it at most.
pub const MAX_FILLS: usize = 24;

/// Everything recorded during one check.
#[derive(Default, Debug)]
pub struct Recording {
    /// The types of expressions, in the order checked.
    pub types: Vec<TypeAt>,
    /// The names that resolved to globals.
    pub names: Vec<NameAt>,
    /// The names that resolved to local variables.
    pub locals: Vec<LocalAt>,
    /// The typed holes.
    pub holes: Vec<HoleAt>,
    /// The local variables' scopes.
    pub scopes: Vec<ScopeAt>,
}

/// Types larger than this (in nodes, as a tree) are not recorded: a hover would cut
/// them anyway, and walking them would cost more than a hover is worth.
const MAX_RECORDED_TYPE: usize = 4096;

/// [`FILE`] when no recording is on.
const OFF: u32 = u32::MAX;
/// [`FILE`] when every file is recorded.
const ALL: u32 = u32::MAX - 1;

thread_local! {
    /// The file whose places are recorded ([`OFF`], [`ALL`] or a file id).
    static FILE: Cell<u32> = const { Cell::new(OFF) };
    static DATA: RefCell<Recording> = RefCell::new(Recording::default());
}

/// Starts recording the checks made on this thread, of the places in `file` (every
/// file's if `None`); what was recorded before is dropped.
pub fn start(file: Option<FileId>) {
    FILE.with(|f| f.set(file.map_or(ALL, |f| f.0.min(ALL - 1))));
    DATA.with(|d| *d.borrow_mut() = Recording::default());
}

/// Stops recording and returns what was recorded.
pub fn take() -> Recording {
    FILE.with(|f| f.set(OFF));
    DATA.with(|d| std::mem::take(&mut *d.borrow_mut()))
}

/// Whether a recording is on.
#[inline]
pub(crate) fn on() -> bool {
    FILE.with(Cell::get) != OFF
}

/// Whether a recording is on and wants the place `span`.
#[inline]
pub(crate) fn wants(span: Span) -> bool {
    let f = FILE.with(Cell::get);
    f != OFF && (f == ALL || f == span.file.0)
}

/// Notes the type of the expression at `span` (when recording), in a context of
/// `depth` variables whose names from the `from`-th on `names(from)` gives.
pub(crate) fn note_type(
    span: Span,
    ty: &RcTerm,
    names: impl FnOnce(u32) -> Vec<String>,
    depth: u32,
) {
    // Only the variables the type can mention need their names (most types mention
    // none: no names are copied for them).
    let Some(bound) = free_bound(ty) else {
        return;
    };
    let bound = bound.min(depth);
    let names = if bound == 0 {
        Vec::new()
    } else {
        names(depth - bound)
    };
    DATA.with(|d| {
        d.borrow_mut().types.push(TypeAt {
            span,
            ty: ty.clone(),
            names,
        })
    });
}

/// One more than the largest index of a variable `t` may mention (an unknown mentions
/// those it is applied to), or `None` for a type too large to be worth a hover.
fn free_bound(t: &RcTerm) -> Option<u32> {
    use crate::core::term::{HoleKind, Ix, Term};
    let mut bound = 0;
    let mut stack = vec![(t, 0u32)];
    let mut visited = 0usize;
    while let Some((t, d)) = stack.pop() {
        visited += 1;
        if visited > MAX_RECORDED_TYPE {
            return None;
        }
        match &**t {
            Term::Var(Ix(i)) if *i >= d => bound = bound.max(i - d + 1),
            Term::Hole(HoleKind::MetaCtx(_, count, skip), _) if skip + count > d => {
                bound = bound.max(skip + count - d)
            }
            _ => {}
        }
        t.for_each_child(|c, b| stack.push((c, d + b)));
    }
    Some(bound)
}

/// Notes that the name at `span` means `global`.
pub(crate) fn note_name(span: Span, global: Global) {
    DATA.with(|d| d.borrow_mut().names.push(NameAt { span, global }));
}

/// Notes that the name at `span` refers to the local variable bound at `binder`.
pub(crate) fn note_local(span: Span, binder: Span) {
    DATA.with(|d| d.borrow_mut().locals.push(LocalAt { span, binder }));
}

/// Notes that the local variable `name`, bound at `binder`, is in scope over
/// `extent`.
pub(crate) fn note_scope(name: &str, binder: Span, extent: Span) {
    DATA.with(|d| {
        d.borrow_mut().scopes.push(ScopeAt {
            name: name.to_string(),
            binder,
            extent,
        })
    });
}

/// Notes a typed hole.
pub(crate) fn note_hole(hole: HoleAt) {
    DATA.with(|d| d.borrow_mut().holes.push(hole));
}

/// Substitutes the solutions of unknowns in every recorded type (once the check is
/// over).
pub(crate) fn finish(zonk: impl Fn(&RcTerm) -> RcTerm) {
    DATA.with(|d| {
        for t in &mut d.borrow_mut().types {
            t.ty = zonk(&t.ty);
        }
    });
}

/// The data type a type is an application of, if it is one.
pub fn data_head(ty: &RcTerm) -> Option<DataId> {
    let (head, _) = crate::core::term::spine(ty);
    match &**head {
        crate::core::term::Term::Data(d) => Some(*d),
        _ => None,
    }
}

/// Adds records (of declarations whose check was reused, see
/// [`crate::check::reuse`]).
pub(crate) fn extend(group: GroupRecords) {
    DATA.with(|d| {
        let mut d = d.borrow_mut();
        d.types.extend(group.types);
        d.names.extend(group.names);
        d.locals.extend(group.locals);
        d.holes.extend(group.holes);
        d.scopes.extend(group.scopes);
    });
}

/// What was recorded of the places of one group of declarations.
#[derive(Default, Clone, Debug)]
pub(crate) struct GroupRecords {
    pub(crate) types: Vec<TypeAt>,
    pub(crate) names: Vec<NameAt>,
    pub(crate) locals: Vec<LocalAt>,
    pub(crate) holes: Vec<HoleAt>,
    /// The scopes of the variables bound in the group (by the binder's place).
    pub(crate) scopes: Vec<ScopeAt>,
}

/// Copies of the records, grouped by `group_of` into `n` groups (records in no group
/// left out).
pub(crate) fn select(group_of: &dyn Fn(Span) -> Option<usize>, n: usize) -> Vec<GroupRecords> {
    let mut out: Vec<GroupRecords> = (0..n).map(|_| Default::default()).collect();
    DATA.with(|d| {
        let d = d.borrow();
        for t in &d.types {
            if let Some(g) = group_of(t.span).and_then(|g| out.get_mut(g)) {
                g.types.push(t.clone());
            }
        }
        for x in &d.names {
            if let Some(g) = group_of(x.span).and_then(|g| out.get_mut(g)) {
                g.names.push(*x);
            }
        }
        for x in &d.locals {
            if let Some(g) = group_of(x.span).and_then(|g| out.get_mut(g)) {
                g.locals.push(*x);
            }
        }
        for h in &d.holes {
            if let Some(g) = group_of(h.span).and_then(|g| out.get_mut(g)) {
                g.holes.push(h.clone());
            }
        }
        for x in &d.scopes {
            if let Some(g) = group_of(x.binder).and_then(|g| out.get_mut(g)) {
                g.scopes.push(x.clone());
            }
        }
    });
    out
}
