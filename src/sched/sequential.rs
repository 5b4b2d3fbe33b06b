//! The host of a `--sequential` run: one fiber, and each call made when the machine
//! reaches it, waited for before evaluation goes on. It shares the call policy
//! ([`super::policy`]) with the scheduler, so a sequential run stores, shares, retries
//! and reports its calls as a parallel one does.

use super::policy::{CallPolicy, PLANNED, Prepared, SharedPolicy};
use crate::external::calls::Answer;
use crate::external::exec::{Priority, Ticket};
use crate::machine::Machine;
use crate::machine::error::{ErrorKind, Result, RuntimeError};
use crate::machine::frame::Control;
use crate::machine::host::{CallRequest, HeldRef, Host};

/// One fiber, calls one at a time.
pub struct Sequential<'p> {
    policy: SharedPolicy<'p>,
    dispatched: u64,
    /// The step count before which no look for unneeded streams is made.
    next_sweep: u64,
}

/// Steps between two looks for streams the program no longer needs.
const SWEEP_EVERY: u64 = 200_000;

impl<'p> Sequential<'p> {
    /// Installs a sequential host with this policy on a machine.
    pub fn install(m: &mut Machine<'p>, policy: SharedPolicy<'p>) {
        m.set_host(Box::new(Sequential {
            policy,
            dispatched: 0,
            next_sweep: 0,
        }));
    }

    /// Installs a sequential host with a call layer of default limits (no store, no
    /// progress), and returns the policy's handle.
    pub fn install_plain(m: &mut Machine<'p>) -> SharedPolicy<'p> {
        let p = CallPolicy::plain(Default::default()).shared();
        Sequential::install(m, p.clone());
        p
    }
}

impl<'p> Host<'p> for Sequential<'p> {
    fn held_bytes(&self, machine_bytes: usize) -> usize {
        super::external_readers(machine_bytes)
    }

    fn call(&mut self, m: &mut Machine<'p>, req: CallRequest) -> Result<Control> {
        let mut policy = self.policy.borrow_mut();
        let ready = match policy.prepare(m, req)? {
            Prepared::Answered(r) => return r.map(Control::Ret),
            Prepared::Ready(r) => *r,
        };
        self.dispatched += 1;
        m.flush_output();
        // Streams the program dropped stop before the run waits.
        policy.unneeded_streams(m);
        let mut ticket = policy.ticket();
        let ext = ready.call.external;
        policy
            .layer()
            .submit_request(Ticket(ticket), ready.call, ready.request, Priority::Certain);
        if let Some(stream) = &ready.stream {
            // The call producing a stream ends when the stream does: wait for the
            // stream's first items instead.
            let next = policy.stream_started(stream, Ticket(ticket));
            ticket = policy.ticket();
            let call = crate::external::calls::Call::new(ext, Vec::new(), Default::default());
            policy
                .layer()
                .submit_request(Ticket(ticket), call, next, Priority::Certain);
        }
        let answer = loop {
            let mut mine = None;
            // An interrupt (the REPL's Ctrl-C) stops the waiting; the run's shutdown
            // stops the call.
            let wait = match &m.run.interrupt {
                Some(flag) if flag.load(std::sync::atomic::Ordering::SeqCst) => {
                    return Err(RuntimeError::new(ErrorKind::Interrupted, "interrupted"));
                }
                Some(_) => Some(super::fibers::INTERRUPT_POLL),
                None => None,
            };
            for (t, a) in policy.layer().wait(wait) {
                if t.0 == ticket {
                    mine = Some(a);
                } else {
                    // A call producing a stream ended (it may have to replay its
                    // record).
                    policy.stream_call_done(t, a);
                }
            }
            if let Some(a) = mine {
                break a;
            }
        };
        let answer = match answer {
            Answer::Done(a) => a,
            Answer::Planned => {
                if let Some(v) = ready.passthrough {
                    m.release(v);
                }
                return Err(RuntimeError::at(ErrorKind::Planned, PLANNED, ready.span));
            }
        };
        policy
            .conclude(
                m,
                ext,
                ready.key.as_ref(),
                ready.passthrough,
                ready.span,
                answer,
            )
            .map(Control::Ret)
    }

    fn final_error(&mut self, e: RuntimeError) -> RuntimeError {
        self.policy.borrow_mut().final_error(e)
    }

    fn tick(&mut self, m: &mut Machine<'p>, ctl: Control) -> Result<Control> {
        if m.run.steps >= self.next_sweep {
            // A stream the program dropped (`take 3`) stops without waiting for the end.
            self.next_sweep = m.run.steps + SWEEP_EVERY;
            self.policy.borrow_mut().unneeded_streams(m);
        }
        Ok(ctl)
    }

    fn shutdown(&mut self, m: &mut Machine<'p>) {
        self.policy.borrow_mut().end_streams(m);
        // A call still in flight was interrupted: it stops.
        self.policy.borrow_mut().layer().shutdown();
    }

    fn held(&self, f: &mut dyn FnMut(HeldRef)) {
        self.policy.borrow().held(f);
    }

    fn counters(&self) -> (u64, u64) {
        (self.dispatched, self.dispatched.min(1))
    }
}
