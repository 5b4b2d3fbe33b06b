//! The machine on hand-built core programs: arithmetic, sharing, black-holing, data,
//! matches, deep recursion and constant-memory loops.

use crate::machine_common;
use machine_common::*;
use spindle::core::term::Term;
use spindle::machine::error::ErrorKind;
use spindle::prim::Prim;

#[test]
fn tak_small() {
    let mut p = base();
    // tak x y z = if y < x then tak (tak (x-1) y z) (tak (y-1) z x) (tak (z-1) x y) else z
    // under x y z: x = 2, y = 1, z = 0
    let tak = def(0);
    let sub1 = |i| prim(Prim::Sub, vec![var(i), int(1)]);
    let body = if_(
        &p,
        prim(Prim::Lt, vec![var(1), var(2)]),
        app(
            tak.clone(),
            vec![
                app(tak.clone(), vec![sub1(2), var(1), var(0)]),
                app(tak.clone(), vec![sub1(1), var(0), var(2)]),
                app(tak.clone(), vec![sub1(0), var(2), var(1)]),
            ],
        ),
        var(0),
    );
    add_def(&mut p, "tak", lam("x", lam("y", lam("z", body))));
    let main = add_def(&mut p, "main", app(tak, vec![int(18), int(12), int(6)]));
    p.main = Some(main);
    assert_eq!(run_main(&p).unwrap(), "7");
}

#[test]
fn black_hole_is_an_infinite_loop() {
    let mut p = base();
    let main = add_def(
        &mut p,
        "main",
        let_("x", prim(Prim::Add, vec![var(0), int(1)]), var(0)),
    );
    p.main = Some(main);
    assert_eq!(
        run_main_kind(&p).unwrap_err(),
        (ErrorKind::InfiniteLoop, "infinite loop".to_string())
    );
}

#[test]
fn division_by_zero() {
    let mut p = base();
    let main = add_def(
        &mut p,
        "main",
        let_("zero", int(0), prim(Prim::Div, vec![int(10), var(0)])),
    );
    p.main = Some(main);
    assert_eq!(
        run_main_kind(&p).unwrap_err(),
        (ErrorKind::DivisionByZero, "division by zero".to_string())
    );
}

/// Errors carry a kind, which is what code that handles them decides by (never their
/// text): overflow, the program's own `error`, a match no arm covers.
#[test]
fn errors_carry_their_kind() {
    let kind_of = |body: spindle::core::term::RcTerm, p: &mut spindle::core::program::Program| {
        let main = add_def(p, "main", body);
        p.main = Some(main);
        run_main_kind(p).unwrap_err().0
    };
    let mut p = base();
    assert_eq!(
        kind_of(prim(Prim::Add, vec![int(i64::MAX), int(1)]), &mut p),
        ErrorKind::Overflow
    );
    let mut p = base();
    assert_eq!(
        kind_of(prim(Prim::Error, vec![str_("boom")]), &mut p),
        ErrorKind::User
    );
}

#[test]
fn tuples_lists_and_data_print() {
    let mut p = base();
    let pair = |a, b| app(con(&p, "MkPair"), vec![a, b]);
    let list = app(
        con(&p, "Cons"),
        vec![int(1), app(con(&p, "Cons"), vec![int(-2), con(&p, "Nil")])],
    );
    let tree = app(
        con(&p, "Node"),
        vec![
            app(con(&p, "Leaf"), vec![int(-1)]),
            app(
                con(&p, "Just"),
                vec![app(con(&p, "Just"), vec![float(2.0)])],
            ),
        ],
    );
    let body = pair(
        int(1),
        pair(list, pair(tree, pair(str_("a\"b\n"), con(&p, "MkUnit")))),
    );
    let main = add_def(&mut p, "main", body);
    p.main = Some(main);
    assert_eq!(
        run_main(&p).unwrap(),
        r#"(1, [1, -2], Node (Leaf (-1)) (Just (Just 2.0)), "a\"b\n", ())"#
    );
}

#[test]
fn string_main_prints_raw() {
    let mut p = base();
    let main = add_def(
        &mut p,
        "main",
        prim(Prim::Concat, vec![str_("a\t"), str_("b")]),
    );
    p.main = Some(main);
    assert_eq!(run_main(&p).unwrap(), "a\tb");
}

#[test]
fn structural_equality() {
    let mut p = base();
    let l = |p: &spindle::core::program::Program, xs: &[i64]| {
        xs.iter().rev().fold(con(p, "Nil"), |acc, &x| {
            app(con(p, "Cons"), vec![int(x), acc])
        })
    };
    let a = prim(Prim::Eq, vec![l(&p, &[1, 2, 3]), l(&p, &[1, 2, 3])]);
    let b = prim(Prim::Ne, vec![l(&p, &[1, 2, 3]), l(&p, &[1, 2])]);
    let c = prim(Prim::Eq, vec![lam("x", var(0)), lam("x", var(0))]);
    let pair = app(con(&p, "MkPair"), vec![a, b]);
    let main = add_def(&mut p, "main", pair);
    p.main = Some(main);
    assert_eq!(run_main(&p).unwrap(), "(True, True)");
    let main = add_def(&mut p, "main2", c);
    p.main = Some(main);
    assert_eq!(run_main(&p).unwrap_err(), "cannot compare functions");
}

