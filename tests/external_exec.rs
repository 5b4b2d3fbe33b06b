//! The executors on the real file system and process table (no mocks): each external's
//! behaviour and errors, through the registry, [`perform_now`] and the [`Executor`];
//! limits, priorities, cancellation, and 100,000 waiting calls at once.
//!
//! Times are asserted only loosely, where the point is that calls overlap.

use spindle::external::exec::{Completion, Executor, Limits, Priority, Ticket, perform_now};
use spindle::external::plain::Plain;
use spindle::external::registry::{self, Output};
use spindle::external::request::{CallError, CallErrorKind, Reply, Request};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

fn s(x: &str) -> Plain {
    Plain::Str(x.into())
}

fn strs(xs: &[&str]) -> Plain {
    Plain::strings(xs.iter().map(|x| x.to_string()).collect())
}

fn quiet() {
    spindle::external::exec::set_stderr_passthrough(false);
}

/// Calls external `name` with these data arguments the `--sequential` way, and makes
/// its result a value as the machine would.
fn call(name: &str, args: &[Plain]) -> Result<Plain, CallError> {
    quiet();
    let e = registry::lookup(name).expect("a registered external");
    let req = e.make_request(args)?;
    let reply = perform_now(&req)?;
    match e.result {
        Output::Data(f) => f(reply),
        Output::Argument(i) => Ok(Plain::Str(format!("argument {i}"))),
        Output::Stream => Ok(Plain::Str("a stream".into())),
    }
}

/// Submits every request, then waits for all of them; their results by ticket.
fn run_all(
    ex: &mut Executor,
    reqs: Vec<(u64, Request, Priority)>,
) -> HashMap<Ticket, Result<Reply, CallError>> {
    quiet();
    let n = reqs.len();
    for (t, r, p) in reqs {
        ex.submit(Ticket(t), r, p);
    }
    let mut out = HashMap::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while out.len() < n {
        assert!(Instant::now() < deadline, "calls never finished");
        for (t, r) in ex.wait(Some(Duration::from_secs(1))) {
            out.insert(t, r);
        }
    }
    out
}

