//! The scheduler's side of external calls: dispatching a ready call, polling for
//! finished ones, and handing each answer (or failure) to the fibers waiting for it.

use super::fibers::{CallWait, State};
use super::policy::{CallKey, NOT_STARTED, ReadyCall};
use super::{POLL_EVERY, SPEC_BUDGET, SPEC_PER_CALL, Scheduler};
use crate::external::calls::{Answer, Finished};
use crate::external::exec::{Priority, Ticket};
use crate::machine::Machine;
use crate::machine::error::{Result, RuntimeError};
use crate::machine::frame::{Control, Frame};
use crate::machine::value::Val;
use std::time::Duration;

/// A call in flight.
pub(super) struct InFlight {
    pub(super) fiber: u32,
    pub(super) ext: &'static crate::external::registry::External,
    pub(super) key: Option<CallKey>,
    pub(super) passthrough: Option<Val>,
    pub(super) span: crate::syntax::span::Span,
}

impl<'p> Scheduler<'p> {
    /// Takes finished calls from the executor and wakes their fibers.
    pub(super) fn poll(&mut self, m: &mut Machine<'p>, timeout: Option<Duration>) {
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
            // A stream whose call was not made (planned, or on a batch's frontier)
            // never has items: its reader waits for good, as the call's maker does.
            let answer = match answer {
                Answer::Done(Err(e))
                    if e.kind == crate::external::request::CallErrorKind::Planned =>
                {
                    Answer::Planned
                }
                a => a,
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
    pub(super) fn answer(
        &mut self,
        m: &mut Machine<'p>,
        fiber: u32,
        key: Option<&CallKey>,
        r: Result<Val>,
    ) {
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
    pub(super) fn finish_call(&mut self, id: u32, r: Result<Val>) {
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
    pub(super) fn failed_call(
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
        let err = super::policy::call_error(e, span);
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
    pub(super) fn stopped_calls(&mut self, m: &mut Machine<'p>) {
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

    /// Starts a call for the running fiber (which parks).
    pub(super) fn dispatch(&mut self, m: &mut Machine<'p>, req: ReadyCall) {
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
}
