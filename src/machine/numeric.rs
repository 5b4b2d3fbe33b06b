//! The numeric tier: calls of functions whose parameters are all strict and whose
//! bodies are numbers, constructors without fields (`True`), arithmetic, `if`s and
//! known calls with strict arguments
//! ([`super::code::Fun::numeric`]: `tak`, `fib`, `gcd`, `ackermann`) run on a value
//! stack, with no record, thunk or reference count per call.
//!
//! Such a call needs every argument before its body runs, and its body makes only
//! numbers, so its arguments and locals are plain words in a window of the tier's
//! value stack, and its continuations are small frames of the tier's own (`Job`).
//! The tier takes the same transitions as the machine, in the same order, on the same
//! code: a `Bin` evaluates its left operand then its right, an `if` its condition
//! then the arm, a call its arguments in order then the body.
//!
//! A run of the tier is one batch of at most `BATCH` steps (each counted as a
//! machine step). It ends when the value comes back, or, at the end of the batch and
//! wherever the tier cannot go on (a call of a function outside the tier, an
//! operation that fails, a condition that is not a constructor), by writing its state
//! as the machine's own: each window becomes a record of its function, each frame the
//! machine frame it stands for (`BinL`, `BinR`, `Case`, `CallArgs`), and the machine
//! goes on from there (and reports the failure, with its place, as it would have).
//! So evaluation between batches is the machine's, with everything that implies: a
//! paused state reads back, the scheduler and the limits get their turn. The tier
//! does not run when evaluation is to pause at a given step.

use super::Machine;
use super::code::{ArmTest, Code, CodeId, FunId};
use super::error::Result;
use super::eval::{FloatResult, IMM_DEPTH, IntResult, float_op, int_op};
use super::frame::{Control, Frame};
use super::value::{NIL, Ref, Val};
use crate::core::term::ConId;

/// The most steps one run of the tier takes.
const BATCH: u64 = 4096;

/// A continuation of the tier: what to do with the value being computed.
#[derive(Clone, Copy, Debug)]
enum Job {
    /// The left operand of a `Bin` node is being computed, in the window at `base`.
    BinL { node: CodeId, base: u32 },
    /// The right operand is being computed; the left one's value is here.
    BinR { node: CodeId, a: Val },
    /// The condition of a `Match` node is being computed.
    Case { m: u32, base: u32 },
    /// Argument `next` of a `CallDef` node is being computed; the ones before it are
    /// on the stack from `start`.
    Args {
        node: CodeId,
        base: u32,
        next: u32,
        start: u32,
    },
    /// The body of a call of `fun` runs in the window at `base`: when it returns, the
    /// window goes.
    Call { fun: FunId, base: u32 },
}

/// Where the tier stands: code to run in a window, or a value to return.
#[derive(Clone, Copy, Debug)]
enum Now {
    Eval(CodeId, u32),
    Ret(Val),
}

/// The tier's stacks (kept by the machine between runs, so a run allocates nothing).
#[derive(Default, Debug)]
pub struct Tier {
    vals: Vec<Val>,
    jobs: Vec<Job>,
}

impl<'p> Machine<'p> {
    /// A known call (`c` in `env`, owned) of a function in the tier whose arguments
    /// are at hand: its body runs in the tier. `None` (nothing done) otherwise.
    pub(crate) fn numeric_call(
        &mut self,
        c: CodeId,
        fun: FunId,
        env: Ref,
    ) -> Option<Result<Control>> {
        let budget = self.step_budget(BATCH);
        if budget == 0 {
            return None;
        }
        let Code::CallDef { args, .. } = self.code.nodes[c as usize] else {
            return None;
        };
        let mut tier = std::mem::take(&mut self.tiers.numeric);
        tier.vals.clear();
        tier.jobs.clear();
        for i in 0..args.len {
            let a = self.code.args[(args.start + i) as usize];
            match self.imm(a, env, IMM_DEPTH) {
                Some(v) if !v.is_counted() => tier.vals.push(v),
                other => {
                    if let Some(v) = other {
                        self.heap.release(v);
                    }
                    self.tiers.numeric = tier;
                    return None;
                }
            }
        }
        self.heap.release_rec(env);
        tier.jobs.push(Job::Call { fun, base: 0 });
        let body = self.code.funs[fun as usize].body;
        let ctl = match self.run_tier(&mut tier, Now::Eval(body, 0), budget) {
            Ok(v) => Control::Ret(v),
            Err(now) => self.leave_tier(&mut tier, now),
        };
        self.tiers.numeric = tier;
        Some(Ok(ctl))
    }

