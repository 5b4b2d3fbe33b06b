//! The Slurm executor (LANGUAGE.md 12, DESIGN.md 6): each process call (`run`,
//! `runResult`, `shell`) becomes a task of a Slurm batch job; waiting calls and the
//! evaluation stay on this machine.
//!
//! # How a call runs
//!
//! - Calls submitted together (in one burst of the scheduler, before it next waits) go
//!   to Slurm as **one job array** (`sbatch --parsable --array=0-N`), at most
//!   [`MAX_ARRAY`] tasks each, with the caller's working directory (`--chdir`) and the
//!   options of `--slurm-options` (split as a shell would).
//! - Each task has a folder in the run's directory under the result store
//!   (`runs/<run>/<array>/<task>/`): `cmd.sh` (the program and its arguments, each
//!   quoted as a shell would), `in` (standard input, `runResult`), and what the wrapper
//!   writes: `out`, `err`, and last `code` (the exit status, written to a temporary name
//!   and renamed: **its appearance is the completion signal**).
//! - Completion is seen by looking for `code` files (every [`FILE_POLL`]); the queue is
//!   looked at with **one** `squeue -h -t all -o '%i %t' --me` per [`QUEUE_POLL`] for all
//!   jobs (never one per job): it tells which tasks started, and which left the queue
//!   or ended without a `code` file, which is a failure with a clear message
//!   ([`CallErrorKind::Lost`]), never a success.
//! - Results come back exactly as from a local process (LANGUAGE.md 7.4): standard
//!   output, standard error (passed through on success), the exit status, and failures
//!   that name the call as a shell would quote it, plus the job id.
//! - `--jobs N` limits tasks queued or running at once; more wait here.
//! - Cancelling a call cancels its task (`scancel JOB_TASK`); [`Slurm::shutdown`], and
//!   every exit path of Spindle through [`cancel_all`] (registered with
//!   [`lifetime::on_shutdown`](crate::external::lifetime::on_shutdown) when the
//!   executor is made, so that `shutdown_all` runs it), cancels every
//!   job still queued or running and waits until `squeue` no longer lists them.

use crate::external::exec::{Completion, Ticket};
use crate::external::request::{
    CallError, CallErrorKind, ExitPolicy, ProcessRequest, Reply, Request, shell_quote, stderr_tail,
};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// Most tasks in one job array (Slurm's default `MaxArraySize` is 1001).
pub const MAX_ARRAY: usize = 1000;

/// How often finished tasks' `code` files are looked for.
pub const FILE_POLL: Duration = Duration::from_millis(100);

/// How often the queue is looked at (one `squeue` for all jobs).
pub const QUEUE_POLL: Duration = Duration::from_millis(500);

/// A task that is neither in the queue nor finished is lost after this long (the
/// queue may lag a job's end by a moment).
const LOST_AFTER: Duration = Duration::from_secs(3);

/// Calls submitted within this long of each other go into one job array (the
/// scheduler's helpers hand over a burst of ready calls over a few milliseconds).
const SETTLE: Duration = Duration::from_millis(40);

/// A call waits at most this long for others to join its array.
const MAX_SETTLE: Duration = Duration::from_millis(300);

/// How Slurm is used (`--executor slurm`, `--slurm-options`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlurmConfig {
    /// Options added to every `sbatch` (split as a shell would): `--partition=debug
    /// --time=10`.
    pub options: String,
    /// How often the queue is looked at (`None`: [`QUEUE_POLL`]).
    pub poll: Option<Duration>,
}

/// Array job ids submitted by this process and not yet known to be over: what
/// [`cancel_all`] cancels.
static LIVE_JOBS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn live_jobs() -> std::sync::MutexGuard<'static, Vec<String>> {
    LIVE_JOBS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether Slurm's commands are here and configured (`sbatch` on `PATH` and
/// `SLURM_CONF` set, or a configuration in its usual place).
pub fn available() -> bool {
    let conf =
        std::env::var_os("SLURM_CONF").is_some() || Path::new("/etc/slurm/slurm.conf").exists();
    conf && crate::external::store::key::resolve_program("sbatch").is_some()
}

