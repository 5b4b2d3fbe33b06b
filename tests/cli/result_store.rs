//! The result store behind [`Calls`] on real files and processes, in temporary
//! directories (LANGUAGE.md 11): keys and what changes them, reuse and `--explain`
//! reasons, output verification, side outputs, failed outputs moved aside, retries,
//! the call timeout, `--plan`, progress, the trace, record atomicity under SIGKILL, and
//! the cost of reusing 10,000 `delay` results.
//!
//! Every path given to a call is absolute: tests run in parallel in one process with
//! one working directory.

use crate::e2e_common;

use spindle::external::calls::{Answer, Call, CallStats, Calls, Config, Place};
use spindle::external::exec::{Priority, Ticket};
use spindle::external::plain::Plain;
use spindle::external::progress::ProgressMode;
use spindle::external::registry;
use spindle::external::request::{CallErrorKind, Reply};
use spindle::external::store::{self, Store};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn s(x: &str) -> Plain {
    Plain::Str(x.into())
}

fn strs(xs: &[&str]) -> Plain {
    Plain::strings(xs.iter().map(|x| x.to_string()).collect())
}

fn place(n: u32) -> Place {
    Place {
        name: String::new(),
        def: [n as u8; 32],
        pos: n,
        shown: format!("wf.sp:{n}:1"),
    }
}

fn call(name: &str, args: Vec<Plain>) -> Call {
    Call::new(registry::lookup(name).expect("an external"), args, place(1))
}

fn run_(program: &str, args: &[&str]) -> Call {
    call("run", vec![s(program), strs(args)])
}

fn sh(script: &str, args: &[&str]) -> Call {
    let mut all = vec!["-c", script, "sh"];
    all.extend_from_slice(args);
    run_("sh", &all)
}

fn config(store: &Path) -> Config {
    spindle::external::exec::set_stderr_passthrough(false);
    Config {
        store: Some(store.to_path_buf()),
        progress: ProgressMode::None,
        // Processes are traced by the `spindle` binary (this test binary is not one).
        tracer: Some(PathBuf::from(env!("CARGO_BIN_EXE_spindle"))),
        ..Config::default()
    }
}

fn resume(store: &Path) -> Config {
    Config {
        resume: true,
        explain: true,
        ..config(store)
    }
}

/// Runs the calls with this configuration; their answers in order, the counters and
/// the `--explain` lines.
fn run_calls(cfg: Config, list: Vec<Call>) -> (Vec<Answer>, CallStats, Vec<String>) {
    let mut calls = Calls::new(cfg).expect("the store opens");
    let n = list.len();
    for (i, c) in list.into_iter().enumerate() {
        calls.submit(Ticket(i as u64), c, Priority::Certain);
    }
    let mut out: Vec<Option<Answer>> = vec![None; n];
    let deadline = Instant::now() + Duration::from_secs(60);
    while out.iter().any(Option::is_none) {
        assert!(Instant::now() < deadline, "calls did not end");
        for (t, a) in calls.wait(Some(Duration::from_secs(5))) {
            out[t.0 as usize] = Some(a);
        }
    }
    calls.finish().expect("records are written");
    let stats = calls.stats();
    // The reasons (the `key covers:` lines are looked at in one test only).
    let explained = calls
        .explanations()
        .iter()
        .filter(|l| !l.contains("key covers:"))
        .cloned()
        .collect();
    (
        out.into_iter().map(Option::unwrap).collect(),
        stats,
        explained,
    )
}

fn text(a: &Answer) -> String {
    match a {
        Answer::Done(Ok(Reply::Text(t))) => t.clone(),
        other => panic!("not a text: {other:?}"),
    }
}

fn p(d: &Path, name: &str) -> String {
    d.join(name).display().to_string()
}

#[test]
fn a_recorded_call_is_reused_with_resume_only() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let data = p(dir.path(), "data.txt");
    std::fs::write(&data, "b\na\n").unwrap();
    let (a, stats, _) = run_calls(config(&st), vec![run_("sort", &[&data])]);
    assert_eq!(text(&a[0]), "a\nb\n");
    assert_eq!((stats.ran, stats.recorded), (1, 1));
    // Recorded, but without --resume it runs again.
    let (_, stats, _) = run_calls(config(&st), vec![run_("sort", &[&data])]);
    assert_eq!((stats.ran, stats.reused), (1, 0));
    let (a, stats, explained) = run_calls(resume(&st), vec![run_("sort", &[&data])]);
    assert_eq!(text(&a[0]), "a\nb\n");
    assert_eq!((stats.ran, stats.reused), (0, 1));
    assert!(explained.is_empty(), "{explained:?}");
}

