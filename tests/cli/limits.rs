//! Sizes that must not break `spindle` (issue 30): programs of 50,000 definitions
//! (chains where each calls the one before, independent ones, one cycle through all
//! of them) and a chain of 200,000 check, run and encode without a native stack
//! overflow; a lambda of 10,000 parameters (with and
//! without annotations, applied at once) and an application to 10,000 arguments
//! check. Outcomes only: `benches/check_scaling.sh` prints how the times grow.

use std::fmt::Write as _;
use std::process::{Command, Output};

fn spindle(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
        .current_dir(dir)
        .env_remove("SPINDLE_STORE")
        .args(args)
        .output()
        .expect("spindle runs")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout:\n{}\n--- stderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Checks, runs (as source and encoded) and expects `main` to print `want`.
fn checks_runs_encodes(name: &str, program: &str, want: &str) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path().join(format!("{name}.sp"));
    std::fs::write(&src, program).unwrap();
    let src = src.to_str().unwrap();
    let out = spindle(dir.path(), &["check", src]);
    assert!(out.status.success(), "check {name}: {}", text(&out));
    let out = spindle(dir.path(), &["run", "--progress", "none", src]);
    assert!(out.status.success(), "run {name}: {}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{name}");
    let enc = dir.path().join(format!("{name}.spc"));
    let enc = enc.to_str().unwrap();
    let out = spindle(dir.path(), &["encode", "-o", enc, src]);
    assert!(out.status.success(), "encode {name}: {}", text(&out));
    let out = spindle(dir.path(), &["run", "--progress", "none", enc]);
    assert!(out.status.success(), "run encoded {name}: {}", text(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{name} encoded");
}

const DEFS: usize = 50_000;

#[test]
fn a_chain_of_50000_definitions_checks_runs_and_encodes() {
    let mut p = String::from("def d0 : Int = 0\n");
    for i in 1..DEFS {
        writeln!(p, "def d{i} : Int = d{} + 1", i - 1).unwrap();
    }
    writeln!(p, "def main : Int = d{}", DEFS - 1).unwrap();
    checks_runs_encodes("chain", &p, &format!("{}\n", DEFS - 1));
}

#[test]
fn fifty_thousand_independent_definitions_check_run_and_encode() {
    let mut p = String::new();
    for i in 0..DEFS {
        writeln!(p, "def d{i} : Int = {i}").unwrap();
    }
    let sum: String = (0..DEFS)
        .step_by(1000)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join(" + ");
    writeln!(p, "def main : Int = {sum}").unwrap();
    let want: usize = (0..DEFS).step_by(1000).sum();
    checks_runs_encodes("independent", &p, &format!("{want}\n"));
}

#[test]
fn fifty_thousand_mutually_recursive_definitions_check_run_and_encode() {
    // One strongly connected component: each calls the next, the last the first.
    let mut p = String::new();
    for i in 0..DEFS {
        writeln!(
            p,
            "def f{i} (x : Int) : Int = if x == 0 then {i} else f{} (x - 1)",
            (i + 1) % DEFS
        )
        .unwrap();
    }
    writeln!(p, "def main : Int = f0 100").unwrap();
    checks_runs_encodes("cycle", &p, "100\n");
}

#[test]
fn a_chain_of_200000_definitions_checks_and_runs() {
    let n = 200_000;
    let mut p = String::from("def d0 : Int = 0\n");
    for i in 1..n {
        writeln!(p, "def d{i} : Int = d{} + 1", i - 1).unwrap();
    }
    writeln!(p, "def main : Int = d{}", n - 1).unwrap();
    checks_runs_encodes("long", &p, &format!("{}\n", n - 1));
}

/// `Int -> Int -> ... -> Int` with `n` arrows.
fn arrows(n: usize) -> String {
    vec!["Int"; n + 1].join(" -> ")
}

fn params(n: usize, annotated: bool) -> String {
    (0..n)
        .map(|i| {
            if annotated {
                format!("(x{i} : Int)")
            } else {
                format!("x{i}")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn numbers(n: usize) -> String {
    (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
}

const PARAMS: usize = 10_000;

#[test]
fn big_lambdas_and_applications_check() {
    let n = PARAMS;
    let cases = [
        // A lambda of unannotated parameters applied at once: their types are unknowns
        // until the arguments fix them.
        (
            "unannotated",
            format!(
                "def main : Int = (\\{} -> x1) {}\n",
                params(n, false),
                numbers(n)
            ),
        ),
        (
            "annotated",
            format!(
                "def main : Int = (\\{} -> x1) {}\n",
                params(n, true),
                numbers(n)
            ),
        ),
        (
            "signature",
            format!(
                "def f : {} = \\{} -> x1\ndef main : Int = f {}\n",
                arrows(n),
                params(n, false),
                numbers(n)
            ),
        ),
    ];
    for (name, program) in cases {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let src = dir.path().join("t.sp");
        std::fs::write(&src, &program).unwrap();
        let src = src.to_str().unwrap();
        let out = spindle(dir.path(), &["check", src]);
        assert!(out.status.success(), "check {name}: {}", text(&out));
        let out = spindle(dir.path(), &["run", "--progress", "none", src]);
        assert!(out.status.success(), "run {name}: {}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n", "{name}");
    }
    // Still checked: an argument of the wrong type in the middle of a long spine.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path().join("t.sp");
    let mut args: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    args[n / 2] = "\"no\"".to_string();
    std::fs::write(
        &src,
        format!(
            "def main : Int = (\\{} -> x1) {}\n",
            params(n, true),
            args.join(" ")
        ),
    )
    .unwrap();
    let out = spindle(dir.path(), &["check", src.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", text(&out));
}

#[test]
fn a_string_past_the_address_space_limit_is_a_clean_out_of_memory() {
    // Under `ulimit -v`, the default `--max-memory` is below it: a string that keeps
    // doubling ends in `out of memory`, not in an abort (exit 134) when an
    // allocation fails.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let src = dir.path().join("big.sp");
    std::fs::write(
        &src,
        "def big (n : Int) (s : String) : String = if n == 0 then s else big (n - 1) (s ++ s)\n\
         def main : Int = strLength (big 40 \"a\")\n",
    )
    .unwrap();
    let out = Command::new("bash")
        .current_dir(dir.path())
        .env_remove("SPINDLE_STORE")
        .arg("-c")
        .arg("ulimit -v 1000000 && exec \"$0\" run --progress none --store store big.sp")
        .arg(env!("CARGO_BIN_EXE_spindle"))
        .output()
        .expect("bash runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        err.contains("error:") && err.contains("out of memory"),
        "{err}"
    );
    assert!(!err.contains("memory allocation"), "{err}");
}