    /// The body of function `fun` ([`super::code::Fun::tier_body`]) for the words of
    /// its record (numbers), computed in the tier within `budget` steps: its value,
    /// or `None` when it cannot be computed there (nothing is left behind). Its steps
    /// are not counted: the caller counts the computation as one.
    pub(crate) fn tier_value(&mut self, fun: FunId, window: &[Val], budget: u64) -> Option<Val> {
        let steps = self.run.steps;
        let mut tier = std::mem::take(&mut self.tiers.numeric);
        tier.vals.clear();
        tier.vals.extend_from_slice(window);
        tier.jobs.clear();
        tier.jobs.push(Job::Call { fun, base: 0 });
        let body = self.code.funs[fun as usize].body;
        let r = self.run_tier(&mut tier, Now::Eval(body, 0), budget).ok();
        self.tiers.numeric = tier;
        self.run.steps = steps;
        r
    }

    /// Runs the tier from `now` for at most `budget` steps: the value, or where it
    /// stopped (the jobs still on the tier's stack).
    fn run_tier(
        &mut self,
        t: &mut Tier,
        mut now: Now,
        budget: u64,
    ) -> std::result::Result<Val, Now> {
        let bools = (self.prog.builtins.true_, self.prog.builtins.false_);
        for _ in 0..budget {
            self.run.steps += 1;
            now = match now {
                Now::Eval(c, base) => match self.code.nodes[c as usize] {
                    Code::Local(s) => Now::Ret(t.vals[(base + s) as usize]),
                    Code::Int(n) => Now::Ret(Val::Int(n)),
                    Code::Float(x) => Now::Ret(Val::Float(x)),
                    Code::Atom(k) => Now::Ret(Val::Atom(k)),
                    Code::Bin { prim, a, b, .. } => {
                        match (self.leaf(t, a, base), self.leaf(t, b, base)) {
                            // Both operands at hand: no frames.
                            (Some(x), Some(y)) => match self.op(prim, x, y, bools) {
                                Some(r) => Now::Ret(r),
                                None => return Err(now),
                            },
                            _ => {
                                t.jobs.push(Job::BinL { node: c, base });
                                Now::Eval(a, base)
                            }
                        }
                    }
                    Code::Match(m) => {
                        let scrut = self.code.matches[m as usize].scrut;
                        match self.code.nodes[scrut as usize] {
                            // A comparison of operands at hand: the arm at once.
                            Code::Bin { prim, a, b, .. }
                                if let (Some(x), Some(y)) =
                                    (self.leaf(t, a, base), self.leaf(t, b, base)) =>
                            {
                                match self.op(prim, x, y, bools).and_then(|v| self.arm(m, v)) {
                                    Some(body) => Now::Eval(body, base),
                                    None => return Err(now),
                                }
                            }
                            _ => {
                                t.jobs.push(Job::Case { m, base });
                                Now::Eval(scrut, base)
                            }
                        }
                    }
                    Code::CallDef { def, .. } => {
                        let f = self.fun_of(def);
                        if !self.code.funs[f as usize].numeric {
                            return Err(now);
                        }
                        let start = t.vals.len() as u32;
                        self.args_from(t, c, base, 0, start)
                    }
                    _ => return Err(now),
                },
                Now::Ret(v) => {
                    let Some(job) = t.jobs.pop() else {
                        return Ok(v);
                    };
                    match job {
                        Job::BinL { node, base } => {
                            let Code::Bin { b, .. } = self.code.nodes[node as usize] else {
                                unreachable!("BinL on a node that is not a Bin")
                            };
                            t.jobs.push(Job::BinR { node, a: v });
                            Now::Eval(b, base)
                        }
                        Job::BinR { node, a } => {
                            let Code::Bin { prim, .. } = self.code.nodes[node as usize] else {
                                unreachable!("BinR on a node that is not a Bin")
                            };
                            match self.op(prim, a, v, bools) {
                                Some(r) => Now::Ret(r),
                                None => {
                                    // The machine takes the step again and reports it.
                                    t.jobs.push(job);
                                    return Err(Now::Ret(v));
                                }
                            }
                        }
                        Job::Case { m, base } => match self.arm(m, v) {
                            Some(body) => Now::Eval(body, base),
                            None => {
                                t.jobs.push(job);
                                return Err(Now::Ret(v));
                            }
                        },
                        Job::Args {
                            node,
                            base,
                            next,
                            start,
                        } => {
                            t.vals.push(v);
                            self.args_from(t, node, base, next + 1, start)
                        }
                        Job::Call { base, .. } => {
                            t.vals.truncate(base as usize);
                            Now::Ret(v)
                        }
                    }
                }
            };
        }
        Err(now)
    }

