//! The file-access tracer on its own (`spindle __trace REPORT -- PROGRAM ARGS...`,
//! issue 24), on the real file system and process table: what it reports for each kind
//! of file system call (relative to a descriptor, renames, links, listings, lookups,
//! threads, forks and `exec`s), what it never reports, how it ends (the tool's exit
//! status or signal, a tool that cannot start), and that it stops whatever the tool left
//! running, whatever its session.

use crate::e2e_common;

use e2e_common::{procs_with_arg, unique};
use spindle::external::fstrace::{Input, Observed};
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs `program args` under the tracer in `dir`; the run and the report.
fn traced(dir: &Path, program: &str, args: &[&str]) -> (Output, Observed) {
    let report = dir.join("report.txt");
    let _ = std::fs::remove_file(&report);
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("__trace")
        .arg(&report)
        .arg("--")
        .arg(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let observed = Observed::parse(&text).unwrap_or_else(|| panic!("no whole report: {text:?}"));
    (out, observed)
}

fn sh(dir: &Path, script: &str) -> (Output, Observed) {
    traced(dir, "sh", &["-c", script])
}

fn p(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

fn uses(o: &Observed, path: &str) -> Vec<Input> {
    o.inputs.get(path).cloned().unwrap_or_default()
}

fn tmp() -> tempfile::TempDir {
    // Canonical: the tracer reports paths as the kernel resolves the working
    // directory (no symbolic link in it).
    tempfile::Builder::new()
        .prefix("spindle-fstrace-")
        .tempdir_in(std::fs::canonicalize(std::env::temp_dir()).unwrap())
        .unwrap()
}

#[test]
fn a_pipeline_reads_its_input_writes_its_output_and_runs_its_programs() {
    let d = tmp();
    std::fs::write(d.path().join("in.txt"), "b\na\n").unwrap();
    let (out, o) = sh(d.path(), "sort < in.txt > out.txt && cat out.txt");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "a\nb\n");
    assert_eq!(uses(&o, &p(d.path(), "in.txt")), [Input::Read]);
    assert_eq!(o.writes.get(&p(d.path(), "out.txt")), Some(&false));
    // Reading one's own output is not an input.
    assert!(!o.inputs.contains_key(&p(d.path(), "out.txt")));
    let execs: Vec<&String> = o
        .inputs
        .iter()
        .filter(|(_, u)| u.contains(&Input::Exec))
        .map(|(p, _)| p)
        .collect();
    for prog in ["sort", "cat"] {
        assert!(
            execs.iter().any(|e| e.ends_with(&format!("/{prog}"))),
            "{prog} not among {execs:?}"
        );
    }
    // The PATH search's misses are lookups of paths that were not there.
    assert!(
        o.inputs
            .iter()
            .any(|(p, u)| p.ends_with("/sort") && u == &[Input::Missing])
            || std::env::var("PATH")
                .unwrap_or_default()
                .starts_with("/usr/bin"),
        "{o:?}"
    );
    assert!(o.untraceable.is_none() && o.cannot_start.is_none());
}

#[test]
fn renames_links_folders_and_removals_are_changes() {
    let d = tmp();
    std::fs::write(d.path().join("a.txt"), "a").unwrap();
    std::fs::write(d.path().join("old.txt"), "old").unwrap();
    std::fs::create_dir(d.path().join("existing")).unwrap();
    let (out, o) = sh(
        d.path(),
        "mv a.txt b.txt && ln -s b.txt link.txt && mkdir -p existing new/deeper && rm old.txt && \
         echo t > tmp.txt && rm tmp.txt && truncate -s 0 b.txt",
    );
    assert!(out.status.success(), "{out:?}");
    let w = |n: &str| o.writes.get(&p(d.path(), n)).copied();
    assert_eq!(w("a.txt"), Some(true), "renamed away");
    assert_eq!(w("b.txt"), Some(false), "renamed to");
    assert_eq!(w("link.txt"), Some(false));
    assert_eq!(w("new"), Some(false));
    assert_eq!(w("new/deeper"), Some(false));
    assert_eq!(w("old.txt"), Some(true), "removed");
    assert_eq!(
        w("tmp.txt"),
        Some(false),
        "a temporary file: created (and gone)"
    );
    // `mkdir -p` of a folder that is there is a lookup, not a change.
    assert_eq!(w("existing"), None);
    assert_eq!(uses(&o, &p(d.path(), "existing")), [Input::Exists]);
}

#[test]
fn listings_lookups_and_paths_relative_to_a_descriptor() {
    let d = tmp();
    std::fs::create_dir(d.path().join("data")).unwrap();
    std::fs::write(d.path().join("data/x.csv"), "1").unwrap();
    std::fs::write(d.path().join("data/y.csv"), "2").unwrap();
    let script = "\
import os, threading
fd = os.open('data', os.O_RDONLY | os.O_DIRECTORY)
os.close(os.open('x.csv', os.O_RDONLY, dir_fd=fd))
os.listdir('data')
os.path.exists('flag')
os.path.exists('data/y.csv')
t = threading.Thread(target=lambda: open('data/y.csv').read())
t.start(); t.join()
pid = os.fork()
if pid == 0:
    open('from-child.txt', 'w').write('c')
    os._exit(0)
os.waitpid(pid, 0)
";
    let (out, o) = traced(d.path(), "python3", &["-c", script]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        uses(&o, &p(d.path(), "data/x.csv")),
        [Input::Read],
        "openat on a descriptor"
    );
    assert!(
        uses(&o, &p(d.path(), "data")).contains(&Input::Listed),
        "{o:?}"
    );
    assert_eq!(uses(&o, &p(d.path(), "flag")), [Input::Missing]);
    assert_eq!(
        uses(&o, &p(d.path(), "data/y.csv")),
        [Input::Read],
        "read by a thread"
    );
    assert_eq!(
        o.writes.get(&p(d.path(), "from-child.txt")),
        Some(&false),
        "written by a forked child"
    );
}

#[test]
fn the_system_places_and_excluded_folders_are_never_reported() {
    let d = tmp();
    let store = d.path().join("store");
    std::fs::create_dir(&store).unwrap();
    let report = d.path().join("report.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .arg("__trace")
        .arg("--exclude")
        .arg(&store)
        .arg(&report)
        .args([
            "--",
            "sh",
            "-c",
            "cat /proc/self/status > /dev/null; echo x > store/inside; ls /sys > /dev/null; echo y > outside",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let o = Observed::parse(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let all: Vec<&String> = o.inputs.keys().chain(o.writes.keys()).collect();
    for p in &all {
        assert!(
            !p.starts_with("/proc") && !p.starts_with("/sys") && !p.starts_with("/dev"),
            "{p}"
        );
        assert!(!Path::new(p).starts_with(&store), "{p}");
    }
    assert!(o.writes.contains_key(&p(d.path(), "outside")));
}

#[test]
fn a_path_that_is_not_utf8_makes_the_report_say_it_cannot_be_recorded() {
    let d = tmp();
    let (out, o) = traced(
        d.path(),
        "python3",
        &["-c", "open(b'\\xff-name', 'w').write('x')"],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        o.untraceable
            .as_deref()
            .is_some_and(|u| u.contains("UTF-8")),
        "{o:?}"
    );
}

#[test]
fn the_tracer_ends_as_the_tool_did() {
    let d = tmp();
    let (out, _) = sh(d.path(), "exit 3");
    assert_eq!(out.status.code(), Some(3));
    let (out, _) = sh(d.path(), "kill -9 $$");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(9));
    let (out, o) = traced(d.path(), "no-such-program-fstrace", &["x"]);
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        o.cannot_start.as_deref(),
        Some("No such file or directory (os error 2)")
    );
}

#[test]
fn what_the_tool_leaves_running_is_stopped_whatever_its_session() {
    let d = tmp();
    let word = format!("3.{}", unique());
    let t = Instant::now();
    let (out, o) = sh(
        d.path(),
        &format!(
            "setsid sh -c 'trap \"\" TERM; sleep {word}; echo late > late.txt' > /dev/null 2>&1 & sleep 0.5; echo started"
        ),
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "started\n");
    // SIGTERM is ignored: SIGKILL after the grace period, well before the sleep ends.
    assert!(
        t.elapsed() < Duration::from_millis(3400),
        "{:?}",
        t.elapsed()
    );
    assert!(procs_with_arg(&word).is_empty(), "the grandchild survived");
    std::thread::sleep(Duration::from_millis(3500));
    assert!(!d.path().join("late.txt").exists());
    assert!(o.inputs.keys().any(|p| p.ends_with("/setsid")), "{o:?}");
}

#[test]
fn the_probe_says_whether_tracing_works_here() {
    let out = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["__trace", "--probe"])
        .output()
        .unwrap();
    // The project's machines allow ptrace (issue 24): tracing must work where the
    // tests run, never be skipped.
    assert!(
        out.status.success(),
        "tracing is not available: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The tool gets the signal dispositions a process started by Spindle gets: SIGPIPE is
/// not ignored (the tracer's runtime ignores it, and an ignored signal would stay
/// ignored across `exec`), so a writer whose reader went away dies of it quietly.
#[test]
fn the_tool_dies_of_sigpipe_as_it_would_untraced() {
    let d = tmp();
    let (out, _) = traced(
        d.path(),
        "bash",
        &["-c", "seq 1 1000000 | head -n 1; echo \"${PIPESTATUS[@]}\""],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1\n141 0\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
