//! What the machine asks of its host (DESIGN.md section 4): whoever runs fibers and
//! makes external calls. The machine never imports the scheduler or the call layer:
//! a host ([`crate::sched::Scheduler`] for parallel runs, [`crate::sched::Sequential`]
//! for `--sequential`) implements [`Host`] and installs itself, and the machine calls
//! it only on rare events (a fiber parks, a fiber ends, a thunk with waiters is
//! written, an external call is ready, and every few thousand steps).
//!
//! The machine sees a call as DESIGN.md 4 says: an external with its arguments in
//! normal form ([`CallRequest`]), then later a value or a failure. Everything between
//! (the registry, the result store, retries, fail-fast, places and definition hashes,
//! sharing a call made twice) is the host's. A machine with no host runs one fiber
//! and has no externals (type-level evaluation).

use super::Machine;
use super::code::Site;
use super::error::{Result, RuntimeError};
use super::frame::Control;
use super::value::{Ref, Val};
use crate::core::term::ExternId;
use crate::syntax::span::Span;

/// An external call the running fiber is ready to make.
#[derive(Debug)]
pub struct CallRequest {
    /// Which external.
    pub external: ExternId,
    /// Where it is written (its code node; [`Site::UNKNOWN`] when not known).
    pub site: Site,
    /// Where to report a failure.
    pub span: Span,
    /// The arguments, in normal form (owned references).
    pub args: Vec<Val>,
    /// The files declared with `reading` around the call.
    pub reading: Vec<String>,
    /// The files declared with `writing` around the call.
    pub writing: Vec<String>,
}

/// What the machine does with a runtime error a fiber raised ([`Host::before_error`]).
#[derive(Debug)]
pub enum ErrorStep {
    /// Raise it as usual: unwind to the nearest `try`, or end the fiber.
    Raise(RuntimeError),
    /// Raise this error past every `try` of the fiber: it belongs to work the fiber
    /// handed to a future before it pushed them (the sequential run met it first).
    Fatal(RuntimeError),
    /// The host parked the fiber with its error, until earlier work is known to end
    /// well or not: run the next fiber.
    Wait,
}

