//! Fibers and the opportunistic scheduler (DESIGN.md section 4; OPAL and Epic).
//!
//! A script written as plain sequential code runs its independent external calls at
//! the same time. The machine runs several **fibers** over one heap, each a spine being
//! evaluated with its own frames and side stacks; the current fiber's stacks are the
//! machine's own, the others wait in the [`Scheduler`]'s table (switching swaps the
//! vectors, nothing is copied). The interpreter stays on one thread: external calls go
//! to a worker pool ([`crate::external::pool`]).
//!
//! - **Fiber 0** evaluates what the caller of [`Machine::run`] asked for (a definition,
//!   a field being printed). It is *demanded*: its result is needed.
//! - **A call** ([`Machine::dispatch`]): when a fiber reaches an external with its
//!   arguments evaluated, the call goes to the pool and the fiber parks until the
//!   result comes back.
//! - **A black hole** records the fiber evaluating it. A fiber that needs an entry
//!   another fiber is evaluating parks on it and wakes when the value is written; a
//!   demanded fiber *promotes* the owner (and what the owner waits for) to demanded.
//!   Needing an entry one is evaluating oneself, or a cycle of fibers waiting on one
//!   another, is an infinite loop, as it is sequentially.
//! - **Speculation** is where parallelism comes from when demand alone is sequential
//!   (`sum (map slow xs)` needs one element at a time): when no demanded fiber can run
//!   and fewer than `--jobs` calls are in flight, the scheduler looks for suspended
//!   entries reachable from what the program wants (the definitions being evaluated)
//!   and from every fiber's stacks, breadth-first within a budget, and starts a
//!   speculative fiber on each. Speculative fibers run only while no demanded fiber
//!   can, for a slice of steps at a time.
//! - **Speculation never changes a result.** Pure evaluation has no effects and its
//!   values are the ones demand would compute. A speculative fiber that fails (an
//!   error, an infinite loop, a failed call) keeps the entries it was evaluating
//!   black-holed and is marked failed: every one of them would fail the same way when
//!   evaluated, so a fiber that later needs one fails with that error, and one that
//!   never does is unaffected.
//!
//! `--sequential` (and the REPL, snapshots and type-level evaluation) runs without a
//! scheduler: one fiber, externals performed when needed, on the interpreter's thread.

use crate::external::host::Call;
use crate::external::pool::Pool;
use crate::machine::Machine;
use crate::machine::arena::NIL;
use crate::machine::error::{Result, RuntimeError};
use crate::machine::external::{CallMemo, CallSite};
use crate::machine::frame::{Arg, Frame, Ref, fiber_refs};
use crate::machine::heap::Cell;
use crate::machine::need::Ctl;
use crate::machine::value::{CtxtId, PartialHead, Value};
use crate::syntax::span::Span;
use std::collections::{HashMap, HashSet, VecDeque};

/// How many steps a speculative fiber runs before the scheduler looks again.
const SLICE: u64 = 20_000;

/// How many entries one search for speculative work visits at most.
const SEARCH_BUDGET: usize = 100_000;

/// How many speculative fibers one search starts at most.
const SPAWN_AT_ONCE: usize = 64;

/// What a fiber is doing.
#[derive(Debug, Clone)]
pub enum FiberState {
    /// Its stacks are the machine's.
    Running,
    /// Ready to run from its saved control.
    Runnable,
    /// Waiting for another fiber to write this entry.
    OnEntry(CtxtId),
    /// Waiting for its external call.
    OnCall,
    /// Its evaluation failed; the entries it black-holed stay so (see the module
    /// documentation).
    Failed(RuntimeError),
    /// Finished; the slot can be reused.
    Done,
}

/// A fiber that is not running: its stacks and what it does next.
pub struct Fiber<'p> {
    frames: Vec<Frame<'p>>,
    pargs: Vec<Arg<'p>>,
    pvals: Vec<Value<'p>>,
    eq_work: Vec<(CtxtId, CtxtId)>,
    /// The control it resumes with (set when it parks or a call completes).
    ctl: Option<Ctl<'p>>,
    /// An error its call ended with, raised when it runs next.
    error: Option<RuntimeError>,
    /// What it is doing.
    pub state: FiberState,
    /// Whether its result is needed (fiber 0, and the fibers it waits for).
    pub demanded: bool,
}

