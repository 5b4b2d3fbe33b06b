//! Executors: they perform the requests of external calls while the interpreter goes on
//! (DESIGN.md section 4). They know nothing of fibers or heaps: a call is a
//! [`Ticket`] the scheduler chose, a [`Request`], and later a [`Completion`].
//!
//! [`Executor`] is driven from one thread (the scheduler's). It holds four kinds of
//! work ([`ExecutorKind`]):
//!
//! - **processes**: started on the driving thread in a process group of their own
//!   ([`crate::external::lifetime`]), then fed and drained by one thread each (so at
//!   most `jobs` such threads, plus two short-lived helpers each for standard input
//!   and standard error);
//! - **file operations**: on a pool of threads started as needed;
//! - **timers** (`delay`): a heap of deadlines on the driving thread, fired inside
//!   [`Executor::wait`]: no thread at all, so 100,000 waiting calls cost 100,000 heap
//!   entries;
//! - **environment** reads: answered at once.
//!
//! # Limits and priority
//!
//! Each kind has a limit: `jobs` processes, `io_jobs` timers, `file_threads` file
//! operations; calls beyond it wait in a queue and start in priority order (certain
//! before speculative, then first come first served). The rule that keeps speculative
//! calls from ever holding back certain ones (LANGUAGE.md 7.3): a queued **certain**
//! call starts as soon as fewer than `limit` *certain* calls of its kind are running,
//! whatever number of speculative ones are running too; a **speculative** call starts
//! only while fewer than `limit` calls of its kind run in all and no certain call of its
//! kind is waiting. So the number running may pass the limit only by speculative calls
//! that had started before certain ones came, never by more than the limit. (Processes
//! come from `effect` externals, which are only ever submitted as certain, so `jobs`
//! is never passed in practice.) A speculative call that is promoted counts as certain
//! from then on.
//!
//! # Example
//!
//! ```
//! use spindle::external::exec::{Executor, Limits, Priority, Ticket};
//! use spindle::external::request::{Reply, Request};
//! use std::time::Duration;
//!
//! let mut ex = Executor::new(Limits::default());
//! ex.submit(Ticket(1), Request::Delay(Duration::from_millis(20)), Priority::Certain);
//! ex.submit(Ticket(2), Request::GetEnv("HOME".into()), Priority::Speculative);
//! ex.submit(Ticket(3), Request::Delay(Duration::from_secs(60)), Priority::Speculative);
//! ex.cancel(Ticket(3)); // not needed after all: never reported
//! let mut done = Vec::new();
//! while done.len() < 2 {
//!     // A scheduler evaluates fibers here, and waits only when none can run.
//!     for (ticket, result) in ex.wait(Some(Duration::from_secs(5))) {
//!         done.push(ticket);
//!         assert!(result.is_ok());
//!     }
//! }
//! assert_eq!(done, [Ticket(2), Ticket(1)]);
//! assert_eq!(ex.stats().in_flight, 0);
//! ```

pub mod files;
pub mod process;
pub mod slurm;

use crate::external::lifetime;
use crate::external::request::{CallError, CallErrorKind, ExecutorKind, Reply, Request};
use rustc_hash::FxHashMap as HashMap;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use process::set_stderr_passthrough;

/// Which executor runs processes (`--executor`): the local one, or another
/// implementation of [`CallExecutor`] beside it (the local one still runs what the
/// other does not take).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ProcessExecutor {
    /// On this machine.
    #[default]
    Local,
    /// As Slurm batch jobs ([`slurm`]).
    Slurm(slurm::SlurmConfig),
}

impl ProcessExecutor {
    /// The executor to put before the local one, if any: its working files under
    /// `runs`, at most `jobs` calls at once, each stopped after `timeout`.
    pub fn build(
        &self,
        runs: &std::path::Path,
        jobs: usize,
        timeout: Option<Duration>,
    ) -> std::io::Result<Option<Box<dyn CallExecutor + Send>>> {
        Ok(match self {
            ProcessExecutor::Local => None,
            ProcessExecutor::Slurm(c) => Some(slurm::executor(c, runs, jobs, timeout)?),
        })
    }
}

