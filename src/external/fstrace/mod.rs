//! File-access tracing (issue 24, DESIGN.md 6): what a process call actually read and
//! wrote, observed rather than guessed from its command line.
//!
//! A traced call runs under a small tracer process, `spindle __trace` ([`tracer`]),
//! which starts the tool with a seccomp filter that stops it only at file system calls
//! ([`filter`]), follows every descendant (forks, threads, `exec`), and writes what the
//! tree did to a report file when the last of them has ended ([`Observed`], one line
//! per path). The call's record is made from the report: its inputs are what the tree
//! read and did not itself create, its outputs what it created, changed, renamed or
//! deleted.
//!
//! Why a process of its own rather than a thread of Spindle: ptrace binds a tracee to
//! the thread that traces it, and waiting for traced processes from one thread of a
//! multi-threaded program that also waits for its other children by pid is a tangle
//! of rules (a traced child of the tracing thread group is reaped by the tracer's
//! wait). A tracer process is the parent and tracer of the whole tree, single-threaded,
//! and the same program traces a step that runs under Slurm (the job script runs it).
//! It costs one `exec` per call (a fraction of a millisecond).
//!
//! What is observed (each path absolute, as the tool named it, relative paths joined to
//! the tool's working directory or to the directory a descriptor names):
//!
//! - **reads**: regular files opened for reading; programs executed (`exec`; the
//!   dynamic loader's libraries are files it opens);
//! - **listings**: directories read with `getdents` (`cat data/*.csv` depends on
//!   `data/`'s names);
//! - **lookups**: paths looked up (`stat`, `access`, `readlink`, an `open` or `exec`
//!   that finds nothing): whether they existed, so that a file created where a tool
//!   looked for one (`test -e flag`, a program earlier on `PATH`) runs the call again;
//! - **writes**: paths opened for writing, created (`open` with `O_CREAT`, `mkdir`,
//!   `link`, `symlink`, `mknod`), truncated, removed (`unlink`, `rmdir`) or renamed
//!   (both names), each with whether it existed before the tree first changed it.
//!
//! Never observed: `/proc`, `/sys`, `/dev`, and the directories the caller excludes
//! (the result store). A path reached only through a descriptor (`fstat` with an
//! empty path, `openat2` ... relative to a descriptor of a file) counts through the
//! `open` that made the descriptor. What a tracer cannot see makes the report say so
//! ([`Observed::untraceable`]): file operations submitted through `io_uring`, files
//! opened by handle, 32-bit or x32 programs, paths that are not UTF-8. Such a call is
//! not recorded, so it always runs again: never a wrong reuse.
//!
//! Where tracing is not possible (not Linux on x86-64, or ptrace forbidden, as in some
//! containers) [`availability`] says why, once, and the caller falls back to a safe
//! mode (LANGUAGE.md 11 as amended by issue 24).

pub mod filter;
pub mod report;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub mod tracer;

pub use report::{Input, Observed};

use std::path::{Path, PathBuf};

use std::sync::OnceLock;

/// The hidden subcommand that runs the tracer: `spindle __trace [--exclude DIR]...
/// REPORT -- PROGRAM ARGS...`.
pub const SUBCOMMAND: &str = "__trace";

/// The environment variable that turns tracing off (`SPINDLE_TRACE=off`): process
/// calls then run as where tracing is not available.
pub const TRACE_ENV: &str = "SPINDLE_TRACE";

/// How a report's [`Observed::untraceable`] starts when the machine refused to trace
/// (ptrace not permitted, no seccomp): not this call's fault, so the caller stops
/// tracing for the rest of the run and says so once.
pub const UNAVAILABLE: &str = "tracing is not available here";

/// Whether processes can be traced here, as far as can be told without starting one:
/// `Ok`, or why not (said once per run by the caller). A machine that refuses ptrace
/// is found at the first traced call instead: its tracer runs the tool untraced and
/// its report says [`UNAVAILABLE`] (no probe process is spent on every run).
pub fn availability() -> Result<(), String> {
    static ONCE: OnceLock<Result<(), String>> = OnceLock::new();
    ONCE.get_or_init(|| {
        if std::env::var(TRACE_ENV).is_ok_and(|v| v == "off" || v == "0") {
            return Err(format!("{TRACE_ENV}=off"));
        }
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            return Err("file tracing needs Linux on x86-64".into());
        }
        Ok(())
    })
    .clone()
}

/// The running binary, for starting the tracer when it is `spindle`
/// (`/proc/self/exe` names the running binary even if its file was replaced or
/// removed since).
pub fn self_exe() -> PathBuf {
    if Path::new("/proc/self/exe").exists() {
        PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe().unwrap_or_else(|_| PathBuf::from("spindle"))
    }
}

/// How a traced process call is started: the tracer's arguments before the tool's
/// program and arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TraceSpec {
    /// The `spindle` binary that traces ([`self_exe`] for the running one).
    pub tracer: PathBuf,
    /// Where the tracer writes its report (read and removed by the caller).
    pub report: PathBuf,
    /// Directories never observed (absolute): the result store.
    pub exclude: Vec<PathBuf>,
}

impl TraceSpec {
    /// The tracer's own arguments: `__trace --exclude D ... REPORT --`; the tool's
    /// program and arguments follow.
    pub fn tracer_args(&self) -> Vec<std::ffi::OsString> {
        let mut v: Vec<std::ffi::OsString> = vec![SUBCOMMAND.into()];
        for d in &self.exclude {
            v.push("--exclude".into());
            v.push(d.clone().into_os_string());
        }
        v.push(self.report.clone().into_os_string());
        v.push("--".into());
        v
    }
}

/// Runs the `__trace` subcommand with its arguments (after the subcommand's name) and
/// returns the exit status to exit with; on a status the tool was killed by a signal,
/// the tracer kills itself with that signal instead of returning.
pub fn tracer_main(args: &[std::ffi::OsString]) -> i32 {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        tracer::main(args)
    }
    #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
    {
        let _ = args;
        eprintln!("spindle: file tracing needs Linux on x86-64");
        2
    }
}