/// `count n acc`: a tail loop that holds no data.
fn counting_loop(n: i64) -> (spindle::core::program::Program, spindle::core::term::DefId) {
    let mut p = base();
    // loop n = if n == 0 then 0 else loop (n - 1)
    let body = if_(
        &p,
        prim(Prim::Eq, vec![var(0), int(0)]),
        int(0),
        app(def(0), vec![prim(Prim::Sub, vec![var(0), int(1)])]),
    );
    add_def(&mut p, "loop", lam("n", body));
    let main = add_def(&mut p, "main", app(def(0), vec![int(n)]));
    p.main = Some(main);
    (p, main)
}

#[test]
fn ten_million_step_tail_loop_runs_in_constant_memory() {
    let (p, main) = counting_loop(10_000_000);
    let mut m = spindle::machine::Machine::new(&p);
    let v = m.whnf_def(main).unwrap();
    assert_eq!(m.print_value(v, false).unwrap(), "0");
    let s = m.sight().stats();
    assert!(s.steps > 10_000_000);
    assert!(s.contexts_peak < 100, "contexts_peak {}", s.contexts_peak);
    assert!(s.stacks_peak < 100, "stacks_peak {}", s.stacks_peak);
}

#[test]
fn million_deep_foldr_on_a_small_native_stack() {
    let child = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut p = base();
            // range a b = if a < b then Cons a (range (a+1) b) else Nil
            let range = if_(
                &p,
                prim(Prim::Lt, vec![var(1), var(0)]),
                app(
                    con(&p, "Cons"),
                    vec![
                        var(1),
                        app(def(0), vec![prim(Prim::Add, vec![var(1), int(1)]), var(0)]),
                    ],
                ),
                con(&p, "Nil"),
            );
            add_def(&mut p, "range", lam("a", lam("b", range)));
            // foldr f z xs = match xs with Nil -> z | Cons h t -> f h (foldr f z t)
            // under f z xs: f=2 z=1 xs=0; in the Cons arm f=4 z=3 xs=2 h=1 t=0
            let foldr = match_list(
                &p,
                var(0),
                var(1),
                app(
                    var(4),
                    vec![var(1), app(def(1), vec![var(4), var(3), var(0)])],
                ),
            );
            add_def(&mut p, "foldr", lam("f", lam("z", lam("xs", foldr))));
            let plus = lam("x", lam("acc", prim(Prim::Add, vec![var(1), var(0)])));
            let main = add_def(
                &mut p,
                "main",
                app(
                    def(1),
                    vec![plus, int(0), app(def(0), vec![int(0), int(1_000_000)])],
                ),
            );
            p.main = Some(main);
            run_main(&p)
        })
        .unwrap();
    assert_eq!(child.join().unwrap().unwrap(), "499999500000");
}

#[test]
fn sharing_evaluates_a_binding_once() {
    let mut p = base();
    // let x = expensive in x + x, where expensive would be slow if done twice is hard to
    // observe; count steps instead: x + x costs about as much as x once.
    let (lp, _) = counting_loop(100_000);
    let loop_body = lp.defs[0].body.clone();
    add_def(&mut p, "loop", loop_body);
    let once = add_def(&mut p, "once", app(def(0), vec![int(100_000)]));
    let twice = add_def(
        &mut p,
        "twice",
        let_(
            "x",
            app(def(0), vec![int(100_000)]),
            prim(Prim::Add, vec![var(0), var(0)]),
        ),
    );
    let mut m = spindle::machine::Machine::new(&p);
    m.whnf_def(once).unwrap();
    let one = m.sight().stats().steps;
    m.whnf_def(twice).unwrap();
    let two = m.sight().stats().steps - one;
    assert!(two < one + 100, "once {one}, twice {two}");
    let _ = Term::Universe(0);
}

/// Takes about 2 s in a release build (the README's test command); much longer in a
/// debug build.
#[test]
fn tak_27_16_8() {
    let mut p = base();
    let tak = def(0);
    let sub1 = |i| prim(Prim::Sub, vec![var(i), int(1)]);
    let body = if_(
        &p,
        prim(Prim::Lt, vec![var(1), var(2)]),
        app(
            tak.clone(),
            vec![
                app(tak.clone(), vec![sub1(2), var(1), var(0)]),
                app(tak.clone(), vec![sub1(1), var(0), var(2)]),
                app(tak.clone(), vec![sub1(0), var(2), var(1)]),
            ],
        ),
        var(0),
    );
    add_def(&mut p, "tak", lam("x", lam("y", lam("z", body))));
    let main = add_def(&mut p, "main", app(tak, vec![int(27), int(16), int(8)]));
    p.main = Some(main);
    let t = std::time::Instant::now();
    let mut m = spindle::machine::Machine::new(&p);
    let v = m.whnf_def(main).unwrap();
    assert_eq!(m.print_value(v, false).unwrap(), "16");
    eprintln!("tak: {:?} {:?}", t.elapsed(), m.sight().stats());
}