impl<'p> Fiber<'p> {
    fn new(ctl: Option<Ctl<'p>>, demanded: bool) -> Fiber<'p> {
        Fiber {
            frames: Vec::new(),
            pargs: Vec::new(),
            pvals: Vec::new(),
            eq_work: Vec::new(),
            ctl,
            error: None,
            state: FiberState::Runnable,
            demanded,
        }
    }
}

/// The scheduler: the fibers, who waits for what, and the worker pool.
pub struct Scheduler<'p> {
    /// Every fiber by id; fiber 0 evaluates what [`Machine::run`] was asked for.
    pub fibers: Vec<Fiber<'p>>,
    free: Vec<u32>,
    /// Fibers parked on an entry, by entry.
    pub waiters: HashMap<CtxtId, Vec<u32>>,
    /// The place and arguments of each shared call in flight, by the fiber that made
    /// it (its result goes into the machine's table of calls).
    shared_calls: HashMap<u32, (CallSite, Call)>,
    pool: Pool,
    jobs: usize,
    /// Calls dispatched and not finished.
    pub in_flight: usize,
    /// The most calls running at once.
    pub peak_in_flight: usize,
    /// Entries whose values the program wants (the definitions being evaluated): where
    /// the search for speculative work starts.
    pub roots: Vec<CtxtId>,
}

