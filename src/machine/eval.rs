//! The evaluation loop and its transitions (the module docs of [`super`] list them):
//! the loop with its limits and errors, running code, needing a thunk, and a value
//! meeting the frame on top. Calls ([`super::apply`]), matches ([`super::case`]) and
//! words at hand ([`super::words`]) have modules of their own.

use super::Machine;
use super::code::{Code, CodeId, HeadCode, Site};
use super::error::{ErrorKind, Result, RuntimeError};
use super::frame::{Control, Frame, StrictOp};
use super::heap::{PapHead, ThunkState};
use super::value::{Ref, Val};
use crate::prim::Prim;
use std::sync::atomic::Ordering;

/// How deep [`Machine::imm`] looks into nested operators for a value at hand.
pub(crate) const IMM_DEPTH: u32 = 6;

impl<'p> Machine<'p> {
    /// Runs the loop from `ctl` until a value returns to the frame height it started
    /// at, and returns that value (a new reference). A runtime error unwinds to the
    /// nearest `try` above that height, or out.
    pub fn run(&mut self, ctl: Control) -> Result<Val> {
        let base = self.stacks.frames.len();
        self.run_at(ctl, base)
    }

    /// Like [`Machine::run`], until a value returns to frame height `base` (the
    /// control may come from frames pushed above it).
    pub(crate) fn run_at(&mut self, ctl: Control, base: usize) -> Result<Val> {
        let root = self.fiber;
        let mut ctl = ctl;
        let mut check_at = self.run.steps + super::CHECK_EVERY;
        if self.run.pause_after != 0 {
            check_at = check_at.min(self.run.pause_after + 1);
        }
        loop {
            self.run.steps += 1;
            if self.run.steps >= check_at {
                if self.run.pause_after != 0 && self.run.steps > self.run.pause_after {
                    // Stop before this step; the state stays for `read_back_state`.
                    self.run.steps -= 1;
                    self.run.paused = Some(ctl);
                    return Err(RuntimeError::new(
                        ErrorKind::Paused,
                        format!("evaluation paused after {} steps", self.run.steps),
                    ));
                }
                check_at = self.run.steps
                    + if self.run.audit_every != 0 {
                        self.run.audit_every
                    } else {
                        super::CHECK_EVERY
                    };
                if self.run.pause_after != 0 {
                    check_at = check_at.min(self.run.pause_after + 1);
                }
                if self.stacks.frames.len() > self.run.frames_peak {
                    self.run.frames_peak = self.stacks.frames.len();
                }
                self.maybe_collect_cycles(&ctl);
                if self.run.audit_every != 0
                    && let Err(e) = self.sight().audit(Some(&ctl), true)
                {
                    self.drop_ctl(ctl);
                    return Err(RuntimeError::new(
                        ErrorKind::Internal,
                        format!("internal error: {e}"),
                    ));
                }
                let checked = match self.check_limits() {
                    Ok(()) if self.host.is_some() => self.with_host(|h, m| h.tick(m, ctl)),
                    Ok(()) => Ok(ctl),
                    Err(e) => {
                        self.drop_ctl(ctl);
                        Err(e)
                    }
                };
                ctl = match checked {
                    Ok(c) => c,
                    Err(e) => self.fail(e, root, base)?,
                };
                if let Some(o) = &mut self.printer.out {
                    o.flush_if_due();
                }
            }
            let next = match ctl {
                Control::Eval(c, env) => self.eval(c, env),
                Control::Force(t) => self.force(t),
                Control::Ret(v) => {
                    let my_base = if self.fiber == root { base } else { 0 };
                    if self.stacks.frames.len() == my_base {
                        if self.fiber == root {
                            return Ok(v);
                        }
                        self.with_host(|h, m| h.fiber_done(m, Ok(v)))
                    } else {
                        self.ret(v)
                    }
                }
                Control::Park => match self.host.is_some() {
                    true => self.with_host(|h, m| h.switch(m)),
                    false => Err(RuntimeError::new(
                        ErrorKind::Internal,
                        "internal error: a fiber parked without a scheduler",
                    )),
                },
            };
            ctl = match next {
                Ok(c) => c,
                Err(e) => self.fail(e, root, base)?,
            };
        }
    }