/// What runs calls (DESIGN.md 6): [`Executor`] on this machine, [`slurm::Slurm`] on a
/// cluster; a service executor (HTTP, models) is a third of the same kind. One monitor
/// ([`crate::external::calls::Calls`]) routes each request to the first executor that
/// takes it, polls them all, and keeps the state of each call; an executor knows
/// nothing of fibers, keys or records.
pub trait CallExecutor {
    /// A short name, for messages.
    fn name(&self) -> &'static str;
    /// Whether it runs this request.
    fn takes(&self, request: &Request) -> bool;
    /// Asks for a call. Its completion comes back from [`poll`](Self::poll), unless
    /// it is cancelled first.
    fn submit(&mut self, ticket: Ticket, request: Request, priority: Priority);
    /// A speculative call is now certainly needed.
    fn promote(&mut self, ticket: Ticket);
    /// The call is no longer needed: stopped, and never reported.
    fn cancel(&mut self, ticket: Ticket);
    /// Whether [`poll`](Self::poll) can wait for a completion (woken by its own
    /// threads), rather than having to be looked at again later
    /// ([`next_poll`](Self::next_poll)).
    fn waits(&self) -> bool;
    /// The calls that ended: waiting at most `timeout` (`None`: until one ends or the
    /// executor is woken) when it [`waits`](Self::waits), else looking once, now.
    fn poll(&mut self, timeout: Option<Duration>) -> Vec<Completion>;
    /// When it must be looked at next, if it does not wait (a cluster's queue).
    fn next_poll(&self) -> Option<Instant>;
    /// The calls that started running (left its queue) since the last call, with when.
    fn take_started(&mut self) -> Vec<(Ticket, std::time::SystemTime)>;
    /// Calls submitted and not yet reported or cancelled.
    fn in_flight(&self) -> usize;
    /// A failure the driver has now seen no longer holds back queued calls
    /// ([`Executor::set_gate_on_failure`]).
    fn open_gate(&mut self) {}
    /// Its counters.
    fn stats(&self) -> Stats;
    /// Cancels every call in flight.
    fn shutdown(&mut self);
}

impl CallExecutor for Executor {
    fn name(&self) -> &'static str {
        "local"
    }

    fn takes(&self, _request: &Request) -> bool {
        true
    }

    fn submit(&mut self, ticket: Ticket, request: Request, priority: Priority) {
        Executor::submit(self, ticket, request, priority)
    }

    fn promote(&mut self, ticket: Ticket) {
        Executor::promote(self, ticket)
    }

    fn cancel(&mut self, ticket: Ticket) {
        Executor::cancel(self, ticket)
    }

    fn waits(&self) -> bool {
        true
    }

    fn poll(&mut self, timeout: Option<Duration>) -> Vec<Completion> {
        Executor::wait(self, timeout)
    }

    fn next_poll(&self) -> Option<Instant> {
        None
    }

    fn take_started(&mut self) -> Vec<(Ticket, std::time::SystemTime)> {
        Executor::take_started(self)
    }

    fn in_flight(&self) -> usize {
        self.by_ticket.len() + self.ready.len()
    }

    fn open_gate(&mut self) {
        Executor::open_gate(self)
    }

    fn stats(&self) -> Stats {
        Executor::stats(self)
    }

    fn shutdown(&mut self) {
        Executor::shutdown(self)
    }
}

/// Who asked for a call: a number the scheduler chooses, unique among its calls in
/// flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(pub u64);

/// Whether a call's result is certainly needed (LANGUAGE.md 7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Priority {
    /// The sequential run would make this call: it goes first.
    Certain,
    /// Started to find work ahead; never holds back a certain call.
    Speculative,
}

/// A finished call: its ticket and its answer or failure.
pub type Completion = (Ticket, Result<Reply, CallError>);

/// The concurrency limits (LANGUAGE.md 7.3 and 10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Processes at once (`--jobs`, default 64).
    pub jobs: usize,
    /// Waiting calls at once (`--io-jobs`, default 10000).
    pub io_jobs: usize,
    /// File operations at once (threads of the file pool; default 8).
    pub file_threads: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            jobs: 64,
            io_jobs: 10_000,
            file_threads: 8,
        }
    }
}

