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

/// The checked program of `text` (which must have no errors).
fn checked(text: &str) -> Program {
    let loaded = crate::driver::load_text("t.sp", text);
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    loaded.program.expect("a program")
}

/// The body of the last definition called `name`.
fn body<'p>(p: &'p Program, name: &str) -> &'p RcTerm {
    &p.defs
        .iter()
        .rfind(|d| &*d.name == name)
        .expect("defined")
        .body
}

/// Whether `t` mentions a node for which `f` holds.
fn mentions(t: &RcTerm, f: &dyn Fn(&Term) -> bool) -> bool {
    let mut work = vec![t];
    while let Some(t) = work.pop() {
        if f(t) {
            return true;
        }
        t.for_each_child(|c, _| work.push(c));
    }
    false
}

/// A lambda of two explicit parameters of type `ty` around `body`.
fn lam2(ty: RcTerm, body: RcTerm) -> RcTerm {
    let b = |n: &str| Binder {
        name: name_of(n),
        plicity: Plicity::Explicit,
        ty: ty.clone(),
    };
    Term::Lam(b("a"), Term::Lam(b("b"), body).rc()).rc()
}

#[test]
fn concat_is_the_primitive_on_strings_and_the_preludes_append_on_lists() {
    let p = checked(
        "def append (x : Int) : Int = x\n\
         def s (a : String) (b : String) : String = a ++ b\n\
         def l (a : List Int) (b : List Int) : List Int = a ++ b\n",
    );
    let span = Span::new(FileId(0), 0, 0);
    let string = Term::PrimType(PrimType::String).rc();
    let want = lam2(
        string,
        Term::apps(Term::Prim(Prim::Concat, span).rc(), [var(1), var(0)]),
    );
    assert!(alpha_eq(body(&p, "s"), &want));

    // The prelude's `append`, not the file's own.
    let append = p.builtins.append.expect("the prelude has `append`");
    assert_ne!(
        Some(append),
        p.defs
            .iter()
            .rposition(|d| &*d.name == "append")
            .map(|i| DefId(i as u32))
    );
    let int = Term::PrimType(PrimType::Int).rc();
    let list_int = Term::App(
        Term::Data(p.builtins.list).rc(),
        Plicity::Explicit,
        int.clone(),
    )
    .rc();
    let head = Term::App(Term::Def(append).rc(), Plicity::Implicit, int).rc();
    let want = lam2(list_int, Term::apps(head, [var(1), var(0)]));
    assert!(alpha_eq(body(&p, "l"), &want));
}

#[test]
fn concat_whose_operand_type_is_found_later_is_decided_then() {
    let p = checked(
        "def s : String = let h = \\x y -> x ++ y in h \"p\" \"q\"\n\
         def l : List Int = let h = \\x y -> x ++ y in h [1] [2]\n",
    );
    let append = p.builtins.append;
    let is_append = |t: &Term| matches!(t, Term::Def(d) if Some(*d) == append);
    let is_concat = |t: &Term| matches!(t, Term::Prim(Prim::Concat, _));
    let is_unknown = |t: &Term| matches!(t, Term::Hole(..));
    assert!(mentions(body(&p, "s"), &is_concat) && !mentions(body(&p, "s"), &is_append));
    assert!(mentions(body(&p, "l"), &is_append) && !mentions(body(&p, "l"), &is_concat));
    assert!(!mentions(body(&p, "s"), &is_unknown) && !mentions(body(&p, "l"), &is_unknown));
}

#[test]
fn the_preludes_append_has_the_type_concat_relies_on() {
    let p = checked("");
    let append = p.builtins.append.expect("the prelude has `append`");
    let list_a =
        |ix: u32| Term::App(Term::Data(p.builtins.list).rc(), Plicity::Explicit, var(ix)).rc();
    let arrow = |dom: RcTerm, cod: RcTerm| {
        Term::Pi(
            Binder {
                name: name_of("_"),
                plicity: Plicity::Explicit,
                ty: dom,
            },
            cod,
        )
        .rc()
    };
    let want = Term::Pi(
        Binder {
            name: name_of("a"),
            plicity: Plicity::Implicit,
            ty: Term::Universe(0).rc(),
        },
        arrow(list_a(0), arrow(list_a(1), list_a(2))),
    )
    .rc();
    assert!(alpha_eq(&p.def(append).ty, &want), "{:?}", p.def(append).ty);
}

#[test]
fn concat_on_lists_needs_a_prelude_with_append() {
    let files: Vec<(&str, &str)> = crate::prelude::FILES
        .iter()
        .map(|(name, text)| {
            let text: &str = if *name == "list.sp" {
                "def map {a : Type} {b : Type} (f : a -> b) (xs : List a) : List b = \
                 match xs with | Nil -> Nil | Cons x rest -> Cons (f x) (map f rest)\n"
            } else {
                text
            };
            (*name, text)
        })
        .collect();
    // (The other prelude files miss the rest of `list.sp`: only this error matters.)
    let loaded =
        crate::driver::load_text_with_prelude(&files, "t.sp", "def l : List Int = [1] ++ [2]\n");
    let text = loaded.render_diagnostics();
    assert!(
        text.contains("`++` on lists needs the prelude's `append`"),
        "{text}"
    );
}
