//! Stopped, stored and resumed evaluations (issue 6, item 3): an evaluation stopped
//! after N steps, read back as a term, encoded, decoded and resumed prints what the
//! uninterrupted run prints (or fails with the same message: decoded programs have no
//! spans), for every example program.
//!
//! - small examples without externals: every N from 1 to the end;
//! - the others: N drawn at random (proptest, a fixed seed), fewer for the long
//!   benchmarks;
//! - two stops in a row (the second from the decoded state of the first);
//! - small programs aimed at each kind of frame (structural comparison, `join`, `run`'s
//!   argument walk, primitives, black holes, knots), every N.

use crate::common;

use common::{distinct_example_programs, example_programs, load_checked, scratch_file, tests_dir};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use spindle::core::program::{DeclCounts, Program};
use spindle::core::term::DefId;
use spindle::machine::Machine;
use spindle::machine::error::RuntimeError;
use spindle::proto::MAX_STATE_BYTES;
use spindle::proto::decode;
use spindle::snapshot::{Progress, evaluate_for, evaluate_with_stop, resume};
use std::path::Path;

/// A loaded program, its prelude counts and `main`.
struct Loaded {
    program: Program,
    prelude: DeclCounts,
    main: DefId,
}

fn load(path: &Path) -> Loaded {
    let loaded = load_checked(path);
    let program = loaded.program.clone().expect("a program");
    let prelude = spindle::proto::prelude_counts(&loaded.sources, &program);
    let main = program.main.expect("a main");
    Loaded {
        program,
        prelude,
        main,
    }
}

fn load_text(name: &str, text: &str) -> Loaded {
    load(&scratch_file("snapshot", name, text))
}

/// What a run ends with, comparable across decoding (which drops spans).
fn outcome(r: Result<String, RuntimeError>) -> Result<String, String> {
    r.map_err(|e| e.message.clone())
}

/// The uninterrupted run: its outcome and how many steps it took.
fn reference(p: &Loaded) -> (Result<String, String>, u64) {
    let mut m = Machine::new(&p.program);
    let _policy = spindle::sched::Sequential::install_plain(&mut m);
    let r = m.whnf_def(p.main).and_then(|v| m.print_value(v, false));
    (outcome(r), m.sight().stats().steps)
}

fn stopped_at(p: &Loaded, n: u64) -> Result<String, String> {
    match evaluate_with_stop(&p.program, p.prelude, p.main, n) {
        Ok(r) => outcome(r),
        Err(e) => panic!("stopping after {n} steps: {e}"),
    }
}

/// Examples whose run calls externals: sampled, since every stop runs them again.
fn calls_externals(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    ["delay", "shell", "run ", "readFile", "writeFile"]
        .iter()
        .any(|e| text.contains(e))
}

/// Steps up to which every stop is tried.
const EXHAUSTIVE_UP_TO: u64 = 4000;

#[test]
fn small_examples_resume_from_every_step() {
    let mut tried = 0;
    for file in example_programs() {
        if calls_externals(&file) {
            continue;
        }
        let p = load(&file);
        let (want, total) = reference(&p);
        if total > EXHAUSTIVE_UP_TO {
            continue;
        }
        for n in 1..=total {
            let got = stopped_at(&p, n);
            assert_eq!(
                got,
                want,
                "{}: stopped after {n} of {total} steps",
                file.display()
            );
            tried += 1;
        }
    }
    // Every stop of every small example: several hundred.
    assert!(tried > 500, "only {tried} stops were tried");
}

/// Random stops in one example, `cases` of them (fewer for the benchmarks that run for
/// seconds).
fn resumes_from_random_steps(file: &Path, p: &Loaded, want: &Result<String, String>, total: u64) {
    let cases = if total > 1_000_000 || file.ends_with("fanout.sp") {
        2
    } else {
        24
    };
    // A fixed seed: CI sees the same stops every time.
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let name = file.display().to_string();
    runner
        .run(&(1..total), |n| {
            let got = stopped_at(p, n);
            prop_assert_eq!(
                &got,
                want,
                "{}: stopped after {} of {} steps",
                name,
                n,
                total
            );
            Ok(())
        })
        .unwrap();
}

/// Random stops in the examples not covered above, with externals (`with_externals`:
/// their runs mostly wait, so they are a test of their own, which the harness runs
/// beside the others) or without. A program met before in another file is not run
/// again (its stops would be the same: the runner's seed is fixed).
fn other_examples_resume_from_random_steps(with_externals: bool) -> Vec<String> {
    let mut covered = Vec::new();
    for file in distinct_example_programs() {
        if calls_externals(&file) != with_externals {
            continue;
        }
        let p = load(&file);
        let (want, total) = reference(&p);
        if total <= EXHAUSTIVE_UP_TO && !with_externals {
            continue;
        }
        resumes_from_random_steps(&file, &p, &want, total);
        covered.push(file.display().to_string());
    }
    covered
}

#[test]
fn every_other_example_resumes_from_random_steps() {
    let covered = other_examples_resume_from_random_steps(false);
    assert!(covered.len() >= 3, "covered {covered:?}");
}

#[test]
fn examples_with_externals_resume_from_random_steps() {
    let covered = other_examples_resume_from_random_steps(true);
    assert!(!covered.is_empty(), "covered {covered:?}");
}

