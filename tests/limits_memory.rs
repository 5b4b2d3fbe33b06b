//! `--max-memory` counts external results as they are read (issue 30): a process's
//! output, a file, a stream's line past the limit end the run with a clean
//! `out of memory` naming the call and a non-zero status, the reading stops at the
//! limit (peak memory stays far below what the tool wrote), and the tool is stopped.
//!
//! One test, its cases one after another: the peak resident size of the children
//! (`getrusage(RUSAGE_CHILDREN)`) is the largest of every `spindle` run so far, so
//! nothing else in this test binary may run a large one.

mod e2e_common;

use e2e_common::*;
use nix::sys::resource::{UsageWho, getrusage};
use std::time::Duration;

/// What the tools write: 300 MiB (or without end).
const OUTPUT: u64 = 300 << 20;

/// The largest resident size of any child waited for, in bytes.
fn children_peak() -> u64 {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    // Linux gives kilobytes.
    usage.max_rss() as u64 * 1024
}

/// Asserts a run ended with `out of memory` naming `call`.
fn out_of_memory(out: &std::process::Output, call: &str) {
    let err = stderr(out);
    assert!(!out.status.success(), "succeeded:\n{err}");
    assert!(
        err.contains("error:") && err.contains("out of memory") && err.contains(call),
        "not an out-of-memory error naming {call}:\n{err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
    // An abort (exit 134) or a signal is no clean end.
    assert_eq!(out.status.code(), Some(1), "{err}");
}

#[test]
fn external_results_count_against_max_memory() {
    for mode in MODES {
        // A tool that writes without end: reading stops at the limit, and the tool
        // is stopped (it would never end by itself).
        let wf = Wf::new();
        let word = format!("w{}", unique());
        wf.write(
            "out.sp",
            &format!("def main : Int = strLength (run \"yes\" [\"{word}\"])\n"),
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "out.sp"]);
        let out = wf.run(&args);
        out_of_memory(&out, &format!("yes {word}"));
        assert!(
            wait_until(Duration::from_secs(5), || procs_with_arg(&word).is_empty()),
            "{mode:?}: `yes` left running"
        );
        kill_leftovers(&word);

        // `runResult` reads the same way.
        wf.write(
            "result.sp",
            &format!(
                "def main : Int = strLength (stdout (runResult \"head\" [\"-c\", \"{OUTPUT}\", \"/dev/zero\"] \"\"))\n"
            ),
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "result.sp"]);
        out_of_memory(&wf.run(&args), &format!("head -c {OUTPUT} /dev/zero"));

        // A file past the limit is refused before it is read.
        let big = wf.file("big.txt");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(OUTPUT))
            .expect("a sparse file");
        wf.write(
            "file.sp",
            "def main : Int = strLength (readFile \"big.txt\")\n",
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "file.sp"]);
        out_of_memory(&wf.run(&args), "readFile big.txt");

        // A stream's line that never ends.
        wf.write(
            "lines.sp",
            &format!("def main : Int = length (shellLines \"head -c {OUTPUT} /dev/zero\")\n"),
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "lines.sp"]);
        out_of_memory(&wf.run(&args), &format!("head -c {OUTPUT} /dev/zero"));

        // Under the limit all of it is read.
        wf.write(
            "small.sp",
            "def main : Int = strLength (shell \"head -c 1000000 /dev/zero | tr '\\\\0' a\")\n",
        );
        let mut args = mode.to_vec();
        args.extend(["--max-memory", "64M", "small.sp"]);
        assert_eq!(ok(&wf.run(&args)), "1000000\n");
    }
    // Every run above stayed far below what its tool wrote.
    let peak = children_peak();
    assert!(peak < 200 << 20, "a run reached {} MiB", peak >> 20);
}
