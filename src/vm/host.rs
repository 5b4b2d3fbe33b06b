//! What the machine asks of a scheduler (DESIGN.md section 4). The machine never
//! imports the scheduler: the scheduler ([`crate::sched`]) implements [`Host`] and
//! installs itself, and the machine calls it only on rare events (a fiber parks, a
//! fiber ends, a thunk with waiters is written, an external call is ready, and every
//! few thousand steps). Without a host the machine runs one fiber and performs
//! external calls when they are needed, on its own thread (`--sequential`).

use super::Machine;
use super::code::Site;
use super::error::{Result, RuntimeError};
use super::frame::Ctl;
use super::value::{Ref, Val};
use crate::external::host::Call;

/// The effect class of an external (LANGUAGE.md 7.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Its result depends only on its arguments and it changes nothing.
    Pure,
    /// It reads the outside world and changes nothing.
    Reads,
    /// It may change the outside world: started only once certainly needed.
    Effect,
}

/// A call ready to be made: the request, where it is written, and the word to return
/// when it succeeds instead of its text (`delay`'s value), if any.
#[derive(Debug)]
pub struct CallRequest {
    /// What to perform.
    pub call: Call,
    /// Where the call is written.
    pub site: Site,
    /// Its effect class.
    pub effect: Effect,
    /// The word the call returns instead of its text (owned), if any.
    pub passthrough: Option<Val>,
    /// The place to report a failure at.
    pub span: crate::syntax::span::Span,
}

/// A scheduler, seen from the machine.
pub trait Host<'p> {
    /// The current fiber parked (its state says why): save it and return the control
    /// of the next fiber to run (its stacks now the machine's).
    fn switch(&mut self, m: &mut Machine<'p>) -> Result<Ctl>;

    /// The current fiber needs thunk `t` (owned reference), which fiber `owner` is
    /// evaluating: park it (return `Ctl::Park`), or `None` when waiting would never
    /// end (an infinite loop).
    fn wait_thunk(&mut self, m: &mut Machine<'p>, t: Ref, owner: u32) -> Option<Ctl>;

    /// A thunk that fibers wait for has its value.
    fn wake(&mut self, m: &mut Machine<'p>, t: Ref);

    /// The current fiber is ready to make a call: start it (or wait for the same call
    /// already running) and park, or return its result at once.
    fn call(&mut self, m: &mut Machine<'p>, req: CallRequest) -> Result<Ctl>;

    /// A fiber other than the one the running evaluation belongs to ended, with its
    /// value (owned) or its error: return the control of the next fiber to run.
    fn fiber_done(
        &mut self,
        m: &mut Machine<'p>,
        r: std::result::Result<Val, RuntimeError>,
    ) -> Result<Ctl>;

    /// Called every few thousand steps with the current control (owned): returns a
    /// control to go on with (another fiber's, after saving this one), or gives the
    /// same back.
    fn tick(&mut self, m: &mut Machine<'p>, ctl: Ctl) -> Result<Ctl>;

    /// Whether the current fiber is certain (its value is certainly needed).
    fn certain(&self, m: &Machine<'p>) -> bool;

    /// Ends the run: stops what is still running and releases every fiber's stacks.
    fn shutdown(&mut self, m: &mut Machine<'p>);

    /// The words every fiber that is not running holds (for the audits).
    fn held(&self, f: &mut dyn FnMut(HeldRef));

    /// Counters for `--stats`: calls dispatched, most in flight at once.
    fn counters(&self) -> (u64, u64);
}

/// A reference a parked fiber holds.
#[derive(Copy, Clone, Debug)]
pub enum HeldRef {
    /// A word.
    Val(Val),
    /// A record.
    Rec(Ref),
}
