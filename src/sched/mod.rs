//! Fibers, certainty and the opportunistic scheduler (DESIGN.md section 4; OPAL and
//! Epic).
//!
//! A script written as plain sequential code runs its independent external calls at
//! the same time. The machine ([`crate::machine`]) runs several **fibers** over one heap,
//! each with its own frames; the running fiber's stacks are the machine's, the others
//! wait here (switching swaps the vectors, nothing is copied). The interpreter stays on
//! one thread; calls go to the machine's call layer ([`crate::external::calls`]).
//!
//! - **Certainty.** A fiber is *certain* when the sequential run is sure to need what
//!   it computes: fiber 0 (what the caller of `run` asked for), fibers forked for work
//!   a certain fiber will certainly need, and any fiber a certain one waits for
//!   (promotion). Others are *speculative*. An `effect` call starts only from a
//!   certain fiber; a speculative fiber that reaches one waits until it becomes
//!   certain (or is never needed). `pure` and `reads` calls start from any fiber.
//! - **Forks when a certain fiber parks.** When a certain fiber waits for a call, its
//!   continuation is looked at (only the frames pushed since it last parked, so the
//!   cost is proportional to what changed): the other operand of a strict binary
//!   operator, the arguments a primitive or external will evaluate, the parts of a
//!   normal-form walk (an external's arguments, the printed result) are certainly
//!   needed and each gets a certain fiber of its own, if its code may reach an
//!   external at all (pure computation gains nothing from a fiber).
//! - **Speculation.** What else the parked fibers' frames and records hold (list
//!   tails, `let`-bound values, arguments of unknown functions), and the fields of what
//!   speculative fibers compute, goes on a frontier; when no certain fiber can run,
//!   speculative fibers evaluate frontier thunks, in slices, within a budget of steps
//!   that certain progress renews. This is how `sum (map slow xs)` starts every call
//!   at once though `sum` needs one element at a time.
//! - **Futures.** A certain fiber waiting inside a strict evaluation (a strict
//!   argument, a strict `let`, `prim_seq`'s first operand) hands that evaluation to a
//!   fiber of its own and goes on past it ([`futures`]), keeping the sequential
//!   order of errors and printed text.
//! - **Black holes** record the fiber evaluating them. A fiber that needs another's
//!   parks on it; needing one's own, or a cycle of fibers waiting on each other, is
//!   `infinite loop`, as it is sequentially. A fiber that fails leaves its black holes
//!   failed with its error, raised again if anything needs them: the sequential
//!   result.
//!
//! `--sequential` runs with a host of its own ([`Sequential`]): one fiber, calls when
//! needed. Both hosts make calls through one call policy ([`policy`]).

mod futures;
pub mod policy;
pub mod sequential;

pub use policy::{CallPolicy, SharedPolicy};
pub use sequential::Sequential;

use crate::external::calls::{Answer, Finished};
use crate::external::exec::{Limits, Priority, Ticket};
use crate::machine::Machine;
use crate::machine::code::Code;
use crate::machine::error::{Result, RuntimeError};
use crate::machine::frame::{Control, Frame, Stacks};
use crate::machine::heap::ThunkState;
use crate::machine::host::{CallRequest, HeldRef, Host};
use crate::machine::value::{NIL, Ref, Val};
use policy::{CallKey, NOT_STARTED, PLANNED, Prepared, ReadyCall};
use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

/// How many built constructor objects [`Scheduler::push_frontier`] looks into for
/// thunks to speculate on.
const FRONTIER_LOOKAHEAD: usize = 64;

/// How far [`Host::wait_thunk`] follows a chain of fibers waiting on each other
/// for a cycle.
const WAIT_CHAIN: usize = 32;

/// How many data objects [`Scheduler::word_may_call`] looks into for work that may
/// call.
const DATA_LOOK: usize = 16;

/// Steps a fiber runs before others get a turn.
const SLICE: u64 = 20_000;

/// Steps speculation may take while no certain fiber makes progress.
const SPEC_BUDGET: i64 = 2_000_000;
/// Steps between two looks for finished calls while there is work to run (a look costs
/// a few clock readings and channel probes; when nothing can run the scheduler waits
/// for the calls at once instead).
const POLL_EVERY: u64 = 1024;

/// Steps between two looks for streams the program no longer needs.
const SWEEP_EVERY: u64 = 200_000;

/// Most speculative fibers alive at once, besides one for each call the limits let
/// run at once (a fiber waiting for its call costs little).
const SPEC_FIBERS: usize = 20_000;

/// Steps of speculation each call speculation finds buys (speculation that keeps
/// finding calls goes on; speculation that finds none, say down an infinite list,
/// runs out).
const SPEC_PER_CALL: i64 = 2_000;

/// What a fiber is doing.
#[derive(Debug)]
enum State {
    /// The slot is free.
    Free,
    /// Its stacks are the machine's.
    Running,
    /// Ready to go on from its saved control.
    Runnable,
    /// Waiting for a thunk another fiber is evaluating.
    WaitThunk(Ref),
    /// Waiting for a call (its own, or the same call another fiber made).
    WaitCall,
    /// Speculative, at an `effect` call: waiting to become certain.
    WaitCertain,
}

/// A fiber that is not running: its stacks and what it does next.
struct Fiber {
    stacks: Stacks,
    ctl: Option<Control>,
    error: Option<RuntimeError>,
    state: State,
    certain: bool,
    /// Frames below this height were looked at when the fiber last parked.
    scanned: usize,
    /// The frame just below that height then: if it is not there any more, the
    /// fiber returned below it since, and its frames are looked at again.
    scan_mark: Option<Frame>,
    /// Its call waiting to become certain.
    blocked: Option<ReadyCall>,
    /// The thunk it was forked to evaluate, and whether to normal form, until it first
    /// runs ([`Scheduler::queued_forks`]).
    forked_for: Option<(Ref, bool)>,
    /// The thunk it was forked to walk to normal form (a helper walk: see
    /// [`Host::walked_elsewhere`]), until it ends.
    walks: Option<Ref>,
    /// The futures it made, oldest first, until they end well ([`futures`]).
    futures: VecDeque<futures::Future>,
    /// The call it waits for ([`State::WaitCall`]).
    call_wait: Option<CallWait>,
}

/// The call a fiber waits for.
#[derive(Debug, Clone)]
enum CallWait {
    /// Its own, in flight under this ticket.
    Ticket(u64),
    /// The same call another fiber made (it is among `running`'s waiters).
    Shared(CallKey),
}

impl Fiber {
    /// Records that the frames below `h` have been looked at.
    fn mark_scanned(&mut self, h: usize) {
        self.scanned = h;
        self.scan_mark = h.checked_sub(1).map(|i| self.stacks.frames[i]);
    }

    /// The height from which frames have not been looked at: where the last look
    /// ended, unless the fiber returned below that since (then from the bottom).
    fn scan_from(&self) -> usize {
        match self.scanned {
            0 => 0,
            h if h <= self.stacks.frames.len()
                && Some(self.stacks.frames[h - 1]) == self.scan_mark =>
            {
                h
            }
            _ => 0,
        }
    }