/// Counters, for `--stats` and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Calls submitted and not yet reported or cancelled (running or queued).
    pub in_flight: usize,
    /// The most calls in flight at once.
    pub peak_in_flight: usize,
    /// Calls running now (started, not finished), of every kind.
    pub running: usize,
    /// The most calls running at once.
    pub peak_running: usize,
    /// Processes running now.
    pub processes: usize,
    /// The most processes running at once.
    pub peak_processes: usize,
    /// Timers running now.
    pub timers: usize,
    /// The most timers running at once.
    pub peak_timers: usize,
    /// File operations running now.
    pub file_ops: usize,
    /// Network calls (HTTP, models) running now.
    pub network: usize,
    /// The most network calls running at once.
    pub peak_network: usize,
    /// Threads in the file pool.
    pub file_threads: usize,
    /// Calls waiting for a slot.
    pub queued: usize,
    /// Calls submitted since the executor was made.
    pub submitted: u64,
    /// Calls cancelled since the executor was made.
    pub cancelled: u64,
}

/// Where a job is.
#[derive(Debug)]
enum State {
    /// Waiting for a slot, with its request.
    Queued(Request),
    /// A process, by pid; its thread reports back.
    Process(u32),
    /// On the file pool; a pool thread reports back.
    File,
    /// In the timer heap.
    Timer,
    /// A task of the network thread ([`crate::external::net`]), stopped by aborting it.
    Network(tokio::task::AbortHandle),
    /// Waiting for a stream's next items: the stream calls back when they come.
    StreamWait(crate::external::stream::StreamRef),
    /// A thread reading a file into a stream (`readLines`); cancelling closes the
    /// stream, which ends the reading.
    Reader(crate::external::stream::StreamRef),
    /// Cancelled while running where it cannot be taken back (a process being stopped,
    /// a file operation): its slot is freed when it reports back, its result dropped.
    Cancelled,
    /// A process that ran past the call timeout, being stopped: its slot is freed when
    /// it reports back, and it is reported as timed out.
    TimedOut(CallError),
}

#[derive(Debug)]
struct Job {
    ticket: Ticket,
    priority: Priority,
    kind: ExecutorKind,
    state: State,
}

/// One kind's limit, queues and counts.
#[derive(Debug, Default)]
struct Class {
    limit: usize,
    certain: VecDeque<u64>,
    speculative: VecDeque<u64>,
    running_certain: usize,
    running_speculative: usize,
    peak: usize,
}

impl Class {
    fn running(&self) -> usize {
        self.running_certain + self.running_speculative
    }

    fn release(&mut self, p: Priority) {
        match p {
            Priority::Certain => self.running_certain = self.running_certain.saturating_sub(1),
            Priority::Speculative => {
                self.running_speculative = self.running_speculative.saturating_sub(1)
            }
        }
    }
}

/// A message from a process or pool thread: which job, and its answer.
type Done = (u64, Result<Reply, CallError>);

/// The job id a [`Waker`] sends: no job has it.
const WAKE: u64 = u64::MAX;

/// Wakes an [`Executor`] blocked in [`wait`](Executor::wait) from another thread: it
/// returns (perhaps with nothing), so that its driver can look at other work.
#[derive(Debug, Clone)]
pub struct Waker(Sender<Done>);

impl Waker {
    /// Makes the executor's current or next `wait` return.
    pub fn wake(&self) {
        let _ = self.0.send((WAKE, Ok(Reply::Unit)));
    }
}

/// The executor: see the module documentation.
pub struct Executor {
    /// Boxed: a job holds its request, and the table moves its values when it grows.
    jobs: HashMap<u64, Box<Job>>,
    by_ticket: HashMap<Ticket, u64>,
    next_id: u64,
    processes: Class,
    timers: Class,
    files: Class,
    network: Class,
    streams: Class,
    /// Deadlines of running timers, earliest first; entries of cancelled jobs stay until
    /// they come up, and are skipped.
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    ready: Vec<Completion>,
    done_tx: Sender<Done>,
    done_rx: Receiver<Done>,
    /// To the file pool; `None` after `shutdown` (its threads then end) until the next
    /// file operation starts a new pool.
    file_tx: Option<Sender<(u64, Request)>>,
    file_rx: Arc<Mutex<Receiver<(u64, Request)>>>,
    file_threads: usize,
    stats: Stats,
    /// Calls that run longer fail (`--call-timeout`).
    call_timeout: Option<Duration>,
    /// Deadlines of running calls under a timeout, earliest first (entries of calls
    /// that ended are skipped when they come up).
    deadlines: BinaryHeap<Reverse<(Instant, u64)>>,
    /// Calls started since [`Executor::take_started`] was last called (kept only
    /// once that has been called: a driver that never asks keeps nothing).
    started: Vec<(Ticket, std::time::SystemTime)>,
    report_starts: bool,
    /// Close the gate when a process call fails ([`Executor::set_gate_on_failure`]).
    gate_on_failure: bool,
    /// Closed: no queued process starts until [`Executor::open_gate`].
    gated: bool,
}

