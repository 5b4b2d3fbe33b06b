//! The tracer process (`spindle __trace`): starts one tool under ptrace with the seccomp
//! filter of [`super::filter`], follows its whole process tree, notes what it does to
//! the file system ([`Observed`]), writes the report, and exits as the tool did.
//!
//! # Starting the tool
//!
//! The tracer forks; the child asks to be traced (`PTRACE_TRACEME`), stops itself, and
//! once the tracer has set its options (stop at seccomp events, follow `fork`, `vfork`,
//! `clone` and `exec`, kill every tracee if the tracer dies) installs the filter and
//! `exec`s the tool (searching `PATH` as `execvp` does, so a failed candidate is a
//! missing lookup). If the `exec` fails, the child writes the error to a pipe that the
//! `exec` would have closed, and the report says the program could not start.
//!
//! # The loop
//!
//! One `waitpid(-1, __WALL)` loop: a seccomp stop is a file system call at its entry
//! (its path is read from the tool's memory with `process_vm_readv` and looked at in
//! the file system *before* the call runs, so each call costs one stop, not two);
//! fork events and first stops add tracees; an `exec` event notes the program file
//! (`/proc/PID/exe`); other signals are passed on. The tracer is a child subreaper, so
//! a tool's orphans (double forks, `setsid`) become its children, and it knows every
//! live tracee whatever its process group or session.
//!
//! # Ending
//!
//! When the tool's first process (the root) exits, whatever it left behind gets
//! SIGTERM, then SIGKILL after two seconds (a tool's leftovers do not outlive its
//! call, LANGUAGE.md 7.4). When the tracer is asked to stop (SIGTERM, SIGINT, SIGHUP:
//! Spindle stopping the call's process group), it passes the signal on to the tracees
//! outside its group (those the group signal missed), and SIGKILLs what is left two
//! seconds later. If the tracer itself is killed, the kernel kills every tracee
//! (`PTRACE_O_EXITKILL`). The report is written once no tracee is left; the tracer
//! then exits with the root's status, or kills itself with the root's signal.

use super::filter;
use super::report::{Input, Observed};
use nix::errno::Errno;
use nix::libc;
use nix::sys::ptrace;
use nix::sys::signal::{self, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use std::collections::HashSet;
use std::ffi::{CString, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Seconds between SIGTERM and SIGKILL for what a tool leaves running.
const GRACE_SECS: u32 = 2;

/// The longest path read from a tool's memory (`PATH_MAX`).
const PATH_MAX: usize = 4096;

/// Signals received and not yet handled, one bit each.
static PENDING: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    if (0..64).contains(&sig) {
        PENDING.fetch_or(1 << sig, Ordering::SeqCst);
    }
}

/// The tracer's command line: `[--exclude DIR]... REPORT -- PROGRAM ARGS...`, or
/// `--probe`.
struct Args {
    report: PathBuf,
    exclude: Vec<Vec<u8>>,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(args: &[OsString]) -> Result<Args, String> {
    let mut exclude = Vec::new();
    let mut i = 0;
    while i < args.len() && args[i] == "--exclude" {
        let d = args.get(i + 1).ok_or("--exclude needs a directory")?;
        exclude.push(normalize(d.as_bytes()));
        i += 2;
    }
    let report = args.get(i).ok_or("no report file")?;
    if args.get(i + 1).is_none_or(|w| w != "--") {
        return Err("expected `--` after the report file".into());
    }
    let program = args.get(i + 2).ok_or("no program")?.clone();
    Ok(Args {
        report: PathBuf::from(report),
        exclude,
        program,
        args: args[i + 3..].to_vec(),
    })
}

/// Runs the tracer with its arguments; see the module docs.
pub fn main(args: &[OsString]) -> i32 {
    if args.len() == 1 && args[0] == "--probe" {
        return match probe() {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{e}");
                1
            }
        };
    }
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("spindle __trace: {e}");
            return 2;
        }
    };
    let (root, observed) = trace(&a);
    let text = observed.render();
    // Written whole or seen as cut: the reader wants the `END` line.
    if let Err(e) = std::fs::write(&a.report, text) {
        eprintln!(
            "spindle: cannot write the trace report {}: {e}",
            a.report.display()
        );
    }
    match root {
        Some(WaitStatus::Exited(_, code)) => code,
        Some(WaitStatus::Signaled(_, sig, _)) => die_of(sig),
        _ => 127,
    }
}

