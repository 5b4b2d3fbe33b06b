//! No process outlives Spindle (LANGUAGE.md 7.4), checked with the real process table.
//!
//! Each test runs this test binary again as a helper (the `helper` test, which does
//! nothing unless `SPINDLE_LIFETIME_HELPER` names a mode). The helper installs the
//! signal handling, starts processes through an [`Executor`] (some with background
//! children in their groups, one ignoring SIGTERM), says `ready`, and then ends the way
//! its mode says: by SIGTERM, SIGINT or SIGHUP sent by the test, by an error exit, or by
//! returning. The test then reads `/proc`: no live process may be left in any of the
//! groups the helper started.

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use spindle::external::exec::{Executor, Limits, Priority, Ticket};
use spindle::external::lifetime;
use spindle::external::plain::Plain;
use spindle::external::registry;
use spindle::external::request::Request;
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const HELPER: &str = "SPINDLE_LIFETIME_HELPER";

fn shell(cmd: &str) -> Request {
    registry::lookup("shell")
        .unwrap()
        .make_request(&[Plain::Str(cmd.into())])
        .unwrap()
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The helper process's work: see the module docs.
#[test]
fn helper() {
    let Ok(mode) = std::env::var(HELPER) else {
        return;
    };
    lifetime::install_signal_handlers().expect("signal handlers");
    let interrupted = Arc::new(AtomicBool::new(false));
    if mode == "interrupt" {
        let flag = interrupted.clone();
        lifetime::set_interrupt_hook(Some(Arc::new(move || flag.store(true, Ordering::SeqCst))));
    }
    let mut ex = Executor::new(Limits::default());
    if mode == "passthrough" {
        // Two tools write their standard error a character at a time, at once.
        for (t, c) in [(1, 'A'), (2, 'B')] {
            let cmd = format!(
                "for i in $(seq 1 40); do printf {c} >&2; sleep 0.005; done; echo >&2; echo done"
            );
            ex.submit(Ticket(t), shell(&cmd), Priority::Certain);
        }
        ex.submit(
            Ticket(3),
            shell("echo hidden >&2; exit 1"),
            Priority::Certain,
        );
        let mut n = 0;
        while n < 3 {
            n += ex.wait(Some(Duration::from_secs(10))).len();
        }
        lifetime::shutdown_all();
        return;
    }
    let sleeps = [
        "sleep 30",
        "sleep 31 & sleep 32 & wait",
        "(sleep 33; echo never) & exec sleep 34",
    ];
    for (i, cmd) in sleeps.iter().enumerate() {
        ex.submit(Ticket(i as u64), shell(cmd), Priority::Certain);
    }
    if mode == "stubborn" {
        ex.submit(
            Ticket(10),
            shell("trap '' TERM; sleep 35"),
            Priority::Certain,
        );
    }
    // A finished tool that left a background process behind (output closed).
    ex.submit(
        Ticket(20),
        shell("sleep 36 >/dev/null 2>&1 & echo started"),
        Priority::Certain,
    );
    let t = Instant::now();
    while ex.wait(Some(Duration::from_millis(50))).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(5));
    }
    // Let the shells start their children.
    std::thread::sleep(Duration::from_millis(200));
    say("ready");
    if mode == "error" || mode == "success" {
        // The test notes our groups first, then says go.
        let mut go = String::new();
        let _ = std::io::stdin().read_line(&mut go);
    }
    match mode.as_str() {
        "error" => lifetime::exit(1),
        "success" => {
            lifetime::shutdown_all();
            say("done");
        }
        "interrupt" => {
            while !interrupted.load(Ordering::SeqCst) {
                let _ = ex.wait(Some(Duration::from_millis(20)));
            }
            // The REPL's evaluation is interrupted: its calls are cancelled.
            ex.shutdown();
            let t = Instant::now();
            while lifetime::live_groups() > 0 && t.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(20));
            }
            say(&format!(
                "interrupted, {} groups left",
                lifetime::live_groups()
            ));
            lifetime::shutdown_all();
        }
        _ => loop {
            // Waits for a signal.
            let _ = ex.wait(Some(Duration::from_secs(1)));
        },
    }
}

/// What the helper left: its exit status, what it printed, the groups it started.
struct Outcome {
    status: std::process::ExitStatus,
    stdout: Vec<String>,
    stderr: String,
    groups: HashSet<i32>,
    took: Duration,
}

/// `(pid, ppid, pgrp, state)` of every process.
fn processes() -> Vec<(i32, i32, i32, String)> {
    let mut all = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let f: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if f.len() > 2 {
            all.push((
                pid,
                f[1].parse().unwrap_or(0),
                f[2].parse().unwrap_or(0),
                f[0].to_string(),
            ));
        }
    }
    all
}

