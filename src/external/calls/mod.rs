//! [`Calls`]: the executor a scheduler drives for a whole run, with the result store,
//! `--resume`, `--explain`, `--plan`, retries, the call timeout, progress and the
//! trace behind one small API (LANGUAGE.md 11). The scheduler hands over each call's
//! identity (the external, its arguments in normal form, its place) and gets back the
//! reply, the failure, or "planned"; it never sees keys or records.
//!
//! # A call's way through
//!
//! 1. [`Calls::submit`]: the request is made from the arguments (a bad argument fails
//!    at once). `reads` externals go straight to the executor: they are never recorded
//!    (their key would need what they read, which is all they do). Others are looked
//!    up in the store by their pre-key ([`store::key`]: the external, its arguments,
//!    and for a process its working directory, `SPINDLE_KEY_ENV` values and
//!    `reading`/`writing` declarations): `delay` on the spot, processes and
//!    `writeFile` on a helper thread, since checking a record reads files.
//! 2. The newest record of the call that still holds ([`store::verify`]: everything
//!    its call read is as it was, everything it wrote is there as it left it) is
//!    **reused** (with `--resume` or `--plan`), unless it records a non-zero exit of
//!    `runResult` and `--resume-failed` is not given, or `--rerun` matches the call.
//!    Otherwise, with `--plan`, the call is reported [`Answer::Planned`] (its fiber
//!    never resumes) and listed in [`Calls::plan`]; else `--explain` prints why it runs
//!    and it goes to the executor (local, or Slurm for processes). A process runs
//!    under the file-access tracer ([`crate::external::fstrace`]), which reports what
//!    it read and wrote.
//! 3. When it ends, a helper thread makes its record ([`store::recording`]) from the
//!    tracer's report, and the record joins the next batch written to the store (a
//!    batch waits at most [`COMMIT_EVERY`], or until it holds a slice of records; the
//!    store's own thread writes it while the calls go on, each batch one transaction,
//!    whole or not at all; [`Calls::finish`] writes the last one durably and waits for
//!    it). On failure the files it created are moved into the store's `failed/`
//!    folder, the failure is marked, and with `--retries N` it runs again after 1 s,
//!    2 s, 4 s, ...
//! 4. Every ending updates the progress display and writes a trace line.
//!
//! Where processes cannot be traced (not Linux on x86-64, ptrace forbidden,
//! `SPINDLE_TRACE=off`), said once per run: a process call is recorded only if all its
//! outputs are declared with `writing` (its inputs then are the files its command line
//! names and its `reading` declarations); others run again on every `--resume`.
//!
//! Without a store ([`Config::store`] `None`: the REPL), calls go straight to the
//! executor, with retries, timeouts, progress and trace as configured.
//!
//! # For the scheduler and the command line
//!
//! - `spindle run`: flatten [`CallOptions`](crate::external::options::CallOptions) into
//!   its arguments; [`Calls::new`]`(options.config(&file, limits))` once per run (an
//!   error, such as a store in use by another run, is `error: ...` and exit status 1);
//!   after the evaluation, [`Calls::finish`] (a store error there is a warning: the
//!   result stands), and with `--plan` print [`Calls::render_plan`] to standard error.
//! - Per call: `submit(ticket, Call { external, args, place, reading, writing },
//!   priority)`, where `args` are the [`Param::Data`](crate::external::registry::Param)
//!   arguments as [`Plain`] and `place` is the definition's hash
//!   ([`crate::proto::defhash::compute`], once per program) with the call's position in
//!   it ([`crate::proto::defhash::position`] of the call's core node, or the compiled
//!   code's order) and its `file:line:column`. `promote`, `cancel`, `wait`, `poll`,
//!   `in_flight` as on [`Executor`]. [`Answer::Done`] goes through
//!   [`External::finish`] as before; [`Answer::Planned`] means the fiber never
//!   resumes (the run then ends when nothing else can go on, and the plan is printed).
//! - `--sequential`: submit the one call and `wait(None)` for it, so the store, the
//!   trace and progress work the same.
//!
//! # The parts
//!
//! - this file: the API, each call's state (`Stage`), and the monitor: requests go
//!   to the first [`CallExecutor`] that takes them (a Slurm executor, when configured,
//!   takes processes; this machine's [`Executor`] takes everything), and [`Calls::wait`]
//!   polls them all;
//! - `helpers`: the store work on helper threads (lookup before, record after);
//! - `writer`: the store's writer thread and when batches are due;
//! - `retry`: which failures are tried again, and when;
//! - `moves`: a failed call's files, moved aside once its neighbours have ended;
//! - `report`: how calls are shown (progress, trace lines, the plan).
//! - Anything else written to standard error during a run goes through
//!   [`Calls::eprintln`] (or [`crate::external::progress::eprint_lines`]) so the live
//!   progress lines stay whole.

pub use crate::external::exec::ProcessExecutor;
use crate::external::exec::{
    CallExecutor, Completion, Executor, Limits, Priority, Ticket, Waker, spawn_worker,
};
use crate::external::fstrace::{self, Observed, TraceSpec};
use crate::external::plain::Plain;
use crate::external::progress::{Progress, ProgressMode, Status};
use crate::external::registry::{Effect, External};
use crate::external::request::{CallError, CallErrorKind, Reply, Request};
use crate::external::store::files::Fingerprints;
use crate::external::store::key::{self, Context, Hash};
use crate::external::store::record::{RECORD_VERSION, StoredReply};
use crate::external::store::recording::{self, Facts, Made};
use crate::external::store::verify::{Checker, SetCache};
use crate::external::store::{self, Batch, Store, StoreError, Why};
use crate::external::trace::{self, Trace};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

mod batching;
mod helpers;
mod moves;
mod report;
mod retry;
mod writer;

use helpers::{Decision, HelperDone, Job, Keyed, Recording, Shared, lookup};
use moves::PendingMove;
use report::{EntryLine, exit_code, group_of, shown_of};
use retry::retryable;
use writer::StoreWriter;

pub use batching::BatchConfig;