    /// A runtime error in the current fiber: the fiber the run belongs to unwinds to
    /// its nearest `try` or out of [`Machine::run`]; another fiber unwinds to its own
    /// `try`, or ends failed and the scheduler goes on with the next.
    pub(crate) fn fail(&mut self, e: RuntimeError, root: u32, base: usize) -> Result<Control> {
        let e = match self.host.is_some() && e.kind.orders_after_futures() {
            false => e,
            true => match self.with_host(|h, m| h.before_error(m, e)) {
                super::host::ErrorStep::Raise(e) => e,
                super::host::ErrorStep::Wait => return Ok(Control::Park),
                super::host::ErrorStep::Fatal(e) => return self.fail_past_try(e, root, base),
            },
        };
        if self.fiber == root {
            return self.raise(e, base);
        }
        match self.raise(e, 0) {
            Ok(c) => Ok(c),
            Err(e) => match self.with_host(|h, m| h.fiber_done(m, Err(e))) {
                Ok(c) => Ok(c),
                Err(e) => self.fail(e, root, base),
            },
        }
    }

    /// An error that no `try` of the current fiber catches (it belongs to a future
    /// the fiber made before it pushed them): the fiber unwinds whole.
    #[cold]
    fn fail_past_try(&mut self, e: RuntimeError, root: u32, base: usize) -> Result<Control> {
        let e = self.place_error(e);
        if self.fiber == root {
            self.unwind_to(base, &e);
            return Err(self.final_error(e));
        }
        self.unwind_to(0, &e);
        match self.with_host(|h, m| h.fiber_done(m, Err(e))) {
            Ok(c) => Ok(c),
            Err(e) => self.fail(e, root, base),
        }
    }

    /// A runtime error: unwinds to the nearest `try` frame above `base` (which turns
    /// it into `Left message`), or out of [`Machine::run`].
    #[cold]
    pub(crate) fn raise(&mut self, e: RuntimeError, base: usize) -> Result<Control> {
        let e = self.place_error(e);
        let try_at = self.stacks.frames[base..]
            .iter()
            .rposition(|f| matches!(f, Frame::Try))
            .map(|i| base + i);
        match try_at {
            Some(i) => {
                self.unwind_to(i + 1, &e);
                self.stacks.frames.pop();
                let msg = self.heap.string(e.message.as_str().into());
                Ok(Control::Ret(self.data().maybe(Some(msg))))
            }
            None => {
                self.unwind_to(base, &e);
                Err(self.final_error(e))
            }
        }
    }

    /// Limits checked every [`super::CHECK_EVERY`] steps.
    #[cold]
    pub(crate) fn check_limits(&self) -> Result<()> {
        if self.run.step_limit != 0 && self.run.steps > self.run.step_limit {
            return Err(RuntimeError::new(
                ErrorKind::StepLimit,
                format!(
                    "evaluation exceeded its limit of {} steps",
                    self.run.step_limit
                ),
            ));
        }
        if let Some(flag) = &self.run.interrupt
            && flag.load(Ordering::Relaxed)
        {
            return Err(RuntimeError::new(ErrorKind::Interrupted, "interrupted"));
        }
        if self.run.max_memory == 0 {
            return Ok(());
        }
        // Readers of external results on other threads stop where this leaves no
        // room, and what they hold now counts here too ([`host::Host::held_bytes`]).
        let mine = self.memory_in_use();
        let held = self.host.as_ref().map_or(0, |h| h.held_bytes(mine));
        self.within_limit(mine.saturating_add(held))
    }

    /// The bytes `--max-memory` counts: the heap, the strings and the stacks.
    pub(crate) fn memory_in_use(&self) -> usize {
        self.heap.bytes_in_use() + self.stacks.bytes()
    }

    /// `--max-memory`: the heap, the strings and the stacks, plus `more` bytes about
    /// to be taken, must fit (LANGUAGE.md 6). The error's place is the computation
    /// in progress.
    #[inline]
    pub(crate) fn check_memory(&self, more: usize) -> Result<()> {
        if self.run.max_memory == 0 {
            return Ok(());
        }
        self.within_limit(self.memory_in_use().saturating_add(more))
    }

    /// `out of memory` when `bytes` are past `--max-memory` (which is set).
    fn within_limit(&self, bytes: usize) -> Result<()> {
        if bytes > self.run.max_memory {
            return Err(RuntimeError::new(ErrorKind::OutOfMemory, "out of memory"));
        }
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, f: Frame) {
        self.stacks.frames.push(f);
    }