impl Executor {
    /// An executor with these limits (each at least 1). Threads start as calls come.
    pub fn new(limits: Limits) -> Executor {
        let (done_tx, done_rx) = channel();
        let (file_tx, file_rx) = channel();
        let class = |limit: usize| Class {
            limit: limit.max(1),
            ..Class::default()
        };
        Executor {
            jobs: HashMap::default(),
            by_ticket: HashMap::default(),
            next_id: 0,
            processes: class(limits.jobs),
            timers: class(limits.io_jobs),
            files: class(limits.file_threads),
            network: class(limits.io_jobs),
            streams: class(usize::MAX),
            heap: BinaryHeap::new(),
            ready: Vec::new(),
            done_tx,
            done_rx,
            file_tx: Some(file_tx),
            file_rx: Arc::new(Mutex::new(file_rx)),
            file_threads: 0,
            stats: Stats::default(),
            call_timeout: None,
            deadlines: BinaryHeap::new(),
            started: Vec::new(),
            report_starts: false,
            gate_on_failure: false,
            gated: false,
        }
    }

    /// With `on`, a process call that fails closes a gate: no queued process starts
    /// until the driver, having seen the failure, opens it again
    /// ([`open_gate`](Self::open_gate)). A driver whose failure may decide the run
    /// (LANGUAGE.md 11: then no new effect call starts) needs this, or a freed slot would
    /// start the next queued process before the driver hears of the failure.
    pub fn set_gate_on_failure(&mut self, on: bool) {
        self.gate_on_failure = on;
        if !on {
            self.open_gate();
        }
    }

    /// Lets queued processes start again (see [`set_gate_on_failure`](Self::set_gate_on_failure)).
    pub fn open_gate(&mut self) {
        if self.gated {
            self.gated = false;
            self.start_queued();
        }
    }

    /// Whether a failure closed the gate.
    pub fn is_gated(&self) -> bool {
        self.gated
    }

    /// Calls that run longer than `timeout` fail with [`CallErrorKind::TimedOut`]: a
    /// process has its group stopped (SIGTERM, then SIGKILL after 2 s). `None` (the
    /// default): no limit.
    pub fn set_call_timeout(&mut self, timeout: Option<Duration>) {
        self.call_timeout = timeout;
    }

    /// A handle that makes [`wait`](Self::wait) return from another thread.
    pub fn waker(&self) -> Waker {
        Waker(self.done_tx.clone())
    }

    /// The calls that started running (left the queue) since the last call, with when.
    pub fn take_started(&mut self) -> Vec<(Ticket, std::time::SystemTime)> {
        self.report_starts = true;
        std::mem::take(&mut self.started)
    }

    /// Asks for a call. Its completion comes back from [`wait`](Self::wait) with
    /// `ticket`, unless it is cancelled first. A ticket still in flight is cancelled
    /// and replaced.
    pub fn submit(&mut self, ticket: Ticket, request: Request, priority: Priority) {
        if self.by_ticket.contains_key(&ticket) {
            self.cancel(ticket);
        }
        self.stats.submitted += 1;
        let kind = request.executor();
        if kind == ExecutorKind::Env {
            let r = files::perform(&request);
            self.ready.push((ticket, r));
            return;
        }
        let id = self.next_id;
        self.next_id += 1;
        let class = self.class(kind);
        match priority {
            Priority::Certain => class.certain.push_back(id),
            Priority::Speculative => class.speculative.push_back(id),
        }
        self.jobs.insert(
            id,
            Box::new(Job {
                ticket,
                priority,
                kind,
                state: State::Queued(request),
            }),
        );
        self.by_ticket.insert(ticket, id);
        self.start_queued();
        self.note_peaks();
    }

    /// A speculative call is now certainly needed: it moves ahead of every speculative
    /// call, and counts as certain from now on.
    pub fn promote(&mut self, ticket: Ticket) {
        let Some(&id) = self.by_ticket.get(&ticket) else {
            return;
        };
        let Some(job) = self.jobs.get_mut(&id) else {
            return;
        };
        if job.priority == Priority::Certain {
            return;
        }
        job.priority = Priority::Certain;
        let queued = matches!(job.state, State::Queued(_));
        let kind = job.kind;
        let class = self.class(kind);
        if queued {
            // Its entry in the speculative queue is skipped when it comes up.
            class.certain.push_back(id);
        } else {
            class.running_speculative = class.running_speculative.saturating_sub(1);
            class.running_certain += 1;
        }
        self.start_queued();
    }

