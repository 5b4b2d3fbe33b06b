//! The Slurm executor on a real cluster (LANGUAGE.md 12). These tests run when `sbatch`
//! is on `PATH` and `SLURM_CONF` is set (`.ci/slurm.sh` installs and starts a
//! single-node cluster with `shared/recipes/slurm-local.sh`, then runs them); otherwise
//! each prints that it was skipped and passes.
//!
//! Two kinds:
//! - through [`Calls`] (the host side, no machine needed): fan-out results equal to
//!   the local executor's, one job array for a burst, a failing job's exit code and
//!   standard error with the job id, standard input, a job that leaves the queue
//!   without its exit status, cancellation, `--resume` after a failure, and the
//!   benchmark against the local executor;
//! - through `spindle run --executor slurm` (**need the machine wired to
//!   `external::calls::Calls` and the run options of `external::options`**): a fan-out
//!   of 8 printing what local prints, `--resume` under Slurm, and SIGTERM leaving no
//!   job. Until `spindle run` has `--executor`, they say so and pass.
//!
//! They run one at a time (`--test-threads 1`, as `.ci/slurm.sh` does): the cluster
//! has 16 slots.

use spindle::external::calls::{Answer, Call, Calls, Config, Place, ProcessExecutor};
use spindle::external::exec::slurm::{self, SlurmConfig};
use spindle::external::exec::{Limits, Priority, Ticket};
use spindle::external::plain::Plain;
use spindle::external::progress::ProgressMode;
use spindle::external::registry;
use spindle::external::request::{CallErrorKind, Reply};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn skip(name: &str) -> bool {
    if slurm::available() && std::env::var_os("SLURM_CONF").is_some() {
        return false;
    }
    eprintln!(
        "skipped {name}: no Slurm here (sbatch on PATH and SLURM_CONF needed; see .ci/slurm.sh)"
    );
    true
}

fn s(x: &str) -> Plain {
    Plain::Str(x.into())
}

fn run_(program: &str, args: &[&str]) -> Call {
    Call::new(
        registry::lookup("run").unwrap(),
        vec![
            s(program),
            Plain::strings(args.iter().map(|a| a.to_string()).collect()),
        ],
        Place {
            shown: "wf.sp:1:1".into(),
            ..Place::default()
        },
    )
}

fn config(store: &Path, slurm: bool) -> Config {
    spindle::external::exec::set_stderr_passthrough(false);
    Config {
        store: Some(store.to_path_buf()),
        progress: ProgressMode::None,
        limits: Limits {
            jobs: 16,
            ..Limits::default()
        },
        executor: if slurm {
            ProcessExecutor::Slurm(SlurmConfig::default())
        } else {
            ProcessExecutor::Local
        },
        // Jobs run under the file-access tracer, as `spindle run`'s do.
        tracer: Some(env!("CARGO_BIN_EXE_spindle").into()),
        ..Config::default()
    }
}

fn run_calls(cfg: Config, list: Vec<Call>) -> (Vec<Answer>, Calls) {
    let mut calls = Calls::new(cfg).expect("the executor starts");
    let n = list.len();
    for (i, c) in list.into_iter().enumerate() {
        calls.submit(Ticket(i as u64), c, Priority::Certain);
    }
    let mut out: Vec<Option<Answer>> = vec![None; n];
    let deadline = Instant::now() + Duration::from_secs(120);
    while out.iter().any(Option::is_none) {
        assert!(Instant::now() < deadline, "calls did not end");
        for (t, a) in calls.wait(Some(Duration::from_secs(5))) {
            out[t.0 as usize] = Some(a);
        }
    }
    (out.into_iter().map(Option::unwrap).collect(), calls)
}

/// Our jobs still pending or running.
fn our_jobs() -> Vec<String> {
    let out = Command::new("squeue")
        .args(["-h", "-o", "%i %t %j", "--me"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.ends_with(" spindle"))
        .map(str::to_string)
        .collect()
}

/// Array folders of the run directories under a store.
fn arrays(store: &Path) -> usize {
    let mut n = 0;
    for run in std::fs::read_dir(store.join("runs"))
        .into_iter()
        .flatten()
        .flatten()
    {
        n += std::fs::read_dir(run.path())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with('a'))
            .count();
    }
    n
}

#[test]
fn a_fan_out_gives_what_the_local_executor_gives_in_one_job_array() {
    if skip("a_fan_out_gives_what_the_local_executor_gives_in_one_job_array") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let list = || {
        (0..8)
            .map(|i| {
                run_(
                    "sh",
                    &[
                        "-c",
                        "echo \"task $0 in $(pwd)\"; echo note >&2",
                        &i.to_string(),
                    ],
                )
            })
            .collect::<Vec<_>>()
    };
    let (local, _) = run_calls(config(&dir.path().join("l"), false), list());
    let (remote, _) = run_calls(config(&dir.path().join("s"), true), list());
    assert_eq!(local, remote);
    assert!(matches!(&remote[3], Answer::Done(Ok(Reply::Text(t))) if t.starts_with("task 3 in /")));
    assert_eq!(
        arrays(&dir.path().join("s")),
        1,
        "one job array for the burst"
    );
    assert!(our_jobs().is_empty());
}

