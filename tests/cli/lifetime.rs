//! No process outlives `spindle run` (LANGUAGE.md 7.4, issue 11), checked in `/proc`
//! by the unique argument of each `sleep` the workflow starts: after success (a tool
//! that left a background child in its group), after a failure while other calls still
//! run (with and without `--fail-fast`), and after SIGTERM, SIGINT and SIGHUP.

use crate::e2e_common;

use e2e_common::*;
use nix::sys::signal::Signal;
use std::time::{Duration, Instant};

/// Three distinct 31-second sleeps, as `sleep` arguments.
fn words() -> Vec<String> {
    (0..3).map(|_| format!("31.{}", unique())).collect()
}

fn spindle_list(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn live(words: &[String]) -> Vec<(String, Vec<u32>)> {
    words
        .iter()
        .map(|w| (w.clone(), procs_with_arg(w)))
        .filter(|(_, p)| !p.is_empty())
        .collect()
}

/// Cleans up after a test whatever it found.
struct Leftovers(Vec<String>);

impl Drop for Leftovers {
    fn drop(&mut self) {
        for w in &self.0 {
            kill_leftovers(w);
        }
    }
}

#[test]
fn a_background_child_of_a_finished_tool_is_stopped_on_success() {
    for mode in MODES {
        let wf = Wf::new();
        let ws = words();
        let _guard = Leftovers(ws.clone());
        wf.write(
            "wf.sp",
            &format!(
                "def main = map (\\w -> shell (\"sleep \" ++ w ++ \" >/dev/null 2>&1 & echo started\")) [{}]\n",
                spindle_list(&ws)
            ),
        );
        let out = wf.run_mode(mode, &["wf.sp"]);
        assert_eq!(
            ok(&out),
            "[\"started\\n\", \"started\\n\", \"started\\n\"]\n",
            "{mode:?}"
        );
        assert!(
            live(&ws).is_empty(),
            "{mode:?}: left running: {:?}",
            live(&ws)
        );
    }
}

/// A workflow whose first call fails after 0.3 s while the others sleep.
fn failing_with_sleeps(wf: &Wf, ws: &[String]) {
    wf.write(
        "wf.sp",
        &format!(
            "def step (w : String) : String =\n  \
               if w == \"fail\" then shell \"sleep 0.3; echo broken >&2; exit 3\" else run \"sleep\" [w]\n\
             def main = map step [\"fail\", {}]\n",
            spindle_list(ws)
        ),
    );
}

#[test]
fn fail_fast_stops_the_running_calls_when_one_fails() {
    let wf = Wf::new();
    let ws = words();
    let _guard = Leftovers(ws.clone());
    failing_with_sleeps(&wf, &ws);
    let t = Instant::now();
    let out = wf.run(&["--fail-fast", "wf.sp"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("exited with status 3"),
        "{}",
        stderr(&out)
    );
    assert!(live(&ws).is_empty(), "left running: {:?}", live(&ws));
    // Loose: the 31-second sleeps were stopped, not waited for.
    assert!(t.elapsed() < Duration::from_secs(25), "{:?}", t.elapsed());
}

#[test]
fn fail_fast_ends_when_the_main_fiber_waits_for_a_stopped_call() {
    // The failing call is not the one the main fiber waits for: the sleep it waits for
    // is stopped, and the run still ends at once with the failure (it used to spin).
    let wf = Wf::new();
    let ws = words();
    let _guard = Leftovers(ws.clone());
    wf.write(
        "wf.sp",
        &format!(
            "def main = (strLength (run \"sleep\" [\"{}\"]), strLength (shell \"sleep 0.3; exit 3\"))\n",
            ws[0]
        ),
    );
    let mut child = wf.spawn(&["--fail-fast", "wf.sp"]);
    let ended = wait_until(Duration::from_secs(20), || {
        child.try_wait().unwrap().is_some()
    });
    if !ended {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the run did not end");
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("exited with status 3"),
        "{}",
        stderr(&out)
    );
    assert!(live(&ws).is_empty(), "left running: {:?}", live(&ws));
}

#[test]
fn a_failure_lets_the_running_calls_finish_and_leaves_nothing() {
    // Without --fail-fast the calls already running finish (to be recorded), then the
    // run ends with the failure; nothing is left behind either way.
    let wf = Wf::new();
    let ws: Vec<String> = (0..3).map(|_| format!("1.{}", unique())).collect();
    let _guard = Leftovers(ws.clone());
    failing_with_sleeps(&wf, &ws);
    let started = std::time::Instant::now();
    let mut child = wf.spawn(&["wf.sp"]);
    let mut seen = false;
    while child.try_wait().unwrap().is_none() {
        seen |= !live(&ws).is_empty();
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        seen,
        "the sleeps never ran at the same time as the failing call"
    );
    // The one-second sleeps were waited for, not stopped when the failure came.
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("broken"), "{}", stderr(&out));
    assert!(live(&ws).is_empty(), "left running: {:?}", live(&ws));
}

fn stopped_by(sig: Signal) {
    let wf = Wf::new();
    let ws = words();
    let _guard = Leftovers(ws.clone());
    // One sleep in a pipeline with a background child of its own, to stop whole groups.
    wf.write(
        "wf.sp",
        &format!(
            "def main = map (\\w -> shell (\"sleep \" ++ w ++ \" & sleep \" ++ w ++ \"1; wait\")) [{}]\n",
            spindle_list(&ws)
        ),
    );
    let mut all: Vec<String> = ws.clone();
    all.extend(ws.iter().map(|w| format!("{w}1")));
    let _guard2 = Leftovers(all.clone());
    let child = wf.spawn(&["wf.sp"]);
    assert!(
        wait_until(Duration::from_secs(10), || live(&all).len() == all.len()),
        "{sig:?}: the sleeps did not all start: {:?}",
        live(&all)
    );
    signal(&child, sig);
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "{sig:?}: {out:?}");
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(
        live(&all).is_empty(),
        "{sig:?}: left running: {:?}",
        live(&all)
    );
}

#[test]
fn sigterm_stops_every_process() {
    stopped_by(Signal::SIGTERM);
}

#[test]
fn sigint_stops_every_process() {
    stopped_by(Signal::SIGINT);
}

#[test]
fn sighup_stops_every_process() {
    stopped_by(Signal::SIGHUP);
}