    /// The call is no longer needed: a queued one is dropped, a running process has its
    /// group stopped (SIGTERM, SIGKILL after 2 s), a timer is dropped. A cancelled call
    /// is never reported by [`wait`](Self::wait).
    pub fn cancel(&mut self, ticket: Ticket) {
        let Some(id) = self.by_ticket.remove(&ticket) else {
            // Perhaps answered but not yet collected.
            self.ready.retain(|(t, _)| *t != ticket);
            return;
        };
        self.stats.cancelled += 1;
        let Some(job) = self.jobs.get_mut(&id) else {
            return;
        };
        let (kind, priority) = (job.kind, job.priority);
        match std::mem::replace(&mut job.state, State::Cancelled) {
            State::Queued(_) => {
                self.jobs.remove(&id);
            }
            State::Process(pid) => lifetime::stop(pid),
            State::File | State::Cancelled | State::TimedOut(_) => {}
            State::Timer => {
                self.jobs.remove(&id);
                self.class(kind).release(priority);
            }
            State::Network(task) => {
                task.abort();
                self.jobs.remove(&id);
                self.class(kind).release(priority);
            }
            State::StreamWait(s) => {
                s.cancel_wait();
                self.jobs.remove(&id);
                self.class(kind).release(priority);
            }
            State::Reader(s) => s.close(),
        }
        self.start_queued();
    }

    /// Waits until at least one call has finished, or `timeout` has passed (`None`:
    /// no limit), and returns the calls that finished (possibly none). Returns at once
    /// when nothing is in flight. Timers fire here, so a scheduler with timers running
    /// must call `wait` (with a zero timeout while it has other work) to see them end.
    pub fn wait(&mut self, timeout: Option<Duration>) -> Vec<Completion> {
        let until = timeout.and_then(|t| Instant::now().checked_add(t));
        loop {
            let mut woken = false;
            while let Ok(done) = self.done_rx.try_recv() {
                woken |= done.0 == WAKE;
                self.finished(done);
            }
            let now = Instant::now();
            self.fire_timers(now);
            self.fire_deadlines(now);
            self.start_queued();
            if !self.ready.is_empty() || woken {
                return std::mem::take(&mut self.ready);
            }
            if self.by_ticket.is_empty() {
                // Nothing anyone waits for (cancelled calls still ending report later).
                return Vec::new();
            }
            let next_timer = [&self.heap, &self.deadlines]
                .iter()
                .filter_map(|h| h.peek().map(|Reverse((at, _))| *at))
                .min();
            let wake = match (until, next_timer) {
                (Some(u), Some(t)) => Some(u.min(t)),
                (u, t) => u.or(t),
            };
            if until.is_some_and(|u| u <= now) {
                return Vec::new();
            }
            let received = match wake {
                Some(at) => match self.done_rx.recv_timeout(at.saturating_duration_since(now)) {
                    Ok(done) => Some(done),
                    Err(RecvTimeoutError::Timeout) => None,
                    // The executor holds a sender itself: never disconnected.
                    Err(RecvTimeoutError::Disconnected) => return Vec::new(),
                },
                None => match self.done_rx.recv() {
                    Ok(done) => Some(done),
                    Err(_) => return Vec::new(),
                },
            };
            if let Some(done) = received {
                let wake = done.0 == WAKE;
                self.finished(done);
                if wake {
                    return std::mem::take(&mut self.ready);
                }
            }
        }
    }

    /// The calls finished so far, without waiting.
    pub fn poll(&mut self) -> Vec<Completion> {
        self.wait(Some(Duration::ZERO))
    }