/// A scheduler and call maker, seen from the machine. The methods about fibers have
/// the defaults of a host that runs one fiber ([`Host::fibers`] false).
pub trait Host<'p> {
    /// Whether this host runs several fibers (false: one fiber, calls made when
    /// reached, `--sequential`).
    fn fibers(&self) -> bool {
        false
    }

    /// The current fiber is ready to make a call: start it (or wait for the same call
    /// already running) and park, or return its result at once.
    fn call(&mut self, m: &mut Machine<'p>, req: CallRequest) -> Result<Control>;

    /// The error a run ends with (LANGUAGE.md 11): a call that did not start because
    /// another one failed first reports that failure.
    fn final_error(&mut self, e: RuntimeError) -> RuntimeError {
        e
    }

    /// The current fiber parked (its state says why): save it and return the control
    /// of the next fiber to run (its stacks now the machine's).
    fn switch(&mut self, _m: &mut Machine<'p>) -> Result<Control> {
        Err(RuntimeError::new(
            super::error::ErrorKind::Internal,
            "internal error: a fiber parked without a scheduler",
        ))
    }

    /// The current fiber needs thunk `t` (owned reference), which fiber `owner` is
    /// evaluating: park it (return `Control::Park`), or `None` when waiting would never
    /// end (an infinite loop).
    fn wait_thunk(&mut self, _m: &mut Machine<'p>, _t: Ref, _owner: u32) -> Option<Control> {
        None
    }

    /// The current fiber raised `e` (before it unwinds): the host may hold it until
    /// the futures the fiber made earlier end, whose errors come first in the
    /// sequential order ([`ErrorStep`]).
    fn before_error(&mut self, _m: &mut Machine<'p>, e: RuntimeError) -> ErrorStep {
        ErrorStep::Raise(e)
    }

    /// The current fiber is about to write its value `v` into `t`, the thunk at the
    /// bottom of its stack (it then ends). If futures it made have not ended, the
    /// host parks it (keeping `v`, to write it once they have: `Some(Ok(Park))`); if
    /// one failed, that error comes first (`Some(Err(..))`, `v` stays the caller's).
    fn hold_last_update(
        &mut self,
        _m: &mut Machine<'p>,
        _t: Ref,
        _v: Val,
    ) -> Option<Result<Control>> {
        None
    }

    /// A future the current fiber made that has not ended (a new reference), if any:
    /// the printer needs each before the run ends well, so that an error in one is
    /// the run's error as it is sequentially.
    fn unfinished_future(&mut self, _m: &mut Machine<'p>) -> Option<Val> {
        None
    }

    /// A thunk that fibers wait for has its value.
    fn wake(&mut self, _m: &mut Machine<'p>, _t: Ref) {}

    /// A fiber other than the one the running evaluation belongs to ended, with its
    /// value (owned) or its error: return the control of the next fiber to run.
    fn fiber_done(
        &mut self,
        m: &mut Machine<'p>,
        r: std::result::Result<Val, RuntimeError>,
    ) -> Result<Control> {
        if let Ok(v) = r {
            m.release(v);
        }
        Err(RuntimeError::new(
            super::error::ErrorKind::Internal,
            "internal error: a second fiber without a scheduler",
        ))
    }

    /// Called every few thousand steps with the current control (owned): returns a
    /// control to go on with (another fiber's, after saving this one), or gives the
    /// same back.
    fn tick(&mut self, _m: &mut Machine<'p>, ctl: Control) -> Result<Control> {
        Ok(ctl)
    }

    /// A word (owned) is certainly needed, to normal form when `deep`: a certain
    /// fiber may start on it if it is worth one (its code may reach an external).
    fn fork(&mut self, m: &mut Machine<'p>, v: Val, _deep: bool) {
        m.release(v);
    }

    /// A spine walk holds thunk `t` (`held`), or no longer does: while it does, the
    /// thunk's whole spine is certainly needed ([`Host::spine_needed`]).
    fn note_spine(&mut self, _t: Ref, _held: bool) {}

    /// Whether a spine walk holds thunk `t`: whoever evaluates it, the calls it makes in
    /// its tail position are walked to their end.
    fn spine_needed(&self, _t: Ref) -> bool {
        false
    }

    /// A list (a word, owned) whose whole spine is certainly needed
    /// ([`crate::machine::compile::spine`]): a certain fiber may walk it, so that calls
    /// further along it start while the consumer waits for the first.
    fn fork_spine(&mut self, m: &mut Machine<'p>, v: Val) {
        m.release(v);
    }

    /// Whether a word is a thunk not evaluated yet whose code may reach an external
    /// (waiting for it may take long, so whatever else is needed should start first).
    fn may_call(&mut self, _m: &Machine<'p>, _v: Val) -> bool {
        false
    }

    /// Whether the current fiber is certain (its value is certainly needed).
    fn certain(&self, _m: &Machine<'p>) -> bool {
        true
    }

    /// Whether the normal-form walk of the current fiber may leave the thunk `t` out:
    /// the fiber only walks to start calls early (a helper the scheduler forked) and
    /// another such fiber walks `t`. Without this, each helper walked the whole rest
    /// of a list, and the helpers of a list of n elements took n² steps.
    fn walked_elsewhere(&self, _m: &Machine<'p>, _t: Ref) -> bool {
        false
    }

    /// Ends the run: stops what is still running and releases every fiber's stacks
    /// and every word the host holds.
    fn shutdown(&mut self, m: &mut Machine<'p>);

    /// The words the host holds: every fiber that is not running, the values of
    /// finished calls kept for sharing (for the audits).
    fn held(&self, f: &mut dyn FnMut(HeldRef));

    /// The frames and saved control of every fiber that is not running (for the
    /// search of code that may still run).
    fn parked(&self, _f: &mut dyn FnMut(&[super::frame::Frame], Option<&Control>)) {}

    /// Counters for `--stats`: calls dispatched, most in flight at once.
    fn counters(&self) -> (u64, u64);

    /// About how many bytes are held for the evaluation outside the machine's heap
    /// and stacks (the stacks of the fibers that are not running, the host's queues,
    /// what readers of external results hold now): counted by `--max-memory` beside
    /// the heap, so that a limit holds however the work is spread. The machine tells
    /// its own bytes, so that those readers stop where the limit leaves no room.
    fn held_bytes(&self, _machine_bytes: usize) -> usize {
        0
    }
}

/// A reference a parked fiber holds.
#[derive(Copy, Clone, Debug)]
pub enum HeldRef {
    /// A word.
    Val(Val),
    /// A record.
    Rec(Ref),
}
