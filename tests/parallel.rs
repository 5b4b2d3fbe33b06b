//! The scheduler (DESIGN.md section 4): a run with fibers and a worker pool prints what
//! a `--sequential` run prints, for every example program and for programs aimed at
//! speculation's edge cases (errors, infinite loops and failed calls in work nobody
//! needs; the same in work that is needed; infinite structures), with the reference
//! counts audited at every step; `--jobs` bounds the calls running at once.
//!
//! Times are not asserted here (they are benchmarks' and the conformance script's).

mod common;

use common::{example_programs, load_checked, run_in, scratch_file, tests_dir};
use spindle::core::program::Program;
use spindle::driver;
use spindle::machine::Machine;
use std::path::Path;

fn load(path: &Path) -> Program {
    load_checked(path).program.expect("a program")
}

fn load_text(name: &str, text: &str) -> Program {
    load(&scratch_file("parallel", name, text))
}

/// Runs `main` with or without a scheduler; the printed value or the error (message
/// and place).
fn run(program: &Program, parallel: Option<usize>, audit: bool) -> Result<String, String> {
    let mut m = Machine::new(program);
    if let Some(jobs) = parallel {
        m.enable_parallel(jobs);
    }
    if audit {
        m.audit_every = 1;
    }
    let main = program.main.expect("a main");
    let r = driver::evaluate_def(&mut m, main, false);
    if let Err(e) = &r {
        assert!(!e.message.contains("internal error"), "{e}");
    }
    r.map_err(|e| format!("{e} at {:?}", e.span))
}

#[test]
fn every_example_prints_the_same_in_parallel() {
    for file in example_programs() {
        if file.ends_with("tak.sp") || file.ends_with("queens.sp") {
            continue; // no externals, and seconds long: the scheduler never starts
        }
        let p = load(&file);
        let sequential = run(&p, None, false);
        for jobs in [1, 3, 64] {
            let parallel = run(&p, Some(jobs), false);
            assert_eq!(parallel, sequential, "{} with {jobs} jobs", file.display());
        }
    }
}

/// Small programs where speculation meets errors, loops, failed calls and infinite
/// data, with and without demand for them; reference counts audited at every step.
#[test]
fn speculation_never_changes_a_result() {
    let programs = [
        // Independent calls in a strict fold, and in a tuple being printed.
        "def main = sum (map (\\x -> delay 20 x) (range 0 10))",
        "def main = (shell \"echo a\", delay 10 (shell \"echo b\"), readFile \"/nonexistent/x\")",
        // An error, an infinite loop and a failed call nobody needs.
        "def main = (delay 30 1, fst (2, error \"never\"), fst (3, let x = x + 1 in x))",
        "def main = (delay 30 1, fst (2, shell \"exit 3\"))",
        // The same, needed: the sequential error.
        "def main = [delay 30 1, error \"boom\"]",
        "def main : Pair Int Int = (delay 30 1, let x = x + 1 in x)",
        "def main = (delay 30 1, shell \"echo oops >&2; exit 4\")",
        // Infinite data next to a call: speculation must stop somewhere.
        "def main = (delay 30 1, take 3 (iterate (\\x -> x + 1) 0))",
        // Shared work: one call, used twice.
        "def main = let s = shell \"echo once\" in (delay 20 s, s ++ s)",
        // `run` with arguments computed by other calls.
        "def main = run \"echo\" (map (\\n -> delay 10 (showInt n)) (range 0 5))",
    ];
    for (k, text) in programs.iter().enumerate() {
        let p = load_text(&format!("spec{k}.sp"), &format!("{text}\n"));
        let sequential = run(&p, None, true);
        for jobs in [1, 2, 64] {
            let parallel = run(&p, Some(jobs), true);
            assert_eq!(parallel, sequential, "`{text}` with {jobs} jobs");
        }
    }
}

#[test]
fn jobs_bound_the_calls_running_at_once() {
    let dir = tests_dir().join("examples").join("spec");
    for (jobs, most) in [("1", 1), ("4", 4), ("64", 20)] {
        let out = run_in(&dir, &["run", "fanout.sp", "--stats", "--jobs", jobs]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "190\n");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let peak: usize = stderr
            .lines()
            .find_map(|l| l.strip_prefix("externals_peak_in_flight: "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak in {stderr}"));
        assert!(peak <= most, "--jobs {jobs}: {peak} calls at once");
        assert!(peak >= most.min(2), "--jobs {jobs}: only {peak} at once");
    }
    let out = run_in(&dir, &["run", "fanout.sp", "--stats", "--sequential"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("externals_peak_in_flight: 1"), "{stderr}");
}
