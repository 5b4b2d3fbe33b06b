//! Every example program (the spec's, the benchmarks', our own) passes `spindle check`,
//! except the ones that are ill-typed on purpose, which it rejects.

use crate::common;

use common::{ILL_TYPED, check_error_output, run_in, sp_files, tests_dir};

#[test]
fn every_example_checks() {
    let mut failures = Vec::new();
    let mut count = 0;
    for sub in ["spec", "bench", "own"] {
        let dir = tests_dir().join("examples").join(sub);
        for file in sp_files(&dir) {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            if ILL_TYPED.contains(&name.as_str()) {
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
    // The workflow examples of the README.
    let dir = tests_dir().join("..").join("examples");
    for file in sp_files(&dir) {
        count += 1;
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let out = run_in(&dir, &["check", &name]);
        if !out.status.success() || !out.stderr.is_empty() {
            failures.push(format!(
                "examples/{name}: {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(count >= 13, "only {count} examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ill_typed_examples_are_rejected_with_their_errors() {
    let dir = tests_dir().join("examples").join("spec");
    for name in ILL_TYPED {
        let out = run_in(&dir, &["check", name]);
        let expected = std::fs::read_to_string(dir.join(name).with_extension("err")).unwrap();
        if let Err(why) = check_error_output(&out, &expected) {
            panic!("{name}: {why}");
        }
    }
}
