//! The lifetime of the processes Spindle starts (LANGUAGE.md 7.4): nothing started is
//! left running when Spindle exits, for any reason.
//!
//! Every process is started through [`spawn`], in a process group of its own (its pid is
//! the group's id), and recorded in one global table before anyone else can look. A
//! group is stopped by sending SIGTERM to the whole group, then SIGKILL two seconds
//! later ([`GRACE`]).
//!
//! Reaping is the table's job, never the caller's: the thread that waits for a process
//! learns its exit status without reaping it (`waitid` with `WNOWAIT`) and reports it
//! with [`exited`]. While the group's leader is an unreaped zombie its pid, and so the
//! group id, cannot be reused, so signalling the group can never hit an unrelated
//! process. At that point the group gets SIGTERM too: a tool's background processes
//! that closed their output and stayed behind do not outlive its call. A reaper thread
//! then reaps the leader as soon as no live process is left in the group (checked in
//! `/proc`, every `SCAN_EVERY` (100 ms) or less often on a machine with so many processes
//! that reading `/proc` takes long), or sends SIGKILL to the group when the grace
//! period ends and reaps it then.
//!
//! [`shutdown_all`] is what every exit path calls: it stops every group still recorded
//! and returns once all are reaped.
//!
//! A process can leave its group (`setsid`, a double fork). Where processes run under
//! the file-access tracer ([`crate::external::fstrace`]), the tracer follows every
//! descendant and stops them all. Where they do not, Spindle is a child subreaper
//! ([`install_signal_handlers`] makes it one): a descendant whose parent dies becomes
//! Spindle's child, and [`shutdown_all`] stops and reaps every such child too, whatever
//! its session. [`install_signal_handlers`] makes SIGTERM, SIGHUP and
//! SIGINT do the same before Spindle dies of the signal; at the REPL, SIGINT calls the
//! hook set with [`set_interrupt_hook`] instead (it interrupts the evaluation only).

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid, waitpid};
use nix::unistd::Pid;
use std::collections::{HashMap, HashSet};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// How long a stopped group has between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// How often the reaper looks for finished groups to reap.
const SCAN_EVERY: Duration = Duration::from_millis(100);

/// The reaper spends at most about 1/`SCAN_SHARE` of its time reading `/proc`.
const SCAN_SHARE: u32 = 20;

/// How long [`shutdown_all`] waits beyond the grace period for killed processes to be
/// reapable (a process in uninterruptible sleep cannot be hurried).
const SHUTDOWN_EXTRA: Duration = Duration::from_secs(3);

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this status.
    Code(i32),
    /// It was killed by this signal.
    Signal(i32),
    /// It was reaped by [`shutdown_all`] before its status could be read.
    Unknown,
}

/// One recorded process group.
#[derive(Debug)]
struct Group {
    /// Whether its leader has exited (a zombie we have not reaped).
    exited: bool,
    /// When SIGKILL is due (set once SIGTERM has been sent).
    kill_at: Option<Instant>,
    /// Whether SIGKILL has been sent.
    killed: bool,
}

/// The global table of process groups.
#[derive(Default)]
struct Table {
    /// Set by [`shutdown_all`]: no process starts after it.
    closing: bool,
    /// By leader pid (which is the group id).
    groups: HashMap<i32, Group>,
}

/// The table, the condition the reaper waits on, and the interrupt hook.
struct Global {
    table: Mutex<Table>,
    wake: Condvar,
    reaper_started: OnceLock<()>,
}

fn global() -> &'static Global {
    static G: OnceLock<Global> = OnceLock::new();
    G.get_or_init(|| Global {
        table: Mutex::new(Table::default()),
        wake: Condvar::new(),
        reaper_started: OnceLock::new(),
    })
}

/// The table, even if a thread panicked while holding it (its data stays consistent:
/// every change is a single insert, update or remove).
fn lock() -> MutexGuard<'static, Table> {
    global()
        .table
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Why a process was not started.
#[derive(Debug)]
pub enum SpawnError {
    /// Spindle is stopping ([`shutdown_all`] has begun).
    Stopping,
    /// The OS refused (no such program, not executable, ...).
    Io(std::io::Error),
}