    /// Goes on with the arguments of a call (`node`, in the window at `base`) from
    /// argument `next` (those before are on the stack from `start`): the ones at hand
    /// are pushed at once, the first that is not is computed under an `Args` job; with
    /// all of them in, the body runs in their window (which replaces the caller's for
    /// a call in tail position).
    #[inline(always)]
    fn args_from(&mut self, t: &mut Tier, node: CodeId, base: u32, next: u32, start: u32) -> Now {
        let Code::CallDef { def, args, .. } = self.code.nodes[node as usize] else {
            unreachable!("arguments of a node that is not a call")
        };
        let bools = (self.prog.builtins.true_, self.prog.builtins.false_);
        for i in next..args.len {
            let a = self.code.args[(args.start + i) as usize];
            match self.quick(t, a, base, bools) {
                Some(v) => t.vals.push(v),
                None => {
                    t.jobs.push(Job::Args {
                        node,
                        base,
                        next: i,
                        start,
                    });
                    return Now::Eval(a, base);
                }
            }
        }
        let f = self.fun_of(def);
        let body = self.code.funs[f as usize].body;
        match t.jobs.last() {
            Some(&Job::Call { base: cb, .. }) if cb == base => {
                let n = args.len as usize;
                let from = start as usize;
                t.vals.copy_within(from..from + n, cb as usize);
                t.vals.truncate(cb as usize + n);
                t.jobs.pop();
                t.jobs.push(Job::Call { fun: f, base: cb });
                Now::Eval(body, cb)
            }
            _ => {
                t.jobs.push(Job::Call {
                    fun: f,
                    base: start,
                });
                Now::Eval(body, start)
            }
        }
    }

    /// The body of the arm of match `m` a value chooses (a constructor without
    /// fields).
    #[inline(always)]
    fn arm(&self, m: u32, v: Val) -> Option<CodeId> {
        let Val::Atom(k) = v else {
            return None;
        };
        self.code.matches[m as usize]
            .arms
            .iter()
            .find(|arm| arm.test == ArmTest::Con(k))
            .map(|arm| arm.body)
    }

    /// The value of a slot, a literal, or an operator on two of those that succeeds:
    /// what needs no job.
    #[inline(always)]
    fn quick(&self, t: &Tier, c: CodeId, base: u32, bools: (ConId, ConId)) -> Option<Val> {
        match self.code.nodes[c as usize] {
            Code::Bin { prim, a, b, .. } => {
                self.op(prim, self.leaf(t, a, base)?, self.leaf(t, b, base)?, bools)
            }
            _ => self.leaf(t, c, base),
        }
    }

    /// The value of a slot or a literal.
    #[inline(always)]
    fn leaf(&self, t: &Tier, c: CodeId, base: u32) -> Option<Val> {
        match self.code.nodes[c as usize] {
            Code::Local(s) => Some(t.vals[(base + s) as usize]),
            Code::Int(n) => Some(Val::Int(n)),
            Code::Float(x) => Some(Val::Float(x)),
            _ => None,
        }
    }

