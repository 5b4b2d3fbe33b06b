//! Reference counts stay exact at every evaluation step: programs run with a full
//! audit of the heap after each step (and after printing), and nothing unreachable
//! stays alive once cycles are collected.

use spindle::core::term::Term;
use spindle::driver;
use spindle::machine::Machine;
use spindle::prim::Prim;

fn audited(src: &str, expected: &str) {
    let loaded = driver::load_text("audit.sp", src);
    assert!(!loaded.has_errors(), "{}", loaded.render_diagnostics());
    let p = loaded.program.expect("program");
    let main = p.main.expect("main");
    // `main == main` needs every field of the result inside the machine, so every
    // step of the full evaluation is audited.
    let span = spindle::syntax::span::Span::new(spindle::syntax::span::FileId(0), 0, 0);
    let deep = Term::apps(
        Term::Prim(Prim::Eq, span).rc(),
        [Term::Def(main).rc(), Term::Def(main).rc()],
    );
    let mut program = p.clone();
    program.defs.push(spindle::core::program::DefDecl {
        name: "deep".into(),
        ty: Term::infer(span),
        body: deep,
        span,
        role: spindle::syntax::ast::DefRole::Plain,
    });
    let deep_id = spindle::core::term::DefId((program.defs.len() - 1) as u32);
    let mut m = Machine::new(&program);
    m.run.audit_every = 1;
    let v = m.whnf_def(deep_id).expect("runs");
    assert_eq!(v, spindle::machine::value::Val::Atom(p.builtins.true_));
    m.collect_cycles();
    m.sight()
        .audit(None, false)
        .expect("counts are exact after the evaluation");
    assert!(
        m.sight().stats().steps > 20,
        "{} steps",
        m.sight().stats().steps
    );
    eprintln!("{} audited steps", m.sight().stats().steps);
    // Printing holds references of its own: audit again once it is done.
    m.run.audit_every = 0;
    let v = m.whnf_def(main).expect("runs");
    let out = m.print_value(v, false).expect("prints");
    assert_eq!(out, expected);
    m.collect_cycles();
    m.sight()
        .audit(None, false)
        .expect("counts are exact after printing");
}

#[test]
fn spec_examples_keep_exact_counts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/examples/spec");
    for name in ["arith", "data", "lists", "strings", "dependent"] {
        let src = std::fs::read_to_string(dir.join(format!("{name}.sp"))).unwrap();
        let out = std::fs::read_to_string(dir.join(format!("{name}.out"))).unwrap();
        audited(&src, out.trim_end_matches('\n'));
    }
}

#[test]
fn sharing_recursion_partial_applications_and_equality_keep_exact_counts() {
    audited(
        "def twice (f : Int -> Int) (x : Int) : Int = f (f x)\n\
         def main =\n\
           let go (n : Int) (acc : Int) : Int = if n == 0 then acc else go (n - 1) (acc + n) in\n\
           let xs = map (twice (\\x -> x * 2)) (range 0 5) in\n\
           let add = prim_add 1 in\n\
           ( go 50 0, xs, sum xs, [1, 2] ++ [3], [Just 1] == [Just 1], add 2\n\
           , take 3 (let ys = Cons 1 ys in ys), sort [3, 1, 2], words \" a b \" )\n",
        "(1275, [0, 4, 8, 12, 16], 40, [1, 2, 3], True, 3, [1, 1, 1], [1, 2, 3], [\"a\", \"b\"])",
    );
}