/// Starts `cmd` in a new process group and records it, atomically with respect to
/// [`shutdown_all`]: a process is either recorded (and so stopped at exit) or not
/// started at all. The caller must eventually report its exit with [`exited`] (after
/// [`wait_exit`]); it must never reap it itself.
pub fn spawn(cmd: &mut Command) -> Result<Child, SpawnError> {
    cmd.process_group(0);
    let mut table = lock();
    if table.closing {
        return Err(SpawnError::Stopping);
    }
    let child = cmd.spawn().map_err(SpawnError::Io)?;
    table.groups.insert(
        child.id() as i32,
        Group {
            exited: false,
            kill_at: None,
            killed: false,
        },
    );
    Ok(child)
}

/// Blocks until the process `pid` (started by [`spawn`]) has exited, and says how,
/// without reaping it.
pub fn wait_exit(pid: u32) -> Exit {
    let pid = Pid::from_raw(pid as i32);
    loop {
        match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT) {
            Ok(WaitStatus::Exited(_, code)) => return Exit::Code(code),
            Ok(WaitStatus::Signaled(_, sig, _)) => return Exit::Signal(sig as i32),
            Err(Errno::EINTR) => continue,
            // Reaped by `shutdown_all` (ECHILD), or a status we did not ask for.
            _ => return Exit::Unknown,
        }
    }
}

/// Reports that the leader of group `pid` has exited (its status was read with
/// [`wait_exit`]). Whatever is left in its group gets SIGTERM, and the reaper reaps
/// the leader once the group is empty (or SIGKILLs it after [`GRACE`]).
pub fn exited(pid: u32) {
    let mut table = lock();
    let Some(g) = table.groups.get_mut(&(pid as i32)) else {
        return; // already reaped by `shutdown_all`
    };
    g.exited = true;
    if g.kill_at.is_none() {
        // The leader is a zombie we hold, so the group id is still ours.
        let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGTERM);
        g.kill_at = Some(Instant::now() + GRACE);
    }
    drop(table);
    wake_reaper();
}

/// Stops the group of `pid` (a call no longer needed): SIGTERM now, SIGKILL after
/// [`GRACE`]. The thread waiting for the process sees it exit and reports it with
/// [`exited`] as usual.
pub fn stop(pid: u32) {
    let mut table = lock();
    let Some(g) = table.groups.get_mut(&(pid as i32)) else {
        return;
    };
    if g.kill_at.is_none() {
        let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGTERM);
        g.kill_at = Some(Instant::now() + GRACE);
    }
    drop(table);
    wake_reaper();
}

/// How many process groups are recorded: running, being stopped, or finished and not
/// yet reaped. Zero once [`shutdown_all`] has returned.
pub fn live_groups() -> usize {
    lock().groups.len()
}

/// Whether [`shutdown_all`] has begun (no process starts any more).
pub fn is_closing() -> bool {
    lock().closing
}

fn wake_reaper() {
    let g = global();
    g.reaper_started.get_or_init(|| {
        // If the thread cannot be started, groups are still stopped and reaped by
        // `shutdown_all` at exit.
        let _ = std::thread::Builder::new()
            .name("spindle-reaper".into())
            .stack_size(256 * 1024)
            .spawn(reaper);
    });
    g.wake.notify_all();
}

/// The process group ids that have a live (not zombie) member, from `/proc`; `None`
/// where there is no `/proc` to read.
fn live_pgids() -> Option<HashSet<i32>> {
    let dir = std::fs::read_dir("/proc").ok()?;
    let mut live = HashSet::new();
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue; // gone meanwhile
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let mut fields = stat[close + 1..].split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let _ppid = fields.next();
        let Some(pgrp) = fields.next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        if state != "Z" && state != "X" {
            live.insert(pgrp);
        }
    }
    Some(live)
}