impl<'p> Scheduler<'p> {
    /// A scheduler running at most `jobs` calls at once.
    pub fn new(jobs: usize) -> Scheduler<'p> {
        let mut root = Fiber::new(None, true);
        root.state = FiberState::Running;
        Scheduler {
            fibers: vec![root],
            free: Vec::new(),
            waiters: HashMap::new(),
            shared_calls: HashMap::new(),
            pool: Pool::new(jobs),
            jobs: jobs.max(1),
            in_flight: 0,
            peak_in_flight: 0,
            roots: Vec::new(),
        }
    }

    /// Whether any fiber besides fiber 0 is alive (a state with several fibers is not
    /// read back).
    pub fn has_other_fibers(&self) -> bool {
        self.fibers[1..]
            .iter()
            .any(|f| !matches!(f.state, FiberState::Done))
    }

    /// The stacks and saved control of every fiber not running (for the audit).
    #[allow(clippy::type_complexity)]
    pub fn parked(
        &self,
    ) -> impl Iterator<
        Item = (
            &[Frame<'p>],
            &[Arg<'p>],
            &[Value<'p>],
            &[(CtxtId, CtxtId)],
            Option<&Ctl<'p>>,
        ),
    > {
        self.fibers
            .iter()
            .filter(|f| !matches!(f.state, FiberState::Running | FiberState::Done))
            .map(|f| {
                (
                    &f.frames[..],
                    &f.pargs[..],
                    &f.pvals[..],
                    &f.eq_work[..],
                    f.ctl.as_ref(),
                )
            })
    }

    fn spawn(&mut self, ctl: Ctl<'p>) -> u32 {
        let fiber = Fiber::new(Some(ctl), false);
        match self.free.pop() {
            Some(id) => {
                self.fibers[id as usize] = fiber;
                id
            }
            None => {
                self.fibers.push(fiber);
                (self.fibers.len() - 1) as u32
            }
        }
    }

    /// The next fiber to run: fiber 0, another demanded one, a speculative one.
    fn pick(&self) -> Option<u32> {
        let runnable = |f: &Fiber<'p>| matches!(f.state, FiberState::Runnable);
        if runnable(&self.fibers[0]) {
            return Some(0);
        }
        let mut speculative = None;
        for (i, f) in self.fibers.iter().enumerate() {
            if runnable(f) {
                if f.demanded {
                    return Some(i as u32);
                }
                speculative.get_or_insert(i as u32);
            }
        }
        speculative
    }
}

impl<'p> Machine<'p> {
    /// Runs with a scheduler: externals go to a pool of at most `jobs` workers and
    /// independent work runs in fibers (see the module documentation).
    pub fn enable_parallel(&mut self, jobs: usize) {
        self.sched = Some(Box::new(Scheduler::new(jobs)));
        self.fiber = 0;
    }

    /// Hands a call to the pool and parks the current fiber until it is done; `shared`
    /// is the call's place and arguments when others may wait for the same call.
    pub(crate) fn dispatch(
        &mut self,
        call: Call,
        span: Span,
        shared: Option<(CallSite, Call)>,
    ) -> Ctl<'p> {
        let fiber = self.fiber;
        let s = self.sched.as_mut().expect("a scheduler");
        if let Some(key) = shared {
            s.shared_calls.insert(fiber, key);
        }
        s.in_flight += 1;
        // Calls past `jobs` wait in the pool's channel: at most `jobs` run at once.
        s.peak_in_flight = s.peak_in_flight.max(s.in_flight.min(s.jobs));
        s.pool.submit(fiber, call, span, s.in_flight);
        s.fibers[fiber as usize].state = FiberState::OnCall;
        Ctl::Park
    }

    /// The current fiber needs entry `c` (a counted reference), which fiber `owner`
    /// is evaluating: it parks until the value is written.
    pub(crate) fn park_on(&mut self, c: CtxtId, owner: u32) -> Result<Ctl<'p>> {
        let cur = self.fiber;
        let s = self.sched.as_mut().expect("a scheduler");
        if s.fibers[cur as usize].demanded {
            // What the owner waits for is needed too.
            let mut f = owner;
            let mut hops = 0;
            loop {
                if f == cur || hops > s.fibers.len() {
                    self.heap.release(c);
                    return Err(RuntimeError::new("infinite loop"));
                }
                let fib = &mut s.fibers[f as usize];
                fib.demanded = true;
                match &fib.state {
                    FiberState::Failed(e) => {
                        let e = e.clone();
                        self.heap.release(c);
                        return Err(e);
                    }
                    FiberState::OnEntry(next) => match self.heap.ctxt(*next).cell {
                        Cell::Blackholed(o) => f = o,
                        _ => break,
                    },
                    _ => break,
                }
                hops += 1;
            }
        } else if let FiberState::Failed(e) = &s.fibers[owner as usize].state {
            let e = e.clone();
            self.heap.release(c);
            return Err(e);
        }
        s.waiters.entry(c).or_default().push(cur);
        let me = &mut s.fibers[cur as usize];
        me.state = FiberState::OnEntry(c);
        me.ctl = Some(Ctl::Enter(c));
        Ok(Ctl::Park)
    }

    /// The current fiber waits for a call another fiber made (the same call at the same
    /// place, still running).
    pub(crate) fn wait_for_call(&mut self) -> Ctl<'p> {
        let fiber = self.fiber;
        let s = self.sched.as_mut().expect("a scheduler");
        s.fibers[fiber as usize].state = FiberState::OnCall;
        Ctl::Park
    }

    /// Entry `c` has its value: the fibers parked on it can run.
    #[inline]
    pub(crate) fn wake(&mut self, c: CtxtId) {
        if let Some(s) = self.sched.as_mut()
            && !s.waiters.is_empty()
            && let Some(ws) = s.waiters.remove(&c)
        {
            for w in ws {
                s.fibers[w as usize].state = FiberState::Runnable;
            }
        }
    }

    /// The current fiber finished (its value, already written, is dropped).
    pub(crate) fn fiber_finished(&mut self) -> Result<Ctl<'p>> {
        let cur = self.fiber;
        let s = self.sched.as_mut().expect("a scheduler");
        s.fibers[cur as usize].state = FiberState::Done;
        s.free.push(cur);
        self.switch()
    }

    /// The current fiber failed with `e`: the run fails when the fiber is demanded;
    /// otherwise it is marked failed and another fiber runs.
    #[cold]
    pub(crate) fn fiber_failed(&mut self, e: RuntimeError) -> Result<Ctl<'p>> {
        let cur = self.fiber;
        match self.sched.as_ref() {
            Some(s) if !s.fibers[cur as usize].demanded => {}
            _ => return Err(e),
        }
        // The entries it was evaluating: whoever waits for them fails the same way.
        let updating: Vec<CtxtId> = self
            .frames
            .iter()
            .filter_map(|f| match f {
                Frame::Update(c) => Some(*c),
                _ => None,
            })
            .collect();
        self.reset();
        let s = self.sched.as_mut().expect("a scheduler");
        s.fibers[cur as usize].state = FiberState::Failed(e);
        for c in updating {
            self.wake(c);
        }
        self.switch()
    }

    /// The current fiber has run its slice: it yields to the scheduler.
    pub(crate) fn preempt(&mut self, ctl: Ctl<'p>) -> Result<Ctl<'p>> {
        let cur = self.fiber as usize;
        let s = self.sched.as_mut().expect("a scheduler");
        s.fibers[cur].ctl = Some(ctl);
        s.fibers[cur].state = FiberState::Runnable;
        self.switch()
    }

    /// Saves the current fiber and runs the next one: finished calls wake their
    /// fibers; a demanded fiber runs first, then a speculative one; with nothing to
    /// run, the search for speculative work, or waiting for a call.
    pub(crate) fn switch(&mut self) -> Result<Ctl<'p>> {
        let cur = self.fiber as usize;
        {
            let s = self.sched.as_mut().expect("a scheduler");
            let f = &mut s.fibers[cur];
            std::mem::swap(&mut f.frames, &mut self.frames);
            std::mem::swap(&mut f.pargs, &mut self.pargs);
            std::mem::swap(&mut f.pvals, &mut self.pvals);
            std::mem::swap(&mut f.eq_work, &mut self.eq_work);
        }
        loop {
            while let Some(done) = self.sched.as_ref().and_then(|s| s.pool.try_done()) {
                self.call_finished(done);
            }
            let s = self.sched.as_mut().expect("a scheduler");
            if let Some(next) = s.pick() {
                let f = &mut s.fibers[next as usize];
                f.state = FiberState::Running;
                let demanded = f.demanded;
                std::mem::swap(&mut f.frames, &mut self.frames);
                std::mem::swap(&mut f.pargs, &mut self.pargs);
                std::mem::swap(&mut f.pvals, &mut self.pvals);
                std::mem::swap(&mut f.eq_work, &mut self.eq_work);
                let error = f.error.take();
                let ctl = f.ctl.take();
                self.fiber = next;
                self.preempt_at = if demanded {
                    u64::MAX
                } else {
                    self.steps + SLICE
                };
                if let Some(e) = error {
                    return self.fiber_failed(e);
                }
                return ctl
                    .ok_or_else(|| RuntimeError::new("internal error: a fiber without work"));
            }
            if s.in_flight < s.jobs && self.speculate() > 0 {
                continue;
            }
            let s = self.sched.as_mut().expect("a scheduler");
            if s.in_flight > 0 {
                if let Some(done) = s.pool.wait_done() {
                    self.call_finished(done);
                }
                continue;
            }
            return Err(RuntimeError::new(
                "internal error: every fiber waits and no call is in flight",
            ));
        }
    }

    /// A call finished: its fiber, and the fibers waiting for the same call, can go on
    /// with the result.
    fn call_finished(&mut self, (ticket, result): crate::external::pool::Done) {
        let s = self.sched.as_mut().expect("a scheduler");
        s.in_flight -= 1;
        if let Some(key) = s.shared_calls.remove(&ticket)
            && let Some(CallMemo::Running(waiting)) =
                self.calls.insert(key, CallMemo::Done(result.clone()))
        {
            for w in waiting {
                self.deliver(w, result.clone());
            }
        }
        self.deliver(ticket, result);
    }

    /// Gives a call's result to a fiber waiting for it.
    fn deliver(&mut self, fiber: u32, result: std::result::Result<Option<String>, RuntimeError>) {
        let s = self.sched.as_mut().expect("a scheduler");
        let f = &mut s.fibers[fiber as usize];
        f.state = FiberState::Runnable;
        match result {
            Ok(Some(text)) => {
                f.ctl = Some(Ctl::Ret(Value::Str(std::rc::Rc::from(text.as_str()))));
            }
            Ok(None) => {
                // `delay`: on with its second argument.
                let next = f.pargs.pop().map(Arg::into_ctl);
                f.ctl = next;
            }
            Err(e) => f.error = Some(e),
        }
    }

    /// Starts speculative fibers on suspended entries reachable from the program's
    /// roots and every fiber's stacks; returns how many.
    fn speculate(&mut self) -> usize {
        let s = self.sched.as_ref().expect("a scheduler");
        let mut queue: VecDeque<CtxtId> = s.roots.iter().copied().collect();
        let mut values: Vec<&Value<'p>> = Vec::new();
        for (frames, pargs, pvals, eq_work, ctl) in s.parked() {
            fiber_refs(frames, pargs, pvals, eq_work, ctl, &mut |r| match r {
                Ref::Entry(c) => queue.push_back(c),
                Ref::Value(v) => values.push(v),
                Ref::Stack(_) => {}
            });
        }
        for v in values {
            push_value(v, &self.heap, &mut queue);
        }
        let mut seen: HashSet<CtxtId> = HashSet::new();
        let mut found: Vec<CtxtId> = Vec::new();
        while let Some(c) = queue.pop_front() {
            if c == NIL || !seen.insert(c) {
                continue;
            }
            if seen.len() > SEARCH_BUDGET || found.len() >= SPAWN_AT_ONCE {
                break;
            }
            let e = self.heap.ctxt(c);
            queue.push_back(e.next);
            match &e.cell {
                Cell::Suspended(_, env) => {
                    found.push(c);
                    queue.push_back(*env);
                }
                Cell::Value(v) => push_value(v, &self.heap, &mut queue),
                Cell::Ind(t) => queue.push_back(*t),
                _ => {}
            }
        }
        let s = self.sched.as_mut().expect("a scheduler");
        for &c in &found {
            self.heap.retain(c);
            s.spawn(Ctl::Enter(c));
        }
        found.len()
    }
}

/// The entries a value refers to.
fn push_value(v: &Value<'_>, heap: &crate::machine::heap::Heap<'_>, queue: &mut VecDeque<CtxtId>) {
    match v {
        Value::Con(_, b) => queue.extend(heap.block(*b).iter().copied()),
        Value::Partial(h, b) => {
            if let PartialHead::Open(o) = h {
                queue.push_back(*o);
            }
            queue.extend(heap.block(*b).iter().copied());
        }
        Value::Fun(_, env) | Value::Pi(_, env) | Value::Stuck(_, env) => queue.push_back(*env),
        _ => {}
    }
}
