//! Every example program (the spec's, the benchmarks', our own) passes `spindle check`.
//! `type_error.sp` is an ill-typed program: it resolves, and is rejected once the type
//! checker lands (issue 4), so it is left out here.

mod common;

use common::{run_in, sp_files, tests_dir};

/// Examples whose rejection needs the type checker.
const NEEDS_TYPE_CHECKER: &[&str] = &["type_error.sp"];

#[test]
fn every_example_checks() {
    let mut failures = Vec::new();
    let mut count = 0;
    for sub in ["spec", "bench", "own"] {
        let dir = tests_dir().join("examples").join(sub);
        for file in sp_files(&dir) {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            if NEEDS_TYPE_CHECKER.contains(&name.as_str()) {
                continue;
            }
            count += 1;
            let out = run_in(&dir, &["check", &name]);
            if !out.status.success() || !out.stderr.is_empty() {
                failures.push(format!(
                    "{sub}/{name}: {:?}\n{}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(count >= 12, "only {count} examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