    /// Runs code in a record (owned).
    pub(crate) fn eval(&mut self, c: CodeId, env: Ref) -> Result<Control> {
        Ok(match self.code.nodes[c as usize] {
            Code::Local(_) | Code::Outer { .. } => {
                let w = self.var_word(c, env).expect("variable");
                self.heap.retain(w);
                self.heap.release_rec(env);
                match w {
                    // Needed at once, without a step of its own.
                    Val::Thunk(t) => return self.force(t),
                    v => Control::Ret(v),
                }
            }
            Code::Global(d) => {
                self.heap.release_rec(env);
                match self.def_value(d) {
                    Val::Thunk(t) => return self.force(t),
                    v => Control::Ret(v),
                }
            }
            Code::Int(n) => {
                self.heap.release_rec(env);
                Control::Ret(Val::Int(n))
            }
            Code::Float(x) => {
                self.heap.release_rec(env);
                Control::Ret(Val::Float(x))
            }
            Code::Char(x) => {
                self.heap.release_rec(env);
                Control::Ret(Val::Char(x))
            }
            Code::Atom(k) => {
                self.heap.release_rec(env);
                Control::Ret(Val::Atom(k))
            }
            Code::Erased => {
                self.heap.release_rec(env);
                Control::Ret(Val::Erased)
            }
            Code::Universe(n) => {
                self.heap.release_rec(env);
                Control::Ret(Val::Universe(n))
            }
            Code::PrimType(p) => {
                self.heap.release_rec(env);
                Control::Ret(Val::PrimType(p))
            }
            Code::Str(_) => {
                let Code::Str(s) = &self.code.nodes[c as usize] else {
                    unreachable!()
                };
                let s = s.clone();
                self.heap.release_rec(env);
                Control::Ret(self.heap.string(s))
            }
            Code::Data(d) => {
                self.heap.release_rec(env);
                Control::Ret(self.heap.pap(PapHead::Data(d), 0, &[]))
            }
            Code::Hole => {
                self.heap.release_rec(env);
                Control::Ret(self.heap.pap(PapHead::Hole(c), 0, &[]))
            }
            Code::Head(h) => {
                self.heap.release_rec(env);
                let head = match h {
                    HeadCode::Con(k) => PapHead::Con(k),
                    HeadCode::Prim(p, s) => PapHead::Prim(p, s),
                    HeadCode::Extern(e) => PapHead::Extern(e, Site(c)),
                };
                Control::Ret(self.heap.pap(head, 0, &[]))
            }
            Code::Con { .. } => {
                let v = self.mkarg(c, env);
                self.heap.release_rec(env);
                Control::Ret(v)
            }
            Code::Lam(f) => {
                let v = self.closure(f, env);
                self.heap.release_rec(env);
                Control::Ret(v)
            }
            Code::Pi => Control::Ret(Val::Pi(self.heap.pis.alloc(super::heap::PiObj {
                rc: 1,
                code: c,
                env,
            }))),
            Code::CallDef { .. } => return self.call_def(c, env),
            Code::Apply { fun, args } => return self.apply_code(fun, args, env),
            Code::Bin { prim, a, b, span } => return self.bin(prim, a, b, span, env),
            Code::Prim { prim, args, span } => {
                let op = StrictOp::Prim(prim, span);
                return self.strict_code(op, args, env, prim.takes_whole_args());
            }
            Code::Extern { ext, args } => {
                return self.strict_code(StrictOp::Extern(ext, Site(c)), args, env, true);
            }
            // Needed now: no thunk to trim.
            Code::Trim { orig, .. } => Control::Eval(orig, env),
            Code::Seq { a, b } => {
                // `a` already evaluated (a strict `let`'s variable, a number): on to `b`.
                if let Some(v) = self.imm(a, env, IMM_DEPTH) {
                    self.heap.release(v);
                    return Ok(Control::Eval(b, env));
                }
                self.heap.retain_rec(env);
                self.push(Frame::SeqB { b, env });
                Control::Eval(a, env)
            }
            Code::Let {
                layout,
                rhs,
                body,
                recursive,
                strict,
                caps,
            } => {
                if strict {
                    if let Some(v) = self.imm(rhs, env, IMM_DEPTH) {
                        let parent = match self.code.let_caps.get(caps as usize).copied() {
                            Some((cl, ca)) => {
                                let r = self.captures_record(cl, ca, env);
                                self.heap.release_rec(env);
                                r
                            }
                            None => env,
                        };
                        let rec = self.heap.record(parent, layout, 1);
                        self.heap.set_slot(rec, 0, v);
                        return Ok(Control::Eval(body, rec));
                    }
                    // The frame keeps what the body needs: the captures, or the record.
                    let kept = match self.code.let_caps.get(caps as usize).copied() {
                        Some((cl, ca)) => self.captures_record(cl, ca, env),
                        None => {
                            self.heap.retain_rec(env);
                            env
                        }
                    };
                    self.push(Frame::LetStrict {
                        layout,
                        body,
                        env: kept,
                    });
                    return Ok(Control::Eval(rhs, env));
                }
                // The outer record's reference moves into the new record.
                let rec = self.heap.record(env, layout, 1);
                let v = if recursive {
                    // The only way the heap makes a cycle: the cycle collector has
                    // work only after one of these.
                    self.heap.cyclic += 1;
                    self.heap.retain_rec(rec);
                    Val::Thunk(self.heap.thunk(rhs, rec))
                } else {
                    self.mkarg(rhs, env)
                };
                self.heap.set_slot(rec, 0, v);
                Control::Eval(body, rec)
            }
            Code::Match(m) => {
                let scrut = self.code.matches[m as usize].scrut;
                let computable = match self.code.nodes[scrut as usize] {
                    Code::Bin { prim, .. } => is_compare(prim),
                    _ => self.code.call_at_hand(scrut),
                };
                if computable && let Some(v) = self.imm(scrut, env, IMM_DEPTH) {
                    // A condition computed in place (a comparison, a cheap call):
                    // choose the arm directly.
                    return self.case(v, m, env);
                }
                if let Some(w) = self.var_word(scrut, env)
                    && !matches!(w, Val::Thunk(_))
                {
                    self.heap.retain(w);
                    return self.case(w, m, env);
                }
                self.case_later(m, env)
            }
        })
    }