#[test]
fn keys_follow_arguments_input_contents_and_programs() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let data = p(dir.path(), "data.txt");
    std::fs::write(&data, "1\n").unwrap();
    let tool = p(dir.path(), "tool.sh");
    std::fs::write(&tool, "#!/bin/sh\ncat \"$1\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let calls = || vec![run_(&tool, &[&data]), run_("cat", &[&data, "-"])];
    let (_, stats, _) = run_calls(config(&st), calls());
    assert_eq!(stats.ran, 2);
    let (_, stats, _) = run_calls(resume(&st), calls());
    assert_eq!(stats.reused, 2);
    // Different arguments: a new call.
    let (_, stats, why) = run_calls(resume(&st), vec![run_("cat", &[&data, "-u"])]);
    assert_eq!(stats.ran, 1);
    assert!(why[0].contains(": new call"), "{why:?}");
    // The input's content changed: both run, and --explain names the file.
    std::fs::write(&data, "2\n").unwrap();
    let (a, stats, why) = run_calls(resume(&st), calls());
    assert_eq!(text(&a[0]), "2\n");
    assert_eq!(stats.ran, 2);
    assert!(
        why.iter()
            .any(|l| l.ends_with(&format!("input changed: {data}"))),
        "{why:?}"
    );
    // Touched, same content: still reused (keys hash content, not times).
    let (_, stats, _) = run_calls(resume(&st), calls());
    assert_eq!(stats.reused, 2);
    std::fs::write(&data, "2\n").unwrap();
    let (_, stats, _) = run_calls(resume(&st), calls());
    assert_eq!(stats.reused, 2);
    // The program changed.
    std::fs::write(&tool, "#!/bin/sh\ncat \"$1\" \"$1\"\n").unwrap();
    let (a, stats, why) = run_calls(resume(&st), calls());
    assert_eq!(text(&a[0]), "2\n2\n");
    assert_eq!((stats.ran, stats.reused), (1, 1));
    assert_eq!(why.len(), 1);
    assert!(
        why[0].ends_with(&format!("program changed: {tool}")),
        "{why:?}"
    );
}

#[test]
fn listed_environment_variables_enter_process_keys() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let c = || vec![run_("true", &[])];
    let with = |names: &[&str]| Config {
        key_env: Some(names.iter().map(|s| s.to_string()).collect()),
        ..resume(&st)
    };
    let (_, stats, _) = run_calls(with(&["HOME"]), c());
    assert_eq!(stats.ran, 1);
    let (_, stats, _) = run_calls(with(&["HOME"]), c());
    assert_eq!(stats.reused, 1);
    // Another variable listed (unset here): another call.
    let (_, stats, why) = run_calls(with(&["HOME", "SPINDLE_TEST_NEVER_SET"]), c());
    assert_eq!(stats.ran, 1);
    assert!(why[0].ends_with(": new call"), "{why:?}");
    // Unlisted variables are not part of the key.
    let (_, stats, _) = run_calls(with(&["HOME"]), c());
    assert_eq!(stats.reused, 1);
}

#[test]
fn outputs_are_verified_before_reuse() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let input = p(dir.path(), "in.txt");
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let out = p(dir.path(), "out/a.txt");
    std::fs::write(&input, "hello\n").unwrap();
    let c = || vec![run_("cp", &[&input, &out])];
    let (_, stats, _) = run_calls(config(&st), c());
    assert_eq!(stats.recorded, 1);
    let store = Store::open(&st).unwrap();
    let recs = store.records().unwrap();
    drop(store);
    assert_eq!(recs.len(), 1);
    let outputs: Vec<&str> = recs[0].1.outputs.iter().map(|o| o.path.as_str()).collect();
    assert_eq!(outputs, [out.as_str()]);
    let (_, stats, _) = run_calls(resume(&st), c());
    assert_eq!(stats.reused, 1);
    std::fs::remove_file(&out).unwrap();
    let (_, stats, why) = run_calls(resume(&st), c());
    assert_eq!(stats.ran, 1);
    assert!(
        why[0].ends_with(&format!("output missing: {out}")),
        "{why:?}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "hello\n");
    std::fs::write(&out, "edited\n").unwrap();
    let (_, stats, why) = run_calls(resume(&st), c());
    assert_eq!(stats.ran, 1);
    assert!(
        why[0].ends_with(&format!("output changed: {out}")),
        "{why:?}"
    );
    let (_, stats, _) = run_calls(resume(&st), c());
    assert_eq!(stats.reused, 1);
}

