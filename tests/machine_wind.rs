//! Winding and the folds: wind-then-readback is the identity (up to alpha) on random
//! well-scoped terms, wound stacks satisfy Rogers' seven properties, destruction frees
//! everything, and evaluating a wound stack agrees with evaluating the term directly.

mod machine_common;
use machine_common::*;
use proptest::prelude::*;
use spindle::core::program::Program;
use spindle::core::term::*;
use spindle::machine::Machine;
use spindle::machine::arena::NIL;
use spindle::machine::census::census;
use spindle::machine::dtor::stack_dtor;
use spindle::machine::heap::Heap;
use spindle::machine::invariants;
use spindle::machine::readback::{alpha_eq, get_ast};
use spindle::machine::wind::wind;
use spindle::prim::Prim;

/// A generated term shape (converted to a core term against the base program).
#[derive(Clone, Debug)]
enum G {
    Var(u32),
    Int(i64),
    Con(&'static str),
    Add,
    Lam(bool, Box<G>),
    App(bool, Box<G>, Box<G>),
    Let(Box<G>, Box<G>),
    If(Box<G>, Box<G>, Box<G>),
    MatchList(Box<G>, Box<G>, Box<G>),
    Pi(Box<G>, Box<G>),
}

fn gen_g(depth: u32, scope: u32) -> BoxedStrategy<G> {
    let mut leaves: Vec<BoxedStrategy<G>> = vec![
        (-5i64..100).prop_map(G::Int).boxed(),
        prop_oneof![Just("True"), Just("False"), Just("Nil"), Just("Cons")]
            .prop_map(G::Con)
            .boxed(),
        Just(G::Add).boxed(),
    ];
    if scope > 0 {
        leaves.push((0..scope).prop_map(G::Var).boxed());
        leaves.push((0..scope).prop_map(G::Var).boxed());
    }
    let leaf = proptest::strategy::Union::new(leaves).boxed();
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        2 => leaf,
        2 => (any::<bool>(), gen_g(d, scope + 1)).prop_map(|(i, b)| G::Lam(i, Box::new(b))),
        4 => (any::<bool>(), gen_g(d, scope), gen_g(d, scope))
            .prop_map(|(i, f, a)| G::App(i, Box::new(f), Box::new(a))),
        2 => (gen_g(d, scope + 1), gen_g(d, scope + 1))
            .prop_map(|(r, b)| G::Let(Box::new(r), Box::new(b))),
        1 => (gen_g(d, scope), gen_g(d, scope), gen_g(d, scope))
            .prop_map(|(c, t, e)| G::If(Box::new(c), Box::new(t), Box::new(e))),
        1 => (gen_g(d, scope), gen_g(d, scope), gen_g(d, scope + 2))
            .prop_map(|(s, n, c)| G::MatchList(Box::new(s), Box::new(n), Box::new(c))),
        1 => (gen_g(d, scope), gen_g(d, scope + 1))
            .prop_map(|(a, b)| G::Pi(Box::new(a), Box::new(b))),
    ]
    .boxed()
}

fn to_term(p: &Program, g: &G) -> RcTerm {
    let bind = |implicit: bool| Binder {
        name: "x".into(),
        plicity: if implicit {
            Plicity::Implicit
        } else {
            Plicity::Explicit
        },
        ty: Term::infer(sp()),
    };
    match g {
        G::Var(i) => var(*i),
        G::Int(n) => int(*n),
        G::Con(c) => con(p, c),
        G::Add => Term::Prim(Prim::Add, sp()).rc(),
        G::Lam(i, b) => Term::Lam(bind(*i), to_term(p, b)).rc(),
        G::App(i, f, a) => Term::App(
            to_term(p, f),
            if *i {
                Plicity::Implicit
            } else {
                Plicity::Explicit
            },
            to_term(p, a),
        )
        .rc(),
        G::Let(r, b) => Term::Let(bind(false), to_term(p, r), to_term(p, b)).rc(),
        G::If(c, t, e) => if_(p, to_term(p, c), to_term(p, t), to_term(p, e)),
        G::MatchList(s, n, c) => match_list(p, to_term(p, s), to_term(p, n), to_term(p, c)),
        G::Pi(a, b) => Term::Pi(
            Binder {
                name: "y".into(),
                plicity: Plicity::Explicit,
                ty: to_term(p, a),
            },
            to_term(p, b),
        )
        .rc(),
    }
}