/// Stops twice: the second time in the decoded state of the first.
#[test]
fn a_resumed_state_can_stop_again() {
    for name in ["lists.sp", "strings.sp", "data.sp", "loop.sp"] {
        let p = load(&tests_dir().join("examples").join("spec").join(name));
        let (want, total) = reference(&p);
        for first in (1..total).step_by(17) {
            let Progress::Paused(s) = evaluate_for(&p.program, p.prelude, p.main, first).unwrap()
            else {
                panic!("{name}: did not stop after {first} steps")
            };
            let decoded = decode::program_bytes_within(&s.bytes, MAX_STATE_BYTES).unwrap();
            for second in [1, 5, 40, 300] {
                let got = match evaluate_for(&decoded.program, decoded.prelude, p.main, second)
                    .unwrap()
                {
                    Progress::Finished(r) => outcome(r),
                    Progress::Paused(s2) => outcome(resume(&s2).unwrap()),
                };
                assert_eq!(got, want, "{name}: stopped after {first}, then {second}");
            }
        }
    }
}

/// Small programs, each aimed at one kind of frame or state, stopped at every step.
#[test]
fn every_kind_of_frame_reads_back() {
    let programs = [
        // Structural comparison with pairs still to compare, both ways.
        "def main = ([1, 2, 3] == [1, 2, 4], (1, Just [2]) != (1, Just [2]))",
        "def main = [(1, \"a\"), (2, \"b\")] == [(1, \"a\"), (2, \"b\")]",
        // `join` walking its list; strings built by `++`.
        "def main = join \", \" (map showInt [1, 2, 3]) ++ \"!\"",
        "def main = join \"-\" [] ++ join \"\" [\"x\"]",
        // Primitives with several strict arguments; `seq`; partial applications.
        "def main = (substring 1 3 (\"ab\" ++ \"cdef\"), foldl (\\acc x -> acc + x) 0 [1, 2, 3], map (\\x -> x + 1) [1, 2])",
        // A knot through data, and a function defined by a recursive `let`.
        "def main = take 5 (let xs = Cons 1 (map (\\x -> x * 2) xs) in xs)",
        // A cycle of four list cells: one `let` of a tree of pairs once evaluated.
        "def main = take 9 (let xs = Cons 1 (Cons 2 (Cons 3 (Cons 4 xs))) in xs)",
        "def main = let go (n : Int) (acc : Int) : Int = if n == 0 then acc else go (n - 1) (acc + n) in go 30 0",
        // Functions in the result (printed as their code).
        "def main = (\\(x : Int) -> x * 2, let k = 3 in \\(y : Int) -> y + k, map (\\f -> f 1) [\\z -> z])",
        "def main = \\(x : Int) -> x + 1",
        // A black hole: the error must survive the stop.
        "def main : Int = let x = x + 1 in x",
        // Runtime errors under pending frames.
        "def main = 1 + (2 * (10 / (3 - 3)))",
        "def main : Int = fst (1, error \"never\") + length [error \"lazy\", 2]",
        // Externals: `run`'s argument list walk, `shell`, `delay`.
        "def main = (run \"echo\" [\"a\", showInt (1 + 2), \"b c\"], shell (\"echo \" ++ \"hi\"), delay 0 (3 + 4))",
        "def main = length (words (run \"echo\" (map showInt (range 0 5))))",
        // Calls through interface dictionaries: a method of a known instance, and a
        // function constrained by an interface.
        "def main = (max 3 4, min \"b\" \"a\", compare (1, 2) (1, 3))",
        "def main = (maximum [3, 1, 2], sort [\"b\", \"a\"], show (Just 2))",
    ];
    for (k, text) in programs.iter().enumerate() {
        let p = load_text(&format!("frames{k}.sp"), &format!("{text}\n"));
        let (want, total) = reference(&p);
        for n in 1..=total {
            let got = stopped_at(&p, n);
            assert_eq!(got, want, "`{text}`: stopped after {n} of {total} steps");
        }
    }
}

/// A stopped state refers to entries by the `let`s readback makes; decoding checks
/// that they are well scoped, and the state prints as source.
#[test]
fn a_stopped_state_decodes_as_a_well_scoped_program() {
    let p = load(&tests_dir().join("examples").join("spec").join("lists.sp"));
    let Progress::Paused(s) = evaluate_for(&p.program, p.prelude, p.main, 200).unwrap() else {
        panic!("lists.sp did not stop")
    };
    let decoded = decode::program_bytes(&s.bytes).unwrap();
    let text = spindle::proto::source::program_to_source(
        &decoded,
        spindle::driver::prelude_program().as_ref(),
    )
    .unwrap();
    assert!(text.contains("def main"), "{text}");
    assert!(
        text.contains("let "),
        "the state binds its entries:\n{text}"
    );
}

/// A state a million frames deep (a `foldr` over a million elements, the work
/// `lazy.sp` does) is larger than a program may be, and still stores and resumes.
/// One stop, at six tenths of the run: about 28 MB of state, where a program may take
/// 16 MB (stops at five and seven tenths, tried before, checked the same).
#[test]
fn a_million_pending_additions_store_and_resume() {
    let p = load_text(
        "deep.sp",
        "def main = foldr (\\x acc -> x + acc) 0 (range 0 1000000)\n",
    );
    let (want, total) = reference(&p);
    let n = total * 6 / 10;
    let Progress::Paused(s) = evaluate_for(&p.program, p.prelude, p.main, n).unwrap() else {
        panic!("did not stop after {n} steps")
    };
    let size = s.bytes.len();
    assert_eq!(
        outcome(resume(&s).unwrap()),
        want,
        "stopped after {n} of {total}"
    );
    eprintln!("state: {size} bytes");
    assert!(size > spindle::proto::MAX_ENCODED_BYTES, "{size} bytes");
}