    /// An arithmetic operator or comparison on two numbers of one kind; `None` when
    /// it fails (the machine reports it).
    #[inline(always)]
    fn op(&self, prim: crate::prim::Prim, a: Val, b: Val, bools: (ConId, ConId)) -> Option<Val> {
        let truth = |b: bool| Val::Atom(if b { bools.0 } else { bools.1 });
        match (a, b) {
            (Val::Int(x), Val::Int(y)) => int_op(prim, x, y).map(|r| match r {
                IntResult::Int(n) => Val::Int(n),
                IntResult::Bool(b) => truth(b),
            }),
            (Val::Float(x), Val::Float(y)) => float_op(prim, x, y).map(|r| match r {
                FloatResult::Float(x) => Val::Float(x),
                FloatResult::Bool(b) => truth(b),
            }),
            _ => None,
        }
    }

    /// Writes the tier's state as the machine's: a record per window some frame or
    /// the control refers to, the machine frame each job stands for; the control.
    fn leave_tier(&mut self, t: &mut Tier, now: Now) -> Control {
        // The calls met so far, bottom up, with their window's record once made
        // (counted once here; each use counts one more). Every job uses the window of
        // the nearest call below it (a call's job is pushed before its body's), and
        // the control uses the topmost: so a window is always the last one met.
        let mut windows: Vec<(u32, FunId, Option<Ref>)> = Vec::new();
        let rec = |m: &mut Machine<'p>,
                   t: &Tier,
                   windows: &mut Vec<(u32, FunId, Option<Ref>)>,
                   base: u32|
         -> Ref {
            let w = windows.last_mut().expect("a window belongs to a call");
            debug_assert_eq!(w.0, base, "a job uses the window of the call below it");
            let r = match w.2 {
                Some(r) => r,
                None => {
                    let f = &m.code.funs[w.1 as usize];
                    let (layout, slots) = (f.layout, f.slots);
                    let r = m.heap.record(NIL, layout, slots);
                    for i in 0..slots {
                        m.heap.set_slot(r, i, t.vals[(base + i) as usize]);
                    }
                    w.2 = Some(r);
                    r
                }
            };
            m.heap.retain_rec(r);
            r
        };
        for k in 0..t.jobs.len() {
            let frame = match t.jobs[k] {
                Job::BinL { node, base } => {
                    let Code::Bin { prim, b, span, .. } = self.code.nodes[node as usize] else {
                        unreachable!("BinL on a node that is not a Bin")
                    };
                    let env = rec(self, t, &mut windows, base);
                    Frame::BinL { prim, b, env, span }
                }
                Job::BinR { node, a } => {
                    let Code::Bin { prim, span, .. } = self.code.nodes[node as usize] else {
                        unreachable!("BinR on a node that is not a Bin")
                    };
                    Frame::BinR { prim, a, span }
                }
                Job::Case { m, base } => Frame::Case {
                    m,
                    env: rec(self, t, &mut windows, base),
                },
                Job::Args {
                    node,
                    base,
                    next,
                    start,
                } => {
                    let Code::CallDef { def, .. } = self.code.nodes[node as usize] else {
                        unreachable!("Args on a node that is not a call")
                    };
                    let f = self.fun_of(def);
                    let (layout, slots) = {
                        let f = &self.code.funs[f as usize];
                        (f.layout, f.slots)
                    };
                    let callee = self.heap.record(NIL, layout, slots);
                    for i in 0..next {
                        self.heap.set_slot(callee, i, t.vals[(start + i) as usize]);
                    }
                    Frame::CallArgs {
                        code: node,
                        env: rec(self, t, &mut windows, base),
                        next,
                        rec: callee,
                    }
                }
                Job::Call { fun, base } => {
                    windows.push((base, fun, None));
                    continue;
                }
            };
            self.push(frame);
        }
        let ctl = match now {
            Now::Eval(c, base) => Control::Eval(c, rec(self, t, &mut windows, base)),
            Now::Ret(v) => Control::Ret(v),
        };
        for r in windows.into_iter().filter_map(|w| w.2) {
            self.heap.release_rec(r);
        }
        t.vals.clear();
        t.jobs.clear();
        ctl
    }
}