fn sh(script: &str) -> Request {
    registry::lookup("run")
        .unwrap()
        .make_request(&[s("sh"), strs(&["-c", script])])
        .unwrap()
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

#[test]
fn run_returns_standard_output_and_passes_arguments_whole() {
    assert_eq!(
        call("run", &[s("echo"), strs(&["a b", "c"])]),
        Ok(s("a b c\n"))
    );
    assert_eq!(
        call("run", &[s("printf"), strs(&["[%s]", "a b", "", "c"])]),
        Ok(s("[a b][][c]"))
    );
    // Output that is not UTF-8 is decoded with replacement characters.
    assert_eq!(
        call("run", &[s("printf"), strs(&["\\377ok"])]),
        Ok(s("\u{fffd}ok"))
    );
}

#[test]
fn a_failing_program_names_the_command_status_and_standard_error() {
    let script = "for i in $(seq 1 25); do echo \"line $i\" >&2; done; exit 3";
    let e = call("run", &[s("sh"), strs(&["-c", script])]).unwrap_err();
    assert_eq!(e.kind, CallErrorKind::Exited(3));
    assert_eq!(
        e.message,
        format!("`sh -c '{script}'` exited with status 3")
    );
    assert_eq!(e.stderr_tail.len(), 20);
    assert_eq!(e.stderr_tail[0], "line 6");
    assert_eq!(e.stderr_tail[19], "line 25");

    let e = call(
        "run",
        &[s("grep"), strs(&["-c", "a b", "/nonexistent/data.csv"])],
    )
    .unwrap_err();
    assert_eq!(e.kind, CallErrorKind::Exited(2));
    assert!(
        e.message
            .starts_with("`grep -c 'a b' /nonexistent/data.csv` exited with status 2"),
        "{e}"
    );

    let e = call("run", &[s("sh"), strs(&["-c", "kill -9 $$"])]).unwrap_err();
    assert_eq!(e.kind, CallErrorKind::Signalled(9));
    assert!(
        e.message.ends_with("was killed by signal 9 (SIGKILL)"),
        "{e}"
    );
}

#[test]
fn a_program_that_cannot_start_is_an_error_for_run_and_run_result() {
    for name in ["run", "runResult"] {
        let mut args = vec![s("spindle-no-such-program"), strs(&["x"])];
        if name == "runResult" {
            args.push(s(""));
        }
        let e = call(name, &args).unwrap_err();
        assert_eq!(e.kind, CallErrorKind::CannotStart, "{name}");
        assert!(
            e.message
                .starts_with("`spindle-no-such-program x` cannot start: "),
            "{e}"
        );
        assert!(e.message.contains("No such file"), "{e}");
    }
    let dir = tmp();
    let e = call("run", &[s(dir.path().to_str().unwrap()), strs(&[])]).unwrap_err();
    assert_eq!(e.kind, CallErrorKind::CannotStart);
}

#[test]
fn a_nul_byte_is_an_error_and_nothing_runs() {
    let e = call("run", &[s("printf"), strs(&["[%s]", "a\0b", "c"])]).unwrap_err();
    assert_eq!(e.kind, CallErrorKind::BadArgument);
    assert!(e.message.contains("NUL"), "{e}");
    assert!(call("shell", &[s("echo a\0b")]).is_err());
    assert!(call("runResult", &[s("a\0b"), strs(&[]), s("")]).is_err());
}

#[test]
fn run_result_feeds_input_and_reports_any_exit() {
    let proc = |code: i64, out: &str, err: &str| {
        Plain::con("MkProcess", vec![Plain::Int(code), s(out), s(err)])
    };
    assert_eq!(
        call("runResult", &[s("cat"), strs(&[]), s("some input\n")]),
        Ok(proc(0, "some input\n", ""))
    );
    assert_eq!(
        call(
            "runResult",
            &[
                s("sh"),
                strs(&["-c", "echo out; echo err >&2; exit 1"]),
                s("")
            ]
        ),
        Ok(proc(1, "out\n", "err\n"))
    );
    // `grep` finding nothing is an answer, not a failure.
    assert_eq!(
        call("runResult", &[s("grep"), strs(&["x"]), s("a\nb\n")]),
        Ok(proc(1, "", ""))
    );
    // Killed by a signal: 128 + n, as shells report it.
    assert_eq!(
        call("runResult", &[s("sh"), strs(&["-c", "kill -15 $$"]), s("")]),
        Ok(proc(143, "", ""))
    );
    // A tool that reads none of a large input is fine too.
    let big = "x".repeat(4 << 20);
    assert_eq!(
        call("runResult", &[s("true"), strs(&[]), s(&big)]),
        Ok(proc(0, "", ""))
    );
}

#[test]
fn large_output_on_both_pipes_and_input_never_deadlock() {
    // 4 MiB on each of standard output and error, 4 MiB of input echoed back.
    let script =
        "head -c 4194304 /dev/zero | tr '\\0' a; head -c 4194304 /dev/zero | tr '\\0' b >&2; cat";
    let input = "c".repeat(4 << 20);
    match call("runResult", &[s("sh"), strs(&["-c", script]), s(&input)]) {
        Ok(Plain::Con(name, fields)) => {
            assert_eq!(name, "MkProcess");
            assert_eq!(fields[0], Plain::Int(0));
            let Plain::Str(out) = &fields[1] else {
                panic!()
            };
            let Plain::Str(err) = &fields[2] else {
                panic!()
            };
            assert_eq!(out.len(), 8 << 20);
            assert!(out.starts_with('a') && out.ends_with('c'));
            assert_eq!(err.len(), 4 << 20);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn shell_uses_pipefail() {
    assert_eq!(call("shell", &[s("echo a | tr a b")]), Ok(s("b\n")));
    let e = call("shell", &[s("false | true")]).unwrap_err();
    assert_eq!(e.kind, CallErrorKind::Exited(1));
    assert_eq!(e.message, "`false | true` exited with status 1");
    let e = call("shell", &[s("echo bad >&2; exit 4")]).unwrap_err();
    assert_eq!(e.stderr_tail, ["bad"]);
}

#[test]
fn files_through_the_registry() {
    let dir = tmp();
    let d = dir.path().to_str().unwrap().to_string();
    let f = format!("{d}/out.txt");
    assert_eq!(call("writeFile", &[s(&f), s("hello\n")]), Ok(s(&f)));
    assert_eq!(call("readFile", &[s(&f)]), Ok(s("hello\n")));
    assert_eq!(call("fileExists", &[s(&f)]), Ok(Plain::bool(true)));
    assert_eq!(
        call("fileExists", &[s(&format!("{d}/nope"))]),
        Ok(Plain::bool(false))
    );
    std::fs::create_dir(format!("{d}/sub")).unwrap();
    std::fs::write(format!("{d}/sub/z.txt"), "").unwrap();
    std::fs::write(format!("{d}/a.txt"), "").unwrap();
    assert_eq!(
        call("listDir", &[s(&d)]),
        Ok(strs(&["a.txt", "out.txt", "sub"]))
    );
    assert_eq!(
        call("glob", &[s(&format!("{d}/**/*.txt"))]),
        Ok(strs(&[
            &format!("{d}/a.txt"),
            &format!("{d}/out.txt"),
            &format!("{d}/sub/z.txt")
        ]))
    );
    let e = call("glob", &[s(&format!("{d}/[z"))]).unwrap_err();
    assert_eq!(e.kind, CallErrorKind::BadArgument);
    let e = call("readFile", &[s(&format!("{d}/missing.txt"))]).unwrap_err();
    assert_eq!(e.kind, CallErrorKind::Io);
    assert!(
        e.message.contains("missing.txt") && e.message.contains("No such file"),
        "{e}"
    );
    assert_eq!(
        call("getEnv", &[s("SPINDLE_SURELY_UNSET_VARIABLE")]),
        Ok(Plain::con("Nothing", vec![]))
    );
    assert!(matches!(
        call("getEnv", &[s("PATH")]),
        Ok(Plain::Con(n, _)) if n == "Just"
    ));
}

#[test]
fn every_kind_of_request_through_the_executor() {
    let dir = tmp();
    let f = dir.path().join("x.txt").to_str().unwrap().to_string();
    let mut ex = Executor::new(Limits::default());
    let reqs = vec![
        (1, sh("echo one"), Priority::Certain),
        (
            2,
            Request::WriteFile {
                path: f.clone(),
                contents: "data".into(),
            },
            Priority::Certain,
        ),
        (
            3,
            Request::Glob("/nonexistent-dir/*".into()),
            Priority::Speculative,
        ),
        (
            4,
            Request::Delay(Duration::from_millis(30)),
            Priority::Speculative,
        ),
        (5, Request::GetEnv("PATH".into()), Priority::Speculative),
        (6, sh("exit 5"), Priority::Certain),
        (
            7,
            Request::ReadFile("/nonexistent/file".into()),
            Priority::Speculative,
        ),
    ];
    let out = run_all(&mut ex, reqs);
    assert_eq!(out[&Ticket(1)], Ok(Reply::Text("one\n".into())));
    assert_eq!(out[&Ticket(2)], Ok(Reply::Text(f.clone())));
    assert_eq!(out[&Ticket(3)], Ok(Reply::Names(vec![])));
    assert_eq!(out[&Ticket(4)], Ok(Reply::Unit));
    assert!(matches!(out[&Ticket(5)], Ok(Reply::MaybeText(Some(_)))));
    assert!(matches!(&out[&Ticket(6)], Err(e) if e.kind == CallErrorKind::Exited(5)));
    assert!(matches!(&out[&Ticket(7)], Err(e) if e.kind == CallErrorKind::Io));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "data");
    let st = ex.stats();
    assert_eq!((st.in_flight, st.running, st.queued), (0, 0, 0));
    assert_eq!(st.submitted, 7);
    assert!(ex.is_idle());
    assert!(
        ex.wait(None).is_empty(),
        "nothing in flight: wait returns at once"
    );
}

/// Every process records in `dir` how many were running when it started.
fn counting_process(dir: &Path, i: usize) -> Request {
    let d = dir.to_str().unwrap();
    sh(&format!(
        "touch {d}/run.{i}; ls {d} | grep -c '^run' > {d}/count.{i}; sleep 0.2; rm {d}/run.{i}"
    ))
}

fn max_count(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("count."))
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .trim()
                .parse::<usize>()
                .unwrap()
        })
        .max()
        .unwrap()
}