#[test]
fn write_file_is_reused_only_while_its_file_holds_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let f = p(dir.path(), "w.txt");
    let c = || vec![call("writeFile", vec![s(&f), s("contents")])];
    run_calls(config(&st), c());
    let (_, stats, _) = run_calls(resume(&st), c());
    assert_eq!(stats.reused, 1);
    std::fs::write(&f, "other").unwrap();
    let (_, stats, why) = run_calls(resume(&st), c());
    assert_eq!(stats.ran, 1);
    assert!(why[0].contains("output changed"), "{why:?}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "contents");
}

#[test]
fn side_outputs_and_named_directories_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let reference = p(dir.path(), "ref.fa");
    std::fs::write(&reference, ">chr1\nACGT\n").unwrap();
    let outdir = p(dir.path(), "results");
    std::fs::create_dir(&outdir).unwrap();
    // An indexer that writes files beside its input without being told their names,
    // and a tool that fills a directory it is given.
    let index = || {
        sh(
            "for e in amb ann bwt; do echo $e > \"$1.$e\"; done",
            &[&reference],
        )
    };
    let fill = || {
        sh(
            "mkdir -p \"$1/sub\" && echo r > \"$1/sub/r.txt\"",
            &[&outdir],
        )
    };
    let (_, stats, _) = run_calls(config(&st), vec![index(), fill()]);
    assert_eq!(stats.recorded, 2);
    let store = Store::open(&st).unwrap();
    let mut outputs: Vec<String> = store
        .records()
        .unwrap()
        .into_iter()
        .flat_map(|(_, r)| r.outputs.into_iter().map(|o| o.path))
        .collect();
    drop(store);
    outputs.sort();
    let want: Vec<String> = [
        "ref.fa.amb",
        "ref.fa.ann",
        "ref.fa.bwt",
        "results/sub",
        "results/sub/r.txt",
    ]
    .iter()
    .map(|n| p(dir.path(), n))
    .collect();
    assert_eq!(outputs, want);
    let (_, stats, _) = run_calls(resume(&st), vec![index(), fill()]);
    assert_eq!(stats.reused, 2);
    std::fs::remove_file(format!("{reference}.bwt")).unwrap();
    let (_, stats, why) = run_calls(resume(&st), vec![index(), fill()]);
    assert_eq!((stats.ran, stats.reused), (1, 1));
    assert!(
        why[0].ends_with(&format!("output missing: {reference}.bwt")),
        "{why:?}"
    );
}

#[test]
fn an_input_named_only_inside_a_shell_command_line_is_in_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let data = p(dir.path(), "data.txt");
    std::fs::write(&data, "x\ny\n").unwrap();
    let c = || {
        vec![call(
            "shell",
            vec![s(&format!("wc -l < {data} | tr -d ' '"))],
        )]
    };
    let (a, _, _) = run_calls(config(&st), c());
    assert_eq!(text(&a[0]), "2\n");
    let (_, stats, _) = run_calls(resume(&st), c());
    assert_eq!(stats.reused, 1);
    std::fs::write(&data, "x\n").unwrap();
    let (a, stats, why) = run_calls(resume(&st), c());
    assert_eq!(text(&a[0]), "1\n");
    assert_eq!(stats.ran, 1);
    assert!(
        why[0].ends_with(&format!("input changed: {data}")),
        "{why:?}"
    );
}

