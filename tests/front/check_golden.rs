//! Golden tests for `spindle check`: each `tests/check/NAME.sp` with a `NAME.err` must
//! fail with exit 1 and print every line of `NAME.err`; one without must pass silently.

use crate::common;

use common::{check_error_output, run_in, sp_files, tests_dir};

#[test]
fn every_check_golden_file() {
    let dir = tests_dir().join("check");
    let mut failures = Vec::new();
    let files = sp_files(&dir);
    assert!(files.len() >= 10, "the golden files are missing");
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let out = run_in(&dir, &["check", &name]);
        let err_file = file.with_extension("err");
        let result = if err_file.exists() {
            check_error_output(&out, &std::fs::read_to_string(&err_file).unwrap())
        } else if out.status.success() && out.stdout.is_empty() && out.stderr.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "expected a silent success, got {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ))
        };
        if let Err(why) = result {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_missing_file_is_a_clean_error() {
    let out = run_in(&tests_dir(), &["check", "no_such_file.sp"]);
    check_error_output(&out, "cannot read no_such_file.sp").unwrap();
}
