//! Helpers for the end-to-end tests (`tests/cli/`): a workflow in a temporary
//! folder run by the real `spindle` binary with its result store inside that folder,
//! the process table read from `/proc`, and `--trace` files parsed.

#![allow(dead_code)]

pub mod batch_server;
pub mod model_server;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// A workflow's folder: programs and data are written here, `spindle` runs here, and
/// its result store is `store/` here (never `.spindle/` in the repository).
pub struct Wf {
    pub dir: tempfile::TempDir,
}

impl Default for Wf {
    fn default() -> Self {
        Self::new()
    }
}

impl Wf {
    pub fn new() -> Wf {
        Wf {
            dir: tempfile::Builder::new()
                .prefix("spindle-e2e-")
                .tempdir()
                .expect("a temporary folder"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes a file (creating its folders).
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.file(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.file(name))
            .unwrap_or_else(|e| panic!("cannot read {name}: {e}"))
    }

    /// A file's text once it ends with a newline (written whole), or `None`.
    pub fn read_opt(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.file(name))
            .ok()
            .filter(|t| t.ends_with('\n'))
    }

    pub fn exists(&self, name: &str) -> bool {
        self.file(name).exists()
    }

    /// `spindle run --store STORE --progress none ARGS...` in this folder.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_spindle"));
        c.current_dir(self.path())
            .env_remove("SPINDLE_STORE")
            .env_remove("SPINDLE_KEY_ENV")
            .arg("run")
            .arg("--store")
            .arg(self.file("store"));
        if !args.contains(&"--progress") {
            c.args(["--progress", "none"]);
        }
        c.args(args);
        c
    }

    /// Runs `spindle run` (see [`Wf::command`]) to the end.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args)
            .stdin(Stdio::null())
            .output()
            .expect("spindle runs")
    }

    /// Starts `spindle run` with standard output and error piped.
    pub fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spindle starts")
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a run succeeded and returns its standard output.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "status {:?}\n--- stdout:\n{}\n--- stderr:\n{}",
        o.status,
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// Both evaluation modes: the default parallel one and `--sequential`.
pub const MODES: [&[&str]; 2] = [&[], &["--sequential"]];

/// A number no other test of this run uses, for unique `sleep` arguments
/// (`sleep 31.00123401` is still a 31-second sleep, and `/proc` finds it by that word).
pub fn unique() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{:07}{:02}",
        std::process::id() % 10_000_000,
        N.fetch_add(1, Ordering::SeqCst) % 100
    )
}

/// The live processes (not zombies) whose argument list holds `word` as one argument,
/// other than the first.
pub fn procs_with_arg(word: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in entries.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        // The state follows the parenthesised command name.
        if let Ok(stat) = std::fs::read_to_string(e.path().join("stat"))
            && let Some(rest) = stat.rsplit_once(')')
            && rest.1.trim_start().starts_with('Z')
        {
            continue;
        }
        let words: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        if words.iter().skip(1).any(|w| *w == word.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// Waits until `cond` holds (polling), at most `limit`; whether it did.
pub fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if t.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends a signal to a child.
pub fn signal(child: &Child, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
}

/// Kills leftover processes a failed test may have left (by their unique argument),
/// so that one failure does not leave 30-second sleeps behind.
pub fn kill_leftovers(word: &str) {
    for pid in procs_with_arg(word) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Every file below `d` (none if it does not exist), depth first.
pub fn files_under(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut work = vec![d.to_path_buf()];
    while let Some(d) = work.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                work.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

/// One line of a `--trace` file.
#[derive(Debug, Clone)]
pub struct TraceLine {
    pub id: String,
    pub place: String,
    pub external: String,
    pub command: String,
    pub status: String,
    /// Start, in milliseconds since midnight (UTC).
    pub start_ms: u64,
    pub duration_ms: u64,
    pub exit: String,
}

/// Parses a `--trace` file (missing file: no lines).
pub fn trace(path: &Path) -> Vec<TraceLine> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() >= 8, "a trace line of {} fields: {l:?}", f.len());
            TraceLine {
                id: f[0].into(),
                place: f[1].into(),
                external: f[2].into(),
                command: f[3].into(),
                status: f[4].into(),
                start_ms: time_of_day_ms(f[5]),
                duration_ms: f[6].parse().unwrap_or_else(|_| panic!("duration in {l:?}")),
                exit: f[7].into(),
            }
        })
        .collect()
}

/// `2026-11-23T01:46:00.811Z` as milliseconds since midnight.
fn time_of_day_ms(s: &str) -> u64 {
    let t = s
        .split('T')
        .nth(1)
        .unwrap_or_else(|| panic!("a time: {s:?}"));
    let t = t.trim_end_matches('Z');
    let (hms, frac) = t.split_once('.').unwrap_or((t, "0"));
    let p: Vec<u64> = hms.split(':').map(|x| x.parse().unwrap()).collect();
    let ms: u64 = format!("{frac:0<3}")[..3].parse().unwrap();
    ((p[0] * 60 + p[1]) * 60 + p[2]) * 1000 + ms
}

/// The most intervals `[start, start + duration)` open at once (each shrunk by 3 ms at
/// both ends, so that millisecond rounding never counts two calls in a row as
/// overlapping).
pub fn max_overlap(intervals: &[(u64, u64)]) -> usize {
    let mut events: Vec<(u64, i32)> = Vec::new();
    for &(start, dur) in intervals {
        if dur <= 6 {
            continue;
        }
        events.push((start + 3, 1));
        events.push((start + dur - 3, -1));
    }
    events.sort_by_key(|e| (e.0, e.1));
    let (mut now, mut best) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        best = best.max(now);
    }
    best as usize
}

impl Wf {
    /// Runs `spindle run --trace NAME.tsv ARGS...` (a new trace file) and returns the
    /// run and its trace.
    pub fn traced(&self, name: &str, args: &[&str]) -> (Output, Vec<TraceLine>) {
        let t = self.file(&format!("{name}.tsv"));
        let _ = std::fs::remove_file(&t);
        let mut all = vec!["--trace", t.to_str().unwrap()];
        all.extend(args);
        let out = self.run(&all);
        (out, trace(&t))
    }

    /// Runs `spindle run` with a mode of [`MODES`] first, then `rest`.
    pub fn run_mode(&self, mode: &[&str], rest: &[&str]) -> Output {
        let args: Vec<&str> = mode.iter().chain(rest).copied().collect();
        self.run(&args)
    }

    /// Starts `spindle run` with a mode of [`MODES`] first, then `rest`.
    pub fn spawn_mode(&self, mode: &[&str], rest: &[&str]) -> Child {
        let args: Vec<&str> = mode.iter().chain(rest).copied().collect();
        self.spawn(&args)
    }
}