fn live_in(groups: &HashSet<i32>) -> Vec<(i32, i32, i32, String)> {
    processes()
        .into_iter()
        .filter(|(_, _, g, state)| groups.contains(g) && state != "Z")
        .collect()
}

/// Runs the helper in `mode`; once it says `ready`, sends it `signal` (if any), and
/// waits for it to end.
fn run_helper(mode: &str, signal: Option<Signal>) -> Outcome {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--exact", "helper", "--nocapture", "--test-threads=1", "-q"])
        .env(HELPER, mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let me = child.id() as i32;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stdout = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let ready = line == "ready";
        stdout.push(line);
        if ready {
            break;
        }
    }
    // The groups it started: its children lead them.
    let groups: HashSet<i32> = processes()
        .into_iter()
        .filter(|(_, ppid, _, _)| *ppid == me)
        .map(|(pid, _, _, _)| pid)
        .collect();
    let t = Instant::now();
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(b"go\n");
    drop(stdin);
    if let Some(sig) = signal {
        kill(Pid::from_raw(me), sig).unwrap();
    }
    stdout.extend(lines.map_while(Result::ok));
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    Outcome {
        status,
        stdout,
        stderr,
        groups,
        took: t.elapsed(),
    }
}

fn assert_no_survivors(mode: &str, o: &Outcome) {
    assert!(
        o.stdout.iter().any(|l| l == "ready"),
        "{mode}: {:?} {}",
        o.stdout,
        o.stderr
    );
    assert!(o.groups.len() >= 3, "{mode}: groups {:?}", o.groups);
    let left = live_in(&o.groups);
    assert!(left.is_empty(), "{mode}: left running: {left:?}");
}

#[test]
fn sigterm_stops_every_group_and_spindle_dies_of_it() {
    let o = run_helper("signal", Some(Signal::SIGTERM));
    assert_no_survivors("SIGTERM", &o);
    assert_eq!(o.status.signal(), Some(15), "{:?}", o.status);
    // Everything obeyed SIGTERM: no need to wait for the grace period.
    assert!(o.took < Duration::from_millis(1800), "{:?}", o.took);
}

#[test]
fn sigint_without_a_hook_stops_every_group() {
    let o = run_helper("signal", Some(Signal::SIGINT));
    assert_no_survivors("SIGINT", &o);
    assert_eq!(o.status.signal(), Some(2), "{:?}", o.status);
}

#[test]
fn sighup_stops_every_group() {
    let o = run_helper("signal", Some(Signal::SIGHUP));
    assert_no_survivors("SIGHUP", &o);
    assert_eq!(o.status.signal(), Some(1), "{:?}", o.status);
}

#[test]
fn a_group_that_ignores_sigterm_is_killed_before_exit() {
    let o = run_helper("stubborn", Some(Signal::SIGTERM));
    assert_no_survivors("stubborn", &o);
    assert_eq!(o.status.signal(), Some(15));
    assert!(o.took >= Duration::from_millis(1900), "{:?}", o.took);
}

#[test]
fn an_error_exit_stops_every_group() {
    let o = run_helper("error", None);
    assert_no_survivors("error", &o);
    assert_eq!(o.status.code(), Some(1), "{:?}", o.status);
}

#[test]
fn a_successful_exit_stops_every_group() {
    let o = run_helper("success", None);
    assert_no_survivors("success", &o);
    assert!(o.status.success(), "{:?} {}", o.status, o.stderr);
    assert!(o.stdout.iter().any(|l| l == "done"));
}

#[test]
fn sigint_with_a_hook_interrupts_and_cancelling_stops_the_groups() {
    let o = run_helper("interrupt", Some(Signal::SIGINT));
    assert_no_survivors("interrupt", &o);
    assert!(o.status.success(), "{:?} {}", o.status, o.stderr);
    assert!(
        o.stdout.iter().any(|l| l == "interrupted, 0 groups left"),
        "{:?}",
        o.stdout
    );
}

#[test]
fn a_successful_tools_standard_error_is_passed_through_in_whole_lines() {
    let o = run_helper("passthrough", None);
    assert!(o.status.success(), "{:?} {}", o.status, o.stderr);
    let lines: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.starts_with('A') || l.starts_with('B'))
        .collect();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    for l in lines {
        assert!(
            l == "A".repeat(40) || l == "B".repeat(40),
            "mixed line {l:?}"
        );
    }
    // A failing tool's standard error is its error's, not passed through.
    assert!(!o.stderr.contains("hidden"), "{}", o.stderr);
}
