//! Unit tests of the elaborator's helpers.

use super::*;
use crate::core::equiv::alpha_eq;
use crate::syntax::span::FileId;

fn var(i: u32) -> RcTerm {
    Term::Var(Ix(i)).rc()
}

#[test]
fn refine_replaces_rigid_occurrences_and_leaves_unknowns_alone() {
    let span = Span::new(FileId(0), 0, 0);
    let z = Term::Lit(Lit::Int(0)).rc();
    let meta = Term::App(
        Term::Hole(HoleKind::Meta(0), span).rc(),
        Plicity::Explicit,
        var(0),
    )
    .rc();
    // f x (?m x) with x := 0 gives f 0 (?m x): the unknown keeps its argument.
    let t = Term::apps(var(1), [var(0), meta.clone()]);
    let want = Term::apps(var(1), [z.clone(), meta]);
    assert!(alpha_eq(&refine(&t, Ix(0), &z), &want));
    // Under a binder the variable's index and the replacement are shifted.
    let lam = |body: RcTerm| {
        Term::Lam(
            Binder {
                name: name_of("y"),
                plicity: Plicity::Explicit,
                ty: Term::Universe(0).rc(),
            },
            body,
        )
        .rc()
    };
    let t = lam(Term::apps(var(1), [var(2)]));
    let want = lam(Term::apps(z.clone(), [var(2)]));
    assert!(alpha_eq(&refine(&t, Ix(0), &z), &want));
}