#[test]
fn a_wide_fan_out_is_one_array_per_burst_within_the_jobs_limit() {
    if skip("a_wide_fan_out_is_one_array_per_burst_within_the_jobs_limit") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<Call> = (0..40).map(|i| run_("echo", &[&i.to_string()])).collect();
    let cfg = Config {
        limits: Limits {
            jobs: 40,
            ..Limits::default()
        },
        ..config(&dir.path().join("s"), true)
    };
    let (a, _) = run_calls(cfg, list);
    for (i, x) in a.iter().enumerate() {
        assert_eq!(*x, Answer::Done(Ok(Reply::Text(format!("{i}\n")))));
    }
    assert_eq!(arrays(&dir.path().join("s")), 1);
}

#[test]
fn a_failing_job_reports_its_status_standard_error_and_job_id() {
    if skip("a_failing_job_reports_its_status_standard_error_and_job_id") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = run_calls(
        config(&dir.path().join("s"), true),
        vec![run_("sh", &["-c", "echo first >&2; echo oops >&2; exit 3"])],
    );
    match &a[0] {
        Answer::Done(Err(e)) => {
            assert_eq!(e.kind, CallErrorKind::Exited(3));
            assert!(
                e.message.starts_with("`sh -c 'echo first >&2; echo oops >&2; exit 3'` exited with status 3 (Slurm job "),
                "{}",
                e.message
            );
            assert_eq!(e.stderr_tail, ["first", "oops"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn standard_input_reaches_a_run_result_job() {
    if skip("standard_input_reaches_a_run_result_job") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let c = Call::new(
        registry::lookup("runResult").unwrap(),
        vec![
            s("sh"),
            Plain::strings(vec!["-c".into(), "tr a-z A-Z; exit 2".into()]),
            s("hello\n"),
        ],
        Place::default(),
    );
    let (a, _) = run_calls(config(&dir.path().join("s"), true), vec![c]);
    assert_eq!(
        a[0],
        Answer::Done(Ok(Reply::Exit {
            code: 2,
            stdout: "HELLO\n".into(),
            stderr: String::new()
        }))
    );
}

#[test]
fn a_job_that_leaves_the_queue_without_its_status_is_a_failure() {
    if skip("a_job_that_leaves_the_queue_without_its_status_is_a_failure") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut calls = Calls::new(config(&dir.path().join("s"), true)).unwrap();
    calls.submit(Ticket(0), run_("sleep", &["30"]), Priority::Certain);
    // Cancelled behind Spindle's back once it is queued.
    let t0 = Instant::now();
    while our_jobs().is_empty() && t0.elapsed() < Duration::from_secs(10) {
        calls.poll();
        std::thread::sleep(Duration::from_millis(100));
    }
    let job = our_jobs()[0].split_whitespace().next().unwrap().to_string();
    Command::new("scancel").arg(&job).status().unwrap();
    let mut got = Vec::new();
    while got.is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(30));
        got = calls.wait(Some(Duration::from_secs(1)));
    }
    match &got[0].1 {
        Answer::Done(Err(e)) => {
            assert_eq!(e.kind, CallErrorKind::Lost);
            assert!(
                e.message.contains("without writing its exit status"),
                "{}",
                e.message
            );
            assert!(e.message.contains("Slurm job"), "{}", e.message);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn shutting_down_cancels_queued_and_running_jobs() {
    if skip("shutting_down_cancels_queued_and_running_jobs") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut calls = Calls::new(config(&dir.path().join("s"), true)).unwrap();
    // More than the cluster's slots: some run, some wait in the queue.
    for i in 0..20 {
        calls.submit(Ticket(i), run_("sleep", &["60"]), Priority::Certain);
    }
    let t0 = Instant::now();
    while our_jobs().iter().all(|l| !l.contains(" R ")) {
        assert!(t0.elapsed() < Duration::from_secs(20), "no job started");
        calls.poll();
        std::thread::sleep(Duration::from_millis(100));
    }
    calls.shutdown();
    assert!(our_jobs().is_empty(), "left in the queue: {:?}", our_jobs());
    // Cancelling one call cancels its task.
    calls.submit(Ticket(100), run_("sleep", &["60"]), Priority::Certain);
    calls.poll();
    calls.cancel(Ticket(100));
    let t0 = Instant::now();
    while !our_jobs().is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", our_jobs());
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn resume_after_a_failure_under_slurm_runs_only_what_failed() {
    if skip("resume_after_a_failure_under_slurm_runs_only_what_failed") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("s");
    let marker = dir.path().join("fixed").display().to_string();
    let list = || {
        let mut l: Vec<Call> = (0..5)
            .map(|i| run_("echo", &[&format!("step {i}")]))
            .collect();
        l.push(run_("sh", &["-c", "[ -e \"$0\" ] && echo step 5", &marker]));
        l
    };
    let cfg = || Config {
        resume: true,
        ..config(&st, true)
    };
    let (a, calls) = run_calls(cfg(), list());
    assert!(matches!(&a[5], Answer::Done(Err(_))));
    assert_eq!(calls.stats().ran, 6);
    drop(calls);
    std::fs::write(&marker, "").unwrap();
    let (a, calls) = run_calls(cfg(), list());
    assert_eq!(a[5], Answer::Done(Ok(Reply::Text("step 5\n".into()))));
    let stats = calls.stats();
    assert_eq!((stats.ran, stats.reused), (1, 5));
}

#[test]
fn sixteen_sleeps_take_at_most_twice_as_long_as_locally() {
    if skip("sixteen_sleeps_take_at_most_twice_as_long_as_locally") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let list = || {
        (0..16)
            .map(|i| run_("sh", &["-c", "sleep 1", &i.to_string()]))
            .collect::<Vec<_>>()
    };
    let t0 = Instant::now();
    run_calls(config(&dir.path().join("l"), false), list());
    let local = t0.elapsed();
    let t0 = Instant::now();
    let (a, _) = run_calls(config(&dir.path().join("s"), true), list());
    let remote = t0.elapsed();
    assert!(a.iter().all(|x| matches!(x, Answer::Done(Ok(_)))));
    eprintln!("16 x sleep 1, --jobs 16: local {local:?}, slurm {remote:?}");
    // The target is 2x (measured: about 1.5x); half a second more for a
    // loaded machine.
    assert!(
        remote < local * 2 + Duration::from_millis(500),
        "local {local:?}, slurm {remote:?}"
    );
}

/// A child mode of this test binary: submits sleeping jobs and waits for ever, with
/// Spindle's signal handling installed.
#[test]
fn child_slurm_sleeper() {
    let Some(dir) = std::env::var_os("SPINDLE_TEST_SLURM_CHILD") else {
        return;
    };
    spindle::external::lifetime::install_signal_handlers().unwrap();
    let mut calls = Calls::new(config(Path::new(&dir), true)).unwrap();
    for i in 0..20 {
        calls.submit(Ticket(i), run_("sleep", &["60"]), Priority::Certain);
    }
    loop {
        calls.wait(Some(Duration::from_secs(1)));
    }
}

#[test]
fn sigterm_cancels_every_job() {
    if skip("sigterm_cancels_every_job") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_slurm_sleeper", "--nocapture"])
        .env("SPINDLE_TEST_SLURM_CHILD", dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while our_jobs().iter().all(|l| !l.contains(" R ")) {
        assert!(t0.elapsed() < Duration::from_secs(20), "no job started");
        std::thread::sleep(Duration::from_millis(100));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert!(our_jobs().is_empty(), "left in the queue: {:?}", our_jobs());
}

// ----- through `spindle run --executor slurm` (needs the machine wired) -------------

fn spindle() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spindle"))
}

/// Whether `spindle run` has `--executor` (the lead wires it).
fn wired(name: &str) -> bool {
    let help = spindle().args(["run", "--help"]).output().unwrap();
    if String::from_utf8_lossy(&help.stdout).contains("--executor") {
        return true;
    }
    eprintln!(
        "skipped {name}: `spindle run` has no --executor yet (needs the machine wired to Calls)"
    );
    false
}

const FAN_OUT: &str =
    "def main = map (\\i -> run \"sh\" [\"-c\", \"echo task $0\", showInt i]) (range 0 8)\n";

#[test]
fn spindle_run_fan_out_of_8_prints_what_local_prints() {
    if skip("spindle_run_fan_out_of_8_prints_what_local_prints")
        || !wired("spindle_run_fan_out_of_8_prints_what_local_prints")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wf = dir.path().join("wf.sp");
    std::fs::write(&wf, FAN_OUT).unwrap();
    let run = |executor: &str| {
        spindle()
            .args(["run", "--progress", "none", "--executor", executor])
            .arg(&wf)
            .output()
            .unwrap()
    };
    let local = run("local");
    let remote = run("slurm");
    assert!(local.status.success(), "{local:?}");
    assert_eq!(local.stdout, remote.stdout);
    assert_eq!(local.status.code(), remote.status.code());
}

#[test]
fn spindle_run_resume_under_slurm() {
    if skip("spindle_run_resume_under_slurm") || !wired("spindle_run_resume_under_slurm") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wf = dir.path().join("wf.sp");
    let trace = dir.path().join("t.tsv");
    std::fs::write(
        &wf,
        "def step (i : Int) : String = run \"sh\" [\"-c\", \"{ [ $0 -lt 7 ] || { sleep 1; [ -e fixed ]; }; } && echo $0\", showInt i]\n\
         def main = map step (range 0 10)\n",
    )
    .unwrap();
    let run = |trace: &std::path::Path| {
        spindle()
            .current_dir(dir.path())
            .args([
                "run",
                "--resume",
                "--progress",
                "none",
                "--executor",
                "slurm",
                "--trace",
            ])
            .arg(trace)
            .arg(&wf)
            .output()
            .unwrap()
    };
    let first_trace = dir.path().join("first.tsv");
    let first = run(&first_trace);
    assert!(!first.status.success(), "{first:?}");
    std::fs::write(dir.path().join("fixed"), "").unwrap();
    let second = run(&trace);
    assert!(second.status.success(), "{second:?}");
    // What a clean local run prints.
    let clean = spindle()
        .current_dir(dir.path())
        .args(["run", "--progress", "none", "--store"])
        .arg(dir.path().join("clean-store"))
        .arg(&wf)
        .output()
        .unwrap();
    assert_eq!(second.stdout, clean.stdout);
    // The steps of a trace with a status (the step is the command's last word).
    let steps = |path: &std::path::Path, status: &str| -> Vec<u32> {
        let mut v: Vec<u32> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| l.split('\t').nth(4) == Some(status))
            .filter_map(|l| l.split('\t').nth(3)?.rsplit(' ').next()?.parse().ok())
            .collect();
        v.sort_unstable();
        v
    };
    // Steps 7 to 9 take a second, so steps 0 to 6 have ended when the first of them
    // fails (a failure that came first would leave nothing to record).
    // After step 7 failed, jobs not started yet were cancelled (LANGUAGE.md 11: no
    // new effect call starts); those that finished were recorded. The second run
    // reuses exactly those and runs the rest, steps 7 to 9 among them.
    let recorded = steps(&first_trace, "ok");
    assert!(
        !recorded.is_empty(),
        "{}",
        std::fs::read_to_string(&first_trace).unwrap()
    );
    assert!(recorded.iter().all(|&i| i < 7), "{recorded:?}");
    assert_eq!(steps(&trace, "reused"), recorded);
    let ran = steps(&trace, "ok");
    let rest: Vec<u32> = (0..10).filter(|i| !recorded.contains(i)).collect();
    assert_eq!(ran, rest, "{}", std::fs::read_to_string(&trace).unwrap());
}

/// A step under Slurm is traced like a local one (issue 24): it makes its own output
/// folder, and deleting the folder runs it again.
#[test]
fn spindle_run_under_slurm_records_what_a_job_wrote() {
    if skip("spindle_run_under_slurm_records_what_a_job_wrote")
        || !wired("spindle_run_under_slurm_records_what_a_job_wrote")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("wf.sp"),
        "def main = after (shell \"mkdir -p made && echo x > made/a.txt\") (glob \"made/*\")\n",
    )
    .unwrap();
    let run = |explain: bool| {
        let mut c = spindle();
        c.current_dir(dir.path()).args([
            "run",
            "--resume",
            "--progress",
            "none",
            "--executor",
            "slurm",
        ]);
        if explain {
            c.arg("--explain");
        }
        c.arg("wf.sp").output().unwrap()
    };
    let first = run(false);
    assert!(first.status.success(), "{first:?}");
    assert_eq!(String::from_utf8_lossy(&first.stdout), "[\"made/a.txt\"]\n");
    std::fs::remove_dir_all(dir.path().join("made")).unwrap();
    let again = run(true);
    assert!(again.status.success(), "{again:?}");
    assert_eq!(String::from_utf8_lossy(&again.stdout), "[\"made/a.txt\"]\n");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("output missing: made"), "{err}");
}

#[test]
fn spindle_run_sigterm_leaves_no_job() {
    if skip("spindle_run_sigterm_leaves_no_job") || !wired("spindle_run_sigterm_leaves_no_job") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wf = dir.path().join("wf.sp");
    std::fs::write(
        &wf,
        "def main = map (\\i -> run \"sleep\" [showInt (60 + i)]) (range 0 20)\n",
    )
    .unwrap();
    let mut child = spindle()
        .args(["run", "--progress", "none", "--executor", "slurm"])
        .arg(&wf)
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while our_jobs().is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(20), "no job submitted");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    child.wait().unwrap();
    assert!(our_jobs().is_empty(), "left in the queue: {:?}", our_jobs());
}