    fn new() -> Fiber {
        Fiber {
            stacks: Stacks::default(),
            ctl: None,
            error: None,
            state: State::Free,
            certain: false,
            scanned: 0,
            scan_mark: None,
            blocked: None,
            forked_for: None,
            walks: None,
            futures: VecDeque::new(),
            call_wait: None,
        }
    }
}

/// A call in flight.
struct InFlight {
    fiber: u32,
    ext: &'static crate::external::registry::External,
    key: Option<CallKey>,
    passthrough: Option<Val>,
    span: crate::syntax::span::Span,
}

/// The scheduler.
pub struct Scheduler<'p> {
    /// The call policy, shared with the run's owner.
    policy: SharedPolicy<'p>,
    fibers: Vec<Fiber>,
    free: Vec<u32>,
    certain_q: VecDeque<u32>,
    spec_q: VecDeque<u32>,
    waiters: HashMap<Ref, Vec<u32>>,
    /// Shared calls in flight: the fibers waiting for them besides the maker.
    running: HashMap<CallKey, Vec<u32>>,
    tickets: HashMap<u64, InFlight>,
    /// Calls `--plan` did not make (their fibers never resume).
    planned: u64,
    /// The fibers waiting for those calls (the maker and those that wanted the same
    /// call), with the call's ticket.
    planned_waits: Vec<(u64, u32)>,
    frontier: VecDeque<Val>,
    spec_live: usize,
    spec_budget: i64,
    /// The step count before which a look for finished calls is skipped.
    next_poll: u64,
    /// The step count before which no look for unneeded streams is made.
    next_sweep: u64,
    /// Most speculative fibers alive at once.
    spec_fibers: usize,
    slice_end: u64,
    /// Steps when the running fiber was resumed (for the speculation budget).
    resumed_at: u64,
    dispatched: u64,
    /// Per code node: whether its evaluation may reach an external (memo).
    may_call: HashMap<u32, bool>,
    /// Thunks a forked fiber will evaluate and that it has not started yet: the fiber.
    /// Every fiber that parks with the thunk still in its continuation would fork it
    /// again; several fibers walking one list each forked its rest, so the fibers grew
    /// with the square of the list (issue 24: a `--resume` answering many calls at
    /// once ran out of memory).
    queued_forks: HashMap<Ref, u32>,
    /// Thunks a helper fiber walks to normal form: the fiber.
    helper_walks: HashMap<Ref, u32>,
    /// Whether spine walks are started (not when `SPINDLE_SPINES_OFF` is set, for
    /// comparisons).
    spines_on: bool,
    /// Thunks a spine walk holds, with how many walks hold each: their spines are
    /// certainly needed (a walk covers the tails it reaches, so another walk on one of
    /// them is not started). A walk holds what it notes here (it is counted), so an
    /// entry never outlives its thunk.
    spine_held: HashMap<Ref, u32>,
    /// Bytes the saved stacks of fibers not running take (kept up to date by
    /// [`Scheduler::save`], for `--max-memory`).
    saved_bytes: usize,
    /// Whether blocked strict evaluations become futures ([`futures`]; on unless
    /// `SPINDLE_FUTURES_OFF` is set, for comparisons).
    futures_on: bool,
    /// Parked fibers that became certain since the scheduler last chose a fiber:
    /// their frames are looked at again.
    promoted: Vec<u32>,
    /// Per `match` and demand on its value: what it needs
    /// whichever arm it takes ([`Machine::case_needs`], memo).
    case_needs: HashMap<(u32, u8), ArmNeeds>,
    /// Whether a certain fiber whose `match` waits forks what every arm needs (not
    /// when `SPINDLE_ARMS_OFF` is set, for comparisons).
    arms_on: bool,
}

/// What a `match` needs whichever arm it takes: (parent hops, slot, demand) of the
/// variables of its record chain ([`Machine::case_needs`]).
type ArmNeeds = Rc<[(u32, u32, u8)]>;