#[test]
fn reading_and_writing_declarations_count() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let config_file = p(dir.path(), "tool.conf");
    let hidden_out = p(dir.path(), "elsewhere.dat");
    std::fs::write(&config_file, "v1").unwrap();
    let c = || {
        let mut c = sh(&format!("cat {config_file} > {hidden_out}"), &[]);
        c.reading = vec![config_file.clone()];
        c.writing = vec![hidden_out.clone()];
        vec![c]
    };
    run_calls(config(&st), c());
    let (_, stats, _) = run_calls(resume(&st), c());
    assert_eq!(stats.reused, 1);
    std::fs::write(&config_file, "v2").unwrap();
    let (_, stats, why) = run_calls(resume(&st), c());
    assert_eq!(stats.ran, 1);
    assert!(why[0].contains("input changed"), "{why:?}");
    std::fs::remove_file(&hidden_out).unwrap();
    let (_, stats, why) = run_calls(resume(&st), c());
    assert_eq!(stats.ran, 1);
    assert!(
        why[0].ends_with(&format!("output missing: {hidden_out}")),
        "{why:?}"
    );
}

#[test]
fn a_failed_call_has_its_outputs_moved_aside_and_is_never_reused() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let bam = p(dir.path(), "sample.bam");
    let marker = p(dir.path(), "fixed");
    let c = || {
        vec![sh(
            "echo header > \"$1\"; [ -e \"$2\" ] || exit 1; echo body >> \"$1\"",
            &[&bam, &marker],
        )]
    };
    let (a, stats, _) = run_calls(resume(&st), c());
    match &a[0] {
        Answer::Done(Err(e)) => assert_eq!(e.kind, CallErrorKind::Exited(1)),
        other => panic!("{other:?}"),
    }
    assert_eq!(stats.recorded, 0);
    assert!(!Path::new(&bam).exists(), "a broken output was left behind");
    let moved: Vec<PathBuf> = walk(&st.join(store::FAILED_DIR));
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert!(moved[0].ends_with("sample.bam"));
    assert_eq!(std::fs::read_to_string(&moved[0]).unwrap(), "header\n");
    // Failing again: the reason says so.
    let (_, _, why) = run_calls(resume(&st), c());
    assert!(
        why[0].ends_with("not recorded: previous attempt failed"),
        "{why:?}"
    );
    std::fs::write(&marker, "").unwrap();
    let (a, stats, _) = run_calls(resume(&st), c());
    assert!(matches!(a[0], Answer::Done(Ok(_))));
    assert_eq!(stats.recorded, 1);
    assert_eq!(std::fs::read_to_string(&bam).unwrap(), "header\nbody\n");
    let (_, stats, _) = run_calls(resume(&st), c());
    assert_eq!(stats.reused, 1);
}

fn walk(d: &Path) -> Vec<PathBuf> {
    e2e_common::files_under(d)
}

#[test]
fn retries_wait_longer_each_time_and_show_in_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let trace = dir.path().join("trace.tsv");
    let count = p(dir.path(), "count");
    // Fails twice, then succeeds. (The counter exists before: a file a failed attempt
    // creates is moved aside, one it changes is not.)
    std::fs::write(&count, "0\n").unwrap();
    let c = sh(
        &format!(
            "n=$(cat {count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {count}; [ $n -ge 3 ]"
        ),
        &[],
    );
    let cfg = Config {
        retries: 3,
        trace: Some(trace.clone()),
        ..config(&st)
    };
    let t0 = Instant::now();
    let (a, stats, _) = run_calls(cfg, vec![c]);
    let took = t0.elapsed();
    assert!(matches!(a[0], Answer::Done(Ok(_))), "{:?}", a[0]);
    assert_eq!((stats.ran, stats.failed, stats.retried), (3, 2, 2));
    // 1 s, then 2 s.
    assert!(took >= Duration::from_secs(3), "{took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let lines = std::fs::read_to_string(&trace).unwrap();
    let statuses: Vec<&str> = lines
        .lines()
        .map(|l| l.split('\t').nth(4).unwrap())
        .collect();
    assert_eq!(statuses, ["failed", "failed", "ok"]);
    assert!(
        lines.lines().next().unwrap().contains("attempt 1/4"),
        "{lines}"
    );
    // Retries run out: the failure is the call's answer.
    let cfg = Config {
        retries: 1,
        ..config(&st)
    };
    let (a, stats, _) = run_calls(cfg, vec![run_("false", &[])]);
    assert!(matches!(&a[0], Answer::Done(Err(e)) if e.kind == CallErrorKind::Exited(1)));
    assert_eq!(stats.ran, 2);
}