/// Reaps the exited leader `pid`. Called with the table locked and the entry removed,
/// so that nobody reaps it twice.
fn reap(pid: i32) {
    loop {
        match waitpid(Pid::from_raw(pid), None) {
            Err(Errno::EINTR) => continue,
            _ => return,
        }
    }
}

/// One pass over the table: reaps exited leaders whose groups are empty, and sends
/// SIGKILL to groups whose grace has run out (reaping those whose leader has exited).
/// `live` is the result of [`live_pgids`] if it was read. Returns when to look again.
fn pass(
    table: &mut Table,
    live: Option<&HashSet<i32>>,
    now: Instant,
    scan_every: Duration,
) -> Option<Instant> {
    let mut done = Vec::new();
    let mut next: Option<Instant> = None;
    for (&pid, g) in table.groups.iter_mut() {
        if g.exited && live.is_some_and(|l| !l.contains(&pid)) {
            done.push(pid);
            continue;
        }
        if let Some(at) = g.kill_at {
            if at <= now {
                if !g.killed {
                    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
                    g.killed = true;
                }
                if g.exited {
                    done.push(pid);
                    continue;
                }
            } else {
                next = Some(next.map_or(at, |n| n.min(at)));
            }
        }
        if g.exited {
            let scan = now + scan_every;
            next = Some(next.map_or(scan, |n| n.min(scan)));
        }
    }
    for pid in done {
        table.groups.remove(&pid);
        // A group found empty may have gained a process since the scan only through a
        // member alive at the scan, which it would have shown; the SIGKILL is for the
        // group whose grace ran out, and harmless otherwise.
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        reap(pid);
    }
    next
}

/// The reaper thread: sleeps until a group needs attention, then makes a [`pass`].
fn reaper() {
    let g = global();
    let mut table = lock();
    let mut scan_every = SCAN_EVERY;
    loop {
        let needs_scan = table.groups.values().any(|g| g.exited);
        let live = if needs_scan {
            // Read `/proc` without holding the table.
            drop(table);
            let started = Instant::now();
            let live = live_pgids();
            scan_every = SCAN_EVERY.max(started.elapsed() * SCAN_SHARE);
            table = lock();
            live
        } else {
            None
        };
        let now = Instant::now();
        let next = pass(&mut table, live.as_ref(), now, scan_every);
        table = match next {
            None => g.wake.wait(table).unwrap_or_else(|p| p.into_inner()),
            Some(at) => match g
                .wake
                .wait_timeout(table, at.saturating_duration_since(now))
            {
                Ok((t, _)) => t,
                Err(p) => p.into_inner().0,
            },
        };
    }
}

/// What other executors must stop before Spindle exits (a cluster's queued and
/// running jobs), by executor name: each registers once ([`on_shutdown`]).
static CANCELLERS: Mutex<Vec<Canceller>> = Mutex::new(Vec::new());