/// Ends the tracer by the signal that ended the tool, so that its caller sees the same
/// ending (no core file: the tool's, if any, is the one that matters).
fn die_of(sig: Signal) -> i32 {
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: setrlimit with a valid pointer to an initialised struct.
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &no_core) };
    // SAFETY: restoring the default action of a signal has no memory effects.
    let _ = unsafe { signal::signal(sig, SigHandler::SigDfl) };
    let mut set = SigSet::empty();
    set.add(sig);
    let _ = set.thread_unblock();
    let _ = signal::raise(sig);
    128 + sig as i32
}

/// What the forked child reports through the pipe (5 bytes: this, then `errno`).
#[repr(u8)]
#[derive(Clone, Copy)]
enum ChildNote {
    /// `exec` failed: the tool could not start.
    Exec = 0,
    /// `PTRACE_TRACEME` failed: the tool runs untraced.
    Ptrace = 1,
    /// The seccomp filter could not be installed: the tool runs, its file system
    /// calls unseen.
    Seccomp = 2,
}

/// The child's side: see the module docs. Only async-signal-safe calls (the parent is
/// single-threaded, but the rule keeps this honest). Where tracing is refused, the tool
/// still runs, and the pipe says it was not followed.
fn child(argv: &[*const libc::c_char], prog: &libc::sock_fprog, pipe_w: libc::c_int) -> ! {
    let note = |what: ChildNote| {
        let e = Errno::last_raw();
        let mut msg = [0u8; 5];
        msg[0] = what as u8;
        msg[1..].copy_from_slice(&e.to_le_bytes());
        // SAFETY: writing a local buffer to a descriptor we own.
        unsafe { libc::write(pipe_w, msg.as_ptr().cast(), msg.len()) };
    };
    // SAFETY: each call below is a plain system call with valid arguments: TRACEME
    // takes none; raise stops us for the tracer; prctl and seccomp read `prog`, which
    // the parent built before forking and which stays alive (we never return).
    unsafe {
        // The Rust runtime of the tracer ignores SIGPIPE, and an ignored signal stays
        // ignored across `exec`: the tool gets the default back, as it would from
        // `std::process::Command` (a `sort` whose reader went away dies quietly).
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        if libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) != 0 {
            note(ChildNote::Ptrace);
        } else {
            libc::raise(libc::SIGSTOP);
            let filtered = libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
                && libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0,
                    prog as *const libc::sock_fprog,
                ) == 0;
            if !filtered {
                note(ChildNote::Seccomp);
            }
        }
        libc::execvp(argv[0], argv.as_ptr());
    }
    note(ChildNote::Exec);
    // SAFETY: leaving the forked child without running destructors.
    unsafe { libc::_exit(127) }
}

/// How the tool started.
enum Started {
    /// Under the tracer, stopped at its self-inflicted SIGSTOP with the options set.
    Traced(Pid),
    /// Untraced (ptrace refused), and already ended as this says.
    Ended(WaitStatus),
}

