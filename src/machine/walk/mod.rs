//! The walks over machine states (DESIGN.md 2: one generic unwind, every traversal a
//! fold): the walk itself and the heap audits ([`unwind`]), readback of values and
//! paused states to core terms ([`readback`], [`state`]), printing ([`print`](mod@print)), the
//! REPL's view of a state ([`view`]), statistics ([`stats`]), and type-level
//! evaluation for the checker ([`typeval`]). The read-only walks see the machine
//! through [`Sight`] (a borrow of its parts, no stepping); the printer and type-level
//! evaluation drive it, as clients.

pub mod print;
pub mod readback;
pub mod state;
pub mod stats;
pub mod typeval;
pub mod unwind;
pub mod view;

use crate::core::program::Program;
use crate::machine::RunState;
use crate::machine::code::CodeStore;
use crate::machine::compile::DefCode;
use crate::machine::frame::Stacks;
use crate::machine::heap::Heap;
use crate::machine::host::Host;
use crate::machine::print::PrintState;
use crate::machine::value::Val;

/// A machine seen read only: what the walks (readback, the audits, `:stack`'s view,
/// statistics) may look at. The walks never change a state, so they are given this
/// view, made by [`Machine::sight`](crate::machine::Machine::sight), and not the
/// machine: they cannot step it, allocate or release.
#[derive(Clone, Copy)]
pub struct Sight<'a, 'p> {
    /// The program the machine runs.
    pub prog: &'p Program,
    /// The heap.
    pub heap: &'a Heap,
    /// The compiled code.
    pub code: &'a CodeStore<'p>,
    /// The running fiber's stacks.
    pub stacks: &'a Stacks,
    /// Steps, limits and the paused control.
    pub run: &'a RunState,
    /// What the printer holds.
    pub(crate) printer: &'a PrintState,
    /// Each definition's compiled code (`Pending` until first used).
    pub def_code: &'a [DefCode],
    /// Each definition's pinned value (`Erased` until first used).
    pub def_vals: &'a [Val],
    /// The scheduler, when fibers run in parallel.
    pub host: Option<&'a (dyn Host<'p> + 'p)>,
}

impl Sight<'_, '_> {
    /// The definitions' pinned values made so far (roots of the audits).
    pub fn pinned(&self) -> impl Iterator<Item = Val> + '_ {
        self.def_vals.iter().copied().filter(|v| *v != Val::Erased)
    }
}
