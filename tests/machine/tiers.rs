//! The tier matrix (issue 25): the machine's faster paths (`machine::tiers`: calls
//! computed at hand, the numeric tier, loops in place, fusion) change nothing a program
//! prints or fails with, and leave a sound heap. Every example and library program,
//! and generated programs of folds, searches, numeric recursion and failures, run with
//! all tiers on, each off alone, and all off; what they print (or the error, with its
//! place) must be the same, and the heap audit must pass each time.

use crate::common;

use common::{sp_files, tests_dir};
use proptest::prelude::*;
use spindle::core::program::Program;
use spindle::driver;
use spindle::machine::Machine;
use spindle::machine::tiers::Tiers;

/// The configurations compared: all on, each off alone, all off.
fn configurations() -> Vec<(String, Tiers)> {
    let mut v = vec![("all on".to_string(), Tiers::ALL)];
    for n in Tiers::NAMES {
        v.push((format!("{n} off"), Tiers::ALL.without(n).unwrap()));
    }
    v.push(("all off".to_string(), Tiers::NONE));
    v
}

/// What `main` prints (or its error, with its place), with the heap audited after.
fn outcome(p: &Program, tiers: Tiers, what: &str) -> Result<String, String> {
    let main = p.main.expect("a main");
    let mut m = Machine::with_tiers(p, tiers);
    m.options.externals_allowed = false;
    m.run.step_limit = 50_000_000;
    let printed = m
        .whnf_def(main)
        .and_then(|v| m.print_value(v, false))
        .map_err(|e| format!("{}: {:?} at {:?}", e.message, e.kind, e.span));
    m.sight()
        .audit(None, true)
        .unwrap_or_else(|e| panic!("{what}, tiers {tiers:?}: heap audit: {e}"));
    printed
}

/// The outcome of every configuration is the one with all tiers on.
fn same_everywhere(p: &Program, what: &str) -> Result<String, String> {
    let reference = outcome(p, Tiers::ALL, what);
    for (name, tiers) in configurations().into_iter().skip(1) {
        let got = outcome(p, tiers, what);
        assert_eq!(got, reference, "{what}: {name} changes the outcome");
    }
    reference
}

#[test]
fn every_example_and_library_program_is_the_same_with_each_tier_off() {
    let mut files = common::distinct_example_programs();
    files.extend(sp_files(&tests_dir().join("examples").join("library")));
    let mut compared = 0;
    for file in files {
        let loaded = driver::load(&file);
        let Some(p) = loaded.program.as_ref().filter(|_| !loaded.has_errors()) else {
            continue;
        };
        if p.main.is_none() {
            continue;
        }
        let _ = same_everywhere(p, &file.display().to_string());
        compared += 1;
    }
    assert!(compared > 20, "{compared} programs compared");
}

/// Generated programs: integer expressions over folds, filters, maps and searches on
/// ranges, recursive numeric functions with accumulators, pairs, and failures
/// (division by zero, `error`, overflow).
#[derive(Clone, Debug)]
enum E {
    Lit(i64),
    Var,
    Add(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    Div(Box<E>, Box<E>),
    If(Box<E>, Box<E>, Box<E>),
    Sum(i64, i64, Box<E>, i64),
    Len(i64, i64, i64),
    Fold(i64, Box<E>),
    Loop(i64, Box<E>),
    Fst(Box<E>, Box<E>),
    Error,
}

impl E {
    /// The expression's text; `x` is the innermost bound variable.
    fn src(&self) -> String {
        match self {
            E::Lit(n) => format!("({n})"),
            E::Var => "x".to_string(),
            E::Add(a, b) => format!("({} + {})", a.src(), b.src()),
            E::Mul(a, b) => format!("({} * {})", a.src(), b.src()),
            E::Div(a, b) => format!("({} / {})", a.src(), b.src()),
            E::If(c, a, b) => format!("(if {} > 3 then {} else {})", c.src(), a.src(), b.src()),
            // sum (map f (filter p (range lo hi)))
            E::Sum(lo, hi, f, k) => format!(
                "(sum (map (\\(x : Int) -> {}) (filter (\\(x : Int) -> x % {} != 0) (range {lo} {hi}))))",
                f.src(),
                k.abs() + 2
            ),
            E::Len(lo, hi, k) => {
                format!("(length (filter (\\(x : Int) -> x * x > {k}) (range {lo} {hi})))")
            }
            E::Fold(n, f) => format!(
                "(foldl (\\(acc : Int) (x : Int) -> acc + {}) 0 (range 0 {n}))",
                f.src()
            ),
            E::Loop(n, f) => format!("(count {n} (\\(x : Int) -> {}))", f.src()),
            E::Fst(a, b) => format!("(fst ({}, {}))", a.src(), b.src()),
            E::Error => "(error \"boom\")".to_string(),
        }
    }
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        4 => (-20i64..40).prop_map(E::Lit),
        3 => Just(E::Var),
        1 => Just(E::Error),
        1 => (0i64..30, 0i64..60, -5i64..200).prop_map(|(lo, n, k)| E::Len(lo, lo + n, k)),
    ];
    leaf.prop_recursive(4, 20, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Add(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Mul(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| E::Div(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| E::If(
                Box::new(c),
                Box::new(a),
                Box::new(b)
            )),
            (0i64..10, 0i64..80, inner.clone(), -3i64..5).prop_map(|(lo, n, f, k)| E::Sum(
                lo,
                lo + n,
                Box::new(f),
                k
            )),
            (0i64..60, inner.clone()).prop_map(|(n, f)| E::Fold(n, Box::new(f))),
            (0i64..60, inner.clone()).prop_map(|(n, f)| E::Loop(n, Box::new(f))),
            (inner.clone(), inner).prop_map(|(a, b)| E::Fst(Box::new(a), Box::new(b))),
        ]
    })
}