#[test]
fn a_call_that_runs_too_long_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let trace = dir.path().join("trace.tsv");
    let cfg = Config {
        call_timeout: Some(Duration::from_millis(300)),
        trace: Some(trace.clone()),
        ..config(&st)
    };
    let t0 = Instant::now();
    let (a, _, _) = run_calls(cfg, vec![run_("sleep", &["30"]), run_("true", &[])]);
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    match &a[0] {
        Answer::Done(Err(e)) => {
            assert_eq!(e.kind, CallErrorKind::TimedOut);
            assert!(e.message.contains("timed out after 0.3 s"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(a[1], Answer::Done(Ok(_))));
    let lines = std::fs::read_to_string(&trace).unwrap();
    assert!(
        lines.contains("\tfailed\t") && lines.contains("timed out"),
        "{lines}"
    );
    // A timed-out delay too.
    let cfg = Config {
        call_timeout: Some(Duration::from_millis(50)),
        ..config(&st)
    };
    let (a, _, _) = run_calls(cfg, vec![call("delay", vec![Plain::Int(5_000)])]);
    assert!(matches!(&a[0], Answer::Done(Err(e)) if e.kind == CallErrorKind::TimedOut));
}

#[test]
fn plan_reports_what_would_run_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let a_out = p(dir.path(), "a.txt");
    let b_out = p(dir.path(), "b.txt");
    let c = |f: &str| call("writeFile", vec![s(f), s("x")]);
    // Nothing recorded and no store yet: plan creates none.
    let cfg = Config {
        plan: true,
        ..config(&st)
    };
    let (a, stats, _) = run_calls(cfg.clone(), vec![c(&a_out)]);
    assert_eq!(a[0], Answer::Planned);
    assert_eq!(stats.planned, 1);
    assert!(!st.exists());
    assert!(!Path::new(&a_out).exists());
    run_calls(config(&st), vec![c(&a_out)]);
    let before = walk(&st).len();
    let mut calls = Calls::new(cfg).unwrap();
    calls.submit(Ticket(0), c(&a_out), Priority::Certain);
    calls.submit(Ticket(1), c(&b_out), Priority::Certain);
    calls.submit(
        Ticket(2),
        call("fileExists", vec![s(&a_out)]),
        Priority::Certain,
    );
    let mut got = Vec::new();
    while got.len() < 3 {
        got.extend(calls.wait(Some(Duration::from_secs(5))));
    }
    got.sort_by_key(|(t, _)| *t);
    assert!(matches!(got[0].1, Answer::Done(Ok(_))), "recorded: reused");
    assert_eq!(got[1].1, Answer::Planned);
    assert_eq!(got[2].1, Answer::Done(Ok(Reply::Bool(true))), "reads run");
    assert_eq!(calls.plan().len(), 1);
    assert!(calls.render_plan().contains(&format!("writeFile {b_out}")));
    assert!(calls.render_plan().contains("wf.sp:1:1"));
    calls.finish().unwrap();
    drop(calls);
    assert!(!Path::new(&b_out).exists());
    assert_eq!(walk(&st).len(), before);
}

#[test]
fn the_trace_has_one_line_per_call() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    let trace = dir.path().join("t.tsv");
    let cfg = |resume: bool| Config {
        trace: Some(trace.clone()),
        resume,
        ..config(&st)
    };
    let list = || {
        vec![
            run_("echo", &["hello", "world"]),
            run_("sh", &["-c", "exit 3"]),
            call("delay", vec![Plain::Int(1)]),
        ]
    };
    run_calls(cfg(false), list());
    run_calls(cfg(true), list());
    let text = std::fs::read_to_string(&trace).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 3, "{text}");
    for r in &rows {
        assert_eq!(r.len(), 10, "{r:?}");
        assert_eq!(r[9], "-", "no tokens for a call that is not a model's");
        assert_eq!(r[1], "wf.sp:1:1");
        assert!(r[5].ends_with('Z') && r[5].len() == 24, "{r:?}");
        r[6].parse::<u64>().unwrap();
    }
    let by_call = |c: &str| rows.iter().find(|r| r[3] == c).unwrap().clone();
    let echo = by_call("echo hello world");
    assert_eq!(
        (echo[0], echo[2], echo[4], echo[7]),
        ("1", "run", "reused", "-")
    );
    let failed = by_call("sh -c 'exit 3'");
    assert_eq!((failed[4], failed[7]), ("failed", "3"));
    assert_eq!(by_call("delay 1")[4], "reused");
}

