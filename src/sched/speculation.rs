//! Speculation: the frontier of thunks parked fibers hold, evaluated by speculative
//! fibers when no certain one can run, and promotion of a speculative fiber once the
//! sequential run is sure to need it.

use super::fibers::{CallWait, State};
use super::{FRONTIER_LOOKAHEAD, Scheduler};

use crate::external::exec::Ticket;
use crate::machine::Machine;
use crate::machine::frame::Control;
use crate::machine::heap::ThunkState;
use crate::machine::value::{NIL, Ref, Val};
use std::collections::VecDeque;

/// How many records up from a parked frame's own [`Scheduler::push_record`] looks.
const RECORD_LOOK_UP: usize = 8;

/// How many words [`Scheduler::frontier_later`] holds at most (the oldest go first).
const LATER_MOST: usize = 4096;

/// How many thunks the frontier holds before [`Scheduler::push_frontier`] stops
/// looking for more and puts the words it is given aside for later. Speculation takes
/// from the frontier only when no certain fiber can run; a program whose certain
/// fibers keep the processor busy (a fan-out of 20,000 calls) never takes from it,
/// and looking into data for thunks nobody takes cost a quarter of its time.
const FRONTIER_BACKLOG: usize = 4 * SPEC_START_MOST;

/// How many speculative fibers [`Scheduler::speculate`] starts in one go at most.
const SPEC_START_MOST: usize = 64;

/// The frontier: thunks to speculate on, oldest first, each at most once. Parked
/// fibers' scans meet the same unevaluated thunks again and again (the elements
/// ahead of a consumer); queued once, the frontier stays as long as the work it
/// names, not as long as the number of looks (20,000 calls once made 1.3 million
/// entries). Each queued thunk is counted (retained) by the caller, so its number is
/// not reused while it is marked here.
#[derive(Default)]
pub(super) struct FrontierQueue {
    queue: VecDeque<Ref>,
    /// One bit per thunk number: queued now.
    queued: Vec<u64>,
}

impl FrontierQueue {
    /// Whether thunk `t` is queued.
    pub(super) fn contains(&self, t: Ref) -> bool {
        self.queued
            .get(t as usize / 64)
            .is_some_and(|w| w & (1u64 << (t % 64)) != 0)
    }

    /// Queues thunk `t` (not queued yet).
    pub(super) fn push(&mut self, t: Ref) {
        let word = t as usize / 64;
        if word >= self.queued.len() {
            self.queued.resize(word + 1, 0);
        }
        self.queued[word] |= 1u64 << (t % 64);
        self.queue.push_back(t);
    }

    /// The oldest queued thunk, no longer queued.
    pub(super) fn pop(&mut self) -> Option<Ref> {
        let t = self.queue.pop_front()?;
        self.queued[t as usize / 64] &= !(1u64 << (t % 64));
        Some(t)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    /// The queued thunks, oldest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = Val> + '_ {
        self.queue.iter().map(|&t| Val::Thunk(t))
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.queue.capacity() * std::mem::size_of::<Ref>() + self.queued.capacity() * 8
    }
}

impl<'p> Scheduler<'p> {
    /// Makes fiber `id`, and whatever it waits for, certain.
    pub(super) fn promote(&mut self, m: &mut Machine<'p>, id: u32) {
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

    /// Puts on the frontier what the variables in scope of code running in record
    /// `rec` hold: its own slots now, and those of the records it continues in (its
    /// parents, up to [`RECORD_LOOK_UP`] of them) later, when speculation runs out of
    /// work ([`Scheduler::frontier_later`]): a nested match binds its fields in a
    /// record of their own, so the rest of a list (`Cons (k, v) rest`) is a slot of the
    /// parent, and the continuation may need it as much as its own; but a program with
    /// certain work to do should not pay for looking there. Records met before in the
    /// same scan (`seen`) are not looked at again.
    pub(super) fn push_record(&mut self, m: &mut Machine<'p>, rec: Ref, seen: &mut Vec<Ref>) {
        let mut r = rec;
        for level in 0..RECORD_LOOK_UP {
            if r == NIL {
                return;
            }
            if !seen.contains(&r) {
                seen.push(r);
                let slots = m.heap.rec_slots(r).to_vec();
                for v in slots {
                    if level == 0 {
                        self.push_frontier(m, v);
                    } else if matches!(v, Val::Thunk(_) | Val::Con(_)) {
                        self.put_aside(m, v);
                    }
                }
            }
            r = m.heap.recs.get(r).parent;
        }
    }

    /// Puts word `v` (borrowed) aside for later ([`Scheduler::frontier_later`]), the
    /// oldest word going if there are too many.
    fn put_aside(&mut self, m: &mut Machine<'p>, v: Val) {
        if self.frontier_later.len() >= LATER_MOST
            && let Some(old) = self.frontier_later.pop_front()
        {
            m.heap.release(old);
        }
        m.heap.retain(v);
        self.frontier_later.push_back(v);
    }

    /// Moves words put aside for later ([`Scheduler::frontier_later`]), the latest
    /// first, onto the frontier until it has work or none is left.
    fn expand_later(&mut self, m: &mut Machine<'p>) {
        while self.frontier.is_empty() {
            let Some(v) = self.frontier_later.pop_back() else {
                return;
            };
            self.push_frontier(m, v);
            m.heap.release(v);
        }
    }

    /// Puts the thunks a word holds and that are not evaluated yet on the frontier: the
    /// word itself, or, inside data already built (the elements of a list literal),
    /// up to [`FRONTIER_LOOKAHEAD`] objects deep (a fold over the heap:
    /// [`crate::machine::unwind::Frontier`]).
    pub(super) fn push_frontier(&mut self, m: &mut Machine<'p>, v: Val) {
        if self.frontier.len() >= FRONTIER_BACKLOG {
            // Speculation has work enough queued: the word waits with those put
            // aside for later, and is looked into only if the frontier runs dry.
            if matches!(v, Val::Thunk(_) | Val::Con(_)) {
                self.put_aside(m, v);
            }
            return;
        }
        let room = 1_000_000usize.saturating_sub(self.frontier.len());
        if room == 0 {
            return;
        }
        let found =
            crate::machine::unwind::Frontier::search(&m.heap, &[v], FRONTIER_LOOKAHEAD, room);
        for t in found {
            // Only work that may start a call is worth speculating on (and holding
            // here: a frontier entry keeps everything it reaches alive).
            if let Val::Thunk(r) = t
                && !self.frontier.contains(r)
                && self.worth_forking(m, t)
            {
                self.frontier.push(r);
                m.heap.retain(t);
            }
        }
    }

    /// Starts speculative fibers on frontier thunks; whether any started.
    pub(super) fn speculate(&mut self, m: &mut Machine<'p>) -> bool {
        let mut started = false;
        while self.spec_live < self.spec_fibers {
            self.expand_later(m);
            let Some(t) = self.frontier.pop() else {
                break;
            };
            let v = Val::Thunk(t);
            match v {
                Val::Thunk(t)
                    if matches!(m.heap.thunks.get(t).state, ThunkState::Suspended { .. }) =>
                {
                    self.spawn(Control::Force(t), false);
                    started = true;
                    if self.spec_q.len() >= SPEC_START_MOST {
                        break;
                    }
                }
                _ => m.heap.release(v),
            }
        }
        started
    }
}