    /// Needs a thunk (owned reference).
    #[inline]
    pub(crate) fn force(&mut self, t: Ref) -> Result<Control> {
        let fiber = self.fiber;
        let obj = self.heap.thunks.get_mut(t);
        match obj.state {
            ThunkState::Done(v) => {
                self.heap.retain(v);
                self.heap.release(Val::Thunk(t));
                Ok(Control::Ret(v))
            }
            ThunkState::Suspended { code, env } => {
                obj.state = ThunkState::Blackholed { fiber, code };
                self.push(Frame::Update(t));
                Ok(Control::Eval(code, env))
            }
            ThunkState::Blackholed { fiber: owner, code } => {
                if owner != fiber
                    && let Some(ctl) = self.wait_for_thunk(t, owner)
                {
                    return Ok(ctl);
                }
                self.heap.release(Val::Thunk(t));
                Err(RuntimeError::at(
                    ErrorKind::InfiniteLoop,
                    "infinite loop",
                    self.code_span(code),
                ))
            }
            ThunkState::Failed(i) => {
                let e = self.heap.failures[i as usize].clone();
                self.heap.release(Val::Thunk(t));
                Err(e)
            }
        }
    }

    /// A fiber needs a thunk (owned reference) another fiber is evaluating: the
    /// scheduler parks it, or `None` when there is no scheduler or waiting would
    /// never end.
    pub(crate) fn wait_for_thunk(&mut self, t: Ref, owner: u32) -> Option<Control> {
        self.host.as_ref()?;
        self.with_host(|h, m| h.wait_thunk(m, t, owner))
    }

    /// A value reaches the frame on top.
    pub(crate) fn ret(&mut self, v: Val) -> Result<Control> {
        let f = self.stacks.frames.pop().expect("ret() with frames");
        match f {
            Frame::Update(t) => {
                if self.stacks.frames.is_empty()
                    && self.host.is_some()
                    && let Some(r) = self.with_host(|h, m| h.hold_last_update(m, t, v))
                {
                    self.stacks.frames.push(f);
                    if r.is_err() {
                        self.heap.release(v);
                    }
                    return r;
                }
                self.heap.retain(v);
                let o = self.heap.thunks.get_mut(t);
                o.state = ThunkState::Done(v);
                if o.waiters {
                    o.waiters = false;
                    self.with_host(|h, m| h.wake(m, t));
                }
                self.heap.release(Val::Thunk(t));
                Ok(Control::Ret(v))
            }
            Frame::Arg(..) => {
                self.stacks.frames.push(f);
                self.apply(v)
            }
            Frame::Case { m, env } => self.case(v, m, env),
            Frame::BinL { prim, b, env, span } => {
                if let Some(y) = self.imm(b, env, IMM_DEPTH) {
                    self.heap.release_rec(env);
                    return self.bin_run(prim, v, y, span);
                }
                self.push(Frame::BinR { prim, a: v, span });
                Ok(Control::Eval(b, env))
            }
            Frame::BinLv { prim, b, span } => {
                self.push(Frame::BinR { prim, a: v, span });
                Ok(self.need(b))
            }
            Frame::BinR { prim, a, span } => self.bin_run(prim, a, v, span),
            Frame::CallArgs {
                code,
                env,
                next,
                rec,
            } => {
                self.heap.set_slot(rec, next, v);
                self.call_args(code, env, next + 1, rec)
            }
            Frame::Strict { .. } => {
                self.stacks.frames.push(f);
                self.strict_value(v)
            }
            Frame::LetStrict { layout, body, env } => {
                let rec = self.heap.record(env, layout, 1);
                self.heap.set_slot(rec, 0, v);
                Ok(Control::Eval(body, rec))
            }
            Frame::SeqB { b, env } => {
                self.heap.release(v);
                Ok(Control::Eval(b, env))
            }
            Frame::ConcatL { b, span } => self.concat_left(v, b, span),
            Frame::ConcatR { a } => self.concat_right(a, v),
            Frame::Deep { root, base, spine } => {
                self.stacks.frames.push(Frame::Deep { root, base, spine });
                self.deep_value(v)
            }
            Frame::Eq { .. } => unreachable!("an Eq frame is never returned to directly"),
            Frame::Stream => unreachable!("the Stream frame is below the base of its run"),
            Frame::EqLeft(right) => {
                self.push(Frame::EqRight(v));
                Ok(self.need(right))
            }
            Frame::EqRight(left) => self.eq_step(left, v),
            Frame::Try => Ok(Control::Ret(v)),
            Frame::Declare { files, .. } => {
                self.heap.release(files);
                Ok(Control::Ret(v))
            }
            Frame::After(b) => {
                self.heap.release(v);
                Ok(self.need(b))
            }
        }
    }

