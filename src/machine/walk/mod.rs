//! The walks over machine states (DESIGN.md 2: one generic unwind, every traversal a
//! fold): the walk itself and the heap audits ([`unwind`]), readback of values and
//! paused states to core terms ([`readback`], [`state`]), printing ([`print`](mod@print)), the
//! REPL's view of a state ([`view`]), statistics ([`stats`]), and type-level
//! evaluation for the checker ([`typeval`]).

pub mod print;
pub mod readback;
pub mod state;
pub mod stats;
pub mod typeval;
pub mod unwind;
pub mod view;