/// An executor's name and what stops its work.
type Canceller = (&'static str, fn());

fn cancellers() -> MutexGuard<'static, Vec<Canceller>> {
    CANCELLERS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Registers `cancel` to run first in [`shutdown_all`]: an executor that starts work
/// outside this process table (jobs on a cluster) stops it there. Registering the
/// same `name` again changes nothing.
pub fn on_shutdown(name: &'static str, cancel: fn()) {
    let mut c = cancellers();
    if !c.iter().any(|&(n, _)| n == name) {
        c.push((name, cancel));
    }
}

/// Stops every recorded process group (SIGTERM, SIGKILL after [`GRACE`]) and returns
/// once all are reaped, or a few seconds after that for processes that cannot die
/// (uninterruptible sleep). From then on no process starts. Every exit path of the
/// binary calls this; it is safe to call from several threads and more than once.
pub fn shutdown_all() {
    // Nothing starts from now on; then other executors' work (a cluster's jobs: a
    // submission under way finishes first and is cancelled too), and the local
    // groups.
    lock().closing = true;
    let cancellers: Vec<fn()> = cancellers().iter().map(|&(_, f)| f).collect();
    for cancel in cancellers {
        cancel();
    }
    let start = Instant::now();
    {
        let mut table = lock();
        table.closing = true;
        for (&pid, g) in table.groups.iter_mut() {
            if g.kill_at.is_none() {
                let _ = killpg(Pid::from_raw(pid), Signal::SIGTERM);
                g.kill_at = Some(start + GRACE);
            }
        }
    }
    let give_up = start + GRACE + SHUTDOWN_EXTRA;
    stop_groups(give_up);
    stop_adopted(give_up);
}

/// The children of Spindle that no table entry stands for: descendants of its tools
/// that left their group and whose parents died (Spindle is a subreaper).
fn adopted_children() -> Vec<i32> {
    let table: HashSet<i32> = lock().groups.keys().copied().collect();
    let children = own_children().unwrap_or_else(children_from_every_process);
    children
        .into_iter()
        .filter(|pid| !table.contains(pid))
        .collect()
}

/// Spindle's children, from each of its threads' `/proc/self/task/TID/children`
/// (a few small files, where a scan of `/proc` reads one file per process on the
/// machine: milliseconds at every exit, more on a busy login node); `None` where the
/// kernel does not provide those files.
fn own_children() -> Option<Vec<i32>> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    let mut out = Vec::new();
    for task in tasks.flatten() {
        let Ok(list) = std::fs::read_to_string(task.path().join("children")) else {
            // A thread that ended meanwhile has no file; a kernel without the
            // files has none for any thread.
            if task.path().exists() {
                return None;
            }
            continue;
        };
        out.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    Some(out)
}

/// Spindle's children, from the `stat` of every process in `/proc` (where
/// [`own_children`] cannot tell).
fn children_from_every_process() -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let mut fields = stat[close + 1..].split_whitespace();
        let _state = fields.next();
        let ppid = fields.next().and_then(|p| p.parse::<i32>().ok());
        if ppid == Some(me) {
            out.push(pid);
        }
    }
    out
}

