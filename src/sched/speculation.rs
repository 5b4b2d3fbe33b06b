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

/// How many records up from a parked frame's own [`Scheduler::push_record`] looks.
const RECORD_LOOK_UP: usize = 8;

/// How many words [`Scheduler::frontier_later`] holds at most (the oldest go first).
const LATER_MOST: usize = 4096;

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
                        if self.frontier_later.len() >= LATER_MOST
                            && let Some(old) = self.frontier_later.pop_front()
                        {
                            m.heap.release(old);
                        }
                        m.heap.retain(v);
                        self.frontier_later.push_back(v);
                    }
                }
            }
            r = m.heap.recs.get(r).parent;
        }
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
    pub(super) fn speculate(&mut self, m: &mut Machine<'p>) -> bool {
        let mut started = false;
        while self.spec_live < self.spec_fibers {
            self.expand_later(m);
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