/// Store batches are written at least this often while calls end.
pub const COMMIT_EVERY: Duration = Duration::from_millis(100);

/// Records that make a batch due before [`COMMIT_EVERY`] has passed.
const COMMIT_SLICE: usize = 256;

/// Helper threads that hash files and list directories.
const HELPERS: usize = 4;

/// Where a call is in the program: its definition's hash and its position inside the
/// definition (DESIGN.md 5: never an address), and how to show it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Place {
    /// The hash of the definition the call is in
    /// ([`crate::proto::defhash::DefHashes`]).
    pub def: [u8; 32],
    /// Its position inside the definition ([`crate::proto::defhash::position`], or
    /// any number stable across runs of the same definition).
    pub pos: u32,
    /// As users see it: `wf.sp:12:5`.
    pub shown: String,
    /// The definition's name: with `pos`, a place that survives edits to other
    /// definitions and to the call's own arguments (the key of `paid` calls, so that
    /// editing a helper does not pay for its callers' model calls again).
    pub name: String,
}

/// One call, as the scheduler hands it over.
#[derive(Debug, Clone)]
pub struct Call {
    /// The external ([`crate::external::registry::lookup`]).
    pub external: &'static External,
    /// Its [`Param::Data`](crate::external::registry::Param::Data) arguments, in normal
    /// form, in order.
    pub args: Vec<Plain>,
    /// Its place.
    pub place: Place,
    /// Files declared with `reading` around the call (innermost last).
    pub reading: Vec<String>,
    /// Files declared with `writing` around the call.
    pub writing: Vec<String>,
}

impl Call {
    /// A call with no `reading`/`writing` declarations.
    pub fn new(external: &'static External, args: Vec<Plain>, place: Place) -> Call {
        Call {
            external,
            args,
            place,
            reading: Vec::new(),
            writing: Vec::new(),
        }
    }
}

/// What became of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// It ended: its reply (run now, or reused), or its failure.
    Done(Result<Reply, CallError>),
    /// `--plan`: it would have to run; it does not, and never will in this run.
    Planned,
}

/// A call that ended, with its ticket.
pub type Finished = (Ticket, Answer);

/// How a run's calls are made: what the command line says (`spindle run` options).
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The store directory ([`store::store_dir`]); `None`: no store.
    pub store: Option<PathBuf>,
    /// `--resume`: reuse recorded results.
    pub resume: bool,
    /// `--explain`: say why each call runs.
    pub explain: bool,
    /// `--plan`: run nothing that is not recorded; list it.
    pub plan: bool,
    /// `--retries N`.
    pub retries: u32,
    /// `--call-timeout SECONDS`.
    pub call_timeout: Option<Duration>,
    /// `--progress`.
    pub progress: ProgressMode,
    /// `--trace FILE`.
    pub trace: Option<PathBuf>,
    /// `--jobs`, `--io-jobs`.
    pub limits: Limits,
    /// `--executor`.
    pub executor: ProcessExecutor,
    /// Variables whose values enter process keys; `None`: from `SPINDLE_KEY_ENV`.
    pub key_env: Option<Vec<String>>,
    /// `--resume-failed`: reuse a recorded `runResult` with a non-zero exit too.
    pub resume_failed: bool,
    /// `--rerun PATTERN`s: calls whose program name (as progress shows it) or place
    /// (`FILE:LINE` or `FILE:LINE:COLUMN`) a pattern matches run even when recorded.
    pub rerun: Vec<glob::Pattern>,
    /// The `spindle` binary that traces processes ([`fstrace::self_exe`] when it is the
    /// running one); `None`: processes are not traced.
    pub tracer: Option<PathBuf>,
    /// `--llm-batch`: model calls not recorded go to the frontier
    /// ([`Calls::frontier`]) instead of running; other calls are journaled.
    pub batch: Option<BatchConfig>,
}

/// A call that `--plan` found would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedCall {
    /// Its place.
    pub place: String,
    /// The external.
    pub external: String,
    /// Program and arguments (or the call's description).
    pub shown: String,
    /// Why it is not recorded.
    pub why: String,
}

/// Counters of a run, for `--stats` and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallStats {
    /// Calls submitted.
    pub submitted: u64,
    /// Calls that ran (attempts included).
    pub ran: u64,
    /// Calls answered from the store.
    pub reused: u64,
    /// Failed attempts.
    pub failed: u64,
    /// Retries started.
    pub retried: u64,
    /// Calls reported planned.
    pub planned: u64,
    /// Records written.
    pub recorded: u64,
    /// Files hashed (not taken from the quick check).
    pub files_hashed: u64,
    /// The most calls in flight at once.
    pub peak_in_flight: usize,
    /// Model tokens in (prompt) of the calls that ran.
    pub tokens_in: u64,
    /// Model tokens out (completion) of the calls that ran.
    pub tokens_out: u64,
    /// Model tokens (in and out) of the calls answered from the store.
    pub tokens_reused: u64,
    /// Calls answered from the journal of an earlier round of a batch run.
    pub replayed: u64,
}

/// Where a call is: its state machine (as Nextflow's `TaskHandler`). A call enters
/// at [`Stage::Preparing`] (or [`Stage::Running`] when nothing is looked up), goes to
/// `Running` (with its executor: submitted, and running once the executor says it
/// started, [`Entry::started`]), then to [`Stage::Finishing`] (its record made, or its
/// created files found), and ends reused, done, failed or cancelled (the trace line's
/// status; the entry is then gone), or goes to [`Stage::Backoff`] and back to
/// `Running` for another attempt (`--retries`).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Stage {
    /// On a helper: key and lookup.
    Preparing,
    /// With an executor: submitted, running once started.
    Running,
    /// On a helper: the record after the call, or what a failed call created.
    Finishing,
    /// Waiting to be tried again.
    Backoff,
}