#[test]
fn jobs_bounds_the_processes_running_at_once() {
    let dir = tmp();
    let mut ex = Executor::new(Limits {
        jobs: 3,
        ..Limits::default()
    });
    let reqs = (0..12)
        .map(|i| (i as u64, counting_process(dir.path(), i), Priority::Certain))
        .collect();
    let out = run_all(&mut ex, reqs);
    assert!(out.values().all(|r| r.is_ok()), "{out:?}");
    let most = max_count(dir.path());
    assert!(
        (2..=3).contains(&most),
        "{most} processes at once with jobs 3"
    );
    assert_eq!(ex.stats().peak_processes, 3);
}

#[test]
fn many_processes_at_once() {
    let mut ex = Executor::new(Limits::default());
    let reqs = (0..300)
        .map(|i| (i, sh(&format!("echo {i}")), Priority::Certain))
        .collect();
    let out = run_all(&mut ex, reqs);
    for i in 0..300 {
        assert_eq!(out[&Ticket(i)], Ok(Reply::Text(format!("{i}\n"))));
    }
    assert!(ex.stats().peak_processes <= 64);
}

/// The order in which tickets come back.
fn completion_order(ex: &mut Executor, n: usize) -> Vec<u64> {
    let mut order = Vec::new();
    while order.len() < n {
        let done: Vec<Completion> = ex.wait(Some(Duration::from_secs(10)));
        assert!(!done.is_empty(), "stuck");
        order.extend(done.into_iter().map(|(t, r)| {
            assert!(r.is_ok());
            t.0
        }));
    }
    order
}