    /// The counters.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats;
        s.in_flight = self.by_ticket.len();
        s.processes = self.processes.running();
        s.peak_processes = self.processes.peak;
        s.timers = self.timers.running();
        s.peak_timers = self.timers.peak;
        s.file_ops = self.files.running();
        s.file_threads = self.file_threads;
        s.network = self.network.running();
        s.peak_network = self.network.peak;
        s.running = s.processes + s.timers + s.file_ops + s.network;
        s.queued = self
            .jobs
            .values()
            .filter(|j| matches!(j.state, State::Queued(_)))
            .count();
        s
    }

    /// Whether no call is queued or running (cancelled processes still being stopped
    /// count as running until they are gone).
    pub fn is_idle(&self) -> bool {
        self.jobs.is_empty() && self.ready.is_empty()
    }

    /// Cancels every call (processes are stopped in the background, SIGTERM then
    /// SIGKILL) and lets the file pool's threads end (after the operation they are in).
    /// The executor may be used again (the REPL's next evaluation). Called on drop. To
    /// stop and reap every process before exiting, the binary calls
    /// [`lifetime::shutdown_all`].
    pub fn shutdown(&mut self) {
        let tickets: Vec<Ticket> = self.by_ticket.keys().copied().collect();
        for t in tickets {
            self.cancel(t);
        }
        self.ready.clear();
        self.file_tx = None;
        self.file_threads = 0;
    }

    fn class(&mut self, kind: ExecutorKind) -> &mut Class {
        match kind {
            ExecutorKind::Process => &mut self.processes,
            ExecutorKind::Timer => &mut self.timers,
            ExecutorKind::Network => &mut self.network,
            ExecutorKind::Stream => &mut self.streams,
            ExecutorKind::Files | ExecutorKind::Env => &mut self.files,
        }
    }

    /// A job reported back from a thread.
    fn finished(&mut self, (id, result): Done) {
        let Some(job) = self.jobs.remove(&id) else {
            return;
        };
        self.class(job.kind).release(job.priority);
        let process = job.kind == ExecutorKind::Process;
        match job.state {
            State::Cancelled => {}
            State::TimedOut(err) => {
                self.by_ticket.remove(&job.ticket);
                self.gated |= self.gate_on_failure && process;
                self.ready.push((job.ticket, Err(err)));
            }
            _ => {
                self.by_ticket.remove(&job.ticket);
                if let Err(e) = &result {
                    self.gated |=
                        self.gate_on_failure && process && e.kind != CallErrorKind::Stopping;
                }
                self.ready.push((job.ticket, result));
            }
        }
    }

    /// Fails the calls that have run past the call timeout.
    fn fire_deadlines(&mut self, now: Instant) {
        while let Some(&Reverse((at, id))) = self.deadlines.peek() {
            if at > now {
                break;
            }
            self.deadlines.pop();
            let Some(job) = self.jobs.get_mut(&id) else {
                continue; // ended
            };
            let secs = self.call_timeout.map(|t| t.as_secs_f64()).unwrap_or(0.0);
            let what = match &job.state {
                State::Process(_) => "process",
                State::Timer | State::File | State::Network(_) => "call",
                _ => continue,
            };
            let err = CallError::new(
                CallErrorKind::TimedOut,
                format!("the {what} timed out after {secs} s (--call-timeout)"),
            );
            match std::mem::replace(&mut job.state, State::Cancelled) {
                State::Process(pid) => {
                    // Reported when its thread sees it end.
                    job.state = State::TimedOut(err);
                    lifetime::stop(pid);
                }
                State::File => {
                    // Reported now; its slot is freed when the pool thread is done.
                    let ticket = job.ticket;
                    self.by_ticket.remove(&ticket);
                    self.ready.push((ticket, Err(err)));
                }
                State::Network(task) => {
                    // Its connection closes with its task; it ends now.
                    task.abort();
                    if let Some(job) = self.jobs.remove(&id) {
                        self.class(job.kind).release(job.priority);
                        self.by_ticket.remove(&job.ticket);
                        self.ready.push((job.ticket, Err(err)));
                    }
                }
                _ => {
                    // A timer: it ends now.
                    if let Some(job) = self.jobs.remove(&id) {
                        self.class(job.kind).release(job.priority);
                        self.by_ticket.remove(&job.ticket);
                        self.ready.push((job.ticket, Err(err)));
                    }
                }
            }
        }
    }

    fn fire_timers(&mut self, now: Instant) {
        while let Some(&Reverse((at, id))) = self.heap.peek() {
            if at > now {
                break;
            }
            self.heap.pop();
            let Some(job) = self.jobs.get(&id) else {
                continue; // cancelled
            };
            if !matches!(job.state, State::Timer) {
                continue;
            }
            self.finished((id, Ok(Reply::Unit)));
        }
    }

    /// Starts queued calls while their kinds have room (see the module docs).
    fn start_queued(&mut self) {
        for kind in [
            ExecutorKind::Stream,
            ExecutorKind::Timer,
            ExecutorKind::Network,
            ExecutorKind::Files,
            ExecutorKind::Process,
        ] {
            if kind == ExecutorKind::Process && self.gated {
                continue;
            }
            while let Some(id) = self.next_startable(kind) {
                self.start(id);
            }
        }
    }

    /// The next job of `kind` allowed to start, taken off its queue.
    fn next_startable(&mut self, kind: ExecutorKind) -> Option<u64> {
        let jobs = &self.jobs;
        let is_queued_as = |id: &u64, p: Priority| {
            jobs.get(id)
                .is_some_and(|j| j.priority == p && matches!(j.state, State::Queued(_)))
        };
        let class = match kind {
            ExecutorKind::Process => &mut self.processes,
            ExecutorKind::Timer => &mut self.timers,
            ExecutorKind::Network => &mut self.network,
            ExecutorKind::Stream => &mut self.streams,
            ExecutorKind::Files | ExecutorKind::Env => &mut self.files,
        };
        while class
            .certain
            .front()
            .is_some_and(|id| !is_queued_as(id, Priority::Certain))
        {
            class.certain.pop_front();
        }
        while class
            .speculative
            .front()
            .is_some_and(|id| !is_queued_as(id, Priority::Speculative))
        {
            class.speculative.pop_front();
        }
        if !class.certain.is_empty() {
            if class.running_certain < class.limit {
                return class.certain.pop_front();
            }
            return None;
        }
        if class.running() < class.limit {
            return class.speculative.pop_front();
        }
        None
    }

    /// Starts job `id` (queued, with room for it).
    fn start(&mut self, id: u64) {
        let Some(job) = self.jobs.get_mut(&id) else {
            return;
        };
        let State::Queued(request) = std::mem::replace(&mut job.state, State::Cancelled) else {
            return;
        };
        let (kind, priority) = (job.kind, job.priority);
        match &request {
            Request::Process(p) => match process::start(p) {
                Ok(child) => {
                    let pid = child.id();
                    let tx = self.done_tx.clone();
                    let req = p.clone();
                    let spawned = std::thread::Builder::new()
                        .name("spindle-process".into())
                        .stack_size(256 * 1024)
                        .spawn(move || {
                            let r = match req.stream {
                                Some(_) => process::finish_streamed(child, &req),
                                None => process::finish(child, &req),
                            };
                            let _ = tx.send((id, r));
                        });
                    match spawned {
                        Ok(_) => job.state = State::Process(pid),
                        Err(e) => {
                            // The child went with the closure: stop its group.
                            lifetime::stop(pid);
                            let err = CallError::new(
                                CallErrorKind::CannotStart,
                                format!("`{}` cannot start: no thread to run it: {e}", p.shown()),
                            );
                            self.fail_now(id, err);
                            return;
                        }
                    }
                }
                Err(e) => {
                    self.fail_now(id, e);
                    return;
                }
            },
            Request::Delay(d) => {
                let at = Instant::now()
                    .checked_add(*d)
                    .unwrap_or_else(|| Instant::now() + Duration::from_secs(100 * 365 * 86_400));
                job.state = State::Timer;
                self.heap.push(Reverse((at, id)));
            }
            Request::StreamNext(stream) => {
                let tx = self.done_tx.clone();
                let waiter = Box::new(move |b| {
                    let _ = tx.send((id, Ok(Reply::Batch(b))));
                });
                match stream.take_or_wait(waiter) {
                    Some(b) => return self.answer_now(id, Ok(Reply::Batch(b))),
                    None => job.state = State::StreamWait(stream.clone()),
                }
            }
            Request::ReadLines { path, stream } => {
                let Some(stream) = stream.clone() else {
                    let err =
                        CallError::new(CallErrorKind::BadArgument, "readLines without a stream");
                    self.fail_now(id, err);
                    return;
                };
                let tx = self.done_tx.clone();
                let path = path.clone();
                let reader = stream.clone();
                let spawned = std::thread::Builder::new()
                    .name("spindle-lines".into())
                    .stack_size(256 * 1024)
                    .spawn(move || {
                        let r = crate::external::stream::read_file_into(&path, &reader, false).map(
                            |items| Reply::Stream {
                                spool: String::new(),
                                items,
                                tokens_in: 0,
                                tokens_out: 0,
                            },
                        );
                        let _ = tx.send((id, r));
                    });
                match spawned {
                    Ok(_) => job.state = State::Reader(stream),
                    Err(e) => {
                        let err = CallError::new(
                            CallErrorKind::CannotStart,
                            format!("readLines: no thread to read with: {e}"),
                        );
                        stream.finish(Err(err.clone()));
                        self.fail_now(id, err);
                        return;
                    }
                }
            }
            Request::Http(_) | Request::Llm(_) => {
                let tx = self.done_tx.clone();
                match crate::external::net::spawn(request, move |r| {
                    let _ = tx.send((id, r));
                }) {
                    Ok(task) => job.state = State::Network(task),
                    Err(e) => {
                        self.fail_now(id, e);
                        return;
                    }
                }
            }
            _ => {
                job.state = State::File;
                if self.file_tx.is_none() {
                    // A new pool after `shutdown`.
                    let (tx, rx) = channel();
                    self.file_tx = Some(tx);
                    self.file_rx = Arc::new(Mutex::new(rx));
                }
                self.ensure_file_thread();
                match &self.file_tx {
                    Some(tx) if tx.send((id, request)).is_ok() => {}
                    _ => {
                        let err =
                            CallError::new(CallErrorKind::Stopping, "the executor is shut down");
                        self.fail_now(id, err);
                        return;
                    }
                }
            }
        }
        let class = self.class(kind);
        match priority {
            Priority::Certain => class.running_certain += 1,
            Priority::Speculative => class.running_speculative += 1,
        }
        class.peak = class.peak.max(class.running());
        self.note_peaks();
        if let Some(t) = self.call_timeout
            && let Some(at) = Instant::now().checked_add(t)
        {
            self.deadlines.push(Reverse((at, id)));
        }
        if self.report_starts
            && let Some(job) = self.jobs.get(&id)
        {
            self.started
                .push((job.ticket, std::time::SystemTime::now()));
        }
    }

    /// A job answered as it starts (a stream with items waiting): reported at once.
    fn answer_now(&mut self, id: u64, r: Result<Reply, CallError>) {
        if let Some(job) = self.jobs.remove(&id) {
            self.by_ticket.remove(&job.ticket);
            self.ready.push((job.ticket, r));
        }
    }

    /// A job that failed before it could run (cannot start): reported at once.
    fn fail_now(&mut self, id: u64, err: CallError) {
        if let Some(job) = self.jobs.remove(&id) {
            self.by_ticket.remove(&job.ticket);
            self.ready.push((job.ticket, Err(err)));
        }
    }

    fn note_peaks(&mut self) {
        let running = self.processes.running()
            + self.timers.running()
            + self.files.running()
            + self.network.running();
        self.stats.peak_running = self.stats.peak_running.max(running);
        self.stats.peak_in_flight = self.stats.peak_in_flight.max(self.by_ticket.len());
    }

    /// Starts another file-pool thread when every one is busy.
    fn ensure_file_thread(&mut self) {
        if self.file_threads > self.files.running() {
            return;
        }
        let tx = self.done_tx.clone();
        let spawned = spawn_worker(
            "spindle-files",
            Arc::clone(&self.file_rx),
            move |(id, request)| tx.send((id, files::perform(&request))).is_ok(),
        );
        if spawned.is_ok() {
            self.file_threads += 1;
        }
        // Without a new thread the request waits for a busy one to be free.
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Starts a worker thread of a pool that shares one queue: it takes one item at a time
/// (holding the queue's lock only to take it) and hands it to `work`, until the queue
/// is gone or `work` says the results have nowhere to go (returns `false`).
pub(crate) fn spawn_worker<T: Send + 'static>(
    name: &str,
    queue: Arc<Mutex<Receiver<T>>>,
    mut work: impl FnMut(T) -> bool + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(512 * 1024)
        .spawn(move || {
            loop {
                let next = match queue.lock() {
                    Ok(q) => q.recv(),
                    Err(_) => return,
                };
                let Ok(item) = next else { return };
                if !work(item) {
                    return;
                }
            }
        })
}

/// Performs a request on this thread and returns its answer (`--sequential`): the same
/// operations, errors and process lifetime rules as [`Executor`], one at a time.
pub fn perform_now(request: &Request) -> Result<Reply, CallError> {
    match request {
        Request::Process(p) => process::run_now(p),
        Request::Delay(d) => {
            std::thread::sleep(*d);
            Ok(Reply::Unit)
        }
        Request::Http(_) | Request::Llm(_) => crate::external::net::perform_blocking(request),
        other => files::perform(other),
    }
}
