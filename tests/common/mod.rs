//! Helpers shared by the integration tests: running the real `spindle` binary and
//! checking a golden `.err` file (every line must appear in standard error).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `spindle` binary built for this test run.
pub fn spindle() -> Command {
    sweep_stale_scratch();
    // Each command records into a store of its own (never beside the repository's
    // files, never shared by tests running at once).
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let store = std::env::temp_dir()
        .join(format!("spindle-tests-{}", std::process::id()))
        .join(format!("store-{n}"));
    let mut c = Command::new(env!("CARGO_BIN_EXE_spindle"));
    c.env("SPINDLE_STORE", store);
    c
}

/// Runs `spindle ARGS...` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    spindle()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the spindle binary runs")
}

/// The project's test data folder.
pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Every `.sp` file directly in `dir`, sorted.
pub fn sp_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sp"))
        .collect();
    files.sort();
    files
}

/// Checks that an error run exited 1, printed each line of `expected` to standard
/// error, and showed no panic. Returns a description of what went wrong, if anything.
pub fn check_error_output(out: &Output, expected: &str) -> Result<(), String> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut problems = Vec::new();
    if out.status.code() != Some(1) {
        problems.push(format!("exit status {:?}, expected 1", out.status.code()));
    }
    // Progress lines may come first (standard error is not a terminal); the error
    // itself starts its line with `error`.
    if !stderr.lines().any(|l| l.starts_with("error")) {
        problems.push("no line of standard error starts with `error`".to_string());
    }
    for want in expected.lines().filter(|l| !l.is_empty()) {
        if !stderr.contains(want) {
            problems.push(format!("standard error lacks `{want}`"));
        }
    }
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        problems.push("a Rust panic".to_string());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n--- stderr:\n{stderr}", problems.join("; ")))
    }
}

/// Example programs that are ill-typed on purpose: `spindle check` rejects them.
pub const ILL_TYPED: &[&str] = &["type_error.sp"];

/// Every example program that type-checks: the spec's, the benchmarks', the project's
/// own, and the README's workflow (`examples/`).
pub fn example_programs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["spec", "bench", "own"] {
        files.extend(sp_files(&tests_dir().join("examples").join(dir)));
    }
    files.extend(sp_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"),
    ));
    files.retain(|f| !ILL_TYPED.iter().any(|n| f.ends_with(n)));
    files
}

/// [`example_programs`], each program once: a file whose program (its lines other
/// than comments) is the same as an earlier file's is left out (`bench/fanout.sp` is
/// `spec/fanout.sp` with another comment), for tests that check what a program does,
/// not what a file is.
pub fn distinct_example_programs() -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    example_programs()
        .into_iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let program: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("--"))
                .collect();
            seen.insert(program.join("\n"))
        })
        .collect()
}

/// Loads a program that must check, and returns what the driver loaded.
pub fn load_checked(path: &Path) -> spindle::driver::Loaded {
    let loaded = spindle::driver::load(path);
    assert!(!loaded.has_errors(), "{}", loaded.render_errors());
    loaded
}

/// Writes `text` to a file `name` in a scratch folder of this test binary (`tag`) and
/// returns its path.
pub fn scratch_file(tag: &str, name: &str, text: &str) -> PathBuf {
    sweep_stale_scratch();
    let dir = std::env::temp_dir().join(format!("spindle-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Removes what earlier test processes left in the temporary folder (their stores
/// and scratch files, `spindle-<tag>-<pid>...` of a process that is gone), once per
/// test process, so that running the tests again and again does not fill it. Folders
/// of live processes (tests running beside this one) are kept.
pub fn sweep_stale_scratch() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let proc_dir = Path::new("/proc");
        if !proc_dir.join("self").exists() {
            return; // no way to tell live processes from gone ones
        }
        let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("spindle-")) else {
                continue;
            };
            let Some(pid) = rest
                .split('-')
                .find(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            else {
                continue;
            };
            if !proc_dir.join(pid).exists() && e.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
}
