//! What the machine asks of a scheduler (DESIGN.md section 4). The machine never
//! imports the scheduler: the scheduler ([`crate::sched`]) implements [`Host`] and
//! installs itself, and the machine calls it only on rare events (a fiber parks, a
//! fiber ends, a thunk with waiters is written, an external call is ready, and every
//! few thousand steps). Without a host the machine runs one fiber and performs
//! external calls when they are needed, on its own thread (`--sequential`).

use super::Machine;
use super::error::{Result, RuntimeError};
use super::frame::Control;
use super::value::{Ref, Val};

/// A call ready to be made.
#[derive(Debug)]
pub struct CallRequest {
    /// The call: its external, arguments as plain data, place (for the result store)
    /// and the files declared around it.
    pub call: crate::external::calls::Call,
    /// What the executor is asked to do (made once, where the call is reached).
    pub request: crate::external::request::Request,
    /// Its identity for sharing (`None`: never shared).
    pub key: Option<super::external::CallKey>,
    /// The word the call returns when it succeeds (owned), if it is one of its
    /// arguments (`delay`).
    pub passthrough: Option<Val>,
    /// Where to report a failure.
    pub span: crate::syntax::span::Span,
}

/// A scheduler, seen from the machine.
pub trait Host<'p> {
    /// The current fiber parked (its state says why): save it and return the control
    /// of the next fiber to run (its stacks now the machine's).
    fn switch(&mut self, m: &mut Machine<'p>) -> Result<Control>;

    /// The current fiber needs thunk `t` (owned reference), which fiber `owner` is
    /// evaluating: park it (return `Control::Park`), or `None` when waiting would never
    /// end (an infinite loop).
    fn wait_thunk(&mut self, m: &mut Machine<'p>, t: Ref, owner: u32) -> Option<Control>;

    /// A thunk that fibers wait for has its value.
    fn wake(&mut self, m: &mut Machine<'p>, t: Ref);

    /// The current fiber is ready to make a call: start it (or wait for the same call
    /// already running) and park, or return its result at once.
    fn call(&mut self, m: &mut Machine<'p>, req: CallRequest) -> Result<Control>;

    /// A fiber other than the one the running evaluation belongs to ended, with its
    /// value (owned) or its error: return the control of the next fiber to run.
    fn fiber_done(
        &mut self,
        m: &mut Machine<'p>,
        r: std::result::Result<Val, RuntimeError>,
    ) -> Result<Control>;

    /// Called every few thousand steps with the current control (owned): returns a
    /// control to go on with (another fiber's, after saving this one), or gives the
    /// same back.
    fn tick(&mut self, m: &mut Machine<'p>, ctl: Control) -> Result<Control>;

    /// A word (owned) is certainly needed, to normal form when `deep`: a certain
    /// fiber may start on it if it is worth one (its code may reach an external).
    fn fork(&mut self, m: &mut Machine<'p>, v: Val, deep: bool);

    /// Whether a word is a thunk not evaluated yet whose code may reach an external
    /// (waiting for it may take long, so whatever else is needed should start first).
    fn may_call(&mut self, m: &Machine<'p>, v: Val) -> bool;

    /// Whether the current fiber is certain (its value is certainly needed).
    fn certain(&self, m: &Machine<'p>) -> bool;

    /// Whether the normal-form walk of the current fiber may leave the thunk `t` out:
    /// the fiber only walks to start calls early (a helper the scheduler forked) and
    /// another such fiber walks `t`. Without this, each helper walked the whole rest
    /// of a list, and the helpers of a list of n elements took n² steps.
    fn walked_elsewhere(&self, m: &Machine<'p>, t: Ref) -> bool;

    /// Ends the run: stops what is still running and releases every fiber's stacks.
    fn shutdown(&mut self, m: &mut Machine<'p>);

    /// The words every fiber that is not running holds (for the audits).
    fn held(&self, f: &mut dyn FnMut(HeldRef));

    /// The frames and saved control of every fiber that is not running (for the
    /// search of code that may still run).
    fn parked(&self, f: &mut dyn FnMut(&[super::frame::Frame], Option<&Control>));

    /// Counters for `--stats`: calls dispatched, most in flight at once.
    fn counters(&self) -> (u64, u64);

    /// About how many bytes the host holds for the evaluation (the stacks of the
    /// fibers that are not running, its queues): counted by `--max-memory` beside the
    /// heap, so that a limit holds however the work is spread over fibers.
    fn held_bytes(&self) -> usize;
}

/// A reference a parked fiber holds.
#[derive(Copy, Clone, Debug)]
pub enum HeldRef {
    /// A word.
    Val(Val),
    /// A record.
    Rec(Ref),
}
