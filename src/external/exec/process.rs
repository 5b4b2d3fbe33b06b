//! Running one process: started on the caller's thread through
//! [`lifetime::spawn`] (its own process group,
//! recorded for stopping), then finished on a thread of its own: standard input fed,
//! standard output and error read to their ends at the same time (so a process that
//! fills one pipe while we read the other never deadlocks), its exit status read, its
//! group handed back to the lifetime table.

use crate::external::budget;
use crate::external::lifetime::{self, Exit, SpawnError};
use crate::external::request::{
    CallError, CallErrorKind, ExitPolicy, ProcessRequest, Reply, stderr_tail,
};
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Stack size of the helper threads that feed and drain pipes (they only copy bytes).
const HELPER_STACK: usize = 64 * 1024;

static PASS_STDERR: AtomicBool = AtomicBool::new(true);

/// Whether a successful tool's standard error is copied to Spindle's (LANGUAGE.md 7.4;
/// on by default). Tests and a future progress display turn it off.
pub fn set_stderr_passthrough(on: bool) {
    PASS_STDERR.store(on, Ordering::Relaxed);
}

/// Whether a successful tool's standard error is passed through (see
/// [`set_stderr_passthrough`]).
pub fn passes_stderr() -> bool {
    PASS_STDERR.load(Ordering::Relaxed)
}

/// The shell for `shell`: `bash` (with `-o pipefail`) where there is one on `PATH`,
/// else `sh`. Looked up once.
pub fn shell_program() -> &'static (String, bool) {
    static SHELL: OnceLock<(String, bool)> = OnceLock::new();
    SHELL.get_or_init(|| {
        let found = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("bash"))
                .find(|p| is_executable(p))
        });
        match found {
            Some(p) => (p.to_string_lossy().into_owned(), true),
            None => ("sh".to_string(), false),
        }
    })
}