/// A program around generated expressions: `x` is bound to 7 at the top.
fn program_text(es: &[E]) -> String {
    let parts: Vec<String> = es.iter().map(E::src).collect();
    format!(
        "def count (n : Int) (f : Int -> Int) : Int = go n f 0 0\n\
         def go (n : Int) (f : Int -> Int) (i : Int) (acc : Int) : Int =\n\
         \x20 if i >= n then acc else go n f (i + 1) (acc + f i)\n\
         def main = let x : Int = 7 in ({})\n",
        parts.join(", ")
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_are_the_same_with_each_tier_off(es in prop::collection::vec(expr(), 2..4)) {
        let text = program_text(&es);
        let loaded = driver::load_text("gen.sp", &text);
        prop_assert!(!loaded.has_errors(), "{}\n{}", text, loaded.render_diagnostics());
        let p = loaded.program.expect("loads");
        let _ = same_everywhere(&p, &text);
    }
}

/// The environment variable switches tiers off by name (for benchmarks and
/// `spindle run`); unknown names are left alone.
#[test]
fn tiers_are_switched_off_from_the_environment() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["run", "--progress", "none", "--stats"])
        .arg(
            tests_dir()
                .join("examples")
                .join("library")
                .join("skip_loop.sp"),
        )
        .env("SPINDLE_TIERS_OFF", "all")
        .output()
        .unwrap();
    let on = std::process::Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["run", "--progress", "none", "--stats"])
        .arg(
            tests_dir()
                .join("examples")
                .join("library")
                .join("skip_loop.sp"),
        )
        .output()
        .unwrap();
    assert_eq!(out.stdout, on.stdout);
    let steps = |o: &std::process::Output| -> u64 {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .find_map(|l| l.strip_prefix("steps: "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0)
    };
    assert!(
        steps(&out) > steps(&on),
        "the plain machine takes more steps: {} against {}",
        steps(&out),
        steps(&on)
    );
}

/// A tier never waits on an external (issue 25): a filter over a range whose test and
/// function call `delay`, summed, has its calls in flight at once, with the tiers on
/// and off.
#[test]
fn calls_in_a_fused_pipeline_are_in_flight_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let wf = dir.path().join("wf.sp");
    std::fs::write(
        &wf,
        "def f (x : Int) : Int = delay 50 (x * 2)\n\
         def keep (x : Int) : Bool = delay 50 (x % 2 == 0)\n\
         def main : Int = sum (map f (filter keep (range 0 30)))\n",
    )
    .unwrap();
    for off in ["", "all"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_spindle"))
            .args(["run", "--progress", "none", "--stats", "--store"])
            .arg(dir.path().join("store"))
            .arg(&wf)
            .env("SPINDLE_TIERS_OFF", off)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "420\n");
        let err = String::from_utf8_lossy(&out.stderr);
        let peak: u64 = err
            .lines()
            .find_map(|l| l.strip_prefix("externals_peak_in_flight: "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{err}"));
        assert!(peak > 1, "tiers off: {off:?}: {peak} in flight at most");
    }
}