impl<'p> Scheduler<'p> {
    /// A scheduler making its calls through this policy (whose call layer holds the
    /// concurrency limits).
    pub fn new(policy: SharedPolicy<'p>) -> Scheduler<'p> {
        let mut root = Fiber::new();
        root.state = State::Running;
        root.certain = true;
        Scheduler {
            policy,
            fibers: vec![root],
            free: Vec::new(),
            certain_q: VecDeque::new(),
            spec_q: VecDeque::new(),
            waiters: HashMap::default(),
            running: HashMap::default(),
            tickets: HashMap::default(),
            planned: 0,
            planned_waits: Vec::new(),
            frontier: VecDeque::new(),
            spec_live: 0,
            spec_budget: SPEC_BUDGET,
            next_poll: 0,
            next_sweep: 0,
            spec_fibers: SPEC_FIBERS,
            slice_end: u64::MAX,
            resumed_at: 0,
            dispatched: 0,
            may_call: HashMap::default(),
            queued_forks: HashMap::default(),
            helper_walks: HashMap::default(),
            spine_held: HashMap::default(),
            saved_bytes: 0,
            futures_on: std::env::var_os("SPINDLE_FUTURES_OFF").is_none(),
            spines_on: std::env::var_os("SPINDLE_SPINES_OFF").is_none(),
            promoted: Vec::new(),
            case_needs: HashMap::default(),
            arms_on: std::env::var_os("SPINDLE_ARMS_OFF").is_none(),
        }
    }

    /// Installs a scheduler on a machine, making calls through `policy`: the machine
    /// runs in parallel from now on.
    pub fn install_with(m: &mut Machine<'p>, limits: Limits, policy: SharedPolicy<'p>) {
        let mut s = Scheduler::new(policy);
        s.spec_fibers = SPEC_FIBERS + limits.jobs + limits.io_jobs;
        m.set_host(Box::new(s));
    }

    /// Installs a scheduler with a call layer of these limits (no store, no progress),
    /// and returns the policy's handle.
    pub fn install(m: &mut Machine<'p>, limits: Limits) -> SharedPolicy<'p> {
        let p = policy::CallPolicy::plain(limits).shared();
        Scheduler::install_with(m, limits, p.clone());
        p
    }

    // ----- fibers -----------------------------------------------------------------

    /// A free fiber slot (not queued anywhere).
    fn slot(&mut self) -> u32 {
        match self.free.pop() {
            Some(id) => id,
            None => {
                self.fibers.push(Fiber::new());
                (self.fibers.len() - 1) as u32
            }
        }
    }

    /// Fiber `id` waits for thunk `t`, which another fiber evaluates: it is woken
    /// when `t` is written ([`Host::wake`]).
    fn wait_on(&mut self, m: &mut Machine<'p>, id: u32, t: Ref) {
        self.waiters.entry(t).or_default().push(id);
        m.heap.thunks.get_mut(t).waiters = true;
        self.fibers[id as usize].state = State::WaitThunk(t);
    }

    fn spawn(&mut self, ctl: Control, certain: bool) -> u32 {
        let id = self.slot();
        let f = &mut self.fibers[id as usize];
        f.ctl = Some(ctl);
        f.error = None;
        f.state = State::Runnable;
        f.certain = certain;
        f.mark_scanned(0);
        if certain {
            self.certain_q.push_back(id);
        } else {
            self.spec_live += 1;
            self.spec_q.push_back(id);
        }
        id
    }

    /// Moves the machine's stacks into fiber `id` (and the fiber's into the machine).
    fn save(&mut self, m: &mut Machine<'p>, id: u32) {
        let f = &mut self.fibers[id as usize];
        let before = f.stacks.bytes();
        std::mem::swap(&mut f.stacks, &mut m.stacks);
        self.saved_bytes = (self.saved_bytes + f.stacks.bytes()).saturating_sub(before);
    }

    /// Makes fiber `id` the running one and returns what it does next.
    fn resume(&mut self, m: &mut Machine<'p>, id: u32) -> Result<Control> {
        self.save(m, id);
        m.fiber = id;
        let f = &mut self.fibers[id as usize];
        f.state = State::Running;
        if let Some((t, _)) = f.forked_for.take()
            && self.queued_forks.get(&t) == Some(&id)
        {
            self.queued_forks.remove(&t);
        }
        self.slice_end = m.run.steps + SLICE;
        self.resumed_at = m.run.steps;
        if f.certain {
            self.spec_budget = SPEC_BUDGET;
        }
        if let Some(e) = f.error.take() {
            return Err(e);
        }
        Ok(f.ctl.take().unwrap_or(Control::Ret(Val::Erased)))
    }

    fn make_runnable(&mut self, id: u32) {
        let f = &mut self.fibers[id as usize];
        f.state = State::Runnable;
        if f.certain {
            self.certain_q.push_back(id);
        } else {
            self.spec_q.push_back(id);
        }
    }

    /// Charges the running fiber's steps to the speculation budget.
    fn charge(&mut self, m: &Machine<'p>) {
        if !self.fibers[m.fiber as usize].certain {
            self.spec_budget -= (m.run.steps - self.resumed_at) as i64;
        }
        self.resumed_at = m.run.steps;
    }

    /// Picks the next fiber to run, waiting for calls when none can.
    fn next(&mut self, m: &mut Machine<'p>) -> Result<Control> {
        while let Some(id) = self.promoted.pop() {
            let f = &mut self.fibers[id as usize];
            if f.certain && matches!(f.state, State::WaitCall | State::WaitThunk(_)) {
                f.mark_scanned(0);
                self.scan(m, id);
                self.cut(m, id);
            }
        }
        loop {
            self.poll(m, Some(Duration::ZERO));
            while let Some(id) = self.certain_q.pop_front() {
                if matches!(self.fibers[id as usize].state, State::Runnable) {
                    return self.resume(m, id);
                }
            }
            if self.spec_budget > 0 {
                while let Some(id) = self.spec_q.pop_front() {
                    let f = &self.fibers[id as usize];
                    if matches!(f.state, State::Runnable) && !f.certain {
                        return self.resume(m, id);
                    }
                }
                if self.speculate(m) {
                    continue;
                }
            }
            if !self.tickets.is_empty() {
                // Streams nobody needs any more stop first: their producers may be
                // what the calls in flight wait on (a full pipe).
                self.policy.borrow_mut().unneeded_streams(m);
                self.poll(m, None);
                continue;
            }
            // Nothing can run and nothing is in flight: the fibers wait on each
            // other. Fiber 0 gets the error a sequential run would: an infinite loop.
            if !self.spec_q.is_empty() {
                // Speculation is out of budget but is all that is left.
                self.spec_budget = SPEC_BUDGET;
                continue;
            }
            let error = if self.planned > 0 {
                let waiting = self.plan_frontier(m);
                self.policy.borrow_mut().layer().plan_blocked(waiting);
                RuntimeError::new(crate::machine::error::ErrorKind::Planned, PLANNED)
            } else {
                RuntimeError::new(
                    crate::machine::error::ErrorKind::InfiniteLoop,
                    "infinite loop",
                )
            };
            let f = &mut self.fibers[0];
            if let State::WaitThunk(t) = f.state {
                self.waiters.entry(t).or_default().retain(|&w| w != 0);
            }
            f.error = Some(error);
            if let Some(c) = f.ctl.take() {
                m.drop_ctl(c);
            }
            return self.resume(m, 0);
        }
    }

    /// Takes finished calls from the executor and wakes their fibers.
    fn poll(&mut self, m: &mut Machine<'p>, timeout: Option<Duration>) {
        if self.tickets.is_empty() {
            return;
        }
        let look = timeout.is_some_and(|t| t.is_zero());
        if look && m.run.steps < self.next_poll {
            return;
        }
        self.next_poll = m.run.steps + POLL_EVERY;
        let done: Vec<Finished> = match timeout {
            Some(t) if t.is_zero() => self.policy.borrow_mut().layer().poll(),
            t => {
                // Nothing to do but wait: what is printed so far goes out first.
                if let Some(o) = &mut m.printer.out {
                    o.flush();
                }
                self.policy.borrow_mut().layer().wait(t)
            }
        };
        for (ticket, answer) in done {
            let Some(call) = self.tickets.remove(&ticket.0) else {
                // A call producing a stream (nobody waits for it).
                self.policy.borrow_mut().stream_call_done(ticket, answer);
                continue;
            };
            let answer = match answer {
                Answer::Done(a) => a,
                Answer::Planned => {
                    // Never made: the fiber waits for good; so do the others that
                    // wanted the same call. What they would do after it without its
                    // value starts now.
                    self.planned += 1;
                    if let Some(v) = call.passthrough {
                        m.heap.release(v);
                    }
                    let mut blocked = vec![call.fiber];
                    if let Some(k) = &call.key {
                        blocked.extend(self.running.get(k).into_iter().flatten().copied());
                    }
                    for f in blocked {
                        self.planned_waits.push((ticket.0, f));
                        self.fork_past_barriers(m, f);
                    }
                    continue;
                }
            };
            if let Err(e) = &answer {
                self.failed_call(m, call.fiber, e, call.span);
            }
            let r = self.policy.borrow_mut().conclude(
                m,
                call.ext,
                call.key.as_ref(),
                call.passthrough,
                call.span,
                answer,
            );
            self.answer(m, call.fiber, call.key.as_ref(), r);
        }
    }

    /// A call ended: its maker `fiber` and the fibers waiting for the same call (by
    /// `key`) go on with the value (owned; a reference each) or the error.
    fn answer(&mut self, m: &mut Machine<'p>, fiber: u32, key: Option<&CallKey>, r: Result<Val>) {
        if let Some(key) = key {
            for w in self.running.remove(key).unwrap_or_default() {
                if let Ok(v) = &r {
                    m.heap.retain(*v);
                }
                self.finish_call(w, r.clone());
            }
        }
        self.finish_call(fiber, r);
    }

    /// A fiber's call ended: it goes on with the value (owned) or the error.
    fn finish_call(&mut self, id: u32, r: Result<Val>) {
        self.fibers[id as usize].call_wait = None;
        match r {
            Ok(v) => self.fibers[id as usize].ctl = Some(Control::Ret(v)),
            Err(e) => self.fibers[id as usize].error = Some(e),
        }
        self.make_runnable(id);
    }

    /// A call failed. If its fiber is certain and no `try` is anywhere on the stacks,
    /// the failure is certain to end the run (LANGUAGE.md 11): its report is shown at
    /// once, no new effect call starts from now on, and with `--fail-fast` the calls
    /// still running are stopped.
    fn failed_call(
        &mut self,
        m: &mut Machine<'p>,
        fiber: u32,
        e: &crate::external::request::CallError,
        span: crate::syntax::span::Span,
    ) {
        if self.policy.borrow().has_failed() || !self.fibers[fiber as usize].certain {
            return;
        }
        let has_try = |frames: &[Frame]| frames.iter().any(|f| matches!(f, Frame::Try));
        if has_try(&m.stacks.frames) || self.fibers.iter().any(|f| has_try(&f.stacks.frames)) {
            return;
        }
        let err = policy::call_error(e, span);
        let mut policy = self.policy.borrow_mut();
        let place = policy
            .place_of(m, crate::machine::code::Site::UNKNOWN, span)
            .shown;
        if !self.tickets.is_empty() {
            let report = format!("error: {place}: {}", err.message);
            policy.layer().eprintln(&report);
        }
        let fail_fast = policy.fail_fast();
        policy.decided_by(err);
        drop(policy);
        if fail_fast {
            self.stopped_calls(m);
        }
    }

    /// `--fail-fast` stopped every call in flight: they never answer, so their fibers
    /// (and those waiting for the same calls) fail now with [`NOT_STARTED`], which the
    /// run reports as the failure that stopped them
    /// ([`final_error`](crate::machine::Machine::final_error)).
    ///
    /// [`NOT_STARTED`]: NOT_STARTED
    fn stopped_calls(&mut self, m: &mut Machine<'p>) {
        let stopped: Vec<u64> = self.tickets.keys().copied().collect();
        for t in stopped {
            let Some(c) = self.tickets.remove(&t) else {
                continue;
            };
            if let Some(v) = c.passthrough {
                m.heap.release(v);
            }
            let e = RuntimeError::at(
                crate::machine::error::ErrorKind::NotStarted,
                NOT_STARTED,
                c.span,
            );
            self.answer(m, c.fiber, c.key.as_ref(), Err(e));
        }
    }

    /// `--plan`: fiber `id` waits for a call that will not be made in this run. The
    /// work its frames order after that call without using its value (`after a b`:
    /// `b`; `prim_seq a b`: `b`; a known call's later strict arguments) is certainly
    /// needed all the same, and gets a certain fiber, so that the plan lists the calls
    /// beyond (nothing is performed: every effect call is planned, and `reads` calls
    /// read the files as they are now). A normal run never does this: there the order
    /// is the point (`after (run "mkdir" ...) (writeFile ...)`).
    fn fork_past_barriers(&mut self, m: &mut Machine<'p>, id: u32) {
        if !self.fibers[id as usize].certain {
            return;
        }
        let frames = self.fibers[id as usize].stacks.frames.clone();
        for fr in frames {
            match fr {
                Frame::After(v) => {
                    m.heap.retain(v);
                    self.fork(m, v, false);
                }
                Frame::SeqB { b, env } if self.code_may_call(m, b) => {
                    let t = m.mkarg(b, env);
                    self.fork(m, t, false);
                }
                // A known call's later strict arguments (`after a b` calls the
                // prelude's `after`, strict in both).
                Frame::CallArgs {
                    code, env, next, ..
                } => {
                    let Code::CallDef { args, strict, .. } = m.code.nodes[code as usize] else {
                        continue;
                    };
                    for i in next + 1..args.len.min(64) {
                        let a = m.code.args[(args.start + i) as usize];
                        if strict & (1 << i) != 0 && self.code_may_call(m, a) {
                            let t = m.mkarg(a, env);
                            self.fork(m, t, false);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `--plan`, at the end: how many of the calls not made are waited for by fibers
    /// that may go on to make more calls once they have the value (what the plan
    /// cannot see past).
    fn plan_frontier(&mut self, m: &Machine<'p>) -> usize {
        let waits = std::mem::take(&mut self.planned_waits);
        let mut tickets: Vec<u64> = waits
            .iter()
            .filter(|(_, f)| self.may_go_on(m, *f, 0))
            .map(|(t, _)| *t)
            .collect();
        tickets.sort_unstable();
        tickets.dedup();
        tickets.len()
    }

    /// Whether fiber `id`'s continuation may reach an external (a pending external
    /// call, code or a thunk that may call, or a fiber waiting for a thunk it is
    /// updating that may). Conservative where it cannot tell.
    fn may_go_on(&mut self, m: &Machine<'p>, id: u32, depth: u32) -> bool {
        if depth > 8 {
            return true;
        }
        let frames = self.fibers[id as usize].stacks.frames.clone();
        let held: Vec<Val> = {
            let f = &self.fibers[id as usize];
            f.stacks
                .pending
                .iter()
                .chain(f.stacks.deep.iter())
                .copied()
                .collect()
        };
        if held.iter().any(|v| self.worth_forking(m, *v)) {
            return true;
        }
        for fr in frames.iter().rev() {
            let found = match *fr {
                Frame::Strict {
                    op: crate::machine::frame::StrictOp::Extern(..),
                    ..
                } => true,
                Frame::BinL { b, .. } | Frame::SeqB { b, .. } => self.code_may_call(m, b),
                Frame::LetStrict { body, .. } => self.code_may_call(m, body),
                Frame::CallArgs { code, .. } => self.code_may_call(m, code),
                Frame::Case { m: mi, .. } => {
                    let node = m.code.matches[mi as usize].node;
                    self.code_may_call(m, node)
                }
                Frame::Arg(v, _)
                | Frame::After(v)
                | Frame::BinLv { b: v, .. }
                | Frame::ConcatL { b: v, .. }
                | Frame::EqLeft(v) => self.worth_forking(m, v),
                Frame::Update(t) => {
                    let waiting = self.waiters.get(&t).cloned().unwrap_or_default();
                    waiting.into_iter().any(|w| self.may_go_on(m, w, depth + 1))
                }
                _ => false,
            };
            if found {
                return true;
            }
        }
        false
    }

    /// Makes fiber `id`, and whatever it waits for, certain.
    fn promote(&mut self, m: &mut Machine<'p>, id: u32) {
        let mut work = vec![id];
        let mut seen = 0;
        while let Some(f) = work.pop() {
            seen += 1;
            if seen > self.fibers.len() * 2 {
                break;
            }
            let fib = &mut self.fibers[f as usize];
            if fib.certain || matches!(fib.state, State::Free) {
                continue;
            }
            fib.certain = true;
            self.spec_live = self.spec_live.saturating_sub(1);
            if !matches!(fib.state, State::Running | State::Runnable) {
                // What it parked on was looked at while it was speculative: look again
                // (the other operands it will need are now certainly needed too).
                self.promoted.push(f);
            }
            match fib.state {
                State::Runnable => self.certain_q.push_back(f),
                State::WaitThunk(t) => {
                    if let ThunkState::Blackholed { fiber, .. } = m.heap.thunks.get(t).state {
                        work.push(fiber);
                    }
                }
                State::WaitCertain => {
                    if let Some(req) = fib.blocked.take() {
                        let saved = m.fiber;
                        m.fiber = f;
                        fib.state = State::WaitCall;
                        self.dispatch(m, req);
                        m.fiber = saved;
                    }
                }
                State::WaitCall => {
                    if let Some(CallWait::Ticket(t)) = fib.call_wait {
                        self.policy.borrow_mut().layer().promote(Ticket(t));
                    }
                }
                State::Running | State::Free => {}
            }
        }
    }

    /// Starts a call for the running fiber (which parks).
    fn dispatch(&mut self, m: &mut Machine<'p>, req: ReadyCall) {
        let id = m.fiber;
        if let Some(k) = &req.key {
            self.running.insert(k.clone(), Vec::new());
        }
        let ticket = self.policy.borrow_mut().ticket();
        self.dispatched += 1;
        if !self.fibers[id as usize].certain {
            self.spec_budget = (self.spec_budget + SPEC_PER_CALL).min(SPEC_BUDGET * 16);
        }
        let priority = if self.fibers[id as usize].certain {
            Priority::Certain
        } else {
            Priority::Speculative
        };
        let ext = req.call.external;
        let mut ticket = ticket;
        let mut policy = self.policy.borrow_mut();
        policy
            .layer()
            .submit_request(Ticket(ticket), req.call, req.request, priority);
        if let Some(stream) = &req.stream {
            // The call producing a stream ends when the stream does, and nobody waits
            // for it: the fiber waits for the stream's first items.
            let next = policy.stream_started(stream, Ticket(ticket));
            ticket = policy.ticket();
            let call = crate::external::calls::Call::new(ext, Vec::new(), Default::default());
            policy
                .layer()
                .submit_request(Ticket(ticket), call, next, priority);
        }
        drop(policy);
        self.tickets.insert(
            ticket,
            InFlight {
                fiber: id,
                ext,
                key: req.key,
                passthrough: req.passthrough,
                span: req.span,
            },
        );
        let f = &mut self.fibers[id as usize];
        f.state = State::WaitCall;
        f.call_wait = Some(CallWait::Ticket(ticket));
    }

    // ----- finding work -----------------------------------------------------------

    /// Whether code may reach an external when evaluated (walks its core term, with
    /// unknown functions assumed to).
    fn code_may_call(&mut self, m: &Machine<'p>, c: u32) -> bool {
        if let Some(&b) = self.may_call.get(&c) {
            return b;
        }
        let b = match m.code.nodes[c as usize] {
            Code::Int(_)
            | Code::Float(_)
            | Code::Char(_)
            | Code::Str(_)
            | Code::Atom(_)
            | Code::Erased => false,
            _ => crate::machine::analysis::may_call(m.facts(), m.code.meta[c as usize].core),
        };
        self.may_call.insert(c, b);
        b
    }

    /// Whether evaluating code in a record may reach an external: a variable by what
    /// it holds (a thunk whose code may call), other code by its own.
    fn operand_may_call(&mut self, m: &mut Machine<'p>, c: u32, env: Ref) -> bool {
        match m.var_word(c, env) {
            Some(w) => self.worth_forking(m, w),
            None => self.code_may_call(m, c) || self.env_may_call(m, env),
        }
    }

    /// Whether a word is a thunk not evaluated yet whose code may reach an external.
    fn worth_forking(&mut self, m: &Machine<'p>, v: Val) -> bool {
        match v {
            Val::Thunk(t) => match m.heap.thunks.get(t).state {
                ThunkState::Suspended { code, env } => self.suspended_may_call(m, code, env, 3),
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether code in a record may reach an external when evaluated. A known call of
    /// a function that reaches none but through the functions it is given (`map g
    /// rest`, `foldr f z xs`) may only if one of its arguments may: a function whose
    /// body may, or a thunk that may (looked at `depth` levels deep). So printing or
    /// walking `map (\l -> l ++ "\n") lines` forks no fiber that would only read
    /// ahead and hold what it read.
    fn suspended_may_call(&mut self, m: &Machine<'p>, code: u32, env: Ref, depth: u32) -> bool {
        if !(self.code_may_call(m, code) || self.env_may_call(m, env)) {
            return false;
        }
        let Code::CallDef { def, args, .. } = m.code.nodes[code as usize] else {
            return true;
        };
        if depth == 0 || crate::machine::analysis::calls_itself(m.facts(), def) {
            return true;
        }
        m.code.args(args).iter().any(|&a| {
            let word = match m.code.nodes[a as usize] {
                Code::Local(s) if env != NIL => Some(m.heap.slot(env, s)),
                Code::Outer { hops, slot } if env != NIL => {
                    Some(m.heap.slot(m.heap.up(env, hops), slot))
                }
                _ => None,
            };
            match word {
                Some(w) => self.word_may_call(m, w, depth - 1),
                None => self.code_may_call(m, a) || self.env_may_call(m, env),
            }
        })
    }

    /// Whether using a word may reach an external: a thunk whose code may (or one being
    /// evaluated), a function whose body may; data by its fields one level deep.
    fn word_may_call(&mut self, m: &Machine<'p>, w: Val, depth: u32) -> bool {
        match m.heap.forced(w) {
            Val::Thunk(t) => match m.heap.thunks.get(t).state {
                ThunkState::Suspended { code, env } => self.suspended_may_call(m, code, env, depth),
                ThunkState::Blackholed { .. } => true,
                _ => false,
            },
            Val::Fun(f) => {
                let o = m.heap.funs.get(f);
                let body = m.code.funs[o.fun as usize].body;
                self.code_may_call(m, body) || self.env_may_call(m, o.env)
            }
            Val::Con(c) => {
                // Data: its fields, along its last field (a list's tail) for at most
                // `DATA_LOOK` objects.
                let mut cur = c;
                for _ in 0..DATA_LOOK {
                    let Some((&last, rest)) = m.heap.fields(cur).split_last() else {
                        return false;
                    };
                    for x in rest {
                        if !matches!(m.heap.forced(*x), Val::Con(_))
                            && self.word_may_call(m, *x, depth.saturating_sub(1))
                        {
                            return true;
                        }
                    }
                    match m.heap.forced(last) {
                        Val::Con(next) => cur = next,
                        other => return self.word_may_call(m, other, depth.saturating_sub(1)),
                    }
                }
                // Data evaluated this far holds nothing to start now; what lies beyond
                // is looked at again as the consumer moves along.
                false
            }
            Val::Pap(p) => {
                use crate::machine::heap::PapHead;
                let o = m.heap.paps.get(p);
                let (head, run) = (o.head, o.args);
                let head_may = match head {
                    PapHead::Con(_) | PapHead::Data(_) | PapHead::Prim(..) => false,
                    PapHead::Def(d) => m
                        .facts()
                        .is_none_or(|f| f.may_call.get(d.0 as usize).copied().unwrap_or(true)),
                    PapHead::Fun(f) => self.word_may_call(m, Val::Fun(f), depth),
                    PapHead::Extern(..) | PapHead::Open(_) | PapHead::Hole(_) => true,
                };
                head_may || {
                    m.heap.words.get(run).iter().any(|&x| {
                        if depth == 0 {
                            // Not looked into: a thunk may hold anything.
                            matches!(m.heap.forced(x), Val::Thunk(_))
                        } else {
                            self.word_may_call(m, x, depth - 1)
                        }
                    })
                }
            }
            _ => false,
        }
    }

    /// Whether a record's own slots hold work that may reach an external: a thunk
    /// whose code may, or one being evaluated (by a speculative fiber, perhaps at a
    /// call). Code that calls nothing can still need such a variable (`map toLine
    /// rest`, where `rest` holds the calls): it is worth a fiber too. One level only,
    /// so the look costs a record's slots.
    fn env_may_call(&mut self, m: &Machine<'p>, env: Ref) -> bool {
        if env == NIL {
            return false;
        }
        let slots: Vec<Val> = m.heap.rec_slots(env).to_vec();
        slots.into_iter().any(|w| match w {
            Val::Thunk(t) => match m.heap.thunks.get(t).state {
                ThunkState::Suspended { code, .. } => self.code_may_call(m, code),
                ThunkState::Blackholed { .. } => true,
                _ => false,
            },
            _ => false,
        })
    }

    /// Looks at what fiber `id` (parked, its stacks saved) will certainly need and at
    /// what it holds, from the frames pushed since it last parked.
    fn scan(&mut self, m: &mut Machine<'p>, id: u32) {
        let certain = self.fibers[id as usize].certain;
        let from = self.fibers[id as usize].scan_from();
        let top = self.fibers[id as usize].stacks.frames.len();
        for i in from..top {
            let fr = self.fibers[id as usize].stacks.frames[i];
            match fr {
                Frame::BinL { prim, b, env, span } if self.operand_may_call(m, b, env) => {
                    // The other operand is needed if this fiber's work is: a thunk,
                    // and a fiber (certain), or a place on the frontier (speculative).
                    let t = m.mkarg(b, env);
                    m.heap.release_rec(env);
                    self.fibers[id as usize].stacks.frames[i] = Frame::BinLv { prim, b: t, span };
                    m.heap.retain(t);
                    if certain {
                        self.fork(m, t, false);
                    } else {
                        self.push_frontier(m, t);
                        m.heap.release(t);
                    }
                }
                Frame::Case { m: mi, env } if certain && self.arms_on => {
                    self.fork_arm_needs(m, id, i, mi, env);
                    self.push_record(m, env);
                }
                Frame::BinL { env, .. }
                | Frame::Case { env, .. }
                | Frame::LetStrict { env, .. }
                | Frame::SeqB { env, .. }
                | Frame::CallArgs { env, .. } => self.push_record(m, env),
                // The other operand of a strict primitive, and the other side of a
                // comparison, are needed too: a fiber made certain since it turned
                // the operand into a thunk (put on the frontier while it was
                // speculative) forks it now.
                Frame::BinLv { b: v, .. } | Frame::EqLeft(v) if certain => self.need(m, v, false),
                // Both operands of `++` are needed (LANGUAGE.md 7.1).
                Frame::ConcatL { b: v, .. } if certain => {
                    m.heap.retain(v);
                    self.fork(m, v, false);
                }
                Frame::Arg(v, _) | Frame::ConcatL { b: v, .. } | Frame::EqLeft(v) => {
                    self.push_frontier(m, v)
                }
                _ => {}
            }
        }
        self.fibers[id as usize].mark_scanned(top);
        if certain {
            // Arguments of primitives and externals, and parts of normal-form walks,
            // are certainly needed.
            let held: Vec<Val> = {
                let f = &self.fibers[id as usize];
                f.stacks
                    .pending
                    .iter()
                    .chain(f.stacks.deep.iter())
                    .copied()
                    .collect()
            };
            for v in held {
                if self.worth_forking(m, v) {
                    m.heap.retain(v);
                    self.fork(m, v, true);
                }
            }
            // A part of a normal-form walk that is built already is needed whole: the
            // thunks inside get fibers, and the speculative fibers evaluating some of
            // them become certain (their calls start).
            let deep = self.fibers[id as usize].stacks.deep.clone();
            for v in deep {
                if matches!(v, Val::Thunk(_)) && self.worth_forking(m, v) {
                    continue; // forked above
                }
                let (found, owners) = crate::machine::unwind::Frontier::search_with_owners(
                    &m.heap,
                    &[v],
                    FRONTIER_LOOKAHEAD,
                    FRONTIER_LOOKAHEAD,
                );
                for t in found {
                    if self.worth_forking(m, t) {
                        m.heap.retain(t);
                        self.fork(m, t, true);
                    }
                }
                for o in owners {
                    if (o as usize) < self.fibers.len() && !self.fibers[o as usize].certain {
                        self.promote(m, o);
                    }
                }
            }
        }
    }

    /// For the `match` `mi` at frame `i` of certain fiber `id`, waiting for its
    /// scrutinee in record `env`: the values every arm needs are certainly needed
    /// whatever the test gives, so they get certain fibers (walks of their spines
    /// where the arms need those), and the calls they reach start while the test
    /// waits. `filter`'s test on a call's result, and a `foldr` whose step tests one,
    /// then run every test at once.
    fn fork_arm_needs(&mut self, m: &mut Machine<'p>, id: u32, i: usize, mi: u32, env: Ref) {
        use crate::machine::compile::spine::{NF, SPINE};
        let demand = m.demand_below(&self.fibers[id as usize].stacks.frames[..i]);
        let needs = match self.case_needs.get(&(mi, demand)) {
            Some(n) => n.clone(),
            None => {
                let n: ArmNeeds = m.case_needs(mi, demand).into();
                self.case_needs.insert((mi, demand), n.clone());
                n
            }
        };
        for &(hops, slot, d) in needs.iter() {
            let v = m.heap.slot(m.heap.up(env, hops), slot);
            if d == SPINE && self.spines_on && self.worth_forking(m, v) {
                m.heap.retain(v);
                Host::fork_spine(self, m, v);
            } else {
                self.need(m, v, d == NF);
            }
        }
    }

    /// `v` (borrowed) is certainly needed to weak head normal form, or (`deep`) to
    /// normal form: a certain fiber for it if it may reach a call; and a speculative
    /// fiber started on this very thunk is made certain (its calls start). One that
    /// reached the thunk inside other work is left alone: what it goes on with after
    /// the thunk is not known to be needed.
    fn need(&mut self, m: &mut Machine<'p>, v: Val, deep: bool) {
        if let Val::Thunk(t) = v
            && let ThunkState::Blackholed { fiber, .. } = m.heap.thunks.get(t).state
        {
            let root = self
                .fibers
                .get(fiber as usize)
                .filter(|f| !f.certain)
                .and_then(|f| f.stacks.frames.first().copied());
            if root == Some(Frame::Update(t)) {
                self.promote(m, fiber);
            }
        } else if self.worth_forking(m, v) {
            m.heap.retain(v);
            self.fork(m, v, deep);
        }
    }

    /// A certain fiber for a word (owned), to weak head normal form or (`deep`) to
    /// normal form.
    fn fork(&mut self, m: &mut Machine<'p>, v: Val, deep: bool) {
        let Val::Thunk(t) = v else {
            m.heap.release(v);
            return;
        };
        if !matches!(m.heap.thunks.get(t).state, ThunkState::Suspended { .. }) {
            m.heap.release(v);
            return;
        }
        // A fiber already forked for it and not started yet covers this one.
        if let Some(&other) = self.queued_forks.get(&t)
            && let Some((t2, deep2)) = self.fibers[other as usize].forked_for
            && t2 == t
            && (deep2 || !deep)
        {
            m.heap.release(v);
            return;
        }
        let id = if deep {
            let id = self.spawn_walk(v, false);
            let f = &mut self.fibers[id as usize];
            f.walks = Some(t);
            self.helper_walks.insert(t, id);
            id
        } else {
            self.spawn(Control::Force(t), true)
        };
        self.fibers[id as usize].forked_for = Some((t, deep));
        self.queued_forks.insert(t, id);
        // The new fiber gets a turn soon: it may be about to start a call.
        self.slice_end = self.slice_end.min(m.run.steps + 1);
    }

    /// A certain fiber that walks `v` (owned) to normal form, or only its spine.
    fn spawn_walk(&mut self, v: Val, spine: bool) -> u32 {
        let id = self.spawn(Control::Ret(Val::Erased), true);
        let f = &mut self.fibers[id as usize];
        f.stacks.frames.push(Frame::Deep {
            root: Val::Erased,
            base: 0,
            spine,
        });
        f.stacks.deep.push(v);
        id
    }

    fn push_record(&mut self, m: &mut Machine<'p>, rec: Ref) {
        if rec == NIL {
            return;
        }
        let slots = m.heap.rec_slots(rec).to_vec();
        for v in slots {
            self.push_frontier(m, v);
        }
    }

    /// Puts the thunks a word holds and that are not evaluated yet on the frontier: the
    /// word itself, or, inside data already built (the elements of a list literal),
    /// up to [`FRONTIER_LOOKAHEAD`] objects deep (a fold over the heap:
    /// [`crate::machine::unwind::Frontier`]).
    fn push_frontier(&mut self, m: &mut Machine<'p>, v: Val) {
        let room = 1_000_000usize.saturating_sub(self.frontier.len());
        if room == 0 {
            return;
        }
        let found =
            crate::machine::unwind::Frontier::search(&m.heap, &[v], FRONTIER_LOOKAHEAD, room);
        for t in found {
            // Only work that may start a call is worth speculating on (and holding
            // here: a frontier entry keeps everything it reaches alive).
            if self.worth_forking(m, t) {
                m.heap.retain(t);
                self.frontier.push_back(t);
            }
        }
    }

    /// Starts speculative fibers on frontier thunks; whether any started.
    fn speculate(&mut self, m: &mut Machine<'p>) -> bool {
        let mut started = false;
        while self.spec_live < self.spec_fibers {
            let Some(v) = self.frontier.pop_front() else {
                break;
            };
            match v {
                Val::Thunk(t)
                    if matches!(m.heap.thunks.get(t).state, ThunkState::Suspended { .. }) =>
                {
                    self.spawn(Control::Force(t), false);
                    started = true;
                    if self.spec_q.len() >= 64 {
                        break;
                    }
                }
                _ => m.heap.release(v),
            }
        }
        started
    }
}

impl<'p> Host<'p> for Scheduler<'p> {
    fn switch(&mut self, m: &mut Machine<'p>) -> Result<Control> {
        self.charge(m);
        let id = m.fiber;
        self.save(m, id);
        self.scan(m, id);
        self.cut(m, id);
        self.next(m)
    }

    fn wait_thunk(&mut self, m: &mut Machine<'p>, t: Ref, owner: u32) -> Option<Control> {
        let cur = m.fiber;
        // A cycle of fibers waiting on each other is an infinite loop. The chain is
        // followed for a bounded length (a chain of futures, each waiting for the one
        // before, is as long as the loop that made them); a longer cycle is found when
        // nothing else can run ([`Scheduler::next`]).
        let mut f = owner;
        for _ in 0..=self.fibers.len().min(WAIT_CHAIN) {
            if f == cur {
                return None;
            }
            match self.fibers.get(f as usize).map(|x| &x.state) {
                Some(State::WaitThunk(t2)) => match m.heap.thunks.get(*t2).state {
                    ThunkState::Blackholed { fiber, .. } => f = fiber,
                    _ => break,
                },
                _ => break,
            }
        }
        self.wait_on(m, cur, t);
        let fib = &mut self.fibers[cur as usize];
        fib.ctl = Some(Control::Force(t));
        if fib.certain {
            self.promote(m, owner);
        }
        Some(Control::Park)
    }

    fn before_error(
        &mut self,
        m: &mut Machine<'p>,
        e: RuntimeError,
    ) -> crate::machine::host::ErrorStep {
        self.error_order(m, e)
    }

    fn hold_last_update(
        &mut self,
        m: &mut Machine<'p>,
        _t: Ref,
        v: Val,
    ) -> Option<Result<Control>> {
        self.hold_update(m, v)
    }

    fn unfinished_future(&mut self, m: &mut Machine<'p>) -> Option<Val> {
        self.unfinished(m)
    }

    fn wake(&mut self, _m: &mut Machine<'p>, t: Ref) {
        for w in self.waiters.remove(&t).unwrap_or_default() {
            if matches!(self.fibers[w as usize].state, State::WaitThunk(x) if x == t) {
                self.make_runnable(w);
            }
        }
    }

    fn fibers(&self) -> bool {
        true
    }

    fn final_error(&mut self, e: RuntimeError) -> RuntimeError {
        self.policy.borrow_mut().final_error(e)
    }

    fn call(&mut self, m: &mut Machine<'p>, req: CallRequest) -> Result<Control> {
        let certain = self.fibers[m.fiber as usize].certain;
        let req = match self.policy.borrow_mut().prepare_as(m, req, certain)? {
            Prepared::Answered(r) => return r.map(Control::Ret),
            Prepared::Ready(r) => *r,
        };
        let id = m.fiber;
        if let Some(k) = &req.key
            && let Some(w) = self.running.get_mut(k)
        {
            // The same call is running: wait for it.
            w.push(id);
            self.fibers[id as usize].state = State::WaitCall;
            self.fibers[id as usize].call_wait = Some(CallWait::Shared(k.clone()));
            return Ok(Control::Park);
        }
        let waits_for_certainty = req
            .call
            .external
            .waits_for_certainty(crate::external::net::settings::speculate_paid());
        if waits_for_certainty && self.policy.borrow().has_failed() {
            // A failure already decided the run: nothing new starts.
            if let Some(v) = req.passthrough {
                m.heap.release(v);
            }
            return Err(RuntimeError::at(
                crate::machine::error::ErrorKind::NotStarted,
                NOT_STARTED,
                req.span,
            ));
        }
        if waits_for_certainty && !self.fibers[id as usize].certain {
            let f = &mut self.fibers[id as usize];
            f.blocked = Some(req);
            f.state = State::WaitCertain;
            return Ok(Control::Park);
        }
        self.dispatch(m, req);
        Ok(Control::Park)
    }

    fn fiber_done(
        &mut self,
        m: &mut Machine<'p>,
        r: std::result::Result<Val, RuntimeError>,
    ) -> Result<Control> {
        self.charge(m);
        let id = m.fiber;
        if let Ok(v) = r {
            if !self.fibers[id as usize].certain {
                // What speculation computed may hold more work.
                if let Val::Con(c) = v {
                    let fields = m.heap.fields(c).to_vec();
                    for w in fields {
                        self.push_frontier(m, w);
                    }
                }
            }
            m.heap.release(v);
        }
        // Its stacks are empty; keep their capacity for the next fiber.
        self.save(m, id);
        self.drop_futures(m, id);
        if id != 0 && !self.fibers[0].futures.is_empty() {
            self.prune_futures(m, 0);
        }
        let f = &mut self.fibers[id as usize];
        if !f.certain {
            self.spec_live = self.spec_live.saturating_sub(1);
        }
        if let Some(t) = f.walks.take()
            && self.helper_walks.get(&t) == Some(&id)
        {
            self.helper_walks.remove(&t);
        }
        f.state = State::Free;
        f.certain = false;
        self.free.push(id);
        self.next(m)
    }

    fn tick(&mut self, m: &mut Machine<'p>, ctl: Control) -> Result<Control> {
        self.poll(m, Some(Duration::ZERO));
        if m.run.steps >= self.next_sweep {
            // A stream the program dropped (`take 3`) stops without waiting for the end.
            self.next_sweep = m.run.steps + SWEEP_EVERY;
            self.policy.borrow_mut().unneeded_streams(m);
        }
        let id = m.fiber;
        let certain = self.fibers[id as usize].certain;
        let preempt = if certain {
            m.run.steps >= self.slice_end && !self.certain_q.is_empty()
        } else {
            !self.certain_q.is_empty() || m.run.steps >= self.slice_end
        };
        if !preempt || matches!(ctl, Control::Park) {
            return Ok(ctl);
        }
        self.charge(m);
        self.fibers[id as usize].ctl = Some(ctl);
        self.save(m, id);
        self.make_runnable(id);
        self.next(m)
    }

    fn fork(&mut self, m: &mut Machine<'p>, v: Val, deep: bool) {
        if self.worth_forking(m, v) {
            Scheduler::fork(self, m, v, deep);
        } else {
            m.heap.release(v);
        }
    }

    fn may_call(&mut self, m: &Machine<'p>, v: Val) -> bool {
        self.worth_forking(m, v)
    }

    fn note_spine(&mut self, t: Ref, held: bool) {
        if held {
            *self.spine_held.entry(t).or_insert(0) += 1;
        } else if let Some(n) = self.spine_held.get_mut(&t) {
            *n -= 1;
            if *n == 0 {
                self.spine_held.remove(&t);
            }
        }
    }

    fn spine_needed(&self, t: Ref) -> bool {
        self.spine_held.contains_key(&t)
    }

    fn fork_spine(&mut self, m: &mut Machine<'p>, v: Val) {
        let Val::Thunk(t) = v else {
            m.heap.release(v);
            return;
        };
        if !self.spines_on
            || !matches!(m.heap.thunks.get(t).state, ThunkState::Suspended { .. })
            || self.spine_held.contains_key(&t)
        {
            m.heap.release(v);
            return;
        }
        self.note_spine(t, true);
        // A certain fiber walks the list's spine: its tails (and the calls they
        // reach) are evaluated while the consumer waits for the first cells.
        self.spawn_walk(v, true);
        self.slice_end = self.slice_end.min(m.run.steps + 1);
    }

    fn certain(&self, m: &Machine<'p>) -> bool {
        self.fibers[m.fiber as usize].certain
    }

    fn walked_elsewhere(&self, m: &Machine<'p>, t: Ref) -> bool {
        self.fibers[m.fiber as usize].walks.is_some()
            && self
                .helper_walks
                .get(&t)
                .is_some_and(|&other| other != m.fiber)
    }

    fn shutdown(&mut self, m: &mut Machine<'p>) {
        // Streams read to their end are recorded; the others stop. Calls still
        // running are stopped (their results are not needed); fibers other than the
        // running one are dropped.
        self.policy.borrow_mut().end_streams(m);
        self.policy.borrow_mut().layer().shutdown();
        let cur = m.fiber;
        for id in 0..self.fibers.len() as u32 {
            if id == cur || matches!(self.fibers[id as usize].state, State::Free) {
                continue;
            }
            self.save(m, id);
            let err = RuntimeError::new(
                crate::machine::error::ErrorKind::Abandoned,
                "evaluation was abandoned",
            );
            m.unwind_to(0, &err);
            let f = &mut self.fibers[id as usize];
            if let Some(c) = f.ctl.take() {
                m.drop_ctl(c);
            }
            if let Some(req) = f.blocked.take()
                && let Some(v) = req.passthrough
            {
                m.heap.release(v);
            }
            for v in std::mem::take(&mut f.stacks.vals)
                .into_iter()
                .chain(std::mem::take(&mut f.stacks.pending))
            {
                m.heap.release(v);
            }
            self.save(m, id);
            self.fibers[id as usize].state = State::Free;
            self.fibers[id as usize].forked_for = None;
            self.fibers[id as usize].walks = None;
        }
        for id in 0..self.fibers.len() as u32 {
            self.drop_futures(m, id);
        }
        self.queued_forks.clear();
        self.helper_walks.clear();
        for (_, c) in self.tickets.drain() {
            if let Some(v) = c.passthrough {
                m.heap.release(v);
            }
        }
        while let Some(v) = self.frontier.pop_front() {
            m.heap.release(v);
        }
    }

    fn held(&self, f: &mut dyn FnMut(HeldRef)) {
        for fu in self.fibers.iter().flat_map(|fib| &fib.futures) {
            f(HeldRef::Val(Val::Thunk(fu.thunk)));
        }
        for fib in &self.fibers {
            if matches!(fib.state, State::Running | State::Free) {
                continue;
            }
            crate::machine::frame::stack_refs(
                &fib.stacks.frames,
                &fib.stacks.vals,
                &fib.stacks.pending,
                &fib.stacks.deep,
                &fib.stacks.eq_work,
                fib.ctl.as_ref(),
                f,
            );
            if let Some(req) = &fib.blocked
                && let Some(v) = req.passthrough
            {
                f(HeldRef::Val(v));
            }
        }
        for c in self.tickets.values() {
            if let Some(v) = c.passthrough {
                f(HeldRef::Val(v));
            }
        }
        for &v in &self.frontier {
            f(HeldRef::Val(v));
        }
        self.policy.borrow().held(f);
    }

    fn parked(&self, f: &mut dyn FnMut(&[Frame], Option<&Control>)) {
        for fib in &self.fibers {
            if !matches!(fib.state, State::Running | State::Free) {
                f(&fib.stacks.frames, fib.ctl.as_ref());
            }
        }
    }

    fn counters(&self) -> (u64, u64) {
        let peak = self.policy.borrow().calls().executor_stats().peak_running;
        (self.dispatched, peak as u64)
    }

    fn held_bytes(&self) -> usize {
        self.saved_bytes
            + self.fibers.capacity() * std::mem::size_of::<Fiber>()
            + self.frontier.capacity() * std::mem::size_of::<Val>()
            + (self.tickets.len() + self.waiters.len() + self.running.len()) * 64
    }
}
