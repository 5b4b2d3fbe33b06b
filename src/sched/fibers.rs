//! Fibers: their states, and how the scheduler makes, saves, resumes and picks them.
//!
//! A fiber's stacks are the machine's while it runs ([`Stacks`], swapped in and out
//! whole); `next` picks the fiber to run: certain ones first, speculative ones within
//! the speculation budget, and waits for calls when nothing can run.

use super::policy::{CallKey, PLANNED, ReadyCall};
use super::{SLICE, SPEC_BUDGET, Scheduler};
use crate::machine::Machine;
use crate::machine::error::{Result, RuntimeError};
use crate::machine::frame::{Control, Frame, Stacks};
use crate::machine::value::{Ref, Val};
use std::collections::VecDeque;
use std::time::Duration;

/// What a fiber is doing.
#[derive(Debug)]
pub(super) enum State {
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
pub(super) struct Fiber {
    pub(super) stacks: Stacks,
    pub(super) ctl: Option<Control>,
    pub(super) error: Option<RuntimeError>,
    pub(super) state: State,
    pub(super) certain: bool,
    /// Frames below this height were looked at when the fiber last parked.
    pub(super) scanned: usize,
    /// The frame just below that height then: if it is not there any more, the
    /// fiber returned below it since, and its frames are looked at again.
    pub(super) scan_mark: Option<Frame>,
    /// Its call waiting to become certain.
    pub(super) blocked: Option<ReadyCall>,
    /// The thunk it was forked to evaluate, and whether to normal form, until it first
    /// runs ([`Scheduler::queued_forks`]).
    pub(super) forked_for: Option<(Ref, bool)>,
    /// The thunk it was forked to walk to normal form (a helper walk: see
    /// [`Host::walked_elsewhere`]), until it ends.
    pub(super) walks: Option<Ref>,
    /// The futures it made, oldest first, until they end well ([`futures`]).
    pub(super) futures: VecDeque<super::futures::Future>,
    /// The call it waits for ([`State::WaitCall`]).
    pub(super) call_wait: Option<CallWait>,
}

/// The call a fiber waits for.
#[derive(Debug, Clone)]
pub(super) enum CallWait {
    /// Its own, in flight under this ticket.
    Ticket(u64),
    /// The same call another fiber made (it is among `running`'s waiters).
    Shared(CallKey),
}

impl Fiber {
    /// Records that the frames below `h` have been looked at.
    pub(super) fn mark_scanned(&mut self, h: usize) {
        self.scanned = h;
        self.scan_mark = h.checked_sub(1).map(|i| self.stacks.frames[i]);
    }

    /// The height from which frames have not been looked at: where the last look
    /// ended, unless the fiber returned below that since (then from the bottom).
    pub(super) fn scan_from(&self) -> usize {
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

    pub(super) fn new() -> Fiber {
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

impl<'p> Scheduler<'p> {
    /// A free fiber slot (not queued anywhere).
    pub(super) fn slot(&mut self) -> u32 {
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
    pub(super) fn wait_on(&mut self, m: &mut Machine<'p>, id: u32, t: Ref) {
        self.waiters.entry(t).or_default().push(id);
        m.heap.thunks.get_mut(t).waiters = true;
        self.fibers[id as usize].state = State::WaitThunk(t);
    }

    pub(super) fn spawn(&mut self, ctl: Control, certain: bool) -> u32 {
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
    pub(super) fn save(&mut self, m: &mut Machine<'p>, id: u32) {
        let f = &mut self.fibers[id as usize];
        let before = f.stacks.bytes();
        std::mem::swap(&mut f.stacks, &mut m.stacks);
        self.saved_bytes = (self.saved_bytes + f.stacks.bytes()).saturating_sub(before);
    }

    /// Makes fiber `id` the running one and returns what it does next.
    pub(super) fn resume(&mut self, m: &mut Machine<'p>, id: u32) -> Result<Control> {
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

    pub(super) fn make_runnable(&mut self, id: u32) {
        let f = &mut self.fibers[id as usize];
        f.state = State::Runnable;
        if f.certain {
            self.certain_q.push_back(id);
        } else {
            self.spec_q.push_back(id);
        }
    }

    /// Charges the running fiber's steps to the speculation budget.
    pub(super) fn charge(&mut self, m: &Machine<'p>) {
        if !self.fibers[m.fiber as usize].certain {
            self.spec_budget -= (m.run.steps - self.resumed_at) as i64;
        }
        self.resumed_at = m.run.steps;
    }

    /// Picks the next fiber to run, waiting for calls when none can.
    pub(super) fn next(&mut self, m: &mut Machine<'p>) -> Result<Control> {
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
                match &m.run.interrupt {
                    // An interrupt (the REPL's Ctrl-C) stops the waiting: fiber 0
                    // fails with it, and the run's shutdown stops the calls in
                    // flight.
                    Some(flag) if flag.load(std::sync::atomic::Ordering::SeqCst) => {
                        return self.fail_main(
                            m,
                            RuntimeError::new(
                                crate::machine::error::ErrorKind::Interrupted,
                                "interrupted",
                            ),
                        );
                    }
                    // Waiting looks at the flag between short waits.
                    Some(_) => self.poll(m, Some(INTERRUPT_POLL)),
                    None => self.poll(m, None),
                }
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
                // A plan says how many of its calls others wait for; a batch run's
                // frontier needs no more than the calls (the call layer has them).
                if m.options.lazy_calls {
                    let waiting = self.plan_frontier(m);
                    self.policy.borrow_mut().layer().plan_blocked(waiting);
                }
                RuntimeError::new(crate::machine::error::ErrorKind::Planned, PLANNED)
            } else {
                RuntimeError::new(
                    crate::machine::error::ErrorKind::InfiniteLoop,
                    "infinite loop",
                )
            };
            return self.fail_main(m, error);
        }
    }

    /// Resumes fiber 0 (the one the result is for) with `error`: what it waited
    /// for will not come.
    fn fail_main(&mut self, m: &mut Machine<'p>, error: RuntimeError) -> Result<Control> {
        let f = &mut self.fibers[0];
        if let State::WaitThunk(t) = f.state {
            self.waiters.entry(t).or_default().retain(|&w| w != 0);
        }
        f.error = Some(error);
        if let Some(c) = f.ctl.take() {
            m.drop_ctl(c);
        }
        self.resume(m, 0)
    }
}

/// How long a wait for calls lasts at most, when an interrupt may come, before it
/// looks at the interrupt flag again.
pub(crate) const INTERRUPT_POLL: Duration = Duration::from_millis(50);