struct Entry {
    external: &'static External,
    group: String,
    shown: String,
    place: String,
    request: Request,
    reading: Vec<String>,
    writing: Vec<String>,
    priority: Priority,
    stage: Stage,
    /// Bumped whenever the call moves on, so a stale helper result is dropped.
    generation: u64,
    attempt: u32,
    keyed: Option<Keyed>,
    /// How its attempt that runs is recorded (processes with a store).
    recording: Option<Recording>,
    trace_id: u64,
    submitted: Instant,
    started: Option<(SystemTime, Instant)>,
    /// A model call's tokens, in and out, once known.
    tokens: Option<(i64, i64)>,
    /// For a `paid` call: where its place's last request is kept.
    paid_place: Option<key::Hash>,
    /// In a batch run: where the call's reply is journaled.
    journal: Option<key::Hash>,
}

/// The failure of an `effect` call that did not start because an earlier failure
/// decided the run ([`Calls::hold_effects`]); the machine reports the earlier failure
/// instead (its `NOT_STARTED` is the same text).
pub const NOT_STARTED: &str = "not started: an earlier call failed";

/// The run's executor: see the module documentation.
pub struct Calls {
    config: Config,
    /// What runs calls: a request goes to the first that takes it (Slurm, when
    /// configured, takes processes; this machine takes everything). The last is the
    /// local executor.
    executors: Vec<Box<dyn CallExecutor + Send>>,
    /// The executor each running call went to.
    routes: HashMap<Ticket, usize>,
    waker: Waker,
    shared: Arc<Shared>,
    jobs_tx: Option<Sender<Job>>,
    helper_threads: Vec<std::thread::JoinHandle<()>>,
    jobs_rx: Arc<Mutex<Receiver<Job>>>,
    done_rx: Receiver<HelperDone>,
    done_tx: Sender<HelperDone>,
    helpers: usize,
    helpers_busy: usize,
    /// Boxed: an entry is large, and the table moves its values when it grows.
    entries: HashMap<Ticket, Box<Entry>>,
    backoff: BinaryHeap<Reverse<(Instant, Ticket, u64)>>,
    ready: Vec<Finished>,
    batch: Batch,
    /// Writes the batches (`None`: no store).
    writer: Option<StoreWriter>,
    /// When the oldest write in the batch was first seen (`None`: the batch is empty).
    batch_since: Option<Instant>,
    /// Whether a commit since the last durable one was eventual only.
    unsynced: bool,
    store_error: Option<StoreError>,
    progress: Progress,
    trace: Option<Trace>,
    next_trace_id: u64,
    plan: Vec<PlannedCall>,
    explained: Vec<String>,
    stats: CallStats,
    /// Calls whose failure the driver has not been given yet: while there are any,
    /// the executor's gate stays closed (no queued process starts).
    undelivered: HashSet<Ticket>,
    /// A failure decided the run ([`Calls::hold_effects`]): no `effect` call starts.
    holding: bool,
    /// Whether processes are traced, decided at the first process call that is
    /// recorded (`Err`: why not, said once).
    tracing: Option<Result<(), String>>,
    /// Trace reports named so far (for unique file names).
    reports: u64,
    /// The calls of this run that were seen to change each path.
    writers: HashMap<PathBuf, Vec<Ticket>>,
    /// Failed calls' files waiting to be moved aside.
    pending_moves: Vec<PendingMove>,
    /// `--plan`: how many planned calls other work waits for ([`Calls::plan_blocked`]).
    plan_blocked: usize,
    /// The batch holds the record of a `paid` call: it is written at once.
    paid_unwritten: bool,
    /// Waits for a stream's next items ([`Request::StreamNext`]): not calls of the
    /// program (no progress, trace or record), routed to the local executor.
    stream_waits: HashSet<Ticket>,
    /// Spool files named so far (for unique names).
    spools: u64,
    /// Batch mode: the model calls not made ([`Calls::frontier`]).
    frontier: Vec<crate::external::batch::FrontierCall>,
    /// Tokens (in, out) of the model calls that ran, by model (for the cost).
    tokens_by_model: std::collections::BTreeMap<String, (u64, u64)>,
}