fn is_executable(p: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Refuses a NUL byte in a program name or argument: it could only end the word early
/// (issue 16), so it is an error, never a split.
pub fn check_no_nul(req: &ProcessRequest) -> Result<(), CallError> {
    let what = if req.program.contains('\0') {
        Some("the program name")
    } else if req.args.iter().any(|a| a.contains('\0')) {
        Some(if req.shown_as.is_some() {
            "the command line"
        } else {
            "an argument"
        })
    } else {
        None
    };
    match what {
        Some(what) => Err(CallError::bad_argument(format!(
            "`{}`: {what} contains a NUL byte",
            req.shown()
        ))),
        None => Ok(()),
    }
}

/// Starts the process of `req`, recorded in the lifetime table.
pub fn start(req: &ProcessRequest) -> Result<Child, CallError> {
    check_no_nul(req)?;
    let mut cmd = match &req.trace {
        Some(spec) => {
            let mut c = Command::new(&spec.tracer);
            c.args(spec.tracer_args()).arg(&req.program);
            c
        }
        None => Command::new(&req.program),
    };
    cmd.args(&req.args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(match &req.stdin {
            Some(s) if !s.is_empty() => Stdio::piped(),
            // Never the terminal: a tool in a background process group that reads it
            // would be stopped, and the REPL needs it.
            _ => Stdio::null(),
        });
    match lifetime::spawn(&mut cmd) {
        Ok(child) => Ok(child),
        Err(SpawnError::Stopping) => Err(CallError::new(
            CallErrorKind::Stopping,
            format!("`{}` not started: Spindle is stopping", req.shown()),
        )),
        Err(SpawnError::Io(e)) => Err(CallError::new(
            CallErrorKind::CannotStart,
            format!("`{}` cannot start: {e}", req.shown()),
        )),
    }
}

/// Feeds, drains and waits for a process started by [`start`]; blocks until it has
/// exited and its output pipes are closed. Its group is then handed back to the
/// lifetime table (which reaps it).
pub fn finish(mut child: Child, req: &ProcessRequest) -> Result<Reply, CallError> {
    let pid = child.id();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let input = req.stdin.as_deref().unwrap_or("");
    // What the output holds counts against `--max-memory` as it is read: past the
    // limit, reading stops and the process's group is stopped.
    let mut out_held = budget::Reservation::new();
    let mut err_held = budget::Reservation::new();
    let mut over = false;
    let (out, err) = std::thread::scope(|s| {
        if let Some(mut pipe) = stdin {
            let feed = move || {
                // The process may exit without reading everything: a broken pipe is
                // its business, not an error of the call.
                let _ = pipe.write_all(input.as_bytes());
            };
            let spawned = std::thread::Builder::new()
                .stack_size(HELPER_STACK)
                .spawn_scoped(s, feed);
            // Without a thread to feed it, the process sees its input end at once.
            drop(spawned);
        }
        let err_held = &mut err_held;
        let err_reader = stderr.map(|pipe| {
            std::thread::Builder::new()
                .stack_size(HELPER_STACK)
                .spawn_scoped(s, move || match budget::read_limited(pipe, err_held) {
                    Ok(b) => (b, false),
                    Err(_) => {
                        lifetime::stop(pid);
                        (Vec::new(), true)
                    }
                })
        });
        let out = match stdout.map(|p| budget::read_limited(p, &mut out_held)) {
            Some(Ok(b)) => b,
            Some(Err(_)) => {
                over = true;
                lifetime::stop(pid);
                Vec::new()
            }
            None => Vec::new(),
        };
        let err = match err_reader {
            Some(Ok(h)) => {
                let (err, err_over) = h.join().unwrap_or_default();
                over |= err_over;
                err
            }
            // No thread: stop the process rather than risk a full pipe, and report.
            Some(Err(_)) => {
                lifetime::stop(pid);
                Vec::new()
            }
            None => Vec::new(),
        };
        (out, err)
    });
    let exit = lifetime::wait_exit(pid);
    lifetime::exited(pid);
    if over {
        return Err(budget::out_of_memory(&format!(
            "the output of `{}`",
            req.shown()
        )));
    }
    if let Some(why) = traced_start_failure(req, exit) {
        return Err(CallError::new(
            CallErrorKind::CannotStart,
            format!("`{}` cannot start: {why}", req.shown()),
        ));
    }
    outcome(req, exit, out, err)
}

/// Why a traced tool could not start, from its tracer's report (the tracer exits with
/// status 127 and says so there), or `None`.
fn traced_start_failure(req: &ProcessRequest, exit: Exit) -> Option<String> {
    let spec = req.trace.as_ref()?;
    if exit != Exit::Code(127) {
        return None;
    }
    let text = std::fs::read_to_string(&spec.report).ok()?;
    crate::external::fstrace::Observed::parse(&text)?.cannot_start
}

/// The call's answer from how the process ended and what it wrote.
fn outcome(
    req: &ProcessRequest,
    exit: Exit,
    out: Vec<u8>,
    err: Vec<u8>,
) -> Result<Reply, CallError> {
    let failure = |kind: CallErrorKind, what: String| CallError {
        kind,
        message: format!("`{}` {what}", req.shown()),
        stderr_tail: stderr_tail(&err),
    };
    match req.exit {
        ExitPolicy::Report => {
            let code = match exit {
                Exit::Code(c) => c as i64,
                Exit::Signal(s) => 128 + s as i64,
                Exit::Unknown => {
                    return Err(failure(
                        CallErrorKind::Stopping,
                        "was stopped: Spindle is stopping".into(),
                    ));
                }
            };
            Ok(Reply::Exit {
                code,
                stdout: budget::into_text(out),
                stderr: budget::into_text(err),
            })
        }
        ExitPolicy::Check => match exit {
            Exit::Code(0) => {
                pass_through(&err);
                Ok(Reply::Text(budget::into_text(out)))
            }
            Exit::Code(c) => Err(failure(
                CallErrorKind::Exited(c),
                format!("exited with status {c}"),
            )),
            // Stopped by `shutdown_all`, not by a fault of its own.
            Exit::Signal(_) if lifetime::is_closing() => Err(failure(
                CallErrorKind::Stopping,
                "was stopped: Spindle is stopping".into(),
            )),
            Exit::Signal(s) => Err(failure(
                CallErrorKind::Signalled(s),
                format!("was killed by signal {s} ({})", lifetime::signal_name(s)),
            )),
            Exit::Unknown => Err(failure(
                CallErrorKind::Stopping,
                "was stopped: Spindle is stopping".into(),
            )),
        },
    }
}

/// Copies a successful tool's standard error to Spindle's in one write, ending in a
/// newline, so that tools finishing at once never mix within a line.
fn pass_through(err: &[u8]) {
    if err.is_empty() || !PASS_STDERR.load(Ordering::Relaxed) {
        return;
    }
    // Through the progress display, which lifts its live lines out of the way.
    crate::external::progress::eprint_lines(err);
}

/// Starts and finishes a process on this thread (`--sequential`).
pub fn run_now(req: &ProcessRequest) -> Result<Reply, CallError> {
    let child = start(req)?;
    match req.stream {
        Some(_) => finish_streamed(child, req),
        None => finish(child, req),
    }
}

/// Like [`finish`] for a streamed call (`runLines`, `shellLines`): each line of
/// standard output goes to the request's stream as soon as it is read (waiting while
/// the stream's buffer is full, so the pipe fills and the process waits), and to its
/// spool file when it has one. The stream ends when the process has exited: well, or
/// with the call's error. A consumer that closes the stream stops the process's group;
/// the answer is then [`CallErrorKind::Stopping`] (the caller cancelled the call and
/// drops it). Answers [`Reply::Stream`].
pub fn finish_streamed(mut child: Child, req: &ProcessRequest) -> Result<Reply, CallError> {
    let Some(stream) = req.stream.clone() else {
        return finish(child, req);
    };
    stream.mark_started();
    let pid = child.id();
    drop(child.stdin.take());
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut spool = req.spool.as_ref().and_then(|p| {
        std::fs::File::create(p)
            .ok()
            .map(|f| (p.clone(), std::io::BufWriter::with_capacity(1 << 16, f)))
    });
    let mut items: u64 = 0;
    let mut closed = false;
    // An unfinished line of standard output, and standard error, count against
    // `--max-memory` as they are read; past it the process's group is stopped.
    let mut over = false;
    let mut err_held = budget::Reservation::new();
    let mut line_held = budget::Reservation::new();
    let err = std::thread::scope(|s| {
        let err_held = &mut err_held;
        let err_reader = stderr.map(|pipe| {
            std::thread::Builder::new()
                .stack_size(HELPER_STACK)
                .spawn_scoped(s, move || match budget::read_limited(pipe, err_held) {
                    Ok(b) => (b, false),
                    Err(_) => {
                        lifetime::stop(pid);
                        (Vec::new(), true)
                    }
                })
        });
        if let Some(mut out) = stdout {
            let mut split = crate::external::stream::LineSplitter::default();
            let mut buf = vec![0u8; 1 << 16];
            let mut batch = crate::external::stream::Items::default();
            let mut collect = |line: &str, batch: &mut crate::external::stream::Items| {
                if let Some((_, w)) = &mut spool {
                    let _ = w
                        .write_all(line.as_bytes())
                        .and_then(|()| w.write_all(b"\n"));
                }
                items += 1;
                batch.push(line);
                true
            };
            loop {
                match out.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        split.feed(&buf[..n], &mut |l| collect(l, &mut batch));
                        if !line_held.set(split.pending()) {
                            over = true;
                            lifetime::stop(pid);
                            break;
                        }
                        if !stream.push_all(&mut batch) {
                            closed = true;
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            if !closed
                && !over
                && let Some(last) = split.finish()
            {
                collect(&last, &mut batch);
                closed = !stream.push_all(&mut batch);
            }
            if closed {
                // Not needed any more: stop the group (its pipes close, so the reader
                // of standard error ends too).
                lifetime::stop(pid);
            }
        }
        match err_reader {
            Some(Ok(h)) => {
                let (err, err_over) = h.join().unwrap_or_default();
                over |= err_over;
                err
            }
            Some(Err(_)) => {
                lifetime::stop(pid);
                Vec::new()
            }
            None => Vec::new(),
        }
    });
    drop(line_held);
    let exit = lifetime::wait_exit(pid);
    lifetime::exited(pid);
    let spool_path = match spool.take() {
        Some((p, mut w)) => w.flush().ok().map(|()| p),
        None => None,
    };
    let drop_spool = |p: &Option<String>| {
        if let Some(p) = p {
            let _ = std::fs::remove_file(p);
        }
    };
    if closed {
        drop_spool(&spool_path);
        let e = CallError::new(
            CallErrorKind::Stopping,
            format!("`{}` was stopped: its stream is not needed", req.shown()),
        );
        stream.finish(Err(e.clone()));
        return Err(e);
    }
    let result = match traced_start_failure(req, exit) {
        _ if over => Err(budget::out_of_memory(&format!(
            "the output of `{}`",
            req.shown()
        ))),
        Some(why) => Err(CallError::new(
            CallErrorKind::CannotStart,
            format!("`{}` cannot start: {why}", req.shown()),
        )),
        None => outcome(req, exit, Vec::new(), err),
    };
    match result {
        Ok(_) => {
            stream.finish(Ok(()));
            Ok(Reply::Stream {
                spool: spool_path.unwrap_or_default(),
                items,
                tokens_in: 0,
                tokens_out: 0,
            })
        }
        Err(e) => {
            drop_spool(&spool_path);
            stream.finish(Err(e.clone()));
            Err(e)
        }
    }
}