#[test]
fn cancelled_calls_are_traced_and_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.tsv");
    let mut calls = Calls::new(Config {
        trace: Some(trace.clone()),
        ..config(&dir.path().join("store"))
    })
    .unwrap();
    calls.submit(Ticket(1), run_("sleep", &["30"]), Priority::Certain);
    std::thread::sleep(Duration::from_millis(300));
    calls.poll();
    calls.cancel(Ticket(1));
    assert_eq!(calls.in_flight(), 0);
    calls.finish().unwrap();
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.contains("\tcancelled\t"), "{text}");
}

/// A child mode of this test binary: runs a few calls with plain progress, so that the
/// parent test can look at its standard output and error.
#[test]
fn child_plain_progress() {
    let Some(dir) = std::env::var_os("SPINDLE_TEST_PROGRESS_CHILD") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let cfg = Config {
        progress: ProgressMode::Plain,
        ..config(&dir.join("store"))
    };
    run_calls(
        cfg,
        vec![
            run_("echo", &["to", "stdout"]),
            run_("false", &[]),
            call("delay", vec![Plain::Int(1)]),
        ],
    );
}

/// The full name of test `name` of this module, as the test harness's `--exact` takes
/// it (this module is one of its test binary's modules).
fn this_test(name: &str) -> String {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    if module.is_empty() {
        name.to_string()
    } else {
        format!("{module}::{name}")
    }
}

#[test]
fn plain_progress_is_one_line_per_call_on_standard_error_only() {
    let dir = tempfile::tempdir().unwrap();
    for no_color in [false, true] {
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--exact",
            &*this_test("child_plain_progress"),
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("SPINDLE_TEST_PROGRESS_CHILD", dir.path());
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        let stdout = String::from_utf8_lossy(&out.stdout);
        // Only the test harness's own lines.
        for line in stdout.lines() {
            let harness = line.is_empty()
                || line.starts_with("running ")
                || line.starts_with("test ")
                || line.starts_with("test result:")
                || line.starts_with("successes")
                || line.starts_with("    ");
            assert!(harness, "progress on standard output: {line:?}");
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 4, "{stderr}");
        assert!(
            !stderr.contains('\x1b'),
            "colour when not a terminal: {stderr:?}"
        );
        let find = |w: &str| {
            lines
                .iter()
                .find(|l| l.starts_with(w))
                .unwrap_or_else(|| panic!("no {w} line in {stderr}"))
        };
        let ok = find("ok       wf.sp:1:1  echo to stdout  (");
        assert!(ok.ends_with(" ms)"), "{ok}");
        let failed = find("failed   wf.sp:1:1  false  (");
        assert!(failed.contains("exited with status 1"), "{failed}");
        find("ok       wf.sp:1:1  delay 1  (");
        let summary = find("done: 3 calls (3 ran, 0 reused, 1 failed) in ");
        assert!(summary.ends_with(" s"));
    }
}

/// A child mode: makes process calls with outputs for ever, committing records as
/// they end, until it is killed.
#[test]
fn child_record_writer() {
    let Some(dir) = std::env::var_os("SPINDLE_TEST_WRITER_CHILD") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut calls = Calls::new(Config {
        resume: true,
        ..config(&dir.join("store"))
    })
    .unwrap();
    let mut next = 0u64;
    loop {
        while calls.in_flight() < 8 {
            let f = out.join(format!("{next}.txt")).display().to_string();
            // A big enough output that a kill may land while it is written.
            let c = sh(
                "head -c 20000 /dev/zero | tr '\\0' x > \"$1\"; echo \"$2\" >> \"$1\"; echo \"$2\"",
                &[&f, &next.to_string()],
            );
            calls.submit(Ticket(next), c, Priority::Certain);
            next += 1;
        }
        calls.wait(Some(Duration::from_millis(50)));
    }
}