    /// The control that needs a word (owned).
    #[inline(always)]
    pub(crate) fn need(&self, v: Val) -> Control {
        match v {
            Val::Thunk(t) => Control::Force(t),
            v => Control::Ret(v),
        }
    }
}

/// Whether a binary primitive is arithmetic or an ordering (computable in place on
/// numbers).
#[inline(always)]
pub(crate) fn is_arith(p: Prim) -> bool {
    matches!(
        p,
        Prim::Add
            | Prim::Sub
            | Prim::Mul
            | Prim::Div
            | Prim::Rem
            | Prim::Lt
            | Prim::Le
            | Prim::Gt
            | Prim::Ge
            | Prim::Eq
            | Prim::Ne
    )
}

/// Whether a binary primitive yields a `Bool`.
#[inline(always)]
pub(crate) fn is_compare(p: Prim) -> bool {
    matches!(
        p,
        Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge | Prim::Eq | Prim::Ne
    )
}

/// What an operator on two `Int`s gives.
pub(crate) enum IntResult {
    Int(i64),
    Bool(bool),
}

/// What an operator on two `Float`s gives.
pub(crate) enum FloatResult {
    Float(f64),
    Bool(bool),
}

/// An operator on two `Int`s; `None` when it fails (overflow, division by zero: the
/// general path reports those).
#[inline(always)]
pub(crate) fn int_op(p: Prim, x: i64, y: i64) -> Option<IntResult> {
    Some(match p {
        Prim::Add => IntResult::Int(x.checked_add(y)?),
        Prim::Sub => IntResult::Int(x.checked_sub(y)?),
        Prim::Mul => IntResult::Int(x.checked_mul(y)?),
        Prim::Div => IntResult::Int(x.checked_div(y)?),
        Prim::Rem => IntResult::Int(x.checked_rem(y)?),
        Prim::Lt => IntResult::Bool(x < y),
        Prim::Le => IntResult::Bool(x <= y),
        Prim::Gt => IntResult::Bool(x > y),
        Prim::Ge => IntResult::Bool(x >= y),
        Prim::Eq => IntResult::Bool(x == y),
        Prim::Ne => IntResult::Bool(x != y),
        _ => return None,
    })
}

/// An operator on two `Float`s (IEEE: never fails).
#[inline(always)]
pub(crate) fn float_op(p: Prim, x: f64, y: f64) -> Option<FloatResult> {
    Some(match p {
        Prim::Add => FloatResult::Float(x + y),
        Prim::Sub => FloatResult::Float(x - y),
        Prim::Mul => FloatResult::Float(x * y),
        Prim::Div => FloatResult::Float(x / y),
        Prim::Rem => FloatResult::Float(x % y),
        Prim::Lt => FloatResult::Bool(x < y),
        Prim::Le => FloatResult::Bool(x <= y),
        Prim::Gt => FloatResult::Bool(x > y),
        Prim::Ge => FloatResult::Bool(x >= y),
        Prim::Eq => FloatResult::Bool(x == y),
        Prim::Ne => FloatResult::Bool(x != y),
        _ => return None,
    })
}
