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
use crate::syntax::span::Span;
use std::cell::{Cell, RefCell};

/// The type of the expression at a place, in the local context it was checked in.
#[derive(Clone, Debug)]
pub struct TypeAt {
    /// The expression's place.
    pub span: Span,
    /// Its type, with every unknown substituted once the check is over.
    pub ty: RcTerm,
    /// The names of the local variables around it, outermost first (what the type's
    /// variables are printed as).
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
}

/// Everything recorded during one check.
#[derive(Default, Debug)]
pub struct Recording {
    /// The types of expressions, in the order checked.
    pub types: Vec<TypeAt>,
    /// The names that resolved to globals.
    pub names: Vec<NameAt>,
    /// The typed holes.
    pub holes: Vec<HoleAt>,
}

/// Contexts deeper than this are not recorded (the names of a hundred thousand
/// nested variables would cost more than a hover is worth).
const MAX_RECORDED_DEPTH: usize = 256;

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static DATA: RefCell<Recording> = RefCell::new(Recording::default());
}

/// Starts recording the checks made on this thread (what was recorded before is
/// dropped).
pub fn start() {
    ON.with(|on| on.set(true));
    DATA.with(|d| *d.borrow_mut() = Recording::default());
}

/// Stops recording and returns what was recorded.
pub fn take() -> Recording {
    ON.with(|on| on.set(false));
    DATA.with(|d| std::mem::take(&mut *d.borrow_mut()))
}

/// Whether a recording is on.
#[inline]
pub(crate) fn on() -> bool {
    ON.with(Cell::get)
}

/// Notes the type of the expression at `span` (when recording).
pub(crate) fn note_type(
    span: Span,
    ty: &RcTerm,
    names: impl FnOnce() -> Vec<String>,
    depth: usize,
) {
    if depth > MAX_RECORDED_DEPTH {
        return;
    }
    let names = names();
    DATA.with(|d| {
        d.borrow_mut().types.push(TypeAt {
            span,
            ty: ty.clone(),
            names,
        })
    });
}

/// Notes that the name at `span` means `global`.
pub(crate) fn note_name(span: Span, global: Global) {
    DATA.with(|d| d.borrow_mut().names.push(NameAt { span, global }));
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
pub(crate) fn extend(types: Vec<TypeAt>, names: Vec<NameAt>, holes: Vec<HoleAt>) {
    DATA.with(|d| {
        let mut d = d.borrow_mut();
        d.types.extend(types);
        d.names.extend(names);
        d.holes.extend(holes);
    });
}

/// Copies of the records whose places satisfy `inside`.
pub(crate) fn select(inside: &dyn Fn(Span) -> bool) -> (Vec<TypeAt>, Vec<NameAt>, Vec<HoleAt>) {
    DATA.with(|d| {
        let d = d.borrow();
        (
            d.types.iter().filter(|t| inside(t.span)).cloned().collect(),
            d.names.iter().filter(|n| inside(n.span)).copied().collect(),
            d.holes.iter().filter(|h| inside(h.span)).cloned().collect(),
        )
    })
}