/// Stops and reaps Spindle's adopted children (see [`adopted_children`]): SIGTERM,
/// SIGKILL after [`GRACE`], until none is left or `give_up`.
fn stop_adopted(give_up: Instant) {
    let Some(first) = Some(adopted_children()).filter(|c| !c.is_empty()) else {
        return;
    };
    for &pid in &first {
        let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGTERM);
    }
    let kill_at = Instant::now() + GRACE;
    loop {
        let now = Instant::now();
        let left = adopted_children();
        for &pid in &left {
            if now >= kill_at {
                let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
            // A zombie is reaped; a live one is not waited for here.
            let _ = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
        }
        if left.is_empty() || now >= give_up.max(kill_at + SHUTDOWN_EXTRA) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Stops every recorded group and reaps their leaders (see [`shutdown_all`]).
fn stop_groups(give_up: Instant) {
    if lock().groups.is_empty() {
        // No process group to stop or reap: no need to read `/proc`.
        return;
    }
    loop {
        let live = live_pgids();
        let mut table = lock();
        // Leaders that exited without their waiting thread having reported it yet.
        for (&pid, g) in table.groups.iter_mut() {
            if !g.exited {
                let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT | WaitPidFlag::WNOHANG;
                match waitid(Id::Pid(Pid::from_raw(pid)), flags) {
                    Ok(WaitStatus::Exited(..)) | Ok(WaitStatus::Signaled(..)) => g.exited = true,
                    // Not our child any more: nothing to reap.
                    Err(Errno::ECHILD) => g.exited = true,
                    _ => {}
                }
            }
        }
        let now = Instant::now();
        pass(&mut table, live.as_ref(), now, SCAN_EVERY);
        if table.groups.is_empty() || now >= give_up {
            return;
        }
        drop(table);
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What SIGINT does while a hook is set (the REPL: interrupt the evaluation only).
type Hook = Arc<dyn Fn() + Send + Sync>;

fn hook_slot() -> &'static Mutex<Option<Hook>> {
    static HOOK: OnceLock<Mutex<Option<Hook>>> = OnceLock::new();
    HOOK.get_or_init(|| Mutex::new(None))
}

/// Makes SIGINT call `hook` instead of stopping Spindle (the REPL sets a flag that
/// interrupts the evaluation); `None` restores the default: SIGINT stops every process
/// group and ends Spindle, like SIGTERM.
pub fn set_interrupt_hook(hook: Option<Hook>) {
    *hook_slot().lock().unwrap_or_else(|p| p.into_inner()) = hook;
}

/// Installs the handling of SIGTERM, SIGHUP and SIGINT: a thread that, on one of them,
/// calls [`shutdown_all`] and then ends Spindle by the same signal (so the parent sees
/// how it ended); SIGINT calls the interrupt hook instead when one is set. Also makes
/// Spindle a child subreaper. Calling it again does nothing. The binary calls it first
/// thing.
pub fn install_signal_handlers() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    let r = INSTALLED.get_or_init(|| {
        become_subreaper();
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            .map_err(|e| e.to_string())?;
        std::thread::Builder::new()
            .name("spindle-signals".into())
            .stack_size(256 * 1024)
            .spawn(move || {
                for sig in signals.forever() {
                    if sig == SIGINT {
                        let hook = hook_slot()
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .clone();
                        if let Some(hook) = hook {
                            hook();
                            continue;
                        }
                    }
                    for hook in signal_hooks() {
                        hook();
                    }
                    shutdown_all();
                    // Dies of the signal; if that fails, exits with the shell's status.
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(128 + sig);
                }
            })
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    r.clone().map_err(std::io::Error::other)
}

/// Work to finish when a signal stops Spindle, before it exits (the result store's
/// last writes); each function is kept once.
pub fn at_signal(f: fn()) {
    let mut hooks = SIGNAL_HOOKS.lock().unwrap_or_else(|p| p.into_inner());
    if !hooks.contains(&f) {
        hooks.push(f);
    }
}

static SIGNAL_HOOKS: Mutex<Vec<fn()>> = Mutex::new(Vec::new());

fn signal_hooks() -> Vec<fn()> {
    SIGNAL_HOOKS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

/// Makes Spindle a child subreaper (Linux): orphaned descendants of its tools become
/// its children, so [`shutdown_all`] can stop them whatever their session.
fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        nix::libc::prctl(nix::libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Stops every process group and ends Spindle with `code`: the one way out of the
/// binary besides returning from `main` after [`shutdown_all`].
pub fn exit(code: i32) -> ! {
    shutdown_all();
    std::process::exit(code)
}

/// The name of signal `n` (`SIGKILL`), or `signal n`.
pub fn signal_name(n: i32) -> String {
    match Signal::try_from(n) {
        Ok(s) => s.as_str().to_string(),
        Err(_) => format!("signal {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_have_names() {
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(1000), "signal 1000");
    }

    #[test]
    fn proc_shows_this_process_group_live() {
        let live = live_pgids().expect("/proc on Linux");
        let own = nix::unistd::getpgrp().as_raw();
        assert!(live.contains(&own));
    }

    #[test]
    // The child is reaped by the table's reaper, as every process started by `spawn`.
    #[allow(clippy::zombie_processes)]
    fn a_stopped_group_is_reaped_with_its_background_processes() {
        // `sh` starts a `sleep` in the background of its group and waits: stopping the
        // group must end both, and the reaper must reap the leader.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & wait"]);
        cmd.stdout(std::process::Stdio::null());
        let child = spawn(&mut cmd).expect("sh starts");
        let pid = child.id();
        std::thread::sleep(Duration::from_millis(100));
        stop(pid);
        assert!(matches!(wait_exit(pid), Exit::Signal(15)));
        exited(pid);
        let deadline = Instant::now() + Duration::from_secs(5);
        while lock().groups.contains_key(&(pid as i32)) {
            assert!(Instant::now() < deadline, "group {pid} never reaped");
            std::thread::sleep(Duration::from_millis(20));
        }
        let live = live_pgids().expect("/proc");
        assert!(!live.contains(&(pid as i32)), "a member of {pid} survived");
    }
}
