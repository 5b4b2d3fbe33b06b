//! The call layer after a failure that decides the run (LANGUAGE.md 11: "no new
//! `effect` call starts, the calls already running finish and are recorded"), on real
//! processes: a freed `--jobs` slot does not start the next queued process before the
//! driver has seen the failure, and [`Calls::hold_effects`] answers the queued ones
//! with [`NOT_STARTED`] while the running ones finish.

use spindle::external::calls::{Answer, Call, Calls, Config, NOT_STARTED, Place};
use spindle::external::exec::{Limits, Priority, Ticket};
use spindle::external::plain::Plain;
use spindle::external::progress::ProgressMode;
use spindle::external::registry;
use std::path::Path;
use std::time::{Duration, Instant};

/// `sh -c SCRIPT i`: appends `start i` to `log`, fails at once for i = 1, else sleeps.
fn step(dir: &Path, i: u64) -> Call {
    let script = format!(
        "echo start $0 >> {}/log; [ $0 -ne 1 ] || exit 1; sleep 0.4; echo $0",
        dir.display()
    );
    Call::new(
        registry::lookup("run").unwrap(),
        vec![
            Plain::Str("sh".into()),
            Plain::strings(vec!["-c".into(), script, i.to_string()]),
        ],
        Place {
            shown: "wf.sp:1:1".into(),
            ..Place::default()
        },
    )
}

/// A call layer with two process slots; with a store, calls are dispatched as their
/// lookups end (in any order), without one in the order they come.
fn calls(dir: &Path, store: bool) -> Calls {
    spindle::external::exec::set_stderr_passthrough(false);
    Calls::new(Config {
        store: store.then(|| dir.join("store")),
        progress: ProgressMode::None,
        tracer: Some(env!("CARGO_BIN_EXE_spindle").into()),
        limits: Limits {
            jobs: 2,
            ..Limits::default()
        },
        ..Config::default()
    })
    .unwrap()
}

fn started(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_to_string(dir.join("log"))
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect();
    v.sort();
    v
}

/// Waits for every answer of tickets 0..n, calling `on_failure` once when the first
/// failure arrives (as a scheduler would), and returns the answers.
fn run(c: &mut Calls, n: u64, mut on_failure: impl FnMut(&mut Calls)) -> Vec<Option<Answer>> {
    let mut out: Vec<Option<Answer>> = vec![None; n as usize];
    let mut failed = false;
    let t = Instant::now();
    while out.iter().any(Option::is_none) {
        assert!(t.elapsed() < Duration::from_secs(30), "calls did not end");
        for (tk, a) in c.wait(Some(Duration::from_secs(5))) {
            if !failed && matches!(a, Answer::Done(Err(_))) {
                failed = true;
                on_failure(c);
            }
            out[tk.0 as usize] = Some(a);
        }
    }
    out
}

#[test]
fn held_effects_never_start_and_running_ones_finish() {
    // Without a store, steps 0 and 1 take the two slots; step 1 fails at once.
    let dir = tempfile::tempdir().unwrap();
    let mut c = calls(dir.path(), false);
    for i in 0..6 {
        c.submit(Ticket(i), step(dir.path(), i), Priority::Certain);
    }
    let answers = run(&mut c, 6, |c| c.hold_effects());
    c.finish().unwrap();
    assert_eq!(started(dir.path()), ["start 0", "start 1"]);
    // Step 0 was running: it finished.
    assert!(
        matches!(&answers[0], Some(Answer::Done(Ok(_)))),
        "{:?}",
        answers[0]
    );
    assert!(matches!(&answers[1], Some(Answer::Done(Err(e))) if e.message.contains("status 1")));
    for a in &answers[2..] {
        assert!(
            matches!(a, Some(Answer::Done(Err(e))) if e.message == NOT_STARTED),
            "{a:?}"
        );
    }
}

#[test]
fn with_a_store_only_calls_that_started_before_the_failure_run() {
    // With a store the lookups end in any order, so which calls ran before the failure
    // varies; but a call either started before the driver held effects and finished, or
    // never started.
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let mut c = calls(dir.path(), true);
        for i in 0..6 {
            c.submit(Ticket(i), step(dir.path(), i), Priority::Certain);
        }
        let answers = run(&mut c, 6, |c| c.hold_effects());
        c.finish().unwrap();
        let log = started(dir.path());
        for (i, a) in answers.iter().enumerate() {
            let line = format!("start {i}");
            match a {
                Some(Answer::Done(Ok(_))) => assert!(log.contains(&line), "{i}: {log:?}"),
                Some(Answer::Done(Err(e))) if e.message == NOT_STARTED => {
                    assert!(!log.contains(&line), "{i} started after the hold: {log:?}")
                }
                Some(Answer::Done(Err(e))) => assert_eq!(i, 1, "{e}"),
                other => panic!("{i}: {other:?}"),
            }
        }
    }
}

#[test]
fn without_a_hold_the_queued_calls_go_on_after_a_failure() {
    // A failure under `try` does not decide the run: the driver does not hold, and
    // every call runs.
    let dir = tempfile::tempdir().unwrap();
    let mut c = calls(dir.path(), true);
    for i in 0..6 {
        c.submit(Ticket(i), step(dir.path(), i), Priority::Certain);
    }
    let answers = run(&mut c, 6, |_| {});
    c.finish().unwrap();
    assert_eq!(started(dir.path()).len(), 6);
    let ok = answers
        .iter()
        .filter(|a| matches!(a, Some(Answer::Done(Ok(_)))))
        .count();
    assert_eq!(ok, 5);
}

#[test]
fn the_machine_reports_the_same_not_started_text() {
    assert_eq!(NOT_STARTED, spindle::sched::policy::NOT_STARTED);
}