impl std::fmt::Debug for Calls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calls")
            .field("in_flight", &self.entries.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// Whether the request's calls are recorded.
fn recorded(external: &External, request: &Request) -> bool {
    external.effect != Effect::Reads
        && !matches!(request, Request::StreamNext(_))
        && matches!(
            request,
            Request::Process(_) | Request::WriteFile { .. } | Request::Delay(_) | Request::Llm(_)
        )
}

impl Calls {
    /// Opens the store (unless `--plan` finds none: then nothing is recorded and every
    /// call that is not a read is planned), the trace file, and the executors.
    pub fn new(config: Config) -> Result<Calls, StoreError> {
        let store = match &config.store {
            None => None,
            Some(dir) if config.plan => Store::open_existing(dir)?.map(Arc::new),
            Some(dir) => Some(Arc::new(Store::open(dir)?)),
        };
        let trace = match &config.trace {
            Some(p) => Some(Trace::create(p).map_err(|e| {
                StoreError::Io(format!("cannot write the trace {}: {e}", p.display()))
            })?),
            None => None,
        };
        let mut exec = Executor::new(config.limits);
        exec.set_call_timeout(config.call_timeout);
        // A failure may decide the run: nothing queued starts before the driver knows.
        exec.set_gate_on_failure(true);
        // Start reporting starts from the first call on.
        exec.take_started();
        let waker = exec.waker();
        // The executor of processes chosen, if it is not the local one; the local
        // one runs every other request.
        let runs = match &config.store {
            Some(d) => d.join(store::RUNS_DIR),
            None => std::env::temp_dir().join("spindle-runs"),
        };
        let mut executors: Vec<Box<dyn CallExecutor + Send>> = (config.executor)
            .build(&runs, config.limits.jobs, config.call_timeout)
            .map_err(|e| StoreError::Io(e.to_string()))?
            .into_iter()
            .collect();
        executors.push(Box::new(exec));
        let writer = match &store {
            Some(s) if !config.plan && !s.is_read_only() => Some(StoreWriter::start(s.clone())),
            _ => None,
        };
        let notes: Vec<String> = store
            .iter()
            .flat_map(|s| s.notes().iter().cloned())
            .collect();
        let shared = Arc::new(Shared {
            store,
            fps: Arc::new(Fingerprints::default()),
            sets_held: SetCache::default(),
            env_names: config.key_env.clone().unwrap_or_else(key::key_env_names),
            reuse: config.resume || config.plan,
            plan: config.plan,
            explain: config.explain,
            resume_failed: config.resume_failed,
        });
        let (done_tx, done_rx) = channel();
        let (jobs_tx, jobs_rx) = channel();
        let progress = Progress::new(config.progress);
        for n in notes {
            progress.println(&format!("note: {n}"));
        }
        Ok(Calls {
            config,
            executors,
            routes: HashMap::default(),
            waker,
            shared,
            jobs_tx: Some(jobs_tx),
            helper_threads: Vec::new(),
            jobs_rx: Arc::new(Mutex::new(jobs_rx)),
            done_rx,
            done_tx,
            helpers: 0,
            helpers_busy: 0,
            entries: HashMap::default(),
            backoff: BinaryHeap::new(),
            ready: Vec::new(),
            batch: Batch::default(),
            writer,
            batch_since: None,
            unsynced: false,
            store_error: None,
            progress,
            trace,
            next_trace_id: 1,
            plan: Vec::new(),
            explained: Vec::new(),
            stats: CallStats::default(),
            undelivered: HashSet::default(),
            holding: false,
            tracing: None,
            reports: 0,
            writers: HashMap::default(),
            pending_moves: Vec::new(),
            plan_blocked: 0,
            paid_unwritten: false,
            stream_waits: HashSet::default(),
            spools: 0,
            frontier: Vec::new(),
            tokens_by_model: Default::default(),
        })
    }

    /// A failure decided the run (LANGUAGE.md 11: no `try` around it): from now on no
    /// `effect` call starts. Those submitted and not started yet (queued behind
    /// `--jobs`, or still being looked up) answer at once with a failure saying so
    /// ([`NOT_STARTED`]); calls already running go on and are recorded; recorded
    /// results are still reused, and `reads` and `pure` calls go on.
    pub fn hold_effects(&mut self) {
        self.holding = true;
        self.take_started();
        let waiting: Vec<Ticket> = self
            .entries
            .iter()
            .filter(|(_, e)| {
                e.external.is_effect()
                    && e.started.is_none()
                    && matches!(e.stage, Stage::Preparing | Stage::Running | Stage::Backoff)
            })
            .map(|(t, _)| *t)
            .collect();
        for t in waiting {
            self.not_started(t);
        }
    }

    /// Ends a call that will not start now ([`hold_effects`](Self::hold_effects)).
    fn not_started(&mut self, ticket: Ticket) {
        let Some(e) = self.entries.remove(&ticket) else {
            return;
        };
        if e.stage == Stage::Running {
            self.cancel_running(ticket);
        }
        self.undelivered.remove(&ticket);
        self.end_line(&e, Status::Cancelled, None, NOT_STARTED);
        let err = CallError::new(CallErrorKind::NotStarted, NOT_STARTED);
        self.ready.push((ticket, Answer::Done(Err(err))));
    }

    /// Asks for a call; its answer comes from [`wait`](Self::wait) with `ticket`,
    /// unless it is cancelled first. `effect` calls must only be submitted once
    /// certainly needed (LANGUAGE.md 7.1): this layer does not check.
    pub fn submit(&mut self, ticket: Ticket, call: Call, priority: Priority) {
        match call.external.make_request(&call.args) {
            Ok(request) => self.submit_request(ticket, call, request, priority),
            Err(e) => {
                self.count_submitted(ticket);
                self.ready.push((ticket, Answer::Done(Err(e))));
            }
        }
    }

    /// Counts a submitted call, cancelling what `ticket` named before.
    fn count_submitted(&mut self, ticket: Ticket) {
        if self.entries.contains_key(&ticket) {
            self.cancel(ticket);
        }
        self.stats.submitted += 1;
    }

    /// [`submit`](Self::submit), with the call's request made already (the machine
    /// makes it where the call is reached, so that bad arguments fail there).
    pub fn submit_request(
        &mut self,
        ticket: Ticket,
        call: Call,
        request: Request,
        priority: Priority,
    ) {
        if let Request::StreamNext(_) = request {
            // Not a call of the program: straight to this machine's executor.
            let local = self.executors.len() - 1;
            self.stream_waits.insert(ticket);
            self.routes.insert(ticket, local);
            self.executors[local].submit(ticket, request, priority);
            return;
        }
        self.count_submitted(ticket);
        let group = group_of(call.external, &request);
        let shown = shown_of(&request);
        self.progress.submitted(&group);
        let trace_id = self.next_trace_id;
        self.next_trace_id += 1;
        let rerun = self.config.rerun.iter().any(|p| {
            let place = &call.place.shown;
            let line = place.rsplit_once(':').map_or(place.as_str(), |(l, _)| l);
            p.matches(&group) || p.matches(place) || p.matches(line)
        });
        let entry = Entry {
            external: call.external,
            group,
            shown,
            place: call.place.shown.clone(),
            request: request.clone(),
            reading: call.reading.clone(),
            writing: call.writing.clone(),
            priority,
            stage: Stage::Running,
            generation: 0,
            attempt: 1,
            keyed: None,
            recording: None,
            trace_id,
            submitted: Instant::now(),
            started: None,
            tokens: None,
            paid_place: matches!(request, Request::Llm(_))
                .then(|| key::paid_place_key(call.external.name, &call.place.name, call.place.pos)),
            journal: self.journal_key_of(call.external.name, &call.args, &request),
        };
        let journal = entry.journal;
        self.entries.insert(ticket, Box::new(entry));
        if let Some(j) = journal
            && self.replayed(ticket, j)
        {
            return;
        }
        self.stats.peak_in_flight = self.stats.peak_in_flight.max(self.entries.len());
        let store_on = self.shared.store.is_some() || self.shared.plan;
        if !store_on || !recorded(call.external, &request) {
            self.dispatch(ticket);
            return;
        }
        if let Request::Delay(_) | Request::Llm(_) = request {
            // The key is the arguments (for a model call, its canonical request and
            // place): looked up here, no file to hash.
            let pre = match &request {
                Request::Llm(l) => key::paid_key(
                    call.external.name,
                    &l.canonical,
                    &call.place.name,
                    call.place.pos,
                ),
                _ => key::pre_key(call.external.name, &call.args, None),
            };
            let mut decision = lookup(&self.shared, &pre, rerun);
            if let (Request::Llm(l), Decision::Run(Why::New), true) =
                (&request, &decision, self.config.explain || self.shared.plan)
                && let Some(old) = self.last_request_at(call.external.name, &call.place)
                && old != l.canonical
            {
                let diff = crate::external::net::openai::changed_fields(&old, &l.canonical);
                decision = Decision::Run(Why::RequestChanged(diff));
            }
            self.prepared(ticket, 0, Keyed { pre }, decision);
            return;
        }
        if let Some(e) = self.entries.get_mut(&ticket) {
            e.stage = Stage::Preparing;
        }
        self.send_job(Job::Prepare {
            ticket,
            generation: 0,
            external: call.external,
            args: call.args,
            reading: call.reading,
            writing: call.writing,
            rerun,
        });
    }

    /// The canonical request last recorded at a `paid` call's place.
    fn last_request_at(&self, external: &str, place: &Place) -> Option<String> {
        let store = self.shared.store.as_ref()?;
        let k = key::paid_place_key(external, &place.name, place.pos);
        match store.get(&k).ok()??.reply?.to_reply()? {
            Reply::Text(t) => Some(t),
            _ => None,
        }
    }

    /// A speculative call is now certainly needed.
    pub fn promote(&mut self, ticket: Ticket) {
        if let Some(e) = self.entries.get_mut(&ticket) {
            e.priority = Priority::Certain;
            if e.stage == Stage::Running
                && let Some(&i) = self.routes.get(&ticket)
            {
                self.executors[i].promote(ticket);
            }
        }
    }

    /// The call is no longer needed: it is stopped (a process's group), or dropped, and
    /// never reported by [`wait`](Self::wait). Its trace line says `cancelled`.
    pub fn cancel(&mut self, ticket: Ticket) {
        self.ready.retain(|(t, _)| *t != ticket);
        if self.stream_waits.remove(&ticket) {
            self.cancel_running(ticket);
            return;
        }
        self.undelivered.remove(&ticket);
        for m in &mut self.pending_moves {
            m.waiting.remove(&ticket);
        }
        let Some(e) = self.entries.remove(&ticket) else {
            return;
        };
        if e.stage == Stage::Running {
            self.cancel_running(ticket);
        }
        self.end_line(&e, Status::Cancelled, None, "");
    }

    /// Cancels a call with its executor.
    fn cancel_running(&mut self, ticket: Ticket) {
        if let Some(i) = self.routes.remove(&ticket) {
            self.executors[i].cancel(ticket);
        }
    }

    /// Calls in flight (submitted, not yet reported or cancelled).
    pub fn in_flight(&self) -> usize {
        self.entries.len() + self.stream_waits.len() + self.ready.len()
    }

    /// The counters.
    pub fn stats(&self) -> CallStats {
        let mut s = self.stats;
        s.files_hashed = self
            .shared
            .fps
            .hashed
            .load(std::sync::atomic::Ordering::Relaxed);
        s
    }

    /// The executor's own counters (processes, timers, peaks).
    pub fn executor_stats(&self) -> crate::external::exec::Stats {
        self.executors.last().map(|e| e.stats()).unwrap_or_default()
    }

    /// The `--explain` lines printed so far (also kept here, for tests and tools).
    pub fn explanations(&self) -> &[String] {
        &self.explained
    }

    /// The calls `--plan` found would run, in the order they were met.
    pub fn plan(&self) -> &[PlannedCall] {
        &self.plan
    }

    /// `--plan`, when the evaluation has gone as far as it can: `n` of the planned
    /// calls are waited for by work that may make more calls once they have run (the
    /// scheduler's view of what the plan cannot see past).
    pub fn plan_blocked(&mut self, n: usize) {
        self.plan_blocked = n;
    }

    /// The calls that ended, waiting until at least one has, or `timeout` has passed
    /// (`None`: no limit). Returns at once when nothing is in flight.
    pub fn wait(&mut self, timeout: Option<Duration>) -> Vec<Finished> {
        let until = timeout.and_then(|t| Instant::now().checked_add(t));
        // The driver has seen every failure so far (and held effects if one decided
        // the run): queued processes may start again.
        let (entries, ready) = (&self.entries, &self.ready);
        self.undelivered
            .retain(|t| entries.contains_key(t) || ready.iter().any(|(r, _)| r == t));
        if self.undelivered.is_empty() {
            for e in &mut self.executors {
                e.open_gate();
            }
        }
        loop {
            while let Ok(d) = self.done_rx.try_recv() {
                self.helper_done(d);
            }
            self.poll_due();
            self.take_started();
            self.retry_due();
            self.maybe_commit(false);
            if !self.ready.is_empty() {
                let batch = std::mem::take(&mut self.ready);
                for (t, _) in &batch {
                    self.undelivered.remove(t);
                }
                return batch;
            }
            if self.entries.is_empty() && self.stream_waits.is_empty() {
                return Vec::new();
            }
            let now = Instant::now();
            if until.is_some_and(|u| u <= now) {
                return Vec::new();
            }
            let mut wake = until;
            let mut earliest = |t: Option<Instant>| {
                if let Some(t) = t {
                    wake = Some(wake.map_or(t, |w| w.min(t)));
                }
            };
            earliest(self.backoff.peek().map(|Reverse((t, _, _))| *t));
            if !self.batch.is_empty() {
                earliest(self.batch_since.map(|t| t + COMMIT_EVERY));
            }
            let mut looked_at = false;
            for e in &self.executors {
                if !e.waits() && e.in_flight() > 0 {
                    looked_at = true;
                    earliest(e.next_poll());
                }
            }
            let left = wake.map(|w| w.saturating_duration_since(now));
            // One executor that can wait for its calls is waited on (the helpers and
            // the store wake it through its channel); executors that cannot are looked
            // at when due.
            let waiting = self
                .executors
                .iter()
                .position(|e| e.waits() && e.in_flight() > 0);
            if let Some(i) = waiting {
                let done = self.executors[i].poll(left);
                self.completions(i, done);
            } else if !looked_at && self.helpers_busy > 0 {
                let got = match left {
                    Some(d) => match self.done_rx.recv_timeout(d) {
                        Ok(x) => Some(x),
                        Err(RecvTimeoutError::Timeout) => None,
                        Err(RecvTimeoutError::Disconnected) => None,
                    },
                    None => self.done_rx.recv().ok(),
                };
                if let Some(d) = got {
                    self.helper_done(d);
                }
            } else if !looked_at {
                // Only backoff timers: sleep until the first.
                if let Some(d) = left {
                    std::thread::sleep(d.min(Duration::from_millis(50)));
                } else {
                    std::thread::sleep(Duration::from_millis(5));
                }
            } else {
                // Calls on executors that cannot wait: sleep until one is due (helpers
                // wake us through a waiting executor's channel only when it is
                // waiting, so sleep in small steps while they work).
                let step = if self.helpers_busy > 0 {
                    Duration::from_millis(5)
                } else {
                    Duration::from_millis(200)
                };
                let d = left.unwrap_or(step).min(step);
                if let Ok(x) = self.done_rx.recv_timeout(d) {
                    self.helper_done(x);
                }
            }
        }
    }

    /// Looks at the executors that cannot wait for their calls when they are due
    /// (Slurm submits, collects and looks at its queue).
    fn poll_due(&mut self) {
        let now = Instant::now();
        for i in 0..self.executors.len() {
            let e = &mut self.executors[i];
            if !e.waits() && e.in_flight() > 0 && e.next_poll().is_none_or(|t| now >= t) {
                let done = e.poll(Some(Duration::ZERO));
                self.completions(i, done);
            }
        }
    }

    /// The calls that ended so far, without waiting.
    pub fn poll(&mut self) -> Vec<Finished> {
        self.wait(Some(Duration::ZERO))
    }

    /// Ends the run's bookkeeping: writes the last records (durably), ends the progress
    /// display with its summary, and flushes the trace. Calls still in flight are
    /// cancelled. Returns the first store error met during the run, if any (the run's
    /// results stand; only recording failed).
    pub fn finish(&mut self) -> Result<(), StoreError> {
        self.shutdown();
        for (_, n) in self.settle_moves(true) {
            self.progress.println(&format!("note: {n}"));
        }
        self.maybe_commit(true);
        self.progress.finish();
        match self.store_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Waits for the `effect` calls that have started to end, so that they are recorded
    /// (LANGUAGE.md 11: after a failure that ends the run, the calls already running
    /// finish and are recorded, for `--resume` to reuse). Their values go nowhere; the
    /// calls not started are left for [`shutdown`](Self::shutdown) to cancel.
    pub fn finish_running_effects(&mut self) {
        loop {
            self.take_started();
            let running = self
                .entries
                .values()
                .any(|e| e.external.is_effect() && e.started.is_some());
            if !running {
                return;
            }
            self.wait(Some(Duration::from_millis(100)));
        }
    }

    /// Cancels every call in flight (processes stopped, Slurm jobs cancelled); the
    /// store's pending records are kept for [`finish`](Self::finish).
    pub fn shutdown(&mut self) {
        // One shutdown per executor (one `scancel` for every Slurm job) before the
        // calls are dropped one by one, and again after.
        for e in &mut self.executors {
            e.shutdown();
        }
        let tickets: Vec<Ticket> = self.entries.keys().copied().collect();
        for t in tickets {
            self.cancel(t);
        }
        for e in &mut self.executors {
            e.shutdown();
        }
        self.routes.clear();
    }

    /// A line for standard error that does not garble the live progress display.
    pub fn eprintln(&self, line: &str) {
        self.progress.println(line);
    }

    // ----- internals ---------------------------------------------------------------

    /// Sends a call to its executor (a process that is recorded runs under the
    /// tracer).
    fn dispatch(&mut self, ticket: Ticket) {
        let store_on = self.shared.store.is_some();
        let Some(e) = self.entries.get_mut(&ticket) else {
            return;
        };
        if self.holding && e.external.is_effect() {
            self.not_started(ticket);
            return;
        }
        e.stage = Stage::Running;
        e.generation += 1;
        let needs_mode =
            store_on && e.recording.is_none() && matches!(e.request, Request::Process(_));
        let declares = !e.writing.is_empty();
        if needs_mode {
            let mode = self.recording_mode(declares);
            let Some(e) = self.entries.get_mut(&ticket) else {
                return;
            };
            if let (Recording::Traced(spec), Request::Process(p)) = (&mode, &mut e.request) {
                p.trace = Some(spec.clone());
            }
            e.recording = Some(mode);
        }
        let spooled = self
            .entries
            .get(&ticket)
            .is_some_and(|e| e.request.stream().is_some() && recorded(e.external, &e.request));
        let is_llm = self
            .entries
            .get(&ticket)
            .is_some_and(|e| matches!(e.request, Request::Llm(_)));
        let spool = match &self.shared.store {
            Some(store) if spooled => {
                self.spools += 1;
                let dir = store.dir().join(crate::external::store::STREAMS_DIR);
                let _ = std::fs::create_dir_all(&dir);
                let ext = if is_llm { "jsonl" } else { "lines" };
                let name = format!(
                    "{}-{}-{}.{ext}",
                    std::process::id(),
                    crate::external::store::files::now_ns(),
                    self.spools
                );
                Some(dir.join(name).display().to_string())
            }
            _ => None,
        };
        let Some(e) = self.entries.get_mut(&ticket) else {
            return;
        };
        if let Some(path) = spool {
            e.request.set_spool(path);
        }
        let request = e.request.clone();
        let priority = e.priority;
        // The last executor (this machine) takes every request.
        let i = self
            .executors
            .iter()
            .position(|x| x.takes(&request))
            .unwrap_or(self.executors.len() - 1);
        self.routes.insert(ticket, i);
        self.executors[i].submit(ticket, request, priority);
        self.take_started();
    }

    /// A call's lookup is done.
    fn prepared(&mut self, ticket: Ticket, generation: u64, keyed: Keyed, decision: Decision) {
        let Some(e) = self.entries.get_mut(&ticket) else {
            return;
        };
        if e.generation != generation {
            return;
        }
        let keyed_pre = keyed.pre;
        let frontier = matches!(decision, Decision::Run(_))
            && batching::goes_to_frontier(&self.config, e, &keyed_pre);
        e.keyed = Some(keyed);
        match decision {
            Decision::Reuse(reply, key) => {
                let Some(mut e) = self.entries.remove(&ticket) else {
                    return;
                };
                self.stats.reused += 1;
                let tokens = reply.tokens();
                if tokens != (0, 0) {
                    e.tokens = Some(tokens);
                    self.stats.tokens_reused += (tokens.0 + tokens.1) as u64;
                    self.progress.tokens(&e.group, true, tokens);
                }
                self.batch.used.push(key);
                self.end_line(&e, Status::Reused, exit_code(&Ok(reply.clone())), "");
                self.ready.push((ticket, Answer::Done(Ok(reply))));
            }
            Decision::Run(_) if frontier => {
                self.put_on_frontier(ticket, keyed_pre);
            }
            Decision::Run(why) if self.shared.plan => {
                let Some(e) = self.entries.remove(&ticket) else {
                    return;
                };
                self.stats.planned += 1;
                self.plan.push(PlannedCall {
                    place: e.place.clone(),
                    external: e.external.name.to_string(),
                    shown: e.shown.clone(),
                    why: why.to_string(),
                });
                self.end_line(&e, Status::Planned, None, &why.to_string());
                self.ready.push((ticket, Answer::Planned));
            }
            Decision::Run(why) => {
                if self.config.explain {
                    let place = if e.place.is_empty() {
                        String::new()
                    } else {
                        format!("{}: ", e.place)
                    };
                    let line = format!(
                        "explain: {place}{}: {why}",
                        crate::external::progress::one_line(&e.shown)
                    );
                    self.progress.println(&line);
                    self.explained.push(line);
                }
                self.dispatch(ticket);
            }
        }
    }

    fn helper_done(&mut self, d: HelperDone) {
        self.helpers_busy = self.helpers_busy.saturating_sub(1);
        match d {
            HelperDone::Prepared {
                ticket,
                generation,
                keyed,
                decision,
            } => self.prepared(ticket, generation, keyed, decision),
            HelperDone::Finished {
                ticket,
                generation,
                result,
                record,
                failure,
                writes,
                mut note,
            } => {
                if let Some(why) = note.strip_prefix("not recorded: ")
                    && why.starts_with(fstrace::UNAVAILABLE)
                {
                    let why = why.to_string();
                    self.tracing_refused(&why);
                }
                for w in writes {
                    self.writers.entry(w).or_default().push(ticket);
                }
                for m in &mut self.pending_moves {
                    m.waiting.remove(&ticket);
                }
                if let Some((pre, created)) = failure {
                    self.batch.failures.push(pre);
                    if !created.is_empty() {
                        let waiting: HashSet<Ticket> = self
                            .entries
                            .iter()
                            .filter(|(t, e)| {
                                **t != ticket
                                    && matches!(e.request, Request::Process(_))
                                    && matches!(e.stage, Stage::Running | Stage::Finishing)
                            })
                            .map(|(t, _)| *t)
                            .collect();
                        let place = self
                            .entries
                            .get(&ticket)
                            .map(|e| e.place.clone())
                            .unwrap_or_default();
                        self.pending_moves.push(PendingMove {
                            ticket,
                            pre,
                            place,
                            files: created,
                            waiting,
                        });
                    }
                }
                for (t, n) in self.settle_moves(false) {
                    if t == ticket {
                        note = n;
                    } else {
                        self.progress.println(&format!("note: {n}"));
                    }
                }
                let current = self
                    .entries
                    .get(&ticket)
                    .is_some_and(|e| e.generation == generation && e.stage == Stage::Finishing);
                if !current {
                    return;
                }
                if let Some((pre, made)) = record {
                    for o in made.record.outputs.iter().filter(|o| o.created) {
                        self.shared.sets_held.note_rewritten(&o.path);
                    }
                    self.stats.recorded += 1;
                    self.batch.sets.extend(made.sets);
                    self.batch.records.push((made.key, pre, made.record));
                }
                self.ended(ticket, result, &note);
            }
        }
    }

    /// Completions from executor `i`. A failure holds queued calls back until the
    /// driver has seen it ([`Calls::wait`] opens the gate again).
    fn completions(&mut self, i: usize, done: Vec<Completion>) {
        self.take_started();
        for (ticket, result) in done {
            if self.routes.get(&ticket) == Some(&i) {
                self.routes.remove(&ticket);
            }
            if self.stream_waits.remove(&ticket) {
                self.ready.push((ticket, Answer::Done(result)));
                continue;
            }
            if result.is_err() {
                self.undelivered.insert(ticket);
            }
            self.ran(ticket, result);
        }
    }

    /// A call's attempt ran: make its record (on a helper) when there is a store,
    /// else end it now.
    fn ran(&mut self, ticket: Ticket, result: Result<Reply, CallError>) {
        let store_on = self.shared.store.is_some();
        let Some(e) = self.entries.get_mut(&ticket) else {
            return;
        };
        if e.stage != Stage::Running {
            return;
        }
        self.stats.ran += 1;
        if let Ok(reply) = &result {
            let tokens = reply.tokens();
            if tokens != (0, 0) {
                e.tokens = Some(tokens);
                self.stats.tokens_in += tokens.0.max(0) as u64;
                self.stats.tokens_out += tokens.1.max(0) as u64;
                if let Request::Llm(l) = &e.request {
                    let t = self.tokens_by_model.entry(l.model.clone()).or_default();
                    t.0 += tokens.0.max(0) as u64;
                    t.1 += tokens.1.max(0) as u64;
                }
                let group = e.group.clone();
                self.progress.tokens(&group, false, tokens);
            }
        }
        let Some(e) = self.entries.get_mut(&ticket) else {
            return;
        };
        if e.external.is_effect() {
            // What ran may have changed any file: shared inputs are checked again.
            self.shared.sets_held.invalidate();
        }
        let recorded_kind = recorded(e.external, &e.request);
        if !store_on || !recorded_kind {
            self.ended(ticket, result, "");
            return;
        }
        if let Request::Delay(_) | Request::Llm(_) = e.request {
            // Nothing to look at: record on the spot.
            if let (Ok(reply), Some(k)) = (&result, &e.keyed) {
                let took = e.started.map(|(_, i)| i.elapsed()).unwrap_or_default();
                let facts = Facts {
                    external: e.external.name,
                    reply,
                    took,
                    place: &e.place,
                    shown: &e.shown,
                };
                let made = recording::plain(&k.pre, &facts);
                self.batch.records.push((made.key, k.pre, made.record));
                self.stats.recorded += 1;
                if let (Request::Llm(l), Some(at)) = (&e.request, &e.paid_place) {
                    // What this place asked, for `--explain` of a later run.
                    let rec = crate::external::store::record::Record {
                        version: crate::external::store::record::RECORD_VERSION,
                        external: e.external.name.to_string(),
                        reply: Some(crate::external::store::record::StoredReply::from_reply(
                            &Reply::Text(l.canonical.clone()),
                        )),
                        place: e.place.clone(),
                        ..Default::default()
                    };
                    self.batch.records.push((*at, *at, rec));
                }
                // A model's answer cost money: handed to the writer now, not after
                // COMMIT_EVERY, so that a run stopped from here on keeps it (a signal
                // waits for the writer: `writer::wait_for_writes`).
                if e.external.is_paid() {
                    self.paid_unwritten = true;
                    self.maybe_commit(false);
                }
            }
            self.ended(ticket, result, "");
            return;
        }
        e.stage = Stage::Finishing;
        e.generation += 1;
        let job = Job::Finish {
            ticket,
            generation: e.generation,
            external: e.external.name,
            request: e.request.clone(),
            keyed: e.keyed.clone(),
            recording: e.recording.clone(),
            reading: e.reading.clone(),
            writing: e.writing.clone(),
            result,
            duration: e.started.map(|(_, i)| i.elapsed()).unwrap_or_default(),
            place: e.place.clone(),
            shown: e.shown.clone(),
        };
        self.send_job(job);
    }

    /// An attempt is over: retry it, or report it.
    fn ended(&mut self, ticket: Ticket, result: Result<Reply, CallError>, note: &str) {
        let retries = self.config.retries;
        let Some(e) = self.entries.get_mut(&ticket) else {
            return;
        };
        let exit = exit_code(&result);
        if let Err(err) = &result {
            self.stats.failed += 1;
            let may_retry = e.external.retried_by_driver()
                && e.attempt <= retries
                && retryable(err)
                && !crate::external::lifetime::is_closing();
            if may_retry {
                let wait = Duration::from_secs(1u64 << (e.attempt - 1).min(16));
                let mut detail = format!(
                    "attempt {}/{}: {}; again in {} s",
                    e.attempt,
                    retries + 1,
                    err.message,
                    wait.as_secs()
                );
                if !note.is_empty() {
                    detail.push_str(&format!("; {note}"));
                }
                let line_entry = EntryLine::of(e).owned();
                // Its next attempt writes them again: what was not moved yet stays.
                self.pending_moves.retain(|m| m.ticket != ticket);
                let Some(e) = self.entries.get_mut(&ticket) else {
                    return;
                };
                e.attempt += 1;
                e.stage = Stage::Backoff;
                e.generation += 1;
                e.started = None;
                let generation = e.generation;
                self.write_line(&line_entry, Status::Failed, exit, &detail);
                self.stats.retried += 1;
                // Not a failure the driver must see first: the gate may open.
                self.undelivered.remove(&ticket);
                if self.undelivered.is_empty() {
                    for e in &mut self.executors {
                        e.open_gate();
                    }
                }
                self.backoff
                    .push(Reverse((Instant::now() + wait, ticket, generation)));
                return;
            }
        }
        let Some(e) = self.entries.remove(&ticket) else {
            return;
        };
        let (status, detail) = match &result {
            Ok(_) => (Status::Ok, note.to_string()),
            Err(err) => {
                let mut d = err.message.clone();
                if e.attempt > 1 {
                    d = format!("attempt {}/{}: {d}", e.attempt, retries + 1);
                }
                if !note.is_empty() {
                    d.push_str(&format!("; {note}"));
                }
                (Status::Failed, d)
            }
        };
        self.end_line(&e, status, exit, &detail);
        if let (Some(j), Ok(reply)) = (e.journal, &result) {
            self.journal(&e, j, reply);
        }
        self.ready.push((ticket, Answer::Done(result)));
    }

    fn take_started(&mut self) {
        let started: Vec<(Ticket, SystemTime)> = self
            .executors
            .iter_mut()
            .flat_map(|e| e.take_started())
            .collect();
        for (t, at) in started {
            self.mark_started(t, at);
        }
    }

    fn mark_started(&mut self, t: Ticket, at: SystemTime) {
        if let Some(e) = self.entries.get_mut(&t)
            && e.started.is_none()
        {
            e.started = Some((at, Instant::now()));
            let g = e.group.clone();
            self.progress.started(&g);
        }
    }
}

impl Drop for Calls {
    /// Cancels what is in flight, writes the last records, and ends the helper threads
    /// (so the store is closed when this returns).
    fn drop(&mut self) {
        self.shutdown();
        self.maybe_commit(true);
        self.writer = None;
        self.jobs_tx = None;
        for h in self.helper_threads.drain(..) {
            let _ = h.join();
        }
    }
}
