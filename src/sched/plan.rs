//! `--plan`: going past the barriers a planned call would be (`after`, `prim_seq`,
//! strict arguments) and counting the calls the plan cannot see past.

use super::Scheduler;
use crate::machine::Machine;
use crate::machine::code::Code;
use crate::machine::frame::Frame;
use crate::machine::value::Val;

impl<'p> Scheduler<'p> {
    /// `--plan`: fiber `id` waits for a call that will not be made in this run. The
    /// work its frames order after that call without using its value (`after a b`:
    /// `b`; `prim_seq a b`: `b`; a known call's later strict arguments) is certainly
    /// needed all the same, and gets a certain fiber, so that the plan lists the calls
    /// beyond (nothing is performed: every effect call is planned, and `reads` calls
    /// read the files as they are now). A normal run never does this: there the order
    /// is the point (`after (run "mkdir" ...) (writeFile ...)`).
    pub(super) fn fork_past_barriers(&mut self, m: &mut Machine<'p>, id: u32) {
        // Only a plan goes past barriers: a batch run's calls are not made *yet*, and
        // what is ordered after them waits for them.
        if !m.options.lazy_calls || !self.fibers[id as usize].certain {
            return;
        }
        let frames = self.fibers[id as usize].stacks.frames.clone();
        for fr in frames {
            match fr {
                Frame::After(v) => {
                    m.heap.retain(v);
                    self.fork(m, v, false);
                }
                Frame::SeqB { b, env } if self.code_may_call(m, b) => {
                    let t = m.mkarg(b, env);
                    self.fork(m, t, false);
                }
                // A known call's later strict arguments (`after a b` calls the
                // prelude's `after`, strict in both).
                Frame::CallArgs {
                    code, env, next, ..
                } => {
                    let Code::CallDef { args, strict, .. } = m.code.nodes[code as usize] else {
                        continue;
                    };
                    for i in next + 1..args.len.min(64) {
                        let a = m.code.args[(args.start + i) as usize];
                        if strict & (1 << i) != 0 && self.code_may_call(m, a) {
                            let t = m.mkarg(a, env);
                            self.fork(m, t, false);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `--plan`, at the end: how many of the calls not made are waited for by fibers
    /// that may go on to make more calls once they have the value (what the plan
    /// cannot see past).
    pub(super) fn plan_frontier(&mut self, m: &Machine<'p>) -> usize {
        let waits = std::mem::take(&mut self.planned_waits);
        let mut tickets: Vec<u64> = waits
            .iter()
            .filter(|(_, f)| self.may_go_on(m, *f, 0))
            .map(|(t, _)| *t)
            .collect();
        tickets.sort_unstable();
        tickets.dedup();
        tickets.len()
    }

    /// Whether fiber `id`'s continuation may reach an external (a pending external
    /// call, code or a thunk that may call, or a fiber waiting for a thunk it is
    /// updating that may). Conservative where it cannot tell.
    pub(super) fn may_go_on(&mut self, m: &Machine<'p>, id: u32, depth: u32) -> bool {
        if depth > 8 {
            return true;
        }
        let frames = self.fibers[id as usize].stacks.frames.clone();
        let held: Vec<Val> = self.fibers[id as usize].stacks.to_be_needed().collect();
        if held.iter().any(|v| self.worth_forking(m, *v)) {
            return true;
        }
        for fr in frames.iter().rev() {
            let found = match *fr {
                Frame::Strict {
                    op: crate::machine::frame::StrictOp::Extern(..),
                    ..
                } => true,
                Frame::BinL { b, .. } | Frame::SeqB { b, .. } => self.code_may_call(m, b),
                Frame::LetStrict { body, .. } => self.code_may_call(m, body),
                Frame::CallArgs { code, .. } => self.code_may_call(m, code),
                Frame::Case { m: mi, .. } => {
                    let node = m.code.matches[mi as usize].node;
                    self.code_may_call(m, node)
                }
                Frame::Arg(v, _)
                | Frame::After(v)
                | Frame::BinLv { b: v, .. }
                | Frame::ConcatL { b: v, .. }
                | Frame::EqLeft(v) => self.worth_forking(m, v),
                Frame::Update(t) => {
                    let waiting = self.waiters.get(&t).cloned().unwrap_or_default();
                    waiting.into_iter().any(|w| self.may_go_on(m, w, depth + 1))
                }
                _ => false,
            };
            if found {
                return true;
            }
        }
        false
    }
}