#[test]
fn speculative_calls_never_hold_back_certain_ones() {
    let ms = Duration::from_millis;
    // One waiting slot, taken by a long speculative wait: a certain call starts at
    // once anyway, and a second speculative one waits for the slot.
    let mut ex = Executor::new(Limits {
        io_jobs: 1,
        ..Limits::default()
    });
    ex.submit(Ticket(1), Request::Delay(ms(400)), Priority::Speculative);
    ex.submit(Ticket(2), Request::Delay(ms(10)), Priority::Speculative);
    let t = Instant::now();
    ex.submit(Ticket(3), Request::Delay(ms(10)), Priority::Certain);
    let first = ex.wait(Some(Duration::from_secs(10)));
    assert_eq!(first.iter().map(|(t, _)| t.0).collect::<Vec<_>>(), [3]);
    assert!(
        t.elapsed() < ms(300),
        "the certain call waited: {:?}",
        t.elapsed()
    );
    assert_eq!(completion_order(&mut ex, 2), [1, 2]);

    // Queued calls start in priority order: certain first, a promoted one with them.
    let mut ex = Executor::new(Limits {
        io_jobs: 1,
        ..Limits::default()
    });
    ex.submit(Ticket(1), Request::Delay(ms(50)), Priority::Certain);
    ex.submit(Ticket(2), Request::Delay(ms(1)), Priority::Speculative);
    ex.submit(Ticket(3), Request::Delay(ms(1)), Priority::Speculative);
    ex.submit(Ticket(4), Request::Delay(ms(1)), Priority::Certain);
    ex.promote(Ticket(3));
    assert_eq!(completion_order(&mut ex, 4), [1, 4, 3, 2]);

    // The same for processes: two slots held by speculative processes.
    let mut ex = Executor::new(Limits {
        jobs: 2,
        ..Limits::default()
    });
    ex.submit(Ticket(1), sh("sleep 1"), Priority::Speculative);
    ex.submit(Ticket(2), sh("sleep 1"), Priority::Speculative);
    ex.submit(Ticket(3), sh("echo certain"), Priority::Certain);
    assert_eq!(completion_order(&mut ex, 3)[0], 3);
}