/// Forks the child that becomes the tool (or the probe); also returns the pipe's read
/// end. `Err` with the report's message when it could not be forked.
fn start(argv: &[CString]) -> Result<(Started, libc::c_int), String> {
    let filter = filter::program();
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("cannot make a pipe: {}", Errno::last()));
    }
    // SAFETY: the tracer is single-threaded (nothing here starts a thread), so the
    // child may run any code; it runs only `child`, which never returns.
    match unsafe { nix::unistd::fork() } {
        Err(e) => Err(format!("cannot fork: {e}")),
        Ok(nix::unistd::ForkResult::Child) => child(&ptrs, &prog, fds[1]),
        Ok(nix::unistd::ForkResult::Parent { child }) => {
            // SAFETY: closing the write end we own; the child keeps its copy.
            unsafe { libc::close(fds[1]) };
            let opts = ptrace::Options::PTRACE_O_TRACESECCOMP
                | ptrace::Options::PTRACE_O_TRACEFORK
                | ptrace::Options::PTRACE_O_TRACEVFORK
                | ptrace::Options::PTRACE_O_TRACECLONE
                | ptrace::Options::PTRACE_O_TRACEEXEC
                | ptrace::Options::PTRACE_O_EXITKILL;
            loop {
                match waitpid(child, Some(WaitPidFlag::__WALL)) {
                    Ok(WaitStatus::Stopped(_, Signal::SIGSTOP)) => break,
                    Ok(s @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => {
                        return Ok((Started::Ended(s), fds[0]));
                    }
                    Err(Errno::EINTR) | Ok(_) => {}
                    Err(e) => return Err(format!("cannot wait for the tool: {e}")),
                }
            }
            if let Err(e) = ptrace::setoptions(child, opts) {
                let _ = signal::kill(child, Signal::SIGKILL);
                let _ = waitpid(child, Some(WaitPidFlag::__WALL));
                return Err(format!("cannot set the tracer's options: {e}"));
            }
            Ok((Started::Traced(child), fds[0]))
        }
    }
}

/// What the child wrote to the pipe before it ended or `exec`ed: why the tool could
/// not start (`Err`), or why it ran unseen (`Ok(Some)`).
fn child_notes(pipe_r: libc::c_int) -> Result<Option<String>, String> {
    let mut buf = [0u8; 15];
    let mut len = 0;
    loop {
        // SAFETY: reading into the rest of a local buffer from a descriptor we own.
        let n = unsafe {
            libc::read(
                pipe_r,
                buf[len..].as_mut_ptr().cast(),
                buf.len().saturating_sub(len),
            )
        };
        if n <= 0 || len + n as usize >= buf.len() {
            len += n.max(0) as usize;
            break;
        }
        len += n as usize;
    }
    // SAFETY: closing the read end we own.
    unsafe { libc::close(pipe_r) };
    let mut unseen = None;
    for msg in buf[..len.min(buf.len())].chunks_exact(5) {
        let errno = i32::from_le_bytes([msg[1], msg[2], msg[3], msg[4]]);
        let err = std::io::Error::from_raw_os_error(errno);
        match msg[0] {
            0 => return Err(err.to_string()),
            1 => {
                unseen = Some(format!(
                    "{}: ptrace is not permitted: {err}",
                    super::UNAVAILABLE
                ))
            }
            _ => {
                unseen = Some(format!(
                    "{}: the seccomp filter cannot be installed: {err}",
                    super::UNAVAILABLE
                ))
            }
        }
    }
    Ok(unseen)
}

/// Checks that tracing works here: a child under the filter makes one file system
/// call, which must stop it for the tracer with the call's number readable.
fn probe() -> Result<(), String> {
    // The child runs `true` found on PATH; any program does, and its first traced
    // call (the dynamic loader's, or `exec`'s own) shows the filter works.
    let argv = [CString::new("true").expect("no NUL")];
    let (started, pipe_r) = start(&argv)?;
    let pid = match started {
        Started::Traced(pid) => pid,
        Started::Ended(_) => {
            return Err(child_notes(pipe_r)
                .map(|n| n.unwrap_or_default())
                .unwrap_or_else(|e| format!("the probe could not start: {e}")));
        }
    };
    // SAFETY: closing the read end we own (the probe reads only a failure to start).
    unsafe { libc::close(pipe_r) };
    ptrace::cont(pid, None).map_err(|e| format!("cannot resume the probe: {e}"))?;
    let mut saw_seccomp = false;
    loop {
        match waitpid(None, Some(WaitPidFlag::__WALL)) {
            Ok(WaitStatus::PtraceEvent(p, _, ev)) if ev == libc::PTRACE_EVENT_SECCOMP => {
                let info = ptrace::syscall_info(p)
                    .map_err(|e| format!("cannot read a traced system call: {e}"))?;
                if info.op != libc::PTRACE_SYSCALL_INFO_SECCOMP {
                    return Err("the kernel did not describe a seccomp stop".into());
                }
                saw_seccomp = true;
                let _ = ptrace::cont(p, None);
            }
            Ok(WaitStatus::PtraceEvent(p, _, _)) | Ok(WaitStatus::Stopped(p, _)) => {
                let _ = ptrace::cont(p, None);
            }
            Ok(WaitStatus::Exited(p, code)) if p == pid => {
                if !saw_seccomp {
                    return Err("the seccomp filter stopped nothing".into());
                }
                return if code == 0 {
                    Ok(())
                } else {
                    Err(format!("the probe exited with status {code}"))
                };
            }
            Ok(WaitStatus::Signaled(p, sig, _)) if p == pid => {
                return Err(format!("the probe was killed by {sig}"));
            }
            Ok(_) => {}
            Err(Errno::EINTR) => {}
            Err(e) => return Err(format!("waiting for the probe: {e}")),
        }
    }
}

