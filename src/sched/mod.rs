//! Fibers, certainty and the opportunistic scheduler (DESIGN.md section 4; OPAL and
//! Epic).
//!
//! A script written as plain sequential code runs its independent external calls at
//! the same time. The machine ([`crate::machine`]) runs several **fibers** over one heap,
//! each with its own frames; the running fiber's stacks are the machine's, the others
//! wait here (switching swaps one `Stacks` value, nothing is copied). The interpreter stays on
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
//!
//! # Rooms
//!
//! - this file: the scheduler's state, and the [`Host`] the machine calls;
//! - [`fibers`]: a fiber's states, saving, resuming and picking the next one;
//! - [`calls`]: dispatching calls, polling, and answering the fibers that wait;
//! - [`scan`]: certain forks, from the frames a certain fiber pushed;
//! - [`speculation`]: the frontier, speculative fibers and promotion;
//! - [`futures`]: strict work handed to a fiber of its own;
//! - [`plan`]: `--plan`'s look past the calls it does not make;
//! - [`policy`] and [`sequential`]: the call policy both hosts share, and the host
//!   of `--sequential`.

mod calls;
mod fibers;
mod futures;
mod plan;
pub mod policy;
mod scan;
pub mod sequential;
mod speculation;

pub use policy::{CallPolicy, SharedPolicy};
pub use sequential::Sequential;

use calls::InFlight;
use fibers::{CallWait, Fiber, State};

use crate::external::exec::Limits;
use crate::machine::Machine;
use crate::machine::error::{Result, RuntimeError};
use crate::machine::frame::{Control, Frame};
use crate::machine::heap::ThunkState;
use crate::machine::host::{CallRequest, HeldRef, Host};
use crate::machine::value::{Ref, Val};
use policy::{CallKey, NOT_STARTED, Prepared};
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
    frontier: speculation::FrontierQueue,
    /// Words of records that parked fibers' code continues in (their parents' slots),
    /// put on the frontier only when it runs dry ([`Scheduler::push_record`]); each
    /// one counted.
    frontier_later: VecDeque<Val>,
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

/// Tells the readers of external results (on other threads) how many bytes the
/// evaluation holds, so that they stop where `--max-memory` leaves no room, and
/// returns how many they hold now ([`Host::held_bytes`] of both hosts).
fn external_readers(evaluation_bytes: usize) -> usize {
    crate::external::budget::set_machine_bytes(evaluation_bytes);
    crate::external::budget::held()
}

/// What a `match` needs whichever arm it takes: (parent hops, slot, demand) of the
/// variables of its record chain ([`Machine::case_needs`]).
pub(super) type ArmNeeds = Rc<[(u32, u32, u8)]>;

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
            frontier: Default::default(),

            frontier_later: VecDeque::new(),
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

    // ----- finding work -----------------------------------------------------------
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
        // A read of standard input uses it up: it waits for certainty as an effect.
        let waits_for_certainty = req
            .call
            .external
            .waits_for_certainty(crate::external::net::settings::speculate_paid())
            || req.request.reads_stdin();
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
        while let Some(t) = self.frontier.pop() {
            m.heap.release(Val::Thunk(t));
        }
        while let Some(v) = self.frontier_later.pop_front() {
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
            fib.stacks.refs(fib.ctl.as_ref(), f);
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
        for v in self
            .frontier
            .iter()
            .chain(self.frontier_later.iter().copied())
        {
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

    fn held_bytes(&self, machine_bytes: usize) -> usize {
        let own = self.saved_bytes
            + self.fibers.capacity() * std::mem::size_of::<Fiber>()
            + self.frontier.bytes()
            + self.frontier_later.capacity() * std::mem::size_of::<Val>()
            + (self.tickets.len() + self.waiters.len() + self.running.len()) * 64;
        own + external_readers(machine_bytes + own)
    }
}