/// Cancels every job this process submitted that may still be queued or running, and
/// waits (up to 30 s) until `squeue` lists none of them (pending, running or
/// completing); jobs still there after 2 s get SIGKILL on all their steps. Safe to
/// call more than once and from any thread.
pub fn cancel_all() {
    let ids: Vec<String> = std::mem::take(&mut *live_jobs());
    if ids.is_empty() {
        return;
    }
    let _ = Command::new("scancel").args(&ids).output();
    let start = Instant::now();
    let until = start + Duration::from_secs(30);
    let mut killed = false;
    while Instant::now() < until {
        if !killed && start.elapsed() > Duration::from_secs(2) {
            killed = true;
            let _ = Command::new("scancel")
                .args(["--signal=KILL", "--full"])
                .args(&ids)
                .output();
        }
        let Ok(out) = Command::new("squeue")
            .args(["-h", "-o", "%i %t", "--me"])
            .output()
        else {
            return;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let left = text.lines().any(|l| {
            let id = l.split_whitespace().next().unwrap_or("");
            let array = id.split('_').next().unwrap_or("");
            ids.iter().any(|i| i == array)
        });
        if !left {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One submitted task.
#[derive(Debug)]
struct Task {
    /// `12` (the array job) and its index.
    array: String,
    index: usize,
    dir: PathBuf,
    req: ProcessRequest,
    started: bool,
    /// When it was first seen neither queued nor finished.
    missing_since: Option<Instant>,
    /// Its last state in the queue.
    state: String,
}

impl Task {
    fn job_id(&self) -> String {
        format!("{}_{}", self.array, self.index)
    }
}

/// The Slurm executor: see the module documentation.
#[derive(Debug)]
pub struct Slurm {
    config: SlurmConfig,
    options: Vec<String>,
    dir: PathBuf,
    jobs: usize,
    timeout: Option<Duration>,
    queued: VecDeque<(Ticket, ProcessRequest)>,
    /// When the last call was queued, and the first of those waiting.
    last_queued: Instant,
    first_queued: Instant,
    tasks: HashMap<Ticket, Task>,
    arrays: usize,
    next_file_poll: Instant,
    next_queue_poll: Instant,
    started: Vec<(Ticket, SystemTime)>,
    started_at: HashMap<Ticket, Instant>,
    ready: Vec<Completion>,
}

/// The wrapper every array task runs (after a line setting `base`, the array's
/// folder): its folder from the task index, the command with its input and output
/// files, the exit status written last.
const WRAPPER: &str = r#"d="$base/$SLURM_ARRAY_TASK_ID"
if [ -f "$d/in" ]; then i="$d/in"; else i=/dev/null; fi
sh "$d/cmd.sh" <"$i" >"$d/out" 2>"$d/err"
c=$?
printf '%s\n' "$c" >"$d/code.tmp" && mv "$d/code.tmp" "$d/code"
"#;

impl Slurm {
    /// A Slurm executor keeping its files in a new folder under `runs` (inside the
    /// result store), with at most `jobs` tasks queued or running, and a call timeout.
    pub fn new(
        config: SlurmConfig,
        runs: &Path,
        jobs: usize,
        timeout: Option<Duration>,
    ) -> std::io::Result<Slurm> {
        let options = shlex::split(&config.options).ok_or_else(|| {
            std::io::Error::other(format!(
                "--slurm-options: cannot split `{}` into words",
                config.options
            ))
        })?;
        if crate::external::store::key::resolve_program("sbatch").is_none() {
            return Err(std::io::Error::other(
                "--executor slurm: `sbatch` is not on PATH (is Slurm installed here?)",
            ));
        }
        let stamp = crate::external::store::files::now_ns() / 1_000_000;
        let dir = runs.join(format!("{stamp}-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        // The run folder must be absolute: jobs start in the caller's directory, but
        // the wrapper finds its files by this path.
        let dir = crate::external::store::files::absolute(&dir);
        let now = Instant::now();
        Ok(Slurm {
            config,
            options,
            dir,
            jobs: jobs.max(1),
            timeout,
            queued: VecDeque::new(),
            last_queued: now,
            first_queued: now,
            tasks: HashMap::new(),
            arrays: 0,
            next_file_poll: now,
            next_queue_poll: now,
            started: Vec::new(),
            started_at: HashMap::new(),
            ready: Vec::new(),
        })
    }

    /// The run's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Asks for a process call. It is submitted at the next [`poll`](Self::poll), with
    /// every other call submitted before it, as one job array.
    pub fn submit(&mut self, ticket: Ticket, req: ProcessRequest) {
        let now = Instant::now();
        if self.queued.is_empty() {
            self.first_queued = now;
        }
        self.queued.push_back((ticket, req));
        self.last_queued = now;
        self.next_file_poll = self.next_file_poll.min(now + SETTLE);
    }

    /// The call is no longer needed: its task is cancelled (or it is dropped before
    /// submission). It is never reported.
    pub fn cancel(&mut self, ticket: Ticket) {
        self.queued.retain(|(t, _)| *t != ticket);
        self.ready.retain(|(t, _)| *t != ticket);
        if let Some(task) = self.tasks.remove(&ticket) {
            let _ = Command::new("scancel").arg(task.job_id()).output();
        }
        self.started_at.remove(&ticket);
    }

    /// When [`poll`](Self::poll) next has something to do.
    pub fn next_poll(&self) -> Instant {
        if !self.ready.is_empty() {
            return Instant::now();
        }
        let mut next = self.next_file_poll.min(self.next_queue_poll);
        if !self.queued.is_empty() && self.tasks.len() < self.jobs {
            next = next.min((self.last_queued + SETTLE).min(self.first_queued + MAX_SETTLE));
        }
        next
    }

    /// Submits what waits, looks for finished tasks, and (when due) at the queue;
    /// returns the calls that ended.
    pub fn poll(&mut self) -> Vec<Completion> {
        let now = Instant::now();
        self.submit_queued();
        if now >= self.next_file_poll {
            self.next_file_poll = now + FILE_POLL;
            self.collect_finished();
        }
        if now >= self.next_queue_poll && !self.tasks.is_empty() {
            self.next_queue_poll = now + self.config.poll.unwrap_or(QUEUE_POLL);
            self.look_at_queue();
            // What ended just before the queue was read.
            self.collect_finished();
        }
        self.enforce_timeout();
        std::mem::take(&mut self.ready)
    }

    /// Tasks that started running since the last call, with when.
    pub fn take_started(&mut self) -> Vec<(Ticket, SystemTime)> {
        std::mem::take(&mut self.started)
    }

    /// Calls submitted and not yet reported.
    pub fn in_flight(&self) -> usize {
        self.queued.len() + self.tasks.len() + self.ready.len()
    }

    /// Cancels every task (one `scancel` for all) and waits until the queue no longer
    /// lists them.
    pub fn shutdown(&mut self) {
        self.queued.clear();
        self.ready.clear();
        self.tasks.clear();
        self.started_at.clear();
        cancel_all();
    }

    fn submit_queued(&mut self) {
        let now = Instant::now();
        let settled = now >= self.last_queued + SETTLE
            || now >= self.first_queued + MAX_SETTLE
            || self.queued.len() >= MAX_ARRAY;
        if !settled {
            return;
        }
        while !self.queued.is_empty() && self.tasks.len() < self.jobs {
            if crate::external::lifetime::is_closing() {
                for (t, req) in self.queued.drain(..) {
                    let e = CallError::new(
                        CallErrorKind::Stopping,
                        format!("`{}` not submitted: Spindle is stopping", req.shown()),
                    );
                    self.ready.push((t, Err(e)));
                }
                return;
            }
            let room = (self.jobs - self.tasks.len()).min(MAX_ARRAY);
            let n = room.min(self.queued.len());
            let batch: Vec<(Ticket, ProcessRequest)> = self.queued.drain(..n).collect();
            self.submit_array(batch);
        }
    }

    /// Writes the tasks' folders and submits them as one job array.
    fn submit_array(&mut self, batch: Vec<(Ticket, ProcessRequest)>) {
        let array_dir = self.dir.join(format!("a{}", self.arrays));
        self.arrays += 1;
        let fail_all =
            |batch: Vec<(Ticket, ProcessRequest)>, why: String, ready: &mut Vec<Completion>| {
                for (t, req) in batch {
                    let e = CallError::new(
                        CallErrorKind::CannotStart,
                        format!("`{}` cannot be submitted to Slurm: {why}", req.shown()),
                    );
                    ready.push((t, Err(e)));
                }
            };
        let written = (|| -> std::io::Result<()> {
            std::fs::create_dir_all(&array_dir)?;
            let base = shell_quote(&array_dir.to_string_lossy());
            std::fs::write(
                array_dir.join("wrapper.sh"),
                format!("#!/bin/sh\nbase={base}\n{WRAPPER}"),
            )?;
            for (i, (_, req)) in batch.iter().enumerate() {
                let d = array_dir.join(i.to_string());
                std::fs::create_dir_all(&d)?;
                let mut cmd = String::from("exec ");
                // A call the store records runs under the file-access tracer there too
                // (the `spindle` binary, by its path: `/proc/self/exe` is this process).
                if let Some(spec) = &req.trace {
                    let tracer = if spec.tracer == Path::new("/proc/self/exe") {
                        std::env::current_exe()?
                    } else {
                        spec.tracer.clone()
                    };
                    cmd.push_str(&shell_quote(&tracer.to_string_lossy()));
                    for a in spec.tracer_args() {
                        cmd.push(' ');
                        cmd.push_str(&shell_quote(&a.to_string_lossy()));
                    }
                    cmd.push(' ');
                }
                cmd.push_str(&shell_quote(&req.program));
                for a in &req.args {
                    cmd.push(' ');
                    cmd.push_str(&shell_quote(a));
                }
                cmd.push('\n');
                std::fs::write(d.join("cmd.sh"), cmd)?;
                if let Some(input) = &req.stdin
                    && !input.is_empty()
                {
                    std::fs::write(d.join("in"), input)?;
                }
            }
            Ok(())
        })();
        if let Err(e) = written {
            fail_all(
                batch,
                format!("cannot write {}: {e}", array_dir.display()),
                &mut self.ready,
            );
            return;
        }
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let log = array_dir.join("slurm-%a.log");
        // Held while submitting: `cancel_all` then waits for the id and cancels it.
        let mut live = live_jobs();
        if crate::external::lifetime::is_closing() {
            drop(live);
            for (t, req) in batch {
                let e = CallError::new(
                    CallErrorKind::Stopping,
                    format!("`{}` not submitted: Spindle is stopping", req.shown()),
                );
                self.ready.push((t, Err(e)));
            }
            return;
        }
        let out = Command::new("sbatch")
            .arg("--parsable")
            .arg(format!("--array=0-{}", batch.len() - 1))
            .arg(format!("--chdir={}", cwd.display()))
            .arg(format!("--output={}", log.display()))
            .arg(format!("--error={}", log.display()))
            .arg("--job-name=spindle")
            .args(&self.options)
            .arg(array_dir.join("wrapper.sh"))
            .stdin(std::process::Stdio::null())
            .output();
        let id = match out {
            Ok(o) if o.status.success() => {
                let text = String::from_utf8_lossy(&o.stdout);
                // `--parsable`: `id` or `id;cluster`.
                let id = text.trim().split(';').next().unwrap_or("").to_string();
                if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
                    fail_all(
                        batch,
                        format!("sbatch said `{}`", text.trim()),
                        &mut self.ready,
                    );
                    return;
                }
                id
            }
            Ok(o) => {
                let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
                fail_all(batch, format!("sbatch failed: {err}"), &mut self.ready);
                return;
            }
            Err(e) => {
                fail_all(batch, format!("cannot run sbatch: {e}"), &mut self.ready);
                return;
            }
        };
        live.push(id.clone());
        drop(live);
        self.first_queued = Instant::now();
        for (i, (ticket, req)) in batch.into_iter().enumerate() {
            self.tasks.insert(
                ticket,
                Task {
                    array: id.clone(),
                    index: i,
                    dir: array_dir.join(i.to_string()),
                    req,
                    started: false,
                    missing_since: None,
                    state: "PD".into(),
                },
            );
        }
    }

    /// Reports the tasks whose `code` file is there.
    fn collect_finished(&mut self) {
        let done: Vec<Ticket> = self
            .tasks
            .iter()
            .filter(|(_, t)| t.dir.join("code").exists())
            .map(|(k, _)| *k)
            .collect();
        for ticket in done {
            let Some(task) = self.tasks.remove(&ticket) else {
                continue;
            };
            if !task.started {
                self.started.push((ticket, SystemTime::now()));
            }
            self.started_at.remove(&ticket);
            let result = finish(&task);
            self.forget_array_if_done(&task.array);
            self.ready.push((ticket, result));
        }
    }

    fn forget_array_if_done(&mut self, array: &str) {
        if !self.tasks.values().any(|t| t.array == array) {
            live_jobs().retain(|a| a != array);
        }
    }

    /// One `squeue` for every job: which tasks started, and which are lost.
    fn look_at_queue(&mut self) {
        let Ok(out) = Command::new("squeue")
            .args(["-h", "-t", "all", "-o", "%i %t", "--me"])
            .output()
        else {
            return;
        };
        if !out.status.success() {
            return;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let states = parse_queue(&text);
        let now = Instant::now();
        let mut lost = Vec::new();
        for (ticket, task) in self.tasks.iter_mut() {
            match states.get(&(task.array.clone(), task.index)) {
                Some(state) => {
                    task.state = state.clone();
                    if !task.started && matches!(state.as_str(), "R" | "CG" | "CD" | "F") {
                        task.started = true;
                        self.started.push((*ticket, SystemTime::now()));
                        self.started_at.insert(*ticket, now);
                    }
                    let over = !matches!(
                        state.as_str(),
                        "PD" | "R"
                            | "CG"
                            | "S"
                            | "CF"
                            | "RQ"
                            | "RS"
                            | "SO"
                            | "RF"
                            | "RH"
                            | "SI"
                            | "ST"
                    );
                    if over {
                        let since = *task.missing_since.get_or_insert(now);
                        if now.duration_since(since) >= LOST_AFTER {
                            lost.push(*ticket);
                        }
                    } else {
                        task.missing_since = None;
                    }
                }
                None => {
                    let since = *task.missing_since.get_or_insert(now);
                    task.state = "gone".into();
                    if now.duration_since(since) >= LOST_AFTER {
                        lost.push(*ticket);
                    }
                }
            }
        }
        for ticket in lost {
            // A last look: the file may have come since.
            let Some(task) = self.tasks.remove(&ticket) else {
                continue;
            };
            let result = if task.dir.join("code").exists() {
                finish(&task)
            } else {
                let how = match task.state.as_str() {
                    "gone" => "left the queue".to_string(),
                    s => format!("ended in state {s} ({})", state_name(s)),
                };
                Err(CallError {
                    kind: CallErrorKind::Lost,
                    message: format!(
                        "`{}` (Slurm job {}) {how} without writing its exit status",
                        task.req.shown(),
                        task.job_id()
                    ),
                    stderr_tail: read_tail(&task),
                })
            };
            self.started_at.remove(&ticket);
            self.forget_array_if_done(&task.array);
            self.ready.push((ticket, result));
        }
    }

    /// Cancels tasks that have run longer than the call timeout.
    fn enforce_timeout(&mut self) {
        let Some(limit) = self.timeout else { return };
        let over: Vec<Ticket> = self
            .started_at
            .iter()
            .filter(|(_, at)| at.elapsed() > limit)
            .map(|(t, _)| *t)
            .collect();
        for ticket in over {
            self.started_at.remove(&ticket);
            if let Some(task) = self.tasks.remove(&ticket) {
                let _ = Command::new("scancel").arg(task.job_id()).output();
                let e = CallError::new(
                    CallErrorKind::TimedOut,
                    format!(
                        "`{}` (Slurm job {}) timed out after {} s (--call-timeout)",
                        task.req.shown(),
                        task.job_id(),
                        limit.as_secs_f64()
                    ),
                );
                self.forget_array_if_done(&task.array);
                self.ready.push((ticket, Err(e)));
            }
        }
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn read_tail(task: &Task) -> Vec<String> {
    std::fs::read(task.dir.join("err"))
        .map(|e| stderr_tail(&e))
        .unwrap_or_default()
}

/// Why a traced task's tool could not start, from its tracer's report, if it says so.
fn traced_start_failure(req: &ProcessRequest) -> Option<String> {
    let text = std::fs::read_to_string(&req.trace.as_ref()?.report).ok()?;
    crate::external::fstrace::Observed::parse(&text)?.cannot_start
}

/// A finished task's result, as a local process's would be, with the job id in a
/// failure's message.
fn finish(task: &Task) -> Result<Reply, CallError> {
    let out = std::fs::read(task.dir.join("out")).unwrap_or_default();
    let err = std::fs::read(task.dir.join("err")).unwrap_or_default();
    let code_text = std::fs::read_to_string(task.dir.join("code")).unwrap_or_default();
    let job = task.job_id();
    let Ok(code) = code_text.trim().parse::<i32>() else {
        return Err(CallError {
            kind: CallErrorKind::Lost,
            message: format!(
                "`{}` (Slurm job {job}) wrote an unreadable exit status `{}`",
                task.req.shown(),
                code_text.trim()
            ),
            stderr_tail: stderr_tail(&err),
        });
    };
    let failure = |kind: CallErrorKind, what: String| CallError {
        kind,
        message: format!("`{}` {what} (Slurm job {job})", task.req.shown()),
        stderr_tail: stderr_tail(&err),
    };
    match task.req.exit {
        ExitPolicy::Report => Ok(Reply::Exit {
            code: code as i64,
            stdout: String::from_utf8_lossy(&out).into_owned(),
            stderr: String::from_utf8_lossy(&err).into_owned(),
        }),
        ExitPolicy::Check => match code {
            0 => {
                if !err.is_empty() && super::process::passes_stderr() {
                    crate::external::progress::eprint_lines(&err);
                }
                Ok(Reply::Text(String::from_utf8_lossy(&out).into_owned()))
            }
            127 if let Some(why) = traced_start_failure(&task.req) => Err(failure(
                CallErrorKind::CannotStart,
                format!("cannot start: {why}"),
            )),
            127 if !Path::new(&task.req.program).is_absolute()
                && crate::external::store::key::resolve_program(&task.req.program).is_none() =>
            {
                Err(failure(
                    CallErrorKind::CannotStart,
                    "cannot start: No such file or directory (os error 2)".into(),
                ))
            }
            // `sh` reports a process killed by signal n as 128 + n.
            c if c > 128 && c < 128 + 65 => {
                let s = c - 128;
                Err(failure(
                    CallErrorKind::Signalled(s),
                    format!(
                        "was killed by signal {s} ({})",
                        crate::external::lifetime::signal_name(s)
                    ),
                ))
            }
            c => Err(failure(
                CallErrorKind::Exited(c),
                format!("exited with status {c}"),
            )),
        },
    }
}

/// `squeue -o '%i %t'` lines as (array job, task) → state. A pending array shows as
/// one line `12_[0-5,7,9-11%4]`; a plain job as `12` (task 0).
fn parse_queue(text: &str) -> HashMap<(String, usize), String> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(id), Some(state)) = (words.next(), words.next()) else {
            continue;
        };
        let (array, tasks) = match id.split_once('_') {
            Some((a, t)) => (a, t),
            None => (id, "0"),
        };
        let tasks = tasks.trim_start_matches('[').trim_end_matches(']');
        let tasks = tasks.split('%').next().unwrap_or("");
        for part in tasks.split(',') {
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (a.parse::<usize>(), b.parse::<usize>()),
                None => (part.parse::<usize>(), part.parse::<usize>()),
            };
            if let (Ok(lo), Ok(hi)) = (lo, hi) {
                for i in lo..=hi.min(lo + 100_000) {
                    out.insert((array.to_string(), i), state.to_string());
                }
            }
        }
    }
    out
}

/// What a Slurm job state code means.
fn state_name(s: &str) -> &'static str {
    match s {
        "CA" => "cancelled",
        "F" => "failed",
        "NF" => "node failure",
        "TO" => "time limit reached",
        "OOM" => "out of memory",
        "PR" => "preempted",
        "BF" => "boot failure",
        "DL" => "deadline reached",
        "CD" => "completed",
        _ => "see `scontrol show job`",
    }
}

/// A Slurm executor for a run ([`Slurm::new`]), as the monitor holds executors.
pub fn executor(
    config: &SlurmConfig,
    runs: &Path,
    jobs: usize,
    timeout: Option<Duration>,
) -> std::io::Result<Box<dyn super::CallExecutor + Send>> {
    // Whatever this process submits is cancelled when it exits, for any reason.
    crate::external::lifetime::on_shutdown("slurm", cancel_all);
    Ok(Box::new(Slurm::new(config.clone(), runs, jobs, timeout)?))
}

impl super::CallExecutor for Slurm {
    fn name(&self) -> &'static str {
        "slurm"
    }

    /// Processes only: waiting calls and the evaluation stay on this machine.
    fn takes(&self, request: &Request) -> bool {
        // A streamed process's lines are read as they come: it runs here.
        matches!(request, Request::Process(p) if p.stream.is_none())
    }

    fn submit(&mut self, ticket: Ticket, request: Request, _priority: super::Priority) {
        match request {
            Request::Process(p) => Slurm::submit(self, ticket, p),
            other => {
                let e = CallError::new(
                    CallErrorKind::CannotStart,
                    format!("`{}` is not a process: not for Slurm", other.describe()),
                );
                self.ready.push((ticket, Err(e)));
            }
        }
    }

    /// Slurm has no priorities here: every job it is given is certainly needed.
    fn promote(&mut self, _ticket: Ticket) {}

    fn cancel(&mut self, ticket: Ticket) {
        Slurm::cancel(self, ticket)
    }

    fn waits(&self) -> bool {
        false
    }

    fn poll(&mut self, _timeout: Option<Duration>) -> Vec<Completion> {
        if Instant::now() >= Slurm::next_poll(self) {
            Slurm::poll(self)
        } else {
            std::mem::take(&mut self.ready)
        }
    }

    fn next_poll(&self) -> Option<Instant> {
        Some(Slurm::next_poll(self))
    }

    fn take_started(&mut self) -> Vec<(Ticket, SystemTime)> {
        Slurm::take_started(self)
    }

    fn in_flight(&self) -> usize {
        Slurm::in_flight(self)
    }

    fn stats(&self) -> super::Stats {
        let n = Slurm::in_flight(self);
        super::Stats {
            in_flight: n,
            processes: self.tasks.len(),
            queued: self.queued.len(),
            ..super::Stats::default()
        }
    }

    fn shutdown(&mut self) {
        Slurm::shutdown(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_lines_are_parsed_with_arrays() {
        let q = parse_queue("12_[0-2,5%2] PD\n12_3 R\n13 CD\n14_7 F\ngarbage\n");
        assert_eq!(q[&("12".into(), 0)], "PD");
        assert_eq!(q[&("12".into(), 2)], "PD");
        assert_eq!(q[&("12".into(), 5)], "PD");
        assert!(!q.contains_key(&("12".into(), 4)));
        assert_eq!(q[&("12".into(), 3)], "R");
        assert_eq!(q[&("13".into(), 0)], "CD");
        assert_eq!(q[&("14".into(), 7)], "F");
    }

    #[test]
    fn finished_tasks_read_like_local_processes() {
        let dir = tempfile::tempdir().unwrap();
        let task = |code: &str, exit: ExitPolicy| {
            std::fs::write(dir.path().join("out"), "o").unwrap();
            std::fs::write(dir.path().join("err"), "e1\ne2\n").unwrap();
            std::fs::write(dir.path().join("code"), code).unwrap();
            Task {
                array: "7".into(),
                index: 2,
                dir: dir.path().to_path_buf(),
                req: ProcessRequest {
                    program: "grep".into(),
                    args: vec!["a b".into()],
                    stdin: None,
                    exit,
                    shown_as: None,
                    trace: None,
                    stream: None,
                    spool: None,
                },
                started: true,
                missing_since: None,
                state: "R".into(),
            }
        };
        let e = finish(&task("1\n", ExitPolicy::Check)).unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Exited(1));
        assert_eq!(
            e.message,
            "`grep 'a b'` exited with status 1 (Slurm job 7_2)"
        );
        assert_eq!(e.stderr_tail, ["e1", "e2"]);
        let e = finish(&task("143", ExitPolicy::Check)).unwrap_err();
        assert_eq!(e.kind, CallErrorKind::Signalled(15));
        assert_eq!(
            finish(&task("3", ExitPolicy::Report)),
            Ok(Reply::Exit {
                code: 3,
                stdout: "o".into(),
                stderr: "e1\ne2\n".into()
            })
        );
        assert!(matches!(
            finish(&task("x", ExitPolicy::Check)),
            Err(CallError {
                kind: CallErrorKind::Lost,
                ..
            })
        ));
    }
}