/// Runs the tool of `a` to the end of its tree: the root's status and what was seen.
fn trace(a: &Args) -> (Option<WaitStatus>, Observed) {
    let mut t = Tracer {
        observed: Observed::default(),
        exclude: a.exclude.clone(),
    };
    let argv: Result<Vec<CString>, _> = std::iter::once(a.program.clone())
        .chain(a.args.iter().cloned())
        .map(|w| CString::new(w.into_vec()))
        .collect();
    let Ok(argv) = argv else {
        t.observed.cannot_start = Some("an argument contains a NUL byte".into());
        return (None, t.observed);
    };
    // Orphans of the tool become the tracer's children (they are traced anyway).
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    let (root, pipe_r) = match start(&argv) {
        Ok((Started::Traced(root), pipe_r)) => (root, pipe_r),
        Ok((Started::Ended(status), pipe_r)) => {
            // Tracing was refused: the tool ran, unseen.
            t.note_child(pipe_r);
            return (Some(status), t.observed);
        }
        Err(why) => {
            t.observed.cannot_start = Some(why);
            return (None, t.observed);
        }
    };
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::empty(),
        SigSet::empty(),
    );
    for sig in [
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGALRM,
    ] {
        // SAFETY: the handler only sets bits of an atomic (async-signal-safe).
        let _ = unsafe { signal::sigaction(sig, &action) };
    }
    let my_group = nix::unistd::getpgrp();
    let mut live: HashSet<Pid> = [root].into_iter().collect();
    let mut started: HashSet<Pid> = [root].into_iter().collect();
    let mut root_status = None;
    let mut grace_set = false;
    let _ = ptrace::cont(root, None);
    let start_grace = |grace_set: &mut bool| {
        if !*grace_set {
            *grace_set = true;
            // SAFETY: alarm has no memory effects.
            unsafe { libc::alarm(GRACE_SECS) };
        }
    };
    loop {
        let pending = PENDING.swap(0, Ordering::SeqCst);
        for sig in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
            if pending & (1 << sig as i32) != 0 {
                // The group signal reached the tracees in the tracer's group; the
                // others (another group or session) get it from here.
                for &p in &live {
                    if nix::unistd::getpgid(Some(p)).is_ok_and(|g| g != my_group) {
                        let _ = signal::kill(p, sig);
                    }
                }
                start_grace(&mut grace_set);
            }
        }
        if pending & (1 << Signal::SIGALRM as i32) != 0 {
            for &p in &live {
                let _ = signal::kill(p, Signal::SIGKILL);
            }
        }
        let status = match waitpid(None, Some(WaitPidFlag::__WALL)) {
            Ok(s) => s,
            Err(Errno::EINTR) => continue,
            Err(Errno::ECHILD) => break,
            Err(e) => {
                t.observed
                    .mark_untraceable(&format!("the tracer could not wait: {e}"));
                break;
            }
        };
        match status {
            WaitStatus::Exited(p, _) | WaitStatus::Signaled(p, _, _) => {
                live.remove(&p);
                if p == root {
                    root_status = Some(status);
                    if !live.is_empty() {
                        for &q in &live {
                            let _ = signal::kill(q, Signal::SIGTERM);
                        }
                        start_grace(&mut grace_set);
                    }
                }
            }
            WaitStatus::Stopped(p, sig) => {
                if started.insert(p) {
                    // The first stop of a new tracee (auto-attached at its fork).
                    live.insert(p);
                    if sig == Signal::SIGSTOP {
                        let _ = ptrace::cont(p, None);
                        continue;
                    }
                }
                match ptrace::getsiginfo(p) {
                    // A group stop (job control): not supported, so it goes on.
                    Err(Errno::EINVAL) => {
                        let _ = ptrace::cont(p, None);
                    }
                    _ => {
                        let _ = ptrace::cont(p, sig);
                    }
                }
            }
            WaitStatus::PtraceEvent(p, _, ev) => {
                if started.insert(p) {
                    live.insert(p);
                }
                match ev {
                    libc::PTRACE_EVENT_SECCOMP => t.on_syscall(p),
                    libc::PTRACE_EVENT_FORK
                    | libc::PTRACE_EVENT_VFORK
                    | libc::PTRACE_EVENT_CLONE => {
                        if let Ok(new) = ptrace::getevent(p) {
                            live.insert(Pid::from_raw(new as i32));
                        }
                    }
                    libc::PTRACE_EVENT_EXEC => {
                        // A thread that `exec`s takes the thread group's id.
                        if let Ok(former) = ptrace::getevent(p) {
                            let former = Pid::from_raw(former as i32);
                            if former != p {
                                live.remove(&former);
                            }
                        }
                        if let Some(exe) = t.proc_link(p, "exe") {
                            t.input(exe, Input::Exec);
                        }
                    }
                    _ => {}
                }
                let _ = ptrace::cont(p, None);
            }
            _ => {}
        }
    }
    // Every tracee has ended, so every copy of the pipe's write end is closed: the read
    // returns what the child wrote before it `exec`ed or failed to, or nothing.
    t.note_child(pipe_r);
    (root_status, t.observed)
}