#[test]
fn a_writer_killed_at_random_moments_never_leaves_a_record_that_does_not_verify() {
    let dir = tempfile::tempdir().unwrap();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut total = 0;
    for round in 0..20 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &*this_test("child_record_writer"),
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env("SPINDLE_TEST_WRITER_CHILD", dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let ms = 150 + seed % 600;
        std::thread::sleep(Duration::from_millis(ms));
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        child.wait().unwrap();
        // The killed run's tools may still be finishing: let them.
        std::thread::sleep(Duration::from_millis(100));
        let store = Store::open(&dir.path().join("store")).unwrap();
        let recs = store.records().unwrap();
        for (_, r) in &recs {
            store
                .check(r)
                .unwrap_or_else(|why| panic!("round {round}: {why}: {r:?}"));
            let Some(Reply::Text(t)) = r.reply.as_ref().and_then(|x| x.to_reply()) else {
                panic!("round {round}: no reply in {r:?}");
            };
            assert_eq!(r.outputs.len(), 1);
            let content = std::fs::read_to_string(&r.outputs[0].path).unwrap();
            assert!(content.ends_with(&t), "round {round}");
        }
        assert!(recs.len() >= total, "records were lost");
        total = recs.len();
    }
    assert!(total > 0, "no record was ever written");
}

#[test]
fn reusing_ten_thousand_delays_is_fast_and_small() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    // `delay`'s key is its wait (its value is its other argument, whatever it is), so
    // `map (\x -> delay 1 x) xs` is 10,000 calls of one key. To measure 10,000
    // records, every call here has its own key: waits of -1, -2, ... ms, which the
    // executor treats as 0 ms. The target (issue 13): reusing them takes under 10% of
    // 10,000 x 1 ms, and the store stays under 5 MB.
    let distinct = || -> Vec<Call> {
        (1..=10_000i64)
            .map(|i| call("delay", vec![Plain::Int(-i)]))
            .collect()
    };
    let t0 = Instant::now();
    let (_, stats, _) = run_calls(config(&st), distinct());
    let first = t0.elapsed();
    assert_eq!(stats.recorded, 10_000);
    let t0 = Instant::now();
    let (a, stats, _) = run_calls(resume(&st), distinct());
    let reuse = t0.elapsed();
    assert_eq!(stats.reused, 10_000);
    assert!(a.iter().all(|x| *x == Answer::Done(Ok(Reply::Unit))));
    let info = store::info(&st).unwrap();
    assert_eq!(info.records, 10_000);
    // The same with 10,000 calls of `delay 1` (one key).
    let same = || -> Vec<Call> {
        (0..10_000)
            .map(|_| call("delay", vec![Plain::Int(1)]))
            .collect()
    };
    let st2 = dir.path().join("store2");
    let t0 = Instant::now();
    run_calls(config(&st2), same());
    let first_same = t0.elapsed();
    let t0 = Instant::now();
    let (_, stats, _) = run_calls(resume(&st2), same());
    let reuse_same = t0.elapsed();
    assert_eq!(stats.reused, 10_000);
    eprintln!(
        "10,000 distinct delays: first run {first:?}, reuse {reuse:?}, store {} ({} records); \
         10,000 x delay 1: first run {first_same:?}, reuse {reuse_same:?}",
        store::human_bytes(info.bytes),
        info.records
    );
    assert!(reuse < Duration::from_secs(1), "reuse took {reuse:?}");
    assert!(
        reuse_same < Duration::from_secs(1),
        "reuse took {reuse_same:?}"
    );
    assert!(info.bytes < 5_000_000, "store is {} bytes", info.bytes);
}

#[test]
fn store_info_and_gc_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let st = dir.path().join("store");
    run_calls(
        config(&st),
        vec![
            run_("echo", &["a"]),
            run_("echo", &["b"]),
            call("delay", vec![Plain::Int(1)]),
        ],
    );
    let spindle = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_spindle"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let st_s = st.display().to_string();
    let info = spindle(&["store", "info", "--store", &st_s]);
    assert!(info.contains("records: 3\n"), "{info}");
    assert!(info.contains("size: "), "{info}");
    // Everything was used today: nothing goes.
    let gc = spindle(&["store", "gc", "--keep-days", "1", "--store", &st_s]);
    assert!(
        gc.contains("removed 0 records not used in 1 days, kept 3"),
        "{gc}"
    );
    // The store beside a program, found from the program's path.
    let wf = dir.path().join("wf.sp");
    std::fs::write(&wf, "def main = 1\n").unwrap();
    std::fs::rename(&st, dir.path().join(".spindle")).unwrap();
    let info = spindle(&["store", "info", &wf.display().to_string()]);
    assert!(info.contains("records: 3\n"), "{info}");
}