/// Winds, checks, reads back, counts and destroys; returns the read-back term.
fn round_trip(t: &RcTerm) -> Result<RcTerm, String> {
    let mut heap = Heap::default();
    let s = wind(&mut heap, t, NIL);
    invariants::check(&heap, s)?;
    let back = get_ast(&mut heap, s);
    let c = census(&mut heap, s);
    if c.stacks == 0 {
        return Err("empty census".into());
    }
    stack_dtor(&mut heap, s);
    if heap.ctxts.live() != 0 || heap.stacks.live() != 0 {
        return Err(format!(
            "leak: {} contexts, {} stacks",
            heap.ctxts.live(),
            heap.stacks.live()
        ));
    }
    Ok(back)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn wind_then_readback_is_the_identity(g in gen_g(6, 0)) {
        let p = base();
        let t = to_term(&p, &g);
        let back = round_trip(&t).map_err(TestCaseError::fail)?;
        prop_assert!(alpha_eq(&t, &back), "{:?}\n!=\n{:?}", t, back);
    }
}

/// Closed `Int` expressions with lets and applied lambdas.
#[derive(Clone, Debug)]
enum A {
    Lit(i64),
    Var(u32),
    Op(u8, Box<A>, Box<A>),
    Let(Box<A>, Box<A>),
    Beta(Box<A>, Box<A>),
}

fn gen_a(depth: u32, scope: u32) -> BoxedStrategy<A> {
    let leaf = if scope > 0 {
        prop_oneof![(-20i64..20).prop_map(A::Lit), (0..scope).prop_map(A::Var)].boxed()
    } else {
        (-20i64..20).prop_map(A::Lit).boxed()
    };
    if depth == 0 {
        return leaf;
    }
    let d = depth - 1;
    prop_oneof![
        1 => leaf,
        3 => (0u8..3, gen_a(d, scope), gen_a(d, scope))
            .prop_map(|(o, a, b)| A::Op(o, Box::new(a), Box::new(b))),
        1 => (gen_a(d, scope), gen_a(d, scope + 1))
            .prop_map(|(r, b)| A::Let(Box::new(r), Box::new(b))),
        1 => (gen_a(d, scope + 1), gen_a(d, scope))
            .prop_map(|(b, a)| A::Beta(Box::new(b), Box::new(a))),
    ]
    .boxed()
}