/// The tracer's record of what the tree does.
struct Tracer {
    observed: Observed,
    /// Directories never observed (absolute, normalized), besides `/proc`, `/sys`,
    /// `/dev`.
    exclude: Vec<Vec<u8>>,
}

/// A path the tracer met, absolute and normalized, as bytes.
type RawPath = Vec<u8>;

impl Tracer {
    /// Takes in what the child wrote to the pipe: a tool that could not start, or one
    /// that ran unseen.
    fn note_child(&mut self, pipe_r: libc::c_int) {
        match child_notes(pipe_r) {
            Err(why) => self.observed.cannot_start = Some(why),
            Ok(Some(why)) => self.observed.mark_untraceable(&why),
            Ok(None) => {}
        }
    }

    /// A file system call at its entry (the tracee is stopped).
    fn on_syscall(&mut self, pid: Pid) {
        let Ok(info) = ptrace::syscall_info(pid) else {
            self.observed
                .mark_untraceable("the tracer could not read a system call");
            return;
        };
        if info.op != libc::PTRACE_SYSCALL_INFO_SECCOMP {
            return;
        }
        // SAFETY: `op` says the union holds the seccomp variant.
        let sc = unsafe { info.u.seccomp };
        match sc.ret_data {
            filter::DATA_FOREIGN_ARCH => {
                self.observed
                    .mark_untraceable("a 32-bit program (its file accesses are not followed)");
                return;
            }
            filter::DATA_X32 => {
                self.observed
                    .mark_untraceable("an x32 program (its file accesses are not followed)");
                return;
            }
            _ => {}
        }
        let a = sc.args;
        let at = |i: usize| a[i] as i32;
        const CWD: i32 = libc::AT_FDCWD;
        match sc.nr as i64 {
            libc::SYS_open => self.open(pid, CWD, a[0], a[1]),
            libc::SYS_openat => self.open(pid, at(0), a[1], a[2]),
            libc::SYS_openat2 => {
                // `struct open_how` starts with its flags.
                if let Some(b) = read_mem(pid, a[2], 8) {
                    let flags = u64::from_ne_bytes(b.try_into().unwrap_or([0; 8]));
                    self.open(pid, at(0), a[1], flags);
                }
            }
            libc::SYS_creat => self.open(
                pid,
                CWD,
                a[0],
                (libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC) as u64,
            ),
            libc::SYS_stat | libc::SYS_access => self.lookup(pid, CWD, a[0], true),
            libc::SYS_lstat | libc::SYS_readlink => self.lookup(pid, CWD, a[0], false),
            libc::SYS_newfstatat => {
                let flags = a[3] as i32;
                self.lookup_at(pid, at(0), a[1], flags);
            }
            libc::SYS_statx => {
                let flags = a[2] as i32;
                self.lookup_at(pid, at(0), a[1], flags);
            }
            libc::SYS_faccessat => self.lookup(pid, at(0), a[1], true),
            libc::SYS_faccessat2 => self.lookup_at(pid, at(0), a[1], a[3] as i32),
            libc::SYS_readlinkat => self.lookup(pid, at(0), a[1], false),
            libc::SYS_execve => self.exec(pid, CWD, a[0]),
            libc::SYS_execveat if a[4] as i32 & libc::AT_EMPTY_PATH == 0 => {
                self.exec(pid, at(0), a[1]);
            }
            libc::SYS_getdents | libc::SYS_getdents64 => {
                if let Some(dir) = self.proc_link(pid, &format!("fd/{}", at(0))) {
                    self.input(dir, Input::Listed);
                }
            }
            libc::SYS_mkdir => self.create(pid, CWD, a[0]),
            libc::SYS_mkdirat => self.create(pid, at(0), a[1]),
            libc::SYS_mknod => self.create(pid, CWD, a[0]),
            libc::SYS_mknodat => self.create(pid, at(0), a[1]),
            libc::SYS_symlink => self.create(pid, CWD, a[1]),
            libc::SYS_symlinkat => self.create(pid, at(1), a[2]),
            libc::SYS_rmdir | libc::SYS_unlink | libc::SYS_truncate => self.change(pid, CWD, a[0]),
            libc::SYS_unlinkat => self.change(pid, at(0), a[1]),
            libc::SYS_rename => {
                self.change(pid, CWD, a[0]);
                self.create(pid, CWD, a[1]);
            }
            libc::SYS_renameat | libc::SYS_renameat2 => {
                self.change(pid, at(0), a[1]);
                self.create(pid, at(2), a[3]);
            }
            libc::SYS_link => {
                self.lookup(pid, CWD, a[0], false);
                self.create(pid, CWD, a[1]);
            }
            libc::SYS_linkat => {
                if a[4] as i32 & libc::AT_EMPTY_PATH == 0 {
                    self.lookup(pid, at(0), a[1], false);
                }
                self.create(pid, at(2), a[3]);
            }
            libc::SYS_io_uring_setup => self
                .observed
                .mark_untraceable("io_uring (its file operations are not followed)"),
            libc::SYS_open_by_handle_at => self
                .observed
                .mark_untraceable("a file opened by handle (not followed)"),
            _ => {}
        }
    }

