//! The type checker's test suite (issue 4): typed programs that must pass, ill-typed
//! programs that must fail with a named error, and programs that must check with a
//! warning. Every case runs the real `spindle` binary with the case's folder as the
//! working directory, so messages say `NAME.sp:LINE:COL`.
//!
//! Layout of `tests/typing/`:
//!
//! - `pass/NAME.sp` with `NAME.out`: `spindle run NAME.sp` exits 0, prints exactly
//!   `NAME.out` on standard output and nothing on standard error (so each case checks
//!   evaluation as well as typing).
//! - `fail/NAME.sp` with `NAME.err`: `spindle check NAME.sp` exits 1, standard error
//!   starts with `error`, contains every line of `NAME.err` and shows no panic.
//! - `warn/NAME.sp` with `NAME.err`: `spindle check NAME.sp` exits 0, prints nothing on
//!   standard output, and standard error contains every line of `NAME.err` (a warning,
//!   never an error) and shows no panic.
//! - An optional `NAME.max_s` next to any case holds the wall-clock limit in seconds for
//!   that run (default [`DEFAULT_LIMIT_S`]); a run that exceeds it is killed and fails.
//!
//! Every case is run and every failure is reported at once. Cases that fail because of
//! a known bug in the checker or the machine are listed in [`KNOWN_FAILURES`]: they are
//! still run, and the suite fails if one of them starts passing, so that the list is
//! kept honest.

use crate::common;

use common::{check_error_output, spindle, tests_dir};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// Cases (`KIND/NAME`) that fail today because of a bug outside this test suite. Each
/// must fail; remove an entry as soon as its case passes.
const KNOWN_FAILURES: &[&str] = &[];

/// Wall-clock limit of one run, in seconds, unless the case has a `.max_s` file.
const DEFAULT_LIMIT_S: f64 = 60.0;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Pass,
    Fail,
    Warn,
}

impl Kind {
    fn dir(self) -> &'static str {
        match self {
            Kind::Pass => "pass",
            Kind::Fail => "fail",
            Kind::Warn => "warn",
        }
    }
}

/// Every `.sp` file directly in `dir`, sorted.
fn cases(dir: &Path) -> Vec<PathBuf> {
    common::sp_files(dir)
}

/// Runs `spindle ARGS...` in `dir`, killing it after `limit`.
fn run_limited(dir: &Path, args: &[&str], limit: Duration) -> Result<Output, String> {
    let mut child = spindle()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start spindle: {e}"))?;
    // Drain the pipes on threads so that a chatty run cannot block on a full pipe.
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "still running after {:.1} s (limit {:.1} s); killed",
                    start.elapsed().as_secs_f64(),
                    limit.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot wait for spindle: {e}")),
        }
    };
    if start.elapsed() > limit {
        return Err(format!(
            "took {:.3} s, over the limit of {:.3} s",
            start.elapsed().as_secs_f64(),
            limit.as_secs_f64()
        ));
    }
    Ok(Output {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    })
}

/// The wall-clock limit of a case: its `.max_s` file, or the default.
fn limit_of(file: &Path) -> Result<Duration, String> {
    let max_s = file.with_extension("max_s");
    if !max_s.exists() {
        return Ok(Duration::from_secs_f64(DEFAULT_LIMIT_S));
    }
    let text = std::fs::read_to_string(&max_s).map_err(|e| format!("{e}"))?;
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|e| format!("bad {}: {e}", max_s.display()))?;
    Ok(Duration::from_secs_f64(secs))
}

fn read_golden(file: &Path, ext: &str) -> Result<String, String> {
    let golden = file.with_extension(ext);
    std::fs::read_to_string(&golden).map_err(|e| format!("cannot read {}: {e}", golden.display()))
}

fn no_panic(stderr: &str) -> Result<(), String> {
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        Err(format!("a Rust panic\n--- stderr:\n{stderr}"))
    } else {
        Ok(())
    }
}

/// Runs one case and says what went wrong, if anything.
fn run_case(kind: Kind, dir: &Path, file: &Path) -> Result<(), String> {
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let limit = limit_of(file)?;
    match kind {
        Kind::Pass => {
            let want = read_golden(file, "out")?;
            let out = run_limited(dir, &["run", "--progress", "none", &name], limit)?;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            no_panic(&stderr)?;
            let mut problems = Vec::new();
            if out.status.code() != Some(0) {
                problems.push(format!("exit status {:?}, expected 0", out.status.code()));
            }
            if stdout != want {
                problems.push("standard output differs from the .out file".to_string());
            }
            if !stderr.is_empty() {
                problems.push("unexpected standard error".to_string());
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "{}\n--- expected stdout:\n{want}--- got stdout:\n{stdout}--- stderr:\n{stderr}",
                    problems.join("; ")
                ))
            }
        }
        Kind::Fail => {
            let want = read_golden(file, "err")?;
            let out = run_limited(dir, &["check", &name], limit)?;
            check_error_output(&out, &want)
        }
        Kind::Warn => {
            let want = read_golden(file, "err")?;
            let out = run_limited(dir, &["check", &name], limit)?;
            let stderr = String::from_utf8_lossy(&out.stderr);
            no_panic(&stderr)?;
            let mut problems = Vec::new();
            if out.status.code() != Some(0) {
                problems.push(format!("exit status {:?}, expected 0", out.status.code()));
            }
            if !out.stdout.is_empty() {
                problems.push("unexpected standard output".to_string());
            }
            if stderr.lines().any(|l| l.starts_with("error")) {
                problems.push("an error where only a warning was expected".to_string());
            }
            for line in want.lines().filter(|l| !l.is_empty()) {
                if !stderr.contains(line) {
                    problems.push(format!("standard error lacks `{line}`"));
                }
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!("{}\n--- stderr:\n{stderr}", problems.join("; ")))
            }
        }
    }
}

#[test]
fn every_typing_case() {
    let root = tests_dir().join("typing");
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    let mut passing = [0usize; 3];
    for (i, kind) in [Kind::Pass, Kind::Fail, Kind::Warn].into_iter().enumerate() {
        let dir = root.join(kind.dir());
        for file in cases(&dir) {
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            let id = format!("{}/{stem}", kind.dir());
            let known = KNOWN_FAILURES.contains(&id.as_str());
            seen.push(id.clone());
            match (run_case(kind, &dir, &file), known) {
                (Ok(()), false) => passing[i] += 1,
                (Ok(()), true) => failures.push(format!(
                    "{id}: listed in KNOWN_FAILURES but passes now; remove it from the list"
                )),
                (Err(_), true) => {}
                (Err(why), false) => failures.push(format!("{id}: {why}")),
            }
        }
    }
    for known in KNOWN_FAILURES {
        if !seen.iter().any(|s| s == known) {
            failures.push(format!(
                "{known}: listed in KNOWN_FAILURES but no such case"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} typing case(s) went wrong:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    let [pass, fail, warn] = passing;
    assert!(
        pass >= 40,
        "only {pass} passing `pass` cases; at least 40 are required"
    );
    assert!(
        fail >= 40,
        "only {fail} passing `fail` cases; at least 40 are required"
    );
    assert!(warn >= 1, "no passing `warn` cases");
}
