//! The untuned CPU benchmarks of `benches/cpu/` (issue 30) keep type-checking: every
//! program passes `spindle check`, so the set cannot rot. Their outputs and speed are
//! compared with their Python twins by `benches/cpu/run.sh`, not here.

use crate::common;

use common::run_in;
use std::path::Path;

/// The benchmarks (each `NAME.sp` with a `NAME.py` twin).
const RUNNABLE_TODAY: &[&str] = &[
    "anagrams",
    "bintrees",
    "csvreport",
    "csvsales",
    "editdist",
    "exprcalc",
    "fannkuch",
    "gridbfs",
    "heapsched",
    "jsonusers",
    "mandelbrot",
    "nbody",
    "pipeline",
    "sortrecords",
    "stats",
    "validate",
    "wordfreq",
];

#[test]
fn runnable_cpu_benchmarks_type_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join("cpu");
    let mut failures = Vec::new();
    for name in RUNNABLE_TODAY {
        let sp = format!("{name}.sp");
        if !dir.join(&sp).is_file() || !dir.join(format!("{name}.py")).is_file() {
            failures.push(format!("{name}: missing {name}.sp or its twin {name}.py"));
            continue;
        }
        let out = run_in(&dir, &["check", &sp]);
        if !out.status.success() || !out.stderr.is_empty() {
            failures.push(format!(
                "{sp}: exit {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} benchmarks do not check:\n{}",
        failures.len(),
        RUNNABLE_TODAY.len(),
        failures.join("\n")
    );
}