    /// `open` and its kin: a read, a lookup, or a change, by the flags.
    fn open(&mut self, pid: Pid, dirfd: i32, ptr: u64, flags: u64) {
        let flags = flags as i32;
        if flags & libc::O_TMPFILE == libc::O_TMPFILE {
            return; // an unnamed file: it has a path only if linked later
        }
        let Some(path) = self.path(pid, dirfd, ptr) else {
            return;
        };
        let follow = flags & libc::O_NOFOLLOW == 0;
        let writes = flags & libc::O_ACCMODE != libc::O_RDONLY
            || flags & (libc::O_CREAT | libc::O_TRUNC) != 0;
        let append = writes && flags & libc::O_APPEND != 0 && flags & libc::O_TRUNC == 0;
        let meta = metadata(&path, follow);
        match meta {
            None if append && flags & libc::O_CREAT != 0 => self.append(path, false),
            None if writes && flags & libc::O_CREAT != 0 => self.write(path, false),
            None => self.input(path, Input::Missing),
            Some(m) if m.is_dir() => self.input(path, Input::Exists),
            Some(_) if append => self.append(path, true),
            Some(_) if writes => self.write(path, true),
            Some(m) if m.is_file() => self.input(path, Input::Read),
            Some(_) => self.input(path, Input::Exists),
        }
    }