#[test]
fn a_cancelled_call_is_never_reported_and_its_process_group_is_stopped() {
    let dir = tmp();
    let pidfile = dir.path().join("pid");
    let mut ex = Executor::new(Limits::default());
    // The shell writes its pid (its group's id) and waits on a background sleep.
    let script = format!("echo $$ > {}; sleep 30 & sleep 31; wait", pidfile.display());
    ex.submit(Ticket(1), sh(&script), Priority::Certain);
    ex.submit(
        Ticket(2),
        Request::Delay(Duration::from_secs(30)),
        Priority::Certain,
    );
    ex.submit(
        Ticket(3),
        Request::Delay(Duration::from_millis(20)),
        Priority::Certain,
    );
    let pgid = wait_for_pid(&pidfile);
    let t = Instant::now();
    while group_members(pgid) < 3 {
        assert!(t.elapsed() < Duration::from_secs(5), "the group never ran");
        std::thread::sleep(Duration::from_millis(10));
    }
    let t = Instant::now();
    ex.cancel(Ticket(1));
    ex.cancel(Ticket(2));
    assert_eq!(completion_order(&mut ex, 1), [3]);
    // The group's processes end (SIGTERM), and the stopped call is not reported.
    while group_members(pgid) > 0 {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "group {pgid} still running"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(ex.wait(Some(Duration::from_millis(300))).is_empty());
    assert_eq!(ex.stats().in_flight, 0);
}

#[test]
fn a_process_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let dir = tmp();
    let pidfile = dir.path().join("pid");
    let mut ex = Executor::new(Limits::default());
    let script = format!("trap '' TERM; echo $$ > {}; sleep 30", pidfile.display());
    ex.submit(Ticket(1), sh(&script), Priority::Certain);
    let pgid = wait_for_pid(&pidfile);
    let t = Instant::now();
    ex.cancel(Ticket(1));
    while group_members(pgid) > 0 {
        assert!(
            t.elapsed() < Duration::from_secs(6),
            "group {pgid} still running"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // `sleep` ignores SIGTERM too (inherited), so only SIGKILL, after 2 s, ends it.
    assert!(
        t.elapsed() >= Duration::from_millis(1900),
        "{:?}",
        t.elapsed()
    );
}

fn wait_for_pid(path: &Path) -> i32 {
    let t = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the process never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Live (not zombie) processes in group `pgid`, from `/proc`.
fn group_members(pgid: i32) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if f.len() > 2 && f[0] != "Z" && f[2].parse() == Ok(pgid) {
            n += 1;
        }
    }
    n
}

fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

fn rss_kb() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|n| n.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_hundred_thousand_waiting_calls_at_once_cost_no_threads() {
    const N: u64 = 100_000;
    let before_threads = threads();
    let before_rss = rss_kb();
    let mut ex = Executor::new(Limits {
        io_jobs: 200_000,
        ..Limits::default()
    });
    let start = Instant::now();
    for i in 0..N {
        ex.submit(
            Ticket(i),
            Request::Delay(Duration::from_secs(1)),
            Priority::Certain,
        );
    }
    let submitted = start.elapsed();
    assert_eq!(ex.stats().timers as u64, N);
    let peak_threads = threads();
    let peak_rss = rss_kb();
    let mut done = 0;
    while done < N {
        let got = ex.wait(Some(Duration::from_secs(10)));
        assert!(!got.is_empty(), "stuck at {done}");
        done += got.len() as u64;
    }
    let wall = start.elapsed();
    eprintln!(
        "100k delays of 1 s: submitted in {submitted:?}, all done in {wall:?}; threads {before_threads} -> {peak_threads}; RSS {before_rss} kB -> {peak_rss} kB"
    );
    // The count is the whole test process's, and other tests run beside this one with
    // their own threads: a margin of 32 absorbs them, while a thread per waiting call
    // (or per batch of a few thousand) would add far more.
    assert!(
        peak_threads <= before_threads + 32,
        "threads: {before_threads} -> {peak_threads}"
    );
    assert!(wall >= Duration::from_secs(1));
    // Loose: the calls overlap (sequentially this is 28 hours).
    assert!(wall < Duration::from_secs(5), "{wall:?}");
    assert_eq!(ex.stats().peak_timers as u64, N);
    assert_eq!(ex.stats().in_flight, 0);
}

#[test]
fn io_jobs_bounds_the_waiting_calls() {
    let mut ex = Executor::new(Limits {
        io_jobs: 10,
        ..Limits::default()
    });
    let start = Instant::now();
    let reqs = (0..50)
        .map(|i| {
            (
                i,
                Request::Delay(Duration::from_millis(40)),
                Priority::Certain,
            )
        })
        .collect();
    run_all(&mut ex, reqs);
    // Five rounds of ten.
    assert!(start.elapsed() >= Duration::from_millis(200));
    assert_eq!(ex.stats().peak_timers, 10);
}

#[test]
fn a_finished_tools_background_processes_do_not_outlive_its_call() {
    let mut ex = Executor::new(Limits::default());
    let out = run_all(
        &mut ex,
        vec![(
            1,
            sh("echo $$; sleep 30 >/dev/null 2>&1 &"),
            Priority::Certain,
        )],
    );
    let Ok(Reply::Text(pid)) = &out[&Ticket(1)] else {
        panic!("{out:?}")
    };
    let pgid: i32 = pid.trim().parse().unwrap();
    let t = Instant::now();
    while group_members(pgid) > 0 {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "group {pgid} still running"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_executor_shut_down_works_again() {
    let mut ex = Executor::new(Limits::default());
    ex.submit(
        Ticket(1),
        Request::Delay(Duration::from_secs(30)),
        Priority::Certain,
    );
    ex.submit(Ticket(2), sh("sleep 30"), Priority::Certain);
    ex.submit(
        Ticket(3),
        Request::FileExists("/".into()),
        Priority::Certain,
    );
    ex.shutdown();
    assert_eq!(ex.stats().in_flight, 0);
    let out = run_all(
        &mut ex,
        vec![
            (1, Request::FileExists("/".into()), Priority::Certain),
            (2, sh("echo again"), Priority::Certain),
            (
                3,
                Request::Delay(Duration::from_millis(1)),
                Priority::Certain,
            ),
        ],
    );
    assert_eq!(out[&Ticket(1)], Ok(Reply::Bool(true)));
    assert_eq!(out[&Ticket(2)], Ok(Reply::Text("again\n".into())));
    assert_eq!(out[&Ticket(3)], Ok(Reply::Unit));
}

#[test]
fn per_call_cost_of_zero_waits_and_of_small_processes() {
    const N: u64 = 100_000;
    let mut ex = Executor::new(Limits {
        io_jobs: 200_000,
        ..Limits::default()
    });
    let start = Instant::now();
    for i in 0..N {
        ex.submit(Ticket(i), Request::Delay(Duration::ZERO), Priority::Certain);
    }
    let mut done = 0;
    while done < N {
        done += ex.wait(Some(Duration::from_secs(10))).len() as u64;
    }
    let per_delay = start.elapsed() / N as u32;
    let start = Instant::now();
    let reqs = (0..500)
        .map(|i| (i, sh("true"), Priority::Certain))
        .collect();
    let out = run_all(&mut ex, reqs);
    assert!(out.values().all(|r| r.is_ok()));
    let per_process = start.elapsed() / 500;
    eprintln!("per call: delay 0 {per_delay:?}, `sh -c true` {per_process:?} (jobs 64)");
}