fn a_term(a: &A) -> RcTerm {
    match a {
        A::Lit(n) => int(*n),
        A::Var(i) => var(*i),
        A::Op(o, x, y) => prim(
            [Prim::Add, Prim::Sub, Prim::Mul][*o as usize],
            vec![a_term(x), a_term(y)],
        ),
        A::Let(r, b) => let_("x", a_term(r), a_term(b)),
        A::Beta(b, x) => app(lam("x", a_term(b)), vec![a_term(x)]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn evaluating_a_wound_stack_agrees_with_evaluating_the_term(a in gen_a(6, 0)) {
        let p = base();
        let t = a_term(&a);
        let direct = {
            let mut m = Machine::new(&p);
            let r = m.whnf_term(&t).and_then(|v| m.print_value(v)).map_err(|e| e.message);
            if r.is_err() {
                m.reset();
            }
            prop_assert_eq!(m.heap.ctxts.live(), 0, "direct evaluation leaked");
            r
        };
        let wound = {
            let mut m = Machine::new(&p);
            let s = wind(&mut m.heap, &t, NIL);
            invariants::check(&m.heap, s).map_err(TestCaseError::fail)?;
            let r = m.whnf_stack(s).and_then(|v| m.normal_form(v));
            match r {
                Ok(nf) => {
                    invariants::check(&m.heap, nf).map_err(TestCaseError::fail)?;
                    let back = get_ast(&mut m.heap, nf);
                    stack_dtor(&mut m.heap, nf);
                    prop_assert_eq!(m.heap.ctxts.live(), 0, "wound evaluation leaked");
                    match &*back {
                        Term::Lit(Lit::Int(n)) => Ok(n.to_string()),
                        other => Err(format!("{other:?}")),
                    }
                }
                Err(e) => {
                    m.reset();
                    prop_assert_eq!(m.heap.ctxts.live(), 0, "wound evaluation leaked after an error");
                    Err(e.message)
                }
            }
        };
        prop_assert_eq!(direct, wound);
    }
}

#[test]
fn normal_forms_of_data_are_valid_stacks() {
    let p = base();
    let t = app(
        con(&p, "Cons"),
        vec![int(1), app(con(&p, "Cons"), vec![int(2), con(&p, "Nil")])],
    );
    let mut m = Machine::new(&p);
    let v = m.whnf_term(&t).unwrap();
    let nf = m.normal_form(v).unwrap();
    invariants::check(&m.heap, nf).unwrap();
    let back = get_ast(&mut m.heap, nf);
    assert!(alpha_eq(&t, &back));
    let c = census(&mut m.heap, nf);
    assert_eq!(c.stacks, 5);
    assert_eq!(c.applications, 4);
    stack_dtor(&mut m.heap, nf);
    assert_eq!(m.heap.stacks.live(), 0);
}

#[test]
fn a_deep_term_winds_reads_back_and_frees_without_recursion() {
    let child = std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(|| {
            let p = base();
            let mut t = con(&p, "Nil");
            for i in 0..200_000 {
                t = app(con(&p, "Cons"), vec![int(i), t]);
            }
            let mut u = int(0);
            for _ in 0..200_000 {
                u = let_("x", int(1), lam("y", u));
            }
            for t in [&t, &u] {
                let back = round_trip(t).unwrap();
                assert!(alpha_eq(t, &back));
            }
            // Keep the deep terms' own drops off this small stack's budget concerns:
            // `Term`'s drop is iterative.
        })
        .unwrap();
    child.join().unwrap();
}

#[test]
fn invariant_violations_are_reported() {
    let p = base();
    // (\x -> f a) b, then break property 3 by hand.
    let t = if_(&p, con(&p, "True"), int(1), int(2));
    let mut heap = Heap::default();
    let s = wind(&mut heap, &t, NIL);
    invariants::check(&heap, s).unwrap();
    let outer = heap.new_ctxt(spindle::machine::heap::Cell::Open, NIL, None);
    heap.stacks.get_mut(s).ctx = outer;
    heap.stacks.get_mut(s).end = NIL;
    let err = invariants::check(&heap, s).unwrap_err();
    assert!(err.contains("property 3"), "{err}");
}

#[test]
fn printing_a_normal_form_stack_agrees_with_printing_the_value() {
    let child = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let src = "data Tree (a : Type) = Leaf a | Node (Tree a) (Tree a)\n\
                       def main = ((1, (2.5, -3)), [Just (Leaf (-1)), Nothing], (), \"q\\n\", \
                       Node (Leaf [1]) (Leaf []), range 0 100000)\n";
            let loaded = spindle::driver::load_text("p.sp", src);
            let p = loaded.program.expect("loads");
            let main = p.main.unwrap();
            let mut m = Machine::new(&p);
            let v = m.whnf_def(main).unwrap();
            let direct = m.print_value(v).unwrap();
            let v = m.whnf_def(main).unwrap();
            let nf = m.normal_form(v).unwrap();
            invariants::check(&m.heap, nf).unwrap();
            let folded = spindle::machine::print::print_nf(&mut m.heap, &p, nf);
            stack_dtor(&mut m.heap, nf);
            assert!(direct.starts_with("((1, 2.5, -3), [Just (Leaf (-1)), Nothing], (), \"q\\n\", Node (Leaf [1]) (Leaf []), [0, 1, 2"));
            assert_eq!(direct, folded);
        })
        .unwrap();
    child.join().unwrap();
}

#[test]
fn the_need_fold_normalizes_a_wound_stack_in_place() {
    let p = base();
    // let xs = Cons 1 (Cons (2 + 3) Nil) in MkPair xs (if True then 7 else 8)
    let cons = |h, t| app(con(&p, "Cons"), vec![h, t]);
    let t = let_(
        "xs",
        cons(
            int(1),
            cons(prim(Prim::Add, vec![int(2), int(3)]), con(&p, "Nil")),
        ),
        app(
            con(&p, "MkPair"),
            vec![var(0), if_(&p, con(&p, "True"), int(7), int(8))],
        ),
    );
    let expected = app(
        con(&p, "MkPair"),
        vec![cons(int(1), cons(int(5), con(&p, "Nil"))), int(7)],
    );
    let mut m = Machine::new(&p);
    let s = wind(&mut m.heap, &t, NIL);
    invariants::check(&m.heap, s).unwrap();
    m.need_stack(s).unwrap();
    invariants::check(&m.heap, s).unwrap();
    let back = get_ast(&mut m.heap, s);
    assert!(alpha_eq(&expected, &back), "{back:?}");
    stack_dtor(&mut m.heap, s);
    assert_eq!(m.heap.ctxts.live(), 0);
    assert_eq!(m.heap.stacks.live(), 0);
}