    /// A `stat`-like lookup with `*at` flags (`AT_EMPTY_PATH` with an empty path is a
    /// descriptor: nothing to note).
    fn lookup_at(&mut self, pid: Pid, dirfd: i32, ptr: u64, flags: i32) {
        if flags & libc::AT_EMPTY_PATH != 0 && read_cstr(pid, ptr).is_some_and(|p| p.is_empty()) {
            return;
        }
        let follow = flags & libc::AT_SYMLINK_NOFOLLOW == 0;
        self.lookup(pid, dirfd, ptr, follow);
    }

    /// A path looked up: there or not.
    fn lookup(&mut self, pid: Pid, dirfd: i32, ptr: u64, follow: bool) {
        if let Some(path) = self.path(pid, dirfd, ptr) {
            let how = match metadata(&path, follow) {
                Some(_) => Input::Exists,
                None => Input::Missing,
            };
            self.input(path, how);
        }
    }

    /// An `exec` about to happen: the program file it names (missing: a candidate of a
    /// `PATH` search that failed).
    fn exec(&mut self, pid: Pid, dirfd: i32, ptr: u64) {
        if let Some(path) = self.path(pid, dirfd, ptr) {
            let how = match metadata(&path, true) {
                Some(m) if m.is_file() => Input::Exec,
                Some(_) => Input::Exists,
                None => Input::Missing,
            };
            self.input(path, how);
        }
    }

    /// A call that makes a new name (`mkdir`, the target of `rename`, `link`,
    /// `symlink`, `mknod`): a change if nothing is there yet or the call replaces it;
    /// a lookup if it is there and the call will fail (`mkdir -p` of an existing
    /// folder).
    fn create(&mut self, pid: Pid, dirfd: i32, ptr: u64) {
        if let Some(path) = self.path(pid, dirfd, ptr) {
            match std::fs::symlink_metadata(std::ffi::OsStr::from_bytes(&path)) {
                Ok(m) if m.is_dir() => self.input(path, Input::Exists),
                Ok(_) => self.write(path, true),
                Err(_) => self.write(path, false),
            }
        }
    }

    /// A call that changes or removes an existing name (`unlink`, `rmdir`,
    /// `truncate`, the source of `rename`).
    fn change(&mut self, pid: Pid, dirfd: i32, ptr: u64) {
        if let Some(path) = self.path(pid, dirfd, ptr) {
            if std::fs::symlink_metadata(std::ffi::OsStr::from_bytes(&path)).is_ok() {
                self.write(path, true);
            } else {
                self.input(path, Input::Missing);
            }
        }
    }

    fn input(&mut self, path: RawPath, how: Input) {
        if let Some(p) = self.text(path) {
            self.observed.add_input(&p, how);
        }
    }

    fn write(&mut self, path: RawPath, existed: bool) {
        if let Some(p) = self.text(path) {
            self.observed.add_write(&p, existed);
        }
    }

    fn append(&mut self, path: RawPath, existed: bool) {
        if let Some(p) = self.text(path) {
            self.observed.add_append(&p, existed);
        }
    }

    /// A path as report text, unless it is excluded; a path that is not UTF-8 cannot
    /// be recorded, so the call is not.
    fn text(&mut self, path: RawPath) -> Option<String> {
        if excluded(&path, &self.exclude) {
            return None;
        }
        match String::from_utf8(path) {
            Ok(s) => Some(s),
            Err(_) => {
                self.observed.mark_untraceable("a path that is not UTF-8");
                None
            }
        }
    }

    /// The path a call names: read from the tool's memory, joined to the directory
    /// it is relative to, normalized. `None` for an empty or unreadable path (the call
    /// itself then fails).
    fn path(&mut self, pid: Pid, dirfd: i32, ptr: u64) -> Option<RawPath> {
        let raw = read_cstr(pid, ptr)?;
        if raw.is_empty() {
            return None;
        }
        if raw[0] == b'/' {
            return Some(normalize(&raw));
        }
        let base = if dirfd == libc::AT_FDCWD {
            self.proc_link(pid, "cwd")
        } else {
            self.proc_link(pid, &format!("fd/{dirfd}"))
        };
        let Some(mut base) = base else {
            self.observed
                .mark_untraceable("a relative path whose directory could not be read");
            return None;
        };
        base.push(b'/');
        base.extend_from_slice(&raw);
        Some(normalize(&base))
    }

    /// A link in `/proc/PID/` (`cwd`, `exe`, `fd/N`) if it names a path.
    fn proc_link(&self, pid: Pid, link: &str) -> Option<RawPath> {
        let target = std::fs::read_link(format!("/proc/{pid}/{link}")).ok()?;
        let bytes = target.into_os_string().into_vec();
        (bytes.first() == Some(&b'/')).then(|| normalize(&bytes))
    }
}

/// `path`'s metadata (following a final symbolic link when `follow`).
fn metadata(path: &[u8], follow: bool) -> Option<std::fs::Metadata> {
    let p = std::ffi::OsStr::from_bytes(path);
    if follow {
        std::fs::metadata(p).ok()
    } else {
        std::fs::symlink_metadata(p).ok()
    }
}

/// Whether a path is never observed: `/proc`, `/sys`, `/dev`, or below an excluded
/// directory.
fn excluded(path: &[u8], exclude: &[Vec<u8>]) -> bool {
    let under =
        |dir: &[u8]| path.starts_with(dir) && (path.len() == dir.len() || path[dir.len()] == b'/');
    [&b"/proc"[..], b"/sys", b"/dev"].iter().any(|d| under(d))
        || exclude
            .iter()
            .any(|d| !d.is_empty() && d != b"/" && under(d))
}

/// An absolute path with empty and `.` components and a trailing `/` dropped (`..` is
/// kept: it may cross a symbolic link, and the kernel resolves it the same way later).
pub(crate) fn normalize(path: &[u8]) -> RawPath {
    let mut out = Vec::with_capacity(path.len());
    for part in path.split(|b| *b == b'/') {
        if part.is_empty() || part == b"." {
            continue;
        }
        out.push(b'/');
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

/// `len` bytes of the tracee's memory at `addr`.
fn read_mem(pid: Pid, addr: u64, len: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; len];
    let remote = [nix::sys::uio::RemoteIoVec {
        base: addr as usize,
        len,
    }];
    let mut local = [std::io::IoSliceMut::new(&mut buf)];
    match nix::sys::uio::process_vm_readv(pid, &mut local, &remote) {
        Ok(n) if n == len => Some(buf),
        _ => None,
    }
}

/// The NUL-terminated string at `addr` in the tracee's memory (at most `PATH_MAX`
/// bytes), read a page at a time so that a string ending just before an unmapped page
/// is read whole.
fn read_cstr(pid: Pid, addr: u64) -> Option<Vec<u8>> {
    if addr == 0 {
        return None;
    }
    const PAGE: u64 = 4096;
    let mut out = Vec::new();
    let mut at = addr;
    while out.len() < PATH_MAX {
        let to_page_end = (PAGE - at % PAGE) as usize;
        let chunk = read_mem(pid, at, to_page_end)?;
        if let Some(end) = chunk.iter().position(|b| *b == 0) {
            out.extend_from_slice(&chunk[..end]);
            return Some(out);
        }
        out.extend_from_slice(&chunk);
        at += to_page_end as u64;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_and_excluded() {
        assert_eq!(normalize(b"/a//b/./c/"), b"/a/b/c");
        assert_eq!(normalize(b"/a/../b"), b"/a/../b");
        assert_eq!(normalize(b"/"), b"/");
        let store = normalize(b"/w/.spindle");
        assert!(excluded(b"/proc/self/maps", &[]));
        assert!(excluded(b"/dev", &[]));
        assert!(!excluded(b"/device", &[]));
        assert!(excluded(
            b"/w/.spindle/results.log",
            std::slice::from_ref(&store)
        ));
        assert!(!excluded(b"/w/.spindlex", &[store]));
        assert!(!excluded(b"/etc/passwd", &[b"/".to_vec()]));
    }
}
